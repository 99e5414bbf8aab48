#pragma once
/// @file sweep.hpp
/// A sweep: one backend, one head_dim, one mask, n varying with batch and heads fixed; each point
/// checked, warmed up, flushed and timed, then the fits. And the plain-GEMM baselines.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/check.hpp"
#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/machine.hpp"
#include "kvplan/bench/stats.hpp"

namespace kvplan::bench {

/// Everything a measurement is configured by (the command line, resolved).
struct SweepOptions {
  std::vector<std::string> backends;
  std::vector<std::uint64_t> seq;  ///< empty: default_seq() per backend
  std::uint64_t batch = 1;
  std::uint64_t heads = 8;
  std::uint64_t kv_heads = 8;
  std::vector<std::uint64_t> head_dims{64, 128};
  std::vector<bool> causal{false};
  int repeats = 5;
  double min_time = 0.5;  ///< seconds: short points repeat past `repeats` until their runs add up to this
  int warmup = 1;         ///< at least 1: the first warm-up's output is spot-checked
  /// CPU backends: one backend per n, timed runs taken in rounds over the points (see run_sweep).
  bool interleave = true;
  std::uint64_t fit_min_n = 1024;
  Statistic statistic = Statistic::median;  ///< what the fits and the GEMM comparison use
  std::uint64_t seed = 1;
  CpuOptions cpu;
  bool gemm = true;
  std::uint64_t cpu_gemm_size = 2048;
  std::uint64_t gpu_gemm_size = 8192;
};

/// n values swept when --seq is not given: powers of two, 256 .. 4096 on the CPU (seconds per
/// point at 8 heads), 256 .. 32768 on a GPU.
std::vector<std::uint64_t> default_seq(bool gpu);

/// Timed runs cap: however short a run, no point repeats more often than this.
inline constexpr int kMaxRepeats = 1000;

/// One n of a sweep.
struct PointResult {
  std::uint64_t n = 0;
  std::string status;  ///< "ok", "skipped" (memory, see reason) or "failed" (wrong output, error)
  std::string reason;
  TimeStats time;
  std::uint64_t flops = 0;  ///< attention_flops()
  double tflops = 0;        ///< flops / median / 1e12
  double tflops_best = 0;   ///< flops / min / 1e12
  std::uint64_t extra_bytes = 0;
  double max_abs_err = 0;  ///< spot check of the timed output against the fp64 reference
  std::size_t rows_checked = 0;
};

/// A plain GEMM measured next to the attention backends.
struct GemmResult {
  std::string library;        ///< "Eigen", "OpenBLAS", "cuBLAS"
  DType dtype = DType::fp32;  ///< fp32 (Eigen, OpenBLAS) or bf16 (cuBLAS)
  std::uint64_t size = 0;     ///< m = n = k
  TimeStats time;
  double tflops = 0;       ///< 2 size^3 / median / 1e12
  double tflops_best = 0;  ///< 2 size^3 / min / 1e12
  std::string note;
  std::string when;  ///< "before" or "after" the attention sweeps (both are measured)
};
/// One backend x head_dim x mask.
struct RunResult {
  std::string backend;
  DType dtype = DType::fp32;
  bool gpu = false;
  Shape shape;      ///< batch, heads, kv_heads, head_dim, causal; n is 0
  CheckCase check;  ///< random data against fp64 before any timing (n = 300)
  std::vector<PointResult> points;
  Statistic statistic = Statistic::median;  ///< the time the fits use
  std::optional<PowerFit> power;
  std::optional<QuadraticFit> quadratic;
  /// With interleaving: a plain GEMM timed in the same rounds as the largest points (see run_sweep).
  std::optional<GemmResult> gemm;
  /// flops / n^2 for this shape: 4 b h d, halved when causal; with quadratic->c it gives the
  /// asymptotic rate flops_per_n2 / c that a planner uses.
  double flops_per_n2 = 0;
  [[nodiscard]] std::optional<double> asymptotic_flops_per_s() const;
  /// The point with the largest n that ran, if any.
  [[nodiscard]] const PointResult* largest() const;
};

/// Progress lines (stderr in the program; nothing in tests).
using Log = std::function<void(const std::string&)>;

/// Measures one backend over `n_values` for one head_dim and mask, then fits. Never throws for a
/// point that cannot run: the point is "skipped" or "failed" with the reason. Every point is set
/// up, warmed up and spot-checked first; with o.interleave (CPU backends only, each point then has
/// its own backend from make_backend(b.name(), o.cpu), all held at once) the timed runs go in
/// rounds over the points, so that load from elsewhere falls on every n alike; with o.gemm a plain
/// fp32 GEMM of o.cpu_gemm_size is timed once in each of the first max(3, repeats) rounds, next to
/// the largest n, and kept in RunResult::gemm for the comparison.
RunResult run_sweep(Backend& b, const SweepOptions& o, const std::vector<std::uint64_t>& n_values,
                    std::uint64_t head_dim, bool causal, const Log& log = {});

/// Fills power and quadratic from the points that ran (their r.statistic time).
void fit_run(RunResult& r, std::uint64_t fit_min_n);

/// Eigen and OpenBLAS fp32 GEMMs of o.cpu_gemm_size (cpu), cuBLAS bf16 of o.gpu_gemm_size (gpu),
/// labelled `when`.
std::vector<GemmResult> gemm_baselines(const SweepOptions& o, bool cpu, bool gpu, const std::string& when,
                                       const Log& log = {});

/// An attention run against a GEMM on the same hardware, at the run's largest n, both rates from
/// the run's statistic (median or min): the GEMM timed in the run's own rounds when there is one
/// (same machine state), else the fastest of `gemm` (before or after the sweeps: the less
/// flattering comparison).
struct GemmComparison {
  std::string gemm;  ///< "OpenBLAS fp32 2048"
  double gemm_tflops = 0;
  double attention_tflops = 0;
  std::uint64_t n = 0;
  double ratio = 0;  ///< attention_tflops / gemm_tflops
};
std::optional<GemmComparison> compare_with_gemm(const RunResult& r, const std::vector<GemmResult>& gemm);

/// A whole measurement: what the JSON report holds.
struct Report {
  std::string created_utc;  ///< ISO 8601
  MachineInfo machine;
  CudaDevice device;
  SweepOptions options;
  std::vector<RunResult> runs;
  std::vector<GemmResult> gemm;
  std::vector<std::string> notes;
  std::string load_average_end;  ///< load_average() when the measurement finished
};

}  // namespace kvplan::bench
