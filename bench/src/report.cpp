#include "kvplan/bench/report.hpp"

#include <cstdio>
#include <sstream>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::bench {

using json = nlohmann::ordered_json;

namespace {

json time_json(const TimeStats& t) {
  return {{"median", t.median}, {"min", t.min},       {"max", t.max},
          {"mean", t.mean},     {"spread", t.spread}, {"count", t.count}};
}

json conventions_json() {
  return {{"flops", flops_convention()},
          {"time",
           "seconds; warm-up runs first (the first one's output is spot-checked against fp64), then "
           "`repeats` timed runs, "
           "each after a cache flush; CPU: steady_clock around the call, flush = read-modify-write of "
           "flush_bytes; "
           "GPU: CUDA events around the kernels, L2 flushed by a memset of twice its size"},
          {"spread", "(max - min) / median of the timed runs"},
          {"tflops", "flops / median time / 1e12; tflops_best: flops / min time / 1e12"},
          {"fit.statistic",
           "the time the fits and vs_gemm use: median (default) or min (--statistic min, for a busy shared "
           "machine: "
           "interference only ever adds time)"},
          {"fit.exponent",
           "least squares of log(time) on log(n) over the points with n >= fit.threshold_n "
           "(the 3 largest n when fewer qualify: fit.fallback)"},
          {"fit.quadratic",
           "time = a + b n + c n^2 over every point that ran, least squares of relative residuals"},
          {"fit.attention_flops_per_s",
           "flops_per_n2 / c, the asymptotic rate: a prefill's attention takes its FLOPs (this convention) / "
           "this rate"},
          {"extra_bytes",
           "memory the backend allocates beyond Q, K, V and O (GPU: global memory; on-chip not counted)"},
          {"layout",
           "Q, O [batch, heads, n, head_dim]; K, V [batch, kv_heads, n, head_dim]; inputs uniform on [-sqrt "
           "3, sqrt 3]; "
           "query head h reads KV head h / (heads / kv_heads); causal: query i sees keys j <= i"}};
}

json fit_json(const RunResult& r, std::uint64_t threshold) {
  if (!r.power && !r.quadratic) return nullptr;
  json f = json::object();
  if (r.power) {
    f["exponent"] = r.power->exponent;
    f["prefactor_s"] = r.power->prefactor;
    f["r2"] = r.power->r2;
    f["n_min"] = r.power->n_min;
    f["n_max"] = r.power->n_max;
    f["points"] = r.power->points;
    f["fallback"] = r.power->fallback;
  } else {
    f["exponent"] = nullptr;
  }
  f["threshold_n"] = threshold;
  f["statistic"] = to_string(r.statistic);
  if (r.quadratic)
    f["quadratic"] = {{"a_s", r.quadratic->a},
                      {"b_s_per_token", r.quadratic->b},
                      {"c_s_per_token2", r.quadratic->c},
                      {"max_relative_residual", r.quadratic->max_relative_residual},
                      {"points", r.quadratic->points}};
  else
    f["quadratic"] = nullptr;
  f["flops_per_n2"] = r.flops_per_n2;
  if (const auto rate = r.asymptotic_flops_per_s())
    f["attention_flops_per_s"] = *rate;
  else
    f["attention_flops_per_s"] = nullptr;
  return f;
}

json gemm_json(const GemmResult& g) {
  return {{"library", g.library}, {"dtype", kvplan::name(g.dtype)},
          {"m", g.size},          {"n", g.size},
          {"k", g.size},          {"time_s", time_json(g.time)},
          {"tflops", g.tflops},   {"tflops_best", g.tflops_best},
          {"when", g.when},       {"note", g.note}};
}

json run_json(const RunResult& r, const Report& rep) {
  json points = json::array();
  for (const auto& p : r.points) {
    json j{{"n", p.n}, {"status", p.status}, {"flops", p.flops}, {"extra_bytes", p.extra_bytes}};
    if (p.status == "ok") {
      j["time_s"] = time_json(p.time);
      j["tflops"] = p.tflops;
      j["tflops_best"] = p.tflops_best;
    }
    if (p.rows_checked > 0) j["check"] = {{"rows", p.rows_checked}, {"max_abs_err", p.max_abs_err}};
    if (!p.reason.empty()) j["reason"] = p.reason;
    points.push_back(std::move(j));
  }
  json j{{"backend", r.backend},
         {"dtype", kvplan::name(r.dtype)},
         {"hardware", r.gpu ? "gpu" : "cpu"},
         {"batch", r.shape.batch},
         {"heads", r.shape.heads},
         {"kv_heads", r.shape.kv_heads},
         {"head_dim", r.shape.head_dim},
         {"causal", r.shape.causal},
         {"check",
          {{"name", r.check.name},
           {"passed", r.check.passed},
           {"skipped", r.check.skipped},
           {"max_abs_err", r.check.max_abs_err},
           {"tolerance", r.check.allowed},
           {"detail", r.check.detail}}},
         {"points", std::move(points)},
         {"fit", fit_json(r, rep.options.fit_min_n)}};
  if (r.gemm) j["gemm"] = gemm_json(*r.gemm);
  if (const auto c = compare_with_gemm(r, rep.gemm))
    j["vs_gemm"] = {{"statistic", to_string(r.statistic)},     {"gemm", c->gemm},
                    {"gemm_tflops", c->gemm_tflops},           {"n", c->n},
                    {"attention_tflops", c->attention_tflops}, {"ratio", c->ratio}};
  return j;
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

std::string seconds_text(double s) {
  if (s < 1e-3) return fmt("%.1f us", s * 1e6);
  if (s < 1.0) return fmt("%.3f ms", s * 1e3);
  return fmt("%.3f s", s);
}

}  // namespace

json to_json(const Report& r) {
  const MachineInfo& m = r.machine;
  json machine{{"cpu", m.cpu},
               {"logical_cpus", m.logical_cpus},
               {"memory_bytes", m.memory_bytes},
               {"l2_bytes_per_core", m.l2_bytes},
               {"l3_bytes", m.l3_bytes},
               {"os", m.os},
               {"compiler", m.compiler},
               {"simd", m.simd},
               {"eigen", m.eigen},
               {"openblas", m.openblas},
               {"openblas_core", m.openblas_core},
               {"openmp", m.openmp},
               {"threads", m.threads},
               {"load_average_start", m.load_average},
               {"load_average_end", r.load_average_end}};
  json environment = json::object();
  for (const auto& [k, v] : m.environment) environment[k] = v;
  machine["environment"] = std::move(environment);
  const CudaDevice& d = r.device;
  json device{{"cuda_built", d.built}, {"present", d.present}};
  if (d.present) {
    device["name"] = d.name;
    device["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
    device["sm_count"] = d.sm_count;
    device["memory_bytes"] = d.memory_bytes;
    device["l2_bytes"] = d.l2_bytes;
    device["cuda_runtime"] = d.runtime_version;
    device["cuda_driver"] = d.driver_version;
  } else {
    device["reason"] = d.reason;
  }
  const SweepOptions& o = r.options;
  json settings{{"backends", o.backends},
                {"seq", o.seq.empty() ? json("default") : json(o.seq)},
                {"batch", o.batch},
                {"heads", o.heads},
                {"kv_heads", o.kv_heads},
                {"head_dims", o.head_dims},
                {"causal", o.causal},
                {"repeats", o.repeats},
                {"min_time_s", o.min_time},
                {"max_repeats", kMaxRepeats},
                {"warmup", std::max(1, o.warmup)},
                {"fit_min_n", o.fit_min_n},
                {"statistic", to_string(o.statistic)},
                {"interleave", o.interleave},
                {"seed", o.seed},
                {"threads", m.threads},
                {"flush_bytes", o.cpu.flush_bytes},
                {"cpu_tile", {o.cpu.tile_rows, o.cpu.tile_cols}}};
  json gemm = json::array();
  for (const auto& g : r.gemm) gemm.push_back(gemm_json(g));
  json runs = json::array();
  for (const auto& run : r.runs) runs.push_back(run_json(run, r));
  return {{"schema", kSchema},
          {"tool", "kvplan-bench"},
          {"created_utc", r.created_utc},
          {"machine", std::move(machine)},
          {"device", std::move(device)},
          {"conventions", conventions_json()},
          {"settings", std::move(settings)},
          {"gemm", std::move(gemm)},
          {"runs", std::move(runs)},
          {"notes", r.notes}};
}

std::string run_text(const RunResult& r) {
  std::string out = r.backend + " (" + std::string(kvplan::name(r.dtype)) + "): batch " +
                    std::to_string(r.shape.batch) + ", heads " + std::to_string(r.shape.heads) +
                    ", kv_heads " + std::to_string(r.shape.kv_heads) + ", head_dim " +
                    std::to_string(r.shape.head_dim) + (r.shape.causal ? ", causal" : ", not causal") + "\n";
  out += "  check against fp64 (" + r.check.name + "): " +
         (r.check.skipped  ? "cannot run"
          : r.check.passed ? "ok"
                           : "FAILED") +
         ", max abs err " + fmt("%.2g", r.check.max_abs_err) +
         (r.check.detail.empty() ? "" : " (" + r.check.detail + ")") + "\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %8s %12s %12s %8s %9s %9s %14s\n", "n", "median", "min", "spread",
                "TFLOP/s", "best", "extra memory");
  out += line;
  for (const auto& p : r.points) {
    if (p.status == "ok") {
      std::snprintf(line, sizeof line, "  %8llu %12s %12s %7.1f%% %9.4f %9.4f %14s\n",
                    static_cast<unsigned long long>(p.n), seconds_text(p.time.median).c_str(),
                    seconds_text(p.time.min).c_str(), p.time.spread * 100, p.tflops, p.tflops_best,
                    format_bytes(Bytes{p.extra_bytes}, UnitSystem::iec).c_str());
      out += line;
    } else {
      std::snprintf(line, sizeof line, "  %8llu ", static_cast<unsigned long long>(p.n));
      out += line + p.status + ": " + p.reason + "\n";
    }
  }
  if (r.power)
    out += "  fit (" + std::string(to_string(r.statistic)) + " times): time ~ n^" +
           fmt("%.3f", r.power->exponent) + " over n = " + std::to_string(r.power->n_min) + ".." +
           std::to_string(r.power->n_max) + " (" + std::to_string(r.power->points) + " points" +
           (r.power->fallback ? ", the largest: too few past the threshold" : "") + ", r2 " +
           fmt("%.4f", r.power->r2) + ")\n";
  if (r.quadratic) {
    out += "  fit (" + std::string(to_string(r.statistic)) +
           " times): time = " + fmt("%.3g", r.quadratic->a) + " s + " + fmt("%.3g", r.quadratic->b) +
           " s x n + " + fmt("%.3g", r.quadratic->c) + " s x n^2 (max residual " +
           fmt("%.1f", r.quadratic->max_relative_residual * 100) + "%)";
    if (const auto rate = r.asymptotic_flops_per_s())
      out += "; asymptotic " + fmt("%.4g", *rate / 1e12) + " TFLOP/s";
    out += "\n";
  }
  if (r.gemm)
    out += "  GEMM in the same rounds: " + r.gemm->library + " " + std::string(kvplan::name(r.gemm->dtype)) +
           " " + std::to_string(r.gemm->size) + ": " + fmt("%.4f", r.gemm->tflops) + " TFLOP/s, best " +
           fmt("%.4f", r.gemm->tflops_best) + " (" + std::to_string(r.gemm->time.count) + " runs)\n";
  return out;
}

std::string gemm_text(const Report& r) {
  std::string out;
  if (r.gemm.empty()) return out;
  out += "plain GEMM on the same machine (m = n = k):\n";
  for (const auto& g : r.gemm)
    out += "  " + g.library + " " + std::string(kvplan::name(g.dtype)) + " " + std::to_string(g.size) + " (" +
           g.when + "): " + fmt("%.4f", g.tflops) + " TFLOP/s, best " + fmt("%.4f", g.tflops_best) +
           " (median " + seconds_text(g.time.median) + "; " + g.note + ")\n";
  for (const auto& run : r.runs)
    if (run.backend == "cpu-tiled" || run.backend == "cuda-tiled")
      if (const auto c = compare_with_gemm(run, r.gemm))
        out += "  " + run.backend + " d=" + std::to_string(run.shape.head_dim) +
               (run.shape.causal ? " causal" : "") + " at n = " + std::to_string(c->n) + ": " +
               fmt("%.4f", c->attention_tflops) + " TFLOP/s = " + fmt("%.2f", c->ratio) + " x " + c->gemm +
               " (" + to_string(run.statistic) + " times)\n";
  return out;
}

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.is_object() || !j.contains(key)) throw Error(path + "/" + key, "missing");
  return j.at(key);
}

/// Parsed JSON holds 64 as unsigned, a literal built in code as signed: accept both.
bool positive_integer(const nlohmann::json& j) {
  return j.is_number_unsigned() ? j.get<std::uint64_t>() > 0
                                : j.is_number_integer() && j.get<std::int64_t>() > 0;
}

}  // namespace

std::vector<Series> read_series(const nlohmann::json& report, const std::string& source) {
  const std::string at = source + ": ";
  if (!report.is_object() || !report.contains("schema") || report["schema"] != kSchema)
    throw Error(at + "/schema", std::string("not a ") + kSchema + " report");
  const nlohmann::json& runs = field(report, "runs", at);
  if (!runs.is_array()) throw Error(at + "/runs", "must be an array");
  std::vector<Series> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string path = at + "/runs/" + std::to_string(i);
    const nlohmann::json& r = runs[i];
    Series s;
    const nlohmann::json& backend = field(r, "backend", path);
    const nlohmann::json& head_dim = field(r, "head_dim", path);
    const nlohmann::json& causal = field(r, "causal", path);
    if (!backend.is_string()) throw Error(path + "/backend", "must be a string");
    if (!positive_integer(head_dim)) throw Error(path + "/head_dim", "must be a positive integer");
    if (!causal.is_boolean()) throw Error(path + "/causal", "must be true or false");
    s.backend = backend.get<std::string>();
    s.head_dim = head_dim.get<std::uint64_t>();
    s.causal = causal.get<bool>();
    s.label = s.backend + " d=" + std::to_string(s.head_dim) + (s.causal ? " causal" : "");
    // The plotted time is the one the fit used.
    if (r.contains("fit") && r["fit"].is_object() && r["fit"].contains("statistic") &&
        r["fit"]["statistic"] == "min")
      s.statistic = "min";
    const nlohmann::json& points = field(r, "points", path);
    if (!points.is_array()) throw Error(path + "/points", "must be an array");
    for (std::size_t k = 0; k < points.size(); ++k) {
      const nlohmann::json& p = points[k];
      const std::string pp = path + "/points/" + std::to_string(k);
      if (field(p, "status", pp) != "ok") continue;
      const nlohmann::json& n = field(p, "n", pp);
      const nlohmann::json& median = field(field(p, "time_s", pp), s.statistic.c_str(), pp + "/time_s");
      if (!positive_integer(n)) throw Error(pp + "/n", "must be a positive integer");
      if (!median.is_number() || !(median.get<double>() > 0))
        throw Error(pp + "/time_s/" + s.statistic, "must be positive");
      s.n.push_back(n.get<std::uint64_t>());
      s.seconds.push_back(median.get<double>());
    }
    if (r.contains("fit") && r["fit"].is_object()) {
      const nlohmann::json& f = r["fit"];
      if (f.contains("exponent") && f["exponent"].is_number()) s.exponent = f["exponent"].get<double>();
      if (f.contains("quadratic") && f["quadratic"].is_object()) {
        const nlohmann::json& q = f["quadratic"];
        const std::string qp = path + "/fit/quadratic";
        QuadraticFit fit;
        fit.a = field(q, "a_s", qp).get<double>();
        fit.b = field(q, "b_s_per_token", qp).get<double>();
        fit.c = field(q, "c_s_per_token2", qp).get<double>();
        s.quadratic = fit;
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Series> read_series_file(const std::string& path) {
  // The planner's reader: regular files only (a FIFO would block), bounded in size, depth and values.
  const nlohmann::json j = presets::read_json_file(path);
  try {
    return read_series(j, path);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, std::string("unexpected value (") + e.what() + ")");
  }
}

}  // namespace kvplan::bench
