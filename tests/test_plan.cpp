#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kvplan/plan.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

namespace {
/// 10 layers of MHA 4 heads x 16 dims: 2 * 4 * 16 * 2 B = 256 B per layer per token, 2,560 B per token.
PlanInputs small(std::uint64_t memory) {
  PlanInputs in;
  in.model = model({{gqa(4, 4, 16), 10}});
  in.context = Tokens{100};
  in.users = 3;
  in.deployment.gpu_memory_utilization = 1.0;
  in.deployment.reserve = Bytes{0};
  in.deployment.weights = Bytes{0};
  in.gpu = Gpu{"g", "test GPU", Bytes{memory}, 0, 0, ""};
  return in;
}
}  // namespace

TEST_CASE("capacity: fits, max users, max context", "[plan]") {
  const Plan p = make_plan(small(1000000));
  // Per sequence: 2,560 B * 100 tokens = 256,000 B; 3 users = 768,000 B <= 1,000,000 B.
  CHECK(p.kv_bytes_per_sequence.value == 256000);
  CHECK(p.per_gpu.kv_bytes_total.value == 768000);
  CHECK(p.fits);
  CHECK(p.per_gpu.free_bytes.value == 232000);
  // floor(1,000,000 / 256,000) = 3 users.
  CHECK(p.max_users == 3);
  // 3 users: floor(1,000,000 / 3 / 2,560) = floor(130.2) = 130 tokens.
  REQUIRE(p.max_context);
  CHECK(p.max_context->value == 130);

  auto in = small(1000000);
  in.users = 4;  // 1,024,000 B > 1,000,000 B
  const Plan q = make_plan(in);
  CHECK_FALSE(q.fits);
  CHECK(q.limit.kind == Limit::Kind::kv_cache);
  CHECK(q.limit.needed == Bytes{1024000});
  CHECK(q.limit.available == Bytes{1000000});
  // Worded in the units asked for: 1,024,000 B is 1.02 MB; 1,000,000 B is 1.00 MB or 977 KiB.
  const std::string si = describe_limit(q.limit, UnitSystem::si);
  CHECK(si.find("KV cache: 4 users x 100 tokens need 1.02 MB per GPU, only 1.00 MB") != std::string::npos);
  CHECK(describe_limit(q.limit, UnitSystem::iec).find("only 977 KiB") != std::string::npos);
}

TEST_CASE("capacity subtracts weights and reserve from usable memory", "[plan]") {
  auto in = small(1000000);
  in.deployment.gpu_memory_utilization = 0.9;  // usable floor(900,000)
  in.deployment.weights = Bytes{200000};
  in.deployment.reserve = Bytes{100000};
  in.deployment.parallel.tp = 2;  // weights per GPU 100,000; 2 heads per rank: 1,280 B per token
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.usable_bytes.value == 900000);
  CHECK(p.per_gpu.weights_bytes.value == 100000);
  CHECK(p.per_gpu.available_kv_bytes.value == 700000);
  // 1,280 B * 100 tokens = 128,000 B per sequence per GPU; floor(700,000 / 128,000) = 5 users.
  CHECK(p.per_gpu.bytes_per_sequence.value == 128000);
  CHECK(p.max_users == 5);
  // Across both ranks the 3 users hold 3 * 256,000 B.
  CHECK(p.kv_bytes_total.value == 768000);
  CHECK(p.gpus == 2);

  in.deployment.weights = Bytes{2000000};  // 1,000,000 per GPU > usable
  const Plan q = make_plan(in);
  CHECK_FALSE(q.fits);
  CHECK(q.max_users == 0);
  CHECK(q.limit.kind == Limit::Kind::weights);
  CHECK(describe_limit(q.limit, UnitSystem::iec).find("weights") != std::string::npos);
}

TEST_CASE("data-parallel replicas share the users", "[plan]") {
  auto in = small(1000000);
  in.users = 5;
  in.deployment.parallel.dp = 2;  // ceil(5 / 2) = 3 users per replica
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.users == 3);
  CHECK(p.fits);
  CHECK(p.max_users == 6);  // 3 per replica * 2
}

TEST_CASE("max context counts windows exactly", "[plan]") {
  PlanInputs in = small(100000);
  // One sliding layer (W = 100) and one full layer, 256 B per token each.
  in.model = model({{gqa(4, 4, 16, AttentionKind::sliding, 100), 1}, {gqa(4, 4, 16), 1}});
  in.users = 1;
  in.context = Tokens{10};
  const Plan p = make_plan(in);
  // Past the window: 256 * 100 + 256 * L <= 100,000 -> L <= 290.6 -> 290.
  REQUIRE(p.max_context);
  CHECK(p.max_context->value == 290);

  in.model = model({{gqa(4, 4, 16, AttentionKind::sliding, 100), 2}});  // every layer windowed
  const Plan q = make_plan(in);
  CHECK_FALSE(q.max_context.has_value());  // unbounded: 2 * 256 * 100 = 51,200 B fits
}

TEST_CASE("bad deployment values are errors", "[plan]") {
  auto in = small(1000000);
  for (const double u :
       {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    in.deployment.gpu_memory_utilization = u;
    CHECK_THROWS_AS(make_plan(in), Error);
  }
  in = small(1000000);
  in.users = 0;
  CHECK_THROWS_AS(make_plan(in), Error);
  in = small(1000000);
  in.deployment.parallel.pp = 11;  // more stages than the 10 layers
  CHECK_THROWS_AS(make_plan(in), Error);
  in = small(1000000);
  in.deployment.parallel.tp = 3;  // does not divide 4 heads
  CHECK_THROWS_AS(make_plan(in), Error);
  CHECK(usable_memory(Bytes{1000}, 0.9).value == 900);
}

TEST_CASE("a context past max_position_embeddings warns", "[plan]") {
  auto in = small(1000000);
  in.model.max_position_embeddings = 50;
  const Plan p = make_plan(in);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("max_position_embeddings") != std::string::npos);
}

TEST_CASE("max_context_for: exact at the edges of the search", "[plan]") {
  // One layer, 1 KV head of 1 dim in fp8: K + V = 2 B per token.
  const KvDtypes fp8{DType::fp8_e4m3, DType::fp8_e4m3, DType::fp8_e4m3};
  const Parallelism one{};
  const ModelSpec m = model({{gqa(1, 1, 1), 1}});
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  // floor((2^64 - 1) / 2) = 2^63 - 1 tokens: 2^63 tokens would need 2^64 B, which overflows.
  CHECK(max_context_for(m, fp8, one, 1, Bytes{top})->value == (std::uint64_t{1} << 63) - 1);
  // 3 users in 1,000 B: floor(1000 / 6) = 166.
  CHECK(max_context_for(m, fp8, one, 3, Bytes{1000})->value == 166);
  CHECK(max_context_for(m, fp8, one, 1, Bytes{1})->value == 0);
  CHECK(max_context_for(m, fp8, one, 1, Bytes{2})->value == 1);

  // Only a 10-token window: 20 B holds it for any length; 19 B holds 9 tokens (18 B).
  const ModelSpec windowed = model({{gqa(1, 1, 1, AttentionKind::sliding, 10), 1}});
  CHECK_FALSE(max_context_for(windowed, fp8, one, 1, Bytes{20}).has_value());
  CHECK(max_context_for(windowed, fp8, one, 1, Bytes{19})->value == 9);

  // A full layer and a 1,000-token window, 2 B each per token. Below the window 4 B per token:
  // 3,000 B -> 750 tokens. Past it 2 L + 2,000 B: 5,000 B -> 1,500 tokens.
  const ModelSpec hybrid = model({{gqa(1, 1, 1), 1}, {gqa(1, 1, 1, AttentionKind::sliding, 1000), 1}});
  CHECK(max_context_for(hybrid, fp8, one, 1, Bytes{3000})->value == 750);
  CHECK(max_context_for(hybrid, fp8, one, 1, Bytes{5000})->value == 1500);
}
