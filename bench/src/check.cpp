#include "kvplan/bench/check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/error.hpp"

namespace kvplan::bench {

Tolerance tolerance(DType t) {
  if (t == DType::fp32) return {1e-5, 1e-4};
  if (t == DType::bf16) return {2e-2, 2e-2};
  throw Error("dtype", "kvplan-bench has no attention kernel for " + std::string(kvplan::name(t)) +
                           " (fp32 on the CPU, bf16 on CUDA)");
}

Comparison compare(std::span<const float> got, std::span<const double> ref, Tolerance tol) {
  Comparison c;
  if (got.size() != ref.size()) {
    c.passed = false;
    c.failures = std::max(got.size(), ref.size());
    c.max_abs_err = std::numeric_limits<double>::infinity();
    return c;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    double e = std::abs(static_cast<double>(got[i]) - ref[i]);
    if (std::isnan(e)) e = std::numeric_limits<double>::infinity();
    if (!(e <= tol.abs + tol.rel * std::abs(ref[i]))) {
      c.passed = false;
      ++c.failures;
    }
    if (e > c.max_abs_err) {
      c.max_abs_err = e;
      c.worst_index = i;
    }
  }
  return c;
}

Inputs random_inputs(const Shape& s, std::uint64_t seed, bool bf16) {
  validate(s);
  std::uint64_t state = seed;
  // splitmix64 (Steele, Lea and Flood 2014): fast, and the same stream on every platform.
  const auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const float half_width = std::sqrt(3.0f);
  const auto fill = [&](std::vector<float>& x, std::uint64_t count) {
    x.resize(count);
    for (auto& e : x) {
      const float u = static_cast<float>(next() >> 40) * 0x1p-24f;  // [0, 1), 24 random bits
      e = (2.0f * u - 1.0f) * half_width;
      if (bf16) e = round_to_bf16(e);
    }
  };
  Inputs in;
  fill(in.q, q_elements(s));
  fill(in.k, kv_elements(s));
  fill(in.v, kv_elements(s));
  return in;
}

std::vector<float> run_once(Backend& b, const Shape& s, std::span<const float> q, std::span<const float> k,
                            std::span<const float> v) {
  validate(s);
  const std::uint64_t d = s.head_dim, pd = b.padded_head_dim(d);
  if (pd == 0) throw Error(b.name(), "has no kernel for head_dim " + std::to_string(d));
  if (pd == d) {
    b.prepare(s, q, k, v);
    b.run();
    return b.output();
  }
  // Zero columns add nothing to Q K^T and produce zero columns of O; the scale must stay 1/sqrt(d).
  Shape p = s;
  p.head_dim = pd;
  p.scale = softmax_scale(s);
  const auto pad = [&](std::span<const float> x) {
    std::vector<float> y(x.size() / d * pd, 0.0f);
    for (std::size_t r = 0; r < x.size() / d; ++r) std::copy_n(x.begin() + r * d, d, y.begin() + r * pd);
    return y;
  };
  const auto qp = pad(q), kp = pad(k), vp = pad(v);
  b.prepare(p, qp, kp, vp);
  b.run();
  const std::vector<float> op = b.output();
  std::vector<float> o(q.size());
  for (std::size_t r = 0; r < o.size() / d; ++r) std::copy_n(op.begin() + r * pd, d, o.begin() + r * d);
  return o;
}

namespace {

std::string fmt_g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// Runs b on (s, q, k, v) and compares output rows [row, row + expected.size() / d) with
/// `expected`, to `half_unit` (half a unit of the printed last decimal) plus the dtype's tolerance.
CheckCase exact_case(Backend& b, std::string name, const Shape& s, const std::vector<float>& q,
                     const std::vector<float>& k, const std::vector<float>& v, std::uint64_t row,
                     const std::vector<double>& expected, double half_unit) {
  CheckCase c;
  c.name = std::move(name);
  const Tolerance dt = tolerance(b.dtype());
  const Tolerance tol{half_unit + dt.abs, dt.rel};
  c.allowed = tol.abs + tol.rel;
  try {
    const std::vector<float> out = run_once(b, s, q, k, v);
    const std::span<const float> got(out.data() + row * s.head_dim, expected.size());
    const Comparison cmp = compare(got, expected, tol);
    c.passed = cmp.passed;
    c.max_abs_err = cmp.max_abs_err;
    if (!cmp.passed)
      c.detail = "element " + std::to_string(cmp.worst_index) + ": expected " +
                 fmt_g(expected[cmp.worst_index]) + ", got " + fmt_g(got[cmp.worst_index]);
  } catch (const std::exception& e) {
    c.passed = false;
    c.detail = e.what();
  }
  return c;
}

}  // namespace

std::vector<CheckCase> lesson_checks(Backend& b) {
  std::vector<CheckCase> out;
  // "the cat sat", d_k = 2 (seed/attention-recap.txt, "Query, key, value - and the arithmetic in full").
  // Every query is q(sat) = [1.2, 0.4]; position 3 (row 2) sees all three keys with or without the mask.
  // Scores 0.28, 1.20, 0.44; / sqrt 2 = 0.198, 0.849, 0.311; exp 1.219, 2.337, 1.365, sum 4.921;
  // weights 0.248, 0.475, 0.277 (fp64: 0.24775, 0.47483, 0.27742).
  // Output 0.248 [0.0, 0.1] + 0.475 [0.8, 0.6] + 0.277 [0.2, 0.9] = [0.435, 0.559] (fp64: 0.43535, 0.55935).
  const std::vector<float> keys_d2{0.2f, 0.1f, 0.9f, 0.3f, 0.1f, 0.8f};
  const std::vector<float> values_d2{0.0f, 0.1f, 0.8f, 0.6f, 0.2f, 0.9f};
  const std::vector<float> queries_d2{1.2f, 0.4f, 1.2f, 0.4f, 1.2f, 0.4f};
  for (const bool causal : {false, true}) {
    const std::string mask = causal ? " (causal)" : "";
    // Weights as an output: d = 3, the keys and query padded with a zero, V = I3, scale kept 1/sqrt 2.
    Shape w{.batch = 1,
            .heads = 1,
            .kv_heads = 1,
            .n = 3,
            .head_dim = 3,
            .causal = causal,
            .scale = 1 / std::sqrt(2.0)};
    out.push_back(exact_case(b, "lesson: weights of 'sat' = 0.248, 0.475, 0.277" + mask, w,
                             {1.2f, 0.4f, 0, 1.2f, 0.4f, 0, 1.2f, 0.4f, 0},
                             {0.2f, 0.1f, 0, 0.9f, 0.3f, 0, 0.1f, 0.8f, 0}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, 2,
                             {0.248, 0.475, 0.277}, 0.0005));
    Shape o{.batch = 1, .heads = 1, .kv_heads = 1, .n = 3, .head_dim = 2, .causal = causal};
    out.push_back(exact_case(b, "lesson: output at 'sat' = [0.435, 0.559]" + mask, o, queries_d2, keys_d2,
                             values_d2, 2, {0.435, 0.559}, 0.0005));
  }
  // "Row 1 ... its attention layer output is just its own value vector": weight exactly 1 on v(the).
  Shape first{.batch = 1, .heads = 1, .kv_heads = 1, .n = 3, .head_dim = 2, .causal = true};
  out.push_back(exact_case(b, "lesson: causal, position 1 outputs its own value [0.0, 0.1]", first,
                           queries_d2, keys_d2, values_d2, 0, {0.0, 0.1}, 0.0));
  // The causal-mask example: raw scores as Q, K = V = I4 and scale 1, so O = softmax(masked scores).
  // Row 2: e^0.8 = 2.226, e^3.2 = 24.533; 2.226 / 26.759 = 0.083 -> 0.08, 0.92.
  // Row 3: e^1.4 = 4.055, e^0.6 = 1.822, e^2.8 = 16.445, sum 22.322 -> 0.18, 0.08, 0.74.
  const std::vector<float> raw{2.1f, 0.3f, 1.7f, 0.9f, 0.8f, 3.2f, 0.4f, 1.1f,
                               1.4f, 0.6f, 2.8f, 0.2f, 0.5f, 1.9f, 1.2f, 2.4f};
  const std::vector<float> eye{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  Shape mask{.batch = 1, .heads = 1, .kv_heads = 1, .n = 4, .head_dim = 4, .causal = true, .scale = 1.0};
  out.push_back(exact_case(b, "lesson: causal mask, softmax rows 1-3 (to the printed 2 decimals)", mask, raw,
                           eye, eye, 0, {1.00, 0, 0, 0, 0.08, 0.92, 0, 0, 0.18, 0.08, 0.74, 0}, 0.005));
  // Row 4, not printed in the lesson, worked here: e^0.5 = 1.649, e^1.9 = 6.686, e^1.2 = 3.320,
  // e^2.4 = 11.023, sum 22.678 -> 0.073, 0.295, 0.146, 0.486.
  out.push_back(exact_case(b, "lesson: causal mask, row 4 = [0.073, 0.295, 0.146, 0.486]", mask, raw, eye,
                           eye, 3, {0.073, 0.295, 0.146, 0.486}, 0.0005));
  return out;
}

CheckCase random_check(Backend& b, const Shape& s, std::uint64_t seed, double peak) {
  Shape t = s;
  t.scale = softmax_scale(s) * peak;
  CheckCase c;
  c.name = "random b=" + std::to_string(t.batch) + " h=" + std::to_string(t.heads) +
           " kv=" + std::to_string(t.kv_heads) + " n=" + std::to_string(t.n) +
           " d=" + std::to_string(t.head_dim) + (t.causal ? " causal" : "") +
           (peak != 1.0 ? " peaky x" + fmt_g(peak) : "");
  const Tolerance tol = tolerance(b.dtype());
  c.allowed = tol.abs + tol.rel;
  try {
    const Inputs in = random_inputs(t, seed, b.dtype() == DType::bf16);
    const std::vector<double> q(in.q.begin(), in.q.end()), k(in.k.begin(), in.k.end()),
        v(in.v.begin(), in.v.end());
    std::vector<double> ref(q.size());
    attention_reference(t, q, k, v, ref);
    const std::vector<float> got = run_once(b, t, in.q, in.k, in.v);
    const Comparison cmp = compare(got, ref, tol);
    c.passed = cmp.passed;
    c.max_abs_err = cmp.max_abs_err;
    if (!cmp.passed)
      c.detail = std::to_string(cmp.failures) + " elements outside tolerance; worst " +
                 std::to_string(cmp.worst_index) + ": expected " + fmt_g(ref[cmp.worst_index]) + ", got " +
                 fmt_g(got[cmp.worst_index]);
  } catch (const std::exception& e) {
    c.passed = false;
    c.detail = e.what();
  }
  return c;
}

std::vector<CheckCase> check_suite(Backend& b, std::uint64_t seed) {
  std::vector<CheckCase> out = lesson_checks(b);
  struct Case {
    std::uint64_t batch, heads, kv_heads, n;
    double peak;
  };
  // MHA with two batches, GQA (2 query heads per KV head), MQA, a single token, a short odd length,
  // and peaky weights over a length that is not a multiple of any tile.
  const Case cases[] = {{2, 4, 4, 193, 1}, {1, 4, 2, 300, 1}, {1, 4, 1, 64, 1},
                        {1, 2, 2, 1, 1},   {1, 2, 1, 7, 1},   {1, 2, 2, 257, 4}};
  for (const std::uint64_t d : {64, 128})
    for (const bool causal : {false, true})
      for (const Case& c : cases)
        out.push_back(random_check(b, {c.batch, c.heads, c.kv_heads, c.n, d, causal, 0.0}, seed++, c.peak));
  // A head_dim with no dedicated kernel: the tiled CUDA kernel runs it zero-padded to 64.
  for (const bool causal : {false, true})
    out.push_back(random_check(b, {1, 4, 2, 193, 40, causal, 0.0}, seed++));
  return out;
}

Comparison spot_check(const Shape& s, std::span<const float> q, std::span<const float> k,
                      std::span<const float> v, std::span<const float> out, Tolerance tol, std::uint64_t seed,
                      std::size_t* rows_checked) {
  validate(s);
  Comparison all;
  std::size_t rows = 0;
  if (out.size() != q_elements(s)) {
    all.passed = false;
    all.max_abs_err = std::numeric_limits<double>::infinity();
    return all;
  }
  for (std::uint64_t b = 0; b < s.batch; ++b)
    for (std::uint64_t h = 0; h < s.heads; ++h) {
      const std::uint64_t picks[] = {0, s.n - 1, (seed + 7919 * (b * s.heads + h)) % s.n};
      for (const std::uint64_t i : picks) {
        const std::vector<double> ref = reference_row(s, q, k, v, b, h, i);
        const std::size_t at = ((b * s.heads + h) * s.n + i) * s.head_dim;
        const Comparison c = compare(out.subspan(at, s.head_dim), ref, tol);
        ++rows;
        all.failures += c.failures;
        all.passed = all.passed && c.passed;
        if (c.max_abs_err >= all.max_abs_err) {
          all.max_abs_err = c.max_abs_err;
          all.worst_index = at + c.worst_index;
        }
      }
    }
  if (rows_checked != nullptr) *rows_checked = rows;
  return all;
}

}  // namespace kvplan::bench
