#include "kvplan/prefill.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
// The arithmetic of the prefill count, once for exact integers (checked: an overflow is an error naming
// the prompt) and once for doubles (speed estimates of prompts whose exact count passes 2^64).
std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "prompt"); }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "prompt"); }
double mul(double a, double b) { return a * b; }
double add(double a, double b) { return a + b; }

/// k (k + 1) / 2.
template <class N>
N triangle(std::uint64_t k) {
  if constexpr (std::is_same_v<N, double>) {
    return static_cast<double>(k) * (static_cast<double>(k) + 1.0) / 2.0;
  } else {
    // Without overflowing the intermediate product: (k + 1) / 2 as k / 2 + 1 for odd k (k + 1 wraps at
    // k = 2^64 - 1).
    return k % 2 == 0 ? mul(k / 2, k + 1) : mul(k, k / 2 + 1);
  }
}

/// Causal pairs with a window W (0: none): sum over i = 1..n of min(i, W).
template <class N>
N causal(std::uint64_t n, std::uint64_t window) {
  if (window == 0 || n <= window) return triangle<N>(n);
  return add(triangle<N>(window), mul(static_cast<N>(n - window), static_cast<N>(window)));
}

/// Causal pairs under chunked attention: full chunks of C and a last partial chunk.
template <class N>
N chunked(std::uint64_t n, std::uint64_t chunk) {
  return add(mul(static_cast<N>(n / chunk), triangle<N>(chunk)), triangle<N>(n % chunk));
}

/// The attention part of a prefill of n tokens (prefill_flops' `attention`), or with `position` the
/// attention of the token at position n alone (the pairs it adds: min(n, W); within its chunk).
template <class N>
N attention_flops(const ModelSpec& m, std::uint64_t n, bool position) {
  N total{0};
  for (const auto& g : m.layers) {
    const auto& a = g.attention;
    N pairs{0};
    switch (a.kind) {
      case AttentionKind::recurrent:
      case AttentionKind::mlp_only: continue;
      case AttentionKind::sliding:
        pairs = position ? static_cast<N>(std::min(n, a.window)) : causal<N>(n, a.window);
        break;
      case AttentionKind::chunked:
        pairs = position ? static_cast<N>((n - 1) % a.window + 1) : chunked<N>(n, a.window);
        break;
      default: pairs = position ? static_cast<N>(n) : causal<N>(n, 0); break;
    }
    const N per_pair = mul(mul(N{2}, static_cast<N>(a.num_attention_heads)),
                           static_cast<N>(checked_add(a.head_dim_k, a.head_dim_v, "prompt")));
    total = add(total, mul(mul(pairs, per_pair), static_cast<N>(g.count)));
  }
  return total;
}

/// The checks every prefill count makes: a positive prompt, a model whose parameters are known.
void check_prefill(const ModelSpec& m, std::uint64_t n) {
  if (n == 0) throw Error("prompt", "must be positive");
  // The linear part is 2 x the active parameters: a model without a weight formula for some layer
  // (Gemma 4's MoE block) would count too few, silently.
  if (!m.weights_unknown.empty())
    throw Error("model", "the model's parameters are unknown (" + m.weights_unknown +
                             "): prefill FLOPs and speed need them");
}
}  // namespace

std::uint64_t causal_pairs(std::uint64_t n, std::uint64_t window) { return causal<std::uint64_t>(n, window); }

PrefillFlops prefill_flops(const ModelSpec& m, std::uint64_t n) {
  check_prefill(m, n);
  PrefillFlops f;
  f.prompt_tokens = n;
  f.linear = mul(mul(2, active_parameter_count(m)), n);
  f.attention = attention_flops<std::uint64_t>(m, n, false);
  f.total = add(f.linear, f.attention);
  return f;
}

std::uint64_t token_flops(const ModelSpec& m, std::uint64_t position) {
  check_prefill(m, position);
  return add(mul(2, active_parameter_count(m)), attention_flops<std::uint64_t>(m, position, true));
}

double prefill_flops_approx(const ModelSpec& m, std::uint64_t n) {
  check_prefill(m, n);
  return 2.0 * static_cast<double>(active_parameter_count(m)) * static_cast<double>(n) +
         attention_flops<double>(m, n, false);
}

double token_flops_approx(const ModelSpec& m, std::uint64_t position) {
  check_prefill(m, position);
  return 2.0 * static_cast<double>(active_parameter_count(m)) + attention_flops<double>(m, position, true);
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
    throw Error("calibration", c.source + ": no GEMM baseline for the linear part; give `gpu` for its peak");
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
