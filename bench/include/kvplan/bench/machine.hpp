#pragma once
/// @file machine.hpp
/// The machine a measurement ran on, CPU threading, and the plain-GEMM baselines the tiled
/// attention is compared with.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kvplan::bench {

/// The host: what a reader of a report needs to reproduce or discount it.
struct MachineInfo {
  std::string cpu;                 ///< /proc/cpuinfo "model name"
  unsigned logical_cpus = 0;       ///< std::thread::hardware_concurrency
  std::uint64_t memory_bytes = 0;  ///< /proc/meminfo MemTotal
  std::uint64_t l2_bytes = 0;      ///< per core, from sysconf
  std::uint64_t l3_bytes = 0;
  std::string os;             ///< uname: sysname release machine
  std::string compiler;       ///< compiler and version
  std::string simd;           ///< widest vector ISA the CPU kernels were compiled for
  std::string eigen;          ///< Eigen version
  std::string openblas;       ///< openblas_get_config(), or "" when not built with OpenBLAS
  std::string openblas_core;  ///< openblas_get_corename(): the kernels OpenBLAS picked
  bool openmp = false;
  int threads = 1;           ///< threads the CPU backends use
  std::string load_average;  ///< /proc/loadavg's 1, 5 and 15 minute figures when this was taken
  /// Environment variables that change the measurement (OMP_*, OPENBLAS_*, CUDA_VISIBLE_DEVICES), as set.
  std::vector<std::pair<std::string, std::string>> environment;
};

MachineInfo machine_info();

/// "0.12 0.30 0.25": the 1, 5 and 15 minute load averages ("" when unreadable). A busy machine
/// makes slow and noisy timings; reports record the load before and after.
std::string load_average();

/// Threads the CPU backends use (OpenMP's maximum; 1 without OpenMP).
int cpu_threads();
/// Sets the threads of OpenMP and of OpenBLAS (n > 0).
void set_cpu_threads(int n);

/// A note when OpenBLAS runs generic kernels on a CPU that has wider ones (OpenBLAS 0.3.21 does
/// not recognise Sapphire Rapids and falls back to "Prescott", SSE3): the fix is to set
/// OPENBLAS_CORETYPE (SkylakeX, Haswell) before the program starts. "" when nothing is wrong.
std::string openblas_note();

/// Seconds of `repeats` runs (after one warm-up) of a square fp32 GEMM C = A B of `size` with
/// Eigen (all OpenMP threads).
std::vector<double> eigen_gemm_seconds(std::uint64_t size, int repeats);
/// The same with OpenBLAS cblas_sgemm; nullopt when the build has no OpenBLAS.
std::optional<std::vector<double>> openblas_gemm_seconds(std::uint64_t size, int repeats);

/// One square fp32 GEMM held ready to be timed run by run, interleaved with attention runs so that
/// both see the same machine: OpenBLAS when the build has it, Eigen otherwise.
class CpuGemm {
 public:
  explicit CpuGemm(std::uint64_t size);
  ~CpuGemm();
  CpuGemm(const CpuGemm&) = delete;
  CpuGemm& operator=(const CpuGemm&) = delete;
  /// Seconds of one C = A B (steady_clock).
  double run();
  [[nodiscard]] std::string library() const;
  [[nodiscard]] std::uint64_t size() const { return size_; }

 private:
  std::uint64_t size_;
  std::vector<float> a_, b_, c_;
};

}  // namespace kvplan::bench
