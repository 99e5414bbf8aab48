#include "kvplan/series.hpp"

#include <algorithm>
#include <cmath>

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

KvMemorySeries kv_memory_series(const PlanInputs& in, std::span<const Tokens> contexts,
                                const VariantOptions& o) {
  KvMemorySeries s;
  s.contexts.assign(contexts.begin(), contexts.end());
  // The model as configured: its errors are the caller's (the plan itself would fail the same way).
  const Plan base = make_plan(in);
  if (base.has_gpu) s.available_per_gpu = base.per_gpu.available_kv_bytes;

  // Capacity is not needed for the curves: planning without a GPU skips the max-context search.
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
    c.per_gpu.reserve(contexts.size());
    try {
      const PreparedModel prepared(vin.model);  // the same model at every context
      for (const Tokens ctx : contexts) {
        vin.context = ctx;
        c.per_gpu.push_back(make_plan(prepared, vin, false).per_gpu.kv_bytes_total);
      }
    } catch (const Error& e) {
      c.error = e.what();
    }
    s.curves.push_back(std::move(c));
  }
  return s;
}

UsersSeries max_users_series(const PlanInputs& in, std::span<const Tokens> contexts) {
  if (!in.gpu) throw Error("gpu", "max users needs a GPU");
  UsersSeries s;
  s.contexts.assign(contexts.begin(), contexts.end());
  s.max_users.reserve(contexts.size());
  PlanInputs at = in;
  try {
    const PreparedModel prepared(at.model);  // the same model at every context
    for (const Tokens ctx : contexts) {
      at.context = ctx;
      s.max_users.push_back(make_plan(prepared, at, false).max_users);
    }
  } catch (const Error&) {
    // Longer contexts overflow too: the curve stops here.
  }
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
