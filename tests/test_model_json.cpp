// presets/include/kvplan/model_json.hpp: a model as JSON in the one dialect that scenarios and the CLI's
// --json share, read back exactly; the GUI's first dialect (window, indexer_head_dim) still read.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/model_json.hpp"
#include "kvplan/presets.hpp"
#include "test_support.hpp"

using namespace kvplan;
using kvplan::test::gqa;
using nlohmann::json;

namespace {
ModelSpec round_trip(const ModelSpec& m) { return presets::model_from_json(presets::model_to_json(m), "m"); }

/// The message model_from_json throws for `j`, read as scenario.cpp reads /model/architecture.
std::string error_of(const json& j) {
  try {
    (void)presets::model_from_json(j, "s.json: /model/architecture");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

ModelSpec model_of(std::vector<LayerGroup> layers) {
  ModelSpec m;
  m.id = m.name = "hand-built";
  m.source = "test";
  m.layers = std::move(layers);
  m.hidden_size = 4096;
  m.vocab_size = 32000;
  return m;
}

MlpSpec dense(std::uint64_t width) {
  MlpSpec m;
  m.intermediate_size = width;
  return m;
}
}  // namespace

TEST_CASE("model JSON: every built-in preset model round trips", "[model_json]") {
  // Every file of presets/models/, loaded through the presets API by its id (the file's stem).
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KVPLAN_PRESET_MODELS)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string id = entry.path().stem().string();
    CAPTURE(id);
    const ModelSpec m = presets::find_model(id);
    CHECK(round_trip(m) == m);
  }
  // The tests run without user presets (KVPLAN_TEST_ENVIRONMENT): every preset listed is one of the files.
  CHECK(files == presets::list_models().size());
  CHECK(files >= 40);
}

TEST_CASE("model JSON: hand-built specs round trip in the shared dialect", "[model_json]") {
  SECTION("MLA with DeepSeek-V3.2's indexer, MoE") {
    AttentionLayer a;
    a.kind = AttentionKind::mla;
    a.num_attention_heads = 128;
    a.head_dim_k = 192;  // qk_nope_head_dim 128 + qk_rope_head_dim 64
    a.head_dim_v = 128;  // v_head_dim
    a.kv_lora_rank = 512;
    a.qk_rope_head_dim = 64;
    a.q_lora_rank = 1536;
    a.indexer_head_dim = 128;
    MlpSpec moe;
    moe.num_experts = 256;
    moe.expert_intermediate_size = 2048;
    moe.experts_per_token = 8;
    moe.num_shared_experts = 1;
    moe.shared_intermediate_size = 2048;
    const ModelSpec m = model_of({{a, dense(18432), 3}, {a, moe, 58}});
    CHECK(round_trip(m) == m);
    const json j = presets::attention_to_json(a);
    CHECK(j["index_head_dim"] == 128);
    CHECK(!j.contains("indexer_head_dim"));
    CHECK(j["kv_lora_rank"] == 512);
    CHECK(!j.contains("num_key_value_heads"));  // 0 in an MLA layer: not written
  }
  SECTION("a GGUF's pre-split MLA and recurrent rollback, as llama.cpp caches them") {
    // A scenario reopened with a GGUF model kept neither flag, and llama.cpp's KV and state figures moved.
    AttentionLayer a;
    a.kind = AttentionKind::mla;
    a.num_attention_heads = 16;
    a.head_dim_k = 192;
    a.head_dim_v = 128;
    a.kv_lora_rank = 512;
    a.qk_rope_head_dim = 64;
    a.mla_per_head_cache = true;
    ModelSpec m = model_of({{a, dense(10944), 27}});
    m.llamacpp_rs_rollback = true;
    CHECK(round_trip(m) == m);
    CHECK(presets::attention_to_json(a)["mla_per_head_cache"] == true);
    CHECK(presets::model_to_json(m)["llamacpp_rs_rollback"] == true);
  }
  SECTION("chunked (Llama 4) beside full layers") {
    AttentionLayer full = gqa(40, 8, 128, AttentionKind::full);
    const AttentionLayer chunked = gqa(40, 8, 128, AttentionKind::chunked, 8192);
    full.qk_norm = true;
    const ModelSpec m = model_of({{chunked, dense(8192), 3}, {full, dense(8192), 1}});
    CHECK(round_trip(m) == m);
    const json j = presets::attention_to_json(chunked);
    CHECK(j == json{{"kind", "chunked"},
                    {"num_attention_heads", 40},
                    {"num_key_value_heads", 8},
                    {"head_dim_k", 128},
                    {"head_dim_v", 128},
                    {"attention_chunk_size", 8192}});
    CHECK(presets::attention_to_json(full)["qk_norm"] == true);
  }
  SECTION("sliding: the window is sliding_window") {
    const AttentionLayer s = gqa(16, 8, 256, AttentionKind::sliding, 4096);
    const ModelSpec m =
        model_of({{s, dense(14336), 1}, {gqa(16, 8, 256, AttentionKind::full), dense(14336), 1}});
    CHECK(round_trip(m) == m);
    const json j = presets::attention_to_json(s);
    CHECK(j["sliding_window"] == 4096);
    CHECK(!j.contains("window"));
    CHECK(!presets::attention_to_json(m.layers[1].attention).contains("sliding_window"));
  }
  SECTION("recurrent hybrid: Mamba, Mamba2 beside attention in one layer, an MLP-only block") {
    AttentionLayer mamba;
    mamba.kind = AttentionKind::recurrent;
    mamba.recurrent.kind = RecurrentSpec::Kind::mamba;
    mamba.recurrent.d_inner = 8192;  // mamba_expand 2 x hidden_size 4096
    mamba.recurrent.d_state = 16;
    mamba.recurrent.d_conv = 4;
    mamba.recurrent.dt_rank = 256;
    AttentionLayer parallel = gqa(32, 8, 128, AttentionKind::full);
    parallel.parallel_recurrent = true;
    parallel.recurrent.kind = RecurrentSpec::Kind::mamba2;
    parallel.recurrent.n_heads = 128;
    parallel.recurrent.head_dim = 64;
    parallel.recurrent.d_inner = 8192;  // 128 heads x 64
    parallel.recurrent.n_groups = 1;
    parallel.recurrent.d_state = 256;
    parallel.recurrent.d_conv = 4;
    parallel.recurrent.ssm_dtype = DType::fp32;
    AttentionLayer mlp_only;
    mlp_only.kind = AttentionKind::mlp_only;
    const ModelSpec m = model_of({{mamba, dense(14336), 7},
                                  {gqa(32, 8, 128, AttentionKind::full), dense(14336), 1},
                                  {parallel, dense(14336), 2},
                                  {mlp_only, dense(14336), 1}});
    CHECK(round_trip(m) == m);
    const json j = presets::attention_to_json(mamba);
    CHECK(j["kind"] == "recurrent");
    CHECK(j["recurrent"]["kind"] == "mamba");
    CHECK(j["recurrent"]["d_inner"] == 8192);
    CHECK(presets::attention_to_json(parallel)["recurrent"]["ssm_dtype"] == "fp32");
    CHECK(presets::attention_to_json(mlp_only) == json{{"kind", "mlp_only"}});
  }
  SECTION("kv_shared (Gemma 3n) and biases") {
    AttentionLayer shared = gqa(8, 2, 256, AttentionKind::sliding, 512);
    shared.kv_shared = true;
    AttentionLayer own = gqa(8, 2, 256, AttentionKind::sliding, 512);
    own.qkv_bias = own.o_bias = true;
    const ModelSpec m = model_of({{own, dense(16384), 20}, {shared, dense(16384), 15}});
    CHECK(round_trip(m) == m);
    CHECK(presets::attention_to_json(shared)["kv_shared"] == true);
    CHECK(!presets::attention_to_json(own).contains("kv_shared"));
  }
  SECTION("quantised weights, context keys, warnings") {
    ModelSpec m = model_of({{gqa(28, 4, 128, AttentionKind::full), dense(18944), 28}});
    m.quant.method = WeightQuant::Method::gptq;
    m.quant.bits = 4;
    m.quant.group_size = 128;
    m.quant.zero_point = true;
    m.quant.g_idx = true;
    m.quant.stored = DType::fp16;
    m.quant.router = true;
    m.quant.label = "gptq int4 g128";
    m.weight_dtype = DType::int4;
    m.embedding_dtype = DType::fp16;
    m.expert_weight_dtype = DType::int4;
    m.dtype = DType::fp16;
    m.context_keys.lengths = {{"max_position_embeddings", 32768}};
    m.context_keys.rope = {"rope_scaling", "yarn", 4.0, 32768};
    m.context_keys.model_type = "qwen2";
    m.warnings = {"a warning, kept"};
    CHECK(round_trip(m) == m);
    CHECK(presets::model_to_json(m)["quant"]["method"] == "gptq");
    // Unquantised: null, read back as none.
    m.quant = {};
    CHECK(presets::model_to_json(m)["quant"].is_null());
    CHECK(round_trip(m) == m);
  }
}

TEST_CASE("model JSON: the GUI's first dialect is read (window, indexer_head_dim, kind none)",
          "[model_json]") {
  // A scenario as the GUI wrote it before the shared dialect: every attention field, the window as
  // "window" (0 on full and MLA layers) and the indexer as "indexer_head_dim".
  const json scenario = presets::read_json_file(KVPLAN_GUI_FIXTURES "/scenario-old-dialect.json");
  const ModelSpec m =
      presets::model_from_json(scenario["model"]["architecture"], "scenario-old-dialect.json");
  REQUIRE(m.layers.size() == 4);
  CHECK(m.layers[0].attention.kind == AttentionKind::full);
  CHECK(m.layers[0].attention.window == 0);
  CHECK(m.layers[1].attention.kind == AttentionKind::sliding);
  CHECK(m.layers[1].attention.window == 4096);
  CHECK(m.layers[2].attention.kind == AttentionKind::chunked);
  CHECK(m.layers[2].attention.window == 8192);
  CHECK(m.layers[3].attention.kind == AttentionKind::mla);
  CHECK(m.layers[3].attention.indexer_head_dim == 128);
  // Written again, it is in the shared dialect, and reads back the same.
  const json again = presets::model_to_json(m);
  CHECK(again["layers"][1]["attention"]["sliding_window"] == 4096);
  CHECK(again["layers"][2]["attention"]["attention_chunk_size"] == 8192);
  CHECK(again["layers"][3]["attention"]["index_head_dim"] == 128);
  for (const auto& g : again["layers"]) {
    CHECK(!g["attention"].contains("window"));
    CHECK(!g["attention"].contains("indexer_head_dim"));
  }
  CHECK(presets::model_from_json(again, "m") == m);

  // The recurrent kind's first name.
  const json none{
      {"layers",
       {{{"attention",
          {{"kind", "none"}, {"recurrent", {{"kind", "short_conv"}, {"d_inner", 1024}, {"d_conv", 3}}}}}}}}};
  CHECK(presets::model_from_json(none, "m").layers[0].attention.kind == AttentionKind::recurrent);
}

TEST_CASE("model JSON: a bad field is one line naming its JSON pointer", "[model_json]") {
  const json sliding{{"kind", "sliding"}, {"num_attention_heads", 16}, {"num_key_value_heads", 8},
                     {"head_dim_k", 128}, {"head_dim_v", 128},         {"sliding_window", 4096}};
  const auto model = [](json attention) {
    return json{{"layers", {{{"count", 2}, {"attention", attention}}}}};
  };
  const std::string at = "s.json: /model/architecture/layers/0/attention";
  REQUIRE(error_of(model(sliding)) == "(no error)");

  struct Case {
    const char* what;
    std::string key;
    json value;
    std::string message;
  };
  const auto cases = {
      Case{"not a number", "sliding_window", "4k",
           at + "/sliding_window: must be a non-negative integer, got \"4k\""},
      Case{"old and new key together", "window", 4096,
           at + "/window: is the old name of sliding_window, given beside it: give sliding_window alone"},
      Case{"old and new indexer together", "indexer_head_dim", 128,
           at + "/indexer_head_dim: is the old name of index_head_dim, given beside it: give index_head_dim "
                "alone"},
      Case{"a chunk on a sliding layer", "attention_chunk_size", 8192,
           at + "/attention_chunk_size: only a chunked layer has one (this layer is sliding)"},
      Case{"a null", "head_dim_k", nullptr, at + "/head_dim_k: must not be null"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    json a = sliding;
    a[c.key] = c.value;
    if (std::string(c.what) == "old and new indexer together") a["index_head_dim"] = 128;
    const std::string e = error_of(model(a));
    CHECK(e == c.message);
    CHECK(e.find('\n') == std::string::npos);
  }

  SECTION("sliding_window on a chunked layer") {
    json a = sliding;
    a["kind"] = "chunked";
    CHECK(error_of(model(a)) == at + "/sliding_window: a chunked layer's window is attention_chunk_size");
  }
  SECTION("a misspelt key") {
    json a = sliding;
    a["windw"] = 4096;
    CHECK_THAT(error_of(model(a)),
               Catch::Matchers::StartsWith(at + "/windw: unknown key (known here: kind, "));
  }
  SECTION("a sliding layer without its window: core's check, at the group's attention") {
    json a = sliding;
    a.erase("sliding_window");
    CHECK(error_of(model(a)) == at + ": sliding_window: must be positive");
  }
}

TEST_CASE("model JSON: a checkpoint's exact weights and a drafter's layers are kept", "[model_json]") {
  // A GGUF model edited in the GUI is saved inline: its exact tensor bytes and its drafter's layers were
  // dropped, and the reloaded scenario counted the weights from the architecture (another figure).
  ModelSpec m = model_of({{gqa(32, 8, 128), dense(14336), 30}, {gqa(32, 8, 128), dense(14336), 2}});
  m.draft_layers = 2;
  m.weights_bytes = Bytes{4'920'733'696};
  m.weights_parameters = 8'030'261'248;
  m.weights_origin = "GGUF tensors (exact)";
  const json j = presets::model_to_json(m);
  CHECK(j["weights_bytes"] == 4'920'733'696ULL);
  CHECK(j["draft_layers"] == 2);
  CHECK(round_trip(m) == m);
  ModelSpec none = m;
  none.weights_bytes.reset();  // from the architecture: null, read back as none
  CHECK(presets::model_to_json(none)["weights_bytes"].is_null());
  CHECK(round_trip(none) == none);
  json bad = j;
  bad["draft_layers"] = 33;
  CHECK(error_of(bad) ==
        "s.json: /model/architecture/draft_layers: 33 draft layers, more than the model's 32 layers");
}
