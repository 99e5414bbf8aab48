#include <catch2/catch.hpp>

#include "kvplan/presets.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;

TEST_CASE("Llama-3.1-8B parameters from the architecture, by hand", "[weights]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  // Embeddings and untied LM head: 2 * 128,256 * 4,096 = 1,050,673,152.
  // Per layer: q 4096*4096 + k 4096*1024 + v 4096*1024 + o 4096*4096 = 41,943,040;
  //            MLP 3 * 4096 * 14336 = 176,160,768; two RMSNorms 8,192 -> 218,112,000.
  // 32 layers: 6,979,584,000; + final norm 4,096 -> 8,030,261,248 (published: 8.03B).
  CHECK(parameter_count(m) == 8030261248ULL);
  CHECK(weight_bytes(parameter_count(m), DType::bf16).value == 2 * 8030261248ULL);
  CHECK(weight_bytes(8, DType::int4).value == 4);
}

TEST_CASE("norms per layer: Falcon-7B's one LayerNorm, Gemma 2's four RMSNorms, by hand",
          "[weights][presets]") {
  // Falcon-7B (RefinedWebModel, parallel_attn, multi_query): hidden 4,544, 71 heads of 64, 1 KV head,
  // FFN 4 x 4,544, vocab 65,024 tied, no linear biases, one LayerNorm (weight + bias) per layer.
  // Layer: QKV 4,544 x (4,544 + 2 x 64) = 21,229,568; dense 4,544^2 = 20,647,936; MLP 2 x 4,544 x
  // 18,176 = 165,183,488; norm 2 x 4,544 = 9,088: 207,070,080. x 32 = 6,626,242,560; + embeddings
  // 65,024 x 4,544 = 295,469,056 + final norm 9,088 = 6,921,720,704.
  CHECK(parameter_count(presets::find_model("falcon-7b")) == 6921720704ULL);
  // Gemma-2-9B: hidden 3,584, 16 heads and 8 KV heads of 256, FFN 14,336, vocab 256,000 tied.
  // Layer: q and o 2 x 3,584 x 4,096 = 29,360,128; k and v 2 x 3,584 x 2,048 = 14,680,064; MLP 3 x 3,584
  // x 14,336 = 154,140,672; 4 norms x 3,584 = 14,336: 198,195,200. x 42 = 8,324,198,400; + embeddings
  // 917,504,000 + final norm 3,584 = 9,241,705,984.
  CHECK(parameter_count(presets::find_model("gemma-2-9b")) == 9241705984ULL);
}

TEST_CASE("parameter counts match published totals within 1%", "[weights][presets]") {
  // Published totals: Meta's model cards (Llama 3.1: 8.03B, 70.6B, 405B), Mistral AI (Mixtral-8x7B: 46.7B),
  // DeepSeek-V3 technical report (671B total, 37B activated), Qwen model cards.
  struct Case {
    const char* id;
    double published;
  };
  const auto c = GENERATE(values<Case>({{"llama-3.1-8b", 8.03e9},
                                        {"llama-3.1-70b", 70.6e9},
                                        {"llama-3.1-405b", 405e9},
                                        {"mixtral-8x7b", 46.7e9},
                                        {"deepseek-v3", 671e9}}));
  CAPTURE(c.id);
  const ModelSpec m = presets::find_model(c.id);
  CHECK_THAT(static_cast<double>(parameter_count(m)), Catch::Matchers::WithinRel(c.published, 0.01));
}

TEST_CASE("every preset with a recorded published total agrees within 1%", "[weights][presets]") {
  for (const auto& p : presets::list_models()) {
    const ModelSpec m = presets::load_model_file(p.path);
    if (m.published_params == 0) continue;
    CAPTURE(p.id, parameter_count(m), m.published_params);
    CHECK_THAT(static_cast<double>(parameter_count(m)),
               Catch::Matchers::WithinRel(static_cast<double>(m.published_params), 0.01));
  }
}

TEST_CASE("MoE active parameters count only routed top-k experts", "[weights]") {
  const ModelSpec m = presets::find_model("mixtral-8x7b");
  // Mixtral: 2 of 8 experts per token; published 12.9B active of 46.7B.
  CHECK_THAT(static_cast<double>(active_parameter_count(m)), Catch::Matchers::WithinRel(12.9e9, 0.01));
}

TEST_CASE("quantised checkpoints: mxfp4 experts, fp8 linear layers", "[weights][presets]") {
  // 32 values of mxfp4: 16 B of E2M1 + 1 E8M0 scale byte = 17 B (OCP Microscaling spec).
  CHECK(weight_bytes(64, DType::mxfp4).value == 34);
  const ModelSpec oss = presets::find_model("gpt-oss-120b");
  CHECK(oss.expert_weight_dtype == DType::mxfp4);
  CHECK(oss.weight_dtype == DType::bf16);
  // OpenAI's gpt-oss model card: 116.8B parameters and a 60.8 GiB checkpoint (quoted at
  // fitmygpu.com/models/gpt-oss-120b); experts in mxfp4, attention, router and embeddings in bf16.
  CHECK_THAT(static_cast<double>(parameter_count(oss)), Catch::Matchers::WithinRel(116.8e9, 0.01));
  CHECK_THAT(static_cast<double>(model_weight_bytes(oss).value),
             Catch::Matchers::WithinRel(60.8 * 1073741824.0, 0.01));
  const auto b = parameter_breakdown(oss);
  // Experts by hand: 36 layers * 128 experts * (3 * 2880 * 2880 + biases 2 * 2880 + 2880) = 115,022,069,760.
  CHECK(b.experts == 36ULL * 128 * (3ULL * 2880 * 2880 + 3 * 2880));
  CHECK(b.embeddings + b.experts + b.other == parameter_count(oss));
  const ModelSpec ds = presets::find_model("deepseek-v3");
  CHECK(ds.weight_dtype == DType::fp8_e4m3);  // quantization_config: fp8, e4m3
  CHECK(ds.embedding_dtype == DType::bf16);   // torch_dtype
}

TEST_CASE("weight_dtype_label names each part of a mixed checkpoint", "[weights]") {
  // gpt-oss: MXFP4 routed experts (its quantization_config), everything else bf16: never "bf16" alone.
  CHECK(weight_dtype_label(presets::find_model("gpt-oss-20b")) == "mxfp4 experts, bf16 rest");
  CHECK(weight_dtype_label(presets::find_model("llama-3.1-8b")) == "bf16");
  ModelSpec m = presets::find_model("llama-3.1-8b");
  m.weight_dtype = DType::fp8_e4m3;  // an fp8 checkpoint keeps bf16 embeddings and LM head
  CHECK(weight_dtype_label(m) == "fp8_e4m3, bf16 embeddings");
}

// apply_weight_dtype: Llama-3.1-8B's 8,030,261,248 parameters are 32 x (2 x 4,096^2 + 2 x 4,096 x 1,024 + 3 x
// 4,096 x 14,336) = 6,979,321,856 in q, k, v, o, gate, up and down; 2 x 128,256 x 4,096 = 1,050,673,152 in
// the embeddings and LM head (untied); 65 x 4,096 = 266,240 in the norms.
TEST_CASE("apply_weight_dtype: fp8 quantised at load keeps the embeddings; other types are a checkpoint",
          "[weights]") {
  const ModelSpec llama = presets::find_model("llama-3.1-8b");
  ModelSpec m = llama;
  apply_weight_dtype(m, DType::fp8_e4m3, Engine::vllm);
  // 6,979,321,856 x 1 B + 224 per-tensor fp32 scales x 4 B + (1,050,673,152 + 266,240) x 2 B.
  CHECK(model_weight_bytes(m) == Bytes{6'979'321'856ULL + 896 + 2'101'878'784ULL});
  CHECK(m.embedding_dtype == DType::bf16);
  CHECK(weight_dtype_label(m) == "fp8_e4m3 per-tensor (quantised at load), bf16 embeddings");
  m = llama;
  apply_weight_dtype(m, DType::fp8_e4m3, Engine::sglang);  // SGLang's fp8.py: the same port
  CHECK(model_weight_bytes(m) == Bytes{6'979'321'856ULL + 896 + 2'101'878'784ULL});
  m = llama;
  apply_weight_dtype(m, DType::fp8_e4m3, Engine::trtllm);  // a checkpoint quantised so: every weight 1 B
  CHECK(model_weight_bytes(m) == Bytes{8'030'261'248ULL});
  m = llama;
  apply_weight_dtype(m, DType::int4, Engine::vllm);  // no online int4: a checkpoint, 0.5 B a parameter
  CHECK(model_weight_bytes(m) == Bytes{4'015'130'624ULL});
  CHECK(online_quantization(Engine::vllm, DType::fp8_e4m3));
  CHECK_FALSE(online_quantization(Engine::vllm, DType::int4));
  CHECK_FALSE(online_quantization(Engine::llamacpp, DType::fp8_e4m3));
}
