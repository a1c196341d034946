// 2-D convolution, NHWC input, HWIO filter (docs/architecture.md §4).
//
// Forward, input gradient (dgrad) and filter gradient (wgrad) are all implicit GEMMs on the
// matmul SIMT tile (common.cuh's tfc_gemm_mainloop_n: BK = 8, 256 threads, register prefetch +
// double-buffered shared memory), as in CUTLASS, in two tile shapes: 128x128 (8x8 registers per
// thread; conv2d_fwd_f32, ...) and 128x64 (8x4 per thread; conv2d_fwd_n64_f32, ...), which the
// launcher picks when the GEMM's N (CO for forward and wgrad, C for dgrad) is at most 64, so a
// 64-channel layer does not multiply a half-empty 128-wide tile. The
// GEMM operands are gathered from the NHWC tensors while a k-tile is fetched, so no im2col
// buffer ever exists in global memory. Each kernel has float4 gathers where the channel count
// allows (a 4-run of k then shares its filter tap and is contiguous in memory) and a scalar
// fallback otherwise. The walks over k (forward, dgrad) and over N*OH*OW rows (wgrad) are
// incremental (fetch is called for k = 0, BK, 2*BK, ... in order), so no tile divides to decode
// its k or row index (dgrad's phases need no stride test at all).
//
// Forward: Y[M, CO] = X'[M, K] @ W[K, CO], M = N*OH*OW, K = KH*KW*C, X'[m, (kh, kw, ci)] = X at the
//   position tap (kh, kw) of output m reads. Grid (ceil(CO / BN), ceil(M / CV_BM)). Every forward entry
//   (SIMT and tensor-core) ends with the trailing arguments bias (CO elements of Y's type, or null) and
//   act (TFC_ACT_NONE / TFC_ACT_RELU): Y = act(X' @ W + bias), _FusedConv2D's epilogue (common.cuh's
//   tfc_epilogue) applied in registers before the single store; null and 0 give the plain convolution.
// Input gradient, by stride phase (CUTLASS's strided dgrad): the input pixels with
//   (ih % sh, iw % sw) = (rh, rw) receive gradient only through the taps kh with
//   kh*dh = rh + pt (mod sh) (an arithmetic progression kh0 + jh*kh_step) and likewise in w, so the
//   launcher runs one GEMM per phase (CvPhase; stride 1 is one phase with every tap):
//   dX_p[Mp, C] = dY'[Mp, Kp] @ W'[Kp, C], Mp = N*Hp*Wp pixels of the phase, Kp = nkh*nkw*CO,
//   dY'[(n, i, j), (jh, jw, co)] = dY[n, oh, ow, co] for the output (oh, ow) that tap (jh, jw) of
//   pixel (rh + i*sh, rw + j*sw) reads (the stride always divides; zero only out of range);
//   W'[(jh, jw, co), ci] = W[kh, kw, ci, co]. No multiply-add is spent on a tap the stride excludes.
//   Grid per phase (ceil(Mp / CV_BM), ceil(C / BN)): row tiles in x, whose limit is 2^31 - 1. The
//   tile's rows are decoded once into a shared table (first output position, dY image offset, dX
//   pixel offset; the epilogue stores through it). W is indexed in int32 (the launcher checks).
// Filter gradient (split-K): dW[T, CO] = X'^T[T, M] @ dY[M, CO], T = KH*KW*C taps, M = N*OH*OW.
//   The reduction over M is split into gridDim.z slices of `tiles_per_split` k-tiles; slice z
//   writes float32 partials part[z, T, CO] and conv2d_filter_grad_sum_* adds the slices in a
//   fixed order and converts to the output dtype (deterministic, no float atomics). The launcher
//   picks the split count from the problem size. Grid (ceil(T / CV_BM), ceil(CO / BN), splits).
//   The taps of a row tile are decoded once into a shared-memory table (tap_h, tap_w, tap_c).
//   Offsets inside one image of X and a slice's row count are int32 (the launcher checks).
// The 128x128 GEMM kernels carry __launch_bounds__(CV_THREADS, CV_MIN_BLOCKS): at most 128 registers
// per thread, so 2 blocks (16 warps) fit an SM's 65536 registers; a bound of 3 blocks (80 registers)
// spills 400-900 bytes per thread with the 8x8-per-thread tile, so the bound stays at 2. The 128x64
// kernels (32 accumulators per thread) carry CV_NARROW_MIN_BLOCKS = 3: at most 80 registers, 3 blocks
// (24 warps) per SM (sm_70: 2, see CV_NARROW_BOUNDS_BLOCKS). To fit 80 without spills, forward and
// dgrad keep their per-row decode in shared memory instead of registers.
//
// Depthwise: forward and input gradient are direct kernels (one thread per output element) on
// channel-group tiles whose filter taps are staged in shared memory (see dw_forward);
// the filter gradient is a (CV_GRAD_X, CV_GRAD_Y) block per (tap, 32 output channels), also
// split over N*OH*OW across gridDim.z into the same float32 partials and summed by the same
// kernel.
//
// Padding is explicit (pad_top, pad_left) and computed in Python with TF's SAME rule,
// so one kernel serves SAME, VALID and explicit paddings.
#include "common.cuh"

// The GEMM block tile is common.cuh's SIMT GEMM tile (TFC_GEMM_*, shared with matmul.cu).
#define CV_BM TFC_GEMM_BM
#define CV_BN TFC_GEMM_BN
#define CV_BK TFC_GEMM_BK
#define CV_THREADS TFC_GEMM_THREADS
#define CV_MIN_BLOCKS 2  // __launch_bounds__ min blocks per SM of the GEMM kernels (<= 128 regs)
#define CV_BN_NARROW TFC_GEMM_BN_NARROW  // the 128 x 64 tile of the *_n64_* entries (8x4 per thread)
#define CV_NARROW_MIN_BLOCKS 3  // __launch_bounds__ min blocks per SM of the *_n64_* entries (<= 80 regs)
// sm_70's ptxas spills 4-20 bytes at 80 registers, so Volta keeps the 128-register bound (2 blocks).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
#define CV_NARROW_BOUNDS_BLOCKS CV_MIN_BLOCKS
#else
#define CV_NARROW_BOUNDS_BLOCKS CV_NARROW_MIN_BLOCKS
#endif
#define CV_GRAD_X 32     // depthwise filter-grad block: output channels per block
#define CV_GRAD_Y 8      // depthwise filter-grad block: partial sums per channel
#define CV_SUM_THREADS 256  // block of conv2d_filter_grad_sum_*
#define CV_DW_THREADS 256   // block of depthwise_fwd_* / depthwise_input_grad_* (bx * by)
#define CV_DW_SMEM_FLOATS 2048  // their shared filter-tap buffer (8 KiB): pairs x bx floats per chunk

struct CvGeom {
  int N, H, W, C, OH, OW, KH, KW, CO, sh, sw, dh, dw, pt, pl;
};

// Tile tables filled by threads 0..CV_BM-1 (the SIMT and tensor-core kernels share them; the caller
// synchronises before reading).
// Forward, row r = m0 + tid of N*OH*OW: the padded window origin (oh*sh - pt, ow*sw - pl) and the offset
// of its image in X (-1: past the last row).
__device__ __forceinline__ void cv_forward_rows(int* row_h, int* row_w, long long* row_x, long long m0,
                                                long long M, const CvGeom& g) {
  const int tid = threadIdx.x;
  if (tid >= CV_BM) return;
  const long long m = m0 + tid;
  if (m < M) {
    const tfc_nhw_t o = tfc_unravel_nhw(m, g.OH, g.OW);
    row_h[tid] = o.h * g.sh - g.pt;
    row_w[tid] = o.w * g.sw - g.pl;
    row_x[tid] = o.n * g.H * g.W * g.C;
  } else {
    row_h[tid] = row_w[tid] = 0;
    row_x[tid] = -1;
  }
}


// o with o * s == t and 0 <= o < lim (t = a padded input coordinate minus a tap offset);
// false when there is none (t negative, not a multiple of the stride, or past the output).
TFC_DEVICE_INLINE bool cv_out_index(int t, int s, int lim, int& o) {
  if (t < 0) return false;
  if (s == 1) {
    o = t;
  } else {
    o = t / s;
    if (o * s != t) return false;
  }
  return o < lim;
}

template <typename T, int BN>
__device__ __forceinline__ void cv_forward(const T* __restrict__ X, const T* __restrict__ Wt, T* __restrict__ Y,
                                           const CvGeom g, int vec_x, int vec_w, const tfc_epilogue<T> ep) {
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * g.OH * g.OW;
  const int K = g.KH * g.KW * g.C;
  const long long m0 = (long long)blockIdx.y * CV_BM;
  const int n0 = blockIdx.x * BN;
  // This thread gathers row a_m of X' (4 consecutive k from a_k) and row b_k of W (if b_k < BK:
  // with BN = 64 the W tile is 512 elements, so only the first 128 threads load it).
  // Per row r of the tile: the padded window origin (oh*sh - pt, ow*sw - pl) and the offset of its
  // image in X (-1: past the last row). Kept in shared memory, read at each fetch: fewer live
  // registers (the 128 x 64 tile must fit 80).
  __shared__ int row_h[CV_BM], row_w[CV_BM];
  __shared__ long long row_x[CV_BM];
  cv_forward_rows(row_h, row_w, row_x, m0, M, g);
  __syncthreads();
  const int a_k = (tid & 1) << 2, a_r = tid >> 1;
  const int b_k = tid / (BN / 4), b_n = (tid % (BN / 4)) << 2;
  const bool b_load = BN == CV_BN || b_k < CV_BK;
  const bool vx = vec_x != 0, vw = vec_w != 0;
  const int ntiles = (K + TFC_GEMM_BK - 1) / TFC_GEMM_BK;

  // (kh, kw, ci) of k = kt + a_k for the next fetch; kh == KH once k >= K.
  int kh = 0, kw = 0, ci = a_k;
  while (ci >= g.C && kh < g.KH) {
    ci -= g.C;
    if (++kw == g.KW) { kw = 0; ++kh; }
  }

  float acc[8][tfc_gemm_tile<BN>::TN];
  float ra[4], rb[4];
  // Gather X'[a_m, kt + a_k .. +3] and load W[kt + b_k, n0 + b_n .. +3] into registers.
  auto fetch = [&](int kt) {
    const long long xo = row_x[a_r];
    const T* xn = X + (xo < 0 ? 0 : xo);
    const int ih0 = row_h[a_r], iw0 = row_w[a_r];
    if (xo < 0 || kh >= g.KH) {
      ra[0] = ra[1] = ra[2] = ra[3] = 0.0f;
    } else if (vx) {  // C % 4 == 0: the 4-run shares (kh, kw) and is contiguous
      const int ih = ih0 + kh * g.dh, iw = iw0 + kw * g.dw;
      const bool in = ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
      tfc_load4(xn + (in ? ((long long)ih * g.W + iw) * g.C + ci : 0), in ? 4 : 0, true, ra);
    } else {
      int c2 = ci, w2 = kw, h2 = kh;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int ih = ih0 + h2 * g.dh, iw = iw0 + w2 * g.dw;
        const bool in = h2 < g.KH && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        ra[i] = in ? tfc_to_float(xn[((long long)ih * g.W + iw) * g.C + c2]) : 0.0f;
        if (++c2 == g.C) {
          c2 = 0;
          if (++w2 == g.KW) { w2 = 0; ++h2; }
        }
      }
    }
    ci += TFC_GEMM_BK;
    while (ci >= g.C && kh < g.KH) {
      ci -= g.C;
      if (++kw == g.KW) { kw = 0; ++kh; }
    }
    if (b_load) {
      const int k2 = kt + b_k, n = n0 + b_n;
      tfc_load4(Wt + (long long)k2 * g.CO + n, k2 < K ? tfc_imin(g.CO - n, 4) : 0, vw, rb);
    }
  };
  auto stash = [&](tfc_gemm_a_row_t* As, typename tfc_gemm_tile<BN>::b_row_t* Bs) {
#pragma unroll
    for (int i = 0; i < 4; ++i) As[a_k + i][a_r] = ra[i];
    if (b_load) {
#pragma unroll
      for (int i = 0; i < 4; ++i) Bs[b_k][b_n + i] = rb[i];
    }
  };
  tfc_gemm_mainloop_n<BN>(ntiles, fetch, stash, acc);
  tfc_gemm_store_bias_act_n<BN>(Y, g.CO, m0, n0, M, g.CO, ep, acc);
}

// One stride phase (rh, rw) = (ih % sh, iw % sw) of the input gradient (see the header): its rows
// (n, i, j) are the input pixels (rh + i*sh, rw + j*sw), Hp x Wp per image; its taps are
// kh = kh0 + jh*kh_step for jh < nkh (the kh with kh*dh = rh + pt mod sh, kh_step = sh / gcd(sh, dh))
// and likewise in w; tap jh of a row whose first tap reads output row ohb reads ohb - jh*oh_step
// (oh_step = kh_step*dh / sh). Stride 1 is the single phase (0, 0, H, W, 0, KH, 1, dh, 0, KW, 1, dw).
struct CvPhase {
  int rh, rw, Hp, Wp, kh0, nkh, kh_step, oh_step, kw0, nkw, kw_step, ow_step;
};

// Input gradient, row r = m0 + tid of the stride phase's pixels: the output position its first tap
// reads, the offset of its image in dY (-1: past the last row) and of its pixel in dX.
__device__ __forceinline__ void cv_input_grad_rows(int* row_h, int* row_w, long long* row_y, long long* row_x,
                                                   long long m0, long long M, const CvGeom& g, const CvPhase& ph) {
  const int tid = threadIdx.x;
  if (tid >= CV_BM) return;
  const long long m = m0 + tid;
  if (m < M) {
    const tfc_nhw_t p = tfc_unravel_nhw(m, ph.Hp, ph.Wp);
    const int ih = ph.rh + p.h * g.sh, iw = ph.rw + p.w * g.sw;
    row_h[tid] = (ih + g.pt - ph.kh0 * g.dh) / g.sh;  // exact when the phase has taps
    row_w[tid] = (iw + g.pl - ph.kw0 * g.dw) / g.sw;
    row_y[tid] = p.n * g.OH * g.OW * g.CO;
    row_x[tid] = ((p.n * g.H + ih) * g.W + iw) * g.C;
  } else {
    row_h[tid] = row_w[tid] = 0;
    row_y[tid] = -1;
    row_x[tid] = 0;
  }
}

// Filter gradient, tap t = t0 + tid of KH*KW*C: its padded offsets (kh*dh - pt, kw*dw - pl) and input
// channel (-1: past the last tap).
__device__ __forceinline__ void cv_filter_grad_taps(int* tap_h, int* tap_w, int* tap_c, int t0, int T_,
                                                    const CvGeom& g) {
  const int tid = threadIdx.x;
  if (tid >= CV_BM) return;
  const int t = t0 + tid;
  if (t < T_) {
    const int r = t / g.C;
    tap_h[tid] = (r / g.KW) * g.dh - g.pt;
    tap_w[tid] = (r % g.KW) * g.dw - g.pl;
    tap_c[tid] = t - r * g.C;
  } else {
    tap_h[tid] = tap_w[tid] = 0;
    tap_c[tid] = -1;
  }
}

// Input gradient of one stride phase as an implicit GEMM: dX_p[Mp, C] = dY'[Mp, Kp] @ W'[Kp, C],
// Mp = N*Hp*Wp, Kp = nkh*nkw*CO over (jh, jw, co) (see the header). Thread tid gathers 4 consecutive
// k (from kq) of row a_r of the dY' tile and of column a_r of the W' tile (a_r < BN); both share k,
// so one (jh, jw, co) walk serves both.
template <typename T, int BN>
__device__ __forceinline__ void cv_input_grad(const T* __restrict__ dY, const T* __restrict__ Wt,
                                              T* __restrict__ dX, const CvGeom g, const CvPhase ph, int vec_dy,
                                              int vec_w) {
  // Per row r of the tile: the output position (ohb, owb) its first tap reads, the offset of its image
  // in dY (-1: past the last row of the phase) and of its pixel in dX. Read from shared memory at
  // each fetch and in the epilogue: fewer live registers (the 128 x 64 tile must fit 80).
  __shared__ int row_h[CV_BM], row_w[CV_BM];
  __shared__ long long row_y[CV_BM], row_x[CV_BM];
  const bool run = (g.CO & 3) == 0;  // a 4-run of k shares (jh, jw) and is contiguous in co
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * ph.Hp * ph.Wp;
  const int K = ph.nkh * ph.nkw * g.CO;
  const long long m0 = (long long)blockIdx.x * CV_BM;
  const int n0 = blockIdx.y * BN;
  cv_input_grad_rows(row_h, row_w, row_y, row_x, m0, M, g, ph);
  __syncthreads();
  const int kq = (tid & 1) << 2, a_r = tid >> 1;
  const bool b_col = BN == CV_BN || a_r < BN;  // a_r is a column of the W' tile
  const int ci = n0 + a_r;                      // this thread's column of W' (an input channel)
  const bool b_ok = b_col && ci < g.C;
  const bool vdy = vec_dy != 0, vw = vec_w != 0;
  const int ntiles = (K + CV_BK - 1) / CV_BK;
  // W is indexed in int32 (the launcher checks that it has fewer than 2^31 elements).
  // (jh, jw, co) of k = kt + kq for the next fetch; jh == nkh once k >= Kp.
  int jh = 0, jw = 0, co = kq;
  while (co >= g.CO && jh < ph.nkh) {
    co -= g.CO;
    if (++jw == ph.nkw) { jw = 0; ++jh; }
  }
  float acc[8][tfc_gemm_tile<BN>::TN];
  float ra[4], rb[4];
  auto fetch = [&](int /*kt: implied by the walk*/) {
    const long long yo = row_y[a_r];
    const int ohb = row_h[a_r], owb = row_w[a_r];
    if (run) {
      const bool kin = jh < ph.nkh;
      const int oh = ohb - jh * ph.oh_step, ow = owb - jw * ph.ow_step;
      const bool in = yo >= 0 && kin && oh >= 0 && oh < g.OH && ow >= 0 && ow < g.OW;
      tfc_load4(dY + (in ? yo + ((long long)oh * g.OW + ow) * g.CO + co : 0), in ? 4 : 0, vdy, ra);
      const int tap = (ph.kh0 + jh * ph.kh_step) * g.KW + ph.kw0 + jw * ph.kw_step;
      const bool bin = b_ok && kin;
      tfc_load4(Wt + (bin ? (tap * g.C + ci) * g.CO + co : 0), bin ? 4 : 0, vw, rb);
    } else {
      int c2 = co, w2 = jw, h2 = jh;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const bool kin = h2 < ph.nkh;
        const int oh = ohb - h2 * ph.oh_step, ow = owb - w2 * ph.ow_step;
        const bool in = yo >= 0 && kin && oh >= 0 && oh < g.OH && ow >= 0 && ow < g.OW;
        ra[i] = in ? tfc_to_float(dY[yo + ((long long)oh * g.OW + ow) * g.CO + c2]) : 0.0f;
        const int tap = (ph.kh0 + h2 * ph.kh_step) * g.KW + ph.kw0 + w2 * ph.kw_step;
        rb[i] = b_ok && kin ? tfc_to_float(Wt[(tap * g.C + ci) * g.CO + c2]) : 0.0f;
        if (++c2 == g.CO) {
          c2 = 0;
          if (++w2 == ph.nkw) { w2 = 0; ++h2; }
        }
      }
    }
    co += CV_BK;
    while (co >= g.CO && jh < ph.nkh) {
      co -= g.CO;
      if (++jw == ph.nkw) { jw = 0; ++jh; }
    }
  };
  auto stash = [&](tfc_gemm_a_row_t* As, typename tfc_gemm_tile<BN>::b_row_t* Bs) {
#pragma unroll
    for (int i = 0; i < 4; ++i) As[kq + i][a_r] = ra[i];
    if (b_col) {
#pragma unroll
      for (int i = 0; i < 4; ++i) Bs[kq + i][a_r] = rb[i];
    }
  };
  tfc_gemm_mainloop_n<BN>(ntiles, fetch, stash, acc);
  tfc_gemm_store_rows<BN>(dX, [&](long long m) { return row_x[m - m0]; }, m0, n0, M, g.C, acc);
}

// Filter gradient as a split-K implicit GEMM: part[z, T, CO] = X'^T @ dY over slice z of the
// k-tiles of M = N*OH*OW (see the header). Thread tid gathers, for reduction row mk of each
// k-tile, taps q4..q4+3 of the X' tile and columns q4..q4+3 of the dY tile; both share the
// row, so one (n, oh, ow) walk serves both.
template <typename T, int BN>
__device__ __forceinline__ void cv_filter_grad(const T* __restrict__ X, const T* __restrict__ dY,
                                               float* __restrict__ part, const CvGeom g, int tiles_per_split,
                                               int vec_x, int vec_dy) {
  // Per tap of the row tile: kh*dh - pt, kw*dw - pl and ci (-1: past the last tap).
  __shared__ int tap_h[CV_BM], tap_w[CV_BM], tap_c[CV_BM];
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * g.OH * g.OW;
  const int T_ = g.KH * g.KW * g.C;
  const int t0 = blockIdx.x * CV_BM, n0 = blockIdx.y * BN;
  // This block's slice of the reduction: rows [m_begin, m_begin + slice_rows) of N*OH*OW.
  const long long m_begin = (long long)blockIdx.z * tiles_per_split * CV_BK;
  const long long left = M - m_begin;
  const int slice_rows = left <= 0 ? 0 : (int)(left < (long long)tiles_per_split * CV_BK ? left
                                                                                      : tiles_per_split * CV_BK);
  const int ntiles = (slice_rows + CV_BK - 1) / CV_BK;
  const int mk = tid >> 5, q4 = (tid & 31) << 2;
  const bool b_col = BN == CV_BN || q4 < BN;  // q4 is a column of the dY tile
  const bool run = (g.C & 3) == 0;  // a 4-run of taps shares (kh, kw) and is contiguous in ci
  const bool vx = vec_x != 0, vdy = vec_dy != 0;
  const long long hwc = (long long)g.H * g.W * g.C;
  float* out = part + (long long)blockIdx.z * T_ * g.CO;
  cv_filter_grad_taps(tap_h, tap_w, tap_c, t0, T_, g);
  __syncthreads();
  // Row r = m_begin + i of the slice for the next fetch: i (rows_left = slice rows - i), its
  // (oh, ow), image n of X, and dY's row r at columns n0 + q4.
  int rows_left = slice_rows - mk, oh = 0, ow = 0;
  const T* xn = X;
  const T* dyr = dY;
  if (rows_left > 0) {
    const tfc_nhw_t p = tfc_unravel_nhw(m_begin + mk, g.OH, g.OW);
    oh = p.h;
    ow = p.w;
    xn = X + p.n * hwc;
    dyr = dY + (m_begin + mk) * g.CO + n0 + q4;
  }
  float acc[8][tfc_gemm_tile<BN>::TN];
  float ra[4], rb[4];
  auto fetch = [&](int /*kt: implied by the walk*/) {
    const bool mok = rows_left > 0;
    const int ihb = oh * g.sh, iwb = ow * g.sw;
    if (run) {  // (re-read from shared memory each time: fewer live registers)
      const int c = tap_c[q4], ih = ihb + tap_h[q4], iw = iwb + tap_w[q4];
      const bool in = mok && c >= 0 && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
      tfc_load4(xn + (in ? (ih * g.W + iw) * g.C + c : 0), in ? 4 : 0, vx, ra);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int c = tap_c[q4 + i], ih = ihb + tap_h[q4 + i], iw = iwb + tap_w[q4 + i];
        const bool in = mok && c >= 0 && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        ra[i] = in ? tfc_to_float(xn[(ih * g.W + iw) * g.C + c]) : 0.0f;
      }
    }
    if (b_col) tfc_load4(dyr, mok ? tfc_imin(g.CO - n0 - q4, 4) : 0, vdy, rb);
    rows_left -= CV_BK;
    if (rows_left > 0) {
      dyr += CV_BK * g.CO;
      ow += CV_BK;
      while (ow >= g.OW) {
        ow -= g.OW;
        if (++oh == g.OH) { oh = 0; xn += hwc; }
      }
    }
  };
  auto stash = [&](tfc_gemm_a_row_t* As, typename tfc_gemm_tile<BN>::b_row_t* Bs) {
    *reinterpret_cast<float4*>(&As[mk][q4]) = make_float4(ra[0], ra[1], ra[2], ra[3]);
    if (b_col) *reinterpret_cast<float4*>(&Bs[mk][q4]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
  };
  tfc_gemm_mainloop_n<BN>(ntiles, fetch, stash, acc);
  tfc_gemm_store_n<BN>(out, g.CO, t0, n0, T_, g.CO, acc);
}

// out[i] = sum over z = 0, 1, ..., splits-1 of part[z * count + i], in that order, in float32.
template <typename T>
__device__ __forceinline__ void cv_sum_splits(const float* __restrict__ part, T* __restrict__ out, int splits,
                                              long long count) {
  for (long long i = tfc_global_thread_id(); i < count; i += tfc_grid_stride()) {
    float s = 0.0f;
    for (int z = 0; z < splits; ++z) s += part[z * count + i];
    tfc_store(out + i, s);
  }
}

// ---- depthwise forward and input gradient: channel-group tiles, filter taps in shared memory ----------
// Block (bx, by), bx * by = CV_DW_THREADS, bx = min(32, next power of two >= the channel count along x):
// thread (tx, ty) computes, for each pixel tile (grid-stride over gridDim.y), one element: channel
// c0 + tx (c0 = blockIdx.x * bx) of pixel tile * by + ty. Consecutive lanes take consecutive channels of
// the same pixel, so the activations / gradients are read coalesced along NHWC's innermost dimension; a
// warp covers 32 / bx pixels. The block's filter taps for its channels are staged once (float32, also for
// float16 filters) in `ws` (CV_DW_SMEM_FLOATS floats, declared by the entry), [pair][tx] with
// pair = tap (forward) or tap * Q + q (input gradient): conflict-free reads. When the taps do not fit
// (pairs * bx > CV_DW_SMEM_FLOATS) they are staged in chunks of CV_DW_SMEM_FLOATS / bx pairs, per
// pixel tile, between barriers. Accumulation in float32, in (kh, kw, q) order.
// Grid: (ceil(channels / bx), min(ceil(pixels / by), 65535)).

// Stages filter pairs [j0, j1) for the block's channels: ws[(j - j0) * bx + t] = Wt[pair j, column
// col0 + t], where pair j is filter element (tap = j / Q, q = j % Q) of channel (col0 + t) (Q = 1 and
// col = output channel for the forward), zero past `cols` channels.
template <typename T>
__device__ __forceinline__ void dw_stage(const T* __restrict__ Wt, float* ws, int j0, int j1, int col0, int cols,
                                         int Q, int CO) {
  const int bx = blockDim.x, tid = threadIdx.y * bx + threadIdx.x, nthreads = bx * blockDim.y;
  const int n = (j1 - j0) * bx;
  for (int e = tid; e < n; e += nthreads) {
    const int j = j0 + e / bx, col = col0 + e % bx;
    const int tap = j / Q, q = j - tap * Q;
    ws[e] = col < cols ? tfc_to_float(Wt[(long long)tap * CO + (long long)col * Q + q]) : 0.0f;
  }
}

// (n, h, w) of a flat pixel index i < 2^31 (a block's first pixel, or the grid's step: at most 65535 x
// 256) with 32-bit divides only: a 64-bit divide is a subroutine call, whose ABI costs stack and spills.
TFC_DEVICE_INLINE tfc_nhw_t dw_unravel_small(int i, int H, int W) {
  tfc_nhw_t p;
  const long long hw = (long long)H * W;
  int r = i;
  p.n = 0;
  if (hw <= i) {  // then hw < 2^31
    p.n = i / (int)hw;
    r = i - (int)p.n * (int)hw;
  }
  p.h = r / W;
  p.w = r - p.h * W;
  return p;
}

// Advances pixel p by a step whose digits (d.n, d.h < H, d.w < W) were decoded once: no 64-bit divide
// inside the pixel-tile loops.
TFC_DEVICE_INLINE void dw_advance(tfc_nhw_t& p, const tfc_nhw_t& d, int H, int W) {
  p.w += d.w;
  if (p.w >= W) { p.w -= W; ++p.h; }
  p.h += d.h;
  if (p.h >= H) { p.h -= H; ++p.n; }
  p.n += d.n;
}

// Depthwise forward: X (N,H,W,C), W (KH,KW,C,Q), Y (N,OH,OW,C*Q); g.CO = C*Q. x runs over output
// channels oc (input channel oc / Q), pairs are the KH*KW taps.
template <typename T>
__device__ __forceinline__ void dw_forward(const T* __restrict__ X, const T* __restrict__ Wt, T* __restrict__ Y,
                                           const CvGeom g, float* ws) {
  const int Q = g.CO / g.C;
  const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int oc0 = blockIdx.x * bx, oc = oc0 + tx, c = oc / Q;
  const int taps = g.KH * g.KW, chunk = CV_DW_SMEM_FLOATS / bx;
  const bool one_chunk = taps <= chunk;
  const long long M = (long long)g.N * g.OH * g.OW;
  if (one_chunk) {
    dw_stage(Wt, ws, 0, taps, oc0, g.CO, 1, g.CO);
    __syncthreads();
  }
  const int stride = gridDim.y * by;
  tfc_nhw_t o = dw_unravel_small(blockIdx.y * by + ty, g.OH, g.OW);
  const tfc_nhw_t step = dw_unravel_small(stride, g.OH, g.OW);
  // base: the tile's first pixel, uniform over the block (barriers inside)
  for (long long base = (long long)blockIdx.y * by; base < M; base += stride, dw_advance(o, step, g.OH, g.OW)) {
    const long long m = base + ty;
    const bool active = m < M && oc < g.CO;
    const T* xn = X + o.n * g.H * g.W * g.C + c;
    const int ih0 = o.h * g.sh - g.pt, iw0 = o.w * g.sw - g.pl;
    float s = 0.0f;
    for (int t0 = 0; t0 < taps; t0 += chunk) {
      const int t1 = t0 + chunk < taps ? t0 + chunk : taps;
      if (!one_chunk) {
        __syncthreads();  // the previous chunk's readers are done (mutant: dw-fwd-tap-chunks)
        dw_stage(Wt, ws, t0, t1, oc0, g.CO, 1, g.CO);
        __syncthreads();
      }
      if (!active) continue;
      for (int t = t0; t < t1; ++t) {
        const int kh = t / g.KW, kw = t - kh * g.KW;
        const int ih = ih0 + kh * g.dh, iw = iw0 + kw * g.dw;
        if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
        s = fmaf(tfc_to_float(xn[((long long)ih * g.W + iw) * g.C]), ws[(t - t0) * bx + tx], s);
      }
    }
    if (active) tfc_store(Y + m * g.CO + oc, s);
  }
}

// Depthwise input gradient: dX[n, ih, iw, c] = sum over (kh, kw, q) of dY[n, oh, ow, c*Q + q] * W[kh, kw, c, q],
// where (oh, ow) is the output position whose tap (kh, kw) reads (ih, iw) (none when the stride does not
// divide or it is out of range). x runs over input channels c; pairs are (tap, q), KH*KW*Q of them.
template <typename T>
__device__ __forceinline__ void dw_input_grad(const T* __restrict__ dY, const T* __restrict__ Wt,
                                              T* __restrict__ dX, const CvGeom g, float* ws) {
  const int Q = g.CO / g.C;  // depthwise multiplier
  const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int c0 = blockIdx.x * bx, c = c0 + tx;
  const int pairs = g.KH * g.KW * Q, chunk = CV_DW_SMEM_FLOATS / bx;
  const bool one_chunk = pairs <= chunk;
  const long long P = (long long)g.N * g.H * g.W;
  if (one_chunk) {
    dw_stage(Wt, ws, 0, pairs, c0, g.C, Q, g.CO);
    __syncthreads();
  }
  const int stride = gridDim.y * by;
  tfc_nhw_t p = dw_unravel_small(blockIdx.y * by + ty, g.H, g.W);
  const tfc_nhw_t step = dw_unravel_small(stride, g.H, g.W);
  // base: the tile's first pixel, uniform over the block (barriers inside)
  for (long long base = (long long)blockIdx.y * by; base < P; base += stride, dw_advance(p, step, g.H, g.W)) {
    const long long pix = base + ty;
    const bool active = pix < P && c < g.C;
    const T* dyn = dY + p.n * g.OH * g.OW * g.CO + (long long)c * Q;
    float s = 0.0f;
    for (int j0 = 0; j0 < pairs; j0 += chunk) {
      const int j1 = j0 + chunk < pairs ? j0 + chunk : pairs;
      if (!one_chunk) {
        __syncthreads();  // the previous (tap, q) chunk's readers are done (mutant: dw-input-grad-tap-chunks)
        dw_stage(Wt, ws, j0, j1, c0, g.C, Q, g.CO);
        __syncthreads();
      }
      if (!active) continue;
      for (int t = j0 / Q; t * Q < j1; ++t) {  // the taps with a pair in [j0, j1)
        const int kh = t / g.KW, kw = t - kh * g.KW;
        int oh, ow;
        if (!cv_out_index(p.h + g.pt - kh * g.dh, g.sh, g.OH, oh)) continue;
        if (!cv_out_index(p.w + g.pl - kw * g.dw, g.sw, g.OW, ow)) continue;
        const T* dy = dyn + ((long long)oh * g.OW + ow) * g.CO;
        const int qa = j0 > t * Q ? j0 - t * Q : 0, qb = j1 - t * Q < Q ? j1 - t * Q : Q;
        for (int q = qa; q < qb; ++q) s = fmaf(tfc_to_float(dy[q]), ws[(t * Q + q - j0) * bx + tx], s);
      }
    }
    if (active) tfc_store(dX + pix * g.C + c, s);
  }
}

// Depthwise filter gradient, dW viewed as (KH*KW taps, CO = C*Q): block (CV_GRAD_X, CV_GRAD_Y) per
// (tap, CV_GRAD_X output channels); threadIdx.y strides over the block's slice
// [z * rows_per_split, (z + 1) * rows_per_split) of N*OH*OW, the CV_GRAD_Y sums are combined in
// shared memory and written to the float32 partials part[z, tap, co].
// Grid: (ceil(CO / CV_GRAD_X), min(taps, 65535), splits), grid-stride over the taps.
template <typename T>
__device__ __forceinline__ void dw_filter_grad(const T* __restrict__ X, const T* __restrict__ dY,
                                               float* __restrict__ part, const CvGeom g, int rows_per_split) {
  __shared__ float red[CV_GRAD_Y][CV_GRAD_X + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int co = blockIdx.x * CV_GRAD_X + tx;
  const int Q = g.CO / g.C;
  const int c = co / Q;  // the input channel column co reads
  const long long M = (long long)g.N * g.OH * g.OW;
  const int taps = g.KH * g.KW;
  const long long m_begin = (long long)blockIdx.z * rows_per_split;
  const long long m_end = M < m_begin + rows_per_split ? M : m_begin + rows_per_split;
  const long long hwc = (long long)g.H * g.W * g.C;
  float* out = part + (long long)blockIdx.z * taps * g.CO;
  for (int kidx = blockIdx.y; kidx < taps; kidx += gridDim.y) {
    const int hoff = (kidx / g.KW) * g.dh - g.pt, woff = (kidx % g.KW) * g.dw - g.pl;
    float s = 0.0f;
    long long m = m_begin + ty;
    if (co < g.CO && m < m_end) {
      const tfc_nhw_t p = tfc_unravel_nhw(m, g.OH, g.OW);
      int oh = p.h, ow = p.w;
      const T* xn = X + p.n * hwc + c;
      for (; m < m_end; m += CV_GRAD_Y) {
        const int ih = oh * g.sh + hoff, iw = ow * g.sw + woff;
        if (ih >= 0 && ih < g.H && iw >= 0 && iw < g.W)
          s = fmaf(tfc_to_float(xn[((long long)ih * g.W + iw) * g.C]), tfc_to_float(dY[m * g.CO + co]), s);
        ow += CV_GRAD_Y;
        while (ow >= g.OW) {
          ow -= g.OW;
          if (++oh == g.OH) { oh = 0; xn += hwc; }
        }
      }
    }
    red[ty][tx] = s;
    __syncthreads();  // (mutant: dw-filter-grad-partials)
    if (ty == 0 && co < g.CO) {
      float t = 0.0f;
#pragma unroll
      for (int y = 0; y < CV_GRAD_Y; ++y) t += red[y][tx];
      out[(long long)kidx * g.CO + co] = t;
    }
    __syncthreads();  // red is rewritten for the next tap (mutant: dw-filter-grad-trailing)
  }
}

#if defined(TFC_HAS_MMA_M16N8K16)
// ---- tensor-core implicit GEMMs (sm_80+ and the emulator) ------------------------------------------------
// The same three GEMMs, gathers and geometry as the SIMT kernels above, on common.cuh's tensor-core tile
// (tfc_tc_mainloop: 128 x 128, 8 warps of 64 x 32, float16 through mma m16n8k16 or float32 as TF32 through
// mma m16n8k8 with inputs rounded by cvt.rna.tf32.f32, float32 accumulators, a CV_TC_STAGES-deep cp.async
// pipeline in CV_TC_SMEM_BYTES of dynamic shared memory, k-tiles of CV_TC_BK_F16 halves / CV_TC_BK_F32
// floats). Each thread fills 2 chunks of 16 bytes (8 halves / 4 floats) per operand per k-tile at the
// slots of common.cuh's map; a chunk's elements are consecutive channels of one tap, so when the channel
// count along k (C for the forward's X' and wgrad's X'^T, CO for dgrad's dY' and W', and the N side of
// the dense operands) is a multiple of the chunk (and the tensor 16-byte aligned: vec_*), a chunk is one
// cp.async with zero fill for padding, out-of-range taps and rows; otherwise the chunk is gathered element
// by element and stored to shared memory synchronously in the same pipeline slot. The k walks are
// incremental as in the SIMT kernels (load_stage is called once per k-tile, in order).
//   forward: A = X' [m][k] (rows along k), B = W [k][n] (a dense K x CO matrix).
//   dgrad:   A = dY' [m][k], B = W' [n = ci][k = (jh, jw, co)], contiguous in co: both gathered with
//            one (jh, jw, co) walk (each thread's chunks share one k column).
//   wgrad:   A = X'^T [k = output row][m = tap], contiguous in ci; B = dY [k][n] (rows of dY): both in
//            [k][mn] form with the same k rows per thread, so one walk over N*OH*OW serves both.
//            Split-K over gridDim.z slices of `rows_per_split` rows (a multiple of the k-tile), float32
//            partials summed in a fixed order by conv2d_filter_grad_sum_* as for the SIMT kernels.
// Entries: conv2d_{fwd,input_grad,filter_grad}_tc_f16 (float16) and _tc_tf32 (float32 as TF32), with the
// SIMT entries' arguments (wgrad: rows_per_split instead of tiles_per_split); __launch_bounds__(256,
// CV_TC_MIN_BLOCKS): at most 128 registers, 2 blocks (16 warps) per SM. The per-row decode tables stay in
// shared memory as in the SIMT kernels.
#define CV_TC_BK_F16 TFC_TC_BK_F16
#define CV_TC_BK_F32 TFC_TC_BK_F32
#define CV_TC_STAGES TFC_TC_STAGES
#define CV_TC_SMEM_BYTES TFC_TC_SMEM_BYTES
#define CV_TC_MIN_BLOCKS 2

template <typename T>
__device__ __noinline__ void cv_forward_tc(const T* __restrict__ X, const T* __restrict__ Wt, T* __restrict__ Y,
                                           const CvGeom g, bool vx, bool vw, const tfc_epilogue<T> ep) {
  typedef tfc_tc_traits<T> tr;
  constexpr int E = tr::E;
  TFC_DYNAMIC_SHARED(T, smem);
  __shared__ int row_h[CV_BM], row_w[CV_BM];
  __shared__ long long row_x[CV_BM];
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * g.OH * g.OW;
  const int K = g.KH * g.KW * g.C;
  const long long m0 = (long long)blockIdx.y * CV_BM;
  const int n0 = blockIdx.x * CV_BN;
  cv_forward_rows(row_h, row_w, row_x, m0, M, g);
  __syncthreads();
  const int a_row = tfc_tc_kc_row(tid), a_col = tfc_tc_kc_col<T>(tid);
  // (kh, kw, ci) of k = kt + a_col for the next k-tile; kh == KH once k >= K.
  int kh = 0, kw = 0, ci = a_col;
  while (ci >= g.C && kh < g.KH) {
    ci -= g.C;
    if (++kw == g.KW) { kw = 0; ++kh; }
  }
  auto load_stage = [&](int kt_index, T* As, T* Bs) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = a_row + 64 * r;
      const long long xo = row_x[row];
      const int ih0 = row_h[row], iw0 = row_w[row];
      T* dst = As + row * tr::ROW_KC + a_col;
      if (vx) {  // C % E == 0: the chunk is E channels of one tap
        const int ih = ih0 + kh * g.dh, iw = iw0 + kw * g.dw;
        const bool in = xo >= 0 && kh < g.KH && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        const T* src = in ? X + xo + ((long long)ih * g.W + iw) * g.C + ci : X;
        tfc_cp_async_cg16(dst, src, in ? 16 : 0);
      } else {
        T v[E];
        int c2 = ci, w2 = kw, h2 = kh;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int ih = ih0 + h2 * g.dh, iw = iw0 + w2 * g.dw;
          const bool in = xo >= 0 && h2 < g.KH && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
          v[e] = in ? X[xo + ((long long)ih * g.W + iw) * g.C + c2] : tfc_tc_zero(T());
          if (++c2 == g.C) {
            c2 = 0;
            if (++w2 == g.KW) { w2 = 0; ++h2; }
          }
        }
        tfc_tc_store_chunk(dst, v);
      }
    }
    ci += tr::BK;
    while (ci >= g.C && kh < g.KH) {
      ci -= g.C;
      if (++kw == g.KW) { kw = 0; ++kh; }
    }
    tfc_tc_load_tile<T, false>(Bs, Wt, g.CO, n0, g.CO, kt_index * tr::BK, K, tid, vw);
  };
  float acc[4][4][4];
  tfc_tc_mainloop<T, false, false>((K + tr::BK - 1) / tr::BK, smem, load_stage, acc);
  const bool pairs = (g.CO & 1) == 0 && ((unsigned long long)Y % (2 * sizeof(T))) == 0;
  const long long co = g.CO;
  tfc_tc_store_bias_act_rows(Y, [co](long long m) { return m * co; }, m0, n0, M, g.CO, pairs, ep, acc);
}

// One stride phase of the input gradient (see cv_input_grad and CvPhase).
template <typename T>
__device__ __noinline__ void cv_input_grad_tc(const T* __restrict__ dY, const T* __restrict__ Wt,
                                              T* __restrict__ dX, const CvGeom g, const CvPhase ph, bool vdy,
                                              bool vw) {
  typedef tfc_tc_traits<T> tr;
  constexpr int E = tr::E;
  TFC_DYNAMIC_SHARED(T, smem);
  __shared__ int row_h[CV_BM], row_w[CV_BM];
  __shared__ long long row_y[CV_BM], row_x[CV_BM];
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * ph.Hp * ph.Wp;
  const int K = ph.nkh * ph.nkw * g.CO;
  const long long m0 = (long long)blockIdx.x * CV_BM;
  const int n0 = blockIdx.y * CV_BN;
  cv_input_grad_rows(row_h, row_w, row_y, row_x, m0, M, g, ph);
  __syncthreads();
  const int a_row = tfc_tc_kc_row(tid), a_col = tfc_tc_kc_col<T>(tid);
  // (jh, jw, co) of k = kt + a_col for the next k-tile (A's and B's chunks share it); jh == nkh once k >= Kp.
  int jh = 0, jw = 0, co = a_col;
  while (co >= g.CO && jh < ph.nkh) {
    co -= g.CO;
    if (++jw == ph.nkw) { jw = 0; ++jh; }
  }
  auto load_stage = [&](int, T* As, T* Bs) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = a_row + 64 * r;
      const long long yo = row_y[row];
      const int ohb = row_h[row], owb = row_w[row];
      const int cn = n0 + row;  // this row of the W' tile: input channel cn
      T* da = As + row * tr::ROW_KC + a_col;
      T* db = Bs + row * tr::ROW_KC + a_col;
      if (vdy && vw) {  // CO % E == 0: a chunk is E output channels of one tap
        const bool kin = jh < ph.nkh;
        const int oh = ohb - jh * ph.oh_step, ow = owb - jw * ph.ow_step;
        const bool in = yo >= 0 && kin && oh >= 0 && oh < g.OH && ow >= 0 && ow < g.OW;
        tfc_cp_async_cg16(da, in ? dY + yo + ((long long)oh * g.OW + ow) * g.CO + co : dY, in ? 16 : 0);
        const int tap = (ph.kh0 + jh * ph.kh_step) * g.KW + ph.kw0 + jw * ph.kw_step;
        const bool bin = kin && cn < g.C;
        tfc_cp_async_cg16(db, bin ? Wt + (tap * g.C + cn) * g.CO + co : Wt, bin ? 16 : 0);
      } else {
        T va[E], vb[E];
        int c2 = co, w2 = jw, h2 = jh;
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const bool kin = h2 < ph.nkh;
          const int oh = ohb - h2 * ph.oh_step, ow = owb - w2 * ph.ow_step;
          const bool in = yo >= 0 && kin && oh >= 0 && oh < g.OH && ow >= 0 && ow < g.OW;
          va[e] = in ? dY[yo + ((long long)oh * g.OW + ow) * g.CO + c2] : tfc_tc_zero(T());
          const int tap = (ph.kh0 + h2 * ph.kh_step) * g.KW + ph.kw0 + w2 * ph.kw_step;
          vb[e] = kin && cn < g.C ? Wt[(tap * g.C + cn) * g.CO + c2] : tfc_tc_zero(T());
          if (++c2 == g.CO) {
            c2 = 0;
            if (++w2 == ph.nkw) { w2 = 0; ++h2; }
          }
        }
        tfc_tc_store_chunk(da, va);
        tfc_tc_store_chunk(db, vb);
      }
    }
    co += tr::BK;
    while (co >= g.CO && jh < ph.nkh) {
      co -= g.CO;
      if (++jw == ph.nkw) { jw = 0; ++jh; }
    }
  };
  float acc[4][4][4];
  tfc_tc_mainloop<T, false, true>((K + tr::BK - 1) / tr::BK, smem, load_stage, acc);
  const bool pairs = (g.C & 1) == 0 && ((unsigned long long)dX % (2 * sizeof(T))) == 0;
  tfc_tc_store_rows(dX, [&](long long m) { return row_x[m - m0]; }, m0, n0, M, g.C, pairs, acc);
}

// Split-K filter gradient: part[z, T, CO] = X'^T @ dY over rows [z * rows_per_split, ...) of N*OH*OW.
template <typename T>
__device__ __noinline__ void cv_filter_grad_tc(const T* __restrict__ X, const T* __restrict__ dY,
                                               float* __restrict__ part, const CvGeom g, int rows_per_split,
                                               bool vx, bool vdy) {
  typedef tfc_tc_traits<T> tr;
  constexpr int E = tr::E, D = tfc_tc_mn_row_step<T>::value;
  TFC_DYNAMIC_SHARED(T, smem);
  // Per tap of the row tile: kh*dh - pt, kw*dw - pl and ci (-1: past the last tap).
  __shared__ int tap_h[CV_BM], tap_w[CV_BM], tap_c[CV_BM];
  const int tid = threadIdx.x;
  const long long M = (long long)g.N * g.OH * g.OW;
  const int T_ = g.KH * g.KW * g.C;
  const int t0 = blockIdx.x * CV_BM, n0 = blockIdx.y * CV_BN;
  const long long m_begin = (long long)blockIdx.z * rows_per_split;
  const long long left = M - m_begin;
  const int slice_rows = left <= 0 ? 0 : (int)(left < rows_per_split ? left : rows_per_split);
  const long long hwc = (long long)g.H * g.W * g.C;
  cv_filter_grad_taps(tap_h, tap_w, tap_c, t0, T_, g);
  __syncthreads();
  // This thread's k rows (output rows i and i + D of each k-tile) and mn column (taps col.., dY columns col..).
  const int k_row = tfc_tc_mn_row<T>(tid), col = tfc_tc_mn_col<T>(tid);
  // Output row m_begin + i for the next k-tile: i (rows_left = slice_rows - i), its (oh, ow) and the
  // offset of its image in X.
  int rows_left = slice_rows - k_row, oh = 0, ow = 0;
  long long xn = 0;
  if (rows_left > 0) {
    const tfc_nhw_t p = tfc_unravel_nhw(m_begin + k_row, g.OH, g.OW);
    oh = p.h;
    ow = p.w;
    xn = p.n * hwc;
  }
  auto load_stage = [&](int, T* As, T* Bs) {
    int oh2 = oh, ow2 = ow;
    long long xn2 = xn;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      if (r == 1) {  // row i + D
        ow2 += D;
        while (ow2 >= g.OW) {
          ow2 -= g.OW;
          if (++oh2 == g.OH) { oh2 = 0; xn2 += hwc; }
        }
      }
      const bool mok = rows_left - D * r > 0;
      const long long m = m_begin + slice_rows - rows_left + D * r;
      const int ihb = oh2 * g.sh, iwb = ow2 * g.sw;
      T* da = As + (k_row + D * r) * TFC_TC_ROW_MN + col;
      T* db = Bs + (k_row + D * r) * TFC_TC_ROW_MN + col;
      if (vx) {  // C % E == 0: the chunk is E channels of one tap
        const int c = tap_c[col], ih = ihb + tap_h[col], iw = iwb + tap_w[col];
        const bool in = mok && c >= 0 && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
        tfc_cp_async_cg16(da, in ? X + xn2 + ((long long)ih * g.W + iw) * g.C + c : X, in ? 16 : 0);
      } else {
        T v[E];
#pragma unroll
        for (int e = 0; e < E; ++e) {
          const int c = tap_c[col + e], ih = ihb + tap_h[col + e], iw = iwb + tap_w[col + e];
          const bool in = mok && c >= 0 && ih >= 0 && ih < g.H && iw >= 0 && iw < g.W;
          v[e] = in ? X[xn2 + ((long long)ih * g.W + iw) * g.C + c] : tfc_tc_zero(T());
        }
        tfc_tc_store_chunk(da, v);
      }
      const int nv = mok ? tfc_imax(tfc_imin(g.CO - n0 - col, E), 0) : 0;
      const T* src = dY + m * g.CO + n0 + col;
      if (vdy)
        tfc_cp_async_cg16(db, nv > 0 ? src : dY, nv * (int)sizeof(T));
      else
        tfc_tc_store_chunk_sync(db, src, nv);
    }
    rows_left -= tr::BK;
    if (rows_left > 0) {
      ow += tr::BK;
      while (ow >= g.OW) {
        ow -= g.OW;
        if (++oh == g.OH) { oh = 0; xn += hwc; }
      }
    }
  };
  float acc[4][4][4];
  tfc_tc_mainloop<T, true, false>((slice_rows + tr::BK - 1) / tr::BK, smem, load_stage, acc);
  float* out = part + (long long)blockIdx.z * T_ * g.CO;
  const bool pairs = (g.CO & 1) == 0 && ((unsigned long long)out % 8) == 0;
  const long long co = g.CO;
  tfc_tc_store_rows(out, [co](int t) { return (long long)t * co; }, t0, n0, T_, g.CO, pairs, acc);
}
#endif  // TFC_HAS_MMA_M16N8K16

// Every entry takes the same geometry list after its three pointers.
#define CV_ARGS                                                                                    \
  int N, int H, int W, int C, int OH, int OW, int KH, int KW, int CO, int sh, int sw, int dh, int dw, \
      int pt, int pl
#define CV_GEOM CvGeom{N, H, W, C, OH, OW, KH, KW, CO, sh, sw, dh, dw, pt, pl}
// The stride phase of an input-gradient launch (CvPhase).
#define CV_PHASE_ARGS                                                                                \
  int rh, int rw, int Hp, int Wp, int kh0, int nkh, int kh_step, int oh_step, int kw0, int nkw, int kw_step, \
      int ow_step
#define CV_PHASE CvPhase{rh, rw, Hp, Wp, kh0, nkh, kh_step, oh_step, kw0, nkw, kw_step, ow_step}
#define CV_GEMM_BOUNDS __launch_bounds__(CV_THREADS, CV_MIN_BLOCKS)
#define CV_NARROW_BOUNDS __launch_bounds__(CV_THREADS, CV_NARROW_BOUNDS_BLOCKS)

// The three GEMM entries of one tile shape: conv2d_{fwd,input_grad,filter_grad}{TILE}_SUF.
#define CV_GEMM_ENTRIES(TILE, BOUNDS, BN, SUF, T)                                                        \
  extern "C" __global__ void BOUNDS conv2d_fwd##TILE##_##SUF(const T* x, const T* w, T* y, CV_ARGS,       \
                                                             int vec_x, int vec_w, const T* bias, int act) { \
    cv_forward<T, BN>(x, w, y, CV_GEOM, vec_x, vec_w, tfc_epilogue<T>{bias, act});                       \
  }                                                                                                      \
  extern "C" __global__ void BOUNDS conv2d_input_grad##TILE##_##SUF(                                     \
      const T* dy, const T* w, T* dx, CV_ARGS, CV_PHASE_ARGS, int vec_dy, int vec_w) {                   \
    cv_input_grad<T, BN>(dy, w, dx, CV_GEOM, CV_PHASE, vec_dy, vec_w);                                   \
  }                                                                                                      \
  extern "C" __global__ void BOUNDS conv2d_filter_grad##TILE##_##SUF(                                    \
      const T* x, const T* dy, float* part, CV_ARGS, int tiles_per_split, int vec_x, int vec_dy) {       \
    cv_filter_grad<T, BN>(x, dy, part, CV_GEOM, tiles_per_split, vec_x, vec_dy);                         \
  }

// 128 x 128 tiles: conv2d_fwd_f32, ...; 128 x 64 tiles (GEMM N <= 64): conv2d_fwd_n64_f32, ...
#define CV_ENTRIES(SUF, T)                                                                                 \
  CV_GEMM_ENTRIES(, CV_GEMM_BOUNDS, CV_BN, SUF, T)                                                        \
  CV_GEMM_ENTRIES(_n64, CV_NARROW_BOUNDS, CV_BN_NARROW, SUF, T)                                           \
  extern "C" __global__ void conv2d_filter_grad_sum_##SUF(const float* part, T* dw_, int splits,          \
                                                          long long count) {                               \
    cv_sum_splits<T>(part, dw_, splits, count);                                                            \
  }                                                                                                        \
  extern "C" __global__ void depthwise_fwd_##SUF(const T* x, const T* w, T* y, CV_ARGS) {                  \
    __shared__ float ws[CV_DW_SMEM_FLOATS];                                                                \
    dw_forward<T>(x, w, y, CV_GEOM, ws);                                                                   \
  }                                                                                                        \
  extern "C" __global__ void depthwise_input_grad_##SUF(const T* dy, const T* w, T* dx, CV_ARGS) {         \
    __shared__ float ws[CV_DW_SMEM_FLOATS];                                                                \
    dw_input_grad<T>(dy, w, dx, CV_GEOM, ws);                                                              \
  }                                                                                                        \
  extern "C" __global__ void depthwise_filter_grad_##SUF(const T* x, const T* dy, float* part, CV_ARGS,    \
                                                         int rows_per_split) {                             \
    dw_filter_grad<T>(x, dy, part, CV_GEOM, rows_per_split);                                               \
  }

CV_ENTRIES(f32, float)
CV_ENTRIES(f16, __half)

#if defined(TFC_HAS_MMA_M16N8K16)
// Tensor-core entries: conv2d_{fwd,input_grad,filter_grad}_tc_f16 (float16, mma m16n8k16) and
// conv2d_*_tc_tf32 (float32 as TF32, mma m16n8k8). Dynamic shared memory: CV_TC_SMEM_BYTES.
#define CV_TC_BOUNDS __launch_bounds__(CV_THREADS, CV_TC_MIN_BLOCKS)
#define CV_TC_ENTRIES(SUF, T)                                                                             \
  extern "C" __global__ void CV_TC_BOUNDS conv2d_fwd_tc_##SUF(const T* x, const T* w, T* y, CV_ARGS,       \
                                                              int vec_x, int vec_w, const T* bias, int act) { \
    cv_forward_tc<T>(x, w, y, CV_GEOM, vec_x != 0, vec_w != 0, tfc_epilogue<T>{bias, act});               \
  }                                                                                                       \
  extern "C" __global__ void CV_TC_BOUNDS conv2d_input_grad_tc_##SUF(                                     \
      const T* dy, const T* w, T* dx, CV_ARGS, CV_PHASE_ARGS, int vec_dy, int vec_w) {                    \
    cv_input_grad_tc<T>(dy, w, dx, CV_GEOM, CV_PHASE, vec_dy != 0, vec_w != 0);                           \
  }                                                                                                       \
  extern "C" __global__ void CV_TC_BOUNDS conv2d_filter_grad_tc_##SUF(                                    \
      const T* x, const T* dy, float* part, CV_ARGS, int rows_per_split, int vec_x, int vec_dy) {         \
    cv_filter_grad_tc<T>(x, dy, part, CV_GEOM, rows_per_split, vec_x != 0, vec_dy != 0);                  \
  }
CV_TC_ENTRIES(f16, __half)
CV_TC_ENTRIES(tf32, float)
#endif  // TFC_HAS_MMA_M16N8K16
