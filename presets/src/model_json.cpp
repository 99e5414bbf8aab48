// A model as JSON in kvplan's own dialect (model_json.hpp), moved from the GUI's scenario.cpp so that the
// CLI's --json and the GUI's scenarios write one set of keys.
#include "kvplan/model_json.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"
#include "kvplan/object_reader.hpp"

namespace kvplan::presets {

namespace {
using nlohmann::json;

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
  const ObjectReader r(j, where);
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

/// A legacy key beside its new name: the new one's value, else the legacy one's; both given is an error at
/// the legacy key, since the reader would take one and drop the other.
std::uint64_t u64_or_legacy(const ObjectReader& r, std::string_view key, std::string_view legacy) {
  if (r.get(key) != nullptr && r.get(legacy) != nullptr)
    throw Error(r.at(legacy), "is the old name of " + std::string(key) + ", given beside it: give " +
                                  std::string(key) + " alone");
  return r.get(key) != nullptr ? r.u64(key, 0) : r.u64(legacy, 0);
}
}  // namespace

json attention_to_json(const AttentionLayer& a) {
  json j{{"kind", std::string(name(a.kind))}};
  const auto count = [&j](const char* key, std::uint64_t v) {
    if (v != 0) j[key] = v;
  };
  const auto flag = [&j](const char* key, bool v) {
    if (v) j[key] = true;
  };
  count("num_attention_heads", a.num_attention_heads);
  count("num_key_value_heads", a.num_key_value_heads);
  count("head_dim_k", a.head_dim_k);
  count("head_dim_v", a.head_dim_v);
  // transformers' names: Llama4TextConfig.attention_chunk_size, the others' sliding_window.
  count(a.kind == AttentionKind::chunked ? "attention_chunk_size" : "sliding_window", a.window);
  count("kv_lora_rank", a.kv_lora_rank);
  count("qk_rope_head_dim", a.qk_rope_head_dim);
  count("q_lora_rank", a.q_lora_rank);
  flag("qkv_bias", a.qkv_bias);
  flag("o_bias", a.o_bias);
  flag("qk_norm", a.qk_norm);
  count("index_head_dim", a.indexer_head_dim);  // DeepseekV32Config.index_head_dim
  flag("kv_shared", a.kv_shared);
  flag("parallel_recurrent", a.parallel_recurrent);
  flag("mla_per_head_cache", a.mla_per_head_cache);  // a GGUF's pre-split MLA, as llama.cpp caches it
  if (a.recurrent != RecurrentSpec{}) j["recurrent"] = recurrent_to_json(a.recurrent);
  return j;
}

AttentionLayer attention_from_json(const json& j, const std::string& where) {
  const ObjectReader r(j, where);
  r.only({"kind",
          "num_attention_heads",
          "num_key_value_heads",
          "head_dim_k",
          "head_dim_v",
          "sliding_window",
          "attention_chunk_size",
          "window",
          "kv_lora_rank",
          "qk_rope_head_dim",
          "q_lora_rank",
          "qkv_bias",
          "o_bias",
          "qk_norm",
          "index_head_dim",
          "indexer_head_dim",
          "kv_shared",
          "parallel_recurrent",
          "mla_per_head_cache",
          "recurrent"});
  AttentionLayer a;
  a.kind = parse_kind(r.str("kind", "full"), r.at("kind"));
  a.num_attention_heads = r.u64("num_attention_heads", 0);
  a.num_key_value_heads = r.u64("num_key_value_heads", 0);
  a.head_dim_k = r.u64("head_dim_k", 0);
  a.head_dim_v = r.u64("head_dim_v", 0);
  const bool chunked = a.kind == AttentionKind::chunked;
  if (chunked && r.get("sliding_window") != nullptr)
    throw Error(r.at("sliding_window"), "a chunked layer's window is attention_chunk_size");
  if (!chunked && r.get("attention_chunk_size") != nullptr)
    throw Error(r.at("attention_chunk_size"),
                "only a chunked layer has one (this layer is " + std::string(name(a.kind)) + ")");
  a.window = u64_or_legacy(r, chunked ? "attention_chunk_size" : "sliding_window", "window");
  a.kv_lora_rank = r.u64("kv_lora_rank", 0);
  a.qk_rope_head_dim = r.u64("qk_rope_head_dim", 0);
  a.q_lora_rank = r.u64("q_lora_rank", 0);
  a.qkv_bias = r.boolean("qkv_bias", false);
  a.o_bias = r.boolean("o_bias", false);
  a.qk_norm = r.boolean("qk_norm", false);
  a.indexer_head_dim = u64_or_legacy(r, "index_head_dim", "indexer_head_dim");
  a.kv_shared = r.boolean("kv_shared", false);
  a.parallel_recurrent = r.boolean("parallel_recurrent", false);
  a.mla_per_head_cache = r.boolean("mla_per_head_cache", false);
  if (const json* rec = r.get("recurrent")) a.recurrent = recurrent_from_json(*rec, r.at("recurrent"));
  return a;
}

namespace {
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
  const ObjectReader r(j, where);
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
  const ObjectReader r(j, where);
  r.only({"lengths", "model_type", "rope", "no_length_key"});
  ContextKeys k;
  k.model_type = r.str("model_type", "");
  k.no_length_key = r.boolean("no_length_key", false);
  if (const json* lengths = r.get("lengths")) {
    if (!lengths->is_array()) throw Error(r.at("lengths"), "must be an array of {key, value}");
    for (std::size_t i = 0; i < lengths->size(); ++i) {
      const ObjectReader l(lengths->at(i), r.at("lengths") + "/" + std::to_string(i));
      l.only({"key", "value"});
      k.lengths.emplace_back(l.str("key", ""), l.positive("value", 0));
    }
  }
  if (const json* rope = r.get("rope")) {
    const ObjectReader o(*rope, r.at("rope"));
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
  const ObjectReader r(j, where);
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
          {"encoder_whole_per_gpu", m.encoder_whole_per_gpu},
          {"encoder_unknown", m.encoder_unknown},
          {"mtp_layers", m.mtp_layers},
          {"draft_layers", m.draft_layers},
          // The checkpoint's exact weights (GGUF tensor infos, safetensors headers), kept across a save: the
          // file they were read from is not read again for an inline architecture.
          {"weights_bytes", m.weights_bytes ? json(m.weights_bytes->value) : json(nullptr)},
          {"weights_parameters", m.weights_parameters},
          {"weights_origin", m.weights_origin},
          {"llamacpp_rs_rollback", m.llamacpp_rs_rollback},
          {"quant", m.quant.method == WeightQuant::Method::none ? json(nullptr) : quant_to_json(m.quant)},
          {"warnings", m.warnings}};
}

ModelSpec model_from_json(const json& j, const std::string& where) {
  const ObjectReader r(j, where);
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
          "encoder_whole_per_gpu",
          "encoder_unknown",
          "mtp_layers",
          "draft_layers",
          "weights_bytes",
          "weights_parameters",
          "weights_origin",
          "llamacpp_rs_rollback",
          "quant",
          "warnings"},
         {"quant", "weights_bytes"});
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
    const ObjectReader g(layers->at(i), at);
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
  m.encoder_whole_per_gpu = r.boolean("encoder_whole_per_gpu", false);
  m.encoder_unknown = r.str("encoder_unknown", "");
  m.mtp_layers = r.u64("mtp_layers", 0);
  m.draft_layers = r.u64("draft_layers", 0);
  if (m.draft_layers > total)
    throw Error(r.at("draft_layers"), format_count(m.draft_layers) + " draft layers, more than the model's " +
                                          format_count(total) + " layers");
  if (r.get("weights_bytes") != nullptr) m.weights_bytes = Bytes{r.u64("weights_bytes", 0)};
  m.weights_parameters = r.u64("weights_parameters", 0);
  m.weights_origin = r.str("weights_origin", "");
  m.llamacpp_rs_rollback = r.boolean("llamacpp_rs_rollback", false);  // from a GGUF's general.architecture
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

}  // namespace kvplan::presets
