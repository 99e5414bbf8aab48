#include <catch2/catch.hpp>

#include "kvplan/prefill.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

TEST_CASE("causal pairs", "[prefill]") {
  CHECK(causal_pairs(1, 0) == 1);
  CHECK(causal_pairs(4, 0) == 10);  // 1 + 2 + 3 + 4
  CHECK(causal_pairs(4, 2) == 7);   // 1 + 2 + 2 + 2
  CHECK(causal_pairs(2000, 0) == 2001000);
  CHECK_THROWS_AS(causal_pairs(1ULL << 40, 0), Error);
}

TEST_CASE("prefill FLOPs: linear and quadratic parts", "[prefill]") {
  // 2 layers, 4 heads x 16 dims, no MLP and no embeddings (hidden 0): only attention FLOPs.
  auto m = model({{gqa(4, 4, 16), 2}});
  const auto f = prefill_flops(m, 4);
  // Per layer: 2 * pairs(10) * 4 heads * (16 + 16) = 2,560; 2 layers = 5,120.
  CHECK(f.attention == 5120);
  CHECK(f.linear == 0);
  // The lesson: 40,000 against 2,000 tokens. Pairs 40000*40001/2 = 800,020,000 over 2000*2001/2 = 2,001,000:
  // 399.81.
  const auto c = compare_prefill(m, 40000, 2000);
  CHECK_THAT(c.attention_ratio, Catch::Matchers::WithinRel(800020000.0 / 2001000.0, 1e-12));
  CHECK(c.attention_ratio > 399.0);
  CHECK(c.attention_ratio < 401.0);
  CHECK_THROWS_AS(prefill_flops(m, 0), Error);
  CHECK_THROWS_AS(prefill_seconds(100, 0, 0.5), Error);
  CHECK_THROWS_AS(prefill_seconds(100, 1000, 0.0), Error);
  CHECK_THAT(prefill_seconds(1000, 1000, 0.5), Catch::Matchers::WithinRel(2.0, 1e-12));
}
