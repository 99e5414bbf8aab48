// Core's errors in domain words (options.hpp): the field is the input's key, another input named in the
// reason is its key in backticks, and no reason names a kvplan CLI flag; each front end words the keys at
// its edge (the CLI as flags, cli/aliases.cpp cli_words; the GUI as labels, gui/src/controller.cpp
// error_text).
#include <catch2/catch.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/options.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/speed.hpp"
#include "kvplan/streaming.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

namespace {

/// kvplan's own CLI flags: every input's (options.hpp input_names, the engine options' included) and the
/// CLI's own inputs that core has no key for.
std::vector<std::string> kvplan_flags() {
  std::vector<std::string> out;
  for (const auto& n : input_names()) out.emplace_back(n.cli_flag);
  for (const char* f : {"--from-log", "--from-launch", "--gpu-memory", "--json", "--model", "--preset-dir"})
    out.emplace_back(f);
  return out;
}

/// The first kvplan flag `text` names as a whole flag ("--tp" in "use --tp 2", not in the engine's own
/// "--tp_size" or "--tp-size"); "" when none.
std::string kvplan_flag_in(std::string_view text) {
  const auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  };
  for (const auto& flag : kvplan_flags())
    for (std::size_t at = text.find(flag); at != std::string_view::npos; at = text.find(flag, at + 1)) {
      const std::size_t end = at + flag.size();
      const bool starts = at == 0 || !word(text[at - 1]);
      if (starts && (end == text.size() || !word(text[end]))) return flag;
    }
  return "";
}

/// The error `f` throws; fails the test when it throws none.
Error thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no kvplan::Error thrown");
  return Error("", "");
}

/// Checks that `e` is in domain words: its field a key (never a flag) and no kvplan flag in its reason.
void check_domain_words(const Error& e) {
  INFO(e.what());
  CHECK(e.field().rfind('-', 0) != 0);
  CHECK(kvplan_flag_in(e.reason()).empty());
}

std::string cli(std::string_view text) {
  return word_inputs(text, [](std::string_view k) { return std::string(cli_flag_for(k)); });
}
std::string gui(std::string_view text) {
  return word_inputs(text, [](std::string_view k) { return std::string(gui_label_for(k)); });
}

EngineOptions engine_of(Engine e) {
  EngineOptions o;
  o.engine = e;
  return o;
}

/// 10 layers of MHA 4 heads x 16 dims on a 1 GiB GPU: small enough to plan under every engine.
PlanInputs small_plan() {
  PlanInputs in;
  in.model = model({{gqa(4, 4, 16), 10}});
  in.gpu = custom_gpu(Bytes{1ULL << 30});
  in.deployment.weights = Bytes{0};
  in.context = Tokens{4096};
  in.users = 1;
  return in;
}

}  // namespace

TEST_CASE("word_inputs: the keys in backticks worded by the front end, anything else as written",
          "[errors]") {
  CHECK(cli("give `gpu` for its peak") == "give --gpu for its peak");
  CHECK(gui("give `gpu` for its peak") == "give GPU for its peak");
  CHECK(cli("use `pp` for a layer split; `engine` vllm") == "use --pp for a layer split; --engine vllm");
  CHECK(cli("`block_size` 16") == "--block-size 16");  // an engine option's key too
  // Not a key: as written, backticks and all; an unpaired one too; a key after a non-key still worded.
  CHECK(cli("`kvplan size` and `model`") == "`kvplan size` and `model`");
  CHECK(cli("a ` alone") == "a ` alone");
  CHECK(cli("`x` then `tp`") == "`x` then --tp");
  CHECK(cli("``") == "``");
  CHECK(input_ref("gpus_per_node") == "`gpus_per_node`");
  CHECK(input_ref("model") == "model");  // no input: the field as it is
}

TEST_CASE("core's errors name inputs by key, never by a kvplan CLI flag", "[errors]") {
  SECTION("an engine option under another engine: the engines by name, `engine` as a key") {
    const EngineOptionSpec& ubatch = *find_engine_option("ubatch");
    const Error e = thrown([&] { require_engine_option_applies(ubatch, engine_of(Engine::vllm)); });
    check_domain_words(e);
    CHECK(e.field() == "ubatch");
    CHECK(e.reason() == "applies to `engine` llamacpp");
    // The CLI's words as it printed them before (cli_tests.cmake "engine option for another engine").
    CHECK(cli(e.reason()) == "applies to --engine llamacpp");
    CHECK(gui(e.reason()) == "applies to engine rules llamacpp");
  }
  SECTION("vLLM's fp8_ds_mla under another engine") {
    EngineOptions o = engine_of(Engine::sglang);
    o.fp8_ds_mla = true;
    const Error e = thrown([&] { validate_engine_options(o); });
    check_domain_words(e);
    CHECK(e.field() == "kv_dtype");
    CHECK(cli(e.reason()) == "fp8_ds_mla is a vLLM cache type: use it with --engine vllm");
  }
  SECTION("llama.cpp's tp: a layer split is `pp`") {
    PlanInputs in = small_plan();
    in.engine = engine_of(Engine::llamacpp);
    in.deployment.parallel.tp = 2;
    const Error e = thrown([&] { (void)make_plan(in); });
    check_domain_words(e);
    CHECK(e.field() == "tp");
    CHECK(e.reason() ==
          "llama.cpp does not split the KV cache by heads: use `pp` for a layer split across devices");
    CHECK(gui(e.reason()) ==
          "llama.cpp does not split the KV cache by heads: use pipeline stages (pp) for a layer split across "
          "devices");
  }
  SECTION("DP attention under llama.cpp, and on a dense model") {
    PlanInputs in = small_plan();
    in.engine = engine_of(Engine::llamacpp);
    in.deployment.parallel.tp = 2;
    in.deployment.dp_attention = 2;
    const Error llama = thrown([&] { (void)make_plan(in); });
    check_domain_words(llama);
    CHECK(cli(llama.reason()) == "applies to --engine ideal, vllm, sglang or trtllm");
    in.engine = engine_of(Engine::vllm);
    const Error dense = thrown([&] { (void)make_plan(in); });
    check_domain_words(dense);
    CHECK(dense.field() == "dp_attention");
    CHECK(cli(dense.reason()) ==
          "needs a mixture-of-experts model (expert parallel); test is dense: its data-parallel replicas are "
          "--gpus");
  }
  SECTION("unknown weights with a GPU: the weights' size, as the key") {
    PlanInputs in = small_plan();
    in.deployment.weights.reset();
    in.model.weights_unknown = "no vocab_size";
    const Error e = thrown([&] { (void)make_plan(in); });
    check_domain_words(e);
    CHECK(e.field() == "weights");
    CHECK(e.reason() ==
          "the model's weights are unknown (no vocab_size): give the weights' size (`weights`) for a "
          "capacity plan");
    CHECK(cli(e.reason()) ==
          "the model's weights are unknown (no vocab_size): give the weights' size (--weights) for a "
          "capacity plan");
  }
  SECTION("an MLA model's V type: one type for both, `kv_dtype`") {
    const auto deepseek = model({{mla(16, 512, 64), 2}});
    const Error e = thrown([&] { require_v_type_applies(deepseek, KvDtypes{DType::bf16, DType::fp8_e4m3}); });
    check_domain_words(e);
    CHECK(e.field() == "v_dtype");
    CHECK_THAT(gui(e.reason()), Catch::EndsWith("give one type for both (KV cache dtype)"));
  }
  SECTION("StreamingLLM's cap under an engine") {
    const Error e = thrown([] { require_streaming_engine(Engine::vllm, "sink_tokens"); });
    check_domain_words(e);
    CHECK(cli(e.reason()) ==
          "StreamingLLM's cache is kvplan's exact layout only (--engine ideal); vllm has no attention-sink "
          "cache");
  }
  SECTION("speed without a GPU") {
    PlanInputs in = small_plan();
    in.gpu.reset();
    const Error e = thrown([&] { (void)estimate_speed(in, SpeedEfficiency{}); });
    check_domain_words(e);
    CHECK(e.field() == "gpu");
    CHECK(e.reason() == "speed needs a GPU");
  }
  SECTION("a calibration without a GEMM baseline: `gpu` for its peak") {
    PrefillCalibration c;
    c.source = "bench.json";
    c.attention_flops_per_s = 1e11;
    const Error e = thrown([&] { (void)prefill_seconds(PrefillFlops{}, c, 0.0); });
    check_domain_words(e);
    CHECK(cli(e.reason()) == "bench.json: no GEMM baseline for the linear part; give --gpu for its peak");
  }
  SECTION("an overflow is named by its input's key and value") {
    PlanInputs in = small_plan();
    in.context = Tokens{std::numeric_limits<std::uint64_t>::max()};
    const Error e = thrown([&] {
      try {
        (void)make_plan(in);
      } catch (const Error& raw) {
        rethrow_naming_input(raw, in);
      }
    });
    check_domain_words(e);
    // 2 x 4 heads x 16 x 2 B x 10 layers = 2,560 B per token, x (2^64 - 1) tokens passes 2^64.
    CHECK(e.field() == "context");
    CHECK(e.reason() ==
          "18446744073709551615: the KV cache of one sequence overflows 2^64 B (2,560 B per token x "
          "18,446,744,073,709,551,615 tokens)");
  }
  SECTION("the engines a model's cache is not modelled under name the others, by name") {
    const ModelSpec m = presets::load_model_file(std::string(KVPLAN_CORPUS) + "/deepseek-v3.2.json");
    const KvDtypes f16{DType::fp16, DType::fp16};
    for (const Engine engine : {Engine::llamacpp, Engine::trtllm}) {
      const Error e = thrown([&] {
        if (engine == Engine::llamacpp)
          (void)llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, engine_of(engine), std::nullopt);
        else
          (void)trtllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{4096}, engine_of(engine), std::nullopt);
      });
      check_domain_words(e);
      CHECK(e.field() == "engine");
      CHECK_THAT(e.reason(), Catch::EndsWith("not modelled by kvplan; use vllm, sglang or ideal"));
    }
  }
  SECTION("fit: tp past a node, and DP attention under an engine without it") {
    FitRequest r;
    r.model = presets::find_model("llama-3.1-70b");
    r.context = Tokens{32768};
    r.users = 16;
    r.gpus = {presets::find_gpu("h100-sxm")};
    r.pp = {1};
    r.kv_dtypes = {KvDtypes{}};
    r.max_gpus = 64;
    r.tp = {16};
    const Error node = thrown([&] { (void)fit(r); });
    check_domain_words(node);
    CHECK(node.field() == "tp");
    CHECK(cli(node.reason()) ==
          "16 is more than --gpus-per-node 8: tensor parallel (and a DP attention group) stays within one "
          "node; "
          "with --dp-attention N, tp / N GPUs a group, it may span nodes");
    r.model = presets::find_model("deepseek-v3");
    r.gpus = {presets::find_gpu("h200")};
    r.tp.clear();
    r.kv_dtypes.clear();
    r.max_gpus = 8;
    r.engine = engine_of(Engine::llamacpp);
    r.dp_attention = {2};
    const Error dpa = thrown([&] { (void)fit(r); });
    check_domain_words(dpa);
    CHECK(dpa.field() == "dp_attention");
    CHECK(cli(dpa.reason()) ==
          "fit searches DP attention under --engine ideal, vllm or sglang, not llamacpp");
  }
}

namespace {

/// The text of every string literal in the calls core makes to build an Error or a line the front ends
/// show (Error(...), refused / warnings / notes .push_back(...)) in `source`, one entry per call, comments
/// skipped.
std::vector<std::string> reason_literals(const std::string& source) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;  // > 0: inside such a call's parentheses
  std::size_t i = 0;
  const auto starts_call = [&](std::size_t at) {
    for (const std::string_view head :
         {"Error(", "refused.push_back(", "warnings.push_back(", "notes.push_back("})
      if (source.compare(at, head.size(), head) == 0 &&
          (at == 0 || !(std::isalnum(static_cast<unsigned char>(source[at - 1])) || source[at - 1] == '_')))
        return head.size();
    return std::size_t{0};
  };
  while (i < source.size()) {
    const char c = source[i];
    if (source.compare(i, 2, "//") == 0) {
      i = source.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (source.compare(i, 2, "/*") == 0) {
      i = source.find("*/", i + 2);
      if (i == std::string::npos) break;
      i += 2;
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string text;
      std::size_t j = i + 1;
      for (; j < source.size() && source[j] != c; ++j) {
        if (source[j] == '\\') ++j;
        if (j < source.size()) text += source[j];
      }
      if (c == '"' && depth > 0) current += (current.empty() ? "" : " ") + text;
      i = j + 1;
      continue;
    }
    if (depth == 0) {
      if (const std::size_t n = starts_call(i)) {
        depth = 1;
        current.clear();
        i += n;
        continue;
      }
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      out.push_back(current);
    }
    ++i;
  }
  return out;
}

}  // namespace

TEST_CASE("no reason in core/src names a kvplan CLI flag (a scan of the source)", "[errors]") {
  // The scanner itself: a literal in an Error call is seen, one in a comment or a launch line is not.
  const auto seen = reason_literals(
      "throw Error(\"tp\", \"use \" + x + \"--pp for it\");  // not \"--gpu\" here\n"
      "s += \" --max-num-seqs \";  Error range(\"a\", \"b\");\n"
      "b.notes.push_back(\"(--gpu-util sets it)\");");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0] == "tp use  --pp for it");
  CHECK(kvplan_flag_in(seen[0]) == "--pp");
  CHECK(kvplan_flag_in(seen[1]) == "--gpu-util");
  CHECK(kvplan_flag_in("SGLang's --tp_size and --pp-size, llama-server's -ub") == "");

  std::size_t calls = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KVPLAN_CORE_SRC)) {
    if (entry.path().extension() != ".cpp") continue;
    // The option table itself maps each key to its flag: the one place core spells them.
    if (entry.path().filename() == "options.cpp") continue;
    std::ifstream file(entry.path());
    std::stringstream text;
    text << file.rdbuf();
    for (const auto& literal : reason_literals(text.str())) {
      ++calls;
      INFO(entry.path().filename().string() << ": " << literal);
      CHECK(kvplan_flag_in(literal).empty());
    }
  }
  CHECK(calls > 150);  // every core source file read, not an empty folder
}
