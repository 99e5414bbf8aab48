#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/machine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

namespace kvplan::bench {

std::uint64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  std::uint64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

namespace {

/// What the CPU backends share: host buffers, the memory check, the clock and the cache flush.
class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const CpuOptions& o) : opt_(o) {}
  [[nodiscard]] DType dtype() const override { return DType::fp32; }
  [[nodiscard]] bool is_gpu() const override { return false; }

  [[nodiscard]] std::string unavailable(const Shape& s) const override {
    // Inputs and output (fp32) plus what the algorithm adds; the limit leaves 10% to everyone else.
    const std::uint64_t io = checked_mul(sizeof(float), 2 * q_elements(s) + 2 * kv_elements(s), "--seq");
    const std::uint64_t need = checked_add(io, extra_bytes(s), "--seq");
    const std::uint64_t limit = opt_.max_memory ? *opt_.max_memory : available_memory_bytes() / 10 * 9;
    if (limit != 0 && need > limit)
      return "needs " + format_bytes(Bytes{need}, UnitSystem::iec) + " (" + memory_note() + "), only " +
             format_bytes(Bytes{limit}, UnitSystem::iec) + " may be used";
    return "";
  }

  void prepare(const Shape& s, std::span<const float> q, std::span<const float> k,
               std::span<const float> v) override {
    validate(s);
    if (const std::string why = unavailable(s); !why.empty()) throw Error(name(), why);
    shape_ = s;
    q_.assign(q.begin(), q.end());
    k_.assign(k.begin(), k.end());
    v_.assign(v.begin(), v.end());
    o_.assign(q_elements(s), 0.0f);
    allocate();
  }

  double run() override {
    const auto t0 = std::chrono::steady_clock::now();
    compute();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  void flush() override {
    // Read-modify-write of every line: pulls the buffer through the caches, evicting Q, K, V.
    if (opt_.flush_bytes == 0) return;
    flush_buffer_.resize(opt_.flush_bytes);
    for (std::size_t i = 0; i < flush_buffer_.size(); i += 64) ++flush_buffer_[i];
  }

  [[nodiscard]] std::vector<float> output() const override { return o_; }

 protected:
  virtual void allocate() {}
  virtual void compute() = 0;
  [[nodiscard]] virtual std::string memory_note() const = 0;

  CpuOptions opt_;
  Shape shape_;
  std::vector<float> q_, k_, v_, o_;

 private:
  std::vector<unsigned char> flush_buffer_;
};

class CpuNaive final : public CpuBackend {
 public:
  using CpuBackend::CpuBackend;
  [[nodiscard]] std::string name() const override { return "cpu-naive"; }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape& s) const override { return naive_extra_bytes(s); }

 protected:
  void allocate() override {
    scores_.clear();
    scores_.shrink_to_fit();
    scores_.resize(naive_extra_bytes(shape_) / sizeof(float));
  }
  void compute() override { attention_naive(shape_, q_, k_, v_, o_, scores_); }
  [[nodiscard]] std::string memory_note() const override { return "the n x n scores of every head in fp32"; }

 private:
  std::vector<float> scores_;
};

class CpuTiled final : public CpuBackend {
 public:
  using CpuBackend::CpuBackend;
  [[nodiscard]] std::string name() const override { return "cpu-tiled"; }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape& s) const override {
    return tiled_extra_bytes_per_thread(s, tiles()) * static_cast<std::uint64_t>(cpu_threads());
  }

 protected:
  void compute() override { attention_tiled(shape_, q_, k_, v_, o_, tiles()); }
  [[nodiscard]] std::string memory_note() const override { return "inputs, output and one tile per thread"; }

 private:
  [[nodiscard]] Tiles tiles() const { return {opt_.tile_rows, opt_.tile_cols}; }
};

}  // namespace

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"cpu-naive", "cpu-tiled", "cuda-naive", "cuda-tiled"};
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const CpuOptions& cpu) {
  if (name == "cpu-naive") return std::make_unique<CpuNaive>(cpu);
  if (name == "cpu-tiled") return std::make_unique<CpuTiled>(cpu);
  if (name == "cuda-naive") return make_cuda_naive();
  if (name == "cuda-tiled") return make_cuda_tiled();
  throw Error("--backend", "unknown backend '" + name +
                               "' (cpu-naive, cpu-tiled, cuda-naive, cuda-tiled, cpu, cuda, all)");
}

}  // namespace kvplan::bench
