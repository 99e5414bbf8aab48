#include "kvplan/plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine_common.hpp"
#include "kvplan/format.hpp"
#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
/// Largest per-rank bytes of one sequence (KV + state) over the pipeline stages.
Bytes fullest_stage(const std::vector<StageBytes>& stages) {
  Bytes most{0};
  for (const auto& s : stages) most = std::max(most, s.kv_bytes + s.state_bytes);
  return most;
}
}  // namespace

Gpu custom_gpu(Bytes memory) {
  Gpu g;
  g.id = "custom";
  g.name = "custom GPU";
  g.memory = memory;
  return g;
}

Bytes usable_memory(Bytes memory, double utilization) {
  if (!std::isfinite(utilization) || utilization <= 0.0 || utilization > 1.0)
    throw Error("gpu_util", "must be in (0, 1]");
  const long double v =
      std::floor(static_cast<long double>(memory.value) * static_cast<long double>(utilization));
  return Bytes{std::min<std::uint64_t>(memory.value, static_cast<std::uint64_t>(v))};
}

Parallelism attention_parallelism(const Deployment& d) {
  const std::uint64_t n = d.dp_attention;
  if (n == 0) throw Error("dp_attention", "must be positive");
  if (n == 1) return d.parallel;
  if (d.parallel.tp % n != 0)
    throw Error("dp_attention", std::to_string(n) + " does not divide tp " + std::to_string(d.parallel.tp) +
                                    " (attention tp = tp / dp-attention)");
  return Parallelism{d.parallel.tp / n, d.parallel.pp, checked_mul(d.parallel.dp, n, "gpus")};
}

Bytes dp_attention_weight_bytes(const Deployment& d, Bytes total, Bytes experts) {
  const Parallelism a = attention_parallelism(d);
  if (experts > total) throw Error("dp_attention", "routed experts exceed the weights");
  const std::uint64_t stages = d.parallel.pp;
  const std::uint64_t rest = ceil_div(total.value - experts.value, checked_mul(a.tp, stages, "gpus"));
  const std::uint64_t routed = ceil_div(experts.value, checked_mul(d.parallel.tp, stages, "gpus"));
  return Bytes{checked_add(rest, routed, "per_gpu.weights_bytes")};
}

std::optional<Tokens> max_context_for(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                      std::uint64_t users, Bytes available) {
  if (users == 0) throw Error("users", "must be positive");
  return make_policy(m, t, p, EngineOptions{})->max_context(users, available);
}

std::string describe_limit(const Limit& l, UnitSystem u) {
  const std::string where = l.kv_memory_given ? "KV memory" : "available per GPU";
  const std::string engine = std::string(name(l.engine));
  switch (l.kind) {
    case Limit::Kind::no_capacity: return "no GPU given: capacity not computed";
    case Limit::Kind::weights:
      return "weights (" + format_bytes(l.weights, u) + ") and reserve (" + format_bytes(l.reserve, u) +
             ") exceed the usable memory (" + format_bytes(l.usable, u) +
             ") per GPU: add GPUs (tp/pp) or use a smaller weight dtype";
    case Limit::Kind::fits:
      return "fits: " + format_count(l.users) + " users x " + format_count(l.context.value) +
             " tokens within " + format_bytes(l.available, u) + " " + where +
             (l.engine == Engine::ideal ? "" : " (" + engine + " rules)");
    case Limit::Kind::kv_cache:
      if (l.engine == Engine::ideal)
        return "KV cache: " + format_count(l.users) + " users x " + format_count(l.context.value) +
               " tokens need " + format_bytes(l.needed, u) + " per GPU, only " +
               format_bytes(l.available, u) + " " + where;
      return "KV cache: under " + engine + " rules only " + format_count(l.max_users) +
             (l.max_users == 1 ? " request of " : " requests of ") + format_count(l.context.value) +
             " tokens fit in " + format_bytes(l.available, u) + " " + where + ", " + format_count(l.users) +
             " asked";
  }
  return "?";
}

Plan make_plan(const PlanInputs& in) { return make_plan(in, true); }

Plan make_plan(const PlanInputs& in, bool with_max_context) {
  const ModelSpec& m = in.model;
  validate(m);
  // The KV cache's parallelism: under DP attention, dp x N attention ranks of tp / N GPUs, each with its
  // own sequences; the rest of the plan is generic over it.
  const Parallelism par = attention_parallelism(in.deployment);
  validate_parallelism(m, par);
  const bool dp_attention = in.deployment.dp_attention > 1;
  if (dp_attention) {
    if (in.engine.engine == Engine::llamacpp)
      throw Error("dp_attention", "applies to --engine ideal, vllm, sglang or trtllm");
    const bool moe = std::any_of(m.layers.begin(), m.layers.end(),
                                 [](const LayerGroup& g) { return g.mlp.num_experts > 0; });
    if (!moe)
      throw Error("dp_attention", "needs a mixture-of-experts model (expert parallel); " + m.name +
                                      " is dense: its data-parallel replicas are --gpus");
  }
  if (in.context.value == 0) throw Error("context", "must be positive");
  if (in.users == 0) throw Error("users", "must be positive");

  Plan p;
  p.inputs = in;
  p.layers = num_layers(m);
  p.gpus = checked_mul(checked_mul(par.tp, par.pp, "gpus"), par.dp, "gpus");  // the same under DP attention

  // An overflow names the figure it happened in (its --json key), not the arithmetic's generic "bytes".
  const auto figure = [](const char* name, const auto& compute) {
    try {
      return compute();
    } catch (const Error& e) {
      if (e.field() != "bytes") throw;
      throw Error(name, e.reason());
    }
  };
  std::uint64_t first = 0;
  p.groups.reserve(m.layers.size());
  for (const auto& g : m.layers) {
    GroupFigures f;
    f.group = g;
    f.first_layer = first;
    f.bytes_per_token_per_layer =
        figure("bytes_per_token", [&] { return layer_bytes_per_token(g.attention, in.kv); });
    f.bytes_per_token = figure("bytes_per_token", [&] { return f.bytes_per_token_per_layer * g.count; });
    f.kv_bytes_per_sequence = figure(
        "kv_bytes_per_sequence", [&] { return f.bytes_per_token * cached_tokens(g.attention, in.context); });
    f.state_bytes_per_sequence =
        figure("state_bytes_per_sequence", [&] { return layer_state_bytes(g.attention, in.kv) * g.count; });
    p.groups.push_back(f);
    first += g.count;
  }

  // The model's sums (bytes_per_token, full_bytes_per_token, kv_bytes_per_sequence and
  // state_bytes_per_sequence of kv.hpp) from the groups' figures, each group's bytes computed once.
  for (const auto& f : p.groups) {
    p.bytes_per_token = figure("bytes_per_token", [&] { return p.bytes_per_token + f.bytes_per_token; });
    if (f.group.attention.kind == AttentionKind::full || f.group.attention.kind == AttentionKind::mla)
      p.full_bytes_per_token =
          figure("full_bytes_per_token", [&] { return p.full_bytes_per_token + f.bytes_per_token; });
    p.kv_bytes_per_sequence =
        figure("kv_bytes_per_sequence", [&] { return p.kv_bytes_per_sequence + f.kv_bytes_per_sequence; });
    p.state_bytes_per_sequence = figure(
        "state_bytes_per_sequence", [&] { return p.state_bytes_per_sequence + f.state_bytes_per_sequence; });
  }
  p.stages = figure("kv_bytes_total", [&] { return per_gpu_sequence_bytes(m, in.kv, in.context, par); });
  // replica_sequence_bytes x users, from the stages.
  // One sequence over the replica fits in 64 bits here; past it, the users are what is too many.
  const Bytes replica = figure("kv_bytes_total", [&] {
    Bytes sum{0};
    for (const auto& sb : p.stages) sum += (sb.kv_bytes + sb.state_bytes) * par.tp;
    return sum;
  });
  p.ideal_kv_bytes_total = figure("users", [&] { return replica * in.users; });

  for (const auto& w : m.warnings) p.warnings.push_back(w);
  // Weights read from the checkpoint (GGUF tensor infos, safetensors headers) stand as given; --weights
  // still wins.
  const std::optional<Bytes> given = in.deployment.weights ? in.deployment.weights : m.weights_bytes;
  p.weights_from_architecture = !given.has_value();
  if (!m.weights_unknown.empty()) {
    // KV figures never need the MLP or the vocabulary; capacity does need the weights.
    if (!given && in.gpu && !in.kv_memory)
      throw Error("weights", "the model's weights are unknown (" + m.weights_unknown +
                                 "): give the weights' size (--weights SIZE) for a capacity plan");
    if (!given)
      p.warnings.push_back("the model's weights are unknown (" + m.weights_unknown +
                           "): counted as 0 B; pass --weights");
    p.weights_bytes = given.value_or(Bytes{0});
  } else {
    p.parameters = parameter_count(m);
    p.active_parameters = active_parameter_count(m);
    p.weights_bytes = given.value_or(model_weight_bytes(m));
    if (!given && m.hidden_size == 0)
      p.warnings.push_back(
          "the model's weights are unknown (no hidden_size): counted as 0 B; pass --weights");
  }

  PerGpu& g = p.per_gpu;
  g.users = ceil_div(in.users, par.dp);
  g.bytes_per_sequence = fullest_stage(p.stages);
  p.ideal_per_gpu_kv_bytes_total = figure("users", [&] { return g.bytes_per_sequence * g.users; });
  if (!dp_attention) {
    g.weights_bytes = Bytes{ceil_div(p.weights_bytes.value, checked_mul(par.tp, par.pp, "gpus"))};
  } else {
    // Given weights (--weights, a checkpoint's bytes) keep the architecture's routed-expert bytes.
    if (!m.weights_unknown.empty())
      throw Error("dp_attention",
                  "the model's routed-expert weights are unknown (" + m.weights_unknown + ")");
    const Bytes experts = routed_expert_weight_bytes(m);
    if (experts > p.weights_bytes)
      throw Error("dp_attention", "the routed experts (" + format_bytes(experts, UnitSystem::iec) +
                                      " from the architecture) exceed the weights (" +
                                      format_bytes(p.weights_bytes, UnitSystem::iec) + ")");
    g.weights_bytes = dp_attention_weight_bytes(in.deployment, p.weights_bytes, experts);
  }
  g.reserve_bytes = in.deployment.reserve;

  if (m.max_position_embeddings > 0 && in.context.value > m.max_position_embeddings)
    p.warnings.push_back("context " + format_count(in.context.value) +
                         " exceeds the model's max_position_embeddings " +
                         format_count(m.max_position_embeddings));

  // The engine's figures, whatever else is given: per GPU for the fullest replica (ceil(users / dp)
  // sequences), and over the deployment each replica's own users (users = q x dp + r: r replicas serve
  // q + 1, the rest q).
  const auto policy = engine_detail::make_validated_policy(m, in.kv, par, in.engine);
  const auto overflow = [](const char* field) { return Error(field, "overflows 64-bit arithmetic"); };
  const auto per_gpu = policy->gpu_bytes(g.users, in.context);
  // One request past 2^64 bytes: the context is what is too large (the users otherwise).
  if (!per_gpu) throw overflow(policy->gpu_bytes(1, in.context) ? "users" : "context");
  g.kv_bytes_total = *per_gpu;
  {
    const std::uint64_t q = in.users / par.dp, r = in.users % par.dp;
    const auto fuller = policy->replica_bytes(q + 1, in.context);
    const auto rest = q == 0 ? std::optional<Bytes>(Bytes{0}) : policy->replica_bytes(q, in.context);
    if (!fuller || !rest) throw overflow(policy->replica_bytes(1, in.context) ? "users" : "context");
    p.kv_bytes_total = figure("users", [&] { return *fuller * r + *rest * (par.dp - r); });
  }

  Limit& limit = p.limit;
  limit.engine = in.engine.engine;
  limit.users = in.users;
  limit.context = in.context;
  limit.kv_memory_given = in.kv_memory.has_value();
  if (!in.gpu && !in.kv_memory) {
    limit.kind = Limit::Kind::no_capacity;
    p.engine = policy->report(in.context, g.users, std::nullopt);
    return p;
  }
  p.has_gpu = true;
  if (in.kv_memory) {
    g.available_kv_bytes = *in.kv_memory;  // as the engine logs it: weights and reserve already out
  } else {
    g.usable_bytes = usable_memory(in.gpu->memory, in.deployment.gpu_memory_utilization);
    const Bytes fixed = figure("per_gpu.weights_bytes", [&] { return g.weights_bytes + g.reserve_bytes; });
    if (fixed > g.usable_bytes) {
      g.available_kv_bytes = Bytes{0};
      p.fits = false;
      p.max_users = 0;
      p.max_context = Tokens{0};
      limit.kind = Limit::Kind::weights;
      limit.weights = g.weights_bytes;
      limit.reserve = g.reserve_bytes;
      limit.usable = g.usable_bytes;
      p.engine = policy->report(in.context, g.users, std::nullopt);
      return p;
    }
    g.available_kv_bytes = g.usable_bytes - fixed;
  }
  // Each replica runs its own server: the engine gets the users of one replica as its sequences.
  p.engine = policy->report(in.context, g.users, g.available_kv_bytes);

  // The capacity step, one for every engine: whole requests of the context that fit, and the longest
  // context at which the users still do.
  const auto saturating = [](std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    return __builtin_mul_overflow(a, b, &out) ? ~std::uint64_t{0} : out;
  };
  const std::uint64_t requests = policy->max_requests(in.context, g.available_kv_bytes);
  p.fits = requests >= g.users;
  p.max_users = saturating(requests, par.dp);
  g.free_bytes =
      g.kv_bytes_total <= g.available_kv_bytes ? g.available_kv_bytes - g.kv_bytes_total : Bytes{0};
  if (!p.fits) g.free_bytes = Bytes{0};
  if (with_max_context) p.max_context = policy->max_context(g.users, g.available_kv_bytes);

  // The exact layout's figures beside them.
  if (in.engine.engine == Engine::ideal) {
    p.ideal_max_users = p.max_users;
    p.ideal_max_context = p.max_context;
  } else {
    const auto ideal = engine_detail::make_validated_policy(m, in.kv, par, EngineOptions{});
    p.ideal_max_users = saturating(ideal->max_requests(in.context, g.available_kv_bytes), par.dp);
    if (with_max_context) p.ideal_max_context = ideal->max_context(g.users, g.available_kv_bytes);
  }

  limit.kind = p.fits ? Limit::Kind::fits : Limit::Kind::kv_cache;
  limit.available = g.available_kv_bytes;
  limit.needed = g.kv_bytes_total;
  limit.max_users = p.max_users;
  return p;
}

}  // namespace kvplan
