// The CUDA backends of kvplan-bench: cuda-naive (cuBLAS GEMMs around a softmax kernel, the scores
// in global memory) and cuda-tiled (one fused FlashAttention-2-style kernel on tensor cores), and
// a cuBLAS GEMM baseline. Inputs and output bf16, accumulation fp32. Compiled for sm_90 plus PTX,
// into the module kvplan-bench-cuda.so, which kvplan-bench loads when a CUDA backend is asked for
// (cuda_module.hpp); everything but the entry point kvplan_bench_cuda_module() is internal.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/bench/cuda.hpp"
#include "kvplan/bench/cuda_module.hpp"
#include "kvplan/error.hpp"

namespace kvplan::bench {
namespace {

using bf16 = __nv_bfloat16;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error("cuda", std::string(what) + ": " + cudaGetErrorString(e));
}
void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error("cublas", std::string(what) + ": " + cublasGetStatusString(s));
}

/// Device memory, freed with its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) cuda_check(cudaMalloc(&p_, bytes_), "cudaMalloc");
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }
  void reset() {
    if (p_ != nullptr) cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  template <class T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(p_);
  }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Host fp32 to device bf16 (round to nearest even, as round_to_bf16).
DeviceBuffer upload_bf16(std::span<const float> x) {
  std::vector<std::uint16_t> bits(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) bits[i] = bf16_bits(x[i]);
  DeviceBuffer d(bits.size() * sizeof(std::uint16_t));
  cuda_check(cudaMemcpy(d.as<void>(), bits.data(), d.bytes(), cudaMemcpyHostToDevice),
             "cudaMemcpy to device");
  return d;
}

// ---------------------------------------------------------------------------------------------
// Kernels

/// Reduction over a block (blockDim.x a multiple of 32, at most 1024): max or sum. `buf` holds 33
/// floats of shared memory used by this call only.
template <bool kMax>
__device__ float block_reduce(float v, float* buf) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int o = 16; o > 0; o /= 2) {
    const float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, w) : v + w;
  }
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? buf[lane] : (kMax ? -INFINITY : 0.0f);
    for (int o = 16; o > 0; o /= 2) {
      const float w = __shfl_xor_sync(0xffffffffu, v, o);
      v = kMax ? fmaxf(v, w) : v + w;
    }
    if (lane == 0) buf[32] = v;
  }
  __syncthreads();
  return buf[32];
}

/// cuda-naive's softmax: one block per row of S ([batch * heads * n, n], fp32, already scaled),
/// causal mask (keys after the row's query are -inf: weight 0), P = softmax written in bf16.
__global__ void softmax_rows(const float* __restrict__ s, bf16* __restrict__ p, int n, bool causal) {
  __shared__ float max_buf[33], sum_buf[33];
  const long long row = blockIdx.x;
  const int i = static_cast<int>(row % n);
  const int valid = causal ? i + 1 : n;
  const float* sr = s + row * n;
  bf16* pr = p + row * n;
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < valid; j += blockDim.x) mx = fmaxf(mx, sr[j]);
  mx = block_reduce<true>(mx, max_buf);
  float sum = 0.0f;
  for (int j = threadIdx.x; j < valid; j += blockDim.x) sum += expf(sr[j] - mx);
  sum = block_reduce<false>(sum, sum_buf);
  const float inv = 1.0f / sum;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    pr[j] = __float2bfloat16(j < valid ? expf(sr[j] - mx) * inv : 0.0f);
}

/// Fills x[i] with a deterministic pseudo-random bf16 in [-0.5, 0.5): GEMM baseline data.
__global__ void fill_bf16(bf16* x, std::size_t count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const unsigned h = static_cast<unsigned>(i) * 2654435761u;
    x[i] = __float2bfloat16(static_cast<float>(h >> 24) / 256.0f - 0.5f);
  }
}

/// Tile geometry of the fused kernel. Leading dimensions are padded (8 bf16, 4 floats) against
/// shared-memory bank conflicts; every WMMA fragment pointer stays 32-byte aligned because
/// fragments start at multiples of 16 rows and 16 columns.
template <int D>
struct Geometry {
  static constexpr int kWarps = 4;
  static constexpr int kBr = 16 * kWarps;  // queries per block: 16 per warp
  static constexpr int kBc = 64;           // keys per tile
  static constexpr int kLdQ = D + 8;       // Q, K, V tiles (bf16)
  static constexpr int kLdS = kBc + 4;     // scores (fp32)
  static constexpr int kLdP = kBc + 8;     // probabilities (bf16)
  static constexpr int kLdO = D + 4;       // output accumulator (fp32)
  static constexpr std::size_t kQBytes = sizeof(bf16) * kBr * kLdQ;
  static constexpr std::size_t kKVBytes = sizeof(bf16) * kBc * kLdQ;
  static constexpr std::size_t kSBytes = sizeof(float) * kBr * kLdS;
  static constexpr std::size_t kPBytes = sizeof(bf16) * kBr * kLdP;
  static constexpr std::size_t kOBytes = sizeof(float) * kBr * kLdO;
  static constexpr std::size_t kStatBytes = sizeof(float) * kBr;
  static constexpr std::size_t kSmemBytes =
      kQBytes + 2 * kKVBytes + kSBytes + kPBytes + kOBytes + 3 * kStatBytes;
  static_assert(kQBytes % 128 == 0 && kKVBytes % 128 == 0 && kSBytes % 128 == 0 && kPBytes % 128 == 0 &&
                    kOBytes % 128 == 0 && kStatBytes % 128 == 0,
                "shared-memory regions must keep 128-byte alignment");
};

/// Copies rows [row0, row0 + rows) of a [n, D] bf16 matrix into shared memory (leading dimension
/// ld), 16 bytes at a time; rows at or past n are zeros (so that padding never holds NaNs).
template <int D>
__device__ void load_tile(bf16* dst, int ld, const bf16* src, int row0, int rows, int n) {
  constexpr int kChunks = D / 8;  // 8 bf16 = 16 bytes
  for (int c = threadIdx.x; c < rows * kChunks; c += blockDim.x) {
    const int r = c / kChunks, col = (c % kChunks) * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row0 + r < n) v = *reinterpret_cast<const uint4*>(src + static_cast<std::size_t>(row0 + r) * D + col);
    *reinterpret_cast<uint4*>(dst + r * ld + col) = v;
  }
}

/// The fused forward pass, FlashAttention-2 (Dao 2023, Algorithm 1) with WMMA tensor-core tiles.
/// Grid: x = query tiles of 64, y = batch x heads. Block: 4 warps, each owning 16 query rows.
/// For each key tile of 64: S = Q K^T (fp32), the online softmax per row (running max m, sum l,
/// rescale alpha = exp(m_old - m_new) of the partial output), P in bf16, O = alpha O + P V; at the
/// end O / l in bf16. Causal: key tiles starting past the block's last query are skipped;
/// the diagonal tile is masked per element. GQA: head h reads KV head h / (heads / kv_heads).
template <int D>
__global__ void __launch_bounds__(128)
    flash_forward(const bf16* __restrict__ q, const bf16* __restrict__ k, const bf16* __restrict__ v,
                  bf16* __restrict__ o, int n, int heads, int kv_heads, float scale, bool causal) {
  using G = Geometry<D>;
  namespace wmma = nvcuda::wmma;
  extern __shared__ __align__(128) unsigned char smem[];
  bf16* q_s = reinterpret_cast<bf16*>(smem);
  bf16* k_s = reinterpret_cast<bf16*>(smem + G::kQBytes);
  bf16* v_s = reinterpret_cast<bf16*>(smem + G::kQBytes + G::kKVBytes);
  float* s_s = reinterpret_cast<float*>(smem + G::kQBytes + 2 * G::kKVBytes);
  bf16* p_s = reinterpret_cast<bf16*>(smem + G::kQBytes + 2 * G::kKVBytes + G::kSBytes);
  float* o_s = reinterpret_cast<float*>(smem + G::kQBytes + 2 * G::kKVBytes + G::kSBytes + G::kPBytes);
  float* m_s =
      reinterpret_cast<float*>(smem + G::kQBytes + 2 * G::kKVBytes + G::kSBytes + G::kPBytes + G::kOBytes);
  float* l_s = m_s + G::kBr;
  float* alpha_s = l_s + G::kBr;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q0 = blockIdx.x * G::kBr;
  const int bh = blockIdx.y, b = bh / heads, h = bh % heads;
  const int kvh = h / (heads / kv_heads);
  const bf16* qh = q + static_cast<std::size_t>(bh) * n * D;
  const bf16* kh = k + (static_cast<std::size_t>(b) * kv_heads + kvh) * n * D;
  const bf16* vh = v + (static_cast<std::size_t>(b) * kv_heads + kvh) * n * D;

  load_tile<D>(q_s, G::kLdQ, qh, q0, G::kBr, n);
  for (int c = threadIdx.x; c < G::kBr * G::kLdO; c += blockDim.x) o_s[c] = 0.0f;
  if (threadIdx.x < G::kBr) {
    m_s[threadIdx.x] = -INFINITY;
    l_s[threadIdx.x] = 0.0f;
  }
  __syncthreads();

  const int row0 = warp * 16;  // this warp's rows within the block
  const int key_end = causal ? min(n, q0 + G::kBr) : n;
  for (int j0 = 0; j0 < key_end; j0 += G::kBc) {
    load_tile<D>(k_s, G::kLdQ, kh, j0, G::kBc, n);
    load_tile<D>(v_s, G::kLdQ, vh, j0, G::kBc, n);
    __syncthreads();

    // S (16 x 64 per warp) = Q_w K^T on tensor cores.
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[G::kBc / 16];
#pragma unroll
      for (int t = 0; t < G::kBc / 16; ++t) wmma::fill_fragment(acc[t], 0.0f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a;
        wmma::load_matrix_sync(a, q_s + row0 * G::kLdQ + kk * 16, G::kLdQ);
#pragma unroll
        for (int t = 0; t < G::kBc / 16; ++t) {
          // K^T as a column-major matrix_b: element (dim, key) at k_s[key * ld + dim].
          wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kt;
          wmma::load_matrix_sync(kt, k_s + t * 16 * G::kLdQ + kk * 16, G::kLdQ);
          wmma::mma_sync(acc[t], a, kt, acc[t]);
        }
      }
#pragma unroll
      for (int t = 0; t < G::kBc / 16; ++t)
        wmma::store_matrix_sync(s_s + row0 * G::kLdS + t * 16, acc[t], G::kLdS, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax of the warp's 16 rows; each lane holds keys lane and lane + 32 of the tile.
    for (int r = 0; r < 16; ++r) {
      const int row = row0 + r, qi = q0 + row;
      const int c0 = j0 + lane, c1 = j0 + lane + 32;
      const bool ok0 = c0 < n && (!causal || c0 <= qi), ok1 = c1 < n && (!causal || c1 <= qi);
      const float s0 = ok0 ? s_s[row * G::kLdS + lane] * scale : -INFINITY;
      const float s1 = ok1 ? s_s[row * G::kLdS + lane + 32] * scale : -INFINITY;
      float mx = fmaxf(s0, s1);
      for (int off = 16; off > 0; off /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float m_old = m_s[row];
      const float m_new = fmaxf(m_old, mx);
      const float base = m_new == -INFINITY ? 0.0f : m_new;  // a row with no visible key yet
      const float p0 = ok0 ? __expf(s0 - base) : 0.0f, p1 = ok1 ? __expf(s1 - base) : 0.0f;
      float sum = p0 + p1;
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      const float alpha = m_old == -INFINITY ? 0.0f : __expf(m_old - base);
      p_s[row * G::kLdP + lane] = __float2bfloat16(p0);
      p_s[row * G::kLdP + lane + 32] = __float2bfloat16(p1);
      __syncwarp();  // every lane has read m_s[row] before lane 0 replaces it
      if (lane == 0) {
        m_s[row] = m_new;
        l_s[row] = l_s[row] * alpha + sum;
        alpha_s[row] = alpha;
      }
    }
    __syncwarp();

    // O_w = diag(alpha) O_w + P_w V on tensor cores, the accumulator kept in shared memory.
    for (int r = 0; r < 16; ++r) {
      const float a = alpha_s[row0 + r];
      for (int c = lane; c < D; c += 32) o_s[(row0 + r) * G::kLdO + c] *= a;
    }
    __syncwarp();
#pragma unroll
    for (int dt = 0; dt < D / 16; ++dt) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, o_s + row0 * G::kLdO + dt * 16, G::kLdO, wmma::mem_row_major);
#pragma unroll
      for (int t = 0; t < G::kBc / 16; ++t) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> pa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vb;
        wmma::load_matrix_sync(pa, p_s + row0 * G::kLdP + t * 16, G::kLdP);
        wmma::load_matrix_sync(vb, v_s + t * 16 * G::kLdQ + dt * 16, G::kLdQ);
        wmma::mma_sync(acc, pa, vb, acc);
      }
      wmma::store_matrix_sync(o_s + row0 * G::kLdO + dt * 16, acc, G::kLdO, wmma::mem_row_major);
    }
    __syncthreads();  // K and V tiles are replaced next
  }

  for (int c = threadIdx.x; c < G::kBr * D; c += blockDim.x) {
    const int r = c / D, col = c % D, qi = q0 + r;
    if (qi >= n) continue;
    const float l = l_s[r];
    o[static_cast<std::size_t>(bh) * n * D + static_cast<std::size_t>(qi) * D + col] =
        __float2bfloat16(l > 0.0f ? o_s[r * G::kLdO + col] / l : 0.0f);
  }
}

// ---------------------------------------------------------------------------------------------
// Device discovery

const CudaDevice& device() {
  static const CudaDevice d = [] {
    CudaDevice x;
    x.built = true;
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      x.reason = std::string("no CUDA device (cudaGetDeviceCount: ") +
                 (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")";
      cudaGetLastError();
      return x;
    }
    cudaDeviceProp p{};
    if (const cudaError_t pe = cudaGetDeviceProperties(&p, 0); pe != cudaSuccess) {
      x.reason =
          std::string("no usable CUDA device (cudaGetDeviceProperties: ") + cudaGetErrorString(pe) + ")";
      return x;
    }
    x.name = p.name;
    x.cc_major = p.major;
    x.cc_minor = p.minor;
    x.sm_count = p.multiProcessorCount;
    x.memory_bytes = p.totalGlobalMem;
    x.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
    cudaRuntimeGetVersion(&x.runtime_version);
    cudaDriverGetVersion(&x.driver_version);
    // Whether this build holds code the device can run (sm_90 SASS, compute_90 PTX).
    cudaFuncAttributes attr{};
    if (const cudaError_t fe = cudaFuncGetAttributes(&attr, flash_forward<64>); fe != cudaSuccess) {
      x.reason = "CUDA device " + x.name + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) +
                 ") cannot run this build's kernels (" + cudaGetErrorString(fe) +
                 "); rebuild with CMAKE_CUDA_ARCHITECTURES for it";
      cudaGetLastError();
      return x;
    }
    x.present = true;
    return x;
  }();
  return d;
}

// ---------------------------------------------------------------------------------------------
// Backends

/// What both CUDA backends share: bf16 buffers, the memory check, events, the L2 flush.
class CudaBackend : public Backend {
 public:
  CudaBackend() = default;
  ~CudaBackend() override {
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }
  [[nodiscard]] DType dtype() const override { return DType::bf16; }
  [[nodiscard]] bool is_gpu() const override { return true; }

  [[nodiscard]] std::string unavailable(const Shape& s) const override {
    const CudaDevice& d = device();
    if (!d.present) return d.reason;
    if (std::string why = shape_problem(s); !why.empty()) return why;
    std::size_t free = 0, total = 0;
    if (const cudaError_t e = cudaMemGetInfo(&free, &total); e != cudaSuccess)
      return std::string("cudaMemGetInfo: ") + cudaGetErrorString(e);
    free += held_bytes();  // released before the next allocation
    const std::uint64_t need = sizeof(bf16) * (2 * q_elements(s) + 2 * kv_elements(s)) + extra_bytes(s);
    if (need > free / 100 * 95)
      return "needs " + std::to_string(need >> 20) + " MiB of GPU memory, " + std::to_string(free >> 20) +
             " MiB free";
    return "";
  }

  void prepare(const Shape& s, std::span<const float> q, std::span<const float> k,
               std::span<const float> v) override {
    // The caller has validated s (validate() lives in kvplan-bench, which loads this module).
    if (const std::string why = unavailable(s); !why.empty()) throw Error(name(), why);
    release();
    shape_ = s;
    q_ = upload_bf16(q);
    k_ = upload_bf16(k);
    v_ = upload_bf16(v);
    o_ = DeviceBuffer(sizeof(bf16) * q_elements(s));
    allocate(s);
    if (start_ == nullptr) {
      cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
      cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
    }
    if (flush_.bytes() == 0) flush_ = DeviceBuffer(std::max<std::uint64_t>(2 * device().l2_bytes, 1u << 20));
  }

  double run() override {
    cuda_check(cudaEventRecord(start_), "cudaEventRecord");
    launch();
    cuda_check(cudaGetLastError(), "kernel launch");
    cuda_check(cudaEventRecord(stop_), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(stop_), "kernel");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

  void flush() override {
    if (flush_.bytes() > 0)
      cuda_check(cudaMemsetAsync(flush_.as<void>(), ++flush_value_ & 0xff, flush_.bytes()), "L2 flush");
  }

  [[nodiscard]] std::vector<float> output() const override {
    std::vector<std::uint16_t> bits(o_.bytes() / sizeof(std::uint16_t));
    if (!bits.empty())
      cuda_check(cudaMemcpy(bits.data(), o_.as<void>(), o_.bytes(), cudaMemcpyDeviceToHost),
                 "cudaMemcpy to host");
    std::vector<float> out(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) out[i] = bf16_value(bits[i]);
    return out;
  }

 protected:
  [[nodiscard]] virtual std::string shape_problem(const Shape&) const { return ""; }
  [[nodiscard]] virtual std::size_t held_extra() const { return 0; }
  virtual void allocate(const Shape&) {}
  virtual void release_extra() {}
  virtual void launch() = 0;

  Shape shape_;
  DeviceBuffer q_, k_, v_, o_;

 private:
  [[nodiscard]] std::size_t held_bytes() const {
    return q_.bytes() + k_.bytes() + v_.bytes() + o_.bytes() + held_extra();
  }
  void release() {
    q_.reset();
    k_.reset();
    v_.reset();
    o_.reset();
    release_extra();
  }
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  DeviceBuffer flush_;
  int flush_value_ = 0;
};

class CudaNaive final : public CudaBackend {
 public:
  ~CudaNaive() override {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  [[nodiscard]] std::string name() const override { return "cuda-naive"; }
  [[nodiscard]] std::uint64_t extra_bytes(const Shape& s) const override {
    return (sizeof(float) + sizeof(bf16)) * s.batch * s.heads * s.n * s.n;  // S fp32 and P bf16
  }

 protected:
  [[nodiscard]] std::string shape_problem(const Shape& s) const override {
    if ((s.heads / s.kv_heads) * s.n > static_cast<std::uint64_t>(INT_MAX) || s.head_dim > INT_MAX)
      return "too large for cuBLAS's int dimensions";
    if (s.batch * s.heads * s.n > static_cast<std::uint64_t>(INT_MAX))
      return "too many rows for the softmax grid";
    return "";
  }
  [[nodiscard]] std::size_t held_extra() const override { return s_.bytes() + p_.bytes(); }
  void release_extra() override {
    s_.reset();
    p_.reset();
  }
  void allocate(const Shape& s) override {
    s_ = DeviceBuffer(sizeof(float) * s.batch * s.heads * s.n * s.n);
    p_ = DeviceBuffer(sizeof(bf16) * s.batch * s.heads * s.n * s.n);
    if (handle_ == nullptr) cublas_check(cublasCreate(&handle_), "cublasCreate");
  }
  void launch() override {
    const Shape& s = shape_;
    const int n = static_cast<int>(s.n), d = static_cast<int>(s.head_dim);
    const long long group = static_cast<long long>(s.heads / s.kv_heads);
    const int batches = static_cast<int>(s.batch * s.kv_heads);
    const int rows = static_cast<int>(group * n);  // the query heads sharing one KV head, stacked
    const float alpha = static_cast<float>(softmax_scale(s)), one = 1.0f, zero = 0.0f;
    // Row-major S_g (rows x n) = scale Q_g K_g^T is column-major S_g^T = K_g Q_g^T:
    // K_g stored column-major as (d x n) -> op T; Q_g stored column-major as (d x rows) -> op N.
    cublas_check(
        cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n, rows, d, &alpha, k_.as<bf16>(),
                                   CUDA_R_16BF, d, static_cast<long long>(n) * d, q_.as<bf16>(), CUDA_R_16BF,
                                   d, group * n * d, &zero, s_.as<float>(), CUDA_R_32F, n, group * n * n,
                                   batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "S = Q K^T");
    softmax_rows<<<static_cast<unsigned>(s.batch * s.heads * s.n), 256>>>(s_.as<float>(), p_.as<bf16>(), n,
                                                                          s.causal);
    // Row-major O_g (rows x d) = P_g V_g is column-major O_g^T = V_g^T P_g^T: both stored that way -> op N.
    cublas_check(
        cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, d, rows, n, &one, v_.as<bf16>(),
                                   CUDA_R_16BF, d, static_cast<long long>(n) * d, p_.as<bf16>(), CUDA_R_16BF,
                                   n, group * n * n, &zero, o_.as<bf16>(), CUDA_R_16BF, d, group * n * d,
                                   batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "O = P V");
  }

 private:
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer s_, p_;
};

class CudaTiled final : public CudaBackend {
 public:
  [[nodiscard]] std::string name() const override { return "cuda-tiled"; }
  [[nodiscard]] std::uint64_t padded_head_dim(std::uint64_t d) const override {
    return d <= 64 ? 64 : d <= 128 ? 128 : 0;
  }
  /// Tiles live in shared memory: no global memory beyond Q, K, V and O.
  [[nodiscard]] std::uint64_t extra_bytes(const Shape&) const override { return 0; }

 protected:
  [[nodiscard]] std::string shape_problem(const Shape& s) const override {
    if (s.head_dim != 64 && s.head_dim != 128) return "head_dim must be 64 or 128 (kernels exist for those)";
    if (s.batch * s.heads > 65535) return "batch x heads must be at most 65535 (grid y)";
    if (s.n > static_cast<std::uint64_t>(INT_MAX)) return "n too large";
    return "";
  }
  void launch() override {
    if (shape_.head_dim == 64)
      start<64>();
    else
      start<128>();
  }

 private:
  template <int D>
  void start() {
    using G = Geometry<D>;
    static const cudaError_t configured = cudaFuncSetAttribute(
        flash_forward<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(G::kSmemBytes));
    cuda_check(configured, "cudaFuncSetAttribute (shared memory)");
    const Shape& s = shape_;
    const dim3 grid(static_cast<unsigned>((s.n + G::kBr - 1) / G::kBr),
                    static_cast<unsigned>(s.batch * s.heads));
    flash_forward<D><<<grid, 32 * G::kWarps, G::kSmemBytes>>>(
        q_.as<bf16>(), k_.as<bf16>(), v_.as<bf16>(), o_.as<bf16>(), static_cast<int>(s.n),
        static_cast<int>(s.heads), static_cast<int>(s.kv_heads), static_cast<float>(softmax_scale(s)),
        s.causal);
  }
};

CudaDevice device_copy() { return device(); }

std::unique_ptr<Backend> make_naive() { return std::make_unique<CudaNaive>(); }
std::unique_ptr<Backend> make_tiled() { return std::make_unique<CudaTiled>(); }

std::vector<double> gemm_seconds(std::uint64_t size, int repeats) {
  if (!device().present) throw Error("cuda", device().reason);
  if (size == 0 || size > 65536) throw Error("--gemm-size", "must be in 1..65536");
  const int n = static_cast<int>(size);
  const std::size_t count = size * size;
  DeviceBuffer a(count * sizeof(bf16)), b(count * sizeof(bf16)), c(count * sizeof(bf16));
  fill_bf16<<<1024, 256>>>(a.as<bf16>(), count);
  fill_bf16<<<1024, 256>>>(b.as<bf16>(), count);
  cuda_check(cudaGetLastError(), "fill");
  cublasHandle_t handle = nullptr;
  cublas_check(cublasCreate(&handle), "cublasCreate");
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<double> t;
  try {
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
    const float one = 1.0f, zero = 0.0f;
    const auto gemm = [&] {
      cublas_check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.as<bf16>(), CUDA_R_16BF, n,
                                b.as<bf16>(), CUDA_R_16BF, n, &zero, c.as<bf16>(), CUDA_R_16BF, n,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "GEMM");
    };
    gemm();
    for (int r = 0; r < repeats; ++r) {
      cuda_check(cudaEventRecord(start), "cudaEventRecord");
      gemm();
      cuda_check(cudaEventRecord(stop), "cudaEventRecord");
      cuda_check(cudaEventSynchronize(stop), "GEMM");
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      t.push_back(ms * 1e-3);
    }
  } catch (...) {
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    cublasDestroy(handle);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cublasDestroy(handle);
  return t;
}

const CudaModuleApi kApi{kCudaModuleAbi, device_copy, make_naive, make_tiled, gemm_seconds};

}  // namespace
}  // namespace kvplan::bench

/// The module's one entry point (cuda_module.hpp), looked up by kvplan-bench with dlsym.
extern "C" __attribute__((visibility("default"))) const kvplan::bench::CudaModuleApi*
kvplan_bench_cuda_module() {
  return &kvplan::bench::kApi;
}
