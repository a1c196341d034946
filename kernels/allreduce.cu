// allreduce.cu — all-reduce across the replicas of logical GPUs that share one physical GPU.
//
// Used by tfcore/backend/collectives.py's "on_device" transport: NCCL refuses a device twice, but
// every replica's buffer lives in the same card's memory, so one kernel can read them all.
//
// * allreduce_buckets_* (the transport's kernel): ONE launch for every bucket of a step. `table`
//   (int64, device memory) describes `buckets` buckets of `replicas` replicas:
//     table[0 .. buckets]                    first tile of each bucket (prefix sums; the last is the total)
//     table[buckets + 1 + k]                 elements in bucket k
//     table[2 * buckets + 1 + r * buckets + k]                  address of replica r's input of bucket k
//     table[2 * buckets + 1 + (replicas + r) * buckets + k]     address of replica r's output of bucket k
//   A tile is AR_TILE = AR_THREADS * AR_VEC elements; each thread sums AR_VEC consecutive elements
//   over the replicas in float32 (in replica order, like the host transport), divides by `divisor`
//   (1: SUM, replicas: MEAN) and stores the result into every replica's output. An output may be
//   its input (in place): each element is read before it is written, by the same thread.
//   `vec`: every address is aligned to AR_VEC elements (float4 / 4 halves per access); otherwise
//   element by element. Traffic: replicas reads + replicas writes per element, no staging copies.
//   Grid: min(total tiles, 65535) x-blocks of AR_THREADS, grid-stride over tiles.
// float16 accumulates in float32.
#include "common.cuh"

#define AR_THREADS 256
#define AR_VEC 4
#define AR_TILE 1024

static_assert(AR_TILE == AR_THREADS * AR_VEC, "a tile is one vector per thread");


template <typename T>
__device__ __forceinline__ void ar_buckets(const long long* __restrict__ table, int replicas, int buckets,
                                           float divisor, int vec) {
  const long long* first_tile = table;
  const long long* count = table + buckets + 1;
  const long long* src = count + buckets;
  const long long* dst = src + (long long)replicas * buckets;
  const long long tiles = first_tile[buckets];
  int k = 0;  // bucket of the current tile: tiles only increase, so it only moves forward
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    while (first_tile[k + 1] <= t) ++k;
    const long long n = count[k];
    const long long e = (t - first_tile[k]) * AR_TILE + (long long)threadIdx.x * AR_VEC;
    if (e >= n) continue;
    const int valid = n - e < AR_VEC ? (int)(n - e) : AR_VEC;
    float s[AR_VEC] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (vec && valid == AR_VEC) {
      for (int r = 0; r < replicas; ++r) {
        float v[AR_VEC];
        tfc_vload4(reinterpret_cast<const T*>(src[r * buckets + k]) + e, v);
#pragma unroll
        for (int i = 0; i < AR_VEC; ++i) s[i] += v[i];
      }
#pragma unroll
      for (int i = 0; i < AR_VEC; ++i) s[i] = s[i] / divisor;
      for (int r = 0; r < replicas; ++r) tfc_vstore4(reinterpret_cast<T*>(dst[r * buckets + k]) + e, s);
    } else {  // a bucket's ragged end, or unaligned buffers
      for (int r = 0; r < replicas; ++r) {
        const T* p = reinterpret_cast<const T*>(src[r * buckets + k]) + e;
#pragma unroll
        for (int i = 0; i < AR_VEC; ++i)
          if (i < valid) s[i] += tfc_to_float(p[i]);
      }
#pragma unroll
      for (int i = 0; i < AR_VEC; ++i) s[i] = s[i] / divisor;
      for (int r = 0; r < replicas; ++r) {
        T* p = reinterpret_cast<T*>(dst[r * buckets + k]) + e;
#pragma unroll
        for (int i = 0; i < AR_VEC; ++i)
          if (i < valid) tfc_store(p + i, s[i]);
      }
    }
  }
}

TFC_KERNEL void allreduce_buckets_f32(const long long* table, int replicas, int buckets, float divisor, int vec) {
  ar_buckets<float>(table, replicas, buckets, divisor, vec);
}
TFC_KERNEL void allreduce_buckets_f16(const long long* table, int replicas, int buckets, float divisor, int vec) {
  ar_buckets<__half>(table, replicas, buckets, divisor, vec);
}
