#include "kvplan/bench/shape.hpp"

#include <string>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

namespace kvplan::bench {

void validate(const Shape& s) {
  if (s.batch == 0) throw Error("--batch", "must be positive");
  if (s.heads == 0) throw Error("--heads", "must be positive");
  if (s.kv_heads == 0) throw Error("--kv-heads", "must be positive");
  if (s.heads % s.kv_heads != 0)
    throw Error("--kv-heads",
                std::to_string(s.kv_heads) + " does not divide --heads " + std::to_string(s.heads));
  if (s.n == 0) throw Error("--seq", "must be positive");
  if (s.head_dim == 0) throw Error("--head-dim", "must be positive");
  if (!std::isfinite(s.scale) || s.scale < 0.0) throw Error("scale", "must be finite and not negative");
  // Every element count the backends form, checked once here so they can multiply freely. An overflow
  // names every factor with its value: blaming the last one multiplied (--head-dim) misled when --batch
  // was the huge one.
  const auto product = [&](std::uint64_t last, const char* last_flag) {
    std::uint64_t v = 0;
    if (__builtin_mul_overflow(s.batch, s.heads, &v) || __builtin_mul_overflow(v, s.n, &v) ||
        __builtin_mul_overflow(v, last, &v))
      throw Error("--batch x --heads x --seq x " + std::string(last_flag),
                  format_count(s.batch) + " x " + format_count(s.heads) + " x " + format_count(s.n) + " x " +
                      format_count(last) + " elements overflow 64-bit arithmetic");
  };
  product(s.head_dim, "--head-dim");
  product(s.n, "--seq");
}

std::uint64_t attention_flops(const Shape& s) {
  const std::uint64_t bh = checked_mul(s.batch, s.heads, "--heads");
  const std::uint64_t full =
      checked_mul(checked_mul(checked_mul(4 * bh, s.n, "--seq"), s.n, "--seq"), s.head_dim, "--head-dim");
  return s.causal ? full / 2 : full;
}

std::string flops_convention() {
  return "flops = 4 * batch * heads * n^2 * head_dim (Q K^T and P V, 2 n^2 d each, a multiply-add = 2 "
         "FLOPs), "
         "halved when causal; softmax not counted; the same count for every backend (FlashAttention's "
         "benchmark_flash_attention.py); tflops = flops / median time / 1e12";
}

}  // namespace kvplan::bench
