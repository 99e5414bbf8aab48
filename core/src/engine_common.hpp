#pragma once
// Helpers shared by the engine policies (private to core).
#include <algorithm>
#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kvplan/engine.hpp"
#include "kvplan/plan.hpp"

namespace kvplan::engine_detail {

/// Some layer is Mamba or linear attention.
bool has_recurrent(const ModelSpec& m);
/// Throws kvplan::Error("kv_dtype", ...) for KV types the engine lacks (block types unless allowed), and
/// ("mamba_cache_dtype" / "mamba_ssm_cache_dtype", ...) for a recurrent-state type other than float32,
/// float16 or bfloat16 (vLLM's MambaDType).
void require_plain_dtypes(const KvDtypes& t, std::string_view engine, bool allow_block_types);
/// a / b where b is a figure of the model (a page, a cell, a block): throws kvplan::Error(field,
/// "is 0 B ...") instead of dividing by zero.
std::uint64_t divide(std::uint64_t a, std::uint64_t b, std::string_view field);

/// a x b, or nullopt past 2^64 (the probes of an EnginePolicy never throw).
inline std::optional<std::uint64_t> mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}
/// a + b, or nullopt past 2^64.
inline std::optional<std::uint64_t> add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}
/// The product of the factors, or nullopt past 2^64.
inline std::optional<std::uint64_t> product(std::initializer_list<std::uint64_t> factors) {
  std::optional<std::uint64_t> out = 1;
  for (const std::uint64_t f : factors)
    if (out) out = mul(*out, f);
  return out;
}
/// The sum of part(x) (an optional<Bytes>) over xs, or nullopt when a part or the sum passes 2^64.
template <class Range, class Part>
std::optional<Bytes> sum_parts(const Range& xs, const Part& part) {
  std::uint64_t sum = 0;
  for (const auto& x : xs) {
    const std::optional<Bytes> b = part(x);
    const auto total = b ? add(sum, b->value) : std::nullopt;
    if (!total) return std::nullopt;
    sum = *total;
  }
  return Bytes{sum};
}
/// An optional count as optional Bytes.
inline std::optional<Bytes> as_bytes(std::optional<std::uint64_t> v) {
  return v ? std::optional<Bytes>(Bytes{*v}) : std::nullopt;
}
/// Whole sequences of `sequence` bytes each that `memory` holds (the exact layout's max_requests);
/// EnginePolicy::kUnboundedRequests when a sequence needs no memory.
inline std::uint64_t whole_sequences(Bytes sequence, Bytes memory) {
  return sequence.value == 0 ? EnginePolicy::kUnboundedRequests : memory.value / sequence.value;
}
/// a x b, saturating at 2^64 - 1.
inline std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  return mul(a, b).value_or(~std::uint64_t{0});
}

/// The largest len in [1, 2^64) with ok(len) for a predicate true up to some length and false after;
/// 0 when ok(1) fails; nullopt when ok(2^64 - 1) holds (every length). Doubling then bisection: at most
/// 128 probes.
std::optional<std::uint64_t> longest(const std::function<bool(std::uint64_t)>& ok);

/// longest(ok), found from a guess: gallops from `guess` (clamped to [1, 2^64 - 1]) up or down in
/// doubling steps to a bracket, then bisects it. The same answer as longest for any predicate true up
/// to some length and false after, whatever the guess; 2 probes when the guess is the answer, about
/// 2 log2(|guess - answer|) otherwise. For policies whose closed form gives a near answer.
template <class Ok>
std::optional<std::uint64_t> longest_near(std::uint64_t guess, const Ok& ok) {
  constexpr std::uint64_t top = ~std::uint64_t{0};
  std::uint64_t lo = 0, hi = 0;  // ok(lo) (lo >= 1), !ok(hi)
  const std::uint64_t g = std::max<std::uint64_t>(guess, 1);
  if (ok(g)) {
    lo = g;
    for (std::uint64_t step = 1;; step = step > top / 2 ? top : step * 2) {
      if (lo == top) return std::nullopt;  // every length
      const std::uint64_t next = step >= top - lo ? top : lo + step;
      if (!ok(next)) {
        hi = next;
        break;
      }
      lo = next;
    }
  } else {
    hi = g;
    for (std::uint64_t step = 1;; step = step > top / 2 ? top : step * 2) {
      if (hi == 1) return 0;  // not even one
      const std::uint64_t next = step >= hi - 1 ? 1 : hi - step;
      if (ok(next)) {
        lo = next;
        break;
      }
      hi = next;
    }
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}

/// The layer groups of a model numbered by their attention layer (PreparedModel::attention_classes), when
/// known: `model` is PreparedModel(m) of the very ModelSpec a policy is made for. Null, or a model
/// without classes: every group on its own.
struct GroupClasses {
  const PreparedModel* model = nullptr;
};

/// Calls f(attention) for each attention class of the model in order (`c` with classes), else for each
/// layer group's attention in order. For what depends on the distinct layers only (a maximum, whether
/// any layer has a state): the first class to throw is the class of the first group to throw.
template <class F>
void for_each_attention(const ModelSpec& m, const GroupClasses& c, const F& f) {
  const PreparedModel* pm = c.model;
  if (pm != nullptr && &pm->model() == &m && pm->attention_class_count() != 0) {
    for (std::size_t k = 0; k < pm->attention_class_count(); ++k) f(pm->attention_class(k));
    return;
  }
  for (const auto& g : m.layers) f(g.attention);
}

/// has_recurrent(m), over the model's attention classes when `c` has them.
bool has_recurrent(const ModelSpec& m, const GroupClasses& c);

/// A run of layers in a pipeline stage that the policies size as one: `count` layers with the attention
/// (and MLP) of the model's layer group `group` (an index into ModelSpec::layers). No default member
/// initialisers: for_each_class_stage keeps a fixed array of them on the stack.
struct StagePart {
  std::size_t group;
  std::uint64_t count;
};

/// stage_views(m, pp, split) as parts: calls f(stage, parts) for each of the pp stages in order, parts a
/// std::span<const StagePart> of the groups the stage holds (a group spanning stages split). Throws
/// kvplan::Error("pp", ...) as pipeline_stages does, before calling f.
void for_each_group_stage(const ModelSpec& m, std::uint64_t pp, PipelineSplit split,
                          const std::function<void(const Stage&, std::span<const StagePart>)>& f);

/// class_stage_views(m, pp, split, c) without building it: calls f(stage, parts) for each of the pp stages in
/// order, parts a std::span<const StagePart> with one part per attention class that has layers in the
/// stage (in class order; group: the class's first group). Allocates nothing when `c` has classes
/// (a fixed array of PreparedModel::kMaxAttentionClasses parts); without classes, the group parts of
/// for_each_group_stage. Throws kvplan::Error("pp", ...) as pipeline_stages does, before calling f.
template <class F>
void for_each_class_stage(const ModelSpec& m, std::uint64_t pp, PipelineSplit split, const GroupClasses& c,
                          const F& f) {
  const PreparedModel* pm = c.model;
  if (pm == nullptr || &pm->model() != &m || pm->attention_class_count() == 0) {
    for_each_group_stage(m, pp, split,
                         [&](const Stage& s, std::span<const StagePart> parts) { f(s, parts); });
    return;
  }
  const std::uint64_t layers = pm->layers();
  check_pipeline_stages(layers, pp, m.draft_layers);
  const std::size_t classes = pm->attention_class_count();
  // Each class's layers before the stage (0 before the first, then the previous stage's end) and
  // before its end.
  std::array<std::uint64_t, PreparedModel::kMaxAttentionClasses> before, upto;
  std::fill_n(before.begin(), classes, 0);
  std::array<StagePart, PreparedModel::kMaxAttentionClasses> parts;
  for (std::uint64_t i = 0; i < pp; ++i) {
    const Stage s = pipeline_stage(layers, pp, i, m.draft_layers, split);
    pm->class_layers_before_all(s.first + s.count, upto.data());
    std::size_t n = 0;
    for (std::size_t k = 0; k < classes; ++k) {
      const std::uint64_t count = upto[k] - before[k];
      before[k] = upto[k];
      if (count != 0) parts[n++] = StagePart{pm->attention_class_group(k), count};
    }
    f(s, std::span<const StagePart>(parts.data(), n));
  }
}

/// stage_views(m, pp, split) with the layers of one attention class in a stage merged into one view, in the
/// order of the classes (of their first groups in the model): the class's attention and its first
/// group's MLP (no policy reads the MLP), with the class's layers in the stage. Each policy's figures
/// are sums over a stage's groups of (a figure of the attention) x layers, or maxima over them, so they
/// are the same, in O(classes x log groups) per stage instead of O(groups) (gpt-oss-120b: 36 groups of
/// 2 classes). Without classes: stage_views(m, pp, split).
std::vector<StageView> class_stage_views(const ModelSpec& m, std::uint64_t pp, PipelineSplit split,
                                         const GroupClasses& c);

/// `p` with engine `e`'s split (pipeline_split(e)): each make_<engine>_policy builds its policy with it, so
/// an engine's stages follow its own rule whatever split the caller's parallelism had.
inline Parallelism with_split(Parallelism p, Engine e) {
  p.split = pipeline_split(e);
  return p;
}

/// What every policy holds: the model (by reference) and the inputs it was made for.
class PolicyBase : public EnginePolicy {
 public:
  PolicyBase(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o)
      : m_(m), t_(t), p_(p), o_(o) {}
  [[nodiscard]] Engine engine() const override { return o_.engine; }

 protected:
  const ModelSpec& m_;
  KvDtypes t_;
  Parallelism p_;
  EngineOptions o_;
};

/// make_policy for a model and parallelism already validated (make_plan's own checks come first); the
/// options are still validated.
/// `c`: the model's group classes when known (make_plan's PreparedModel), for class_stage_views.
std::unique_ptr<EnginePolicy> make_validated_policy(const ModelSpec& m, const KvDtypes& t,
                                                    const Parallelism& p, const EngineOptions& o,
                                                    const GroupClasses& c = {});

/// The engines' policies (core/src/engine_<name>.cpp), built by make_policy after validation.
std::unique_ptr<EnginePolicy> make_ideal_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                const EngineOptions& o, const GroupClasses& c = {});
std::unique_ptr<EnginePolicy> make_vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                               const EngineOptions& o, const GroupClasses& c = {});
std::unique_ptr<EnginePolicy> make_sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o, const GroupClasses& c = {});
std::unique_ptr<EnginePolicy> make_llamacpp_policy(const ModelSpec& m, const KvDtypes& t,
                                                   const Parallelism& p, const EngineOptions& o,
                                                   const GroupClasses& c = {});
std::unique_ptr<EnginePolicy> make_trtllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o, const GroupClasses& c = {});

}  // namespace kvplan::engine_detail
