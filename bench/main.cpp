// kvplan-bench: measures prefill attention (naive and tiled, CPU and CUDA) over a sweep of n,
// checks every backend against an fp64 reference first, fits the scaling exponent and writes a
// JSON report a planner can read. `--planner` instead measures the planner (make_plan and fit).
// Exit codes: 0 ok; 1 a check failed, or the report or stdout could not be written; 2 bad options,
// or a backend asked for by name that cannot run here (no CUDA device, no CUDA module, a build
// without CUDA). The CUDA module is loaded only when a CUDA backend is selected (cuda_loader.cpp).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/check.hpp"
#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/machine.hpp"
#include "kvplan/bench/planner.hpp"
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
  bool planner = false, json = false;
  std::string planner_time = "0.3", planner_repeats = "3";
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
  app.add_flag("--planner", o.planner,
               "measure the planner instead: make_plan's plans/s per engine and model, with and without the "
               "max-context search, and the time of one whole fit search (bench/README.md)");
  app.add_flag("--json", o.json, "--planner: print the figures as one JSON object");
  app.add_option("--planner-time", o.planner_time,
                 "--planner: seconds each figure is measured for, per repeat "
                 "(default 0.3)");
  app.add_option("--planner-repeats", o.planner_repeats,
                 "--planner: repeats of each figure, the median reported (default 3)");
}

/// What --planner allows beside itself: the others belong to the attention sweep.
bool planner_option(const std::string& name) {
  return name == "--planner" || name == "--json" || name == "--planner-time" || name == "--planner-repeats" ||
         name == "--out" || name == "--quiet" || name == "--help";
}

/// Refuses options that do nothing where they are given: sweep options with --planner, planner
/// options without it. Throws kvplan::Error naming the option.
void check_mode(const CLI::App& app, const BenchOptions& o) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->count() == 0) continue;
    const std::string name = opt->get_lnames().empty() ? opt->get_name() : "--" + opt->get_lnames().front();
    if (o.planner && !planner_option(name)) throw Error(name, "cannot be combined with --planner");
    if (!o.planner && (name == "--json" || name == "--planner-time" || name == "--planner-repeats"))
      throw Error(name, "only with --planner");
  }
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

/// A number of seconds, finite and 0 or more; throws kvplan::Error(field, ...) otherwise.
double parse_seconds(const std::string& text, const std::string& field) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw Error(field, "must be a number of seconds, 0 or more, not '" + text + "'");
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
      // An unknown name throws; a known one is not made here (a CUDA one would load the module).
      const auto& names = backend_names();
      if (std::find(names.begin(), names.end(), b) == names.end()) make_backend(b);
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
  s.min_time = parse_seconds(o.min_time, "--min-time");
  if (!o.threads.empty()) set_cpu_threads(to_int(o.threads, "--threads", 4096));
  s.fit_min_n = parse_tokens(o.fit_min_n, "--fit-min-n").value;
  if (o.statistic == "median")
    s.statistic = Statistic::median;
  else if (o.statistic == "min")
    s.statistic = Statistic::min;
  else
    throw Error("--statistic", "must be median or min, not '" + o.statistic + "'");
  s.seed = o.seed == "0" ? 0 : parse_count(o.seed, "--seed");
  if (!o.max_memory.empty()) {
    s.cpu.max_memory = parse_bytes(o.max_memory, "--max-memory").value;
    // 0 used to turn the memory guard off without a word (backends.cpp reads 0 as "no limit" nowhere).
    if (*s.cpu.max_memory == 0)
      throw Error("--max-memory",
                  "must be positive (the memory a CPU run may use; the default is 90% of "
                  "MemAvailable)");
  }
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

/// errno of the first failed write to stdout (0: none); main() reports it and exits 1.
int g_stdout_errno = 0;

void print(const std::string& s) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size() || std::fflush(stdout) != 0)
    if (g_stdout_errno == 0) g_stdout_errno = errno != 0 ? errno : EIO;
}

bool any_cuda(const Resolved& r) {
  return std::any_of(r.sweep.backends.begin(), r.sweep.backends.end(), is_cuda_backend);
}

/// The CUDA device when a CUDA backend is selected (this loads the CUDA module), else what is known
/// without loading it.
CudaDevice selected_device(const Resolved& r) {
  return any_cuda(r) ? cuda_device() : cuda_device_not_queried();
}

/// The backends that can run here; prints why the others cannot (skipped). Throws
/// kvplan::Error("--backend", ...) when one that was asked for by name cannot run.
std::vector<std::unique_ptr<Backend>> usable_backends(const Resolved& r) {
  std::vector<std::unique_ptr<Backend>> out;
  const CudaDevice dev = selected_device(r);
  for (const auto& name : r.sweep.backends) {
    if (is_cuda_backend(name) && !dev.present) {
      if (std::find(r.required.begin(), r.required.end(), name) != r.required.end())
        throw Error("--backend", name + ": " + dev.reason);
      std::fprintf(stderr, "kvplan-bench: %s: skipped: %s\n", name.c_str(), dev.reason.c_str());
      continue;
    }
    out.push_back(make_backend(name, r.sweep.cpu));
  }
  return out;
}

int run_check(const Resolved& r) {
  auto backends = usable_backends(r);
  int passed = 0, failed = 0;
  for (auto& b : backends) {
    for (const auto& c : check_suite(*b, r.sweep.seed)) {
      char line[400];
      std::snprintf(line, sizeof line, "%-10s %-4s %-72s %s (max abs err %.2g, allowed %.2g)%s%s\n",
                    b->name().c_str(), std::string(kvplan::name(b->dtype())).c_str(), c.name.c_str(),
                    c.passed ? "ok    " : "FAILED", c.max_abs_err, c.allowed, c.detail.empty() ? "" : ": ",
                    c.detail.c_str());
      print(line);
      (c.passed ? passed : failed)++;
    }
  }
  print("check: " + std::to_string(passed) + " passed, " + std::to_string(failed) + " failed\n");
  return failed == 0 ? 0 : 1;
}

/// Opens `path`, which exists and is not a regular file (a FIFO, /dev/stdout, a device), for writing without
/// waiting: a FIFO no process reads fails at once (ENXIO) instead of blocking the open forever. The
/// descriptor is made blocking again once open, so that a slow reader is waited for. Throws
/// kvplan::Error("--out", ...).
int open_out_in_place(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    std::error_code ec;
    if (err == ENXIO && std::filesystem::is_fifo(path, ec))
      throw Error("--out", path + ": is a FIFO (named pipe) that no process reads: it would block forever");
    if (err == ENXIO && std::filesystem::is_socket(path, ec))
      throw Error("--out", path + ": is a socket, not a file");
    throw Error("--out", path + ": cannot be written: " + std::strerror(err));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
    const int err = errno;
    ::close(fd);
    throw Error("--out", path + ": cannot be written: " + std::strerror(err));
  }
  return fd;
}

/// Writes `text` to `path` through `path`.tmp and a rename, so that a process killed mid-write
/// (a time limit) or a full disk leaves the previous complete file and no temporary; in place where
/// `path` is not a regular file (/dev/stdout). Throws kvplan::Error("--out", "PATH: cannot be
/// written: REASON") when it cannot.
void write_file(const std::string& text, const std::string& path) {
  std::error_code ec;
  // In place only where `path` exists and is not a regular file (/dev/stdout); else a new file appears
  // whole or not at all, and a failed write leaves neither a partial report nor the temporary.
  const bool in_place = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
  const std::string tmp = in_place ? path : path + ".tmp";
  std::string why;
  if (in_place) {
    const int fd = open_out_in_place(path);
    for (std::size_t done = 0; done < text.size() && why.empty();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n > 0)
        done += static_cast<std::size_t>(n);
      else if (n < 0 && errno != EINTR)
        why = std::strerror(errno);
    }
    if (::close(fd) != 0 && why.empty()) why = std::strerror(errno);
  } else {
    errno = 0;
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();  // flushes: a full disk fails here at the latest
    if (f.fail()) why = errno != 0 ? std::strerror(errno) : "write failed";
  }
  const auto fail = [&path](const std::string& reason) {
    return Error("--out", path + ": cannot be written" + (reason.empty() ? "" : ": " + reason));
  };
  if (in_place) {
    if (!why.empty()) throw fail(why);
    return;
  }
  if (why.empty()) {
    std::filesystem::rename(tmp, path, ec);
    if (ec) why = ec.message();
  }
  if (!why.empty()) {
    std::filesystem::remove(tmp, ec);
    throw fail(why);
  }
}

void write_report(const Report& rep, const std::string& path) {
  write_file(to_json(rep).dump(2) + "\n", path);
}

/// write_file once the measuring is done: a failure is one line on stderr and false (exit 1, as a
/// failed check: not bad input).
bool write_final(const std::string& text, const std::string& path) {
  try {
    write_file(text, path);
    return true;
  } catch (const Error& e) {
    std::fprintf(stderr, "kvplan-bench: error: %s\n", e.what());
    return false;
  }
}

/// Fails before the measuring when --out cannot be written, creating nothing: a temporary beside it
/// is created and removed (a device or /dev/stdout is opened as it is).
void probe_out(const std::string& path) {
  std::error_code ec;
  const bool in_place = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec);
  if (in_place) {
    if (std::filesystem::is_directory(path, ec)) throw Error("--out", path + ": is a directory");
    ::close(open_out_in_place(path));
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
  auto backends = usable_backends(r);
  const Log log = [&r](const std::string& s) {
    if (!r.quiet) std::fprintf(stderr, "kvplan-bench: %s\n", s.c_str());
  };
  Report rep;
  rep.created_utc = utc_now();
  rep.machine = machine_info();
  rep.device = selected_device(r);
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
    if (!write_final(to_json(rep).dump(2) + "\n", r.out)) return 1;
    log("wrote " + r.out);
  }
  return failed ? 1 : 0;
}

int run_planner(const BenchOptions& o) {
  PlannerOptions p;
  p.seconds = parse_seconds(o.planner_time, "--planner-time");
  p.repeats = to_int(o.planner_repeats, "--planner-repeats", 100);
  check_planner_options(p);
  if (!o.out.empty()) probe_out(o.out);
  if (!o.quiet)
    std::fprintf(stderr, "kvplan-bench: measuring the planner (at least %.1f s)\n",
                 p.seconds * p.repeats * (2 * 15 + 5));
  const PlannerReport rep = run_planner_bench(p);
  const std::string json = planner_json(rep).dump(2) + "\n";
  print(o.json ? json : planner_text(rep));
  return o.out.empty() || write_final(json, o.out) ? 0 : 1;
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
  int rc = 0;
  try {
    check_mode(app, o);
    if (o.planner) {
      rc = run_planner(o);
    } else {
      const auto r = resolve(o);
      rc = r.check ? run_check(r) : run_bench(r);
    }
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
  // Output that did not arrive (a full disk, a closed pipe) is a failure, not a result.
  if (g_stdout_errno == 0 && (std::fflush(stdout) != 0 || std::ferror(stdout)))
    g_stdout_errno = errno != 0 ? errno : EIO;
  if (g_stdout_errno != 0) {
    std::fprintf(stderr, "kvplan-bench: error: standard output: %s\n", std::strerror(g_stdout_errno));
    return 1;
  }
  return rc;
}
