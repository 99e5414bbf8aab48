// core/series.cpp: the figures the GUI's charts draw, tested in core so they run under the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "kvplan/presets.hpp"
#include "kvplan/series.hpp"

using namespace kvplan;

namespace {
/// Llama-3.1-8B, bf16 KV: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token.
constexpr std::uint64_t kLlama8bPerToken = 32ULL * 2 * 8 * 128 * 2;
PlanInputs llama8b() {
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-8b");
  in.kv = KvDtypes{DType::bf16, DType::bf16};
  return in;
}
}  // namespace

TEST_CASE("series: log-spaced lengths, both ends included", "[series]") {
  CHECK(log_lengths(1024, 8192, 1) == std::vector<std::uint64_t>{1024, 2048, 4096, 8192});
  // 1,000 x 2^(1/2) = 1,414.2 -> 1,414; 2,000 passes the end, which is added.
  CHECK(log_lengths(1000, 1500, 2) == std::vector<std::uint64_t>{1000, 1414, 1500});
  CHECK(log_lengths(7, 7, 4) == std::vector<std::uint64_t>{7});
  // Strictly increasing even where rounding repeats a length (1, 1.19, 1.41, 1.68, 2 -> 1, 1, 1, 2, 2).
  const auto small = log_lengths(1, 4, 4);
  CHECK(std::adjacent_find(small.begin(), small.end(), std::greater_equal<>()) == small.end());
  CHECK_THROWS_WITH(log_lengths(0, 8, 1), Catch::StartsWith("series:"));
  CHECK_THROWS_WITH(log_lengths(8, 4, 1), Catch::StartsWith("series:"));
  CHECK_THROWS_WITH(log_lengths(1, 8, 0), Catch::StartsWith("series:"));
}

TEST_CASE("series: KV per GPU against context, the model and its variants, by the engine's rules",
          "[series]") {
  PlanInputs in = llama8b();
  const std::vector<Tokens> contexts{Tokens{1000}, Tokens{4096}};
  const KvMemorySeries s = kv_memory_series(in, contexts);
  REQUIRE(!s.curves.empty());
  CHECK(s.curves.front().label == "as configured");
  CHECK(s.curves.front().per_gpu ==
        std::vector<Bytes>{Bytes{1000 * kLlama8bPerToken}, Bytes{4096 * kLlama8bPerToken}});
  CHECK_FALSE(s.available_per_gpu.has_value());  // no GPU
  // MHA: 32 KV heads instead of 8, four times the bytes.
  const auto mha =
      std::find_if(s.curves.begin(), s.curves.end(), [](const KvCurve& c) { return c.label == "MHA"; });
  REQUIRE(mha != s.curves.end());
  CHECK(mha->per_gpu.front() == Bytes{4 * 1000 * kLlama8bPerToken});

  // Under vLLM the curve is the engine's: 1,000 tokens take cdiv(1,000, 16) = 63 pages of 16 tokens,
  // 1,008 tokens' worth, with or without a GPU.
  in.engine.engine = Engine::vllm;
  const KvMemorySeries v = kv_memory_series(in, contexts);
  CHECK(v.curves.front().per_gpu.front() == Bytes{1008 * kLlama8bPerToken});
  CHECK(v.curves.front().per_gpu.back() == Bytes{4096 * kLlama8bPerToken});
}

TEST_CASE("series: max users against context", "[series]") {
  PlanInputs in = llama8b();
  const std::vector<Tokens> contexts{Tokens{1024}, Tokens{4096}, Tokens{1ULL << 62}};
  CHECK_THROWS_WITH(max_users_series(in, contexts), Catch::StartsWith("gpu:"));
  in.gpu = custom_gpu(Bytes{80ULL << 30});
  in.kv_memory = Bytes{1ULL << 30};  // 1 GiB of KV, as an engine logs it
  const UsersSeries s = max_users_series(in, contexts);
  // 1,024 tokens: 134,217,728 B a sequence, 8 fit; 4,096: 536,870,912 B, 2 fit; 2^62 tokens overflow the
  // bytes, and the series stops there.
  CHECK(s.max_users == std::vector<std::uint64_t>{8, 2});
  CHECK(s.contexts.size() == 3);
}

TEST_CASE("series: capacity series, worked by hand", "[series]") {
  PlanInputs in = llama8b();
  in.users = 2;
  in.gpu = custom_gpu(Bytes{80ULL << 30});
  in.kv_memory = Bytes{1ULL << 30};
  const std::vector<Tokens> contexts{Tokens{1024}, Tokens{4096}, Tokens{1ULL << 62}};
  const CapacitySeries s = capacity_series(in, contexts);
  // 2 users x 1,024 x 131,072 B = 268,435,456 B; at 4,096: 1,073,741,824 B. Max users as above: 8, 2.
  CHECK(s.per_gpu == std::vector<Bytes>{Bytes{268435456}, Bytes{1073741824}});
  CHECK(s.max_users == std::vector<std::uint64_t>{8, 2});
  // 2^62 tokens x 131,072 B = 2^79 B: the exact layout's sequence overflows first, named as make_plan names
  // it.
  REQUIRE(s.error.has_value());
  CHECK(s.error->field() == "kv_bytes_per_sequence");
  CHECK(s.contexts.size() == 3);

  // A first context that does not plan leaves the series empty, with make_plan's error (llama.cpp has no tp).
  in.engine.engine = Engine::llamacpp;
  in.deployment.parallel.tp = 2;
  const CapacitySeries refused = capacity_series(in, contexts);
  CHECK(refused.per_gpu.empty());
  CHECK(refused.max_users.empty());
  REQUIRE(refused.error.has_value());
  CHECK(refused.error->field() == "tp");
}

TEST_CASE("series: the capacity series is make_plan at every context, for every engine", "[series]") {
  // The series asks one engine policy per context; make_plan plans each context whole. They must agree
  // on every point, and the series must stop at the context where make_plan first throws, with its error.
  std::vector<Tokens> contexts;
  for (const std::uint64_t n : log_lengths(1, 1ULL << 20, 3)) contexts.push_back(Tokens{n});
  contexts.push_back(Tokens{1ULL << 40});
  contexts.push_back(Tokens{1ULL << 52});  // past 2^64 bytes for every model here
  contexts.push_back(Tokens{1ULL << 62});
  struct Case {
    const char* model;
    Parallelism par;
    std::uint64_t users;
  };
  const Case cases[] = {{"llama-3.1-8b", {1, 1, 1}, 8},     {"llama-3.1-8b", {2, 2, 2}, 5},
                        {"gemma-3-12b", {1, 1, 1}, 3},      {"gemma-3-12b", {2, 1, 3}, 7},
                        {"deepseek-v2-lite", {1, 1, 1}, 4}, {"jamba-1.5-mini", {1, 1, 2}, 3},
                        {"gpt-oss-20b", {1, 2, 1}, 16}};
  int compared = 0;
  for (const Case& c : cases) {
    for (const Engine e : {Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm}) {
      for (const bool gpu : {false, true}) {
        PlanInputs in;
        in.model = presets::find_model(c.model);
        in.users = c.users;
        in.deployment.parallel = c.par;
        in.engine.engine = e;
        if (gpu) in.gpu = custom_gpu(Bytes{80ULL << 30});
        INFO(c.model << " " << name(e) << " tp " << c.par.tp << " pp " << c.par.pp << " dp " << c.par.dp
                     << (gpu ? " with GPU" : " without GPU"));
        const CapacitySeries s = capacity_series(in, contexts);
        CHECK(s.contexts == contexts);
        CHECK(s.per_gpu.size() == s.max_users.size());
        std::size_t i = 0;
        for (; i < contexts.size(); ++i) {
          PlanInputs at = in;
          at.context = contexts[i];
          Plan p;
          try {
            p = make_plan(at, false);
          } catch (const Error& err) {
            CHECK(s.per_gpu.size() == i);
            REQUIRE(s.error.has_value());
            CHECK(std::string(s.error->what()) == err.what());
            break;
          }
          REQUIRE(i < s.per_gpu.size());
          CHECK(s.per_gpu[i] == p.per_gpu.kv_bytes_total);
          CHECK(s.max_users[i] == p.max_users);
          ++compared;
        }
        if (i == contexts.size()) CHECK_FALSE(s.error.has_value());
      }
    }
  }
  CHECK(compared > 1000);  // most cases plan most contexts: the comparison is not vacuous
}

TEST_CASE("series: prefill cost relative to a reference prompt, and measured times on that axis",
          "[series]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  const std::vector<std::uint64_t> prompts{1024, 2048, 4096};
  const PrefillSeries s = prefill_series(m, prompts, 1024);
  REQUIRE(s.total.size() == 3);
  CHECK(s.total.front() == 1.0);  // the reference itself
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(s.linear[i] + s.attention[i] == Approx(s.total[i]));
    // The linear part doubles with the prompt; the attention part grows faster (quadratic).
    if (i > 0) {
      CHECK(s.linear[i] == Approx(2 * s.linear[i - 1]));
      CHECK(s.attention[i] > 2 * s.attention[i - 1]);
    }
  }
  // Measured: the shortest prompt sits on the model's curve (1.0 at the reference), the others scale
  // with their times: 2.5 s against 1 s is 2.5.
  const std::vector<MeasuredPrefill> measured{{2048, 2.5}, {1024, 1.0}};
  CHECK(relative_measured(m, measured, 1024) == std::vector<double>{2.5, 1.0});
  CHECK_THROWS_WITH(relative_measured(m, std::vector<MeasuredPrefill>{}, 1024),
                    Catch::StartsWith("measured:"));
  CHECK_THROWS_WITH(relative_measured(m, std::vector<MeasuredPrefill>{{1024, 0.0}}, 1024),
                    Catch::StartsWith("measured:"));
}
