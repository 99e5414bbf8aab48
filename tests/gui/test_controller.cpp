// The controller: every input gives exactly what core computes, bad values and files keep the state.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

#include <nlohmann/json.hpp>
#include "kvplan/format.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/context_scale.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/tables.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/series.hpp"
#include "kvplan/serving_dtype.hpp"
#include "logic_test_support.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
/// The controller's opening inputs, built independently: Llama 3.1 8B on one H100 SXM, 8,192 x 8.
PlanInputs opening_inputs() {
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-8b");
  in.gpu = presets::find_gpu("h100-sxm");
  in.context = Tokens{8192};
  in.users = 8;
  return in;
}

/// One user action and what it does to the inputs.
struct Step {
  const char* name;
  std::function<bool(Controller&)> act;
  std::function<void(PlanInputs&)> expect;
};
}  // namespace

class ControllerTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void opensOnARealPreset() {
    Controller c;
    QVERIFY2(c.errorMessage().isEmpty(), qPrintable(c.errorMessage()));
    QCOMPARE(c.scenario().source.kind, ModelSource::Kind::preset);
    QCOMPARE(c.scenario().source.ref, std::string("llama-3.1-8b"));
    // 32 layers x 2 (K and V) x 8 KV heads x 128 x 2 B (bf16) = 131,072 B per token.
    QCOMPARE(c.plan().bytes_per_token, Bytes{131072});
    KVPLAN_COMPARE_PLANS(c.plan(), make_plan(opening_inputs()));
  }

  void everyInputUpdatesThePlanExactly() {
    Controller c;
    PlanInputs e = opening_inputs();
    const std::vector<Step> steps = {
        {"context", [](Controller& c) { return c.setContext(32768); },
         [](PlanInputs& e) { e.context = Tokens{32768}; }},
        {"users", [](Controller& c) { return c.setUsers(16); }, [](PlanInputs& e) { e.users = 16; }},
        {"engine", [](Controller& c) { return c.setEngine(QStringLiteral("vllm")); },
         [](PlanInputs& e) { e.engine.engine = Engine::vllm; }},
        {"engine back", [](Controller& c) { return c.setEngine(QStringLiteral("ideal")); },
         [](PlanInputs& e) { e.engine.engine = Engine::ideal; }},
        {"K dtype", [](Controller& c) { return c.setKDtype(DType::fp8_e4m3); },
         [](PlanInputs& e) { e.kv.k = DType::fp8_e4m3; }},
        {"V dtype", [](Controller& c) { return c.setVDtype(DType::q8_0); },
         [](PlanInputs& e) { e.kv.v = DType::q8_0; }},
        // As the CLI's --weight-dtype: under ideal (vLLM's rules) fp8 is quantised at load, embeddings kept.
        {"weight dtype", [](Controller& c) { return c.setWeightDtype(DType::fp8_e4m3); },
         [](PlanInputs& e) { apply_weight_dtype(e.model, DType::fp8_e4m3, e.engine.engine); }},
        {"GPU preset", [](Controller& c) { return c.selectGpu(QStringLiteral("h200")); },
         [](PlanInputs& e) { e.gpu = presets::find_gpu("h200"); }},
        {"GPU memory", [](Controller& c) { return c.setGpuMemory(QStringLiteral("48GiB")); },
         [](PlanInputs& e) { e.gpu = custom_gpu(Bytes{48ULL << 30}); }},
        {"GPU preset again", [](Controller& c) { return c.selectGpu(QStringLiteral("h100-sxm")); },
         [](PlanInputs& e) { e.gpu = presets::find_gpu("h100-sxm"); }},
        {"tp", [](Controller& c) { return c.setTensorParallel(2); },
         [](PlanInputs& e) { e.deployment.parallel.tp = 2; }},
        {"pp", [](Controller& c) { return c.setPipelineParallel(2); },
         [](PlanInputs& e) { e.deployment.parallel.pp = 2; }},
        {"GPU count", [](Controller& c) { return c.setGpuCount(8); },
         [](PlanInputs& e) { e.deployment.parallel.dp = 2; }},
        {"utilisation", [](Controller& c) { return c.setUtilization(0.8); },
         [](PlanInputs& e) { e.deployment.gpu_memory_utilization = 0.8; }},
        {"reserve", [](Controller& c) { return c.setReserve(QStringLiteral("2GiB")); },
         [](PlanInputs& e) { e.deployment.reserve = Bytes{2ULL << 30}; }},
        {"weights", [](Controller& c) { return c.setWeights(QStringLiteral("10GiB")); },
         [](PlanInputs& e) { e.deployment.weights = Bytes{10ULL << 30}; }},
        {"weights auto", [](Controller& c) { return c.setWeights(QStringLiteral("auto")); },
         [](PlanInputs& e) { e.deployment.weights.reset(); }},
        {"KV heads", [](Controller& c) { return c.setGroupValue(0, GroupField::kv_heads, 4); },
         [](PlanInputs& e) { e.model.layers[0].attention.num_key_value_heads = 4; }},
        {"scheme sliding", [](Controller& c) { return c.setGroupKind(0, AttentionKind::sliding); },
         [](PlanInputs& e) {
           e.model.layers[0].attention.kind = AttentionKind::sliding;
           e.model.layers[0].attention.window = 4096;
         }},
        {"window", [](Controller& c) { return c.setGroupValue(0, GroupField::window, 1024); },
         [](PlanInputs& e) { e.model.layers[0].attention.window = 1024; }},
        // An MLA layer caches one latent: K and V of one type first (a V type apart is refused).
        {"V dtype as K's", [](Controller& c) { return c.setVDtype(DType::fp8_e4m3); },
         [](PlanInputs& e) { e.kv.v = DType::fp8_e4m3; }},
        {"scheme MLA", [](Controller& c) { return c.setGroupKind(0, AttentionKind::mla); },
         [](PlanInputs& e) {
           auto& a = e.model.layers[0].attention;
           a.kind = AttentionKind::mla;
           a.kv_lora_rank = 512;
           a.qk_rope_head_dim = 64;
           a.num_key_value_heads = 0;
           a.window = 0;
         }},
        {"MLA rank", [](Controller& c) { return c.setGroupValue(0, GroupField::kv_lora_rank, 256); },
         [](PlanInputs& e) { e.model.layers[0].attention.kv_lora_rank = 256; }},
        {"scheme full again", [](Controller& c) { return c.setGroupKind(0, AttentionKind::full); },
         [](PlanInputs& e) {
           auto& a = e.model.layers[0].attention;
           a.kind = AttentionKind::full;
           a.num_key_value_heads = a.num_attention_heads;
           a.kv_lora_rank = a.qk_rope_head_dim = a.q_lora_rank = 0;
         }},
        {"heads", [](Controller& c) { return c.setGroupValue(0, GroupField::heads, 64); },
         [](PlanInputs& e) { e.model.layers[0].attention.num_attention_heads = 64; }},
        {"head dim K", [](Controller& c) { return c.setGroupValue(0, GroupField::head_dim_k, 96); },
         [](PlanInputs& e) { e.model.layers[0].attention.head_dim_k = 96; }},
        {"head dim V", [](Controller& c) { return c.setGroupValue(0, GroupField::head_dim_v, 64); },
         [](PlanInputs& e) { e.model.layers[0].attention.head_dim_v = 64; }},
        {"split", [](Controller& c) { return c.splitGroup(0); },
         [](PlanInputs& e) {
           e.model.layers[0].count = 16;
           e.model.layers.push_back(e.model.layers[0]);
         }},
        {"layers", [](Controller& c) { return c.setGroupValue(1, GroupField::count, 20); },
         [](PlanInputs& e) { e.model.layers[1].count = 20; }},
        {"second group chunked", [](Controller& c) { return c.setGroupKind(1, AttentionKind::chunked); },
         [](PlanInputs& e) {
           e.model.layers[1].attention.kind = AttentionKind::chunked;
           e.model.layers[1].attention.window = 4096;
         }},
        {"reset architecture", [](Controller& c) { return c.resetArchitecture(); },
         [](PlanInputs& e) {
           ModelSpec m = presets::find_model("llama-3.1-8b");
           apply_weight_dtype(m, DType::fp8_e4m3, e.engine.engine);
           e.model = m;
         }},
        {"model preset (MLA)", [](Controller& c) { return c.selectModel(QStringLiteral("deepseek-v3")); },
         [](PlanInputs& e) { e.model = presets::find_model("deepseek-v3"); }},
        {"model file",
         [](Controller& c) {
           return c.openModelFile(QString::fromUtf8(KVPLAN_TEST_FIXTURES "/llama-like/config.json"));
         },
         [](PlanInputs& e) {
           e.model = presets::load_model_file(KVPLAN_TEST_FIXTURES "/llama-like/config.json");
         }},
        {"model preset (sliding)", [](Controller& c) { return c.selectModel(QStringLiteral("gemma-2-9b")); },
         [](PlanInputs& e) { e.model = presets::find_model("gemma-2-9b"); }},
    };
    for (const Step& step : steps) {
      QSignalSpy planned(&c, &Controller::planChanged);
      QSignalSpy errors(&c, &Controller::errorOccurred);
      QVERIFY2(step.act(c),
               qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(step.name), c.errorMessage())));
      step.expect(e);
      QCOMPARE(errors.count(), 0);
      QVERIFY2(planned.count() == 1, step.name);
      const QString diff = test::plan_differences(c.plan(), make_plan(e));
      QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(step.name), diff)));
    }
  }

  void aRepeatedValueChangesNothing() {
    Controller c;
    QSignalSpy planned(&c, &Controller::planChanged);
    QVERIFY(c.setContext(c.inputs().context.value));
    QCOMPARE(planned.count(), 0);
  }

  void seriesAreWhatCoreComputes() {
    Controller c;
    QVERIFY(c.selectModel(QStringLiteral("llama-3.1-70b")));
    QVERIFY(c.setTensorParallel(4));
    QVERIFY(c.setUsers(16));
    for (int round = 0; round < 2; ++round) {
      // The second round moves only the context: the series are reused, and must still be exact.
      if (round == 1) QVERIFY(c.setContext(100000));
      const Figures& f = c.figures();
      const PlanInputs in = c.inputs();
      QCOMPARE(f.kv.contexts.size(),
               log_lengths(kMinChartContext, kMaxChartContext, kChartPointsPerDoubling).size());
      QCOMPARE(f.kv.available_per_gpu, std::optional<Bytes>(c.plan().per_gpu.available_kv_bytes));
      const auto variants = attention_variants(in.model);
      QCOMPARE(f.kv.curves.size(), variants.size());
      for (std::size_t i = 0; i < f.kv.contexts.size(); ++i) {
        PlanInputs at = in;
        at.context = f.kv.contexts[i];
        const Plan p = make_plan(at);
        QCOMPARE(f.kv.curves[0].per_gpu[i], p.per_gpu.kv_bytes_total);
        QCOMPARE(f.users.max_users[i], p.max_users);
        at.model = variants[3].model;  // MQA
        QCOMPARE(f.kv.curves[3].per_gpu[i], make_plan(at).per_gpu.kv_bytes_total);
        const PrefillFlops pf = prefill_flops(in.model, f.kv.contexts[i].value);
        QCOMPARE(f.prefill.points[i].total, pf.total);
        QCOMPARE(f.prefill.points[i].attention, pf.attention);
      }
    }
    // Users change the curves: twice the users, twice the KV per GPU.
    const Bytes before = c.figures().kv.curves[0].per_gpu[10];
    QVERIFY(c.setUsers(32));
    QCOMPARE(c.figures().kv.curves[0].per_gpu[10], Bytes{before.value * 2});
  }

  // The max context past the model's limit is marked as the CLI's size marks it (the GUI showed the
  // bare figure). Llama 3.1 8B: 131,072 B per token; 32 GiB of KV memory holds 2^35 / 2^17 = 262,144
  // tokens for one user, past its 131,072 max_position_embeddings (rope_type llama3: not scaled).
  void maxContextPastTheLimitIsMarked() {
    Controller c;
    ResultsModel results(&c);
    QVERIFY(c.setUsers(1));
    QVERIFY2(c.setKvMemory(QStringLiteral("32GiB")), qPrintable(c.errorMessage()));
    QCOMPARE(results.value(QStringLiteral("max_context")),
             QStringLiteral("262,144 tokens (past the model's 131,072 max_position_embeddings)"));
  }

  // The curves run to 2^20 tokens; at 10,000,000 (Llama 4 Scout's length) the "this context" line stood
  // past their end with nothing said. The caption says where they end and that the table has the figures.
  void aContextPastTheChartsIsSaid() {
    Controller c;
    const QString note = QStringLiteral("curves end at 1,048,576 tokens");
    QVERIFY(!describe_charts(c.figures(), c.modelTitle()).caption.contains(note));
    QVERIFY2(c.setContext(10000000), qPrintable(c.errorMessage()));
    const QString caption = describe_charts(c.figures(), c.modelTitle()).caption;
    QVERIFY2(caption.contains(note + QStringLiteral(", the table gives 10,000,000")), qPrintable(caption));
  }

  // Weights given as a size take no dtype: the row said "fp8_e4m3, as given", as if the type applied.
  void weightsGivenAsASizeNameNoDtype() {
    Controller c;
    ResultsModel results(&c);
    QVERIFY(c.setWeightDtype(DType::fp8_e4m3));
    // The dtype is named in the row's label (the value is a figure).
    QVERIFY(results.label(QStringLiteral("per_gpu.weights_bytes")).contains(QStringLiteral("fp8_e4m3")));
    QVERIFY2(c.setWeights(QStringLiteral("10GiB")), qPrintable(c.errorMessage()));
    const QString row = results.value(QStringLiteral("per_gpu.weights_bytes"));
    const QString label = results.label(QStringLiteral("per_gpu.weights_bytes"));
    QVERIFY2(row.endsWith(QStringLiteral(", as given (the weight dtype does not apply)")), qPrintable(row));
    QVERIFY2(!row.contains(QStringLiteral("fp8")) && !label.contains(QStringLiteral("fp8")),
             qPrintable(row + QStringLiteral(" | ") + label));
  }

  // An fp32 checkpoint's weights at the engine's auto dtype, as the CLI counts them (the GUI counted 4 B a
  // parameter): tests/fixtures/fp32-llama-tiny.json has 89,134,080 parameters, 178,268,160 B at 2 B.
  void anFp32CheckpointsWeightsAreServedAtTheAutoDtype() {
    Controller c;
    QVERIFY2(c.openFile(QStringLiteral(KVPLAN_TEST_FIXTURES "/fp32-llama-tiny.json")),
             qPrintable(c.errorMessage()));
    QCOMPARE(c.plan().parameters, 89134080ULL);
    QCOMPARE(c.plan().weights_bytes, Bytes{178268160});
    bool warned = false;
    for (const auto& w : c.plan().warnings) warned = warned || w.find("fp32 checkpoint") != std::string::npos;
    QVERIFY(warned);
    // A weight dtype chosen is kept, as the engine loads it: fp8 quantised at load (ideal is vLLM's rules)
    // holds the linear weights at 1 B with a 4 B scale each, and the embeddings, LM head and norms at the
    // served bf16. Linear: 2 layers x (q 1,024 x 1,024 + k, v 2 x 1,024 x 512 + o 1,024 x 1,024 + 3 x 1,024 x
    // 2,816) = 2 x 11,796,480 = 23,592,960 B, 14 scales 56 B; embeddings and LM head 2 x 32,000 x 1,024 =
    // 65,536,000 and norms 5 x 1,024 = 5,120 at 2 B: 131,082,240 B. 154,675,256 B in all.
    QVERIFY(c.setWeightDtype(DType::fp8_e4m3));
    QCOMPARE(c.plan().weights_bytes, Bytes{154675256});
  }

  void resultsTableShowsThePlan() {
    Controller c;
    ResultsModel results(&c);
    const auto check = [&] {
      const Plan& p = c.plan();
      QCOMPARE(results.value(QStringLiteral("bytes_per_token")), bytes_text(p.bytes_per_token));
      QCOMPARE(results.value(QStringLiteral("kv_bytes_per_sequence")), bytes_text(p.kv_bytes_per_sequence));
      QCOMPARE(results.value(QStringLiteral("kv_bytes_total")), bytes_text(p.kv_bytes_total));
      QCOMPARE(results.value(QStringLiteral("per_gpu.kv_bytes_total")), bytes_text(p.per_gpu.kv_bytes_total));
      QCOMPARE(results.value(QStringLiteral("per_gpu.free_bytes")), bytes_text(p.per_gpu.free_bytes));
      QCOMPARE(results.value(QStringLiteral("fits")), p.fits ? QStringLiteral("YES") : QStringLiteral("NO"));
      QCOMPARE(results.value(QStringLiteral("limit")),
               QString::fromStdString(describe_limit(p.limit, UnitSystem::iec)));
      QCOMPARE(results.value(QStringLiteral("max_users")), QString::fromStdString(format_count(p.max_users)));
      QCOMPARE(results.value(QStringLiteral("max_context")),
               QString::fromStdString(format_count(p.max_context->value)) + QStringLiteral(" tokens"));
    };
    check();
    QCOMPARE(results.value(QStringLiteral("fits")), QStringLiteral("YES"));
    QVERIFY(c.setUsers(10000));
    check();
    QCOMPARE(results.value(QStringLiteral("fits")), QStringLiteral("NO"));
    for (int row = 0; row < results.rowCount(); ++row)
      if (results.index(row, 0).data(ResultsModel::KeyRole).toString() == QLatin1String("fits"))
        QVERIFY(results.index(row, 1).data(Qt::BackgroundRole).isValid());  // coloured
    QVERIFY(c.setContext(1000));
    check();
  }

  void impossibleValuesKeepTheState_data() {
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("field");
    const char* const cases[][2] = {
        {"tp that does not divide the heads", "tp"},
        {"utilisation above 1", "utilisation"},
        {"utilisation 0", "utilisation"},
        {"reserve not a size", "reserve"},
        {"GPU memory 0", "GPU memory"},
        {"context 0", "context"},
        {"users 0", "users"},
        {"GPU count not a multiple of tp x pp", "GPUs"},
        {"KV heads that do not divide the heads", "num_key_value_heads"},
        {"a group of 0 layers", "layers"},
        {"a window on a full-attention group", "window"},
        {"a group that does not exist", "layers"},
        {"weights not a size", "weights"},
        {"unknown model", "model"},
        {"unknown GPU", "gpu"},
        {"unknown engine", "engine"},
        {"split a group of one layer", "layers"},
        {"an overflowing context", "context: 4611686018427387904: the KV cache of one sequence overflows"},
        // A plain number under 1 MiB is bytes, and refused as the CLI's memory flags refuse it.
        {"KV memory 54 (bytes, not GiB)",
         "kv-memory: '54' is 54 bytes (a plain number is bytes); give a unit"},
        {"GPU memory 80 (bytes, not GB)", "GPU memory: '80' is 80 bytes"},
    };
    for (int i = 0; i < static_cast<int>(std::size(cases)); ++i)
      QTest::newRow(cases[i][0]) << i << QString::fromLatin1(cases[i][1]);
  }

  void impossibleValuesKeepTheState() {
    QFETCH(int, which);
    QFETCH(QString, field);
    Controller c;
    QVERIFY(c.setTensorParallel(2));
    if (which == 16) {
      QVERIFY(c.setGroupValue(0, GroupField::count, 1));
      QVERIFY(c.setGroupKind(0, AttentionKind::full));
    }
    QSignalSpy planned(&c, &Controller::planChanged);
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QSignalSpy inputs(&c, &Controller::inputsChanged);
    const std::function<bool()> actions[] = {
        [&] { return c.setTensorParallel(3); },
        [&] { return c.setUtilization(1.5); },
        [&] { return c.setUtilization(0.0); },
        [&] { return c.setReserve(QStringLiteral("lots")); },
        [&] { return c.setGpuMemory(QStringLiteral("0")); },
        [&] { return c.setContext(0); },
        [&] { return c.setUsers(0); },
        [&] { return c.setGpuCount(3); },
        [&] { return c.setGroupValue(0, GroupField::kv_heads, 7); },
        [&] { return c.setGroupValue(0, GroupField::count, 0); },
        [&] { return c.setGroupValue(0, GroupField::window, 1024); },
        [&] { return c.setGroupKind(5, AttentionKind::sliding); },
        [&] { return c.setWeights(QStringLiteral("-5GB")); },
        [&] { return c.selectModel(QStringLiteral("no-such-model")); },
        [&] { return c.selectGpu(QStringLiteral("no-such-gpu")); },
        [&] { return c.setEngine(QStringLiteral("no-such-engine")); },
        [&] { return c.splitGroup(0); },
        [&] { return c.setContext(1ULL << 62); },
        [&] { return c.setKvMemory(QStringLiteral("54")); },
        [&] { return c.setGpuMemory(QStringLiteral("80")); },
    };
    const Scenario ready = c.scenario();
    const Plan plan_ready = c.plan();
    planned.clear();
    QVERIFY(!actions[which]());
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains(field), qPrintable(message));
    QCOMPARE(c.errorMessage(), message);
    QCOMPARE(planned.count(), 0);
    QVERIFY(inputs.count() >= 1);  // widgets re-read the kept values
    QVERIFY(c.scenario() == ready);
    KVPLAN_COMPARE_PLANS(c.plan(), plan_ready);
    // The next good action clears the message.
    QVERIFY(c.setUsers(c.inputs().users + 1));
    QVERIFY(c.errorMessage().isEmpty());
  }

  // Core names inputs by key, in the field and inside its reason ("use `pp` for a layer split"); the window
  // says the labels of its own inputs (kvplan::gui_label_for), never a CLI flag.
  void coreErrorsNameTheLabels() {
    QCOMPARE(error_text(Error("calibration", "bench.json: no GEMM baseline; give `gpu` for its peak")),
             QStringLiteral("calibration: bench.json: no GEMM baseline; give GPU for its peak"));
    QCOMPARE(error_text(Error("tp", "`kvplan size` is no key")),
             QStringLiteral("tensor parallel (tp): `kvplan size` is no key"));
    // A real refusal: under llama.cpp's rules tp 2 is refused by core, naming pp by its key.
    Controller c;
    QVERIFY(c.setEngine(QStringLiteral("llamacpp")));
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QVERIFY(!c.setTensorParallel(2));
    QCOMPARE(errors.count(), 1);
    QCOMPARE(
        c.errorMessage(),
        QStringLiteral("tensor parallel (tp): llama.cpp does not split the KV cache by heads: use pipeline "
                       "stages (pp) for a layer split across devices"));
    QVERIFY2(!c.errorMessage().contains(QStringLiteral("--")), qPrintable(c.errorMessage()));
    // An engine option under another engine: the engine by its label, not "--engine".
    EngineOptions o = c.inputs().engine;
    o.engine = Engine::llamacpp;
    o.block_size = 16;
    QVERIFY(!c.setEngineOptions(o));
    QCOMPARE(c.errorMessage(),
             QStringLiteral("Block / page size: applies to engine rules vllm, sglang or trtllm"));
  }

  void badFilesKeepTheState_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");
    QTest::newRow("malformed JSON") << test::fixture("malformed.json") << QStringLiteral("malformed JSON");
    QTest::newRow("empty file") << test::fixture("empty.json") << QStringLiteral("is empty");
    QTest::newRow("unknown architecture")
        << test::fixture("unknown-arch.json") << QStringLiteral("/num_attention_heads");
    QTest::newRow("no such file") << test::fixture("no-such-file.json") << QStringLiteral("no such file");
    QTest::newRow("a folder without config.json")
        << test::fixture("presets-other") << QStringLiteral("presets-other: a folder without a config.json");
    QTest::newRow("scenario that does not plan")
        << test::gui_fixture("scenario-bad-tp.json") << QStringLiteral("tp");
    QTest::newRow("scenario with an unknown preset")
        << test::gui_fixture("scenario-unknown-preset.json") << QStringLiteral("unknown model");
    QTest::newRow("scenario from a newer kvplan")
        << test::gui_fixture("scenario-newer.json") << QStringLiteral("/kvplan_scenario: version 99");
  }

  void badFilesKeepTheState() {
    QFETCH(QString, path);
    QFETCH(QString, message);
    Controller c;
    QVERIFY(c.setUsers(5));
    const Scenario before = c.scenario();
    const Plan plan_before = c.plan();
    QSignalSpy planned(&c, &Controller::planChanged);
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QVERIFY(!c.openFile(path));
    QCOMPARE(errors.count(), 1);
    QVERIFY2(c.errorMessage().contains(message), qPrintable(c.errorMessage()));
    QCOMPARE(planned.count(), 0);
    QVERIFY(c.scenario() == before);
    KVPLAN_COMPARE_PLANS(c.plan(), plan_before);
  }

  void layerGroupTableEditsThroughTheController() {
    Controller c;
    LayerGroupsModel m(&c);
    QCOMPARE(m.rowCount(), 1);
    const auto cell = [&m](int column) { return m.index(0, column); };
    QCOMPARE(cell(LayerGroupsModel::Layers).data().toString(), QStringLiteral("0-31"));
    QCOMPARE(cell(LayerGroupsModel::KvHeads).data().toULongLong(), 8ULL);
    QVERIFY(m.flags(cell(LayerGroupsModel::KvHeads)) & Qt::ItemIsEditable);
    QVERIFY(!(m.flags(cell(LayerGroupsModel::Window)) & Qt::ItemIsEditable));  // full attention: no window
    QVERIFY(!(m.flags(cell(LayerGroupsModel::KvLoraRank)) & Qt::ItemIsEditable));
    QVERIFY(m.setData(cell(LayerGroupsModel::KvHeads), 4));
    QCOMPARE(c.inputs().model.layers[0].attention.num_key_value_heads, 4ULL);
    // 32 layers x 2 x 4 x 128 x 2 B = 65,536 B per token; the table's last column is per layer.
    QCOMPARE(c.plan().bytes_per_token, Bytes{65536});
    QCOMPARE(cell(LayerGroupsModel::BytesPerToken).data(Qt::EditRole).toULongLong(), 2048ULL);
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QVERIFY(!m.setData(cell(LayerGroupsModel::KvHeads), 7));
    QCOMPARE(errors.count(), 1);
    QCOMPARE(c.inputs().model.layers[0].attention.num_key_value_heads, 4ULL);
    QVERIFY(m.setData(cell(LayerGroupsModel::Scheme), QStringLiteral("sliding")));
    QCOMPARE(c.inputs().model.layers[0].attention.kind, AttentionKind::sliding);
    QVERIFY(m.flags(cell(LayerGroupsModel::Window)) & Qt::ItemIsEditable);
    QVERIFY(m.setData(cell(LayerGroupsModel::Window), 512));
    QCOMPARE(c.inputs().model.layers[0].attention.window, 512ULL);
    QVERIFY(!m.setData(cell(LayerGroupsModel::Scheme), QStringLiteral("none")));
  }

  void contextSliderScaleRoundTrips() {
    QCOMPARE(context_for_slider(0), 256ULL);
    QCOMPARE(context_for_slider(kContextSliderMax), 1ULL << 20);
    QCOMPARE(context_for_slider(kContextStepsPerDoubling * 5), 8192ULL);
    for (int p = 0; p <= kContextSliderMax; ++p) {
      QCOMPARE(slider_for_context(context_for_slider(p)), p);
      if (p > 0) QVERIFY(context_for_slider(p) > context_for_slider(p - 1));
    }
    QCOMPARE(slider_for_context(1), 0);
    QCOMPARE(slider_for_context(1ULL << 30), kContextSliderMax);
  }

  void measuredOverlay() {
    Controller c;
    QVERIFY(c.loadMeasuredPrefill(test::gui_fixture("prefill-measured.json")));
    const Figures& f = c.figures();
    QCOMPARE(f.measured.points.size(), std::size_t{4});
    QVERIFY(!f.measured.attention_only);
    QCOMPARE(f.measured_relative,
             relative_measured(c.inputs().model, f.measured.points, kPrefillReferenceTokens, false));
    // The first point sits on the model's total at 1,024 tokens, the reference: 1.
    QCOMPARE(f.measured_relative.front(), 1.0);
    QSignalSpy errors(&c, &Controller::errorOccurred);
    QVERIFY(!c.loadMeasuredPrefill(test::gui_fixture("prefill-bad.json")));
    QVERIFY2(c.errorMessage().contains(QStringLiteral("/points/1/seconds")), qPrintable(c.errorMessage()));
    QCOMPARE(c.figures().measured.points.size(), std::size_t{4});  // kept
    c.clearMeasuredPrefill();
    QVERIFY(c.figures().measured.points.empty());
    QVERIFY(c.figures().measured_relative.empty());
  }

  void measuredOverlayFromABenchReport() {
    Controller c;
    QVERIFY(c.selectModel(QStringLiteral("llama-3.1-8b")));  // head_dim 128
    QVERIFY2(c.loadMeasuredPrefill(test::gui_fixture("prefill-bench-report.json")),
             qPrintable(c.errorMessage()));
    const MeasuredSet& m = c.figures().measured;
    // Run 2 of the fixture (cpu-tiled, head_dim 128): its two "ok" points, sorted by n; the skipped
    // point, the failed-check cuda run and the head_dim 64 run are not used.
    QVERIFY(m.attention_only);
    QCOMPARE(m.points.size(), std::size_t{2});
    QCOMPARE(m.points[0].prompt_tokens, 1024ULL);
    QCOMPARE(m.points[0].seconds, 0.01);
    QCOMPARE(m.points[1].prompt_tokens, 2048ULL);
    QCOMPARE(m.points[1].seconds, 0.04);
    QVERIFY2(m.label.find("cpu-tiled, head_dim 128") != std::string::npos, m.label.c_str());
    // The same run `kvplan prefill --calibration` reads.
    const auto report = presets::read_json_file(test::gui_fixture("prefill-bench-report.json").toStdString());
    QCOMPARE(presets::calibration_run(report, "r.json", 128), std::size_t{2});
    QCOMPARE(presets::calibration_run(report, "r.json", 64), std::size_t{1});
  }
};

QTEST_GUILESS_MAIN(ControllerTest)
#include "test_controller.moc"
