// Reductions over the middle axis of an [outer, R, inner] view (DESIGN.md §4).
//
// Python transposes/collapses the reduced axes into R (tfcore/ops/cuda_kernels/reduce.py).
// Ops (the `op` argument): 0 sum, 1 max, 2 min, 3 prod; mean is sum with `scale` = 1 / count,
// applied when the final value is written. Accumulation is in float32 for float16 inputs.
//
// * reduce_rows_*   (inner == 1): one block of RD_THREADS per (row, split); threads stride
//   over the row (4-element vector loads when `vec`: float4, or 4 halves in 8 bytes; RD_UNROLL
//   loads in flight per thread), then a warp-shuffle block reduction. With splits > 1 each
//   block reduces one chunk of its row and writes a float32 partial y[row * splits + split]
//   for a second launch (kept for callers that want the partials).
// * reduce_rows_split_* (inner == 1, long rows): the same chunks in ONE launch: the last block
//   of each row to finish (threadfence + atomic ticket) combines that row's partials. Grid:
//   min(outer * splits, 65535) x-blocks, grid-stride over (row, split).
// * reduce_cols_*   (inner > 1): block (RD_COLS_X, RD_COLS_Y): x walks 32 consecutive inner
//   positions (coalesced), y splits R; partials combine in shared memory. With splits > 1 the
//   block writes partial [outer, splits, inner] for a second pass with R = splits.
//   Grid: (ceil(inner / 32), min(outer * splits, 65535)).
// * argreduce_rows_* / argreduce_cols_*: index of the max (is_min = 0) or min over R, int64,
//   first occurrence on ties; same geometries, single pass.
//
// Entry suffixes: _f32 (f32 -> f32), _f16 (f16 -> f16), _f16_f32 (f16 -> f32 partials),
// _f32_f16 (f32 partials -> f16 final).
#include "common.cuh"

#define RD_THREADS 256
#define RD_COLS_X 32
#define RD_COLS_Y 8
#define RD_UNROLL 4
#define RD_VEC 4  // elements per vector load (rd_load4)

struct RdSum { static __device__ __forceinline__ float init() { return 0.0f; }
               static __device__ __forceinline__ float apply(float a, float b) { return a + b; } };
struct RdMax { static __device__ __forceinline__ float init() { return tfc_neg_inf(); }
               static __device__ __forceinline__ float apply(float a, float b) { return fmaxf(a, b); } };
struct RdMin { static __device__ __forceinline__ float init() { return tfc_pos_inf(); }
               static __device__ __forceinline__ float apply(float a, float b) { return fminf(a, b); } };
struct RdProd { static __device__ __forceinline__ float init() { return 1.0f; }
                static __device__ __forceinline__ float apply(float a, float b) { return a * b; } };

template <class Op>
__device__ __forceinline__ float rd_warp(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = Op::apply(v, __shfl_xor_sync(TFC_FULL_MASK, v, o));
  return v;
}

// Block reduction of a 1-D block (multiple of 32 threads); the result is valid in thread 0.
template <class Op>
__device__ __forceinline__ float rd_block(float v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = rd_warp<Op>(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? scratch[lane] : Op::init();
    v = rd_warp<Op>(v);
  }
  __syncthreads();  // scratch may be reused right away
  return v;
}

struct __align__(8) rd_half4_t {
  __half a, b, c, d;
};

// Four consecutive elements as floats: one 16-byte (float) or 8-byte (__half) load.
__device__ __forceinline__ void rd_load4(const float* p, float v[4]) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
}
__device__ __forceinline__ void rd_load4(const __half* p, float v[4]) {
  const rd_half4_t q = *reinterpret_cast<const rd_half4_t*>(p);
  v[0] = __half2float(q.a); v[1] = __half2float(q.b); v[2] = __half2float(q.c); v[3] = __half2float(q.d);
}

template <class Op>
__device__ __forceinline__ float rd_comb4(const float v[4]) {
  return Op::apply(Op::apply(v[0], v[1]), Op::apply(v[2], v[3]));
}

// This thread's share of p[lo, hi) (not yet combined over the block). With `vec`, lo, hi and p's
// alignment are multiples of 4 elements: RD_UNROLL independent 4-element loads are in flight per
// iteration (enough bytes in flight per SM to approach DRAM bandwidth).
template <class Op, typename Tin>
__device__ __forceinline__ float rd_thread_chunk(const Tin* __restrict__ p, long long lo, long long hi, int vec) {
  float acc = Op::init();
  if (vec) {
    const long long stride = 4LL * blockDim.x;
    long long j = lo + threadIdx.x * 4;
    float a[RD_UNROLL];
#pragma unroll
    for (int u = 0; u < RD_UNROLL; ++u) a[u] = Op::init();
    for (; j + (RD_UNROLL - 1) * stride < hi; j += RD_UNROLL * stride) {
      float v[RD_UNROLL][4];
#pragma unroll
      for (int u = 0; u < RD_UNROLL; ++u) rd_load4(p + j + u * stride, v[u]);
#pragma unroll
      for (int u = 0; u < RD_UNROLL; ++u) a[u] = Op::apply(a[u], rd_comb4<Op>(v[u]));
    }
    for (; j < hi; j += stride) {
      float v[4];
      rd_load4(p + j, v);
      acc = Op::apply(acc, rd_comb4<Op>(v));
    }
#pragma unroll
    for (int u = 0; u < RD_UNROLL; ++u) acc = Op::apply(acc, a[u]);
  } else {
    for (long long j = lo + threadIdx.x; j < hi; j += blockDim.x) acc = Op::apply(acc, tfc_to_float(p[j]));
  }
  return acc;
}

template <class Op, typename Tin, typename Tout>
__device__ __forceinline__ void rd_rows(const Tin* __restrict__ x, Tout* __restrict__ y, long long outer,
                                       long long R, int splits, float scale, int vec) {
  __shared__ float scratch[32];
  long long chunk = (R + splits - 1) / splits;
  if (vec) chunk = (chunk + 3) & ~3LL;  // float4 runs never straddle two chunks
  for (long long b = blockIdx.x; b < outer * splits; b += gridDim.x) {
    const long long row = b / splits;
    const long long lo = (b % splits) * chunk;
    const long long hi = lo + chunk < R ? lo + chunk : R;  // lo >= hi: an empty chunk (identity)
    float acc = rd_thread_chunk<Op>(x + row * R, lo, hi, vec);
    acc = rd_block<Op>(acc, scratch);
    if (threadIdx.x == 0) y[b] = tfc_from_float<Tout>(acc * scale);
  }
}

// Split rows in ONE launch: block (row, split) reduces its chunk into the float32 partial
// part[row * splits + split], then takes a ticket from counters[row]; the block that takes the last
// ticket combines the row's partials (in split order: deterministic) and writes y[row] * scale.
// atomicInc wraps the counter back to 0 at the last ticket, so the counters (zeroed once when the
// launcher allocates them) are ready for the next launch.
template <class Op, typename Tin, typename Tout>
__device__ __forceinline__ void rd_rows_split(const Tin* __restrict__ x, Tout* __restrict__ y, float* part,
                                             unsigned* counters, long long outer, long long R, int splits,
                                             float scale, int vec) {
  __shared__ float scratch[32];
  __shared__ int is_last;
  long long chunk = (R + splits - 1) / splits;
  if (vec) chunk = (chunk + 3) & ~3LL;
  for (long long b = blockIdx.x; b < outer * splits; b += gridDim.x) {
    const long long row = b / splits;
    const long long lo = (b % splits) * chunk;
    const long long hi = lo + chunk < R ? lo + chunk : R;
    float acc = rd_thread_chunk<Op>(x + row * R, lo, hi, vec);
    acc = rd_block<Op>(acc, scratch);
    if (threadIdx.x == 0) {
      part[b] = acc;
      __threadfence();  // the partial is visible device-wide before the ticket is taken
      is_last = atomicInc(counters + row, (unsigned)(splits - 1)) == (unsigned)(splits - 1);
    }
    __syncthreads();
    if (is_last) {
      __threadfence();
      const volatile float* pr = part + row * splits;  // volatile: read from L2, not a stale L1 line
      float a = Op::init();
      for (int s = threadIdx.x; s < splits; s += blockDim.x) a = Op::apply(a, pr[s]);
      a = rd_block<Op>(a, scratch);
      if (threadIdx.x == 0) y[row] = tfc_from_float<Tout>(a * scale);
    }
    __syncthreads();  // is_last is rewritten by the next iteration
  }
}

template <class Op, typename Tin, typename Tout>
__device__ __forceinline__ void rd_cols(const Tin* __restrict__ x, Tout* __restrict__ y, long long outer,
                                       long long R, long long inner, int splits, float scale) {
  __shared__ float part[RD_COLS_Y][RD_COLS_X + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long col = (long long)blockIdx.x * RD_COLS_X + tx;
  const long long chunk = (R + splits - 1) / splits;
  for (long long b = blockIdx.y; b < outer * splits; b += gridDim.y) {
    const long long o = b / splits;
    const long long lo = (b % splits) * chunk;
    const long long hi = lo + chunk < R ? lo + chunk : R;
    float acc = Op::init();
    if (col < inner) {
      const Tin* p = x + o * R * inner + col;
      for (long long r = lo + ty; r < hi; r += RD_COLS_Y) acc = Op::apply(acc, tfc_to_float(p[r * inner]));
    }
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && col < inner) {
#pragma unroll
      for (int k = 1; k < RD_COLS_Y; ++k) acc = Op::apply(acc, part[k][tx]);
      y[b * inner + col] = tfc_from_float<Tout>(acc * scale);
    }
    __syncthreads();
  }
}

template <typename Tin, typename Tout>
__device__ __forceinline__ void rd_rows_dispatch(const Tin* x, Tout* y, long long outer, long long R, int splits,
                                                int op, float scale, int vec) {
  switch (op) {
    case 0: rd_rows<RdSum>(x, y, outer, R, splits, scale, vec); break;
    case 1: rd_rows<RdMax>(x, y, outer, R, splits, scale, vec); break;
    case 2: rd_rows<RdMin>(x, y, outer, R, splits, scale, vec); break;
    default: rd_rows<RdProd>(x, y, outer, R, splits, scale, vec); break;
  }
}

template <typename Tin, typename Tout>
__device__ __forceinline__ void rd_rows_split_dispatch(const Tin* x, Tout* y, float* part, unsigned* counters,
                                                      long long outer, long long R, int splits, int op, float scale,
                                                      int vec) {
  switch (op) {
    case 0: rd_rows_split<RdSum>(x, y, part, counters, outer, R, splits, scale, vec); break;
    case 1: rd_rows_split<RdMax>(x, y, part, counters, outer, R, splits, scale, vec); break;
    case 2: rd_rows_split<RdMin>(x, y, part, counters, outer, R, splits, scale, vec); break;
    default: rd_rows_split<RdProd>(x, y, part, counters, outer, R, splits, scale, vec); break;
  }
}

template <typename Tin, typename Tout>
__device__ __forceinline__ void rd_cols_dispatch(const Tin* x, Tout* y, long long outer, long long R,
                                                long long inner, int splits, int op, float scale) {
  switch (op) {
    case 0: rd_cols<RdSum>(x, y, outer, R, inner, splits, scale); break;
    case 1: rd_cols<RdMax>(x, y, outer, R, inner, splits, scale); break;
    case 2: rd_cols<RdMin>(x, y, outer, R, inner, splits, scale); break;
    default: rd_cols<RdProd>(x, y, outer, R, inner, splits, scale); break;
  }
}

#define RD_COLS_ENTRY(SUF, TIN, TOUT)                                                                      \
  TFC_KERNEL void reduce_cols_##SUF(const TIN* x, TOUT* y, long long outer, long long R, long long inner,  \
                                    int splits, int op, float scale) {                                     \
    rd_cols_dispatch<TIN, TOUT>(x, y, outer, R, inner, splits, op, scale);                                 \
  }
#define RD_ENTRIES(SUF, TIN, TOUT)                                                                         \
  TFC_KERNEL void reduce_rows_##SUF(const TIN* x, TOUT* y, long long outer, long long R, int splits, int op, \
                                    float scale, int vec) {                                                \
    rd_rows_dispatch<TIN, TOUT>(x, y, outer, R, splits, op, scale, vec);                                   \
  }                                                                                                        \
  RD_COLS_ENTRY(SUF, TIN, TOUT)

RD_ENTRIES(f32, float, float)
RD_ENTRIES(f16, __half, __half)

#define RD_SPLIT_ENTRY(SUF, TIN, TOUT)                                                                     \
  TFC_KERNEL void reduce_rows_split_##SUF(const TIN* x, TOUT* y, float* part, unsigned* counters,           \
                                          long long outer, long long R, int splits, int op, float scale,    \
                                          int vec) {                                                        \
    rd_rows_split_dispatch<TIN, TOUT>(x, y, part, counters, outer, R, splits, op, scale, vec);              \
  }

RD_SPLIT_ENTRY(f32, float, float)
RD_SPLIT_ENTRY(f16, __half, __half)
// Column reductions split over several y-blocks go through float32 partials (f16 -> f32, then f32 -> f16).
RD_COLS_ENTRY(f16_f32, __half, float)
RD_COLS_ENTRY(f32_f16, float, __half)

// ---- argmax / argmin ----------------------------------------------------------------------------------

// (v, i) beats (w, j): strictly better value, or equal value and smaller index. NaN-free inputs assumed.
__device__ __forceinline__ bool rd_better(float v, long long i, float w, long long j, bool is_min) {
  if (i < 0) return false;
  if (j < 0) return true;
  if (v == w) return i < j;
  return is_min ? v < w : v > w;
}

template <typename T>
__device__ __forceinline__ void rd_arg_rows(const T* __restrict__ x, long long* __restrict__ y, long long outer,
                                           long long R, int is_min) {
  __shared__ float sv[32];
  __shared__ long long si[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  for (long long row = blockIdx.x; row < outer; row += gridDim.x) {
    const T* p = x + row * R;
    float bv = 0.0f;
    long long bi = -1;
    for (long long j = threadIdx.x; j < R; j += blockDim.x) {
      const float v = tfc_to_float(p[j]);
      if (rd_better(v, j, bv, bi, is_min)) { bv = v; bi = j; }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const float ov = __shfl_xor_sync(TFC_FULL_MASK, bv, o);
      const long long oi = __shfl_xor_sync(TFC_FULL_MASK, bi, o);
      if (rd_better(ov, oi, bv, bi, is_min)) { bv = ov; bi = oi; }
    }
    if (lane == 0) { sv[warp] = bv; si[warp] = bi; }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < nwarps; ++w)
        if (rd_better(sv[w], si[w], bv, bi, is_min)) { bv = sv[w]; bi = si[w]; }
      y[row] = bi;
    }
    __syncthreads();
  }
}

template <typename T>
__device__ __forceinline__ void rd_arg_cols(const T* __restrict__ x, long long* __restrict__ y, long long outer,
                                           long long R, long long inner, int is_min) {
  __shared__ float sv[RD_COLS_Y][RD_COLS_X + 1];
  __shared__ long long si[RD_COLS_Y][RD_COLS_X + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long col = (long long)blockIdx.x * RD_COLS_X + tx;
  for (long long o = blockIdx.y; o < outer; o += gridDim.y) {
    float bv = 0.0f;
    long long bi = -1;
    if (col < inner) {
      const T* p = x + o * R * inner + col;
      for (long long r = ty; r < R; r += RD_COLS_Y) {
        const float v = tfc_to_float(p[r * inner]);
        if (rd_better(v, r, bv, bi, is_min)) { bv = v; bi = r; }
      }
    }
    sv[ty][tx] = bv;
    si[ty][tx] = bi;
    __syncthreads();
    if (ty == 0 && col < inner) {
      for (int k = 1; k < RD_COLS_Y; ++k)
        if (rd_better(sv[k][tx], si[k][tx], bv, bi, is_min)) { bv = sv[k][tx]; bi = si[k][tx]; }
      y[o * inner + col] = bi;
    }
    __syncthreads();
  }
}

#define RD_ARG_ENTRIES(SUF, T)                                                                            \
  TFC_KERNEL void argreduce_rows_##SUF(const T* x, long long* y, long long outer, long long R, int is_min) { \
    rd_arg_rows<T>(x, y, outer, R, is_min);                                                               \
  }                                                                                                       \
  TFC_KERNEL void argreduce_cols_##SUF(const T* x, long long* y, long long outer, long long R,            \
                                       long long inner, int is_min) {                                     \
    rd_arg_cols<T>(x, y, outer, R, inner, is_min);                                                        \
  }

RD_ARG_ENTRIES(f32, float)
RD_ARG_ENTRIES(f16, __half)
