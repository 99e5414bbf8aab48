// kvplan-bench: measures prefill attention (naive and tiled, CPU and CUDA) over a sweep of n,
// checks every backend against an fp64 reference first, fits the scaling exponent and writes a
// JSON report a planner can read. Exit codes: 0 ok, 1 a check failed, 2 bad options, 3 a backend
// that was asked for by name cannot run here (no CUDA device, or a build without CUDA).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/check.hpp"
#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/machine.hpp"
#include "kvplan/bench/report.hpp"
#include "kvplan/bench/sweep.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

namespace kvplan::bench {
namespace {

/// The command line as typed; resolved into SweepOptions by resolve().
struct BenchOptions {
  std::string backend = "all";
  std::string seq;
  std::string batch = "1", heads = "8", kv_heads;
  std::string head_dim = "64,128";
  std::string causal = "no";
  std::string statistic = "median";
  std::string repeats = "5", min_time = "0.5", warmup = "1", threads, fit_min_n = "1024", seed = "1";
  std::string max_memory, flush, tile = "256x256", gemm_size = "2048", gpu_gemm_size = "8192";
  bool no_gemm = false;
  bool sequential = false;
  bool check = false;
  bool quiet = false;
  std::string out;
};

void setup(CLI::App& app, BenchOptions& o) {
  app.description(
      "kvplan-bench: measures prefill attention time against sequence length n on this machine (CPU, and an "
      "NVIDIA GPU when one exists), checks every backend against an fp64 reference, fits the exponent of n "
      "and "
      "writes a JSON report (--out) that `kvplan prefill --calibration` reads.");
  app.add_option("--backend", o.backend,
                 "backends, comma-separated: cpu-naive, cpu-tiled, cuda-naive, cuda-tiled; or cpu, cuda, all "
                 "(default all: CUDA skipped where no device)");
  app.add_option("--seq", o.seq,
                 "sequence lengths, comma-separated (1k = 1000, 1Ki = 1024); default powers of two "
                 "256..4096 on the CPU, 256..32768 on a GPU");
  app.add_option("--batch", o.batch, "batch size (default 1)");
  app.add_option("--heads", o.heads, "query heads (default 8)");
  app.add_option("--kv-heads", o.kv_heads, "KV heads, dividing --heads (GQA; default = --heads)");
  app.add_option("--head-dim", o.head_dim, "head dimensions, comma-separated (default 64,128)");
  app.add_flag("--causal{yes}", o.causal, "causal mask: --causal, --causal=no (default), --causal=both");
  app.add_option("--repeats", o.repeats, "timed runs per point (default 5)");
  app.add_option(
      "--min-time", o.min_time,
      "seconds: short points repeat past --repeats until their timed runs add up to this (default 0.5)");
  app.add_option("--warmup", o.warmup, "untimed runs first, at least 1 (default 1)");
  app.add_option("--threads", o.threads, "CPU threads (default: OpenMP's, every core)");
  app.add_option("--statistic", o.statistic,
                 "median (default) or min: the time the fits and the GEMM comparison use (min suits a busy "
                 "shared machine)");
  app.add_option("--fit-min-n", o.fit_min_n, "smallest n in the exponent fit (default 1024)");
  app.add_option("--seed", o.seed, "seed of the random inputs (default 1)");
  app.add_option("--max-memory", o.max_memory, "memory a CPU run may use (default 90% of MemAvailable)");
  app.add_option("--flush", o.flush,
                 "bytes written between CPU runs to evict caches (default 2 x L2 x cores)");
  app.add_option("--tile", o.tile, "cpu-tiled query x key tile (default 256x256)");
  app.add_option("--gemm-size", o.gemm_size, "CPU GEMM baseline m = n = k (default 2048)");
  app.add_option("--gpu-gemm-size", o.gpu_gemm_size, "GPU GEMM baseline m = n = k (default 8192)");
  app.add_flag("--no-gemm", o.no_gemm, "skip the GEMM baselines");
  app.add_flag("--sequential", o.sequential,
               "CPU: time each n to the end before the next (default: timed runs in rounds over all n)");
  app.add_flag("--check", o.check, "run only the correctness checks; exit 1 if any fails");
  app.add_flag("--quiet", o.quiet, "no progress lines on stderr");
  app.add_option("--out", o.out, "write the JSON report to this file");
}

std::vector<std::string> split(const std::string& s, const std::string& field) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) throw Error(field, "empty item in list '" + s + "'");
    out.push_back(item);
  }
  if (out.empty()) throw Error(field, "must not be empty");
  return out;
}

/// Longest sequence a sweep takes (tokens).
constexpr std::uint64_t kMaxSeq = std::uint64_t{1} << 20;
/// Largest cache-flush buffer (bytes): 1 GiB, past the last-level cache of any CPU.
constexpr std::uint64_t kMaxFlushBytes = std::uint64_t{1} << 30;

int to_int(const std::string& s, const std::string& field, std::uint64_t max) {
  const std::uint64_t v = parse_count(s, field);
  if (v > max) throw Error(field, "must be at most " + std::to_string(max));
  return static_cast<int>(v);
}

struct Resolved {
  SweepOptions sweep;
  std::vector<std::string> required;  // backends named explicitly: must run
  bool check = false, quiet = false;
  std::string out;
};

Resolved resolve(const BenchOptions& o) {
  Resolved r;
  SweepOptions& s = r.sweep;
  for (const auto& b : split(o.backend, "--backend")) {
    std::vector<std::string> add;
    if (b == "all") {
      add = backend_names();
    } else if (b == "cpu" || b == "cuda") {
      for (const auto& n : backend_names())
        if (n.rfind(b + "-", 0) == 0) add.push_back(n);
      r.required.insert(r.required.end(), add.begin(), add.end());
    } else {
      make_backend(b);  // throws for an unknown name
      add = {b};
      r.required.push_back(b);
    }
    for (const auto& n : add)
      if (std::find(s.backends.begin(), s.backends.end(), n) == s.backends.end()) s.backends.push_back(n);
  }
  if (!o.seq.empty())
    for (const auto& n : split(o.seq, "--seq")) {
      s.seq.push_back(parse_tokens(n, "--seq").value);
      if (s.seq.back() > kMaxSeq)
        throw Error("--seq", format_count(s.seq.back()) + " tokens: at most " + format_count(kMaxSeq) +
                                 " (the limit: attention of that length already takes hours on a CPU)");
    }
  s.batch = parse_count(o.batch, "--batch");
  s.heads = parse_count(o.heads, "--heads");
  s.kv_heads = o.kv_heads.empty() ? s.heads : parse_count(o.kv_heads, "--kv-heads");
  s.head_dims.clear();
  for (const auto& d : split(o.head_dim, "--head-dim")) s.head_dims.push_back(parse_count(d, "--head-dim"));
  if (o.causal == "no")
    s.causal = {false};
  else if (o.causal == "yes")
    s.causal = {true};
  else if (o.causal == "both")
    s.causal = {false, true};
  else
    throw Error("--causal", "must be no, yes or both, not '" + o.causal + "'");
  s.repeats = to_int(o.repeats, "--repeats", 100000);
  s.warmup = o.warmup == "0" ? 0 : to_int(o.warmup, "--warmup", 100000);
  try {
    std::size_t used = 0;
    s.min_time = std::stod(o.min_time, &used);
    if (used != o.min_time.size() || !std::isfinite(s.min_time) || s.min_time < 0)
      throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw Error("--min-time", "must be a number of seconds, 0 or more, not '" + o.min_time + "'");
  }
  if (!o.threads.empty()) set_cpu_threads(to_int(o.threads, "--threads", 4096));
  s.fit_min_n = parse_tokens(o.fit_min_n, "--fit-min-n").value;
  if (o.statistic == "median")
    s.statistic = Statistic::median;
  else if (o.statistic == "min")
    s.statistic = Statistic::min;
  else
    throw Error("--statistic", "must be median or min, not '" + o.statistic + "'");
  s.seed = o.seed == "0" ? 0 : parse_count(o.seed, "--seed");
  if (!o.max_memory.empty()) s.cpu.max_memory = parse_bytes(o.max_memory, "--max-memory").value;
  const MachineInfo m = machine_info();
  s.cpu.flush_bytes = o.flush.empty() ? std::max<std::uint64_t>(2 * m.l2_bytes * m.logical_cpus, 1u << 20)
                                      : parse_bytes(o.flush, "--flush").value;
  if (s.cpu.flush_bytes > kMaxFlushBytes)
    throw Error("--flush", format_count(s.cpu.flush_bytes) + " B: at most " + format_count(kMaxFlushBytes) +
                               " B (1 GiB, the limit: past any CPU's caches)");
  const auto x = o.tile.find('x');
  if (x == std::string::npos) throw Error("--tile", "must be ROWSxCOLS, e.g. 256x256");
  s.cpu.tile_rows = parse_count(o.tile.substr(0, x), "--tile");
  s.cpu.tile_cols = parse_count(o.tile.substr(x + 1), "--tile");
  s.cpu.threads = cpu_threads();
  s.cpu_gemm_size = parse_count(o.gemm_size, "--gemm-size");
  s.gpu_gemm_size = parse_count(o.gpu_gemm_size, "--gpu-gemm-size");
  s.gemm = !o.no_gemm;
  s.interleave = !o.sequential;
  // Every shape the sweep will build must be valid: the errors name the option.
  for (const auto d : s.head_dims) validate(Shape{s.batch, s.heads, s.kv_heads, 1, d, false, 0.0});
  for (const auto n : s.seq)
    validate(Shape{s.batch, s.heads, s.kv_heads, n, s.head_dims.front(), false, 0.0});
  r.check = o.check;
  r.quiet = o.quiet;
  r.out = o.out;
  return r;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void print(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

/// The backends that can run here; prints why the others cannot. Sets `missing` when one that
/// was asked for by name cannot run.
std::vector<std::unique_ptr<Backend>> usable_backends(const Resolved& r, bool& missing) {
  std::vector<std::unique_ptr<Backend>> out;
  const CudaDevice dev = cuda_device();
  for (const auto& name : r.sweep.backends) {
    auto b = make_backend(name, r.sweep.cpu);
    if (b->is_gpu() && !dev.present) {
      const bool required = std::find(r.required.begin(), r.required.end(), name) != r.required.end();
      std::fprintf(stderr, "kvplan-bench: %s: %s%s\n", name.c_str(),
                   required ? "" : "skipped: ", dev.reason.c_str());
      missing = missing || required;
      continue;
    }
    out.push_back(std::move(b));
  }
  return out;
}

int run_check(const Resolved& r) {
  bool missing = false;
  auto backends = usable_backends(r, missing);
  if (missing) return 3;
  int passed = 0, failed = 0;
  for (auto& b : backends) {
    for (const auto& c : check_suite(*b, r.sweep.seed)) {
      char line[400];
      std::snprintf(line, sizeof line, "%-10s %-4s %-72s %s (max abs err %.2g, allowed %.2g)%s%s\n",
                    b->name().c_str(), to_string(b->dtype()).c_str(), c.name.c_str(),
                    c.passed ? "ok    " : "FAILED", c.max_abs_err, c.allowed, c.detail.empty() ? "" : ": ",
                    c.detail.c_str());
      print(line);
      (c.passed ? passed : failed)++;
    }
  }
  print("check: " + std::to_string(passed) + " passed, " + std::to_string(failed) + " failed\n");
  return failed == 0 ? 0 : 1;
}

/// Writes the report to `path` through `path`.tmp and a rename, so that a process killed mid-write
/// (a time limit) leaves the previous complete report; in place where `path` is not a regular file
/// (/dev/stdout). Throws kvplan::Error when it cannot.
void write_report(const Report& rep, const std::string& path) {
  std::error_code ec;
  // In place only where `path` exists and is not a regular file (/dev/stdout); else a new file appears
  // whole or not at all, and a failed write leaves neither a partial report nor the temporary.
  const bool in_place = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
  const std::string tmp = in_place ? path : path + ".tmp";
  bool ok = false;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << to_json(rep).dump(2) << "\n";
    f.close();
    ok = !f.fail();
  }
  if (in_place) {
    if (!ok) throw Error(path, "cannot be written");
    return;
  }
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(path, "cannot be written" + (ok ? ": " + ec.message() : std::string()));
  }
}

/// Fails before the measuring when --out cannot be written, creating nothing: a temporary beside it
/// is created and removed (a device or /dev/stdout is opened as it is).
void probe_out(const std::string& path) {
  std::error_code ec;
  const bool in_place = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
  if (in_place) {
    if (std::filesystem::is_directory(path, ec)) throw Error("--out", path + ": is a directory");
    if (!std::ofstream(path, std::ios::app)) throw Error("--out", path + ": cannot be written");
    return;
  }
  const std::string tmp = path + ".tmp";
  const bool ok = static_cast<bool>(std::ofstream(tmp, std::ios::binary | std::ios::trunc));
  std::filesystem::remove(tmp, ec);
  if (!ok) throw Error("--out", path + ": cannot be written");
}

int run_bench(const Resolved& r) {
  if (!r.out.empty()) probe_out(r.out);  // fail now, not after the measuring
  std::error_code ec;
  const bool rewrite = !r.out.empty() && std::filesystem::is_regular_file(r.out, ec);  // after each run
  bool missing = false;
  auto backends = usable_backends(r, missing);
  if (missing) return 3;
  const Log log = [&r](const std::string& s) {
    if (!r.quiet) std::fprintf(stderr, "kvplan-bench: %s\n", s.c_str());
  };
  Report rep;
  rep.created_utc = utc_now();
  rep.machine = machine_info();
  rep.device = cuda_device();
  rep.options = r.sweep;
  bool any_cpu = false, any_gpu = false, failed = false;
  for (auto& b : backends) (b->is_gpu() ? any_gpu : any_cpu) = true;
  if (any_cpu) {
    // A busy machine: multi-threaded runs of a millisecond wait on each other's time slices.
    const double load = std::atof(rep.machine.load_average.c_str());
    if (load > 0.5 * rep.machine.logical_cpus) {
      const std::string note = "the machine is busy (load average " + rep.machine.load_average + " on " +
                               std::to_string(rep.machine.logical_cpus) +
                               " CPUs): timings are noisy; --threads 1 --statistic min suffer least";
      log("note: " + note);
      rep.notes.push_back(note);
    }
  }
  // The GEMM baselines before and after the sweeps: a comparison uses the faster of the two.
  if (r.sweep.gemm) {
    if (any_cpu)
      if (const std::string note = openblas_note(); !note.empty()) {
        log("note: " + note);
        rep.notes.push_back(note);
      }
    rep.gemm = gemm_baselines(r.sweep, any_cpu, any_gpu, "before", log);
  }
  for (auto& b : backends) {
    const std::vector<std::uint64_t> seq = r.sweep.seq.empty() ? default_seq(b->is_gpu()) : r.sweep.seq;
    for (const auto d : r.sweep.head_dims)
      for (const bool causal : r.sweep.causal) {
        RunResult run = run_sweep(*b, r.sweep, seq, d, causal, log);
        for (const auto& p : run.points) failed = failed || p.status == "failed";
        print(run_text(run) + "\n");
        rep.runs.push_back(std::move(run));
        // The runs so far, rewritten after each: a sweep stopped by a time limit keeps them.
        if (rewrite) {
          try {
            write_report(rep, r.out);
          } catch (const Error& e) {
            log(std::string("note: ") + e.what());
          }
        }
      }
  }
  if (r.sweep.gemm) {
    for (auto& g : gemm_baselines(r.sweep, any_cpu, any_gpu, "after", log)) rep.gemm.push_back(std::move(g));
    print(gemm_text(rep));
  }
  rep.load_average_end = load_average();
  if (!r.out.empty()) {
    write_report(rep, r.out);
    log("wrote " + r.out);
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace kvplan::bench

int main(int argc, char** argv) {
  using namespace kvplan::bench;
  CLI::App app{"kvplan-bench"};
  BenchOptions o;
  setup(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    for (auto& c : msg)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "kvplan-bench: error: %s\n", msg.c_str());
    return 2;
  }
  try {
    const auto r = resolve(o);
    return r.check ? run_check(r) : run_bench(r);
  } catch (const kvplan::Error& e) {
    std::fprintf(stderr, "kvplan-bench: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kvplan-bench: error: out of memory (lower --seq, --batch, --heads or --flush)\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kvplan-bench: error: %s\n", e.what());
    return 2;
  }
}
