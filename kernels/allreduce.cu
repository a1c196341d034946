// allreduce.cu — in-place reduction across the rows of one [replicas, n] buffer.
//
// Used by tfcore/backend/collectives.py's "on_device" all-reduce for logical GPUs that share one
// physical GPU: each replica's gradient bucket is copied into row r, one launch of this kernel
// sums the rows (times `scale`) and writes the result into every row.
// Launch: grid.x = min(ceil(n / AR_THREADS), 65535), block.x = AR_THREADS (ALLREDUCE_THREADS in
// collectives.py); a grid-stride loop covers any n.
#include "common.cuh"

#define AR_THREADS 256

TFC_KERNEL void allreduce_rows_f32(float* TFC_RESTRICT buf, int rows, long long n, float scale) {
  for (tfc_index_t j = tfc_global_thread_id(); j < n; j += tfc_grid_stride()) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += buf[(tfc_index_t)r * n + j];
    s *= scale;
    for (int r = 0; r < rows; ++r) buf[(tfc_index_t)r * n + j] = s;
  }
}

// float16 buckets accumulate in float32.
TFC_KERNEL void allreduce_rows_f16(__half* TFC_RESTRICT buf, int rows, long long n, float scale) {
  for (tfc_index_t j = tfc_global_thread_id(); j < n; j += tfc_grid_stride()) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) s += __half2float(buf[(tfc_index_t)r * n + j]);
    __half h = __float2half(s * scale);
    for (int r = 0; r < rows; ++r) buf[(tfc_index_t)r * n + j] = h;
  }
}
