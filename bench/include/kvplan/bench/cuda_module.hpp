#pragma once
/// @file cuda_module.hpp
/// The interface between kvplan-bench and its CUDA module, kvplan-bench-cuda.so (src/cuda_backends.cu,
/// a CMake MODULE library). kvplan-bench loads the module with dlopen only when a CUDA backend is
/// asked for, so that the CUDA runtime and cuBLAS (hundreds of MB mapped) are not loaded for --help,
/// --backend cpu or a machine without CUDA. Both sides are built from this header by the same
/// compiler in one build; kCudaModuleAbi guards against a module left over from another build.

#include <cstdint>
#include <memory>
#include <vector>

#include "kvplan/bench/backend.hpp"
#include "kvplan/bench/cuda.hpp"

namespace kvplan::bench {

/// Raised whenever CudaModuleApi or a type it passes (CudaDevice, Backend, Shape) changes.
constexpr int kCudaModuleAbi = 1;

/// File name of the module, looked for beside the kvplan-bench executable, then in the install's
/// libdir (see cuda_module_candidates()).
constexpr const char* kCudaModuleFile = "kvplan-bench-cuda.so";

/// Name of the module's one exported symbol: `const CudaModuleApi* kvplan_bench_cuda_module()`.
constexpr const char* kCudaModuleEntry = "kvplan_bench_cuda_module";

/// What the module exports: the functions of cuda.hpp, as implemented by the CUDA build. They throw
/// kvplan::Error as documented there; the exception crosses the dlopen boundary (same libstdc++).
struct CudaModuleApi {
  int abi = kCudaModuleAbi;  ///< kCudaModuleAbi of the build that made the module
  CudaDevice (*device)();
  std::unique_ptr<Backend> (*make_naive)();
  std::unique_ptr<Backend> (*make_tiled)();
  std::vector<double> (*gemm_seconds)(std::uint64_t size, int repeats);
};

}  // namespace kvplan::bench
