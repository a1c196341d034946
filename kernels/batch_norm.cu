// Fused batch normalisation: FusedBatchNormV3 (forward) and FusedBatchNormGradV3 (its gradient) over an
// [outer, C, inner] view of x (docs/architecture.md §4): NHWC has outer = N*H*W rows and inner = 1, NCHW
// has outer = N and inner = H*W. Statistics are float32 per channel (TF's U); x, y, dy, dx are float32 or
// float16, read and written as such, computed in float32.
//
// Forward, training: bn_stats_* (one read of x: per-thread Welford means and sums of squared deviations,
// merged by Chan's formula in a fixed order, one float32 partial (count, mean, M2) per channel and split of
// the rows) -> bn_finalize (a block per channel merges the splits in double, in split order, and writes
// the five statistics outputs and the apply coefficients) -> bn_apply (y = (x - mean) * k + offset, one
// read of x, one write of y). Inference: bn_finalize with no splits (the given mean and variance), then
// bn_apply. Backward: bn_grad_sums_* (sum(dy) and sum(dy * (x - mean)) per channel and split, one read of
// dy and x) -> bn_grad_finalize (scale and offset gradients, dx coefficients) -> bn_grad_apply (dx = dy * k1
// + (x - mean) * k2 + k3). Every sum runs in a fixed order: the same inputs give the same bits.
//
// * bn_stats_rows_* / bn_grad_sums_rows_* (inner == 1): block (BN_ROWS_X, BN_ROWS_Y); x walks BN_ROWS_X
//   consecutive channels (coalesced), y walks the rows of the block's chunk, BN_UNROLL loads in flight;
//   thread y == 0 merges the BN_ROWS_Y partials of its channel. Grid (ceil(C / BN_ROWS_X), splits).
// * bn_stats_planes_* / bn_grad_sums_planes_* (inner > 1): a 1-D block of BN_THREADS per (channel, split)
//   walks its chunk of the outer * inner values of the channel, then a shared-memory tree. Grid (C, splits).
// * bn_finalize / bn_grad_finalize: a block of BN_FIN_THREADS per channel. Grid (C).
// * bn_apply_* / bn_grad_apply_*: grid-stride over elements, BN_THREADS a block; with `vec` (inner == 1,
//   C % 4 == 0, x/dy/y/dx 4-element aligned) 4 elements a load.
//
// Partials (float32): stats: part[3 * (split * C + c) + {0: count, 1: mean, 2: M2}]; grad sums:
// part[split * C + c] = sum(dy), part[(splits + split) * C + c] = sum(dy * (x - mean)). Coefficients
// (float32): forward coef[c] = k = scale / sqrt(var + eps), coef[C + c] = mean, coef[2C + c] = offset;
// backward coef[c] = k1, coef[C + c] = k2, coef[2C + c] = k3, coef[3C + c] = mean.
#include "common.cuh"

#define BN_THREADS 256
#define BN_ROWS_X 32
#define BN_ROWS_Y 8
#define BN_UNROLL 4
#define BN_FIN_THREADS 128

// A running (count, mean, M2) of values: Welford's update (float, per thread) and Chan's merge (float within a
// block, double across the splits).
template <typename F>
struct BnMoments {
  F n, mean, m2;
};
typedef BnMoments<float> BnWelford;

TFC_DEVICE_INLINE void bn_push(BnWelford& w, float v) {
  w.n += 1.0f;
  const float d = v - w.mean;
  w.mean += d / w.n;
  w.m2 += d * (v - w.mean);
}

template <typename F>
TFC_DEVICE_INLINE BnMoments<F> bn_merge(BnMoments<F> a, BnMoments<F> b) {
  if (b.n == F(0)) return a;
  if (a.n == F(0)) return b;
  const F n = a.n + b.n, d = b.mean - a.mean, wb = b.n / n;
  BnMoments<F> r;
  r.n = n;
  r.mean = a.mean + d * wb;
  r.m2 = a.m2 + b.m2 + d * d * a.n * wb;
  return r;
}

// The shared-memory tree of a 1-D block of N states (fixed pairing: deterministic; the arrays hold N / 2); the
// result lands in thread 0's return value.
template <int N, typename F>
TFC_DEVICE_INLINE BnMoments<F> bn_block_merge(BnMoments<F> w, F* sn, F* smean, F* sm2) {
  const int t = threadIdx.x;
  for (int s = N / 2; s > 0; s >>= 1) {
    if (t >= s && t < 2 * s) {
      sn[t - s] = w.n;
      smean[t - s] = w.mean;
      sm2[t - s] = w.m2;
    }
    __syncthreads();
    if (t < s) {
      const BnMoments<F> o = {sn[t], smean[t], sm2[t]};
      w = bn_merge(w, o);
    }
    __syncthreads();
  }
  return w;
}

// Split blockIdx.y's partial of channel c.
TFC_DEVICE_INLINE void bn_store_partial(float* part, int C, int c, BnWelford w) {
  float* p = part + 3 * ((tfc_index_t)blockIdx.y * C + c);
  p[0] = w.n;
  p[1] = w.mean;
  p[2] = w.m2;
}

// Rows [lo, hi) of the chunk of split blockIdx.y, for chunks of `chunk` rows.
TFC_DEVICE_INLINE void bn_chunk(tfc_index_t total, tfc_index_t chunk, tfc_index_t& lo, tfc_index_t& hi) {
  lo = (tfc_index_t)blockIdx.y * chunk;
  hi = lo + chunk < total ? lo + chunk : total;
}

// ---- forward statistics ----------------------------------------------------------------------------------

template <typename T>
TFC_DEVICE_INLINE void bn_stats_rows(const T* TFC_RESTRICT x, float* TFC_RESTRICT part, tfc_index_t rows, int C,
                                     tfc_index_t chunk) {
  __shared__ float sn[BN_ROWS_Y][BN_ROWS_X], smean[BN_ROWS_Y][BN_ROWS_X], sm2[BN_ROWS_Y][BN_ROWS_X];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * BN_ROWS_X + tx;
  tfc_index_t lo, hi;
  bn_chunk(rows, chunk, lo, hi);
  BnWelford w = {0.0f, 0.0f, 0.0f};
  if (c < C) {
    tfc_index_t r = lo + ty;
    for (; r + (BN_UNROLL - 1) * BN_ROWS_Y < hi; r += BN_UNROLL * BN_ROWS_Y) {
      float v[BN_UNROLL];
#pragma unroll
      for (int u = 0; u < BN_UNROLL; ++u) v[u] = tfc_to_float(x[(r + u * BN_ROWS_Y) * C + c]);
#pragma unroll
      for (int u = 0; u < BN_UNROLL; ++u) bn_push(w, v[u]);
    }
    for (; r < hi; r += BN_ROWS_Y) bn_push(w, tfc_to_float(x[r * C + c]));
  }
  sn[ty][tx] = w.n;
  smean[ty][tx] = w.mean;
  sm2[ty][tx] = w.m2;
  __syncthreads();
  if (ty == 0 && c < C) {
    for (int k = 1; k < BN_ROWS_Y; ++k) {
      const BnWelford o = {sn[k][tx], smean[k][tx], sm2[k][tx]};
      w = bn_merge(w, o);
    }
    bn_store_partial(part, C, c, w);
  }
}

template <typename T>
TFC_DEVICE_INLINE void bn_stats_planes(const T* TFC_RESTRICT x, float* TFC_RESTRICT part, tfc_index_t outer, int C,
                                       tfc_index_t inner, tfc_index_t chunk) {
  __shared__ float sn[BN_THREADS / 2], smean[BN_THREADS / 2], sm2[BN_THREADS / 2];
  const int c = blockIdx.x;
  tfc_index_t lo, hi;
  bn_chunk(outer * inner, chunk, lo, hi);
  BnWelford w = {0.0f, 0.0f, 0.0f};
  for (tfc_index_t j = lo + threadIdx.x; j < hi; j += BN_THREADS) {
    const tfc_index_t n = j / inner;
    bn_push(w, tfc_to_float(x[(n * C + c) * inner + (j - n * inner)]));
  }
  w = bn_block_merge<BN_THREADS>(w, sn, smean, sm2);
  if (threadIdx.x == 0) {
    bn_store_partial(part, C, c, w);
  }
}

TFC_KERNEL void bn_stats_rows_f32(const float* x, float* part, long long rows, int C, long long chunk) {
  bn_stats_rows<float>(x, part, rows, C, chunk);
}
TFC_KERNEL void bn_stats_rows_f16(const __half* x, float* part, long long rows, int C, long long chunk) {
  bn_stats_rows<__half>(x, part, rows, C, chunk);
}
TFC_KERNEL void bn_stats_planes_f32(const float* x, float* part, long long outer, int C, long long inner,
                                    long long chunk) {
  bn_stats_planes<float>(x, part, outer, C, inner, chunk);
}
TFC_KERNEL void bn_stats_planes_f16(const __half* x, float* part, long long outer, int C, long long inner,
                                    long long chunk) {
  bn_stats_planes<__half>(x, part, outer, C, inner, chunk);
}

// ---- forward finalize ------------------------------------------------------------------------------------

// Statistics of channel blockIdx.x. training: merge the `splits` partials (double, split order). Outputs as
// FusedBatchNormV3's generic kernel: out_mean / out_var (the batch mean and unbiased variance, or their
// exponential averages with mean_in / var_in when factor != 1), save_mean / save_var (the batch mean and
// biased variance y was normalised with); an empty batch has mean 0 and variance NaN. Inference (training ==
// 0): mean_in and var_in normalise and are copied to all four outputs.
TFC_KERNEL void bn_finalize(const float* part, int splits, int C, const float* scale, const float* offset,
                            const float* mean_in, const float* var_in, float eps, float factor, int training,
                            float* out_mean, float* out_var, float* save_mean, float* save_var, float* coef) {
  __shared__ double sn[BN_FIN_THREADS / 2], smean[BN_FIN_THREADS / 2], sm2[BN_FIN_THREADS / 2];
  const int c = blockIdx.x, t = threadIdx.x;
  float om, ov, sm, sv;  // out_mean, out_var, save_mean, save_var
  if (training) {
    BnMoments<double> w = {0.0, 0.0, 0.0};
    for (int s = t; s < splits; s += BN_FIN_THREADS) {
      const float* p = part + 3 * ((tfc_index_t)s * C + c);
      const BnMoments<double> o = {p[0], p[1], p[2]};
      w = bn_merge(w, o);
    }
    w = bn_block_merge<BN_FIN_THREADS>(w, sn, smean, sm2);
    if (t != 0) return;
    const double n = w.n;
    sm = n > 0.0 ? (float)w.mean : 0.0f;
    sv = n > 0.0 ? (float)(w.m2 / n) : __int_as_float(0x7fc00000);
    const float unbiased = n > 1.0 ? (float)(w.m2 / (n - 1.0)) : (n == 1.0 ? 0.0f : __int_as_float(0x7fc00000));
    om = factor == 1.0f ? sm : mean_in[c] - (mean_in[c] - sm) * factor;
    ov = factor == 1.0f ? unbiased : var_in[c] - (var_in[c] - unbiased) * factor;
  } else {
    if (t != 0) return;
    om = sm = mean_in[c];
    ov = sv = var_in[c];
  }
  out_mean[c] = om;
  out_var[c] = ov;
  save_mean[c] = sm;
  save_var[c] = sv;
  coef[c] = scale[c] / sqrtf(sv + eps);
  coef[C + c] = sm;
  coef[2 * C + c] = offset[c];
}

// ---- element-wise passes ------------------------------------------------------------------------------

// y = (x - mean) * k + offset
template <typename T>
TFC_DEVICE_INLINE void bn_apply(const T* TFC_RESTRICT x, const float* TFC_RESTRICT coef, T* TFC_RESTRICT y,
                                tfc_index_t total, int C, tfc_index_t inner, int vec) {
  const float* k = coef;
  const float* m = coef + C;
  const float* o = coef + 2 * C;
  if (vec) {
    for (tfc_index_t i = tfc_global_thread_id(); i < (total >> 2); i += tfc_grid_stride()) {
      const int c = (int)((i << 2) % C);
      float v[4];
      tfc_vload4(x + (i << 2), v);
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = (v[u] - m[c + u]) * k[c + u] + o[c + u];
      tfc_vstore4(y + (i << 2), v);
    }
    return;
  }
  for (tfc_index_t i = tfc_global_thread_id(); i < total; i += tfc_grid_stride()) {
    const int c = (int)((i / inner) % C);
    tfc_store(y + i, (tfc_to_float(x[i]) - m[c]) * k[c] + o[c]);
  }
}

TFC_KERNEL void bn_apply_f32(const float* x, const float* coef, float* y, long long total, int C, long long inner,
                             int vec) {
  bn_apply<float>(x, coef, y, total, C, inner, vec);
}
TFC_KERNEL void bn_apply_f16(const __half* x, const float* coef, __half* y, long long total, int C,
                             long long inner, int vec) {
  bn_apply<__half>(x, coef, y, total, C, inner, vec);
}

// ---- backward sums -----------------------------------------------------------------------------------------

// The pairwise tree of the N values of two shared arrays (fixed pairing: deterministic), called by all N threads
// of the block after their stores and a __syncthreads(); the sums land in s1[0] and s2[0].
template <int N, typename T>
TFC_DEVICE_INLINE void bn_tree_sum2(T* s1, T* s2, int t) {
  for (int s = N / 2; s > 0; s >>= 1) {
    if (t < s) {
      s1[t] += s1[t + s];
      s2[t] += s2[t + s];
    }
    __syncthreads();
  }
}

template <typename T>
TFC_DEVICE_INLINE void bn_grad_sums_rows(const T* TFC_RESTRICT dy, const T* TFC_RESTRICT x,
                                         const float* TFC_RESTRICT mean, float* TFC_RESTRICT part, tfc_index_t rows,
                                         int C, tfc_index_t chunk) {
  __shared__ float s1[BN_ROWS_Y][BN_ROWS_X], s2[BN_ROWS_Y][BN_ROWS_X];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * BN_ROWS_X + tx;
  tfc_index_t lo, hi;
  bn_chunk(rows, chunk, lo, hi);
  float a = 0.0f, b = 0.0f;
  if (c < C) {
    const float mc = mean[c];
    tfc_index_t r = lo + ty;
    for (; r + (BN_UNROLL - 1) * BN_ROWS_Y < hi; r += BN_UNROLL * BN_ROWS_Y) {
      float g[BN_UNROLL], v[BN_UNROLL];
#pragma unroll
      for (int u = 0; u < BN_UNROLL; ++u) {
        const tfc_index_t i = (r + u * BN_ROWS_Y) * C + c;
        g[u] = tfc_to_float(dy[i]);
        v[u] = tfc_to_float(x[i]);
      }
#pragma unroll
      for (int u = 0; u < BN_UNROLL; ++u) {
        a += g[u];
        b += g[u] * (v[u] - mc);
      }
    }
    for (; r < hi; r += BN_ROWS_Y) {
      const float g = tfc_to_float(dy[r * C + c]);
      a += g;
      b += g * (tfc_to_float(x[r * C + c]) - mc);
    }
  }
  s1[ty][tx] = a;
  s2[ty][tx] = b;
  __syncthreads();
  if (ty == 0 && c < C) {
    for (int k = 1; k < BN_ROWS_Y; ++k) {
      a += s1[k][tx];
      b += s2[k][tx];
    }
    const tfc_index_t splits = gridDim.y;
    part[(tfc_index_t)blockIdx.y * C + c] = a;
    part[(splits + blockIdx.y) * C + c] = b;
  }
}

template <typename T>
TFC_DEVICE_INLINE void bn_grad_sums_planes(const T* TFC_RESTRICT dy, const T* TFC_RESTRICT x,
                                           const float* TFC_RESTRICT mean, float* TFC_RESTRICT part,
                                           tfc_index_t outer, int C, tfc_index_t inner, tfc_index_t chunk) {
  __shared__ float s1[BN_THREADS], s2[BN_THREADS];
  const int c = blockIdx.x, t = threadIdx.x;
  tfc_index_t lo, hi;
  bn_chunk(outer * inner, chunk, lo, hi);
  const float mc = mean[c];
  float a = 0.0f, b = 0.0f;
  for (tfc_index_t j = lo + t; j < hi; j += BN_THREADS) {
    const tfc_index_t n = j / inner;
    const tfc_index_t i = (n * C + c) * inner + (j - n * inner);
    const float g = tfc_to_float(dy[i]);
    a += g;
    b += g * (tfc_to_float(x[i]) - mc);
  }
  s1[t] = a;
  s2[t] = b;
  __syncthreads();
  bn_tree_sum2<BN_THREADS>(s1, s2, t);
  if (t == 0) {
    const tfc_index_t splits = gridDim.y;
    part[(tfc_index_t)blockIdx.y * C + c] = s1[0];
    part[(splits + blockIdx.y) * C + c] = s2[0];
  }
}

TFC_KERNEL void bn_grad_sums_rows_f32(const float* dy, const float* x, const float* mean, float* part,
                                      long long rows, int C, long long chunk) {
  bn_grad_sums_rows<float>(dy, x, mean, part, rows, C, chunk);
}
TFC_KERNEL void bn_grad_sums_rows_f16(const __half* dy, const __half* x, const float* mean, float* part,
                                      long long rows, int C, long long chunk) {
  bn_grad_sums_rows<__half>(dy, x, mean, part, rows, C, chunk);
}
TFC_KERNEL void bn_grad_sums_planes_f32(const float* dy, const float* x, const float* mean, float* part,
                                        long long outer, int C, long long inner, long long chunk) {
  bn_grad_sums_planes<float>(dy, x, mean, part, outer, C, inner, chunk);
}
TFC_KERNEL void bn_grad_sums_planes_f16(const __half* dy, const __half* x, const float* mean, float* part,
                                        long long outer, int C, long long inner, long long chunk) {
  bn_grad_sums_planes<__half>(dy, x, mean, part, outer, C, inner, chunk);
}

// ---- backward finalize and dx ----------------------------------------------------------------------------

// Channel blockIdx.x: offset_backprop = sum(dy), scale_backprop = sum(dy * (x - mean)) * inv with inv =
// 1 / sqrt(var + eps); dx = dy * k1 + (x - mean) * k2 + k3 with k1 = scale * inv and, in training (the
// batch statistics depend on x), k2 = -k1 * inv * scale_backprop / n, k3 = -k1 * offset_backprop / n.
TFC_KERNEL void bn_grad_finalize(const float* part, int splits, int C, long long n, const float* scale,
                                 const float* mean, const float* var, float eps, int training, float* dscale,
                                 float* doffset, float* coef) {
  __shared__ double s1[BN_FIN_THREADS], s2[BN_FIN_THREADS];
  const int c = blockIdx.x, t = threadIdx.x;
  double a = 0.0, b = 0.0;
  for (int s = t; s < splits; s += BN_FIN_THREADS) {
    a += part[(tfc_index_t)s * C + c];
    b += part[((tfc_index_t)splits + s) * C + c];
  }
  s1[t] = a;
  s2[t] = b;
  __syncthreads();
  bn_tree_sum2<BN_FIN_THREADS>(s1, s2, t);
  if (t == 0) {
    const float inv = 1.0f / sqrtf(var[c] + eps);
    const float off_b = (float)s1[0];
    const float sc_b = (float)s2[0] * inv;
    const float k1 = scale[c] * inv;
    float k2 = 0.0f, k3 = 0.0f;
    if (training && n > 0) {
      k2 = -(k1 * inv * sc_b) / (float)n;
      k3 = -(k1 * off_b) / (float)n;
    }
    doffset[c] = off_b;
    dscale[c] = sc_b;
    coef[c] = k1;
    coef[C + c] = k2;
    coef[2 * C + c] = k3;
    coef[3 * C + c] = mean[c];
  }
}

template <typename T>
TFC_DEVICE_INLINE void bn_grad_apply(const T* TFC_RESTRICT dy, const T* TFC_RESTRICT x,
                                     const float* TFC_RESTRICT coef, T* TFC_RESTRICT dx, tfc_index_t total, int C,
                                     tfc_index_t inner, int vec) {
  const float* k1 = coef;
  const float* k2 = coef + C;
  const float* k3 = coef + 2 * C;
  const float* m = coef + 3 * C;
  if (vec) {
    for (tfc_index_t i = tfc_global_thread_id(); i < (total >> 2); i += tfc_grid_stride()) {
      const int c = (int)((i << 2) % C);
      float g[4], v[4];
      tfc_vload4(dy + (i << 2), g);
      tfc_vload4(x + (i << 2), v);
#pragma unroll
      for (int u = 0; u < 4; ++u) v[u] = g[u] * k1[c + u] + (v[u] - m[c + u]) * k2[c + u] + k3[c + u];
      tfc_vstore4(dx + (i << 2), v);
    }
    return;
  }
  for (tfc_index_t i = tfc_global_thread_id(); i < total; i += tfc_grid_stride()) {
    const int c = (int)((i / inner) % C);
    tfc_store(dx + i, tfc_to_float(dy[i]) * k1[c] + (tfc_to_float(x[i]) - m[c]) * k2[c] + k3[c]);
  }
}

TFC_KERNEL void bn_grad_apply_f32(const float* dy, const float* x, const float* coef, float* dx, long long total,
                                  int C, long long inner, int vec) {
  bn_grad_apply<float>(dy, x, coef, dx, total, C, inner, vec);
}
TFC_KERNEL void bn_grad_apply_f16(const __half* dy, const __half* x, const float* coef, __half* dx,
                                  long long total, int C, long long inner, int vec) {
  bn_grad_apply<__half>(dy, x, coef, dx, total, C, inner, vec);
}
