#pragma once
/// @file engine_log.hpp
/// Reading a real engine start-up log (vLLM, SGLang, llama.cpp, TensorRT-LLM) for the KV-cache memory the
/// engine itself settled on: `kvplan size --from-log FILE` plans against that figure instead of the
/// predicted budget (calibration from a real start).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/units.hpp"

namespace kvplan::presets {

/// What one start-up log says about its KV cache, per GPU (rank 0's lines: the first of each kind).
struct EngineLogFigures {
  Engine engine = Engine::ideal;
  Bytes kv_memory;  ///< the KV memory per GPU as printed (two decimals: the printed value, rounded)
  std::optional<std::uint64_t> kv_cache_tokens;  ///< vLLM "GPU KV cache size", SGLang "#tokens"
  std::string version;                           ///< the engine's version where the log names it
  std::vector<std::string> lines;                ///< the lines the figures were read from
};

/// Largest log read (bytes) and longest line looked at: a start-up log is a few MiB at most.
inline constexpr std::size_t kMaxEngineLogBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxEngineLogLine = 64 * 1024;

/// Reads `path` (a plain file, opened as presets::InputFile, at most kMaxEngineLogBytes) line by line and
/// takes the first line of the first engine whose KV line it finds:
///  - vLLM: "Available KV cache memory: X GiB" (vllm/v1/worker/gpu_worker.py), with "GPU KV cache size:
///    N tokens" and the version from "vLLM API server version V" or "Initializing a V1 LLM engine (vV)";
///  - SGLang: "KV Cache is allocated. ... #tokens: N, K size: X GB, V size: Y GB" (memory_pool.py; its
///    GB are 2^30 bytes): X + Y;
///  - llama.cpp: every "llama_kv_cache...: size = X MiB" and "llama_memory_recurrent: ... size = X MiB"
///    line of the first context (llama-kv-cache.cpp, llama-memory-recurrent.cpp), summed;
///  - TensorRT-LLM: the last "Allocated X GiB for max tokens in paged KV cache (N)" (kv_cache_manager.cpp;
///    the PyTorch backend's first such line sized a cache for its estimate);
/// Where several ranks print their line (vLLM and SGLang under tp, pp or dp), the smallest pool is taken:
/// every stage gets it. Throws kvplan::Error(path, ...) naming the lines it looked for when none is there;
/// naming the line ("path: line N") when a KV line's value is not a size; when the file holds the lines of
/// two engines; or when the file cannot be read, is not a plain file or is too large.
EngineLogFigures read_engine_log(const std::filesystem::path& path);

}  // namespace kvplan::presets
