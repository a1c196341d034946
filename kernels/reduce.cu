// Reductions over the middle axis of an [outer, R, inner] view (docs/architecture.md §4).
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
// * reduce_cols_*   (inner > 1): block (bx, by), bx * by = RD_THREADS, bx = RD_COLS_X (32) or the
//   power of two >= inner / V when inner is small; x walks bx * V consecutive inner positions
//   (coalesced; V = 4 with `vec`: float4 or 4 halves per load), y walks R with RD_UNROLL loads in
//   flight; the by partials of a column combine by a tree in shared memory.
//   Grid: (ceil(inner / (bx * V)), min(outer, 65535)), grid-stride over outer.
// * reduce_cols_split_* (inner > 1, long columns, few output tiles): R split into `splits` chunks in
//   ONE launch, as reduce_rows_split_*: block (o, split) writes float32 partials, takes a ticket per
//   output tile (o, blockIdx.x) after a threadfence, and the last block combines the splits in a fixed
//   order. Grid: (ceil(inner / (bx * V)), min(outer * splits, 65535)), grid-stride over (o, split).
// * argreduce_rows_* / argreduce_cols_*: index of the max (is_min = 0) or min over R, int64,
//   first occurrence on ties; same geometries, single pass.
//
// Entry suffixes: _f32 (f32 -> f32), _f16 (f16 -> f16).
#include "common.cuh"

#define RD_THREADS 256
#define RD_COLS_X 32  // widest column block (reduce_cols_*), and argreduce_cols_*'s block x
#define RD_COLS_Y 8   // argreduce_cols_*'s block y (reduce_cols_* uses RD_THREADS / bx)
#define RD_UNROLL 4
#define RD_VEC 4  // elements per vector load (tfc_vload4)

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
  __syncthreads();  // scratch may be reused right away (mutant: rd-block-scratch-reuse)
  return v;
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
      for (int u = 0; u < RD_UNROLL; ++u) tfc_vload4(p + j + u * stride, v[u]);
#pragma unroll
      for (int u = 0; u < RD_UNROLL; ++u) a[u] = Op::apply(a[u], rd_comb4<Op>(v[u]));
    }
    for (; j < hi; j += stride) {
      float v[4];
      tfc_vload4(p + j, v);
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

// Columns: block (bx, by) with bx * by = RD_THREADS (bx = RD_COLS_X, or fewer when inner is small);
// thread (tx, ty) owns V consecutive columns col = (blockIdx.x * bx + tx) * V (V = 4 with `vec`: one
// float4 / 8-byte half4 load per row, inner % 4 == 0 and 16-/8-byte aligned) and walks rows
// lo + ty, lo + ty + by, ... of [lo, hi) with RD_UNROLL independent loads in flight. A warp reads
// 32 / bx rows of bx * V consecutive elements. The block's by partial sums of a column are combined
// by a tree over ty in shared memory (a fixed order: deterministic). Returns true in the threads
// that hold a combined value (ty == 0) in acc[0..V).
template <class Op, int V, typename Tin>
__device__ __forceinline__ void rd_cols_chunk(const Tin* __restrict__ p, long long lo, long long hi, long long inner,
                                              bool col_ok, float acc[V], float* red) {
  const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  float a[RD_UNROLL][V];
#pragma unroll
  for (int u = 0; u < RD_UNROLL; ++u)
#pragma unroll
    for (int i = 0; i < V; ++i) a[u][i] = Op::init();
  if (col_ok) {
    long long r = lo + ty;
    for (; r + (RD_UNROLL - 1) * by < hi; r += RD_UNROLL * by) {
      float v[RD_UNROLL][V];
#pragma unroll
      for (int u = 0; u < RD_UNROLL; ++u) {
        if (V == 4) tfc_vload4(p + (r + u * by) * inner, v[u]);
        else v[u][0] = tfc_to_float(p[(r + u * by) * inner]);
      }
#pragma unroll
      for (int u = 0; u < RD_UNROLL; ++u)
#pragma unroll
        for (int i = 0; i < V; ++i) a[u][i] = Op::apply(a[u][i], v[u][i]);
    }
    for (; r < hi; r += by) {
      float v[V];
      if (V == 4) tfc_vload4(p + r * inner, v);
      else v[0] = tfc_to_float(p[r * inner]);
#pragma unroll
      for (int i = 0; i < V; ++i) a[0][i] = Op::apply(a[0][i], v[i]);
    }
  }
#pragma unroll
  for (int i = 0; i < V; ++i) {
    acc[i] = a[0][i];
#pragma unroll
    for (int u = 1; u < RD_UNROLL; ++u) acc[i] = Op::apply(acc[i], a[u][i]);
  }
  // Tree over ty (by is a power of two): red[(ty * bx + tx) * V + i].
  float* mine = red + (ty * bx + tx) * V;
#pragma unroll
  for (int i = 0; i < V; ++i) mine[i] = acc[i];
  __syncthreads();
  for (int s = by >> 1; s > 0; s >>= 1) {
    if (ty < s) {
      const float* other = mine + s * bx * V;
#pragma unroll
      for (int i = 0; i < V; ++i) mine[i] = acc[i] = Op::apply(acc[i], other[i]);
    }
    __syncthreads();
  }
}

// Column reduction of [outer, R, inner]. Grid (ceil(inner / (bx * V)), min(outer * splits, 65535)):
// y grid-strides over b = (o, split). splits == 1 (SPLIT false): the block writes y[o, col] * scale.
// SPLIT: block (o, split) writes its float32 partial part[(o * splits + split) * inner + col], takes a
// ticket from counters[o * gridDim.x + blockIdx.x] (after __threadfence), and the block that takes the
// last ticket combines the splits of that output tile in a fixed order (thread ty takes splits ty,
// ty + by, ..., then the tree over ty) and writes y. atomicInc wraps the counter back to 0 at the last
// ticket: the counters (zeroed once by the launcher) are ready for the next launch.
// `red` (RD_THREADS * 4 floats) and `is_last` are the block's shared memory, declared once per entry
// (rd_cols_dispatch) so the 8 instantiations of an entry share them instead of adding up.
template <class Op, int V, bool SPLIT, typename Tin, typename Tout>
__device__ __forceinline__ void rd_cols(const Tin* __restrict__ x, Tout* __restrict__ y, float* part,
                                       unsigned* counters, long long outer, long long R, long long inner, int splits,
                                       float scale, float* red, int& is_last) {
  const int tx = threadIdx.x, ty = threadIdx.y, by = blockDim.y;
  const long long col = ((long long)blockIdx.x * blockDim.x + tx) * V;
  const bool col_ok = col < inner;  // V == 4: inner % 4 == 0, so all 4 columns exist
  const long long chunk = (R + splits - 1) / splits;
  for (long long b = blockIdx.y; b < outer * splits; b += gridDim.y) {
    const long long o = b / splits;
    const long long lo = (b % splits) * chunk;
    const long long hi = lo + chunk < R ? lo + chunk : R;  // lo >= hi: an empty chunk (identity)
    float acc[V];
    rd_cols_chunk<Op, V>(x + o * R * inner + col, lo, hi, inner, col_ok, acc, red);
    if (!SPLIT) {
      if (ty == 0 && col_ok) {
#pragma unroll
        for (int i = 0; i < V; ++i) tfc_store(y + o * inner + col + i, acc[i] * scale);
      }
      __syncthreads();  // red is rewritten by the next iteration
      continue;
    }
    if (ty == 0 && col_ok) {
#pragma unroll
      for (int i = 0; i < V; ++i) part[b * inner + col + i] = acc[i];
      __threadfence();  // this thread's partials are visible device-wide before the ticket is taken
    }
    __syncthreads();
    if (tx == 0 && ty == 0)
      is_last = atomicInc(counters + o * gridDim.x + blockIdx.x, (unsigned)(splits - 1)) == (unsigned)(splits - 1);
    __syncthreads();
    if (is_last) {
      __threadfence();
      float a[V];
#pragma unroll
      for (int i = 0; i < V; ++i) a[i] = Op::init();
      if (col_ok) {
        const volatile float* pp = part + o * splits * inner + col;  // volatile: from L2, not a stale L1 line
        for (int s = ty; s < splits; s += by) {
#pragma unroll
          for (int i = 0; i < V; ++i) a[i] = Op::apply(a[i], pp[s * inner + i]);
        }
      }
      float* mine = red + (ty * blockDim.x + tx) * V;
#pragma unroll
      for (int i = 0; i < V; ++i) mine[i] = a[i];
      __syncthreads();
      for (int s = by >> 1; s > 0; s >>= 1) {
        if (ty < s) {
          const float* other = mine + s * blockDim.x * V;
#pragma unroll
          for (int i = 0; i < V; ++i) mine[i] = a[i] = Op::apply(a[i], other[i]);
        }
        __syncthreads();
      }
      if (ty == 0 && col_ok) {
#pragma unroll
        for (int i = 0; i < V; ++i) tfc_store(y + o * inner + col + i, a[i] * scale);
      }
    }
    __syncthreads();  // red and is_last are rewritten by the next iteration
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

template <bool SPLIT, class Op, typename Tin, typename Tout>
__device__ __forceinline__ void rd_cols_vec(const Tin* x, Tout* y, float* part, unsigned* counters, long long outer,
                                           long long R, long long inner, int splits, float scale, int vec,
                                           float* red, int& is_last) {
  if (vec) rd_cols<Op, 4, SPLIT>(x, y, part, counters, outer, R, inner, splits, scale, red, is_last);
  else rd_cols<Op, 1, SPLIT>(x, y, part, counters, outer, R, inner, splits, scale, red, is_last);
}

template <bool SPLIT, typename Tin, typename Tout>
__device__ __forceinline__ void rd_cols_dispatch(const Tin* x, Tout* y, float* part, unsigned* counters,
                                                long long outer, long long R, long long inner, int splits, int op,
                                                float scale, int vec) {
  __shared__ float red[RD_THREADS * 4];
  __shared__ int is_last;
  switch (op) {
    case 0: rd_cols_vec<SPLIT, RdSum>(x, y, part, counters, outer, R, inner, splits, scale, vec, red, is_last); break;
    case 1: rd_cols_vec<SPLIT, RdMax>(x, y, part, counters, outer, R, inner, splits, scale, vec, red, is_last); break;
    case 2: rd_cols_vec<SPLIT, RdMin>(x, y, part, counters, outer, R, inner, splits, scale, vec, red, is_last); break;
    default:
      rd_cols_vec<SPLIT, RdProd>(x, y, part, counters, outer, R, inner, splits, scale, vec, red, is_last);
      break;
  }
}

#define RD_ENTRIES(SUF, TIN, TOUT)                                                                          \
  TFC_KERNEL void reduce_rows_##SUF(const TIN* x, TOUT* y, long long outer, long long R, int splits, int op,  \
                                    float scale, int vec) {                                                 \
    rd_rows_dispatch<TIN, TOUT>(x, y, outer, R, splits, op, scale, vec);                                    \
  }                                                                                                         \
  TFC_KERNEL void reduce_rows_split_##SUF(const TIN* x, TOUT* y, float* part, unsigned* counters,            \
                                          long long outer, long long R, int splits, int op, float scale,     \
                                          int vec) {                                                         \
    rd_rows_split_dispatch<TIN, TOUT>(x, y, part, counters, outer, R, splits, op, scale, vec);               \
  }                                                                                                         \
  TFC_KERNEL void reduce_cols_##SUF(const TIN* x, TOUT* y, long long outer, long long R, long long inner,   \
                                    int op, float scale, int vec) {                                         \
    rd_cols_dispatch<false, TIN, TOUT>(x, y, nullptr, nullptr, outer, R, inner, 1, op, scale, vec);         \
  }                                                                                                         \
  TFC_KERNEL void reduce_cols_split_##SUF(const TIN* x, TOUT* y, float* part, unsigned* counters,            \
                                          long long outer, long long R, long long inner, int splits, int op, \
                                          float scale, int vec) {                                            \
    rd_cols_dispatch<true, TIN, TOUT>(x, y, part, counters, outer, R, inner, splits, op, scale, vec);        \
  }

RD_ENTRIES(f32, float, float)
RD_ENTRIES(f16, __half, __half)

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
    __syncthreads();  // sv/si are rewritten by the next row (mutant: rd-arg-rows-trailing)
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
