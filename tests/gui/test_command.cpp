// "Copy as command": the `kvplan size` line built for a scenario, run through the real CLI with --json,
// prints the figures of the controller's plan.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <nlohmann/json.hpp>

#include "gui_test_support.hpp"
#include "kvplan/gui/controller.hpp"

using namespace kvplan;
using namespace kvplan::gui;
using nlohmann::json;

namespace {
/// Runs a program; stdout parsed as JSON (null when the run failed, with the reason in `error`).
json run_json(const QString& program, const QStringList& args, QString* error) {
  QProcess p;
  p.start(program, args);
  if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    *error = QStringLiteral("%1 %2: exit %3: %4")
                 .arg(program, args.join(' '))
                 .arg(p.exitCode())
                 .arg(QString::fromLocal8Bit(p.readAllStandardError()));
    return nullptr;
  }
  try {
    return json::parse(p.readAllStandardOutput().toStdString());
  } catch (const std::exception& e) {
    *error = QString::fromUtf8(e.what());
    return nullptr;
  }
}

/// The figures the CLI's --json prints that the controller's plan must match.
QString mismatches(const json& j, const Plan& p) {
  QStringList out;
  const auto cmp = [&](const char* key, const json& value, const json& expected) {
    if (value != expected)
      out << QStringLiteral("%1: cli %2, gui %3")
                 .arg(QLatin1String(key), QString::fromStdString(value.dump()),
                      QString::fromStdString(expected.dump()));
  };
  cmp("bytes_per_token", j["bytes_per_token"], p.bytes_per_token.value);
  cmp("kv_bytes_per_sequence", j["kv_bytes_per_sequence"], p.kv_bytes_per_sequence.value);
  cmp("kv_bytes_total", j["kv_bytes_total"], p.kv_bytes_total.value);
  cmp("max_users", j["max_users"], p.max_users);
  cmp("max_context", j["max_context"], p.max_context ? json(p.max_context->value) : json(nullptr));
  cmp("fits", j["fits"], p.fits);
  cmp("weights_bytes", j["weights_bytes"], p.weights_bytes.value);
  cmp("per_gpu.kv_bytes_total", j["per_gpu"]["kv_bytes_total"], p.per_gpu.kv_bytes_total.value);
  cmp("per_gpu.weights_bytes", j["per_gpu"]["weights_bytes"], p.per_gpu.weights_bytes.value);
  cmp("per_gpu.available_kv_bytes", j["per_gpu"]["available_kv_bytes"], p.per_gpu.available_kv_bytes.value);
  if (p.inputs.engine.engine != Engine::ideal) {
    const json& e = j["engine"];
    cmp("engine.name", e["name"], std::string(name(p.engine.engine)));
    cmp("engine.rules", e["rules"], p.engine.rules);
    cmp("engine.block_size", e["block_size"], p.engine.block_size);
    cmp("engine.page_bytes", e["page_bytes"], p.engine.page_bytes.value);
    cmp("engine.kv_bytes_total", e["kv_bytes_total"], p.engine.kv_bytes_total.value);
    cmp("engine.log_lines", e["log_lines"], p.engine.log_lines);
    cmp("engine.num_blocks", e.value("num_blocks", json()),
        p.engine.num_blocks ? json(*p.engine.num_blocks) : json());
    cmp("engine.kv_cache_tokens", e.value("kv_cache_tokens", json()),
        p.engine.kv_cache_tokens ? json(*p.engine.kv_cache_tokens) : json());
  }
  return out.join(QStringLiteral("; "));
}

}  // namespace

using Setup = std::function<void(Controller&)>;
Q_DECLARE_METATYPE(Setup)

class CommandTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void theCommandPrintsTheSameFigures_data() {
    QTest::addColumn<Setup>("setup");
    QTest::newRow("opening state") << Setup([](Controller&) {});
    QTest::newRow("README example") << Setup(
        [](Controller& c) { QVERIFY(c.loadScenario(test::gui_fixture("scenario-70b-tp4.json"))); });
    QTest::newRow("dtypes, replicas, utilisation, reserve, weights") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("llama-3.1-70b")));
      QVERIFY(c.setKDtype(DType::fp8_e4m3));
      QVERIFY(c.setVDtype(DType::q8_0));
      QVERIFY(c.setTensorParallel(2));
      QVERIFY(c.setPipelineParallel(2));
      QVERIFY(c.setGpuCount(8));
      QVERIFY(c.setUtilization(0.85));
      QVERIFY(c.setReserve(QStringLiteral("3GiB")));
      QVERIFY(c.setWeights(QStringLiteral("100GB")));
      QVERIFY(c.setContext(20000));
      QVERIFY(c.setUsers(33));
    });
    QTest::newRow("sliding windows, custom GPU memory") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
      QVERIFY(c.setGpuMemory(QStringLiteral("48GiB")));
      QVERIFY(c.setContext(131072));
      QVERIFY(c.setUsers(12));
    });
    QTest::newRow("weight dtype") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("mixtral-8x7b")));
      QVERIFY(c.setWeightDtype(DType::int4));
      QVERIFY(c.setUtilization(0.95));
    });
    QTest::newRow("MLA preset") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("deepseek-v2-lite")));
      // One latent per token: one KV cache type (a V type apart from K's is refused on MLA).
      QVERIFY(c.setKvDtype(DType::fp8_e4m3));
    });
    QTest::newRow("hybrid with recurrent state") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("jamba-1.5-mini")));
      QVERIFY(c.setGpuCount(2));
      QVERIFY(c.setUsers(40));
    });
    QTest::newRow("engine rules") << Setup([](Controller& c) {
      QVERIFY(c.setEngine(QStringLiteral("vllm")));
      QVERIFY(c.setContext(32768));
    });
    QTest::newRow("vLLM V0, block size, KV memory") << Setup([](Controller& c) {
      EngineOptions o;
      o.engine = Engine::vllm;
      o.version = "v0";
      o.block_size = 32;
      QVERIFY(c.setEngineOptions(o));
      QVERIFY(c.setKvMemory(QStringLiteral("3.81GiB")));
      QVERIFY(c.setContext(20000));
      QVERIFY(c.setUsers(3));
    });
    QTest::newRow("vLLM V1, batched tokens, sliding windows, several users") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
      EngineOptions o;
      o.engine = Engine::vllm;
      o.max_num_batched_tokens = 4096;
      QVERIFY(c.setEngineOptions(o));
      QVERIFY(c.setKvMemory(QStringLiteral("3.81GiB")));
      QVERIFY(c.setContext(20000));
      QVERIFY(c.setUsers(5));
    });
    QTest::newRow("vLLM hybrid manager off, fp8_ds_mla") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("deepseek-v3")));
      QVERIFY(c.setGpuCount(8));
      EngineOptions o;
      o.engine = Engine::vllm;
      o.fp8_ds_mla = true;
      o.disable_hybrid_kv_cache_manager = true;
      QVERIFY(c.setEngineOptions(o));
      QCOMPARE(c.inputs().kv.k, DType::fp8_e4m3);
    });
    QTest::newRow("llama.cpp 2025-11, swa-full, kv-unified, ubatch") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
      EngineOptions o;
      o.engine = Engine::llamacpp;
      o.version = "2025-11";
      o.swa_full = o.kv_unified = true;
      o.ubatch = 256;
      QVERIFY(c.setEngineOptions(o));
      QVERIFY(c.setKDtype(DType::q8_0));
      QVERIFY(c.setVDtype(DType::q8_0));
      QVERIFY(c.setUsers(4));
    });
    QTest::newRow("SGLang page size and SWA ratio") << Setup([](Controller& c) {
      QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
      EngineOptions o;
      o.engine = Engine::sglang;
      o.block_size = 64;
      o.swa_full_tokens_ratio = 0.25;
      QVERIFY(c.setEngineOptions(o));
    });
    QTest::newRow("TRT-LLM max_tokens") << Setup([](Controller& c) {
      EngineOptions o;
      o.engine = Engine::trtllm;
      o.max_tokens = 100000;
      o.block_size = 64;
      QVERIFY(c.setEngineOptions(o));
    });
    QTest::newRow("edited architecture by flags") << Setup([](Controller& c) {
      QVERIFY(c.setGroupValue(0, GroupField::kv_heads, 4));
      QVERIFY(c.setWeightDtype(DType::fp8_e4m3));
    });
    QTest::newRow("edited to sliding window by flags") << Setup([](Controller& c) {
      QVERIFY(c.setGroupKind(0, AttentionKind::sliding));
      QVERIFY(c.setGroupValue(0, GroupField::window, 2048));
      QVERIFY(c.setContext(100000));
    });
    QTest::newRow("a config.json") << Setup([](Controller& c) {
      QVERIFY(c.openModelFile(QStringLiteral(KVPLAN_TEST_FIXTURES "/llama-like/config.json")));
      QVERIFY(c.setUsers(3));
    });
  }

  void theCommandPrintsTheSameFigures() {
    QFETCH(Setup, setup);
    Controller c;
    setup(c);
    if (QTest::currentTestFailed()) return;
    QString why;
    const QStringList args = c.commandArgs(&why);
    QVERIFY2(!args.isEmpty(), qPrintable(why));
    QCOMPARE(args.first(), QStringLiteral("size"));
    QCOMPARE(c.commandLine(), QStringLiteral("kvplan ") + args.join(' '));  // no argument needs quotes here
    QString error;
    const json j = run_json(QStringLiteral(KVPLAN_CLI), args + QStringList{QStringLiteral("--json")}, &error);
    QVERIFY2(!j.is_null(), qPrintable(error));
    const QString diff = mismatches(j, c.plan());
    QVERIFY2(diff.isEmpty(), qPrintable(c.commandLine() + QStringLiteral(": ") + diff));
  }

  void theReadmeExampleIsTheReadmeCommand() {
    Controller c;
    QVERIFY(c.loadScenario(test::gui_fixture("scenario-70b-tp4.json")));
    QCOMPARE(
        c.commandLine(),
        QStringLiteral(
            "kvplan size llama-3.1-70b --kv-dtype bf16 --context 32768 --users 16 --gpu h100-sxm --tp 4"));
  }

  void aPathWithSpacesIsQuotedForTheShell() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString folder = dir.filePath(QStringLiteral("my model's files"));
    QVERIFY(QDir().mkpath(folder));
    const QString config = folder + QStringLiteral("/config.json");
    QVERIFY(QFile::copy(QStringLiteral(KVPLAN_TEST_FIXTURES "/llama-like/config.json"), config));
    Controller c;
    QVERIFY(c.openModelFile(config));
    const QString line = c.commandLine();
    QVERIFY2(line.contains(QStringLiteral("'\\''")), qPrintable(line));
    // The line as a shell runs it, with the real binary in place of `kvplan`.
    QString error;
    const QString shell_line = QStringLiteral("'" KVPLAN_CLI "'") +
                               line.mid(QStringLiteral("kvplan").size()) + QStringLiteral(" --json");
    const json j = run_json(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), shell_line}, &error);
    QVERIFY2(!j.is_null(), qPrintable(error));
    const QString diff = mismatches(j, c.plan());
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
  }

  void anArchitectureTheFlagsCannotSayIsRefused_data() {
    QTest::addColumn<Setup>("setup");
    QTest::addColumn<QString>("reason");
    QTest::newRow("two layer groups") << Setup([](Controller& c) {
      QVERIFY(c.splitGroup(0));
      QVERIFY(c.setGroupKind(1, AttentionKind::sliding));
    }) << QStringLiteral("2 layer groups");
    QTest::newRow("MLA by flags") << Setup([](Controller& c) {
      QVERIFY(c.setGroupKind(0, AttentionKind::mla));
    }) << QStringLiteral("mla");
    QTest::newRow("K and V head dims")
        << Setup([](Controller& c) { QVERIFY(c.setGroupValue(0, GroupField::head_dim_v, 64)); })
        << QStringLiteral("head dims differ");
  }

  void anArchitectureTheFlagsCannotSayIsRefused() {
    QFETCH(Setup, setup);
    QFETCH(QString, reason);
    Controller c;
    setup(c);
    QString why;
    QVERIFY(c.commandArgs(&why).isEmpty());
    QVERIFY2(why.startsWith(QStringLiteral("command: ")) && why.contains(reason), qPrintable(why));
    QVERIFY(c.commandLine().isEmpty());
  }
};

QTEST_GUILESS_MAIN(CommandTest)
#include "test_command.moc"
