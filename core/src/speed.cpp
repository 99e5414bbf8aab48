#include "kvplan/speed.hpp"

#include <algorithm>
#include <cmath>

#include "kvplan/prefill.hpp"
#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
void check_efficiency(double v) {
  if (!std::isfinite(v) || v <= 0.0 || v > 1.0) throw Error("efficiency", "must be in (0, 1]");
}

/// Routed experts and top-k of the model's MoE layers (the first MoE group: kvplan's presets have one
/// expert shape per model); {0, 0} for a dense model.
std::pair<std::uint64_t, std::uint64_t> routing(const ModelSpec& m) {
  for (const auto& g : m.layers)
    if (g.mlp.num_experts != 0) return {g.mlp.num_experts, g.mlp.experts_per_token};
  return {0, 0};
}
}  // namespace

double expected_distinct_experts(std::uint64_t experts, std::uint64_t top_k, std::uint64_t tokens) {
  if (experts == 0) return 0.0;
  if (top_k > experts) throw Error("experts_per_token", "exceeds the number of experts");
  const double e = static_cast<double>(experts);
  const double miss = 1.0 - static_cast<double>(top_k) / e;  // one token misses a given expert
  return e * (1.0 - std::pow(miss, static_cast<double>(tokens)));
}

DecodeStep decode_step(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const Gpu& gpu,
                       std::uint64_t batch, Tokens context, const SpeedEfficiency& e) {
  check_efficiency(e.memory);
  check_efficiency(e.compute);
  check_efficiency(e.link);
  if (batch == 0) throw Error("users", "must be positive");
  if (gpu.memory_bandwidth_bytes_per_s == 0) throw Error("gpu", gpu.id + " has no recorded memory bandwidth");
  if (gpu.bf16_dense_flops == 0) throw Error("gpu", gpu.id + " has no recorded bf16 peak FLOP/s");
  if (p.tp > 1 && gpu.link_bandwidth_bytes_per_s == 0)
    throw Error("gpu", gpu.id + " has no recorded link bandwidth for tp > 1");
  DecodeStep s;
  s.batch = batch;
  const double tp = static_cast<double>(p.tp);

  // Weights: every matrix once per step; routed experts only as far as the batch touches them.
  const double all = static_cast<double>(model_weight_bytes(m).value);
  const auto [experts, top_k] = routing(m);
  double weights = all;
  if (experts != 0) {
    const double expert_bytes = static_cast<double>(routed_expert_weight_bytes(m).value);
    const double touched = expected_distinct_experts(experts, top_k, batch) / static_cast<double>(experts);
    weights = all - expert_bytes + expert_bytes * touched;
  }
  s.weight_bytes_per_gpu = weights / tp;

  // KV: what one rank holds for one sequence, every stage (each stage's GPU reads its own, in turn).
  Bytes per_sequence{0};
  for (const auto& st : per_gpu_sequence_bytes(m, t, context, p))
    per_sequence += st.kv_bytes + st.state_bytes;
  s.kv_bytes_per_gpu = per_sequence * batch;

  // FLOPs of the token at position `context`: the prefill of L tokens less that of L - 1 (token_flops).
  // Exact where it fits in 64 bits; past that in doubles, as the TTFT below: a time needs no exact count
  // (it said "--prompt: overflows" for a 10^15-token context, naming a flag `size` does not have).
  const std::uint64_t position = std::max<std::uint64_t>(context.value, 1);
  double token = 0;
  try {
    token = static_cast<double>(token_flops(m, position));
  } catch (const Error& e) {
    if (e.field() != "prompt") throw;
    token = token_flops_approx(m, position);
  }
  s.flops_per_gpu = token * static_cast<double>(batch) / tp;

  const double bytes = s.weight_bytes_per_gpu + static_cast<double>(s.kv_bytes_per_gpu.value);
  s.memory_s = bytes / (static_cast<double>(gpu.memory_bandwidth_bytes_per_s) * e.memory);
  s.compute_s = s.flops_per_gpu / (static_cast<double>(gpu.bf16_dense_flops) * e.compute);
  if (p.tp > 1) {
    const double message = static_cast<double>(batch) * static_cast<double>(m.hidden_size) * 2.0;
    const double one_reduce =
        2.0 * (tp - 1.0) / tp * message / (static_cast<double>(gpu.link_bandwidth_bytes_per_s) * e.link);
    s.allreduce_s = 2.0 * static_cast<double>(num_layers(m)) * one_reduce;
  }
  s.memory_bound = s.memory_s >= s.compute_s;
  s.seconds = std::max(s.memory_s, s.compute_s) + s.allreduce_s;
  return s;
}

SpeedFigures estimate_speed(const PlanInputs& in, const SpeedEfficiency& e) {
  if (!in.gpu) throw Error("gpu", "speed needs a GPU");
  if (!in.model.weights_unknown.empty())
    throw Error("model", "the model's parameters are unknown (" + in.model.weights_unknown +
                             "): prefill FLOPs and speed need them");
  Parallelism p = in.deployment.parallel;
  p.split = pipeline_split(in.engine.engine);  // each stage's KV as the engine splits the layers
  SpeedFigures f;
  f.efficiency = e;
  const std::uint64_t batch = ceil_div(in.users, p.dp);
  f.step = decode_step(in.model, in.kv, p, *in.gpu, batch, in.context, e);
  f.tpot_s = f.step.seconds;
  f.tokens_per_s_per_user = 1.0 / f.tpot_s;
  const std::uint64_t gpus = checked_mul(checked_mul(p.tp, p.pp, "gpus"), p.dp, "gpus");
  f.tokens_per_s = static_cast<double>(in.users) / f.tpot_s;
  f.tokens_per_s_per_gpu = f.tokens_per_s / static_cast<double>(gpus);
  // Exact FLOPs where they fit in 64 bits; past that (a prompt of millions of tokens) in doubles: a time
  // needs no exact count, and the capacity plan must not fail for it.
  double flops = 0;
  try {
    flops = static_cast<double>(prefill_flops(in.model, in.context.value).total);
  } catch (const Error& e) {
    if (e.field() != "prompt" || in.context.value == 0) throw;
    flops = prefill_flops_approx(in.model, in.context.value);
  }
  f.ttft_s = flops / (static_cast<double>(in.gpu->bf16_dense_flops) * e.compute * static_cast<double>(p.tp));
  return f;
}

}  // namespace kvplan
