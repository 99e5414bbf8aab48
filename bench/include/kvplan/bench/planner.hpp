#pragma once
/// @file planner.hpp
/// `kvplan-bench --planner`: how fast the planner is (issue 13, item 5). make_plan's throughput per
/// engine and model, with and without the max-context search, and the time of one whole `kvplan fit`
/// search. A benchmark, not a test: it measures whatever core's make_plan and fit do on this machine.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvplan::bench {

/// How long to measure. Every figure is measured `repeats` times for `seconds` of wall time each
/// (at least one call), and the median of the repeats is reported.
struct PlannerOptions {
  double seconds = 0.3;  ///< wall time of one repeat, > 0
  int repeats = 3;       ///< >= 1
};

/// make_plan on one engine and model: plans per second, median over the repeats.
struct PlanThroughput {
  std::string engine;                     ///< "ideal", "vllm", "sglang", "llamacpp", "trtllm"
  std::string model;                      ///< preset id
  std::string setup;                      ///< the plan's inputs in words (GPU, tp, context, users, KV dtype)
  double plans_per_s_max_context = 0;     ///< make_plan(prepared, in): max users and max context searched
  double plans_per_s_no_max_context = 0;  ///< make_plan(prepared, in, false)
  std::vector<double> repeats_max_context, repeats_no_max_context;  ///< each repeat's plans/s
  /// The same per second of the benchmark thread's own CPU time (CLOCK_THREAD_CPUTIME_ID): on a shared
  /// machine, wall time also counts the time other processes held the CPU.
  double plans_per_cpu_s_max_context = 0, plans_per_cpu_s_no_max_context = 0;
  std::string refused;  ///< non-empty: the engine refuses this model (its error); nothing timed
};

/// One whole fit() search under one engine: seconds per search, median over the repeats.
struct FitTiming {
  std::string engine;
  std::string model;
  std::string setup;              ///< the request in words
  std::uint64_t candidates = 0;   ///< layouts fit judged (FitResult::candidates)
  std::uint64_t fitting = 0;      ///< of them, fitting
  double seconds = 0;             ///< median seconds of one search
  std::vector<double> repeats_s;  ///< each repeat's seconds per search
};

/// Everything --planner measured.
struct PlannerReport {
  PlannerOptions options;
  std::string cpu, compiler;                         ///< machine_info()'s
  unsigned logical_cpus = 0;                         ///< machine_info()'s
  std::string load_average_start, load_average_end;  ///< /proc/loadavg: a busy machine plans slower
  std::vector<PlanThroughput> plans;
  std::vector<FitTiming> fits;
};

/// Throws kvplan::Error("--planner-time", ...) unless seconds is in (0, 60], or
/// ("--planner-repeats", ...) unless repeats is in 1..100.
void check_planner_options(const PlannerOptions& o);

/// Runs the benchmark: make_plan (the model prepared once, as fit does: PreparedModel) for engines {ideal,
/// vllm, sglang, llamacpp, trtllm} x models {llama-3.1-70b, gpt-oss-120b, qwen3-next-80b-a3b} on 4 h100-sxm
/// (tp 4; llama.cpp, which has no tp: pp 4), 32,768 tokens, 16 users, bf16 KV (llama.cpp: f16); and one fit
/// per engine for llama-3.1-70b, 32,768 tokens, 16 users over every GPU preset x 1..64 GPUs x every tp, pp
/// and replica count x 3 KV dtypes (bf16, fp8_e4m3, fp8_e5m2; llama.cpp: f16, q8_0, q4_0, its cache types).
/// Models and GPUs come from the built-in presets. Throws as check_planner_options for bad options, and what
/// the presets or the planner throw.
PlannerReport run_planner_bench(const PlannerOptions& o);

/// The report as JSON: {"schema": "kvplan-bench-planner/1", "machine": {"cpu", "logical_cpus",
/// "compiler", "load_average_start", "load_average_end"}, "seconds_per_repeat", "repeats",
/// "make_plan": [{"engine", "model", "setup", "plans_per_s_max_context", "plans_per_s_no_max_context",
/// "repeats_max_context", "repeats_no_max_context", "plans_per_cpu_s_max_context",
/// "plans_per_cpu_s_no_max_context"} or {"engine", "model", "setup", "refused"}], "fit":
/// [{"engine", "model", "setup", "candidates", "fitting", "seconds", "repeats_s"}]}.
nlohmann::json planner_json(const PlannerReport& r);

/// The report as an aligned table for a terminal.
std::string planner_text(const PlannerReport& r);

}  // namespace kvplan::bench
