// The CUDA side as kvplan-bench sees it: cuda.hpp's functions forward to the module
// kvplan-bench-cuda.so (cuda_module.hpp), which is loaded with dlopen on the first call only. Where
// the module is missing or cannot be loaded, the CUDA backends exist (so that --backend cuda-tiled is
// understood) and say why they cannot run.
#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/cuda_module.hpp"
#include "kvplan/error.hpp"

namespace kvplan::bench {
namespace {

namespace fs = std::filesystem;

/// The running executable's folder, or empty where /proc/self/exe cannot be read.
fs::path exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path{} : exe.parent_path();
}

/// Where the module is looked for, in order: beside the executable (a build tree), then the
/// install's libdir/kvplan, relative to the executable (KVPLAN_BENCH_CUDA_RELDIR, from CMake).
std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  const fs::path dir = exe_dir();
  if (dir.empty()) return out;
  out.push_back(dir / kCudaModuleFile);
  out.push_back((dir / KVPLAN_BENCH_CUDA_RELDIR / kCudaModuleFile).lexically_normal());
  return out;
}

/// The first candidate that is a regular file, or empty.
fs::path find_module() {
  for (const auto& p : candidates()) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return {};
}

std::string not_found() {
#ifdef KVPLAN_BENCH_CUDA_BUILT
  std::string where;
  for (const auto& p : candidates()) where += (where.empty() ? "" : ", ") + p.string();
  return std::string("the CUDA module ") + kCudaModuleFile + " was not found (looked for " +
         (where.empty() ? std::string("it beside kvplan-bench") : where) + ")";
#else
  return "not built with CUDA (no nvcc when CMake ran, or KVPLAN_CUDA=OFF)";
#endif
}

/// The loaded module, or why there is none. Loaded once, never unloaded.
struct Module {
  const CudaModuleApi* api = nullptr;
  std::string reason;
};

const Module& module() {
  static const Module m = [] {
    Module x;
    const fs::path path = find_module();
    if (path.empty()) {
      x.reason = not_found();
      return x;
    }
    // RTLD_LOCAL: the module's symbols (and the CUDA libraries') stay out of the global scope.
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      x.reason = "cannot load " + path.string() + ": " + (e != nullptr ? e : "dlopen failed");
      return x;
    }
    using Entry = const CudaModuleApi* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(h, kCudaModuleEntry));
    const CudaModuleApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->abi != kCudaModuleAbi) {
      x.reason = path.string() + " is not a CUDA module of this kvplan-bench (rebuild both)";
      return x;
    }
    x.api = api;
    return x;
  }();
  return m;
}

/// A CUDA backend that cannot run here: it is listed and says why.
class Unavailable final : public Backend {
 public:
  Unavailable(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] DType dtype() const override { return DType::bf16; }
  [[nodiscard]] bool is_gpu() const override { return true; }
  [[nodiscard]] std::string unavailable(const Shape&) const override { return reason_; }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape&) const override { return 0; }
  void prepare(const Shape&, std::span<const float>, std::span<const float>,
               std::span<const float>) override {
    throw Error(name_, reason_);
  }
  double run() override { throw Error(name_, reason_); }
  void flush() override {}
  [[nodiscard]] std::vector<float> output() const override { return {}; }

 private:
  std::string name_, reason_;
};

}  // namespace

CudaDevice cuda_device() {
  if (const Module& m = module(); m.api != nullptr) return m.api->device();
  CudaDevice d;
  d.reason = module().reason;
  return d;
}

CudaDevice cuda_device_not_queried() {
  CudaDevice d;
  d.built = !find_module().empty();
  d.reason = "not queried (no CUDA backend asked for)";
  return d;
}

bool is_cuda_backend(const std::string& name) { return name.rfind("cuda-", 0) == 0; }

std::unique_ptr<Backend> make_cuda_naive() {
  if (const Module& m = module(); m.api != nullptr) return m.api->make_naive();
  return std::make_unique<Unavailable>("cuda-naive", module().reason);
}

std::unique_ptr<Backend> make_cuda_tiled() {
  if (const Module& m = module(); m.api != nullptr) return m.api->make_tiled();
  return std::make_unique<Unavailable>("cuda-tiled", module().reason);
}

std::vector<double> cuda_gemm_seconds(std::uint64_t size, int repeats) {
  if (const Module& m = module(); m.api != nullptr) return m.api->gemm_seconds(size, repeats);
  throw Error("cuda", module().reason);
}

}  // namespace kvplan::bench
