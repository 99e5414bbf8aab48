// core/series: the charts' figures are make_plan and prefill_flops at each length.
#include <QTest>

#include "kvplan/presets.hpp"
#include "kvplan/series.hpp"

using namespace kvplan;

namespace {
std::vector<Tokens> tokens(const std::vector<std::uint64_t>& v) {
  std::vector<Tokens> out;
  for (const auto n : v) out.push_back(Tokens{n});
  return out;
}
}  // namespace

class SeriesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void logLengths() {
    const auto v = log_lengths(256, 1 << 20, 4);
    // 12 doublings x 4 points + the last: 49 lengths, 256 x 2^(i/4) rounded.
    QCOMPARE(v.size(), std::size_t{49});
    QCOMPARE(v.front(), 256ULL);
    QCOMPARE(v[1], 304ULL);  // 256 x 2^0.25 = 304.4
    QCOMPARE(v[4], 512ULL);
    QCOMPARE(v.back(), 1ULL << 20);
    for (std::size_t i = 1; i < v.size(); ++i) QVERIFY(v[i] > v[i - 1]);
    QCOMPARE(log_lengths(1, 4, 8).front(), 1ULL);  // 1, 1.09, ... rounded: duplicates dropped
    const auto small = log_lengths(1, 4, 8);
    for (std::size_t i = 1; i < small.size(); ++i) QVERIFY(small[i] > small[i - 1]);
    QCOMPARE(log_lengths(7, 7, 3), std::vector<std::uint64_t>{7});
    QVERIFY_THROWS_EXCEPTION(Error, log_lengths(0, 10, 1));
    QVERIFY_THROWS_EXCEPTION(Error, log_lengths(10, 5, 1));
    QVERIFY_THROWS_EXCEPTION(Error, log_lengths(1, 5, 0));
  }

  void kvMemoryIsThePlanAtEachContext() {
    // A sliding-window model (Gemma 2) and a Mamba hybrid (Jamba) under tp 2 with 2 replicas.
    for (const char* id : {"gemma-2-9b", "jamba-1.5-mini"}) {
      PlanInputs in;
      in.model = presets::find_model(id);
      in.gpu = presets::find_gpu("h100-sxm");
      in.deployment.parallel = {2, 1, 2};
      in.users = 5;
      const auto contexts = tokens(log_lengths(256, 1 << 20, 2));
      const KvMemorySeries s = kv_memory_series(in, contexts);
      QCOMPARE(s.curves.front().label, std::string("as configured"));
      QCOMPARE(s.available_per_gpu, std::optional<Bytes>(make_plan(in).per_gpu.available_kv_bytes));
      const auto variants = attention_variants(in.model);
      QCOMPARE(s.curves.size(), variants.size());
      for (std::size_t v = 0; v < variants.size(); ++v) {
        QCOMPARE(s.curves[v].label, variants[v].label);
        QVERIFY2(s.curves[v].error.empty(), s.curves[v].error.c_str());
        for (std::size_t i = 0; i < contexts.size(); ++i) {
          PlanInputs at = in;
          at.model = variants[v].model;
          at.context = contexts[i];
          QCOMPARE(s.curves[v].per_gpu[i], make_plan(at).per_gpu.kv_bytes_total);
        }
      }
      const UsersSeries u = max_users_series(in, contexts);
      for (std::size_t i = 0; i < contexts.size(); ++i) {
        PlanInputs at = in;
        at.context = contexts[i];
        QCOMPARE(u.max_users[i], make_plan(at).max_users);
      }
    }
  }

  void aVariantTheDeploymentCannotHoldSaysWhy() {
    // Qwen2.5-7B: 28 heads, 4 KV heads. Its GQA variant has 7 KV heads (the largest divisor of 28 up
    // to 8), which tp 2 neither divides nor is a multiple of.
    PlanInputs in;
    in.model = presets::find_model("qwen2.5-7b");
    in.deployment.parallel.tp = 2;
    const auto contexts = tokens({1024, 4096});
    const KvMemorySeries s = kv_memory_series(in, contexts);
    QVERIFY(!s.available_per_gpu);  // no GPU
    bool found = false;
    for (const auto& c : s.curves)
      if (c.label == "GQA-7") {
        found = true;
        QVERIFY(c.per_gpu.empty());
        QVERIFY2(c.error.starts_with("tp: "), c.error.c_str());
      }
    QVERIFY(found);
    QCOMPARE(s.curves.front().per_gpu.size(), std::size_t{2});
    QVERIFY_THROWS_EXCEPTION(Error, max_users_series(in, contexts));  // needs a GPU
  }

  void prefillIsRelativeToTheReference() {
    const ModelSpec m = presets::find_model("llama-3.1-8b");
    const std::vector<std::uint64_t> prompts{256, 1024, 4096, 1ULL << 20};
    const PrefillSeries s = prefill_series(m, prompts, 1024);
    QCOMPARE(s.points.size(), prompts.size());
    const double ref = static_cast<double>(prefill_flops(m, 1024).total);
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      const PrefillFlops f = prefill_flops(m, prompts[i]);
      QCOMPARE(s.points[i].total, f.total);
      QCOMPARE(s.total[i], static_cast<double>(f.total) / ref);
      QCOMPARE(s.linear[i], static_cast<double>(f.linear) / ref);
      QCOMPARE(s.attention[i], static_cast<double>(f.attention) / ref);
    }
    QCOMPARE(s.total[1], 1.0);
    // Lengths whose FLOPs overflow 64 bits end the series instead of failing it.
    const PrefillSeries huge = prefill_series(m, std::vector<std::uint64_t>{1024, 1ULL << 40}, 1024);
    QCOMPARE(huge.points.size(), std::size_t{1});
    QVERIFY_THROWS_EXCEPTION(Error, prefill_series(m, prompts, 0));
  }

  void measuredPointsStartOnTheModel() {
    const ModelSpec m = presets::find_model("llama-3.1-8b");
    const std::vector<MeasuredPrefill> pts{{4096, 0.5}, {2048, 0.2}, {8192, 1.6}};
    const auto total = relative_measured(m, pts, 1024);
    const double ref = static_cast<double>(prefill_flops(m, 1024).total);
    const double anchor = static_cast<double>(prefill_flops(m, 2048).total) / ref;  // the shortest
    QCOMPARE(total[1], anchor);
    QCOMPARE(total[0], 0.5 / 0.2 * anchor);
    QCOMPARE(total[2], 1.6 / 0.2 * anchor);
    const auto attention = relative_measured(m, pts, 1024, true);
    QCOMPARE(attention[1], static_cast<double>(prefill_flops(m, 2048).attention) / ref);
    QVERIFY_THROWS_EXCEPTION(Error, relative_measured(m, std::vector<MeasuredPrefill>{}, 1024));
    QVERIFY_THROWS_EXCEPTION(Error, relative_measured(m, std::vector<MeasuredPrefill>{{0, 1.0}}, 1024));
    QVERIFY_THROWS_EXCEPTION(Error, relative_measured(m, std::vector<MeasuredPrefill>{{10, -1.0}}, 1024));
  }
};

QTEST_GUILESS_MAIN(SeriesTest)
#include "test_series.moc"
