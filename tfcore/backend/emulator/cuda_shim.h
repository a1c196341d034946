// cuda_shim.h — lets g++ compile and run CUDA C kernels (kernels/*.cu) on the CPU.
//
// Force-included (`g++ -include cuda_shim.h -DTFC_EMULATOR`) by tfcore/backend/emulator/build.py.
// Execution model:
//   * a grid runs block by block; several OS threads ("workers") may take blocks in parallel;
//   * every CUDA thread of a block is a fiber on the worker's OS thread (hand-written x86-64 context
//     switch, ucontext elsewhere); `__syncthreads()` and the warp primitives are barriers that park
//     a fiber until its block (or the participating lanes of its warp) arrive; a block ends when all
//     of its fibers return;
//   * `__shared__` is `static thread_local`: one copy per worker, i.e. per running block, because a
//     worker runs its blocks one after another; dynamic shared memory is a per-worker buffer with a
//     PROT_NONE page after it (TFC_DYNAMIC_SHARED in common.cuh);
//   * a memory fault inside a kernel (guard pages around the launcher's argument buffers, or any
//     other bad address) is caught by a SIGSEGV/SIGBUS handler and reported as an error, with the
//     faulting block/thread and address, instead of killing the process.
// Launches are serialised by the Python side (one launch at a time per process).
#pragma once

#define __CUDA_ARCH_EMULATED__ 800

#ifdef TFC_EMU_SIGNATURES
// Preprocess-only pass (build.py): keep a marker where `__global__` was, drop everything else.
#define __global__ __tfc_global__
#define __device__
#define __host__
#define __forceinline__
#define __noinline__
#define __restrict__ __restrict__
#define __launch_bounds__(...)
#define __align__(n)
#define __shared__
#define __constant__
#else

#include <atomic>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

// ---- qualifiers ---------------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __shared__ static thread_local
#define __constant__
#define TFC_EMU_EXPORT extern "C" __attribute__((visibility("default")))

// ---- vector types ---------------------------------------------------------------------------------------
#define TFC_EMU_VEC2(T, N, A) struct alignas(A) N { T x, y; }; \
  inline N make_##N(T x, T y) { N r; r.x = x; r.y = y; return r; }
#define TFC_EMU_VEC3(T, N) struct N { T x, y, z; }; \
  inline N make_##N(T x, T y, T z) { N r; r.x = x; r.y = y; r.z = z; return r; }
#define TFC_EMU_VEC4(T, N, A) struct alignas(A) N { T x, y, z, w; }; \
  inline N make_##N(T x, T y, T z, T w) { N r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
TFC_EMU_VEC2(float, float2, 8)
TFC_EMU_VEC3(float, float3)
TFC_EMU_VEC4(float, float4, 16)
TFC_EMU_VEC2(int, int2, 8)
TFC_EMU_VEC3(int, int3)
TFC_EMU_VEC4(int, int4, 16)
TFC_EMU_VEC2(unsigned int, uint2, 8)
TFC_EMU_VEC4(unsigned int, uint4, 16)
TFC_EMU_VEC2(double, double2, 16)
TFC_EMU_VEC2(long long, longlong2, 16)
TFC_EMU_VEC2(short, short2, 4)
TFC_EMU_VEC4(short, short4, 8)
TFC_EMU_VEC2(unsigned short, ushort2, 4)
TFC_EMU_VEC4(signed char, char4, 4)
TFC_EMU_VEC4(unsigned char, uchar4, 4)

struct uint3 {
  unsigned int x, y, z;
};
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}  // NOLINT: implicit as in CUDA
  operator uint3() const { return uint3{x, y, z}; }
};

// ---- __half (IEEE binary16 storage, float arithmetic) --------------------------------------------------
namespace tfc_emu {
inline unsigned short float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return (unsigned short)(sign | 0x7c00u | (a > 0x7f800000u ? (0x200u | ((a >> 13) & 0x3ffu)) : 0u));
  if (a >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds to +-inf
  if (a < 0x38800000u) {                                          // half subnormal or zero
    float af;
    std::memcpy(&af, &a, 4);
    return (unsigned short)(sign | (uint32_t)std::nearbyint(af * 16777216.0f));
  }
  uint32_t h = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13);
  const uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (unsigned short)(sign | h);
}
inline float half_bits_to_float(unsigned short h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = (float)m * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  uint32_t bits = e == 31 ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13));
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
}  // namespace tfc_emu

struct alignas(2) __half {
  unsigned short __x;
};
struct alignas(4) __half2 {
  __half x, y;
};
typedef __half half;
inline float __half2float(__half h) { return tfc_emu::half_bits_to_float(h.__x); }
inline __half __float2half(float f) { return __half{tfc_emu::float_to_half_bits(f)}; }
inline __half __float2half_rn(float f) { return __float2half(f); }
inline __half __int2half_rn(int i) { return __float2half((float)i); }
inline int __half2int_rn(__half h) { return (int)std::nearbyint(__half2float(h)); }
inline float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__float2half(a), __float2half(b)}; }
inline __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short u) { return __half{u}; }
inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
inline __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
inline __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
inline __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
inline __half __hfma(__half a, __half b, __half c) {
  return __float2half(std::fma(__half2float(a), __half2float(b), __half2float(c)));
}
inline __half __hneg(__half a) { return __half{(unsigned short)(a.__x ^ 0x8000u)}; }
inline __half __hmax(__half a, __half b) { return __half2float(a) >= __half2float(b) ? a : b; }
inline __half __hmin(__half a, __half b) { return __half2float(a) <= __half2float(b) ? a : b; }
inline bool __hisnan(__half a) { return std::isnan(__half2float(a)); }
// No arithmetic or comparison operators on __half: kernels compile under NVRTC without cuda_fp16.h
// (kernels/common.cuh), where __half is a plain struct; the emulator refuses `a * b` as NVRTC does.

// ---- math intrinsics ----------------------------------------------------------------------------------
using std::abs;
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline void __sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline void sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x == x ? x : 0.0f)); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline float normcdff(float x) { return 0.5f * std::erfc(-x * 0.70710678118654752f); }
// CUDA's modified Bessel functions of the first kind (orders 0 and 1) from C++17's std::cyl_bessel_i, which takes
// x >= 0 (I0 is even, I1 odd) and throws for an infinite x (CUDA gives inf).
inline double tfc_emu_bessel_i(double nu, double x) {
  const double ax = std::fabs(x);
  return std::isinf(ax) ? ax : std::cyl_bessel_i(nu, ax);
}
inline double cyl_bessel_i0(double x) { return tfc_emu_bessel_i(0.0, x); }
inline float cyl_bessel_i0f(float x) { return (float)tfc_emu_bessel_i(0.0, x); }
inline double cyl_bessel_i1(double x) { return x < 0 ? -tfc_emu_bessel_i(1.0, x) : tfc_emu_bessel_i(1.0, x); }
inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1((double)x); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)std::floor(x); }
inline int __float2int_ru(float x) { return (int)std::ceil(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
// CUDA's min/max overloads (integer and floating), including mixed signed/unsigned like nvcc.
template <typename A, typename B>
inline typename std::common_type<A, B>::type min(A a, B b) {
  typedef typename std::common_type<A, B>::type C;
  return (C)a < (C)b ? (C)a : (C)b;
}
template <typename A, typename B>
inline typename std::common_type<A, B>::type max(A a, B b) {
  typedef typename std::common_type<A, B>::type C;
  return (C)a > (C)b ? (C)a : (C)b;
}
template <typename T>
inline T __ldg(const T* p) { return *p; }
template <typename T>
inline T __ldcs(const T* p) { return *p; }
template <typename T>
inline T __ldcg(const T* p) { return *p; }
template <typename T>
inline void __stcs(T* p, T v) { *p = v; }
template <typename T>
inline void __stcg(T* p, T v) { *p = v; }

// ---- fibers, blocks, warps ------------------------------------------------------------------------------
namespace tfc_emu {

struct Error {  // mirrored by ctypes in launcher.py
  int code;         // 0 ok, 1 memory fault, 2 barrier deadlock, 3 __trap/assert, 4 bad launch config,
                    // 5 shared-memory race (racecheck builds)
  int arg;          // faulting argument region index (-1: none)
  long long offset; // fault address minus the argument buffer start (bytes)
  int write;        // 1 write, 0 read, -1 unknown
  int region_kind;  // 0 before the buffer, 1 after it, 2 write to read-only buffer, 3 shared memory, 4 other,
                    // 5 fiber stack overflow
  unsigned long long address;
  unsigned block[3];
  unsigned thread[3];
  char message[256];
  unsigned other_thread[3];  // code 5: the thread whose access races with `thread`'s
  int race_kinds;            // code 5: its access | this access << 4 (1 read, 2 write, 3 atomic, 4 atomic read)
  int shared_static;         // code 5: 1 static __shared__ (offset into the TLS block), 0 dynamic shared memory
};

// One guarded argument buffer (launcher.py builds these): [lo, hi) is the whole mapping,
// [start, start + nbytes) the data.
struct Region {
  unsigned long long lo, hi, start, nbytes;
  long long arg;
  long long readonly;
};

enum FiberState : int { RUNNABLE = 0, WAIT_BLOCK = 1, WAIT_WARP = 2, DONE = 3 };

// One cp.async in flight: the source bytes (read, zero-filled, when it was issued) land in shared memory
// at `dst` only when a cp.async.wait_group / wait_all of the issuing thread covers its group.
struct AsyncCopy {
  char* dst;
  unsigned char data[16];
  int size;
  unsigned group;  // the commit-group index it joins (the thread's commit count when it was issued)
};

struct Fiber {
  void* sp;  // saved stack pointer (x86-64) or context (ucontext)
  ucontext_t uctx;
  uint3 tid;
  int linear;
  int state;
  unsigned wait_mask;
  unsigned async_committed;          // cp.async.commit_group calls so far
  std::vector<AsyncCopy> async_pending;  // this thread's cp.async copies that have not landed
};

struct Warp {
  unsigned live;     // lanes that exist and have not returned
  unsigned arrived;  // lanes parked at the current warp barrier
  unsigned long long slot[32];
};

struct Worker;

static thread_local uint3 t_threadIdx, t_blockIdx;
static thread_local dim3 t_blockDim, t_gridDim;
static thread_local Worker* t_worker = nullptr;
static thread_local int t_in_kernel = 0;

typedef void (*Trampoline)(void**);

struct Worker {
  // persistent per worker index
  char* stacks = nullptr;
  size_t stack_bytes = 0, nstacks = 0;
  char* dyn_shared = nullptr;  // page-aligned mapping with a guard page after the buffer
  size_t dyn_map_bytes = 0;
  char* dyn_ptr = nullptr;
  size_t dyn_bytes = 0;
  std::vector<Fiber> fibers;
  std::vector<Warp> warps;
  // per block
  void* sched_sp = nullptr;
  ucontext_t sched_uctx;
  Fiber* current = nullptr;
  int live = 0, block_arrived = 0;
  int block_acc = 0, block_result = 0;
  Trampoline tramp = nullptr;
  void** args = nullptr;
  sigjmp_buf jmp;
  Error* err = nullptr;
};

static Worker g_workers[64];
static std::mutex g_launch_mutex;
static std::atomic<int> g_abort{0};
static const Region* g_regions = nullptr;
static int g_nregions = 0;
static Error* g_error = nullptr;
static std::mutex g_error_mutex;
static const size_t kPage = 4096;

inline void set_error(int code, const char* msg) {
  Worker* w = t_worker;
  std::lock_guard<std::mutex> lock(g_error_mutex);
  Error* e = w ? w->err : g_error;
  if (e->code == 0) {
    e->code = code;
    e->block[0] = t_blockIdx.x; e->block[1] = t_blockIdx.y; e->block[2] = t_blockIdx.z;
    e->thread[0] = t_threadIdx.x; e->thread[1] = t_threadIdx.y; e->thread[2] = t_threadIdx.z;
    std::snprintf(e->message, sizeof(e->message), "%s", msg);
  }
  g_abort.store(1);
}

// ---- race check ---------------------------------------------------------------------------------------
// Shared-memory race detection (build.py's racecheck mode: -DTFC_EMU_RACECHECK, the source compiled with
// g++ -fsanitize=thread but linked WITHOUT the TSan runtime; the instrumentation hooks are defined here).
// Every load/store the compiler emits calls __tsan_readN/__tsan_writeN; a hook looks at addresses inside
// the running block's shared memory only: static `__shared__` variables (they are `static thread_local`,
// so they lie in this library's TLS block; racecheck runs one worker, the calling thread) and the dynamic
// shared buffer. Shadow state per 2-byte cell: the last writer (thread, block-barrier epoch, the writer's
// warp clock) and the readers since then (their warp and lanes with each lane's clock, or "several warps").
// Ordering: accesses in different __syncthreads epochs are ordered; inside one epoch, accesses by two lanes
// of one warp are ordered when a warp barrier both took part in (__syncwarp, shuffles, votes) separates
// them: vector clocks over the warp's lanes, ticked at arrival and joined at release. A read of a cell
// written by another thread, a write of a cell read or written by another thread, unordered, is a race:
// the launch stops with error code 5 naming both threads and the shared-memory offset. Atomic
// read-modify-writes (__tsan_atomic*) do not race with each other. memcpy/memset calls are not seen
// (TSan intercepts those in its runtime); kernels copy shared memory with loads and stores.
// Hooks into the scheduler: TFC_RC_* below (no-ops without TFC_EMU_RACECHECK).
#ifdef TFC_EMU_RACECHECK
#define TFC_RC_NOSAN __attribute__((no_sanitize_thread, noinline))
}  // namespace tfc_emu
#include <link.h>
namespace tfc_emu {

struct RcCell {
  uint32_t serial;            // block serial that last touched the cell (else the cell is empty)
  int32_t writer;             // linear thread id of the last plain writer, -1 none
  uint32_t w_epoch, w_clock;  // its __syncthreads epoch and own warp clock at the write
  int32_t a_writer;           // the last atomic read-modify-write since then, -1 none
  uint32_t a_epoch, a_clock;
  uint32_t r_epoch;           // epoch of the reader set
  int32_t r_warp;             // warp of the readers, -1 none, -2 several warps
  uint32_t r_mask;            // reader lanes (r_warp >= 0)
  int32_t r_first, r_other;   // a reader; a reader from another warp than r_first's (r_warp == -2)
  uint32_t r_clock[32];       // each reader lane's own clock at its last read
  int32_t async_owner;        // the thread whose cp.async into the cell has not landed yet, -1 none
};

struct RcState {
  int in_fiber = 0;                   // a fiber of the block is running (hooks are live)
  Worker* w = nullptr;
  uintptr_t s_lo = 0, s_len = 0;      // static __shared__: this library's TLS block in the worker thread
  uintptr_t d_lo = 0, d_len = 0;      // dynamic shared memory
  RcCell* s_cells = nullptr;
  size_t s_ncells = 0;
  RcCell* d_cells = nullptr;
  size_t d_ncells = 0;
  uint32_t serial = 0, epoch = 0;
  uint32_t* vc = nullptr;             // [threads][32]: each thread's clocks over the lanes of its warp
  size_t vc_threads = 0;
  uint32_t tmp[32][32];
};
static RcState g_rc;

TFC_RC_NOSAN inline int rc_tls_cb(struct dl_phdr_info* info, size_t, void* data) {
  uintptr_t* out = (uintptr_t*)data;  // in: an address inside this library; out: TLS instance, size
  uintptr_t probe = out[0];
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && probe >= info->dlpi_addr + ph.p_vaddr && probe < info->dlpi_addr + ph.p_vaddr + ph.p_memsz)
      mine = true;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_TLS) {
      out[1] = (uintptr_t)info->dlpi_tls_data;
      out[2] = info->dlpi_phdr[i].p_memsz;
    }
  return 1;
}

TFC_RC_NOSAN inline RcCell* rc_grow(RcCell* p, size_t* have, size_t need) {
  if (*have >= need) return p;
  std::free(p);
  *have = need;
  return (RcCell*)std::calloc(need, sizeof(RcCell));  // serial 0: empty (block serials start at 1)
}

// Once per launch, on the worker thread (racecheck runs one worker: the caller's thread).
TFC_RC_NOSAN inline bool rc_launch(Worker* w, size_t nthreads, size_t shmem) {
  g_rc.w = w;
  g_rc.in_fiber = 0;
  volatile int touch = t_in_kernel;  // allocate this thread's TLS block for the library
  (void)touch;
  uintptr_t q[3] = {(uintptr_t)(void*)&rc_tls_cb, 0, 0};
  dl_iterate_phdr(rc_tls_cb, q);
  g_rc.s_lo = q[1];
  g_rc.s_len = q[1] ? q[2] : 0;
  g_rc.s_cells = rc_grow(g_rc.s_cells, &g_rc.s_ncells, g_rc.s_len / 2 + 1);
  g_rc.d_len = 0;  // set per block (the worker's buffer is mapped in prepare_worker)
  g_rc.d_cells = rc_grow(g_rc.d_cells, &g_rc.d_ncells, shmem / 2 + 1);
  if (g_rc.vc_threads < nthreads) {
    std::free(g_rc.vc);
    g_rc.vc = (uint32_t*)std::calloc(nthreads * 32, sizeof(uint32_t));
    g_rc.vc_threads = nthreads;
  }
  return g_rc.s_cells && g_rc.d_cells && g_rc.vc;
}

TFC_RC_NOSAN inline void rc_block_begin(Worker* w, int n) {
  ++g_rc.serial;
  ++g_rc.epoch;
  g_rc.d_lo = (uintptr_t)w->dyn_ptr;
  g_rc.d_len = w->dyn_bytes;
  std::memset(g_rc.vc, 0, (size_t)n * 32 * sizeof(uint32_t));
}

TFC_RC_NOSAN inline void rc_warp_arrive(int linear) { ++g_rc.vc[(size_t)linear * 32 + (linear & 31)]; }

// Lanes `to_release` of warp `wi` leave a warp barrier: each joins the clocks of the lanes it waited for.
TFC_RC_NOSAN inline void rc_warp_release(Worker* w, int wi, unsigned to_release) {
  const unsigned live = w->warps[wi].live;
  unsigned prev_need = 0;
  int prev = -1;
  for (int l = 0; l < 32; ++l) {
    if (!(to_release >> l & 1u)) continue;
    const unsigned need = w->fibers[wi * 32 + l].wait_mask & live;  // includes lane l
    if (prev >= 0 && need == prev_need) {  // the usual case: every lane waited for the same lanes
      std::memcpy(g_rc.tmp[l], g_rc.tmp[prev], sizeof(g_rc.tmp[l]));
      continue;
    }
    prev = l;
    prev_need = need;
    for (int k = 0; k < 32; ++k) g_rc.tmp[l][k] = 0;
    for (int j = 0; j < 32; ++j) {
      if (!(need >> j & 1u)) continue;
      const uint32_t* v = g_rc.vc + (size_t)(wi * 32 + j) * 32;
      for (int k = 0; k < 32; ++k)
        if (v[k] > g_rc.tmp[l][k]) g_rc.tmp[l][k] = v[k];
    }
  }
  for (int l = 0; l < 32; ++l)
    if (to_release >> l & 1u) std::memcpy(g_rc.vc + (size_t)(wi * 32 + l) * 32, g_rc.tmp[l], 32 * sizeof(uint32_t));
}

enum RcKind { RC_READ = 1, RC_WRITE = 2, RC_ATOMIC = 3, RC_ATOMIC_READ = 4, RC_ASYNC = 5 };

[[noreturn]] TFC_RC_NOSAN inline void rc_report(int other, int prev_kind, int cur_kind, bool is_static, uintptr_t off) {
  Worker* w = g_rc.w;
  Error* e = w->err;
  {
    std::lock_guard<std::mutex> lock(g_error_mutex);
    if (e->code == 0) {
      e->code = 5;
      e->block[0] = t_blockIdx.x; e->block[1] = t_blockIdx.y; e->block[2] = t_blockIdx.z;
      e->thread[0] = t_threadIdx.x; e->thread[1] = t_threadIdx.y; e->thread[2] = t_threadIdx.z;
      const dim3 b = t_blockDim;
      e->other_thread[0] = (unsigned)other % b.x;
      e->other_thread[1] = ((unsigned)other / b.x) % b.y;
      e->other_thread[2] = (unsigned)other / (b.x * b.y);
      e->race_kinds = prev_kind | (cur_kind << 4);
      e->region_kind = 3;
      e->shared_static = is_static ? 1 : 0;
      e->offset = (long long)off;
      e->arg = -1;
      e->write = cur_kind == RC_READ || cur_kind == RC_ATOMIC_READ ? 0 : 1;
      std::snprintf(e->message, sizeof(e->message), "shared-memory race");
    }
  }
  g_abort.store(1);
  g_rc.in_fiber = 0;
  siglongjmp(w->jmp, 1);
}

TFC_RC_NOSAN inline void rc_access(uintptr_t a, size_t n, int kind) {
  RcCell* cells;
  uintptr_t base;
  bool is_static;
  if (a - g_rc.s_lo < g_rc.s_len) {
    cells = g_rc.s_cells; base = g_rc.s_lo; is_static = true;
    if (n > g_rc.s_lo + g_rc.s_len - a) n = g_rc.s_lo + g_rc.s_len - a;
  } else {
    cells = g_rc.d_cells; base = g_rc.d_lo; is_static = false;
    if (n > g_rc.d_lo + g_rc.d_len - a) n = g_rc.d_lo + g_rc.d_len - a;
  }
  const int c = g_rc.w->current->linear, lc = c & 31, wc = c >> 5;
  const uint32_t* vcc = g_rc.vc + (size_t)c * 32;
  const uint32_t serial = g_rc.serial, epoch = g_rc.epoch;
  const uintptr_t off = a - base;
  for (size_t i = off / 2, last = (off + n - 1) / 2; i <= last; ++i) {
    RcCell& C = cells[i];
    if (C.serial != serial) {
      C.serial = serial;
      C.writer = -1;
      C.a_writer = -1;
      C.r_warp = -1;
      C.r_mask = 0;
      C.r_epoch = 0;
      C.async_owner = -1;
    }
    const uintptr_t at = i * 2 > off ? i * 2 : off;  // byte offset reported
    // A cp.async into the cell has not landed: any access races with it (its own thread's too: only
    // cp.async.wait_group/wait_all of the issuing thread, then a barrier for the others, order it).
    if (C.async_owner >= 0) rc_report(C.async_owner, RC_ASYNC, kind, is_static, at);
    // The last plain write and the last atomic since, by another thread, not ordered before this access
    // (atomics among themselves are).
    if (C.writer >= 0 && C.writer != c && C.w_epoch == epoch &&
        !((C.writer >> 5) == wc && vcc[C.writer & 31] > C.w_clock))
      rc_report(C.writer, RC_WRITE, kind, is_static, at);
    const bool atomic = kind == RC_ATOMIC || kind == RC_ATOMIC_READ;
    if (!atomic && C.a_writer >= 0 && C.a_writer != c && C.a_epoch == epoch &&
        !((C.a_writer >> 5) == wc && vcc[C.a_writer & 31] > C.a_clock))
      rc_report(C.a_writer, RC_ATOMIC, kind, is_static, at);
    if (kind == RC_ATOMIC_READ) continue;
    if (kind == RC_READ) {
      if (C.r_epoch != epoch) { C.r_epoch = epoch; C.r_warp = -1; C.r_mask = 0; }
      if (C.r_warp == -1) { C.r_warp = wc; C.r_first = c; }
      if (C.r_warp == wc) {
        C.r_mask |= 1u << lc;
        C.r_clock[lc] = vcc[lc];
      } else if (C.r_warp >= 0) {
        C.r_warp = -2;
        C.r_other = c;
      }
      continue;
    }
    // A write: every read since the last write must be ordered before it.
    if (C.r_epoch == epoch && C.r_warp != -1) {
      if (C.r_warp == -2) {
        rc_report((C.r_first >> 5) != wc ? C.r_first : C.r_other, RC_READ, kind, is_static, at);
      } else if (C.r_warp != wc) {
        rc_report(C.r_first, RC_READ, kind, is_static, at);
      } else {
        const unsigned others = C.r_mask & ~(1u << lc);
        for (int l = 0; l < 32; ++l)
          if ((others >> l & 1u) && !(vcc[l] > C.r_clock[l])) rc_report(wc * 32 + l, RC_READ, kind, is_static, at);
      }
    }
    if (kind == RC_ATOMIC) {  // the plain reads stay: later atomics by others are not ordered after this one
      C.a_writer = c;
      C.a_epoch = epoch;
      C.a_clock = vcc[lc];
      continue;
    }
    C.writer = c;
    C.w_epoch = epoch;
    C.w_clock = vcc[lc];
    C.a_writer = -1;
    C.r_warp = -1;
    C.r_mask = 0;
  }
}

__attribute__((no_sanitize_thread, always_inline)) inline void rc_hook(const volatile void* p, size_t n, int kind) {
  if (!g_rc.in_fiber) return;
  const uintptr_t a = (uintptr_t)p;
  if (a - g_rc.s_lo < g_rc.s_len || a - g_rc.d_lo < g_rc.d_len) rc_access(a, n, kind);
}

// Mark (owner >= 0) or clear (owner = -1) the cells of shared bytes [a, a + n) as the target of a cp.async
// in flight. The cells were touched by rc_access just before (their serial is the block's).
TFC_RC_NOSAN inline void rc_async_mark(uintptr_t a, size_t n, int32_t owner) {
  RcCell* cells = a - g_rc.s_lo < g_rc.s_len ? g_rc.s_cells : g_rc.d_cells;
  const uintptr_t off = a - (a - g_rc.s_lo < g_rc.s_len ? g_rc.s_lo : g_rc.d_lo);
  for (size_t i = off / 2, last = (off + n - 1) / 2; i <= last; ++i)
    if (cells[i].serial == g_rc.serial) cells[i].async_owner = owner;
}

// cp.async issued into shared [p, p + n): it is a write that must be ordered after every earlier access by
// other threads (a stage refilled while another warp still reads it races), and it stays in flight.
TFC_RC_NOSAN inline void rc_async_issue(const void* p, size_t n) {
  const uintptr_t a = (uintptr_t)p;
  if (!g_rc.in_fiber || !(a - g_rc.s_lo < g_rc.s_len || a - g_rc.d_lo < g_rc.d_len)) return;
  rc_access(a, n, RC_WRITE);
  rc_async_mark(a, n, g_rc.w->current->linear);
}

// The copy lands (its thread's wait_group/wait_all): from here it is this thread's write of this epoch.
TFC_RC_NOSAN inline void rc_async_land(const void* p, size_t n) {
  const uintptr_t a = (uintptr_t)p;
  if (!g_rc.in_fiber || !(a - g_rc.s_lo < g_rc.s_len || a - g_rc.d_lo < g_rc.d_len)) return;
  rc_async_mark(a, n, -1);
  rc_access(a, n, RC_WRITE);
}
}  // namespace tfc_emu

// The instrumentation interface g++ -fsanitize=thread emits calls to (no TSan runtime is linked).
#define TFC_RC_API extern "C" __attribute__((no_sanitize_thread, visibility("hidden")))
TFC_RC_API void __tsan_init() {}
TFC_RC_API void __tsan_func_entry(void*) {}
TFC_RC_API void __tsan_func_exit() {}
TFC_RC_API void __tsan_vptr_read(void**) {}
TFC_RC_API void __tsan_vptr_update(void**, void*) {}
#define TFC_RC_RW(N)                                                                                     \
  TFC_RC_API void __tsan_read##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_READ); }                 \
  TFC_RC_API void __tsan_write##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_WRITE); }               \
  TFC_RC_API void __tsan_unaligned_read##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_READ); }       \
  TFC_RC_API void __tsan_unaligned_write##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_WRITE); }     \
  TFC_RC_API void __tsan_volatile_read##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_READ); }        \
  TFC_RC_API void __tsan_volatile_write##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_WRITE); }      \
  TFC_RC_API void __tsan_unaligned_volatile_read##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_READ); } \
  TFC_RC_API void __tsan_unaligned_volatile_write##N(void* p) { tfc_emu::rc_hook(p, N, tfc_emu::RC_WRITE); }
TFC_RC_RW(1)
TFC_RC_RW(2)
TFC_RC_RW(4)
TFC_RC_RW(8)
TFC_RC_RW(16)
TFC_RC_API void __tsan_read_range(void* p, unsigned long n) { if (n) tfc_emu::rc_hook(p, n, tfc_emu::RC_READ); }
TFC_RC_API void __tsan_write_range(void* p, unsigned long n) { if (n) tfc_emu::rc_hook(p, n, tfc_emu::RC_WRITE); }
TFC_RC_API void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
TFC_RC_API void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#define TFC_RC_ATOMIC_RMW(N, T, OP)                                                                      \
  TFC_RC_API T __tsan_atomic##N##_##OP(volatile T* p, T v, int) {                                       \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    return __atomic_##OP(p, v, __ATOMIC_SEQ_CST);                                                       \
  }
#define TFC_RC_ATOMICS(N, T)                                                                             \
  TFC_RC_API T __tsan_atomic##N##_load(const volatile T* p, int) {                                      \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC_READ);                                            \
    return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                        \
  }                                                                                                     \
  TFC_RC_API void __tsan_atomic##N##_store(volatile T* p, T v, int) {                                   \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    __atomic_store_n(p, v, __ATOMIC_SEQ_CST);                                                           \
  }                                                                                                     \
  TFC_RC_API T __tsan_atomic##N##_exchange(volatile T* p, T v, int) {                                   \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                     \
  TFC_RC_ATOMIC_RMW(N, T, fetch_add)                                                                    \
  TFC_RC_ATOMIC_RMW(N, T, fetch_sub)                                                                    \
  TFC_RC_ATOMIC_RMW(N, T, fetch_and)                                                                    \
  TFC_RC_ATOMIC_RMW(N, T, fetch_or)                                                                     \
  TFC_RC_ATOMIC_RMW(N, T, fetch_xor)                                                                    \
  TFC_RC_ATOMIC_RMW(N, T, fetch_nand)                                                                   \
  TFC_RC_API int __tsan_atomic##N##_compare_exchange_strong(volatile T* p, T* c, T v, int, int) {      \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    return __atomic_compare_exchange_n(p, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
  }                                                                                                     \
  TFC_RC_API int __tsan_atomic##N##_compare_exchange_weak(volatile T* p, T* c, T v, int, int) {        \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    return __atomic_compare_exchange_n(p, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);              \
  }                                                                                                     \
  TFC_RC_API T __tsan_atomic##N##_compare_exchange_val(volatile T* p, T c, T v, int, int) {            \
    tfc_emu::rc_hook(p, sizeof(T), tfc_emu::RC_ATOMIC);                                                 \
    __atomic_compare_exchange_n(p, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                   \
    return c;                                                                                           \
  }
TFC_RC_ATOMICS(8, uint8_t)
TFC_RC_ATOMICS(16, uint16_t)
TFC_RC_ATOMICS(32, uint32_t)
TFC_RC_ATOMICS(64, uint64_t)
namespace tfc_emu {

#define TFC_RC_FIBER_ENTER() (tfc_emu::g_rc.in_fiber = 1)
#define TFC_RC_FIBER_LEAVE() (tfc_emu::g_rc.in_fiber = 0)
#define TFC_RC_BLOCK_BEGIN(w, n) tfc_emu::rc_block_begin(w, n)
#define TFC_RC_BLOCK_BARRIER() (++tfc_emu::g_rc.epoch)
#define TFC_RC_WARP_ARRIVE(linear) tfc_emu::rc_warp_arrive(linear)
#define TFC_RC_WARP_RELEASE(w, wi, lanes) tfc_emu::rc_warp_release(w, wi, lanes)
#define TFC_RC_ASYNC_ISSUE(p, n) tfc_emu::rc_async_issue(p, n)
#define TFC_RC_ASYNC_LAND(p, n) tfc_emu::rc_async_land(p, n)
#else
#define TFC_RC_FIBER_ENTER() ((void)0)
#define TFC_RC_FIBER_LEAVE() ((void)0)
#define TFC_RC_BLOCK_BEGIN(w, n) ((void)0)
#define TFC_RC_BLOCK_BARRIER() ((void)0)
#define TFC_RC_WARP_ARRIVE(linear) ((void)0)
#define TFC_RC_WARP_RELEASE(w, wi, lanes) ((void)0)
#define TFC_RC_ASYNC_ISSUE(p, n) ((void)0)
#define TFC_RC_ASYNC_LAND(p, n) ((void)0)
#endif  // TFC_EMU_RACECHECK
// ---- end race check -----------------------------------------------------------------------------------

// ---- context switch -----------------------------------------------------------------------------------
#if defined(__x86_64__) && !defined(TFC_EMU_UCONTEXT)
#define TFC_EMU_FAST_SWITCH 1
// tfc_emu_switch(void** save_sp, void* new_sp): save callee-saved registers, MXCSR and the x87 control
// word on the current stack, store its pointer in *save_sp, switch to new_sp and restore from there.
extern "C" void tfc_emu_switch(void** save_sp, void* new_sp) __attribute__((visibility("hidden")));
asm(R"(
.text
.globl tfc_emu_switch
.hidden tfc_emu_switch
.type tfc_emu_switch,@function
tfc_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size tfc_emu_switch,.-tfc_emu_switch
)");
#endif

static void fiber_main();

#ifdef TFC_EMU_FAST_SWITCH
extern "C" __attribute__((visibility("hidden"))) void tfc_emu_fiber_entry() { fiber_main(); }
#else
static void uctx_entry() { fiber_main(); }
#endif

inline void resume(Worker* w, Fiber* f) {
  w->current = f;
  t_threadIdx = f->tid;
  TFC_RC_FIBER_ENTER();
#ifdef TFC_EMU_FAST_SWITCH
  tfc_emu_switch(&w->sched_sp, f->sp);
#else
  swapcontext(&w->sched_uctx, &f->uctx);
#endif
  TFC_RC_FIBER_LEAVE();
}

inline void yield_to_scheduler() {
  Worker* w = t_worker;
  Fiber* f = w->current;
#ifdef TFC_EMU_FAST_SWITCH
  tfc_emu_switch(&f->sp, w->sched_sp);
#else
  swapcontext(&f->uctx, &w->sched_uctx);
#endif
}

inline void init_fiber(Worker* w, Fiber* f, size_t i) {
  char* base = w->stacks + i * (w->stack_bytes + kPage) + kPage;  // guard page below each stack
  char* top = base + w->stack_bytes;
#ifdef TFC_EMU_FAST_SWITCH
  // Frame popped by tfc_emu_switch: [mxcsr|fpucw][r15 r14 r13 r12 rbx rbp][ret=entry][fake ret]
  uintptr_t t = ((uintptr_t)top & ~(uintptr_t)15) - 16;  // t % 16 == 0: the "ret" slot
  uint64_t* s = (uint64_t*)t;
  s[0] = (uint64_t)(uintptr_t)&tfc_emu_fiber_entry;
  s[1] = 0;
  uint64_t* regs = s - 6;
  for (int k = 0; k < 6; ++k) regs[k] = 0;
  uint32_t* ctl = (uint32_t*)(regs - 1);
  ctl[0] = 0x1f80u;  // MXCSR default
  ctl[1] = 0x037fu;  // x87 control word default
  f->sp = (void*)(regs - 1);
#else
  getcontext(&f->uctx);
  f->uctx.uc_stack.ss_sp = base;
  f->uctx.uc_stack.ss_size = w->stack_bytes;
  f->uctx.uc_link = &w->sched_uctx;
  makecontext(&f->uctx, (void (*)())uctx_entry, 0);
#endif
}

inline void release_block(Worker* w) {
  TFC_RC_BLOCK_BARRIER();
  w->block_arrived = 0;
  w->block_result = w->block_acc;
  w->block_acc = 0;
  for (auto& f : w->fibers)
    if (f.state == WAIT_BLOCK) f.state = RUNNABLE;
}

// Release lanes of warp `wp` whose barrier is complete (all live lanes of their mask arrived).
inline void check_warp(Worker* w, int warp_index) {
  Warp& wp = w->warps[warp_index];
  unsigned to_release = 0;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(wp.arrived >> lane & 1u)) continue;
    Fiber& f = w->fibers[warp_index * 32 + lane];
    const unsigned need = f.wait_mask & wp.live;
    if ((wp.arrived & need) == need) to_release |= 1u << lane;
  }
  if (!to_release) return;
  TFC_RC_WARP_RELEASE(w, warp_index, to_release);
  wp.arrived &= ~to_release;
  for (int lane = 0; lane < 32; ++lane)
    if (to_release >> lane & 1u) {
      Fiber& f = w->fibers[warp_index * 32 + lane];
      if (f.state == WAIT_WARP) f.state = RUNNABLE;
    }
}

inline void cp_async_land(Fiber* f, bool all, unsigned pending_groups_allowed);

static void fiber_main() {
  Worker* w = t_worker;
  Fiber* f = w->current;
  w->tramp(w->args);
  cp_async_land(f, true, 0);  // copies still in flight when the thread exits land now
  f->state = DONE;
  --w->live;
  Warp& wp = w->warps[f->linear >> 5];
  wp.live &= ~(1u << (f->linear & 31));
  wp.arrived &= ~(1u << (f->linear & 31));
  check_warp(w, f->linear >> 5);
  if (w->live > 0 && w->block_arrived == w->live) release_block(w);
  yield_to_scheduler();
  std::abort();  // a finished fiber is never resumed
}

}  // namespace tfc_emu

// ---- built-in variables ----------------------------------------------------------------------------------
#define threadIdx (tfc_emu::t_threadIdx)
#define blockIdx (tfc_emu::t_blockIdx)
#define blockDim (tfc_emu::t_blockDim)
#define gridDim (tfc_emu::t_gridDim)
static const int warpSize = 32;

namespace tfc_emu {
inline char* dynamic_shared() { return t_worker->dyn_ptr; }

// Park the calling fiber at a warp barrier over `mask` (the lanes that must arrive).
inline void warp_barrier(unsigned mask) {
  Worker* w = t_worker;
  Fiber* f = w->current;
  const int wi = f->linear >> 5, lane = f->linear & 31;
  Warp& wp = w->warps[wi];
  f->wait_mask = mask | (1u << lane);
  TFC_RC_WARP_ARRIVE(f->linear);
  wp.arrived |= 1u << lane;
  f->state = WAIT_WARP;
  check_warp(w, wi);
  if (f->state == WAIT_WARP) yield_to_scheduler();
}

inline int lane_of_current() { return t_worker->current->linear & 31; }

// Exchange one 64-bit slot per lane: write, barrier, read lane `src` (own value if invalid), barrier.
template <typename T>
inline T exchange(unsigned mask, T v, int src, bool valid) {
  static_assert(sizeof(T) <= 8, "warp shuffle of a type wider than 8 bytes");
  Worker* w = t_worker;
  const int linear = w->current->linear;
  Warp& wp = w->warps[linear >> 5];
  unsigned long long bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  wp.slot[linear & 31] = bits;
  warp_barrier(mask);
  T r = v;
  if (valid && src >= 0 && src < 32 && (wp.live >> src & 1u)) {
    bits = wp.slot[src];
    std::memcpy(&r, &bits, sizeof(T));
  }
  warp_barrier(mask);
  return r;
}

inline void trap(const char* what) {
  set_error(3, what);
  siglongjmp(t_worker->jmp, 1);
}
}  // namespace tfc_emu

inline void __syncthreads() {
  tfc_emu::Worker* w = tfc_emu::t_worker;
  if (++w->block_arrived == w->live) {
    tfc_emu::release_block(w);
    return;
  }
  w->current->state = tfc_emu::WAIT_BLOCK;
  tfc_emu::yield_to_scheduler();
}
inline int __syncthreads_count(int pred) {
  tfc_emu::t_worker->block_acc += pred != 0;
  __syncthreads();
  return tfc_emu::t_worker->block_result;
}
inline int __syncthreads_or(int pred) { return __syncthreads_count(pred) != 0; }
inline int __syncthreads_and(int pred) {
  tfc_emu::t_worker->block_acc += pred != 0;
  __syncthreads();
  return tfc_emu::t_worker->block_result == tfc_emu::t_worker->live;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { tfc_emu::warp_barrier(mask); }
inline unsigned __activemask() {
  tfc_emu::Worker* w = tfc_emu::t_worker;
  return w->warps[w->current->linear >> 5].live;
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __trap() { tfc_emu::trap("__trap() called in kernel"); }
inline void __nanosleep(unsigned) {}
inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }

template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
  const int lane = tfc_emu::lane_of_current();
  const int s = (lane & ~(width - 1)) + (src & (width - 1));
  return tfc_emu::exchange(mask, v, s, true);
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  const int lane = tfc_emu::lane_of_current();
  const int s = lane ^ lane_mask;
  return tfc_emu::exchange(mask, v, s, s < ((lane & ~(width - 1)) + width));
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = tfc_emu::lane_of_current();
  return tfc_emu::exchange(mask, v, lane + (int)delta, (lane & (width - 1)) + (int)delta < width);
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = tfc_emu::lane_of_current();
  return tfc_emu::exchange(mask, v, lane - (int)delta, (lane & (width - 1)) >= (int)delta);
}
// Vote functions: each lane publishes its predicate; lanes outside `mask` do not count.
inline unsigned __ballot_sync(unsigned mask, int pred) {
  tfc_emu::Worker* w = tfc_emu::t_worker;
  const int linear = w->current->linear;
  tfc_emu::Warp& wp = w->warps[linear >> 5];
  wp.slot[linear & 31] = pred != 0;
  tfc_emu::warp_barrier(mask);
  unsigned r = 0;
  const unsigned members = (mask | (1u << (linear & 31))) & wp.live;
  for (int l = 0; l < 32; ++l)
    if ((members >> l & 1u) && wp.slot[l]) r |= 1u << l;
  tfc_emu::warp_barrier(mask);
  return r;
}
inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred) {
  tfc_emu::Worker* w = tfc_emu::t_worker;
  const unsigned members = (mask | (1u << (w->current->linear & 31))) & w->warps[w->current->linear >> 5].live;
  return (__ballot_sync(mask, pred) & members) == members;
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) {
  unsigned s = v;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(mask, s, o);
  return s;
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(mask, v, o));
  return v;
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(mask, v, o));
  return v;
}

// ---- tensor-core / async-copy instructions (mma.sync, ldmatrix, cp.async) -------------------------------
// Emulations of the inline-PTX instructions that kernels/common.cuh wraps as tfc_mma_*, tfc_ldmatrix_*,
// tfc_cp_async_* and tfc_to_tf32 (common.cuh's emulator branch calls these). mma and ldmatrix are
// warp-collective (.sync.aligned): all 32 lanes of the warp must call them together. Each lane copies
// its operands into its warp's exchange area, the warp meets at a barrier, every lane reads what it
// needs per the PTX ISA fragment layout and computes its own result, and a second barrier keeps the
// exchange area intact until every lane has read it.
// cp.async is asynchronous as on hardware, taking the latest completion the PTX memory model allows: the
// source is read when the copy is issued, the bytes land in shared memory only when a
// cp.async.wait_group N of the issuing thread leaves at most N newer commit groups pending (or at
// cp.async.wait_all, or when the thread exits). Until then shared memory holds its OLD contents, so a
// missing wait_group/commit_group reads stale data (wrong numbers), and racecheck builds report any access
// to the destination before it lands as a race with the in-flight copy.
namespace tfc_emu {

struct MmaLaneData {
  uint32_t a[4];
  uint32_t b[2];
};
static thread_local MmaLaneData t_mma_xchg[32][32];  // [warp][lane]: one block per worker at a time

// Enter a warp-collective instruction: checks that the whole warp takes part.
inline int warp_collective_enter(const char* what) {
  Worker* w = t_worker;
  const int linear = w->current->linear;
  if (w->warps[linear >> 5].live != 0xffffffffu) {
    static thread_local char msg[160];
    std::snprintf(msg, sizeof(msg), "%s needs all 32 lanes of the warp (block size a multiple of 32, no lane "
                                    "returned early)", what);
    trap(msg);
  }
  return linear;
}

inline float tf32_bits_value(uint32_t u) {  // what the tensor core reads of a .tf32 operand: 19 bits
  return __uint_as_float(u & 0xffffe000u);
}

// mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 (kind 0) and .m16n8k8.row.col.f32.tf32.tf32.f32
// (kind 1). g = lane / 4, t = lane % 4. f16: A (16x16) a[0] = A[g][2t..2t+1], a[1] = A[g+8][2t..],
// a[2] = A[g][2t+8..], a[3] = A[g+8][2t+8..] (low half = lower column); B (16x8) b[0] = B[2t..2t+1][g],
// b[1] = B[2t+8..2t+9][g]. tf32: a[0] = A[g][t], a[1] = A[g+8][t], a[2] = A[g][t+4], a[3] = A[g+8][t+4];
// b[0] = B[t][g], b[1] = B[t+4][g]. C/D (16x8): c[0..1] = C[g][2t..2t+1], c[2..3] = C[g+8][2t..2t+1].
// Products in float32 (exact for f16 and tf32 inputs), accumulated in float32 in k order onto C.
inline void mma_sync(int kind, float d[4], const uint32_t a[4], const uint32_t b[2], const float c[4]) {
  const int linear = warp_collective_enter(kind == 0 ? "mma.sync.m16n8k16" : "mma.sync.m16n8k8");
  MmaLaneData(&x)[32] = t_mma_xchg[linear >> 5];
  const int lane = linear & 31, g = lane >> 2, t = lane & 3;
  for (int i = 0; i < 4; ++i) x[lane].a[i] = a[i];
  x[lane].b[0] = b[0];
  x[lane].b[1] = b[1];
  warp_barrier(0xffffffffu);
  float r[4] = {c[0], c[1], c[2], c[3]};
  if (kind == 0) {
    float arow[2][16], bcol[2][16];
    for (int h = 0; h < 2; ++h)      // A rows g + 8h
      for (int k = 0; k < 16; ++k) {
        const uint32_t word = x[g * 4 + ((k & 7) >> 1)].a[h + 2 * (k >> 3)];
        arow[h][k] = half_bits_to_float((unsigned short)(word >> (16 * (k & 1))));
      }
    for (int j = 0; j < 2; ++j)      // B columns 2t + j
      for (int k = 0; k < 16; ++k) {
        const uint32_t word = x[(2 * t + j) * 4 + ((k & 7) >> 1)].b[k >> 3];
        bcol[j][k] = half_bits_to_float((unsigned short)(word >> (16 * (k & 1))));
      }
    for (int e = 0; e < 4; ++e)
      for (int k = 0; k < 16; ++k) r[e] += arow[e >> 1][k] * bcol[e & 1][k];
  } else {
    float arow[2][8], bcol[2][8];
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 8; ++k) arow[h][k] = tf32_bits_value(x[g * 4 + (k & 3)].a[h + 2 * (k >> 2)]);
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 8; ++k) bcol[j][k] = tf32_bits_value(x[(2 * t + j) * 4 + (k & 3)].b[k >> 2]);
    for (int e = 0; e < 4; ++e)
      for (int k = 0; k < 8; ++k) r[e] += arow[e >> 1][k] * bcol[e & 1][k];
  }
  warp_barrier(0xffffffffu);
  for (int e = 0; e < 4; ++e) d[e] = r[e];
}

// ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: lanes 8i..8i+7 give the addresses of rows
// 0..7 of matrix i (16 bytes each, 16-byte aligned). Lane l receives in r[i] the pair
// M_i[l/4][2(l%4) .. 2(l%4)+1], or with .trans M_i[2(l%4)][l/4] (low half) and M_i[2(l%4)+1][l/4].
inline void ldmatrix(int num, bool trans, uint32_t* r, const void* row_ptr) {
  const int linear = warp_collective_enter("ldmatrix.sync");
  Warp& wp = t_worker->warps[linear >> 5];
  const int lane = linear & 31;
  if (lane < 8 * num && ((uintptr_t)row_ptr & 15u) != 0) trap("ldmatrix: row address not 16-byte aligned");
  wp.slot[lane] = (unsigned long long)(uintptr_t)row_ptr;
  warp_barrier(0xffffffffu);
  for (int i = 0; i < num; ++i) {
    unsigned short lo, hi;
    if (!trans) {
      const unsigned short* row = (const unsigned short*)(uintptr_t)wp.slot[8 * i + (lane >> 2)];
      lo = row[2 * (lane & 3)];
      hi = row[2 * (lane & 3) + 1];
    } else {
      lo = ((const unsigned short*)(uintptr_t)wp.slot[8 * i + 2 * (lane & 3)])[lane >> 2];
      hi = ((const unsigned short*)(uintptr_t)wp.slot[8 * i + 2 * (lane & 3) + 1])[lane >> 2];
    }
    r[i] = (uint32_t)lo | ((uint32_t)hi << 16);
  }
  warp_barrier(0xffffffffu);
}

// cvt.rna.tf32.f32: round to the 10-bit mantissa of TF32, to nearest with ties away from zero (the
// 13 dropped bits are zero in the result); infinities and NaNs pass unchanged.
inline uint32_t cvt_rna_tf32(float f) {
  uint32_t u = __float_as_uint(f);
  if ((u & 0x7f800000u) == 0x7f800000u) return u;
  return (u + 0x1000u) & 0xffffe000u;
}

// cp.async.{ca,cg}.shared.global [dst], [src], cp_size, src_size: copies src_size bytes and zero-fills
// the rest of cp_size (4, 8 or 16; both addresses aligned to cp_size; src not read when src_size is 0).
inline void cp_async(void* dst, const void* src, int cp_size, int src_size) {
  if (((uintptr_t)dst | (uintptr_t)src) & (uintptr_t)(cp_size - 1)) trap("cp.async: address not aligned to the copy size");
  if (src_size < 0 || src_size > cp_size) trap("cp.async: src_size outside [0, cp_size]");
  Fiber* f = t_worker->current;
  if (f->async_pending.size() >= 4096) trap("cp.async: more than 4096 copies in flight (no wait_group?)");
  AsyncCopy c;
  c.dst = (char*)dst;
  c.size = cp_size;
  c.group = f->async_committed;
  std::memset(c.data, 0, sizeof(c.data));
  if (src_size > 0) std::memcpy(c.data, src, (size_t)src_size);
  TFC_RC_ASYNC_ISSUE(dst, (size_t)cp_size);
  f->async_pending.push_back(c);
}

// Land the calling thread's copies: all of them, or those of every group but the newest `allowed`
// committed ones (copies issued after the last commit belong to no group yet and stay in flight).
inline void cp_async_land(Fiber* f, bool all, unsigned allowed) {
  if (f->async_pending.empty()) return;
  size_t keep = 0;
  for (size_t i = 0; i < f->async_pending.size(); ++i) {
    AsyncCopy& c = f->async_pending[i];
    if (all || c.group + allowed < f->async_committed) {
      TFC_RC_ASYNC_LAND(c.dst, (size_t)c.size);
      std::memcpy(c.dst, c.data, (size_t)c.size);
    } else {
      f->async_pending[keep++] = c;
    }
  }
  f->async_pending.resize(keep);
}
inline void cp_async_commit() { ++t_worker->current->async_committed; }
inline void cp_async_wait_group(unsigned n) { cp_async_land(t_worker->current, false, n); }
// cp.async.wait_all is commit_group + wait_group 0.
inline void cp_async_wait_all() {
  cp_async_commit();
  cp_async_land(t_worker->current, true, 0);
}

}  // namespace tfc_emu
// ---- end of tensor-core / async-copy instructions -------------------------------------------------------

// ---- atomics (real atomics: blocks may run on several OS threads) --------------------------------------
#define TFC_EMU_ATOMIC_INT(T)                                                                         \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }              \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }              \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }              \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }              \
  inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }            \
  inline T atomicCAS(T* p, T cmp, T v) {                                                            \
    __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
    return cmp;                                                                                     \
  }                                                                                                 \
  inline T atomicMax(T* p, T v) {                                                                   \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                   \
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                                               \
    return old;                                                                                     \
  }                                                                                                 \
  inline T atomicMin(T* p, T v) {                                                                   \
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                                   \
    while (old > v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) { \
    }                                                                                               \
    return old;                                                                                     \
  }
TFC_EMU_ATOMIC_INT(int)
TFC_EMU_ATOMIC_INT(unsigned int)
TFC_EMU_ATOMIC_INT(unsigned long long)
TFC_EMU_ATOMIC_INT(long long)
inline unsigned short atomicCAS(unsigned short* p, unsigned short cmp, unsigned short v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
// Floating atomics through a compare-and-swap loop on the bit pattern.
template <typename F, typename I, typename Op>
inline F tfc_emu_atomic_float(F* p, F v, Op op) {
  I* ip = reinterpret_cast<I*>(p);
  I old = __atomic_load_n(ip, __ATOMIC_SEQ_CST), upd;
  F of;
  do {
    std::memcpy(&of, &old, sizeof(F));
    const F nf = op(of, v);
    std::memcpy(&upd, &nf, sizeof(F));
  } while (!__atomic_compare_exchange_n(ip, &old, upd, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return of;
}
inline float atomicAdd(float* p, float v) {
  return tfc_emu_atomic_float<float, unsigned>(p, v, [](float a, float b) { return a + b; });
}
inline double atomicAdd(double* p, double v) {
  return tfc_emu_atomic_float<double, unsigned long long>(p, v, [](double a, double b) { return a + b; });
}
// No atomicMax/atomicMin on float or double: CUDA has none (NVRTC rejects them); use an atomicCAS loop.
inline float atomicExch(float* p, float v) {
  unsigned u = __atomic_exchange_n(reinterpret_cast<unsigned*>(p), __float_as_uint(v), __ATOMIC_SEQ_CST);
  return __uint_as_float(u);
}
inline __half atomicAdd(__half* p, __half v) {
  unsigned short* up = reinterpret_cast<unsigned short*>(p);
  unsigned short old = __atomic_load_n(up, __ATOMIC_SEQ_CST), upd;
  do {
    upd = __float2half(__half2float(__half{old}) + __half2float(v)).__x;
  } while (!__atomic_compare_exchange_n(up, &old, upd, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return __half{old};
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST)) {
  }
  return old;
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0u || old > limit) ? limit : old - 1u, true,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}
#define atomicAdd_block atomicAdd
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin

// ---- the launcher ---------------------------------------------------------------------------------------
namespace tfc_emu {

static struct sigaction g_old_segv, g_old_bus;

inline void fault_handler(int sig, siginfo_t* info, void* uctx_void) {
  Worker* w = t_worker;
  if (!w || !t_in_kernel) {  // not ours: restore the previous handlers and let the fault recur
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGBUS, &g_old_bus, nullptr);
    return;
  }
  const unsigned long long a = (unsigned long long)(uintptr_t)info->si_addr;
  int write = -1;
#if defined(__x86_64__)
  ucontext_t* uc = (ucontext_t*)uctx_void;
  write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
  (void)uctx_void;
#endif
  Error* e = w->err;
  {
    std::lock_guard<std::mutex> lock(g_error_mutex);
    if (e->code == 0) {
      e->code = 1;
      e->address = a;
      e->write = write;
      e->arg = -1;
      e->region_kind = 4;
      e->offset = 0;
      for (int i = 0; i < g_nregions; ++i) {
        const Region& r = g_regions[i];
        if (a >= r.lo && a < r.hi) {
          e->arg = (int)r.arg;
          e->offset = (long long)(a - r.start);
          e->region_kind = a < r.start ? 0 : (a >= r.start + r.nbytes ? 1 : (r.readonly ? 2 : 4));
          break;
        }
      }
      if (e->arg < 0 && w->stacks && a >= (unsigned long long)(uintptr_t)w->stacks &&
          a < (unsigned long long)(uintptr_t)(w->stacks + w->nstacks * (w->stack_bytes + kPage))) {
        e->region_kind = 5;  // a fiber's stack guard page: stack overflow
      }
      if (e->arg < 0 && w->dyn_shared && a >= (unsigned long long)(uintptr_t)w->dyn_shared &&
          a < (unsigned long long)(uintptr_t)(w->dyn_shared + w->dyn_map_bytes)) {
        e->region_kind = 3;
        e->offset = (long long)(a - (unsigned long long)(uintptr_t)w->dyn_ptr);
      }
      e->block[0] = t_blockIdx.x; e->block[1] = t_blockIdx.y; e->block[2] = t_blockIdx.z;
      e->thread[0] = t_threadIdx.x; e->thread[1] = t_threadIdx.y; e->thread[2] = t_threadIdx.z;
      std::snprintf(e->message, sizeof(e->message), "%s", sig == SIGBUS ? "bus error" : "segmentation fault");
    }
  }
  g_abort.store(1);
  siglongjmp(w->jmp, 1);
}

inline bool prepare_worker(Worker* w, size_t nthreads, size_t stack_bytes, size_t shmem) {
  if (w->stacks == nullptr || w->nstacks < nthreads || w->stack_bytes != stack_bytes) {
    if (w->stacks) munmap(w->stacks, w->nstacks * (w->stack_bytes + kPage));
    const size_t bytes = nthreads * (stack_bytes + kPage);
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) { w->stacks = nullptr; return false; }
    w->stacks = (char*)m;
    w->nstacks = nthreads;
    w->stack_bytes = stack_bytes;
    for (size_t i = 0; i < nthreads; ++i) mprotect(w->stacks + i * (stack_bytes + kPage), kPage, PROT_NONE);
  }
  // Dynamic shared memory: data ends at a PROT_NONE page; start 16-byte aligned.
  const size_t data = (shmem + 15) & ~(size_t)15;
  const size_t map_bytes = ((data + kPage - 1) / kPage + 1) * kPage;
  if (w->dyn_map_bytes < map_bytes) {
    if (w->dyn_shared) munmap(w->dyn_shared, w->dyn_map_bytes);
    void* m = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { w->dyn_shared = nullptr; w->dyn_map_bytes = 0; return false; }
    w->dyn_shared = (char*)m;
    w->dyn_map_bytes = map_bytes;
  }
  char* guard = w->dyn_shared + w->dyn_map_bytes - kPage;
  mprotect(w->dyn_shared, w->dyn_map_bytes - kPage, PROT_READ | PROT_WRITE);
  mprotect(guard, kPage, PROT_NONE);
  w->dyn_ptr = guard - data;
  w->dyn_bytes = shmem;
  std::memset(w->dyn_ptr, 0xff, data);  // uninitialised shared memory reads as NaN
  return true;
}

inline void run_worker(Worker* w, Trampoline tramp, void** args, dim3 grid, dim3 block,
                       std::atomic<long long>* next_block, long long nblocks, Error* err) {
  t_worker = w;
  w->tramp = tramp;
  w->args = args;
  w->err = err;
  t_gridDim = grid;
  t_blockDim = block;
  const int n = (int)(block.x * block.y * block.z);
  const int nwarps = (n + 31) / 32;
  w->fibers.assign(n, Fiber());
  w->warps.assign(nwarps, Warp());
  // Alternate signal stack so that a fault on a fiber stack (overflow) can still be handled.
  stack_t alt, old_alt;
  std::vector<char> alt_mem(1 << 16);
  alt.ss_sp = alt_mem.data();
  alt.ss_size = alt_mem.size();
  alt.ss_flags = 0;
  sigaltstack(&alt, &old_alt);
  t_in_kernel = 1;
  if (sigsetjmp(w->jmp, 1) == 0) {
    for (;;) {
      if (g_abort.load(std::memory_order_relaxed)) break;
      const long long b = next_block->fetch_add(1);
      if (b >= nblocks) break;
      t_blockIdx.x = (unsigned)(b % grid.x);
      t_blockIdx.y = (unsigned)((b / grid.x) % grid.y);
      t_blockIdx.z = (unsigned)(b / ((long long)grid.x * grid.y));
      for (int i = 0; i < n; ++i) {
        Fiber& f = w->fibers[i];
        f.tid.x = (unsigned)(i % block.x);
        f.tid.y = (unsigned)((i / block.x) % block.y);
        f.tid.z = (unsigned)(i / (block.x * block.y));
        f.linear = i;
        f.state = RUNNABLE;
        f.wait_mask = 0;
        f.async_committed = 0;
        f.async_pending.clear();
        init_fiber(w, &f, (size_t)i);
      }
      for (int k = 0; k < nwarps; ++k) {
        const int lanes = std::min(32, n - k * 32);
        w->warps[k].live = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u);
        w->warps[k].arrived = 0;
      }
      w->live = n;
      TFC_RC_BLOCK_BEGIN(w, n);
      w->block_arrived = 0;
      w->block_acc = 0;
      while (w->live > 0) {
        bool ran = false;
        for (int i = 0; i < n; ++i) {
          Fiber& f = w->fibers[i];
          if (f.state != RUNNABLE) continue;
          resume(w, &f);
          ran = true;
        }
        if (!ran && w->live > 0) {
          set_error(2, "barrier deadlock: threads of the block wait at different __syncthreads/warp barriers "
                       "(a barrier inside divergent code?)");
          break;
        }
      }
      if (g_abort.load(std::memory_order_relaxed)) break;
    }
  }
  t_in_kernel = 0;
  sigaltstack(&old_alt, nullptr);
  t_worker = nullptr;
}

}  // namespace tfc_emu

// Launch `tramp` (one kernel's per-thread body) over grid x block. Returns err->code.
TFC_EMU_EXPORT int tfc_emu_launch(tfc_emu::Trampoline tramp, void** args, unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz, unsigned long long shmem, int nworkers,
                                  unsigned long long stack_bytes, const tfc_emu::Region* regions, int nregions,
                                  tfc_emu::Error* err) {
  using namespace tfc_emu;
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  std::memset(err, 0, sizeof(Error));
  err->arg = -1;
  err->write = -1;
  const unsigned long long nthreads = (unsigned long long)bx * by * bz;
  const long long nblocks = (long long)gx * gy * gz;
  if (nthreads == 0 || nthreads > 1024 || bz > 64 || gy > 65535 || gz > 65535 || gx > 2147483647u) {
    err->code = 4;
    std::snprintf(err->message, sizeof(err->message), "invalid launch configuration grid=(%u,%u,%u) block=(%u,%u,%u)",
                  gx, gy, gz, bx, by, bz);
    return err->code;
  }
  if (shmem > 227u * 1024u) {
    err->code = 4;
    std::snprintf(err->message, sizeof(err->message), "dynamic shared memory %llu bytes exceeds 227 KiB", shmem);
    return err->code;
  }
  if (nblocks == 0) return 0;
  if (nworkers < 1) nworkers = 1;
  if (nworkers > 64) nworkers = 64;
  if (nworkers > nblocks) nworkers = (int)nblocks;
#ifdef TFC_EMU_RACECHECK
  nworkers = 1;  // one shadow of shared memory: blocks run one at a time on the calling thread
#endif
  for (int i = 0; i < nworkers; ++i) {
    if (!prepare_worker(&g_workers[i], (size_t)nthreads, (size_t)stack_bytes, (size_t)shmem)) {
      err->code = 4;
      std::snprintf(err->message, sizeof(err->message), "could not map fiber stacks / shared memory");
      return err->code;
    }
  }
#ifdef TFC_EMU_RACECHECK
  if (!rc_launch(&g_workers[0], (size_t)nthreads, (size_t)shmem)) {
    err->code = 4;
    std::snprintf(err->message, sizeof(err->message), "racecheck: could not allocate shadow memory");
    return err->code;
  }
#endif
  g_regions = regions;
  g_nregions = nregions;
  g_error = err;
  g_abort.store(0);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_old_segv);
  sigaction(SIGBUS, &sa, &g_old_bus);
  std::atomic<long long> next_block{0};
  const dim3 grid(gx, gy, gz), block(bx, by, bz);
  std::vector<std::thread> threads;
  for (int i = 1; i < nworkers; ++i)
    threads.emplace_back(run_worker, &g_workers[i], tramp, args, grid, block, &next_block, nblocks, err);
  run_worker(&g_workers[0], tramp, args, grid, block, &next_block, nblocks, err);
  for (auto& t : threads) t.join();
  sigaction(SIGSEGV, &g_old_segv, nullptr);
  sigaction(SIGBUS, &g_old_bus, nullptr);
  g_regions = nullptr;
  g_nregions = 0;
  return err->code;
}

TFC_EMU_EXPORT int tfc_emu_error_size() { return (int)sizeof(tfc_emu::Error); }

#endif  // TFC_EMU_SIGNATURES
