// Native CPU kernels: the loops NumPy can only express as many passes over strided views.
//
// Built on the user's machine by tfcore/backend/native_cpu.py (g++ -O3 -march=native, cached) and
// called through ctypes as candidates of the CPU ops (conv_ops.py, pool_ops.py); without a compiler the
// NumPy candidates run instead. All arrays are C-contiguous NHWC; sizes are int64. Semantics are exactly
// those of the NumPy candidates they replace (tests compare them), so no fast-math: NaN must propagate.

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>
#include <type_traits>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

// The library is one translation unit, or TFC_PARTS of them compiled in parallel and linked into one .so
// (tfcore/backend/native_cpu.py passes -DTFC_PART=k for k in [0, TFC_PARTS); the compile takes about a minute
// as one unit). Each part defines the exported functions its TFC_PART_IS(k) blocks hold; the state every op
// shares (the thread count, the thread pool) lives in namespace tfc_shared as C++17 inline variables and
// functions: one copy in the library however many parts it is built from.
#define TFC_PARTS 9
#ifndef TFC_PART
#define TFC_PART -1  // everything in this translation unit
#endif
#define TFC_PART_IS(k) (TFC_PART < 0 || TFC_PART == (k))

namespace tfc_shared {

using i64 = std::int64_t;

// Threads of one op (tf.config.threading's intra-op count; 0: every hardware thread), set from Python.
// The split kernels run on the caller plus that many minus one workers of a persistent pool (ThreadPool
// below, started on first use, as TF's intra-op pool).
inline std::atomic<int> g_threads{0};

inline int op_threads() {
    const int set = g_threads.load(std::memory_order_relaxed);
    if (set > 0) return set;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw ? static_cast<int>(hw) : 1;
}

// How many threads to run an op of `count` splittable items on: the op's thread count, fewer when a
// thread would have less than about 0.1 ms of one core's work (2 MFLOP; waking a pool worker and the
// chunks' cache misses cost several microseconds).
inline i64 thread_parts(i64 count, double flops) {
    constexpr double MIN_FLOPS = 2e6;
    i64 parts = op_threads();
    if (parts > count) parts = count;
    if (parts > 1 && flops / parts < MIN_FLOPS) parts = static_cast<i64>(flops / MIN_FLOPS);
    return parts < 1 ? 1 : parts;
}

// The threads of the last split op (read by tests through tfc_last_parts).
inline std::atomic<int> g_last_parts{1};

// Chunks of work per thread: threads take the next chunk as they finish one, so a thread the OS
// deschedules (a busy machine) delays the op by one chunk, not by its whole share.
constexpr i64 CHUNKS_PER_THREAD = 8;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// The persistent worker threads of the split kernels: started on first use, reused by every op, resized
// when the intra-op thread count changes. One op at a time owns the pool (`busy_`): it posts a job (chunk
// function, chunk count, how many workers may help), takes chunks itself, then closes the job and waits
// only for the workers that joined it (a worker the OS has not woken yet when the chunks run out is never
// waited for: it finds the job closed). A second caller (another Python thread calling a kernel without
// the GIL, or a nested split) finds the pool busy and runs its chunks on its own thread: the same chunk
// bounds, so the same results, and nobody waits on another caller's op. Idle workers spin briefly (ops
// come back to back), then sleep on a condition variable (an idle process burns no CPU). After fork()
// the child forgets the parent's pool (pthread_atfork): its threads do not exist there; the child starts
// its own on first use. The pool is never destroyed: at exit its sleeping workers end with the process
// (no join that could hang, no destructor of a joinable std::thread).
class ThreadPool {
  public:
    using ChunkFn = void (*)(const void* body, i64 chunk, i64 begin, i64 end);

    // Runs fn(body, k, ...) for the chunks k of [0, count) on the caller and up to `helpers` workers of a
    // pool of `want_workers`; false (nothing run) when another op owns the pool.
    bool run(i64 helpers, i64 chunks, i64 count, ChunkFn fn, const void* body, int want_workers) {
        bool idle = false;
        if (!busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) return false;
        if (static_cast<int>(workers_.size()) != want_workers) resize(want_workers);
        {
            std::lock_guard<std::mutex> lock(mu_);
            fn_ = fn;
            body_ = body;
            chunks_ = chunks;
            count_ = count;
            helpers_ = static_cast<std::uint64_t>(std::min<i64>(helpers, static_cast<i64>(workers_.size())));
            next_.store(0, std::memory_order_relaxed);
            state_.store(((state_.load(std::memory_order_relaxed) >> 32) + 1) << 32, std::memory_order_release);
        }
        if (helpers_ > 0) work_cv_.notify_all();
        take_chunks(fn, body, chunks, count);
        // no chunk left: close the job to latecomers, wait for the workers still running one
        if ((state_.fetch_or(CLOSED, std::memory_order_acq_rel) & ACTIVE) != 0) wait_for_helpers();
        busy_.store(false, std::memory_order_release);
        return true;
    }

    int workers() const { return static_cast<int>(workers_.size()); }

  private:
    static constexpr auto SPIN = std::chrono::microseconds(50);
    // state_: the job's generation (high 32 bits), CLOSED, and the workers running it (low 31 bits)
    static constexpr std::uint64_t CLOSED = std::uint64_t(1) << 31, ACTIVE = CLOSED - 1;

    std::uint32_t generation() const {
        return static_cast<std::uint32_t>(state_.load(std::memory_order_acquire) >> 32);
    }

    void take_chunks(ChunkFn fn, const void* body, i64 chunks, i64 count) {
        for (i64 k; (k = next_.fetch_add(1, std::memory_order_relaxed)) < chunks;)
            fn(body, k, count * k / chunks, count * (k + 1) / chunks);
    }

    void wait_for_helpers() {
        const auto until = std::chrono::steady_clock::now() + SPIN;
        while ((state_.load(std::memory_order_acquire) & ACTIVE) != 0) {
            if (std::chrono::steady_clock::now() > until) {
                std::unique_lock<std::mutex> lock(mu_);
                done_cv_.wait(lock, [&] { return (state_.load(std::memory_order_acquire) & ACTIVE) == 0; });
                return;
            }
            cpu_relax();
        }
    }

    // Called by the owner of the pool (no job runs): stops the workers, starts `count` new ones.
    void resize(int count) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stop_ = true;
            state_.store((((state_.load(std::memory_order_relaxed) >> 32) + 1) << 32) | CLOSED,
                         std::memory_order_release);
        }
        work_cv_.notify_all();
        for (auto& t : workers_) t.join();
        workers_.clear();
        stop_ = false;
        const std::uint32_t now = generation();
        for (int index = 0; index < count; ++index) workers_.emplace_back([this, now] { loop(now); });
    }

    void loop(std::uint32_t seen) {
        for (;;) {
            const auto until = std::chrono::steady_clock::now() + SPIN;
            while (generation() == seen && std::chrono::steady_clock::now() < until)
                for (int p = 0; p < 16; ++p) cpu_relax();
            std::unique_lock<std::mutex> lock(mu_);
            work_cv_.wait(lock, [&] { return generation() != seen; });
            seen = generation();
            if (stop_) return;
            const ChunkFn fn = fn_;
            const void* body = body_;
            const i64 chunks = chunks_, count = count_;
            const std::uint64_t helpers = helpers_;
            lock.unlock();
            if (!join(seen, helpers)) continue;  // closed, full, or already followed by another job
            take_chunks(fn, body, chunks, count);
            const std::uint64_t left = state_.fetch_sub(1, std::memory_order_acq_rel) - 1;
            if ((left & ACTIVE) == 0 && (left & CLOSED)) {
                std::lock_guard<std::mutex> done(mu_);
                done_cv_.notify_all();
            }
        }
    }

    // Counts this worker in job `gen` unless it is closed, has its helpers, or is no longer the job.
    bool join(std::uint32_t gen, std::uint64_t helpers) {
        std::uint64_t s = state_.load(std::memory_order_acquire);
        for (;;) {
            if ((s >> 32) != gen || (s & CLOSED) || (s & ACTIVE) >= helpers) return false;
            if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) return true;
        }
    }

    std::atomic<bool> busy_{false};
    std::vector<std::thread> workers_;  // touched by the pool's owner only
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    std::atomic<std::uint64_t> state_{0};
    bool stop_ = false;
    // the current job (written under mu_ by the owner; read under mu_ by the workers)
    ChunkFn fn_ = nullptr;
    const void* body_ = nullptr;
    i64 chunks_ = 0, count_ = 0;
    std::uint64_t helpers_ = 0;
    std::atomic<i64> next_{0};
};

// This process's pool (null until first use; reset to null in a forked child, the parent's left alone).
inline std::atomic<ThreadPool*> g_pool{nullptr};

inline void forget_pool_in_child() { g_pool.store(nullptr, std::memory_order_relaxed); }

inline ThreadPool* thread_pool() {
    ThreadPool* pool = g_pool.load(std::memory_order_acquire);
    if (pool) return pool;
    static const int registered = pthread_atfork(nullptr, nullptr, forget_pool_in_child);
    (void)registered;
    auto* fresh = new ThreadPool();
    if (g_pool.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;  // another thread installed one first (no workers started yet: nothing to stop)
    return pool;
}

}  // namespace tfc_shared

namespace {

using namespace tfc_shared;

// Runs body(chunk, begin, end) for `chunks` contiguous chunks of [0, count) on `threads` threads (the
// caller and threads - 1 pool workers), each chunk taken by the next free thread. A chunk's bounds depend
// only on (chunk, chunks, count), never on which thread runs it: the results are the same whether the
// pool helps, or is busy with another caller's op and this one runs all its chunks on its own thread.
template <typename Body>
inline void run_chunks(i64 threads, i64 chunks, i64 count, const Body& body) {
    const auto run_inline = [&] {
        for (i64 k = 0; k < chunks; ++k) body(k, count * k / chunks, count * (k + 1) / chunks);
    };
    if (threads <= 1 || chunks <= 1) {
        g_last_parts.store(static_cast<int>(threads), std::memory_order_relaxed);
        run_inline();
        return;
    }
    const ThreadPool::ChunkFn fn = [](const void* b, i64 k, i64 begin, i64 end) {
        (*static_cast<const Body*>(b))(k, begin, end);
    };
    const int want = std::max<int>(op_threads(), static_cast<int>(threads)) - 1;
    if (thread_pool()->run(threads - 1, chunks, count, fn, &body, want)) {
        g_last_parts.store(static_cast<int>(threads), std::memory_order_relaxed);
    } else {
        g_last_parts.store(1, std::memory_order_relaxed);
        run_inline();
    }
}

// Copies n values (short runs: a plain loop beats a memcpy call for the few values of one tap).
template <typename T>
inline void copy_run(T* __restrict__ dst, const T* __restrict__ src, i64 n) {
    for (i64 k = 0; k < n; ++k) dst[k] = src[k];
}

template <typename T>
inline void zero_run(T* __restrict__ dst, i64 n) {
    for (i64 k = 0; k < n; ++k) dst[k] = T(0);
}

// im2col of an NHWC input: out[(n, oy, ox), (i, j, c)] = x[n, oy*sh + i*dh - pt, ox*sw + j*dw - pl, c],
// zero outside the input (the convolution's padding, folded in: no padded copy of x is made).
template <typename T>
void im2col(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh,
            i64 dw, i64 pt, i64 pl, i64 oh, i64 ow, T* __restrict__ out) {
    const i64 tap_row = kw * c;
    for (i64 b = 0; b < n; ++b) {
        const T* xb = x + b * h * w * c;
        for (i64 oy = 0; oy < oh; ++oy) {
            for (i64 ox = 0; ox < ow; ++ox) {
                T* dst = out + ((b * oh + oy) * ow + ox) * kh * tap_row;
                const i64 x0 = ox * sw - pl;
                const bool row_inside = dw == 1 && x0 >= 0 && x0 + kw <= w;
                for (i64 i = 0; i < kh; ++i, dst += tap_row) {
                    const i64 y = oy * sh + i * dh - pt;
                    if (y < 0 || y >= h) {
                        zero_run(dst, tap_row);
                        continue;
                    }
                    const T* src = xb + y * w * c;
                    if (row_inside) {  // the window's row is one contiguous run of kw*c values
                        copy_run(dst, src + x0 * c, tap_row);
                        continue;
                    }
                    for (i64 j = 0; j < kw; ++j) {
                        const i64 xx = x0 + j * dw;
                        if (xx < 0 || xx >= w)
                            zero_run(dst + j * c, c);
                        else
                            copy_run(dst + j * c, src + xx * c, c);
                    }
                }
            }
        }
    }
}

// C values of T as one GCC vector (C a power of two): the fixed-channel paths below use it so that every
// tap is a few SIMD instructions whatever the auto-vectoriser decides.
template <typename T, int C>
struct Lanes {
    typedef T vec __attribute__((vector_size(sizeof(T) * C)));
    static vec load(const T* p) {
        vec v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(T* p, vec v) { std::memcpy(p, &v, sizeof v); }
    static vec splat(T x) {
        vec v;
        for (int k = 0; k < C; ++k) v[k] = x;
        return v;
    }
};

// Signed integer lanes of T's size: the type of a comparison of two Lanes<T, C> vectors (-1 true, 0 false).
template <typename T, int C>
struct IntLanes {
    typedef typename std::conditional<sizeof(T) == 4, std::int32_t, std::int64_t>::type I;
    typedef I vec __attribute__((vector_size(sizeof(T) * C)));
    static vec splat(I x) { return vec{} + x; }  // a broadcast (an element loop can become C inserts)
    // C argmax bytes (tap indices of MaxPool's windows) widened to lanes, and back
    typedef std::uint8_t bytes __attribute__((vector_size(C)));
    static vec load_bytes(const std::uint8_t* p) {
        bytes v;
        std::memcpy(&v, p, sizeof v);
        return __builtin_convertvector(v, vec);
    }
    static void store_bytes(std::uint8_t* p, vec v) {
        const bytes b = __builtin_convertvector(v, bytes);
        std::memcpy(p, &b, sizeof b);
    }
};

// MaxPool's argmax residual: per output value the index i * kw + j of the window tap its gradient goes to
// (MaxPoolGrad's rule: the first tap, row-major, whose value equals y), ARGMAX_NOWHERE where it goes nowhere
// (a NaN window, or an all -inf window whose first match is a padding tap). One byte each: windows of at
// most 255 taps (Python checks).
constexpr std::uint8_t ARGMAX_NOWHERE = 255;

// Max pooling: y[n, oy, ox, c] = max over the window's taps inside the input (padding never wins, as
// in the NumPy candidate's -inf padded copy); NaN propagates. The c channels go C at a time (C divides c;
// a vector of at most 64 bytes), so every tap is a few SIMD instructions. With `argmax` (may be null) it
// also writes each value's argmax byte (see ARGMAX_NOWHERE), from the window's taps still in L1: the
// gradient then reads those bytes instead of the whole input.
template <typename T, int C, bool ONE_CHUNK>
void max_pool(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c_dyn, i64 kh, i64 kw, i64 sh, i64 sw, i64 pt,
              i64 pl, i64 oh, i64 ow, T* __restrict__ y, std::uint8_t* __restrict__ argmax) {
    const i64 c = ONE_CHUNK ? C : c_dyn;  // a constant when one vector holds every channel
    using L = Lanes<T, C>;
    using V = typename L::vec;
    using IL = IntLanes<T, C>;
    using IV = typename IL::vec;
    const T lowest = -std::numeric_limits<T>::infinity();
    const V low = L::splat(lowest);
    // images split over the op's threads (each writes only its own images' outputs); a tap (a load and a
    // compare, memory-bound) weighs as 8 FLOPs in thread_parts' cost
    const i64 threads = thread_parts(n, 8.0 * n * oh * ow * c * kh * kw);
    run_chunks(threads, threads > 1 ? std::min(n, threads * CHUNKS_PER_THREAD) : 1, n, [&](i64, i64 b0, i64 b1) {
        for (i64 b = b0; b < b1; ++b) {
            const T* xb = x + b * h * w * c;
            for (i64 oy = 0; oy < oh; ++oy) {
                const i64 y0 = oy * sh - pt;
                const i64 i_lo = y0 < 0 ? -y0 : 0, i_hi = y0 + kh > h ? h - y0 : kh;
                for (i64 ox = 0; ox < ow; ++ox) {
                    const i64 x0 = ox * sw - pl;
                    const i64 j_lo = x0 < 0 ? -x0 : 0, j_hi = x0 + kw > w ? w - x0 : kw;
                    const i64 o = ((b * oh + oy) * ow + ox) * c;
                    // the first padding tap of a row-major scan (kh * kw: none); only an all -inf window's
                    // maximum can match it (padding holds lowest)
                    const bool any_valid = i_lo < i_hi && j_lo < j_hi;
                    const i64 first_pad = i_lo > 0 || j_lo > 0 || !any_valid ? 0
                                          : j_hi < kw                       ? j_hi
                                          : i_hi < kh                       ? i_hi * kw
                                                                            : kh * kw;
                    for (i64 k = 0; k < c; k += C) {
                        // the maximum moves on strictly greater values only, so `at` (from the first valid tap
                        // on) is the first tap equal to it: MaxPoolGrad's rule (+-0 compare equal)
                        V m = low, nan = L::splat(T(0));
                        IV at = IL::splat(any_valid ? i_lo * kw + j_lo : ARGMAX_NOWHERE);
                        for (i64 i = i_lo; i < i_hi; ++i) {
                            for (i64 j = j_lo; j < j_hi; ++j) {
                                const V v = L::load(xb + ((y0 + i) * w + x0 + j) * c + k);
                                const IV gt = v > m;
                                m = gt ? v : m;
                                at = gt ? IL::splat(i * kw + j) : at;
                                nan = v != v ? v : nan;  // the (last) NaN of each channel, if any
                            }
                        }
                        const V r = nan != nan ? nan : m;
                        L::store(y + o + k, r);
                        if (!argmax) continue;
                        const IV nowhere = IL::splat(ARGMAX_NOWHERE);
                        at = r != r ? nowhere : at;  // a NaN window's gradient goes nowhere
                        if (first_pad < kh * kw)  // an all -inf window matches a padding tap first there
                            at = (r == low) & (at > IL::splat(first_pad)) ? nowhere : at;
                        IL::store_bytes(argmax + o + k, at);
                    }
                }
            }
        }
    });
}

// MaxPoolGrad: each dy goes to the first tap (row-major) of its window whose value equals y, added into
// dx (windows may overlap). Padding taps hold `lowest`: a window whose maximum is -inf and whose first
// match is a padding tap sends its gradient nowhere, as the NumPy candidate. `left` holds the gradient
// each channel has still to place: selected (never multiplied) into dx at the first match and zeroed
// there, so later equal values (ties) add zero and a non-finite dy lands exactly once. C channels at a
// time, as max_pool. Windows that cannot overlap (strides >= window, MaxPooling2D's default) store each
// tap's value instead of adding it, and when they also tile the input exactly (no padding, no rows or
// columns left over) nothing is zeroed first: two passes over dx fewer.
// `argmax` (may be null): MaxPool's argmax bytes of this x; the taps are then picked by index and x is
// never read (a quarter of the traffic for 2x2 float32 windows). `relu`: dy is multiplied by (y > 0) first
// (TF's ReluGrad formula): for disjoint windows this equals ReluGrad(MaxPoolGrad(x, y, dy), x) to the bit,
// as each dx value is one window's dy or zero and a tap's x equals its window's y where it takes the dy.
template <typename T, int C, bool ONE_CHUNK>
void max_pool_grad(const T* __restrict__ x, const T* __restrict__ y, const T* __restrict__ dy, i64 n, i64 h,
                   i64 w, i64 c_dyn, i64 kh, i64 kw, i64 sh, i64 sw, i64 pt, i64 pl, i64 oh, i64 ow,
                   const std::uint8_t* __restrict__ argmax, i64 relu, T* __restrict__ dx) {
    const i64 c = ONE_CHUNK ? C : c_dyn;
    using L = Lanes<T, C>;
    using V = typename L::vec;
    using IL = IntLanes<T, C>;
    using IV = typename IL::vec;
    const T lowest = -std::numeric_limits<T>::infinity();
    const V zero = L::splat(T(0)), one = L::splat(T(1)), low = L::splat(lowest);
    // images split over the op's threads (each writes only its own images' outputs); a tap (a load and a
    // compare, memory-bound) weighs as 8 FLOPs in thread_parts' cost
    const i64 threads = thread_parts(n, 8.0 * n * oh * ow * c * kh * kw);
    const bool disjoint = sh >= kh && sw >= kw;
    const bool tiles = sh == kh && sw == kw && pt == 0 && pl == 0 && oh * kh == h && ow * kw == w;
    run_chunks(threads, threads > 1 ? std::min(n, threads * CHUNKS_PER_THREAD) : 1, n, [&](i64, i64 b0, i64 b1) {
        if (!tiles) std::memset(dx + b0 * h * w * c, 0, sizeof(T) * (b1 - b0) * h * w * c);
        for (i64 b = b0; b < b1; ++b) {
            const T* xb = x + b * h * w * c;
            T* dxb = dx + b * h * w * c;
            for (i64 oy = 0; oy < oh; ++oy) {
                for (i64 ox = 0; ox < ow; ++ox) {
                    const i64 o = ((b * oh + oy) * ow + ox) * c;
                    for (i64 k = 0; k < c; k += C) {
                        const V yv = L::load(y + o + k);
                        V left = L::load(dy + o + k);
                        if (relu) left = left * (yv > zero ? one : zero);
                        if (argmax) {
                            const IV at = IL::load_bytes(argmax + o + k);
                            for (i64 i = 0; i < kh; ++i) {
                                const i64 yy = oy * sh + i - pt;
                                for (i64 j = 0; j < kw; ++j) {
                                    const i64 xx = ox * sw + j - pl;
                                    if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
                                    T* d = dxb + (yy * w + xx) * c + k;
                                    const V v = at == IL::splat(i * kw + j) ? left : zero;
                                    L::store(d, disjoint ? v : L::load(d) + v);
                                }
                            }
                            continue;
                        }
                        for (i64 i = 0; i < kh; ++i) {
                            const i64 yy = oy * sh + i - pt;
                            for (i64 j = 0; j < kw; ++j) {
                                const i64 xx = ox * sw + j - pl;
                                if (yy < 0 || yy >= h || xx < 0 || xx >= w) {
                                    left = yv == low ? zero : left;
                                    continue;
                                }
                                const i64 at = (yy * w + xx) * c + k;
                                const auto hit = L::load(xb + at) == yv;
                                if (disjoint)
                                    L::store(dxb + at, hit ? left : zero);
                                else
                                    L::store(dxb + at, L::load(dxb + at) + (hit ? left : zero));
                                left = hit ? zero : left;
                            }
                        }
                    }
                }
            }
        }
    });
}

// ReluGrad: out = g * (y > 0), TF's formula (a non-finite g where y <= 0 gives NaN, as inf * 0 does),
// split over the op's threads: a memory-bound pass, the SIMD loop left to the compiler.
template <typename T>
void relu_grad(const T* __restrict__ g, const T* __restrict__ y, i64 n, T* __restrict__ out) {
    const i64 threads = thread_parts(n, 8.0 * n);  // a value weighs as 8 FLOPs (memory-bound)
    run_chunks(threads, threads, n, [&](i64, i64 begin, i64 end) {
        for (i64 i = begin; i < end; ++i) out[i] = g[i] * (y[i] > T(0) ? T(1) : T(0));
    });
}

// Adam's update of n values in one pass, each operation in the NumPy kernel's order and precision
// (training_ops._adam) and no multiply-add contraction, so the results are the same bits:
//   m' = (g - m) * (1 - beta_1) + m;  v' = (g * g - v) * (1 - beta_2) + v;
//   var' = (m' / (sqrt(v') + eps)) * -alpha + var.
// The scalars arrive as doubles that hold values of T exactly (the caller rounds them to T first).
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
template <typename T>
void adam(const T* __restrict__ var, const T* __restrict__ m, const T* __restrict__ v, const T* __restrict__ g,
          i64 n, double neg_alpha_d, double one_minus_b1_d, double one_minus_b2_d, double eps_d,
          T* __restrict__ var_out, T* __restrict__ m_out, T* __restrict__ v_out) {
    const T neg_alpha = T(neg_alpha_d), c1 = T(one_minus_b1_d), c2 = T(one_minus_b2_d), eps = T(eps_d);
    for (i64 i = 0; i < n; ++i) {
        const T gi = g[i];
        T mi = gi - m[i];
        mi = mi * c1;
        mi = mi + m[i];
        T vi = gi * gi;
        vi = vi - v[i];
        vi = vi * c2;
        vi = vi + v[i];
        T d = std::sqrt(vi);
        d = d + eps;
        d = mi / d;
        d = d * neg_alpha;
        var_out[i] = d + var[i];
        m_out[i] = mi;
        v_out[i] = vi;
    }
}
#pragma GCC pop_options

// Accumulator budget of the direct convolution: 12 vector registers of sums (measured on AVX-512 and
// AVX2 machines alike: more pixels per block run out of address registers).
#define TFC_VEC_BYTES 32
#define TFC_ACC_REGS 12

// How many pixels (direct convolution) or filter rows (its gradient) one block keeps in accumulator
// registers: TFC_ACC_REGS vectors, each of CO values of T taking one or more registers.
template <typename T, int CO>
constexpr int block_size() {
    constexpr int regs_each = (CO * int(sizeof(T)) + TFC_VEC_BYTES - 1) / TFC_VEC_BYTES;
    return regs_each >= TFC_ACC_REGS ? 1 : TFC_ACC_REGS / regs_each;
}

// Wide chunks (NV > 1 vectors of 64 bytes per pixel or filter row) exist on AVX-512 machines only: their
// 32 vector registers hold NV * block accumulators of TFC_WIDE_ACCS (4 vectors x 8 pixels measured
// fastest for 3x3 32->64 on one Zen 4 core: 110 GFLOP/s against 61 for one vector x 6 pixels).
#define TFC_WIDE_ACCS 32

// Pixels (or filter rows) of one block for chunks of NV vectors of CO values.
template <typename T, int CO, int NV>
constexpr int block_for() {
    return NV == 1 ? block_size<T, CO>() : TFC_WIDE_ACCS / NV;
}

// off[k] for the K = kh*kw*c (tap, input channel) pairs in (i, j, ci) order: the offset of that tap's
// input value from the window's top-left value in a padded NHWC image row-major (wp columns).
inline i64 tap_offsets(i64 kh, i64 kw, i64 c, i64 dh, i64 dw, i64 wp, i64* __restrict__ off) {
    i64 k = 0;
    for (i64 i = 0; i < kh; ++i)
        for (i64 j = 0; j < kw; ++j)
            for (i64 ci = 0; ci < c; ++ci) off[k++] = (i * dh * wp + j * dw) * c + ci;
    return k;
}

// Calls body.template operator()<B>(start) for blocks of B items that cover [0, count): as few blocks as
// blocks of at most BIG need, all of one size B (a compile-time constant picked below), the last one moved
// back to end at `count` where B does not divide it (its first items are done twice). An item's result
// does not depend on its block (each sum runs over the same terms in the same order), so the overlap
// rewrites identical values. Equal blocks keep every block near BIG items (14 pixels with BIG = 8 are two
// blocks of 7, not 8 + 4 + an overlapping 4), so few items are left to short, latency-bound blocks.
template <int B, typename Body>
inline void run_blocks(i64 count, i64 blocks, const Body& body) {
    for (i64 k = 0; k < blocks; ++k) body.template operator()<B>(std::min<i64>(k * B, count - B));
}

template <int B, typename Body>
inline void run_blocks_of_size(int size, i64 count, i64 blocks, const Body& body) {
    if constexpr (B <= 1) {
        run_blocks<1>(count, blocks, body);
    } else {
        if (size == B)
            run_blocks<B>(count, blocks, body);
        else
            run_blocks_of_size<B - 1>(size, count, blocks, body);
    }
}

template <int BIG, typename Body>
inline void for_blocks(i64 count, const Body& body) {
    if (count <= 0) return;
    const i64 blocks = (count + BIG - 1) / BIG;
    run_blocks_of_size<BIG>(static_cast<int>((count + blocks - 1) / blocks), count, blocks, body);
}

// for_blocks without the overlap, for bodies that add into their items (a block done twice would add twice):
// the blocks of one size B, the last one of its own size (count - its start).
template <typename Body>
struct ShiftedBody {
    const Body& body;
    i64 base;
    template <int B>
    void operator()(i64 k) const {
        body.template operator()<B>(base + k);
    }
};

template <int BIG, typename Body>
inline void for_blocks_exact(i64 count, const Body& body) {
    if (count <= 0) return;
    const i64 blocks = (count + BIG - 1) / BIG;
    const int size = static_cast<int>((count + blocks - 1) / blocks);
    const i64 full = (count - 1) / size;  // blocks of `size` before the last one
    if (full > 0) run_blocks_of_size<BIG>(size, full * size, full, body);
    const int rest = static_cast<int>(count - full * size);  // 1 .. size
    run_blocks_of_size<BIG>(rest, rest, 1, ShiftedBody<Body>{body, full * size});
}

// The end of a block of convolution sums (segmented_block): `bias` (or null) added to the finished
// sums, as a separate BiasAdd would (the same rounding), then max(x, 0) with NaN kept (NaN < 0 is false, as
// NumPy's maximum) when `relu`.
template <typename T, int CO, int NV, int PB>
inline void finish_sums(typename Lanes<T, CO>::vec (&acc)[PB][NV], const T* __restrict__ bias, bool relu) {
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    if (bias) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
            const V bv = L::load(bias + v * CO);
#pragma GCC unroll 32
            for (int q = 0; q < PB; ++q) acc[q][v] += bv;
        }
    }
    if (relu) {
        const V zero = L::splat(T(0));
#pragma GCC unroll 32
        for (int q = 0; q < PB; ++q)
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) acc[q][v] = acc[q][v] < zero ? zero : acc[q][v];
    }
}

// The values of `n` outputs no term reaches: the bias alone (0 + bias, then the ReLU when `relu`), zeros
// without one.
template <typename T>
inline void fill_without_terms(T* __restrict__ out, i64 n, const T* __restrict__ bias, bool relu) {
    if (!bias) {
        zero_run(out, n);
        return;
    }
    for (i64 k = 0; k < n; ++k) {
        const T v = T(0) + bias[k];
        out[k] = relu && v < T(0) ? T(0) : v;
    }
}

// PB output pixels (out_step apart), NV vectors of CO channels each: the sums over the term segments
// [k0 + s * seg_stride, + seg_len) for s < nseg of w[k, :] * x[q * step + off[k]], then finish_sums. Every
// input value loaded is used NV times and every weight vector PB times. The direct convolution's blocks are
// one segment (conv_block); the input gradient's (dgrad, and the phase forward) skip the taps outside dy.
template <typename T, int CO, int NV, int PB>
inline void segmented_block(const T* __restrict__ x, i64 step, const i64* __restrict__ off,
                            const T* __restrict__ w, i64 ldw, i64 k0, i64 nseg, i64 seg_len, i64 seg_stride,
                            T* __restrict__ out, i64 out_step, const T* __restrict__ bias, bool relu) {
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    V acc[PB][NV];
#pragma GCC unroll 32
    for (int q = 0; q < PB; ++q)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[q][v] = L::splat(T(0));
    for (i64 s = 0; s < nseg; ++s) {
        const i64 kb = k0 + s * seg_stride, ke = kb + seg_len;
        for (i64 k = kb; k < ke; ++k) {
            V wv[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) wv[v] = L::load(w + k * ldw + v * CO);
            const T* xk = x + off[k];
#pragma GCC unroll 32
            for (int q = 0; q < PB; ++q) {
                const T xq = xk[q * step];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) acc[q][v] += wv[v] * xq;
            }
        }
    }
    finish_sums<T, CO, NV, PB>(acc, bias, relu);
#pragma GCC unroll 32
    for (int q = 0; q < PB; ++q)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) L::store(out + q * out_step + v * CO, acc[q][v]);
}

// PB output pixels of one row, NV vectors of CO channels each (one chunk of NV * CO of the ldo output
// channels: w's rows and the output pixels are ldo apart): out[q] = (sum_k w[k, :] * x[q * step + off[k]])
// + bias, k over the K (tap, input channel) pairs in (i, j, ci) order -- the K index of im2col + GEMM.
// (segmented_block with one segment of K terms).
template <typename T, int CO, int NV, int PB>
inline void conv_block(const T* __restrict__ x, i64 step, const i64* __restrict__ off, i64 K,
                       const T* __restrict__ w, const T* __restrict__ bias, bool relu, T* __restrict__ out,
                       i64 ldo) {
    segmented_block<T, CO, NV, PB>(x, step, off, w, ldo, 0, 1, K, K, out, ldo, bias, relu);
}

// for_blocks body of one output row of the direct convolution: pixels [ox, ox + B).
template <typename T, int CO, int NV>
struct ConvRow {
    const T* xrow;
    i64 step;
    const i64* off;
    i64 K;
    const T* w;
    const T* bias;
    bool relu;
    T* orow;
    i64 ldo;
    template <int B>
    void operator()(i64 ox) const {
        conv_block<T, CO, NV, B>(xrow + ox * step, step, off, K, w, bias, relu, orow + ox * ldo, ldo);
    }
};

// Copies image b of the NHWC input x (h x w x c) into the interior of `pad`, a zero-bordered hp x wp x c
// buffer (top/left borders pt/pl): the borders are written once by the caller and never touched here.
template <typename T>
inline void copy_into_padded(const T* __restrict__ xb, i64 h, i64 w, i64 c, i64 wp, i64 pt, i64 pl,
                             T* __restrict__ pad) {
    for (i64 y = 0; y < h; ++y) std::memcpy(pad + ((y + pt) * wp + pl) * c, xb + y * w * c, sizeof(T) * w * c);
}

// Runs row(ximg, r) for every output row r = (b, oy) of an NHWC input x (n images of h x w x c) padded by
// pt/pb rows and pl/pr columns of zeros, ximg pointing at image b's padded values (hp x wp x c). Where there
// are images enough for the threads each thread pads one image at a time into its own small buffer
// (cache-resident: the padding costs no pass over the whole input in memory) and runs its rows; with fewer
// images the rows are split instead, over one padded copy (none without padding).
template <typename T, typename Row>
void for_padded_rows(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, i64 pr, i64 oh,
                     double flops, const Row& row) {
    const i64 hp = h + pt + pb, wp = w + pl + pr;
    const bool padded = pt || pb || pl || pr;
    i64 threads = thread_parts(n * oh, flops);
    if (padded && n >= 2 * threads) {  // whole images over the threads, each padded into the thread's buffer
        threads = thread_parts(n, flops);
        const i64 chunks = threads > 1 ? std::min(n, threads * CHUNKS_PER_THREAD) : 1;
        run_chunks(threads, chunks, n, [&](i64, i64 begin, i64 end) {
            std::vector<T> pad(hp * wp * c, T(0));  // one image, zero borders; the interior rewritten per image
            for (i64 b = begin; b < end; ++b) {
                copy_into_padded(x + b * h * w * c, h, w, c, wp, pt, pl, pad.data());
                for (i64 oy = 0; oy < oh; ++oy) row(pad.data(), b * oh + oy);
            }
        });
        return;
    }
    const T* xpad = x;
    std::vector<T> copy;
    if (padded) {  // few images: one padded copy, rows split over the threads
        copy.assign(n * hp * wp * c, T(0));
        for (i64 b = 0; b < n; ++b)
            copy_into_padded(x + b * h * w * c, h, w, c, wp, pt, pl, copy.data() + b * hp * wp * c);
        xpad = copy.data();
    }
    const i64 chunks = threads > 1 ? std::min(n * oh, threads * CHUNKS_PER_THREAD) : 1;
    run_chunks(threads, chunks, n * oh, [&](i64, i64 begin, i64 end) {
        for (i64 r = begin; r < end; ++r) row(xpad + (r / oh) * hp * wp * c, r);
    });
}

// Direct convolution of an NHWC input with co output channels, NV * CO (compile-time constants) at a time:
// out[b, oy, ox, :] = bias + sum over taps (i, j) and input channels ci of
//     xpad[b, oy*sh + i*dh, ox*sw + j*dw, ci] * w[i, j, ci, :], then max(out, 0) when `relu`,
// xpad being x with pt/pb rows above/below and pl/pr columns left/right of zeros.
// Each output pixel's NV * CO channels are NV vector accumulators; PB pixels of a row share every weight-vector
// load and keep enough independent FMA chains in flight (see block_for).
// No im2col matrix is written: for the few channels of small CNNs that traffic cost more than the GEMM, and
// the padding is made one image at a time in each thread's buffer (for_padded_rows).
// `off` is scratch for kh*kw*c offsets.
template <typename T, int CO, int NV>
void conv2d_direct(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, i64 pr,
                   const T* __restrict__ wt, i64 kh, i64 kw, i64 co, i64 sh, i64 sw, i64 dh, i64 dw, i64 oh, i64 ow,
                   const T* __restrict__ bias, i64 relu, T* __restrict__ out, i64* __restrict__ off) {
    constexpr int PB = block_for<T, CO, NV>();
    const i64 wp = w + pl + pr;
    const i64 K = tap_offsets(kh, kw, c, dh, dw, wp, off);
    const i64 step = sw * c;
    const double flops = 2.0 * n * oh * ow * co * K;
    const auto row = [&](const T* ximg, i64 r) {  // output row r = (b, oy) from image b's padded values
        const i64 oy = r % oh;
        T* orow = out + r * ow * co;
        const T* xrow = ximg + oy * sh * wp * c;
        for (i64 j = 0; j < co; j += NV * CO)  // output-channel chunks; the input row stays in cache
            for_blocks<PB>(ow, ConvRow<T, CO, NV>{xrow, step, off, K, wt + j, bias ? bias + j : nullptr,
                                                  relu != 0, orow + j, co});
    };
    for_padded_rows(x, n, h, w, c, pt, pb, pl, pr, oh, flops, row);
}

// The dy pixels a block of filter-gradient rows sums over: rows [y0, y1) and columns [x0, x1). Outside them
// every tap of the block reads padding (zeros: terms that add nothing), so the block skips those pixels
// (5x5 SAME on 16x16: 14% of the multiply-adds; 3x3 SAME on 8x8: 16%), as the phase kernel does for the
// forward convolution and the input gradient.
struct WgradWindow {
    i64 y0, y1, x0, x1;
};

// Per filter row i (column j) the dy rows (columns) whose input value for that tap lies inside the image, not
// its padding; window(k, rows) is the smallest window holding those of all taps of the rows [k, k + rows)
// (rows in (i, j, ci) order, c a tap). A block that straddles two taps still reads a few padding zeros from
// the padded tile for one of them.
struct WgradTapRanges {
    std::vector<i64> y0, y1, x0, x1;
    i64 c, kw;
    // the o in [0, count) with 0 <= o * step + shift - pad < extent
    static void inside(i64 extent, i64 pad, i64 step, i64 shift, i64 count, i64& lo, i64& hi) {
        const i64 first = pad - shift, last = extent - 1 + pad - shift;
        lo = first <= 0 ? 0 : std::min(count, (first + step - 1) / step);
        hi = last < 0 ? 0 : std::min(count, last / step + 1);
        hi = std::max(hi, lo);
    }
    WgradTapRanges(i64 kh, i64 kw_, i64 c_, i64 h, i64 w, i64 pt, i64 pl, i64 sh, i64 sw, i64 dh, i64 dw, i64 oh,
                   i64 ow)
        : y0(kh), y1(kh), x0(kw_), x1(kw_), c(c_), kw(kw_) {
        for (i64 i = 0; i < kh; ++i) inside(h, pt, sh, i * dh, oh, y0[i], y1[i]);
        for (i64 j = 0; j < kw; ++j) inside(w, pl, sw, j * dw, ow, x0[j], x1[j]);
    }
    WgradWindow window(i64 k, i64 rows) const {
        WgradWindow win{y0[k / c / kw], y1[k / c / kw], x0[k / c % kw], x1[k / c % kw]};
        for (i64 tap = k / c + 1; tap <= (k + rows - 1) / c; ++tap) {
            const i64 i = tap / kw, j = tap % kw;
            win = {std::min(win.y0, y0[i]), std::max(win.y1, y1[i]), std::min(win.x0, x0[j]), std::max(win.x1, x1[j])};
        }
        return win;
    }
};

// KB rows of the filter gradient, NV vectors of CO channels each: dw[k, :] = sum over output pixels p of
// x[p's window + off[k]] * dy[p, :] for the KB (tap, input channel) pairs k of `off`; one pass over dy and
// x for all KB rows. ACCUMULATE (a template parameter: a runtime flag costs the wide chunks ~60%): the sums
// go on from dw's values (the same additions in the same order as one pass over more images: the partial sums
// only wait in memory).
template <typename T, int CO, int NV, int KB, bool ACCUMULATE>
inline void conv_wgrad_block(const T* __restrict__ xpad, i64 n, i64 hp, i64 wp, i64 c, i64 sh, i64 sw, i64 oh,
                             i64 ow, const WgradWindow& win, const T* __restrict__ dy, const i64* __restrict__ off,
                             T* __restrict__ dw, i64 ldo) {
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    V acc[KB][NV];
    i64 o[KB];
#pragma GCC unroll 32
    for (int k = 0; k < KB; ++k) {
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[k][v] = ACCUMULATE ? L::load(dw + k * ldo + v * CO) : L::splat(T(0));
        o[k] = off[k];
    }
    for (i64 b = 0; b < n; ++b) {
        for (i64 oy = win.y0; oy < win.y1; ++oy) {
            const T* xrow = xpad + (b * hp + oy * sh) * wp * c;
            const T* g = dy + (b * oh + oy) * ow * ldo;
            for (i64 ox = win.x0; ox < win.x1; ++ox) {
                V gv[NV];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) gv[v] = L::load(g + ox * ldo + v * CO);
                const T* xp = xrow + ox * sw * c;
#pragma GCC unroll 32
                for (int k = 0; k < KB; ++k) {
                    const T xk = xp[o[k]];
#pragma GCC unroll 4
                    for (int v = 0; v < NV; ++v) acc[k][v] += gv[v] * xk;
                }
            }
        }
    }
#pragma GCC unroll 32
    for (int k = 0; k < KB; ++k)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) L::store(dw + k * ldo + v * CO, acc[k][v]);
}

// G groups of R filter rows of the filter gradient, one vector of CO channels each (as conv_wgrad_block with
// NV = 1): group g is rows [g*R, g*R + R) of `off`, R input channels of one tap, whose input values lie
// side by side in x (off[g*R + r] = off[g*R] + r). One offset register per group instead of one per row
// leaves the registers to more accumulators: 24 rows of 8 -> 16 channels on AVX-512 against 6 where every
// row needs its own offset (more rows per block spilled the offsets: 8 ran 1.08x slower than 6). 1.1-1.2x
// faster for 3x3, 4x4, 5x5 and 7x7 8 -> 16 on one Zen 4 core. Each row's sum runs over the pixels in
// the same order as conv_wgrad_block's: the same bits.
template <typename T, int CO, int G, int R, bool ACCUMULATE>
inline void conv_wgrad_taps(const T* __restrict__ xpad, i64 n, i64 hp, i64 wp, i64 c, i64 sh, i64 sw, i64 oh,
                            i64 ow, const WgradWindow& win, const T* __restrict__ dy, const i64* __restrict__ off,
                            T* __restrict__ dw, i64 ldo) {
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    V acc[G][R];
    i64 o[G];
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g) {
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r)
            acc[g][r] = ACCUMULATE ? L::load(dw + (g * R + r) * ldo) : L::splat(T(0));
        o[g] = off[g * R];
    }
    for (i64 b = 0; b < n; ++b) {
        for (i64 oy = win.y0; oy < win.y1; ++oy) {
            const T* xrow = xpad + (b * hp + oy * sh) * wp * c;
            const T* g_row = dy + (b * oh + oy) * ow * ldo;
            for (i64 ox = win.x0; ox < win.x1; ++ox) {
                const V gv = L::load(g_row + ox * ldo);
                const T* xp = xrow + ox * sw * c;
#pragma GCC unroll 4
                for (int g = 0; g < G; ++g) {
                    const T* xg = xp + o[g];
#pragma GCC unroll 16
                    for (int r = 0; r < R; ++r) acc[g][r] += gv * xg[r];
                }
            }
        }
    }
#pragma GCC unroll 4
    for (int g = 0; g < G; ++g)
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) L::store(dw + (g * R + r) * ldo, acc[g][r]);
}

// Rows in groups of one tap's TFC_WGRAD_TAP_ROWS input channels (conv_wgrad_taps), TFC_WGRAD_TAP_GROUPS
// groups a block, where the input has a multiple of that many channels and a row's accumulator is one
// AVX-512 register (24 of the 32; AVX2 builds keep conv_wgrad_block).
#ifdef __AVX512F__
#define TFC_WGRAD_TAP_ROWS 8
#define TFC_WGRAD_TAP_GROUPS 3
#endif

#ifdef TFC_WGRAD_TAP_ROWS
// conv_wgrad_taps over `rows` rows (a multiple of TFC_WGRAD_TAP_ROWS): one block of TFC_WGRAD_TAP_GROUPS
// groups, or the last rows a group at a time.
// `k`: the first row's index (for its window in `taps`).
template <typename T, int CO>
inline void wgrad_tap_blocks(const T* xpad, i64 n, i64 hp, i64 wp, i64 c, i64 sh, i64 sw, i64 oh, i64 ow,
                             const WgradTapRanges& taps, const T* dy, const i64* off, i64 k0, i64 rows, T* dw,
                             i64 ldo, bool accumulate) {
    constexpr int G = TFC_WGRAD_TAP_GROUPS, R = TFC_WGRAD_TAP_ROWS;
    if (rows == G * R) {
        const WgradWindow win = taps.window(k0, rows);
        if (accumulate)
            conv_wgrad_taps<T, CO, G, R, true>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off, dw, ldo);
        else
            conv_wgrad_taps<T, CO, G, R, false>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off, dw, ldo);
        return;
    }
    for (i64 k = 0; k < rows; k += R) {
        const WgradWindow win = taps.window(k0 + k, R);
        if (accumulate)
            conv_wgrad_taps<T, CO, 1, R, true>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off + k, dw + k * ldo,
                                               ldo);
        else
            conv_wgrad_taps<T, CO, 1, R, false>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off + k, dw + k * ldo,
                                                ldo);
    }
}
#endif

// for_blocks body of the filter gradient: filter rows [k, k + B).
template <typename T, int CO, int NV>
struct WgradRows {
    const T* xpad;
    i64 n, hp, wp, c, sh, sw, oh, ow;
    const WgradTapRanges& taps;
    const T* dy;
    const i64* off;
    T* out;
    i64 ldo;
    bool accumulate;
    template <int B>
    void operator()(i64 k) const {
        const WgradWindow win = taps.window(k, B);
        if (accumulate)
            conv_wgrad_block<T, CO, NV, B, true>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off + k, out + k * ldo,
                                                 ldo);
        else
            conv_wgrad_block<T, CO, NV, B, false>(xpad, n, hp, wp, c, sh, sw, oh, ow, win, dy, off + k,
                                                  out + k * ldo, ldo);
    }
};

// Bytes of x and dy of one tile of images of the filter gradient (at least one image): about one core's
// L1 data cache, so that a small image's passes all read it from there (4x4 8->16 14x14: one image a tile
// ran ~1.1x faster than 8; 3x3 64->128 8x8 b32: ~1.5x faster than passes over all 32 images, one core).
#define TFC_WGRAD_TILE_BYTES (32 << 10)
// Values of partial-sum buffers per thread that more chunks may take (3x3 8->16: 1152 values a chunk,
// 7x7 8->16: 6272; 3x3 64->128: 73728, 2 chunks a thread).
#define TFC_WGRAD_PARTIAL_VALUES (64 << 10)

// Zeroes the border of one padded hp x wp x c image (pt/pb rows above/below, pl/pr columns left/right of
// the interior that copy_into_padded writes).
template <typename T>
inline void zero_border(T* __restrict__ pad, i64 hp, i64 wp, i64 c, i64 pt, i64 pb, i64 pl, i64 pr) {
    for (i64 y = 0; y < hp; ++y) {
        T* row = pad + y * wp * c;
        if (y < pt || y >= hp - pb) {
            zero_run(row, wp * c);
            continue;
        }
        zero_run(row, pl * c);
        zero_run(row + (wp - pr) * c, pr * c);
    }
}

// Conv2DBackpropFilter without an im2col matrix: dw[i, j, ci, :] = sum over (b, oy, ox) of
// xpad[b, oy*sh + i*dh, ox*sw + j*dw, ci] * dy[b, oy, ox, :], KB filter rows per pass over the data, xpad
// being x with pt/pb rows and pl/pr columns of zeros around each image.
// The images go in tiles of a few (as many as fit TFC_WGRAD_TILE_BYTES, at least one): all the passes of
// one tile run while its x and dy are in cache, the sums carried in dw from one tile to the next (each sum
// still runs over the images in order, so the tiling changes no rounding). With padding, each tile is
// padded into the thread's own buffer: no padded copy of the whole input, made before the threads start
// (3x3 8->16 b64 28x28: 1.2 ms against 2.0 with a padded copy, one core).
template <typename T, int CO, int NV>
void conv2d_wgrad_direct(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, i64 pr,
                         const T* __restrict__ dy, i64 kh, i64 kw, i64 co, i64 sh, i64 sw, i64 dh, i64 dw, i64 oh,
                         i64 ow, T* __restrict__ out, i64* __restrict__ off) {
    constexpr int KB = block_for<T, CO, NV>();
    const i64 hp = h + pt + pb, wp = w + pl + pr;
    const bool padded = pt || pb || pl || pr;
    const i64 K = tap_offsets(kh, kw, c, dh, dw, wp, off);
    const WgradTapRanges taps(kh, kw, c, h, w, pt, pl, sh, sw, dh, dw, oh, ow);
#ifdef TFC_WGRAD_TAP_ROWS  // one register a row's accumulator, whole groups of channels a tap: by taps
    constexpr bool TAPS_FIT = NV == 1 && CO * sizeof(T) <= 64;
    constexpr i64 TAP_BLOCK = TFC_WGRAD_TAP_GROUPS * TFC_WGRAD_TAP_ROWS;
    const bool by_taps = TAPS_FIT && c % TFC_WGRAD_TAP_ROWS == 0;
#endif
    const i64 image_bytes = static_cast<i64>(sizeof(T)) * (hp * wp * c + oh * ow * co);
    const i64 tile = std::max<i64>(1, TFC_WGRAD_TILE_BYTES / image_bytes);
    // images split into chunks over the op's threads, each chunk summing into its own filter-sized buffer
    // (chunk 0 into out); the partial sums are added in chunk order: the rounding depends on the thread
    // count only, not on which thread ran which chunk
    const i64 size = K * co;
    std::vector<T> partial;
    const auto images = [&](i64 t, i64 begin, i64 end) {
        T* dst = t == 0 ? out : partial.data() + (t - 1) * size;
        // the tile's padded images: borders zeroed once here, interiors rewritten per tile (no pass that
        // zeroes the whole buffer: a 7x7 56x56 image is 123 KB, and a chunk may be 2 images)
        const i64 tile_images = padded ? std::min(tile, end - begin) : 0;
        T* const pad = padded ? new T[tile_images * hp * wp * c] : nullptr;
        for (i64 b = 0; b < tile_images; ++b) zero_border(pad + b * hp * wp * c, hp, wp, c, pt, pb, pl, pr);
        for (i64 b0 = begin; b0 < end; b0 += tile) {
            const i64 nb = std::min(tile, end - b0);
            const T* xb = x + b0 * h * w * c;
            if (padded) {  // the interiors rewritten per tile, the borders stay zero
                for (i64 b = 0; b < nb; ++b)
                    copy_into_padded(xb + b * h * w * c, h, w, c, wp, pt, pl, pad + b * hp * wp * c);
                xb = pad;
            }
            const T* db = dy + b0 * oh * ow * co;
#ifdef TFC_WGRAD_TAP_ROWS
            if constexpr (TAPS_FIT) {
                if (by_taps) {
                    for (i64 j = 0; j < co; j += CO)
                        for (i64 k = 0; k < K; k += TAP_BLOCK)
                            wgrad_tap_blocks<T, CO>(xb, nb, hp, wp, c, sh, sw, oh, ow, taps, db + j, off + k, k,
                                                    std::min(TAP_BLOCK, K - k), dst + k * co + j, co, b0 > begin);
                    continue;
                }
            }
#endif
            for (i64 j = 0; j < co; j += NV * CO)  // output-channel chunks (blocks that add must not overlap)
                for_blocks_exact<KB>(K, WgradRows<T, CO, NV>{xb, nb, hp, wp, c, sh, sw, oh, ow, taps, db + j, off,
                                                             dst + j, co, b0 > begin});
        }
        delete[] pad;
    };
    const i64 threads = thread_parts(n, 2.0 * n * oh * ow * co * K);
    // A chunk per image group, each with its own buffer of partial sums: up to CHUNKS_PER_THREAD per thread
    // (a thread descheduled on a busy machine then delays the op by a small chunk, not by half of it)
    // while the buffers stay small (TFC_WGRAD_PARTIAL_VALUES per thread), at least 2 per thread.
    const i64 per_thread = std::clamp<i64>(TFC_WGRAD_PARTIAL_VALUES / size, 2, CHUNKS_PER_THREAD);
    const i64 parts = threads > 1 ? std::min<i64>(n, threads * per_thread) : 1;
    partial.assign((parts - 1) * size, T(0));
    run_chunks(threads, parts, n, images);
    for (i64 t = 1; t < parts; ++t)
        for (i64 k = 0; k < size; ++k) out[k] += partial[(t - 1) * size + k];
}

// Conv2DBackpropInput without a zero-spread or zero-padded dy (both multiply zeros: 4x the useful work for
// 2x2 strides, 1.8x for a 5x5 VALID 16x16 input). The input gradient of a strided convolution splits into
// sh * sw phases (sub-pixel decomposition): the dx pixels (y, x) of phase (y mod sh, x mod sw) receive dy
// only through the filter taps (i, j) with (y + pt - i*dh) and (x + pl - j*dw) divisible by the strides,
//     dx[b, y, x, :] = sum over those taps and the co channels k of dy[b, oy, ox, k] * w[i, j, :, k],
//     oy = (y + pt - i*dh) / sh, ox = (x + pl - j*dw) / sw, the terms with oy, ox inside dy,
// so each phase is a stride-1 correlation of the compact dy with its sub-filter, written to every sh-th row
// and sw-th column of dx. Every dx row sums only the taps whose dy row exists (no padding rows), and the
// pixels near a row's ends (where tap columns fall outside dy) run in blocks down their column, which share
// their taps exactly; the few outside terms left (blocks along the rows near the top and bottom) read zero
// columns of a padded copy of the image's dy (one image at a time, in the thread's buffer). Each pixel's
// sum runs over its existing taps in (i, j, k) order; dx is fully written (zeros where no tap reaches).
// 7x7 stride 2 8->16 b32 56x56: 4.8 ms against 15.8 on the zero-spread dy; 5x5 VALID 32->64 b32 16x16:
// 5.4 ms against 8.1 on the zero-padded dy (one core, CPU time).
// `wt` is the filter as [kh, kw, co, c] (transposed: rows of c values), c the dx channels taken NV * CO at a
// time (the chunk dispatch names them `co`). At unit strides the same loops are a stride-1 Conv2D of dy with
// the spatially flipped filter and top/left = the kernel extent - 1 - the forward pads: conv_ops runs the
// padded forward convolutions here too, for the padding taps it skips, with their bias and ReLU (`bias`, or
// null, and `relu`, as the direct kernel: added to the finished sums before the store).

// One dgrad phase: its sub-filter rows ((ii, jj, k) order, c values each), the dy offsets of those terms
// from a pixel's base, and the row / column shifts ri[ii] = (py + pt - i*dh) / sh, cj[jj] (decreasing).
template <typename T>
struct DgradPhase {
    std::vector<T> w;
    std::vector<i64> off, ri, cj;
};

// for_blocks body of the input gradient: B items of one phase, item t at x + t * step in the padded dy and
// out + t * out_step in dx, summing the phase's tap rows [ia, ib) and tap columns [ja, jb) -- or, for a
// block along a row (`along_row`: item t is pixel tx0 + t), the union of its pixels' columns (a pixel tx
// reaches the jj with 0 <= tx + cj[jj] < ow; the others read zero columns of the padded dy).
template <typename T, int CO, int NV>
struct DgradBlocks {
    const T* x;
    i64 step;
    T* out;
    i64 out_step;
    const DgradPhase<T>* ph;
    const T* w;  // the phase's sub-filter plus the channel chunk
    i64 ldw, cy, ow, ia, ib, ja, jb;
    bool along_row;
    i64 tx0;
    const T* bias;  // the channel chunk's bias (or null), added with the ReLU (`relu`) to the finished sums
    bool relu;
    i64 first_in(i64 tx) const {  // the first jj with cj <= ow - 1 - tx (cj decreasing)
        i64 jj = 0;
        while (jj < i64(ph->cj.size()) && ph->cj[jj] > ow - 1 - tx) ++jj;
        return jj;
    }
    i64 end_in(i64 tx) const {  // one past the last jj with cj >= -tx
        i64 jj = ph->cj.size();
        while (jj > 0 && ph->cj[jj - 1] < -tx) --jj;
        return jj;
    }
    template <int B>
    void operator()(i64 t) const {
        const i64 nj = ph->cj.size(), terms = nj * cy;
        i64 a = ja, b = jb;
        if (along_row) {
            a = first_in(tx0 + t);
            b = std::max(end_in(tx0 + t + B - 1), a);
        }
        const bool whole = a == 0 && b == nj;  // the rows' terms are one run
        segmented_block<T, CO, NV, B>(x + t * step, step, ph->off.data(), w, ldw, (ia * nj + a) * cy,
                                      whole ? 1 : ib - ia, whole ? (ib - ia) * terms : (b - a) * cy, terms,
                                      out + t * out_step, out_step, bias, relu);
    }
};

// Pixels per block of conv2d_dgrad_direct: block_for's, but 12 for one 64-byte vector per pixel on AVX-512
// (12 of its 32 registers; block_for counts 32-byte registers and gives 6): a phase's middle pixels number
// the row less the kernel's reach (26 for 3x3 on 28), which blocks of 6 cover with 15% done twice, blocks of
// up to 12 with 4% (3x3 8->16 b64 28x28 forward: 1.32 ms one core, 1.52 with blocks of 6).
template <typename T, int CO, int NV>
constexpr int phase_block() {
#ifdef __AVX512F__
    if (NV == 1 && CO * sizeof(T) == 64) return 12;
#endif
    return block_for<T, CO, NV>();
}

// Conv2DBackpropInput by stride phases (see above). Rows of a phase whose every tap row exists (the middle
// rows) run their middle pixels (every tap column exists) in blocks along the row and their end pixels in
// blocks down the column (same taps for the whole block: no zero terms, and long blocks); the other rows
// run in blocks along the row over their existing tap rows and the union of the block's tap columns.
template <typename T, int CO, int NV>
void conv2d_dgrad_direct(const T* __restrict__ dy, i64 n, i64 oh, i64 ow, i64 cy, const T* __restrict__ wt,
                         i64 kh, i64 kw, i64 c, i64 sh, i64 sw, i64 dh, i64 dw, i64 pt, i64 pl, i64 h, i64 w,
                         const T* __restrict__ bias, i64 relu, T* __restrict__ dx) {
    constexpr int PB = phase_block<T, CO, NV>();
    constexpr i64 MIN_RUN = 4;  // fewer middle rows: their end pixels go along the rows too
    const auto mod = [](i64 a, i64 m) { return ((a % m) + m) % m; };
    // the phases' taps and the dy columns their terms can reach: lc zero columns left of dy, rc right
    std::vector<DgradPhase<T>> phases(sh * sw);
    i64 lc = 0, rc = 0;
    for (i64 py = 0; py < sh; ++py)
        for (i64 px = 0; px < sw; ++px) {
            DgradPhase<T>& ph = phases[py * sw + px];
            std::vector<i64> is, js;
            for (i64 i = 0; i < kh; ++i)
                if (mod(py + pt - i * dh, sh) == 0) {
                    is.push_back(i);
                    ph.ri.push_back((py + pt - i * dh) / sh);
                }
            for (i64 j = 0; j < kw; ++j)
                if (mod(px + pl - j * dw, sw) == 0) {
                    js.push_back(j);
                    ph.cj.push_back((px + pl - j * dw) / sw);
                }
            const i64 nx = px < w ? (w - px + sw - 1) / sw : 0;
            if (!js.empty() && nx > 0) {
                lc = std::max(lc, -ph.cj.back());
                rc = std::max(rc, nx - 1 + ph.cj.front() - (ow - 1));
            }
            for (i64 i : is)
                for (i64 j : js)
                    for (i64 k = 0; k < cy; ++k) {
                        const T* src = wt + ((i * kw + j) * cy + k) * c;
                        ph.w.insert(ph.w.end(), src, src + c);
                    }
        }
    const i64 wpc = ow + lc + rc;  // padded dy row
    for (auto& ph : phases)
        for (i64 r : ph.ri)
            for (i64 cjj : ph.cj)
                for (i64 k = 0; k < cy; ++k) ph.off.push_back((r * wpc + cjj) * cy + k);
    // dx rows [y0, y1) of image b from its padded dy `dimg`
    const auto band = [&](const T* dimg, i64 b, i64 y0, i64 y1) {
        T* dimg_out = dx + b * h * w * c;
        for (i64 py = 0; py < sh; ++py) {
            const i64 ta = std::max<i64>(0, (y0 - py + sh - 1) / sh), tb = std::max<i64>(0, (y1 - py + sh - 1) / sh);
            for (i64 px = 0; px < sw && px < w; ++px) {
                const DgradPhase<T>& ph = phases[py * sw + px];
                const i64 nx = (w - px + sw - 1) / sw, ni = ph.ri.size(), nj = ph.cj.size();
                T* out0 = dimg_out + px * c;  // pixel (ty, tx) at out0 + ((py + ty * sh) * w + tx * sw) * c
                const auto out_at = [&](i64 ty, i64 tx) { return out0 + ((py + ty * sh) * w + tx * sw) * c; };
                if (ni == 0 || nj == 0) {
                    for (i64 ty = ta; ty < tb; ++ty)
                        for (i64 tx = 0; tx < nx; ++tx) fill_without_terms(out_at(ty, tx), c, bias, relu != 0);
                    continue;
                }
                // middle rows [ra, rb) (every tap row exists), middle pixels [lo, hi) (every tap column)
                const i64 ra = std::min(std::max(ta, -ph.ri.back()), tb), rb = std::max(std::min(tb, oh - ph.ri.front()), ra);
                const i64 lo = std::min(std::max<i64>(-ph.cj.back(), 0), nx);
                const i64 hi = std::max(std::min(ow - ph.cj.front(), nx), lo);
                const bool columns = rb - ra >= MIN_RUN;  // end pixels of the middle rows in column blocks
                for (i64 j = 0; j < c; j += NV * CO) {
                    const T* wj = ph.w.data() + j;
                    const T* bj = bias ? bias + j : nullptr;
                    for (i64 ty = ta; ty < tb; ++ty) {
                        i64 ia = 0, ib = ni;  // the tap rows whose dy row exists: ri decreasing in ii
                        while (ia < ni && ty + ph.ri[ia] > oh - 1) ++ia;
                        while (ib > ia && ty + ph.ri[ib - 1] < 0) --ib;
                        if (ia >= ib) {
                            for (i64 tx = 0; tx < nx; ++tx)
                                fill_without_terms(out_at(ty, tx) + j, NV * CO, bj, relu != 0);
                            continue;
                        }
                        const T* xrow = dimg + (ty * wpc + lc) * cy;
                        const bool middle = columns && ty >= ra && ty < rb;
                        const i64 a = middle ? lo : 0, e = middle ? hi : nx;
                        for_blocks<PB>(e - a, DgradBlocks<T, CO, NV>{xrow + a * cy, cy, out_at(ty, a) + j, sw * c, &ph,
                                                                     wj, c, cy, ow, ia, ib, 0, nj, true, a, bj,
                                                                     relu != 0});
                    }
                    if (!columns) continue;
                    for (i64 tx = 0; tx < nx; ++tx) {
                        if (tx == lo) tx = hi;
                        if (tx >= nx) break;
                        DgradBlocks<T, CO, NV> col{dimg + (ra * wpc + lc + tx) * cy, wpc * cy, out_at(ra, tx) + j,
                                                   sh * w * c, &ph, wj, c, cy, ow, 0, ni, 0, 0, false, tx, bj,
                                                   relu != 0};
                        col.ja = col.first_in(tx);
                        col.jb = std::max(col.end_in(tx), col.ja);
                        for_blocks<PB>(rb - ra, col);
                    }
                }
            }
        }
    };
    const double flops = 2.0 * n * h * w * c * std::max<i64>(1, kh * kw * cy / (sh * sw));
    const bool padded = lc || rc;
    i64 threads = thread_parts(n * h, flops);
    if (padded && n >= 2 * threads) {  // whole images over the threads, each padded into the thread's buffer
        threads = thread_parts(n, flops);
        const i64 chunks = threads > 1 ? std::min(n, threads * CHUNKS_PER_THREAD) : 1;
        run_chunks(threads, chunks, n, [&](i64, i64 begin, i64 end) {
            std::vector<T> pad(oh * wpc * cy, T(0));
            for (i64 b = begin; b < end; ++b) {
                copy_into_padded(dy + b * oh * ow * cy, oh, ow, cy, wpc, 0, lc, pad.data());
                band(pad.data(), b, 0, h);
            }
        });
        return;
    }
    const T* dpad = dy;
    std::vector<T> copy;
    if (padded) {  // few images: one padded copy, bands of rows split over the threads
        copy.assign(n * oh * wpc * cy, T(0));
        for (i64 b = 0; b < n; ++b)
            copy_into_padded(dy + b * oh * ow * cy, oh, ow, cy, wpc, 0, lc, copy.data() + b * oh * wpc * cy);
        dpad = copy.data();
    }
    const i64 chunks = threads > 1 ? std::min(n * h, threads * CHUNKS_PER_THREAD) : 1;
    run_chunks(threads, chunks, n * h, [&](i64, i64 begin, i64 end) {
        for (i64 b = begin / h; b * h < end; ++b)
            band(dpad + b * oh * wpc * cy, b, std::max(begin - b * h, i64(0)), std::min(end - b * h, h));
    });
}

// Winograd convolution F(2x2, r x r) (Lavin & Gray): stride-1, undilated Conv2D as, per tile of 2 x 2 output
// pixels, alpha x alpha (alpha = r + 1) products of transformed input and filter values in place of 4 r^2:
// for 3x3 16 against 36 (2.25x fewer multiply-adds), for 5x5 36 against 100 (2.8x). With the input tile d
// (alpha x alpha, per input channel) and the filter g (r x r, per channel pair):
//     V = BT d BT',   U = G g G',   M[xi] = sum over input channels of V[xi] * U[xi] (xi < alpha^2),
//     y = AT M AT'   (2 x 2 output pixels), then bias and ReLU as the direct kernel.
// BT and AT are WinogradTiles' constants (small integers and halves: the input and output transforms round
// nothing but their sums); G comes from the caller (conv_winograd.py, Toom-Cook in float64, its rows scaled to
// match BT's) and the filter transform runs here in double, rounded once. The products M[xi] of a tile row are
// small GEMMs ([tiles, c] x [c, co]) run by conv_block (the direct kernel's register blocks, c terms, identity
// offsets). Per tile row (2 output rows of one image) each thread transforms the row's tiles into its own V
// buffer, multiplies, and transforms back: V, M and U stay in L1/L2.

// The largest tile (alpha) of the kernel's instances.
#define TFC_WINOGRAD_MAX_ALPHA 6

// BT (alpha x alpha) and AT (2 x alpha) of F(2, alpha - 1) on the points 0, 1, -1, 1/2, -1/2 and infinity (as
// many as alpha needs), BT's rows scaled to small integers (conv_winograd.winograd_matrices makes the same).
template <int ALPHA>
struct WinogradTiles;
template <>
struct WinogradTiles<4> {
    static constexpr float BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, -1, 0, 1}};
    static constexpr float AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, 1}};
};
template <>
struct WinogradTiles<6> {
    static constexpr float BT[6][6] = {{1, 0, -5, 0, 4, 0},  {0, -1, -1, 4, 4, 0},  {0, 1, -1, -4, 4, 0},
                                       {0, 1, 2, -1, -2, 0}, {0, -1, 2, 1, -2, 0}, {0, 1, 0, -5, 0, 4}};
    static constexpr float AT[2][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 0.5f, -0.5f, 1}};
};

// sum over q of row[q] * v[q] for a constant row (after unrolling the zero terms vanish and +-1 are adds)
template <int N, typename V>
inline V constant_dot(const float (&row)[N], const V* v) {
    V s{};
    bool first = true;
#pragma GCC unroll 8
    for (int q = 0; q < N; ++q) {
        if (row[q] == 0) continue;
        const V term = row[q] == 1 ? v[q] : row[q] == -1 ? -v[q] : v[q] * row[q];
        s = first ? term : s + term;
        first = false;
    }
    return s;
}

// U[xi, ci, k] = sum over (i, j) of G[a, i] * g[i, j, ci, k] * G[b, j], xi = a * alpha + b: in double, rounded
// once; g is [r, r, c, co] (HWIO), cc = c * co. Chunks of CH channel pairs at a time (a chunk's partial sums
// stay in L1: 5x5 64->128 took 0.42 ms with whole rows of 8192 pairs in L3, one core), split over the threads.
template <typename T>
void winograd_filter(const T* __restrict__ g, i64 r, i64 alpha, i64 cc, const double* __restrict__ G,
                     T* __restrict__ u) {
    constexpr i64 CH = 64;
    const i64 count = (cc + CH - 1) / CH;
    const i64 threads = thread_parts(count, 2.0 * cc * alpha * r * (r + alpha));
    run_chunks(threads, threads, count, [&](i64, i64 begin, i64 end) {
        double t1[TFC_WINOGRAD_MAX_ALPHA * TFC_WINOGRAD_MAX_ALPHA * CH];  // t1[a, j, :] = sum_i G[a, i] g[i, j, :]
        for (i64 q0 = begin * CH; q0 < std::min(cc, end * CH); q0 += CH) {
            const i64 len = std::min(CH, cc - q0);
            for (i64 a = 0; a < alpha; ++a)
                for (i64 j = 0; j < r; ++j) {
                    double* t = t1 + (a * r + j) * CH;
                    std::fill(t, t + CH, 0.0);
                    for (i64 i = 0; i < r; ++i) {
                        const double ga = G[a * r + i];
                        if (ga == 0) continue;
                        const T* gi = g + (i * r + j) * cc + q0;
                        for (i64 q = 0; q < len; ++q) t[q] += ga * static_cast<double>(gi[q]);
                    }
                }
            for (i64 a = 0; a < alpha; ++a)
                for (i64 b = 0; b < alpha; ++b) {
                    double acc[CH] = {};
                    for (i64 j = 0; j < r; ++j) {
                        const double gb = G[b * r + j];
                        if (gb == 0) continue;
                        const double* t = t1 + (a * r + j) * CH;
                        for (i64 q = 0; q < len; ++q) acc[q] += gb * t[q];
                    }
                    T* dst = u + (a * alpha + b) * cc + q0;
                    for (i64 q = 0; q < len; ++q) dst[q] = static_cast<T>(acc[q]);
                }
        }
    });
}

// V[xi, tx, k..k+CV) = (BT d BT')[xi] for the tile whose top-left input value is at d0 (rows wpc apart, pixels
// c apart).
template <typename T, int ALPHA, int CV>
inline void winograd_input_tile(const T* __restrict__ d0, i64 wpc, i64 c, T* __restrict__ v, i64 xi_step) {
    using W = WinogradTiles<ALPHA>;
    using LC = Lanes<T, CV>;
    using VC = typename LC::vec;
    VC t[ALPHA][ALPHA];  // t[l][i] = (BT d)[i, l]
#pragma GCC unroll 8
    for (int l = 0; l < ALPHA; ++l) {
        VC col[ALPHA];
#pragma GCC unroll 8
        for (int q = 0; q < ALPHA; ++q) col[q] = LC::load(d0 + q * wpc + l * c);
#pragma GCC unroll 8
        for (int i = 0; i < ALPHA; ++i) t[l][i] = constant_dot(W::BT[i], col);
    }
#pragma GCC unroll 8
    for (int i = 0; i < ALPHA; ++i) {
        VC rowv[ALPHA];
#pragma GCC unroll 8
        for (int l = 0; l < ALPHA; ++l) rowv[l] = t[l][i];
#pragma GCC unroll 8
        for (int q = 0; q < ALPHA; ++q) LC::store(v + (i * ALPHA + q) * xi_step, constant_dot(W::BT[q], rowv));
    }
}

// The 2 x 2 outputs (before bias) of one tile and one vector of CO output channels from M (xi_step apart).
template <typename T, int ALPHA, int CO>
inline void winograd_output_tile(const T* __restrict__ mv, i64 xi_step, typename Lanes<T, CO>::vec (&y)[2][2]) {
    using W = WinogradTiles<ALPHA>;
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    V t[2][ALPHA];  // t[i][q] = (AT M)[i, q]
#pragma GCC unroll 8
    for (int q = 0; q < ALPHA; ++q) {
        V col[ALPHA];
#pragma GCC unroll 8
        for (int a = 0; a < ALPHA; ++a) col[a] = L::load(mv + (a * ALPHA + q) * xi_step);
#pragma GCC unroll 2
        for (int i = 0; i < 2; ++i) t[i][q] = constant_dot(W::AT[i], col);
    }
#pragma GCC unroll 2
    for (int i = 0; i < 2; ++i)
#pragma GCC unroll 2
        for (int j = 0; j < 2; ++j) y[i][j] = constant_dot(W::AT[j], t[i]);
}

// The Winograd convolution of an NHWC input (see above) with co output channels, NV * CO at a time; u is the
// transformed filter [alpha^2, c, co] (winograd_filter), c a multiple of CV. The input is padded by pt/pl and
// by pb/pr plus zeros up to whole tiles (for_padded_rows' buffers); outputs beyond oh x ow are computed and
// dropped. Returns false when an output before the bias was not finite: an infinity or NaN in a tile reaches
// every output of the tile through the transforms (where the direct sum keeps it to the windows that hold
// it), so the caller then runs the direct kernel instead.
template <typename T, int ALPHA, int CV, int CO, int NV>
bool conv2d_winograd(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, i64 pr,
                     const T* __restrict__ u, i64 co, i64 oh, i64 ow, const T* __restrict__ bias, i64 relu,
                     T* __restrict__ out) {
    constexpr int PB = block_for<T, CO, NV>();
    constexpr i64 M = 2, R = ALPHA - 1, A2 = ALPHA * ALPHA;
    using L = Lanes<T, CO>;
    using V = typename L::vec;
    const i64 ty_count = (oh + M - 1) / M, tx_count = (ow + M - 1) / M;
    // padding to whole tiles: the last tile row reads rows up to ty_count * M + R - 2 of the padded image
    const i64 pb_all = std::max(pb, ty_count * M + R - 1 - h - pt), pr_all = std::max(pr, tx_count * M + R - 1 - w - pl);
    const i64 wp = w + pl + pr_all;
    std::vector<i64> iota(c);
    for (i64 k = 0; k < c; ++k) iota[k] = k;
    const double flops = 2.0 * n * ty_count * tx_count * A2 * c * co;
    std::atomic<bool> non_finite{false};
    const auto row = [&](const T* ximg, i64 rix) {  // tile row rix = (b, ty)
        const i64 b = rix / ty_count, ty = rix % ty_count;
        thread_local std::vector<T> vbuf, mbuf;  // the thread's V and M (TLS looked up once: pointers below)
        vbuf.resize(A2 * tx_count * c);
        mbuf.resize(A2 * tx_count * co);
        T* const vt = vbuf.data();
        T* const mt = mbuf.data();
        for (i64 tx = 0; tx < tx_count; ++tx)
            for (i64 k = 0; k < c; k += CV)
                winograd_input_tile<T, ALPHA, CV>(ximg + (ty * M * wp + tx * M) * c + k, wp * c, c,
                                                  vt + tx * c + k, tx_count * c);
        // M[xi] = V[xi] U[xi]: tx_count pixels of c terms each, per output-channel chunk
        for (i64 xi = 0; xi < A2; ++xi)
            for (i64 j = 0; j < co; j += NV * CO)
                for_blocks<PB>(tx_count, ConvRow<T, CO, NV>{vt + xi * tx_count * c, c, iota.data(), c,
                                                            u + xi * c * co + j, nullptr, false,
                                                            mt + xi * tx_count * co + j, co});
        const V zero = L::splat(T(0));
        V check = zero;
        for (i64 tx = 0; tx < tx_count; ++tx)
            for (i64 k = 0; k < co; k += CO) {
                V y[2][2];
                winograd_output_tile<T, ALPHA, CO>(mt + tx * co + k, tx_count * co, y);
                const V bv = bias ? L::load(bias + k) : zero;
                for (i64 i = 0; i < M && ty * M + i < oh; ++i)
                    for (i64 jj = 0; jj < M && tx * M + jj < ow; ++jj) {
                        V s = y[i][jj];
                        check += s - s;  // NaN once any output is non-finite
                        if (bias) s += bv;
                        if (relu) s = s < zero ? zero : s;
                        L::store(out + ((b * oh + ty * M + i) * ow + tx * M + jj) * co + k, s);
                    }
            }
        for (int q = 0; q < CO; ++q)
            if (check[q] != check[q]) non_finite.store(true, std::memory_order_relaxed);
    };
    for_padded_rows(x, n, h, w, c, pt, pb_all, pl, pr_all, ty_count, flops, row);
    return !non_finite.load();
}

// conv2d_winograd's channel-vector and output-chunk instances for one tile size: 1 when it ran, 0 when an
// output was not finite, -1 when no instance takes c and co.
template <typename T, int ALPHA>
int conv2d_winograd_cases(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, i64 pr, const T* u,
                          i64 co, i64 oh, i64 ow, const T* bias, i64 relu, T* out) {
    constexpr int CV = 32 / sizeof(T);
    if (c % CV != 0) return -1;
#define TFC_WINOGRAD_CASE(CO, NV)                                                                             \
    if (co % ((CO) * (NV)) == 0)                                                                              \
        return conv2d_winograd<T, ALPHA, CV, CO, NV>(x, n, h, w, c, pt, pb, pl, pr, u, co, oh, ow, bias, relu, out) \
                   ? 1                                                                                         \
                   : 0;
#ifdef __AVX512F__
    TFC_WINOGRAD_CASE(64 / int(sizeof(T)), 4)
    TFC_WINOGRAD_CASE(64 / int(sizeof(T)), 2)
    TFC_WINOGRAD_CASE(64 / int(sizeof(T)), 1)
#endif
    TFC_WINOGRAD_CASE(32 / int(sizeof(T)), 1)
#undef TFC_WINOGRAD_CASE
    return -1;
}

// NB output pixels (consecutive ox, `xstep` apart in x) of one channel vector of depthwise_fwd: NB
// independent sums in registers, each over the taps in (i, j) order (the NumPy candidate's order), the
// filter vector of a tap loaded once for the NB pixels.
template <typename T, int C, int NB>
inline void depthwise_fwd_block(const T* __restrict__ x, i64 xstep, const T* __restrict__ w, i64 c, i64 kh, i64 kw,
                                i64 istep, i64 jstep, i64 ostep, T* __restrict__ out) {
    using L = Lanes<T, C>;
    using V = typename L::vec;
    V acc[NB];
    for (int b = 0; b < NB; ++b) acc[b] = L::splat(T(0));
    for (i64 i = 0; i < kh; ++i)
        for (i64 j = 0; j < kw; ++j) {
            const V wv = L::load(w + (i * kw + j) * c);
            const T* xp = x + i * istep + j * jstep;
            for (int b = 0; b < NB; ++b) acc[b] += L::load(xp + b * xstep) * wv;
        }
    for (int b = 0; b < NB; ++b) L::store(out + b * ostep, acc[b]);
}

// Depthwise convolution with channel multiplier 1 (MobileNet's): each channel convolved with its own
// kh x kw filter, C channels a time (C divides c, as the pools). w is [kh, kw, c]; xpad is the NHWC input
// x with pt/pb rows above/below and pl/pr columns left/right of zeros; taps summed in (i, j) order, as
// the NumPy candidate.
//   forward:  out[b, oy, ox, k] = sum_ij xpad[b, oy*sh + i*dh, ox*sw + j*dw, k] * w[i, j, k]
//   dgrad:    dxpad[b, oy*sh + i*dh, ox*sw + j*dw, k] summed over dy[b, oy, ox, k] * w[i, j, k] (a gather, below)
//   wgrad:    dw[i, j, k] = sum over (b, oy, ox) of xpad[b, oy*sh + i*dh, ox*sw + j*dw, k] * dy[b, oy, ox, k]
// All three take unpadded arrays. The forward, as conv2d_direct, pads one image at a time into each thread's
// cache-resident buffer where there are images enough for the threads (no pass over a padded copy of the
// whole batch), else one padded copy is made and its rows split; wgrad reads zeros for the padding.
// The forward computes 8 output pixels x one channel vector per step (8 independent sums in registers,
// where one sum at a time waited on each addition), then 4, then one at a time for a row's last pixels.
template <typename T, int C, bool ONE_CHUNK>
void depthwise_fwd(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c_dyn, i64 pt, i64 pb, i64 pl, i64 pr,
                   const T* __restrict__ wt, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh, i64 dw, i64 oh, i64 ow,
                   T* __restrict__ out) {
    const i64 c = ONE_CHUNK ? C : c_dyn;
    constexpr int NB = 8;
    const i64 wp = w + pl + pr;
    const auto row = [&](const T* ximg, i64 r) {  // output row r = (b, oy) from image b's padded values
        const T* xrow = ximg + (r % oh) * sh * wp * c;
        T* orow = out + r * ow * c;
        for (i64 k = 0; k < c; k += C) {
            i64 ox = 0;
            for (; ox + NB <= ow; ox += NB)
                depthwise_fwd_block<T, C, NB>(xrow + ox * sw * c + k, sw * c, wt + k, c, kh, kw, dh * wp * c, dw * c,
                                              c, orow + ox * c + k);
            if (ox + NB / 2 <= ow) {  // the rest of a row: 4 sums at a time still overlap their additions
                depthwise_fwd_block<T, C, NB / 2>(xrow + ox * sw * c + k, sw * c, wt + k, c, kh, kw, dh * wp * c,
                                                  dw * c, c, orow + ox * c + k);
                ox += NB / 2;
            }
            for (; ox < ow; ++ox)
                depthwise_fwd_block<T, C, 1>(xrow + ox * sw * c + k, sw * c, wt + k, c, kh, kw, dh * wp * c, dw * c,
                                             c, orow + ox * c + k);
        }
    };
    const double flops = 2.0 * n * oh * ow * c * kh * kw;
    for_padded_rows(x, n, h, w, c, pt, pb, pl, pr, oh, flops, row);
}

// NB input-gradient pixels of one channel vector (pixels `ostep` apart in dx, consecutive ox in dy): the sums
// over the taps that reach them, in registers. rows[r] is dy's row for the r-th tap row (at ox 0 and the
// channel vector), wrows[r] that tap row's filter; cols[t] the tap column j and ox0[t] its ox for pixel 0.
template <typename T, int C, int NB>
inline void depthwise_dgrad_pixels(const T* const* rows, const T* const* wrows, i64 nrows, const i64* cols,
                                   const i64* ox0, i64 ncols, i64 c, i64 ostep, T* __restrict__ out) {
    using L = Lanes<T, C>;
    using V = typename L::vec;
    V acc[NB];
    for (int b = 0; b < NB; ++b) acc[b] = L::splat(T(0));
    for (i64 r = 0; r < nrows; ++r)
        for (i64 t = 0; t < ncols; ++t) {
            const V wv = L::load(wrows[r] + cols[t] * c);
            const T* g = rows[r] + ox0[t] * c;
            for (int b = 0; b < NB; ++b) acc[b] += L::load(g + b * c) * wv;
        }
    for (int b = 0; b < NB; ++b) L::store(out + b * ostep, acc[b]);
}

// The input gradient as a gather: dx[b, y, x, k] = sum over the taps (i, j) and dy pixels (oy, ox) with
// oy*sh + i*dh = y + pt and ox*sw + j*dw = x + pl of dy[b, oy, ox, k] * w[i, j, k] (the forward's window
// positions; pt/pl its top/left padding). Every dx value is written once, from registers: no zeroed padded
// buffer, no read-modify-write per tap (the scatter of each dy into its window did both). Pixels of one
// column phase (x = x0, x0 + sw, ...) share their taps and read consecutive dy pixels: 8 of them a step
// where every tap's dy exists, one at a time at the borders. Rows of dx split over the pool.
template <typename T, int C, bool ONE_CHUNK>
void depthwise_dgrad(const T* __restrict__ dy, i64 n, i64 oh, i64 ow, i64 c_dyn, i64 pt, i64 pl,
                     const T* __restrict__ wt, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh, i64 dw, i64 h, i64 wd,
                     T* __restrict__ dx) {
    const i64 c = ONE_CHUNK ? C : c_dyn;
    constexpr int NB = 8;
    const i64 threads = thread_parts(n * h, 2.0 * n * oh * ow * c * kh * kw);
    const i64 chunks = threads > 1 ? std::min(n * h, threads * CHUNKS_PER_THREAD) : 1;
    // the ox of tap column j for dx column x, or -1 where no dy pixel reaches x through it
    const auto ox_of = [&](i64 x, i64 j) -> i64 {
        const i64 q = x + pl - j * dw;
        return q >= 0 && q % sw == 0 && q / sw < ow ? q / sw : -1;
    };
    run_chunks(threads, chunks, n * h, [&](i64, i64 begin, i64 end) {
        std::vector<const T*> rows(kh), wrows(kh);
        std::vector<i64> cols(kw), ox0(kw);
        for (i64 r = begin; r < end; ++r) {
            const i64 b = r / h, y = r % h;
            T* dxrow = dx + r * wd * c;
            for (i64 k = 0; k < c; k += C) {
                i64 nrows = 0;
                for (i64 i = 0; i < kh; ++i) {
                    const i64 q = y + pt - i * dh;
                    if (q < 0 || q % sh != 0 || q / sh >= oh) continue;
                    rows[nrows] = dy + ((b * oh + q / sh) * ow) * c + k;
                    wrows[nrows++] = wt + i * kw * c + k;
                }
                for (i64 x0 = 0; x0 < std::min(sw, wd); ++x0) {
                    const i64 count = (wd - x0 + sw - 1) / sw;  // dx columns x0, x0 + sw, ...
                    // the phase's tap columns (those whose offset sw divides)
                    i64 phase_cols = 0;
                    for (i64 j = 0; j < kw; ++j)
                        if (((x0 + pl - j * dw) % sw + sw) % sw == 0) ++phase_cols;
                    for (i64 t = 0; t < count;) {
                        const i64 x = x0 + t * sw;
                        i64 ncols = 0;
                        for (i64 j = 0; j < kw; ++j) {
                            const i64 ox = ox_of(x, j);
                            if (ox < 0) continue;
                            cols[ncols] = j;
                            ox0[ncols++] = ox;
                        }
                        T* out = dxrow + x * c + k;
                        bool block = t + NB <= count && ncols == phase_cols;
                        for (i64 u = 0; block && u < ncols; ++u) block = ox_of(x + (NB - 1) * sw, cols[u]) >= 0;
                        if (block) {
                            depthwise_dgrad_pixels<T, C, NB>(rows.data(), wrows.data(), nrows, cols.data(),
                                                             ox0.data(), ncols, c, sw * c, out);
                            t += NB;
                        } else {
                            depthwise_dgrad_pixels<T, C, 1>(rows.data(), wrows.data(), nrows, cols.data(),
                                                            ox0.data(), ncols, c, sw * c, out);
                            ++t;
                        }
                    }
                }
            }
        }
    });
}

// One output row's contribution to depthwise_wgrad for filter row i: KW taps x NV channel vectors of sums
// in registers (loaded from and stored back to dst), each going on over the row's ox in order: the same
// additions in the same order as one tap at a time, but KW * NV independent sums in flight, and each dy
// vector loaded once for the KW taps.
template <typename T, int C, int KW, int NV>
inline void depthwise_wgrad_row(const T* __restrict__ x, const T* __restrict__ g, i64 ow, i64 xstep, i64 jstep,
                                i64 c, T* __restrict__ dst) {
    using L = Lanes<T, C>;
    using V = typename L::vec;
    V acc[KW][NV];
    for (int j = 0; j < KW; ++j)
        for (int v = 0; v < NV; ++v) acc[j][v] = L::load(dst + j * c + v * C);
    for (i64 ox = 0; ox < ow; ++ox) {
        V gv[NV];
        for (int v = 0; v < NV; ++v) gv[v] = L::load(g + ox * c + v * C);
        const T* xp = x + ox * xstep;
        for (int j = 0; j < KW; ++j)
            for (int v = 0; v < NV; ++v) acc[j][v] += L::load(xp + j * jstep + v * C) * gv[v];
    }
    for (int j = 0; j < KW; ++j)
        for (int v = 0; v < NV; ++v) L::store(dst + j * c + v * C, acc[j][v]);
}

// All filter rows of one output row, read from the unpadded image (the output row's first input row is y0
// in padded coordinates): channel vectors NV at a time (about 16 sums in registers), then one at a time.
// Padding is never copied: a filter row on a padding row takes its products from `zeros` (0 * dy, NaN for
// an infinite dy, as the padded NumPy path), and the ox whose taps reach the left or right padding (below
// oxl, from oxr on) go one pixel at a time, in ox order, so every sum has the same terms in the same order
// as over a padded copy.
template <typename T, int C, int KW>
inline void depthwise_wgrad_rows(const T* __restrict__ ximg, i64 h, i64 w, i64 pt, i64 pl, i64 y0,
                                 const T* __restrict__ g, i64 kh, i64 ow, i64 sw, i64 dh, i64 dw, i64 c,
                                 const T* __restrict__ zeros, i64 oxl, i64 oxr, T* __restrict__ dst) {
    using L = Lanes<T, C>;
    constexpr int NV = KW >= 8 ? 1 : KW >= 6 ? 2 : KW == 5 ? 3 : 4;
    const auto segment = [&](const T* x, i64 count, const T* gs, T* d) {  // x: the segment's first window
        i64 k = 0;
        for (; k + NV * C <= c; k += NV * C)
            depthwise_wgrad_row<T, C, KW, NV>(x + k, gs + k, count, sw * c, dw * c, c, d + k);
        for (; k < c; k += C) depthwise_wgrad_row<T, C, KW, 1>(x + k, gs + k, count, sw * c, dw * c, c, d + k);
    };
    for (i64 i = 0; i < kh; ++i) {
        const i64 y = y0 + i * dh - pt;
        T* d = dst + i * KW * c;
        if (y < 0 || y >= h) {
            segment(zeros, ow, g, d);
            continue;
        }
        const T* xr = ximg + y * w * c;
        const auto pixel = [&](i64 ox) {
            for (int j = 0; j < KW; ++j) {
                const i64 p = ox * sw + j * dw - pl;
                const T* src = p >= 0 && p < w ? xr + p * c : zeros;
                for (i64 k = 0; k < c; k += C)
                    L::store(d + j * c + k, L::load(d + j * c + k) + L::load(src + k) * L::load(g + ox * c + k));
            }
        };
        for (i64 ox = 0; ox < oxl; ++ox) pixel(ox);
        if (oxr > oxl) segment(xr + (oxl * sw - pl) * c, oxr - oxl, g + oxl * c, d);
        for (i64 ox = std::max(oxl, oxr); ox < ow; ++ox) pixel(ox);
    }
}

template <typename T, int C, bool ONE_CHUNK>
void depthwise_wgrad(const T* __restrict__ x, i64 n, i64 h, i64 w, i64 c_dyn, i64 pt, i64 pb, i64 pl, i64 pr,
                     const T* __restrict__ dy, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh, i64 dw, i64 oh, i64 ow,
                     T* __restrict__ out) {
    const i64 c = ONE_CHUNK ? C : c_dyn;
    const i64 hp = h + pt + pb, wp = w + pl + pr;
    const bool padded = pt || pb || pl || pr;
    using L = Lanes<T, C>;
    using V = typename L::vec;
    // images in chunks, each summed into its own filter-sized buffer (chunk 0 into out), the buffers added
    // in chunk order: the rounding depends on the thread count only (as conv2d_wgrad_direct)
    const i64 size = kh * kw * c;
    const i64 threads = thread_parts(n, 2.0 * n * oh * ow * size);
    const i64 parts = threads > 1 ? std::min<i64>(n, threads * 2) : 1;
    std::vector<T> partial((parts - 1) * size, T(0));
    const bool fast = kw <= 5 || kw == 7;
    // the ox whose every tap column lies inside the image: [oxl, oxr) (the others reach into the padding)
    const i64 oxl = std::min(ow, (pl + sw - 1) / sw);
    const i64 last = w - 1 + pl - (kw - 1) * dw;
    const i64 oxr = last < 0 ? 0 : std::min(ow, last / sw + 1);
    run_chunks(threads, parts, n, [&](i64 t, i64 begin, i64 end) {
        T* dst = t == 0 ? out : partial.data() + (t - 1) * size;
        std::memset(dst, 0, sizeof(T) * size);
        if (fast) {  // the common widths: their taps' sums in registers, the padding read from `zeros`
            std::vector<T> zeros(wp * c, T(0));
            for (i64 b = begin; b < end; ++b)
                for (i64 oy = 0; oy < oh; ++oy) {
                    const T* ximg = x + b * h * w * c;
                    const T* g = dy + (b * oh + oy) * ow * c;
#define TFC_WGRAD_ROWS(KW) \
    depthwise_wgrad_rows<T, C, KW>(ximg, h, w, pt, pl, oy * sh, g, kh, ow, sw, dh, dw, c, zeros.data(), oxl, oxr, dst)
                    switch (kw) {
                        case 1: TFC_WGRAD_ROWS(1); break;
                        case 2: TFC_WGRAD_ROWS(2); break;
                        case 3: TFC_WGRAD_ROWS(3); break;
                        case 4: TFC_WGRAD_ROWS(4); break;
                        case 5: TFC_WGRAD_ROWS(5); break;
                        default: TFC_WGRAD_ROWS(7); break;
                    }
#undef TFC_WGRAD_ROWS
                }
            return;
        }
        std::vector<T> pad(padded ? hp * wp * c : 0, T(0));  // one image, zero borders (see depthwise_fwd)
        for (i64 b = begin; b < end; ++b) {
            const T* ximg = x + b * h * w * c;
            if (padded) {
                copy_into_padded(ximg, h, w, c, wp, pt, pl, pad.data());
                ximg = pad.data();
            }
            for (i64 oy = 0; oy < oh; ++oy) {
                const T* xrow = ximg + oy * sh * wp * c;
                const T* g = dy + (b * oh + oy) * ow * c;
                for (i64 i = 0; i < kh; ++i)
                    for (i64 j = 0; j < kw; ++j)
                        for (i64 k = 0; k < c; k += C) {
                            T* acc_at = dst + (i * kw + j) * c + k;
                            V acc = L::load(acc_at);
                            for (i64 ox = 0; ox < ow; ++ox)
                                acc += L::load(xrow + ((i * dh) * wp + ox * sw + j * dw) * c + k) *
                                       L::load(g + ox * c + k);
                            L::store(acc_at, acc);
                        }
            }
        }
    });
    for (i64 t = 1; t < parts; ++t)
        for (i64 k = 0; k < size; ++k) out[k] += partial[(t - 1) * size + k];
}

// Calls KERNEL<T, C, ONE_CHUNK> with C the widest vector (at most 64 bytes) whose lane count divides c,
// and ONE_CHUNK when c == C (the channel count is then a compile-time constant).
#define TFC_CHANNEL_CALL(KERNEL, T, C, c, ...) \
    ((c) == (C) ? KERNEL<T, C, true>(__VA_ARGS__) : KERNEL<T, C, false>(__VA_ARGS__))
#define TFC_CHANNEL_DISPATCH(KERNEL, T, c, ...)                                                 \
    if (sizeof(T) == 4 && (c) % 16 == 0)                                                        \
        TFC_CHANNEL_CALL(KERNEL, T, 64 / sizeof(T), c, __VA_ARGS__);                            \
    else if ((c) % 8 == 0)                                                                      \
        TFC_CHANNEL_CALL(KERNEL, T, 8, c, __VA_ARGS__);                                         \
    else if ((c) % 4 == 0)                                                                      \
        TFC_CHANNEL_CALL(KERNEL, T, 4, c, __VA_ARGS__);                                         \
    else if ((c) % 2 == 0)                                                                      \
        TFC_CHANNEL_CALL(KERNEL, T, 2, c, __VA_ARGS__);                                         \
    else                                                                                        \
        TFC_CHANNEL_CALL(KERNEL, T, 1, c, __VA_ARGS__);

}  // namespace

#define TFC_EXPORT extern "C" __attribute__((visibility("default")))

#define TFC_INSTANTIATE(T, SUFFIX)                                                                          \
    TFC_EXPORT void tfc_im2col_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 kh, i64 kw, i64 sh,    \
                                        i64 sw, i64 dh, i64 dw, i64 pt, i64 pl, i64 oh, i64 ow, T* out) {  \
        im2col<T>(x, n, h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, out);                              \
    }                                                                                                       \
    TFC_EXPORT void tfc_max_pool_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 kh, i64 kw, i64 sh,  \
                                          i64 sw, i64 pt, i64 pl, i64 oh, i64 ow, T* y,                     \
                                          std::uint8_t* argmax) {                                           \
        TFC_CHANNEL_DISPATCH(max_pool, T, c, x, n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow, y, argmax)      \
    }                                                                                                       \
    TFC_EXPORT void tfc_max_pool_grad_##SUFFIX(const T* x, const T* y, const T* dy, i64 n, i64 h, i64 w,   \
                                               i64 c, i64 kh, i64 kw, i64 sh, i64 sw, i64 pt, i64 pl,      \
                                               i64 oh, i64 ow, const std::uint8_t* argmax, i64 relu,       \
                                               T* dx) {                                                    \
        TFC_CHANNEL_DISPATCH(max_pool_grad, T, c, x, y, dy, n, h, w, c, kh, kw, sh, sw, pt, pl, oh, ow,     \
                             argmax, relu, dx)                                                              \
    }                                                                                                       \
    TFC_EXPORT void tfc_depthwise_fwd_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl, \
                                               i64 pr, const T* wt, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh,     \
                                               i64 dw, i64 oh, i64 ow, T* out) {                                \
        TFC_CHANNEL_DISPATCH(depthwise_fwd, T, c, x, n, h, w, c, pt, pb, pl, pr, wt, kh, kw, sh, sw, dh, dw, oh, \
                             ow, out)                                                                           \
    }                                                                                                       \
    TFC_EXPORT void tfc_depthwise_dgrad_##SUFFIX(const T* dy, i64 n, i64 oh, i64 ow, i64 c, i64 pt, i64 pl,    \
                                                 const T* wt, i64 kh, i64 kw, i64 sh, i64 sw, i64 dh, i64 dw,   \
                                                 i64 h, i64 w, T* dx) {                                         \
        TFC_CHANNEL_DISPATCH(depthwise_dgrad, T, c, dy, n, oh, ow, c, pt, pl, wt, kh, kw, sh, sw, dh, dw, h, w, \
                             dx)                                                                                \
    }                                                                                                       \
    TFC_EXPORT void tfc_depthwise_wgrad_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb,       \
                                                 i64 pl, i64 pr, const T* dy, i64 kh, i64 kw, i64 sh, i64 sw,   \
                                                 i64 dh, i64 dw, i64 oh, i64 ow, T* out) {                      \
        TFC_CHANNEL_DISPATCH(depthwise_wgrad, T, c, x, n, h, w, c, pt, pb, pl, pr, dy, kh, kw, sh, sw, dh, dw,  \
                             oh, ow, out)                                                                       \
    }

// The chunk of the direct convolution for co output channels (0: no instance, the caller uses im2col +
// GEMM): NV vectors of CO values, CO the widest vector of at most 64 bytes (GCC lowers wider generic
// vectors through memory) that divides co; NV = 4 or 2 such vectors where AVX-512's registers hold them.
#ifdef __AVX512F__
#define TFC_WIDE_DIRECT_CASES(KERNEL, T, ...)          \
    if (co % (4 * (64 / sizeof(T))) == 0) {            \
        KERNEL<T, 64 / sizeof(T), 4>(__VA_ARGS__);     \
        return 1;                                      \
    }                                                  \
    if (co % (2 * (64 / sizeof(T))) == 0) {            \
        KERNEL<T, 64 / sizeof(T), 2>(__VA_ARGS__);     \
        return 1;                                      \
    }
#else
#define TFC_WIDE_DIRECT_CASES(KERNEL, T, ...)
#endif
#define TFC_DIRECT_CASES(KERNEL, T, ...)                                                \
    if (co == 4) {                                                                      \
        KERNEL<T, 4, 1>(__VA_ARGS__);                                                   \
        return 1;                                                                       \
    }                                                                                   \
    TFC_WIDE_DIRECT_CASES(KERNEL, T, __VA_ARGS__)                                       \
    if (sizeof(T) == 4 && co % 16 == 0) {                                               \
        KERNEL<T, 64 / sizeof(T), 1>(__VA_ARGS__);                                      \
        return 1;                                                                       \
    }                                                                                   \
    if (co % 8 == 0) {                                                                  \
        KERNEL<T, 8, 1>(__VA_ARGS__);                                                   \
        return 1;                                                                       \
    }                                                                                   \
    return 0;

#define TFC_INSTANTIATE_DIRECT(T, SUFFIX)                                                                     \
    TFC_EXPORT int tfc_conv2d_direct_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl,  \
                                              i64 pr, const T* wt, i64 kh, i64 kw, i64 co, i64 sh, i64 sw,     \
                                              i64 dh, i64 dw, i64 oh, i64 ow, const T* bias, i64 relu, T* out, \
                                              i64* off) {                                                     \
        TFC_DIRECT_CASES(conv2d_direct, T, x, n, h, w, c, pt, pb, pl, pr, wt, kh, kw, co, sh, sw, dh, dw, oh,  \
                         ow, bias, relu, out, off)                                                            \
    }                                                                                                         \
    TFC_EXPORT int tfc_conv2d_wgrad_direct_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb,   \
                                                    i64 pl, i64 pr, const T* dy, i64 kh, i64 kw, i64 co, i64 sh, \
                                                    i64 sw, i64 dh, i64 dw, i64 oh, i64 ow, T* out, i64* off) {  \
        TFC_DIRECT_CASES(conv2d_wgrad_direct, T, x, n, h, w, c, pt, pb, pl, pr, dy, kh, kw, co, sh, sw, dh, dw,  \
                         oh, ow, out, off)                                                                    \
    }

#define TFC_INSTANTIATE_RELU_GRAD(T, SUFFIX)                                                                  \
    TFC_EXPORT void tfc_relu_grad_##SUFFIX(const T* g, const T* y, i64 n, T* out) { relu_grad<T>(g, y, n, out); }

#define TFC_INSTANTIATE_ADAM(T, SUFFIX)                                                                       \
    TFC_EXPORT void tfc_adam_##SUFFIX(const T* var, const T* m, const T* v, const T* g, i64 n, double neg_alpha, \
                                      double one_minus_b1, double one_minus_b2, double eps, T* var_out,         \
                                      T* m_out, T* v_out) {                                                    \
        adam<T>(var, m, v, g, n, neg_alpha, one_minus_b1, one_minus_b2, eps, var_out, m_out, v_out);          \
    }

#if TFC_PART_IS(0)
TFC_INSTANTIATE_ADAM(float, f32)
TFC_INSTANTIATE_RELU_GRAD(float, f32)
TFC_INSTANTIATE_RELU_GRAD(double, f64)
TFC_INSTANTIATE_ADAM(double, f64)
#endif
#if TFC_PART_IS(1)
TFC_INSTANTIATE(float, f32)
#endif
#if TFC_PART_IS(2)
TFC_INSTANTIATE(double, f64)
#endif
#if TFC_PART_IS(3)
TFC_INSTANTIATE_DIRECT(float, f32)
#endif
#if TFC_PART_IS(4)
TFC_INSTANTIATE_DIRECT(double, f64)
#endif

// Conv2DBackpropInput by phases (conv2d_dgrad_direct): `co` is the dx channel count the chunk dispatch reads.
#define TFC_INSTANTIATE_DGRAD(T, SUFFIX)                                                                      \
    TFC_EXPORT int tfc_conv2d_dgrad_direct_##SUFFIX(const T* dy, i64 n, i64 oh, i64 ow, i64 cy, const T* wt,   \
                                                    i64 kh, i64 kw, i64 co, i64 sh, i64 sw, i64 dh, i64 dw,  \
                                                    i64 pt, i64 pl, i64 h, i64 w, const T* bias, i64 relu, \
                                                    T* dx) {                                                  \
        TFC_DIRECT_CASES(conv2d_dgrad_direct, T, dy, n, oh, ow, cy, wt, kh, kw, co, sh, sw, dh, dw, pt, pl, h, \
                         w, bias, relu, dx)                                                                  \
    }

#if TFC_PART_IS(5)
TFC_INSTANTIATE_DGRAD(float, f32)
#endif
#if TFC_PART_IS(6)
TFC_INSTANTIATE_DGRAD(double, f64)
#endif

// Conv2D by Winograd F(2x2, r x r) (conv2d_winograd, r = 3 or 5) of an NHWC input with the HWIO filter g
// (r x r x c x co) and the filter-transform matrix G ((r + 1) x r, float64). Returns 1 when it ran, 0 when an
// output was not finite (out then holds garbage: run the direct kernel), -1 when no instance takes r, c, co.
#define TFC_INSTANTIATE_WINOGRAD(T, SUFFIX)                                                                   \
    TFC_EXPORT int tfc_conv2d_winograd_##SUFFIX(const T* x, i64 n, i64 h, i64 w, i64 c, i64 pt, i64 pb, i64 pl,   \
                                                i64 pr, const T* g, i64 r, i64 co, i64 oh, i64 ow,              \
                                                const double* gm, const T* bias, i64 relu, T* out) {             \
        if ((r != 3 && r != 5) || c % (32 / sizeof(T)) != 0) return -1;                                         \
        thread_local std::vector<T> u;  /* kept from call to call: no fresh pages to fault in */                \
        u.resize((r + 1) * (r + 1) * c * co);                                                                 \
        winograd_filter(g, r, r + 1, c * co, gm, u.data());                                                   \
        return r == 3 ? conv2d_winograd_cases<T, 4>(x, n, h, w, c, pt, pb, pl, pr, u.data(), co, oh, ow, bias, \
                                                     relu, out)                                               \
                      : conv2d_winograd_cases<T, 6>(x, n, h, w, c, pt, pb, pl, pr, u.data(), co, oh, ow, bias, \
                                                     relu, out);                                              \
    }

#if TFC_PART_IS(7)
TFC_INSTANTIATE_WINOGRAD(float, f32)
#endif
#if TFC_PART_IS(8)
TFC_INSTANTIATE_WINOGRAD(double, f64)
#endif

// Part 0 from here on: random numbers, batch normalisation and the library's entry points.
#if TFC_PART_IS(0)

// Box-Muller as TensorFlow computes it (tensorflow/core/lib/random/random_distributions.h, BoxMullerFloat
// and BoxMullerDouble): glibc's logf/sqrtf/sincosf (log/sqrt/sincos for double), which NumPy's own math
// does not reproduce to the bit. The Philox words come from tfcore/ops/philox.py.
static inline float tfc_uint32_to_float(uint32_t x) {
    const uint32_t val = (127u << 23) | (x & 0x7fffffu);
    float f;
    std::memcpy(&f, &val, sizeof(f));
    return f - 1.0f;
}

static inline double tfc_uint64_to_double(uint32_t x0, uint32_t x1) {
    const uint64_t val = (uint64_t(1023) << 52) | (uint64_t(x0 & 0xfffffu) << 32) | x1;
    double d;
    std::memcpy(&d, &val, sizeof(d));
    return d - 1.0;
}

// x: 2 * n words; out: 2 * n floats (the two normals of each pair of words).
TFC_EXPORT void tfc_box_muller_f32(const uint32_t* x, i64 n, float* out) {
    for (i64 i = 0; i < n; ++i) {
        float u1 = tfc_uint32_to_float(x[2 * i]);
        if (u1 < 1.0e-7f) u1 = 1.0e-7f;
        const float v1 = 2.0f * M_PI * tfc_uint32_to_float(x[2 * i + 1]);
        const float u2 = std::sqrt(-2.0f * std::log(u1));
        float s, c;
        sincosf(v1, &s, &c);
        out[2 * i] = s * u2;
        out[2 * i + 1] = c * u2;
    }
}

// x: 4 * n words; out: 2 * n doubles.
TFC_EXPORT void tfc_box_muller_f64(const uint32_t* x, i64 n, double* out) {
    for (i64 i = 0; i < n; ++i) {
        double u1 = tfc_uint64_to_double(x[4 * i], x[4 * i + 1]);
        if (u1 < 1.0e-7) u1 = 1.0e-7;
        const double v1 = 2 * M_PI * tfc_uint64_to_double(x[4 * i + 2], x[4 * i + 3]);
        const double u2 = std::sqrt(-2.0 * std::log(u1));
        double s, c;
        sincos(v1, &s, &c);
        out[2 * i] = s * u2;
        out[2 * i + 1] = c * u2;
    }
}

// Philox4x32-10 blocks as TensorFlow computes them (tensorflow/core/lib/random/philox_random.h): out[4 i ..]
// is the block at the 128-bit counter (ctr_hi:ctr_lo) + offsets[i] under the 64-bit key. tfcore/ops/philox.py
// holds the same function in NumPy (the reference the tests compare with).
TFC_EXPORT void tfc_philox(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi, const uint64_t* offsets, i64 n,
                           uint32_t* out) {
    for (i64 i = 0; i < n; ++i) {
        const uint64_t lo = ctr_lo + offsets[i];
        const uint64_t hi = ctr_hi + (lo < ctr_lo ? 1 : 0);
        uint32_t c0 = uint32_t(lo), c1 = uint32_t(lo >> 32), c2 = uint32_t(hi), c3 = uint32_t(hi >> 32);
        uint32_t k0 = uint32_t(key), k1 = uint32_t(key >> 32);
        for (int r = 0; r < 10; ++r) {
            const uint64_t p0 = uint64_t(0xD2511F53u) * c0;
            const uint64_t p1 = uint64_t(0xCD9E8D57u) * c2;
            const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0;
            const uint32_t n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
            c1 = uint32_t(p1);
            c3 = uint32_t(p0);
            c0 = n0;
            c2 = n2;
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        out[4 * i] = c0;
        out[4 * i + 1] = c1;
        out[4 * i + 2] = c2;
        out[4 * i + 3] = c3;
    }
}

static inline void tfc_philox_at(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi, uint64_t offset, uint32_t* out) {
    tfc_philox(key, ctr_lo, ctr_hi, &offset, 1, out);
}

// TF's TruncatedNormalDistribution filled as FillPhiloxRandomTask<..., true> fills it: output group g
// (4 floats, or 2 doubles) reads single samples from the stream skipped by g * skip blocks and keeps the
// Box-Muller normals with |x| < 2 until the group is full. out has `groups * group` values.
template <typename T>
static void tfc_truncated_normal(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi, i64 groups, T* out) {
    constexpr int group = sizeof(T) == 4 ? 4 : 2;
    constexpr uint64_t skip = group * 256 / 4;
    for (i64 g = 0; g < groups; ++g) {
        uint32_t block[4];
        uint64_t next = uint64_t(g) * skip;
        int used = 4, index = 0;
        auto sample = [&]() {
            if (used == 4) {
                tfc_philox_at(key, ctr_lo, ctr_hi, next++, block);
                used = 0;
            }
            return block[used++];
        };
        while (index < group) {
            T d[2];
            if (sizeof(T) == 4) {
                uint32_t x[2] = {sample(), sample()};
                float f[2];
                tfc_box_muller_f32(x, 1, f);
                d[0] = T(f[0]);
                d[1] = T(f[1]);
            } else {
                uint32_t x[4] = {sample(), sample(), sample(), sample()};
                double f[2];
                tfc_box_muller_f64(x, 1, f);
                d[0] = T(f[0]);
                d[1] = T(f[1]);
            }
            for (int k = 0; k < 2 && index < group; ++k)
                if (std::fabs(d[k]) < T(2)) out[g * group + index++] = d[k];
        }
    }
}

TFC_EXPORT void tfc_truncated_normal_f32(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi, i64 groups, float* out) {
    tfc_truncated_normal<float>(key, ctr_lo, ctr_hi, groups, out);
}

TFC_EXPORT void tfc_truncated_normal_f64(uint64_t key, uint64_t ctr_lo, uint64_t ctr_hi, i64 groups, double* out) {
    tfc_truncated_normal<double>(key, ctr_lo, ctr_hi, groups, out);
}

// Fused batch normalisation over the channels of an (m, c) row-major array (NHWC or NDHWC flattened):
// FusedBatchNormV3's training forward and FusedBatchNormGradV3 (tfcore/ops/batch_norm_ops.py holds the
// NumPy candidates these replace, and the formulas). Per-channel sums run in double over fixed chunks of
// rows, added in chunk order (deterministic for any thread count); the variance takes a second pass over
// x - mean (never E[x^2] - E[x]^2). Element-wise values use the NumPy candidate's formulas in T.
// One thread: each pass streams memory at a few flops per value, which one core nearly saturates, while a
// split pays a thread start and a join per pass; on a busy 2-core machine (load 4) the split step took 125-136
// ms against 25-37 ms on one thread (a BN layer's training step at 32x56x56x64 float32).
namespace {

constexpr i64 BN_THREADS = 1;

// sums[k * c + j] += f(row r, channel j) over the rows of chunk k, for `outs` outputs per channel.
template <typename RowFn>
void channel_chunk_sums(i64 m, i64 c, int outs, std::vector<double>& total, const RowFn& row_fn) {
    const i64 threads = BN_THREADS;
    const i64 chunks = std::min<i64>(m, threads * CHUNKS_PER_THREAD);
    std::vector<double> part(static_cast<size_t>(std::max<i64>(chunks, 1) * outs * c), 0.0);
    run_chunks(threads, chunks, m, [&](i64 k, i64 begin, i64 end) {
        double* acc = part.data() + k * outs * c;
        for (i64 r = begin; r < end; ++r) row_fn(r, acc);
    });
    total.assign(static_cast<size_t>(outs * c), 0.0);
    for (i64 k = 0; k < chunks; ++k)
        for (i64 j = 0; j < outs * c; ++j) total[j] += part[k * outs * c + j];
}

template <typename T>
void batch_norm_train(const T* __restrict__ x, i64 m, i64 c, const T* __restrict__ scale,
                      const T* __restrict__ offset, double eps, T* __restrict__ y, T* __restrict__ mean_out,
                      T* __restrict__ var_out) {
    std::vector<double> sums;
    channel_chunk_sums(m, c, 1, sums, [&](i64 r, double* acc) {
        const T* row = x + r * c;
        for (i64 j = 0; j < c; ++j) acc[j] += static_cast<double>(row[j]);
    });
    std::vector<T> mean(c), k(c);
    for (i64 j = 0; j < c; ++j) mean[j] = T(sums[j] / static_cast<double>(m));
    const T* mu = mean.data();
    channel_chunk_sums(m, c, 1, sums, [&](i64 r, double* acc) {
        const T* row = x + r * c;
        for (i64 j = 0; j < c; ++j) {
            const double d = static_cast<double>(row[j] - mu[j]);
            acc[j] += d * d;
        }
    });
    for (i64 j = 0; j < c; ++j) {
        mean_out[j] = mean[j];
        var_out[j] = T(sums[j] / static_cast<double>(m));
        k[j] = scale[j] / std::sqrt(var_out[j] + T(eps));
    }
    const T* kk = k.data();
    const i64 threads = BN_THREADS;
    run_chunks(threads, std::min<i64>(m, threads * CHUNKS_PER_THREAD), m, [&](i64, i64 begin, i64 end) {
        for (i64 r = begin; r < end; ++r) {
            const T* row = x + r * c;
            T* out = y + r * c;
            for (i64 j = 0; j < c; ++j) out[j] = (row[j] - mu[j]) * kk[j] + offset[j];
        }
    });
}

template <typename T>
void batch_norm_grad(const T* __restrict__ dy, const T* __restrict__ x, i64 m, i64 c, const T* __restrict__ scale,
                     const T* __restrict__ mean, const T* __restrict__ var, double eps, int training,
                     T* __restrict__ dx, T* __restrict__ dscale, T* __restrict__ doffset) {
    std::vector<double> sums;
    channel_chunk_sums(m, c, 2, sums, [&](i64 r, double* acc) {
        const T* g = dy + r * c;
        const T* row = x + r * c;
        double* acc_dyc = acc + c;
        for (i64 j = 0; j < c; ++j) {
            acc[j] += static_cast<double>(g[j]);
            acc_dyc[j] += static_cast<double>(g[j]) * static_cast<double>(row[j] - mean[j]);
        }
    });
    const T n = T(static_cast<double>(m));
    std::vector<T> k1(c), k2(c), k3(c);
    for (i64 j = 0; j < c; ++j) {
        const T inv = T(1) / std::sqrt(var[j] + T(eps));
        doffset[j] = T(sums[j]);
        dscale[j] = T(sums[c + j]) * inv;
        k1[j] = scale[j] * inv;
        k2[j] = training ? -(k1[j] * inv * dscale[j]) / n : T(0);
        k3[j] = training ? -(k1[j] * doffset[j]) / n : T(0);
    }
    const T *a = k1.data(), *b = k2.data(), *d = k3.data();
    const i64 threads = BN_THREADS;
    run_chunks(threads, std::min<i64>(m, threads * CHUNKS_PER_THREAD), m, [&](i64, i64 begin, i64 end) {
        for (i64 r = begin; r < end; ++r) {
            const T* g = dy + r * c;
            const T* row = x + r * c;
            T* out = dx + r * c;
            for (i64 j = 0; j < c; ++j) out[j] = g[j] * a[j] + (row[j] - mean[j]) * b[j] + d[j];
        }
    });
}

}  // namespace

#define TFC_INSTANTIATE_BATCH_NORM(T, SUFFIX)                                                                 \
    TFC_EXPORT void tfc_batch_norm_train_##SUFFIX(const T* x, i64 m, i64 c, const T* scale, const T* offset,  \
                                                  double eps, T* y, T* mean, T* var) {                        \
        batch_norm_train<T>(x, m, c, scale, offset, eps, y, mean, var);                                       \
    }                                                                                                         \
    TFC_EXPORT void tfc_batch_norm_grad_##SUFFIX(const T* dy, const T* x, i64 m, i64 c, const T* scale,       \
                                                 const T* mean, const T* var, double eps, i64 training, T* dx, \
                                                 T* dscale, T* doffset) {                                     \
        batch_norm_grad<T>(dy, x, m, c, scale, mean, var, eps, static_cast<int>(training), dx, dscale, doffset); \
    }

TFC_INSTANTIATE_BATCH_NORM(float, f32)
TFC_INSTANTIATE_BATCH_NORM(double, f64)

// The ABI version Python checks after loading (bump when a signature above changes).
TFC_EXPORT int tfc_native_abi_version() { return 16; }

// The fewest output channels that take the wide (several vectors per pixel) direct kernels for values of
// `bytes` bytes, 0 where this build has none (no AVX-512): Python lifts the im2col cut-over for them.
TFC_EXPORT int tfc_wide_direct_channels(int bytes) {
#ifdef __AVX512F__
    return 2 * (64 / bytes);
#else
    (void)bytes;
    return 0;
#endif
}

// Threads of one op from now on (0: every hardware thread): tf.config.threading's intra-op count.
TFC_EXPORT void tfc_set_num_threads(int threads) { g_threads = threads < 0 ? 0 : threads; }

// How many threads the last direct convolution ran on (tests check that the split happens).
TFC_EXPORT int tfc_last_parts() { return g_last_parts.load(std::memory_order_relaxed); }

// The worker threads of this process's kernel pool (0 before the first split op, and in a forked child
// until its first split op; tests check that the pool follows the thread count and is rebuilt after fork).
TFC_EXPORT int tfc_pool_workers() {
    ThreadPool* pool = g_pool.load(std::memory_order_acquire);
    return pool ? pool->workers() : 0;
}

#endif  // TFC_PART_IS(0)
