#pragma once
/// @file cuda.hpp
/// The CUDA side of kvplan-bench: device discovery, the two CUDA backends and a cuBLAS GEMM
/// baseline. Implemented in src/cuda_backends.cu when CMake finds nvcc, otherwise by
/// src/cuda_stub.cpp, which reports that the build has no CUDA.

#include <cstdint>
#include <memory>
#include <string>

#include "kvplan/bench/backend.hpp"

namespace kvplan::bench {

/// What the CUDA runtime reports about device 0.
struct CudaDevice {
  bool built = false;    ///< this binary was compiled with CUDA
  bool present = false;  ///< a usable device exists
  std::string reason;  ///< when !present: "no CUDA device (cudaGetDeviceCount: ...)" or "not built with CUDA"
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int runtime_version = 0, driver_version = 0;  ///< as CUDA encodes them (13000 = 13.0)
};

/// Device 0, or why there is none. Never throws.
CudaDevice cuda_device();

/// cuda-naive: S = scale Q K^T in global memory (fp32, cuBLAS strided-batched GEMM, one batch per
/// KV head with its group of query heads stacked), a masked row softmax kernel writing P in bf16,
/// then O = P V (cuBLAS). bf16 inputs and output, fp32 accumulation.
std::unique_ptr<Backend> make_cuda_naive();

/// cuda-tiled: one fused FlashAttention-2-style kernel (Dao 2023, Algorithm 1): per block 64 queries
/// (4 warps of 16), key/value tiles of 64 in shared memory, Q K^T and P V on tensor cores (WMMA,
/// bf16 in, fp32 accumulate), online softmax, causal tiles above the diagonal skipped, GQA by
/// indexing the KV head. head_dim 64 or 128.
std::unique_ptr<Backend> make_cuda_tiled();

/// A plain cuBLAS GEMM, m = n = k = size, bf16 in, fp32 accumulate, bf16 out: seconds of each of
/// `repeats` runs after one warm-up (CUDA events). Throws kvplan::Error("cuda", ...) without a device.
std::vector<double> cuda_gemm_seconds(std::uint64_t size, int repeats);

}  // namespace kvplan::bench
