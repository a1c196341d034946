// Kernels for the emulator's racecheck mode (tests/kernels/test_racecheck.py): each pair is one
// shared-memory pattern with and without the barrier that makes it race-free.
#include "common.cuh"

// Thread t writes s[t]; thread t reads its neighbour's s[(t + shift) % n]. `sync` = 0 drops the
// __syncthreads between the write and the read: with shift = n - 1 thread t reads what thread t - 1
// wrote (read after write; the emulator runs thread t - 1 first), with shift = 1 thread t + 1 later
// overwrites what thread t read (write after read).
TFC_KERNEL void neighbour_read(const float* x, float* y, int shift, int sync) {
  __shared__ float s[128];
  const int t = threadIdx.x, n = blockDim.x;
  s[t] = x[blockIdx.x * n + t];
  if (sync) __syncthreads();
  y[blockIdx.x * n + t] = s[(t + shift) % n];
}

// Write-after-read: every thread reads s[0] (written by thread 0 before a barrier), then thread 0
// overwrites s[0]; without the second barrier another thread's read is not ordered before that write.
TFC_KERNEL void overwrite_after_read(float* y, int sync) {
  __shared__ float s[4];
  const int t = threadIdx.x;
  if (t == 0) s[0] = 1.0f;
  __syncthreads();
  const float v = s[0];
  if (sync) __syncthreads();
  if (t == 0) s[0] = 2.0f;
  y[t] = v;
}

// Same pattern in dynamic shared memory, across two warps (64 threads: t reads s[63 - t]).
TFC_KERNEL void dyn_reverse_race(const float* x, float* y, int sync) {
  TFC_DYNAMIC_SHARED(float, s);
  const int t = threadIdx.x, n = blockDim.x;
  s[t] = x[t];
  if (sync) __syncthreads();
  y[t] = s[n - 1 - t];
}

// Warp-synchronous tree reduction in shared memory within one warp, each level separated by
// __syncwarp (race-free) or not (sync = 0: lane t reads s[t + o] that lane t + o wrote).
TFC_KERNEL void warp_tree_sum(const float* x, float* y, int sync) {
  __shared__ float s[64];
  const int t = threadIdx.x;  // one warp
  s[t] = x[t];
  s[t + 32] = x[t + 32];
  if (sync) __syncwarp();
  for (int o = 32; o > 0; o >>= 1) {
    float v = 0.0f;
    if (t < o) v = s[t] + s[t + o];
    if (sync) __syncwarp();
    if (t < o) s[t] = v;
    if (sync) __syncwarp();
  }
  if (t == 0) y[0] = s[0];
}

// Warp-shuffle reduction per warp, warp totals through shared memory, block barrier, then warp 0
// combines them: the usual two-level reduction (no race).
TFC_KERNEL void shuffle_reduce(const float* x, float* y) {
  __shared__ float part[32];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  float v = tfc_warp_reduce_sum(x[blockIdx.x * blockDim.x + t]);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? part[lane] : 0.0f;
    v = tfc_warp_reduce_sum(v);
    if (lane == 0) y[blockIdx.x] = v;
  }
}

// Lanes publish to shared memory, a __shfl_sync (a warp barrier) orders them, then each lane reads
// its neighbour's slot: ordered by the shuffle, no race. `shuffle` = 0: no barrier, a race.
TFC_KERNEL void shuffle_orders_shared(const int* x, int* y, int shuffle) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = x[lane];
  int v = 0;
  if (shuffle) v = __shfl_xor_sync(0xffffffffu, lane, 1);
  y[lane] = s[(lane + 1) & 31] + v - (shuffle ? (lane ^ 1) : 0);
}

// __syncwarp over half the warp orders lanes of that half only: lanes 0..15 sync among themselves,
// lane t < 16 reads what lane 15 - t wrote (ordered). `cross` = 1 makes lane 0 read lane 16's slot,
// which no common barrier orders: a race.
TFC_KERNEL void half_warp_sync(const int* x, int* y, int cross) {
  __shared__ int s[32];
  const int lane = threadIdx.x;
  s[lane] = x[lane];
  const unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
  __syncwarp(half);
  int src = lane < 16 ? 15 - lane : 47 - lane;
  if (cross && lane == 0) src = 16;
  y[lane] = s[src];
}

// Shared-memory histogram with atomicAdd: atomics do not race with each other; the bins are zeroed
// and read back around __syncthreads.
TFC_KERNEL void shared_histogram(const int* keys, int n, int* hist, float* fsum) {
  __shared__ int bins[16];
  __shared__ float total;
  const int t = threadIdx.x;
  if (t < 16) bins[t] = 0;
  if (t == 0) total = 0.0f;
  __syncthreads();
  for (int i = t; i < n; i += blockDim.x) {
    atomicAdd(&bins[keys[i] & 15], 1);
    atomicAdd(&total, 1.0f);
  }
  __syncthreads();
  if (t < 16) hist[t] = bins[t];
  if (t == 0) fsum[0] = total;
}

// Atomics on a counter that thread 0 zeroes without a barrier first: the plain write races with the
// other threads' atomics.
TFC_KERNEL void atomic_after_unsynced_init(int* out) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[0] = counter;
}

// __half cells: neighbouring threads write adjacent 2-byte halves of one word (no race).
TFC_KERNEL void half_cells(const __half* x, __half* y) {
  __shared__ __half s[64];
  const int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  y[t] = s[63 - t];
}
