// Model sources in the window: a header-only GGUF file and a model folder opened (dropped, as File > Open
// model does through Controller::openFile), a Hugging Face repo id typed in the search box and resolved
// from a Hub cache, and a broken file refused with the previous state kept. The fixtures are written at
// run time by the CLI tests' own writers (tests/sources/make_gguf.py and make_safetensors.py).
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "gui_test_support.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
using test::drop;
using test::type_and_enter;
}  // namespace

class SourcesTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

  [[nodiscard]] QString at(const char* name) const { return dir_.filePath(QLatin1String(name)); }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    for (const char* script : {"make_gguf.py", "make_safetensors.py"}) {
      QProcess p;
      p.start(QStringLiteral(KVPLAN_PYTHON3),
              {QStringLiteral(KVPLAN_SOURCES_DIR "/") + QLatin1String(script), dir_.path()});
      QVERIFY(p.waitForFinished(60000));
      QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
    // The repo id below is looked up in this cache only, never on the network.
    qputenv("HF_HUB_CACHE", dir_.filePath(QStringLiteral("hub")).toUtf8());
    qputenv("HF_HUB_OFFLINE", "1");
  }

  // Llama-3.1-8B's header in a Q4_K_M-like mix: per token 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B =
  // 131,072 B; the weights are the tensor infos' bytes, 5,172,420,864 B (worked in tests/test_gguf.cpp).
  void ggufFileOpens() {
    Controller c;
    MainWindow w(&c);
    w.show();  // the banner shows in a shown window
    drop(w, at("llama-3.1-8b-q4km.gguf"));
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    QCOMPARE(c.plan().bytes_per_token, Bytes{131'072});
    QCOMPARE(c.plan().weights_bytes, Bytes{5'172'420'864});
    QCOMPARE(c.inputs().model.weights_origin, std::string("GGUF tensors (exact)"));
    QCOMPARE(c.scenario().source.kind, ModelSource::Kind::file);
    QCOMPARE(QString::fromStdString(c.scenario().source.ref), at("llama-3.1-8b-q4km.gguf"));
    // The equivalent command names the file, which `kvplan size` reads the same way.
    QVERIFY(c.commandLine().contains(at("llama-3.1-8b-q4km.gguf")));
  }

  // A broken GGUF (cut inside the last tensor info) gets the red banner, and the model opened before stays.
  void truncatedGgufIsRefused() {
    Controller c;
    MainWindow w(&c);
    w.show();  // the banner shows in a shown window
    QVERIFY(c.openFile(at("llama-3.1-8b-q4km.gguf")));
    const Scenario before = c.scenario();
    drop(w, at("truncated.gguf"));
    QVERIFY(w.shownError().contains(QStringLiteral("truncated.gguf")));
    QVERIFY(w.shownError().contains(QStringLiteral("truncated header")));
    QVERIFY(c.scenario() == before);
    QCOMPARE(c.plan().weights_bytes, Bytes{5'172'420'864});
  }

  // tiny-llama (make_safetensors.py): 2 layers x 2 x 2 KV heads x 16 x 2 B = 256 B per token; the weights
  // from the safetensors header: 142,144 elements x 2 B = 284,288 B.
  void modelFolderOpens() {
    Controller c;
    MainWindow w(&c);
    w.show();  // the banner shows in a shown window
    drop(w, at("tiny-llama"));
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    QCOMPARE(c.plan().bytes_per_token, Bytes{256});
    QCOMPARE(c.plan().weights_bytes, Bytes{284'288});
    QCOMPARE(c.inputs().model.weights_origin, std::string("safetensors headers (exact)"));
    QCOMPARE(QString::fromStdString(c.scenario().source.ref), at("tiny-llama/config.json"));
    // A folder with no config.json is refused by name; the model stays.
    const Scenario before = c.scenario();
    QVERIFY(!c.openModelFile(at("hub")));
    QVERIFY(w.shownError().contains(QStringLiteral("hub: a folder without a config.json")));
    QVERIFY(c.scenario() == before);
  }

  // ORG/NAME + Enter in the search box: the same model, from the Hub cache's snapshot of refs/main.
  void repoIdFromTheCache() {
    Controller c;
    MainWindow w(&c);
    w.show();  // the banner shows in a shown window
    type_and_enter(w, QStringLiteral("kvplan-test/tiny-llama"));
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    QCOMPARE(QString::fromStdString(c.inputs().model.id), QStringLiteral("kvplan-test/tiny-llama"));
    QCOMPARE(c.plan().bytes_per_token, Bytes{256});
    QCOMPARE(c.plan().weights_bytes, Bytes{284'288});
    QVERIFY(c.commandLine().contains(QStringLiteral("kvplan size kvplan-test/tiny-llama ")));
    // A repo the cache lacks: the banner names the folder searched, and the model stays.
    const Scenario before = c.scenario();
    type_and_enter(w, QStringLiteral("kvplan-test/absent"));
    QVERIFY(w.shownError().contains(QStringLiteral("not in the Hugging Face cache")));
    QVERIFY(w.shownError().contains(dir_.filePath(QStringLiteral("hub"))));
    QVERIFY(c.scenario() == before);
    // Text that is no repo id picks the first preset the filter lists.
    type_and_enter(w, QStringLiteral("llama-3.1-70b"));
    QCOMPARE(QString::fromStdString(c.inputs().model.id), QStringLiteral("llama-3.1-70b"));
  }
};

QTEST_MAIN(SourcesTest)
#include "test_sources.moc"
