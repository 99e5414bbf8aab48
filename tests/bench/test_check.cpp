#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/check.hpp"
#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::bench;
using kvplan::DType;

namespace {

/// cpu-tiled behind a backend that only has kernels for head_dim 64 and 128, as cuda-tiled: run_once
/// must pad and unpad around it.
class PaddingBackend final : public Backend {
 public:
  [[nodiscard]] std::string name() const override { return "padded-cpu"; }
  [[nodiscard]] DType dtype() const override { return DType::fp32; }
  [[nodiscard]] bool is_gpu() const override { return false; }
  [[nodiscard]] std::uint64_t padded_head_dim(std::uint64_t d) const override {
    return d <= 64 ? 64 : d <= 128 ? 128 : 0;
  }
  [[nodiscard]] std::string unavailable(const Shape& s) const override {
    return s.head_dim == 64 || s.head_dim == 128 ? "" : "head_dim must be 64 or 128";
  }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape&) const override { return 0; }
  void prepare(const Shape& s, std::span<const float> q, std::span<const float> k,
               std::span<const float> v) override {
    if (!unavailable(s).empty()) throw kvplan::Error(name(), unavailable(s));
    inner_->prepare(s, q, k, v);
    ++prepared;
  }
  double run() override { return inner_->run(); }
  void flush() override {}
  [[nodiscard]] std::vector<float> output() const override { return inner_->output(); }
  int prepared = 0;

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu-tiled");
};

}  // namespace

// The whole --check suite runs as a ctest of the binary ("bench: cli: --check passes on the CPU").
TEST_CASE("the lesson's exact tests pass on every CPU backend", "[bench][check]") {
  for (const char* name : {"cpu-naive", "cpu-tiled"}) {
    auto b = make_backend(name);
    const auto cases = lesson_checks(*b);
    CHECK(cases.size() == 7);
    for (const auto& c : cases) {
      INFO(name << ": " << c.name << ": " << c.detail);
      CHECK(c.passed);
    }
  }
}

TEST_CASE("run_once pads head_dim for backends with fixed kernels", "[bench][check]") {
  PaddingBackend padded;
  auto plain = make_backend("cpu-tiled");
  const Shape s{.batch = 1, .heads = 2, .kv_heads = 1, .n = 37, .head_dim = 40, .causal = true};
  const Inputs in = random_inputs(s, 3);
  const auto a = run_once(padded, s, in.q, in.k, in.v);
  const auto b = run_once(*plain, s, in.q, in.k, in.v);
  REQUIRE(a.size() == b.size());
  CHECK(padded.prepared == 1);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(std::abs(a[i] - b[i]) < 1e-6f);
  // The lesson runs padded too: d = 2 and 3 go to 64 with the scale kept at 1/sqrt 2.
  for (const auto& c : lesson_checks(padded)) {
    INFO(c.name << ": " << c.detail);
    CHECK(c.passed);
  }
  const Shape big{.batch = 1, .heads = 1, .kv_heads = 1, .n = 4, .head_dim = 256};
  const Inputs bi = random_inputs(big, 3);
  CHECK_THROWS_AS(run_once(padded, big, bi.q, bi.k, bi.v), kvplan::Error);
}

TEST_CASE("compare: tolerance, NaN and sizes", "[bench][check]") {
  const std::vector<float> got{1.0f, 2.0f, 3.5f};
  const std::vector<double> ref{1.0, 2.0, 3.0};
  const Comparison c = compare(got, ref, {0.1, 0.0});
  CHECK_FALSE(c.passed);
  CHECK(c.failures == 1);
  CHECK(c.worst_index == 2);
  CHECK(c.max_abs_err == 0.5);
  CHECK(compare(got, ref, {0.0, 0.2}).passed);  // 0.5 <= 0.2 x 3
  const std::vector<float> nan{1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  CHECK_FALSE(compare(nan, ref, {1e9, 0}).passed);
  CHECK_FALSE(compare(std::vector<float>{1.0f}, ref, {1e9, 0}).passed);
}

TEST_CASE("random inputs: reproducible, unit variance, bf16 on request", "[bench][check]") {
  const Shape s{.batch = 1, .heads = 2, .kv_heads = 2, .n = 512, .head_dim = 64};
  const Inputs a = random_inputs(s, 7), b = random_inputs(s, 7), c = random_inputs(s, 8);
  CHECK(a.q == b.q);
  CHECK(a.q != c.q);
  double sum = 0, sq = 0;
  for (const float x : a.q) {
    CHECK(std::abs(x) <= std::sqrt(3.0f));
    sum += x;
    sq += static_cast<double>(x) * x;
  }
  const double n = static_cast<double>(a.q.size());
  CHECK(std::abs(sum / n) < 0.02);       // mean 0: 65,536 values, standard error 0.004
  CHECK(std::abs(sq / n - 1.0) < 0.02);  // variance 1
  const Inputs r = random_inputs(s, 7, true);
  for (std::size_t i = 0; i < r.q.size(); ++i) CHECK(r.q[i] == round_to_bf16(a.q[i]));
}

TEST_CASE("tolerance: the kernels' types, and a type without a kernel refused", "[bench][check]") {
  // The two kernels' types (check.hpp): fp32 1e-5 / 1e-4, bf16 2e-2 / 2e-2.
  CHECK(tolerance(DType::fp32).abs == 1e-5);
  CHECK(tolerance(DType::bf16).rel == 2e-2);
  // Core's DType has types no backend computes in: one line naming the type, never a zero tolerance.
  CHECK_THROWS_WITH(tolerance(DType::fp16),
                    "dtype: kvplan-bench has no attention kernel for fp16 (fp32 on the CPU, bf16 on CUDA)");
  CHECK_THROWS_AS(tolerance(DType::q8_0), kvplan::Error);
}

TEST_CASE("spot check catches a wrong row", "[bench][check]") {
  const Shape s{.batch = 1, .heads = 2, .kv_heads = 2, .n = 50, .head_dim = 16, .causal = true};
  const Inputs in = random_inputs(s, 5);
  std::vector<float> o(q_elements(s));
  attention_tiled(s, in.q, in.k, in.v, o, {16, 16});
  std::size_t rows = 0;
  CHECK(spot_check(s, in.q, in.k, in.v, o, tolerance(DType::fp32), 9, &rows).passed);
  CHECK(rows == 6);                                  // 2 heads x (first, last, one chosen)
  o[(1 * s.n + s.n - 1) * s.head_dim + 3] += 0.01f;  // head 1, last row: always checked
  const Comparison c = spot_check(s, in.q, in.k, in.v, o, tolerance(DType::fp32), 9);
  CHECK_FALSE(c.passed);
  CHECK(c.worst_index == (1 * s.n + s.n - 1) * s.head_dim + 3);
}
