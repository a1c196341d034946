"""Kernel benchmarks: ``tfcore bench [matmul|conv|pool|reduce|softmax|all]`` and bench/bench_kernels.py.

On a real GPU each family times our CUDA kernels through the public ops on ``/GPU:0`` against
the vendor routine on the same data (cuBLAS via ``cupy.matmul``; cuDNN via PyTorch with TF32 off
when installed, else CuPy im2col + cuBLAS; ``cupy.sum``/``max``/``argmax``; softmax and
cross-entropy from CuPy ops) and reports TFLOP/s or GB/s, the ratio ours / vendor and, for
memory-bound rows, the fraction of the card's DRAM bandwidth. Without a GPU the same cases run
on the CPU backend at smaller sizes against NumPy (nothing fails).

The cases are the issue's targets: f32 matmul at 4096^3 (vs cuBLAS without tensor cores), f16
tensor-core matmul, ResNet-50 3x3 convolutions, reductions and softmax on 64M elements. One
registry (:data:`BENCHES`, filled by :func:`register`) holds them; a benchmark is
``fn(ctx) -> list[Row]`` where ``ctx`` is a :class:`BenchContext`.
"""

import contextlib
import time
from dataclasses import dataclass

import numpy as np

from .cli import command

FAMILIES = ("matmul", "conv", "pool", "reduce", "softmax")
BENCHES = {}




def register(family):
    """Decorator: ``fn(ctx) -> list[Row]`` benchmarks ``family`` (replaces the built-in one)."""

    def deco(fn):
        BENCHES[family] = fn
        return fn

    return deco


@dataclass
class Row:
    family: str
    case: str
    unit: str          # "TFLOP/s" or "GB/s"
    ours_ms: float
    vendor_ms: float
    work: float        # flops or bytes per call
    vendor: str

    @property
    def ours_rate(self):
        return self.work / (self.ours_ms * 1e-3) / 1e12 if self.unit == "TFLOP/s" else \
            self.work / (self.ours_ms * 1e-3) / 1e9

    @property
    def vendor_rate(self):
        return self.work / (self.vendor_ms * 1e-3) / 1e12 if self.unit == "TFLOP/s" else \
            self.work / (self.vendor_ms * 1e-3) / 1e9


class BenchContext:
    """Where benchmarks run: ``gpu`` (bool), ``device`` name, ``xp``, ``sync()`` and ``time(fn)``."""

    def __init__(self, repeat=10):
        import tfcore as tf

        self.tf = tf
        gpus = [d for d in tf.config.list_logical_devices("GPU")]
        backend = None
        if gpus:
            from .framework.context import context

            dev = context.find("GPU", 0)
            backend = dev.backend
        self.gpu = backend is not None and backend.device_collectives  # a real card (CuPy), not the emulator
        self.device = "/GPU:0" if self.gpu else "/CPU:0"
        self.backend = backend
        self.repeat = repeat
        if self.gpu:
            self.xp = backend.xp  # CuPy: vendor routines run on the same device and stream
            self.device_label = f"GPU:0 {backend.device_name}"
        else:
            self.xp = np
            self.device_label = "CPU (NumPy backend; no CUDA GPU found)"

    def sync(self):
        if self.gpu:
            self.backend.synchronize()
            self.xp.cuda.Device().synchronize()

    def time(self, fn, repeat=None):
        """Median milliseconds of ``fn()`` after one warm-up call."""
        fn()
        self.sync()
        times = []
        for _ in range(repeat or self.repeat):
            t0 = time.perf_counter()
            fn()
            self.sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return float(np.median(times))

    def tensor(self, array):
        with self.tf.device(self.device):
            return self.tf.constant(array)

    def vendor_array(self, array):
        return self.xp.asarray(array)


def _rand(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _torch_cuda():
    try:
        import torch

        if torch.cuda.is_available():
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False
            return torch
    except Exception:  # noqa: BLE001 - optional comparison
        pass
    return None


def _im2col_conv(xp, x, w):
    """SAME 3x3 stride-1 conv by im2col + GEMM (the vendor fallback without cuDNN)."""
    n, h, wd, c = x.shape
    kh, kw, _, co = w.shape
    xp_ = xp.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    cols = xp.stack([xp_[:, i:i + h, j:j + wd, :] for i in range(kh) for j in range(kw)], axis=3)
    return cols.reshape(n * h * wd, kh * kw * c) @ w.reshape(kh * kw * c, co)




@dataclass
class KernelRow(Row):
    peak_gbs: float = 0.0  # theoretical DRAM bandwidth of the card (0: unknown / CPU)

    @property
    def peak_frac(self):
        return self.ours_rate / self.peak_gbs if self.unit == "GB/s" and self.peak_gbs else None


def peak_bandwidth_gbs(ctx):
    """2 * memory clock * bus width of GPU:0 in GB/s, or 0.0 when unknown (CPU, missing attributes)."""
    if not ctx.gpu:
        return 0.0
    try:
        rt = ctx.xp.cuda.runtime
        dev = ctx.xp.cuda.Device().id
        clock_khz = rt.deviceGetAttribute(rt.cudaDevAttrMemoryClockRate, dev)
        bus_bits = rt.deviceGetAttribute(rt.cudaDevAttrGlobalMemoryBusWidth, dev)
        return 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9
    except Exception:  # noqa: BLE001 - attribute missing on this CUDA version
        return 0.0


@contextlib.contextmanager
def _tf32_mode(tf, torch, enabled):
    """TF32 on or off for both sides of a float32 matmul row: ours through
    tf.config.experimental.enable_tensor_float_32_execution, PyTorch's cuBLAS through
    torch.backends.cuda.matmul.allow_tf32. Restores both afterwards."""
    ours = tf.config.experimental.tensor_float_32_execution_enabled()
    theirs = torch.backends.cuda.matmul.allow_tf32 if torch is not None else None
    tf.config.experimental.enable_tensor_float_32_execution(enabled)
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = enabled
    try:
        yield
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(ours)
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32 = theirs


@register("matmul")
def bench_matmul(ctx):
    """float32 twice, in the same math mode on both sides: TF32 (ours: matmul_f32_tf32 on sm_80+; vendor:
    cuBLAS through PyTorch with allow_tf32) and strict FP32 (ours: matmul_f32; vendor: cuBLAS with TF32
    off, PyTorch or else cupy.matmul); float16 on tensor cores against cupy.matmul. On the CPU TF32 is
    ignored (NumPy float32 both times), as in TF."""
    tf = ctx.tf
    if ctx.gpu:
        cases = [((4096, 4096, 4096), np.float32, False, 1), ((4096, 4096, 4096), np.float16, False, 1),
                 ((2048, 2048, 2048), np.float32, True, 1), ((512, 512, 512), np.float32, False, 16)]
    else:
        cases = [((384, 384, 384), np.float32, False, 1), ((128, 128, 128), np.float32, True, 4)]
    torch = _torch_cuda() if ctx.gpu else None
    rows = []
    for (m, n, k), dt, trans_b, batch in cases:
        bshape = (batch,) if batch > 1 else ()
        a = _rand(bshape + (m, k), dt, 1)
        b = _rand(bshape + ((n, k) if trans_b else (k, n)), dt, 2)
        ta, tb = ctx.tensor(a), ctx.tensor(b)
        va, vb = ctx.vendor_array(a), ctx.vendor_array(b)
        vbt = ctx.xp.swapaxes(vb, -1, -2) if trans_b else vb
        shape = f"{f'{batch}x' if batch > 1 else ''}{m}x{k}@{k}x{n}{'^T' if trans_b else ''}"
        flops = 2.0 * batch * m * n * k
        ours_fn = (lambda ta=ta, tb=tb, t=trans_b: tf.matmul(ta, tb, transpose_b=t))
        cupy_fn = (lambda va=va, vbt=vbt: ctx.xp.matmul(va, vbt))
        if dt == np.float16:
            label = "cuBLAS (cupy.matmul, tensor cores)" if ctx.gpu else "NumPy BLAS"
            rows.append(KernelRow("matmul", f"{shape} float16", "TFLOP/s", ctx.time(ours_fn), ctx.time(cupy_fn),
                                  flops, label))
            continue
        if torch is not None:
            xa, xb = torch.from_dlpack(va), torch.from_dlpack(vbt)
            vendor_fn = (lambda xa=xa, xb=xb: torch.matmul(xa, xb))
        else:
            vendor_fn = cupy_fn
        for mode in ("TF32", "FP32"):
            with _tf32_mode(tf, torch, mode == "TF32"):
                ours = ctx.time(ours_fn)
                if not ctx.gpu:
                    vendor, label = ctx.time(cupy_fn), "NumPy BLAS (TF32 ignored on CPU)"
                elif torch is not None:
                    vendor = ctx.time(vendor_fn)
                    label = f"cuBLAS (PyTorch, allow_tf32={mode == 'TF32'})"
                elif mode == "FP32":
                    vendor, label = ctx.time(cupy_fn), "cuBLAS (cupy.matmul, no TF32)"
                else:
                    vendor, label = float("nan"), "no TF32 vendor run (PyTorch missing)"
            rows.append(KernelRow("matmul", f"{shape} float32 {mode}", "TFLOP/s", ours, vendor, flops, label))
    return rows


@register("conv")
def bench_conv(ctx):
    """ResNet-50's 3x3 stride-1 layers (batch 32 on a GPU), forward; plus both gradients of one layer."""
    tf = ctx.tf
    layers = [(32, 56, 64), (32, 28, 128), (32, 14, 256), (32, 7, 512)] if ctx.gpu else [(2, 14, 32)]
    torch = _torch_cuda() if ctx.gpu else None
    rows = []
    for n, hw, c in layers:
        x, w = _rand((n, hw, hw, c), np.float32, 3), _rand((3, 3, c, c), np.float32, 4) * 0.05
        tx, tw = ctx.tensor(x), ctx.tensor(w)
        ours = ctx.time(lambda tx=tx, tw=tw: tf.nn.conv2d(tx, tw, strides=1, padding="SAME"))
        if torch is not None:
            xt = torch.from_numpy(x).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            wt = torch.from_numpy(w).cuda().permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)

            def run_vendor(xt=xt, wt=wt):
                torch.nn.functional.conv2d(xt, wt, padding=1)
                torch.cuda.synchronize()

            vendor, label = ctx.time(run_vendor), "cuDNN (PyTorch, TF32 off)"
        else:
            vx, vw = ctx.vendor_array(x), ctx.vendor_array(w)
            vendor = ctx.time(lambda vx=vx, vw=vw: _im2col_conv(ctx.xp, vx, vw))
            label = "CuPy im2col + cuBLAS" if ctx.gpu else "NumPy im2col + BLAS"
        flops = 2.0 * n * hw * hw * c * c * 9
        rows.append(KernelRow("conv", f"fwd 3x3 N={n} {hw}x{hw}x{c}->{c} f32", "TFLOP/s", ours, vendor, flops, label))
    if torch is not None:  # forward + both gradients of the first layer, against cuDNN's backward
        n, hw, c = layers[0]
        x, w = _rand((n, hw, hw, c), np.float32, 3), _rand((3, 3, c, c), np.float32, 4) * 0.05
        tx, tw = ctx.tensor(x), ctx.tensor(w)

        def grads():
            with tf.GradientTape() as tape:
                tape.watch([tx, tw])
                y = tf.nn.conv2d(tx, tw, strides=1, padding="SAME")
            return tape.gradient(y, [tx, tw])

        xt = torch.from_numpy(x).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
        wt = torch.from_numpy(w).cuda().permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
        xt.requires_grad_(True)
        wt.requires_grad_(True)

        def run_vendor():
            y = torch.nn.functional.conv2d(xt, wt, padding=1)
            torch.autograd.grad(y, [xt, wt], torch.ones_like(y))
            torch.cuda.synchronize()

        rows.append(KernelRow("conv", f"fwd+dx+dw 3x3 N={n} {hw}x{hw}x{c} f32", "TFLOP/s", ctx.time(grads),
                              ctx.time(run_vendor), 3.0 * 2.0 * n * hw * hw * c * c * 9, "cuDNN fwd+bwd (PyTorch)"))
    return rows


@register("pool")
def bench_pool(ctx):
    tf = ctx.tf
    n, hw, c = (64, 112, 64) if ctx.gpu else (4, 56, 32)
    x = _rand((n, hw, hw, c), np.float32, 5)
    tx, vx = ctx.tensor(x), ctx.vendor_array(x)
    peak = peak_bandwidth_gbs(ctx)
    torch = _torch_cuda() if ctx.gpu else None
    xt = torch.from_numpy(x).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last) \
        if torch is not None else None
    rows = []
    for kind, k, s, pad in (("max", 3, 2, "SAME"), ("avg", 2, 2, "VALID")):
        fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        ours = ctx.time(lambda fn=fn, k=k, s=s, pad=pad: fn(tx, k, s, pad))
        oh = -(-hw // s) if pad == "SAME" else (hw - k) // s + 1
        nbytes = x.nbytes + n * oh * oh * c * 4
        if xt is not None:
            tfn = torch.nn.functional.max_pool2d if kind == "max" else torch.nn.functional.avg_pool2d

            def run_vendor(tfn=tfn, k=k, s=s, p=(1 if pad == "SAME" else 0)):
                tfn(xt, k, s, p)
                torch.cuda.synchronize()

            vendor, label = ctx.time(run_vendor), "cuDNN (PyTorch)"
        else:
            q = hw // 2 * 2
            red = vx[:, :q, :q].reshape(n, q // 2, 2, q // 2, 2, c)
            vendor = ctx.time(lambda red=red, kind=kind: red.max(axis=(2, 4)) if kind == "max" else
                              red.mean(axis=(2, 4)))
            label = ("CuPy" if ctx.gpu else "NumPy") + " reshape+reduce (2x2 windows)"
        rows.append(KernelRow("pool", f"{kind} {k}x{k}/{s} {pad} {n}x{hw}x{hw}x{c} f32", "GB/s", ours, vendor,
                              float(nbytes), label, peak))
    return rows


@register("reduce")
def bench_reduce(ctx):
    tf = ctx.tf
    total = (64 << 20) if ctx.gpu else (4 << 20)
    peak = peak_bandwidth_gbs(ctx)
    xp = ctx.xp
    rows = []
    for shape, axis in (((total,), None), ((total // 1024, 1024), 1), ((1024, total // 1024), 0)):
        x = _rand(shape, np.float32, 6)
        tx, vx = ctx.tensor(x), ctx.vendor_array(x)
        ops = [("sum", tf.reduce_sum, xp.sum), ("max", tf.reduce_max, xp.max)]
        if axis == 1:
            ops += [("mean", tf.reduce_mean, xp.mean), ("argmax", tf.math.argmax, xp.argmax)]
        for op, ours_fn, vendor_fn in ops:
            ours = ctx.time(lambda f=ours_fn, a=axis, tx=tx: f(tx, axis=a) if a is not None else f(tx))
            vendor = ctx.time(lambda f=vendor_fn, a=axis, vx=vx: f(vx, axis=a))
            rows.append(KernelRow("reduce", f"{op} {list(shape)} axis={axis} f32", "GB/s", ours, vendor,
                                  float(x.nbytes), ("cupy." if ctx.gpu else "numpy.") + op, peak))
    return rows


@register("softmax")
def bench_softmax(ctx):
    tf = ctx.tf
    xp = ctx.xp
    peak = peak_bandwidth_gbs(ctx)
    shapes = [(65536, 1024), (8192, 8192)] if ctx.gpu else [(4096, 256)]
    rows = []
    for r, c in shapes:
        x = _rand((r, c), np.float32, 7)
        tx, vx = ctx.tensor(x), ctx.vendor_array(x)

        def vendor_softmax(vx=vx):
            e = xp.exp(vx - vx.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        def vendor_log_softmax(vx=vx):
            s = vx - vx.max(axis=-1, keepdims=True)
            return s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))

        for name, ours_fn, vendor_fn in (("softmax", tf.nn.softmax, vendor_softmax),
                                         ("log_softmax", tf.nn.log_softmax, vendor_log_softmax)):
            ours = ctx.time(lambda f=ours_fn, tx=tx: f(tx))
            vendor = ctx.time(vendor_fn)
            rows.append(KernelRow("softmax", f"{name} [{r}, {c}] f32", "GB/s", ours, vendor, 2.0 * x.nbytes,
                                  "CuPy ops" if ctx.gpu else "NumPy ops", peak))
    # Fused sparse softmax cross-entropy (loss + dlogits) against the unfused CuPy formula.
    r, c = (65536, 1000) if ctx.gpu else (4096, 100)
    x = _rand((r, c), np.float32, 8)
    labels = np.random.default_rng(9).integers(0, c, size=r).astype(np.int32)
    tx, tl = ctx.tensor(x), ctx.tensor(labels)
    vx, vl = ctx.vendor_array(x), ctx.vendor_array(labels)

    def vendor_xent():
        s = vx - vx.max(axis=-1, keepdims=True)
        logp = s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))
        rows_ = xp.arange(r)
        loss = -logp[rows_, vl]
        grad = xp.exp(logp)
        grad[rows_, vl] -= 1
        return loss, grad

    ours = ctx.time(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tl, logits=tx))
    vendor = ctx.time(vendor_xent)
    rows.append(KernelRow("softmax", f"sparse xent fwd+grad [{r}, {c}] f32", "GB/s", ours, vendor, 2.0 * x.nbytes,
                          "CuPy ops" if ctx.gpu else "NumPy ops", peak))
    return rows


def run(family, repeat=10, ctx=None):
    """Rows for one family (``'matmul'``, ``'conv'``, ``'pool'``, ``'reduce'``, ``'softmax'``)."""
    if family not in BENCHES:
        raise ValueError(f"unknown kernel family {family!r}; choose from {FAMILIES}")
    return BENCHES[family](ctx or BenchContext(repeat=repeat))


def format_rows(rows, device_label):
    """A table like the command's, plus the fraction of the card's DRAM bandwidth for memory-bound rows."""
    head = (f"{'family':<8} {'case':<40} {'ours ms':>9} {'ours':>15} {'vendor ms':>10} {'vendor':>15} "
            f"{'ours/vendor':>11} {'of peak':>8}  vendor routine")
    lines = [f"tfcore kernel benchmarks on {device_label}", head, "-" * len(head)]
    for r in rows:
        frac = getattr(r, "peak_frac", None)
        lines.append(f"{r.family:<8} {r.case:<40} {r.ours_ms:>9.3f} {r.ours_rate:>8.2f} {r.unit:<6} "
                     f"{r.vendor_ms:>10.3f} {r.vendor_rate:>8.2f} {r.unit:<6} {r.vendor_ms / r.ours_ms:>11.2f} "
                     f"{(f'{frac:.0%}' if frac else '-'):>8}  {r.vendor}")
    return "\n".join(lines)


def run_all(families=FAMILIES, repeat=10, out=print):
    """Run the benchmarks of ``families``; returns the rows (also printed as a table)."""
    ctx = BenchContext(repeat=repeat)
    rows, errors = [], []
    for fam in families:
        try:
            rows.extend(BENCHES[fam](ctx))
        except Exception as e:  # noqa: BLE001 - one broken family must not hide the others
            errors.append(f"{fam}: {type(e).__name__}: {e}")
    out(format_rows(rows, ctx.device_label))
    for e in errors:
        out(f"FAILED {e}")
    return rows


def _add_arguments(p):
    from . import training_bench

    p.add_argument("family", nargs="?", default="all", choices=(*FAMILIES, "all", "train"),
                   help="kernel family to benchmark (default: all); 'train': training steps of an MLP, a CNN "
                        "and ResNet50 next to PyTorch (tfcore/training_bench.py)")
    p.add_argument("--repeat", type=int, default=10, help="timed repetitions per case (median reported)")
    training_bench.add_arguments(p)


@command("bench", "benchmark our CUDA kernels against vendor routines (CPU backend without a GPU)", _add_arguments)
def _bench(args):
    if args.family == "train":
        from . import training_bench

        return 0 if training_bench.run(training_bench.config(args)) else 1
    families = FAMILIES if args.family == "all" else (args.family,)
    rows = run_all(families, repeat=args.repeat)
    return 0 if rows else 1
