// The context limit each engine derives from a config (engine_max_context), and the warnings, marks and
// launch lines built on it. Expected figures are worked by hand from the engines' code (see
// kvplan/context_limit.hpp for each engine's file and function) and the configs quoted here.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "kvplan/context_limit.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;
using nlohmann::json;

namespace {
/// A small Qwen3-like config with the given length keys and RoPE scaling merged in.
ModelSpec small_config(const json& extra) {
  json c = {{"model_type", "qwen3"},    {"num_hidden_layers", 2},   {"hidden_size", 64},
            {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 16},
            {"vocab_size", 100},        {"intermediate_size", 128}};
  c.update(extra);
  return presets::model_from_hf_config(c, "test.json");
}

std::uint64_t limit(const ModelSpec& m, Engine e) {
  const auto l = engine_max_context(m, e);
  REQUIRE(l.has_value());
  return l->value;
}

/// A plan's inputs for a launch line: one replica of `m` on one H100 at `context`.
FitRequest job(const ModelSpec& m, std::uint64_t context, Engine e) {
  FitRequest r;
  r.model = m;
  r.context = Tokens{context};
  r.users = 1;
  r.gpus = {presets::find_gpu("h200")};
  r.tp = {1};
  r.pp = {1};
  r.engine.engine = e;
  return r;
}
}  // namespace

TEST_CASE("context limit: Qwen3-style yarn (max_position_embeddings 40,960, yarn x4 on 32,768)",
          "[context]") {
  const ModelSpec m =
      small_config({{"max_position_embeddings", 40960},
                    {"rope_scaling",
                     {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}}}});
  CHECK(m.context_keys.rope.type == "yarn");
  CHECK(m.context_keys.rope.factor == 4.0);
  CHECK(m.context_keys.rope.original_max_position_embeddings == 32768);
  // vLLM: yarn starts from original 32,768, x 4 = 131,072.
  CHECK(limit(m, Engine::vllm) == 131072);
  // SGLang: original_max_position_embeddings given -> factor 1: max_position_embeddings 40,960.
  CHECK(limit(m, Engine::sglang) == 40960);
  // TensorRT-LLM: no factor for yarn: 40,960.
  CHECK(limit(m, Engine::trtllm) == 40960);
  CHECK(limit(m, Engine::llamacpp) == 40960);
  CHECK(limit(m, Engine::ideal) == 40960);

  CHECK_FALSE(context_warning(m, Tokens{100000}, Engine::vllm).has_value());
  CHECK(
      context_warning(m, Tokens{200000}, Engine::vllm) ==
      "context 200,000 passes vLLM's derived max_model_len 131,072 (original_max_position_embeddings 32,768 "
      "x rope_scaling factor 4, yarn): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  CHECK(context_warning(m, Tokens{100000}, Engine::sglang) ==
        "context 100,000 passes SGLang's context length 40,960 (max_position_embeddings 40,960; rope_scaling "
        "factor 4 not applied: original_max_position_embeddings given): SGLang refuses it without "
        "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1");
  CHECK(context_warning(m, Tokens{100000}, Engine::ideal) ==
        "context 100,000 exceeds the model's max_position_embeddings 40,960");

  // 100,000 tokens: vLLM takes it as is (no setting, no comment); SGLang needs its setting.
  CHECK_THAT(fit(job(m, 100000, Engine::vllm)).rows.front().launch,
             Catch::StartsWith("vllm serve ") && !Catch::Contains("#"));
  CHECK_THAT(
      fit(job(m, 100000, Engine::sglang)).rows.front().launch,
      Catch::StartsWith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server ") &&
          Catch::Contains("  # context 100,000 past SGLang's context length 40,960"));
  // TensorRT-LLM would lower max_seq_len to 40,960.
  CHECK_THAT(fit(job(m, 100000, Engine::trtllm)).rows.front().launch,
             Catch::StartsWith("TLLM_ALLOW_LONG_MAX_MODEL_LEN=1 trtllm-serve ") &&
                 Catch::Contains(
                     "TensorRT-LLM lowers max_seq_len to 40,960 without TLLM_ALLOW_LONG_MAX_MODEL_LEN=1"));
}

TEST_CASE("context limit: Llama 3.1 (llama3 rope type: no factor)", "[context]") {
  // max_position_embeddings 131,072; rope_scaling llama3 factor 8, original 8,192.
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  CHECK(m.context_keys.rope.type == "llama3");
  for (const Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm, Engine::llamacpp, Engine::ideal})
    CHECK(limit(m, e) == 131072);
}

TEST_CASE("context limit: Gemma 3 (linear x8 on 131,072)", "[context]") {
  // text_config: rope_scaling linear factor 8; max_position_embeddings from Gemma3TextConfig's 131,072.
  const ModelSpec m = presets::find_model("gemma-3-27b");
  CHECK(m.context_keys.model_type == "gemma3_text");
  CHECK(limit(m, Engine::vllm) == 131072);  // vLLM skips the factor for gemma3
  // SGLang's get_context_length has no such exception: 131,072 x 8.
  CHECK(limit(m, Engine::sglang) == 1048576);
  CHECK(limit(m, Engine::trtllm) == 1048576);  // linear is scaled: ceil(131,072 x 8)
  CHECK(limit(m, Engine::ideal) == 131072);
  CHECK(context_warning(m, Tokens{200000}, Engine::vllm) ==
        "context 200,000 passes vLLM's derived max_model_len 131,072 (max_position_embeddings 131,072; no "
        "rope_scaling factor for gemma3): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  CHECK_FALSE(context_warning(m, Tokens{200000}, Engine::sglang).has_value());
}

TEST_CASE("context limit: yarn on a short original (DeepSeek-V3, gpt-oss, Kimi K2)", "[context]") {
  // DeepSeek-V3: original 4,096 x factor 40 = 163,840 (its "type": "yarn" read as rope_type).
  const ModelSpec ds = presets::find_model("deepseek-v3");
  CHECK(limit(ds, Engine::vllm) == 163840);
  CHECK(limit(ds, Engine::sglang) == 163840);
  CHECK(limit(ds, Engine::trtllm) == 163840);
  // gpt-oss-20b: 4,096 x 32 = 131,072; Kimi K2: 4,096 x 32 = 131,072.
  CHECK(limit(presets::find_model("gpt-oss-20b"), Engine::vllm) == 131072);
  CHECK(limit(presets::find_model("kimi-k2-instruct"), Engine::vllm) == 131072);
}

TEST_CASE("context limit: linear scaling without original_max_position_embeddings", "[context]") {
  // A Vicuna-16k-style config: max_position_embeddings 4,096, rope_scaling linear x4 (older "type" key).
  const ModelSpec m = small_config(
      {{"max_position_embeddings", 4096}, {"rope_scaling", {{"type", "linear"}, {"factor", 4.0}}}});
  CHECK(limit(m, Engine::vllm) == 16384);
  CHECK(limit(m, Engine::sglang) == 16384);
  CHECK(limit(m, Engine::trtllm) == 16384);
  CHECK(limit(m, Engine::llamacpp) == 4096);
  CHECK(limit(m, Engine::ideal) == 4096);
  CHECK(context_warning(m, Tokens{10000}, Engine::llamacpp) ==
        "context 10,000 passes llama.cpp's n_ctx_train 4,096 (context_length): llama-server warns "
        "(n_ctx_per_seq > n_ctx_train) and runs it");
  CHECK_FALSE(context_warning(m, Tokens{10000}, Engine::vllm).has_value());
  CHECK(past_max_position(m, Tokens{10000}, Engine::ideal));
  CHECK_FALSE(past_max_position(m, Tokens{10000}, Engine::vllm));
  CHECK(
      max_context_text(m, Tokens{20000}, Engine::vllm) ==
      "20,000 tokens (past vLLM's derived max_model_len 16,384 (max_position_embeddings 4,096 x rope_scaling "
      "factor 4, linear): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)");
  // ideal's launch line is vLLM's: 10,000 is within vLLM's 16,384, so no setting.
  CHECK_THAT(fit(job(m, 10000, Engine::ideal)).rows.front().launch,
             Catch::StartsWith("vllm serve ") && !Catch::Contains("#"));
  // llama-server takes any -c: never a setting, a comment that it warns.
  CHECK_THAT(fit(job(m, 10000, Engine::llamacpp)).rows.front().launch,
             Catch::StartsWith("llama-server ") && Catch::Contains("and runs it"));
}

TEST_CASE("context limit: model_max_length, dynamic rounding, rope_parameters", "[context]") {
  // Command-R style: max_position_embeddings 8,192, model_max_length 131,072. vLLM: the smallest key
  // (8,192), then model_max_length replaces it: 131,072. SGLang: model_max_length comes before
  // max_position_embeddings in its key order: 131,072. TensorRT-LLM reads max_position_embeddings: 8,192.
  const ModelSpec cohere = small_config({{"max_position_embeddings", 8192}, {"model_max_length", 131072}});
  CHECK(limit(cohere, Engine::vllm) == 131072);
  CHECK(limit(cohere, Engine::sglang) == 131072);
  CHECK(limit(cohere, Engine::trtllm) == 8192);

  // seq_length below max_position_embeddings: vLLM takes the smallest (2,048); SGLang the first of its
  // keys present (seq_length, 2,048); TensorRT-LLM max_position_embeddings (4,096).
  const ModelSpec seq = small_config({{"max_position_embeddings", 4096}, {"seq_length", 2048}});
  CHECK(limit(seq, Engine::vllm) == 2048);
  CHECK(limit(seq, Engine::sglang) == 2048);
  CHECK(limit(seq, Engine::trtllm) == 4096);

  // dynamic x1.5 on 4,097 = 6,145.5: vLLM and SGLang truncate (6,145), TensorRT-LLM rounds up (6,146).
  const ModelSpec dyn = small_config(
      {{"max_position_embeddings", 4097}, {"rope_scaling", {{"rope_type", "dynamic"}, {"factor", 1.5}}}});
  CHECK(limit(dyn, Engine::vllm) == 6145);
  CHECK(limit(dyn, Engine::sglang) == 6145);
  CHECK(limit(dyn, Engine::trtllm) == 6146);

  // transformers v5 rope_parameters, nested per layer type: the entry with a factor is read.
  const ModelSpec v5 = small_config(
      {{"max_position_embeddings", 40960},
       {"rope_parameters",
        {{"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 10000.0}}},
         {"full_attention",
          {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 32768}}}}}});
  CHECK(v5.context_keys.rope.key == "rope_parameters");
  CHECK(limit(v5, Engine::vllm) == 131072);

  // No length key at all: the engines' default, 2,048 (see "a config with no length key" below).
  const ModelSpec none = small_config(json::object());
  CHECK(limit(none, Engine::vllm) == 2048);
  CHECK(context_warning(none, Tokens{1'000'000}, Engine::sglang).has_value());
}

TEST_CASE("context limit: a malformed rope_scaling is an error naming it", "[context]") {
  CHECK_THROWS_WITH(small_config({{"max_position_embeddings", 4096},
                                  {"rope_scaling", {{"rope_type", "linear"}, {"factor", "four"}}}}),
                    Catch::Contains("rope_scaling/factor") && Catch::Contains("must be a positive number"));
  CHECK_THROWS_WITH(small_config({{"max_position_embeddings", 4096},
                                  {"rope_scaling", {{"rope_type", "linear"}, {"factor", -2}}}}),
                    Catch::Contains("rope_scaling/factor"));
  CHECK_THROWS_WITH(small_config({{"max_position_embeddings", 4096}, {"rope_scaling", 4}}),
                    Catch::Contains("rope_scaling") && Catch::Contains("must be an object"));
}

namespace {
/// The error a config gives ("no error" when it loads).
std::string error_of(const json& extra) {
  try {
    (void)small_config(extra);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

bool has_warning(const ModelSpec& m, const std::string& part) {
  for (const auto& w : m.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("context limit: RoPE keys given as null are refused naming them", "[context][errors]") {
  // vLLM's _get_and_verify_max_len: rp.get("factor", scaling_factor) gives None for a null factor, and
  // derived_max_model_len *= None raises; yarn takes rp["original_max_position_embeddings"] (None) the same
  // way. Before: factor null read as 1 (limit 4,096), silently.
  const auto with_rope = [](const json& rope) {
    return error_of({{"max_position_embeddings", 4096}, {"rope_scaling", rope}});
  };
  CHECK_THAT(with_rope({{"rope_type", "linear"}, {"factor", nullptr}}),
             Catch::StartsWith("test.json: /rope_scaling/factor: is null"));
  CHECK_THAT(
      with_rope({{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", nullptr}}),
      Catch::StartsWith("test.json: /rope_scaling/original_max_position_embeddings: is null"));
  CHECK_THAT(with_rope({{"rope_type", nullptr}, {"factor", 4.0}}),
             Catch::StartsWith("test.json: /rope_scaling/rope_type: is null"));
  CHECK_THAT(with_rope({{"type", nullptr}, {"factor", 4.0}}),
             Catch::StartsWith("test.json: /rope_scaling/type: is null"));
  // Nested per layer type: the entry's own path.
  CHECK_THAT(
      error_of({{"max_position_embeddings", 4096},
                {"rope_parameters", {{"full_attention", {{"rope_type", "linear"}, {"factor", nullptr}}}}}}),
      Catch::StartsWith("test.json: /rope_parameters/full_attention/factor: is null"));
  // Python's NaN literal (json_file.cpp reads it as the string "NaN") is named as such.
  CHECK_THAT(with_rope({{"rope_type", "linear"}, {"factor", "NaN"}}),
             Catch::Equals("test.json: /rope_scaling/factor: must be a positive number, got NaN"));
  CHECK_THAT(with_rope({{"rope_type", "linear"}, {"factor", "Infinity"}}), Catch::EndsWith("got Infinity"));
}

TEST_CASE("context limit: a RoPE factor no engine can serve is refused naming it", "[context][errors]") {
  const auto linear = [](double f) {
    return json{{"max_position_embeddings", 4096},
                {"rope_scaling", {{"rope_type", "linear"}, {"factor", f}}}};
  };
  // vLLM: int(4,096 x 1e-300) = 0 tokens (before: a limit of 0, which refused every context).
  CHECK_THAT(error_of(linear(1e-300)),
             Catch::StartsWith("test.json: /rope_scaling/factor: 4,096 x 1e-300 is under one token"));
  // 1/8,192: 4,096 x 1/8,192 = 0.5, truncated to 0: refused. 1/4,096: exactly 1 token: served (ceil 1 too).
  CHECK_THAT(error_of(linear(1.0 / 8192)),
             Catch::Contains("/rope_scaling/factor") && Catch::Contains("under one"));
  CHECK(limit(small_config(linear(1.0 / 4096)), Engine::vllm) == 1);
  CHECK(limit(small_config(linear(1.0 / 4096)), Engine::trtllm) == 1);
  // Past 2^63 tokens (before: no limit at all, as if the config gave none).
  CHECK_THAT(error_of(linear(1e300)),
             Catch::StartsWith("test.json: /rope_scaling/factor: 4,096 x 1e+300 is past 2^63 tokens"));
  // 4,096 x 2^51 = 2^63: refused; 4,096 x 2^50 = 2^62 = 4,611,686,018,427,387,904: exact in a uint64.
  CHECK_THAT(error_of(linear(2251799813685248.0)), Catch::Contains("past 2^63"));
  const ModelSpec big = small_config(linear(1125899906842624.0));
  CHECK(limit(big, Engine::vllm) == 4611686018427387904ULL);
  CHECK(limit(big, Engine::sglang) == 4611686018427387904ULL);
  CHECK(limit(big, Engine::trtllm) == 4611686018427387904ULL);
  // Core refuses the same for a model built elsewhere (a GUI scenario), naming the key.
  ModelSpec m;
  m.max_position_embeddings = 4096;
  m.context_keys.rope = RopeScaling{"rope_scaling", "linear", 1e300, 0};
  CHECK_THROWS_WITH(context_limit(m, Engine::vllm), Catch::StartsWith("rope_scaling/factor: 4,096 x 1e+300"));
  CHECK_THROWS_WITH(context_limit(m, Engine::trtllm), Catch::Contains("past 2^63"));
}

TEST_CASE("context limit: rope_type and type that disagree are refused naming both", "[context][errors]") {
  // vLLM's patch_rope_parameters_dict raises on rope_type != type, except su/longrope and mrope/default.
  CHECK_THAT(error_of({{"max_position_embeddings", 4096},
                       {"rope_scaling", {{"rope_type", "yarn"}, {"type", "linear"}, {"factor", 4.0}}}}),
             Catch::StartsWith("test.json: /rope_scaling/type: 'linear' contradicts rope_type 'yarn'"));
  // su beside longrope: vLLM renames su, longrope has no factor: max_position_embeddings 4,096.
  const ModelSpec lr =
      small_config({{"max_position_embeddings", 4096},
                    {"rope_scaling", {{"rope_type", "longrope"}, {"type", "su"}, {"factor", 4.0}}}});
  CHECK(limit(lr, Engine::vllm) == 4096);
}

TEST_CASE("context limit: nested rope_parameters and both rope keys", "[context][errors]") {
  // Per layer type with different factors: vLLM multiplies by the last ("assumes all layer types have the
  // same scaling factor"); no one reading, refused naming both (nlohmann iterates full_ before sliding_).
  CHECK_THAT(error_of({{"max_position_embeddings", 4096},
                       {"rope_parameters",
                        {{"full_attention", {{"rope_type", "linear"}, {"factor", 8.0}}},
                         {"sliding_attention", {{"rope_type", "linear"}, {"factor", 4.0}}}}}}),
             Catch::StartsWith("test.json: /rope_parameters/sliding_attention/factor: 4 differs from "
                               "rope_parameters/full_attention/factor 8"));
  // The same factor on both: 4,096 x 4 = 16,384.
  const ModelSpec same =
      small_config({{"max_position_embeddings", 4096},
                    {"rope_parameters",
                     {{"full_attention", {{"rope_type", "linear"}, {"factor", 4.0}}},
                      {"sliding_attention", {{"rope_type", "linear"}, {"factor", 4.0}}}}}});
  CHECK(limit(same, Engine::vllm) == 16384);
  // A llama3 factor is one vLLM does not apply: no conflict with linear x4; vLLM 4,096 x 4 = 16,384.
  const ModelSpec l3 = small_config({{"max_position_embeddings", 4096},
                                     {"rope_parameters",
                                      {{"full_attention", {{"rope_type", "linear"}, {"factor", 4.0}}},
                                       {"sliding_attention", {{"rope_type", "llama3"}, {"factor", 8.0}}}}}});
  CHECK(limit(l3, Engine::vllm) == 16384);
  // Both rope_scaling and rope_parameters: vLLM (transformers 4.x) and transformers 5 take rope_scaling:
  // 4,096 x 2 = 8,192, with a warning naming both when they differ.
  const ModelSpec both = small_config({{"max_position_embeddings", 4096},
                                       {"rope_scaling", {{"rope_type", "linear"}, {"factor", 2.0}}},
                                       {"rope_parameters", {{"rope_type", "linear"}, {"factor", 4.0}}}});
  CHECK(limit(both, Engine::vllm) == 8192);
  CHECK(has_warning(both, "test.json: /rope_parameters differs from rope_scaling"));
  const ModelSpec agree = small_config({{"max_position_embeddings", 4096},
                                        {"rope_scaling", {{"rope_type", "linear"}, {"factor", 2.0}}},
                                        {"rope_parameters", {{"rope_type", "linear"}, {"factor", 2.0}}}});
  CHECK_FALSE(has_warning(agree, "rope_parameters"));
}

TEST_CASE("context limit: a config with no length key, and length keys null or 0", "[context][errors]") {
  // vLLM's _get_and_verify_max_len: default_max_len = 2048 (then the RoPE factor); SGLang's
  // get_context_length: return 2048 after the key loop (no factor); TensorRT-LLM's
  // _infer_max_seq_len_from_config: inferred_max_seq_len = 2048, x the factor, rounded up.
  const ModelSpec none = small_config(json::object());
  CHECK(none.context_keys.no_length_key);
  CHECK(limit(none, Engine::vllm) == 2048);
  CHECK(limit(none, Engine::sglang) == 2048);
  CHECK(limit(none, Engine::trtllm) == 2048);
  CHECK_THAT(context_limit(none, Engine::vllm)->text, Catch::Contains("no length key"));
  CHECK_FALSE(engine_max_context(none, Engine::llamacpp).has_value());
  CHECK_FALSE(engine_max_context(none, Engine::ideal).has_value());
  // linear x4: vLLM 2,048 x 4 = 8,192; SGLang 2,048; TensorRT-LLM ceil(2,048 x 4) = 8,192.
  const ModelSpec scaled = small_config({{"rope_scaling", {{"rope_type", "linear"}, {"factor", 4.0}}}});
  CHECK(limit(scaled, Engine::vllm) == 8192);
  CHECK(limit(scaled, Engine::sglang) == 2048);
  CHECK(limit(scaled, Engine::trtllm) == 8192);
  // Only seq_length: TensorRT-LLM reads max_position_embeddings alone, so its default 2,048.
  CHECK(limit(small_config({{"seq_length", 8192}}), Engine::trtllm) == 2048);
  // A model from flags (no config): no limit from any engine.
  const ModelSpec flags{};
  CHECK_FALSE(flags.context_keys.no_length_key);
  CHECK_FALSE(engine_max_context(flags, Engine::vllm).has_value());
  CHECK_FALSE(engine_max_context(flags, Engine::trtllm).has_value());
  // null: refused naming the key (before: read as absent).
  CHECK_THAT(error_of({{"max_position_embeddings", nullptr}}),
             Catch::StartsWith("test.json: /max_position_embeddings: is null"));
  CHECK_THAT(error_of({{"max_position_embeddings", 4096}, {"seq_length", nullptr}}),
             Catch::StartsWith("test.json: /seq_length: is null"));
  // 0: vLLM takes the smallest key, a limit of 0 that refuses every request (before: read as absent).
  CHECK_THAT(error_of({{"max_position_embeddings", 0}}),
             Catch::StartsWith("test.json: /max_position_embeddings: must be a positive integer, got 0"));
  CHECK_THAT(error_of({{"max_position_embeddings", 4096}, {"seq_length", 0}}),
             Catch::StartsWith("test.json: /seq_length: must be a positive integer, got 0"));
  CHECK_THAT(error_of({{"max_position_embeddings", "NaN"}}),
             Catch::Equals("test.json: /max_position_embeddings: must be a non-negative integer, got NaN"));
}

TEST_CASE("model dtype: dtype beside torch_dtype", "[presets][hf]") {
  // transformers >= 4.56 PretrainedConfig.__init__ keeps dtype when both are given; vLLM's _find_dtype
  // reads config.dtype. Before: torch_dtype (bfloat16) was taken, silently.
  const ModelSpec m =
      small_config({{"max_position_embeddings", 4096}, {"torch_dtype", "bfloat16"}, {"dtype", "float16"}});
  CHECK(m.dtype == DType::fp16);
  CHECK(m.weight_dtype == DType::fp16);
  CHECK(has_warning(m, "test.json: /dtype float16 differs from torch_dtype bfloat16"));
  const ModelSpec agree =
      small_config({{"max_position_embeddings", 4096}, {"torch_dtype", "float32"}, {"dtype", "float32"}});
  CHECK(agree.dtype == DType::fp32);
  CHECK_FALSE(has_warning(agree, "torch_dtype"));
}
