// 2-D max and average pooling, NHWC, forward and backward (docs/architecture.md §4).
//
// Padding is explicit (pad_top, pad_left), computed in Python with TF's SAME rule; padded
// positions never contribute: max ignores them and average divides by the number of
// in-bounds window elements (TF's AvgPool with SAME padding).
//
// All kernels are one thread per output element with a 1-D grid-stride loop
// (grid = min(ceil(total / PL_THREADS), PL_MAX_BLOCKS), block = PL_THREADS), channel fastest
// so consecutive threads read consecutive addresses.
//
// Backward kernels gather instead of scatter (one thread per dX element, no atomics, so the
// result is deterministic): for each output window covering the input position, max_pool
// recomputes the window's FIRST maximum (row-major scan order, as TF) and takes dY only where
// that maximum is this position; avg_pool adds dY / count.
#include "common.cuh"

#define PL_THREADS 256

struct PlGeom {
  int N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl;
};

// The in-bounds part [h0, h1) x [w0, w1) of output window (oh, ow); its size is the average's divisor.
struct PlWindow {
  int h0, h1, w0, w1;
  __device__ __forceinline__ int count() const { return (h1 - h0) * (w1 - w0); }
};
__device__ __forceinline__ PlWindow pl_window(const PlGeom& g, int oh, int ow) {
  const int h = oh * g.sh - g.pt, w = ow * g.sw - g.pl;
  return PlWindow{tfc_imax(h, 0), tfc_imin(h + g.KH, g.H), tfc_imax(w, 0), tfc_imin(w + g.KW, g.W)};
}

// Index of the first maximum of output window (n, oh, ow, c) as ih * W + iw, or -1 if empty.
template <typename T>
__device__ __forceinline__ int pl_argmax(const T* __restrict__ xn, const PlGeom& g, int oh, int ow, int c,
                                         float* best_out) {
  float best = tfc_neg_inf();
  int arg = -1;
  const PlWindow win = pl_window(g, oh, ow);
  for (int ih = win.h0; ih < win.h1; ++ih) {
    for (int iw = win.w0; iw < win.w1; ++iw) {
      const float v = tfc_to_float(xn[((long long)ih * g.W + iw) * g.C + c]);
      if (arg < 0 || v > best) {
        best = v;
        arg = ih * g.W + iw;
      }
    }
  }
  *best_out = best;
  return arg;
}

template <typename T>
__device__ __forceinline__ void pl_forward(const T* __restrict__ X, T* __restrict__ Y, const PlGeom g, bool is_max) {
  const long long total = (long long)g.N * g.OH * g.OW * g.C;
  for (long long idx = tfc_global_thread_id(); idx < total; idx += tfc_grid_stride()) {
    const int c = (int)(idx % g.C);
    const tfc_nhw_t o = tfc_unravel_nhw(idx / g.C, g.OH, g.OW);
    const int oh = o.h, ow = o.w;
    const T* xn = X + o.n * g.H * g.W * g.C;
    float out;
    if (is_max) {
      pl_argmax(xn, g, oh, ow, c, &out);
    } else {
      const PlWindow win = pl_window(g, oh, ow);
      float s = 0.0f;
      for (int ih = win.h0; ih < win.h1; ++ih)
        for (int iw = win.w0; iw < win.w1; ++iw) s += tfc_to_float(xn[((long long)ih * g.W + iw) * g.C + c]);
      const int cnt = win.count();
      out = cnt > 0 ? s / (float)cnt : 0.0f;
    }
    tfc_store(Y + idx, out);
  }
}

// dX for max (X given) or avg (X unused) pooling; one thread per input element.
template <typename T>
__device__ __forceinline__ void pl_backward(const T* __restrict__ X, const T* __restrict__ dY, T* __restrict__ dX,
                                            const PlGeom g, bool is_max) {
  const long long total = (long long)g.N * g.H * g.W * g.C;
  for (long long idx = tfc_global_thread_id(); idx < total; idx += tfc_grid_stride()) {
    const int c = (int)(idx % g.C);
    const tfc_nhw_t p = tfc_unravel_nhw(idx / g.C, g.H, g.W);
    const int ih = p.h, iw = p.w;
    const long long n = p.n;
    // Output rows whose window [oh*sh - pt, oh*sh - pt + KH) contains ih (same for columns).
    const int oh_lo = tfc_imax(0, tfc_ceil_div(tfc_imax(ih + g.pt - g.KH + 1, 0), g.sh));
    const int oh_hi = tfc_imin(g.OH - 1, (ih + g.pt) / g.sh);
    const int ow_lo = tfc_imax(0, tfc_ceil_div(tfc_imax(iw + g.pl - g.KW + 1, 0), g.sw));
    const int ow_hi = tfc_imin(g.OW - 1, (iw + g.pl) / g.sw);
    const T* xn = X + n * g.H * g.W * g.C;
    const T* dyn = dY + n * g.OH * g.OW * g.C;
    const int me = ih * g.W + iw;
    float s = 0.0f;
    for (int oh = oh_lo; oh <= oh_hi; ++oh) {
      for (int ow = ow_lo; ow <= ow_hi; ++ow) {
        const float d = tfc_to_float(dyn[((long long)oh * g.OW + ow) * g.C + c]);
        if (is_max) {
          float best;
          if (pl_argmax(xn, g, oh, ow, c, &best) == me) s += d;
        } else {
          s += d / (float)pl_window(g, oh, ow).count();
        }
      }
    }
    tfc_store(dX + idx, s);
  }
}

#define PL_ARGS int N, int H, int W, int C, int OH, int OW, int KH, int KW, int sh, int sw, int pt, int pl
#define PL_GEOM PlGeom{N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl}

#define PL_ENTRIES(SUF, T)                                                                     \
  TFC_KERNEL void max_pool_fwd_##SUF(const T* x, T* y, PL_ARGS) { pl_forward<T>(x, y, PL_GEOM, true); } \
  TFC_KERNEL void avg_pool_fwd_##SUF(const T* x, T* y, PL_ARGS) { pl_forward<T>(x, y, PL_GEOM, false); } \
  TFC_KERNEL void max_pool_bwd_##SUF(const T* x, const T* dy, T* dx, PL_ARGS) {                \
    pl_backward<T>(x, dy, dx, PL_GEOM, true);                                                  \
  }                                                                                            \
  TFC_KERNEL void avg_pool_bwd_##SUF(const T* dy, T* dx, PL_ARGS) {                            \
    pl_backward<T>(dy, dy, dx, PL_GEOM, false);                                                \
  }

PL_ENTRIES(f32, float)
PL_ENTRIES(f16, __half)
