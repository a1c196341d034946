// Segment products (docs/architecture.md §4): TF's UnsortedSegmentProd and SegmentProd.
//
// data is viewed as [rows, inner] (rows = the number of segment ids, inner = the product of data's
// remaining dims); out is [num_segments, inner]; ids are int64 (the launcher widens int32 ids).
//   * unsorted_segment_prod_<T>: one thread per data element (grid-stride) multiplies itself into
//     out[ids[row]] with an atomicCAS loop on the element's bit pattern (CUDA has no atomic multiply);
//     out starts as ones (the launcher fills it). Negative ids and ids >= num_segments are skipped (the
//     launcher has already raised TF's error for the latter). Float results depend on the order the
//     atomics land in (one rounding per product, as TF's GPU kernel).
//   * segment_prod_<T>: ids sorted; one thread per output element (grid-stride) finds its segment's rows
//     by binary search and multiplies them in row order: deterministic, no atomics, bit-equal to a
//     sequential product. Consecutive threads read consecutive columns of a row (coalesced).
// Integers multiply as unsigned (wrapping, as TF's int8...int64 products; no signed-overflow UB); half
// products are rounded to half after each factor (as NumPy's float16 multiply, so the sorted kernel matches
// the CPU kernel bit for bit).
// Entry points per dtype: _f16, _f32, _f64, _i32, _i64. Block SG_THREADS.
#include "common.cuh"

#define SG_THREADS 256

template <typename T>
struct SgBits;  // the unsigned integer type atomicCAS works on for T, T's product, and T's one

template <typename T>
TFC_DEVICE_INLINE T sg_one() {
  return (T)1;
}
template <>
TFC_DEVICE_INLINE __half sg_one<__half>() {
  return __float2half(1.0f);
}
template <>
struct SgBits<float> {
  typedef unsigned int U;
  static TFC_DEVICE_INLINE U to(float v) { return __float_as_uint(v); }
  static TFC_DEVICE_INLINE float from(U u) { return __uint_as_float(u); }
  static TFC_DEVICE_INLINE float mul(float a, float b) { return a * b; }
};
template <>
struct SgBits<double> {
  typedef unsigned long long U;
  static TFC_DEVICE_INLINE U to(double v) { return (U)__double_as_longlong(v); }
  static TFC_DEVICE_INLINE double from(U u) { return __longlong_as_double((long long)u); }
  static TFC_DEVICE_INLINE double mul(double a, double b) { return a * b; }
};
template <>
struct SgBits<__half> {  // 16-bit atomicCAS: sm_70 and newer (the oldest architecture the kernels are built for)
  typedef unsigned short U;
  static TFC_DEVICE_INLINE U to(__half v) { return __half_as_ushort(v); }
  static TFC_DEVICE_INLINE __half from(U u) { return __ushort_as_half(u); }
  static TFC_DEVICE_INLINE __half mul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
};
template <>
struct SgBits<int> {
  typedef unsigned int U;
  static TFC_DEVICE_INLINE U to(int v) { return (U)v; }
  static TFC_DEVICE_INLINE int from(U u) { return (int)u; }
  static TFC_DEVICE_INLINE int mul(int a, int b) { return (int)((U)a * (U)b); }
};
template <>
struct SgBits<long long> {
  typedef unsigned long long U;
  static TFC_DEVICE_INLINE U to(long long v) { return (U)v; }
  static TFC_DEVICE_INLINE long long from(U u) { return (long long)u; }
  static TFC_DEVICE_INLINE long long mul(long long a, long long b) { return (long long)((U)a * (U)b); }
};

// *p *= v atomically. The first guess is 1 (a fresh segment's value), so the common first write to a
// segment needs no read; a failed compare-and-swap returns what is there and the loop retries with it.
template <typename T>
TFC_DEVICE_INLINE void sg_atomic_mul(T* p, T v) {
  typedef typename SgBits<T>::U U;
  U* const cell = reinterpret_cast<U*>(p);
  U expected = SgBits<T>::to(sg_one<T>());
  while (true) {
    const U seen = atomicCAS(cell, expected, SgBits<T>::to(SgBits<T>::mul(SgBits<T>::from(expected), v)));
    if (seen == expected) return;
    expected = seen;
  }
}

template <typename T>
TFC_DEVICE_INLINE void unsorted_segment_prod(const T* __restrict__ data, const long long* __restrict__ ids,
                                             T* out, long long rows, long long inner, long long num_segments) {
  const long long total = rows * inner;
  for (long long i = tfc_global_thread_id(); i < total; i += tfc_grid_stride()) {
    const long long row = i / inner;
    const long long s = ids[row];
    if (s < 0 || s >= num_segments) continue;
    sg_atomic_mul<T>(out + s * inner + (i - row * inner), data[i]);
  }
}

// The first row whose id is >= s (ids sorted ascending).
TFC_DEVICE_INLINE long long sg_lower_bound(const long long* __restrict__ ids, long long rows, long long s) {
  long long lo = 0, hi = rows;
  while (lo < hi) {
    const long long mid = lo + ((hi - lo) >> 1);
    if (ids[mid] < s) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <typename T>
TFC_DEVICE_INLINE void segment_prod(const T* __restrict__ data, const long long* __restrict__ ids,
                                    T* __restrict__ out, long long rows, long long inner, long long num_segments) {
  const long long total = num_segments * inner;
  for (long long i = tfc_global_thread_id(); i < total; i += tfc_grid_stride()) {
    const long long s = i / inner, c = i - s * inner;
    const long long end = sg_lower_bound(ids, rows, s + 1);
    T acc = sg_one<T>();
    for (long long r = sg_lower_bound(ids, rows, s); r < end; ++r) acc = SgBits<T>::mul(acc, data[r * inner + c]);
    out[i] = acc;
  }
}

#define SG_ENTRIES(SFX, T)                                                                                  \
  TFC_KERNEL void unsorted_segment_prod_##SFX(const T* data, const long long* ids, T* out, long long rows,  \
                                              long long inner, long long num_segments) {                  \
    unsorted_segment_prod<T>(data, ids, out, rows, inner, num_segments);                                  \
  }                                                                                                         \
  TFC_KERNEL void segment_prod_##SFX(const T* data, const long long* ids, T* out, long long rows,           \
                                     long long inner, long long num_segments) {                           \
    segment_prod<T>(data, ids, out, rows, inner, num_segments);                                           \
  }

SG_ENTRIES(f32, float)
SG_ENTRIES(f64, double)
SG_ENTRIES(f16, __half)
SG_ENTRIES(i32, int)
SG_ENTRIES(i64, long long)
