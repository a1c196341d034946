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

#else  // sm_80+ (and the emulator): tensor cores through mma.sync (common.cuh's inline-PTX helpers)

// ---- multistage tensor-core GEMM (float16 -> m16n8k16, float32 as TF32 -> m16n8k8) -----------------
// Block tile 128 x 128 (MM_BM x MM_BN), 256 threads = 8 warps as 2 (m) x 4 (n), each warp a 64 x 32
// tile of C (4 x 4 mma tiles of 16 x 8, 64 float accumulators per thread). k-tiles of TC_BK_F16 = 32
// halves or TC_BK_F32 = 16 floats: 64 bytes of k either way, so both element types use one shared-memory
// geometry. TC_STAGES k-tiles live in dynamic shared memory (TC_SMEM_BYTES); while the warps multiply
// stage s, cp.async fills the stages of the next TC_STAGES - 1 k-tiles (commit/wait_group pipeline).
//
// Shared layouts (16-byte chunks; padded rows, no bank conflicts on the cp.async writes nor on the
// fragment reads): an operand tile whose global rows run along k (A as stored M x K, B as stored N x K)
// is kept as [mn][k] with TC_ROW_KC elements per row (64 bytes + 16 of padding: 8 consecutive rows
// hit 8 distinct 16-byte bank groups); one whose rows run along m or n (A stored K x M, B stored K x N)
// as [k][mn] with TC_ROW_MN elements per row (128 + 8). Loads of the [mn][k] form give each group of 8
// lanes 8 rows of one chunk column (conflict-free writes; the warp still reads 8 whole 64-byte row
// segments, as coalesced as the rows allow).
//
// float16 fragments come from ldmatrix: x4 on [m][k] A, x4.trans on [k][m] A, x4.trans on [k][n] B,
// x4 on [n][k] B (two n8 tiles per instruction). Per k step a warp holds its 4 B fragments and one A
// fragment at a time (76 live fragment + accumulator registers). float32 (TF32) fragments are read as words (the padded
// strides make the 32 lanes' words distinct banks) and rounded with cvt.rna.tf32.f32.
//
// Edges: a chunk with fewer than its elements inside the matrix is zero-filled (cp.async src-size), rows
// or k past the end read nothing. Without `vec` (a row or base not 16-byte aligned) chunks are loaded
// element by element and stored to shared memory with ordinary stores, in the same pipeline slots.
#define TC_BK_F16 32
#define TC_BK_F32 16
#define TC_STAGES 4
#define TC_ROW_KC_F16 40   // halves per [mn][k] row: 32 + 8
#define TC_ROW_KC_F32 20   // floats per [mn][k] row: 16 + 4
#define TC_ROW_MN 136      // elements per [k][mn] row: 128 + 8 (f16: 272 bytes, f32: 544 bytes)
#define TC_TILE_BYTES 10240  // one operand's k-tile: max(128 rows x 80 bytes, k rows x TC_ROW_MN elements)
#define TC_SMEM_BYTES 81920  // TC_STAGES x (A + B) tiles: dynamic shared memory of matmul_f16 / matmul_f32_tf32
static_assert(TC_SMEM_BYTES == TC_STAGES * 2 * TC_TILE_BYTES, "TC_SMEM_BYTES");
static_assert(128 * TC_ROW_KC_F16 * 2 <= TC_TILE_BYTES && TC_BK_F16 * TC_ROW_MN * 2 <= TC_TILE_BYTES, "f16 tile");
static_assert(128 * TC_ROW_KC_F32 * 4 <= TC_TILE_BYTES && TC_BK_F32 * TC_ROW_MN * 4 <= TC_TILE_BYTES, "f32 tile");

template <typename T> struct tc_traits;
template <> struct tc_traits<__half> {
  enum { BK = TC_BK_F16, ROW_KC = TC_ROW_KC_F16, E = 8 };  // E: elements per 16-byte chunk
};
template <> struct tc_traits<float> {
  enum { BK = TC_BK_F32, ROW_KC = TC_ROW_KC_F32, E = 4 };
};

// One 16-byte chunk of n_valid (<= 0 .. E) elements at src, element by element (any alignment).
__device__ __forceinline__ void tc_store_chunk_sync(__half* dst, const __half* src, int n_valid) {
  unsigned w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const unsigned lo = 2 * i < n_valid ? __half_as_ushort(src[2 * i]) : 0u;
    const unsigned hi = 2 * i + 1 < n_valid ? __half_as_ushort(src[2 * i + 1]) : 0u;
    w[i] = lo | (hi << 16);
  }
  *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}
__device__ __forceinline__ void tc_store_chunk_sync(float* dst, const float* src, int n_valid) {
  float v[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) v[i] = i < n_valid ? src[i] : 0.0f;
  *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
}

// Issue the loads of one operand's k-tile (512 chunks, 2 per thread) into shared tile S.
// KC: S is [mn][k] (global rows along k); else [k][mn]. P: the operand's matrix, ld its row stride,
// o/extent: the tile's first mn index and the matrix extent along mn; kt: the tile's first k.
template <typename T, bool KC>
__device__ __forceinline__ void tc_load_tile(T* S, const T* P, long long ld, int o, int extent, int kt, int K,
                                             int tid, bool vec) {
  typedef tc_traits<T> tr;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int ci = tid + r * MM_THREADS;
    int row, col, mn, k, n_valid;
    if (KC) {
      row = ((ci >> 5) << 3) + (ci & 7);
      col = ((ci >> 3) & 3) * tr::E;
      mn = o + row;
      k = kt + col;
      n_valid = mn < extent ? tfc_imin(K - k, (int)tr::E) : 0;
    } else {
      const int cpr = MM_BM / tr::E;  // chunks per [k][mn] row
      row = ci / cpr;
      col = (ci % cpr) * tr::E;
      k = kt + row;
      mn = o + col;
      n_valid = k < K ? tfc_imin(extent - mn, (int)tr::E) : 0;
    }
    n_valid = tfc_imax(n_valid, 0);
    T* dst = S + row * (KC ? (int)tr::ROW_KC : TC_ROW_MN) + col;
    const T* src = KC ? P + (long long)mn * ld + k : P + (long long)k * ld + mn;
    if (vec)
      tfc_cp_async_cg16(dst, n_valid > 0 ? (const void*)src : (const void*)P, n_valid * (int)sizeof(T));
    else
      tc_store_chunk_sync(dst, src, n_valid);
  }
}

// float16 fragments of one 16-wide k step: fa for the warp's m16 tile i, fb[j] for its 4 n8 tiles.
template <bool TA>
__device__ __forceinline__ void tc_fragment_a(const __half* As, int kk, int mb, int lane, unsigned fa[4]) {
  const int q = lane >> 3, r8 = lane & 7;
  if (!TA)
    tfc_ldmatrix_x4(fa, As + (mb + (lane & 15)) * TC_ROW_KC_F16 + kk + ((lane >> 4) << 3));
  else  // matrices (m0-7,k0-7), (m8-15,k0-7), (m0-7,k8-15), (m8-15,k8-15) of the [k][m] tile, transposed
    tfc_ldmatrix_x4_trans(fa, As + (kk + ((q >> 1) << 3) + r8) * TC_ROW_MN + mb + ((q & 1) << 3));
}
template <bool TB>
__device__ __forceinline__ void tc_fragments_b(const __half* Bs, int kk, int wn, int lane, unsigned fb[4][2]) {
  const int q = lane >> 3, r8 = lane & 7;
#pragma unroll
  for (int jp = 0; jp < 2; ++jp) {
    const int nb = wn * 32 + jp * 16;
    unsigned r[4];
    if (!TB)  // [k][n]: matrices (k0-7,n0-7), (k8-15,n0-7), (k0-7,n8-15), (k8-15,n8-15), transposed
      tfc_ldmatrix_x4_trans(r, Bs + (kk + (lane & 15)) * TC_ROW_MN + nb + ((lane >> 4) << 3));
    else      // [n][k]: matrices (n0-7,k0-7), (n0-7,k8-15), (n8-15,k0-7), (n8-15,k8-15)
      tfc_ldmatrix_x4(r, Bs + (nb + ((q >> 1) << 3) + r8) * TC_ROW_KC_F16 + kk + ((q & 1) << 3));
    fb[2 * jp][0] = r[0];
    fb[2 * jp][1] = r[1];
    fb[2 * jp + 1][0] = r[2];
    fb[2 * jp + 1][1] = r[3];
  }
}

// TF32 fragments of one 8-wide k step (g = lane / 4, t = lane % 4): a = A[g|g+8][t|t+4], b = B[t|t+4][g].
template <bool TA>
__device__ __forceinline__ void tc_fragment_a(const float* As, int kk, int mb, int lane, unsigned fa[4]) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int m = mb + g + ((e & 1) << 3), k = kk + t + ((e >> 1) << 2);
    fa[e] = tfc_to_tf32(TA ? As[k * TC_ROW_MN + m] : As[m * TC_ROW_KC_F32 + k]);
  }
}
template <bool TB>
__device__ __forceinline__ void tc_fragments_b(const float* Bs, int kk, int wn, int lane, unsigned fb[4][2]) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int n = wn * 32 + j * 8 + g, k = kk + t + (e << 2);
      fb[j][e] = tfc_to_tf32(TB ? Bs[n * TC_ROW_KC_F32 + k] : Bs[k * TC_ROW_MN + n]);
    }
  }
}

__device__ __forceinline__ void tc_mma(float d[4], const unsigned a[4], const unsigned b[2], __half) {
  tfc_mma_m16n8k16_f16f32(d, a, b, d);
}
__device__ __forceinline__ void tc_mma(float d[4], const unsigned a[4], const unsigned b[2], float) {
  tfc_mma_m16n8k8_tf32f32(d, a, b, d);
}

__device__ __forceinline__ void tc_store_pair(__half* p, float x, float y) {
  *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
}
__device__ __forceinline__ void tc_store_pair(float* p, float x, float y) {
  *reinterpret_cast<float2*>(p) = make_float2(x, y);
}

// One function per (T, TA, TB), not inlined into the entry: each gets its own register allocation
// (inlined together, the four variants spill at the 128-register bound).
template <typename T, bool TA, bool TB>
__device__ __noinline__ void mm_tc(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M,
                                      int N, int K, long long lda, long long ldb, long long ldc, long long sa,
                                      long long sb, long long sc, int batch, bool vec) {
  typedef tc_traits<T> tr;
  TFC_DYNAMIC_SHARED(T, smem);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int wm = warp >> 2, wn = warp & 3;
  const int g = lane >> 2, t4 = lane & 3;
  const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
  const int ktiles = (K + tr::BK - 1) / tr::BK;
  const int tile_elems = TC_TILE_BYTES / (int)sizeof(T);
  // Pairs of C columns in one store when every (row, even column) address is aligned to two elements.
  const bool pairs = ((ldc | sc) & 1) == 0 && ((unsigned long long)C % (2 * sizeof(T))) == 0;
  for (int bz = blockIdx.z; bz < batch; bz += gridDim.z) {
    const T* Ab = A + bz * sa;
    const T* Bb = B + bz * sb;
    T* Cb = C + bz * sc;
    auto load_stage = [&](int kt_index) {
      T* As = smem + (kt_index % TC_STAGES) * 2 * tile_elems;
      const int kt = kt_index * tr::BK;
      tc_load_tile<T, !TA>(As, Ab, lda, m0, M, kt, K, tid, vec);
      tc_load_tile<T, TB>(As + tile_elems, Bb, ldb, n0, N, kt, K, tid, vec);
    };
    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
#pragma unroll
    for (int s = 0; s < TC_STAGES - 1; ++s) {
      if (s < ktiles) load_stage(s);
      tfc_cp_async_commit();
    }
#pragma unroll 1
    for (int kt = 0; kt < ktiles; ++kt) {
      tfc_cp_async_wait<TC_STAGES - 2>();  // k-tile kt has landed (this thread's copies) ...
      __syncthreads();                       // ... everyone's; and stage (kt - 1) % TC_STAGES is free
      if (kt + TC_STAGES - 1 < ktiles) load_stage(kt + TC_STAGES - 1);
      tfc_cp_async_commit();  // possibly empty: keeps the group count in step with k-tiles
      const T* As = smem + (kt % TC_STAGES) * 2 * tile_elems;
      const T* Bs = As + tile_elems;
#pragma unroll 1  // unrolled, ptxas hoists the next step's fragments and spills at 128 registers
      for (int kk = 0; kk < tr::BK; kk += 2 * tr::E) {  // 16 (f16) or 8 (f32) k per mma
        unsigned fb[4][2];
        tc_fragments_b<TB>(Bs, kk, wn, lane, fb);
#pragma unroll
        for (int i = 0; i < 4; ++i) {  // one A fragment at a time: 64 + 8 + 4 live fragment registers
          unsigned fa[4];
          tc_fragment_a<TA>(As, kk, wm * 64 + i * 16, lane, fa);
#pragma unroll
          for (int j = 0; j < 4; ++j) tc_mma(acc[i][j], fa, fb[j], T());
        }
      }
    }
    // C fragment (16 x 8): this lane holds rows g and g + 8, columns 2 * t4 and 2 * t4 + 1.
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int m = m0 + wm * 64 + i * 16 + g + 8 * h;
          const int n = n0 + wn * 32 + j * 8 + 2 * t4;
          if (m >= M || n >= N) continue;
          T* p = Cb + (long long)m * ldc + n;
          if (pairs && n + 1 < N) {
            tc_store_pair(p, acc[i][j][2 * h], acc[i][j][2 * h + 1]);
          } else {
            tfc_store(p, acc[i][j][2 * h]);
            if (n + 1 < N) tfc_store(p + 1, acc[i][j][2 * h + 1]);
          }
        }
    tfc_cp_async_wait_all();
    __syncthreads();  // the next batch's prologue must not overwrite stages still being read
  }
}

template <typename T>
__device__ __forceinline__ void mm_tc_dispatch(const T* A, const T* B, T* C, int M, int N, int K, long long lda,
                                               long long ldb, long long ldc, long long sa, long long sb,
                                               long long sc, int batch, int trans_a, int trans_b, int vec) {
  const bool v = vec != 0;
  if (trans_a) {
    if (trans_b) mm_tc<T, true, true>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v);
    else mm_tc<T, true, false>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v);
  } else {
    if (trans_b) mm_tc<T, false, true>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v);
    else mm_tc<T, false, false>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, v);
  }
}

// float16 on tensor cores (float32 accumulation). Dynamic shared memory: TC_SMEM_BYTES.
// `vec`: lda, ldb and the batch strides are multiples of 8 halves and A, B are 16-byte aligned.
// __launch_bounds__(256, 2): at most 128 registers, two blocks (16 warps) per SM.
extern "C" __global__ void __launch_bounds__(MM_THREADS, 2)
matmul_f16(const __half* A, const __half* B, __half* C, int M, int N, int K, long long lda, long long ldb,
           long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
           int vec) {
  mm_tc_dispatch<__half>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec);
}

// float32 as TF32 on tensor cores (inputs rounded with cvt.rna.tf32.f32, float32 accumulation): what
// tf.config.experimental.enable_tensor_float_32_execution(True) allows. Dynamic shared memory:
// TC_SMEM_BYTES. `vec`: lda, ldb and the batch strides are multiples of 4 floats, A and B 16-byte aligned.
extern "C" __global__ void __launch_bounds__(MM_THREADS, 2)
matmul_f32_tf32(const float* A, const float* B, float* C, int M, int N, int K, long long lda, long long ldb,
                long long ldc, long long sa, long long sb, long long sc, int batch, int trans_a, int trans_b,
                int vec) {
  mm_tc_dispatch<float>(A, B, C, M, N, K, lda, ldb, ldc, sa, sb, sc, batch, trans_a, trans_b, vec);
}

#endif  // tensor-core path
