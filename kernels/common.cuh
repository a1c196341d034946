// common.cuh — helpers shared by every kernels/*.cu file.
//
// This header compiles in three settings, so kernels written against it run everywhere:
//   * NVRTC (__CUDACC_RTC__): cupy.RawModule and the NVRTC compile test. NO CUDA or system headers
//     are available there (the pip wheels ship none), so this file is self-contained: do not
//     #include <cuda_fp16.h>, <mma.h>, <stdint.h> in kernels. Use the __half defined below and the
//     inline-PTX tensor-core helpers (tfc_mma_*) instead of WMMA.
//   * nvcc (__CUDACC__ without RTC): uses the toolkit's cuda_fp16.h.
//   * the CPU emulator (TFC_EMULATOR): tfcore/backend/emulator/cuda_shim.h is force-included before
//     this file and provides the CUDA built-ins (threadIdx, __syncthreads, shuffles, atomics, __half,
//     float4, math intrinsics) and C++ versions of the tensor-core / async-copy instructions behind the
//     tfc_mma_*, tfc_ldmatrix_*, tfc_cp_async_* helpers below (so tensor-core kernels run there too).
//
// Kernel entry points: `extern "C" __global__ void family_f32(...)` (TFC_KERNEL below is the same
// thing), parameters are pointers and int / long long / float scalars.
#pragma once

#if defined(TFC_EMULATOR)
// Everything CUDA-side comes from cuda_shim.h (force-included by the emulator's g++ command).
#elif defined(__CUDACC_RTC__)
// ---- NVRTC: a minimal, header-free __half -------------------------------------------------------
#ifndef __CUDA_FP16_H__
struct __align__(2) __half {
  unsigned short __x;
};
struct __align__(4) __half2 {
  __half x, y;
};
__device__ __forceinline__ float __half2float(__half h) {
  float f;
  asm("{ cvt.f32.f16 %0, %1; }\n" : "=f"(f) : "h"(h.__x));
  return f;
}
__device__ __forceinline__ __half __float2half(float f) {
  __half h;
  asm("{ cvt.rn.f16.f32 %0, %1; }\n" : "=h"(h.__x) : "f"(f));
  return h;
}
__device__ __forceinline__ __half __float2half_rn(float f) { return __float2half(f); }
__device__ __forceinline__ float2 __half22float2(__half2 h) {
  return make_float2(__half2float(h.x), __half2float(h.y));
}
__device__ __forceinline__ __half2 __floats2half2_rn(float a, float b) {
  __half2 r;
  r.x = __float2half(a);
  r.y = __float2half(b);
  return r;
}
__device__ __forceinline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__device__ __forceinline__ __half __ushort_as_half(unsigned short u) {
  __half h;
  h.__x = u;
  return h;
}
#endif
#else
// ---- nvcc -----------------------------------------------------------------------------------------
#include <cuda_fp16.h>
#endif

// ---- declarations ---------------------------------------------------------------------------------
#define TFC_DEVICE_INLINE __device__ __forceinline__
#define TFC_KERNEL extern "C" __global__
#define TFC_RESTRICT __restrict__
#define TFC_WARP_SIZE 32
#define TFC_FULL_MASK 0xffffffffu

// TFC_DYNAMIC_SHARED(float, smem); declares `smem`, the block's dynamic shared memory (the
// `shared_mem` bytes given at launch), 16-byte aligned. Use it once per kernel, at function scope.
#if defined(TFC_EMULATOR)
#define TFC_DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(tfc_emu::dynamic_shared())
#else
#define TFC_DYNAMIC_SHARED(type, name)                       \
  extern __shared__ __align__(16) unsigned char tfc_dynamic_smem_[]; \
  type* name = reinterpret_cast<type*>(tfc_dynamic_smem_)
#endif

typedef long long tfc_index_t;

// ---- index helpers ---------------------------------------------------------------------------------
TFC_DEVICE_INLINE int tfc_ceil_div(int a, int b) { return (a + b - 1) / b; }
TFC_DEVICE_INLINE tfc_index_t tfc_ceil_div_ll(tfc_index_t a, tfc_index_t b) { return (a + b - 1) / b; }
// Linear index of this thread inside its block (x fastest).
TFC_DEVICE_INLINE int tfc_thread_linear() {
  return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
TFC_DEVICE_INLINE int tfc_block_threads() { return (int)(blockDim.x * blockDim.y * blockDim.z); }
TFC_DEVICE_INLINE int tfc_lane_id() { return tfc_thread_linear() & (TFC_WARP_SIZE - 1); }
TFC_DEVICE_INLINE int tfc_warp_id() { return tfc_thread_linear() / TFC_WARP_SIZE; }
// Global 1-D thread index and grid stride for grid-stride loops over x (64-bit safe).
TFC_DEVICE_INLINE tfc_index_t tfc_global_thread_id() {
  return (tfc_index_t)blockIdx.x * blockDim.x + threadIdx.x;
}
TFC_DEVICE_INLINE tfc_index_t tfc_grid_stride() { return (tfc_index_t)gridDim.x * blockDim.x; }

// ---- float constants without math.h ------------------------------------------------------------------
TFC_DEVICE_INLINE float tfc_pos_inf() { return __int_as_float(0x7f800000); }
TFC_DEVICE_INLINE float tfc_neg_inf() { return __int_as_float((int)0xff800000u); }

// ---- warp reductions (all 32 lanes of the warp must call; result in every lane) ------------------------
TFC_DEVICE_INLINE float tfc_warp_reduce_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(TFC_FULL_MASK, v, o);
  return v;
}
TFC_DEVICE_INLINE float tfc_warp_reduce_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(TFC_FULL_MASK, v, o));
  return v;
}
TFC_DEVICE_INLINE float tfc_warp_reduce_min(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fminf(v, __shfl_xor_sync(TFC_FULL_MASK, v, o));
  return v;
}

// ---- block reductions --------------------------------------------------------------------------------
// Every thread of the block must call (it contains __syncthreads); the block size must be a multiple
// of 32 (at most 1024). Returns the reduction in EVERY thread. Safe to call back to back.
#define TFC_BLOCK_REDUCE_BODY(WARP_OP, IDENTITY)                          \
  __shared__ float tfc_scratch_[32];                                      \
  const int tid_ = tfc_thread_linear();                                   \
  const int lane_ = tid_ & 31, warp_ = tid_ >> 5;                         \
  const int nwarps_ = (tfc_block_threads() + 31) >> 5;                    \
  v = WARP_OP(v);                                                         \
  if (lane_ == 0) tfc_scratch_[warp_] = v;                                \
  __syncthreads();                                                        \
  if (warp_ == 0) {                                                       \
    v = lane_ < nwarps_ ? tfc_scratch_[lane_] : (IDENTITY);               \
    v = WARP_OP(v);                                                       \
    if (lane_ == 0) tfc_scratch_[0] = v;                                  \
  }                                                                       \
  __syncthreads();                                                        \
  v = tfc_scratch_[0];                                                    \
  __syncthreads();                                                        \
  return v

TFC_DEVICE_INLINE float tfc_block_reduce_sum(float v) { TFC_BLOCK_REDUCE_BODY(tfc_warp_reduce_sum, 0.0f); }
TFC_DEVICE_INLINE float tfc_block_reduce_max(float v) { TFC_BLOCK_REDUCE_BODY(tfc_warp_reduce_max, tfc_neg_inf()); }
TFC_DEVICE_INLINE float tfc_block_reduce_min(float v) { TFC_BLOCK_REDUCE_BODY(tfc_warp_reduce_min, tfc_pos_inf()); }

// ---- __half load/store helpers (float compute, half storage) --------------------------------------
TFC_DEVICE_INLINE float tfc_to_float(float v) { return v; }
TFC_DEVICE_INLINE float tfc_to_float(__half v) { return __half2float(v); }
template <typename T> TFC_DEVICE_INLINE T tfc_from_float(float v);
template <> TFC_DEVICE_INLINE float tfc_from_float<float>(float v) { return v; }
template <> TFC_DEVICE_INLINE __half tfc_from_float<__half>(float v) { return __float2half(v); }
// *p = v converted to p's type. Prefer it to `*p = tfc_from_float<T>(v)` in kernels that also read
// through __restrict__ pointers: with this form NVRTC keeps those reads on the read-only (.nc) path.
TFC_DEVICE_INLINE void tfc_store(float* p, float v) { *p = v; }
TFC_DEVICE_INLINE void tfc_store(__half* p, float v) { *p = __float2half(v); }

TFC_DEVICE_INLINE int tfc_imin(int a, int b) { return a < b ? a : b; }
TFC_DEVICE_INLINE int tfc_imax(int a, int b) { return a > b ? a : b; }

// Four consecutive elements as floats with ONE aligned access: 16 bytes (float4) or 8 bytes (4 halves).
// p must be aligned to 4 elements. The bandwidth-bound kernels (reduce, softmax, allreduce) use these.
struct __align__(8) tfc_half4_t {
  __half a, b, c, d;
};
TFC_DEVICE_INLINE void tfc_vload4(const float* p, float v[4]) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}
TFC_DEVICE_INLINE void tfc_vload4(const __half* p, float v[4]) {
  const tfc_half4_t q = *reinterpret_cast<const tfc_half4_t*>(p);
  v[0] = __half2float(q.a); v[1] = __half2float(q.b); v[2] = __half2float(q.c); v[3] = __half2float(q.d);
}
TFC_DEVICE_INLINE void tfc_vstore4(float* p, const float v[4]) {
  *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
TFC_DEVICE_INLINE void tfc_vstore4(__half* p, const float v[4]) {
  tfc_half4_t q;
  q.a = __float2half(v[0]); q.b = __float2half(v[1]); q.c = __float2half(v[2]); q.d = __float2half(v[3]);
  *reinterpret_cast<tfc_half4_t*>(p) = q;
}

// Four consecutive elements p[0..3] of which the first n_valid exist (n_valid may be <= 0), as floats;
// the missing ones read as 0. float: one 16-byte load when `vec` (p is 16-byte aligned) and all 4 exist.
TFC_DEVICE_INLINE void tfc_load4(const float* p, int n_valid, bool vec, float v[4]) {
  if (vec && n_valid >= 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = i < n_valid ? p[i] : 0.0f;
  }
}
TFC_DEVICE_INLINE void tfc_load4(const __half* p, int n_valid, bool, float v[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = i < n_valid ? __half2float(p[i]) : 0.0f;
}

// ---- NHWC index helpers ------------------------------------------------------------------------------
// A flat row-major index over (N, H, W) split into its coordinates: the pixel of an NHWC tensor, or the
// row m = (n * OH + oh) * OW + ow of an implicit-GEMM output. For an element index over (N, H, W, C),
// take c = i % C and unravel i / C.
struct tfc_nhw_t {
  tfc_index_t n;
  int h, w;
};
TFC_DEVICE_INLINE tfc_nhw_t tfc_unravel_nhw(tfc_index_t i, int H, int W) {
  tfc_nhw_t p;
  p.w = (int)(i % W);
  const tfc_index_t r = i / W;
  p.h = (int)(r % H);
  p.n = r / H;
  return p;
}

// ---- SIMT GEMM block tile (matmul.cu, and conv2d.cu's implicit GEMM) --------------------------------
// A TFC_GEMM_BM x BN tile of C per block of TFC_GEMM_THREADS threads, k-tiles of TFC_GEMM_BK, for
// BN = TFC_GEMM_BN (128: 8x8 per thread) or TFC_GEMM_BN_NARROW (64: 8x4 per thread, for GEMMs
// whose N is at most 64, where the wide tile would multiply padding half the time).
// Thread (tx, ty) = (tid & 15, tid >> 4) owns an 8 x (BN / 16) register block: rows ty*4 + {0..3} and
// 64 + ty*4 + {0..3}, columns h*64 + tx*4 + {0..3} for h < BN / 64 of the tile. Shared tiles are
// k-major (a[k][m], b[k][n]) so both operands are read as float4; rows are padded by TFC_GEMM_PAD
// (conflict-free transposed stores, rows stay 16-byte aligned) and double-buffered.
#define TFC_GEMM_BM 128
#define TFC_GEMM_BN 128
#define TFC_GEMM_BN_NARROW 64
#define TFC_GEMM_BK 8
#define TFC_GEMM_THREADS 256
#define TFC_GEMM_PAD 4
typedef float tfc_gemm_a_row_t[TFC_GEMM_BM + TFC_GEMM_PAD];  // one k-row of a shared A tile
typedef float tfc_gemm_b_row_t[TFC_GEMM_BN + TFC_GEMM_PAD];  // one k-row of a shared B tile (BN = 128)
// One k-row of a shared B tile of width BN, and the columns each thread owns.
template <int BN> struct tfc_gemm_tile {
  static_assert(BN == 64 || BN == 128, "SIMT GEMM tiles are 128 x 128 or 128 x 64");
  typedef float b_row_t[BN + TFC_GEMM_PAD];
  static constexpr int TN = BN / 16;
};

// The pipelined main loop over `ntiles` k-tiles of a 128 x BN tile: zeroes acc, then acc += the
// tile's products. fetch(kt) loads the k-tile starting at kt from global memory into the caller's
// registers; stash(a, b) stores those registers into one shared buffer pair a[k][m], b[k][n]
// (tfc_gemm_a_row_t*, tfc_gemm_tile<BN>::b_row_t*). The next tile's global loads are in flight while
// this tile is multiplied out of the other buffer. fetch is called exactly once per k-tile, in
// order (kt = 0, BK, 2*BK, ...), so a gather may walk its indices incrementally.
// Every thread of the block must call (it contains __syncthreads).
template <int BN, typename Fetch, typename Stash>
TFC_DEVICE_INLINE void tfc_gemm_mainloop_n(int ntiles, Fetch&& fetch, Stash&& stash,
                                           float acc[8][tfc_gemm_tile<BN>::TN]) {
  constexpr int TN = tfc_gemm_tile<BN>::TN;
  __align__(16) __shared__ tfc_gemm_a_row_t As[2][TFC_GEMM_BK];
  __align__(16) __shared__ typename tfc_gemm_tile<BN>::b_row_t Bs[2][TFC_GEMM_BK];
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  int cur = 0;
  if (ntiles > 0) {
    fetch(0);
    stash(As[0], Bs[0]);
  }
  __syncthreads();
  for (int t = 0; t < ntiles; ++t) {
    const bool more = t + 1 < ntiles;
    if (more) fetch((t + 1) * TFC_GEMM_BK);
#pragma unroll
    for (int k = 0; k < TFC_GEMM_BK; ++k) {
      float a[8], b[TN];
      const float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][64 + ty * 4]);
      a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
      a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
#pragma unroll
      for (int h = 0; h < TN / 4; ++h) {
        const float4 bh = *reinterpret_cast<const float4*>(&Bs[cur][k][h * 64 + tx * 4]);
        b[h * 4 + 0] = bh.x; b[h * 4 + 1] = bh.y; b[h * 4 + 2] = bh.z; b[h * 4 + 3] = bh.w;
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) stash(As[cur ^ 1], Bs[cur ^ 1]);
    __syncthreads();  // (mutant: gemm-simt-double-buffer)
    cur ^= 1;
  }
}
// The 128 x 128 tile (matmul.cu).
template <typename Fetch, typename Stash>
TFC_DEVICE_INLINE void tfc_gemm_mainloop(int ntiles, Fetch&& fetch, Stash&& stash, float acc[8][8]) {
  tfc_gemm_mainloop_n<TFC_GEMM_BN>(ntiles, fetch, stash, acc);
}

// Epilogue: stores this thread's 8 x (BN / 16) block of acc at C[row(m) + n] for the rows m < M and
// columns n < N of the tile at (m0, n0); row(m) is the element offset of row m (m * ldc for a dense
// matrix). Idx is the row index type (int, or long long for M > 2^31).
template <int BN, typename T, typename Idx, typename RowOffset>
TFC_DEVICE_INLINE void tfc_gemm_store_rows(T* C, RowOffset&& row, Idx m0, int n0, Idx M, int N,
                                           const float acc[8][tfc_gemm_tile<BN>::TN]) {
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const Idx m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (m >= M) continue;
    T* cm = C + row(m);
#pragma unroll
    for (int h = 0; h < BN / 64; ++h) {
      const int n = n0 + h * 64 + tx * 4;
      T* p = cm + n;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (n + j < N) tfc_store(p + j, acc[i][h * 4 + j]);
    }
  }
}
// The same at C[m * ldc + n].
template <int BN, typename T, typename Idx>
TFC_DEVICE_INLINE void tfc_gemm_store_n(T* C, long long ldc, Idx m0, int n0, Idx M, int N,
                                        const float acc[8][tfc_gemm_tile<BN>::TN]) {
  tfc_gemm_store_rows<BN>(C, [ldc](Idx m) { return (long long)m * ldc; }, m0, n0, M, N, acc);
}
template <typename T, typename Idx>
TFC_DEVICE_INLINE void tfc_gemm_store(T* C, long long ldc, Idx m0, int n0, Idx M, int N, const float acc[8][8]) {
  tfc_gemm_store_n<TFC_GEMM_BN>(C, ldc, m0, n0, M, N, acc);
}

// ---- fused bias + activation epilogue (matmul.cu, conv2d.cu forward) ----------------------------------
// y = act(acc + bias[n]) applied to the float32 accumulators before the single store: a GEMM + BiasAdd
// (+ Relu) is one kernel and one write of C instead of a write, then a read and a write per extra pass
// (one rounding to C's type, as the CPU ops' float32 math). bias: N elements of
// C's type, or null (no bias); act: TFC_ACT_NONE or TFC_ACT_RELU (bias_add.cu's numbering; the GEMM
// epilogues implement only these two: _FusedMatMul / _FusedConv2D fuse BiasAdd and optionally Relu).
// ReLU is v < 0 ? 0 : v, which keeps NaN (as NumPy's / CuPy's maximum(v, 0), the CPU ops' ReLU). With a
// null bias and TFC_ACT_NONE the accumulators are untouched (the plain product, bit for bit).
#define TFC_ACT_NONE 0
#define TFC_ACT_RELU 1
template <typename T> struct tfc_epilogue {
  const T* bias;  // null: no bias
  int act;        // TFC_ACT_*
};
TFC_DEVICE_INLINE float tfc_relu(float v) { return v < 0.0f ? 0.0f : v; }
// Column n's bias as float (n < N and bias non-null).
template <typename T> TFC_DEVICE_INLINE float tfc_bias_at(const T* bias, int n) { return tfc_to_float(bias[n]); }

// tfc_gemm_store_n (the SIMT tiles) with the epilogue: C[m * ldc + n] = act(acc + bias[n]). The bias is read
// next to each store (L1 hits after the first row) rather than once per column ahead of the stores: that
// variant (the bias values and their addresses live across the stores) costs conv2d.cu's 128 x 64 tile
// 36 bytes of spills at its 80-register bound on sm_90.
template <int BN, typename T, typename Idx>
TFC_DEVICE_INLINE void tfc_gemm_store_bias_act_n(T* C, long long ldc, Idx m0, int n0, Idx M, int N,
                                                 const tfc_epilogue<T> ep, const float acc[8][tfc_gemm_tile<BN>::TN]) {
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  const bool relu = ep.act == TFC_ACT_RELU;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const Idx m = m0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
    if (m >= M) continue;
    T* cm = C + (long long)m * ldc;
#pragma unroll
    for (int h = 0; h < BN / 64; ++h) {
      const int n = n0 + h * 64 + tx * 4;
      T* p = cm + n;
#pragma unroll
      for (int j = 0; j < 4; ++j)
        if (n + j < N) {
          float v = acc[i][h * 4 + j];
          if (ep.bias != nullptr) v += tfc_bias_at(ep.bias, n + j);
          tfc_store(p + j, relu ? tfc_relu(v) : v);
        }
    }
  }
}

// ---- tensor cores and async copies (sm_80+: inline PTX, no <mma.h>; the emulator: cuda_shim.h) ------
// Same signatures under NVRTC, nvcc and the emulator; TFC_HAS_MMA_M16N8K16 (and _TF32, TFC_HAS_LDMATRIX,
// TFC_HAS_CP_ASYNC) say they exist. Fragment layouts are the PTX ISA's (g = lane / 4, t = lane % 4):
//   mma m16n8k16 f16: a[0] = A[g][2t,2t+1], a[1] = A[g+8][2t,2t+1], a[2] = A[g][2t+8,2t+9],
//     a[3] = A[g+8][2t+8,2t+9] (two halves per word, low half = lower column); b[0] = B[2t,2t+1][g],
//     b[1] = B[2t+8,2t+9][g]; c/d[0,1] = C[g][2t,2t+1], c/d[2,3] = C[g+8][2t,2t+1] (float32).
//   mma m16n8k8 tf32: a[0] = A[g][t], a[1] = A[g+8][t], a[2] = A[g][t+4], a[3] = A[g+8][t+4];
//     b[0] = B[t][g], b[1] = B[t+4][g] (float bits rounded with tfc_to_tf32); c/d as above.
//   ldmatrix .xN: lanes 8i..8i+7 pass the row addresses (16-byte aligned shared memory) of 8x8 b16
//     matrix i; lane l gets r[i] = M_i[l/4][2(l%4), 2(l%4)+1], or with .trans M_i[2(l%4), 2(l%4)+1][l/4].
//   cp.async: `bytes` (4, 8, 16) from global to shared, both aligned to `bytes`; the first src_bytes are
//     copied and the rest zero-filled (src_bytes = 0: src is not read). commit() closes a group;
//     wait<N>() waits until at most N groups are pending; wait_all() for all. The data is visible to
//     other threads of the block only after their wait and a __syncthreads().
// All mma/ldmatrix helpers are warp-collective: all 32 lanes must call them together.
#if defined(TFC_EMULATOR)
TFC_DEVICE_INLINE void tfc_mma_m16n8k16_f16f32(float d[4], const unsigned a[4], const unsigned b[2],
                                               const float c[4]) {
  tfc_emu::mma_sync(0, d, a, b, c);
}
TFC_DEVICE_INLINE void tfc_mma_m16n8k8_tf32f32(float d[4], const unsigned a[4], const unsigned b[2],
                                               const float c[4]) {
  tfc_emu::mma_sync(1, d, a, b, c);
}
TFC_DEVICE_INLINE unsigned tfc_to_tf32(float f) { return tfc_emu::cvt_rna_tf32(f); }
TFC_DEVICE_INLINE void tfc_ldmatrix_x4(unsigned r[4], const void* smem_ptr) { tfc_emu::ldmatrix(4, false, r, smem_ptr); }
TFC_DEVICE_INLINE void tfc_ldmatrix_x2(unsigned r[2], const void* smem_ptr) { tfc_emu::ldmatrix(2, false, r, smem_ptr); }
TFC_DEVICE_INLINE void tfc_ldmatrix_x4_trans(unsigned r[4], const void* smem_ptr) {
  tfc_emu::ldmatrix(4, true, r, smem_ptr);
}
TFC_DEVICE_INLINE void tfc_ldmatrix_x2_trans(unsigned r[2], const void* smem_ptr) {
  tfc_emu::ldmatrix(2, true, r, smem_ptr);
}
TFC_DEVICE_INLINE void tfc_cp_async_cg16(void* smem, const void* gmem, int src_bytes) {
  tfc_emu::cp_async(smem, gmem, 16, src_bytes);
}
TFC_DEVICE_INLINE void tfc_cp_async_ca16(void* smem, const void* gmem, int src_bytes) {
  tfc_emu::cp_async(smem, gmem, 16, src_bytes);
}
TFC_DEVICE_INLINE void tfc_cp_async_ca8(void* smem, const void* gmem, int src_bytes) {
  tfc_emu::cp_async(smem, gmem, 8, src_bytes);
}
TFC_DEVICE_INLINE void tfc_cp_async_ca4(void* smem, const void* gmem, int src_bytes) {
  tfc_emu::cp_async(smem, gmem, 4, src_bytes);
}
TFC_DEVICE_INLINE void tfc_cp_async_commit() { tfc_emu::cp_async_commit(); }
template <int N>
TFC_DEVICE_INLINE void tfc_cp_async_wait() {
  tfc_emu::cp_async_wait_group(N);
}
TFC_DEVICE_INLINE void tfc_cp_async_wait_all() { tfc_emu::cp_async_wait_all(); }
#define TFC_HAS_MMA_M16N8K16 1
#define TFC_HAS_MMA_TF32 1
#define TFC_HAS_LDMATRIX 1
#define TFC_HAS_CP_ASYNC 1
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
TFC_DEVICE_INLINE void tfc_mma_m16n8k16_f16f32(float d[4], const unsigned a[4], const unsigned b[2],
                                               const float c[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}
TFC_DEVICE_INLINE void tfc_mma_m16n8k8_tf32f32(float d[4], const unsigned a[4], const unsigned b[2],
                                               const float c[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}
TFC_DEVICE_INLINE unsigned tfc_to_tf32(float f) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(f));
  return r;
}
TFC_DEVICE_INLINE unsigned tfc_smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
TFC_DEVICE_INLINE void tfc_ldmatrix_x4(unsigned r[4], const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(tfc_smem_addr(smem_ptr)));
}
TFC_DEVICE_INLINE void tfc_ldmatrix_x2(unsigned r[2], const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(tfc_smem_addr(smem_ptr)));
}
TFC_DEVICE_INLINE void tfc_ldmatrix_x4_trans(unsigned r[4], const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(tfc_smem_addr(smem_ptr)));
}
TFC_DEVICE_INLINE void tfc_ldmatrix_x2_trans(unsigned r[2], const void* smem_ptr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(tfc_smem_addr(smem_ptr)));
}
TFC_DEVICE_INLINE void tfc_cp_async_cg16(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(tfc_smem_addr(smem)), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}
TFC_DEVICE_INLINE void tfc_cp_async_ca16(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(tfc_smem_addr(smem)), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}
TFC_DEVICE_INLINE void tfc_cp_async_ca8(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(tfc_smem_addr(smem)), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}
TFC_DEVICE_INLINE void tfc_cp_async_ca4(void* smem, const void* gmem, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(tfc_smem_addr(smem)), "l"(gmem),
               "r"(src_bytes)
               : "memory");
}
TFC_DEVICE_INLINE void tfc_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
TFC_DEVICE_INLINE void tfc_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
TFC_DEVICE_INLINE void tfc_cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
#define TFC_HAS_MMA_M16N8K16 1
#define TFC_HAS_MMA_TF32 1
#define TFC_HAS_LDMATRIX 1
#define TFC_HAS_CP_ASYNC 1
#endif
#if !defined(TFC_EMULATOR) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
// sm_70 tensor cores: mma.m8n8k4 (f16 inputs, f32 accumulate); see the PTX ISA for fragment layout.
TFC_DEVICE_INLINE void tfc_mma_m8n8k4_f16f32(float d[8], const unsigned a[2], const unsigned b[2],
                                             const float c[8]) {
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, "
      "{%12,%13,%14,%15,%16,%17,%18,%19};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "f"(c[4]),
        "f"(c[5]), "f"(c[6]), "f"(c[7]));
}
#define TFC_HAS_MMA_M8N8K4 1
#endif

// ---- multistage tensor-core GEMM block tile (matmul.cu's matmul_f16 / matmul_f32_tf32, conv2d.cu's *_tc_*) --
// Block tile 128 x 128 (TFC_GEMM_BM x TFC_GEMM_BN), 256 threads = 8 warps as 2 (m) x 4 (n), each warp a 64 x 32
// tile of C (4 x 4 mma tiles of 16 x 8, 64 float accumulators per thread). k-tiles of TFC_TC_BK_F16 = 32
// halves or TFC_TC_BK_F32 = 16 floats: 64 bytes of k either way, so both element types use one shared-memory
// geometry. TFC_TC_STAGES k-tiles live in dynamic shared memory (TFC_TC_SMEM_BYTES); while the warps multiply
// stage s, cp.async fills the stages of the next TFC_TC_STAGES - 1 k-tiles (commit/wait_group pipeline).
//
// Shared layouts (16-byte chunks; padded rows, no bank conflicts on the cp.async writes nor on the
// fragment reads): an operand tile whose global rows run along k (A as [m][k], B as [n][k]) is kept as
// [mn][k] with TFC_TC_ROW_KC_* elements per row (64 bytes + 16 of padding: 8 consecutive rows hit 8
// distinct 16-byte bank groups); one whose rows run along m or n (A as [k][m], B as [k][n]) as [k][mn]
// with TFC_TC_ROW_MN elements per row (128 + 8). A k-tile of one operand is 512 chunks, 2 per thread;
// thread tid's chunks (tfc_tc_load_tile's map, which the conv2d.cu gathers follow) are, in [mn][k] form,
// rows tfc_tc_kc_row(tid) and that + 64 at k column tfc_tc_kc_col<T>(tid); in [k][mn] form, k rows
// tfc_tc_mn_row<T>(tid) and that + TFC_TC_MN_ROW_STEP<T>, at mn column tfc_tc_mn_col<T>(tid).
//
// float16 fragments come from ldmatrix: x4 on [m][k] A, x4.trans on [k][m] A, x4.trans on [k][n] B,
// x4 on [n][k] B (two n8 tiles per instruction). Per k step a warp holds its 4 B fragments and one A
// fragment at a time (76 live fragment + accumulator registers). float32 (TF32) fragments are read as
// words (the padded strides make the 32 lanes' words distinct banks) and rounded with cvt.rna.tf32.f32.
#define TFC_TC_BK_F16 32
#define TFC_TC_BK_F32 16
#define TFC_TC_STAGES 4
#define TFC_TC_ROW_KC_F16 40   // halves per [mn][k] row: 32 + 8
#define TFC_TC_ROW_KC_F32 20   // floats per [mn][k] row: 16 + 4
#define TFC_TC_ROW_MN 136      // elements per [k][mn] row: 128 + 8 (f16: 272 bytes, f32: 544 bytes)
#define TFC_TC_TILE_BYTES 10240  // one operand's k-tile: max(128 rows x 80 bytes, k rows x TFC_TC_ROW_MN elements)
#define TFC_TC_SMEM_BYTES 81920  // TFC_TC_STAGES x (A + B) tiles: the dynamic shared memory of a tensor-core GEMM

#if defined(TFC_HAS_MMA_M16N8K16)
static_assert(TFC_TC_SMEM_BYTES == TFC_TC_STAGES * 2 * TFC_TC_TILE_BYTES, "TFC_TC_SMEM_BYTES");
static_assert(128 * TFC_TC_ROW_KC_F16 * 2 <= TFC_TC_TILE_BYTES && TFC_TC_BK_F16 * TFC_TC_ROW_MN * 2 <= TFC_TC_TILE_BYTES,
              "f16 tile");
static_assert(128 * TFC_TC_ROW_KC_F32 * 4 <= TFC_TC_TILE_BYTES && TFC_TC_BK_F32 * TFC_TC_ROW_MN * 4 <= TFC_TC_TILE_BYTES,
              "f32 tile");

template <typename T> struct tfc_tc_traits;
template <> struct tfc_tc_traits<__half> {
  enum { BK = TFC_TC_BK_F16, ROW_KC = TFC_TC_ROW_KC_F16, E = 8 };  // E: elements per 16-byte chunk
};
template <> struct tfc_tc_traits<float> {
  enum { BK = TFC_TC_BK_F32, ROW_KC = TFC_TC_ROW_KC_F32, E = 4 };
};
// Thread tid's chunk slots (see above).
TFC_DEVICE_INLINE int tfc_tc_kc_row(int tid) { return ((tid >> 5) << 3) + (tid & 7); }
template <typename T> TFC_DEVICE_INLINE int tfc_tc_kc_col(int tid) { return ((tid >> 3) & 3) * tfc_tc_traits<T>::E; }
template <typename T> TFC_DEVICE_INLINE int tfc_tc_mn_row(int tid) { return tid / (TFC_GEMM_BM / tfc_tc_traits<T>::E); }
template <typename T> TFC_DEVICE_INLINE int tfc_tc_mn_col(int tid) {
  return (tid % (TFC_GEMM_BM / tfc_tc_traits<T>::E)) * tfc_tc_traits<T>::E;
}
template <typename T> struct tfc_tc_mn_row_step {
  enum { value = TFC_GEMM_THREADS / (TFC_GEMM_BM / tfc_tc_traits<T>::E) };  // 16 (f16) or 8 (f32) k rows
};

TFC_DEVICE_INLINE __half tfc_tc_zero(__half) { return __ushort_as_half((unsigned short)0); }
TFC_DEVICE_INLINE float tfc_tc_zero(float) { return 0.0f; }
// One 16-byte chunk from registers (the synchronous path: gathers that are not 16-byte runs).
TFC_DEVICE_INLINE void tfc_tc_store_chunk(__half* dst, const __half v[8]) {
  unsigned w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
    w[i] = (unsigned)__half_as_ushort(v[2 * i]) | ((unsigned)__half_as_ushort(v[2 * i + 1]) << 16);
  *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}
TFC_DEVICE_INLINE void tfc_tc_store_chunk(float* dst, const float v[4]) {
  *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
}
// One 16-byte chunk of n_valid (<= 0 .. E) elements at src, element by element (any alignment).
template <typename T>
TFC_DEVICE_INLINE void tfc_tc_store_chunk_sync(T* dst, const T* src, int n_valid) {
  T v[tfc_tc_traits<T>::E];
#pragma unroll
  for (int i = 0; i < tfc_tc_traits<T>::E; ++i) v[i] = i < n_valid ? src[i] : tfc_tc_zero(T());
  tfc_tc_store_chunk(dst, v);
}

// Issue the loads of one dense operand's k-tile (512 chunks, 2 per thread) into shared tile S.
// KC: S is [mn][k] (global rows along k); else [k][mn]. P: the operand's matrix, ld its row stride,
// o/extent: the tile's first mn index and the matrix extent along mn; kt: the tile's first k.
// vec: cp.async (rows and P 16-byte aligned), else element-wise loads and a shared store.
template <typename T, bool KC>
TFC_DEVICE_INLINE void tfc_tc_load_tile(T* S, const T* P, long long ld, int o, int extent, int kt, int K, int tid,
                                        bool vec) {
  typedef tfc_tc_traits<T> tr;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    int row, col, mn, k, n_valid;
    if (KC) {
      row = tfc_tc_kc_row(tid) + 64 * r;
      col = tfc_tc_kc_col<T>(tid);
      mn = o + row;
      k = kt + col;
      n_valid = mn < extent ? tfc_imin(K - k, (int)tr::E) : 0;
    } else {
      row = tfc_tc_mn_row<T>(tid) + tfc_tc_mn_row_step<T>::value * r;
      col = tfc_tc_mn_col<T>(tid);
      k = kt + row;
      mn = o + col;
      n_valid = k < K ? tfc_imin(extent - mn, (int)tr::E) : 0;
    }
    n_valid = tfc_imax(n_valid, 0);
    T* dst = S + row * (KC ? (int)tr::ROW_KC : TFC_TC_ROW_MN) + col;
    const T* src = KC ? P + (long long)mn * ld + k : P + (long long)k * ld + mn;
    if (vec)
      tfc_cp_async_cg16(dst, n_valid > 0 ? (const void*)src : (const void*)P, n_valid * (int)sizeof(T));
    else
      tfc_tc_store_chunk_sync(dst, src, n_valid);
  }
}

// float16 fragments of one 16-wide k step: fa for the warp's m16 tile at row mb, fb[j] for its 4 n8 tiles.
// TA: A is [k][m] in shared memory (else [m][k]); TB: B is [n][k] (else [k][n]).
template <bool TA>
TFC_DEVICE_INLINE void tfc_tc_fragment_a(const __half* As, int kk, int mb, int lane, unsigned fa[4]) {
  const int q = lane >> 3, r8 = lane & 7;
  if (!TA)
    tfc_ldmatrix_x4(fa, As + (mb + (lane & 15)) * TFC_TC_ROW_KC_F16 + kk + ((lane >> 4) << 3));
  else  // matrices (m0-7,k0-7), (m8-15,k0-7), (m0-7,k8-15), (m8-15,k8-15) of the [k][m] tile, transposed
    tfc_ldmatrix_x4_trans(fa, As + (kk + ((q >> 1) << 3) + r8) * TFC_TC_ROW_MN + mb + ((q & 1) << 3));
}
template <bool TB>
TFC_DEVICE_INLINE void tfc_tc_fragments_b(const __half* Bs, int kk, int wn, int lane, unsigned fb[4][2]) {
  const int q = lane >> 3, r8 = lane & 7;
#pragma unroll
  for (int jp = 0; jp < 2; ++jp) {
    const int nb = wn * 32 + jp * 16;
    unsigned r[4];
    if (!TB)  // [k][n]: matrices (k0-7,n0-7), (k8-15,n0-7), (k0-7,n8-15), (k8-15,n8-15), transposed
      tfc_ldmatrix_x4_trans(r, Bs + (kk + (lane & 15)) * TFC_TC_ROW_MN + nb + ((lane >> 4) << 3));
    else      // [n][k]: matrices (n0-7,k0-7), (n0-7,k8-15), (n8-15,k0-7), (n8-15,k8-15)
      tfc_ldmatrix_x4(r, Bs + (nb + ((q >> 1) << 3) + r8) * TFC_TC_ROW_KC_F16 + kk + ((q & 1) << 3));
    fb[2 * jp][0] = r[0];
    fb[2 * jp][1] = r[1];
    fb[2 * jp + 1][0] = r[2];
    fb[2 * jp + 1][1] = r[3];
  }
}
// TF32 fragments of one 8-wide k step (g = lane / 4, t = lane % 4): a = A[g|g+8][t|t+4], b = B[t|t+4][g].
template <bool TA>
TFC_DEVICE_INLINE void tfc_tc_fragment_a(const float* As, int kk, int mb, int lane, unsigned fa[4]) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int m = mb + g + ((e & 1) << 3), k = kk + t + ((e >> 1) << 2);
    fa[e] = tfc_to_tf32(TA ? As[k * TFC_TC_ROW_MN + m] : As[m * TFC_TC_ROW_KC_F32 + k]);
  }
}
template <bool TB>
TFC_DEVICE_INLINE void tfc_tc_fragments_b(const float* Bs, int kk, int wn, int lane, unsigned fb[4][2]) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int n = wn * 32 + j * 8 + g, k = kk + t + (e << 2);
      fb[j][e] = tfc_to_tf32(TB ? Bs[n * TFC_TC_ROW_KC_F32 + k] : Bs[k * TFC_TC_ROW_MN + n]);
    }
  }
}
TFC_DEVICE_INLINE void tfc_tc_mma(float d[4], const unsigned a[4], const unsigned b[2], __half) {
  tfc_mma_m16n8k16_f16f32(d, a, b, d);
}
TFC_DEVICE_INLINE void tfc_tc_mma(float d[4], const unsigned a[4], const unsigned b[2], float) {
  tfc_mma_m16n8k8_tf32f32(d, a, b, d);
}

// The pipelined main loop of one 128 x 128 tile over `ktiles` k-tiles: zeroes acc, then acc += the tile's
// products. load_stage(kt_index, As, Bs) issues the loads of k-tile kt_index (k from kt_index * BK) into the
// stage's shared tiles As, Bs (cp.async, or synchronous shared stores; the stage is free when it is
// called); it is called exactly once per k-tile, in order, so a gather may walk its indices
// incrementally. smem: TFC_TC_SMEM_BYTES of dynamic shared memory. TA: A is [k][m] in shared memory (else
// [m][k]); TB: B is [n][k] (else [k][n]). Returns with every copy landed; a caller that reuses smem
// must __syncthreads() first. Every thread of the block must call.
template <typename T, bool TA, bool TB, typename LoadStage>
TFC_DEVICE_INLINE void tfc_tc_mainloop(int ktiles, T* smem, LoadStage&& load_stage, float acc[4][4][4]) {
  typedef tfc_tc_traits<T> tr;
  const int tile_elems = TFC_TC_TILE_BYTES / (int)sizeof(T);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
#pragma unroll
  for (int s = 0; s < TFC_TC_STAGES - 1; ++s) {
    if (s < ktiles) load_stage(s, smem + s * 2 * tile_elems, smem + s * 2 * tile_elems + tile_elems);
    tfc_cp_async_commit();
  }
#pragma unroll 1
  for (int kt = 0; kt < ktiles; ++kt) {
    tfc_cp_async_wait<TFC_TC_STAGES - 2>();  // k-tile kt has landed (this thread's copies) ... (mutant: tc-wait-group)
    __syncthreads();  // ... everyone's; and stage (kt - 1) % TFC_TC_STAGES is free (mutant: tc-stage-barrier)
    if (kt + TFC_TC_STAGES - 1 < ktiles) {
      T* As = smem + ((kt + TFC_TC_STAGES - 1) % TFC_TC_STAGES) * 2 * tile_elems;
      load_stage(kt + TFC_TC_STAGES - 1, As, As + tile_elems);
    }
    tfc_cp_async_commit();  // possibly empty: keeps the group count in step with k-tiles (mutant: tc-commit-group)
    const T* As = smem + (kt % TFC_TC_STAGES) * 2 * tile_elems;
    const T* Bs = As + tile_elems;
#pragma unroll 1  // unrolled, ptxas hoists the next step's fragments and spills at 128 registers
    for (int kk = 0; kk < tr::BK; kk += 2 * tr::E) {  // 16 (f16) or 8 (f32) k per mma
      unsigned fb[4][2];
      tfc_tc_fragments_b<TB>(Bs, kk, wn, lane, fb);
#pragma unroll
      for (int i = 0; i < 4; ++i) {  // one A fragment at a time: 64 + 8 + 4 live fragment registers
        unsigned fa[4];
        tfc_tc_fragment_a<TA>(As, kk, wm * 64 + i * 16, lane, fa);
#pragma unroll
        for (int j = 0; j < 4; ++j) tfc_tc_mma(acc[i][j], fa, fb[j], T());
      }
    }
  }
  tfc_cp_async_wait_all();
}

TFC_DEVICE_INLINE void tfc_tc_store_pair(__half* p, float x, float y) {
  *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
}
TFC_DEVICE_INLINE void tfc_tc_store_pair(float* p, float x, float y) {
  *reinterpret_cast<float2*>(p) = make_float2(x, y);
}
// Epilogue of tfc_tc_mainloop: acc of the tile at (m0, n0) to C[row(m) + n] for rows m < M and columns
// n < N; row(m) is the element offset of row m. pairs: every C + row(m) + (even n) is aligned to two
// elements (two columns per store). Each lane holds rows g, g + 8 and columns 2t, 2t + 1 of its 16 x 8 tiles.
template <typename OutT, typename Idx, typename RowOffset>
TFC_DEVICE_INLINE void tfc_tc_store_rows(OutT* C, RowOffset&& row, Idx m0, int n0, Idx M, int N, bool pairs,
                                         const float acc[4][4][4]) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int wm = warp >> 2, wn = warp & 3, g = lane >> 2, t4 = lane & 3;
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const Idx m = m0 + wm * 64 + i * 16 + g + 8 * h;
      if (m >= M) continue;
      OutT* cm = C + row(m);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int n = n0 + wn * 32 + j * 8 + 2 * t4;
        if (n >= N) continue;
        OutT* p = cm + n;
        if (pairs && n + 1 < N) {
          tfc_tc_store_pair(p, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        } else {
          tfc_store(p, acc[i][j][2 * h]);
          if (n + 1 < N) tfc_store(p + 1, acc[i][j][2 * h + 1]);
        }
      }
    }
}
// The epilogue on the tensor-core tile's accumulators, in place before tfc_tc_store_rows (one bias load per
// owned column; columns >= N are never stored): lane (g, t4) of warp (wm, wn) holds columns
// n0 + wn * 32 + j * 8 + 2 * t4 + {0, 1} of its 16 x 8 tiles j (acc[i][j][2h + c]: column c, row g + 8h).
template <typename T>
TFC_DEVICE_INLINE void tfc_tc_bias_act(const tfc_epilogue<T> ep, int n0, int N, float acc[4][4][4]) {
  const int lane = threadIdx.x & 31, wn = (threadIdx.x >> 5) & 3, t4 = lane & 3;
  if (ep.bias != nullptr) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int n = n0 + wn * 32 + j * 8 + 2 * t4 + c;
        const float b = n < N ? tfc_bias_at(ep.bias, n) : 0.0f;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          acc[i][j][c] += b;
          acc[i][j][2 + c] += b;
        }
      }
  }
  if (ep.act == TFC_ACT_RELU) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = tfc_relu(acc[i][j][e]);
  }
}
// tfc_tc_store_rows with the epilogue: C[row(m) + n] = act(acc + bias[n]).
template <typename OutT, typename Idx, typename RowOffset>
TFC_DEVICE_INLINE void tfc_tc_store_bias_act_rows(OutT* C, RowOffset&& row, Idx m0, int n0, Idx M, int N, bool pairs,
                                                  const tfc_epilogue<OutT> ep, float acc[4][4][4]) {
  tfc_tc_bias_act(ep, n0, N, acc);
  tfc_tc_store_rows(C, row, m0, n0, M, N, pairs, acc);
}
#endif  // TFC_HAS_MMA_M16N8K16
