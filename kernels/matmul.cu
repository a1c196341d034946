// Batched matrix multiplication C[b] = op(A[b]) @ op(B[b]) (DESIGN.md §4).
//
// SIMT path (float32; float16 inputs with float32 accumulation): a 128x128 block tile,
// BK = 8, 256 threads, each thread owns an 8x8 register block of C. Global tiles are
// prefetched into registers while the previous tile is multiplied out of a double-
// buffered shared-memory tile. Loads are float4 when the Python side says the operand
// is 16-byte aligned (`vec`); edge tiles and unaligned operands take a scalar path.
//
// Tensor-core path (float16 on sm_80+ and on the emulator): inline-PTX mma.sync.m16n8k16
// with ldmatrix loads and float32 accumulators, same 128x128 block tile and 256 threads, so the
// launch geometry computed in Python (tfcore/ops/cuda_kernels/matmul.py) is shared by both paths.
// Without m16n8k16 (sm_70/sm_75) matmul_f16 is the SIMT kernel. The emulator runs the tensor-core
// kernel through cuda_shim.h's emulation of mma/ldmatrix (common.cuh's tfc_* helpers).
//
// Arguments (every entry): A, B, C, M, N, K, lda, ldb, ldc, stride_a, stride_b, stride_c
// (batch strides in elements; 0 broadcasts an operand), batch, trans_a, trans_b, vec.
// op(A) is M x K: A is stored M x K (lda >= K), or K x M when trans_a (lda >= M).
// op(B) is K x N: B is stored K x N (ldb >= N), or N x K when trans_b (ldb >= K).
// Grid: (ceil(N / MM_BN), ceil(M / MM_BM), min(batch, 65535)); block: MM_THREADS.
#include "common.cuh"

// The SIMT block tile is common.cuh's TFC_GEMM_*; the tensor-core path below keeps the same
// block tile and thread count.
#define MM_BM TFC_GEMM_BM
#define MM_BN TFC_GEMM_BN
#define MM_THREADS TFC_GEMM_THREADS

template <typename T>
__device__ __forceinline__ void mm_simt(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C,
                                        int M, int N, int K, long long lda, long long ldb, long long ldc,
                                        long long sa, long long sb, long long sc, int batch,
                                        int trans_a, int trans_b, int vec) {
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
  const bool v = vec != 0;
  // This thread's slot in the A and B tile loads (see the header for the layouts).
  const int a_row = trans_a ? (tid >> 5) : (tid >> 1);           // k (trans) or m
  const int a_col = trans_a ? ((tid & 31) << 2) : ((tid & 1) << 2);  // m (trans) or k
  const int b_row = trans_b ? (tid >> 1) : (tid >> 5);           // n (trans) or k
  const int b_col = trans_b ? ((tid & 1) << 2) : ((tid & 31) << 2);  // k (trans) or n
  const int ntiles = (K + TFC_GEMM_BK - 1) / TFC_GEMM_BK;

  for (int bz = blockIdx.z; bz < batch; bz += gridDim.z) {
    const T* Ab = A + bz * sa;
    const T* Bb = B + bz * sb;
    T* Cb = C + bz * sc;
    float acc[8][8];
    float ra[4], rb[4];
    // Global -> registers for the k-tile starting at kt.
    auto fetch = [&](int kt) {
      if (trans_a) {
        const int k = kt + a_row, m = m0 + a_col;
        tfc_load4(Ab + (long long)k * lda + m, k < K ? tfc_imin(M - m, 4) : 0, v, ra);
      } else {
        const int m = m0 + a_row, k = kt + a_col;
        tfc_load4(Ab + (long long)m * lda + k, m < M ? tfc_imin(K - k, 4) : 0, v, ra);
      }
      if (trans_b) {
        const int n = n0 + b_row, k = kt + b_col;
        tfc_load4(Bb + (long long)n * ldb + k, n < N ? tfc_imin(K - k, 4) : 0, v, rb);
      } else {
        const int k = kt + b_row, n = n0 + b_col;
        tfc_load4(Bb + (long long)k * ldb + n, k < K ? tfc_imin(N - n, 4) : 0, v, rb);
      }
    };
    // Registers -> shared (A stored k-major so a column of op(A) is contiguous).
    auto stash = [&](tfc_gemm_a_row_t* As, tfc_gemm_b_row_t* Bs) {
      if (trans_a) {
#pragma unroll
        for (int i = 0; i < 4; ++i) As[a_row][a_col + i] = ra[i];
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) As[a_col + i][a_row] = ra[i];
      }
      if (trans_b) {
#pragma unroll
        for (int i = 0; i < 4; ++i) Bs[b_col + i][b_row] = rb[i];
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) Bs[b_row][b_col + i] = rb[i];
      }
    };
    tfc_gemm_mainloop(ntiles, fetch, stash, acc);
    tfc_gemm_store(Cb, ldc, m0, n0, M, N, acc);
    __syncthreads();  // the next batch's first stash must not overwrite tiles still being read
  }
}

extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f32(const float* A, const float* B, float* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec) {
  mm_simt<float>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec);
}

// float16 inputs, float32 accumulation, on CUDA cores (any GPU, and the emulator).
extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f16_simt(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
                long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
                int vec) {
  mm_simt<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec);
}


#if !defined(TFC_HAS_MMA_M16N8K16)

// No tensor-core mma.m16n8k16 here (sm_70/sm_75): matmul_f16 is the SIMT kernel with the same
// geometry and arguments.
extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f16(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec) {
  mm_simt<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec);
}

#else  // sm_80+: tensor cores through mma.sync.m16n8k16 (common.cuh's inline-PTX helpers)

#define TC_BK 32
#define TC_APAD 8  // halves: rows stay 16-byte aligned for ldmatrix and hit distinct banks
#define TC_BPAD 8

// Eight consecutive halves p[0..7] (n_valid of them exist) packed into 4 words; one 16-byte load when `vec`.
__device__ __forceinline__ uint4 tc_load8(const __half* p, int n_valid, bool vec) {
  if (vec && n_valid >= 8) return *reinterpret_cast<const uint4*>(p);
  unsigned w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const unsigned lo = 2 * i < n_valid ? __half_as_ushort(p[2 * i]) : 0u;
    const unsigned hi = 2 * i + 1 < n_valid ? __half_as_ushort(p[2 * i + 1]) : 0u;
    w[i] = lo | (hi << 16);
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

// `vec` means 16-byte alignment of every 8-half chunk (lda, ldb, batch strides % 8 == 0, aligned bases).
// 8 warps as 2 (m) x 4 (n), each warp a 64 x 32 tile of C = 4 x 4 mma tiles of 16 x 8.
extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f16(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec) {
  __align__(16) __shared__ __half As[MM_BM][TC_BK + TC_APAD];
  __align__(16) __shared__ __half Bs[TC_BK][MM_BN + TC_BPAD];
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int wm = warp >> 2, wn = warp & 3;
  const int g = lane >> 2, t4 = lane & 3;
  const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
  const bool v = vec != 0;
  for (int bz = blockIdx.z; bz < batch; bz += gridDim.z) {
    const __half* Ab = A + bz * sa;
    const __half* Bb = B + bz * sb;
    __half* Cb = C + bz * sc;
    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
    uint4 ra[2], rb[2];
    // 128 x 32 tile of op(A) and 32 x 128 tile of op(B): 512 chunks of 8 halves each, 2 per thread.
    auto fetch = [&](int kt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int c = tid + r * MM_THREADS;
        if (trans_a) {
          const int k = c >> 4, mc = (c & 15) << 3;
          ra[r] = tc_load8(Ab + (long long)(kt + k) * lda + m0 + mc, kt + k < K ? tfc_imin(M - m0 - mc, 8) : 0, v);
        } else {
          const int m = c >> 2, kc = (c & 3) << 3;
          ra[r] = tc_load8(Ab + (long long)(m0 + m) * lda + kt + kc, m0 + m < M ? tfc_imin(K - kt - kc, 8) : 0, v);
        }
        if (trans_b) {
          const int n = c >> 2, kc = (c & 3) << 3;
          rb[r] = tc_load8(Bb + (long long)(n0 + n) * ldb + kt + kc, n0 + n < N ? tfc_imin(K - kt - kc, 8) : 0, v);
        } else {
          const int k = c >> 4, nc = (c & 15) << 3;
          rb[r] = tc_load8(Bb + (long long)(kt + k) * ldb + n0 + nc, kt + k < K ? tfc_imin(N - n0 - nc, 8) : 0, v);
        }
      }
    };
    auto stash = [&]() {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int c = tid + r * MM_THREADS;
        const unsigned w[4] = {ra[r].x, ra[r].y, ra[r].z, ra[r].w};
        if (trans_a) {
          const int k = c >> 4, mc = (c & 15) << 3;
#pragma unroll
          for (int i = 0; i < 8; ++i) As[mc + i][k] = __ushort_as_half((unsigned short)(w[i >> 1] >> (16 * (i & 1))));
        } else {
          const int m = c >> 2, kc = (c & 3) << 3;
          *reinterpret_cast<uint4*>(&As[m][kc]) = ra[r];
        }
        const unsigned u[4] = {rb[r].x, rb[r].y, rb[r].z, rb[r].w};
        if (trans_b) {
          const int n = c >> 2, kc = (c & 3) << 3;
#pragma unroll
          for (int i = 0; i < 8; ++i) Bs[kc + i][n] = __ushort_as_half((unsigned short)(u[i >> 1] >> (16 * (i & 1))));
        } else {
          const int k = c >> 4, nc = (c & 15) << 3;
          *reinterpret_cast<uint4*>(&Bs[k][nc]) = rb[r];
        }
      }
    };
    if (K > 0) fetch(0);
    for (int kt = 0; kt < K; kt += TC_BK) {
      stash();
      __syncthreads();
      if (kt + TC_BK < K) fetch(kt + TC_BK);  // next tile's global loads overlap this tile's math
#pragma unroll
      for (int kk = 0; kk < TC_BK; kk += 16) {
        unsigned fa[4][4], fb[4][2];
#pragma unroll
        for (int i = 0; i < 4; ++i)
          tfc_ldmatrix_x4(fa[i], &As[wm * 64 + i * 16 + (lane & 15)][kk + ((lane >> 4) << 3)]);
#pragma unroll
        for (int j = 0; j < 4; ++j) tfc_ldmatrix_x2_trans(fb[j], &Bs[kk + (lane & 15)][wn * 32 + j * 8]);
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) tfc_mma_m16n8k16_f16f32(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
      __syncthreads();
    }
    // Fragment layout of C (16 x 8): lane holds rows g and g + 8, columns 2 * t4 and 2 * t4 + 1.
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int m = m0 + wm * 64 + i * 16 + g + ((e >> 1) << 3);
          const int n = n0 + wn * 32 + j * 8 + 2 * t4 + (e & 1);
          if (m < M && n < N) Cb[(long long)m * ldc + n] = __float2half(acc[i][j][e]);
        }
  }
}

#endif  // tensor-core path
