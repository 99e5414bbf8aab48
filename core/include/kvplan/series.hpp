#pragma once
/// @file series.hpp
/// Figures along an axis, for charts: KV memory per GPU and max users against context length (the
/// model and its attention variants), and relative prefill cost against prompt length. Every point
/// is what make_plan or prefill_flops gives at that length with the other inputs unchanged, so a
/// chart and the plan it sits next to never disagree.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/variants.hpp"

namespace kvplan {

/// Lengths from `first` to `last` (both included), `per_doubling` points per doubling, log-spaced
/// (first x 2^(i / per_doubling), rounded to the nearest integer), strictly increasing.
/// Throws kvplan::Error("series", ...) when first is 0, last < first or per_doubling is 0.
std::vector<std::uint64_t> log_lengths(std::uint64_t first, std::uint64_t last, unsigned per_doubling);

/// One curve of KV memory per GPU against context length.
struct KvCurve {
  std::string label;           ///< "as configured", then attention_variants' labels ("MHA", "GQA-8", ...)
  std::vector<Bytes> per_gpu;  ///< per context: Plan::per_gpu.kv_bytes_total (KV + state of the
                               ///< replica's users on the fullest GPU); shorter than the contexts
                               ///< when `error` is set
  std::string error;           ///< why the curve stops: the variant cannot be planned under the
                               ///< deployment (tp), or a longer context overflows 64-bit bytes
};

/// KV memory per GPU against context for the model as configured and its attention variants.
struct KvMemorySeries {
  std::vector<Tokens> contexts;
  std::vector<KvCurve> curves;             ///< "as configured" first, then MHA, GQA-k, MQA, SWA, MLA
  std::optional<Bytes> available_per_gpu;  ///< Plan::per_gpu.available_kv_bytes; nullopt without a GPU
};

/// make_plan at every context, for the model and each of attention_variants(model, o), users,
/// dtypes and deployment unchanged. The inputs themselves must plan (make_plan's kvplan::Error
/// propagates); a curve stops at the first context that does not (a variant whose KV heads tp does not
/// divide has no points) and says why in `error`.
KvMemorySeries kv_memory_series(const PlanInputs& in, std::span<const Tokens> contexts,
                                const VariantOptions& o = {});

/// The plan's own KV per GPU and max users against context length (the engine's figures under its rules).
struct CapacitySeries {
  std::vector<Tokens> contexts;
  std::vector<Bytes> per_gpu;            ///< Plan::per_gpu.kv_bytes_total per context
  std::vector<std::uint64_t> max_users;  ///< Plan::max_users per context (0 without a GPU or KV memory)
  std::optional<Error> error;            ///< why the series stops before the last context (nullopt: it
                                         ///< does not): make_plan's error at that context
};

/// make_plan(in with context L, no max-context search)'s per_gpu.kv_bytes_total and max_users for every L,
/// without a whole plan per L: make_plan at the first context (every check that does not depend on the
/// context), then one engine policy (make_policy) asked per context (gpu_bytes, max_requests). A context
/// whose figures come near 2^64 bytes is planned whole, so the series stops exactly where make_plan
/// throws, with its message in `error`. Never throws kvplan::Error (a first context that does not plan
/// leaves the series empty, with the reason).
CapacitySeries capacity_series(const PlanInputs& in, std::span<const Tokens> contexts);

/// Max concurrent users against context length.
struct UsersSeries {
  std::vector<Tokens> contexts;
  std::vector<std::uint64_t> max_users;  ///< Plan::max_users per context (0: not even one fits); stops
                                         ///< before a context that overflows 64-bit bytes
};

/// make_plan(in with context L).max_users for every L. Throws kvplan::Error("gpu", ...) without a GPU.
UsersSeries max_users_series(const PlanInputs& in, std::span<const Tokens> contexts);

/// Prefill cost against prompt length, relative to the total at a reference prompt length.
struct PrefillSeries {
  std::uint64_t reference_tokens = 0;
  PrefillFlops reference;            ///< prefill_flops at reference_tokens
  std::vector<PrefillFlops> points;  ///< one per prompt length, in order; stops before the first that
                                     ///< overflows 64-bit FLOPs
  std::vector<double> linear;        ///< points[i].linear / reference.total
  std::vector<double> attention;     ///< points[i].attention / reference.total
  std::vector<double> total;         ///< points[i].total / reference.total
};

/// prefill_flops at each prompt length, divided by the total at `reference_tokens` (positive).
/// Throws kvplan::Error("prompt", ...) when the reference itself overflows or is 0.
PrefillSeries prefill_series(const ModelSpec& m, std::span<const std::uint64_t> prompts,
                             std::uint64_t reference_tokens);

/// A measured prefill: wall time of one prompt of `prompt_tokens` tokens.
struct MeasuredPrefill {
  std::uint64_t prompt_tokens = 0;
  double seconds = 0;
  bool operator==(const MeasuredPrefill&) const = default;
};

/// Measured times on the relative-cost axis of prefill_series: each time divided by the time of the
/// shortest measured prompt, times the model's relative cost there (s_i / s_0 x part(n_0) /
/// total(reference)), so the measured curve starts on the model's curve and its shape shows where
/// measurement and FLOP count part. `part` is the total, or the attention part alone when the
/// measurement timed only attention (kvplan-bench). Same order as `measured`.
/// Throws kvplan::Error("measured", ...) when a point has no tokens or a time that is not finite and
/// positive, the list is empty, or the anchoring part is 0 (attention of a model without attention).
std::vector<double> relative_measured(const ModelSpec& m, std::span<const MeasuredPrefill> measured,
                                      std::uint64_t reference_tokens, bool attention_only = false);

}  // namespace kvplan
