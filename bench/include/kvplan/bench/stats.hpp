#pragma once
/// @file stats.hpp
/// Timing statistics and the two fits of time against n: a power law (its exponent is the
/// measured scaling, 2 for attention) and t = a + b n + c n^2 (the calibration a planner reads).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace kvplan::bench {

/// Summary of repeated timings, in seconds.
struct TimeStats {
  std::size_t count = 0;
  double median = 0;  ///< the middle value (mean of the two middle ones for an even count)
  double min = 0;
  double max = 0;
  double mean = 0;
  double spread = 0;  ///< (max - min) / median: 0.05 means the runs differ by 5% of the median
};

/// Which summary of a point's timed runs the fits and comparisons use: the median (default), or
/// the minimum, which a busy shared machine disturbs least (interference only ever adds time).
enum class Statistic { median, min };
/// "median", "min".
const char* to_string(Statistic s);
/// The chosen summary of t.
inline double pick(const TimeStats& t, Statistic s) { return s == Statistic::min ? t.min : t.median; }

/// Statistics of `seconds`; throws kvplan::Error("--repeats", ...) when it is empty or holds a
/// negative or non-finite value.
TimeStats summarize(std::span<const double> seconds);

/// t = prefactor x n^exponent, least squares of log t on log n.
struct PowerFit {
  double exponent = 0;
  double prefactor = 0;     ///< seconds at n = 1 (extrapolated)
  double r2 = 0;            ///< coefficient of determination of the log-log regression
  std::uint64_t n_min = 0;  ///< smallest n used
  std::uint64_t n_max = 0;  ///< largest n used
  std::size_t points = 0;   ///< points used
  bool fallback = false;    ///< fewer than 3 points reached the threshold: the largest 3 were used
};

/// The power-law fit over the points with n >= n_threshold (the threshold keeps fixed costs
/// at small n from flattening the slope). When fewer than 3 points qualify, the 3 largest n are used
/// and `fallback` is set. nullopt with fewer than 2 points or a non-positive n or time.
/// n and seconds are parallel arrays.
std::optional<PowerFit> fit_power(std::span<const std::uint64_t> n, std::span<const double> seconds,
                                  std::uint64_t n_threshold);

/// t = a + b n + c n^2 fitted to every point, minimising the sum of squared *relative* residuals
/// ((fit - t) / t)^2, so that the short runs count as much as the long ones.
struct QuadraticFit {
  double a = 0;                      ///< seconds (fixed cost)
  double b = 0;                      ///< seconds per token
  double c = 0;                      ///< seconds per token^2
  double max_relative_residual = 0;  ///< max |fit - t| / t over the points
  std::size_t points = 0;
};

/// The quadratic fit; nullopt with fewer than 3 points or a non-positive n or time.
std::optional<QuadraticFit> fit_quadratic(std::span<const std::uint64_t> n, std::span<const double> seconds);

}  // namespace kvplan::bench
