// Tests for core/fit.hpp: the deployment search, its ranking, "nearest", and the launch lines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "hf_support.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/streaming.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;

namespace {
KvDtypes both(DType t) {
  KvDtypes k;
  k.k = k.v = t;
  return k;
}

/// The README's job: Llama-3.1-70B, 16 users x 32,768 tokens, H100 SXM, pp 1.
FitRequest readme_job(DType kv) {
  FitRequest r;
  r.model = presets::find_model("llama-3.1-70b");
  r.context = Tokens{32768};
  r.users = 16;
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.pp = {1};
  r.kv_dtypes = {both(kv)};
  return r;
}
}  // namespace

// The README's figures per H100 SXM: usable floor(85,520,809,984 x 0.9) = 76,968,728,985 B; bf16 weights
// 141,107,412,992 B; reserve 2^30 = 1,073,741,824 B. Per token per GPU: 80 layers x (8 / tp) KV heads x 128 x
// 2 (K, V) x 2 B (bf16) or 1 B (fp8).
TEST_CASE("fit: Llama-3.1-70B, 16 x 32k on H100 SXM, bf16 KV: 8 GPUs at tp 8", "[fit]") {
  const FitResult res = fit(readme_job(DType::bf16));
  REQUIRE(!res.rows.empty());
  const Plan& p = res.rows.front().plan;
  // tp 4: available 76,968,728,985 - 141,107,412,992 / 4 - 2^30 = 40,618,133,913 B (37.8 GiB); 16 users need
  // 16 x 32,768 x 80 x 2 x 128 x 2 x 2 B = 42,949,672,960 B (40 GiB): only 15 fit, so tp 4 needs 2 replicas
  // (8 GPUs). tp 8: available 76,968,728,985 - 17,638,426,624 - 1,073,741,824 = 58,256,560,537 B; KV 16 x
  // 32,768 x 40,960 B = 21,474,836,480 B; free 36,781,724,057 B, more than tp 4 x 2 replicas' 40,618,133,913
  // - 8 x 2,684,354,560 = 19,143,297,433 B, so tp 8 ranks first.
  CHECK(p.gpus == 8);
  CHECK(p.inputs.deployment.parallel == Parallelism{8, 1, 1});
  CHECK(p.per_gpu.available_kv_bytes == Bytes{58'256'560'537});
  CHECK(p.per_gpu.free_bytes == Bytes{36'781'724'057});
  CHECK(p.fits);
  REQUIRE(res.rows.size() >= 2);
  const Plan& second = res.rows[1].plan;
  CHECK(second.inputs.deployment.parallel == Parallelism{4, 1, 2});
  CHECK(second.per_gpu.free_bytes == Bytes{19'143'297'433});
  // Rows come with speed (the H100 has every figure) and the max-context search done.
  CHECK(res.rows.front().speed.has_value());
  CHECK(p.max_context.has_value());
  // No row uses more GPUs than an earlier one.
  for (std::size_t i = 1; i < res.rows.size(); ++i) CHECK(res.rows[i - 1].plan.gpus <= res.rows[i].plan.gpus);
}

TEST_CASE("fit: the same job with fp8_e4m3 KV: 4 GPUs at tp 4", "[fit]") {
  const FitResult res = fit(readme_job(DType::fp8_e4m3));
  REQUIRE(!res.rows.empty());
  const FitRow& row = res.rows.front();
  // tp 4 at 1 B: 16 x 32,768 x 80 x 2 x 128 x 2 x 1 B = 21,474,836,480 B <= 40,618,133,913 B available;
  // free 19,143,297,433 B. tp 2 (70,553,706,496 B of weights) leaves 5,341,280,665 B: 1 user, 16 replicas.
  CHECK(row.plan.gpus == 4);
  CHECK(row.plan.inputs.deployment.parallel == Parallelism{4, 1, 1});
  CHECK(row.plan.per_gpu.free_bytes == Bytes{19'143'297'433});
  CHECK(row.launch ==
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --pipeline-parallel-size 1 "
        "--max-model-len 32768 --max-num-seqs 16 --kv-cache-dtype fp8_e4m3 --gpu-memory-utilization 0.90");
}

TEST_CASE("fit: a GPU, tp, pp or KV dtype given twice is searched once", "[fit]") {
  // tp 4, pp 1, bf16 on H100 SXM (the case above): 4 GPUs hold 15 of the 16 users, 8 (two replicas) hold
  // all. So 2 layouts are judged and 1 fits; with the repeats kept (2 GPUs x 2 tp x 2 dtypes) it was 16
  // and 8.
  FitRequest r = readme_job(DType::bf16);
  r.tp = {4, 4};
  r.pp = {1, 1};
  r.gpus.push_back(r.gpus.front());
  r.kv_dtypes.push_back(r.kv_dtypes.front());
  const FitResult res = fit(r);
  CHECK(res.candidates == 2);
  CHECK(res.fitting == 1);
  REQUIRE(res.rows.size() == 1);
  CHECK(res.rows.front().plan.inputs.deployment.parallel == Parallelism{4, 1, 2});
}

TEST_CASE("fit: default dtypes try fp8 only where the GPU has it", "[fit]") {
  Gpu g;
  g.fp8 = false;
  CHECK(default_kv_dtypes(g, Engine::ideal) == std::vector<KvDtypes>{both(DType::bf16)});
  g.fp8 = true;
  CHECK(default_kv_dtypes(g, Engine::vllm) ==
        std::vector<KvDtypes>{both(DType::bf16), both(DType::fp8_e4m3)});
  CHECK(default_kv_dtypes(g, Engine::llamacpp) ==
        std::vector<KvDtypes>{both(DType::fp16), both(DType::q8_0)});
  CHECK(presets::find_gpu("h100-sxm").fp8);
  CHECK_FALSE(presets::find_gpu("a100-80gb").fp8);
}

TEST_CASE("fit: nothing within the budget names the nearest layout", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.max_gpus = 4;
  const FitResult res = fit(r);
  CHECK(res.rows.empty());
  REQUIRE(res.nearest.has_value());
  // tp 4 holds 15 of the 16 users (40,618,133,913 / 2,684,354,560 per user = 15.1); tp 2 and tp 1 hold none.
  CHECK(res.nearest->plan.gpus == 4);
  CHECK(res.nearest->plan.max_users == 15);
  CHECK_THAT(res.nearest_note, Catch::Contains("15 of 16 users") && Catch::Contains("short by 2.17 GiB"));
}

TEST_CASE("fit: price ranks by cost per million tokens; SLA filters", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.pp = {};
  r.max_gpus = 16;
  r.price_per_gpu_hour = 2.0;
  const FitResult res = fit(r);
  REQUIRE(res.rows.size() >= 2);
  for (const auto& row : res.rows) REQUIRE(row.cost_per_million_tokens.has_value());
  for (std::size_t i = 1; i < res.rows.size(); ++i)
    CHECK(*res.rows[i - 1].cost_per_million_tokens <= *res.rows[i].cost_per_million_tokens);
  // cost = 2 $/h x GPUs / (tokens/s x 3600) x 1e6.
  const FitRow& top = res.rows.front();
  CHECK_THAT(*top.cost_per_million_tokens,
             Catch::Matchers::WithinRel(
                 2.0 * static_cast<double>(top.plan.gpus) / (top.speed->tokens_per_s * 3600) * 1e6, 1e-12));
  FitRequest sla = readme_job(DType::bf16);
  sla.max_tpot_s = 1e-6;  // no layout decodes in a microsecond
  const FitResult none = fit(sla);
  CHECK(none.rows.empty());
  CHECK(none.fitting == 0);
}

TEST_CASE("fit: engines through make_plan, and their launch lines", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.engine.engine = Engine::sglang;
  const FitResult s = fit(r);
  REQUIRE(!s.rows.empty());
  CHECK_THAT(s.rows.front().launch,
             Catch::StartsWith("python -m sglang.launch_server --model-path "
                               "meta-llama/Llama-3.1-70B --tp 8 --context-length 32768 "
                               "--max-running-requests 16 --mem-fraction-static 0.818 --max-total-tokens "));
  // No fraction given: SGLang's default for an H100 at tp 8 (reserved 14,848 of 81,559 MB: 0.818), and the
  // pool pinned at the tokens the plan holds.
  CHECK_THAT(
      s.rows.front().launch,
      Catch::EndsWith("--max-total-tokens " + std::to_string(*s.rows.front().plan.engine.kv_cache_tokens)));
  r.engine.engine = Engine::trtllm;
  const FitResult t = fit(r);
  REQUIRE(!t.rows.empty());
  CHECK_THAT(t.rows.front().launch,
             Catch::StartsWith("trtllm-serve meta-llama/Llama-3.1-70B --tp_size 8 --pp_size 1 "
                               "--max_seq_len 32768 --max_batch_size 16 "
                               "--kv_cache_free_gpu_memory_fraction 0."));
  CHECK_THAT(t.rows.front().launch, !Catch::Contains("kv_cache_config"));  // bf16: the model's type
  // An fp8 row's line sets TensorRT-LLM's KV cache type (kv_cache_config dtype: fp8); it started a bf16
  // cache, twice the bytes the row planned.
  FitRequest t8 = readme_job(DType::fp8_e4m3);
  t8.engine.engine = Engine::trtllm;
  const FitResult f8 = fit(t8);
  REQUIRE(!f8.rows.empty());
  CHECK(f8.rows.front().plan.inputs.kv.k == DType::fp8_e4m3);
  CHECK_THAT(f8.rows.front().launch,
             Catch::Contains(" --extra_llm_api_options kv_cache_config.yaml") &&
                 Catch::Contains("# kv_cache_config.yaml: \"kv_cache_config: {dtype: fp8}\""));
  // llama.cpp runs no tensor parallelism: only tp 1 layouts, which for a 70B on 80 GB GPUs need pp.
  FitRequest l = readme_job(DType::fp16);
  l.engine.engine = Engine::llamacpp;
  l.pp = {};
  l.users = 1;
  l.context = Tokens{8192};
  const FitResult lr = fit(l);
  REQUIRE(!lr.rows.empty());
  CHECK(lr.rows.front().plan.inputs.deployment.parallel.tp == 1);
  CHECK_THAT(
      lr.rows.front().launch,
      Catch::StartsWith("llama-server -m llama-3.1-70b.gguf -c 8192 -np 1 -ctk f16 -ctv f16 -ngl 999"));
}

TEST_CASE("fit: the launch line carries every engine option and extra the row was planned with", "[fit]") {
  // The README's job at tp 8 (the bf16 row above), each engine with options away from their defaults:
  // the row is planned with them, so the line must start the engine with them too.
  FitRequest r = readme_job(DType::bf16);
  r.tp = {8};
  r.engine.engine = Engine::vllm;
  r.engine.block_size = 32;
  r.engine.max_num_batched_tokens = 4096;
  r.launch.speculative_config = R"({"method":"ngram","prompt_lookup_max":4})";
  const FitResult v = fit(r);
  REQUIRE(!v.rows.empty());
  // The pool the row planned is pinned (--kv-cache-memory-bytes): the server holds what the row promises.
  CHECK(v.rows.front().plan.budget.modelled);
  CHECK(v.rows.front().launch ==
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 8 --pipeline-parallel-size 1 "
        "--max-model-len 32768 --max-num-seqs 16 --kv-cache-dtype auto --gpu-memory-utilization 0.90 "
        "--kv-cache-memory-bytes " +
            std::to_string(v.rows.front().plan.per_gpu.available_kv_bytes.value) +
            " --block-size 32 --max-num-batched-tokens 4096 "
            "--speculative-config '{\"method\":\"ngram\",\"prompt_lookup_max\":4}'");
  // Weights asked as fp8 over a bf16 checkpoint: vLLM quantises online with --quantization fp8; a q4_0
  // override has no online path, and the line says so.
  // The model at that type as the CLI's --weight-dtype applies it (apply_weight_dtype), the type in the
  // extras.
  r = readme_job(DType::bf16);
  r.tp = {8};
  r.launch.weight_dtype = DType::fp8_e4m3;
  apply_weight_dtype(r.model, DType::fp8_e4m3, r.engine.engine);
  const FitResult q = fit(r);
  REQUIRE(!q.rows.empty());
  CHECK_THAT(q.rows.front().launch, Catch::EndsWith("--gpu-memory-utilization 0.90 --quantization fp8"));
  r = readme_job(DType::bf16);
  r.tp = {8};
  r.launch.weight_dtype = DType::q4_0;
  apply_weight_dtype(r.model, DType::q4_0, r.engine.engine);
  CHECK_THAT(fit(r).rows.front().launch,
             Catch::EndsWith("0.90  # weights as q4_0: give a checkpoint quantised so"));

  r = readme_job(DType::bf16);
  r.tp = {8};
  r.engine.engine = Engine::sglang;
  r.engine.block_size = 64;
  r.deployment.gpu_memory_utilization = 0.9;
  CHECK_THAT(fit(r).rows.front().launch, Catch::Contains("--mem-fraction-static 0.90 --max-total-tokens "));
  CHECK_THAT(fit(r).rows.front().launch, Catch::EndsWith(" --page-size 64"));

  // TensorRT-LLM takes tokens_per_block and max_tokens in kv_cache_config, from a YAML file.
  r.engine = EngineOptions{};
  r.engine.engine = Engine::trtllm;
  r.engine.block_size = 64;
  CHECK_THAT(fit(r).rows.front().launch,
             Catch::EndsWith(" --extra_llm_api_options kv_cache_config.yaml  # kv_cache_config.yaml: "
                             "\"kv_cache_config: {tokens_per_block: 64}\""));

  // llama.cpp: -ub past the default n_batch (2,048) needs -b as large (n_ubatch = min(n_batch, n_ubatch)).
  FitRequest l = readme_job(DType::fp16);
  l.engine.engine = Engine::llamacpp;
  l.engine.ubatch = 4096;
  l.engine.kv_unified = true;
  l.pp = {};
  l.users = 1;
  l.context = Tokens{8192};
  CHECK(fit(l).rows.front().launch ==
        "llama-server -m llama-3.1-70b.gguf -c 8192 -np 1 -ctk f16 -ctv f16 -ngl 999 -b 4096 -ub 4096 "
        "--kv-unified");
}

TEST_CASE("fit: no speed for a model whose parameters are unknown", "[fit]") {
  // A Gemma 4 model with per-layer inputs has no weight formula: with the weights' size given the rows
  // fit, but TPOT and TTFT would count too few parameters, so they are left out (and --tpot keeps no row).
  FitRequest r;
  r.model = test::gemma4_with_per_layer_inputs();
  REQUIRE(!r.model.weights_unknown.empty());
  r.context = Tokens{32768};
  r.users = 8;
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.deployment.weights = Bytes{50ULL << 30};
  const FitResult res = fit(r);
  REQUIRE(!res.rows.empty());
  for (const auto& row : res.rows) CHECK_FALSE(row.speed.has_value());
  r.max_tpot_s = 1.0;
  CHECK(fit(r).rows.empty());
}

TEST_CASE("fit: bad requests name the flag", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.tp = {3};
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("tp:"));
  r = readme_job(DType::bf16);
  r.pp = {81};
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("pp:"));
  r = readme_job(DType::bf16);
  r.max_gpus = 0;
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("max_gpus:"));
  r = readme_job(DType::bf16);
  r.gpus.clear();
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("gpu:"));
}

TEST_CASE("fit: when no layout even holds the weights, nearest says by how much", "[fit]") {
  FitRequest r;
  r.model = presets::find_model("llama-3.1-405b");
  r.context = Tokens{8192};
  r.gpus = {presets::find_gpu("l4")};
  r.max_gpus = 4;
  const FitResult res = fit(r);
  CHECK(res.rows.empty());
  REQUIRE(res.nearest.has_value());
  // 405B x 2 B is about 756 GiB: a quarter per L4 is far past its 20.2 GiB usable.
  CHECK(res.nearest->plan.max_users == 0);
  CHECK_FALSE(res.nearest->speed.has_value());
  CHECK_THAT(res.nearest_note,
             Catch::Contains("weights and reserve need") && Catch::Contains("20.2 GiB usable"));
}

// When layouts hold the users but none meets the SLA, the nearest is the fastest of them, with its miss.
// fp8_e4m3 KV, tp 4 or 8, at most 8 GPUs: both hold the 16 users on one replica. Decode is memory-bound
// (FLOPs: about 2.3e11 per token x 16 / tp, under 1 ms at half of 989.5 TFLOP/s), so per GPU at 3.35 TB/s
// x 0.8 = 2.68e12 B/s:
//   tp 8: weights 141,107,412,992 / 8 = 17,638,426,624 B + KV 16 x 32,768 x 80 x 1 KV head x 128 x 2 x 1 B
//         = 10,737,418,240 B: 28,375,844,864 / 2.68e12 = 10.5880 ms; all-reduce 2 x 80 x (2 x 7/8 x 16 x
//         8,192 x 2 B = 458,752 B) / (450e9 x 0.7) = 0.2330 ms; 10.8210 ms in all.
//   tp 4: (35,276,853,248 + 21,474,836,480) / 2.68e12 = 21.1760 ms + 160 x 393,216 / 3.15e11 = 0.1997 ms.
// So tp 8 is nearest a 5 ms TPOT: 10.8 ms, 116% over (10.821 / 5 = 2.164).
TEST_CASE("fit: nothing meets the SLA: the fastest layout that holds the users, and by how much", "[fit]") {
  FitRequest r = readme_job(DType::fp8_e4m3);
  r.tp = {4, 8};
  r.max_gpus = 8;
  r.max_tpot_s = 0.005;
  const FitResult res = fit(r);
  CHECK(res.rows.empty());
  CHECK(res.fitting == 0);
  CHECK(res.holding == 2);
  REQUIRE(res.nearest.has_value());
  CHECK(res.nearest_misses_sla);
  CHECK(res.nearest->plan.inputs.deployment.parallel == Parallelism{8, 1, 1});
  REQUIRE(res.nearest->speed.has_value());
  CHECK_THAT(res.nearest->speed->tpot_s, Catch::Matchers::WithinRel(0.0108210, 1e-4));
  CHECK(
      res.nearest_note ==
      "nothing within 8 GPUs meets the SLA (TPOT <= 5.0 ms): 2 layouts hold the 16 users, none fast enough; "
      "nearest: 8 x h100-sxm (tp 8 x pp 1 x 1 replica, KV fp8_e4m3): TPOT 10.8 ms against 5.0 ms (+116%)");
  SECTION("a TTFT that is met is said to be") {
    r.max_ttft_s = 100.0;
    const FitResult both = fit(r);
    REQUIRE(both.nearest.has_value());
    CHECK(both.nearest->plan.inputs.deployment.parallel == Parallelism{8, 1, 1});
    CHECK_THAT(both.nearest_note,
               Catch::EndsWith("TPOT 10.8 ms against 5.0 ms (+116%), TTFT " +
                               format_seconds(both.nearest->speed->ttft_s) + " against 1.7 min (met)"));
  }
  SECTION("a 15 ms TPOT: tp 8 meets it, tp 4 (21.4 ms) does not") {
    r.max_tpot_s = 0.015;
    const FitResult ok = fit(r);
    REQUIRE(ok.rows.size() == 1);
    CHECK(ok.rows.front().plan.inputs.deployment.parallel == Parallelism{8, 1, 1});
    CHECK(ok.holding == 2);
    CHECK(ok.fitting == 1);
    CHECK_FALSE(ok.nearest.has_value());
  }
}

TEST_CASE("fit: an SLA on GPUs without speed figures names no layout", "[fit]") {
  // The A10G preset has no bf16 peak: a layout that holds the users cannot be timed, so none is "nearest".
  FitRequest r;
  r.model = presets::find_model("llama-3.1-8b");
  r.context = Tokens{4096};
  r.gpus = {presets::find_gpu("a10g")};
  r.max_gpus = 4;
  r.max_tpot_s = 1.0;
  const FitResult res = fit(r);
  CHECK(res.rows.empty());
  CHECK(res.holding > 0);
  CHECK_FALSE(res.nearest.has_value());
  CHECK_THAT(res.nearest_note, Catch::StartsWith("nothing within 4 GPUs can be held against the SLA: "));
}

// StreamingLLM's cap in fit: Llama-3.1-8B keeps 4 + 1,020 = 1,024 tokens per layer, 1,024 x 32 layers x 8 KV
// heads x 128 x 2 (K, V) x 2 B = 134,217,728 B per sequence. One H100 SXM: usable 76,968,728,985 B; bf16
// weights 8,030,261,248 parameters x 2 B = 16,060,522,496 B (embeddings and LM head 2 x 128,256 x 4,096, 32
// layers of 218,112,000, a final norm of 4,096); reserve 1,073,741,824 B: 59,834,464,665 B for KV, 445
// sequences (59,834,464,665 / 134,217,728 = 445.8). Uncapped (4 GiB a sequence) one GPU holds 13.
TEST_CASE("fit: with attention sinks, rows use the capped KV and carry no launch line", "[fit][streaming]") {
  FitRequest r;
  r.model = with_attention_sinks(presets::find_model("llama-3.1-8b"), 4, 1020);
  r.attention_sinks = true;
  r.context = Tokens{32768};
  r.users = 16;
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.kv_dtypes = {both(DType::bf16)};
  r.tp = {1};
  r.pp = {1};
  const FitResult res = fit(r);
  REQUIRE(!res.rows.empty());
  const Plan& p = res.rows.front().plan;
  CHECK(p.gpus == 1);
  CHECK(p.kv_bytes_per_sequence == Bytes{134'217'728});
  CHECK(p.per_gpu.available_kv_bytes == Bytes{59'834'464'665});
  CHECK(p.max_users == 445);
  CHECK_FALSE(p.max_context.has_value());  // every layer windowed: any context
  CHECK_THAT(res.rows.front().launch, Catch::StartsWith("(no launch line: no serving engine keeps"));
  r.engine.engine = Engine::vllm;
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("sink_tokens:"));
}

TEST_CASE("fit: a max context past max_position_embeddings is marked; the launch line stays accepted",
          "[fit]") {
  // Llama-3.1-70B's config: max_position_embeddings 131,072.
  const ModelSpec m = presets::find_model("llama-3.1-70b");
  REQUIRE(m.max_position_embeddings == 131072);
  CHECK_FALSE(past_max_position(m, Tokens{131072}, Engine::ideal));
  CHECK(past_max_position(m, Tokens{131073}, Engine::ideal));
  ModelSpec unknown = m;
  unknown.max_position_embeddings = 0;  // no limit known: nothing to mark
  CHECK_FALSE(past_max_position(unknown, Tokens{1'000'000}, Engine::ideal));
  CHECK(max_context_text(m, Tokens{131072}, Engine::ideal) == "131,072 tokens");
  CHECK(max_context_text(m, Tokens{177784}, Engine::ideal) ==
        "177,784 tokens (past the model's 131,072 max_position_embeddings)");
  // Its rope_scaling is llama3 (factor 8, original 8,192): vLLM applies no factor, so 131,072 too.
  CHECK(max_context_text(m, Tokens{177784}, Engine::vllm) ==
        "177,784 tokens (past vLLM's derived max_model_len 131,072 (max_position_embeddings 131,072; "
        "rope_scaling llama3: no factor): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)");

  // The README's fp8 row at tp 8: available 76,968,728,985 - 141,107,412,992 / 8 - 2^30 = 58,256,560,537 B
  // per GPU; 16 users x 80 layers x 1 KV head x 128 x 2 x 1 B = 327,680 B per token of context:
  // 177,784.67 -> 177,784 tokens, past the limit.
  FitRequest r = readme_job(DType::fp8_e4m3);
  r.tp = {8};
  const FitResult res = fit(r);
  REQUIRE(!res.rows.empty());
  REQUIRE(res.rows.front().plan.max_context.has_value());
  CHECK(res.rows.front().plan.max_context->value == 177784);
  CHECK(past_max_position(m, *res.rows.front().plan.max_context, r.engine.engine));

  // A context asked past the limit: each engine's line carries the setting it needs to accept it.
  r = readme_job(DType::fp8_e4m3);
  r.tp = {8};
  r.context = Tokens{200000};
  r.users = 1;
  CHECK_THAT(fit(r).rows.front().launch,
             Catch::StartsWith("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-70B ") &&
                 Catch::Contains("--max-model-len 200000") &&
                 Catch::EndsWith("  # context 200,000 past vLLM's derived max_model_len 131,072 "
                                 "(max_position_embeddings 131,072; rope_scaling llama3: no factor): vLLM "
                                 "refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"));
  r.engine.engine = Engine::sglang;
  CHECK_THAT(
      fit(r).rows.front().launch,
      Catch::StartsWith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server "));
  r.engine.engine = Engine::trtllm;
  CHECK_THAT(fit(r).rows.front().launch, Catch::StartsWith("TLLM_ALLOW_LONG_MAX_MODEL_LEN=1 trtllm-serve "));
  // Within the limit: no setting, no comment.
  r.engine.engine = Engine::vllm;
  r.context = Tokens{131072};
  CHECK_THAT(fit(r).rows.front().launch, Catch::StartsWith("vllm serve ") && !Catch::Contains("#"));
}

TEST_CASE("fit: the price per GPU-hour is bounded", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.price_per_gpu_hour = 1e308;
  CHECK_THROWS_WITH(
      fit(r), "price_per_gpu_hour: must be a price in USD per GPU-hour, more than 0 and at most 1,000,000");
  r.price_per_gpu_hour = 1'000'000.0;
  CHECK_NOTHROW(fit(r));
}

namespace {
/// Llama-3.1-8B (32 layers, 32 query heads, 8 KV heads of 128) with a made-up one-layer EAGLE drafter of
/// 24 query heads and 3 KV heads of 128 (tests/fixtures/eagle-3kv-draft.json's shape), appended as
/// with_draft_layers does.
ModelSpec llama_with_3kv_drafter() {
  const ModelSpec target = presets::find_model("llama-3.1-8b");
  ModelSpec draft = target;
  draft.name = "3-KV-head drafter";
  draft.layers = {target.layers.front()};
  draft.layers.front().count = 1;
  draft.layers.front().attention.num_attention_heads = 24;
  draft.layers.front().attention.num_key_value_heads = 3;
  return with_draft_layers(target, draft);
}

/// One user of 4,096 tokens of llama_with_3kv_drafter on H100 SXM, bf16 KV.
FitRequest drafter_job() {
  FitRequest r;
  r.model = llama_with_3kv_drafter();
  r.context = Tokens{4096};
  r.users = 1;
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.kv_dtypes = {both(DType::bf16)};
  return r;
}
}  // namespace

TEST_CASE("fit: a drafter's layers join the last stage; pp never passes the target's layers", "[fit]") {
  const ModelSpec m = llama_with_3kv_drafter();
  REQUIRE(num_layers(m) == 33);
  CHECK(m.draft_layers == 1);
  // vLLM splits the target's 32 layers (get_pp_indices) and loads the drafter on the last rank: pp 2 is
  // 16 and 16 + 1; pp 17 is 32 = 15 x 2 + 2 x 1 (the first 32 mod 17 = 15 stages take 2), the drafter
  // on stage 16 with its 1 target layer: it never has a stage to itself.
  CHECK(pipeline_stage(33, 2, 0, 1) == Stage{0, 16});
  CHECK(pipeline_stage(33, 2, 1, 1) == Stage{16, 17});
  CHECK(pipeline_stage(33, 17, 15, 1) == Stage{30, 1});
  CHECK(pipeline_stage(33, 17, 16, 1) == Stage{31, 2});
  // 33 stages would leave one with the drafter alone (vLLM: a rank without a layer of the target).
  CHECK_THROWS_WITH(pipeline_stages(33, 33, 1),
                    "pp: 33 stages exceed the model's 32 layers (the drafter's 1 join the last stage: vLLM "
                    "splits the target's alone)");
  FitRequest r = drafter_job();
  r.pp = {33};
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("pp: 33 stages exceed the model's 32 layers"));
}

TEST_CASE("fit: layouts vLLM refuses for a drafter are never offered, and the refusals are named", "[fit]") {
  FitRequest r = drafter_job();
  r.top = 1000;
  SECTION("vLLM: every layout has the drafter beside target layers, whose pages it cannot unify") {
    // Page per 16-token block: target 8 x 128 x 2 (K, V) x 2 B x 16 = 65,536 B, drafter 3 x 128 x 2 x 2 B
    // x 16 = 24,576 B; 65,536 mod 24,576 = 16,384, so unify_kv_cache_spec_page_size raises on the last
    // stage at every pp (before, pp 17 .. 33 put the drafter on a stage of its own and were offered).
    r.engine.engine = Engine::vllm;
    CHECK_THROWS_WITH(fit(r), Catch::StartsWith("engine: vLLM cannot unify the page sizes"));
  }
  SECTION("the exact layout: tp 1 only, pp 1 to 32, and the tp sizes left out named with their cause") {
    r.gpus_per_node = 64;  // tp up to the 64 GPUs: the sizes past a node of 8 are named too
    const FitResult res = fit(r);
    REQUIRE(!res.rows.empty());
    std::uint64_t most_pp = 0;
    for (const auto& row : res.rows) {
      CHECK(row.plan.inputs.deployment.parallel.tp == 1);
      most_pp = std::max(most_pp, row.plan.inputs.deployment.parallel.pp);
    }
    CHECK(most_pp == 32);  // 1 .. 32 stages, one replica each, within 64 GPUs
    // The exact layout's line is vLLM's, and vLLM refuses every one of them (the pages above): no line.
    CHECK_THAT(
        res.rows.front().launch,
        Catch::StartsWith("(no vllm line: vLLM refuses this layout: vLLM cannot unify the page sizes"));
    // The sizes dividing the target's 32 heads: 2, 4, 8 against the drafter's 3 KV heads (neither divides
    // the other); 16 and 32 do not divide its 24 query heads.
    REQUIRE(res.refused.size() == 2);
    CHECK(res.refused[0] ==
          "tp 2, 4, 8 skipped: tp and num_key_value_heads 3 (the drafter's): one must divide the other (tp "
          "splits every layer's heads; vLLM, SGLang and TensorRT-LLM refuse it)");
    CHECK(res.refused[1] ==
          "tp 16, 32 skipped: tp does not divide num_attention_heads 24 (the drafter's) (tp splits every "
          "layer's heads; vLLM, SGLang and TensorRT-LLM refuse it)");
  }
}

TEST_CASE("fit: a model whose every tp passes notes nothing", "[fit]") {
  const FitResult res = fit(readme_job(DType::bf16));
  CHECK(res.refused.empty());
}

namespace {
/// The issue's job: DeepSeek-V3 (fp8 checkpoint), 32 users x 65,536 tokens, H200, one stage, bf16 KV.
FitRequest deepseek_job(Engine engine) {
  FitRequest r;
  r.model = presets::find_model("deepseek-v3");
  r.model
      .quant = {};  // plain fp8 weights, as worked below (the checkpoint's block scales add 131.1 MB a GPU)
  r.context = Tokens{65536};
  r.users = 32;
  r.gpus = {presets::find_gpu("h200")};
  r.pp = {1};
  r.kv_dtypes = {both(DType::bf16)};
  r.engine.engine = engine;
  r.top = 100;
  r.search_dp_attention = true;
  return r;
}
}  // namespace

// DeepSeek-V3 per H200 (tests/test_plan.cpp's figures): usable floor(150,754,820,096 x 0.9) =
// 135,679,338,086 B, reserve 2^30; weights: 18,970,991,616 B outside the routed experts, 653,908,770,816 B
// of routed experts. Per sequence: (512 + 64) x 2 B x 61 layers = 70,272 B per token x 65,536 =
// 4,605,345,792 B, held by every GPU of an attention rank (the latent is not split by tp).
TEST_CASE("fit: DP attention with expert parallel is searched, ranked and launched (DeepSeek-V3)",
          "[fit][dp-attention]") {
  const std::uint64_t usable = 135679338086ULL, reserve = 1073741824ULL, seq = 4605345792ULL;
  const std::uint64_t rest = 18970991616ULL, experts = 653908770816ULL;
  const FitResult res = fit(deepseek_job(Engine::ideal));
  // tp 1, 2, 4 cannot hold the experts (653,908,770,816 / 4 > usable). At tp 8:
  //  dpa 8 (attention tp 1): weights rest + experts / 8 = 100,709,587,968; 4 users per rank; available
  //    33,896,008,294, KV 4 x seq = 18,421,383,168, free 15,474,625,126.
  //  dpa 4 (attention tp 2): weights rest / 2 + experts / 8 = 91,224,092,160; 8 users per rank: KV
  //    36,842,766,336 of 43,381,504,102, free 6,538,737,766.
  //  dpa 2 (attention tp 4): weights 86,481,344,256, available 48,124,252,006 holds 10 sequences per rank
  //    of the 16 it needs: 2 replicas (16 GPUs), 8 per rank: free 48,124,252,006 - 36,842,766,336 =
  //    11,281,485,670.
  //  off: weights 84,109,970,304, available 50,495,625,958 holds 10 sequences, each on all 8 GPUs: 4
  //    replicas (32 GPUs), 8 each: free 50,495,625,958 - 36,842,766,336 = 13,652,859,622.
  REQUIRE(res.rows.size() == 4);
  const auto layout = [&](std::size_t i) {
    const Plan& p = res.rows[i].plan;
    return std::tuple{p.gpus, p.inputs.deployment.parallel.tp, p.inputs.deployment.parallel.dp,
                      p.inputs.deployment.dp_attention, p.per_gpu.free_bytes.value};
  };
  CHECK(layout(0) == std::tuple{8ULL, 8ULL, 1ULL, 8ULL, 15474625126ULL});
  CHECK(layout(1) == std::tuple{8ULL, 8ULL, 1ULL, 4ULL, 6538737766ULL});
  CHECK(layout(2) == std::tuple{16ULL, 8ULL, 2ULL, 2ULL, 11281485670ULL});
  CHECK(layout(3) == std::tuple{32ULL, 8ULL, 4ULL, 1ULL, 13652859622ULL});
  const Plan& best = res.rows[0].plan;
  CHECK(best.per_gpu.weights_bytes.value == rest + experts / 8);
  CHECK(best.per_gpu.available_kv_bytes.value == usable - rest - experts / 8 - reserve);
  CHECK(best.per_gpu.kv_bytes_total.value == 4 * seq);
  // No speed under DP attention (the roofline is tensor parallel's); the tp 8 row has one.
  CHECK_FALSE(res.rows[0].speed.has_value());
  CHECK(res.rows[3].speed.has_value());
  // The exact layout's line is vLLM's: tp per data-parallel rank, sequences per rank's scheduler.
  CHECK_THAT(res.rows[0].launch,
             Catch::Contains("--tensor-parallel-size 1 --pipeline-parallel-size 1 --max-model-len 65536 "
                             "--max-num-seqs 4 "));
  CHECK_THAT(res.rows[0].launch, Catch::EndsWith("--data-parallel-size 8 --enable-expert-parallel"));
  CHECK_THAT(res.rows[1].launch, Catch::Contains("--tensor-parallel-size 2 "));
  CHECK_THAT(res.rows[1].launch, Catch::Contains("--max-num-seqs 8 "));
  // Replicas of a DP attention layout are separate servers.
  CHECK_THAT(res.rows[2].launch,
             Catch::Contains("--data-parallel-size 2 --enable-expert-parallel  # one of 2 replicas"));
  CHECK_THAT(res.rows[3].launch, Catch::Contains("--data-parallel-size 4"));
  CHECK_THAT(res.rows[3].launch, !Catch::Contains("--enable-expert-parallel"));
  CHECK(res.searched ==
        "tp 1, 2, 4, 8 (within a node of 8 GPUs), pp 1, replicas, DP attention with expert "
        "parallel (at pp 1)");
  CHECK(res.refused.empty());
}

TEST_CASE("fit: DP attention is searched only when asked (front ends whose rows lack it)",
          "[fit][dp-attention]") {
  FitRequest r = deepseek_job(Engine::ideal);
  r.search_dp_attention = false;
  const FitResult res = fit(r);
  // The tp 8 layout alone (4 replicas, 32 GPUs: the working above), no DP attention row.
  REQUIRE(res.rows.size() == 1);
  CHECK(res.rows[0].plan.gpus == 32);
  CHECK(res.searched == "tp 1, 2, 4, 8 (within a node of 8 GPUs), pp 1, replicas");
}

TEST_CASE("fit: DP attention under each engine", "[fit][dp-attention]") {
  SECTION("SGLang: --tp over every GPU, --max-running-requests over every rank, --ep-size tp") {
    FitRequest r = deepseek_job(Engine::sglang);
    r.dp_attention = {8};
    r.tp = {8};
    // The fraction given: SGLang's own default with DP attention 8 on an H200 reserves 33,280 MB (0.769,
    // test_budget.cpp), and 8 GPUs then hold fewer than 32 users.
    r.deployment.gpu_memory_utilization = 0.9;
    const FitResult res = fit(r);
    REQUIRE(!res.rows.empty());
    CHECK(res.rows[0].plan.inputs.deployment.dp_attention == 8);
    // 32 users, 4 per rank: SGLang gives each rank max_running_requests // dp_size = 32 / 8.
    CHECK_THAT(res.rows[0].launch,
               Catch::Contains(" --tp 8 --context-length 65536 --max-running-requests 32 "));
    CHECK_THAT(res.rows[0].launch, Catch::Contains(" --dp 8 --enable-dp-attention --ep-size 8"));
    r.dp_attention = {3};  // divides none of the tp sizes asked for: said, not silently dropped
    CHECK_THROWS_WITH(fit(r), "dp_attention: 3 divides no tp searched (8): attention tp = tp / dp-attention");
  }
  SECTION("vLLM: the issue's example offers 8 x H200 with DP attention first when pp is held at 1") {
    // No 8-GPU layout without DP attention holds 32 users: each GPU keeps every user's latent, 32 x seq =
    // 147,371,065,344 B in bf16 (73,685,532,672 B in fp8) beside 84,109,970,304 B of weights, past
    // 150,754,820,096 B; fewer GPUs cannot hold the experts (653,908,770,816 / 4 B per GPU).
    FitRequest r = deepseek_job(Engine::vllm);
    r.kv_dtypes.clear();  // bf16 and fp8_e4m3
    const FitResult res = fit(r);
    REQUIRE(!res.rows.empty());
    CHECK(res.rows[0].plan.gpus == 8);
    CHECK(res.rows[0].plan.inputs.deployment.dp_attention > 1);
    CHECK_THAT(res.rows[0].launch, Catch::Contains("--enable-expert-parallel"));
    CHECK_THAT(res.rows[0].launch, Catch::Contains("--kv-cache-memory-bytes"));
  }
  SECTION("llama.cpp has neither: said in one line") {
    FitRequest r = deepseek_job(Engine::llamacpp);
    r.kv_dtypes.clear();
    r.max_gpus = 8;
    const FitResult res = fit(r);
    CHECK(std::count(res.refused.begin(), res.refused.end(),
                     "DP attention and expert parallel: llama.cpp has neither (its GPUs split layers, -sm "
                     "layer)") == 1);
    r.dp_attention = {2};
    CHECK_THROWS_WITH(fit(r),
                      Catch::StartsWith("dp_attention: fit searches DP attention under `engine` ideal"));
  }
  SECTION("a dense model: no DP attention searched, none noted; asked for, refused") {
    FitRequest r = readme_job(DType::bf16);
    r.search_dp_attention = true;
    const FitResult res = fit(r);
    CHECK(res.searched.find("DP attention") == std::string::npos);
    for (const auto& row : res.rows) CHECK(row.plan.inputs.deployment.dp_attention == 1);
    r.dp_attention = {2};
    CHECK_THROWS_WITH(fit(r), Catch::StartsWith("dp_attention: needs a mixture-of-experts model"));
  }
}

TEST_CASE("fit: tp stays within a node (gpus_per_node)", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  r.max_gpus = 64;
  r.tp = {16};
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("tp: 16 is more than `gpus_per_node` 8"));
  r.gpus_per_node = 16;
  const FitResult wide = fit(r);
  REQUIRE(!wide.rows.empty());
  CHECK(wide.rows[0].plan.inputs.deployment.parallel.tp == 16);
  r.tp.clear();
  r.gpus_per_node = 4;
  const FitResult four = fit(r);
  // Llama-3.1-70B at tp 4: 15 of 16 users per replica (the README's figures above): 2 replicas.
  REQUIRE(!four.rows.empty());
  for (const auto& row : four.rows) CHECK(row.plan.inputs.deployment.parallel.tp <= 4);
  CHECK(four.rows[0].plan.inputs.deployment.parallel == Parallelism{4, 1, 2});
  CHECK(four.searched.rfind("tp 1, 2, 4 (within a node of 4 GPUs), pp 1, replicas", 0) == 0);
  r.gpus_per_node = 0;
  CHECK_THROWS_WITH(fit(r), Catch::StartsWith("gpus_per_node: must be positive"));
}

TEST_CASE("fit: a Hub repo's launch line names the repo and its revision, not the source's words", "[fit]") {
  FitRequest r = readme_job(DType::bf16);
  // As presets::load_hf_repo words a repo read from the cache (before: "vllm serve org/llama@main from the
  // Hugging Face cache, commit ... --tensor-parallel-size 8").
  r.model.source =
      "org/llama@main from the Hugging Face cache, commit 0123456789abcdef0123456789abcdef01234567";
  CHECK_THAT(fit(r).rows.at(0).launch, Catch::StartsWith("vllm serve org/llama --tensor-parallel-size 8 "));
  r.model.source = "org/llama@v2 from the Hugging Face Hub https://huggingface.co, now cached";
  CHECK_THAT(fit(r).rows.at(0).launch,
             Catch::StartsWith("vllm serve org/llama --revision v2 --tensor-parallel-size 8 "));
  r.engine.engine = Engine::sglang;
  CHECK_THAT(
      fit(r).rows.at(0).launch,
      Catch::StartsWith("python -m sglang.launch_server --model-path org/llama --revision v2 --tp 8 "));
}

// The weight search (FitRequest::search_weight_dtypes). Llama-3.1-70B quantised to fp8 at load, as vLLM's
// Fp8Config does it: q, k, v, o, gate, up and down of 80 layers at 1 B, 80 x (2 x 8,192^2 + 2 x 8,192 x 1,024
// + 3 x 8,192 x 28,672) = 68,451,041,280 B, one fp32 scale each, 7 x 80 x 4 = 2,240 B; the embeddings, LM
// head and norms stay bf16: (2 x 128,256 x 8,192 + 161 x 8,192) x 2 B = 4,205,330,432 B. 72,656,373,952 B.
TEST_CASE("fit: weights quantised at load are searched beside the model as given", "[fit][weights]") {
  FitRequest r = readme_job(DType::fp8_e4m3);
  r.search_weight_dtypes = true;  // under ideal (vLLM's lines) on H100s: fp8_e4m3 by default
  const FitResult res = fit(r);
  CHECK(res.searched.find("weights as given, fp8_e4m3 (quantised at load)") != std::string::npos);
  REQUIRE(res.rows.size() >= 3);
  // On 4 GPUs the model as given comes first (free 19,143,297,433 B, the case above), then fp8 weights by
  // free memory. tp 4: 72,656,373,952 / 4 = 18,164,093,488 B of weights; available 76,968,728,985 -
  // 18,164,093,488 - 1,073,741,824 = 57,730,893,673 B; KV 21,474,836,480 B (above); free 36,256,057,193 B.
  // tp 2: 36,328,186,976 B of weights, available 39,566,800,185 B, a user 32,768 x 80 x 2 x 4 x 128 x 1 B =
  // 2,684,354,560 B: 14 users, so 2 replicas of 8, free 39,566,800,185 - 8 x 2,684,354,560 = 18,091,963,705
  // B.
  const FitRow& given = res.rows[0];
  CHECK_FALSE(given.weight_dtype.has_value());
  CHECK(given.plan.inputs.deployment.parallel == Parallelism{4, 1, 1});
  CHECK(given.plan.per_gpu.free_bytes == Bytes{19'143'297'433});
  CHECK(given.launch.find("--quantization") == std::string::npos);
  const FitRow& tp4 = res.rows[1];
  REQUIRE(tp4.weight_dtype == DType::fp8_e4m3);
  CHECK(tp4.plan.inputs.deployment.parallel == Parallelism{4, 1, 1});
  CHECK(model_weight_bytes(tp4.plan.inputs.model) == Bytes{72'656'373'952});
  CHECK(tp4.plan.per_gpu.weights_bytes == Bytes{18'164'093'488});
  CHECK(tp4.plan.per_gpu.free_bytes == Bytes{36'256'057'193});
  CHECK(tp4.launch ==
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --pipeline-parallel-size 1 "
        "--max-model-len 32768 --max-num-seqs 16 --kv-cache-dtype fp8_e4m3 --gpu-memory-utilization 0.90 "
        "--quantization fp8");
  const FitRow& tp2 = res.rows[2];
  REQUIRE(tp2.weight_dtype == DType::fp8_e4m3);
  CHECK(tp2.plan.inputs.deployment.parallel == Parallelism{2, 1, 2});
  CHECK(tp2.plan.per_gpu.free_bytes == Bytes{18'091'963'705});
  // Off (the default for front ends whose rows lack the weight type): the model as given only.
  r.search_weight_dtypes = false;
  for (const FitRow& row : fit(r).rows) CHECK_FALSE(row.weight_dtype.has_value());
}

TEST_CASE("fit: weight types tried by default, and those asked for", "[fit][weights]") {
  const ModelSpec llama = presets::find_model("llama-3.1-8b");
  const Gpu h100 = presets::find_gpu("h100-sxm"), a100 = presets::find_gpu("a100-80gb");
  const auto on = [](Engine e, std::string release = "") {
    EngineOptions o;
    o.engine = e;
    o.release = std::move(release);
    return o;
  };
  CHECK(default_weight_dtypes(llama, h100, on(Engine::vllm)) == std::vector<DType>{DType::fp8_e4m3});
  CHECK(default_weight_dtypes(llama, h100, on(Engine::ideal)) == std::vector<DType>{DType::fp8_e4m3});
  CHECK(default_weight_dtypes(llama, a100, on(Engine::vllm)).empty());    // no fp8 tensor cores
  CHECK(default_weight_dtypes(llama, h100, on(Engine::sglang)).empty());  // loads at bf16 first
  CHECK(default_weight_dtypes(llama, h100, on(Engine::trtllm)).empty());
  CHECK(default_weight_dtypes(llama, h100, on(Engine::llamacpp)).empty());
  // vLLM quantises each weight as it loads from 0.16 (PR #31914, merged after 0.15.0); 0.15.1 loads the
  // checkpoint whole first, as SGLang does.
  CHECK(default_weight_dtypes(llama, h100, on(Engine::vllm, "0.15.1")).empty());
  CHECK(default_weight_dtypes(llama, h100, on(Engine::vllm, "0.16.0")) ==
        std::vector<DType>{DType::fp8_e4m3});
  EngineOptions v0 = on(Engine::vllm);
  v0.version = "v0";
  CHECK(default_weight_dtypes(llama, h100, v0).empty());
  // A checkpoint quantised already (gpt-oss's MXFP4 experts, DeepSeek-V3's fp8 blocks) is not requantised.
  CHECK(default_weight_dtypes(presets::find_model("gpt-oss-20b"), h100, on(Engine::vllm)).empty());
  CHECK(default_weight_dtypes(presets::find_model("deepseek-v3"), h100, on(Engine::vllm)).empty());

  // Asked for under TensorRT-LLM, which quantises nothing at load: int4 is a checkpoint quantised so, and
  // its line says so. Llama-3.1-8B at int4: 8,030,261,248 parameters x 0.5 B = 4,015,130,624 B.
  FitRequest r;
  r.model = llama;
  r.context = Tokens{8192};
  r.gpus = {h100};
  r.tp = {1};
  r.pp = {1};
  r.kv_dtypes = {both(DType::bf16)};
  r.engine.engine = Engine::trtllm;
  r.search_weight_dtypes = true;
  r.weight_dtypes = {DType::int4, DType::bf16};  // bf16 is the model's own: tried once, as given
  const FitResult res = fit(r);
  CHECK(res.searched.find("weights as given, int4 (a checkpoint so)") != std::string::npos);
  REQUIRE(res.rows.size() == 2);
  CHECK_FALSE(res.rows[0].weight_dtype.has_value());
  REQUIRE(res.rows[1].weight_dtype == DType::int4);
  CHECK(res.rows[1].plan.per_gpu.weights_bytes == Bytes{4'015'130'624});
  CHECK(res.rows[1].launch.find("weights as int4: give a checkpoint quantised so") != std::string::npos);
}

// vLLM and SGLang refuse a --quantization other than a quantised checkpoint's own method
// (vllm/config/model.py _verify_quantization): gpt-oss's MXFP4 experts are not requantised at load, so fp8
// asked for is a checkpoint quantised so, and its line says to give one. DeepSeek-V3's checkpoint is fp8
// already: asked for fp8, it stays as it is (128 x 128 block scales, not per tensor).
TEST_CASE("fit: only an unquantised checkpoint is quantised at load", "[fit][weights]") {
  FitRequest r;
  r.model = presets::find_model("gpt-oss-20b");
  r.context = Tokens{8192};
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.tp = {1};
  r.pp = {1};
  r.kv_dtypes = {both(DType::bf16)};
  r.engine.engine = Engine::vllm;
  r.search_weight_dtypes = true;
  r.weight_dtypes = {DType::fp8_e4m3};
  const FitResult res = fit(r);
  CHECK(res.searched.find("fp8_e4m3 (a checkpoint so)") != std::string::npos);
  bool fp8_row = false;
  for (const FitRow& row : res.rows)
    if (row.weight_dtype) {
      fp8_row = true;
      CHECK_FALSE(row.plan.inputs.model.quant.at_load);
      CHECK(row.launch.find("--quantization") == std::string::npos);
      CHECK(row.launch.find("weights as fp8_e4m3: give a checkpoint quantised so") != std::string::npos);
    }
  CHECK(fp8_row);
  const ModelSpec ds = presets::find_model("deepseek-v3");
  ModelSpec kept = ds;
  apply_weight_dtype(kept, DType::fp8_e4m3, Engine::vllm);
  CHECK(model_weight_bytes(kept) == model_weight_bytes(ds));
  CHECK(kept.quant == ds.quant);
  // llama.cpp has no fp8 or int4 weights in a GGUF: refused, naming the input.
  ModelSpec llama = presets::find_model("llama-3.1-8b");
  try {
    apply_weight_dtype(llama, DType::int4, Engine::llamacpp);
    FAIL("int4 weights under llama.cpp were accepted");
  } catch (const Error& e) {
    CHECK(e.field() == "weight_dtype");
  }
}

// SGLang quantises to fp8 once the whole checkpoint is loaded (sgl-project/sglang #2895): Llama-3.1-70B's
// 141,107,412,992 B of bf16 weights pass one H100 SXM's 85,520,809,984 B, so tp 1 is refused with fp8 weights
// (72,656,373,952 B would fit); at tp 2 the checkpoint's 70,553,706,496 B a GPU load, and the row is offered.
// vLLM before 0.16 (PR #31914 came after 0.15.0) does the same: 0.15.1 gets SGLang's rows and refusal.
TEST_CASE("fit: SGLang's fp8 at load needs the checkpoint to fit first", "[fit][weights]") {
  const bool vllm_015 = GENERATE(false, true);
  INFO(vllm_015);
  FitRequest r;
  r.model = presets::find_model("llama-3.1-70b");
  r.context = Tokens{4096};
  r.gpus = {presets::find_gpu("h100-sxm")};
  r.tp = {1, 2};
  r.pp = {1};
  r.kv_dtypes = {both(DType::fp8_e4m3)};
  r.engine.engine = vllm_015 ? Engine::vllm : Engine::sglang;
  if (vllm_015) r.engine.release = "0.15.1";
  r.search_weight_dtypes = true;
  r.weight_dtypes = {DType::fp8_e4m3};
  const FitResult res = fit(r);
  bool tp2 = false;
  for (const FitRow& row : res.rows) {
    if (!row.weight_dtype) continue;
    CHECK(row.plan.inputs.deployment.parallel.tp == 2);
    tp2 = tp2 || row.plan.inputs.deployment.parallel.tp == 2;
    CHECK(row.launch.find("--quantization fp8") != std::string::npos);
  }
  CHECK(tp2);
  const std::string why = vllm_015 ? "vLLM before 0.16 quantises to fp8 once the whole checkpoint is loaded"
                                   : "SGLang quantises to fp8 once the whole checkpoint is loaded";
  CHECK(std::any_of(res.refused.begin(), res.refused.end(),
                    [&](const std::string& s) { return s.find(why) != std::string::npos; }));
  // The rows' comment says the checkpoint must fit first.
  for (const FitRow& row : res.rows)
    if (row.weight_dtype)
      CHECK(
          row.launch.find("loads the checkpoint at its own precision before quantising: it must fit first") !=
          std::string::npos);
}

// size with fp8 weights quantised at load: vLLM before 0.16 loads the checkpoint whole first (PR #31914,
// which streams the quantisation, came after 0.15.0), so 0.15.1 warns that the GPUs must hold it; 0.16.0 does
// not.
TEST_CASE("plan: vLLM before 0.16 warns that the checkpoint must fit before fp8 at load", "[plan][weights]") {
  for (const std::string release : {"0.15.1", "0.16.0"}) {
    INFO(release);
    PlanInputs in;
    in.model = presets::find_model("llama-3.1-8b");
    apply_weight_dtype(in.model, DType::fp8_e4m3, Engine::vllm);
    REQUIRE(in.model.quant.at_load);
    in.engine.engine = Engine::vllm;
    in.engine.release = release;
    in.context = Tokens{8192};
    const Plan p = make_plan(in);
    const bool warned = std::any_of(p.warnings.begin(), p.warnings.end(), [](const std::string& w) {
      return w.find("vLLM before 0.16 quantises to fp8 once the whole checkpoint is loaded") !=
             std::string::npos;
    });
    CHECK(warned == (release == "0.15.1"));
  }
}

namespace {
/// Llama 3.1 8B under vLLM on H100s: `users` of `context` tokens.
FitRequest llama8b_vllm_h100(std::uint64_t context, std::uint64_t users) {
  FitRequest r;
  r.model = presets::find_model("llama-3.1-8b");
  r.context = Tokens{context};
  r.users = users;
  r.engine.engine = Engine::vllm;
  r.gpus = {presets::find_gpu("h100-sxm")};
  return r;
}
}  // namespace

TEST_CASE("fit: vLLM's --max-num-seqs once, each replica's share of the users", "[fit]") {
  // 3,000 users of 1,024 tokens on H100s under vLLM: past `vllm serve`'s default of 1,024 sequences the line
  // raises --max-num-seqs. It was printed twice (layout_line, then the engine options), which kvplan's own
  // --from-launch refused, and under --data-parallel-size N each rank got the 3,000 of all of them.
  const FitResult res = fit(llama8b_vllm_h100(1024, 3000));
  REQUIRE(!res.rows.empty());
  bool replicated = false;
  for (const auto& row : res.rows) {
    CAPTURE(row.launch);
    const std::string& l = row.launch;
    std::size_t times = 0;
    for (std::size_t at = l.find("--max-num-seqs "); at != std::string::npos;
         at = l.find("--max-num-seqs ", at + 1))
      ++times;
    CHECK(times == 1);
    const std::uint64_t dp = row.plan.inputs.deployment.parallel.dp;
    // Each replica's scheduler runs its share: 3,000 / dp, rounded up.
    CHECK_THAT(l, Catch::Contains("--max-num-seqs " + std::to_string((3000 + dp - 1) / dp) + " "));
    replicated = replicated || dp > 1;
  }
  CHECK(replicated);  // the search has a row of replicas to check
}

TEST_CASE("fit: weights given as a size search no weight dtype", "[fit]") {
  // The size is the bytes whatever the dtype (size refuses a weight dtype beside it): fp8 rows kept the
  // same 48 GiB under another label and added --quantization fp8 to their line.
  FitRequest r = llama8b_vllm_h100(8192, 10);
  r.search_weight_dtypes = true;  // as `kvplan fit` asks without --weight-dtype
  const FitResult searched = fit(r);
  CHECK_THAT(searched.searched, Catch::Contains("weights as given"));  // without a size: dtypes searched
  r.deployment.weights = Bytes{48ULL << 30};
  const FitResult res = fit(r);
  REQUIRE(!res.rows.empty());
  CHECK_THAT(res.searched, !Catch::Contains("weights as given"));
  for (const auto& row : res.rows) {
    CAPTURE(row.launch);
    CHECK_THAT(row.launch, !Catch::Contains("--quantization"));
    CHECK(row.plan.weights_bytes == Bytes{48ULL << 30});
  }
}
