#include "kvplan/bench/planner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "kvplan/bench/machine.hpp"
#include "kvplan/bench/stats.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::bench {
namespace {

using Clock = std::chrono::steady_clock;

const std::vector<Engine>& engines() {
  static const std::vector<Engine> e{Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp,
                                     Engine::trtllm};
  return e;
}

/// Seconds of CPU time this thread has used.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// What run_for measured: calls, wall seconds, and this thread's CPU seconds.
struct Run {
  std::uint64_t calls = 0;
  double seconds = 0, cpu_seconds = 0;
};

/// Calls f() for `seconds` of wall time (at least once).
template <class F>
Run run_for(F&& f, double seconds) {
  const auto t0 = Clock::now();
  const double c0 = thread_cpu_seconds();
  Run r;
  do {
    f();
    ++r.calls;
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (r.seconds < seconds);
  r.cpu_seconds = thread_cpu_seconds() - c0;
  return r;
}

/// calls per second of `s` (0 when no time was measured).
double rate(std::uint64_t calls, double s) { return s > 0 ? static_cast<double>(calls) / s : 0.0; }

double median(std::vector<double> v) { return summarize(v).median; }

/// Keeps the planner's results alive, so the compiler cannot drop a call.
volatile std::uint64_t g_sink = 0;

KvDtypes both(DType t) {
  KvDtypes k;
  k.k = k.v = t;
  return k;
}

}  // namespace

void check_planner_options(const PlannerOptions& o) {
  if (!std::isfinite(o.seconds) || o.seconds <= 0 || o.seconds > 60)
    throw Error("--planner-time", "must be a number of seconds in (0, 60]");
  if (o.repeats < 1 || o.repeats > 100) throw Error("--planner-repeats", "must be in 1..100");
}

PlannerReport run_planner_bench(const PlannerOptions& o) {
  check_planner_options(o);
  PlannerReport rep;
  rep.options = o;
  const MachineInfo m = machine_info();
  rep.cpu = m.cpu;
  rep.compiler = m.compiler;
  rep.logical_cpus = m.logical_cpus;
  rep.load_average_start = m.load_average;
  constexpr std::uint64_t kContext = 32768, kUsers = 16, kGpus = 4;
  const Gpu h100 = presets::find_gpu("h100-sxm");
  for (const char* id : {"llama-3.1-70b", "gpt-oss-120b", "qwen3-next-80b-a3b"}) {
    const ModelSpec model = presets::find_model(id);
    for (const Engine e : engines()) {
      PlanInputs in;
      in.model = model;
      in.kv = both(e == Engine::llamacpp ? DType::fp16 : DType::bf16);
      in.context = Tokens{kContext};
      in.users = kUsers;
      in.gpu = h100;
      // llama.cpp splits layers, not heads (it refuses tp > 1): the same 4 GPUs as 4 stages.
      const bool layers = e == Engine::llamacpp;
      in.deployment.parallel = layers ? Parallelism{1, kGpus, 1} : Parallelism{kGpus, 1, 1};
      in.engine.engine = e;
      PlanThroughput t;
      t.engine = std::string(name(e));
      t.model = id;
      t.setup = std::string("h100-sxm, ") + (layers ? "tp 1, pp 4, " : "tp 4, pp 1, ") +
                std::to_string(kContext) + " tokens, " + std::to_string(kUsers) + " users, KV " +
                std::string(kvplan::name(in.kv.k));
      try {
        (void)make_plan(in);
      } catch (const Error& err) {
        t.refused = err.what();  // the engine does not model this model: listed, not timed
        rep.plans.push_back(std::move(t));
        continue;
      }
      // As fit does: the model's own figures once, then every plan of it (make_plan(in) prepares the
      // model on each call).
      const PreparedModel prepared(in.model);
      std::vector<double> cpu_max_context, cpu_no_max_context;
      for (int i = 0; i < o.repeats; ++i) {
        const Run a =
            run_for([&] { g_sink = g_sink + make_plan(prepared, in, true, PlanDetail::figures).max_users; },
                    o.seconds);
        t.repeats_max_context.push_back(rate(a.calls, a.seconds));
        cpu_max_context.push_back(rate(a.calls, a.cpu_seconds));
        const Run b =
            run_for([&] { g_sink = g_sink + make_plan(prepared, in, false, PlanDetail::figures).max_users; },
                    o.seconds);
        t.repeats_no_max_context.push_back(rate(b.calls, b.seconds));
        cpu_no_max_context.push_back(rate(b.calls, b.cpu_seconds));
      }
      t.plans_per_s_max_context = median(t.repeats_max_context);
      t.plans_per_s_no_max_context = median(t.repeats_no_max_context);
      t.plans_per_cpu_s_max_context = median(cpu_max_context);
      t.plans_per_cpu_s_no_max_context = median(cpu_no_max_context);
      rep.plans.push_back(std::move(t));
    }
  }
  FitRequest r;
  r.model = presets::find_model("llama-3.1-70b");
  r.context = Tokens{kContext};
  r.users = kUsers;
  r.gpus = presets::list_gpus();
  r.max_gpus = 64;
  for (const Engine e : engines()) {
    r.engine.engine = e;
    r.kv_dtypes =
        e == Engine::llamacpp
            ? std::vector<KvDtypes>{both(DType::fp16), both(DType::q8_0), both(DType::q4_0)}
            : std::vector<KvDtypes>{both(DType::bf16), both(DType::fp8_e4m3), both(DType::fp8_e5m2)};
    FitTiming f;
    f.engine = std::string(name(e));
    f.model = "llama-3.1-70b";
    f.setup = std::to_string(r.gpus.size()) + " GPU presets, 1..64 GPUs, every tp/pp/replicas, KV " +
              std::string(kvplan::name(r.kv_dtypes[0].k)) + "/" +
              std::string(kvplan::name(r.kv_dtypes[1].k)) + "/" +
              std::string(kvplan::name(r.kv_dtypes[2].k)) + ", " + std::to_string(kContext) + " tokens, " +
              std::to_string(kUsers) + " users";
    for (int i = 0; i < o.repeats; ++i) {
      FitResult res;
      const Run run = run_for([&] { res = fit(r); }, o.seconds);
      f.repeats_s.push_back(run.seconds / static_cast<double>(run.calls));
      f.candidates = res.candidates;
      f.fitting = res.fitting;
    }
    f.seconds = median(f.repeats_s);
    rep.fits.push_back(std::move(f));
  }
  rep.load_average_end = load_average();
  return rep;
}

nlohmann::json planner_json(const PlannerReport& r) {
  using nlohmann::json;
  json plans = json::array();
  for (const auto& t : r.plans) {
    json p{{"engine", t.engine}, {"model", t.model}, {"setup", t.setup}};
    if (!t.refused.empty()) {
      p["refused"] = t.refused;
    } else {
      p["plans_per_s_max_context"] = t.plans_per_s_max_context;
      p["plans_per_s_no_max_context"] = t.plans_per_s_no_max_context;
      p["repeats_max_context"] = t.repeats_max_context;
      p["repeats_no_max_context"] = t.repeats_no_max_context;
      p["plans_per_cpu_s_max_context"] = t.plans_per_cpu_s_max_context;
      p["plans_per_cpu_s_no_max_context"] = t.plans_per_cpu_s_no_max_context;
    }
    plans.push_back(std::move(p));
  }
  json fits = json::array();
  for (const auto& f : r.fits)
    fits.push_back({{"engine", f.engine},
                    {"model", f.model},
                    {"setup", f.setup},
                    {"candidates", f.candidates},
                    {"fitting", f.fitting},
                    {"seconds", f.seconds},
                    {"repeats_s", f.repeats_s}});
  return {{"schema", "kvplan-bench-planner/1"},
          {"machine",
           {{"cpu", r.cpu},
            {"logical_cpus", r.logical_cpus},
            {"compiler", r.compiler},
            {"load_average_start", r.load_average_start},
            {"load_average_end", r.load_average_end}}},
          {"seconds_per_repeat", r.options.seconds},
          {"repeats", r.options.repeats},
          {"make_plan", std::move(plans)},
          {"fit", std::move(fits)}};
}

std::string planner_text(const PlannerReport& r) {
  std::string s;
  char line[512];
  std::snprintf(line, sizeof line,
                "make_plan, model prepared once, figures only (PlanDetail::figures), plans/s (median of %d "
                "repeats of %.2g s): per second of wall "
                "time, and per second of the thread's CPU time\n%-9s %-20s %16s %16s %16s %16s\n",
                r.options.repeats, r.options.seconds, "engine", "model", "max context", "no max context",
                "cpu: max ctx", "cpu: no max ctx");
  s += line;
  for (const auto& t : r.plans) {
    if (!t.refused.empty())
      std::snprintf(line, sizeof line, "%-9s %-20s %33s\n", t.engine.c_str(), t.model.c_str(),
                    "refused by the engine's rules");
    else
      std::snprintf(line, sizeof line, "%-9s %-20s %16.0f %16.0f %16.0f %16.0f\n", t.engine.c_str(),
                    t.model.c_str(), t.plans_per_s_max_context, t.plans_per_s_no_max_context,
                    t.plans_per_cpu_s_max_context, t.plans_per_cpu_s_no_max_context);
    s += line;
  }
  for (const auto& t : r.plans)
    if (!t.refused.empty()) s += t.engine + ", " + t.model + ": " + t.refused + "\n";
  if (!r.plans.empty()) s += "(" + r.plans.front().setup + "; llama.cpp: tp 1, pp 4, KV f16)\n";
  std::snprintf(line, sizeof line, "\nfit, one whole search (median)\n%-9s %-20s %12s %10s %8s\n", "engine",
                "model", "seconds", "layouts", "fitting");
  s += line;
  for (const auto& f : r.fits) {
    std::snprintf(line, sizeof line, "%-9s %-20s %12.4f %10llu %8llu\n", f.engine.c_str(), f.model.c_str(),
                  f.seconds, static_cast<unsigned long long>(f.candidates),
                  static_cast<unsigned long long>(f.fitting));
    s += line;
  }
  if (!r.fits.empty()) s += "(" + r.fits.front().setup + "; llama.cpp: KV f16/q8_0/q4_0)\n";
  s += "\nmachine: " + r.cpu + ", " + std::to_string(r.logical_cpus) + " CPUs, load average " +
       r.load_average_start + " at the start, " + r.load_average_end + " at the end\n";
  return s;
}

}  // namespace kvplan::bench
