// Softmax / log-softmax along the last axis and fused sparse softmax cross-entropy (docs/architecture.md §4).
//
// Rows that fit are read ONCE and written once: each thread keeps its share of the row in
// registers (SM_CACHE_VECS slots of SM_VEC consecutive elements), then
//   m = max over the row (group reduction), e = exp(v - m) kept in the registers,
//   s = sum of e (group reduction), and writes e / s (softmax), v - m - log s (log-softmax), or
//   e / s - onehot(label) plus loss = log s - (x[label] - m) (sparse cross-entropy; the shifted logit
//   first: (log s + m) - x[label] loses ~ulp(m), 1e-3 at |logits| ~ 1e4, to cancellation).
// One exp per element; 4 bytes (f32) or 2 bytes (f16) read and written per element.
//
// * *_warp_*  : one warp per row, cols <= SM_WARP_COLS_MAX (32 lanes x SM_VEC x SM_CACHE_VECS);
//   SM_THREADS per block (SM_THREADS / 32 rows per block), grid min(ceil(rows / 8), 65535),
//   grid-stride over rows.
// * *_block_* : one block of SM_THREADS per row, cols <= SM_BLOCK_COLS_MAX
//   (SM_THREADS x SM_VEC x SM_CACHE_VECS); grid min(rows, 65535), grid-stride over rows.
// * *_long_*  : one block of SM_THREADS per row for longer rows (the fallback): a first read keeps
//   an online (max, sum) pair per thread, merged over the block,
//     m' = max(m, v),  s' = s * exp(m - m') + sum exp(v - m'),
//   a second read writes the outputs (two reads, one write).
// `vec` (from Python): cols % SM_VEC == 0 and x, y (grad) aligned to SM_VEC elements: vector loads
// and stores (float4 / 4 halves); otherwise element by element with the same register layout.
// Thread g of a group of G threads owns elements (i * G + g) * SM_VEC + k, i < SM_CACHE_VECS.
// Sparse cross-entropy: a label outside [0, cols) gives NaN loss and gradient for that row (TF's
// GPU kernel; the CPU kernel raises instead). Labels are int32. Entry suffix _f32 / _f16; f16
// accumulates in float32.
#include "common.cuh"

#define SM_THREADS 256
#define SM_VEC 4
#define SM_CACHE_VECS 8
#define SM_WARP_COLS_MAX 1024
#define SM_BLOCK_COLS_MAX 8192
// Blocks per SM the row-in-registers block kernels are compiled for (__launch_bounds__): with one,
// an SM's DRAM traffic would stop during each row's two block reductions.
#define SM_BLOCK_MIN_BLOCKS 2
#define SM_WARP_MIN_BLOCKS 3  // the same for the warp-per-row kernels (24 warps per SM)

static_assert(SM_WARP_COLS_MAX == 32 * SM_VEC * SM_CACHE_VECS, "warp rows must fit the register cache");
static_assert(SM_BLOCK_COLS_MAX == SM_THREADS * SM_VEC * SM_CACHE_VECS, "block rows must fit the register cache");

#define SM_MODE_SOFTMAX 0
#define SM_MODE_LOG 1
#define SM_MODE_XENT 2

// Elements p[0..3] of which the first n exist, as floats; the missing ones read as -inf.
template <typename T>
__device__ __forceinline__ void sm_load4(const T* p, long long n, bool vec, float v[4]) {
  if (vec && n >= 4) {
    tfc_vload4(p, v);
  } else if (vec) {  // vector rows: a vector is all there or all past the end
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = tfc_neg_inf();
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = k < n ? tfc_to_float(p[k]) : tfc_neg_inf();
  }
}
// p[k] = v[k] for the first n (of 4) elements.
template <typename T>
__device__ __forceinline__ void sm_store4(T* p, long long n, bool vec, const float v[4]) {
  if (vec && n >= 4) {
    tfc_vstore4(p, v);
  } else {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (k < n) tfc_store(p + k, v[k]);
  }
}

// One row held in registers: NV vectors of SM_VEC per thread (thread g of a group of G threads: a warp,
// or a block of SM_THREADS). MODE: SM_MODE_SOFTMAX / SM_MODE_LOG write y; SM_MODE_XENT writes
// y = grad and *loss. Compile-time G, NV and VEC keep every address a base plus an immediate.
template <typename T, int NV, int G, int MODE, bool VEC>
__device__ __forceinline__ void sm_row_cached(const T* __restrict__ xr, T* __restrict__ yr, int cols, int g,
                                              int label, T* __restrict__ loss) {
  const bool warp = G == 32;
  float v[NV][SM_VEC];
  float m = tfc_neg_inf();
  const int e0 = g * SM_VEC;
#pragma unroll
  for (int i = 0; i < NV; ++i) {
    const int e = e0 + i * G * SM_VEC;
    sm_load4(xr + e, cols - e, VEC, v[i]);
#pragma unroll
    for (int k = 0; k < SM_VEC; ++k) m = fmaxf(m, v[i][k]);
  }
  m = warp ? tfc_warp_reduce_max(m) : tfc_block_reduce_max(m);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < NV; ++i)
#pragma unroll
    for (int k = 0; k < SM_VEC; ++k) {
      const float d = v[i][k] - m;  // missing elements: -inf - m = -inf, exp = 0
      const float ex = expf(d);
      s += ex;
      v[i][k] = MODE == SM_MODE_LOG ? d : ex;
    }
  s = warp ? tfc_warp_reduce_sum(s) : tfc_block_reduce_sum(s);
  const bool ok = label >= 0 && label < cols;
  const float nan = __int_as_float(0x7fffffff);
  // A bad label makes the whole row NaN (it then matches no element, so the one-hot term is 0).
  const float inv = MODE == SM_MODE_XENT && !ok ? nan : 1.0f / s, lse = logf(s);
#pragma unroll
  for (int i = 0; i < NV; ++i) {
    const int e = e0 + i * G * SM_VEC;
    if (e >= cols) break;
    float o[SM_VEC];
#pragma unroll
    for (int k = 0; k < SM_VEC; ++k) {
      if (MODE == SM_MODE_LOG) o[k] = v[i][k] - lse;
      else if (MODE == SM_MODE_SOFTMAX) o[k] = v[i][k] * inv;
      else o[k] = v[i][k] * inv - (e + k == label ? 1.0f : 0.0f);
    }
    sm_store4(yr + e, cols - e, VEC, o);
  }
  if (MODE == SM_MODE_XENT && g == 0) *loss = tfc_from_float<T>(ok ? lse - (tfc_to_float(xr[label]) - m) : nan);
}

template <typename T, int NV, int G, int MODE>
__device__ __forceinline__ void sm_row_vec(const T* xr, T* yr, int cols, int g, bool vec, int label, T* loss) {
  if (vec) sm_row_cached<T, NV, G, MODE, true>(xr, yr, cols, g, label, loss);
  else sm_row_cached<T, NV, G, MODE, false>(xr, yr, cols, g, label, loss);
}

// The register slots a row of `cols` needs: 1, 2, 4 or SM_CACHE_VECS. The launcher sends only rows that
// fit (cols <= G * SM_VEC * SM_CACHE_VECS, blockDim.x == SM_THREADS); anything else traps instead of
// being cut short.
template <typename T, int G, int MODE>
__device__ __forceinline__ void sm_row_dispatch(const T* xr, T* yr, long long cols_ll, int g, bool vec, int label,
                                                T* loss) {
  if (cols_ll > (long long)G * SM_VEC * SM_CACHE_VECS || blockDim.x != SM_THREADS) __trap();
  const int cols = (int)cols_ll;
  const int need = (cols + G * SM_VEC - 1) / (G * SM_VEC);
  if (need <= 1) sm_row_vec<T, 1, G, MODE>(xr, yr, cols, g, vec, label, loss);
  else if (need <= 2) sm_row_vec<T, 2, G, MODE>(xr, yr, cols, g, vec, label, loss);
  else if (need <= 4) sm_row_vec<T, 4, G, MODE>(xr, yr, cols, g, vec, label, loss);
  else sm_row_vec<T, SM_CACHE_VECS, G, MODE>(xr, yr, cols, g, vec, label, loss);
}

template <typename T, int MODE>
__device__ __forceinline__ void sm_warp_rows(const T* __restrict__ x, const int* __restrict__ labels,
                                             T* __restrict__ loss, T* __restrict__ y, long long rows, long long cols,
                                             int vec) {
  const int lane = threadIdx.x & 31;
  const int wpb = SM_THREADS / 32;
  for (long long row = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); row < rows;
       row += (long long)gridDim.x * wpb) {
    const int label = MODE == SM_MODE_XENT ? labels[row] : 0;
    sm_row_dispatch<T, 32, MODE>(x + row * cols, y + row * cols, cols, lane, vec != 0, label,
                                 MODE == SM_MODE_XENT ? loss + row : nullptr);
  }
}

template <typename T, int MODE>
__device__ __forceinline__ void sm_block_rows(const T* __restrict__ x, const int* __restrict__ labels,
                                              T* __restrict__ loss, T* __restrict__ y, long long rows, long long cols,
                                              int vec) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const int label = MODE == SM_MODE_XENT ? labels[row] : 0;
    sm_row_dispatch<T, SM_THREADS, MODE>(x + row * cols, y + row * cols, cols, threadIdx.x, vec != 0, label,
                                         MODE == SM_MODE_XENT ? loss + row : nullptr);
  }
}

// ---- long rows: online (max, sum), then a second read -------------------------------------------------
struct SmPair {
  float m, s;
};

__device__ __forceinline__ SmPair sm_merge(SmPair a, SmPair b) {
  const float m = fmaxf(a.m, b.m);
  if (m == tfc_neg_inf()) return SmPair{m, a.s + b.s};  // both empty (or all -inf)
  return SmPair{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// Warp-wide merge (butterfly); result in every lane.
__device__ __forceinline__ SmPair sm_warp_merge(SmPair p) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    SmPair q;
    q.m = __shfl_xor_sync(TFC_FULL_MASK, p.m, o);
    q.s = __shfl_xor_sync(TFC_FULL_MASK, p.s, o);
    p = sm_merge(p, q);
  }
  return p;
}

// Block-wide merge (1-D block, multiple of 32 threads); result in every thread.
__device__ __forceinline__ SmPair sm_block_merge(SmPair p) {
  __shared__ float sm_m[32], sm_s[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  p = sm_warp_merge(p);
  if (lane == 0) { sm_m[warp] = p.m; sm_s[warp] = p.s; }
  __syncthreads();  // (mutant: sm-block-merge-publish)
  if (warp == 0) {
    p = sm_warp_merge(lane < nwarps ? SmPair{sm_m[lane], sm_s[lane]} : SmPair{tfc_neg_inf(), 0.0f});
    if (lane == 0) { sm_m[0] = p.m; sm_s[0] = p.s; }
  }
  __syncthreads();
  p = SmPair{sm_m[0], sm_s[0]};
  __syncthreads();  // sm_m/sm_s are rewritten by the next row (mutant: sm-block-merge-trailing)
  return p;
}

template <typename T>
__device__ __forceinline__ void sm_long_rows(const T* __restrict__ x, const int* __restrict__ labels, T* __restrict__ loss,
                                             T* __restrict__ y, long long rows, long long cols, int mode, int vec) {
  const float nan = __int_as_float(0x7fffffff);
  const long long step = (long long)blockDim.x * SM_VEC;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    T* yr = y + row * cols;
    const int label = mode == SM_MODE_XENT ? labels[row] : 0;
    SmPair p{tfc_neg_inf(), 0.0f};
    for (long long e = (long long)threadIdx.x * SM_VEC; e < cols; e += step) {
      float v[SM_VEC];
      sm_load4(xr + e, cols - e, vec != 0, v);
      const float m4 = fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3]));
      const float m = fmaxf(p.m, m4);
      if (m == tfc_neg_inf()) continue;  // everything so far is -inf: nothing to add
      float s = p.s * expf(p.m - m);
#pragma unroll
      for (int k = 0; k < SM_VEC; ++k) s += expf(v[k] - m);
      p = SmPair{m, s};
    }
    p = sm_block_merge(p);
    const float inv = 1.0f / p.s, lse = logf(p.s);
    const bool ok = label >= 0 && (long long)label < cols;
    for (long long e = (long long)threadIdx.x * SM_VEC; e < cols; e += step) {
      float v[SM_VEC];
      sm_load4(xr + e, cols - e, vec != 0, v);
#pragma unroll
      for (int k = 0; k < SM_VEC; ++k) {
        const float d = v[k] - p.m;
        if (mode == SM_MODE_LOG) v[k] = d - lse;
        else if (mode == SM_MODE_SOFTMAX) v[k] = expf(d) * inv;
        else v[k] = ok ? expf(d) * inv - (e + k == label ? 1.0f : 0.0f) : nan;
      }
      sm_store4(yr + e, cols - e, vec != 0, v);
    }
    if (mode == SM_MODE_XENT && threadIdx.x == 0)
      loss[row] = tfc_from_float<T>(ok ? lse - (tfc_to_float(xr[label]) - p.m) : nan);
  }
}

#define SM_ENTRIES(SUF, T)                                                                                      \
  TFC_KERNEL void __launch_bounds__(SM_THREADS, SM_WARP_MIN_BLOCKS) softmax_warp_##SUF(const T* x, T* y, long long rows, long long cols, int log_mode, int vec) { \
    if (log_mode) sm_warp_rows<T, SM_MODE_LOG>(x, nullptr, nullptr, y, rows, cols, vec);                        \
    else sm_warp_rows<T, SM_MODE_SOFTMAX>(x, nullptr, nullptr, y, rows, cols, vec);                             \
  }                                                                                                             \
  TFC_KERNEL void __launch_bounds__(SM_THREADS, SM_BLOCK_MIN_BLOCKS) softmax_block_##SUF(const T* x, T* y, long long rows, long long cols, int log_mode, int vec) { \
    if (log_mode) sm_block_rows<T, SM_MODE_LOG>(x, nullptr, nullptr, y, rows, cols, vec);                       \
    else sm_block_rows<T, SM_MODE_SOFTMAX>(x, nullptr, nullptr, y, rows, cols, vec);                            \
  }                                                                                                             \
  TFC_KERNEL void softmax_long_##SUF(const T* x, T* y, long long rows, long long cols, int log_mode, int vec) {  \
    sm_long_rows<T>(x, nullptr, nullptr, y, rows, cols, log_mode ? SM_MODE_LOG : SM_MODE_SOFTMAX, vec);         \
  }                                                                                                             \
  TFC_KERNEL void __launch_bounds__(SM_THREADS, SM_WARP_MIN_BLOCKS) sparse_xent_warp_##SUF(const T* x, const int* labels, T* loss, T* grad, long long rows,       \
                                         long long cols, int vec) {                                             \
    sm_warp_rows<T, SM_MODE_XENT>(x, labels, loss, grad, rows, cols, vec);                                      \
  }                                                                                                             \
  TFC_KERNEL void __launch_bounds__(SM_THREADS, SM_BLOCK_MIN_BLOCKS) sparse_xent_##SUF(const T* x, const int* labels, T* loss, T* grad, long long rows,            \
                                    long long cols, int vec) {                                                  \
    sm_block_rows<T, SM_MODE_XENT>(x, labels, loss, grad, rows, cols, vec);                                     \
  }                                                                                                             \
  TFC_KERNEL void sparse_xent_long_##SUF(const T* x, const int* labels, T* loss, T* grad, long long rows,       \
                                         long long cols, int vec) {                                             \
    sm_long_rows<T>(x, labels, loss, grad, rows, cols, SM_MODE_XENT, vec);                                      \
  }

SM_ENTRIES(f32, float)
SM_ENTRIES(f16, __half)
