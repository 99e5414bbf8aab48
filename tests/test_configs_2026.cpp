// The config reader on the layouts of 2025-2026 models that the corpus (tests/data/configs, checked by
// test_corpus.cpp) first showed it misread: GLM-5.2's indexer on some layers only, Laguna's per-layer query
// heads and MLP kinds, Step-3's single KV head. Small configs, each figure worked by hand beside it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hf_support.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;
using nlohmann::json;
using test::error_of;
using test::load;

namespace {
/// An 8-layer latent-attention config with a lightning indexer (GlmMoeDsaConfig's keys).
json glm_dsa() {
  return json{{"model_type", "glm_moe_dsa"}, {"num_hidden_layers", 8},    {"num_attention_heads", 4},
              {"hidden_size", 1024},         {"intermediate_size", 2048}, {"vocab_size", 1000},
              {"kv_lora_rank", 512},         {"qk_rope_head_dim", 64},    {"qk_nope_head_dim", 128},
              {"v_head_dim", 128},           {"q_lora_rank", 256},        {"index_head_dim", 128},
              {"index_n_heads", 4},          {"index_topk", 16},          {"max_position_embeddings", 4096}};
}

/// A 4-layer Laguna config (LagunaConfig's keys as poolside/Laguna-XS.2 writes them).
json laguna() {
  return json{
      {"model_type", "laguna"},
      {"num_hidden_layers", 4},
      {"num_attention_heads", 8},
      {"num_key_value_heads", 2},
      {"head_dim", 64},
      {"hidden_size", 512},
      {"intermediate_size", 1024},
      {"vocab_size", 1000},
      {"num_experts", 4},
      {"num_experts_per_tok", 2},
      {"moe_intermediate_size", 128},
      {"shared_expert_intermediate_size", 128},
      {"sliding_window", 16},
      {"gating", true},
      {"layer_types", {"full_attention", "sliding_attention", "sliding_attention", "sliding_attention"}},
      {"num_attention_heads_per_layer", {8, 16, 16, 16}},
      {"mlp_layer_types", {"dense", "sparse", "sparse", "sparse"}},
      {"max_position_embeddings", 4096}};
}
}  // namespace

TEST_CASE("the lightning indexer only on the layers vLLM builds it for", "[presets][hf][configs2026]") {
  const KvDtypes bf16;
  // Every layer: the latent (512 + 64) x 2 B = 1,152; the indexer key 128 fp8 + 128 / 128 x 4 B = 132.
  SECTION("no IndexCache keys: the indexer on all 8 layers") {
    CHECK(bytes_per_token(load(glm_dsa()), bf16).value == 8 * (1152 + 132));  // 10,272
  }
  SECTION("index_topk_freq 4, index_skip_topk_offset 3") {
    // vLLM deepseek_v2.py: layer i keeps it iff max(i - 3 + 1, 0) % 4 == 0: max(i - 2, 0) is
    // 0, 0, 0, 1, 2, 3, 4, 5 for layers 0..7, so layers 0, 1, 2 and 6: 4 indexers.
    json j = glm_dsa();
    j["index_topk_freq"] = 4;
    j["index_skip_topk_offset"] = 3;
    j["index_topk_pattern"] = nullptr;  // GLM-5.2 writes null: the frequency decides
    CHECK(bytes_per_token(load(j), bf16).value == 8 * 1152 + 4 * 132);  // 9,744
  }
  SECTION("index_topk_freq 2, vLLM's offset default 2") {
    // max(i - 1, 0): 0, 0, 1, 2, 3, 4, 5, 6 -> even at layers 0, 1, 3, 5, 7: 5 indexers.
    json j = glm_dsa();
    j["index_topk_freq"] = 2;
    CHECK(bytes_per_token(load(j), bf16).value == 8 * 1152 + 5 * 132);  // 9,876
  }
  SECTION("index_topk_pattern: \"S\" skips, past its end every layer keeps it") {
    json j = glm_dsa();
    j["index_topk_freq"] = 4;              // read instead of the pattern only when there is none
    j["index_topk_pattern"] = "FFSSFSSS";  // F at 0, 1, 4: 3 indexers
    CHECK(bytes_per_token(load(j), bf16).value == 8 * 1152 + 3 * 132);  // 9,612
    j["index_topk_pattern"] = "SS";                                     // layers 2..7 keep it: 6 indexers
    CHECK(bytes_per_token(load(j), bf16).value == 8 * 1152 + 6 * 132);  // 10,008
    j["index_topk_pattern"] = json::array({"F", "S", "S", "S", "F", "S", "S", "S"});  // 2 indexers
    CHECK(bytes_per_token(load(j), bf16).value == 8 * 1152 + 2 * 132);                // 9,480
    j["index_topk_pattern"] = 7;
    CHECK(error_of(j) ==
          "test.json: /index_topk_pattern: must be a string or an array of strings, got a number");
  }
  SECTION("IndexCache keys where no rule reads them are refused by name") {
    json j{{"model_type", "llama"}, {"num_hidden_layers", 4}, {"num_attention_heads", 8},
           {"hidden_size", 512},    {"vocab_size", 1000},     {"intermediate_size", 1024},
           {"index_topk_freq", 4}};
    CHECK(
        error_of(j) ==
        "test.json: /index_topk_freq: shapes the KV cache or state, and the llama-like decoder rules do not "
        "model it: no figure rather than a wrong one");
  }
}

TEST_CASE("Laguna: one KV layout, per-layer query heads and MLP kinds", "[presets][hf][configs2026]") {
  const KvDtypes bf16;
  const ModelSpec m = load(laguna());
  // vLLM laguna.py: every layer caches num_key_value_heads 2 x head_dim 64 x (K, V) x 2 B = 512 B; the
  // window only on layer_types' sliding layers (1, 2, 3).
  CHECK(bytes_per_token(m, bf16).value == 4 * 512);
  CHECK(full_bytes_per_token(m, bf16).value == 512);
  // At 32 tokens: the full layer holds 32, each sliding layer its 16-token window: 512 x 32 + 3 x 512 x 16.
  CHECK(kv_bytes_per_sequence(m, bf16, Tokens{32}).value == 512 * 32 + 3 * 512 * 16);
  // Layer 0: 8 query heads and the dense MLP; layers 1-3: 16 heads and the MoE with an ungated shared expert.
  REQUIRE(m.layers.size() == 2);
  CHECK(m.layers[0].count == 1);
  CHECK(m.layers[0].attention.num_attention_heads == 8);
  CHECK(m.layers[0].mlp.num_experts == 0);
  CHECK(m.layers[1].count == 3);
  CHECK(m.layers[1].attention.num_attention_heads == 16);
  CHECK(m.layers[1].mlp.num_experts == 4);
  CHECK(m.layers[1].mlp.num_shared_experts == 1);
  CHECK_FALSE(m.layers[1].mlp.shared_expert_gate);

  json j = laguna();
  j["num_attention_heads_per_layer"] = {8, 16, 16};
  CHECK(error_of(j) == "test.json: /num_attention_heads_per_layer: has 3 entries for 4 layers");
  j["num_attention_heads_per_layer"] = {8, 16, 15, 16};
  CHECK(error_of(j) ==
        "test.json: /num_attention_heads_per_layer/2: 15 query heads: must be a positive multiple of "
        "num_key_value_heads 2");
  j = laguna();
  j["mlp_layer_types"] = {"dense", "sparse", "moe", "sparse"};
  CHECK(error_of(j) == "test.json: /mlp_layer_types/2: must be \"dense\" or \"sparse\"");
}

TEST_CASE("Step-3: one K and one V head per layer, whatever num_attention_groups says",
          "[presets][hf][configs2026]") {
  // Step3TextConfig's keys at a small size. vLLM step3_text.py Step3TextDecoderLayer: num_kv_heads=1 with
  // head_dim 64 on every layer: 2 x 1 x 64 x 2 B = 256 B per layer, 4 layers.
  const json j{{"model_type", "step3_text"},
               {"num_hidden_layers", 4},
               {"hidden_size", 512},
               {"num_attention_heads", 8},
               {"num_attention_groups", 8},
               {"head_dim", 64},
               {"share_q_dim", 128},
               {"intermediate_size", 1024},
               {"vocab_size", 1000},
               {"moe_num_experts", 4},
               {"moe_top_k", 2},
               {"moe_intermediate_size", 128},
               {"share_expert_dim", 128},
               {"moe_layers_enum", "1,2,3"}};
  const ModelSpec m = load(j);
  CHECK(bytes_per_token(m, KvDtypes{}).value == 4 * 256);
  REQUIRE(m.layers.size() == 2);
  CHECK(m.layers[0].mlp.num_experts == 0);  // layer 0 is not in moe_layers_enum: the dense MLP
  CHECK(m.layers[1].count == 3);
  CHECK(m.layers[1].mlp.num_experts == 4);
  CHECK(m.layers[1].mlp.num_shared_experts == 1);
  CHECK_FALSE(m.layers[1].mlp.shared_expert_gate);
  // The query path: counted hidden 512 x (8 x 64) = 262,144; the model hidden x 128 + 128 + 128 x 512 =
  // 131,200: 130,944 too many per layer, said in a warning.
  const bool said = std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find("/share_q_dim 128") != std::string::npos &&
           w.find("130,944 parameters per layer too many") != std::string::npos;
  });
  CHECK(said);
}

TEST_CASE("Qwen3-VL's vision tower counted with its mergers", "[presets][hf][configs2026]") {
  // Qwen/Qwen3-VL-30B-A3B-Instruct's vision_config (tests/data/configs): hidden 1,152, intermediate 4,304,
  // depth 27, patch 16, temporal patch 2, 3 channels, 2,304 positions, spatial merge 2, out 2,048, three
  // deepstack indexes (8, 16, 24). transformers models/qwen3_vl_moe/modeling_qwen3_vl_moe.py
  // Qwen3VLMoeVisionModel, worked by hand:
  //   patch embedding (Conv3d with bias): 3 x 2 x 16 x 16 x 1,152 + 1,152 = 1,770,624
  //   position embedding: 2,304 x 1,152 = 2,654,208
  //   a block: LayerNorms 4 x 1,152 = 4,608; qkv 1,152 x 3,456 + 3,456 = 3,984,768; proj 1,152^2 + 1,152 =
  //     1,328,256; MLP 2 x 1,152 x 4,304 + 4,304 + 1,152 = 9,921,872: 15,239,504; x 27 = 411,466,608
  //   merger (merge = 1,152 x 4 = 4,608): LayerNorm 2,304; fc1 4,608^2 + 4,608 = 21,238,272; fc2 4,608 x
  //     2,048 + 2,048 = 9,439,232: 30,679,808
  //   deepstack mergers: the same linears and a LayerNorm over 4,608 (9,216): 30,686,720; x 3 = 92,060,160
  //   in all 538,631,408 parameters (1.00 GiB in bf16).
  const std::string dir = KVPLAN_CORPUS;
  std::ifstream in(dir + "/qwen3-vl-30b-a3b-instruct.json");
  REQUIRE(in);
  json config = json::parse(in);
  const ModelSpec m = load(config);
  CHECK(m.encoder_parameters == 538631408ULL);
  CHECK(m.encoder_unknown.empty());
  // Without deepstack mergers (the configuration class's default []): 538,631,408 - 92,060,160.
  config["vision_config"].erase("deepstack_visual_indexes");
  CHECK(load(config).encoder_parameters == 446571248ULL);
  // A deepstack index past the tower's depth is refused, naming the key.
  config["vision_config"]["deepstack_visual_indexes"] = json::array({8, 27});
  CHECK_THROWS_WITH(load(config), Catch::Contains("deepstack_visual_indexes"));
}

TEST_CASE("Gemma 4's vision and audio towers counted; another audio encoder named",
          "[presets][hf][configs2026]") {
  // google/gemma-4-31B-it's vision_config (tests/data/configs): hidden 1,152, intermediate 4,304, 27 layers,
  // 16 heads and 16 KV heads of 72, patch 16, 10,240 positions, standardize true, no clipped linears; the
  // text model's hidden 5,376. transformers models/gemma4/modeling_gemma4.py Gemma4VisionModel and
  // Gemma4MultimodalEmbedder, worked by hand:
  //   a layer: q, k, v, o 4 x 1,152 x 1,152 = 5,308,416; q_norm, k_norm 2 x 72 = 144; MLP 3 x 1,152 x 4,304
  //     = 14,874,624; four norms 4,608: 20,187,792; x 27 = 545,070,384
  //   patch input_proj 3 x 16^2 x 1,152 = 884,736; position table 2 x 10,240 x 1,152 = 23,592,960;
  //   std_bias and std_scale 2,304: the tower 569,550,384
  //   embed_vision 1,152 x 5,376 = 6,193,152: 575,743,536 in all. With the text stack, the checkpoint's
  //   published total_size is 62,546,177,752 B.
  const std::string dir = KVPLAN_CORPUS;
  std::ifstream in(dir + "/gemma-4-31b.json");
  REQUIRE(in);
  json config = json::parse(in);
  const ModelSpec m = load(config);
  CHECK(m.encoder_parameters == 575743536ULL);
  CHECK(m.encoder_unknown.empty());
  // attention_k_eq_v decides the full layers' KV heads (modeling_gemma4.py Gemma4TextAttention): with it,
  // num_global_key_value_heads (4); without it, num_key_value_heads (16). global_head_dim (512) either way.
  const auto full_kv_heads = [](const ModelSpec& spec) {
    for (const auto& g : spec.layers)
      if (g.attention.kind == AttentionKind::full) return g.attention.num_key_value_heads;
    return std::uint64_t{0};
  };
  CHECK(full_kv_heads(m) == 4);
  json no_k_eq_v = config;
  no_k_eq_v["text_config"]["attention_k_eq_v"] = false;
  const ModelSpec plain = load(no_k_eq_v);
  CHECK(full_kv_heads(plain) == 16);
  for (const auto& g : plain.layers)
    if (g.attention.kind == AttentionKind::full) CHECK(g.attention.head_dim_k == 512);
  // The E2B / E4B shape: a vision_config of Gemma4VisionConfig's defaults (hidden 768, intermediate 3,072,
  // 16 layers, 12 heads and 12 KV heads of 64, patch 16, 10,240 positions) with clipped linears, and an
  // audio_config of Gemma4AudioConfig's defaults (hidden 1,024, 12 layers, 8 heads, channels [128, 32],
  // kernel 5, output 1,536, clipped linears), under the same 5,376-wide text model:
  //   vision layer 4 x 768^2 + 2 x 64 + 3 x 768 x 3,072 + 4 x 768 + 28 bounds = 9,440,412; x 16 =
  //     151,046,592; + 3 x 256 x 768 = 589,824 + 2 x 10,240 x 768 = 15,728,640: 167,365,056;
  //     embed_vision 768 x 5,376 = 4,128,768
  //   audio layer 24 x 1,024^2 + (9 + 5) x 1,024 + 1,024 / 8 + 40 bounds = 25,180,328; x 12 = 302,163,936;
  //     convolutions 9 x 128 + 128 + 9 x 128 x 32 + 32 = 38,176; input_proj 32 x 32 x 1,024 = 1,048,576;
  //     output_proj 1,024 x 1,536 + 1,536 = 1,574,400: 304,825,088; embed_audio 1,536 x 5,376 = 8,257,536
  //   167,365,056 + 4,128,768 + 304,825,088 + 8,257,536 = 484,576,448
  config["vision_config"] = json{{"model_type", "gemma4_vision"}, {"use_clipped_linears", true}};
  config["audio_config"] = json{{"model_type", "gemma4_audio"}};
  CHECK(load(config).encoder_parameters == 484576448ULL);
  // Another family's audio encoder is not counted, and said so (the weights are below what vLLM loads).
  config["audio_config"] = json{{"model_type", "voxtral_encoder"}};
  CHECK(load(config).encoder_unknown == "the audio encoder (audio_config model_type 'voxtral_encoder')");
  config["audio_config"] =
      json{{"model_type", "gemma4_audio"}, {"subsampling_conv_channels", json::array({128})}};
  CHECK_THROWS_WITH(load(config),
                    Catch::Contains("subsampling_conv_channels: must be two positive channel counts"));
  // google/gemma-4-26B-A4B (tests/data/configs): the MoE block beside the dense MLP (enable_moe_block) is
  // counted. Its model.safetensors.index.json total_size is 51,611,872,412 B = 25,805,936,206 bf16
  // parameters; less its vision tower and projector (27 layers of 1,152 as above, 569,550,384, and
  // embed_vision 1,152 x 2,816 = 3,244,032: 572,794,416) and the 30 layer_scalar values kvplan does not
  // count: 25,233,141,760 text parameters. kvplan counts, as vLLM allocates, a V projection on the five
  // k_eq_v full layers the checkpoint has not: 5 x 2,816 x 2 KV heads x 512 = 14,417,920 more.
  std::ifstream moe_in(dir + "/gemma-4-26b-a4b.json");
  REQUIRE(moe_in);
  const ModelSpec moe = load(json::parse(moe_in));
  CHECK(moe.weights_unknown.empty());
  CHECK(moe.encoder_parameters == 572794416ULL);
  CHECK(parameter_count(moe) == 25233141760ULL + 14417920ULL);
  // Without intermediate_size the dense MLP beside the block has no width: the weights are unknown, not
  // counted without it (every layer has experts, so the decoder's dense-width check passed over it).
  moe_in.clear();
  moe_in.seekg(0);
  json no_width = json::parse(moe_in);
  no_width["text_config"].erase("intermediate_size");
  CHECK(load(no_width).weights_unknown ==
        "the config has no intermediate_size (Gemma 4's dense MLP beside its MoE block)");
}

TEST_CASE("LongCat-Flash: two latent caches per decoder layer, the weights of both halves", "[hf][configs]") {
  // vLLM longcat_flash.py FlashDecoderLayer: two DeepseekV2MLAAttention, two FlashMLP and one LongcatMoe per
  // layer of num_layers. The corpus case checks the cache (56 caches of 576 values); here the weights. By
  // hand, per decoder layer (hidden 6,144, 64 heads):
  //   an MLA attention: q_a 6,144 x 1,536 = 9,437,184; q_b 1,536 x 64 x 192 = 18,874,368; kv_a 6,144 x 576 =
  //     3,538,944; kv_b 512 x 64 x 256 = 8,388,608; o 8,192 x 6,144 = 50,331,648: 90,570,752; x 2
  //   a dense MLP: 3 x 6,144 x 12,288 = 226,492,416; x 2
  //   the MoE: 512 x 3 x 6,144 x 2,048 = 19,327,352,832 and its router 6,144 x 512 = 3,145,728
  //   in all 19,964,624,896 (norms aside); x 28 = 559,009,497,088, + 2 x 131,072 x 6,144 embeddings =
  //   560,620,109,824: the "560-billion parameter MoE" of the LongCat-Flash Technical Report's abstract (the
  //   generic reading, 28 caches and no expert width, had the weights unknown).
  const std::string dir = KVPLAN_CORPUS;
  std::ifstream in(dir + "/longcat-flash-chat.json");
  REQUIRE(in);
  json config = json::parse(in);
  const ModelSpec m = load(config);
  const std::uint64_t p = parameter_count(m);
  CHECK(p >= 560620109824ULL);
  CHECK(p <= 560620109824ULL + 28ULL * 2 * 4 * 6144);  // the norms: under four hidden-wide per half-layer
  // The zero experts are named, with the router columns left out: 28 x 6,144 x 256 = 44,040,192.
  CHECK(std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find("zero_expert_num") != std::string::npos && w.find("44,040,192") != std::string::npos;
  }));
  // num_hidden_layers, where given, is the decoder layers' count (FlashConfig.__init__).
  config["num_hidden_layers"] = 2;
  CHECK(bytes_per_token(load(config), KvDtypes{}).value == 4ULL * 1152);
}

TEST_CASE("Bamba: attention at attn_layer_indices, Mamba2 elsewhere; the key refused where unread",
          "[hf][configs]") {
  // BambaConfig.layers_block_type: "attention" for the indices listed, "mamba" for the rest. Four layers,
  // attention at 1: KV 2 x 8 x 128 x 2 B = 4,096 B per token; three Mamba2 layers of (128 x 64 x 256 SSM +
  // (8,192 + 2 x 256) x 3 conv) x 2 B = (2,097,152 + 26,112) x 2 = 4,246,528 B: 12,739,584 B per sequence.
  json bamba = {{"model_type", "bamba"}, {"num_hidden_layers", 4}, {"attn_layer_indices", {1}}};
  const ModelSpec m = load(bamba);
  CHECK(bytes_per_token(m, KvDtypes{}).value == 4096);
  CHECK(state_bytes_per_sequence(m, KvDtypes{}).value == 12739584ULL);
  bamba["attn_layer_indices"] = {4};
  CHECK_THAT(error_of(bamba), Catch::Contains("attn_layer_indices/0"));
  // An unknown model_type with the key: refused, not read as every layer full attention.
  json other = {{"model_type", "some_hybrid"}, {"num_hidden_layers", 4},    {"num_attention_heads", 8},
                {"hidden_size", 512},          {"intermediate_size", 1024}, {"vocab_size", 1000},
                {"attn_layer_indices", {1}}};
  CHECK_THAT(error_of(other), Catch::Contains("attn_layer_indices"));
}

TEST_CASE("GLM-5.3: indexer_types names the layers that keep the indexer's key cache", "[hf][configs]") {
  // "full" builds the lightning indexer (its key cache: 128 fp8 + one fp32 scale = 132 B per token),
  // "shared" reuses the top-k of the layer before. Eight latent layers of 576 values (1,152 B in bf16):
  // with only layer 0 full, 8 x 1,152 + 132 = 9,348 B per token; read before index_topk_freq.
  json c = glm_dsa();
  c["index_topk_freq"] = 4;
  c["indexer_types"] = {"full", "shared", "shared", "shared", "shared", "shared", "shared", "shared"};
  CHECK(bytes_per_token(load(c), KvDtypes{}).value == 9348);
  c["indexer_types"][5] = "full";
  CHECK(bytes_per_token(load(c), KvDtypes{}).value == 9348 + 132);
  c["indexer_types"][5] = "dense";
  CHECK_THAT(error_of(c), Catch::Contains("indexer_types/5") && Catch::Contains("\"dense\""));
  c["indexer_types"] = {"full"};
  CHECK_THAT(error_of(c), Catch::Contains("indexer_types") && Catch::Contains("8 layers"));
}
