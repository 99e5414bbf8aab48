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
/// SGLang page_size (python/sglang/srt/server_args.py, ServerArgs.page_size).
inline constexpr std::uint64_t kSglangPageSize = 1;
/// TensorRT-LLM KvCacheConfig.tokens_per_block (tensorrt_llm/llmapi/llm_args.py).
inline constexpr std::uint64_t kTrtllmTokensPerBlock = 32;
/// llama.cpp n_ubatch (common/common.h, common_params.n_ubatch).
inline constexpr std::uint64_t kLlamacppUbatch = 512;

}  // namespace kvplan::engine_defaults
