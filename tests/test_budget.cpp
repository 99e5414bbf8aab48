// The engines' memory budgets (budget.hpp) against real start-ups: the nine vLLM 0.19.0 runs on H100 80GB
// HBM3 of ../shared/cases/engine-budget.json (llm-d-incubation/llm-d-planner PR #205,
// accuracy/results/v0.19.0/logs), each planned from what the user typed: model, GPU, tp, pp, utilisation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "kvplan/budget.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/units.hpp"

using namespace kvplan;

namespace {
constexpr double kGiB = 1073741824.0;

PlanInputs vllm_inputs(const char* model, std::uint64_t tp, std::uint64_t pp, double util) {
  PlanInputs in;
  in.model = presets::find_model(model);
  in.context = Tokens{8192};
  in.deployment.parallel.tp = tp;
  in.deployment.parallel.pp = pp;
  in.deployment.gpu_memory_utilization = util;
  in.gpu = presets::find_gpu("h100-sxm");
  in.engine.engine = Engine::vllm;
  return in;
}

/// One start-up: what the user typed and what vLLM logged (GiB, two decimals, as printed).
struct Run {
  const char* model;
  std::uint64_t tp, pp;
  double util;
  double weights, activation, non_torch, kv;  // logged
  std::uint64_t kv_cache_tokens;              // logged "GPU KV cache size"
};

// engine-budget.json, every case (max_model_len 8192, max_num_seqs 1024, max_num_batched_tokens 8192).
const Run kRuns[] = {
    {"deepseek-v2-lite", 1, 1, 0.95, 29.43, 1.93, 0.26, 43.61, 1505552},
    {"gemma-3-27b", 1, 1, 0.95, 51.45, 3.99, 0.26, 19.53, 36560},
    {"llama-3.1-8b", 1, 1, 0.95, 14.99, 1.89, 0.25, 58.11, 476016},
    {"llama-3.1-8b", 1, 2, 0.95, 7.51, 1.10, 0.07, 66.54, 1075312},
    {"llama-3.1-8b", 2, 1, 0.95, 7.51, 1.89, 2.07, 63.76, 1044688},
    {"gpt-oss-20b", 2, 1, 0.90, 7.01, 2.87, 2.07, 59.32, 2591776},
    {"qwen2.5-72b", 2, 1, 0.95, 67.80, 2.29, 2.09, 3.04, 19920},
    {"qwen2.5-7b", 1, 1, 0.95, 14.25, 2.21, 0.24, 58.53, 1096000},
    {"qwen2.5-7b", 4, 1, 0.95, 3.55, 2.21, 2.13, 67.34, 5043280},
};
}  // namespace

TEST_CASE("vLLM budget: Llama-3.1-8B on one H100, component by component", "[budget][vllm]") {
  const Plan p = make_plan(vllm_inputs("llama-3.1-8b", 1, 1, 0.95));
  const MemoryBudget& b = p.budget;
  REQUIRE(b.modelled);
  CHECK(b.runtime_total);
  // torch's total 81,090 MiB, x 0.95 floored as usable_memory does: the double nearest 0.95 is
  // 0.94999999999999995559, so 85,029,027,840 x it = 80,777,576,447.9999962 -> 80,777,576,447.
  CHECK(b.total.value == 85029027840ULL);
  CHECK(b.requested.value == 80777576447ULL);
  // H100 (>= 70 GiB, not an A100): vllm serve's defaults 1,024 sequences, 8,192 batched tokens.
  CHECK(b.max_num_seqs == 1024);
  CHECK(b.max_num_batched_tokens == 8192);
  // Sampler: 14 B x 1,024 x 128,256 = 1,838,678,016; hidden states held 8,192 x 4,096 x 2 = 67,108,864;
  // base 134,217,728: 2,040,004,608 B. The forward pass (8,192 x (3 x 14,336 + 4 x 4,096) x 2 =
  // 973,078,528) is smaller; no experts.
  CHECK(b.activation.value == 2040004608ULL);
  CHECK(b.non_torch.value == 268435456ULL);  // one GPU
  CHECK(b.cuda_graphs.value == 0);           // 0.19 prints its estimate only
  CHECK(b.weights == p.per_gpu.weights_bytes);
  CHECK(b.kv.value == b.requested.value - b.weights.value - b.activation.value - b.non_torch.value);
  // The plan's per-GPU figures are the budget's.
  CHECK(p.per_gpu.usable_bytes == b.requested);
  CHECK(p.per_gpu.reserve_bytes == b.activation + b.non_torch);
  CHECK(p.per_gpu.available_kv_bytes == b.kv);
  REQUIRE(b.lines.size() == 5);
  CHECK(b.lines[0] == "total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.95) = 75.23GiB");
}

TEST_CASE("vLLM budget: every 0.19.0 start-up within 0.5 GiB of the logged KV memory", "[budget][vllm]") {
  for (const Run& r : kRuns) {
    INFO(r.model << " tp " << r.tp << " pp " << r.pp);
    const Plan p = make_plan(vllm_inputs(r.model, r.tp, r.pp, r.util));
    const MemoryBudget& b = p.budget;
    // vLLM logs rank 0's figure; with pp every stage then takes the smallest stage's pool.
    const double predicted = static_cast<double>(b.first_stage_kv.value) / kGiB;
    CHECK(std::abs(predicted - r.kv) <= 0.5);
    CHECK(std::abs(static_cast<double>(b.non_torch.value) / kGiB - r.non_torch) <= 0.1);
    // The tokens follow from the pool: within the pool's error (0.5 GiB of KV) of the logged count.
    REQUIRE(p.engine.kv_cache_tokens.has_value());
    const double tokens = static_cast<double>(*p.engine.kv_cache_tokens);
    const double per_token = static_cast<double>(b.kv.value) / tokens;  // bytes per token on the GPU
    CHECK(std::abs(tokens - static_cast<double>(r.kv_cache_tokens)) * per_token <= 0.5 * kGiB);
  }
}

TEST_CASE("vLLM budget: the old flat guess over-predicted every run", "[budget][vllm]") {
  // nvidia-smi's 79.65 GiB x utilisation - weights - 1 GiB: the pool kvplan promised before. Each run's
  // error shrinks under the modelled budget (the 1.6 to 7.7 GiB over 33 runs).
  for (const Run& r : kRuns) {
    if (r.pp > 1) continue;
    INFO(r.model << " tp " << r.tp);
    PlanInputs in = vllm_inputs(r.model, r.tp, r.pp, r.util);
    const Plan modelled = make_plan(in);
    in.deployment.reserve = kDefaultReserve;
    const Plan flat = make_plan(in);
    CHECK_FALSE(flat.budget.modelled);
    const double flat_error =
        std::abs(static_cast<double>(flat.per_gpu.available_kv_bytes.value) / kGiB - r.kv);
    const double error =
        std::abs(static_cast<double>(modelled.per_gpu.available_kv_bytes.value) / kGiB - r.kv);
    CHECK(error < flat_error);
  }
}

TEST_CASE("vLLM budget: defaults by GPU, --max-num-seqs, overrides", "[budget][vllm]") {
  // vllm/engine/arg_utils.py get_batch_defaults: >= 70 GiB and not "a100" -> 1,024 / 8,192, else 256 / 2,048.
  CHECK(vllm_default_max_num_seqs(Bytes{85029027840ULL}, "h100-sxm NVIDIA H100 SXM5 80GB") == 1024);
  CHECK(vllm_default_max_num_seqs(Bytes{85899345920ULL}, "a100-80gb NVIDIA A100 80GB") == 256);
  CHECK(vllm_default_max_num_seqs(Bytes{48305799168ULL}, "l40s") == 256);
  CHECK(vllm_default_max_num_batched_tokens(Bytes{85029027840ULL}, "h100-sxm") == 8192);
  CHECK(vllm_default_max_num_batched_tokens(Bytes{85899345920ULL}, "A100-SXM4-80GB") == 2048);

  PlanInputs in = vllm_inputs("llama-3.1-8b", 1, 1, 0.95);
  in.engine.max_num_seqs = 512;
  const Plan fewer = make_plan(in);
  // 512 fewer sequences x 128,256 entries x 14 B = 919,339,008 B less activation.
  const Plan base = make_plan(vllm_inputs("llama-3.1-8b", 1, 1, 0.95));
  CHECK(base.budget.activation.value - fewer.budget.activation.value == 919339008ULL);
  CHECK(fewer.budget.kv.value - base.budget.kv.value == 919339008ULL);
  // At 256 sequences the sampler (459,669,504 + 201,326,592 B) falls below the forward pass of 8,192
  // tokens, 8,192 x (3 x 14,336 + 4 x 4,096) x 2 = 973,078,528 B, which then sets the peak.
  in.engine.max_num_seqs = 256;
  CHECK(make_plan(in).budget.activation.value == 973078528ULL);

  // --overhead replaces the modelled components; --kv-memory replaces the whole budget.
  in = vllm_inputs("llama-3.1-8b", 1, 1, 0.95);
  in.deployment.reserve = Bytes{3ULL << 30};
  const Plan given = make_plan(in);
  CHECK_FALSE(given.budget.modelled);
  CHECK(given.per_gpu.reserve_bytes.value == 3ULL << 30);
  // The flat budget stays on nvidia-smi's size (85,520,809,984 x 0.95, floored).
  CHECK(given.per_gpu.usable_bytes.value == 81244769484ULL);

  // SGLang's, TensorRT-LLM's and llama.cpp's budgets are modelled too (below; test_budget_llamacpp.cpp).
  // llama.cpp's reserve is its compute buffer: 8,192 cells, n_ubatch 512, flash attention, one output (one
  // llama-server slot): the FFN phase, the f16 mask 8192 x 512 x 2 = 8 MiB + (3 x 14336 + 4 x 4096) x 512 x 4
  // = 116 MiB, and 4 KiB of token ids and positions (the logits, 128256 x 4 B, are small).
  in = vllm_inputs("llama-3.1-8b", 1, 1, 0.95);
  in.engine.engine = Engine::llamacpp;
  const Plan llamacpp = make_plan(in);
  CHECK(llamacpp.budget.modelled);
  CHECK(llamacpp.per_gpu.reserve_bytes.value == (124ULL << 20) + 4096);
}

TEST_CASE("vLLM budget: a model that leaves no room is refused by the budget", "[budget][vllm]") {
  // Qwen2.5-72B at tp 2, utilisation 0.9: 71.27 GiB requested, 67.8 GiB of weights, 2.3 GiB activation,
  // 2.1 GiB non-torch: nothing is left.
  const Plan p = make_plan(vllm_inputs("qwen2.5-72b", 2, 1, 0.90));
  CHECK_FALSE(p.budget.fits_weights);
  CHECK(p.limit.kind == Limit::Kind::weights);
  CHECK_FALSE(p.fits);
}

TEST_CASE("vLLM release numbers map to the rule sets", "[budget][vllm]") {
  CHECK(vllm_rules_for_release("0.19.0") == "v1");
  CHECK(vllm_rules_for_release("0.11.2") == "v1");
  CHECK(vllm_rules_for_release("0.20") == "0.20");
  CHECK(vllm_rules_for_release("0.20.1") == "0.20");
  CHECK(vllm_rules_for_release("0.21.0") == "0.21");
  CHECK(vllm_rules_for_release("0.25.1") == "0.21");
  CHECK(vllm_rules_for_release("0.26.0") == "0.26");
  // The releases after 0.26 seen in start-up logs ("Initializing a V1 LLM engine (vX)"): 0.27.1, 0.28.0,
  // 0.29.0, 0.30.0, 0.31.0 keep 0.26's rule set (their budget row is their own: below).
  for (const char* later : {"0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.31"})
    CHECK(vllm_rules_for_release(later) == "0.26");
  CHECK(vllm_rules_for_release("v0") == "v0");
  // A release past the newest seen (0.31) is refused, naming the known range.
  for (const char* bad :
       {"0.10.2", "0.32.0", "0.40.0", "1.0.0", "0.19.x", "0.", "", "0.19.0.1", "latest", "0.019", "0.19.01"})
    CHECK_THROWS_WITH(vllm_rules_for_release(bad), Catch::Contains("releases 0.11 to 0.31"));
}

TEST_CASE("vLLM V0: the flat reserve stands in for its budget, and a warning says so", "[budget][vllm]") {
  PlanInputs in = vllm_inputs("llama-3.1-8b", 1, 1, 0.9);
  in.engine.version = "v0";
  const Plan p = make_plan(in);
  CHECK_FALSE(p.budget.modelled);
  CHECK(p.per_gpu.reserve_bytes == Bytes{1ULL << 30});  // kvplan's flat reserve, 1 GiB
  CHECK(std::count(p.warnings.begin(), p.warnings.end(),
                   "vLLM V0's memory budget (its profile run's activation peak, non-torch memory) is not "
                   "modelled: the flat reserve of 1.00 GiB per GPU stands in for it; give a measured reserve "
                   "for a tight plan") == 1);
  // A reserve given is the user's measure: no warning.
  in.deployment.reserve = Bytes{3ULL << 30};
  const Plan given = make_plan(in);
  CHECK(std::none_of(given.warnings.begin(), given.warnings.end(),
                     [](const std::string& w) { return w.starts_with("vLLM V0's memory budget"); }));
}

TEST_CASE("vLLM budget: CUDA graphs subtracted from 0.20 on", "[budget][vllm]") {
  // PR #38284 is in the released 0.20.0: its official images log "CUDA graph memory profiling is enabled
  // (default since v0.21.0)" with an equivalent utilisation below the one set (docs/engines/vllm-budget.md).
  PlanInputs in = vllm_inputs("llama-3.1-8b", 1, 1, 0.95);
  const Plan v019 = make_plan(in);
  in.engine.version = "0.20";
  const Plan v020 = make_plan(in);
  in.engine.version = "0.21";
  const Plan v021 = make_plan(in);
  CHECK(v019.budget.cuda_graphs.value == 0);
  CHECK(v020.budget.cuda_graphs.value == 1ULL << 30);
  CHECK(v021.budget.cuda_graphs.value == 1ULL << 30);
  CHECK(v019.budget.kv.value - v020.budget.kv.value == 1ULL << 30);
  CHECK(v019.budget.kv.value - v021.budget.kv.value == 1ULL << 30);
}

namespace {
/// A start-up of another release (tests/data/vllm-logs.json, each entry's id and URL): what the user typed
/// and what vLLM logged (GiB, two decimals as printed; activation and non-torch negative where not logged).
struct ReleaseRun {
  const char* id;
  const char* release;
  const char* model;
  std::uint64_t tp;
  double util;
  std::uint64_t max_num_seqs, max_num_batched_tokens;  // 0: vllm serve's default for the GPU
  double activation, non_torch, kv;                    // logged
};

// The 0.11.0 runs: llm-d/llm-d-benchmark config_explorer/empirical-vllm-memory-results.md (H100, vllm serve
// image v0.11.0, 0.9, max_model_len 16,000, block size 128). The Qwen3-14B runs:
// llm-d-incubation/llm-d-planner accuracy/accuracy_report.md, Part 2 (H100 80GB HBM3, vllm serve, 0.95,
// max_model_len 8192). The A100 run: ilseokoh/vllm-gce README.md, vLLM 0.15.1's LLM class with its defaults
// on an A100 40GB (0.9; max_num_batched_tokens 8,192 as logged, max_num_seqs 256: the LLM class's default
// below 70 GiB or on an A100, vllm/engine/arg_utils.py get_batch_defaults).
const ReleaseRun kReleaseRuns[] = {
    {"llama-3.1-8b-v0.11.0", "0.11.0", "llama-3.1-8b", 1, 0.90, 0, 0, 4.76, 0.13, 51.38},
    {"qwen3-32b-v0.11.0", "0.11.0", "qwen3-32b", 1, 0.90, 0, 0, 5.64, 0.14, 4.45},
    {"qwen3-32b-tp2-v0.11.0", "0.11.0", "qwen3-32b", 2, 0.90, 0, 0, 5.64, 0.54, 34.49},
    {"gpt-oss-20b-v0.11.0", "0.11.0", "gpt-oss-20b", 1, 0.90, 0, 0, 7.38, 0.13, 50.28},
    {"qwen3-14b-v0.15.0", "0.15.0", "qwen3-14b", 1, 0.95, 0, 0, 5.64, 0.13, 41.94},
    {"qwen3-14b-v0.16.0", "0.16.0", "qwen3-14b", 1, 0.95, 0, 0, 5.64, 0.13, 41.94},
    {"llama-3.1-8b-v0.15.1-a100-40gb", "0.15.1", "llama-3.1-8b", 1, 0.90, 256, 8192, -1, -1, 19.28},
    {"qwen3-14b-v0.17.0", "0.17.0", "qwen3-14b", 1, 0.95, 0, 0, 2.23, 0.13, 45.34},
    {"qwen3-14b-v0.18.0", "0.18.0", "qwen3-14b", 1, 0.95, 0, 0, 2.23, 0.25, 45.23},
};

PlanInputs release_inputs(const ReleaseRun& r) {
  PlanInputs in = vllm_inputs(r.model, r.tp, 1, r.util);
  if (std::string_view(r.release) == "0.11.0") in.context = Tokens{16000};
  in.engine.release = r.release;
  in.engine.version = vllm_rules_for_release(r.release);
  in.engine.max_num_seqs = r.max_num_seqs;
  in.engine.max_num_batched_tokens = r.max_num_batched_tokens;
  if (std::string_view(r.id).find("a100") != std::string_view::npos) {
    in.gpu = presets::find_gpu("a100-40gb");
    // The preset's runtime total is CUDA's total_memory of an A100-SXM4-40GB, 40,536 MiB
    // ("_gpuDeviceProperties(name='A100-SXM4-40GB', major=8, minor=0, total_memory=40536MB", PaddlePaddle's
    // get_device_properties docstring), not nvidia-smi's 40,960 MiB.
    REQUIRE(in.gpu->runtime_memory.has_value());
    REQUIRE(in.gpu->runtime_memory->value == 40536ULL << 20);
    in.context = Tokens{131072};
  }
  return in;
}
}  // namespace

TEST_CASE("vLLM budget: start-ups of 0.11 to 0.18 within 0.5 GiB of the logged KV memory", "[budget][vllm]") {
  for (const ReleaseRun& r : kReleaseRuns) {
    INFO(r.id);
    const Plan p = make_plan(release_inputs(r));
    const MemoryBudget& b = p.budget;
    REQUIRE(b.modelled);
    CHECK(std::abs(static_cast<double>(b.kv.value) / kGiB - r.kv) <= 0.5);
    if (r.activation >= 0)
      CHECK(std::abs(static_cast<double>(b.activation.value) / kGiB - r.activation) <= 0.1);
    if (r.non_torch >= 0)
      CHECK(std::abs(static_cast<double>(b.non_torch.value) / kGiB - r.non_torch) <= 0.05);
  }
  // The A100 run's tokens: 157,936 logged ("GPU KV cache size"), within the pool's error of the predicted.
  const Plan a100 = make_plan(release_inputs(kReleaseRuns[6]));
  REQUIRE(a100.engine.kv_cache_tokens.has_value());
  const double per_token =
      static_cast<double>(a100.budget.kv.value) / static_cast<double>(*a100.engine.kv_cache_tokens);
  CHECK(std::abs(static_cast<double>(*a100.engine.kv_cache_tokens) - 157936.0) * per_token <= 0.5 * kGiB);
}

TEST_CASE("vLLM budget: the rules by release", "[budget][vllm]") {
  EngineOptions o;
  o.engine = Engine::vllm;
  // No release typed: the rule set's row (the default v1 is calibrated on 0.19.0).
  CHECK(vllm_budget_release(o).first_minor == 18);
  o.version = "0.26";
  CHECK(vllm_budget_release(o).subtracts_cuda_graphs);
  o.version = "v1";
  for (const char* r : {"0.11.0", "0.12.0", "0.14.1", "0.16.0"}) {
    o.release = r;
    INFO(r);
    // Up to 0.16 the sampler's top-k/top-p sorts the vocabulary: Qwen3-14B's 5.64 GiB at 1,024 x 151,936
    // logits, less 8,192 x 5,120 x 2 B of hidden states and the 128 MiB base, is 37.5 B per logit.
    CHECK(vllm_budget_release(o).sampler_bytes_per_logit == 38);
    CHECK(vllm_budget_release(o).non_torch_single_gpu == 133ULL << 20);  // 0.13 GiB logged
  }
  // With tp: 0.55 GiB under 0.11.0 (0.54 and 0.55 logged), 0.19's 2,150 MiB from 0.12 (not known between).
  o.release = "0.11.0";
  CHECK(vllm_budget_release(o).non_torch_tensor_parallel == 560ULL << 20);
  o.release = "0.12.0";
  CHECK(vllm_budget_release(o).non_torch_tensor_parallel == 2150ULL << 20);
  o.release = "0.17.0";
  CHECK(vllm_budget_release(o).sampler_bytes_per_logit == 14);
  CHECK(vllm_budget_release(o).non_torch_single_gpu == 133ULL << 20);
  o.release = "0.18.0";
  CHECK(vllm_budget_release(o).non_torch_single_gpu == 256ULL << 20);  // 0.25 GiB logged
  CHECK_FALSE(vllm_budget_release(o).subtracts_cuda_graphs);
  o.release = "0.22.1";
  CHECK(vllm_budget_release(o).subtracts_cuda_graphs);
  // Up to 0.19 the default utilisation is 0.9; from 0.20 it is 0.92 (vllm/config/cache.py, raised by PR
  // #38284 with the CUDA graph profile that vLLM logs as "default since v0.21.0", in the released 0.20.0:
  // its start-ups list 'gpu_memory_utilization': 0.9 among the "non-default args", and a 0.26.0 start-up
  // without the flag logs "Desired GPU memory utilization is (0.92, 246.27 GiB)"), with the estimate
  // subtracted.
  for (const char* r : {"0.11.0", "0.18.0", "0.19.1"}) {
    o.release = r;
    INFO(r);
    CHECK(vllm_budget_release(o).default_gpu_utilization == 0.90);
    CHECK_FALSE(vllm_budget_release(o).subtracts_cuda_graphs);
  }
  for (const char* r : {"0.20.0", "0.21.0", "0.23.1", "0.26.0"}) {
    o.release = r;
    INFO(r);
    CHECK(vllm_budget_release(o).first_minor == 20);
    CHECK(vllm_budget_release(o).default_gpu_utilization == 0.92);
    CHECK(vllm_budget_release(o).subtracts_cuda_graphs);
  }
  for (const char* r : {"0.27.1", "0.28.0", "0.29.0", "0.30.0", "0.31.0"}) {
    o.release = r;
    INFO(r);
    CHECK(vllm_budget_release(o).first_minor == 27);
    CHECK(vllm_budget_release(o).default_gpu_utilization == 0.92);
    CHECK(vllm_budget_release(o).subtracts_cuda_graphs);
    CHECK(vllm_budget_release(o).sampler_bytes_per_logit == 14);
    CHECK(vllm_budget_release(o).non_torch_single_gpu == 256ULL << 20);
  }
  for (const char* bad : {"0.10.2", "0.32.0", "0.x"}) {
    o.release = bad;
    CHECK_THROWS_WITH(vllm_budget_release(o), Catch::Contains("releases 0.11 to 0.31"));
  }
  // The sampler's peak moves the pool: Qwen3-14B on one H100 has 1,024 x 151,936 x (38 - 14) B =
  // 3,733,979,136 B (3.48 GiB) less KV memory under 0.16.0 than under 0.17.0, and 0.12 GiB more non-torch
  // under 0.18.0: (256 - 133) MiB = 128,974,848 B.
  PlanInputs in = vllm_inputs("qwen3-14b", 1, 1, 0.95);
  in.engine.release = "0.16.0";
  const Plan v016 = make_plan(in);
  in.engine.release = "0.17.0";
  const Plan v017 = make_plan(in);
  in.engine.release = "0.18.0";
  const Plan v018 = make_plan(in);
  CHECK(v017.budget.kv.value - v016.budget.kv.value == 3733979136ULL);
  CHECK(v017.budget.kv.value - v018.budget.kv.value == 128974848ULL);
}

TEST_CASE("vLLM budget: the 0.31.0 start-up of Llama-3.1-8B on an A100 80GB", "[budget][vllm]") {
  // A public notes file (log dated 10-06, image vllm/vllm-openai:v0.31.0-ubuntu2404, `vllm serve` with no
  // flag but the model; docs/engines/vllm-budget.md): "Free memory on device (78.84/79.25 GiB) on startup.
  // Desired GPU memory utilization is (0.92, 72.91 GiB). Actual usage is 15.26 GiB for consumed memory
  // (weights + non-torch), 1.44 GiB for peak activation, and 0.23 GiB for CUDAGraph memory"; "Available KV
  // cache memory: 56.21 GiB"; "GPU KV cache size: 460,496 tokens". kvplan is given the model, the GPU, the
  // release and the context (max_model_len 131,072); no utilisation.
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-8b");
  in.context = Tokens{131072};
  in.gpu = presets::find_gpu("a100-80gb");
  REQUIRE_FALSE(in.gpu->runtime_memory.has_value());  // no preset total: the logged one, 79.25 GiB
  in.gpu->runtime_memory = Bytes{81152ULL << 20};     // 79.25 x 1,024 MiB
  in.engine.engine = Engine::vllm;
  in.engine.release = "0.31.0";
  in.engine.version = vllm_rules_for_release(in.engine.release);
  const Plan p = make_plan(in);
  const MemoryBudget& b = p.budget;
  REQUIRE(b.modelled);
  // vLLM's default utilisation from v0.21 (0.92), floored as usable_memory does: 85,094,039,552 x 0.92
  // (the double 0.92000000000000003997) = 78,286,516,387.84 -> 78,286,516,387 B (72.91 GiB, as logged).
  CHECK(b.utilization == 0.92);
  CHECK(b.requested.value == 78286516387ULL);
  // The A100 keeps vllm serve's smaller defaults (vllm/engine/arg_utils.py get_batch_defaults).
  CHECK(b.max_num_seqs == 256);
  CHECK(b.max_num_batched_tokens == 2048);
  // Weights: 8,030,261,248 x 2 B = 16,060,522,496 and the RoPE cache 33,554,432: 16,094,076,928 B (14.99
  // GiB; "Model loading took 15.0 GiB"). Non-torch 256 MiB (15.26 - 15.0 logged).
  CHECK(b.weights.value == 16094076928ULL);
  CHECK(b.non_torch.value == 256ULL << 20);
  // Activation: the sampler, 256 x 128,256 x 14 = 459,669,504, its hidden states 2,048 x 4,096 x 2 =
  // 16,777,216 and the base 134,217,728: 610,664,448 B (the forward pass, 2,048 x (3 x 14,336 + 4 x 4,096)
  // x 2 = 243,269,632, is smaller). With the 1 GiB CUDA graph estimate: 1,684,406,272 B (1.57 GiB) where the
  // log's "peak activation", which holds the estimate (peak_activation_memory = torch_peak_increase +
  // cudagraph_memory_estimate_applied), is 1.44 GiB.
  CHECK(b.activation.value == 610664448ULL);
  CHECK(b.cuda_graphs.value == 1ULL << 30);
  CHECK(std::abs(static_cast<double>((b.activation + b.cuda_graphs).value) / kGiB - 1.44) <= 0.15);
  // KV: 78,286,516,387 - 16,094,076,928 - 268,435,456 - 610,664,448 - 1,073,741,824 = 60,239,597,731 B
  // (56.10 GiB) against 56.21 logged: -0.11 GiB.
  CHECK(b.kv.value == 60239597731ULL);
  CHECK(std::abs(static_cast<double>(b.kv.value) / kGiB - 56.21) <= 0.15);
  // Tokens: 128 KiB a token (32 layers x 8 KV heads x 128 x 2 x 2 B), blocks of 16 tokens (2 MiB):
  // 60,239,597,731 // 2,097,152 = 28,724 blocks, 459,584 tokens, against 460,496 logged (28,781 blocks).
  REQUIRE(p.engine.kv_cache_tokens.has_value());
  CHECK(*p.engine.kv_cache_tokens == 459584);
  // The same run under 0.26's row is the same budget (0.92, the graph estimate subtracted). Under 0.19's it
  // takes 0.9: 76,584,635,596 B requested (85,094,039,552 x 0.9 = 76,584,635,596.8), 1,701,880,791 B less,
  // and no graph estimate, 1,073,741,824 B more: 628,138,967 B less KV (the sampler's 14 B per logit and the
  // 256 MiB outside torch are the same from 0.18).
  in.engine.release = "0.26.0";
  in.engine.version = vllm_rules_for_release(in.engine.release);
  const Plan v026 = make_plan(in);
  CHECK(v026.budget.utilization == 0.92);
  CHECK(v026.budget.kv.value == b.kv.value);
  in.engine.release = "0.19.0";
  in.engine.version = vllm_rules_for_release(in.engine.release);
  const Plan v019 = make_plan(in);
  CHECK(v019.budget.utilization == 0.90);
  CHECK(v019.budget.cuda_graphs.value == 0);
  CHECK(b.kv.value - v019.budget.kv.value == 628138967ULL);
}

TEST_CASE("vLLM budget: weights as vLLM loads them", "[budget][vllm]") {
  // gpt-oss-20b at tp 2: 24 layers x 32 experts, width 2,880 / 2 = 1,440 -> 1,536 (x128), hidden 2,880 ->
  // 3,072 (x256): 3 x (1,536 x 3,072 - 1,440 x 2,880) = 3 x 571,392 = 1,714,176 values per expert;
  // x 768 = 1,316,487,168 values x 17 / 32 = 699,383,808 B more per GPU.
  const ModelSpec oss = presets::find_model("gpt-oss-20b");
  CHECK(vllm_mxfp4_padding_bytes(oss, 2, 1).value == 699383808ULL);
  CHECK(vllm_mxfp4_padding_bytes(presets::find_model("llama-3.1-8b"), 1, 1).value == 0);
  // Llama-3.1-8B's RoPE cache: 131,072 positions x 128 x 2 B = 33,554,432 B (llama3 scaling keeps the
  // positions).
  CHECK(vllm_rope_cache_bytes(presets::find_model("llama-3.1-8b")).value == 33554432ULL);
  // Gemma 3 27B: linear factor 8 over 131,072 positions, x 128 x 2 B = 268,435,456, and the sliding
  // layers' unscaled one, 33,554,432: 301,989,888 B.
  const ModelSpec gemma = presets::find_model("gemma-3-27b");
  CHECK(vllm_rope_cache_bytes(gemma).value == 301989888ULL);
  // Its SigLIP tower (27 layers of 1,152 / 4,304, 896 / 14 = 64 x 64 patches, no head) and the
  // 1,152 x 5,376 projector: 423,060,336 parameters worked from modeling_siglip.py / modeling_gemma3.py.
  CHECK(gemma.encoder_parameters == 423060336ULL);
}

// SGLang. Its default mem_fraction_static, worked by hand from python/sglang/srt/server_args.py
// (_handle_gpu_memory_settings): reserved_mem (MB) = 512 + max(chunked_prefill_size, 2048) x 1.5 +
// cuda_graph_max_bs x 2 + tp x pp / 8 x 1024, at least 10,240 past 60 GiB; the GPU's memory in MiB as
// nvidia-smi reports it (H100 80GB 81,559; H200 143,771; L4 23,034).
TEST_CASE("SGLang budget: the default mem_fraction_static by GPU, tp and release", "[budget][sglang]") {
  const Bytes h100 = presets::find_gpu("h100-sxm").memory;
  const Bytes h200 = presets::find_gpu("h200").memory;
  const Bytes l4 = presets::find_gpu("l4").memory;
  REQUIRE(h100.value == 81559ULL << 20);
  // 512 + 8,192 x 1.5 + 256 x 2 + 128 = 13,440: (81,559 - 13,440) / 81,559 = 0.83521. docs.sglang.ai's
  // offline engine page (a 2026-02-05 build, H100 tp 1) logs "mem_fraction_static=0.835".
  CHECK(sglang_default_mem_fraction_static(h100, 1, 1, 1, "0.5") == 0.835);
  CHECK(sglang_default_mem_fraction_static(h100, 1, 1, 1, "") == 0.835);
  // tp 4: cuda_graph_max_bs 512 -> 512 + 12,288 + 1,024 + 512 = 14,336: 67,223 / 81,559 = 0.82422.
  CHECK(sglang_default_mem_fraction_static(h100, 4, 1, 1, "0.5") == 0.824);
  // tp 8: + 1,024 -> 14,848: 66,711 / 81,559 = 0.81795.
  CHECK(sglang_default_mem_fraction_static(h100, 8, 1, 1, "0.5") == 0.818);
  // H200 tp 8: 128,923 / 143,771 = 0.89672.
  CHECK(sglang_default_mem_fraction_static(h200, 8, 1, 1, "0.5") == 0.897);
  // DP attention 8 on it: + 512 x 8 x 3 + 512 x 8 x 1.5 = 33,280: 110,491 / 143,771 = 0.76852.
  CHECK(sglang_default_mem_fraction_static(h200, 8, 1, 8, "0.5") == 0.769);
  // L4 (under 35 GiB): chunked 2,048, cuda_graph_max_bs 24: 512 + 3,072 + 48 + 128 = 3,760, no 10 GiB
  // floor: 19,274 / 23,034 = 0.83676.
  CHECK(sglang_default_mem_fraction_static(l4, 1, 1, 1, "0.5") == 0.837);
  // The 0.4 releases: by tp only.
  CHECK(sglang_default_mem_fraction_static(h100, 1, 1, 1, "0.4") == 0.88);
  CHECK(sglang_default_mem_fraction_static(h100, 2, 1, 1, "0.4") == 0.87);
  CHECK(sglang_default_mem_fraction_static(h100, 4, 1, 1, "0.4") == 0.85);
  CHECK(sglang_default_mem_fraction_static(h100, 8, 1, 1, "0.4") == 0.81);
  CHECK(sglang_default_mem_fraction_static(h100, 16, 1, 1, "0.4") == 0.79);
  CHECK_THROWS_WITH(sglang_default_mem_fraction_static(h100, 1, 1, 1, "0.3"),
                    Catch::Contains("SGLang rule sets"));
  // A GPU smaller than the reserve has no default.
  CHECK_THROWS_WITH(sglang_default_mem_fraction_static(Bytes{2ULL << 30}, 1, 1, 1, "0.5"),
                    Catch::Contains("leaving nothing: give the fraction"));
}

TEST_CASE("SGLang release numbers map to the rule sets", "[budget][sglang]") {
  CHECK(sglang_rules_for_release("0.4.1") == "0.4");
  CHECK(sglang_rules_for_release("0.5.3") == "0.5");
  CHECK(sglang_rules_for_release("0.5.3.post1") == "0.5");
  CHECK(sglang_rules_for_release("0.5.0rc2") == "0.5");
  CHECK_THROWS_WITH(sglang_rules_for_release("0.5.3.1"), Catch::Contains("0.4.x or 0.5.x"));
  CHECK_THROWS_WITH(sglang_rules_for_release("0.5.3.postx"), Catch::Contains("0.4.x or 0.5.x"));
  CHECK(sglang_rules_for_release("0.5") == "0.5");
  CHECK_THROWS_WITH(sglang_rules_for_release("0.3.6"), Catch::Contains("0.4.x or 0.5.x"));
  CHECK_THROWS_WITH(sglang_rules_for_release("0.5.x"), Catch::Contains("0.4.x or 0.5.x"));
  CHECK_THROWS_WITH(sglang_rules_for_release("5"), Catch::Contains("0.4.x or 0.5.x"));
}

namespace {
PlanInputs sglang_inputs(const char* model, const char* gpu, std::uint64_t tp) {
  PlanInputs in;
  in.model = presets::find_model(model);
  in.context = Tokens{8192};
  in.deployment.parallel.tp = tp;
  in.gpu = presets::find_gpu(gpu);
  in.engine.engine = Engine::sglang;
  return in;
}
}  // namespace

// docs.sglang.ai/start/send_request.html (a 2025-01-23 build): `python -m sglang.launch_server --model-path
// meta-llama/Meta-Llama-3.1-8B-Instruct` on one H100, server_args mem_fraction_static=0.88 (the 0.4
// default), "Load weight begin. avail mem=78.81 GB", "Load weight end ... avail mem=63.72 GB", "KV Cache
// is allocated. K size: 27.13 GB, V size: 27.13 GB", max_total_num_tokens=444500.
TEST_CASE("SGLang budget: Llama-3.1-8B on one H100 against SGLang's own docs log", "[budget][sglang]") {
  PlanInputs in = sglang_inputs("llama-3.1-8b", "h100-sxm", 1);
  in.engine.version = "0.4";
  const Plan p = make_plan(in);
  const MemoryBudget& b = p.budget;
  REQUIRE(b.modelled);
  CHECK(b.utilization == 0.88);
  // torch's 85,029,027,840 B less the 512 MiB taken before the load: 84,492,156,928 B (78.69 GiB; the log
  // has 78.81). x 0.88 (the double 0.88000000000000000444) = 74,353,098,096.64 -> 74,353,098,096.
  CHECK(b.total.value == 85029027840ULL);
  CHECK(b.non_torch.value == 536870912ULL);
  CHECK(b.requested.value == 74353098096ULL);
  // 8,030,261,248 parameters x 2 B + the RoPE cache 131,072 x 128 x 2 B (33,554,432).
  CHECK(b.weights.value == 16060522496ULL + 33554432ULL);
  CHECK(b.reserve.value == 0);
  CHECK(b.kv.value == 74353098096ULL - 16094076928ULL);
  // 58,259,021,168 B / 131,072 B per token = 444,481 tokens: 19 fewer than logged (0.004 %).
  REQUIRE(p.engine.kv_cache_tokens.has_value());
  CHECK(*p.engine.kv_cache_tokens == 444481);
  CHECK(p.per_gpu.available_kv_bytes == b.kv);
  // The lines say it in SGLang's words.
  REQUIRE(b.lines.size() == 4);
  CHECK(b.lines[0] == "mem_fraction_static=0.88");
  CHECK(b.lines[1] == "Load weight begin. avail mem=78.69 GB");
}

// sgl-project/sglang PR #4760 (2025-03-25, the FA3 integration test, Meta-Llama-3.1-8B-Instruct, one GPU of
// the H100 CI, 0.4 default fraction): "Load weight end ... avail mem=63.48 GB, mem usage=15.11 GB", "KV
// Cache is allocated. #tokens: 442750". vllm-project/vllm issue #21348 (2025-07): Qwen3-235B-A22B-FP8 on
// 4 x H100 with --mem-fraction-static 0.93: "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB".
TEST_CASE("SGLang budget: within 0.5 GiB of the logged pools", "[budget][sglang]") {
  struct Logged {
    const char* model;
    std::uint64_t tp;
    std::optional<double> fraction;
    bool fp8_weights;
    std::uint64_t tokens;
  };
  const Logged runs[] = {
      {"llama-3.1-8b", 1, std::nullopt, false, 444500},
      {"llama-3.1-8b", 1, std::nullopt, false, 442750},
      {"qwen3-235b-a22b", 4, 0.93, true, 367404},
  };
  for (const Logged& r : runs) {
    INFO(r.model << " tp " << r.tp);
    PlanInputs in = sglang_inputs(r.model, "h100-sxm", r.tp);
    in.engine.version = "0.4";
    in.deployment.gpu_memory_utilization = r.fraction;
    if (r.fp8_weights) {  // the FP8 checkpoint: linear layers and experts in fp8, embeddings in bf16
      in.model.weight_dtype = DType::fp8_e4m3;
      in.model.expert_weight_dtype = DType::fp8_e4m3;
    }
    const Plan p = make_plan(in);
    REQUIRE(p.engine.kv_cache_tokens.has_value());
    const double tokens = static_cast<double>(*p.engine.kv_cache_tokens);
    const double per_token = static_cast<double>(p.budget.kv.value) / tokens;
    const double error = (tokens - static_cast<double>(r.tokens)) * per_token;
    CHECK(std::abs(error) <= 0.5 * kGiB);
  }
}

TEST_CASE("SGLang budget: the default fraction, --overhead and a model that does not fit",
          "[budget][sglang]") {
  // No fraction given on an H100 at tp 1 under 0.5: 0.835, and fit's launch line pins it.
  const Plan p = make_plan(sglang_inputs("llama-3.1-8b", "h100-sxm", 1));
  CHECK(p.budget.utilization == 0.835);
  CHECK(applied_gpu_utilization(p) == 0.835);
  // A reserve given: the flat budget at the engine's default... of the flat budgets (0.90).
  PlanInputs flat = sglang_inputs("llama-3.1-8b", "h100-sxm", 1);
  flat.deployment.reserve = Bytes{1ULL << 30};
  CHECK_FALSE(make_plan(flat).budget.modelled);
  // Llama-3.1-70B's 141 GB on one H100: no pool.
  const Plan big = make_plan(sglang_inputs("llama-3.1-70b", "h100-sxm", 1));
  CHECK_FALSE(big.budget.fits_weights);
  CHECK_FALSE(big.fits);
}

namespace {
PlanInputs trtllm_inputs(const char* model, std::uint64_t tp) {
  PlanInputs in;
  in.model = presets::find_model(model);
  in.context = Tokens{8192};
  in.deployment.parallel.tp = tp;
  in.gpu = presets::find_gpu("h100-sxm");
  in.engine.engine = Engine::trtllm;
  return in;
}
}  // namespace

TEST_CASE("TensorRT-LLM budget: _cal_max_memory against a public start-up log", "[budget][trtllm]") {
  // NVIDIA/TensorRT-LLM issue log (12/20/2025): "Peak memory during memory usage profiling (torch +
  // non-torch): 113.65 GiB, available KV cache memory when calculating max tokens: 5.95 GiB, fraction is set
  // 0.8999999761581421, ... device total memory 119.70 GiB, , tmp kv_mem 0.56 GiB". (119.70 - 113.65 + 0.56)
  // x 0.9 = 5.949 GiB: the peak less the temporary cache is 113.09 GiB.
  const auto gib_bytes = [](double g) { return Bytes{static_cast<std::uint64_t>(g * kGiB)}; };
  const Bytes kv = trtllm_available_kv(gib_bytes(119.70), gib_bytes(113.09), 0.8999999761581421);
  CHECK(std::abs(static_cast<double>(kv.value) / kGiB - 5.95) < 0.006);
  // Nothing left, and a fraction outside (0, 1].
  CHECK(trtllm_available_kv(Bytes{100}, Bytes{100}, 0.9) == Bytes{0});
  CHECK(trtllm_available_kv(Bytes{100}, Bytes{0}, 0.5) == Bytes{50});
  CHECK_THROWS_WITH(trtllm_available_kv(Bytes{100}, Bytes{0}, 1.5), Catch::Contains("gpu_util"));
  CHECK_THROWS_WITH(trtllm_available_kv(Bytes{100}, Bytes{0}, 0.0), Catch::Contains("gpu_util"));
}

TEST_CASE("TensorRT-LLM budget: Llama-3.1-8B on one H100, component by component", "[budget][trtllm]") {
  const Plan p = make_plan(trtllm_inputs("llama-3.1-8b", 1));
  const MemoryBudget& b = p.budget;
  REQUIRE(b.modelled);
  CHECK(b.total.value == 85029027840ULL);  // torch's total of the H100 preset
  // bf16 weights: 8,030,261,248 parameters x 2 B (no RoPE buffer: vLLM's, not counted here).
  CHECK(b.weights.value == 16060522496ULL);
  // The forward pass of max_num_tokens 8,192: 8,192 x (3 x 14,336 + 4 x 4,096) x 2 B = 973,078,528 B.
  CHECK(b.max_num_batched_tokens == 8192);
  CHECK(b.activation.value == 973078528ULL);
  CHECK(b.non_torch.value == 256ULL << 20);
  CHECK(b.cuda_graphs.value == 1ULL << 30);
  // peak 16,060,522,496 + 973,078,528 + 268,435,456 + 1,073,741,824 = 18,375,778,304;
  // kv = floor((85,029,027,840 - 18,375,778,304) x 0.9) = floor(59,987,924,582.4).
  CHECK(b.kv.value == 59987924582ULL);
  CHECK(b.utilization == 0.9);
  CHECK(applied_gpu_utilization(p) == 0.9);
  // requested = what the engine holds: the peak and the pool.
  CHECK(b.requested.value == 18375778304ULL + 59987924582ULL);
  CHECK(p.per_gpu.usable_bytes == b.requested);
  // The flat budget it replaces: floor(85,520,809,984 x 0.9) = 76,968,728,985; less 16,060,522,496 and 2^30:
  // 59,834,464,665 B.
  PlanInputs flat = trtllm_inputs("llama-3.1-8b", 1);
  flat.deployment.reserve = Bytes{1ULL << 30};
  const Plan f = make_plan(flat);
  CHECK_FALSE(f.budget.modelled);
  CHECK(f.budget.kv.value == 59834464665ULL);
}

TEST_CASE("TensorRT-LLM budget: the fraction and max_num_tokens move it; a model that does not fit",
          "[budget][trtllm]") {
  // --kv_cache_free_gpu_memory_fraction 0.5: floor(66,653,249,536 x 0.5).
  PlanInputs half = trtllm_inputs("llama-3.1-8b", 1);
  half.deployment.gpu_memory_utilization = 0.5;
  CHECK(make_plan(half).budget.kv.value == 33326624768ULL);
  // --max_num_tokens 16384: the forward pass doubles to 1,946,157,056 B; peak 19,348,856,832;
  // floor((85,029,027,840 - 19,348,856,832) x 0.9) = floor(59,112,153,907.2).
  PlanInputs wide = trtllm_inputs("llama-3.1-8b", 1);
  wide.engine.max_num_batched_tokens = 16384;
  const Plan w = make_plan(wide);
  CHECK(w.budget.activation.value == 1946157056ULL);
  CHECK(w.budget.kv.value == 59112153907ULL);
  // tp 2: NCCL's buffers, 2,150 MiB.
  CHECK(make_plan(trtllm_inputs("llama-3.1-8b", 2)).budget.non_torch.value == 2150ULL << 20);
  // Llama-3.1-70B's 141 GB on one H100: no pool.
  const Plan big = make_plan(trtllm_inputs("llama-3.1-70b", 1));
  CHECK_FALSE(big.budget.fits_weights);
  CHECK(big.budget.kv == Bytes{0});
  CHECK_FALSE(big.fits);
}

TEST_CASE("TensorRT-LLM budget: the fraction of free memory, on discrete-GPU start-up logs",
          "[budget][trtllm]") {
  const auto gib_bytes = [](double g) { return Bytes{static_cast<std::uint64_t>(g * kGiB)}; };
  // lmontigny/lm7 docs/tensorrt-llm.md (TensorRT-LLM 1.2.1, trtllm-serve, RTX 4070 SUPER 12 GiB,
  // SmolLM2-135M): "Allocated 9.06 GiB for max tokens in paged KV cache (422048)" at the default fraction
  // 0.9, and "2.52 GiB / 117,216 tokens" with --free_gpu_memory_fraction 0.25. One free figure explains
  // both: 9.06 / 0.9 = 10.067 and 2.52 / 0.25 = 10.08 GiB, each within the two-decimal print of 10.07 GiB
  // (total 12 GiB less a peak of 1.93 GiB). A fraction of the GPU's total instead would give 10.8 and 3.0
  // GiB.
  const Bytes total = gib_bytes(12.0);
  const Bytes peak = gib_bytes(12.0 - 10.07);
  CHECK(std::abs(static_cast<double>(trtllm_available_kv(total, peak, 0.9).value) / kGiB - 9.06) < 0.006);
  CHECK(std::abs(static_cast<double>(trtllm_available_kv(total, peak, 0.25).value) / kGiB - 2.52) < 0.006);
  // NVIDIA/TensorRT-LLM issue #4275 (RTX 5090, 0.19.0, the TensorRT-engine C++ runtime, same rule): "total:
  // 31.84 GiB, available: 17.83 GiB", kv_cache_free_gpu_mem_fraction 0.9, "Allocated 16.05 GiB":
  // 17.83 x 0.9 = 16.047.
  CHECK(std::abs(
            static_cast<double>(trtllm_available_kv(gib_bytes(31.84), gib_bytes(31.84 - 17.83), 0.9).value) /
                kGiB -
            16.05) < 0.006);
}

TEST_CASE("TensorRT-LLM budget: two discrete-GPU start-ups within 0.5 GiB of the logged pool",
          "[budget][trtllm]") {
  const std::string dir = std::string(KVPLAN_CORPUS) + "/../budget-configs";
  // farbodtavakkoli/OTel inference/tensorrtllm/llm/README.md: TensorRT-LLM 1.2.1, LLM API (PyTorch backend),
  // one H100 80GB HBM3, Qwen/Qwen3-Reranker-0.6B (Qwen3ForCausalLM, bf16), defaults (fraction 0.9,
  // max_num_tokens 8,192): "Allocated 68.69 GiB for max tokens in paged KV cache (643136)".
  PlanInputs h100;
  h100.model = presets::load_model_file(dir + "/qwen3-reranker-0.6b.json");
  h100.context = Tokens{40960};
  h100.gpu = presets::find_gpu("h100-sxm");
  h100.engine.engine = Engine::trtllm;
  const Plan a = make_plan(h100);
  // 595,776,512 parameters (embeddings 151,669 x 1,024 tied; 28 layers of 15,730,944; the final norm) x 2 B;
  // the forward pass 8,192 x (3 x 3,072 + 4 x 1,024) x 2 B; 256 MiB non-torch; 1 GiB CUDA graphs.
  CHECK(a.budget.weights.value == 1191553024ULL);
  CHECK(a.budget.activation.value == 218103808ULL);
  // peak 2,751,834,112; floor((85,029,027,840 - 2,751,834,112) x 0.9) = floor(74,049,474,355.2).
  CHECK(a.budget.kv.value == 74049474355ULL);
  CHECK(std::abs(static_cast<double>(a.budget.kv.value) / kGiB - 68.69) <= 0.5);  // +0.27 GiB
  // lmontigny/lm7 docs/tensorrt-llm.md, above: SmolLM2-135M-Instruct on a 12 GiB RTX 4070 SUPER.
  PlanInputs ada;
  ada.model = presets::load_model_file(dir + "/smollm2-135m-instruct.json");
  ada.context = Tokens{2049};
  ada.gpu = custom_gpu(Bytes{12ULL << 30});
  ada.engine.engine = Engine::trtllm;
  const Plan b = make_plan(ada);
  // 134,515,008 parameters x 2 B; 8,192 x (3 x 1,536 + 4 x 576) x 2 B; peak 1,724,453,504;
  // floor((12,884,901,888 - 1,724,453,504) x 0.9) = floor(10,044,403,545.6).
  CHECK(b.budget.weights.value == 269030016ULL);
  CHECK(b.budget.activation.value == 113246208ULL);
  CHECK(b.budget.kv.value == 10044403545ULL);
  CHECK(std::abs(static_cast<double>(b.budget.kv.value) / kGiB - 9.06) <= 0.5);  // +0.29 GiB
  ada.deployment.gpu_memory_utilization = 0.25;
  const Plan c = make_plan(ada);
  CHECK(c.budget.kv.value == 2790112096ULL);  // floor(11,160,448,384 x 0.25)
  CHECK(std::abs(static_cast<double>(c.budget.kv.value) / kGiB - 2.52) <= 0.5);  // +0.08 GiB
}

TEST_CASE("vLLM: more users than max_num_seqs wait, whatever the pool holds", "[budget][vllm][plan]") {
  // vllm/v1/core/sched/scheduler.py runs at most max_num_seqs requests; `vllm serve`'s default on an H100
  // is 1,024 (vllm/engine/arg_utils.py). Llama-3.1-8B on one H100 at 0.95 under 0.19's rules: requested
  // 80,777,576,447 B, weights 16,094,076,928, non-torch 268,435,456, activation 2,040,004,608 (14 B x
  // 1,024 x 128,256 logits + 8,192 x 4,096 x 2 B of hidden states + 128 MiB): 62,375,059,455 B of KV, 29,743
  // blocks of 16 tokens (2,097,152 B). A 128-token request takes 8 blocks: 3,717 requests fit.
  PlanInputs in = vllm_inputs("llama-3.1-8b", 1, 1, 0.95);
  in.context = Tokens{128};
  in.users = 2000;
  const Plan p = make_plan(in);
  REQUIRE(p.budget.kv.value == 62375059455ULL);
  CHECK_FALSE(p.fits);
  CHECK(p.max_users == 1024);
  CHECK(p.limit.kind == Limit::Kind::concurrency);
  CHECK(p.limit.max_running == 1024);
  CHECK(p.limit.kv_max_users == 3717);
  CHECK(describe_limit(p.limit, UnitSystem::iec) ==
        "concurrency: vllm runs at most 1,024 sequences at once (max_num_seqs, per replica), 2,000 asked; "
        "the others wait (the KV cache holds 3,717)");
  // Two replicas: 1,000 users each, within the cap; 2 x min(3,717, 1,024) = 2,048 users at most.
  in.deployment.parallel.dp = 2;
  const Plan two = make_plan(in);
  CHECK(two.fits);
  CHECK(two.limit.kind == Limit::Kind::fits);
  CHECK(two.max_users == 2048);
  // max_num_seqs 2,000 given: the sampler takes 14 x 2,000 x 128,256 = 3,591,168,000 B, + 201,326,592 =
  // 3,792,494,592 B of activation; 60,622,569,471 B of KV, 28,907 blocks, 3,613 requests: the users fit.
  in.deployment.parallel.dp = 1;
  in.engine.max_num_seqs = 2000;
  const Plan raised = make_plan(in);
  CHECK(raised.budget.activation.value == 3792494592ULL);
  CHECK(raised.fits);
  CHECK(raised.max_users == 2000);
  // The KV cache binds before the cap: 1,024-token requests take 64 blocks, 464 fit (29,743 / 64), 2,000
  // asked: the limit is the KV cache's.
  in.engine.max_num_seqs = 0;
  in.context = Tokens{1024};
  const Plan kv = make_plan(in);
  CHECK(kv.limit.kind == Limit::Kind::kv_cache);
  CHECK(kv.max_users == 464);
  // SGLang and TensorRT-LLM: no cap modelled.
  in.context = Tokens{128};
  in.engine.engine = Engine::sglang;
  CHECK_FALSE(max_running_sequences(make_plan(in), in).has_value());
  // llama.cpp: one llama-server holds at most 256 slots (src/llama-cparams.h LLAMA_MAX_SEQ; "n_seq_max must
  // be <= 256"). 300 users of 1,024 tokens on one H100: the cache would hold them (300 x 128 MiB = 37.5 GiB),
  // the server refuses -np 300.
  in.engine = EngineOptions{};
  in.engine.engine = Engine::llamacpp;
  in.context = Tokens{1024};
  in.users = 300;
  const Plan llama = make_plan(in);
  CHECK_FALSE(llama.fits);
  CHECK(llama.limit.kind == Limit::Kind::concurrency);
  CHECK(llama.max_users == 256);
  CHECK_THAT(
      describe_limit(llama.limit, UnitSystem::iec),
      Catch::StartsWith("concurrency: llamacpp holds at most 256 sequences per replica (LLAMA_MAX_SEQ"));
  in.users = 256;
  CHECK(make_plan(in).fits);
  // Two replicas (two servers of 150 slots): held.
  in.users = 300;
  in.deployment.parallel.dp = 2;
  CHECK(make_plan(in).fits);
}

TEST_CASE("vLLM budget: 0.26.0 and 0.27.1 start-ups without --gpu-memory-utilization", "[budget][vllm]") {
  // Public notes files in the stored public-code index (docs/engines/vllm-budget.md, "0.20 to 0.30").
  // 1. vLLM 0.26.0, google/gemma-4-31B-it on a B300 (V1 runner): "Free memory on device (267.08/267.69 GiB)
  //    on startup. Desired GPU memory utilization is (0.92, 246.27 GiB)"; a sibling 0.26.0 run on that GPU
  //    with no --gpu-memory-utilization in its command logs the same 0.92. kvplan given only the model, the
  //    GPU's 267.69 GiB, the release and max_model_len 16,384: 267.69 GiB = 287,429,948,866 B (floored), x
  //    0.92 = 264,435,552,956 B requested (floored) = 246.27 GiB, as logged.
  PlanInputs in;
  in.model = presets::find_model("gemma-4-31b");
  in.context = Tokens{16384};
  in.gpu = custom_gpu(parse_bytes("267.69GiB"));
  in.engine.engine = Engine::vllm;
  in.engine.release = "0.26.0";
  in.engine.version = vllm_rules_for_release(in.engine.release);
  const Plan gemma = make_plan(in);
  CHECK(gemma.budget.utilization == 0.92);
  CHECK(gemma.budget.requested.value == 264435552956ULL);
  CHECK(gemma.budget.lines[0] == "total_gpu_memory (267.69GiB) x gpu_memory_utilization (0.92) = 246.27GiB");
  // Logged: 58.99 GiB of weights, 3.9 of peak activation, 0.25 non-torch, an estimate of 0.76 for the CUDA
  // graphs: 182.37 GiB of KV (217,116 tokens). kvplan's weights count Gemma 4's vision tower and projector
  // (575,743,536 parameters, worked by hand in test_configs_2026.cpp: 1,151,487,072 B = 1.07 GiB in bf16;
  // before, 57.63 GiB against the logged 58.99), and its KV is within 0.5 GiB above the log (it was 1.31).
  CHECK(std::any_of(gemma.budget.notes.begin(), gemma.budget.notes.end(), [](const std::string& note) {
    return note.starts_with(
        "weights as loaded: the multimodal encoders and projectors (575,743,536 parameters, "
        "1.07 GiB per GPU)");
  }));
  const double kv = static_cast<double>(gemma.budget.kv.value) / kGiB;
  CHECK(kv >= 182.37);
  CHECK(kv <= 182.37 + 0.5);
  // Under tp 2 each GPU holds Gemma 4's towers whole (gemma4_mm.py: ReplicatedLinear throughout): the same
  // 1,151,487,072 B on each, where SigLIP's are split. The text weights halve.
  PlanInputs tp2 = in;
  tp2.deployment.parallel.tp = 2;
  const Plan gemma_tp2 = make_plan(tp2);
  CHECK(
      std::any_of(gemma_tp2.budget.notes.begin(), gemma_tp2.budget.notes.end(), [](const std::string& note) {
        return note.starts_with(
            "weights as loaded: the multimodal encoders and projectors (575,743,536 "
            "parameters, 1.07 GiB per GPU)");
      }));
  // 2. vLLM 0.27.1, Qwen/Qwen3-8B on an RTX 4090, `vllm serve` with --max-model-len 8192 and no utilisation:
  //    "Desired GPU memory utilization is (0.92, 21.64 GiB)", "Model loading took 15.27 GiB", "Available KV
  //    cache memory: 4.92 GiB" (the first start-up, compiling; 5.91 GiB on warm restarts, whose logged peak
  //    activation fell from 1.18 to 0.19 GiB). The GPU's torch total: 23.52 GiB (0.92 x 23.52 = 21.64).
  in.model = presets::find_model("qwen3-8b");
  in.context = Tokens{8192};
  in.gpu = custom_gpu(parse_bytes("23.52GiB"));
  in.engine.release = "0.27.1";
  in.engine.version = vllm_rules_for_release(in.engine.release);
  const Plan qwen = make_plan(in);
  CHECK(qwen.budget.utilization == 0.92);
  CHECK(std::abs(static_cast<double>(qwen.budget.requested.value) / kGiB - 21.64) < 0.005);
  CHECK(std::abs(static_cast<double>(qwen.budget.weights.value) / kGiB - 15.27) < 0.005);
  // A GPU under 70 GiB: 256 sequences and 2,048 batched tokens; the sampler 14 x 256 x 151,936 +
  // 2,048 x 4,096 x 2 + 128 MiB = 695,533,568 B (0.65 GiB), with the 1 GiB graph estimate 1.65 GiB against
  // the cold start's 1.18 logged: the pool is under the log by less than 0.5 GiB.
  CHECK(qwen.budget.activation.value == 695533568ULL);
  const double qkv = static_cast<double>(qwen.budget.kv.value) / kGiB;
  CHECK(qkv <= 4.92);
  CHECK(qkv >= 4.92 - 0.5);
}
