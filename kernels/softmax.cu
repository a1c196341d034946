// Softmax / log-softmax along the last axis and fused sparse softmax cross-entropy (DESIGN.md §4).
//
// Every row is read twice and written once: the first pass keeps an online (max, sum) pair,
//   m' = max(m, v),  s' = s * exp(m - m') + exp(v - m'),
// so the max and the normaliser come from ONE read; pairs from different threads merge the
// same way. The second pass writes exp(v - m) / s (or v - m - log s).
//
// * softmax_warp_*:  one warp per row (cols <= SM_WARP_COLS_MAX), SM_THREADS per block,
//   grid min(ceil(rows / (SM_THREADS / 32)), 65535), grid-stride over rows.
// * softmax_block_*: one block of SM_THREADS per row (long rows), grid min(rows, 65535).
// * sparse_xent_*: one block of SM_THREADS per row: loss[row] = log(sum exp(x - m)) - (x[label] - m)
//   (the shifted logit first: (log s + m) - x[label] loses ~ulp(m), 1e-3 at |logits| ~ 1e4, to
//   cancellation), dlogits = softmax(x) - onehot(label). A label outside [0, cols) gives NaN loss and gradient
//   for that row (TF's GPU kernel; the CPU kernel raises instead). Labels are int32.
#include "common.cuh"

#define SM_THREADS 256
#define SM_WARP_COLS_MAX 1024

struct SmPair {
  float m, s;
};

__device__ __forceinline__ SmPair sm_merge(SmPair a, SmPair b) {
  const float m = fmaxf(a.m, b.m);
  if (m == tfc_neg_inf()) return SmPair{m, a.s + b.s};  // both empty (or all -inf)
  return SmPair{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ SmPair sm_push(SmPair p, float v) {
  if (v == tfc_neg_inf()) return p;  // contributes exp(-inf) = 0 (avoids -inf - -inf)
  if (v <= p.m) return SmPair{p.m, p.s + expf(v - p.m)};
  return SmPair{v, p.s * expf(p.m - v) + 1.0f};
}

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
  __syncthreads();
  if (warp == 0) {
    p = lane < nwarps ? SmPair{sm_m[lane], sm_s[lane]} : SmPair{tfc_neg_inf(), 0.0f};
    p = sm_warp_merge(p);
    if (lane == 0) { sm_m[0] = p.m; sm_s[0] = p.s; }
  }
  __syncthreads();
  p = SmPair{sm_m[0], sm_s[0]};
  __syncthreads();
  return p;
}

template <typename T>
__device__ __forceinline__ void sm_write(const T* __restrict__ xr, T* __restrict__ yr, long long cols, SmPair p,
                                         int lo, int step, int log_mode) {
  const float inv = 1.0f / p.s, lse = logf(p.s);
  for (long long j = lo; j < cols; j += step) {
    const float v = tfc_to_float(xr[j]) - p.m;
    yr[j] = tfc_from_float<T>(log_mode ? v - lse : expf(v) * inv);
  }
}

template <typename T>
__device__ __forceinline__ void sm_warp_rows(const T* __restrict__ x, T* __restrict__ y, long long rows,
                                             long long cols, int log_mode) {
  const int lane = threadIdx.x & 31;
  const int wpb = blockDim.x >> 5;
  for (long long row = (long long)blockIdx.x * wpb + (threadIdx.x >> 5); row < rows; row += (long long)gridDim.x * wpb) {
    const T* xr = x + row * cols;
    SmPair p{tfc_neg_inf(), 0.0f};
    for (long long j = lane; j < cols; j += 32) p = sm_push(p, tfc_to_float(xr[j]));
    p = sm_warp_merge(p);
    sm_write(xr, y + row * cols, cols, p, lane, 32, log_mode);
  }
}

template <typename T>
__device__ __forceinline__ void sm_block_rows(const T* __restrict__ x, T* __restrict__ y, long long rows,
                                              long long cols, int log_mode) {
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    SmPair p{tfc_neg_inf(), 0.0f};
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) p = sm_push(p, tfc_to_float(xr[j]));
    p = sm_block_merge(p);
    sm_write(xr, y + row * cols, cols, p, threadIdx.x, blockDim.x, log_mode);
  }
}

template <typename T>
__device__ __forceinline__ void sm_xent(const T* __restrict__ x, const int* __restrict__ labels, T* __restrict__ loss,
                                        T* __restrict__ grad, long long rows, long long cols) {
  const float nan = __int_as_float(0x7fffffff);
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    T* gr = grad + row * cols;
    const int label = labels[row];
    const bool ok = label >= 0 && label < cols;
    SmPair p{tfc_neg_inf(), 0.0f};
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) p = sm_push(p, tfc_to_float(xr[j]));
    p = sm_block_merge(p);
    const float inv = 1.0f / p.s;
    for (long long j = threadIdx.x; j < cols; j += blockDim.x) {
      const float sm = expf(tfc_to_float(xr[j]) - p.m) * inv;
      gr[j] = tfc_from_float<T>(ok ? sm - (j == label ? 1.0f : 0.0f) : nan);
    }
    if (threadIdx.x == 0)
      loss[row] = tfc_from_float<T>(ok ? logf(p.s) - (tfc_to_float(xr[label]) - p.m) : nan);
  }
}

#define SM_ENTRIES(SUF, T)                                                                                  \
  TFC_KERNEL void softmax_warp_##SUF(const T* x, T* y, long long rows, long long cols, int log_mode) {      \
    sm_warp_rows<T>(x, y, rows, cols, log_mode);                                                            \
  }                                                                                                         \
  TFC_KERNEL void softmax_block_##SUF(const T* x, T* y, long long rows, long long cols, int log_mode) {     \
    sm_block_rows<T>(x, y, rows, cols, log_mode);                                                           \
  }                                                                                                         \
  TFC_KERNEL void sparse_xent_##SUF(const T* x, const int* labels, T* loss, T* grad, long long rows,        \
                                    long long cols) {                                                       \
    sm_xent<T>(x, labels, loss, grad, rows, cols);                                                          \
  }

SM_ENTRIES(f32, float)
SM_ENTRIES(f16, __half)
