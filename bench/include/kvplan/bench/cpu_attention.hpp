#pragma once
/// @file cpu_attention.hpp
/// Attention on the CPU: an fp64 reference, a naive fp32 version that materialises the n x n
/// scores, and a tiled fp32 version (FlashAttention) that never does. Layout and mask as in
/// shape.hpp; spans must hold exactly q_elements / kv_elements values or kvplan::Error is thrown.
/// The fp32 versions run on every OpenMP thread (omp_set_num_threads) with Eigen for the products.

#include <cstdint>
#include <span>
#include <vector>

#include "kvplan/bench/shape.hpp"

namespace kvplan::bench {

/// The fp64 reference: for every (batch, head, query) the scores against every visible key, the
/// softmax with the row maximum subtracted, and the weighted sum of the values, all in double.
/// O(b h n^2 d) time, O(n) extra memory. Shapes: q, o [b, h, n, d]; k, v [b, kv_heads, n, d].
void attention_reference(const Shape& s, std::span<const double> q, std::span<const double> k,
                         std::span<const double> v, std::span<double> o);

/// One output row of the reference, from fp32 inputs: O[batch][head][query][0..d) in double.
/// Used to spot-check the output of large timed runs without an O(n^2) reference.
std::vector<double> reference_row(const Shape& s, std::span<const float> q, std::span<const float> k,
                                  std::span<const float> v, std::uint64_t batch, std::uint64_t head,
                                  std::uint64_t query);

/// Bytes of the n x n score matrices the naive version needs: batch x heads x n^2 x 4 (fp32).
std::uint64_t naive_extra_bytes(const Shape& s);

/// Naive attention in fp32: S = scale Q K^T for every head (Eigen GEMM) written to `scores`
/// ([b, h, n, n], naive_extra_bytes(s) bytes), the masked row softmax in place (P), then O = P V.
/// The full matrix is computed even when causal (the masked half is overwritten with zeros).
void attention_naive(const Shape& s, std::span<const float> q, std::span<const float> k,
                     std::span<const float> v, std::span<float> o, std::span<float> scores);

/// Tile sizes of the tiled version: query rows per tile (Br) and keys per tile (Bc).
/// 256 x 256 measured best on an AVX-512 Xeon for d = 64 and 128 (bench/README.md).
struct Tiles {
  std::uint64_t rows = 256;
  std::uint64_t cols = 256;
  friend bool operator==(const Tiles&, const Tiles&) = default;
};

/// Bytes the tiled version allocates per thread: the Br x Bc score tile, the Br x d scaled query
/// tile and output accumulator, and the running maximum and sum (Br each), all fp32. Independent
/// of n: this is the O(1)-per-thread (O(n) with the output) memory of FlashAttention.
std::uint64_t tiled_extra_bytes_per_thread(const Shape& s, Tiles t);

/// Tiled attention in fp32, FlashAttention-2's forward pass (Dao 2023, "FlashAttention-2: Faster
/// Attention with Better Parallelism and Work Partitioning", Algorithm 1): for each tile of Br
/// queries, loop over tiles of Bc keys and values; S = Q_i K_j^T; a running row maximum m and sum l
/// with the rescaling exp(m_old - m_new) of the earlier partial output (the online softmax of
/// Milakov and Gimelshein 2018); O_i = diag(l)^-1 O_i at the end. Causal: key tiles entirely above
/// the diagonal are skipped; a tile that crosses it is done in strips of 64 query rows, each against
/// the keys up to its last query, and masked element by element. The (batch, head, query tile) work
/// items are shared among OpenMP threads.
void attention_tiled(const Shape& s, std::span<const float> q, std::span<const float> k,
                     std::span<const float> v, std::span<float> o, Tiles tiles = {});

}  // namespace kvplan::bench
