#pragma once
/// @file prefill.hpp
/// Prefill compute for a prompt of N tokens: the linear part (every weight touched once per
/// token) and the attention part (every query against every earlier key: quadratic in N).

#include <cstdint>
#include <string>

#include "kvplan/model.hpp"

namespace kvplan {

/// Causal (query, key) pairs with a window W (0: no window): sum over i = 1..n of min(i, W).
/// No window: n (n + 1) / 2. Checked.
std::uint64_t causal_pairs(std::uint64_t n, std::uint64_t window);

/// FLOPs of a prefill of `prompt` tokens (one sequence), as integers.
struct PrefillFlops {
  std::uint64_t prompt_tokens = 0;
  std::uint64_t linear = 0;     ///< 2 x active parameters x N (one multiply-add per weight per token)
  std::uint64_t attention = 0;  ///< sum over layers of 2 x pairs x heads x (head_dim_k + head_dim_v):
                                ///< QK^T and PV, causal, windows and chunks bounding the pairs
  std::uint64_t total = 0;      ///< linear + attention
};

/// Prefill FLOPs of one prompt (convention: a multiply-add is 2 FLOPs; causal masking halves
/// the score matrix, diagonal included; Mamba and linear-attention layers have no quadratic part;
/// chunked layers attend within their chunk). Throws kvplan::Error("prompt", ...) for 0 tokens or overflow,
/// ("model", ...) when the model's parameters are unknown (ModelSpec::weights_unknown).
PrefillFlops prefill_flops(const ModelSpec& m, std::uint64_t prompt_tokens);

/// FLOPs of the token at `position` (1-based) of a prefill: its linear work (2 x active parameters) and
/// its attention against the keys it sees (min(position, W) under a window; its chunk's earlier tokens
/// and itself under chunked attention), i.e. prefill_flops(position).total - prefill_flops(position -
/// 1).total, without the totals (which pass 2^64 long before one token's work does). What a decode step
/// at that context computes. Throws as prefill_flops does.
std::uint64_t token_flops(const ModelSpec& m, std::uint64_t position);

/// prefill_flops(m, n).total in double precision, for speed estimates of prompts whose exact count passes
/// 2^64 (a 10M-token prompt on an 8B model: about 1.6e20 FLOPs). Same formula, each layer's pairs x
/// heads x head dims summed in doubles (relative error about 1e-15). Throws Error("prompt") for 0 tokens,
/// ("model") when the parameters are unknown.
double prefill_flops_approx(const ModelSpec& m, std::uint64_t n);

/// token_flops(m, position) in double precision, for a decode step at a context whose exact count passes
/// 2^64 (a 10^15-token context on a hybrid whose few attention layers keep the KV small). Same formula
/// (relative error about 1e-15). Throws as prefill_flops_approx does.
double token_flops_approx(const ModelSpec& m, std::uint64_t position);

/// Two prompt lengths side by side: how much more work the first is than the second
/// (the lesson: 40,000 against 2,000 tokens is about 400x for attention).
struct PrefillComparison {
  PrefillFlops prompt;
  PrefillFlops versus;
  double attention_ratio = 0;  ///< prompt.attention / versus.attention (0 when versus has none)
  double linear_ratio = 0;     ///< prompt.linear / versus.linear
  double total_ratio = 0;      ///< prompt.total / versus.total
};
PrefillComparison compare_prefill(const ModelSpec& m, std::uint64_t prompt_tokens,
                                  std::uint64_t versus_tokens);

/// A measured cost model (a kvplan-bench report's fit): the attention rate of a fused attention
/// kernel and, when measured in the same run, the rate of a plain GEMM for the linear part.
struct PrefillCalibration {
  std::string source;   ///< file, and which run of it
  std::string backend;  ///< "cuda-tiled", "cpu-tiled" ...
  std::uint64_t head_dim = 0;
  bool causal = true;
  double attention_flops_per_s = 0;  ///< fit.attention_flops_per_s: FLOPs per n^2 / fitted c
  double linear_flops_per_s = 0;     ///< the fastest GEMM baseline on that hardware (0: none measured)
  double exponent = 0;               ///< fit.exponent: the measured scaling in n (0: none)
};

/// Seconds of a prefill under a calibration: attention FLOPs / the measured attention rate, plus linear
/// FLOPs / the measured GEMM rate (or `linear_flops_per_s_fallback` when the report has no GEMM).
/// Throws kvplan::Error("calibration", ...) when a needed rate is missing or not positive.
struct PrefillSeconds {
  double attention = 0;
  double linear = 0;
  double total = 0;
};
PrefillSeconds prefill_seconds(const PrefillFlops& f, const PrefillCalibration& c,
                               double linear_flops_per_s_fallback = 0);

/// Seconds for `flops` at `peak_flops_per_s` x `efficiency` (efficiency finite, in (0, 1]).
/// Throws kvplan::Error("efficiency", ...) or ("gpu", ...) when the peak is unknown (0).
double prefill_seconds(std::uint64_t flops, std::uint64_t peak_flops_per_s, double efficiency);

}  // namespace kvplan
