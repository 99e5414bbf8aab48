#include "kvplan/prefill.hpp"

#include <cmath>

#include "kvplan/weights.hpp"

namespace kvplan {

std::uint64_t causal_pairs(std::uint64_t n, std::uint64_t window) {
  const auto tri = [](std::uint64_t k) {
    // k (k + 1) / 2 without overflowing the intermediate product.
    // (k + 1) / 2 as k / 2 + 1 for odd k: k + 1 wraps at k = 2^64 - 1.
    return k % 2 == 0 ? checked_mul(k / 2, k + 1, "prompt") : checked_mul(k, k / 2 + 1, "prompt");
  };
  if (window == 0 || n <= window) return tri(n);
  return checked_add(tri(window), checked_mul(n - window, window, "prompt"), "prompt");
}

namespace {
/// Causal pairs under chunked attention: full chunks of C and a last partial chunk.
std::uint64_t chunked_pairs(std::uint64_t n, std::uint64_t chunk) {
  const std::uint64_t full = n / chunk, rest = n % chunk;
  return checked_add(checked_mul(full, causal_pairs(chunk, 0), "prompt"), causal_pairs(rest, 0), "prompt");
}
}  // namespace

PrefillFlops prefill_flops(const ModelSpec& m, std::uint64_t n) {
  if (n == 0) throw Error("prompt", "must be positive");
  // The linear part is 2 x the active parameters: a model without a weight formula for some layer
  // (Gemma 4's MoE block) would count too few, silently.
  if (!m.weights_unknown.empty())
    throw Error("model", "the model's parameters are unknown (" + m.weights_unknown +
                             "): prefill FLOPs and speed need them");
  PrefillFlops f;
  f.prompt_tokens = n;
  f.linear = checked_mul(checked_mul(2, active_parameter_count(m), "prompt"), n, "prompt");
  for (const auto& g : m.layers) {
    const auto& a = g.attention;
    std::uint64_t pairs = 0;
    switch (a.kind) {
      case AttentionKind::recurrent:
      case AttentionKind::mlp_only: continue;
      case AttentionKind::sliding: pairs = causal_pairs(n, a.window); break;
      case AttentionKind::chunked: pairs = chunked_pairs(n, a.window); break;
      default: pairs = causal_pairs(n, 0); break;
    }
    const std::uint64_t per_pair = checked_mul(checked_mul(2, a.num_attention_heads, "prompt"),
                                               checked_add(a.head_dim_k, a.head_dim_v, "prompt"), "prompt");
    f.attention = checked_add(
        f.attention, checked_mul(checked_mul(pairs, per_pair, "prompt"), g.count, "prompt"), "prompt");
  }
  f.total = checked_add(f.linear, f.attention, "prompt");
  return f;
}

PrefillComparison compare_prefill(const ModelSpec& m, std::uint64_t prompt_tokens,
                                  std::uint64_t versus_tokens) {
  PrefillComparison c;
  c.prompt = prefill_flops(m, prompt_tokens);
  if (versus_tokens == 0) throw Error("vs", "must be positive");
  c.versus = prefill_flops(m, versus_tokens);
  const auto ratio = [](std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
  };
  c.attention_ratio = ratio(c.prompt.attention, c.versus.attention);
  c.linear_ratio = ratio(c.prompt.linear, c.versus.linear);
  c.total_ratio = ratio(c.prompt.total, c.versus.total);
  return c;
}

PrefillSeconds prefill_seconds(const PrefillFlops& f, const PrefillCalibration& c, double linear_fallback) {
  const auto rate = [](double r) { return std::isfinite(r) && r > 0.0; };
  if (!rate(c.attention_flops_per_s))
    throw Error("calibration", c.source + ": no positive attention_flops_per_s in the fit");
  const double linear = rate(c.linear_flops_per_s) ? c.linear_flops_per_s : linear_fallback;
  if (!rate(linear))
    throw Error("calibration", c.source + ": no GEMM baseline for the linear part; give --gpu for its peak");
  PrefillSeconds s;
  s.attention = static_cast<double>(f.attention) / c.attention_flops_per_s;
  s.linear = static_cast<double>(f.linear) / linear;
  s.total = s.attention + s.linear;
  // A rate near the smallest double (5e-324) passes the checks above and gives infinite seconds.
  if (!std::isfinite(s.total))
    throw Error("calibration", c.source + ": rates too small for these FLOPs (the time is not finite)");
  return s;
}

double prefill_seconds(std::uint64_t flops, std::uint64_t peak, double efficiency) {
  if (!std::isfinite(efficiency) || efficiency <= 0.0 || efficiency > 1.0)
    throw Error("efficiency", "must be in (0, 1]");
  if (peak == 0) throw Error("gpu", "has no recorded bf16 peak FLOP/s");
  return static_cast<double>(flops) / (static_cast<double>(peak) * efficiency);
}

}  // namespace kvplan
