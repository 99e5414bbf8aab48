#pragma once
// Helpers shared by the engine policies (private to core).
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kvplan/engine.hpp"

namespace kvplan::engine_detail {

/// Some layer is Mamba or linear attention.
bool has_recurrent(const ModelSpec& m);
/// Throws kvplan::Error("kv_dtype", ...) for KV types the engine lacks (block types unless allowed).
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
/// a x b, saturating at 2^64 - 1.
inline std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  return mul(a, b).value_or(~std::uint64_t{0});
}

/// The largest len in [1, 2^64) with ok(len) for a predicate true up to some length and false after;
/// 0 when ok(1) fails; nullopt when ok(2^64 - 1) holds (every length). Doubling then bisection: at most
/// 128 probes.
std::optional<std::uint64_t> longest(const std::function<bool(std::uint64_t)>& ok);

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
std::unique_ptr<EnginePolicy> make_validated_policy(const ModelSpec& m, const KvDtypes& t,
                                                    const Parallelism& p, const EngineOptions& o);

/// The engines' policies (core/src/engine_<name>.cpp), built by make_policy after validation.
std::unique_ptr<EnginePolicy> make_ideal_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                const EngineOptions& o);
std::unique_ptr<EnginePolicy> make_vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                               const EngineOptions& o);
std::unique_ptr<EnginePolicy> make_sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o);
std::unique_ptr<EnginePolicy> make_llamacpp_policy(const ModelSpec& m, const KvDtypes& t,
                                                   const Parallelism& p, const EngineOptions& o);
std::unique_ptr<EnginePolicy> make_trtllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o);

}  // namespace kvplan::engine_detail
