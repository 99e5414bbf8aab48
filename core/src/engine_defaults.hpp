#pragma once
// The engines' own defaults for kvplan's engine options, in one place: the policies use them when an
// option is left at 0, and the option table (options.cpp, EngineOptionSpec::engine_default) shows them.
#include <cstdint>

namespace kvplan::engine_defaults {

/// vLLM block_size on CUDA (vllm/platforms/cuda.py, check_and_update_config).
inline constexpr std::uint64_t kVllmBlockSize = 16;
/// vLLM V1 max_num_batched_tokens for `vllm serve` on large GPUs (vllm/engine/arg_utils.py,
/// EngineArgs._set_default_args): the sliding-window and chunked reserve.
inline constexpr std::uint64_t kVllmMaxNumBatchedTokens = 8192;
/// vLLM's gpu_memory_utilization when none is given, from v0.21.0: vllm/config/cache.py
/// `gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)` (as of v0.25.0, v0.27.1 and v0.30.0),
/// raised from 0.9 by vllm-project/vllm PR #38284 ("[Startup][UX] Enable CUDAGraph memory profiling by
/// default", merged for v0.21), which turned the CUDA graph memory profile on in the same change. kvplan
/// applies it from 0.21 (budget.cpp kVllmBudgetReleases).
inline constexpr double kVllmGpuMemoryUtilizationFrom020 = 0.92;
/// SGLang page_size (python/sglang/srt/server_args.py, ServerArgs.page_size).
inline constexpr std::uint64_t kSglangPageSize = 1;
/// TensorRT-LLM KvCacheConfig.tokens_per_block (tensorrt_llm/llmapi/llm_args.py).
inline constexpr std::uint64_t kTrtllmTokensPerBlock = 32;
/// llama.cpp n_ubatch (common/common.h, common_params.n_ubatch).
inline constexpr std::uint64_t kLlamacppUbatch = 512;

}  // namespace kvplan::engine_defaults
