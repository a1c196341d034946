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
    __syncthreads();
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
TFC_DEVICE_INLINE void tfc_cp_async_commit() {}
template <int N>
TFC_DEVICE_INLINE void tfc_cp_async_wait() {}
TFC_DEVICE_INLINE void tfc_cp_async_wait_all() {}
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
