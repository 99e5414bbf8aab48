#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "env_scope.hpp"
#include "hf_support.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;
using nlohmann::json;

namespace {
using test::EnvScope;
using test::error_of;
using test::load;

json llama_like() {
  return json{{"model_type", "llama"},    {"num_hidden_layers", 4},
              {"num_attention_heads", 8}, {"num_key_value_heads", 2},
              {"hidden_size", 512},       {"intermediate_size", 1024},
              {"vocab_size", 1000},       {"max_position_embeddings", 4096}};
}
}  // namespace

TEST_CASE("every shipped preset's bytes per token, worked by hand from its config", "[presets]") {
  // bf16 K and V (2 B). Per attention layer: 2 (K, V) * num_key_value_heads * head_dim * 2 B.
  struct Case {
    const char* id;
    std::uint64_t bytes_per_token;
    std::uint64_t full_bytes_per_token;
  };
  const auto c = GENERATE(values<Case>({
      {"gpt2", 36864, 36864},              // MHA 12 heads * 64 (768/12): 2*12*64*2 = 3,072 B * 12 layers
      {"llama-2-7b", 524288, 524288},      // MHA 32 * 128: 16,384 B * 32 layers
      {"llama-2-70b", 327680, 327680},     // 8 KV heads * 128: 4,096 B * 80 layers
      {"llama-3.1-8b", 131072, 131072},    // 8 * 128: 4,096 B * 32
      {"llama-3.1-70b", 327680, 327680},   // 8 * 128: 4,096 B * 80
      {"llama-3.1-405b", 516096, 516096},  // 8 * 128: 4,096 B * 126
      {"mistral-7b-v0.1", 131072, 0},      // 8 * 128 * 32 layers, every layer sliding_window 4096
      {"mixtral-8x7b", 131072, 131072},    // 8 * 128: 4,096 B * 32 (sliding_window null)
      {"qwen2.5-7b", 57344, 57344},   // 4 KV heads * 128 (3584/28): 2,048 B * 28; use_sliding_window false
      {"qwen3-8b", 147456, 147456},   // 8 * head_dim 128: 4,096 B * 36
      {"qwen3-14b", 163840, 163840},  // 8 * 128: 4,096 B * 40
      {"qwen3-32b", 262144, 262144},  // 8 * head_dim 128 (not 5120/64 = 80): 4,096 B * 64
      {"falcon-40b", 122880,
       122880},  // new_decoder_architecture, num_kv_heads 8 * 64 (8192/128): 2,048 B * 60
      {"gemma-2-9b", 344064, 172032},  // 8 * head_dim 256: 8,192 B * 42; 21 odd layers global
      {"gemma-3-4b", 139264, 20480},   // defaults 4 KV * 256: 4,096 B * 34; global at i = 5,11,..,29 (5)
      {"gemma-3-27b", 507904, 81920},  // 16 * 128: 8,192 B * 62; 10 global layers
      {"deepseek-v3", 70272, 70272},   // MLA (512 + 64) * 2 B = 1,152 B * 61
      {"gpt-oss-120b", 73728, 36864},  // 8 * 64: 2,048 B * 36; layer_types: 18 full
      {"qwen3-next-80b-a3b", 24576,
       24576},  // 2 KV * 256: 2,048 B * 12 full-attention layers (interval 4 of 48)
  }));
  CAPTURE(c.id);
  const ModelSpec m = presets::find_model(c.id);
  CHECK(bytes_per_token(m, KvDtypes{}).value == c.bytes_per_token);
  CHECK(full_bytes_per_token(m, KvDtypes{}).value == c.full_bytes_per_token);
}

TEST_CASE("presets resolve by id, HF repo id and alias, case-insensitively", "[presets]") {
  CHECK(presets::find_model("LLAMA-3.1-70B").id == "llama-3.1-70b");
  CHECK(presets::find_model("meta-llama/Llama-3.1-70B").id == "llama-3.1-70b");
  CHECK(presets::find_model("meta-llama/llama-3.1-70b-instruct").id == "llama-3.1-70b");
  CHECK_THROWS_AS(presets::find_model("no-such-model"), Error);
  CHECK(presets::find_gpu("H100-SXM").memory.value == 81559ULL * 1048576);  // nvidia-smi: 81559MiB
  CHECK_THROWS_AS(presets::find_gpu("tpu-v5"), Error);
  for (const auto& p : presets::list_models()) {
    CAPTURE(p.id);
    CHECK(p.path.stem().string() == p.id);
    CHECK_NOTHROW(presets::load_model_file(p.path));
  }
}

TEST_CASE("HF config keys, one architecture at a time", "[presets][hf]") {
  SECTION("absent num_key_value_heads means MHA; head_dim from hidden / heads") {
    json j = llama_like();
    j.erase("num_key_value_heads");
    const auto m = load(j);
    CHECK(m.layers[0].attention.num_key_value_heads == 8);
    CHECK(m.layers[0].attention.head_dim_k == 64);
  }
  SECTION("torch_dtype: torch's names, fp8 included; an unknown one is an error") {
    json j = llama_like();
    j["torch_dtype"] = "float8_e4m3fn";  // torch.float8_e4m3fn: 1 byte per weight
    CHECK(load(j).weight_dtype == DType::fp8_e4m3);
    j["torch_dtype"] = "float8_e5m2";
    CHECK(load(j).weight_dtype == DType::fp8_e5m2);
    j["torch_dtype"] = "float16";
    CHECK(load(j).weight_dtype == DType::fp16);
    j["torch_dtype"] = "float64";
    CHECK(error_of(j).find("/torch_dtype: unknown dtype 'float64'") != std::string::npos);
  }
  SECTION("an explicit head_dim wins over hidden / heads") {
    json j = llama_like();
    j["head_dim"] = 128;
    CHECK(load(j).layers[0].attention.head_dim_k == 128);
  }
  SECTION("GPT-2 names") {
    const json j{{"model_type", "gpt2"}, {"n_layer", 12},       {"n_head", 12},
                 {"n_embd", 768},        {"n_positions", 1024}, {"vocab_size", 50257}};
    const auto m = load(j);
    CHECK(num_layers(m) == 12);
    CHECK(m.layers[0].attention.head_dim_k == 64);
    CHECK(m.layers[0].mlp.intermediate_size == 3072);  // n_inner absent: 4 * n_embd
  }
  SECTION("Falcon: multi_query and new_decoder_architecture") {
    json j{{"model_type", "falcon"}, {"num_hidden_layers", 32}, {"num_attention_heads", 71},
           {"hidden_size", 4544},    {"vocab_size", 65024},     {"multi_query", true}};
    CHECK(load(j).layers[0].attention.num_key_value_heads == 1);
    j["new_decoder_architecture"] = true;
    j["num_attention_heads"] = 128;
    j["hidden_size"] = 8192;
    j["num_kv_heads"] = 8;
    CHECK(load(j).layers[0].attention.num_key_value_heads == 8);
  }
  SECTION("Qwen: sliding_window only with use_sliding_window, from max_window_layers") {
    json j = llama_like();
    j["model_type"] = "qwen2";
    j["sliding_window"] = 1024;
    j["use_sliding_window"] = false;
    CHECK(full_bytes_per_token(load(j), KvDtypes{}) == bytes_per_token(load(j), KvDtypes{}));
    j["use_sliding_window"] = true;
    j["max_window_layers"] = 3;
    const auto m = load(j);
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].count == 3);
    CHECK(m.layers[1].attention.kind == AttentionKind::sliding);
    CHECK(m.layers[1].attention.window == 1024);
  }
  SECTION("Mistral: one window on every layer") {
    json j = llama_like();
    j["model_type"] = "mistral";
    j["sliding_window"] = 4096;
    const auto m = load(j);
    CHECK(m.layers.size() == 1);
    CHECK(m.layers[0].attention.kind == AttentionKind::sliding);
  }
  SECTION("Gemma 2 alternates, even layers sliding") {
    json j = llama_like();
    j["model_type"] = "gemma2";
    j["sliding_window"] = 4096;
    const auto m = load(j);
    REQUIRE(m.layers.size() == 4);
    CHECK(m.layers[0].attention.kind == AttentionKind::sliding);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
  }
  SECTION("Gemma 3: every 6th layer global when sliding_window_pattern is absent") {
    json j = llama_like();
    j["model_type"] = "gemma3_text";
    j["num_hidden_layers"] = 12;
    j["sliding_window"] = 1024;
    const auto m = load(j);
    REQUIRE(m.layers.size() == 4);  // 5 sliding, 1 global, 5 sliding, 1 global
    CHECK(m.layers[0].count == 5);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
  }
  SECTION("layer_types decides, and is checked") {
    json j = llama_like();
    j["sliding_window"] = 128;
    j["layer_types"] = {"sliding_attention", "full_attention", "sliding_attention", "full_attention"};
    CHECK(load(j).layers.size() == 4);
    j["layer_types"] = {"sliding_attention", "full_attention"};
    CHECK(error_of(j) == "test.json: /layer_types: has 2 entries for 4 layers");
    j["layer_types"] = {"sliding_attention", "full_attention", "telepathy", "full_attention"};
    CHECK(error_of(j) == "test.json: /layer_types/2: unknown layer type 'telepathy'");
  }
  SECTION("DeepSeek MLA keys") {
    json j = llama_like();
    j["model_type"] = "deepseek_v3";
    j["kv_lora_rank"] = 512;
    j["qk_rope_head_dim"] = 64;
    j["qk_nope_head_dim"] = 128;
    j["v_head_dim"] = 128;
    const auto m = load(j);
    CHECK(m.layers[0].attention.kind == AttentionKind::mla);
    CHECK(bytes_per_token(m, KvDtypes{}).value == 4 * 1152);  // (512 + 64) * 2 B * 4 layers
  }
  SECTION("Llama 4: chunked layers and NoPE global layers, nested under text_config") {
    json t = llama_like();
    t["model_type"] = "llama4_text";
    t["attention_chunk_size"] = 8192;
    t["no_rope_layers"] = {1, 1, 1, 0};
    t["intermediate_size_mlp"] = 2048;
    const json j{{"model_type", "llama4"}, {"text_config", t}};
    const auto m = load(j);
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].attention.kind == AttentionKind::chunked);
    CHECK(m.layers[0].count == 3);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
  }
  SECTION("Jamba: attention every attn_layer_period-th layer") {
    json j = llama_like();
    j["model_type"] = "jamba";
    j["num_hidden_layers"] = 8;
    j["attn_layer_period"] = 8;
    j["attn_layer_offset"] = 4;
    j["mamba_d_state"] = 16;
    j["mamba_d_conv"] = 4;
    j["mamba_expand"] = 2;
    j["mamba_dt_rank"] = "auto";
    const auto m = load(j);
    REQUIRE(m.layers.size() == 3);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
    CHECK(m.layers[1].count == 1);
    CHECK(m.layers[0].attention.recurrent.d_inner == 1024);  // 2 * 512
  }
  SECTION("Qwen3-Next: full attention every full_attention_interval-th layer") {
    json j = llama_like();
    j["model_type"] = "qwen3_next";
    j["full_attention_interval"] = 4;
    j["linear_num_key_heads"] = 2;
    j["linear_num_value_heads"] = 4;
    j["linear_key_head_dim"] = 16;
    j["linear_value_head_dim"] = 16;
    j["linear_conv_kernel_dim"] = 4;
    const auto m = load(j);
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].attention.kind == AttentionKind::recurrent);
    CHECK(m.layers[0].count == 3);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
  }
}

TEST_CASE("family defaults and MoE key aliases, as transformers and vLLM read them", "[presets][hf]") {
  SECTION("Llama 4 without num_experts_per_tok routes one expert (Llama4TextConfig's default)") {
    json t = llama_like();
    t["model_type"] = "llama4_text";
    t["head_dim"] = 64;
    t["num_local_experts"] = 16;
    t["intermediate_size_mlp"] = 2048;
    const auto m = load(json{{"model_type", "llama4"}, {"text_config", t}});
    REQUIRE_FALSE(m.layers.empty());
    CHECK(m.layers[0].mlp.num_experts == 16);
    CHECK(m.layers[0].mlp.experts_per_token == 1);
    // attention_chunk_size 8192 and no_rope_layer_interval 4 by default: layers 0-2 chunked, 3 global.
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].attention.kind == AttentionKind::chunked);
    CHECK(m.layers[0].count == 3);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
    // 4 layers x 2 KV heads x 64 x 2 (K, V) x 2 B = 2,048 B a token.
    CHECK(bytes_per_token(m, KvDtypes{}).value == 2048);
  }
  SECTION("Qwen3-Next without its linear_* keys takes Qwen3NextConfig's defaults") {
    // configuration_qwen3_next.py: linear_num_key_heads 16, linear_num_value_heads 32, linear_key_head_dim
    // and linear_value_head_dim 128, linear_conv_kernel_dim 4, full_attention_interval 4; num_experts 512,
    // num_experts_per_tok 10. Before, the first missing key was refused.
    json j = llama_like();
    j["model_type"] = "qwen3_next";
    const auto m = load(j);
    REQUIRE(m.layers.size() == 2);
    const auto& rec = m.layers[0].attention.recurrent;
    CHECK(m.layers[0].attention.kind == AttentionKind::recurrent);
    CHECK(m.layers[0].count == 3);
    CHECK(rec.kind == RecurrentSpec::Kind::gated_deltanet);
    CHECK(rec.num_key_heads == 16);
    CHECK(rec.num_value_heads == 32);
    CHECK(rec.key_head_dim == 128);
    CHECK(rec.value_head_dim == 128);
    CHECK(rec.d_conv == 4);
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
    CHECK(m.layers[0].mlp.num_experts == 512);
    CHECK(m.layers[0].mlp.experts_per_token == 10);
  }
  SECTION("Step-3's moe_num_experts, moe_top_k, share_expert_dim and moe_layers_enum") {
    // vLLM step3_text.py Step3TextDecoderLayer: the layers in moe_layers_enum have moe_num_experts experts
    // of moe_intermediate_size, moe_top_k a token, and one shared expert of share_expert_dim.
    json j = llama_like();
    j["model_type"] = "step3_text";
    j["moe_num_experts"] = 4;
    j["moe_top_k"] = 2;
    j["moe_intermediate_size"] = 256;
    j["share_expert_dim"] = 384;
    j["moe_layers_enum"] = "1,3";
    const auto m = load(j);
    REQUIRE(m.layers.size() == 4);  // dense, MoE, dense, MoE
    CHECK(m.layers[0].mlp.num_experts == 0);
    CHECK(m.layers[0].mlp.intermediate_size == 1024);
    CHECK(m.layers[1].mlp.num_experts == 4);
    CHECK(m.layers[1].mlp.experts_per_token == 2);
    CHECK(m.layers[1].mlp.expert_intermediate_size == 256);
    CHECK(m.layers[1].mlp.num_shared_experts == 1);
    CHECK(m.layers[1].mlp.shared_intermediate_size == 384);
    CHECK(m.layers[3].mlp.num_experts == 4);
    j["moe_layers_enum"] = "1,9";
    CHECK_THAT(error_of(j), Catch::Matchers::Contains("/moe_layers_enum: '9' is not a layer index below 4"));
  }
  SECTION("ERNIE 4.5's moe_num_experts, moe_k, shared experts and MoE layer range") {
    // configuration_ernie4_5_moe.py (attribute_map num_experts -> moe_num_experts, num_experts_per_tok ->
    // moe_k; moe_layer_end_index -1 is the last layer); modeling_ernie4_5_moe.py Ernie4_5_MoeDecoderLayer.
    json j = llama_like();
    j["model_type"] = "ernie4_5_moe";
    j["moe_num_experts"] = 8;
    j["moe_k"] = 2;
    j["moe_intermediate_size"] = 128;
    j["moe_num_shared_experts"] = 2;
    j["moe_layer_start_index"] = 1;
    j["moe_layer_end_index"] = -1;
    j["moe_layer_interval"] = 1;
    const auto m = load(j);
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].count == 1);
    CHECK(m.layers[0].mlp.num_experts == 0);
    CHECK(m.layers[1].count == 3);
    CHECK(m.layers[1].mlp.num_experts == 8);
    CHECK(m.layers[1].mlp.experts_per_token == 2);
    CHECK(m.layers[1].mlp.num_shared_experts == 2);
    CHECK(m.layers[1].mlp.shared_intermediate_size == 128);
  }
  SECTION("ERNIE-4.5-21B-A3B: 21.8B parameters, as its Hub page says") {
    // huggingface.co/baidu/ERNIE-4.5-21B-A3B-PT config.json; the page gives "21.8B params". By hand:
    // embeddings 103,424 x 2,560 = 264,765,440 (tied) + final norm 2,560; per layer q/o 2 x 6,553,600 + k/v
    // 2 x 1,310,720 + 2 norms 5,120 = 15,733,760, x 28 = 440,545,280; layer 0's dense MLP 3 x 2,560 x 12,288
    // = 94,371,840; layers 1-27: 64 experts x 3 x 2,560 x 1,536 = 754,974,720 + shared MLP 3 x 2,560 x 3,072
    // = 23,592,960 + router 2,560 x 64 = 163,840: 778,731,520, x 27 = 21,025,751,040. Total 21,825,436,160.
    // (Read as dense before, it came to 3.35B.)
    const json j = {{"model_type", "ernie4_5_moe"},
                    {"hidden_size", 2560},
                    {"intermediate_size", 12288},
                    {"moe_intermediate_size", 1536},
                    {"num_hidden_layers", 28},
                    {"num_attention_heads", 20},
                    {"num_key_value_heads", 4},
                    {"head_dim", 128},
                    {"moe_num_experts", 64},
                    {"moe_num_shared_experts", 2},
                    {"moe_k", 6},
                    {"moe_layer_start_index", 1},
                    {"moe_layer_end_index", 27},
                    {"moe_layer_interval", 1},
                    {"vocab_size", 103424},
                    {"tie_word_embeddings", true},
                    {"torch_dtype", "bfloat16"},
                    {"max_position_embeddings", 131072}};
    CHECK(parameter_count(load(j)) == 21825436160ULL);
  }
}

TEST_CASE("unreadable configs name the key and the reason", "[presets][hf][errors]") {
  json j = llama_like();
  j.erase("num_hidden_layers");
  CHECK(error_of(j).find("/num_hidden_layers: missing") != std::string::npos);
  j = llama_like();
  j["num_key_value_heads"] = 3;
  CHECK(error_of(j) == "test.json: /num_key_value_heads: 3 does not divide num_attention_heads 8");
  j = llama_like();
  j["num_attention_heads"] = "8";
  CHECK(error_of(j) == "test.json: /num_attention_heads: must be a non-negative integer, got a string");
  j = llama_like();
  j["num_hidden_layers"] = 4.5;
  CHECK(error_of(j) == "test.json: /num_hidden_layers: must be a non-negative integer, got 4.5");
  j = llama_like();
  j["num_hidden_layers"] = -4;
  CHECK(error_of(j) == "test.json: /num_hidden_layers: must be a non-negative integer, got -4");
  j = llama_like();
  j["num_hidden_layers"] = 0;
  CHECK(error_of(j) == "test.json: /num_hidden_layers: must be a positive integer, got 0");
  j = llama_like();
  j["text_config"] = json::array();
  CHECK(error_of(j) == "test.json: /text_config: must be an object");
  CHECK(error_of(json::array()).find("must be a JSON object") != std::string::npos);
  j = llama_like();
  j["num_local_experts"] = 8;  // a mixture of experts without its top-k
  CHECK(error_of(j) ==
        "test.json: /num_experts_per_tok: missing: a mixture-of-experts config (8 experts) needs the experts "
        "routed per token");
  j["num_experts_per_tok"] = 0;
  CHECK(error_of(j) ==
        "test.json: /num_experts_per_tok: must be positive in a mixture-of-experts config (8 "
        "experts)");
  j["num_experts_per_tok"] = 2;
  CHECK(load(j).layers.front().mlp.experts_per_token == 2);
  j = llama_like();
  j["model_type"] = "jamba";
  CHECK(error_of(j) == "test.json: /attn_layer_period: missing (required for this architecture)");
}

TEST_CASE("contradictory attention keys: error naming both, or the engine's reading",
          "[presets][hf][errors]") {
  const KvDtypes bf16{};
  // Falcon (FalconConfig: multi_query defaults to true; modeling_falcon.py and vLLM falcon.py cache one KV
  // head without new_decoder_architecture). 4 layers, head_dim 512 / 8 = 64, bf16:
  //   MQA: 2 (K, V) * 1 * 64 * 2 B * 4 layers = 1,024 B; MHA: 2 * 8 * 64 * 2 * 4 = 8,192 B.
  json f{{"model_type", "falcon"},
         {"num_hidden_layers", 4},
         {"num_attention_heads", 8},
         {"hidden_size", 512},
         {"vocab_size", 1000}};
  CHECK(bytes_per_token(load(f), bf16).value == 1024);
  f["multi_query"] = false;
  CHECK(bytes_per_token(load(f), bf16).value == 8192);
  f["multi_query"] = true;
  f["num_kv_heads"] = 8;
  CHECK(error_of(f) ==
        "test.json: /num_kv_heads: 8 contradicts multi_query true without new_decoder_architecture: "
        "transformers and vLLM cache 1 KV head, llama.cpp's converter 8; set new_decoder_architecture, or "
        "drop one of the two");
  f.erase("multi_query");
  f.erase("num_kv_heads");
  f["num_key_value_heads"] = 2;
  CHECK(error_of(f).find("/num_key_value_heads: 2 contradicts multi_query true (FalconConfig's default)") !=
        std::string::npos);
  // new_decoder_architecture: num_kv_heads, multi_query ignored: 2 * 2 * 64 * 2 B * 4 = 2,048 B.
  f["new_decoder_architecture"] = true;
  f["multi_query"] = true;
  f.erase("num_key_value_heads");
  f["num_kv_heads"] = 2;
  CHECK(bytes_per_token(load(f), bf16).value == 2048);
  f.erase("num_kv_heads");  // FalconConfig: num_kv_heads defaults to num_attention_heads (MHA, 8,192 B)
  CHECK(bytes_per_token(load(f), bf16).value == 8192);

  // Llama-like: two KV-head keys that differ; multi_query beside num_key_value_heads; more KV heads than
  // heads.
  json j = llama_like();
  j["num_kv_heads"] = 4;
  CHECK(error_of(j) ==
        "test.json: /num_key_value_heads: 2 contradicts num_kv_heads 4: vLLM's get_total_num_kv_heads takes "
        "num_kv_heads, the model code may read num_key_value_heads; give one");
  j["num_kv_heads"] = 2;  // the same value twice is no contradiction: 2 * 2 * 64 * 2 B * 4 = 2,048 B
  CHECK(bytes_per_token(load(j), bf16).value == 2048);
  j = llama_like();
  j["multi_query"] = true;
  CHECK(error_of(j).find("/num_key_value_heads: 2 contradicts multi_query true (one KV head)") !=
        std::string::npos);
  j = llama_like();
  j["num_key_value_heads"] = 16;
  CHECK(error_of(j) ==
        "test.json: /num_key_value_heads: 16 does not divide num_attention_heads 8 (more KV "
        "heads than attention heads)");

  // MLA keys: on a family without latent attention, half given, or without kv_lora_rank.
  j = llama_like();
  j["kv_lora_rank"] = 512;
  CHECK(error_of(j).find(
            "test.json: /kv_lora_rank: is set, but model_type 'llama' has no latent attention") == 0);
  json ds{{"model_type", "deepseek_v3"}, {"num_hidden_layers", 4}, {"num_attention_heads", 8},
          {"hidden_size", 512},          {"vocab_size", 1000},     {"kv_lora_rank", 512},
          {"qk_nope_head_dim", 128},     {"v_head_dim", 128}};
  CHECK(error_of(ds) ==
        "test.json: /qk_rope_head_dim: missing: kv_lora_rank is set, and latent attention needs "
        "kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
  ds["qk_rope_head_dim"] = 64;  // (512 + 64) * 2 B * 4 layers = 4,608 B
  CHECK(bytes_per_token(load(ds), bf16).value == 4608);
  j = llama_like();
  j["model_type"] = "my_mla";
  j["qk_rope_head_dim"] = 64;
  CHECK(error_of(j).find("test.json: /qk_rope_head_dim: is set without kv_lora_rank") == 0);

  // A dimension past any real model is refused at its key, with the file: 2^40.
  j = llama_like();
  j["head_dim"] = std::uint64_t{1} << 40;
  CHECK(error_of(j) ==
        "test.json: /head_dim: 1,099,511,627,776 is past any real model's (kvplan takes at most "
        "1,048,576)");
  j["head_dim"] = std::uint64_t{1} << 20;  // the bound itself loads: 2 * 2 * 2^20 * 2 B * 4 = 33,554,432 B
  CHECK(bytes_per_token(load(j), bf16).value == 33554432);
}

TEST_CASE("sliding windows the engines do not apply, and one only vLLM applies", "[presets][hf]") {
  const KvDtypes bf16{};
  // Qwen3, use_sliding_window false: Qwen2Config/Qwen3Config set sliding_window to None, so layer_types'
  // sliding layers run as full attention in transformers and vLLM. 4 layers of 2 * 2 * 64 * 2 B = 512 B.
  json q = llama_like();
  q["model_type"] = "qwen3";
  q["use_sliding_window"] = false;
  q["sliding_window"] = 128;
  q["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "sliding_attention"};
  const ModelSpec off = load(q);
  CHECK(full_bytes_per_token(off, bf16).value == 2048);  // every layer full: 4 * 512
  CHECK(kv_bytes_per_sequence(off, bf16, Tokens{4096}).value == 2048u * 4096u);
  REQUIRE(off.warnings.size() == 1);
  CHECK(off.warnings[0] ==
        "test.json: /layer_types names 2 sliding layers, but use_sliding_window is false: transformers "
        "(Qwen2Config sets sliding_window to None) and vLLM run them as full attention, and so does kvplan");
  // Switched on, the same layer_types slide: 2 full layers (1,024 B) never cap, 2 keep 128 tokens.
  q["use_sliding_window"] = true;
  const ModelSpec on = load(q);
  CHECK(full_bytes_per_token(on, bf16).value == 1024);
  CHECK(kv_bytes_per_sequence(on, bf16, Tokens{4096}).value == 1024u * 4096u + 1024u * 128u);
  CHECK(on.warnings.empty());

  // Llama with sliding_window: LlamaConfig does not define it and modeling_llama never slides, but vLLM caps
  // every layer at it (CacheConfig.sliding_window, Attention's model-level window); kvplan does as vLLM and
  // says so. 4 layers * 512 B, each keeping 128 tokens.
  json l = llama_like();
  l["sliding_window"] = 128;
  const ModelSpec llama = load(l);
  CHECK(full_bytes_per_token(llama, bf16).value == 0);
  CHECK(kv_bytes_per_sequence(llama, bf16, Tokens{4096}).value == 2048u * 128u);
  REQUIRE(llama.warnings.size() == 1);
  CHECK(llama.warnings[0].find("test.json: /sliding_window 128: model_type 'llama' does not use it in "
                               "transformers or llama.cpp") == 0);
  CHECK(llama.warnings[0].find("so kvplan caps every layer as vLLM does") != std::string::npos);
  // Mistral's own window: no warning.
  l["model_type"] = "mistral";
  CHECK(load(l).warnings.empty());
}

TEST_CASE("preset names with control or bidirectional characters are refused", "[presets][errors]") {
  // U+202E (E2 80 AE) would print "gpt-4o" as "gpt-o4" reversed text; ESC starts a terminal sequence.
  const json cfg = llama_like();
  for (const auto& [name, shown] :
       std::vector<std::pair<std::string, std::string>>{{"evil\xe2\x80\xae"
                                                         "txt.exe",
                                                         "evil\\u202etxt.exe"},
                                                        {"red\x1b[31m", "red\\x1b[31m"}}) {
    const auto dir = std::filesystem::temp_directory_path() / "kvplan-test-bidi";
    std::filesystem::create_directories(dir);
    const auto path = dir / "bidi.json";
    {
      std::ofstream out(path);
      out << json{{"id", "bidi"}, {"name", name}, {"hf_repo", "x/y"}, {"config", cfg}}.dump();
    }
    try {
      (void)presets::load_model_file(path);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()) ==
            "bidi.json: /name: '" + shown +
                "' holds a control or bidirectional character (shown escaped): refused, "
                "as it would print as other text");
    }
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("JSON text: nesting and value counts are bounded, paths kept", "[presets][json]") {
  using presets::parse_json_text;
  // 64 levels parse; the 65th is refused at the path of the 64 open ones.
  const std::string ok = std::string(64, '[') + std::string(64, ']');
  CHECK(parse_json_text(ok, "f").is_array());
  const std::string deep = std::string(65, '[') + std::string(65, ']');
  std::string path;
  for (int i = 0; i < 64; ++i) path += "/0";
  CHECK_THROWS_WITH(parse_json_text(deep, "f"), "f: " + path + ": nested deeper than 64 levels (the limit)");
  // The outer array is value 1: 524,287 empty objects fit, one more does not (at index 524,287).
  std::string wide = "[";
  for (std::size_t i = 0; i < presets::kMaxJsonValues - 1; ++i) wide += i == 0 ? "{}" : ",{}";
  CHECK(parse_json_text(wide + "]", "f").size() == presets::kMaxJsonValues - 1);
  CHECK_THROWS_WITH(parse_json_text(wide + ",{}]", "f"),
                    "f: /524287: more than 524,288 JSON values in the file (the limit)");
  // A number nlohmann cannot hold is named by its path; a syntax error by line and column.
  CHECK_THROWS_WITH(parse_json_text(R"({"a": [1, {"b": 1e400}]})", "f"),
                    "f: /a/1/b: number overflow parsing '1e400'");
  CHECK_THROWS_WITH(parse_json_text("{", "f"), Catch::StartsWith("f: malformed JSON: parse error at line 1"));
  // Duplicate keys are refused at their path, with both values: Python's json keeps the last, other readers
  // the first, so the figure would depend on the reader.
  CHECK_THROWS_WITH(
      parse_json_text(R"({"k": 1, "k": 2})", "f"),
      "f: /k: duplicate key: first 1, then 2; JSON readers differ on which counts (Python's json, "
      "as transformers and vLLM read it, keeps the last): remove one");
  CHECK_THROWS_WITH(
      parse_json_text(R"({"t": {"num_key_value_heads": 8, "x": [1], "num_key_value_heads": 64}})", "f"),
      Catch::StartsWith("f: /t/num_key_value_heads: duplicate key: first 8, then 64;"));
  CHECK_THROWS_WITH(parse_json_text(R"({"a": {"b": 1}, "a": [2]})", "f"),
                    Catch::StartsWith("f: /a: duplicate key: first an object, then an array;"));
  // The same key in two objects, or in sibling objects of an array, is no duplicate.
  CHECK(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 3}, {"k": 4}]})", "f")["c"][1]["k"] ==
        4);
}

TEST_CASE("Hugging Face revisions: names that stay inside the cache folder", "[presets][hub]") {
  for (const char* r : {"main", "v1.0", "refs/pr/1", "0123456789abcdef0123456789abcdef01234567"})
    CHECK(presets::is_hf_revision(r));
  for (const char* r : {"", "/etc/passwd", "../x", "a/../b", "a//b", "a b", "x:y", "a\\b", "main/"})
    CHECK_FALSE(presets::is_hf_revision(r));
  CHECK(presets::is_commit_hash("0123456789abcdef0123456789abcdef01234567"));
  CHECK_FALSE(presets::is_commit_hash("0123456789ABCDEF0123456789abcdef01234567"));
  CHECK_FALSE(presets::is_commit_hash("main"));
}

TEST_CASE("A GGUF repo by quant tag (org/repo:TAG) goes to the Hub's GGUF reader", "[presets][hub]") {
  // llama.cpp common/download.cpp common_download_split_repo_tag: the repo the text before the ':',
  // <user>/<model>, the tag after it. Offline with an empty cache, the miss is named
  // (tests/test_hub_gguf.cpp reads such repos from a Hub stand-in).
  const EnvScope offline("HF_HUB_OFFLINE", "1");
  const EnvScope cache("XDG_CACHE_HOME", "/nonexistent/kvplan-test-cache");
  CHECK_THROWS_WITH(presets::find_model("unsloth/Qwen3-8B-GGUF:Q4_K_M"),
                    Catch::Matchers::StartsWith("model: 'unsloth/Qwen3-8B-GGUF' at revision 'main' is not in "
                                                "kvplan's cache of GGUF headers") &&
                        Catch::Matchers::Contains("HF_HUB_OFFLINE is set"));
  // A file path as the tag is no missing local file.
  CHECK_THROWS_WITH(presets::find_model("unsloth/Qwen3-8B-GGUF:Qwen3-8B-Q4_K_M.gguf"),
                    Catch::Matchers::Contains("is not in kvplan's cache"));
  // Not a repo before the ':': the unknown-model message as before.
  CHECK_THROWS_WITH(presets::find_model("no-slash:Q4_K_M"),
                    Catch::Matchers::Contains("unknown model 'no-slash:Q4_K_M'"));
}

// --- Issue 28: hostile input, round 3.
namespace {
/// The password database's home folder of this user (what Python's expanduser("~") falls back to); empty
/// where the user has no entry (some containers).
std::string passwd_home() {
  const passwd* pw = ::getpwuid(::getuid());
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "";
}
}  // namespace

TEST_CASE("JSON text: a NUL byte is refused, not taken for the end", "[presets][json][hostile]") {
  // nlohmann's lexer ends the text at a NUL, so "{}" followed by anything was accepted.
  CHECK_THROWS_WITH(presets::parse_json_text(std::string("{}\0garbage", 10), "f"),
                    "f: malformed JSON: a NUL byte at offset 2 (JSON text has none)");
  CHECK_THROWS_WITH(presets::parse_json_text(std::string("[1]\0\0", 5), "f"),
                    "f: malformed JSON: a NUL byte at offset 3 (JSON text has none)");
  // Inside a string, or in text already malformed before it (a binary file), the syntax error is named.
  CHECK_THROWS_WITH(presets::parse_json_text(std::string("{\"a\": \"x\0y\"}", 12), "f"),
                    Catch::StartsWith("f: malformed JSON: parse error at line 1, column 9"));
}

TEST_CASE("quantization_config must be an object with a string quant_method", "[presets][hf][hostile]") {
  json c = llama_like();
  // transformers' AutoHfQuantizer.from_config calls .get on it: a string fails there. It was ignored.
  c["quantization_config"] = "fp8";
  CHECK(test::error_of(c) ==
        "test.json: /quantization_config: must be an object (transformers reads it as a dict), got a string");
  c["quantization_config"] = json{{"quant_method", 8}};
  CHECK(test::error_of(c) == "test.json: /quantization_config/quant_method: must be a string, got a number");
  json wrapped = {{"model_type", "llava"}, {"text_config", llama_like()}};
  wrapped["text_config"]["quantization_config"] = json::array();
  CHECK(test::error_of(wrapped) ==
        "test.json: /text_config/quantization_config: must be an object "
        "(transformers reads it as a dict), got an array");
  c["quantization_config"] = json{{"quant_method", "fp8"}};
  CHECK(test::load(c).weight_dtype == DType::fp8_e4m3);
  c["quantization_config"] = nullptr;  // None: no quantization, as transformers reads it
  CHECK(test::error_of(c) == "no error");
}

TEST_CASE("HOME unset or empty: the password database's home, never the working folder",
          "[presets][hub][hostile]") {
  const EnvScope no_hub_cache("HF_HUB_CACHE", nullptr);
  const EnvScope no_old_hub_cache("HUGGINGFACE_HUB_CACHE", nullptr);
  const EnvScope no_hf_home("HF_HOME", nullptr);
  const EnvScope no_xdg("XDG_CACHE_HOME", nullptr);
  const std::string home = passwd_home();
  for (const char* value : {static_cast<const char*>(nullptr), ""}) {
    const EnvScope h("HOME", value);
    if (home.empty() || home.front() != '/') {
      CHECK_THROWS_WITH(presets::hf_hub_cache_dir(),
                        Catch::StartsWith("HOME: is not set, and the password database has no home folder"));
      continue;
    }
    // Before: ".cache/huggingface/hub", under whatever folder kvplan ran in.
    CHECK(presets::hf_hub_cache_dir() == std::filesystem::path(home) / ".cache" / "huggingface" / "hub");
    CHECK(presets::kvplan_cache_dir() == std::filesystem::path(home) / ".cache" / "kvplan");
    CHECK(presets::home_dir().is_absolute());
  }
  const EnvScope h("HOME", "/somewhere/else");
  CHECK(presets::hf_hub_cache_dir() == "/somewhere/else/.cache/huggingface/hub");
  // A relative XDG_CACHE_HOME is ignored (XDG Base Directory specification): not the working folder either.
  const EnvScope x("XDG_CACHE_HOME", "relative/cache");
  CHECK(presets::kvplan_cache_dir() == "/somewhere/else/.cache/kvplan");
}

TEST_CASE("The Hub cache: HF_HUB_CACHE, then HUGGINGFACE_HUB_CACHE, then HF_HOME/hub", "[presets][hub]") {
  // huggingface_hub/constants.py: HF_HUB_CACHE = os.getenv("HF_HUB_CACHE", os.getenv("HUGGINGFACE_HUB_CACHE",
  // os.path.join(HF_HOME, "hub"))).
  const EnvScope no_hub_cache("HF_HUB_CACHE", nullptr);
  const EnvScope home("HF_HOME", "/hf-home");
  const EnvScope old("HUGGINGFACE_HUB_CACHE", "/old-name");
  CHECK(presets::hf_hub_cache_dir() == "/old-name");
  CHECK(presets::hf_repo_cache_dir("org/name") == "/old-name/models--org--name");
  {
    const EnvScope both("HF_HUB_CACHE", "/new-name");
    CHECK(presets::hf_hub_cache_dir() == "/new-name");
  }
  const EnvScope empty("HUGGINGFACE_HUB_CACHE", "");
  CHECK(presets::hf_hub_cache_dir() == "/hf-home/hub");
}

TEST_CASE("refs/<revision>: a small read, never a blocking one", "[presets][hub][hostile]") {
  const auto cache = std::filesystem::temp_directory_path() / "kvplan-test-refs";
  std::filesystem::remove_all(cache);
  const EnvScope c("HF_HUB_CACHE", cache.c_str());
  const auto repo = presets::hf_repo_cache_dir("org/name");
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  std::filesystem::create_directories(repo / "refs");
  std::filesystem::create_directories(repo / "snapshots" / commit);
  std::ofstream(repo / "snapshots" / commit / "config.json") << llama_like().dump();
  const auto ref = repo / "refs" / "main";
  std::ofstream(ref) << commit << "\n";
  CHECK(presets::hf_cached_config("org/name", "main") == repo / "snapshots" / commit / "config.json");
  // 1 GiB without a line break (sparse): read whole before (a 3 GiB one took 12 s and 4.1 GB); now at most
  // 4 KiB, and not a commit: not cached.
  std::filesystem::resize_file(ref, std::uint64_t{1} << 30);
  CHECK_FALSE(presets::hf_cached_config("org/name", "main"));
  // A FIFO no one writes: named, not waited on.
  std::filesystem::remove(ref);
  REQUIRE(::mkfifo(ref.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(presets::hf_cached_config("org/name", "main"),
                    ref.string() + ": is a FIFO (named pipe), not a regular file");
  std::filesystem::remove_all(cache);
}

TEST_CASE("HF_ENDPOINT's password is never shown", "[presets][hub][hostile]") {
  CHECK(presets::redact_userinfo("https://user:s3cret@hub.example:8080/x/y?z#w") ==
        "https://***@hub.example:8080/x/y?z#w");
  CHECK(presets::redact_userinfo("http://token@127.0.0.1") == "http://***@127.0.0.1");
  // An '@' in the path is no userinfo; the last '@' of the authority ends it.
  CHECK(presets::redact_userinfo("https://hub.example/a@b") == "https://hub.example/a@b");
  CHECK(presets::redact_userinfo("https://u:p@ss@hub.example/") == "https://***@hub.example/");
  CHECK(presets::redact_userinfo("https://huggingface.co") == "https://huggingface.co");
  // Offline, the error names the cache only; online (tests/hub/hub_cases.py "secrets") every Hub message
  // goes through it.
}

TEST_CASE("presets folders: one that cannot be read is an error naming it", "[presets][hostile]") {
  const auto dir = std::filesystem::temp_directory_path() / "kvplan-test-unreadable-presets";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const EnvScope p("KVPLAN_PRESETS", dir.c_str());
  SECTION("models/ a link loop (was skipped without a word)") {
    std::filesystem::create_symlink("models", dir / "models");
    CHECK_THROWS_WITH(presets::list_models(),
                      (dir / "models").string() + ": cannot be read: Too many levels of symbolic links");
  }
  SECTION("models/ a file") {
    std::ofstream(dir / "models") << "x";
    CHECK_THROWS_WITH(presets::list_models(), (dir / "models").string() + ": is not a folder");
  }
  SECTION("models/ without permission (root reads it anyway)") {
    std::filesystem::create_directories(dir / "models");
    std::filesystem::permissions(dir / "models", std::filesystem::perms::none);
    if (::geteuid() != 0)
      CHECK_THROWS_WITH(presets::list_models(),
                        (dir / "models").string() + ": cannot be listed: Permission denied");
    std::filesystem::permissions(dir / "models", std::filesystem::perms::owner_all);
  }
  SECTION("the same folder twice, spelt two ways, is searched once") {
    std::filesystem::create_directories(dir / "models");
    std::filesystem::create_symlink(dir, dir.string() + "-link");
    const std::string twice = dir.string() + ":" + dir.string() + "/.:" + dir.string() + "-link";
    const EnvScope p2("KVPLAN_PRESETS", twice.c_str());
    const auto dirs = presets::preset_dirs();
    CHECK(std::count_if(dirs.begin(), dirs.end(), [](const auto& d) { return d.user; }) == 1);
    std::filesystem::remove(dir.string() + "-link");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("one name, two user presets: an error naming both files, not file order's choice",
          "[presets][hostile]") {
  const auto dir = std::filesystem::temp_directory_path() / "kvplan-test-ambiguous-presets";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "models");
  const EnvScope p("KVPLAN_PRESETS", dir.c_str());
  // Two copies of a shipped preset under ids of their own, sharing one hf_repo and one alias.
  nlohmann::json j;
  const auto shipped = presets::list_models();
  const auto llama =
      std::find_if(shipped.begin(), shipped.end(), [](const auto& m) { return m.id == "llama-3.1-70b"; });
  REQUIRE(llama != shipped.end());
  std::ifstream(llama->path) >> j;
  for (const char* id : {"mine-a", "mine-b"}) {
    j["id"] = id;
    j["hf_repo"] = "me/shared";
    j["aliases"] = nlohmann::json::array({"shared-alias"});
    std::ofstream(dir / "models" / (std::string(id) + ".json")) << j.dump();
  }
  const std::string both = (dir / "models" / "mine-a.json").string() + " and " +
                           (dir / "models" / "mine-b.json").string() + ": give a preset id";
  CHECK_THROWS_WITH(presets::find_model("shared-alias"),
                    Catch::Contains("two presets") && Catch::EndsWith(both));
  CHECK_THROWS_WITH(presets::find_model("me/shared"), Catch::EndsWith(both));
  // Its id still names one of them.
  CHECK(presets::find_model("mine-b").id == "mine-b");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a revision with a preset id or a local file is refused, not ignored", "[presets][hub]") {
  CHECK_THROWS_WITH(
      presets::find_model("llama-3.1-70b", "refs/pr/1"),
      "revision: 'refs/pr/1' applies to a Hugging Face repo id, and 'llama-3.1-70b' is a preset id "
      "(its hf_repo 'meta-llama/Llama-3.1-70B' reads that revision from the Hub)");
  const auto file = std::filesystem::temp_directory_path() / "kvplan-test-revision-config.json";
  std::ofstream(file) << "{}";
  CHECK_THROWS_WITH(
      presets::find_model(file.string(), "main"),
      "revision: 'main' applies to a Hugging Face repo id, and '" + file.string() + "' is a local file");
  std::filesystem::remove(file);
}

TEST_CASE("a user preset's aliases that are not strings are refused, not dropped", "[presets][hostile]") {
  const auto dir = std::filesystem::temp_directory_path() / "kvplan-test-bad-aliases";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "models");
  const EnvScope p("KVPLAN_PRESETS", dir.c_str());
  const auto shipped = presets::list_models();
  const auto llama =
      std::find_if(shipped.begin(), shipped.end(), [](const auto& m) { return m.id == "llama-3.1-70b"; });
  REQUIRE(llama != shipped.end());
  nlohmann::json j;
  std::ifstream(llama->path) >> j;
  j["id"] = "mine";
  const auto file = dir / "models" / "mine.json";
  j["aliases"] = "me/foo";  // a string, not an array: the preset was found by none of it
  std::ofstream(file) << j.dump();
  CHECK_THROWS_WITH(presets::list_models(),
                    file.string() + ": /aliases: must be an array of strings (repo ids or names)");
  j["aliases"] = nlohmann::json::array({"me/foo", 5});
  std::ofstream(file) << j.dump();
  CHECK_THROWS_WITH(presets::list_models(),
                    file.string() + ": /aliases/1: must be a string (a repo id or a name)");
  std::filesystem::remove_all(dir);
}
