// Probes of common.cuh's tensor-core / async-copy helpers (tests/kernels/test_tensor_core_helpers.py):
// one warp per launch; each lane's fragments come in and go out as raw words, so the test checks the
// per-lane layout against a NumPy model of the PTX ISA. The emulator runs them; NVRTC must compile them.
#include "common.cuh"

// d = A (16x16 f16) @ B (16x8 f16) + C for one warp: a: 4 words per lane, b: 2, c and d: 4 floats.
TFC_KERNEL void mma_f16_probe(const unsigned* a, const unsigned* b, const float* c, float* d) {
  const int l = threadIdx.x;
  unsigned fa[4], fb[2];
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fa[i] = a[l * 4 + i];
  for (int i = 0; i < 2; ++i) fb[i] = b[l * 2 + i];
  for (int i = 0; i < 4; ++i) fc[i] = c[l * 4 + i];
  tfc_mma_m16n8k16_f16f32(fd, fa, fb, fc);
  for (int i = 0; i < 4; ++i) d[l * 4 + i] = fd[i];
}

// d = tf32(A) (16x8) @ tf32(B) (8x8) + C: the lanes' float operands are rounded with tfc_to_tf32 first.
TFC_KERNEL void mma_tf32_probe(const float* a, const float* b, const float* c, float* d) {
  const int l = threadIdx.x;
  unsigned fa[4], fb[2];
  float fc[4], fd[4];
  for (int i = 0; i < 4; ++i) fa[i] = tfc_to_tf32(a[l * 4 + i]);
  for (int i = 0; i < 2; ++i) fb[i] = tfc_to_tf32(b[l * 2 + i]);
  for (int i = 0; i < 4; ++i) fc[i] = c[l * 4 + i];
  tfc_mma_m16n8k8_tf32f32(fd, fa, fb, fc);
  for (int i = 0; i < 4; ++i) d[l * 4 + i] = fd[i];
}

TFC_KERNEL void tf32_round_probe(const float* x, unsigned* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tfc_to_tf32(x[i]);
}

// Shared memory holds 32 rows of 8 halves (src, row-major). Lane l passes the address of row perm[l];
// mode 0: x4, 1: x2, 2: x4.trans, 3: x2.trans. out: 4 words per lane (unused words stay 0).
TFC_KERNEL void ldmatrix_probe(const unsigned short* src, const int* perm, unsigned* out, int mode) {
  __align__(16) __shared__ unsigned short s[32 * 8];
  const int l = threadIdx.x;
  for (int i = l; i < 32 * 8; i += 32) s[i] = src[i];
  __syncthreads();
  unsigned r[4] = {0u, 0u, 0u, 0u};
  const unsigned short* row = s + perm[l] * 8;
  if (mode == 0) tfc_ldmatrix_x4(r, row);
  if (mode == 1) tfc_ldmatrix_x2(r, row);
  if (mode == 2) tfc_ldmatrix_x4_trans(r, row);
  if (mode == 3) tfc_ldmatrix_x2_trans(r, row);
  for (int i = 0; i < 4; ++i) out[l * 4 + i] = r[i];
}

// Lane l copies 16 bytes from src + 4 * l to shared memory with cp.async (size by lane % 4: ca4, ca8,
// ca16, cg16), of which src_bytes[l] exist; the rest must be zero-filled. out: 4 words per lane.
TFC_KERNEL void cp_async_probe(const float* src, const int* src_bytes, float* out) {
  __align__(16) __shared__ float s[32 * 4];
  const int l = threadIdx.x;
  for (int i = 0; i < 4; ++i) s[l * 4 + i] = -1.0f;
  __syncthreads();
  const int kind = l & 3, nb = src_bytes[l];
  const float* g = src + 4 * l;
  if (kind == 0) tfc_cp_async_ca4(&s[l * 4], g, nb);
  if (kind == 1) tfc_cp_async_ca8(&s[l * 4], g, nb);
  if (kind == 2) tfc_cp_async_ca16(&s[l * 4], g, nb);
  if (kind == 3) tfc_cp_async_cg16(&s[l * 4], g, nb);
  tfc_cp_async_commit();
  tfc_cp_async_commit();  // an empty group
  tfc_cp_async_wait<1>();
  tfc_cp_async_wait_all();
  __syncthreads();
  for (int i = 0; i < 4; ++i) out[((l + 1) & 31) * 4 + i] = s[((l + 1) & 31) * 4 + i];  // another lane's copy
}

// cp.async completes only at its thread's wait (the emulator lands it there, at the latest moment the PTX
// memory model allows). Lane l issues three 16-byte copies: src[4l..] into stage 0 (group 0, committed),
// src[128 + 4l..] into stage 1 (group 1, committed) and src[256 + 4l..] into stage 2 (no commit after it),
// then per `mode`: 0 wait_group 1, 1 wait_group 0, 2 wait_all, 3 no wait; it reads back its own three
// slots into out[stage][l]. Modes 4 (no wait) and 5 (wait_group 0) instead read the NEXT lane's stage-0
// slot after a __syncthreads into out[0][l]. The stages start as -1.
TFC_KERNEL void cp_async_groups_probe(const float* src, float* out, int mode) {
  __align__(16) __shared__ float s[3][32 * 4];
  const int l = threadIdx.x;
  for (int st = 0; st < 3; ++st)
    for (int i = 0; i < 4; ++i) s[st][l * 4 + i] = -1.0f;
  __syncthreads();
  tfc_cp_async_cg16(&s[0][l * 4], src + 4 * l, 16);
  tfc_cp_async_commit();
  tfc_cp_async_cg16(&s[1][l * 4], src + 128 + 4 * l, 16);
  tfc_cp_async_commit();
  tfc_cp_async_cg16(&s[2][l * 4], src + 256 + 4 * l, 16);
  if (mode == 0) tfc_cp_async_wait<1>();
  if (mode == 1 || mode == 5) tfc_cp_async_wait<0>();
  if (mode == 2) tfc_cp_async_wait_all();
  if (mode >= 4) {
    __syncthreads();
    const int o = (l + 1) & 31;
    for (int i = 0; i < 4; ++i) out[l * 4 + i] = s[0][o * 4 + i];
    return;
  }
  for (int st = 0; st < 3; ++st)
    for (int i = 0; i < 4; ++i) out[(st * 32 + l) * 4 + i] = s[st][l * 4 + i];
}

// Misuse the emulator must report: a misaligned ldmatrix row, a misaligned cp.async, an mma in a warp
// with missing lanes (block of 16 threads).
TFC_KERNEL void ldmatrix_misaligned(const unsigned short* src, unsigned* out) {
  __align__(16) __shared__ unsigned short s[32 * 8 + 8];
  const int l = threadIdx.x;
  for (int i = l; i < 32 * 8; i += 32) s[i] = src[i];
  __syncthreads();
  unsigned r[4];
  tfc_ldmatrix_x4(r, s + 1 + l * 8);
  out[l] = r[0];
}
TFC_KERNEL void cp_async_misaligned(const float* src, float* out) {
  __align__(16) __shared__ float s[64];
  tfc_cp_async_cg16(&s[4 * threadIdx.x], src + 1, 16);
  tfc_cp_async_wait_all();
  __syncthreads();
  out[threadIdx.x] = s[4 * threadIdx.x];
}
TFC_KERNEL void mma_partial_warp(float* d) {
  const unsigned a[4] = {0u, 0u, 0u, 0u}, b[2] = {0u, 0u};
  const float c[4] = {0.f, 0.f, 0.f, 0.f};
  float r[4];
  tfc_mma_m16n8k16_f16f32(r, a, b, c);
  d[threadIdx.x] = r[0];
}
