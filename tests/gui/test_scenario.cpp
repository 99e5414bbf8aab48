// Scenarios: JSON round trips, files relative to the scenario, and bad scenarios named by JSON path.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include "kvplan/context_limit.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/scenario.hpp"
#include "kvplan/model_json.hpp"
#include "kvplan/presets.hpp"
#include "logic_test_support.hpp"

using namespace kvplan;
using namespace kvplan::gui;
using nlohmann::json;

namespace {
/// A scenario that touches every input: an edited architecture, split K/V dtypes, a custom GPU,
/// tp x pp x replicas, utilisation, reserve, weights and an engine.
void make_everything_non_default(Controller& c) {
  QVERIFY(c.selectModel(QStringLiteral("qwen3-8b")));
  QVERIFY(c.splitGroup(0));
  QVERIFY(c.setGroupKind(1, AttentionKind::sliding));
  QVERIFY(c.setGroupValue(1, GroupField::window, 2048));
  QVERIFY(c.setKDtype(DType::fp8_e4m3));
  QVERIFY(c.setVDtype(DType::q8_0));
  QVERIFY(c.setWeightDtype(DType::int8));
  QVERIFY(c.setGpuMemory(QStringLiteral("48GiB")));
  QVERIFY(c.setTensorParallel(2));
  QVERIFY(c.setPipelineParallel(2));
  QVERIFY(c.setGpuCount(8));
  QVERIFY(c.setUtilization(0.85));
  QVERIFY(c.setReserve(QStringLiteral("3GiB")));
  QVERIFY(c.setWeights(QStringLiteral("9000000000")));
  QVERIFY(c.setContext(65536));
  QVERIFY(c.setUsers(3));
}

json minimal() {
  return json{{"kvplan_scenario", 1},
              {"model", {{"preset", "llama-3.1-8b"}}},
              {"gpu", {{"preset", "h100-sxm"}}},
              {"tp", 2}};
}

QString error_of(const json& j) {
  try {
    (void)scenario_from_json(j, "s.json");
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}
}  // namespace

class ScenarioTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void roundTripsThroughAJsonFile() {
    Controller c;
    make_everything_non_default(c);
    QVERIFY(architecture_edited(c.scenario()));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("scenario.json"));
    QVERIFY(c.saveScenario(path));

    Controller d;
    QSignalSpy planned(&d, &Controller::planChanged);
    QVERIFY2(d.loadScenario(path), qPrintable(d.errorMessage()));
    QCOMPARE(planned.count(), 1);
    QVERIFY(d.scenario() == c.scenario());
    KVPLAN_COMPARE_PLANS(d.plan(), c.plan());
    // The file holds the inputs, not figures.
    const json j = presets::read_json_file(path.toStdString());
    QCOMPARE(j["kvplan_scenario"].get<int>(), kScenarioVersion);
    QCOMPARE(j["model"]["preset"].get<std::string>(), std::string("qwen3-8b"));
    QVERIFY(j["model"].contains("architecture"));
    QCOMPARE(j["gpu"]["memory_bytes"].get<std::uint64_t>(), 48ULL << 30);
    QCOMPARE(j["engine"].get<std::string>(), std::string("ideal"));
    QVERIFY(!j.contains("bytes_per_token"));
  }

  // A config without any length key gets the engines' 2,048-token default (context_limit.hpp); an inline
  // architecture lost the mark, so a reopened scenario had no limit at all.
  void aConfigWithoutALengthKeyRoundTrips() {
    const ModelSpec m = presets::load_model_file(KVPLAN_TEST_FIXTURES "/hostile/no-length-key.json");
    QVERIFY(m.context_keys.no_length_key);
    const ModelSpec back = presets::model_from_json(presets::model_to_json(m), "s.json: /model/architecture");
    QVERIFY(back.context_keys.no_length_key);
    QVERIFY(back == m);
    for (const Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm}) {
      QVERIFY(engine_max_context(m, e).has_value());
      QCOMPARE(engine_max_context(back, e), engine_max_context(m, e));
    }
  }

  void theEngineRoundTrips() {
    Controller c;
    QVERIFY2(c.setEngine(QStringLiteral("vllm")), qPrintable(c.errorMessage()));
    const json j = scenario_to_json(c.scenario());
    QCOMPARE(j["engine"].get<std::string>(), std::string("vllm"));
    QVERIFY(scenario_from_json(j, "s.json") == c.scenario());
  }

  void theEngineOptionsAndKvMemoryRoundTrip() {
    Controller c;
    QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
    EngineOptions o;
    o.engine = Engine::llamacpp;
    o.version = "2025-08";
    o.ubatch = 1024;
    o.swa_full = true;
    QVERIFY2(c.setEngineOptions(o), qPrintable(c.errorMessage()));
    QVERIFY2(c.setKvMemory(QStringLiteral("20GiB")), qPrintable(c.errorMessage()));
    const json j = scenario_to_json(c.scenario());
    // Only what differs from the defaults is written.
    QVERIFY(j["engine_options"] == (json{{"version", "2025-08"}, {"ubatch", 1024}, {"swa_full", true}}));
    QCOMPARE(j["kv_memory_bytes"].get<std::uint64_t>(), 20ULL << 30);
    QVERIFY(scenario_from_json(j, "s.json") == c.scenario());
    QVERIFY(c.setKvMemory(QStringLiteral("auto")));
    QVERIFY(!c.inputs().kv_memory);
    QVERIFY(!scenario_to_json(c.scenario()).contains("kv_memory_bytes"));
    // Back to the engine alone: its options return to their defaults.
    QVERIFY(c.setEngine(QStringLiteral("llamacpp")));
    QVERIFY(!scenario_to_json(c.scenario()).contains("engine_options"));
  }

  void anUneditedPresetIsSavedByItsId() {
    Controller c;
    QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
    QVERIFY(c.setWeightDtype(DType::bf16));
    const json j = scenario_to_json(c.scenario());
    QVERIFY(!j["model"].contains("architecture"));
    QCOMPARE(j["weight_dtype"].get<std::string>(), std::string("bf16"));
    const Scenario back = scenario_from_json(j, "s.json");
    QVERIFY(back == c.scenario());
    // Without the override the preset's own mixed dtypes (mxfp4 experts) come back.
    QVERIFY(c.selectModel(QStringLiteral("gpt-oss-20b")));
    const json k = scenario_to_json(c.scenario());
    QVERIFY(!k.contains("weight_dtype"));
    QVERIFY(scenario_from_json(k, "s.json") == c.scenario());
  }

  void everyPresetModelRoundTrips() {
    const auto all = presets::list_models();
    QVERIFY(all.size() >= 20);
    for (const auto& p : all) {
      const ModelSpec m = presets::load_model_file(p.path);
      QVERIFY2(presets::model_from_json(presets::model_to_json(m), "m") == m, p.id.c_str());
    }
  }

  // A scenario saved before the shared dialect (model_json.hpp): the window as "window", the indexer as
  // "indexer_head_dim". It still opens, and is saved again under the keys the CLI's --json prints.
  void aScenarioInTheFirstDialectOpens() {
    const Scenario s = load_scenario(test::gui_fixture("scenario-old-dialect.json").toStdString());
    QCOMPARE(s.source.kind, ModelSource::Kind::custom);
    const auto& layers = s.inputs.model.layers;
    QCOMPARE(layers.size(), std::size_t{4});
    QCOMPARE(layers[1].attention.kind, AttentionKind::sliding);
    QCOMPARE(layers[1].attention.window, std::uint64_t{4096});
    QCOMPARE(layers[2].attention.kind, AttentionKind::chunked);
    QCOMPARE(layers[2].attention.window, std::uint64_t{8192});
    QCOMPARE(layers[3].attention.indexer_head_dim, std::uint64_t{128});
    const json j = scenario_to_json(s);
    const json& written = j["model"]["architecture"]["layers"];
    QCOMPARE(written[1]["attention"]["sliding_window"].get<std::uint64_t>(), std::uint64_t{4096});
    QCOMPARE(written[2]["attention"]["attention_chunk_size"].get<std::uint64_t>(), std::uint64_t{8192});
    QCOMPARE(written[3]["attention"]["index_head_dim"].get<std::uint64_t>(), std::uint64_t{128});
    QVERIFY(!written[1]["attention"].contains("window"));
    QVERIFY(scenario_from_json(j, "s.json") == s);
  }

  void aModelFileIsFoundRelativeToTheScenario() {
    Controller c;
    QVERIFY2(c.loadScenario(test::gui_fixture("scenario-file.json")), qPrintable(c.errorMessage()));
    const Scenario& s = c.scenario();
    QCOMPARE(s.source.kind, ModelSource::Kind::file);
    const ModelSpec expected = presets::load_model_file(KVPLAN_TEST_FIXTURES "/llama-like/config.json");
    QVERIFY(s.inputs.model == expected);
    QVERIFY(s.gpu_preset.empty());
    QCOMPARE(s.inputs.gpu->memory, Bytes{48ULL << 30});
  }

  void theReadmeExampleGivesTheClisFigures() {
    Controller c;
    QVERIFY2(c.loadScenario(test::gui_fixture("scenario-70b-tp4.json")), qPrintable(c.errorMessage()));
    const Plan& p = c.plan();
    // As the CLI tests: 80 layers x 2 x 8 x 128 x 2 B; available 40,618,133,913 B per GPU; 15 users;
    // 30,989 tokens for 16 users.
    QCOMPARE(p.bytes_per_token, Bytes{327680});
    QCOMPARE(p.per_gpu.available_kv_bytes, Bytes{40618133913});
    QCOMPARE(p.max_users, 15ULL);
    QCOMPARE(p.max_context, std::optional<Tokens>(Tokens{30989}));
    QVERIFY(!p.fits);
  }

  void badScenariosNameTheJsonPath_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("tp not a number") << "tp"
                                     << "\"two\""
                                     << "s.json: /tp: must be a non-negative integer";
    QTest::newRow("tp 0") << "tp"
                          << "0"
                          << "s.json: /tp: must be a positive integer";
    QTest::newRow("gpus not a multiple") << "gpus"
                                         << "3"
                                         << "s.json: /gpus: 3 is not a multiple of tp x pp";
    QTest::newRow("unknown dtype") << "k_dtype"
                                   << "\"fp7\""
                                   << "s.json: /k_dtype";
    // A null read as absent: the default was planned without a word (it said "missing" for /gpu).
    QTest::newRow("gpu null") << "gpu"
                              << "null"
                              << "s.json: /gpu: must not be null";
    QTest::newRow("context null") << "context"
                                  << "null"
                                  << "s.json: /context: must not be null";
    // Misspelt or unknown keys were dropped and the plan made at the defaults (4,096 tokens, bf16).
    QTest::newRow("unknown key")
        << "context_length"
        << "65536"
        << "s.json: /context_length: unknown key (known here: kvplan_scenario, model,";
    QTest::newRow("unknown model key") << "model"
                                       << "{\"preset\": \"llama-3.1-8b\", \"revision\": \"main\"}"
                                       << "s.json: /model/revision: unknown key";
    QTest::newRow("unknown architecture key")
        << "model"
        << "{\"custom\": true, \"architecture\": {\"layers\": [{\"attention\": {\"num_attention_heads\": 8, "
           "\"num_key_value_heads\": 8, \"head_dim_k\": 64, \"head_dim_v\": 64, \"sliding_windw\": 1024}}]}}"
        << "s.json: /model/architecture/layers/0/attention/sliding_windw: unknown key";
    // Two sources: the preset was taken, the file (and a GPU's memory) dropped.
    QTest::newRow("preset and file") << "model"
                                     << "{\"preset\": \"llama-3.1-8b\", \"file\": \"config.json\"}"
                                     << "s.json: /model: preset and file given together: give one";
    QTest::newRow("GPU preset and memory")
        << "gpu"
        << "{\"preset\": \"h100-sxm\", \"memory_bytes\": 1000}"
        << "s.json: /gpu: preset and memory_bytes given together: give one";
    QTest::newRow("engine option null") << "engine_options"
                                        << "{\"block_size\": null}"
                                        << "s.json: /engine_options/block_size: must not be null";
    // Issue 28: a block_size of 0 was taken as "the engine's default" without a word.
    QTest::newRow("engine option 0") << "engine_options"
                                     << "{\"block_size\": 0}"
                                     << "s.json: /engine_options/block_size: must be a positive integer";
    // As the CLI's --k-dtype without --v-dtype: V was planned at the model's bf16 without a word.
    QTest::newRow("K dtype alone") << "k_dtype"
                                   << "\"fp8_e4m3\""
                                   << "s.json: /v_dtype: missing (required with k_dtype)";
    // As the CLI's --mamba-cache-dtype: Llama 3.1 8B has no recurrent layer, the type changed nothing.
    QTest::newRow("state dtype without recurrent layers")
        << "state_dtype"
        << "\"fp32\""
        << "s.json: /state_dtype: applies to a model with recurrent (Mamba, linear-attention, conv) layers";
    QTest::newRow("gpu memory 0") << "gpu"
                                  << "{\"memory_bytes\": 0}"
                                  << "s.json: /gpu/memory_bytes";
    QTest::newRow("unknown GPU") << "gpu"
                                 << "{\"preset\": \"z100\"}"
                                 << "unknown GPU 'z100'";
    QTest::newRow("unknown engine") << "engine"
                                    << "\"vllm2\""
                                    << "s.json: /engine";
    QTest::newRow("engine option of another engine") << "engine_options"
                                                     << "{\"block_size\": 16}"
                                                     << "s.json: /engine_options: block_size: applies to";
    QTest::newRow("unknown engine option") << "engine_options"
                                           << "{\"blocksize\": 16}"
                                           << "s.json: /engine_options/blocksize: unknown engine option";
    QTest::newRow("engine option of the wrong type")
        << "engine_options"
        << "{\"swa_full\": 1}"
        << "s.json: /engine_options/swa_full: must be true or false";
    QTest::newRow("kv memory 0") << "kv_memory_bytes"
                                 << "0"
                                 << "s.json: /kv_memory_bytes: must be a positive integer";
    QTest::newRow("model without a source") << "model"
                                            << "{}"
                                            << "s.json: /model: needs";
    QTest::newRow("empty architecture") << "model"
                                        << "{\"custom\": true, \"architecture\": {\"layers\": []}}"
                                        << "s.json: /model/architecture/layers";
    QTest::newRow("bad layer")
        << "model"
        << "{\"preset\": \"llama-3.1-8b\", \"architecture\": {\"layers\": [{\"count\": 2, "
           "\"attention\": {\"kind\": \"ring\"}}]}}"
        << "s.json: /model/architecture/layers/0/attention/kind";
    QTest::newRow("utilisation not a number") << "gpu_memory_utilization"
                                              << "\"most\""
                                              << "s.json: /gpu_memory_utilization";
    // Issue 14: the architecture is checked as a config is (this one died with SIGFPE under vLLM).
    QTest::newRow("recurrent layer without a state")
        << "model"
        << "{\"custom\": true, \"architecture\": {\"layers\": [{\"attention\": {\"kind\": \"none\"}}, "
           "{\"attention\": {\"num_attention_heads\": 1, \"num_key_value_heads\": 1, \"head_dim_k\": 1, "
           "\"head_dim_v\": 1}}]}}"
        << "s.json: /model/architecture/layers/0/attention: d_inner: must be positive for a mamba layer";
    QTest::newRow("layers past the limit")
        << "model"
        << "{\"custom\": true, \"architecture\": {\"layers\": [{\"count\": 5000, \"attention\": "
           "{\"num_attention_heads\": 1, \"num_key_value_heads\": 1, \"head_dim_k\": 1, \"head_dim_v\": "
           "1}}]}}"
        << "s.json: /model/architecture/layers/0/count: the layers add up to more than 4,096";
    QTest::newRow("RoPE factor negative")
        << "model"
        << "{\"custom\": true, \"architecture\": {\"layers\": [{\"attention\": {\"num_attention_heads\": 1, "
           "\"num_key_value_heads\": 1, \"head_dim_k\": 1, \"head_dim_v\": 1}}], \"context_keys\": "
           "{\"rope\": "
           "{\"factor\": -4}}}}"
        << "s.json: /model/architecture/context_keys/rope/factor: must be a positive number";
    QTest::newRow("utilisation past 1") << "gpu_memory_utilization"
                                        << "1.5"
                                        << "s.json: /gpu_memory_utilization: must be a number in (0, 1]";
    // 2^64 - 1 B of weights plus the default 1 GiB reserve.
    QTest::newRow("weights past 2^64 with the reserve")
        << "weights_bytes"
        << "18446744073709551615"
        << "s.json: /weights_bytes: overflows 64-bit arithmetic";
  }

  void badScenariosNameTheJsonPath() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, message);
    json j = minimal();
    j[key.toStdString()] = json::parse(value.toStdString());
    const QString error = error_of(j);
    QVERIFY2(error.contains(message), qPrintable(error));
  }

  void aFileThatIsNotAScenarioIsRefused() {
    QVERIFY(error_of(json{{"model", "x"}}).contains(QStringLiteral("not a kvplan scenario")));
  }

  void savingWhereNoFileCanBeWrittenSaysSo() {
    Controller c;
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QVERIFY(!c.saveScenario(QStringLiteral("/no-such-folder/scenario.json")));
    QCOMPARE(errors.count(), 1);
    QVERIFY(c.errorMessage().contains(QStringLiteral("/no-such-folder/scenario.json")));
  }
};

QTEST_GUILESS_MAIN(ScenarioTest)
#include "test_scenario.moc"
