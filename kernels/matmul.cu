// Batched matrix multiplication C[b] = op(A[b]) @ op(B[b]) (docs/architecture.md §4).
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
// (batch strides in elements; 0 broadcasts an operand), batch, trans_a, trans_b, vec, bias, act.
// bias (N elements of C's type, or null) and act (TFC_ACT_NONE / TFC_ACT_RELU) are the fused epilogue
// C = act(op(A) @ op(B) + bias) of _FusedMatMul (common.cuh's tfc_epilogue); null and 0 give the plain product.
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
                                        int trans_a, int trans_b, int vec, const tfc_epilogue<T> ep) {
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
    tfc_gemm_store_bias_act_n<MM_BN>(Cb, ldc, m0, n0, M, N, ep, acc);
    __syncthreads();  // the next batch's first stash must not overwrite tiles still being read
  }
}

extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f32(const float* A, const float* B, float* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec, const float* bias, int act) {
  mm_simt<float>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec,
                 tfc_epilogue<float>{bias, act});
}

// float16 inputs, float32 accumulation, on CUDA cores (any GPU, and the emulator).
extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f16_simt(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
                long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
                int vec, const __half* bias, int act) {
  mm_simt<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec,
                  tfc_epilogue<__half>{bias, act});
}


#if !defined(TFC_HAS_MMA_M16N8K16)

// No tensor-core mma.m16n8k16 here (sm_70/sm_75): matmul_f16 is the SIMT kernel with the same
// geometry and arguments.
extern "C" __global__ void __launch_bounds__(MM_THREADS)
matmul_f16(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec, const __half* bias, int act) {
  mm_simt<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec,
                  tfc_epilogue<__half>{bias, act});
}

#else  // sm_80+ (and the emulator): tensor cores through mma.sync (common.cuh's inline-PTX helpers)

// ---- multistage tensor-core GEMM (float16 -> m16n8k16, float32 as TF32 -> m16n8k8) -----------------
// common.cuh's tensor-core tile (tfc_tc_mainloop: block tile 128 x 128, 8 warps of 64 x 32, k-tiles of
// 32 halves / 16 floats, TFC_TC_STAGES-deep cp.async pipeline in TC_SMEM_BYTES of dynamic shared memory;
// the shared layouts and fragment loads are described there). op(A) rows run along k unless trans_a
// (A as stored K x M: a [k][m] tile), op(B)'s along n unless trans_b (B as stored N x K: an [n][k] tile).
//
// Edges: a chunk with fewer than its elements inside the matrix is zero-filled (cp.async src-size), rows
// or k past the end read nothing. Without `vec` (a row or base not 16-byte aligned) chunks are loaded
// element by element and stored to shared memory with ordinary stores, in the same pipeline slots.
#define TC_SMEM_BYTES TFC_TC_SMEM_BYTES  // dynamic shared memory of matmul_f16 / matmul_f32_tf32

// One function per (T, TA, TB), not inlined into the entry: each gets its own register allocation
// (inlined together, the four variants spill at the 128-register bound).
template <typename T, bool TA, bool TB>
__device__ __noinline__ void mm_tc(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M,
                                      int N, int K, long long lda, long long ldb, long long ldc, long long sa,
                                      long long sb, long long sc, int batch, bool vec,
                                      const tfc_epilogue<T> ep) {
  typedef tfc_tc_traits<T> tr;
  TFC_DYNAMIC_SHARED(T, smem);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
  const int ktiles = (K + tr::BK - 1) / tr::BK;
  // Pairs of C columns in one store when every (row, even column) address is aligned to two elements.
  const bool pairs = ((ldc | sc) & 1) == 0 && ((unsigned long long)C % (2 * sizeof(T))) == 0;
  for (int bz = blockIdx.z; bz < batch; bz += gridDim.z) {
    const T* Ab = A + bz * sa;
    const T* Bb = B + bz * sb;
    T* Cb = C + bz * sc;
    auto load_stage = [&](int kt_index, T* As, T* Bs) {
      const int kt = kt_index * tr::BK;
      tfc_tc_load_tile<T, !TA>(As, Ab, lda, m0, M, kt, K, tid, vec);
      tfc_tc_load_tile<T, TB>(Bs, Bb, ldb, n0, N, kt, K, tid, vec);
    };
    float acc[4][4][4];
    tfc_tc_mainloop<T, TA, TB>(ktiles, smem, load_stage, acc);
    tfc_tc_store_bias_act_rows(Cb, [ldc](int m) { return (long long)m * ldc; }, m0, n0, M, N, pairs, ep, acc);
    __syncthreads();  // the next batch's prologue must not overwrite stages still being read (mutant: mm-tc-batch-trailing)
  }
}

template <typename T>
__device__ __forceinline__ void mm_tc_dispatch(const T* A, const T* B, T* C, int M, int N, int K, long long lda,
                                               long long ldb, long long ldc, long long sa, long long sb,
                                               long long sc, int batch, int trans_a, int trans_b, int vec,
                                               const T* bias, int act) {
  const bool v = vec != 0;
  const tfc_epilogue<T> ep{bias, act};
  if (trans_a) {
    if (trans_b) mm_tc<T, true, true>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v, ep);
    else mm_tc<T, true, false>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v, ep);
  } else {
    if (trans_b) mm_tc<T, false, true>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v, ep);
    else mm_tc<T, false, false>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v, ep);
  }
}

// float16 on tensor cores (float32 accumulation). Dynamic shared memory: TC_SMEM_BYTES.
// `vec`: lda, ldb and the batch strides are multiples of 8 halves and A, B are 16-byte aligned.
// __launch_bounds__(256, 2): at most 128 registers, two blocks (16 warps) per SM.
extern "C" __global__ void __launch_bounds__(MM_THREADS, 2)
matmul_f16(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec, const __half* bias, int act) {
  mm_tc_dispatch<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec, bias, act);
}

// float32 as TF32 on tensor cores (inputs rounded with cvt.rna.tf32.f32, float32 accumulation): what
// tf.config.experimental.enable_tensor_float_32_execution(True) allows. Dynamic shared memory:
// TC_SMEM_BYTES. `vec`: lda, ldb and the batch strides are multiples of 4 floats, A and B 16-byte aligned.
extern "C" __global__ void __launch_bounds__(MM_THREADS, 2)
matmul_f32_tf32(const float* A, const float* B, float* C, int M, int N, int K, long long lda, long long ldb,
                long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
                int vec, const float* bias, int act) {
  mm_tc_dispatch<float>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec, bias, act);
}

#endif  // tensor-core path
