#pragma once
/// @file check.hpp
/// Correctness before timing: every backend against the fp64 reference on random data, and the
/// lesson's worked example (seed/attention-recap.txt) as exact tests.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kvplan/bench/backend.hpp"

namespace kvplan::bench {

/// A backend's output passes when |got - ref| <= abs + rel x |ref| for every element.
struct Tolerance {
  double abs = 0;
  double rel = 0;
};
/// Per dtype of the backends' kernels: fp32 1e-5 / 1e-4 (exp and sums of up to 32k terms in fp32);
/// bf16 2e-2 / 2e-2 (8-bit mantissa: P and O rounded to bf16 cost about 0.4% each). Any other type
/// has no kernel here: throws kvplan::Error("dtype", ...) naming it and the two that have one.
Tolerance tolerance(DType t);

/// Result of comparing an output with its reference.
struct Comparison {
  bool passed = true;
  double max_abs_err = 0;
  std::size_t failures = 0;     ///< elements outside the tolerance (NaN included)
  std::size_t worst_index = 0;  ///< element with the largest error
};
/// Element-wise comparison; sizes must match (a size mismatch fails).
Comparison compare(std::span<const float> got, std::span<const double> ref, Tolerance tol);

/// Random inputs of a shape: independent values uniform on [-sqrt 3, sqrt 3] (mean 0, variance 1),
/// reproducible from the seed (splitmix64); rounded to bf16 when asked.
struct Inputs {
  std::vector<float> q, k, v;
};
Inputs random_inputs(const Shape& s, std::uint64_t seed, bool bf16 = false);

/// Runs the backend on s, zero-padding head_dim when the backend needs it (padded_head_dim) with
/// the scale made explicit, and returns the unpadded output. Throws kvplan::Error if s cannot run.
std::vector<float> run_once(Backend& b, const Shape& s, std::span<const float> q, std::span<const float> k,
                            std::span<const float> v);

/// One named check and its outcome.
struct CheckCase {
  std::string name;
  bool passed = false;
  bool skipped = false;  ///< could not run here (memory, device): neither passed nor failed
  double max_abs_err = 0;
  double allowed = 0;  ///< the tolerance that applied, as an absolute error on values of size 1
  std::string detail;  ///< on failure: the worst element, expected and got
};

/// The lesson's exact tests (to the printed decimals, plus the dtype's tolerance):
/// weights 0.248, 0.475, 0.277 and output [0.435, 0.559] at position 3 of "the cat sat", with and
/// without the causal mask; under the mask, position 1's output is its own value [0.0, 0.1];
/// the mask example's softmax rows [1, 0, 0, 0], [0.08, 0.92, 0, 0], [0.18, 0.08, 0.74, 0]
/// and the fourth row, worked out here, [0.073, 0.295, 0.146, 0.486].
std::vector<CheckCase> lesson_checks(Backend& b);

/// Random data of shape s against attention_reference. `peak` multiplies the softmax scale:
/// 4 makes the weights peaky, exercising the running-maximum rescaling.
CheckCase random_check(Backend& b, const Shape& s, std::uint64_t seed, double peak = 1.0);

/// Everything `kvplan-bench --check` runs on one backend: the lesson, then random shapes with
/// head_dim 64 and 128 (and 40 where the backend takes it), causal and not, MHA, GQA and MQA,
/// n = 1, 7, 64, 193, 300 and a peaky case at n = 257.
std::vector<CheckCase> check_suite(Backend& b, std::uint64_t seed);

/// A few output rows of a timed run checked against reference_row: for every (batch, head) the
/// first, the last and one chosen by the seed. Returns the comparison over those rows.
Comparison spot_check(const Shape& s, std::span<const float> q, std::span<const float> k,
                      std::span<const float> v, std::span<const float> out, Tolerance tol, std::uint64_t seed,
                      std::size_t* rows_checked = nullptr);

}  // namespace kvplan::bench
