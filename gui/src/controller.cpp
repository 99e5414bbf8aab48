#include "kvplan/gui/controller.hpp"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "kvplan/format.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/gui/measured.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/options.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/streaming.hpp"
#include "kvplan/weights.hpp"

namespace kvplan::gui {

/// One applied change: undo restores the scenario before it, redo the one after (the first redo, on
/// push, is the change already applied).
class ScenarioStep : public QUndoCommand {
 public:
  ScenarioStep(Controller* c, Scenario before, Scenario after)
      : QUndoCommand(QStringLiteral("edit")), c_(c), before_(std::move(before)), after_(std::move(after)) {}
  void undo() override { c_->restore(before_); }
  void redo() override {
    if (pushed_) c_->restore(after_);
    pushed_ = true;
  }

 private:
  Controller* c_;
  Scenario before_, after_;
  bool pushed_ = false;
};

namespace {
QString qstr(const std::string& s) { return QString::fromStdString(s); }
std::filesystem::path fspath(const QString& p) { return std::filesystem::path(p.toStdString()); }

/// The JSON pointer, below a scenario, of the key a core error's field is about ("tp" -> "/tp", "gpu_util"
/// -> "/gpu_memory_utilization", an engine option -> "/engine_options/KEY"); a field of the model's own
/// ("num_key_value_heads", "layers") -> "/model"; no field -> "". Core names its fields as the CLI's
/// flags do; the scenario's keys (scenario.cpp read_scenario) mostly take the same names.
std::string scenario_pointer_of(const std::string& field) {
  if (field.empty()) return {};
  const std::string name = field.substr(0, field.find(' '));  // "context 131072" (rethrow_naming_input)
  static const std::pair<const char*, const char*> kRenamed[] = {
      {"kv_dtype", "k_dtype"},
      {"gpu_util", "gpu_memory_utilization"},
      {"weights", "weights_bytes"},
      {"reserve", "reserve_bytes"},
      {"kv_memory", "kv_memory_bytes"},
      {"engine_version", "engine_options/version"},
      {"mamba_cache_dtype", "state_dtype"},
      {"mamba_ssm_cache_dtype", "ssm_state_dtype"}};
  for (const auto& [from, to] : kRenamed)
    if (name == from) return std::string("/") + to;
  for (const char* key : {"tp", "pp", "gpus", "context", "users", "k_dtype", "v_dtype", "weight_dtype",
                          "engine", "gpu", "gpu_memory_utilization", "state_dtype", "ssm_state_dtype"})
    if (name == key) return "/" + name;
  if (name == "fp8_ds_mla") return "/engine_options/fp8_ds_mla";
  if (const EngineOptionSpec* option = find_engine_option(name))
    return "/engine_options/" + std::string(option->key);
  return "/model";
}

/// A core error of planning a scenario, named at `where` (a file's name, a baseline's pointer) and the key it
/// is about: "s.json: /baselines/1/tp: 3 does not divide ...". A model's own field stays in the reason.
Error scenario_error(const std::string& where, const Error& e) {
  const std::string key = scenario_pointer_of(e.field());
  return Error(where + key,
               key == "/model" && !e.field().empty() ? e.field() + ": " + e.reason() : e.reason());
}

/// A Llama-3-8B-shaped model, for when the presets folder cannot be read.
ModelSpec fallback_model() {
  ModelSpec m;
  m.id = "custom";
  m.name = "custom model";
  m.source = "built in (presets not found)";
  LayerGroup g;
  g.count = 32;
  g.attention.num_attention_heads = 32;
  g.attention.num_key_value_heads = 8;
  g.attention.head_dim_k = g.attention.head_dim_v = 128;
  g.mlp.intermediate_size = 14336;
  m.layers.push_back(g);
  m.hidden_size = 4096;
  m.vocab_size = 128256;
  return m;
}

/// KV per GPU at each context with StreamingLLM's cap on the full-attention layers, planned as
/// kv_memory_series plans each attention variant (no GPU: capacity is not drawn); nullopt when the model
/// has no full-attention layer. The curve stops, saying why, at the first context that does not plan.
std::optional<KvCurve> streaming_curve(const PlanInputs& in, const std::vector<Tokens>& contexts,
                                       std::uint64_t sink, std::uint64_t recent) {
  bool full = false;
  for (const auto& g : in.model.layers) full = full || g.attention.kind == AttentionKind::full;
  if (!full) return std::nullopt;
  KvCurve c;
  c.label = "StreamingLLM " + format_count(sink) + "+" + format_count(recent);
  PlanInputs capped = in;
  capped.gpu.reset();
  capped.model = with_attention_sinks(in.model, sink, recent);
  CapacitySeries cs = capacity_series(capped, contexts);
  c.per_gpu = std::move(cs.per_gpu);
  if (cs.error) c.error = error_text(*cs.error).toStdString();
  return c;
}

/// `text` without the thousands separators of its leading number ("131,072" -> "131072", "1,024k" ->
/// "1024k"), for core's parsers; a comma anywhere else is an Error naming `field`.
std::string ungrouped(const QString& text, const char* field) {
  const QString t = text.trimmed();
  if (!t.contains(',')) return t.toStdString();
  static const QRegularExpression grouped(QStringLiteral("^(\\d{1,3}(?:,\\d{3})+)(?![\\d,])"));
  const QRegularExpressionMatch m = grouped.match(t);
  if (!m.hasMatch())
    throw Error(field,
                "'" + t.toStdString() + "': a thousands separator goes between groups of three digits");
  return (m.captured(1).remove(',') + t.mid(m.capturedLength(1))).toStdString();
}

/// Whether core refused the KV cache type itself (the engine has no such cache, or one type for K and V).
bool kv_dtype_error(const Error& e) { return e.field() == "kv_dtype" || e.field() == "k_dtype"; }

/// Bits per value of a type (q8_0: 34 B per 32 values = 8.5), to find an engine's nearest type.
double bits_per_value(DType t) {
  const DTypeInfo& i = info(t);
  return 8.0 * static_cast<double>(i.block_bytes) / static_cast<double>(i.block_values);
}

/// Whether `in` plans, or fails for a reason other than its KV cache type.
bool kv_dtype_plans(const PlanInputs& in) {
  try {
    (void)make_plan(in, false);  // the max-context search is not needed to see a refusal
  } catch (const Error& e) {
    return !kv_dtype_error(e);
  } catch (const std::exception&) {
    return true;
  }
  return true;
}

QString dtype_name(DType t) { return qstr(std::string(name(t))); }
const QString kArrow = QStringLiteral(" \u2192 ");
}  // namespace

Controller::Controller(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
  for (const std::uint64_t n : log_lengths(kMinChartContext, kMaxChartContext, kChartPointsPerDoubling)) {
    contexts_.push_back(Tokens{n});
    prompts_.push_back(n);
  }
  QStringList problems;
  try {
    model_presets_ = presets::list_models();
  } catch (const std::exception& e) {
    problems << error_text(e);
  }
  try {
    gpu_presets_ = presets::list_gpus();
  } catch (const std::exception& e) {
    problems << error_text(e);
  }

  Scenario s;
  s.inputs.context = Tokens{8192};
  s.inputs.users = 8;
  try {
    s.base = presets::find_model("llama-3.1-8b");
    s.source = {ModelSource::Kind::preset, "llama-3.1-8b"};
  } catch (const std::exception& e) {
    if (problems.isEmpty()) problems << error_text(e);
    s.base = fallback_model();
    s.source = {ModelSource::Kind::custom, ""};
  }
  s.inputs.model = s.base;
  try {
    s.inputs.gpu = presets::find_gpu("h100-sxm");
    s.gpu_preset = s.inputs.gpu->id;
  } catch (const std::exception&) {
    s.inputs.gpu = custom_gpu(Bytes{80ULL << 30});
  }
  try {
    figures_ = compute(s, {});
  } catch (const std::exception& e) {
    // A preset that does not plan: start on the built-in model, which does.
    problems << error_text(e);
    s.base = s.inputs.model = fallback_model();
    s.source = {ModelSource::Kind::custom, ""};
    figures_ = compute(s, {});
  }
  scenario_ = std::move(s);
  problems.removeDuplicates();  // a bad --presets folder fails both lists with the same line
  error_ = problems.join(QStringLiteral("; "));
}

QStringList Controller::engines() {
  QStringList out;
  for (const Engine e : {Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm})
    out << qstr(std::string(name(e)));
  return out;
}

QString Controller::modelTitle() const { return modelTitleOf(scenario_); }

QString Controller::modelTitleOf(const Scenario& s) {
  QString t = qstr(printable(s.inputs.model.name));  // as the CLI prints a name from a file
  if (architecture_edited(s)) t += QStringLiteral(" (edited)");
  return t;
}

Figures Controller::figuresOfBaseline(const Scenario& b, const std::string& where) {
  for (const auto& [scenario, figures] : baseline_cache_)
    if (scenario == b) return figures;
  const auto series_key = series_key_;
  const auto kv = kv_cache_;
  const auto users = users_cache_;
  const auto streaming = streaming_cache_;
  const auto prefill_key = prefill_key_;
  const auto prefill = prefill_cache_;
  const auto keep_caches = [&] {
    series_key_ = series_key;
    kv_cache_ = kv;
    users_cache_ = users;
    streaming_cache_ = streaming;
    prefill_key_ = prefill_key;
    prefill_cache_ = prefill;
  };
  series_key_.reset();
  prefill_key_.reset();
  Figures f;
  try {
    f = compute(b, {});
  } catch (const Error& e) {
    keep_caches();
    // Which baseline, and which of its keys: "tp: 3 does not divide ..." alone sent the user looking at
    // the scenario's own tp (issue 27).
    throw scenario_error(where, e);
  }
  keep_caches();
  baseline_cache_.emplace_back(b, f);
  // Room for every baseline and for those an undo may bring back.
  if (baseline_cache_.size() > 2 * kMaxBaselines) baseline_cache_.erase(baseline_cache_.begin());
  return f;
}

bool Controller::pinBaseline() {
  if (scenario_.baselines.size() >= kMaxBaselines) {
    reject(QStringLiteral("Pin as baseline: %1 baselines pinned already, the most there can be; remove one "
                          "first (Compare > Remove baseline)")
               .arg(kMaxBaselines));
    return false;
  }
  return apply([](Scenario& s) {
    Scenario pinned = s;
    pinned.baselines.clear();
    s.baselines.push_back(std::move(pinned));
  });
}

bool Controller::removeBaseline(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= scenario_.baselines.size()) return false;
  return apply([index](Scenario& s) { s.baselines.erase(s.baselines.begin() + index); });
}

bool Controller::clearBaselines() {
  return apply([](Scenario& s) { s.baselines.clear(); });
}

Figures Controller::compute(const Scenario& s, const MeasuredSet& measured) {
  // What the CLI plans for the same inputs (cli/options.cpp apply_weight_dtype): served_model.
  PlanInputs in = s.inputs;
  in.model = served_model(s);
  Figures f;
  try {
    f.plan = make_plan(in);
  } catch (const Error& e) {
    // An overflow names the field and its value, as the CLI names its flag (it said
    // "kv_bytes_per_sequence: overflows 64-bit arithmetic").
    rethrow_naming_input(e, in);
  }

  // Everything but the context decides the series; a moving context slider reuses them.
  PlanInputs key = in;
  key.context = Tokens{0};
  const bool series_hit = series_key_ && *series_key_ == key;
  if (series_hit) {
    f.kv = kv_cache_;
    f.users = users_cache_;
    f.streaming = streaming_cache_;
  } else {
    f.kv = kv_memory_series(in, contexts_);
    const bool rules = in.engine.engine != Engine::ideal && f.plan.has_gpu;
    if (rules) {
      // Under an engine's rules the model's KV per GPU is the engine's (whole pages, vLLM's window
      // reserve, llama.cpp's buffers), which make_plan gives only with the GPU's memory: one
      // capacity_series (one engine policy for every context) gives that curve and max users both. The
      // variants are kv_memory_series' (the engine's rules per sequence, without the GPU).
      KvCurve& model = f.kv.curves.front();
      CapacitySeries cs = capacity_series(in, contexts_);
      model.per_gpu = std::move(cs.per_gpu);
      // A longer context overflows, or the engine refuses it: the curve stops.
      model.error = cs.error ? error_text(*cs.error).toStdString() : std::string();
      f.users = UsersSeries{};
      f.users.contexts = contexts_;
      f.users.max_users = std::move(cs.max_users);
    } else if (in.gpu) {
      f.users = max_users_series(in, contexts_);
    }
    f.streaming = streaming_curve(in, contexts_, streaming_sink_, streaming_recent_);
  }
  const bool prefill_hit = prefill_key_ && *prefill_key_ == in.model;
  f.prefill = prefill_hit ? prefill_cache_ : prefill_series(in.model, prompts_, kPrefillReferenceTokens);
  f.measured = measured;
  if (!measured.points.empty())
    f.measured_relative =
        relative_measured(in.model, measured.points, kPrefillReferenceTokens, measured.attention_only);

  // Only now, with nothing left to throw, remember the series.
  if (!series_hit) {
    series_key_ = key;
    kv_cache_ = f.kv;
    users_cache_ = f.users;
    streaming_cache_ = f.streaming;
  }
  if (!prefill_hit) {
    prefill_key_ = in.model;
    prefill_cache_ = f.prefill;
  }
  return f;
}

bool Controller::commit(Scenario next, MeasuredSet measured, const QString& measured_path) {
  if (next == scenario_ && measured == figures_.measured && measured_path == measured_path_) return true;
  Figures f = compute(next, measured);
  std::vector<Figures> baselines;
  for (std::size_t i = 0; i < next.baselines.size(); ++i)
    baselines.push_back(figuresOfBaseline(next.baselines[i], "/baselines/" + std::to_string(i)));
  baseline_figures_ = std::move(baselines);
  if (!restoring_ && !(next == scenario_)) undo_->push(new ScenarioStep(this, scenario_, next));
  scenario_ = std::move(next);
  figures_ = std::move(f);
  measured_path_ = measured_path;
  error_.clear();
  notice_ = changes_.join(QStringLiteral("; "));
  changes_.clear();
  Q_EMIT planChanged();
  Q_EMIT inputsChanged();
  return true;
}

void Controller::restore(const Scenario& s) {
  restoring_ = true;
  apply([&](Scenario& now) { now = s; });
  restoring_ = false;
}

void Controller::reject(const QString& message) {
  error_ = message;
  Q_EMIT errorOccurred(message);
  Q_EMIT inputsChanged();
}

bool Controller::apply(const std::function<void(Scenario&)>& edit, const std::string& origin) {
  changes_.clear();
  try {
    Scenario next = scenario_;
    edit(next);
    if (origin.empty()) return commit(std::move(next), figures_.measured, measured_path_);
    try {
      return commit(std::move(next), figures_.measured, measured_path_);
    } catch (const Error& e) {
      // The file's own inputs do not plan: name the file and the key, as figuresOfBaseline names a baseline.
      throw scenario_error(origin + ": ", e);
    }
  } catch (const std::exception& e) {
    reject(error_text(e));
  }
  return false;
}

AttentionLayer& Controller::group(Scenario& s, int index) const {
  auto& layers = s.inputs.model.layers;
  if (index < 0 || static_cast<std::size_t>(index) >= layers.size())
    throw Error("layers", "no layer group " + std::to_string(index + 1));
  return layers[static_cast<std::size_t>(index)].attention;
}

bool Controller::selectModel(const QString& presetId) {
  return loaded(apply([&](Scenario& s) {
    const std::string id = presetId.toStdString();
    ModelSpec m;
    bool found = false;
    for (const auto& p : model_presets_)
      if (p.id == id) {
        m = presets::load_model_file(p.path);
        found = true;
      }
    if (!found) m = presets::find_model(id);
    useModel(s, std::move(m));
  }));
}

bool Controller::applyModel(const ModelSpec& model) {
  return loaded(apply([&](Scenario& s) { useModel(s, model); }));
}

void Controller::useModel(Scenario& s, ModelSpec m) {
  s.source = {ModelSource::Kind::preset, m.id};
  s.base = s.inputs.model = std::move(m);
  s.inputs.deployment.weights.reset();  // an override belongs to the model it was set for
}

bool Controller::loaded(bool ok) {
  if (ok) loaded_at_ = undo_->index();
  return ok;
}

bool Controller::openModelFile(const QString& path) {
  return loaded(apply([&](Scenario& s) {
    const QFileInfo info(path);
    // A model folder is its config.json, which load_model_file reads with the safetensors beside it.
    const QString abs = info.isDir() ? QDir(info.absoluteFilePath()).filePath(QStringLiteral("config.json"))
                                     : info.absoluteFilePath();
    if (info.isDir() && !QFileInfo(abs).isFile())
      throw Error(info.absoluteFilePath().toStdString(),
                  "a folder without a config.json is not a model folder");
    s.base = s.inputs.model = presets::load_model_file(fspath(abs));
    s.source = {ModelSource::Kind::file, abs.toStdString()};
    s.inputs.deployment.weights.reset();
  }));
}

bool Controller::openFile(const QString& path) {
  // A .gguf without GGUF's magic is a model file that load_model_file refuses as "not a GGUF file", not
  // JSON to be read as a scenario ("malformed JSON").
  if (QFileInfo(path).isDir() || presets::is_gguf_file(fspath(path)) ||
      QFileInfo(path).suffix().compare(QStringLiteral("gguf"), Qt::CaseInsensitive) == 0)
    return openModelFile(path);
  try {
    if (is_scenario(presets::read_json_file(fspath(path)))) return loadScenario(path);
  } catch (const std::exception& e) {
    reject(error_text(e));
    return false;
  }
  return openModelFile(path);
}

bool Controller::setGroupValue(int index, GroupField field, std::uint64_t value) {
  return apply([&](Scenario& s) {
    AttentionLayer& a = group(s, index);
    const bool windowed = a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked;
    const bool mla = a.kind == AttentionKind::mla;
    if (!has_attention(a.kind) && field != GroupField::count)
      throw Error("layers", "a recurrent layer group has no attention heads to edit");
    switch (field) {
      case GroupField::count:
        if (value == 0) throw Error("layers", "a layer group needs at least one layer");
        s.inputs.model.layers[static_cast<std::size_t>(index)].count = value;
        break;
      case GroupField::heads: a.num_attention_heads = value; break;
      case GroupField::kv_heads:
        if (mla) throw Error("num_key_value_heads", "MLA layers cache one latent, not KV heads");
        a.num_key_value_heads = value;
        break;
      case GroupField::head_dim_k: a.head_dim_k = value; break;
      case GroupField::head_dim_v: a.head_dim_v = value; break;
      case GroupField::window:
        if (!windowed) throw Error("window", "only sliding-window and chunked layers have a window");
        a.window = value;
        break;
      case GroupField::kv_lora_rank:
        if (!mla) throw Error("kv_lora_rank", "only MLA layers have a latent rank");
        a.kv_lora_rank = value;
        break;
      case GroupField::qk_rope_head_dim:
        if (!mla) throw Error("qk_rope_head_dim", "only MLA layers have a decoupled RoPE key");
        a.qk_rope_head_dim = value;
        break;
    }
  });
}

bool Controller::setGroupKind(int index, AttentionKind kind) {
  return apply([&](Scenario& s) {
    AttentionLayer& a = group(s, index);
    if (a.kind == kind) return;
    if (!has_attention(a.kind) || !has_attention(kind))
      throw Error("layers", "recurrent (Mamba, linear-attention) layers keep their kind");
    if (kind == AttentionKind::mla) {
      // DeepSeek-V2/V3's ranks (what `kvplan compare` uses); the head dims stay for the projections.
      if (a.kv_lora_rank == 0) a.kv_lora_rank = 512;
      if (a.qk_rope_head_dim == 0) a.qk_rope_head_dim = 64;
      a.num_key_value_heads = 0;
      a.window = 0;
    } else {
      if (a.kind == AttentionKind::mla) {
        a.num_key_value_heads = a.num_attention_heads;  // back from MLA: MHA of the same heads
        a.kv_lora_rank = a.qk_rope_head_dim = a.q_lora_rank = 0;
      }
      if (kind == AttentionKind::full) a.window = 0;
      if (kind != AttentionKind::full && a.window == 0) a.window = 4096;
    }
    a.kind = kind;
  });
}

bool Controller::splitGroup(int index) {
  return apply([&](Scenario& s) {
    (void)group(s, index);
    auto& layers = s.inputs.model.layers;
    const auto i = static_cast<std::size_t>(index);
    if (layers[i].count < 2) throw Error("layers", "a group of one layer cannot be split");
    LayerGroup second = layers[i];
    second.count = layers[i].count - layers[i].count / 2;
    layers[i].count /= 2;
    layers.insert(layers.begin() + static_cast<std::ptrdiff_t>(i) + 1, second);
  });
}

bool Controller::resetArchitecture() {
  return apply([](Scenario& s) {
    const ModelSpec edited = s.inputs.model;
    s.inputs.model = s.base;
    s.inputs.model.weight_dtype = edited.weight_dtype;
    s.inputs.model.embedding_dtype = edited.embedding_dtype;
    s.inputs.model.expert_weight_dtype = edited.expert_weight_dtype;
  });
}

bool Controller::setKvDtype(DType t) {
  return apply([t](Scenario& s) { s.inputs.kv.k = s.inputs.kv.v = t; });
}

bool Controller::kvDtypeAccepted(DType t) const {
  PlanInputs in = scenario_.inputs;
  in.kv.k = in.kv.v = t;
  return kv_dtype_plans(in);
}

bool Controller::setKDtype(DType t) {
  return apply([t](Scenario& s) { s.inputs.kv.k = t; });
}
bool Controller::setVDtype(DType t) {
  return apply([t](Scenario& s) { s.inputs.kv.v = t; });
}
bool Controller::setWeightDtype(DType t) {
  return apply([t](Scenario& s) { set_weight_dtype(s.inputs.model, t); });
}

const Controller::EngineTakes& Controller::engineTakes() const {
  const EngineOptions& o = scenario_.inputs.engine;
  if (engine_takes_ && engine_takes_->engine == o) return *engine_takes_;
  // Two plans of a 32-head model without a GPU (microseconds): the refusals are core's (its error
  // fields "tp" and "k_dtype"), so no engine rule is repeated in the GUI.
  const auto refused_by = [&o](PlanInputs in, const char* field) {
    in.model = fallback_model();
    in.engine = o;
    in.gpu.reset();
    in.kv_memory.reset();
    in.context = Tokens{1024};
    in.users = 1;
    try {
      (void)make_plan(in);
    } catch (const Error& e) {
      return e.field() == field;
    } catch (const std::exception&) {
    }
    return false;
  };
  EngineTakes t;
  t.engine = o;
  PlanInputs tp2;
  tp2.deployment.parallel.tp = 2;
  tp2.kv.k = tp2.kv.v = DType::bf16;
  t.tp = !refused_by(tp2, "tp");
  PlanInputs apart;
  apart.kv.k = DType::bf16;
  apart.kv.v = DType::fp16;
  t.two_types = !refused_by(apart, "k_dtype");
  engine_takes_ = t;
  return *engine_takes_;
}

bool Controller::engineTakesTensorParallel() const { return engineTakes().tp; }

bool Controller::engineTakesTwoKvTypes() const { return engineTakes().two_types; }

bool Controller::setWeightDtypeAsLoaded() {
  return apply([](Scenario& s) {
    s.inputs.model.weight_dtype = s.base.weight_dtype;
    s.inputs.model.embedding_dtype = s.base.embedding_dtype;
    s.inputs.model.expert_weight_dtype = s.base.expert_weight_dtype;
  });
}

bool Controller::weightDtypeAsLoaded() const { return !weight_dtype_overridden(scenario_); }

QString Controller::checkpointWeightLabel() const {
  const std::string loaded = weight_dtype_label(scenario_.base);
  ModelSpec served = scenario_.base;
  serve_fp32_weights(served, scenario_.inputs.engine.engine);  // as compute() plans it
  const std::string shown = weight_dtype_label(served);
  return qstr(shown == loaded ? loaded : loaded + ", served as " + shown);
}

bool Controller::selectGpu(const QString& presetId) {
  return apply([&](Scenario& s) {
    const std::string id = presetId.toStdString();
    std::optional<Gpu> gpu;
    for (const auto& g : gpu_presets_)
      if (g.id == id) gpu = g;
    s.inputs.gpu = gpu ? *gpu : presets::find_gpu(id);
    s.gpu_preset = s.inputs.gpu->id;
  });
}

bool Controller::setGpuMemory(const QString& size) {
  return apply([&](Scenario& s) {
    const Bytes memory = parse_memory_size(size.trimmed().toStdString(), "GPU memory");
    if (memory == Bytes{0}) throw Error("GPU memory", "must be positive");
    s.inputs.gpu = custom_gpu(memory);
    s.gpu_preset.clear();
  });
}

bool Controller::setGpuCount(std::uint64_t gpus) {
  return apply([gpus](Scenario& s) {
    Parallelism& p = s.inputs.deployment.parallel;
    p.dp = replicas_of(gpus, p.tp, p.pp);
  });
}

void Controller::setSplit(Scenario& s, std::uint64_t tp, std::uint64_t pp) {
  if (tp == 0) throw Error("tp", "must be positive");
  if (pp == 0) throw Error("pp", "must be positive");
  Parallelism& p = s.inputs.deployment.parallel;
  const std::uint64_t gpus = checked_mul(checked_mul(p.tp, p.pp, "GPUs"), p.dp, "GPUs");
  const std::uint64_t replica = checked_mul(tp, pp, "GPUs");
  if (gpus < replica) {
    p.dp = 1;
    changes_ << QStringLiteral("GPUs %1%2%3 (one replica of tp %4 x pp %5)")
                    .arg(gpus)
                    .arg(kArrow)
                    .arg(replica)
                    .arg(tp)
                    .arg(pp);
  } else if (gpus % replica != 0) {
    throw Error("GPUs", std::to_string(gpus) + " GPUs are no multiple of tp x pp = " + std::to_string(tp) +
                            " x " + std::to_string(pp) + ": change the GPU count first");
  } else {
    p.dp = gpus / replica;
  }
  p.tp = tp;
  p.pp = pp;
}

bool Controller::setTensorParallel(std::uint64_t tp) {
  return apply([&](Scenario& s) { setSplit(s, tp, s.inputs.deployment.parallel.pp); });
}

bool Controller::setPipelineParallel(std::uint64_t pp) {
  return apply([&](Scenario& s) { setSplit(s, s.inputs.deployment.parallel.tp, pp); });
}

bool Controller::setUtilization(double fraction) {
  return apply([fraction](Scenario& s) {
    // Refused with the value typed (core's check says the range only): 1.5 was clamped to 1.0 unsaid.
    if (!std::isfinite(fraction) || fraction <= 0.0 || fraction > 1.0)
      throw Error("gpu_util", "must be in (0, 1], not " + QString::number(fraction).toStdString() +
                                  " (the share of each GPU's memory the engine may use)");
    s.inputs.deployment.gpu_memory_utilization = fraction;
  });
}

bool Controller::setReserve(const QString& size) {
  return apply([&](Scenario& s) {
    const QString t = size.trimmed();
    if (t.isEmpty() || t.compare(QStringLiteral("auto"), Qt::CaseInsensitive) == 0)
      s.inputs.deployment.reserve.reset();
    else
      s.inputs.deployment.reserve = parse_memory_size(t.toStdString(), "reserve");
  });
}

bool Controller::setWeights(const QString& sizeOrAuto) {
  return apply([&](Scenario& s) {
    const QString t = sizeOrAuto.trimmed();
    if (t.isEmpty() || t.compare(QStringLiteral("auto"), Qt::CaseInsensitive) == 0)
      s.inputs.deployment.weights.reset();
    else
      s.inputs.deployment.weights = parse_memory_size(t.toStdString(), "weights");
  });
}

bool Controller::setEngine(const QString& engine) {
  return apply([&](Scenario& s) {
    const Engine e = parse_engine(engine.toStdString(), "engine");
    // Another engine: this one's options are kept for a switch back. The same engine again: its
    // defaults.
    const bool same = e == s.inputs.engine.engine;
    if (!same) engine_options_[s.inputs.engine.engine] = s.inputs.engine;
    const auto kept = engine_options_.find(e);
    s.inputs.engine = !same && kept != engine_options_.end() ? kept->second : EngineOptions{};
    s.inputs.engine.engine = e;
    fitToEngine(s);
  });
}

void Controller::fitToEngine(Scenario& s) {
  PlanInputs& in = s.inputs;
  const QString engine = qstr(std::string(name(in.engine.engine)));
  // Each round fixes the one thing core refused, until it plans (one KV fix and one tp fix at most).
  for (int round = 0; round < 3; ++round) {
    try {
      (void)make_plan(in, false);
      return;
    } catch (const Error& e) {
      Parallelism& p = in.deployment.parallel;
      if (e.field() == "tp" && p.tp > 1) {
        // llama.cpp splits layers across GPUs, not heads: the same GPUs per replica, as pipeline stages.
        const std::uint64_t tp = p.tp, pp = p.pp;
        p.pp = checked_mul(tp, pp, "pp");
        p.tp = 1;
        changes_ << QStringLiteral(
                        "tensor parallel (tp) %1%2%3, pipeline parallel (pp) %4%5%6 (%7 splits "
                        "layers, not heads)")
                        .arg(tp)
                        .arg(kArrow)
                        .arg(1)
                        .arg(pp)
                        .arg(kArrow)
                        .arg(p.pp)
                        .arg(engine);
        continue;
      }
      if (!kv_dtype_error(e)) throw;
      // The engine's type nearest in bits per value to K's (ties: kvplan's order, fp8_e4m3 first).
      std::vector<DType> order;
      for (const auto& t : all_dtypes()) order.push_back(t.type);
      const double bits = bits_per_value(in.kv.k);
      std::stable_sort(order.begin(), order.end(), [bits](DType a, DType b) {
        return std::abs(bits_per_value(a) - bits) < std::abs(bits_per_value(b) - bits);
      });
      const KvDtypes was = in.kv;
      bool mapped = false;
      for (const DType t : order) {
        in.kv.k = in.kv.v = t;
        if (kv_dtype_plans(in)) {
          mapped = true;
          break;
        }
      }
      if (!mapped) {
        in.kv = was;
        throw;
      }
      const QString from = was.k == was.v ? QStringLiteral("KV cache dtype %1").arg(dtype_name(was.k))
                                          : QStringLiteral("K cache %1, V cache %2 \u2192 KV cache dtype")
                                                .arg(dtype_name(was.k), dtype_name(was.v));
      changes_ << (was.k == was.v ? from + kArrow + dtype_name(in.kv.k) : from + ' ' + dtype_name(in.kv.k)) +
                      QStringLiteral(" (%1 has %2)")
                          .arg(engine, was.k == was.v ? QStringLiteral("no %1 cache").arg(dtype_name(was.k))
                                                      : QStringLiteral("one type for K and V"));
    }
  }
  (void)make_plan(in);  // what is still refused is the engine's to say
}

bool Controller::setEngineOptions(const EngineOptions& options) {
  return apply([&](Scenario& s) {
    validate_engine_options(options);
    // vLLM's fp8_ds_mla is a cache dtype there: fp8 K and V in kvplan's terms (as the CLI reads it).
    if (options.fp8_ds_mla && !s.inputs.engine.fp8_ds_mla) s.inputs.kv.k = s.inputs.kv.v = DType::fp8_e4m3;
    s.inputs.engine = options;
  });
}

bool Controller::setKvMemory(const QString& sizeOrAuto) {
  return apply([&](Scenario& s) {
    const QString t = sizeOrAuto.trimmed();
    if (t.isEmpty() || t.compare(QStringLiteral("auto"), Qt::CaseInsensitive) == 0)
      s.inputs.kv_memory.reset();
    else
      s.inputs.kv_memory = parse_memory_size(t.toStdString(), "kv-memory");
  });
}

bool Controller::setContext(std::uint64_t tokens) {
  return apply([tokens](Scenario& s) { s.inputs.context = Tokens{tokens}; });
}

bool Controller::setContextText(const QString& text) {
  return apply([&](Scenario& s) { s.inputs.context = parse_tokens(ungrouped(text, "context"), "context"); });
}

bool Controller::setUsers(std::uint64_t users) {
  return apply([users](Scenario& s) { s.inputs.users = users; });
}

bool Controller::setUsersText(const QString& text) {
  return apply([&](Scenario& s) { s.inputs.users = parse_count(ungrouped(text, "users"), "users"); });
}

bool Controller::setUnits(UnitSystem units, bool as_edit) {
  const bool was = restoring_;
  restoring_ = !as_edit;
  const bool ok = apply([&](Scenario& s) { s.units = units; });
  restoring_ = was;
  return ok;
}

bool Controller::loadScenario(const QString& path) {
  return loadScenarioFile(path, [&] { return load_scenario(fspath(path)); });
}

bool Controller::loadScenarioFile(const QString& path, const std::function<Scenario()>& read) {
  const std::string origin = QFileInfo(path).fileName().toStdString();
  if (!apply(
          [&](Scenario& s) {
            s = read();
            // A baseline that does not plan fails the file as a bad key does, naming the file and the
            // baseline
            // ("s.json: /baselines/1/tp: ..."); commit then finds each planned one in baseline_cache_.
            for (std::size_t i = 0; i < s.baselines.size(); ++i)
              (void)figuresOfBaseline(s.baselines[i], origin + ": /baselines/" + std::to_string(i));
          },
          origin))
    return false;
  scenario_path_ = QFileInfo(path).absoluteFilePath();
  undo_->setClean();
  return loaded(true);
}

bool Controller::prepareScenario(const QString& path, PreparedScenario& out) {
  out = PreparedScenario{path, {}, {}};
  // Offline, find_model reads the Hub cache only: openFile loads at once.
  if (presets::hf_hub_offline() || QFileInfo(path).isDir()) return true;
  try {
    const std::filesystem::path p = fspath(path);
    if (presets::is_gguf_file(p)) return true;
    auto j = std::make_shared<const nlohmann::json>(presets::read_json_file(p));
    const std::string ref = scenario_preset_ref(*j);
    if (ref.empty() || !presets::is_hf_repo_id(ref)) return true;
    const std::string key = QString::fromStdString(ref).toLower().toStdString();
    for (const auto& preset : model_presets_)
      if (QString::fromStdString(preset.id).toLower().toStdString() == key) return true;
    // Everything but the model is read now, so a bad file fails before any fetch.
    (void)scenario_from_json(*j, p.filename().string(), p.parent_path(),
                             [](const std::string&) { return ModelSpec{}; });
    out.repo = QString::fromStdString(ref);
    out.json = std::move(j);
    return true;
  } catch (const std::exception& e) {
    reject(error_text(e));
  }
  return false;
}

bool Controller::finishScenario(const PreparedScenario& file, const ModelSpec& model) {
  if (!file.json) return false;
  const std::filesystem::path p = fspath(file.path);
  return loadScenarioFile(file.path, [&] {
    return scenario_from_json(*file.json, p.filename().string(), p.parent_path(),
                              [&](const std::string&) { return model; });
  });
}

bool Controller::saveScenario(const QString& path) {
  try {
    save_scenario(scenario_, fspath(path));
    scenario_path_ = QFileInfo(path).absoluteFilePath();
    undo_->setClean();
    return true;
  } catch (const std::exception& e) {
    reject(error_text(e));
  }
  return false;
}

bool Controller::applyScenario(const Scenario& scenario) {
  return apply([&](Scenario& s) { s = scenario; });
}

bool Controller::loadMeasuredPrefill(const QString& path) {
  try {
    // The head dim picks the benchmark run nearest the model's attention.
    std::uint64_t head_dim = 0;
    for (const auto& g : scenario_.inputs.model.layers)
      if (head_dim == 0 && has_attention(g.attention.kind)) head_dim = g.attention.head_dim_k;
    return commit(scenario_, load_measured_prefill(fspath(path), head_dim),
                  QFileInfo(path).absoluteFilePath());
  } catch (const std::exception& e) {
    reject(error_text(e));
  }
  return false;
}

void Controller::clearMeasuredPrefill() {
  try {
    commit(scenario_, {}, {});
  } catch (const std::exception& e) {
    reject(error_text(e));
  }
}

bool Controller::setStreamingWindow(std::uint64_t sink, std::uint64_t recent) {
  const std::uint64_t old_sink = streaming_sink_, old_recent = streaming_recent_;
  try {
    (void)with_attention_sinks(ModelSpec{}, sink, recent);  // refuses a 0 window or an overflowing sum
    if (sink == old_sink && recent == old_recent) return true;
    streaming_sink_ = sink;
    streaming_recent_ = recent;
    series_key_.reset();
    figures_ = compute(scenario_, figures_.measured);
    error_.clear();
    Q_EMIT planChanged();
    Q_EMIT inputsChanged();
    return true;
  } catch (const std::exception& e) {
    streaming_sink_ = old_sink;
    streaming_recent_ = old_recent;
    reject(error_text(e));
  }
  return false;
}

QStringList Controller::commandArgs(QString* error) const {
  try {
    QStringList out;
    for (const auto& a : size_command_args(scenario_, figures_.plan)) out << qstr(a);
    return out;
  } catch (const std::exception& e) {
    if (error != nullptr) *error = error_text(e);
  }
  return {};
}

QString Controller::commandLine(QString* error) const {
  try {
    std::vector<std::string> args{"kvplan"};
    for (auto& a : size_command_args(scenario_, figures_.plan)) args.push_back(std::move(a));
    return qstr(shell_join(args));
  } catch (const std::exception& e) {
    if (error != nullptr) *error = error_text(e);
  }
  return {};
}

QString error_text(const std::exception& e) {
  const auto* err = dynamic_cast<const Error*>(&e);
  if (err == nullptr) return QString::fromStdString(e.what());
  const std::string_view label = gui_label_for(err->field());
  const std::string reason =
      word_inputs(err->reason(), [](std::string_view key) { return std::string(gui_label_for(key)); });
  return QString::fromStdString(label.empty() ? reason : std::string(label) + ": " + reason);
}

}  // namespace kvplan::gui
