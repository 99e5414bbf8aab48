// The CUDA side when this build has none (CMake found no nvcc, or KVPLAN_CUDA=OFF): the CUDA
// backends exist so that --backend cuda-tiled is understood, and say why they cannot run.
#include <string>

#include "kvplan/bench/cuda.hpp"
#include "kvplan/error.hpp"

namespace kvplan::bench {
namespace {

constexpr const char* kNotBuilt = "not built with CUDA (no nvcc when CMake ran, or KVPLAN_CUDA=OFF)";

class Unbuilt final : public Backend {
 public:
  explicit Unbuilt(std::string name) : name_(std::move(name)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] Dtype dtype() const override { return Dtype::bf16; }
  [[nodiscard]] bool is_gpu() const override { return true; }
  [[nodiscard]] std::string unavailable(const Shape&) const override { return kNotBuilt; }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape&) const override { return 0; }
  void prepare(const Shape&, std::span<const float>, std::span<const float>,
               std::span<const float>) override {
    throw Error(name_, kNotBuilt);
  }
  double run() override { throw Error(name_, kNotBuilt); }
  void flush() override {}
  [[nodiscard]] std::vector<float> output() const override { return {}; }

 private:
  std::string name_;
};

}  // namespace

CudaDevice cuda_device() {
  CudaDevice d;
  d.reason = kNotBuilt;
  return d;
}

std::unique_ptr<Backend> make_cuda_naive() { return std::make_unique<Unbuilt>("cuda-naive"); }
std::unique_ptr<Backend> make_cuda_tiled() { return std::make_unique<Unbuilt>("cuda-tiled"); }

std::vector<double> cuda_gemm_seconds(std::uint64_t, int) { throw Error("cuda", kNotBuilt); }

}  // namespace kvplan::bench
