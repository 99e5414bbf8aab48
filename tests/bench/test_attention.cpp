#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kvplan/bench/check.hpp"
#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::bench;
using Catch::Matchers::WithinAbs;
using kvplan::DType;

namespace {

std::vector<double> reference(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v) {
  const std::vector<double> qd(q.begin(), q.end()), kd(k.begin(), k.end()), vd(v.begin(), v.end());
  std::vector<double> o(q_elements(s));
  attention_reference(s, qd, kd, vd, o);
  return o;
}
std::vector<float> naive(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                         const std::vector<float>& v) {
  std::vector<float> o(q_elements(s)), scores(naive_extra_bytes(s) / sizeof(float));
  attention_naive(s, q, k, v, o, scores);
  return o;
}
std::vector<float> tiled(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
                         const std::vector<float>& v, Tiles t = {}) {
  std::vector<float> o(q_elements(s));
  attention_tiled(s, q, k, v, o, t);
  return o;
}

// The lesson's "the cat sat" (seed/attention-recap.txt), d = 2, every query q(sat) = [1.2, 0.4].
const std::vector<float> kQ{1.2f, 0.4f, 1.2f, 0.4f, 1.2f, 0.4f};
const std::vector<float> kK{0.2f, 0.1f, 0.9f, 0.3f, 0.1f, 0.8f};
const std::vector<float> kV{0.0f, 0.1f, 0.8f, 0.6f, 0.2f, 0.9f};

}  // namespace

TEST_CASE("fp64 reference: the lesson's worked example", "[bench][attention]") {
  for (const bool causal : {false, true}) {
    const Shape s{.batch = 1, .heads = 1, .kv_heads = 1, .n = 3, .head_dim = 2, .causal = causal};
    const auto o = reference(s, kQ, kK, kV);
    // Position 3 sees all three keys either way. Scores 0.28, 1.20, 0.44 / sqrt 2; weights 0.248, 0.475,
    // 0.277; output 0.248 [0.0, 0.1] + 0.475 [0.8, 0.6] + 0.277 [0.2, 0.9] = [0.435, 0.559] (the lesson);
    // unrounded: [0.43535, 0.55935].
    CHECK_THAT(o[4], WithinAbs(0.435, 0.0005));
    CHECK_THAT(o[5], WithinAbs(0.559, 0.0005));
    CHECK_THAT(o[4], WithinAbs(0.43535, 0.000005));
    CHECK_THAT(o[5], WithinAbs(0.55935, 0.000005));
  }
  // Causal row 1 sees only itself: weight exactly 1, output exactly v(the).
  const Shape c{.batch = 1, .heads = 1, .kv_heads = 1, .n = 3, .head_dim = 2, .causal = true};
  const auto o = reference(c, kQ, kK, kV);
  CHECK(o[0] == 0.0);
  CHECK(o[1] == static_cast<double>(0.1f));
}

TEST_CASE("every CPU version: uniform weights give the mean of the values", "[bench][attention]") {
  // K = 0: every score is 0, every visible key weighs the same. V rows [1, 2], [3, 4], [5, 6], [7, 8].
  // Not causal: every row is the mean [4, 5]. Causal: row i is the mean of rows 0..i:
  // [1, 2], [2, 3], [3, 4], [4, 5].
  const std::vector<float> q{1, 2, 3, 4, 5, 6, 7, 8}, k(8, 0.0f), v{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> full{4, 5, 4, 5, 4, 5, 4, 5}, prefix{1, 2, 2, 3, 3, 4, 4, 5};
  for (const bool causal : {false, true}) {
    const Shape s{.batch = 1, .heads = 1, .kv_heads = 1, .n = 4, .head_dim = 2, .causal = causal};
    const auto& want = causal ? prefix : full;
    const auto r = reference(s, q, k, v);
    const auto a = naive(s, q, k, v);
    const auto b = tiled(s, q, k, v);
    const auto t =
        tiled(s, q, k, v, {1, 1});  // one query and one key per tile: the online softmax throughout
    for (std::size_t i = 0; i < want.size(); ++i) {
      CHECK_THAT(r[i], WithinAbs(want[i], 1e-12));
      CHECK_THAT(a[i], WithinAbs(want[i], 1e-6));
      CHECK_THAT(b[i], WithinAbs(want[i], 1e-6));
      CHECK_THAT(t[i], WithinAbs(want[i], 1e-6));
    }
  }
}

TEST_CASE("CPU versions against the fp64 reference on random data", "[bench][attention]") {
  struct Case {
    Shape shape;
    Tiles tiles;
  };
  // Tiles smaller than, equal to and larger than n; n not a multiple of the tile; GQA and MQA.
  const Case c = GENERATE(
      Case{{2, 4, 4, 70, 16, false, 0.0}, {16, 32}}, Case{{2, 4, 4, 70, 16, true, 0.0}, {16, 32}},
      Case{{1, 4, 2, 33, 8, true, 0.0}, {7, 5}}, Case{{1, 4, 1, 33, 8, false, 0.0}, {5, 7}},
      Case{{1, 2, 2, 50, 64, true, 0.0}, {256, 256}}, Case{{1, 2, 1, 1, 32, true, 0.0}, {4, 4}},
      Case{{1, 2, 2, 64, 16, true, 0.0}, {16, 16}}, Case{{1, 2, 2, 40, 16, true, 0.9}, {8, 16}},
      // Causal diagonal tiles in strips of 64 rows; query and key tiles not aligned.
      Case{{1, 2, 1, 300, 16, true, 0.0}, {128, 96}}, Case{{1, 1, 1, 260, 8, true, 0.0}, {200, 256}});
  const Inputs in = random_inputs(c.shape, 42);
  const auto ref = reference(c.shape, in.q, in.k, in.v);
  const Tolerance tol = tolerance(DType::fp32);
  INFO("n " << c.shape.n << " d " << c.shape.head_dim << " causal " << c.shape.causal << " tiles "
            << c.tiles.rows << "x" << c.tiles.cols);
  const Comparison a = compare(naive(c.shape, in.q, in.k, in.v), ref, tol);
  CHECK(a.passed);
  CHECK(a.max_abs_err < 1e-5);
  const Comparison b = compare(tiled(c.shape, in.q, in.k, in.v, c.tiles), ref, tol);
  CHECK(b.passed);
  CHECK(b.max_abs_err < 1e-5);
}

TEST_CASE("large scores neither overflow nor lose the maximum", "[bench][attention]") {
  // d = 1, scale 1: q = 100 against keys 100 and 99 gives scores 10,000 and 9,900; exp(10,000) overflows
  // any float, exp(score - max) does not: weights 1 and e^-100 (3.7e-44), so the output is v0 = 2.
  const Shape s{.batch = 1, .heads = 1, .kv_heads = 1, .n = 2, .head_dim = 1, .causal = false, .scale = 1.0};
  const std::vector<float> q{100, 100}, k{100, 99}, v{2, -3};
  for (const auto& o : {naive(s, q, k, v), tiled(s, q, k, v, {1, 1}), tiled(s, q, k, v)}) {
    CHECK_THAT(o[0], WithinAbs(2.0, 1e-6));
    CHECK_THAT(o[1], WithinAbs(2.0, 1e-6));
  }
}

TEST_CASE("wrong buffer sizes are errors, not overruns", "[bench][attention]") {
  const Shape s{.batch = 1, .heads = 1, .kv_heads = 1, .n = 4, .head_dim = 2};
  std::vector<float> q(8), k(8), v(8), o(7), scores(16);
  CHECK_THROWS_AS(attention_tiled(s, q, k, v, o), kvplan::Error);
  o.resize(8);
  CHECK_NOTHROW(attention_tiled(s, q, k, v, o));
  scores.resize(15);
  CHECK_THROWS_AS(attention_naive(s, q, k, v, o, scores), kvplan::Error);
  CHECK_THROWS_AS(attention_tiled(s, q, k, v, o, {0, 4}), kvplan::Error);
  CHECK_THROWS_AS(reference_row(s, q, k, v, 0, 1, 0), kvplan::Error);
}
