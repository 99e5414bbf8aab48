#pragma once
/// @file backend.hpp
/// A benchmark backend: one implementation of attention on one kind of hardware, with its own
/// memory and its own clock. Kept free of Eigen and nlohmann so that the CUDA sources include it.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvplan/bench/shape.hpp"
#include "kvplan/dtype.hpp"

namespace kvplan::bench {

/// Options the CPU backends share.
struct CpuOptions {
  int threads = 0;  ///< OpenMP threads; 0: what OpenMP would use (OMP_NUM_THREADS or every core)
  std::optional<std::uint64_t> max_memory;  ///< bytes a run may hold; unset: 90% of MemAvailable
  std::uint64_t flush_bytes = 0;            ///< bytes written between timed runs to evict caches
  std::uint64_t tile_rows = 256;            ///< cpu-tiled: Br
  std::uint64_t tile_cols = 256;            ///< cpu-tiled: Bc
};

/// One attention implementation. Use: unavailable(s) (empty when it can run s), prepare(s, q, k, v),
/// then run() as often as wanted (flush() between timed runs), output() for the last result.
class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  /// "cpu-naive", "cpu-tiled", "cuda-naive", "cuda-tiled".
  [[nodiscard]] virtual std::string name() const = 0;
  /// The element type it computes in, core's DType: fp32 (CPU) or bf16 (CUDA); it decides the
  /// tolerance of the checks (check.hpp, tolerance).
  [[nodiscard]] virtual DType dtype() const = 0;
  [[nodiscard]] virtual bool is_gpu() const = 0;
  /// The head_dim this backend runs a problem of head_dim d at: d, or the next size it has a kernel
  /// for (callers zero-pad Q, K and V and pass an explicit scale); 0 when it has none.
  [[nodiscard]] virtual std::uint64_t padded_head_dim(std::uint64_t d) const { return d; }
  /// Why s cannot run here (no device, unsupported head_dim, too little memory), or "" when it can.
  [[nodiscard]] virtual std::string unavailable(const Shape& s) const = 0;
  /// Bytes of memory the backend allocates for s beyond Q, K, V and O (scores, tiles, statistics).
  [[nodiscard]] virtual std::uint64_t extra_bytes(const Shape& s) const = 0;
  /// Allocates for s and loads the inputs, host fp32 in the layout of shape.hpp (bf16 backends
  /// round them to bf16). Throws kvplan::Error when s cannot run.
  virtual void prepare(const Shape& s, std::span<const float> q, std::span<const float> k,
                       std::span<const float> v) = 0;
  /// One forward pass; returns its duration in seconds (CPU: steady_clock around the call;
  /// GPU: CUDA events around the kernels, the call waits for them).
  virtual double run() = 0;
  /// Evicts the caches the next run would otherwise find warm (CPU: writes flush_bytes; GPU: L2).
  virtual void flush() = 0;
  /// The output of the last run as host fp32, [batch, heads, n, head_dim].
  [[nodiscard]] virtual std::vector<float> output() const = 0;
};

/// Every backend name, in the order reports list them.
const std::vector<std::string>& backend_names();

/// A backend by name. CUDA backends are returned even where no device exists: their
/// unavailable() says why. Throws kvplan::Error("--backend", ...) for an unknown name.
std::unique_ptr<Backend> make_backend(const std::string& name, const CpuOptions& cpu = {});

/// Bytes of memory available to a CPU run: /proc/meminfo MemAvailable (0 when unreadable).
std::uint64_t available_memory_bytes();

}  // namespace kvplan::bench
