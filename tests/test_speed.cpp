// Tests for core/speed.hpp: the decode roofline, expected distinct experts, TTFT.
#include <catch2/catch.hpp>

#include "kvplan/prefill.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/speed.hpp"
#include "kvplan/weights.hpp"
#include "test_support.hpp"

using namespace kvplan;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
Gpu round_gpu() {
  Gpu g;
  g.id = "round";
  g.name = "round figures";
  g.memory = Bytes{80ULL << 30};
  g.memory_bandwidth_bytes_per_s = 1'000'000'000'000;  // 1 TB/s
  g.bf16_dense_flops = 1'000'000'000'000'000;          // 1 PFLOP/s
  g.link_bandwidth_bytes_per_s = 100'000'000'000;      // 100 GB/s one way
  return g;
}
}  // namespace

TEST_CASE("expected distinct experts: E x (1 - (1 - k/E)^B)", "[speed]") {
  // One token touches exactly its top-k.
  CHECK_THAT(expected_distinct_experts(8, 2, 1), WithinAbs(2.0, 1e-12));
  // Two tokens, Mixtral's 2 of 8: 8 x (1 - (6/8)^2) = 8 x (1 - 0.5625) = 3.5.
  CHECK_THAT(expected_distinct_experts(8, 2, 2), WithinAbs(3.5, 1e-12));
  // DeepSeek-V3's 8 of 256 for 16 tokens: 256 x (1 - (248/256)^16) = 256 x (1 - 0.601710) = 101.962.
  CHECK_THAT(expected_distinct_experts(256, 8, 16), WithinRel(101.96216, 1e-6));
  // A large batch touches (nearly) all of them; a dense model has none.
  CHECK_THAT(expected_distinct_experts(8, 2, 1000), WithinAbs(8.0, 1e-9));
  CHECK(expected_distinct_experts(0, 0, 64) == 0.0);
  CHECK_THROWS_AS(expected_distinct_experts(4, 8, 1), Error);
}

TEST_CASE("decode step of a dense model at batch 1 is the weights over the bandwidth", "[speed]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  KvDtypes t;
  const Gpu g = round_gpu();
  const DecodeStep s = decode_step(m, t, Parallelism{}, g, 1, Tokens{1}, SpeedEfficiency{});
  // Weights 8,030,261,248 params x 2 B = 16,060,522,496 B; KV of one token: 32 layers x 8 heads x 128 x 2 (K,
  // V) x 2 B = 131,072 B. Memory: 16,060,653,568 B / (1e12 B/s x 0.8) = 0.02007581696 s.
  CHECK_THAT(s.weight_bytes_per_gpu, WithinAbs(16'060'522'496.0, 0.5));
  CHECK(s.kv_bytes_per_gpu == Bytes{131'072});
  CHECK_THAT(s.memory_s, WithinRel(0.02007581696, 1e-12));
  // FLOPs of the first token: its whole prefill (2 x params + 32 layers x 2 x 32 heads x 256 x 1 pair).
  CHECK_THAT(s.flops_per_gpu, WithinAbs(static_cast<double>(prefill_flops(m, 1).total), 0.5));
  CHECK(s.memory_bound);
  CHECK(s.allreduce_s == 0.0);
  CHECK(s.seconds == s.memory_s);
}

TEST_CASE("decode step: the batch's KV at the context, tp and its all-reduces", "[speed]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  KvDtypes t;
  const Gpu g = round_gpu();
  const DecodeStep s = decode_step(m, t, Parallelism{2, 1, 1}, g, 4, Tokens{8192}, SpeedEfficiency{});
  // tp 2: 4 KV heads per rank, 32 x 4 x 128 x 2 x 2 B = 65,536 B per token x 8,192 tokens x 4 sequences
  // = 2,147,483,648 B; weights halved: 8,030,261,248 B.
  CHECK(s.kv_bytes_per_gpu == Bytes{2'147'483'648});
  CHECK_THAT(s.weight_bytes_per_gpu, WithinAbs(8'030'261'248.0, 0.5));
  // FLOPs of the token at position 8,192 (prefill(8192) - prefill(8191)) x 4 sequences / 2 ranks.
  const double one = static_cast<double>(prefill_flops(m, 8192).total - prefill_flops(m, 8191).total);
  CHECK_THAT(s.flops_per_gpu, WithinRel(one * 4 / 2, 1e-12));
  // 2 all-reduces x 32 layers of 4 x 4,096 x 2 B = 32,768 B each; ring: 2 x (2 - 1) / 2 x 32,768 B /
  // (1e11 B/s x 0.7) = 4.681e-7 s; x 64 = 2.99593e-5 s.
  CHECK_THAT(s.allreduce_s, WithinRel(64 * 32768.0 / 7e10, 1e-12));
  CHECK_THAT(s.seconds, WithinRel(std::max(s.memory_s, s.compute_s) + s.allreduce_s, 1e-12));
}

TEST_CASE("decode step of a MoE reads only the experts the batch touches", "[speed]") {
  const ModelSpec m = presets::find_model("mixtral-8x7b");
  KvDtypes t;
  const Gpu g = round_gpu();
  const double all = static_cast<double>(model_weight_bytes(m).value);
  const double experts =
      static_cast<double>(weight_bytes(parameter_breakdown(m).experts, m.expert_weight_dtype).value);
  // Batch 1: 2 of 8 experts; batch 2: 3.5 of 8.
  const DecodeStep one = decode_step(m, t, Parallelism{}, g, 1, Tokens{1}, SpeedEfficiency{});
  CHECK_THAT(one.weight_bytes_per_gpu, WithinRel(all - experts + experts * 2.0 / 8.0, 1e-12));
  const DecodeStep two = decode_step(m, t, Parallelism{}, g, 2, Tokens{1}, SpeedEfficiency{});
  CHECK_THAT(two.weight_bytes_per_gpu, WithinRel(all - experts + experts * 3.5 / 8.0, 1e-12));
}

TEST_CASE("estimate_speed: TTFT, tokens per second, replicas", "[speed]") {
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-8b");
  in.gpu = round_gpu();
  in.context = Tokens{4096};
  in.users = 6;
  in.deployment.parallel = Parallelism{1, 1, 2};
  const SpeedFigures f = estimate_speed(in);
  // 3 sequences per replica; TTFT = prefill FLOPs of 4,096 tokens / (1e15 x 0.5).
  CHECK(f.step.batch == 3);
  CHECK_THAT(f.ttft_s, WithinRel(static_cast<double>(prefill_flops(in.model, 4096).total) / 5e14, 1e-12));
  CHECK_THAT(f.tokens_per_s, WithinRel(6.0 / f.tpot_s, 1e-12));
  CHECK_THAT(f.tokens_per_s_per_gpu, WithinRel(3.0 / f.tpot_s, 1e-12));
  CHECK_THAT(f.tokens_per_s_per_user, WithinRel(1.0 / f.tpot_s, 1e-12));
}

TEST_CASE("speed errors name the field", "[speed]") {
  const ModelSpec m = test::model({{test::gqa(8, 8, 64), 2}});
  Gpu g = round_gpu();
  SpeedEfficiency e;
  e.memory = 1.5;
  CHECK_THROWS_WITH(decode_step(m, KvDtypes{}, Parallelism{}, g, 1, Tokens{1}, e),
                    Catch::Contains("efficiency"));
  g.link_bandwidth_bytes_per_s = 0;
  CHECK_THROWS_WITH(decode_step(m, KvDtypes{}, Parallelism{2, 1, 1}, g, 1, Tokens{1}, SpeedEfficiency{}),
                    Catch::Contains("link bandwidth"));
  g.memory_bandwidth_bytes_per_s = 0;
  CHECK_THROWS_WITH(decode_step(m, KvDtypes{}, Parallelism{}, g, 1, Tokens{1}, SpeedEfficiency{}),
                    Catch::Contains("memory bandwidth"));
}
