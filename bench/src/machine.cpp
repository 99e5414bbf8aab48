#include "kvplan/bench/machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <Eigen/Core>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef KVPLAN_BENCH_OPENBLAS
#include <cblas.h>
#endif

#include "kvplan/error.hpp"

namespace kvplan::bench {

namespace {
std::string cpuinfo_value(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::uint64_t meminfo_total() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  return 0;
}

std::uint64_t sysconf_bytes(int name) {
  const long v = sysconf(name);
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

template <class F>
std::vector<double> time_runs(int repeats, F&& f) {
  f();  // warm-up: page faults, thread start
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return t;
}
}  // namespace

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "";
  return a + " " + b + " " + c;
}

int cpu_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void set_cpu_threads(int n) {
  if (n <= 0) throw Error("--threads", "must be positive");
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
#ifdef KVPLAN_BENCH_OPENBLAS
  openblas_set_num_threads(n);
#endif
}

MachineInfo machine_info() {
  MachineInfo m;
  m.cpu = cpuinfo_value("model name");
  m.logical_cpus = std::thread::hardware_concurrency();
  m.memory_bytes = meminfo_total();
  m.l2_bytes = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  m.l3_bytes = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
  if (utsname u{}; uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
#if defined(__clang__)
  m.compiler = "Clang " __clang_version__;
#elif defined(__GNUC__)
  m.compiler = "GCC " __VERSION__;
#endif
#if defined(__AVX512F__)
  m.simd = "AVX-512";
#elif defined(__AVX2__)
  m.simd = "AVX2";
#elif defined(__AVX__)
  m.simd = "AVX";
#else
  m.simd = "SSE2";
#endif
  m.eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
            std::to_string(EIGEN_MINOR_VERSION);
#ifdef KVPLAN_BENCH_OPENBLAS
  m.openblas = openblas_get_config();
  m.openblas_core = openblas_get_corename();
#endif
#ifdef _OPENMP
  m.openmp = true;
#endif
  m.threads = cpu_threads();
  m.load_average = load_average();
  for (const char* name : {"OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OMP_PROC_BIND", "OPENBLAS_CORETYPE",
                           "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES"})
    if (const char* v = std::getenv(name)) m.environment.emplace_back(name, v);
  return m;
}

std::string openblas_note() {
#ifdef KVPLAN_BENCH_OPENBLAS
  const std::string core = openblas_get_corename();
  if (core != "Prescott" && core != "Core2" && core != "Nehalem") return "";
  __builtin_cpu_init();
  const char* better = __builtin_cpu_supports("avx512f") ? "SkylakeX"
                       : __builtin_cpu_supports("avx2")  ? "Haswell"
                                                         : nullptr;
  if (better == nullptr) return "";
  return "OpenBLAS picked its " + core + " kernels on a CPU with " +
         (std::string(better) == "SkylakeX" ? "AVX-512" : "AVX2") +
         ": its GEMM baseline is slow; run with OPENBLAS_CORETYPE=" + better + " for a fair one";
#else
  return "";
#endif
}

std::vector<double> eigen_gemm_seconds(std::uint64_t size, int repeats) {
  const auto n = static_cast<Eigen::Index>(size);
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n);
  Eigen::MatrixXf c(n, n);
  return time_runs(repeats, [&] { c.noalias() = a * b; });
}

std::optional<std::vector<double>> openblas_gemm_seconds(std::uint64_t size, int repeats) {
#ifdef KVPLAN_BENCH_OPENBLAS
  const auto n = static_cast<blasint>(size);
  std::vector<float> a(size * size, 0.5f), b(size * size, 0.25f), c(size * size);
  return time_runs(repeats, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                c.data(), n);
  });
#else
  (void)size;
  (void)repeats;
  return std::nullopt;
#endif
}

CpuGemm::CpuGemm(std::uint64_t size)
    : size_(size), a_(size * size, 0.5f), b_(size * size, 0.25f), c_(size * size) {}
CpuGemm::~CpuGemm() = default;

std::string CpuGemm::library() const {
#ifdef KVPLAN_BENCH_OPENBLAS
  return "OpenBLAS";
#else
  return "Eigen";
#endif
}

double CpuGemm::run() {
  const auto t0 = std::chrono::steady_clock::now();
#ifdef KVPLAN_BENCH_OPENBLAS
  const auto n = static_cast<blasint>(size_);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a_.data(), n, b_.data(), n, 0.0f,
              c_.data(), n);
#else
  const auto n = static_cast<Eigen::Index>(size_);
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<RowMatrix>(c_.data(), n, n).noalias() =
      Eigen::Map<const RowMatrix>(a_.data(), n, n) * Eigen::Map<const RowMatrix>(b_.data(), n, n);
#endif
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace kvplan::bench
