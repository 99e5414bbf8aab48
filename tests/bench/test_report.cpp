#include <catch2/catch.hpp>

#include "kvplan/bench/report.hpp"
#include "kvplan/bench/sweep.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::bench;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using kvplan::DType;

namespace {
std::string error_of(const nlohmann::json& j) {
  try {
    read_series(j, "r.json");
  } catch (const kvplan::Error& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a small sweep: checked, timed, fitted, written and read back", "[bench][report]") {
  SweepOptions o;
  o.heads = 2;
  o.kv_heads = 1;
  o.repeats = 2;
  o.min_time = 0;  // exactly `repeats` timed runs
  o.fit_min_n = 64;
  o.cpu_gemm_size = 64;
  auto b = make_backend("cpu-tiled");
  const RunResult r = run_sweep(*b, o, {32, 64, 128, 256}, 16, true);
  CHECK(r.check.passed);
  REQUIRE(r.points.size() == 4);
  for (const auto& p : r.points) {
    INFO(p.reason);
    CHECK(p.status == "ok");
    CHECK(p.rows_checked == 6);  // 2 heads x 3 rows
    CHECK(p.time.count == 2);
  }
  // 4 x 1 x 2 x 256^2 x 16 / 2 = 4,194,304 FLOPs at n = 256.
  CHECK(r.points[3].flops == 4194304u);
  CHECK(r.flops_per_n2 == 64.0);  // 4 x 2 x 16 / 2
  REQUIRE(r.power);
  CHECK(r.power->points == 3);  // n = 64, 128, 256
  REQUIRE(r.quadratic);
  // The GEMM timed in the same rounds: one per round, 2 rounds.
  REQUIRE(r.gemm);
  CHECK(r.gemm->size == 64);
  CHECK(r.gemm->time.count == 2);
  CHECK(r.gemm->when == "interleaved");

  Report rep;
  rep.options = o;
  rep.runs.push_back(r);
  const nlohmann::ordered_json j = to_json(rep);
  CHECK(j["schema"] == "kvplan-bench/1");
  CHECK(j["runs"][0]["backend"] == "cpu-tiled");
  CHECK(j["runs"][0]["causal"] == true);
  CHECK(j["runs"][0]["kv_heads"] == 1);
  CHECK(j["runs"][0]["points"][3]["flops"] == 4194304u);
  CHECK(j["runs"][0]["fit"]["threshold_n"] == 64);
  CHECK(j["runs"][0]["fit"]["exponent"].is_number());
  CHECK(j["runs"][0]["fit"]["quadratic"]["c_s_per_token2"].is_number());
  CHECK_THAT(j["conventions"]["flops"].get<std::string>(), Contains("halved when causal"));
  CHECK_THAT(run_text(r), Contains("fit (median times): time ~ n^"));
  CHECK(j["runs"][0]["fit"]["statistic"] == "median");

  const auto series = read_series(nlohmann::json::parse(j.dump()), "memory");
  REQUIRE(series.size() == 1);
  CHECK(series[0].label == "cpu-tiled d=16 causal");
  CHECK(series[0].n == std::vector<std::uint64_t>{32, 64, 128, 256});
  CHECK(series[0].seconds[2] == r.points[2].time.median);
  REQUIRE(series[0].exponent);
  CHECK(*series[0].exponent == r.power->exponent);
}

TEST_CASE("statistic min: the fits and the plot use the best run", "[bench][report]") {
  SweepOptions o;
  o.heads = 1;
  o.kv_heads = 1;
  o.repeats = 3;
  o.min_time = 0;
  o.fit_min_n = 0;
  o.gemm = false;
  o.statistic = Statistic::min;
  auto b = make_backend("cpu-tiled");
  const RunResult r = run_sweep(*b, o, {32, 64, 128}, 16, false);
  REQUIRE(r.power);
  std::vector<std::uint64_t> n;
  std::vector<double> t;
  for (const auto& p : r.points) {
    n.push_back(p.n);
    t.push_back(p.time.min);
    CHECK(p.tflops_best >= p.tflops);  // min <= median
  }
  CHECK(r.power->exponent == fit_power(n, t, 0)->exponent);
  // Read back, a run fitted on min plots its min times.
  const nlohmann::json j = {
      {"schema", "kvplan-bench/1"},
      {"runs",
       {{{"backend", "cpu-tiled"},
         {"head_dim", 64},
         {"causal", false},
         {"fit", {{"statistic", "min"}}},
         {"points", {{{"n", 256}, {"status", "ok"}, {"time_s", {{"median", 2.0}, {"min", 1.5}}}}}}}}}};
  const auto s = read_series(j, "r.json");
  CHECK(s[0].statistic == "min");
  CHECK(s[0].seconds == std::vector<double>{1.5});
}

TEST_CASE("points that do not fit in memory are skipped, not failed", "[bench][report]") {
  SweepOptions o;
  o.heads = 2;
  o.kv_heads = 2;
  o.repeats = 1;
  o.min_time = 0;
  o.gemm = false;
  o.cpu.max_memory = 2u << 20;  // 2 MiB
  auto b = make_backend("cpu-naive", o.cpu);
  // n = 300 (the check): 2 x 300^2 x 4 B = 720,000 B of scores, fits. n = 1024: 8 MiB, does not.
  const RunResult r = run_sweep(*b, o, {64, 1024}, 16, false);
  CHECK(r.check.passed);
  CHECK(r.points[0].status == "ok");
  CHECK(r.points[1].status == "skipped");
  CHECK_THAT(r.points[1].reason, Contains("n x n scores"));
  CHECK(r.points[1].extra_bytes == 8388608u);  // 2 x 1024^2 x 4
}

TEST_CASE("tiled attention against the best GEMM on the same hardware", "[bench][report]") {
  RunResult r;
  r.backend = "cpu-tiled";
  PointResult small, large;
  small.n = 512;
  small.status = "ok";
  small.tflops = 0.02;
  large.n = 4096;
  large.status = "ok";
  large.tflops = 0.05;
  r.points = {small, large};
  std::vector<GemmResult> gemm(3);
  gemm[0] = {"Eigen", DType::fp32, 2048, {}, 0.08, 0.09, "", "before"};
  gemm[1] = {"OpenBLAS", DType::fp32, 2048, {}, 0.10, 0.12, "", "after"};
  gemm[2] = {"cuBLAS", DType::bf16, 8192, {}, 700.0, 750.0, "", "before"};  // other hardware: ignored
  const auto c = compare_with_gemm(r, gemm);
  REQUIRE(c);
  CHECK(c->n == 4096);  // the largest n
  CHECK(c->gemm == "OpenBLAS fp32 2048 (after)");
  CHECK_THAT(c->ratio, WithinRel(0.5, 1e-12));  // 0.05 / 0.10
  // On min times both sides use their best run: 0.06 / 0.12.
  r.statistic = Statistic::min;
  r.points[1].tflops_best = 0.06;
  const auto m = compare_with_gemm(r, gemm);
  REQUIRE(m);
  CHECK_THAT(m->ratio, WithinRel(0.5, 1e-12));
  CHECK(m->gemm_tflops == 0.12);
  // A GEMM timed in the run's own rounds wins over the faster one measured apart: 0.06 / 0.1.
  r.gemm = GemmResult{"OpenBLAS", DType::fp32, 2048, {}, 0.05, 0.10, "", "interleaved"};
  const auto own = compare_with_gemm(r, gemm);
  REQUIRE(own);
  CHECK(own->gemm == "OpenBLAS fp32 2048 (interleaved)");
  CHECK_THAT(own->ratio, WithinRel(0.6, 1e-12));
  r.points.clear();
  CHECK_FALSE(compare_with_gemm(r, gemm));
}

TEST_CASE("reading reports: errors name the file and the JSON path", "[bench][report]") {
  CHECK(error_of(nlohmann::json::object()) == "r.json: /schema: not a kvplan-bench/1 report");
  CHECK(error_of({{"schema", "kvplan-bench/1"}}) == "r.json: /runs: missing");
  const nlohmann::json bad_dim = {
      {"schema", "kvplan-bench/1"},
      {"runs", {{{"backend", "cpu-tiled"}, {"head_dim", "64"}, {"causal", false}}}}};
  CHECK(error_of(bad_dim) == "r.json: /runs/0/head_dim: must be a positive integer");
  CHECK_THROWS_WITH(read_series_file("no-such-report.json"), "no-such-report.json: no such file");
}

TEST_CASE("the fixture report reads", "[bench][report]") {
  const auto s = read_series_file(KVPLAN_BENCH_FIXTURES "/report.json");
  REQUIRE(s.size() == 2);
  CHECK(s[0].label == "cpu-naive d=64");
  CHECK(s[1].n.size() == 4);  // its fifth point was skipped
  REQUIRE(s[1].quadratic);
  CHECK(s[1].quadratic->c == 1e-11);
}
