// Small kernels exercising the CUDA emulator (tests/kernels/test_emulator.py).
#include "common.cuh"

// Tree reduction in static shared memory: needs __syncthreads between every level.
TFC_KERNEL void tree_sum(const float* x, float* out, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  float v = 0.0f;
  for (int i = t; i < n; i += blockDim.x) v += x[(long long)blockIdx.x * n + i];
  s[t] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// common.cuh block reductions (sum, max, min) in one launch; block size a multiple of 32.
TFC_KERNEL void block_reduce3(const float* x, float* out, int n) {
  float s = 0.0f, mx = tfc_neg_inf(), mn = tfc_pos_inf();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = x[(long long)blockIdx.x * n + i];
    s += v;
    mx = fmaxf(mx, v);
    mn = fminf(mn, v);
  }
  s = tfc_block_reduce_sum(s);
  mx = tfc_block_reduce_max(mx);
  mn = tfc_block_reduce_min(mn);
  if (threadIdx.x == 0) {
    out[blockIdx.x * 3 + 0] = s;
    out[blockIdx.x * 3 + 1] = mx;
    out[blockIdx.x * 3 + 2] = mn;
  }
}

// Per lane: xor-shuffle, down, up, indexed (width 8), ballot, any, all, warp sum.
TFC_KERNEL void warp_ops(const int* x, int* out) {
  const int t = threadIdx.x, lane = t & 31;
  const int v = x[t];
  int* o = out + t * 8;
  o[0] = __shfl_xor_sync(0xffffffffu, v, 5);
  o[1] = __shfl_down_sync(0xffffffffu, v, 3);
  o[2] = __shfl_up_sync(0xffffffffu, v, 2);
  o[3] = __shfl_sync(0xffffffffu, v, 3, 8);
  o[4] = (int)__ballot_sync(0xffffffffu, v & 1);
  o[5] = __any_sync(0xffffffffu, v > 90);
  o[6] = __all_sync(0xffffffffu, v >= 0);
  o[7] = (int)tfc_warp_reduce_sum((float)v);
  (void)lane;
}

// float shuffle of a partial warp (blockDim 20): lanes that do not exist return the caller's value.
TFC_KERNEL void partial_warp_down(const float* x, float* out) {
  const int t = threadIdx.x;
  out[t] = __shfl_down_sync(__activemask(), x[t], 4);
}

// CUDA has no atomicMax for float: a compare-and-swap loop on the bit pattern, as real kernels do.
TFC_DEVICE_INLINE float atomic_max_float(float* p, float v) {
  unsigned* up = reinterpret_cast<unsigned*>(p);
  unsigned old = *up, assumed;
  do {
    assumed = old;
    if (__uint_as_float(assumed) >= v) break;
    old = atomicCAS(up, assumed, __float_as_uint(v));
  } while (old != assumed);
  return __uint_as_float(old);
}

TFC_KERNEL void atomics(const int* keys, int n, int* hist, float* fsum, int* imax, int* imin, unsigned* cas_count,
                        float* fmax_out) {
  const long long i = tfc_global_thread_id();
  if (i >= n) return;
  const int k = keys[i];
  atomicAdd(&hist[k], 1);
  atomicAdd(fsum, 0.5f);
  atomicMax(imax, k * 3 - 7);
  atomicMin(imin, k * 3 - 7);
  unsigned old = *cas_count, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas_count, assumed, assumed + 2u);
  } while (old != assumed);
  atomic_max_float(fmax_out, (float)k * 0.25f);
}

// Reverse each block's slice through dynamic shared memory.
TFC_KERNEL void dyn_reverse(const float* x, float* y, int n) {
  TFC_DYNAMIC_SHARED(float, buf);
  const int t = threadIdx.x;
  const long long base = (long long)blockIdx.x * blockDim.x;
  if (base + t < n) buf[t] = x[base + t];
  __syncthreads();
  const int m = (int)min((long long)blockDim.x, (long long)n - base);
  if (t < m) y[base + t] = buf[m - 1 - t];
}

// Writes one float past the dynamic shared memory the launch asked for.
TFC_KERNEL void dyn_oob(float* y, int words) {
  TFC_DYNAMIC_SHARED(float, buf);
  buf[threadIdx.x + words] = 1.0f;
  y[threadIdx.x] = buf[threadIdx.x];
}

TFC_KERNEL void half_convert(const float* x, __half* h, float* back, int n) {
  const long long i = tfc_global_thread_id();
  if (i < n) {
    h[i] = __float2half(x[i]);
    back[i] = __half2float(h[i]);
  }
}

TFC_KERNEL void half_axpy(const __half* x, const __half* y, __half* out, __half a, int n) {
  const long long i = tfc_global_thread_id();
  // __half has no arithmetic operators without cuda_fp16.h: compute in float, round after each step.
  if (i < n) out[i] = __float2half(__half2float(__float2half(__half2float(a) * __half2float(x[i]))) + __half2float(y[i]));
}

TFC_KERNEL void float4_scale(const float4* x, float4* y, float s, int n4) {
  const long long i = tfc_global_thread_id();
  if (i < n4) {
    const float4 v = __ldg(&x[i]);
    y[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
  }
}

TFC_KERNEL void math_ops(const float* x, float* y, int n) {
  const long long i = tfc_global_thread_id();
  if (i < n) {
    const float v = x[i];
    float* o = y + i * 8;
    o[0] = __expf(v);
    o[1] = __fdividef(v, 3.0f);
    o[2] = rsqrtf(fabsf(v) + 1.0f);
    o[3] = fmaf(v, 2.0f, 1.0f);
    o[4] = tanhf(v);
    o[5] = erff(v);
    o[6] = __frcp_rn(v + 10.0f);
    o[7] = (float)max(min((int)v, 2), -2);
  }
}

// 3-D grid and block indices written as one int per thread.
TFC_KERNEL void indices3d(int* out) {
  const int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int tx = tfc_thread_linear();
  out[bx * tfc_block_threads() + tx] = bx * 1000 + (threadIdx.z * 100 + threadIdx.y * 10 + threadIdx.x);
}

TFC_KERNEL void count_positive(const float* x, int* out) {
  const int c = __syncthreads_count(x[threadIdx.x] > 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = c;
}

// ---- deliberately broken kernels ---------------------------------------------------------------
TFC_KERNEL void oob_write(float* y, int n) { y[threadIdx.x] = (float)threadIdx.x; (void)n; }
TFC_KERNEL void oob_read(const float* x, float* y, int n) { y[0] = x[n + 64]; }
TFC_KERNEL void underflow_write(float* y, int n) { y[-1 - (int)threadIdx.x * 1024] = 1.0f; (void)n; }
TFC_KERNEL void write_const(const float* x, float* y) { const_cast<float*>(x)[0] = 1.0f; y[0] = 2.0f; }
TFC_KERNEL void divergent_sync(float* y) {
  if (threadIdx.x < 16) __syncthreads();
  else { y[threadIdx.x] = 1.0f; __syncwarp(); }
}
TFC_KERNEL void in_place_scale(float* y, const float* x, int n) {
  const long long i = tfc_global_thread_id();
  if (i < n) y[i] = x[i] * 2.0f;
}
