#include "kvplan/series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine_common.hpp"

namespace kvplan {

std::vector<std::uint64_t> log_lengths(std::uint64_t first, std::uint64_t last, unsigned per_doubling) {
  if (first == 0) throw Error("series", "the first length must be positive");
  if (last < first) throw Error("series", "the last length is below the first");
  if (per_doubling == 0) throw Error("series", "needs at least one point per doubling");
  std::vector<std::uint64_t> out;
  const auto lo = static_cast<long double>(first), hi = static_cast<long double>(last);
  for (unsigned i = 0;; ++i) {
    const long double v = std::round(lo * std::exp2(static_cast<long double>(i) / per_doubling));
    if (v >= hi) break;
    const auto n = static_cast<std::uint64_t>(v);
    if (out.empty() || n > out.back()) out.push_back(n);
  }
  if (out.empty() || out.back() < last) out.push_back(last);
  return out;
}

namespace {
/// The point at `ctx` from the policy alone, or nullopt when make_plan must decide it: a context of 0,
/// or any figure make_plan computes there (the exact layout's per-sequence and per-replica bytes, the
/// engine's bytes per GPU and per replica) at or near 2^64 bytes. Each of make_plan's context-dependent
/// figures is at most one of the figures checked here, so a point that passes cannot throw in make_plan.
std::optional<Bytes> policy_point(const EnginePolicy& policy, const PlanInputs& in, const Parallelism& par,
                                  std::uint64_t per_gpu_users, Tokens ctx) {
  if (ctx.value == 0) return std::nullopt;
  const auto per_gpu = policy.gpu_bytes(per_gpu_users, ctx);
  const std::uint64_t q = in.users / par.dp;
  const auto fuller = policy.replica_bytes(q + 1, ctx);
  if (!per_gpu || !fuller) return std::nullopt;
  try {
    // make_plan's deployment total is at most fuller x dp; the exact layout's total is one replica's
    // sequence x users, and each group's and stage's bytes are parts of the whole model's sequence.
    (void)(*fuller * par.dp);
    (void)(replica_sequence_bytes(in.model, in.kv, ctx, par) * in.users);
    (void)(kv_bytes_per_sequence(in.model, in.kv, ctx) + state_bytes_per_sequence(in.model, in.kv));
  } catch (const Error&) {
    return std::nullopt;
  }
  return per_gpu;
}
}  // namespace

CapacitySeries capacity_series(const PlanInputs& in, std::span<const Tokens> contexts) {
  CapacitySeries s;
  s.contexts.assign(contexts.begin(), contexts.end());
  if (contexts.empty()) return s;
  s.per_gpu.reserve(contexts.size());
  s.max_users.reserve(contexts.size());
  PlanInputs at = in;
  try {
    const PreparedModel prepared(at.model);  // the same model at every context
    at.context = contexts.front();
    // Every check that does not depend on the context, with make_plan's own error.
    const Plan first = make_plan(prepared, at, false);
    s.per_gpu.push_back(first.per_gpu.kv_bytes_total);
    s.max_users.push_back(first.max_users);
    Parallelism par = attention_parallelism(at.deployment);
    par.split = pipeline_split(at.engine.engine);  // as make_plan's check_inputs
    const auto policy = engine_detail::make_validated_policy(at.model, at.kv, par, at.engine);
    // make_plan's capacity step runs only with KV memory left after the weights (else max users is 0).
    const bool capacity = first.has_gpu && first.limit.kind != Limit::Kind::weights;
    const Bytes memory = first.per_gpu.available_kv_bytes;
    // The sequences the engine runs at once (plan.hpp max_running_sequences) do not follow the context.
    const auto running = max_running_sequences(first, at);
    const std::uint64_t most_users =
        running ? engine_detail::mul_sat(*running, par.dp) : std::numeric_limits<std::uint64_t>::max();
    // Past the first point that needs make_plan, every later one is planned whole; so is every point of a
    // llama.cpp budget, whose compute buffer (its KQ masks) follows the context (budget_llamacpp.cpp).
    bool whole = at.engine.engine == Engine::llamacpp && first.budget.modelled;
    for (std::size_t i = 1; i < contexts.size(); ++i) {
      const Tokens ctx = contexts[i];
      const auto bytes = whole ? std::nullopt : policy_point(*policy, at, par, first.per_gpu.users, ctx);
      if (bytes) {
        s.per_gpu.push_back(*bytes);
        s.max_users.push_back(
            capacity ? std::min(engine_detail::mul_sat(policy->max_requests(ctx, memory), par.dp), most_users)
                     : first.max_users);
        continue;
      }
      whole = true;
      at.context = ctx;
      const Plan p = make_plan(prepared, at, false);
      s.per_gpu.push_back(p.per_gpu.kv_bytes_total);
      s.max_users.push_back(p.max_users);
    }
  } catch (const Error& e) {
    s.error = e;  // longer contexts overflow too: the series stops here
    s.max_users.resize(s.per_gpu.size());
  }
  return s;
}

KvMemorySeries kv_memory_series(const PlanInputs& in, std::span<const Tokens> contexts,
                                const VariantOptions& o) {
  KvMemorySeries s;
  s.contexts.assign(contexts.begin(), contexts.end());
  // The model as configured: its errors are the caller's (the plan itself would fail the same way).
  const Plan base = make_plan(in, false);
  if (base.has_gpu) s.available_per_gpu = base.per_gpu.available_kv_bytes;

  // Capacity is not needed for the curves: planning without a GPU skips it.
  PlanInputs no_gpu = in;
  no_gpu.gpu.reset();
  std::vector<Variant> variants;
  try {
    variants = attention_variants(in.model, o);
  } catch (const Error&) {
    variants = {{"as configured", in.model}};  // no attention layer: nothing to vary
  }
  for (auto& v : variants) {
    KvCurve c;
    c.label = v.label;
    PlanInputs vin = no_gpu;
    vin.model = std::move(v.model);
    CapacitySeries cs = capacity_series(vin, contexts);
    c.per_gpu = std::move(cs.per_gpu);
    if (cs.error) c.error = cs.error->what();
    s.curves.push_back(std::move(c));
  }
  return s;
}

UsersSeries max_users_series(const PlanInputs& in, std::span<const Tokens> contexts) {
  if (!in.gpu) throw Error("gpu", "max users needs a GPU");
  UsersSeries s;
  s.contexts.assign(contexts.begin(), contexts.end());
  // Longer contexts overflow too: the curve stops at the first context that does not plan.
  s.max_users = capacity_series(in, contexts).max_users;
  return s;
}

PrefillSeries prefill_series(const ModelSpec& m, std::span<const std::uint64_t> prompts,
                             std::uint64_t reference_tokens) {
  PrefillSeries s;
  s.reference_tokens = reference_tokens;
  s.reference = prefill_flops(m, reference_tokens);
  if (s.reference.total == 0) throw Error("prompt", "the model has no prefill work to compare against");
  const auto ref = static_cast<double>(s.reference.total);
  for (const std::uint64_t n : prompts) {
    PrefillFlops f;
    try {
      f = prefill_flops(m, n);
    } catch (const Error&) {
      break;  // longer prompts overflow too
    }
    s.linear.push_back(static_cast<double>(f.linear) / ref);
    s.attention.push_back(static_cast<double>(f.attention) / ref);
    s.total.push_back(static_cast<double>(f.total) / ref);
    s.points.push_back(f);
  }
  return s;
}

std::vector<double> relative_measured(const ModelSpec& m, std::span<const MeasuredPrefill> measured,
                                      std::uint64_t reference_tokens, bool attention_only) {
  if (measured.empty()) throw Error("measured", "no points");
  for (const auto& p : measured) {
    if (p.prompt_tokens == 0) throw Error("measured", "a point has 0 prompt tokens");
    if (!std::isfinite(p.seconds) || p.seconds <= 0)
      throw Error("measured", "a point's time must be a positive number of seconds");
  }
  const auto shortest = std::min_element(measured.begin(), measured.end(), [](const auto& a, const auto& b) {
    return a.prompt_tokens < b.prompt_tokens;
  });
  const double ref = static_cast<double>(prefill_flops(m, reference_tokens).total);
  if (ref == 0) throw Error("prompt", "the model has no prefill work to compare against");
  const PrefillFlops at_shortest = prefill_flops(m, shortest->prompt_tokens);
  const double anchor = static_cast<double>(attention_only ? at_shortest.attention : at_shortest.total) / ref;
  if (anchor == 0) throw Error("measured", "the model has no attention work to anchor attention times to");
  std::vector<double> out;
  out.reserve(measured.size());
  for (const auto& p : measured) out.push_back(p.seconds / shortest->seconds * anchor);
  return out;
}

}  // namespace kvplan
