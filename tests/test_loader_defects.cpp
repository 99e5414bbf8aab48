// Config loader defects found in 2026-11: null state keys, a KV-sharing key on a family without it, an fp8
// torch_dtype as the KV default, per-block attention (nemotron-nas), Hunyuan's CLA, Python's JSON literals,
// MiniMax-M2's attn_type_list. Expected figures are worked by hand in the comments.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "hf_support.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;
using nlohmann::json;

namespace {
using test::error_of;
using test::load;

/// Granite 4.0 hybrid, two layers (Mamba2, then attention): hidden 256, 4 heads of 64, 1 KV head; Mamba2 of
/// 8 heads x 64 = 512 = mamba_expand 2 x 256, 1 group, conv 4.
json granite_hybrid() {
  return json{{"model_type", "granitemoehybrid"},
              {"num_hidden_layers", 2},
              {"layer_types", {"mamba", "attention"}},
              {"hidden_size", 256},
              {"num_attention_heads", 4},
              {"num_key_value_heads", 1},
              {"intermediate_size", 512},
              {"vocab_size", 100},
              {"mamba_n_heads", 8},
              {"mamba_d_head", 64},
              {"mamba_n_groups", 1},
              {"mamba_d_conv", 4},
              {"torch_dtype", "bfloat16"}};
}

json gemma3_text() {
  return json{{"model_type", "gemma3_text"}, {"num_hidden_layers", 6}, {"num_attention_heads", 4},
              {"num_key_value_heads", 2},    {"head_dim", 32},         {"hidden_size", 128},
              {"intermediate_size", 256},    {"vocab_size", 100},      {"sliding_window", 64}};
}
}  // namespace

TEST_CASE("state keys given as null are refused, not read as the class default", "[presets][hf][errors]") {
  const KvDtypes bf16;
  SECTION("absent mamba_d_state: GraniteMoeHybridConfig's default 256") {
    // conv (512 + 2 x 1 x 256) x (4 - 1) x 2 B = 6,144; SSM 8 x 64 x 256 x 2 B = 262,144.
    CHECK(state_bytes_per_sequence(load(granite_hybrid()), bf16).value == 6144 + 262144);
  }
  SECTION("a number is read") {
    json j = granite_hybrid();
    j["mamba_d_state"] = 16;
    // conv (512 + 2 x 16) x 3 x 2 B = 3,264; SSM 8 x 64 x 16 x 2 B = 16,384.
    CHECK(state_bytes_per_sequence(load(j), bf16).value == 3264 + 16384);
  }
  SECTION("null: transformers keeps None (no default), so no size; refused naming the key") {
    for (const char* key : {"mamba_d_state", "mamba_n_heads", "mamba_n_groups", "mamba_d_conv",
                            "mamba_expand", "mamba_d_head"}) {
      json j = granite_hybrid();
      j[key] = nullptr;
      INFO(key);
      CHECK(error_of(j).find(std::string("test.json: /") + key + ": is null") != std::string::npos);
    }
  }
  SECTION("Falcon-H1's mamba_d_ssm null keeps its defined meaning, mamba_expand x hidden_size") {
    json j = json{{"model_type", "falcon_h1"}, {"num_hidden_layers", 1},   {"hidden_size", 256},
                  {"num_attention_heads", 4},  {"num_key_value_heads", 1}, {"intermediate_size", 512},
                  {"vocab_size", 100},         {"mamba_d_ssm", nullptr},   {"mamba_n_heads", 8},
                  {"mamba_d_head", 64},        {"mamba_n_groups", 1},      {"mamba_d_state", 16},
                  {"mamba_d_conv", 4},         {"mamba_expand", 2}};
    // d_inner 2 x 256 = 512 = 8 x 64: conv (512 + 2 x 16) x 3 x 2 B = 3,264; SSM 8 x 64 x 16 x 2 B = 16,384.
    CHECK(state_bytes_per_sequence(load(j), bf16).value == 3264 + 16384);
    j["mamba_d_state"] = nullptr;
    CHECK(error_of(j).find("/mamba_d_state: is null") != std::string::npos);
  }
  SECTION("Jamba: mamba_d_state null is named as null, not as missing") {
    json j = json{{"model_type", "jamba"},    {"num_hidden_layers", 2},   {"hidden_size", 256},
                  {"num_attention_heads", 4}, {"num_key_value_heads", 1}, {"intermediate_size", 512},
                  {"vocab_size", 100},        {"attn_layer_period", 2},   {"attn_layer_offset", 1},
                  {"mamba_d_state", nullptr}, {"mamba_d_conv", 4},        {"mamba_expand", 2}};
    CHECK(error_of(j).find("/mamba_d_state: is null") != std::string::npos);
    j["mamba_d_state"] = 16;
    j["attn_layer_offset"] = nullptr;
    CHECK(error_of(j).find("/attn_layer_offset: is null") != std::string::npos);
  }
}

TEST_CASE("num_kv_shared_layers only shares KV where the family does", "[presets][hf][errors]") {
  const KvDtypes bf16;
  SECTION("Gemma 3: every layer caches; a non-zero value is refused naming the key") {
    // 6 layers x 2 (K, V) x 2 KV heads x 32 x 2 B = 1,536 B per token.
    CHECK(bytes_per_token(load(gemma3_text()), bf16).value == 1536);
    json j = gemma3_text();
    j["num_kv_shared_layers"] = 0;  // changes nothing
    CHECK(bytes_per_token(load(j), bf16).value == 1536);
    j["num_kv_shared_layers"] = 2;
    CHECK(error_of(j).find("test.json: /num_kv_shared_layers: 2 shared layers on model_type 'gemma3_text'") !=
          std::string::npos);
  }
}

TEST_CASE("an fp8 torch_dtype: weights at fp8, the KV cache's default at vLLM's model dtype, bf16",
          "[presets][hf]") {
  json j = json{{"model_type", "llama"},    {"num_hidden_layers", 4},
                {"num_attention_heads", 8}, {"num_key_value_heads", 2},
                {"hidden_size", 512},       {"intermediate_size", 1024},
                {"vocab_size", 1000},       {"torch_dtype", "float8_e4m3fn"}};
  const ModelSpec m = load(j);
  CHECK(m.weight_dtype == DType::fp8_e4m3);
  CHECK(m.dtype == DType::bf16);  // vLLM _resolve_auto_dtype: fp8 is not a supported model dtype -> bf16
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].find("test.json: /torch_dtype float8_e4m3fn: vLLM serves the model in bfloat16") !=
        std::string::npos);
  j.erase("torch_dtype");
  j["dtype"] = "float8_e5m2";  // transformers' newer key
  CHECK(load(j).dtype == DType::bf16);
  CHECK(load(j).weight_dtype == DType::fp8_e5m2);
  j["dtype"] = "float16";
  CHECK(load(j).dtype == DType::fp16);
  CHECK(load(j).warnings.empty());
}

namespace {
/// Llama-Nemotron NAS, three blocks: hidden 512, 8 heads of 64.
json nemotron_nas() {
  const auto block = [](json attention, json ffn) { return json{{"attention", attention}, {"ffn", ffn}}; };
  return json{{"model_type", "nemotron-nas"},
              {"num_hidden_layers", 3},
              {"num_attention_heads", 8},
              {"num_key_value_heads", nullptr},
              {"intermediate_size", nullptr},
              {"hidden_size", 512},
              {"vocab_size", 100},
              {"block_configs",
               {block({{"n_heads_in_group", 2}, {"no_op", false}, {"replace_with_linear", false}},
                      {{"ffn_mult", 2.625}, {"no_op", false}}),
                block({{"n_heads_in_group", nullptr}, {"no_op", true}, {"replace_with_linear", false}},
                      {{"ffn_mult", 1.0}, {"no_op", false}}),
                block({{"n_heads_in_group", 8}, {"no_op", false}, {"window_length", nullptr}},
                      {{"ffn_mult", 1.0}, {"no_op", true}})}}};
}
}  // namespace

TEST_CASE("nemotron-nas: KV heads and FFN width per block", "[presets][hf]") {
  const KvDtypes bf16;
  const ModelSpec m = load(nemotron_nas());
  // Block 0: 8 / 2 = 4 KV heads x 64 x 2 (K, V) x 2 B = 1,024; block 1: no attention; block 2: 8 / 8 = 1 KV
  // head: 256. Total 1,280.
  CHECK(bytes_per_token(m, bf16).value == 1280);
  REQUIRE(m.layers.size() == 3);
  CHECK(m.layers[1].attention.kind == AttentionKind::mlp_only);
  // vLLM _ffn_mult_to_intermediate_size: int(2 x 2.625 x 512 / 3) = 896 -> 1,024 (multiple of 256);
  // int(2 x 1.0 x 512 / 3) = 341 -> 512; ffn no_op -> none.
  CHECK(m.layers[0].mlp.intermediate_size == 1024);
  CHECK(m.layers[1].mlp.intermediate_size == 512);
  CHECK(m.layers[2].mlp.intermediate_size == 0);
  CHECK(m.weights_unknown.empty());

  json j = nemotron_nas();
  j["block_configs"][0]["attention"]["replace_with_linear"] = true;
  CHECK(error_of(j).find("/block_configs/0/attention/replace_with_linear: is set (true)") !=
        std::string::npos);
  j = nemotron_nas();
  j["block_configs"][2]["attention"]["n_heads_in_group"] = 3;
  CHECK(error_of(j).find("/block_configs/2/attention/n_heads_in_group: 3 does not divide") !=
        std::string::npos);
  j = nemotron_nas();
  j["block_configs"].erase(2);
  CHECK(error_of(j).find("/block_configs: has 2 entries for 3 layers") != std::string::npos);
  SECTION("another family with block_configs is refused, naming it") {
    j = nemotron_nas();
    j["model_type"] = "decilm_like";
    CHECK(error_of(j).find("test.json: /block_configs: shapes the KV cache") != std::string::npos);
  }
}

TEST_CASE("Hunyuan's cross-layer attention: off reads as usual, on is refused", "[presets][hf][errors]") {
  const KvDtypes bf16;
  json j = json{{"model_type", "hunyuan_v1_moe"}, {"num_hidden_layers", 4}, {"num_attention_heads", 8},
                {"num_key_value_heads", 2},       {"hidden_size", 512},     {"head_dim", 64},
                {"intermediate_size", 1024},      {"vocab_size", 100},      {"use_cla", false},
                {"cla_share_factor", 2}};
  CHECK(bytes_per_token(load(j), bf16).value == 4 * 2 * 2 * 64 * 2);  // 2,048
  j["use_cla"] = true;
  CHECK(error_of(j).find("test.json: /use_cla: is true") != std::string::npos);
}

TEST_CASE("config.json with Python's NaN / Infinity literals reads as transformers reads it",
          "[presets][json]") {
  const auto dir = std::filesystem::temp_directory_path() / ("kvplan-pyjson-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.json";
  const auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  // NemotronH's released configs: "time_step_limit": [0.0, Infinity]. A Llama here: 2 layers x 2 x 2 KV heads
  // x (256 / 4 = 64) x 2 B = 1,024 B per token.
  const std::string head = R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "hidden_size": 256, "intermediate_size": 512, "vocab_size": 100, )";
  write(head + R"("time_step_limit": [0.0, Infinity], "x": -Infinity, "y": NaN, "name": "NaN Infinity"})");
  CHECK(bytes_per_token(presets::load_model_file(path), KvDtypes{}).value == 1024);
  // A key kvplan reads as a number names itself.
  write(head + R"("head_dim": Infinity})");
  try {
    (void)presets::load_model_file(path);
    FAIL("Infinity read as a head_dim");
  } catch (const Error& e) {
    // Named as the literal it was (before: "got a string", which the file does not hold).
    CHECK(std::string(e.what()).find("/head_dim: must be a non-negative integer, got Infinity") !=
          std::string::npos);
  }
  // Other JSON (a GPU preset, a scenario) stays strict.
  CHECK_THROWS_AS(presets::parse_json_text(R"({"a": Infinity})", "gpus.json"), Error);
  std::filesystem::remove_all(dir);
}

TEST_CASE("MiniMax-M2's attn_type_list: all softmax reads as full attention, a lightning layer is refused",
          "[presets][hf][errors]") {
  json j = json{{"model_type", "minimax_m2"}, {"num_hidden_layers", 3}, {"num_attention_heads", 8},
                {"num_key_value_heads", 2},   {"hidden_size", 512},     {"head_dim", 64},
                {"intermediate_size", 1024},  {"vocab_size", 100},      {"attn_type_list", {1, 1, 1}}};
  CHECK(bytes_per_token(load(j), KvDtypes{}).value == 3 * 2 * 2 * 64 * 2);  // 1,536
  j["attn_type_list"] = {1, 0, 1};
  CHECK(error_of(j).find("test.json: /attn_type_list/1: 0 (lightning attention)") != std::string::npos);
  // One entry per layer (3): shorter or longer is refused naming both lengths (before: read as given).
  j["attn_type_list"] = {1, 1};
  CHECK(error_of(j) == "test.json: /attn_type_list: has 2 entries for 3 layers (num_hidden_layers)");
  j["attn_type_list"] = {1, 1, 1, 1};
  CHECK(error_of(j) == "test.json: /attn_type_list: has 4 entries for 3 layers (num_hidden_layers)");
}

TEST_CASE("NemotronH's per-layer lists: a length other than the layers', or two that disagree, are refused",
          "[presets][hf][errors]") {
  json j = json{{"model_type", "nemotron_h"},
                {"num_hidden_layers", 3},
                {"num_attention_heads", 8},
                {"num_key_value_heads", 2},
                {"hidden_size", 512},
                {"head_dim", 64},
                {"intermediate_size", 1024},
                {"vocab_size", 100},
                {"mamba_num_heads", 8},
                {"mamba_head_dim", 64},
                {"ssm_state_size", 16},
                {"n_groups", 1},
                {"layers_block_type", {"mamba", "attention", "mlp"}}};
  // 1 attention layer x 2 x 2 KV heads x 64 x 2 B = 512 B per token.
  CHECK(bytes_per_token(load(j), KvDtypes{}).value == 512);
  // Two entries for three layers: named by the key that gave them (before: hybrid_override_pattern, absent).
  j["layers_block_type"] = {"mamba", "attention"};
  CHECK(error_of(j) == "test.json: /layers_block_type: has 2 entries for 3 layers (num_hidden_layers)");
  // Beside a hybrid_override_pattern that reads otherwise (before: layers_block_type ignored).
  j["layers_block_type"] = {"mamba", "attention", "mlp"};
  j["hybrid_override_pattern"] = "M-*";
  CHECK(error_of(j) ==
        "test.json: /layers_block_type: reads as \"M*-\", which contradicts hybrid_override_pattern \"M-*\"; "
        "give one");
  j["hybrid_override_pattern"] = "M*-";
  CHECK(bytes_per_token(load(j), KvDtypes{}).value == 512);
}

namespace {
/// Ring-mini-linear-2.0's config.json (huggingface.co/inclusionAI/Ring-mini-linear-2.0), the keys that
/// shape its layers: 20 layers, every 5th full attention (layer_group_size 5), 16 heads of 128, 4 KV heads;
/// 256 experts of 512 (8 per token), one shared expert of 512, the first layer dense.
json ring_mini_linear() {
  return json{{"model_type", "bailing_moe_linear"},
              {"architectures", {"BailingMoeLinearV2ForCausalLM"}},
              {"num_hidden_layers", 20},
              {"layer_group_size", 5},
              {"group_norm_size", 4},
              {"hidden_size", 2048},
              {"intermediate_size", 5120},
              {"num_attention_heads", 16},
              {"num_key_value_heads", 4},
              {"head_dim", 128},
              {"num_experts", 256},
              {"num_experts_per_tok", 8},
              {"num_shared_experts", 1},
              {"moe_intermediate_size", 512},
              {"moe_shared_expert_intermediate_size", 512},
              {"first_k_dense_replace", 1},
              {"max_position_embeddings", 131072},
              {"partial_rotary_factor", 0.5},
              {"vocab_size", 157184},
              {"torch_dtype", "bfloat16"}};
}
}  // namespace

TEST_CASE("Ling/Ring linear (bailing_moe_linear): every 5th layer full, the rest lightning state",
          "[presets][hf]") {
  const ModelSpec m = load(ring_mini_linear());
  // Full layers are l with (l + 1) % 5 == 0: 4, 9, 14, 19. 4 x 4 KV heads x 128 x 2 (K, V) x 2 B = 8,192 B
  // per token (the generic rules read all 20 as full: 40,960 B). The 16 linear layers keep 16 heads x 128 x
  // 128 x 2 B = 524,288 B each: 8,388,608 B (8 MiB) per sequence.
  CHECK(bytes_per_token(m, KvDtypes{}).value == 8192);
  CHECK(state_bytes_per_sequence(m, KvDtypes{}).value == 8388608);
  CHECK(kv_bytes_per_sequence(m, KvDtypes{}, Tokens{32768}).value == 8192ULL * 32768);
  CHECK(m.warnings.empty());
  CHECK_FALSE(m.tie_word_embeddings);  // BailingMoeLinearConfig's default: untied
  // layer_group_size 1 (BailingMoeLinearConfig's default): every layer full.
  json all_full = ring_mini_linear();
  all_full.erase("layer_group_size");
  CHECK(bytes_per_token(load(all_full), KvDtypes{}).value == 20 * 2048);
}

TEST_CASE("An unknown family whose keys pattern the layers is refused, naming the key",
          "[presets][hf][errors]") {
  json j = ring_mini_linear();
  j["model_type"] = "bailing_moe_linear_v9";  // no adapter: the generic rules would read 20 full layers
  CHECK(error_of(j).find("/layer_group_size: may set which layers are linear") != std::string::npos);
  json k = json{{"model_type", "future_hybrid"}, {"num_hidden_layers", 4}, {"num_attention_heads", 8},
                {"num_key_value_heads", 2},      {"hidden_size", 512},     {"head_dim", 64},
                {"intermediate_size", 1024},     {"vocab_size", 100}};
  k["attn_pattern"] = "LLLF";
  CHECK(error_of(k).find("/attn_pattern: may set which layers") != std::string::npos);
  k.erase("attn_pattern");
  k["linear_attn_interval"] = 4;
  CHECK(error_of(k).find("/linear_attn_interval: may set") != std::string::npos);
  k.erase("linear_attn_interval");
  k["swa_layers"] = {0, 2};
  CHECK(error_of(k).find("/swa_layers: may set") != std::string::npos);
  k.erase("swa_layers");
  // A per-layer list (one entry per layer).
  k["is_linear"] = json::array();
  for (std::uint64_t i = 0; i < k["num_hidden_layers"].get<std::uint64_t>(); ++i) k["is_linear"].push_back(0);
  CHECK(error_of(k).find("/is_linear: may set") != std::string::npos);
  k.erase("is_linear");
  // A count (num_*) and an unknown family's other keys still read, with the unknown-family warning.
  k["num_nextn_predict_layers"] = 1;
  const ModelSpec m = load(k);
  CHECK(!m.warnings.empty());
}
