#include "kvplan/model.hpp"

#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"

namespace kvplan {

std::string_view name(AttentionKind k) {
  switch (k) {
    case AttentionKind::full: return "full";
    case AttentionKind::sliding: return "sliding";
    case AttentionKind::chunked: return "chunked";
    case AttentionKind::mla: return "mla";
    case AttentionKind::recurrent: return "recurrent";
    case AttentionKind::mlp_only: return "mlp_only";
  }
  return "?";
}

std::uint64_t num_layers(const ModelSpec& m) {
  std::uint64_t n = 0;
  for (const auto& g : m.layers) n = checked_add(n, g.count, "layers");
  return n;
}

namespace {
/// A dimension past kMaxDimension is no real model's (limits.hpp).
void bounded(std::uint64_t v, const char* field) {
  if (v > kMaxDimension)
    throw Error(field, format_count(v) + " is past any real model's (kvplan takes at most " +
                           format_count(kMaxDimension) + ")");
}

void positive(std::uint64_t v, const char* field, std::string_view kind) {
  if (v == 0) throw Error(field, "must be positive for a " + std::string(kind) + " layer");
  bounded(v, field);
}
}  // namespace

std::string_view name(RecurrentSpec::Kind k) {
  switch (k) {
    case RecurrentSpec::Kind::mamba: return "mamba";
    case RecurrentSpec::Kind::mamba2: return "mamba2";
    case RecurrentSpec::Kind::gated_deltanet: return "gated_deltanet";
    case RecurrentSpec::Kind::kda: return "kda";
    case RecurrentSpec::Kind::lightning: return "lightning";
    case RecurrentSpec::Kind::short_conv: return "short_conv";
  }
  return "?";
}

std::string describe(const RecurrentSpec& r) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  const std::string conv = ", conv " + n(r.d_conv);
  const std::string ssm = r.ssm_dtype == r.conv_dtype ? "" : ", SSM state " + std::string(name(r.ssm_dtype));
  switch (r.kind) {
    case RecurrentSpec::Kind::mamba:
      return "Mamba: d_inner " + n(r.d_inner) + ", d_state " + n(r.d_state) + conv + ssm;
    case RecurrentSpec::Kind::mamba2:
      return "Mamba2: " + n(r.n_heads) + " heads x " + n(r.head_dim) + ", " + n(r.n_groups) +
             " groups, d_state " + n(r.d_state) + conv + ssm;
    case RecurrentSpec::Kind::gated_deltanet:
      return "Gated DeltaNet: " + n(r.num_key_heads) + " key heads x " + n(r.key_head_dim) + ", " +
             n(r.num_value_heads) + " value heads x " + n(r.value_head_dim) + conv;
    case RecurrentSpec::Kind::kda:
      return "Kimi Delta Attention: " + n(r.num_key_heads) + " heads x " + n(r.key_head_dim) + conv +
             ", recurrent state fp32";
    case RecurrentSpec::Kind::lightning:
      return "lightning attention: " + n(r.num_key_heads) + " heads x " + n(r.key_head_dim);
    case RecurrentSpec::Kind::short_conv: return "short conv: " + n(r.d_inner) + " channels" + conv;
  }
  return "?";
}

void validate(const RecurrentSpec& r) {
  const auto kind = name(r.kind);
  switch (r.kind) {
    case RecurrentSpec::Kind::mamba:
      positive(r.d_inner, "d_inner", kind);
      positive(r.d_state, "d_state", kind);
      positive(r.d_conv, "d_conv", kind);
      break;
    case RecurrentSpec::Kind::mamba2:
      positive(r.n_heads, "n_heads", kind);
      positive(r.head_dim, "head_dim", kind);
      positive(r.n_groups, "n_groups", kind);
      positive(r.d_state, "d_state", kind);
      positive(r.d_conv, "d_conv", kind);
      if (r.d_inner != checked_mul(r.n_heads, r.head_dim, "d_inner"))
        throw Error("d_inner", "must be n_heads x head_dim for a mamba2 layer");
      if (r.n_heads % r.n_groups != 0)
        throw Error("n_groups",
                    std::to_string(r.n_groups) + " does not divide n_heads " + std::to_string(r.n_heads));
      break;
    case RecurrentSpec::Kind::gated_deltanet:
      positive(r.num_key_heads, "num_key_heads", kind);
      positive(r.num_value_heads, "num_value_heads", kind);
      positive(r.key_head_dim, "key_head_dim", kind);
      positive(r.value_head_dim, "value_head_dim", kind);
      positive(r.d_conv, "d_conv", kind);
      break;
    case RecurrentSpec::Kind::kda:
      positive(r.num_key_heads, "num_key_heads", kind);
      positive(r.key_head_dim, "key_head_dim", kind);
      positive(r.d_conv, "d_conv", kind);
      break;
    case RecurrentSpec::Kind::lightning:
      positive(r.num_key_heads, "num_key_heads", kind);
      positive(r.key_head_dim, "key_head_dim", kind);
      break;
    case RecurrentSpec::Kind::short_conv:
      positive(r.d_inner, "d_inner", kind);
      positive(r.d_conv, "d_conv", kind);
      break;
  }
}

void validate(const ModelSpec& m) {
  if (m.layers.empty()) throw Error("layers", "the model has no layers");
  if (m.layers.size() > kMaxLayers || num_layers(m) > kMaxLayers)
    throw Error("layers", format_count(m.layers.size() > kMaxLayers ? m.layers.size() : num_layers(m)) +
                              " layers: kvplan plans at most " + format_count(kMaxLayers));
  if (m.draft_layers >= num_layers(m))
    throw Error("layers", "the drafter's " + format_count(m.draft_layers) + " layers leave the target none");
  for (const auto& g : m.layers) {
    if (g.count == 0) throw Error("layers", "a layer group has zero layers");
    const auto& a = g.attention;
    if (a.kind == AttentionKind::recurrent) {
      validate(a.recurrent);
      continue;
    }
    if (a.kind == AttentionKind::mlp_only) continue;
    if (a.parallel_recurrent) validate(a.recurrent);
    if (a.num_attention_heads == 0) throw Error("num_attention_heads", "must be positive");
    bounded(a.num_attention_heads, "num_attention_heads");
    bounded(a.indexer_head_dim, "index_head_dim");
    if (a.kind == AttentionKind::mla) {
      if (a.kv_lora_rank == 0) throw Error("kv_lora_rank", "must be positive for MLA");
      bounded(a.kv_lora_rank, "kv_lora_rank");
      bounded(a.qk_rope_head_dim, "qk_rope_head_dim");
      bounded(a.head_dim_k, "qk_nope_head_dim");
      bounded(a.head_dim_v, "v_head_dim");
      continue;
    }
    if (a.num_key_value_heads == 0) throw Error("num_key_value_heads", "must be positive");
    if (a.head_dim_k == 0 || a.head_dim_v == 0) throw Error("head_dim", "must be positive");
    bounded(a.num_key_value_heads, "num_key_value_heads");
    bounded(a.head_dim_k, "head_dim");
    bounded(a.head_dim_v, a.head_dim_v == a.head_dim_k ? "head_dim" : "v_head_dim");
    if (a.num_attention_heads % a.num_key_value_heads != 0)
      throw Error("num_key_value_heads", std::to_string(a.num_key_value_heads) +
                                             " does not divide num_attention_heads " +
                                             std::to_string(a.num_attention_heads));
    if ((a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked) && a.window == 0)
      throw Error(a.kind == AttentionKind::sliding ? "sliding_window" : "attention_chunk_size",
                  "must be positive");
  }
}

ModelSpec with_draft_layers(const ModelSpec& target, const ModelSpec& draft) {
  if (draft.layers.empty()) throw Error("speculative_config", "the draft model has no layers");
  ModelSpec m = target;
  for (const auto& g : draft.layers) m.layers.push_back(g);
  m.layers = compress(std::move(m.layers));
  m.draft_layers = checked_add(m.draft_layers, num_layers(draft), "layers");
  m.name += " + draft " + draft.name;
  return m;
}

ModelSpec with_mtp_layers(const ModelSpec& target, std::uint64_t n) {
  if (n == 0)
    throw Error("speculative_config",
                "the model has no MTP layers (its config gives no num_nextn_predict_layers or "
                "mtp_num_hidden_layers)");
  if (target.layers.empty()) throw Error("layers", "the model has no layers");
  ModelSpec m = target;
  LayerGroup g = target.layers.back();
  g.count = n;
  m.layers.push_back(g);
  m.layers = compress(std::move(m.layers));
  m.draft_layers = checked_add(m.draft_layers, n, "layers");
  m.name += " + " + std::to_string(n) + " MTP layer" + (n == 1 ? "" : "s");
  return m;
}

std::vector<LayerGroup> compress(std::vector<LayerGroup> layers) {
  std::vector<LayerGroup> out;
  for (auto& g : layers) {
    if (g.count == 0) continue;
    if (!out.empty() && out.back().attention == g.attention && out.back().mlp == g.mlp)
      out.back().count = checked_add(out.back().count, g.count, "layers");
    else
      out.push_back(std::move(g));
  }
  return out;
}

}  // namespace kvplan
