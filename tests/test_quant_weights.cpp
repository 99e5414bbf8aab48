// Quantised checkpoints counted from config.json alone (quantization_config), issue 24 item 2.
// Tiny fixtures (tests/fixtures/quant/tiny-*.json): exact bytes worked by hand from each quantiser's tensor
// layout (sources in core/include/kvplan/weights.hpp quantized_linear_bytes, docs/quantised-weights.md).
// Real checkpoints (tests/fixtures/quant/*.json, each the public config's architecture and its
// quantization_config): kvplan's config-only figure against the checkpoint's safetensors files on the Hub.
#include <fstream>
#include <limits>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;

namespace {
ModelSpec fixture(const std::string& name) {
  std::ifstream in(std::string(KVPLAN_FIXTURES) + "/quant/" + name);
  REQUIRE(in);
  return presets::model_from_hf_config(nlohmann::json::parse(in), name);
}

// The tiny model of every tiny-*.json: hidden 256, 1 layer, 4 heads x 64 (2 KV heads), intermediate 512,
// vocab 1,000, untied. Its linear layers (in x out): q 256x256, k 256x128, v 256x128, o 256x256,
// gate 256x512, up 256x512, down 512x256 (589,824 weights). The rest stays at the torch_dtype (fp16,
// bf16 for the fp8 fixture): embed_tokens 256,000 + lm_head 256,000 + 3 RMSNorms 768 = 512,768 values
// = 1,025,536 B.
constexpr std::uint64_t kRest = 1025536;

/// The error a fixture is refused with; "" when it loads.
std::string error_of(const std::string& name) {
  try {
    (void)fixture(name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("awq: qweight, qzeros and fp16 scales per linear, by hand", "[weights][quant]") {
  // AutoAWQ GEMM (vLLM awq.py AWQLinearMethod.create_weights), g128, G = in / 128 groups:
  // qweight in x out/8 int32 = in x out / 2 B; qzeros G x out/8 int32; scales G x out x 2 B.
  //   q  256x256: 32,768 + 2x32x4 256 + 2x256x2 1,024 = 34,048;   o the same 34,048
  //   k  256x128: 16,384 + 2x16x4 128 + 2x128x2   512 = 17,024;   v the same 17,024
  //   gate/up 256x512: 65,536 + 2x64x4 512 + 2x512x2 2,048 = 68,096 each
  //   down 512x256: 65,536 + 4x32x4 512 + 4x256x2 2,048 = 68,096
  // = 306,432, + 1,025,536 = 1,331,968.
  const ModelSpec m = fixture("tiny-awq.json");
  CHECK(model_weight_bytes(m).value == 306432 + kRest);
  CHECK(weight_dtype_label(m) == "awq int4 g128, fp16 embeddings");
  CHECK(m.warnings.empty());
}

TEST_CASE("gptq: qweight, qzeros, scales and g_idx per linear, by hand", "[weights][quant]") {
  // vLLM gptq.py GPTQLinearMethod.create_weights, 4 bits g128: qweight in x 4 / 32 x out int32 = in x out / 2
  // (294,912 over the 7 matrices); qzeros G x out x 4 / 32 int32 = G x out / 2 (256 + 128 + 128 + 256 +
  // 512 + 512 + 512 = 2,304); scales G x out fp16 (1,024 + 512 + 512 + 1,024 + 2,048 x 3 = 9,216); g_idx in
  // int32 (6 x 1,024 + 2,048 = 8,192). = 314,624, + 1,025,536 = 1,340,160.
  const ModelSpec m = fixture("tiny-gptq.json");
  CHECK(model_weight_bytes(m).value == 314624 + kRest);
  CHECK(weight_dtype_label(m) == "gptq int4 g128, fp16 embeddings");
}

TEST_CASE("compressed-tensors w4a16 and w8a8 int8, by hand", "[weights][quant]") {
  // pack-quantized (vLLM compressed_tensors_wNa16.py): weight_packed out x in / 8 int32 (294,912),
  // weight_scale out x G at the model dtype fp16 (9,216), weight_shape 2 int64 a matrix (7 x 16 = 112):
  // 304,240, + 1,025,536 = 1,329,776.
  const ModelSpec w4 = fixture("tiny-ct-w4a16.json");
  CHECK(model_weight_bytes(w4).value == 304240 + kRest);
  CHECK(weight_dtype_label(w4) == "compressed-tensors int4 g128, fp16 embeddings");
  // int-quantized channel (compressed_tensors_w8a8_int8.py): weight int8 out x in (589,824), weight_scale
  // out x 1 fp16 (2 x (256 + 128 + 128 + 256 + 512 + 512 + 256) = 4,096), dynamic activations: no
  // input_scale. 593,920 + 1,025,536 = 1,619,456.
  const ModelSpec w8 = fixture("tiny-ct-w8a8.json");
  CHECK(model_weight_bytes(w8).value == 593920 + kRest);
  CHECK(weight_dtype_label(w8) == "compressed-tensors int8 per-channel, fp16 embeddings");
}

TEST_CASE("bitsandbytes nf4 with double quantisation, by hand", "[weights][quant]") {
  // bitsandbytes quantize_4bit, blocksize 64, compress_statistics: n = in x out values stored n / 2 B,
  // absmax uint8 per 64 values, nested absmax fp32 per 256 blocks, nested map 256 fp32 (1,024 B), quant_map
  // 16 fp32 (64 B):
  //   q/o (n 65,536): 32,768 + 1,024 + 4 x 4 + 1,024 + 64 = 34,896 each
  //   k/v (n 32,768): 16,384 + 512 + 2 x 4 + 1,024 + 64 = 17,992 each
  //   gate/up/down (n 131,072): 65,536 + 2,048 + 8 x 4 + 1,024 + 64 = 68,704 each
  // = 311,888, + 1,025,536 = 1,337,424. (The quant_state's JSON, ~200 B a matrix, is not counted.)
  const ModelSpec m = fixture("tiny-bnb-nf4.json");
  CHECK(model_weight_bytes(m).value == 311888 + kRest);
  CHECK(weight_dtype_label(m) == "bitsandbytes nf4 double-quant, fp16 embeddings");
}

TEST_CASE("fp8 with 128x128 block scales, by hand", "[weights][quant]") {
  // vLLM fp8.py Fp8LinearMethod.create_weights: weight fp8 out x in (589,824) + weight_scale_inv
  // ceil(out / 128) x ceil(in / 128) fp32: q 2x2, k 1x2, v 1x2, o 2x2, gate 4x2, up 4x2, down 2x4 = 36
  // scales = 144 B. 589,968 + 1,025,536 (bf16) = 1,615,504.
  const ModelSpec m = fixture("tiny-fp8-block.json");
  CHECK(model_weight_bytes(m).value == 589968 + kRest);
  CHECK(weight_dtype_label(m) == "fp8_e4m3 128x128 blocks, bf16 embeddings");
  // Asking for another weight dtype drops the checkpoint's layout (the GUI's and --weight-dtype's choice).
  ModelSpec bf16 = m;
  bf16.weight_dtype = bf16.embedding_dtype = bf16.expert_weight_dtype = DType::bf16;
  CHECK_FALSE(quant_applies(bf16));
  CHECK(model_weight_bytes(bf16).value == 2 * (589824 + 512768));
}

TEST_CASE("a partial group, pack word or block is stored whole", "[weights][quant]") {
  WeightQuant awq;
  awq.method = WeightQuant::Method::awq;
  awq.bits = 4;
  awq.group_size = 128;
  awq.scale_dtype = DType::fp16;
  // in 200, out 12: qweight 200 x ceil(12 / 8) = 2 words = 1,600 B; 2 groups: qzeros 2 x 2 x 4 = 16;
  // scales 2 x 12 x 2 = 48. 1,664.
  CHECK(quantized_linear_bytes(awq, 200, 12).value == 1664);
  WeightQuant fp8;
  fp8.method = WeightQuant::Method::fp8;
  fp8.block_out = fp8.block_in = 128;
  fp8.scale_dtype = DType::fp32;
  // 129 x 129: 16,641 B + 2 x 2 blocks x 4 B = 16,657.
  CHECK(quantized_linear_bytes(fp8, 129, 129).value == 16657);
}

TEST_CASE("real checkpoints: config-only figure against the Hub's safetensors sizes", "[weights][quant]") {
  // Each file's sizes are the Hub's file listing (SI units, three significant figures, so +-0.005 GB a
  // file) plus the safetensors headers (under 100 kB); tolerance 0.5%.
  const auto near = [](const ModelSpec& m, double bytes) {
    CHECK_THAT(static_cast<double>(model_weight_bytes(m).value), Catch::Matchers::WithinRel(bytes, 0.005));
  };
  // AWQ: Qwen2-7B-Instruct AWQ int4 g128 zero_point (huggingface.co/thesven/Qwen2-7B-Instruct-awq/tree/main,
  // and the same layout huggingface.co/mzayed/Qwen2.5-7B-Instruct-1M-AWQ/tree/main): shards 4.48 GB +
  // 1.09 GB. At torch_dtype fp16 kvplan said 15.2 GB (2.7x).
  near(fixture("qwen2-7b-awq.json"), 5.57e9);
  // GPTQ: Qwen/Qwen2-7B-Instruct-GPTQ-Int4, shards 3.69 GiB + 1.50 GiB (ai.gitee.com/hf-models/Qwen/
  // Qwen2-7B-Instruct-GPTQ-Int4/tree/main, which lists GiB: 5.19 GiB).
  near(fixture("qwen2-7b-gptq-int4.json"), 5.19 * 1073741824.0);
  // GPTQ: neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16 (GPTQ format, desc_act, g128):
  // model.safetensors 5.74 GB (huggingface.co/neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w4a16/tree/
  // 46cdbb61243b97c41823bff03f3a8fc39779eec7).
  near(fixture("llama-3.1-8b-gptq-w4a16.json"), 5.74e9);
  // compressed-tensors w8a8 int8: neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8, shards 5 GB +
  // 4.08 GB (huggingface.co/neuralmagic/Meta-Llama-3.1-8B-Instruct-quantized.w8a8/tree/f40c407).
  near(fixture("llama-3.1-8b-w8a8.json"), 9.08e9);
  // fp8 128x128 blocks: Qwen/Qwen3-4B-FP8 (huggingface.co/Qwen/Qwen3-4B-FP8/tree/main): shards 4.41 GB +
  // 778 MB. Its embeddings are tied (tie_word_embeddings true), and the second shard is the size of one
  // 151,936 x 2,560 bf16 table (777.9 MB): an lm_head copy that vLLM skips when tied (qwen3.py
  // load_weights), so the loaded weights are the first shard's 4.41 GB.
  near(fixture("qwen3-4b-fp8.json"), 4.41e9);
}

TEST_CASE("bad quantization_config values name the key", "[weights][quant]") {
  CHECK_THAT(error_of("bad-awq-bits3.json"),
             Catch::Matchers::Contains("/quantization_config/bits: must be 4"));
  CHECK_THAT(error_of("bad-gptq-group0.json"),
             Catch::Matchers::Contains("/quantization_config/group_size: must be positive"));
  CHECK_THAT(error_of("bad-gptq-bits-fraction.json"),
             Catch::Matchers::Contains("/quantization_config/bits: must be a non-negative integer, got 4.5"));
  CHECK_THAT(
      error_of("bad-ct-format.json"),
      Catch::Matchers::Contains("/quantization_config/format: 'zip-quantized' is not a compressed-tensors"));
}

TEST_CASE("an AWQ or GPTQ group_size that does not divide a layer's input width is refused",
          "[weights][quant]") {
  // vLLM awq.py AWQLinearMethod.create_weights and gptq.py GPTQLinearMethod.create_weights raise "The input
  // size is not aligned with the quantized weight shape" when input_size_per_partition % group_size != 0.
  // The tiny AWQ model with intermediate_size 576: down_proj's input is 576 = 4.5 groups of 128 (q/k/v/o
  // and gate/up take 256 = 2 groups).
  CHECK_THAT(error_of("bad-awq-group-misaligned.json"),
             Catch::Matchers::Contains("/quantization_config/group_size: 128 does not divide the input width "
                                       "576 of a dense MLP projection"));
  // The tiny GPTQ model with group_size 96: q_proj's input, hidden_size 256, is 2.67 groups.
  CHECK_THAT(
      error_of("bad-gptq-group-misaligned.json"),
      Catch::Matchers::Contains("/quantization_config/group_size: 96 does not divide the input width 256"));
  // 2^64 - 1 is not GPTQ's -1 (per output channel), though it reads as -1 in 64-bit two's complement: a
  // group past every width, refused as vLLM refuses it.
  std::ifstream in(std::string(KVPLAN_FIXTURES) + "/quant/bad-gptq-group-misaligned.json");
  REQUIRE(in);
  auto config = nlohmann::json::parse(in);
  config["quantization_config"]["group_size"] = std::numeric_limits<std::uint64_t>::max();
  CHECK_THROWS_WITH(presets::model_from_hf_config(config, "gptq.json"),
                    Catch::Matchers::Contains("group_size: 18446744073709551615 does not divide"));
  config["quantization_config"]["group_size"] = -1;
  CHECK_NOTHROW(presets::model_from_hf_config(config, "gptq.json"));
}

TEST_CASE("a quantization_config without quant_method is refused, as transformers and vLLM refuse it",
          "[weights][quant]") {
  // transformers quantizers/auto.py AutoHfQuantizer.supports_quant_method raises "has no `quant_method`
  // attribute" unless load_in_4bit / load_in_8bit is set (then bitsandbytes); vLLM's
  // ModelConfig._verify_quantization takes it as "" and raises "Unknown quantization method".
  CHECK_THAT(error_of("bad-quant-empty.json"),
             Catch::Matchers::Contains("bad-quant-empty.json: /quantization_config: is empty"));
  std::ifstream in(std::string(KVPLAN_FIXTURES) + "/quant/tiny-awq.json");
  nlohmann::json c = nlohmann::json::parse(in);
  c["quantization_config"].erase("quant_method");
  CHECK_THROWS_WITH(presets::model_from_hf_config(c, "cfg"),
                    Catch::Matchers::Contains("cfg: /quantization_config/quant_method: is missing"));
  // Old bitsandbytes configs name no method: load_in_4bit says it (the same bytes as tiny-bnb-nf4.json).
  std::ifstream bnb_in(std::string(KVPLAN_FIXTURES) + "/quant/tiny-bnb-nf4.json");
  nlohmann::json bnb = nlohmann::json::parse(bnb_in);
  bnb["quantization_config"].erase("quant_method");
  CHECK(model_weight_bytes(presets::model_from_hf_config(bnb, "bnb")).value == 311888 + kRest);
}

TEST_CASE("DeepSeek-V3's fp8 experts carry their 128x128 block scales, by hand",
          "[weights][quant][presets]") {
  // config.json quantization_config: fp8, weight_block_size [128, 128]. One routed expert: gate and up
  // 7,168 -> 2,048 and down 2,048 -> 7,168, 3 x 14,680,064 = 44,040,192 fp8 bytes, and 3 x (16 x 56) fp32
  // scales = 10,752 B (vLLM fp8.py: weight_scale_inv ceil(out / 128) x ceil(in / 128)): 44,050,944 B
  // x 256 experts x 58 MoE layers = 654,068,416,512 B.
  const ModelSpec ds = presets::find_model("deepseek-v3");
  REQUIRE(quant_applies(ds));
  CHECK(routed_expert_weight_bytes(ds).value == 654068416512ULL);
  CHECK(weight_dtype_label(ds) == "fp8_e4m3 128x128 blocks, bf16 embeddings");
}

#include "kvplan/plan.hpp"

TEST_CASE("awq and gptq under tp: a row-parallel layer's rows per GPU must hold whole groups (vLLM)",
          "[weights][quant][plan]") {
  // Qwen2.5-72B with AWQ int4 g128: intermediate_size 29,568 = 128 x 231, 231 odd, so at tp 2 each GPU's
  // down_proj has 14,784 input values, 115.5 groups: vLLM's AWQLinearMethod refuses it. Qwen's AWQ
  // checkpoint pads intermediate_size to 29,696 = 128 x 232: 3,712 = 29 x 128 per GPU at tp 8.
  PlanInputs in;
  in.model = presets::find_model("qwen2.5-72b");
  in.model.quant.method = WeightQuant::Method::awq;
  in.model.quant.bits = 4;
  in.model.quant.group_size = 128;
  in.model.quant.stored = in.model.weight_dtype;
  REQUIRE(quant_applies(in.model));
  in.context = Tokens{4096};
  in.engine.engine = Engine::vllm;
  in.deployment.parallel.tp = 2;
  CHECK_THROWS_WITH(make_plan(in),
                    Catch::Contains("tp: 2: a dense MLP's down_proj gets 29,568 / 2 = 14,784") &&
                        Catch::Contains("group_size 128"));
  // SGLang loads them with the same linear methods; the exact layout and llama.cpp do not load AWQ.
  in.engine.engine = Engine::sglang;
  CHECK_THROWS_WITH(make_plan(in), Catch::Contains("group_size 128"));
  in.engine.engine = Engine::ideal;
  CHECK_NOTHROW(make_plan(in));
  // tp 1: the reader's check (the whole width); the padded checkpoint at tp 8: attention's o_proj has 64 x
  // 128 / 8 = 1,024 values per GPU and the MLP 3,712, both whole groups.
  in.engine.engine = Engine::vllm;
  in.deployment.parallel.tp = 1;
  CHECK_NOTHROW(make_plan(in));
  for (auto& g : in.model.layers) g.mlp.intermediate_size = 29696;
  in.deployment.parallel.tp = 8;
  CHECK_NOTHROW(make_plan(in));
  // GPTQ g128 with o_proj rows 8,192 / 16 = 512 per GPU passes; at 29,696 / 16 = 1,856 = 14.5 groups not.
  in.model.quant.method = WeightQuant::Method::gptq;
  in.deployment.parallel.tp = 16;
  CHECK_THROWS_WITH(make_plan(in), Catch::Contains("1,856") && Catch::Contains("GPTQ group_size 128"));
}
