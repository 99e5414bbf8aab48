#include "kvplan/gui/scenario.hpp"

#include "kvplan/gui/save_file.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"
#include "kvplan/model_json.hpp"
#include "kvplan/object_reader.hpp"
#include "kvplan/options.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/serving_dtype.hpp"

namespace kvplan::gui {

namespace {
using nlohmann::json;
using Reader = presets::ObjectReader;

/// The shortest decimal text that reads back as the same double (what the CLI's strtod parses).
std::string shortest(double v) { return kvplan::format_shortest(v); }

/// Whether a shell word needs quoting.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  for (const char c : s) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
    if (!safe) return true;
  }
  return false;
}
}  // namespace

void set_weight_dtype(ModelSpec& m, DType t) {
  m.weight_dtype = m.embedding_dtype = m.expert_weight_dtype = t;
}

bool weight_dtype_overridden(const Scenario& s) {
  const ModelSpec& m = s.inputs.model;
  const ModelSpec& b = s.base;
  return m.weight_dtype != b.weight_dtype || m.embedding_dtype != b.embedding_dtype ||
         m.expert_weight_dtype != b.expert_weight_dtype;
}

ModelSpec served_model(const Scenario& s) {
  ModelSpec m = s.inputs.model;
  if (!weight_dtype_overridden(s)) {
    serve_fp32_weights(m, s.inputs.engine.engine);
    return m;
  }
  // set_weight_dtype wrote the choice into every dtype: the engine's layout starts from the checkpoint's.
  const DType t = m.weight_dtype;
  m.weight_dtype = s.base.weight_dtype;
  m.embedding_dtype = s.base.embedding_dtype;
  m.expert_weight_dtype = s.base.expert_weight_dtype;
  apply_weight_dtype(m, t, s.inputs.engine.engine);
  return m;
}

bool architecture_edited(const Scenario& s) {
  ModelSpec m = s.inputs.model;
  m.weight_dtype = s.base.weight_dtype;
  m.embedding_dtype = s.base.embedding_dtype;
  m.expert_weight_dtype = s.base.expert_weight_dtype;
  return m != s.base;
}

json scenario_to_json(const Scenario& s) {
  const PlanInputs& in = s.inputs;
  json model;
  switch (s.source.kind) {
    case ModelSource::Kind::preset: model["preset"] = s.source.ref; break;
    case ModelSource::Kind::file: model["file"] = s.source.ref; break;
    case ModelSource::Kind::custom: model["custom"] = true; break;
  }
  const bool inline_architecture = s.source.kind == ModelSource::Kind::custom || architecture_edited(s);
  if (inline_architecture) model["architecture"] = presets::model_to_json(in.model);
  json gpu;
  if (!s.gpu_preset.empty())
    gpu["preset"] = s.gpu_preset;
  else if (in.gpu)
    gpu["memory_bytes"] = in.gpu->memory.value;
  const Parallelism& p = in.deployment.parallel;
  json j{{"kvplan_scenario", kScenarioVersion},
         {"model", model},
         {"k_dtype", std::string(name(in.kv.k))},
         {"v_dtype", std::string(name(in.kv.v))}};
  if (in.kv.state) j["state_dtype"] = std::string(name(*in.kv.state));
  if (in.kv.ssm_state) j["ssm_state_dtype"] = std::string(name(*in.kv.ssm_state));
  // An inline architecture carries its own weight dtypes.
  if (!inline_architecture && weight_dtype_overridden(s))
    j["weight_dtype"] = std::string(name(in.model.weight_dtype));
  j.update(json{
      {"context", in.context.value},
      {"users", in.users},
      {"gpu", gpu},
      {"gpus", p.tp * p.pp * p.dp},
      {"tp", p.tp},
      {"pp", p.pp},
      {"gpu_memory_utilization",
       in.deployment.gpu_memory_utilization ? json(*in.deployment.gpu_memory_utilization) : json(nullptr)},
      {"reserve_bytes", in.deployment.reserve ? json(in.deployment.reserve->value) : json(nullptr)},
      {"weights_bytes", in.deployment.weights ? json(in.deployment.weights->value) : json(nullptr)},
      {"engine", std::string(name(in.engine.engine))}});
  // Only the options away from their defaults, under the names of kvplan::EngineOptions.
  const EngineOptions& e = in.engine;
  const EngineOptions d;
  json options = json::object();
  if (e.version != d.version) options["version"] = e.version;
  if (e.fp8_ds_mla) options["fp8_ds_mla"] = true;
  // Every option of core's table (kvplan/options.hpp), by its key.
  for (const auto& spec : engine_option_table())
    if (engine_option_set(spec, e))
      std::visit([&](auto member) { options[std::string(spec.key)] = e.*member; }, spec.member);
  if (!options.empty()) j["engine_options"] = options;
  if (in.kv_memory) j["kv_memory_bytes"] = in.kv_memory->value;
  j["byte_units"] = s.units == UnitSystem::si ? "GB" : "GiB";
  if (!s.baselines.empty()) {
    json baselines = json::array();
    for (const Scenario& b : s.baselines) baselines.push_back(scenario_to_json(b));
    j["baselines"] = baselines;
  }
  return j;
}

bool is_scenario(const json& j) { return j.is_object() && j.contains("kvplan_scenario"); }

std::string scenario_preset_ref(const json& j) {
  if (!is_scenario(j) || !j.contains("model") || !j["model"].is_object()) return {};
  const json& model = j["model"];
  const auto it = model.find("preset");
  return it != model.end() && it->is_string() ? it->get<std::string>() : std::string();
}

namespace {
/// scenario_from_json of the scenario at JSON pointer `pointer` of `origin` ("" for the file's top, or
/// "/baselines/1"): every error names "origin: pointer/key" ("s.json: /baselines/1/tp").
Scenario read_scenario(const json& j, const std::string& origin, const std::string& pointer,
                       const std::filesystem::path& base_dir, const ModelResolver& resolve) {
  const Reader r(j, origin + ": " + pointer);
  if (!is_scenario(j))
    throw Error(pointer.empty() ? origin : origin + ": " + pointer,
                "not a kvplan scenario (no /kvplan_scenario)");
  r.only({"kvplan_scenario",
          "model",
          "k_dtype",
          "v_dtype",
          "state_dtype",
          "ssm_state_dtype",
          "weight_dtype",
          "context",
          "users",
          "gpu",
          "gpus",
          "tp",
          "pp",
          "gpu_memory_utilization",
          "reserve_bytes",
          "weights_bytes",
          "engine",
          "engine_options",
          "kv_memory_bytes",
          "byte_units",
          "baselines"},
         {"weights_bytes", "reserve_bytes", "gpu_memory_utilization"});
  const std::uint64_t version = r.positive("kvplan_scenario", 1);
  if (version > static_cast<std::uint64_t>(kScenarioVersion))
    throw Error(r.at("kvplan_scenario"), "version " + std::to_string(version) +
                                             " is newer than this kvplan (" +
                                             std::to_string(kScenarioVersion) + ")");
  Scenario s;

  // The model: a preset, a file or the scenario's own architecture; an edited one carries its layers.
  const json* model = r.get("model");
  if (model == nullptr) throw Error(r.at("model"), "missing");
  const Reader mr(*model, r.at("model"));
  mr.only({"preset", "file", "custom", "architecture"});
  mr.one_of({"preset", "file", "custom"});
  if (const json* preset = mr.get("preset")) {
    if (!preset->is_string()) throw Error(mr.at("preset"), "must be a preset id");
    s.source = {ModelSource::Kind::preset, preset->get<std::string>()};
    s.base = resolve ? resolve(s.source.ref) : presets::find_model(s.source.ref);
  } else if (const json* file = mr.get("file")) {
    if (!file->is_string()) throw Error(mr.at("file"), "must be a path");
    std::filesystem::path path = file->get<std::string>();
    if (path.is_relative() && !base_dir.empty()) path = base_dir / path;
    path = path.lexically_normal();
    s.source = {ModelSource::Kind::file, path.string()};
    try {
      s.base = presets::load_model_file(path);
    } catch (const Error& e) {
      // The model file's own error ("/etc/passwd: malformed JSON ..."), named under the scenario's key, so
      // the user sees which file of theirs pointed there: "s.json: /model/file: /etc/passwd: ...".
      throw Error(mr.at("file"), e.what());
    }
  } else if (mr.boolean("custom", false)) {
    s.source = {ModelSource::Kind::custom, ""};
  } else {
    throw Error(r.at("model"), "needs \"preset\", \"file\" or \"custom\": true");
  }
  if (const json* arch = mr.get("architecture")) {
    s.inputs.model = presets::model_from_json(*arch, mr.at("architecture"));
    if (s.source.kind == ModelSource::Kind::custom) s.base = s.inputs.model;
  } else {
    if (s.source.kind == ModelSource::Kind::custom)
      throw Error(mr.at("architecture"), "missing (required for a custom model)");
    s.inputs.model = s.base;
  }

  PlanInputs& in = s.inputs;
  in.kv.k = r.dtype("k_dtype", in.kv.k);
  in.kv.v = r.dtype("v_dtype", in.kv.v);
  // K and V together or neither, as the CLI's --k-dtype/--v-dtype: one alone left the other at the
  // model's type without a word.
  if ((r.get("k_dtype") == nullptr) != (r.get("v_dtype") == nullptr)) {
    const bool k = r.get("k_dtype") != nullptr;
    throw Error(r.at(k ? "v_dtype" : "k_dtype"),
                std::string("missing (required with ") + (k ? "k_dtype" : "v_dtype") + ")");
  }
  // A state type for a model without recurrent layers would change nothing: refused, as the CLI's
  // --mamba-cache-dtype is (cli/options.cpp resolve_kv_dtypes).
  const bool recurrent = std::any_of(in.model.layers.begin(), in.model.layers.end(),
                                     [](const LayerGroup& g) { return has_state(g.attention); });
  for (const char* key : {"state_dtype", "ssm_state_dtype"})
    if (r.get(key) != nullptr && !recurrent)
      throw Error(r.at(key), "applies to a model with recurrent (Mamba, linear-attention, conv) layers; " +
                                 in.model.name + " has none");
  if (r.get("state_dtype") != nullptr) in.kv.state = r.dtype("state_dtype", DType::bf16);
  if (r.get("ssm_state_dtype") != nullptr) in.kv.ssm_state = r.dtype("ssm_state_dtype", DType::bf16);
  if (r.get("weight_dtype") != nullptr) set_weight_dtype(in.model, r.dtype("weight_dtype", DType::bf16));
  in.context = Tokens{r.positive("context", in.context.value)};
  in.users = r.positive("users", in.users);

  const json* gpu = r.get("gpu");
  if (gpu == nullptr) throw Error(r.at("gpu"), "missing");
  const Reader gr(*gpu, r.at("gpu"));
  gr.only({"preset", "memory_bytes"});
  gr.one_of({"preset", "memory_bytes"});
  if (const json* id = gr.get("preset")) {
    if (!id->is_string()) throw Error(gr.at("preset"), "must be a GPU preset id");
    in.gpu = presets::find_gpu(id->get<std::string>());
    s.gpu_preset = in.gpu->id;
  } else {
    in.gpu = custom_gpu(Bytes{gr.positive("memory_bytes", 0)});
  }

  Parallelism& p = in.deployment.parallel;
  p.tp = r.positive("tp", 1);
  p.pp = r.positive("pp", 1);
  const std::uint64_t gpus = r.positive("gpus", checked_mul(p.tp, p.pp, r.at("gpus")));
  try {
    p.dp = replicas_of(gpus, p.tp, p.pp);
  } catch (const Error& e) {
    throw Error(r.at("gpus"), e.reason());
  }

  // null or absent: the engine's default fraction (SGLang's from the GPU and layout).
  if (r.get("gpu_memory_utilization") != nullptr) {
    const double util = r.number("gpu_memory_utilization", kDefaultGpuUtilization);
    if (!(util > 0.0 && util <= 1.0))
      throw Error(r.at("gpu_memory_utilization"), "must be a number in (0, 1]");
    in.deployment.gpu_memory_utilization = util;
  }
  // null or absent: the engine's own budget (vLLM V1's components, the others' 1 GiB).
  if (r.get("reserve_bytes") != nullptr) in.deployment.reserve = Bytes{r.u64("reserve_bytes", 0)};
  if (r.get("weights_bytes") != nullptr) {
    in.deployment.weights = Bytes{r.u64("weights_bytes", 0)};
    // Each GPU holds its weights and the reserve: the sum must exist for any split.
    (void)checked_add(in.deployment.weights->value, in.deployment.reserve.value_or(kDefaultReserve).value,
                      r.at("weights_bytes"));
  }
  in.engine.engine = parse_engine(r.str("engine", "ideal"), r.at("engine"));
  if (const json* options = r.get("engine_options")) {
    const Reader er(*options, r.at("engine_options"));
    for (const auto& [key, value] : options->items())
      if (value.is_null()) throw Error(er.at(key), "must not be null");
    for (const auto& [key, value] : options->items())
      if (key != "version" && key != "fp8_ds_mla" && find_engine_option(key) == nullptr)
        throw Error(er.at(key), "unknown engine option");
    EngineOptions& e = in.engine;
    e.version = er.str("version", "");
    e.fp8_ds_mla = er.boolean("fp8_ds_mla", e.fp8_ds_mla);
    for (const auto& spec : engine_option_table()) {
      const std::string key(spec.key);
      if (spec.kind == OptionKind::flag)
        e.*std::get<bool EngineOptions::*>(spec.member) = er.boolean(key, false);
      else if (spec.kind == OptionKind::ratio)
        e.*std::get<double EngineOptions::*>(spec.member) =
            er.number(key, e.*std::get<double EngineOptions::*>(spec.member));
      else  // a count given is positive: 0 would silently mean the engine's default (block_size: 0)
        e.*std::get<std::uint64_t EngineOptions::*>(spec.member) =
            options->contains(key) ? er.positive(key, 1) : 0;
    }
    try {
      validate_engine_options(e);
    } catch (const Error& x) {
      throw Error(r.at("engine_options"), x.what());
    }
  }
  if (r.get("kv_memory_bytes") != nullptr) in.kv_memory = Bytes{r.positive("kv_memory_bytes", 1)};
  const std::string units = r.str("byte_units", "GiB");
  if (units != "GiB" && units != "GB")
    throw Error(r.at("byte_units"), "must be \"GiB\" or \"GB\", got \"" + printable(units) + "\"");
  s.units = units == "GB" ? UnitSystem::si : UnitSystem::iec;
  if (const json* baselines = r.get("baselines")) {
    if (!baselines->is_array()) throw Error(r.at("baselines"), "must be a list of scenarios");
    if (baselines->size() > kMaxBaselines)
      throw Error(r.at("baselines"),
                  std::to_string(baselines->size()) + " baselines; at most " + std::to_string(kMaxBaselines));
    for (std::size_t i = 0; i < baselines->size(); ++i) {
      const std::string at = pointer + "/baselines/" + std::to_string(i);
      const json& b = (*baselines)[i];
      if (b.is_object() && b.contains("baselines"))
        throw Error(origin + ": " + at, "a baseline holds no baselines");
      s.baselines.push_back(read_scenario(b, origin, at, base_dir, resolve));
    }
  }
  return s;
}
}  // namespace

Scenario scenario_from_json(const json& j, const std::string& origin, const std::filesystem::path& base_dir,
                            const ModelResolver& resolve) {
  return read_scenario(j, origin, "", base_dir, resolve);
}

Scenario load_scenario(const std::filesystem::path& path) {
  const json j = presets::read_json_file(path);
  return scenario_from_json(j, path.filename().string(), path.parent_path());
}

void save_scenario(const Scenario& s, const std::filesystem::path& path) {
  const std::string text = scenario_to_json(s).dump(2) + "\n";
  QString error;
  if (!saveFileAtomically(QString::fromStdString(path.string()),
                          QByteArray(text.data(), static_cast<qsizetype>(text.size())), &error))
    throw Error("", error.toStdString());  // "PATH: cannot be written: REASON"
}

std::vector<std::string> size_command_args(const Scenario& s, const Plan& plan) {
  const PlanInputs& in = s.inputs;
  const ModelSpec& m = in.model;
  std::vector<std::string> a{"size"};
  const auto opt = [&a](std::string_view flag, const std::string& value) {
    a.emplace_back(flag);
    a.push_back(value);
  };
  const auto num = [](std::uint64_t v) { return std::to_string(v); };

  const bool by_flags = s.source.kind == ModelSource::Kind::custom || architecture_edited(s);
  // --weights SIZE sets the weight bytes whatever the type, and the CLI refuses --weight-dtype with it.
  const bool weights_given = in.deployment.weights.has_value() || by_flags;
  if (!by_flags) {
    a.push_back(s.source.ref);
    if (weight_dtype_overridden(s) && !weights_given)
      opt("--weight-dtype", std::string(name(m.weight_dtype)));
  } else {
    const std::vector<LayerGroup> groups = compress(m.layers);
    if (groups.size() != 1)
      throw Error("command", "the CLI takes a model by flags with one kind of layer only; this one has " +
                                 std::to_string(groups.size()) + " layer groups (save the scenario instead)");
    const AttentionLayer& at = groups.front().attention;
    if (at.kind != AttentionKind::full && at.kind != AttentionKind::sliding)
      throw Error("command", std::string("the CLI cannot take ") + std::string(name(at.kind)) +
                                 " layers by flags (save the scenario instead)");
    if (at.head_dim_k != at.head_dim_v)
      throw Error("command",
                  "the CLI takes one --head-dim; K and V head dims differ (save the scenario instead)");
    opt("--layers", num(groups.front().count));
    opt("--heads", num(at.num_attention_heads));
    opt("--kv-heads", num(at.num_key_value_heads));
    opt("--head-dim", num(at.head_dim_k));
    if (at.kind == AttentionKind::sliding) opt("--window", num(at.window));
  }

  const EngineOptions& e = in.engine;
  const EngineOptions d;
  if (e.engine != Engine::ideal) opt("--engine", std::string(name(e.engine)));
  if (e.version != d.version) opt("--engine-version", e.version);
  // Every option of core's table set away from its default, as its CLI flag.
  for (const auto& spec : engine_option_table()) {
    if (!engine_option_set(spec, e)) continue;
    const std::string flag(spec.cli_flag);
    if (spec.kind == OptionKind::flag)
      a.emplace_back(flag);
    else if (spec.kind == OptionKind::ratio)
      opt(flag, shortest(e.*std::get<double EngineOptions::*>(spec.member)));
    else
      opt(flag, num(e.*std::get<std::uint64_t EngineOptions::*>(spec.member)));
  }
  if (in.kv_memory) opt("--kv-memory", num(in.kv_memory->value));
  if (in.kv.state) opt("--mamba-cache-dtype", std::string(name(*in.kv.state)));
  if (in.kv.ssm_state) opt("--mamba-ssm-cache-dtype", std::string(name(*in.kv.ssm_state)));
  // Always explicit: the CLI's default KV dtype depends on the model and the engine. vLLM's
  // fp8_ds_mla cache is a cache type of its own on the command line (fp8 K and V in kvplan's terms).
  if (e.fp8_ds_mla) {
    if (in.kv.k != DType::fp8_e4m3 || in.kv.v != DType::fp8_e4m3)
      throw Error("command",
                  "fp8_ds_mla with a K or V dtype other than fp8_e4m3 (save the scenario instead)");
    opt("--kv-dtype", "fp8_ds_mla");
  } else if (in.kv.k == in.kv.v) {
    opt("--kv-dtype", std::string(name(in.kv.k)));
  } else {
    opt("--k-dtype", std::string(name(in.kv.k)));
    opt("--v-dtype", std::string(name(in.kv.v)));
  }
  opt("--context", num(in.context.value));
  opt("--users", num(in.users));
  if (in.gpu) {
    if (!s.gpu_preset.empty())
      opt("--gpu", s.gpu_preset);
    else
      opt("--gpu-memory", num(in.gpu->memory.value));
  }
  const Parallelism& p = in.deployment.parallel;
  if (p.dp > 1) {
    opt("--gpus", num(p.tp * p.pp * p.dp));
    opt("--tp", num(p.tp));  // without --tp the CLI spreads --gpus over tp
  } else if (p.tp > 1) {
    opt("--tp", num(p.tp));
  }
  if (p.pp > 1) opt("--pp", num(p.pp));
  if (in.deployment.gpu_memory_utilization)
    opt("--gpu-util", shortest(*in.deployment.gpu_memory_utilization));
  if (in.deployment.reserve) opt("--overhead", num(in.deployment.reserve->value));
  if (in.deployment.weights)
    opt("--weights", num(in.deployment.weights->value));
  else if (by_flags)
    opt("--weights", num(plan.weights_bytes.value));  // flags describe no MLP or embeddings
  return a;
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& s : args) {
    if (!out.empty()) out += ' ';
    if (!needs_quotes(s)) {
      out += s;
      continue;
    }
    out += '\'';
    for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace kvplan::gui
