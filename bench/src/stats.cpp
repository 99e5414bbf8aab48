#include "kvplan/bench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/Dense>

#include "kvplan/error.hpp"

namespace kvplan::bench {

const char* to_string(Statistic s) { return s == Statistic::min ? "min" : "median"; }

TimeStats summarize(std::span<const double> seconds) {
  if (seconds.empty()) throw Error("--repeats", "no timed runs");
  std::vector<double> t(seconds.begin(), seconds.end());
  for (double x : t)
    if (!std::isfinite(x) || x < 0) throw Error("--repeats", "a run has no valid time");
  std::sort(t.begin(), t.end());
  TimeStats s;
  s.count = t.size();
  const std::size_t mid = t.size() / 2;
  s.median = t.size() % 2 == 1 ? t[mid] : (t[mid - 1] + t[mid]) / 2;
  s.min = t.front();
  s.max = t.back();
  s.mean = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0.0;
  return s;
}

namespace {
bool positive(std::span<const std::uint64_t> n, std::span<const double> t) {
  if (n.size() != t.size()) return false;
  for (std::size_t i = 0; i < n.size(); ++i)
    if (n[i] == 0 || !(t[i] > 0) || !std::isfinite(t[i])) return false;
  return true;
}
}  // namespace

std::optional<PowerFit> fit_power(std::span<const std::uint64_t> n, std::span<const double> seconds,
                                  std::uint64_t n_threshold) {
  if (!positive(n, seconds) || n.size() < 2) return std::nullopt;
  std::vector<std::size_t> idx(n.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return n[a] < n[b]; });
  std::vector<std::size_t> use;
  for (std::size_t i : idx)
    if (n[i] >= n_threshold) use.push_back(i);
  PowerFit f;
  if (use.size() < 3) {
    use.assign(idx.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, idx.size())), idx.end());
    f.fallback = true;
  }
  // Ordinary least squares of y = log t on x = log n.
  double sx = 0, sy = 0;
  for (std::size_t i : use) {
    sx += std::log(static_cast<double>(n[i]));
    sy += std::log(seconds[i]);
  }
  const double m = static_cast<double>(use.size()), mx = sx / m, my = sy / m;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i : use) {
    const double dx = std::log(static_cast<double>(n[i])) - mx, dy = std::log(seconds[i]) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx == 0) return std::nullopt;  // one distinct n
  f.exponent = sxy / sxx;
  f.prefactor = std::exp(my - f.exponent * mx);
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  f.points = use.size();
  f.n_min = n[use.front()];
  f.n_max = n[use.back()];
  return f;
}

std::optional<QuadraticFit> fit_quadratic(std::span<const std::uint64_t> n, std::span<const double> seconds) {
  if (!positive(n, seconds) || n.size() < 3) return std::nullopt;
  // Weighted least squares: each row (1, x, x^2) and its target t are divided by t, so the residuals
  // are relative. x = n / n_max keeps the columns comparable; the coefficients are unscaled after.
  const double scale = static_cast<double>(*std::max_element(n.begin(), n.end()));
  Eigen::MatrixXd A(static_cast<Eigen::Index>(n.size()), 3);
  Eigen::VectorXd y(static_cast<Eigen::Index>(n.size()));
  for (std::size_t i = 0; i < n.size(); ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    const double x = static_cast<double>(n[i]) / scale, w = 1.0 / seconds[i];
    A(r, 0) = w;
    A(r, 1) = w * x;
    A(r, 2) = w * x * x;
    y(r) = 1.0;  // seconds[i] * w
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
  if (qr.rank() < 3) return std::nullopt;
  const Eigen::Vector3d p = qr.solve(y);
  QuadraticFit f;
  f.a = p(0);
  f.b = p(1) / scale;
  f.c = p(2) / (scale * scale);
  f.points = n.size();
  for (std::size_t i = 0; i < n.size(); ++i) {
    const double x = static_cast<double>(n[i]);
    f.max_relative_residual =
        std::max(f.max_relative_residual, std::abs(f.a + f.b * x + f.c * x * x - seconds[i]) / seconds[i]);
  }
  return f;
}

}  // namespace kvplan::bench
