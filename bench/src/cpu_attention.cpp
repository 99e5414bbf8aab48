#include "kvplan/bench/cpu_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Core>

#include "kvplan/error.hpp"
#include "kvplan/units.hpp"

namespace kvplan::bench {
namespace {

using Index = Eigen::Index;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
/// Query rows per strip of a tile that crosses the causal diagonal (see attention_tiled).
constexpr Index kStrip = 64;

template <class T>
void expect_size(std::span<T> x, std::uint64_t count, const char* name) {
  if (x.size() != count)
    throw Error(name,
                "holds " + std::to_string(x.size()) + " values, the shape needs " + std::to_string(count));
}

template <class T>
void expect_sizes(const Shape& s, std::span<const T> q, std::span<const T> k, std::span<const T> v,
                  std::span<T> o) {
  validate(s);
  expect_size(q, q_elements(s), "q");
  expect_size(k, kv_elements(s), "k");
  expect_size(v, kv_elements(s), "v");
  expect_size(o, q_elements(s), "o");
}

/// Offset of the first element of (batch b, query head h) in Q / O, and of its KV head in K / V.
struct HeadOffsets {
  std::uint64_t q = 0;
  std::uint64_t kv = 0;
};
HeadOffsets head_offsets(const Shape& s, std::uint64_t flat_head) {
  const std::uint64_t b = flat_head / s.heads, h = flat_head % s.heads;
  return {flat_head * s.n * s.head_dim, (b * s.kv_heads + kv_head_of(s, h)) * s.n * s.head_dim};
}

/// One output row in double: the reference's definition of attention, written out plainly.
template <class T>
void reference_row_into(const Shape& s, const T* q, const T* k, const T* v, std::uint64_t flat_head,
                        std::uint64_t i, double* out, std::vector<double>& w) {
  const std::uint64_t n = s.n, d = s.head_dim;
  const HeadOffsets off = head_offsets(s, flat_head);
  const T* qi = q + off.q + i * d;
  const T* kh = k + off.kv;
  const T* vh = v + off.kv;
  const std::uint64_t keys = s.causal ? i + 1 : n;  // causal: -inf (weight exactly 0) past the query
  const double scale = softmax_scale(s);
  w.resize(keys);
  double mx = -std::numeric_limits<double>::infinity();
  for (std::uint64_t j = 0; j < keys; ++j) {
    double dot = 0.0;
    for (std::uint64_t c = 0; c < d; ++c)
      dot += static_cast<double>(qi[c]) * static_cast<double>(kh[j * d + c]);
    w[j] = dot * scale;
    mx = std::max(mx, w[j]);
  }
  double sum = 0.0;
  for (std::uint64_t j = 0; j < keys; ++j) sum += (w[j] = std::exp(w[j] - mx));
  for (std::uint64_t c = 0; c < d; ++c) out[c] = 0.0;
  for (std::uint64_t j = 0; j < keys; ++j)
    for (std::uint64_t c = 0; c < d; ++c) out[c] += w[j] / sum * static_cast<double>(vh[j * d + c]);
}

}  // namespace

void attention_reference(const Shape& s, std::span<const double> q, std::span<const double> k,
                         std::span<const double> v, std::span<double> o) {
  expect_sizes(s, q, k, v, o);
  std::vector<double> w;
  for (std::uint64_t head = 0; head < s.batch * s.heads; ++head)
    for (std::uint64_t i = 0; i < s.n; ++i)
      reference_row_into(s, q.data(), k.data(), v.data(), head, i, o.data() + (head * s.n + i) * s.head_dim,
                         w);
}

std::vector<double> reference_row(const Shape& s, std::span<const float> q, std::span<const float> k,
                                  std::span<const float> v, std::uint64_t batch, std::uint64_t head,
                                  std::uint64_t query) {
  validate(s);
  expect_size(q, q_elements(s), "q");
  expect_size(k, kv_elements(s), "k");
  expect_size(v, kv_elements(s), "v");
  if (batch >= s.batch || head >= s.heads || query >= s.n) throw Error("row", "outside the shape");
  std::vector<double> out(s.head_dim), w;
  reference_row_into(s, q.data(), k.data(), v.data(), batch * s.heads + head, query, out.data(), w);
  return out;
}

std::uint64_t naive_extra_bytes(const Shape& s) {
  return checked_mul(checked_mul(checked_mul(s.batch * s.heads, s.n, "--seq"), s.n, "--seq"), sizeof(float),
                     "--seq");
}

void attention_naive(const Shape& s, std::span<const float> q, std::span<const float> k,
                     std::span<const float> v, std::span<float> o, std::span<float> scores) {
  expect_sizes(s, q, k, v, o);
  expect_size(scores, naive_extra_bytes(s) / sizeof(float), "scores");
  const auto n = static_cast<Index>(s.n), d = static_cast<Index>(s.head_dim);
  const auto scale = static_cast<float>(softmax_scale(s));
  const auto heads = static_cast<std::int64_t>(s.batch * s.heads);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t head = 0; head < heads; ++head) {
    const HeadOffsets off = head_offsets(s, static_cast<std::uint64_t>(head));
    ConstMap Q(q.data() + off.q, n, d), K(k.data() + off.kv, n, d), V(v.data() + off.kv, n, d);
    Map S(scores.data() + static_cast<std::uint64_t>(head) * s.n * s.n, n, n);
    S.noalias() = Q * K.transpose();
    for (Index i = 0; i < n; ++i) {
      float* row = S.data() + i * n;
      const Index valid = s.causal ? i + 1 : n;
      ArrayMap r(row, valid);
      // exp(scale * (x - max)) = exp(scale x - max(scale x)) as scale > 0.
      const float mx = r.maxCoeff();
      r = ((r - mx) * scale).exp();
      r *= 1.0f / r.sum();
      std::fill(row + valid, row + n, 0.0f);
    }
    Map(o.data() + off.q, n, d).noalias() = S * V;
  }
}

std::uint64_t tiled_extra_bytes_per_thread(const Shape& s, Tiles t) {
  const std::uint64_t br = std::min(t.rows, s.n), bc = std::min(t.cols, s.n);
  return sizeof(float) * (br * bc + 2 * br * s.head_dim + 2 * br);
}

void attention_tiled(const Shape& s, std::span<const float> q, std::span<const float> k,
                     std::span<const float> v, std::span<float> o, Tiles tiles) {
  expect_sizes(s, q, k, v, o);
  if (tiles.rows == 0 || tiles.cols == 0) throw Error("--tile", "must be positive");
  const auto n = static_cast<Index>(s.n), d = static_cast<Index>(s.head_dim);
  const Index Br = std::min(static_cast<Index>(tiles.rows), n),
              Bc = std::min(static_cast<Index>(tiles.cols), n);
  const auto scale = static_cast<float>(softmax_scale(s));
  const Index q_tiles = (n + Br - 1) / Br;
  const auto work = static_cast<std::int64_t>(s.batch * s.heads) * q_tiles;
#pragma omp parallel
  {
    RowMatrix S(Br, Bc), Qs(Br, d), O(Br, d);
    Eigen::VectorXf m(Br), l(Br);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t w = 0; w < work; ++w) {
      // Last query tiles first: under a causal mask they see the most keys, and starting them early
      // balances the threads.
      const auto head = static_cast<std::uint64_t>(w / q_tiles);
      const Index i0 = (q_tiles - 1 - w % q_tiles) * Br;
      const Index br = std::min(Br, n - i0);
      const HeadOffsets off = head_offsets(s, head);
      Qs.topRows(br) = ConstMap(q.data() + off.q + i0 * d, br, d) * scale;
      O.topRows(br).setZero();
      m.head(br).setConstant(kMinusInf);
      l.head(br).setZero();
      // Causal: key tiles at or past i0 + br are masked for every query of this tile: skipped.
      const Index key_end = s.causal ? std::min(n, i0 + br) : n;
      for (Index j0 = 0; j0 < key_end; j0 += Bc) {
        const Index bc = std::min(Bc, key_end - j0);
        ConstMap K(k.data() + off.kv + j0 * d, bc, d), V(v.data() + off.kv + j0 * d, bc, d);
        // A tile that crosses the diagonal goes in strips of kStrip query rows, each multiplied only
        // against the keys up to its last query: at n = 1024 with 256-tiles this cuts the causal
        // work from 62% of the full matrix to 53% (50% is the ideal the FLOP convention counts).
        const bool diagonal = s.causal && j0 + bc - 1 > i0;  // some key after some query
        const Index strip = diagonal ? kStrip : br;
        for (Index r0 = 0; r0 < br; r0 += strip) {
          const Index h = std::min(strip, br - r0);
          const Index cols = diagonal ? std::clamp<Index>(i0 + r0 + h - j0, 0, bc) : bc;
          if (cols == 0) continue;  // every key of the tile is after every query of the strip
          auto St = S.block(r0, 0, h, cols);
          St.noalias() = Qs.middleRows(r0, h) * K.topRows(cols).transpose();
          for (Index r = r0; r < r0 + h; ++r) {
            float* row = S.data() + r * Bc;
            const Index valid = diagonal ? std::clamp<Index>(i0 + r - j0 + 1, 0, cols) : cols;
            if (valid == 0) {  // every key of this tile is after query i0 + r
              std::fill(row, row + cols, 0.0f);
              continue;
            }
            ArrayMap sr(row, valid);
            const float m_new = std::max(m[r], sr.maxCoeff());
            const float alpha = std::exp(m[r] - m_new);  // 0 on the first tile, where m = -inf
            sr = (sr - m_new).exp();
            std::fill(row + valid, row + cols, 0.0f);
            l[r] = l[r] * alpha + sr.sum();
            m[r] = m_new;
            if (alpha != 1.0f) ArrayMap(O.data() + r * d, d) *= alpha;
          }
          O.middleRows(r0, h).noalias() += St * V.topRows(cols);
        }
      }
      Map(o.data() + off.q + i0 * d, br, d) = l.head(br).cwiseInverse().asDiagonal() * O.topRows(br);
    }
  }
}

}  // namespace kvplan::bench
