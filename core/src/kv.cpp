#include "kvplan/kv.hpp"

#include <algorithm>

namespace kvplan {

std::uint64_t kv_heads_per_rank(const AttentionLayer& a, std::uint64_t tp) {
  if (a.kind == AttentionKind::mla || !has_attention(a.kind)) return 0;
  if (tp == 0) throw Error("tp", "must be positive");
  return std::max<std::uint64_t>(1, a.num_key_value_heads / tp);
}

void require_v_type_applies(const ModelSpec& m, const KvDtypes& t) {
  if (t.v == t.k) return;
  for (const auto& g : m.layers)
    if (g.attention.kind == AttentionKind::mla)
      throw Error("v_dtype",
                  std::string(name(t.v)) + " differs from the K type " + std::string(name(t.k)) +
                      ", but an MLA layer caches one latent per token (kv_lora_rank + " +
                      "qk_rope_head_dim, K and V both projected from it): there is no separate V " +
                      "to store; give one type for both (`kv_dtype`)");
}

StateValues layer_state_values(const RecurrentSpec& r, std::uint64_t tp) {
  if (tp == 0) throw Error("tp", "must be positive");
  const auto mul = [](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "state"); };
  const auto add = [](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "state"); };
  const std::uint64_t taps = r.d_conv > 0 ? r.d_conv - 1 : 0;
  StateValues s;
  switch (r.kind) {
    case RecurrentSpec::Kind::mamba: {
      const std::uint64_t d = ceil_div(r.d_inner, tp);
      s.conv = mul(d, taps);
      s.ssm = mul(d, r.d_state);
      break;
    }
    case RecurrentSpec::Kind::mamba2: {
      // mamba2_state_shape: n_groups + extra_groups_for_head_shards(n_groups, tp), divided by tp.
      const std::uint64_t groups =
          r.n_groups % tp == 0 ? r.n_groups / tp : std::max<std::uint64_t>(1, ceil_div(r.n_groups, tp));
      s.conv = mul(add(ceil_div(r.d_inner, tp), mul(mul(2, groups), r.d_state)), taps);
      s.ssm = mul(mul(ceil_div(r.n_heads, tp), r.head_dim), r.d_state);
      break;
    }
    case RecurrentSpec::Kind::gated_deltanet: {
      const std::uint64_t key_dim = mul(ceil_div(r.num_key_heads, tp), r.key_head_dim);
      const std::uint64_t value_dim = mul(ceil_div(r.num_value_heads, tp), r.value_head_dim);
      s.conv = mul(add(mul(2, key_dim), value_dim), taps);
      s.ssm = mul(mul(ceil_div(r.num_value_heads, tp), r.key_head_dim), r.value_head_dim);
      break;
    }
    case RecurrentSpec::Kind::kda: {
      const std::uint64_t heads = ceil_div(r.num_key_heads, tp);
      s.conv = mul(mul(3, mul(heads, r.key_head_dim)), taps);
      s.ssm = mul(mul(heads, r.key_head_dim), r.key_head_dim);
      break;
    }
    case RecurrentSpec::Kind::lightning:
      s.ssm = mul(mul(ceil_div(r.num_key_heads, tp), r.key_head_dim), r.key_head_dim);
      break;
    case RecurrentSpec::Kind::short_conv: s.conv = mul(ceil_div(r.d_inner, tp), taps); break;
  }
  return s;
}

Bytes bytes_per_token(const ModelSpec& m, const KvDtypes& t) {
  Bytes sum{0};
  for (const auto& g : m.layers) sum += layer_bytes_per_token(g.attention, t) * g.count;
  return sum;
}

Bytes full_bytes_per_token(const ModelSpec& m, const KvDtypes& t) {
  Bytes sum{0};
  for (const auto& g : m.layers)
    if (g.attention.kind == AttentionKind::full || g.attention.kind == AttentionKind::mla)
      sum += layer_bytes_per_token(g.attention, t) * g.count;
  return sum;
}

Bytes kv_bytes_per_sequence(const ModelSpec& m, const KvDtypes& t, Tokens context) {
  Bytes sum{0};
  for (const auto& g : m.layers)
    sum += layer_bytes_per_token(g.attention, t) * cached_tokens(g.attention, context) * g.count;
  return sum;
}

Bytes state_bytes_per_sequence(const ModelSpec& m, const KvDtypes& t) {
  Bytes sum{0};
  for (const auto& g : m.layers) sum += layer_state_bytes(g.attention, t) * g.count;
  return sum;
}

void check_pipeline_stages(std::uint64_t layers, std::uint64_t pp, std::uint64_t draft) {
  if (pp == 0) throw Error("pp", "must be positive");
  if (pp > kMaxPipelineStages)
    throw Error("pp",
                std::to_string(pp) + " stages: kvplan plans at most " + std::to_string(kMaxPipelineStages));
  const std::uint64_t target = draft < layers ? layers - draft : 0;
  if (pp > target)
    throw Error("pp", std::to_string(pp) + " stages exceed the model's " + std::to_string(target) +
                          " layers" +
                          (draft == 0 ? ""
                                      : " (the drafter's " + std::to_string(draft) +
                                            " join the last stage: vLLM splits the target's alone)"));
}

std::vector<Stage> pipeline_stages(std::uint64_t layers, std::uint64_t pp, std::uint64_t draft,
                                   PipelineSplit split) {
  check_pipeline_stages(layers, pp, draft);
  std::vector<Stage> out;
  out.reserve(pp);
  for (std::uint64_t s = 0; s < pp; ++s) out.push_back(pipeline_stage(layers, pp, s, draft, split));
  return out;
}

Stage pipeline_stage(std::uint64_t layers, std::uint64_t pp, std::uint64_t s, std::uint64_t draft,
                     PipelineSplit split) {
  // Every stage has floor(T / pp) of the target's T layers, and the stages [lo, lo + T mod pp) one more:
  // lo = 0 (first_stages), pp - 1 - T mod pp (before_last: vLLM's partitions[-i] += 1 for i in
  // 2 .. T mod pp + 1) or pp - T mod pp (last_stages). Stage s starts after s x floor(T / pp) layers and
  // the extra ones of the stages before it. The drafter's layers, after the target's, go to the last.
  const std::uint64_t target = layers - draft;
  const std::uint64_t base = target / pp, extra = target % pp;
  std::uint64_t lo = 0;
  if (split == PipelineSplit::before_last) lo = pp - 1 - extra;
  if (split == PipelineSplit::last_stages) lo = pp - extra;
  const std::uint64_t extra_before = std::min(s, lo + extra) - std::min(s, lo);
  const bool has_extra = s >= lo && s < lo + extra;
  return {s * base + extra_before, base + (has_extra ? 1 : 0) + (s + 1 == pp ? draft : 0)};
}

void validate_parallelism(const ModelSpec& m, const Parallelism& p) {
  if (p.tp == 0) throw Error("tp", "must be positive");
  if (p.pp == 0) throw Error("pp", "must be positive");
  if (p.dp == 0) throw Error("gpus", "must be positive");
  const AttentionLayer* checked = nullptr;  // the last layer checked: models repeat one shape in many groups
  for (const auto& g : m.layers) {
    const auto& a = g.attention;
    if (!has_attention(a.kind)) continue;
    if (checked != nullptr && checked->num_attention_heads == a.num_attention_heads &&
        checked->num_key_value_heads == a.num_key_value_heads &&
        (checked->kind == AttentionKind::mla) == (a.kind == AttentionKind::mla))
      continue;  // the same heads: the same answer
    checked = &a;
    validate_tp(a, p.tp);
  }
  check_pipeline_stages(num_layers(m), p.pp, m.draft_layers);
}

void validate_tp(const AttentionLayer& a, std::uint64_t tp) {
  if (!has_attention(a.kind)) return;
  if (tp == 0) throw Error("tp", "must be positive");
  if (a.num_attention_heads % tp != 0)
    throw Error("tp", std::to_string(tp) + " does not divide num_attention_heads " +
                          std::to_string(a.num_attention_heads));
  if (a.kind == AttentionKind::mla) return;
  const std::uint64_t kv = a.num_key_value_heads;
  if (tp <= kv ? kv % tp != 0 : tp % kv != 0)
    throw Error("tp", std::to_string(tp) + " and num_key_value_heads " + std::to_string(kv) +
                          ": one must divide the other");
}

std::vector<StageBytes> per_gpu_sequence_bytes(const ModelSpec& m, const KvDtypes& t, Tokens context,
                                               const Parallelism& p) {
  const auto stages = pipeline_stages(num_layers(m), p.pp, m.draft_layers, p.split);
  std::vector<StageBytes> out;
  out.reserve(stages.size());
  for (const auto& s : stages) out.push_back({s, Bytes{0}, Bytes{0}, Bytes{0}});
  // Walk the layer groups once, assigning each layer range to the stages it overlaps: groups and stages
  // are both in layer order, so a cursor visits each stage from the first one a group reaches
  // (O(groups + stages), not groups x stages: 4,096 of each used to cost 16 million steps a probe).
  std::uint64_t layer = 0;
  std::size_t first_stage = 0;
  for (const auto& g : m.layers) {
    const std::uint64_t g_first = layer, g_end = layer + g.count;
    const Bytes per_token = layer_bytes_per_token(g.attention, t, p.tp);
    const Bytes kv = per_token * cached_tokens(g.attention, context);
    const Bytes state = layer_state_bytes(g.attention, t, p.tp);
    while (first_stage < out.size() && out[first_stage].stage.first + out[first_stage].stage.count <= g_first)
      ++first_stage;
    for (std::size_t i = first_stage; i < out.size() && out[i].stage.first < g_end; ++i) {
      auto& sb = out[i];
      const std::uint64_t lo = std::max(g_first, sb.stage.first);
      const std::uint64_t hi = std::min(g_end, sb.stage.first + sb.stage.count);
      if (lo >= hi) continue;
      sb.bytes_per_token += per_token * (hi - lo);
      sb.kv_bytes += kv * (hi - lo);
      sb.state_bytes += state * (hi - lo);
    }
    layer = g_end;
  }
  return out;
}

Bytes replica_sequence_bytes(const ModelSpec& m, const KvDtypes& t, Tokens context, const Parallelism& p) {
  Bytes sum{0};
  for (const auto& sb : per_gpu_sequence_bytes(m, t, context, p))
    sum += (sb.kv_bytes + sb.state_bytes) * p.tp;
  return sum;
}

}  // namespace kvplan
