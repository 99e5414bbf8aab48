// StreamingLLM's sinks + recent window on the KV chart, beside the attention variants.
#include <QSpinBox>
#include <QTest>

#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
/// The KV chart's line whose name starts with `prefix`; nullptr when there is none.
const ChartLine* line(const ChartsData& d, const QString& prefix) {
  for (const auto& l : d.kv_memory.lines)
    if (l.name.startsWith(prefix)) return &l;
  return nullptr;
}
}  // namespace

class StreamingCurveTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The controller opens on Llama-3.1-8B, 8 users, bf16: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B
  // per token. With 4 sinks + 1,020 recent tokens every layer keeps min(L, 1,024) tokens: 8 users x 256 x
  // 131,072 B = 268,435,456 B at 256 tokens, and 8 x 1,024 x 131,072 B = 1,073,741,824 B (1 GiB) from
  // 1,024 tokens on, where the model itself needs 8 x 2^20 x 131,072 B = 2^40 B at 2^20 tokens.
  void defaultCurveCapsAt1024Tokens() {
    Controller c;
    QCOMPARE(QString::fromStdString(c.inputs().model.id), QStringLiteral("llama-3.1-8b"));
    const Figures& f = c.figures();
    QVERIFY(f.streaming.has_value());
    QCOMPARE(f.streaming->label, std::string("StreamingLLM 4+1,020"));
    QVERIFY(f.streaming->error.empty());
    QCOMPARE(f.streaming->per_gpu.size(), f.kv.contexts.size());
    for (std::size_t i = 0; i < f.kv.contexts.size(); ++i) {
      const std::uint64_t kept = std::min<std::uint64_t>(f.kv.contexts[i].value, 1024);
      QCOMPARE(f.streaming->per_gpu[i], Bytes{8 * kept * 131'072});
    }
    QCOMPARE(f.kv.contexts.front().value, 256u);
    QCOMPARE(f.streaming->per_gpu.front(), Bytes{268'435'456});
    QCOMPARE(f.kv.contexts.back().value, 1u << 20);
    QCOMPARE(f.streaming->per_gpu.back(), Bytes{1'073'741'824});
    QCOMPARE(f.kv.curves.front().per_gpu.back(), Bytes{1ULL << 40});

    // On the chart, beside the variants, in GiB; the model's own line stays last of the curves.
    const ChartsData d = describe_charts(f, c.modelTitle());
    const ChartLine* s = line(d, QStringLiteral("StreamingLLM 4+1,020"));
    QVERIFY(s != nullptr);
    QCOMPARE(s->points.size(), qsizetype(f.kv.contexts.size()));
    QCOMPARE(s->points.back().y(), 1.0);
    QCOMPARE(s->points.front().y(), 0.25);
    QVERIFY(line(d, QStringLiteral("MHA")) != nullptr);
    QVERIFY(line(d, QStringLiteral("MLA")) != nullptr);
    int streaming_at = -1, model_at = -1;
    for (int i = 0; i < d.kv_memory.lines.size(); ++i) {
      if (d.kv_memory.lines[i].name.startsWith(QStringLiteral("StreamingLLM"))) streaming_at = i;
      if (d.kv_memory.lines[i].name == QStringLiteral("this model")) model_at = i;
    }
    QVERIFY(streaming_at >= 0 && streaming_at < model_at);
  }

  // Another window: 0 sinks + 4,096 recent tokens hold 8 x 4,096 x 131,072 B = 4 GiB from 4,096 tokens on.
  // A window of 0 is refused with the flag's reason, and the curve stays.
  void windowChangesAndBadWindowIsRefused() {
    Controller c;
    QVERIFY(c.setStreamingWindow(0, 4096));
    QCOMPARE(c.figures().streaming->label, std::string("StreamingLLM 0+4,096"));
    QCOMPARE(c.figures().streaming->per_gpu.back(), Bytes{4ULL << 30});
    QVERIFY(!c.setStreamingWindow(4, 0));
    QVERIFY(c.errorMessage().contains(QStringLiteral("recent window")));
    QCOMPARE(c.streamingRecentWindow(), 4096u);
    QCOMPARE(c.figures().streaming->per_gpu.back(), Bytes{4ULL << 30});
    // The context slider reuses the series, the StreamingLLM curve with them.
    QVERIFY(c.setContext(100000));
    QCOMPARE(c.figures().streaming->per_gpu.back(), Bytes{4ULL << 30});
  }

  // The window's two boxes set the curve: 4 + 2,044 keeps 2,048 tokens, 8 x 2,048 x 131,072 B = 2 GiB.
  void windowBoxesSetTheCurve() {
    Controller c;
    MainWindow w(&c);
    auto* sinks = w.findChild<QSpinBox*>(QStringLiteral("streaming_sinks"));
    auto* recent = w.findChild<QSpinBox*>(QStringLiteral("streaming_recent"));
    QVERIFY(sinks != nullptr && recent != nullptr);
    QCOMPARE(sinks->value(), 4);
    QCOMPARE(recent->value(), 1020);
    recent->setValue(2044);
    QCOMPARE(c.streamingRecentWindow(), 2044u);
    QCOMPARE(c.figures().streaming->per_gpu.back(), Bytes{2ULL << 30});
  }

  // DeepSeek-V3's layers are all MLA: StreamingLLM caps full-attention layers only, so there is no curve.
  void noFullAttentionNoCurve() {
    Controller c;
    QVERIFY(c.selectModel(QStringLiteral("deepseek-v3")));
    QVERIFY(!c.figures().streaming.has_value());
    QVERIFY(line(describe_charts(c.figures(), c.modelTitle()), QStringLiteral("StreamingLLM")) == nullptr);
  }
};

QTEST_MAIN(StreamingCurveTest)
#include "test_streaming_curve.moc"
