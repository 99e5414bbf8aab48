#include "kvplan/gui/scenario.hpp"

#include "kvplan/gui/save_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"
#include "kvplan/options.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/serving_dtype.hpp"

namespace kvplan::gui {

namespace {
using nlohmann::json;

/// Reads the keys of one JSON object; every error names the origin and the JSON path.
class Reader {
 public:
  Reader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
    if (!obj_.is_object()) throw Error(where_, std::string("must be an object, got ") + obj_.type_name());
  }

  [[nodiscard]] std::string at(std::string_view key) const { return where_ + "/" + std::string(key); }

  /// Refuses a key outside `keys` (a misspelt "context_length" was dropped and the plan made at the
  /// default) and a null one outside `nullable` (null read as absent, the default again).
  void only(std::initializer_list<std::string_view> keys,
            std::initializer_list<std::string_view> nullable = {}) const {
    const auto in = [](std::initializer_list<std::string_view> list, const std::string& key) {
      return std::find(list.begin(), list.end(), key) != list.end();
    };
    for (const auto& [key, value] : obj_.items()) {
      if (!in(keys, key)) {
        std::string known;
        for (const auto k : keys) known += (known.empty() ? "" : ", ") + std::string(k);
        throw Error(at(printable(key)), "unknown key (known here: " + known + ")");
      }
      if (value.is_null() && !in(nullable, key)) throw Error(at(key), "must not be null");
    }
  }

  /// Refuses two of `keys` given together: the reader would take one and drop the other.
  void one_of(std::initializer_list<std::string_view> keys) const {
    std::string given;
    int n = 0;
    for (const auto k : keys)
      if (get(k) != nullptr) {
        given += (given.empty() ? "" : " and ") + std::string(k);
        ++n;
      }
    if (n > 1) throw Error(where_, given + " given together: give one");
  }

  [[nodiscard]] const json* get(std::string_view key) const {
    const auto it = obj_.find(key);
    return it == obj_.end() || it->is_null() ? nullptr : &*it;
  }

  [[nodiscard]] std::uint64_t u64(std::string_view key, std::uint64_t fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0)
      return static_cast<std::uint64_t>(v->get<std::int64_t>());
    throw Error(at(key), "must be a non-negative integer, got " + v->dump());
  }
  [[nodiscard]] std::uint64_t positive(std::string_view key, std::uint64_t fallback) const {
    const std::uint64_t v = u64(key, fallback);
    if (v == 0) throw Error(at(key), "must be a positive integer");
    return v;
  }
  [[nodiscard]] bool boolean(std::string_view key, bool fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) throw Error(at(key), "must be true or false, got " + v->dump());
    return v->get<bool>();
  }
  [[nodiscard]] std::string str(std::string_view key, const std::string& fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) throw Error(at(key), "must be a string, got " + v->dump());
    return v->get<std::string>();
  }
  [[nodiscard]] double number(std::string_view key, double fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) throw Error(at(key), "must be a number, got " + v->dump());
    return v->get<double>();
  }
  [[nodiscard]] DType dtype(std::string_view key, DType fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_string()) throw Error(at(key), "must be a dtype name, got " + v->dump());
    return parse_dtype(v->get<std::string>(), at(key));
  }

 private:
  const json& obj_;
  std::string where_;
};

AttentionKind parse_kind(const std::string& s, const std::string& where) {
  for (const AttentionKind k : {AttentionKind::full, AttentionKind::sliding, AttentionKind::chunked,
                                AttentionKind::mla, AttentionKind::recurrent, AttentionKind::mlp_only})
    if (name(k) == s) return k;
  if (s == "none") return AttentionKind::recurrent;  // scenarios written before the rename
  throw Error(where, "unknown attention kind '" + s + "' (full, sliding, chunked, mla, recurrent, mlp_only)");
}

json recurrent_to_json(const RecurrentSpec& r) {
  return {{"kind", std::string(name(r.kind))},
          {"d_inner", r.d_inner},
          {"d_state", r.d_state},
          {"d_conv", r.d_conv},
          {"dt_rank", r.dt_rank},
          {"n_heads", r.n_heads},
          {"head_dim", r.head_dim},
          {"n_groups", r.n_groups},
          {"num_key_heads", r.num_key_heads},
          {"num_value_heads", r.num_value_heads},
          {"key_head_dim", r.key_head_dim},
          {"value_head_dim", r.value_head_dim},
          {"conv_dtype", std::string(name(r.conv_dtype))},
          {"ssm_dtype", std::string(name(r.ssm_dtype))}};
}

RecurrentSpec recurrent_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"kind", "d_inner", "d_state", "d_conv", "dt_rank", "n_heads", "head_dim", "n_groups",
          "num_key_heads", "num_value_heads", "key_head_dim", "value_head_dim", "conv_dtype", "ssm_dtype"});
  RecurrentSpec s;
  const std::string kind = r.str("kind", "mamba");
  bool known = false;
  for (const auto k :
       {RecurrentSpec::Kind::mamba, RecurrentSpec::Kind::mamba2, RecurrentSpec::Kind::gated_deltanet,
        RecurrentSpec::Kind::kda, RecurrentSpec::Kind::lightning, RecurrentSpec::Kind::short_conv})
    if (kind == name(k)) {
      s.kind = k;
      known = true;
    }
  if (!known)
    throw Error(r.at("kind"),
                "must be mamba, mamba2, gated_deltanet, kda, lightning or short_conv, got '" + kind + "'");
  s.d_inner = r.u64("d_inner", 0);
  s.d_state = r.u64("d_state", 0);
  s.d_conv = r.u64("d_conv", 0);
  s.dt_rank = r.u64("dt_rank", 0);
  s.n_heads = r.u64("n_heads", 0);
  s.head_dim = r.u64("head_dim", 0);
  s.n_groups = r.u64("n_groups", 0);
  s.num_key_heads = r.u64("num_key_heads", 0);
  s.num_value_heads = r.u64("num_value_heads", 0);
  s.key_head_dim = r.u64("key_head_dim", 0);
  s.value_head_dim = r.u64("value_head_dim", 0);
  s.conv_dtype = r.dtype("conv_dtype", DType::bf16);
  s.ssm_dtype = r.dtype("ssm_dtype", DType::bf16);
  return s;
}

json attention_to_json(const AttentionLayer& a) {
  json j{{"kind", std::string(name(a.kind))},
         {"num_attention_heads", a.num_attention_heads},
         {"num_key_value_heads", a.num_key_value_heads},
         {"head_dim_k", a.head_dim_k},
         {"head_dim_v", a.head_dim_v},
         {"window", a.window},
         {"kv_lora_rank", a.kv_lora_rank},
         {"qk_rope_head_dim", a.qk_rope_head_dim},
         {"q_lora_rank", a.q_lora_rank},
         {"qkv_bias", a.qkv_bias},
         {"o_bias", a.o_bias},
         {"qk_norm", a.qk_norm}};
  if (a.indexer_head_dim != 0) j["indexer_head_dim"] = a.indexer_head_dim;
  if (a.kv_shared) j["kv_shared"] = true;
  if (a.parallel_recurrent) j["parallel_recurrent"] = true;
  if (a.recurrent != RecurrentSpec{}) j["recurrent"] = recurrent_to_json(a.recurrent);
  return j;
}

AttentionLayer attention_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"kind", "num_attention_heads", "num_key_value_heads", "head_dim_k", "head_dim_v", "window",
          "kv_lora_rank", "qk_rope_head_dim", "q_lora_rank", "qkv_bias", "o_bias", "qk_norm",
          "indexer_head_dim", "kv_shared", "parallel_recurrent", "recurrent"});
  AttentionLayer a;
  a.kind = parse_kind(r.str("kind", "full"), r.at("kind"));
  a.num_attention_heads = r.u64("num_attention_heads", 0);
  a.num_key_value_heads = r.u64("num_key_value_heads", 0);
  a.head_dim_k = r.u64("head_dim_k", 0);
  a.head_dim_v = r.u64("head_dim_v", 0);
  a.window = r.u64("window", 0);
  a.kv_lora_rank = r.u64("kv_lora_rank", 0);
  a.qk_rope_head_dim = r.u64("qk_rope_head_dim", 0);
  a.q_lora_rank = r.u64("q_lora_rank", 0);
  a.qkv_bias = r.boolean("qkv_bias", false);
  a.o_bias = r.boolean("o_bias", false);
  a.qk_norm = r.boolean("qk_norm", false);
  a.indexer_head_dim = r.u64("indexer_head_dim", 0);
  a.kv_shared = r.boolean("kv_shared", false);
  a.parallel_recurrent = r.boolean("parallel_recurrent", false);
  if (const json* rec = r.get("recurrent")) a.recurrent = recurrent_from_json(*rec, r.at("recurrent"));
  return a;
}

json mlp_to_json(const MlpSpec& m) {
  return {{"intermediate_size", m.intermediate_size},
          {"gated", m.gated},
          {"bias", m.bias},
          {"num_experts", m.num_experts},
          {"expert_intermediate_size", m.expert_intermediate_size},
          {"experts_per_token", m.experts_per_token},
          {"router_bias", m.router_bias},
          {"num_shared_experts", m.num_shared_experts},
          {"shared_intermediate_size", m.shared_intermediate_size},
          {"shared_expert_gate", m.shared_expert_gate}};
}

MlpSpec mlp_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"intermediate_size", "gated", "bias", "num_experts", "expert_intermediate_size",
          "experts_per_token", "router_bias", "num_shared_experts", "shared_intermediate_size",
          "shared_expert_gate"});
  MlpSpec m;
  m.intermediate_size = r.u64("intermediate_size", 0);
  m.gated = r.boolean("gated", true);
  m.bias = r.boolean("bias", false);
  m.num_experts = r.u64("num_experts", 0);
  m.expert_intermediate_size = r.u64("expert_intermediate_size", 0);
  m.experts_per_token = r.u64("experts_per_token", 0);
  m.router_bias = r.boolean("router_bias", false);
  m.num_shared_experts = r.u64("num_shared_experts", 0);
  m.shared_intermediate_size = r.u64("shared_intermediate_size", 0);
  m.shared_expert_gate = r.boolean("shared_expert_gate", false);
  return m;
}

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

namespace {
/// The config's other length keys and RoPE scaling (kvplan/context_limit.hpp), which each engine's
/// context limit is derived from: kept so that a reopened scenario warns at the same context.
json context_keys_to_json(const ContextKeys& k) {
  json lengths = json::array();
  for (const auto& [key, value] : k.lengths) lengths.push_back({{"key", key}, {"value", value}});
  json j{{"lengths", lengths},
         {"model_type", k.model_type},
         {"rope",
          {{"key", k.rope.key},
           {"type", k.rope.type},
           {"factor", k.rope.factor},
           {"original_max_position_embeddings", k.rope.original_max_position_embeddings}}}};
  if (k.no_length_key) j["no_length_key"] = true;  // the engines' 2,048-token default applies
  return j;
}

ContextKeys context_keys_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"lengths", "model_type", "rope", "no_length_key"});
  ContextKeys k;
  k.model_type = r.str("model_type", "");
  k.no_length_key = r.boolean("no_length_key", false);
  if (const json* lengths = r.get("lengths")) {
    if (!lengths->is_array()) throw Error(r.at("lengths"), "must be an array of {key, value}");
    for (std::size_t i = 0; i < lengths->size(); ++i) {
      const Reader l(lengths->at(i), r.at("lengths") + "/" + std::to_string(i));
      l.only({"key", "value"});
      k.lengths.emplace_back(l.str("key", ""), l.positive("value", 0));
    }
  }
  if (const json* rope = r.get("rope")) {
    const Reader o(*rope, r.at("rope"));
    o.only({"key", "type", "factor", "original_max_position_embeddings"});
    k.rope.key = o.str("key", "");
    k.rope.type = o.str("type", "");
    k.rope.factor = o.number("factor", 0);
    if (!(k.rope.factor >= 0) || !std::isfinite(k.rope.factor))
      throw Error(o.at("factor"), "must be a positive number (0: absent)");
    k.rope.original_max_position_embeddings = o.u64("original_max_position_embeddings", 0);
  }
  return k;
}
}  // namespace

namespace {
/// WeightQuant's methods under the names the scenario writes (model.hpp's enumerators).
constexpr std::array<std::pair<WeightQuant::Method, std::string_view>, 9> kQuantMethods{{
    {WeightQuant::Method::none, "none"},
    {WeightQuant::Method::fp8, "fp8"},
    {WeightQuant::Method::awq, "awq"},
    {WeightQuant::Method::gptq, "gptq"},
    {WeightQuant::Method::ct_packed, "ct_packed"},
    {WeightQuant::Method::ct_int, "ct_int"},
    {WeightQuant::Method::ct_float, "ct_float"},
    {WeightQuant::Method::bnb_4bit, "bnb_4bit"},
    {WeightQuant::Method::bnb_8bit, "bnb_8bit"},
}};

/// A checkpoint's quantised layout (ModelSpec::quant), every field, so that a saved model loads with the
/// same weight bytes.
json quant_to_json(const WeightQuant& q) {
  std::string method;
  for (const auto& [m, n] : kQuantMethods)
    if (m == q.method) method = n;
  return {{"method", method},
          {"bits", q.bits},
          {"group_size", q.group_size},
          {"tensor_scale", q.tensor_scale},
          {"block_out", q.block_out},
          {"block_in", q.block_in},
          {"zero_point", q.zero_point},
          {"g_idx", q.g_idx},
          {"input_scale", q.input_scale},
          {"double_quant", q.double_quant},
          {"scale_dtype", std::string(name(q.scale_dtype))},
          {"stored", std::string(name(q.stored))},
          {"attention", q.attention},
          {"mlp", q.mlp},
          {"shared_experts", q.shared_experts},
          {"experts", q.experts},
          {"router", q.router},
          {"label", q.label}};
}

WeightQuant quant_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"method", "bits", "group_size", "tensor_scale", "block_out", "block_in", "zero_point", "g_idx",
          "input_scale", "double_quant", "scale_dtype", "stored", "attention", "mlp", "shared_experts",
          "experts", "router", "label"});
  WeightQuant q;
  const std::string method = r.str("method", "none");
  bool known = false;
  for (const auto& [m, n] : kQuantMethods)
    if (n == method) q.method = m, known = true;
  if (!known) throw Error(r.at("method"), "'" + method + "' is not a weight quantisation kvplan knows");
  q.bits = r.u64("bits", 0);
  q.group_size = r.u64("group_size", 0);
  q.tensor_scale = r.boolean("tensor_scale", false);
  q.block_out = r.u64("block_out", 0);
  q.block_in = r.u64("block_in", 0);
  q.zero_point = r.boolean("zero_point", false);
  q.g_idx = r.boolean("g_idx", false);
  q.input_scale = r.boolean("input_scale", false);
  q.double_quant = r.boolean("double_quant", false);
  q.scale_dtype = r.dtype("scale_dtype", DType::fp16);
  q.stored = r.dtype("stored", DType::bf16);
  q.attention = r.boolean("attention", true);
  q.mlp = r.boolean("mlp", true);
  q.shared_experts = r.boolean("shared_experts", true);
  q.experts = r.boolean("experts", true);
  q.router = r.boolean("router", false);
  q.label = r.str("label", "");
  return q;
}
}  // namespace

json model_to_json(const ModelSpec& m) {
  json layers = json::array();
  for (const auto& g : m.layers)
    layers.push_back(
        {{"count", g.count}, {"attention", attention_to_json(g.attention)}, {"mlp", mlp_to_json(g.mlp)}});
  return {{"id", m.id},
          {"name", m.name},
          {"source", m.source},
          {"layers", layers},
          {"hidden_size", m.hidden_size},
          {"vocab_size", m.vocab_size},
          {"tie_word_embeddings", m.tie_word_embeddings},
          {"learned_position_embeddings", m.learned_position_embeddings},
          {"norm_bias", m.norm_bias},
          {"norms_per_layer", m.norms_per_layer},
          {"max_position_embeddings", m.max_position_embeddings},
          {"context_keys", context_keys_to_json(m.context_keys)},
          {"dtype", std::string(name(m.dtype))},
          {"weight_dtype", std::string(name(m.weight_dtype))},
          {"embedding_dtype", std::string(name(m.embedding_dtype))},
          {"expert_weight_dtype", std::string(name(m.expert_weight_dtype))},
          {"published_params", m.published_params},
          {"weights_unknown", m.weights_unknown},
          {"encoder_parameters", m.encoder_parameters},
          {"encoder_unknown", m.encoder_unknown},
          {"mtp_layers", m.mtp_layers},
          {"quant", m.quant.method == WeightQuant::Method::none ? json(nullptr) : quant_to_json(m.quant)},
          {"warnings", m.warnings}};
}

ModelSpec model_from_json(const json& j, const std::string& where) {
  const Reader r(j, where);
  r.only({"id",
          "name",
          "source",
          "layers",
          "hidden_size",
          "vocab_size",
          "tie_word_embeddings",
          "learned_position_embeddings",
          "norm_bias",
          "norms_per_layer",
          "max_position_embeddings",
          "context_keys",
          "dtype",
          "weight_dtype",
          "embedding_dtype",
          "expert_weight_dtype",
          "published_params",
          "weights_unknown",
          "encoder_parameters",
          "encoder_unknown",
          "mtp_layers",
          "quant",
          "warnings"},
         {"quant"});
  ModelSpec m;
  m.id = r.str("id", "custom");
  m.name = r.str("name", m.id);
  m.source = r.str("source", "scenario");
  const json* layers = r.get("layers");
  if (layers == nullptr || !layers->is_array() || layers->empty())
    throw Error(r.at("layers"), "must be a non-empty array of layer groups");
  if (layers->size() > kMaxLayers)
    throw Error(r.at("layers"), format_count(layers->size()) + " layer groups: kvplan plans at most " +
                                    format_count(kMaxLayers) + " layers");
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const std::string at = r.at("layers") + "/" + std::to_string(i);
    const Reader g(layers->at(i), at);
    g.only({"count", "attention", "mlp"});
    LayerGroup group;
    group.count = g.positive("count", 1);
    total += std::min(group.count, kMaxLayers + 1);  // cannot wrap: at most kMaxLayers groups
    if (total > kMaxLayers)
      throw Error(g.at("count"),
                  "the layers add up to more than " + format_count(kMaxLayers) + ", the most kvplan plans");
    const json* a = g.get("attention");
    if (a == nullptr) throw Error(g.at("attention"), "missing");
    group.attention = attention_from_json(*a, g.at("attention"));
    if (const json* mlp = g.get("mlp")) group.mlp = mlp_from_json(*mlp, g.at("mlp"));
    // The checks core makes on every model, here with the group's path: as strict as the config loader.
    try {
      ModelSpec one;
      one.layers = {group};
      validate(one);
    } catch (const Error& e) {
      throw Error(g.at("attention"), e.what());
    }
    m.layers.push_back(group);
  }
  m.hidden_size = r.u64("hidden_size", 0);
  m.vocab_size = r.u64("vocab_size", 0);
  m.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
  m.learned_position_embeddings = r.u64("learned_position_embeddings", 0);
  m.norm_bias = r.boolean("norm_bias", false);
  m.norms_per_layer = r.u64("norms_per_layer", 2);
  m.max_position_embeddings = r.u64("max_position_embeddings", 0);
  if (const json* k = r.get("context_keys"))
    m.context_keys = context_keys_from_json(*k, r.at("context_keys"));
  m.dtype = r.dtype("dtype", DType::bf16);
  m.weight_dtype = r.dtype("weight_dtype", m.dtype);
  m.embedding_dtype = r.dtype("embedding_dtype", m.weight_dtype);
  m.expert_weight_dtype = r.dtype("expert_weight_dtype", m.weight_dtype);
  m.published_params = r.u64("published_params", 0);
  m.weights_unknown = r.str("weights_unknown", "");
  m.encoder_parameters = r.u64("encoder_parameters", 0);  // the vision tower vLLM's budget loads
  m.encoder_unknown = r.str("encoder_unknown", "");
  m.mtp_layers = r.u64("mtp_layers", 0);
  if (const json* q = r.get("quant")) m.quant = quant_from_json(*q, r.at("quant"));
  if (const json* w = r.get("warnings")) {
    if (!w->is_array()) throw Error(r.at("warnings"), "must be an array of strings");
    for (const auto& s : *w) {
      if (!s.is_string()) throw Error(r.at("warnings"), "must be an array of strings");
      m.warnings.push_back(s.get<std::string>());
    }
  }
  return m;
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
  if (inline_architecture) model["architecture"] = model_to_json(in.model);
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
    s.base = presets::load_model_file(path);
  } else if (mr.boolean("custom", false)) {
    s.source = {ModelSource::Kind::custom, ""};
  } else {
    throw Error(r.at("model"), "needs \"preset\", \"file\" or \"custom\": true");
  }
  if (const json* arch = mr.get("architecture")) {
    s.inputs.model = model_from_json(*arch, mr.at("architecture"));
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
