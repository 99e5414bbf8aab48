#pragma once
/// @file cuda.hpp
/// The CUDA side of kvplan-bench: device discovery, the two CUDA backends and a cuBLAS GEMM
/// baseline. Implemented in src/cuda_backends.cu, built (when CMake finds nvcc) as the module
/// kvplan-bench-cuda.so; src/cuda_loader.cpp loads it on the first call of a function below and
/// forwards to it, or reports why it cannot (no module, no device, a build without CUDA).

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

/// Device 0, or why there is none. Loads the CUDA module (once). Never throws.
CudaDevice cuda_device();

/// What is known without loading the CUDA module: built (a module file exists where
/// kvplan-bench looks for it), present = false, and a reason saying the device was not queried.
/// For reports of runs that asked for no CUDA backend. Never throws.
CudaDevice cuda_device_not_queried();

/// True for the names of CUDA backends ("cuda-naive", "cuda-tiled").
bool is_cuda_backend(const std::string& name);

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
