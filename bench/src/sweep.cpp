#include "kvplan/bench/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/error.hpp"

namespace kvplan::bench {

std::vector<std::uint64_t> default_seq(bool gpu) {
  std::vector<std::uint64_t> n;
  for (std::uint64_t x = 256; x <= (gpu ? 32768u : 4096u); x *= 2) n.push_back(x);
  return n;
}

std::optional<double> RunResult::asymptotic_flops_per_s() const {
  if (!quadratic || !(quadratic->c > 0)) return std::nullopt;
  return flops_per_n2 / quadratic->c;
}

const PointResult* RunResult::largest() const {
  const PointResult* best = nullptr;
  for (const auto& p : points)
    if (p.status == "ok" && (best == nullptr || p.n > best->n)) best = &p;
  return best;
}

namespace {
std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}
}  // namespace

RunResult run_sweep(Backend& b, const SweepOptions& o, const std::vector<std::uint64_t>& n_values,
                    std::uint64_t head_dim, bool causal, const Log& log) {
  const auto say = [&](const std::string& s) {
    if (log) log(s);
  };
  RunResult r;
  r.backend = b.name();
  r.dtype = b.dtype();
  r.gpu = b.is_gpu();
  r.statistic = o.statistic;
  r.shape = Shape{o.batch, o.heads, o.kv_heads, 0, head_dim, causal, 0.0};
  r.flops_per_n2 = 4.0 * static_cast<double>(o.batch * o.heads * head_dim) * (causal ? 0.5 : 1.0);
  const std::string tag = b.name() + " d=" + std::to_string(head_dim) + (causal ? " causal" : "");

  // Correctness before timing: the same heads, head_dim and mask on random data, n = 300.
  Shape small = r.shape;
  small.n = 300;
  if (const std::string why = b.unavailable(small); !why.empty()) {
    r.check.name = "random n=300";
    r.check.skipped = true;
    r.check.detail = why;
    say(tag + ": check against fp64 cannot run: " + why);
  } else {
    r.check = random_check(b, small, o.seed);
    say(tag + ": check against fp64 " + (r.check.passed ? "ok" : "FAILED") + " (max abs err " +
        fmt("%.2g", r.check.max_abs_err) + ")" + (r.check.detail.empty() ? "" : ": " + r.check.detail));
  }

  // Each point: checks, allocation, warm-up and spot check; then timing. With interleaving (CPU
  // backends), every point keeps its own backend and the timed runs go round the points, so that a
  // burst of load from elsewhere on the machine lands on every n alike instead of bending the curve.
  struct Pending {
    std::size_t index;               // into r.points
    std::unique_ptr<Backend> owned;  // interleaved: this point's own backend
    Backend* backend;
    std::vector<double> seconds;
    double total = 0;
    [[nodiscard]] bool done(const SweepOptions& opt) const {
      const auto k = static_cast<int>(seconds.size());
      return k >= std::max(1, opt.repeats) && (total >= opt.min_time || k >= kMaxRepeats);
    }
  };
  const bool interleave = o.interleave && !b.is_gpu();
  std::vector<Pending> pending;
  const Tolerance tol = tolerance(b.dtype());
  const auto fail = [&](PointResult& p, const std::string& why) {
    p.status = "failed";
    p.reason = why;
    say(tag + " n=" + std::to_string(p.n) + ": FAILED: " + why);
  };
  const auto finish = [&](Pending& q) {
    PointResult& p = r.points[q.index];
    p.time = summarize(q.seconds);
    p.tflops = static_cast<double>(p.flops) / p.time.median / 1e12;
    p.tflops_best = static_cast<double>(p.flops) / p.time.min / 1e12;
    p.status = "ok";
    say(tag + " n=" + std::to_string(p.n) + ": " + fmt("%.4g ms", p.time.median * 1e3) + " median, " +
        fmt("%.4g ms", p.time.min * 1e3) + " min, " + fmt("%.4g TFLOP/s", p.tflops) + " (" +
        std::to_string(p.time.count) + " runs)");
    q.owned.reset();
  };
  const auto time_round = [&](Pending& q) {
    try {
      q.backend->flush();
      q.seconds.push_back(q.backend->run());
      q.total += q.seconds.back();
      return true;
    } catch (const std::exception& e) {
      fail(r.points[q.index], e.what());
      q.owned.reset();
      return false;
    }
  };

  for (const std::uint64_t n : n_values) {
    r.points.push_back({});
    PointResult& p = r.points.back();
    p.n = n;
    Shape s = r.shape;
    s.n = n;
    try {
      validate(s);
      p.flops = attention_flops(s);
      p.extra_bytes = b.extra_bytes(s);
      if (r.check.skipped) {
        p.status = "skipped";
        p.reason = "the check against fp64 (n = 300) cannot run: " + r.check.detail;
        continue;
      }
      if (!r.check.passed) {
        p.status = "failed";
        p.reason = "the check against the fp64 reference failed";
        continue;
      }
      Pending q{r.points.size() - 1, nullptr, &b, {}, 0.0};
      if (interleave) {
        q.owned = make_backend(b.name(), o.cpu);
        q.backend = q.owned.get();
      }
      if (const std::string why = q.backend->unavailable(s); !why.empty()) {
        p.status = "skipped";
        p.reason = why;
        say(tag + " n=" + std::to_string(n) + ": skipped: " + why);
        continue;
      }
      {
        const Inputs in = random_inputs(s, o.seed + n, b.dtype() == DType::bf16);
        q.backend->prepare(s, in.q, in.k, in.v);
        for (int w = 0; w < std::max(1, o.warmup); ++w) q.backend->run();
        const Comparison c =
            spot_check(s, in.q, in.k, in.v, q.backend->output(), tol, o.seed, &p.rows_checked);
        p.max_abs_err = c.max_abs_err;
        if (!c.passed) {
          fail(p, std::to_string(c.failures) + " values of " + std::to_string(p.rows_checked) +
                      " checked rows outside tolerance (max abs err " + fmt("%.3g", c.max_abs_err) + ")");
          continue;
        }
      }
      if (interleave) {
        pending.push_back(std::move(q));
        continue;
      }
      bool ok = true;
      while (ok && !q.done(o)) ok = time_round(q);
      if (ok) finish(q);
    } catch (const std::exception& e) {
      fail(p, e.what());
    }
  }
  // Interleaved timing: round after round over the points still short of their runs, with the
  // GEMM baseline in the first rounds, the ones that time the largest n.
  std::optional<CpuGemm> gemm;
  std::vector<double> gemm_seconds;
  const auto gemm_rounds = static_cast<std::size_t>(std::max(3, o.repeats));
  if (o.gemm && !pending.empty()) {
    gemm.emplace(o.cpu_gemm_size);
    gemm->run();  // warm-up
  }
  for (bool any = true; any;) {
    any = false;
    for (auto& q : pending)
      if (q.owned && !q.done(o)) {
        any = true;
        if (time_round(q) && q.done(o)) finish(q);
      }
    if (any && gemm && gemm_seconds.size() < gemm_rounds) gemm_seconds.push_back(gemm->run());
  }
  if (gemm && !gemm_seconds.empty()) {
    GemmResult g{gemm->library(),
                 DType::fp32,
                 gemm->size(),
                 summarize(gemm_seconds),
                 0,
                 0,
                 "timed in the rounds of this run",
                 "interleaved"};
    const double flops = 2.0 * std::pow(static_cast<double>(g.size), 3);
    g.tflops = flops / g.time.median / 1e12;
    g.tflops_best = flops / g.time.min / 1e12;
    r.gemm = g;
  }
  fit_run(r, o.fit_min_n);
  return r;
}

void fit_run(RunResult& r, std::uint64_t fit_min_n) {
  std::vector<std::uint64_t> n;
  std::vector<double> t;
  for (const auto& p : r.points)
    if (p.status == "ok") {
      n.push_back(p.n);
      t.push_back(pick(p.time, r.statistic));
    }
  r.power = fit_power(n, t, fit_min_n);
  r.quadratic = fit_quadratic(n, t);
}

std::vector<GemmResult> gemm_baselines(const SweepOptions& o, bool cpu, bool gpu, const std::string& when,
                                       const Log& log) {
  std::vector<GemmResult> out;
  const auto add = [&](std::string lib, DType dtype, std::uint64_t size, const std::vector<double>& t,
                       std::string note) {
    GemmResult g{std::move(lib), dtype, size, summarize(t), 0.0, 0.0, std::move(note), when};
    const double flops =
        2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
    g.tflops = flops / g.time.median / 1e12;
    g.tflops_best = flops / g.time.min / 1e12;
    if (log)
      log("GEMM " + g.library + " " + std::string(kvplan::name(g.dtype)) + " " + std::to_string(size) + " (" +
          when + "): " + fmt("%.4g TFLOP/s", g.tflops));
    out.push_back(std::move(g));
  };
  const int repeats = std::max(3, o.repeats);
  if (cpu) {
    add("Eigen", DType::fp32, o.cpu_gemm_size, eigen_gemm_seconds(o.cpu_gemm_size, repeats),
        "Eigen " + machine_info().eigen + ", " + std::to_string(cpu_threads()) + " threads");
    if (const auto t = openblas_gemm_seconds(o.cpu_gemm_size, repeats))
      add("OpenBLAS", DType::fp32, o.cpu_gemm_size, *t,
          "cblas_sgemm, kernels " + machine_info().openblas_core);
  }
  if (gpu) {
    try {
      add("cuBLAS", DType::bf16, o.gpu_gemm_size, cuda_gemm_seconds(o.gpu_gemm_size, repeats),
          "cublasGemmEx bf16 in and out, fp32 compute");
    } catch (const std::exception& e) {
      if (log) log(std::string("GEMM cuBLAS: ") + e.what());
    }
  }
  return out;
}

std::optional<GemmComparison> compare_with_gemm(const RunResult& r, const std::vector<GemmResult>& gemm) {
  const PointResult* p = r.largest();
  if (p == nullptr) return std::nullopt;
  const bool use_min = r.statistic == Statistic::min;
  const auto rate = [use_min](const GemmResult& g) { return use_min ? g.tflops_best : g.tflops; };
  const GemmResult* best = r.gemm ? &*r.gemm : nullptr;
  if (best == nullptr)
    for (const auto& g : gemm) {
      const bool same_hardware = (g.library == "cuBLAS") == r.gpu;
      if (same_hardware && (best == nullptr || rate(g) > rate(*best))) best = &g;
    }
  if (best == nullptr || !(rate(*best) > 0)) return std::nullopt;
  const double attention = use_min ? p->tflops_best : p->tflops;
  return GemmComparison{best->library + " " + std::string(kvplan::name(best->dtype)) + " " +
                            std::to_string(best->size) + " (" + best->when + ")",
                        rate(*best), attention, p->n, attention / rate(*best)};
}

}  // namespace kvplan::bench
