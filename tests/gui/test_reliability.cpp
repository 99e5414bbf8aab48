// Reliability: the bad-input catalogue's files (tests/reliability/fixtures) and bad values through the
// controller. Each is rejected with the message the CLI prints (the field named), errorOccurred fires
// once, and the scenario and every figure stay as they were.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <functional>
#include <limits>

#include "gui_test_support.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/save_file.hpp"

#include <sys/stat.h>

using namespace kvplan;
using namespace kvplan::gui;

namespace {
QString catalogue(const char* name) {
  return QStringLiteral(KVPLAN_TEST_FIXTURES "/../reliability/fixtures/") + QLatin1String(name);
}

/// Writes `text` to a file of `dir` and returns its path.
QString write(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
  const QString path = dir.filePath(QLatin1String(name));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) qFatal("cannot write %s", name);
  return path;
}

/// Runs a rejected action and checks the promise: false, one errorOccurred carrying `message`, no
/// planChanged, and the scenario and plan as before.
void rejected(Controller& c, const std::function<bool(Controller&)>& act, const QString& message) {
  const Scenario before = c.scenario();
  const Plan plan_before = c.plan();
  QSignalSpy planned(&c, &Controller::planChanged);
  QSignalSpy errors(&c, &Controller::errorOccurred);
  QVERIFY(!act(c));
  QCOMPARE(errors.count(), 1);
  QVERIFY2(c.errorMessage().contains(message),
           qPrintable(c.errorMessage() + QStringLiteral(" lacks ") + message));
  QVERIFY2(!c.errorMessage().contains(QLatin1Char('\n')), qPrintable(c.errorMessage()));
  QCOMPARE(planned.count(), 0);
  QVERIFY(c.scenario() == before);
  KVPLAN_COMPARE_PLANS(c.plan(), plan_before);
}
}  // namespace

class ReliabilityTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void catalogueFilesKeepTheState_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    // The messages of tests/reliability/catalogue.cmake, where each is worked out.
    const auto row = [](const char* name, const char* message) {
      QTest::newRow(name) << catalogue(name) << QString::fromUtf8(message);
    };
    row("truncated.json", "truncated.json: malformed JSON: parse error at line 1, column 49");
    row("whitespace-only.json", "whitespace-only.json: is empty");
    row("binary.json", "binary.json: malformed JSON: parse error at line 1, column 1");
    row("no-such-file.json", "no-such-file.json: no such file");
    row("top-level-array.json", "top-level-array.json: a config must be a JSON object, got an array");
    row("text-config-array.json", "text-config-array.json: /text_config: must be an object");
    row("layer-types-object.json", "/layer_types: must be an array, got an object");
    row("layers-as-string.json", "/num_hidden_layers: must be a non-negative integer, got a string");
    row("heads-fraction.json", "/num_attention_heads: must be a non-negative integer, got 32.5");
    row("hidden-1e400.json", "hidden-1e400.json: /head_dim: number overflow parsing '1e400'");
    row("vocab-too-big.json", "/vocab_size: must be a non-negative integer, got 1.8446744073709552e+19");
    row("kv-heads-negative.json", "/num_key_value_heads: must be a non-negative integer, got -8");
    row("layers-zero.json", "/num_hidden_layers: must be a positive integer, got 0");
    row("layers-huge.json", "/num_hidden_layers: 4000000000 layers: a config may have at most 100000");
    row("kv-heads-not-dividing.json", "/num_key_value_heads: 5 does not divide num_attention_heads 32");
    row("experts-per-token.json", "/num_experts_per_tok: 10 active experts exceed the 8 experts");
    row("layer-types-short.json", "/layer_types: has 3 entries for 4 layers");
    row("layer-types-unknown.json", "/layer_types/2: unknown layer type 'cross_attention'");
    row("layer-types-no-window.json", "/sliding_window: missing (required for this architecture)");
    row("window-zero.json", "/sliding_window: must be a positive integer, got 0");
    row("preset-negative-params.json", "/published_params: must be a positive integer");
    // KV figures never need vocab_size; the window's capacity plan needs the weights.
    row("preset-config-no-vocab.json", "the model's weights are unknown (the config has no vocab_size)");
  }

  void catalogueFilesKeepTheState() {
    QFETCH(QString, path);
    QFETCH(QString, message);
    Controller c;
    QVERIFY(c.setUsers(5));
    rejected(
        c, [&](Controller& c) { return c.openFile(path); }, message);
    rejected(
        c, [&](Controller& c) { return c.openModelFile(path); }, message);
  }

  void deepNesting() {
    // 100,000 levels, as the CLI catalogue: rejected with a message naming the limit (under a key kvplan
    // does not read too), never a stack overflow.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray open(100000, '['), close(100000, ']');
    // presets/src/json_file.cpp refuses the 65th level, at the path of the 64 open ones ("/0" each).
    const QString depth = QStringLiteral("/0").repeated(64);
    Controller c;
    rejected(
        c, [&](Controller& c) { return c.openFile(write(dir, "deep-array.json", open + close)); },
        QStringLiteral("deep-array.json: ") + depth +
            QStringLiteral(": nested deeper than 64 levels (the limit)"));
    rejected(
        c, [&](Controller& c) { return c.openFile(write(dir, "deep-unclosed.json", open)); },
        QStringLiteral("deep-unclosed.json: ") + depth + QStringLiteral(": nested deeper than 64 levels"));
    rejected(
        c,
        [&](Controller& c) {
          return c.openFile(write(dir, "deep-value.json", "{\"num_hidden_layers\": " + open + close + "}"));
        },
        QStringLiteral("deep-value.json: /num_hidden_layers") + depth.left(63 * 2) +
            QStringLiteral(": nested deeper than 64 levels"));
    QFile llama(QStringLiteral(KVPLAN_TEST_FIXTURES "/llama-like/config.json"));
    QVERIFY(llama.open(QIODevice::ReadOnly));
    QByteArray text = llama.readAll().trimmed();
    text.chop(1);  // the closing brace
    text += ", \"unused\": {\"deep\": " + open + close + "}}";
    // Refused whatever the key: the bound holds while parsing (4 MiB of "[" took 504 MB before).
    rejected(
        c, [&](Controller& c) { return c.openFile(write(dir, "deep-unused-key.json", text)); },
        QStringLiteral("deep-unused-key.json: /unused/deep") + depth.left(62 * 2) +
            QStringLiteral(": nested deeper than 64 levels"));
  }

  void badValuesKeepTheState() {
    Controller c;  // Llama 3.1 8B on one H100 SXM
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    rejected(
        c, [=](Controller& c) { return c.setUtilization(nan); },
        QStringLiteral("utilisation: must be in (0, 1]"));
    rejected(
        c, [=](Controller& c) { return c.setUtilization(inf); },
        QStringLiteral("utilisation: must be in (0, 1]"));
    rejected(
        c, [](Controller& c) { return c.setUtilization(1.5); },
        QStringLiteral("utilisation: must be in (0, 1]"));
    rejected(
        c, [](Controller& c) { return c.setUtilization(0.0); },
        QStringLiteral("utilisation: must be in (0, 1]"));
    rejected(
        c, [](Controller& c) { return c.setGpuMemory(QStringLiteral("1e400")); },
        QStringLiteral("GPU memory: unknown unit 'e400'"));
    rejected(
        c, [](Controller& c) { return c.setGpuMemory(QStringLiteral("-80GiB")); },
        QStringLiteral("GPU memory: must not be negative"));
    // 99,999,999 x 2^40 = 1.1e20 > 2^64.
    rejected(
        c, [](Controller& c) { return c.setGpuMemory(QStringLiteral("99999999TiB")); },
        QStringLiteral("GPU memory: overflows 64-bit arithmetic"));
    // 131,072 B per token x (2^64 - 1) tokens; 2^30 B per 8,192-token sequence x (2^64 - 1) users. Named
    // by the field's label and its value, as the CLI names its flag (it said "kv_bytes_per_sequence:
    // overflows"); core's field is the key ("context", "users"), the value first in its reason.
    rejected(
        c, [](Controller& c) { return c.setContext(std::numeric_limits<std::uint64_t>::max()); },
        QStringLiteral(
            "context: 18446744073709551615: the KV cache of one sequence overflows 2^64 B (131,072 B "
            "per token x 18,446,744,073,709,551,615 tokens)"));
    rejected(
        c, [](Controller& c) { return c.setUsers(std::numeric_limits<std::uint64_t>::max()); },
        QStringLiteral(
            "users: 18446744073709551615: the KV cache of the users overflows 2^64 B (1,073,741,824 B "
            "per sequence x 18,446,744,073,709,551,615 users)"));
    rejected(
        c, [](Controller& c) { return c.setContext(0); }, QStringLiteral("context: must be positive"));
  }

  /// Every file the GUI writes goes through saveFileAtomically, whose rename replaced whatever was at
  /// the path: `--screenshot /dev/full` run as root turned the device into a PNG file. A FIFO, a folder
  /// or a device is refused with one line (no device here: a test that fails would replace it), and stays
  /// what it was.
  void writesOnlyRegularFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fifo = dir.filePath(QStringLiteral("pipe"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QString error;
    QVERIFY(!saveFileAtomically(fifo, QByteArrayLiteral("png"), &error));
    QCOMPARE(error, fifo + QStringLiteral(": cannot be written: is not a regular file"));
    struct stat st {};
    QCOMPARE(::lstat(fifo.toLocal8Bit().constData(), &st), 0);
    QVERIFY(S_ISFIFO(st.st_mode));

    QVERIFY(!saveFileAtomically(dir.path(), QByteArrayLiteral("png"), &error));
    QCOMPARE(error, dir.path() + QStringLiteral(": cannot be written: is a folder"));

    // A regular file is still replaced whole.
    const QString file = dir.filePath(QStringLiteral("out.png"));
    QVERIFY2(saveFileAtomically(file, QByteArrayLiteral("new"), &error), qPrintable(error));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArrayLiteral("new"));
  }
};

QTEST_GUILESS_MAIN(ReliabilityTest)
#include "test_reliability.moc"
