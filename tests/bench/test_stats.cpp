#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kvplan/bench/stats.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::bench;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

TEST_CASE("time statistics", "[bench][stats]") {
  const std::vector<double> odd{3, 1, 2};
  const TimeStats a = summarize(odd);
  CHECK(a.count == 3);
  CHECK(a.median == 2);
  CHECK(a.min == 1);
  CHECK(a.max == 3);
  CHECK(a.mean == 2);
  CHECK(a.spread == 1.0);  // (3 - 1) / 2
  const std::vector<double> even{4, 1, 3, 2};
  const TimeStats b = summarize(even);
  CHECK(b.median == 2.5);  // (2 + 3) / 2
  CHECK(b.spread == 1.2);  // (4 - 1) / 2.5
  CHECK_THROWS_AS(summarize(std::vector<double>{}), kvplan::Error);
  CHECK_THROWS_AS(summarize(std::vector<double>{1, NAN}), kvplan::Error);
}

TEST_CASE("power-law fit recovers an exact exponent", "[bench][stats]") {
  std::vector<std::uint64_t> n;
  std::vector<double> t;
  for (std::uint64_t x = 256; x <= 4096; x *= 2) {
    n.push_back(x);
    t.push_back(1e-9 * static_cast<double>(x) * static_cast<double>(x));  // t = 1e-9 n^2
  }
  const auto f = fit_power(n, t, 0);
  REQUIRE(f);
  CHECK_THAT(f->exponent, WithinAbs(2.0, 1e-12));
  CHECK_THAT(f->prefactor, WithinRel(1e-9, 1e-9));
  CHECK_THAT(f->r2, WithinAbs(1.0, 1e-12));
  CHECK(f->points == 5);
  CHECK(f->n_min == 256);
  CHECK(f->n_max == 4096);
  CHECK_FALSE(f->fallback);
}

TEST_CASE("power-law fit: the threshold keeps fixed costs out", "[bench][stats]") {
  // t = 1 ms + 1e-9 n^2: at small n the fixed millisecond flattens the slope.
  std::vector<std::uint64_t> n{64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  std::vector<double> t;
  for (const auto x : n) t.push_back(1e-3 + 1e-9 * static_cast<double>(x) * static_cast<double>(x));
  const auto all = fit_power(n, t, 0);
  const auto large = fit_power(n, t, 4096);
  REQUIRE(all);
  REQUIRE(large);
  CHECK(all->exponent < 1.5);
  CHECK(large->points == 3);  // 4096, 8192, 16384
  CHECK(large->n_min == 4096);
  // At n >= 4096 the fixed part is at most 1e-3 / (1e-9 x 4096^2) = 6% of t: the slope is near 2.
  CHECK_THAT(large->exponent, WithinAbs(2.0, 0.1));
  // Too few points past the threshold: the 3 largest instead, flagged.
  const auto fallback = fit_power(n, t, 1u << 20);
  REQUIRE(fallback);
  CHECK(fallback->fallback);
  CHECK(fallback->n_min == 4096);
  CHECK_FALSE(fit_power(std::vector<std::uint64_t>{256}, std::vector<double>{1.0}, 0));
  CHECK_FALSE(fit_power(std::vector<std::uint64_t>{256, 512}, std::vector<double>{1.0, -1.0}, 0));
}

TEST_CASE("quadratic fit recovers a + b n + c n^2", "[bench][stats]") {
  std::vector<std::uint64_t> n;
  std::vector<double> t;
  for (std::uint64_t x = 256; x <= 8192; x *= 2) {
    n.push_back(x);
    const double d = static_cast<double>(x);
    t.push_back(2e-4 + 3e-8 * d + 5e-11 * d * d);
  }
  const auto f = fit_quadratic(n, t);
  REQUIRE(f);
  CHECK_THAT(f->a, WithinRel(2e-4, 1e-6));
  CHECK_THAT(f->b, WithinRel(3e-8, 1e-6));
  CHECK_THAT(f->c, WithinRel(5e-11, 1e-6));
  CHECK(f->max_relative_residual < 1e-9);
  CHECK(f->points == 6);
  CHECK_FALSE(fit_quadratic(std::vector<std::uint64_t>{256, 512}, std::vector<double>{1.0, 4.0}));
}
