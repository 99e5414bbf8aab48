#pragma once
/// @file shape.hpp
/// The shape of one attention problem and the benchmark's FLOP convention.
///
/// Layout everywhere in kvplan-bench: Q and O are [batch, heads, n, head_dim], K and V are
/// [batch, kv_heads, n, head_dim], row-major and contiguous. Query head h reads KV head
/// h / (heads / kv_heads) (GQA; MQA when kv_heads = 1). Causal: query i sees keys j <= i, the
/// lesson's mask (-inf above the diagonal before the softmax).
///
/// Kept free of anything but the standard library so that the CUDA sources can include it.

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

namespace kvplan::bench {

/// One attention forward pass: O = softmax(scale * Q K^T + mask) V, per (batch, head).
struct Shape {
  std::uint64_t batch = 1;
  std::uint64_t heads = 8;
  std::uint64_t kv_heads = 8;  ///< divides heads; heads / kv_heads query heads share one KV head
  std::uint64_t n = 1024;      ///< sequence length (queries = keys: a prefill)
  std::uint64_t head_dim = 64;
  bool causal = false;
  double scale = 0.0;  ///< softmax scale; 0 means 1 / sqrt(head_dim)
  friend bool operator==(const Shape&, const Shape&) = default;
};

/// Throws kvplan::Error naming the option at fault (`--heads`, `--kv-heads`, ...) when a count is
/// zero, kv_heads does not divide heads, the scale is negative or not finite, or an element count
/// overflows 64 bits.
void validate(const Shape& s);

/// The softmax scale in use: s.scale, or 1 / sqrt(head_dim) when it is 0 (Vaswani et al. 2017).
inline double softmax_scale(const Shape& s) {
  return s.scale > 0.0 ? s.scale : 1.0 / std::sqrt(static_cast<double>(s.head_dim));
}
/// The KV head read by query head h (0 <= h < heads).
inline std::uint64_t kv_head_of(const Shape& s, std::uint64_t h) { return h / (s.heads / s.kv_heads); }
/// Elements of Q (and of O): batch x heads x n x head_dim.
inline std::uint64_t q_elements(const Shape& s) { return s.batch * s.heads * s.n * s.head_dim; }
/// Elements of K (and of V): batch x kv_heads x n x head_dim.
inline std::uint64_t kv_elements(const Shape& s) { return s.batch * s.kv_heads * s.n * s.head_dim; }

/// FLOPs of one forward pass by the benchmark's convention: 4 x batch x heads x n^2 x head_dim
/// (Q K^T and P V are 2 n^2 d each, a multiply-add counted as 2 FLOPs), halved when causal (the
/// masked half is not work); the softmax is not counted. FlashAttention's own benchmarks use the
/// same count (benchmarks/benchmark_flash_attention.py, flops()). A causal naive kernel that
/// computes the full matrix is still credited only half: the convention measures useful work.
/// Throws kvplan::Error("--seq", ...) when the count overflows 64 bits.
std::uint64_t attention_flops(const Shape& s);

/// The convention above as one sentence, written into every JSON report.
std::string flops_convention();

/// x rounded to the nearest bfloat16 (ties to even), returned as the float of equal value.
/// bf16 backends get their inputs rounded first, so the fp64 reference sees what they see.
inline float round_to_bf16(float x) {
  if (std::isnan(x)) return x;
  auto u = std::bit_cast<std::uint32_t>(x);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xFFFF0000u);
}
/// The 16 bits of a bfloat16 holding x (x should already be bf16-representable).
inline std::uint16_t bf16_bits(float x) {
  return static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(round_to_bf16(x)) >> 16);
}
/// The float value of bfloat16 bits.
inline float bf16_value(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace kvplan::bench
