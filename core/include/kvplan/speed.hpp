#pragma once
/// @file speed.hpp
/// Decode and prefill speed from a roofline: a decode step on one GPU takes the longer of reading its
/// bytes (its share of the weights, only the experts the batch touches, plus the batch's KV) at the
/// memory bandwidth and doing its FLOPs at the dense bf16 peak, each at a stated efficiency, plus the
/// tensor-parallel all-reduces over the GPU's link. Floating point here is only times and ratios:
/// every byte and FLOP count comes from core's exact integer figures.

#include <cstdint>

#include "kvplan/kv.hpp"
#include "kvplan/model.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

/// Shares of the datasheet peaks a real engine reaches (defaults and their sources in
/// docs/speed.md): memory bandwidth in decode, dense bf16 FLOP/s, and the link's one-way bandwidth in an
/// all-reduce. Each must be finite and in (0, 1].
struct SpeedEfficiency {
  double memory = 0.8;   ///< decode kernels' share of the HBM bandwidth
  double compute = 0.5;  ///< share of the dense bf16 peak (as `kvplan prefill`'s default)
  double link = 0.7;     ///< all-reduce bus bandwidth over the link's one-way datasheet bandwidth
  bool operator==(const SpeedEfficiency&) const = default;
};

/// Expected number of distinct experts a batch of `tokens` tokens touches when each picks `top_k` of
/// `experts` (uniform, independent routing): E x (1 - (1 - k/E)^B). A standard occupancy argument: each
/// expert is missed by one token with probability 1 - k/E. 0 when experts is 0; at most E; B = 1
/// gives k. Throws kvplan::Error("experts_per_token", ...) when top_k > experts.
double expected_distinct_experts(std::uint64_t experts, std::uint64_t top_k, std::uint64_t tokens);

/// One decode step (one new token for each of `batch` sequences of `context` tokens) on one replica.
struct DecodeStep {
  std::uint64_t batch = 0;
  double weight_bytes_per_gpu = 0;  ///< weights one tp rank reads over all its stages (MoE: touched experts)
  Bytes kv_bytes_per_gpu;           ///< the batch's KV + state one tp rank reads, every stage
  double flops_per_gpu = 0;         ///< (linear + attention FLOPs of one token) x batch / tp
  double memory_s = 0;              ///< bytes / (bandwidth x memory efficiency)
  double compute_s = 0;             ///< FLOPs / (peak x compute efficiency)
  double allreduce_s = 0;           ///< 2 all-reduces per layer (tp > 1), 0 otherwise
  double seconds = 0;               ///< max(memory_s, compute_s) + allreduce_s: the time per output token
  bool memory_bound = true;         ///< memory_s >= compute_s
};

/// Decode speed and prefill latency of a deployment.
struct SpeedFigures {
  DecodeStep step;
  double tpot_s = 0;                 ///< seconds per output token of each user (= step.seconds)
  double tokens_per_s_per_user = 0;  ///< 1 / tpot
  double tokens_per_s_per_gpu = 0;   ///< users of all replicas / tpot / GPUs
  double tokens_per_s = 0;           ///< users of all replicas / tpot
  double ttft_s = 0;                 ///< prefill of one `context`-token prompt, alone on its replica
  SpeedEfficiency efficiency;
};

/// Decode step on one replica (tp x pp GPUs) for `batch` sequences at `context` tokens (the last
/// token: the longest, so an upper bound over a generation):
///   weights: model_weight_bytes / tp, with routed experts scaled by expected_distinct_experts(E, k,
///     batch) / E (tp shards experts as it does other matrices);
///   KV: batch x the sum over pipeline stages of per_gpu_sequence_bytes (windows, MLA latents, replicated
///     KV heads and recurrent state as the exact layout has them);
///   FLOPs: batch x token_flops(context) / tp (= prefill_flops(context) - prefill_flops(context - 1)), the
///   linear and attention
///     work of one token at that position (core/prefill.hpp);
///   all-reduce: 2 per layer (after attention and after the MLP: Megatron-LM, Shoeybi et al. 2019,
///     section 3) of batch x hidden_size x 2 bytes (bf16 activations), ring: 2 (tp - 1) / tp x bytes /
///     (link bandwidth x link efficiency). Latency per all-reduce is not modelled.
/// The pipeline's stages run one after another for one token, so their times add.
/// Throws kvplan::Error("gpu", ...) when the GPU lacks a bandwidth or peak figure (or, tp > 1, a link
/// figure), ("efficiency", ...) for an efficiency outside (0, 1], ("users", ...) for a zero batch.
DecodeStep decode_step(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const Gpu& gpu,
                       std::uint64_t batch, Tokens context, const SpeedEfficiency& e);

/// Speed of a plan's deployment: decode with ceil(users / dp) sequences per replica at the plan's
/// context, and TTFT = prefill_flops(context).total / (tp x peak x compute efficiency) (pipeline stages
/// run in turn, so pp does not divide it; prefill_flops_approx where the exact count passes 2^64). Needs a
/// plan with a GPU (`in.gpu`) and a model whose parameters are known (else kvplan::Error("model", ...)).
SpeedFigures estimate_speed(const PlanInputs& in, const SpeedEfficiency& e = {});

}  // namespace kvplan
