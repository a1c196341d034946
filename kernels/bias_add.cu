// y = act(x + bias) with the bias broadcast along one axis (docs/architecture.md §4).
//
// x is viewed as [outer, C, inner]: NHWC (channels last) has inner = 1, NCHW has inner = H*W.
// Activations (`act`): 0 none, 1 relu, 2 gelu (exact, erf), 3 sigmoid, 4 tanh, 5 gelu (tanh
// approximation). The epilogue lets a Dense/Conv layer fuse its bias and activation into one
// memory pass. Grid-stride over elements, block BA_THREADS; with `vec` (float32, inner == 1,
// C % 4 == 0, 16-byte aligned x and y) each thread moves float4s.
#include "common.cuh"

#define BA_THREADS 256

__device__ __forceinline__ float ba_act(float v, int act) {
  switch (act) {
    case 1: return v > 0.0f ? v : 0.0f;
    case 2: return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    case 3: return 1.0f / (1.0f + expf(-v));
    case 4: return tanhf(v);
    case 5: return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
    default: return v;
  }
}

template <typename T>
__device__ __forceinline__ void ba_scalar(const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ y,
                                          long long total, int C, long long inner, int act) {
  for (long long i = tfc_global_thread_id(); i < total; i += tfc_grid_stride()) {
    const int c = (int)((i / inner) % C);
    y[i] = tfc_from_float<T>(ba_act(tfc_to_float(x[i]) + tfc_to_float(bias[c]), act));
  }
}

TFC_KERNEL void bias_add_f32(const float* x, const float* bias, float* y, long long total, int C, long long inner,
                             int act, int vec) {
  if (!vec) {
    ba_scalar<float>(x, bias, y, total, C, inner, act);
    return;
  }
  const long long n4 = total >> 2;
  const int c4 = C >> 2;
  for (long long i = tfc_global_thread_id(); i < n4; i += tfc_grid_stride()) {
    const int c = (int)(i % c4) << 2;
    const float4 v = reinterpret_cast<const float4*>(x)[i];
    float4 o;
    o.x = ba_act(v.x + bias[c], act);
    o.y = ba_act(v.y + bias[c + 1], act);
    o.z = ba_act(v.z + bias[c + 2], act);
    o.w = ba_act(v.w + bias[c + 3], act);
    reinterpret_cast<float4*>(y)[i] = o;
  }
}

TFC_KERNEL void bias_add_f16(const __half* x, const __half* bias, __half* y, long long total, int C,
                             long long inner, int act, int vec) {
  ba_scalar<__half>(x, bias, y, total, C, inner, act);
}
