"""Kernel micro-benchmarks: ``tfcore bench [matmul|conv|pool|batch_norm|reduce|softmax|eager|all]``
and bench/bench_kernels.py.

Per case (one row): the shape and dtype, our time (median of ``--repeat`` timed calls after a warm-up,
with the spread of those repeats: min, max and interquartile range), the achieved TFLOP/s or GB/s, the
fraction of the device's peak (tensor-core/FP32 FLOP/s or DRAM bandwidth, from the card's SM count,
clocks and compute capability), and the vendor library's time on the same data in the same run.

On a real GPU each family times our CUDA kernels through the public ops on ``/GPU:0`` against the
vendor routine (cuBLAS via ``cupy.matmul``; cuDNN via PyTorch with TF32 off when installed, else CuPy
im2col + cuBLAS; ``cupy.sum``/``max``/``argmax``; softmax and cross-entropy from CuPy ops). With an
emulated GPU (``TFCORE_EMULATED_GPUS``) the same CUDA kernels run on the CPU emulator at small sizes
(correct code paths, not GPU times). Without either, the CPU backend (NumPy and the native C++ kernels)
runs against NumPy's BLAS and, when importable, PyTorch on the CPU. ``--shapes`` and ``--dtype``
replace a family's cases; ``--json`` writes every number (and each repeat's time) for tooling.

One registry (:data:`BENCHES`, filled by :func:`register`) holds the families; a benchmark is
``fn(ctx) -> list[Row]`` where ``ctx`` is a :class:`BenchContext`.
"""

import argparse
import contextlib
import json
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..framework.commands import command

FAMILIES = ("matmul", "conv", "pool", "batch_norm", "reduce", "softmax", "eager")
BENCHES = {}
DTYPES = ("float16", "float32", "float64")
# What one --shapes entry means per family (also shown by `tfcore bench --help`).
SHAPE_MEANING = {
    "matmul": "MxNxK or BxMxNxK (batched)",
    "conv": "NxHxC: 3x3 SAME stride-1, H=W, C->C channels",
    "pool": "NxHxC: H=W",
    "batch_norm": "NxHxC: H=W, NHWC, training statistics",
    "reduce": "N (1-D) or RxC (reduced over each axis)",
    "softmax": "RxC (softmax over C)",
    "eager": "N: elements of each operand (one eager op's latency)",
}


def register(family):
    """Decorator: ``fn(ctx) -> list[Row]`` benchmarks ``family`` (replaces the built-in one)."""

    def deco(fn):
        BENCHES[family] = fn
        return fn

    return deco


class Timing(float):
    """Milliseconds of one benchmarked call: the median of the timed repeats (the float value), with
    every repeat in ``samples_ms`` for the spread."""

    def __new__(cls, samples_ms):
        samples = [float(t) for t in samples_ms]
        self = super().__new__(cls, float(np.median(samples)) if samples else float("nan"))
        self.samples_ms = samples
        return self

    @property
    def min_ms(self):
        return min(self.samples_ms) if self.samples_ms else float("nan")

    @property
    def max_ms(self):
        return max(self.samples_ms) if self.samples_ms else float("nan")

    @property
    def iqr_ms(self):
        """Interquartile range of the repeats (the spread the table shows, relative to the median)."""
        if not self.samples_ms:
            return float("nan")
        q1, q3 = np.percentile(self.samples_ms, [25, 75])
        return float(q3 - q1)

    def to_json(self):
        """The statistics as JSON values (None, not NaN, for a run that did not happen: valid JSON)."""
        if not self.samples_ms:
            return {"median_ms": None, "min_ms": None, "max_ms": None, "iqr_ms": None, "repeats": 0, "samples_ms": []}
        return {"median_ms": float(self), "min_ms": self.min_ms, "max_ms": self.max_ms, "iqr_ms": self.iqr_ms,
                "repeats": len(self.samples_ms), "samples_ms": self.samples_ms}


NO_TIMING = Timing([])  # a vendor run that did not happen (NaN)


@dataclass
class Row:
    family: str
    case: str
    unit: str          # "TFLOP/s", "GFLOP/s" or "GB/s"
    ours_ms: float
    vendor_ms: float
    work: float        # flops or bytes per call
    vendor: str

    def rate(self, ms):
        """``work`` per call at ``ms`` milliseconds, in ``unit``."""
        return self.work / (ms * 1e-3) / (1e12 if self.unit == "TFLOP/s" else 1e9)

    @property
    def ours_rate(self):
        return self.rate(self.ours_ms)

    @property
    def vendor_rate(self):
        return self.rate(self.vendor_ms)


class BenchContext:
    """Where benchmarks run: ``kind`` (``"gpu"``: a real card through CuPy; ``"emulated"``: our CUDA kernels
    on the CPU emulator; ``"cpu"``), ``device`` name, ``xp`` of the vendor side, ``sync()``, ``time(fn)``,
    and the user's overrides ``shapes`` (list of int tuples or None) and ``dtype`` (a NumPy dtype name or
    None)."""

    def __init__(self, repeat=10, shapes=None, dtype=None):
        import tfcore as tf

        if repeat < 1:
            raise ValueError(f"repeat must be >= 1, got {repeat}")
        if dtype is not None and dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
        self.tf = tf
        self.shapes = shapes
        self.dtype = dtype
        gpus = [d for d in tf.config.list_logical_devices("GPU")]
        backend = None
        if gpus:
            from ..framework.context import context

            dev = context.find("GPU", 0)
            backend = dev.backend
        self.gpu = backend is not None and backend.device_collectives  # a real card (CuPy), not the emulator
        self.emulated = backend is not None and not self.gpu
        self.kind = "gpu" if self.gpu else "emulated" if self.emulated else "cpu"
        self.device = "/CPU:0" if self.kind == "cpu" else "/GPU:0"
        self.flop_unit = "TFLOP/s" if self.gpu else "GFLOP/s"
        self.backend = backend
        self.repeat = repeat
        if self.gpu:
            self.xp = backend.xp  # CuPy: vendor routines run on the same device and stream
            self.device_label = f"GPU:0 {backend.device_name}"
        else:
            self.xp = np
            if self.emulated:
                self.device_label = (f"GPU:0 emulated ({backend.device_name}: our CUDA kernels on the CPU emulator; "
                                     "not GPU times) vs NumPy")
            else:
                self.device_label = "CPU (NumPy backend and native CPU kernels; no CUDA GPU found)"

    def sync(self):
        if self.gpu:
            self.backend.synchronize()
            self.xp.cuda.Device().synchronize()

    def time(self, fn, repeat=None):
        """:class:`Timing` of ``fn()`` (milliseconds; median of the repeats) after one warm-up call."""
        fn()
        self.sync()
        times = []
        for _ in range(repeat or self.repeat):
            t0 = time.perf_counter()
            fn()
            self.sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return Timing(times)

    def cases(self, gpu, cpu, emulated=None):
        """The shapes a family runs: the user's ``--shapes``, else its defaults for this kind of device."""
        if self.shapes:
            return list(self.shapes)
        if self.gpu:
            return gpu
        return emulated if self.emulated and emulated is not None else cpu

    def dtypes(self, default):
        """The dtypes a family runs: the user's ``--dtype``, else ``default`` (a tuple of NumPy dtypes)."""
        return (np.dtype(self.dtype).type,) if self.dtype else default

    def tensor(self, array):
        with self.tf.device(self.device):
            return self.tf.constant(array)

    def vendor_array(self, array):
        return self.xp.asarray(array)


def parse_shapes(text):
    """``"512x512x512,64x64x64"`` -> ``[(512, 512, 512), (64, 64, 64)]``; ValueError naming ``--shapes``."""
    shapes = []
    for part in (p.strip() for p in text.split(",")):
        try:
            dims = tuple(int(d) for d in part.lower().split("x"))
        except ValueError:
            dims = ()
        if not dims or any(d < 1 for d in dims):
            raise ValueError(f"--shapes: {part!r} is not a shape like 256x256x256 (positive integers joined by 'x')")
        shapes.append(dims)
    return shapes


def _shapes_argument(text):
    """``--shapes`` for argparse: its message (not argparse's generic one) when the text is not shapes."""
    try:
        return parse_shapes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _need_dims(family, shape, counts):
    if len(shape) not in counts:
        raise ValueError(f"--shapes for {family}: {'x'.join(map(str, shape))} has {len(shape)} dimensions; "
                         f"expected {SHAPE_MEANING[family]}")


def _dtype_name(dt):
    return np.dtype(dt).name


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


def _torch_cpu():
    """PyTorch for a CPU comparison column, or None when it is not importable."""
    try:
        import torch

        return torch
    except Exception:  # noqa: BLE001 - optional comparison
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
    peak_gbs: float = 0.0  # the unit's peak of the device (GB/s or TFLOP/s); 0: unknown (CPU, emulator)
    shape: str = ""
    dtype: str = ""
    others: dict = field(default_factory=dict)  # further vendor libraries timed on the same data: label -> Timing

    @property
    def peak(self):
        return self.peak_gbs

    @property
    def peak_frac(self):
        return self.ours_rate / self.peak_gbs if self.peak_gbs else None

    def to_json(self):
        def timing(t):
            return t.to_json() if isinstance(t, Timing) else {"median_ms": float(t)}

        def finite(x):
            return x if x == x and x not in (float("inf"), float("-inf")) else None

        return {
            "family": self.family, "case": self.case, "shape": self.shape, "dtype": self.dtype, "unit": self.unit,
            "work": self.work, "ours": {**timing(self.ours_ms), "rate": finite(self.ours_rate)},
            "vendor": {"name": self.vendor, **timing(self.vendor_ms), "rate": finite(self.vendor_rate)},
            "ours_over_vendor": finite(self.vendor_ms / self.ours_ms),
            "peak": self.peak_gbs or None, "peak_fraction": self.peak_frac,
            "others": {name: {**timing(t), "rate": finite(self.rate(t))} for name, t in self.others.items()},
        }


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


# Dense FLOP per SM per clock by compute capability (NVIDIA's architecture whitepapers): FP32 on CUDA
# cores (2 per FMA), FP16 and TF32 on tensor cores (dense, FP32 accumulation), FP64 on CUDA cores.
SM_FLOPS_PER_CLOCK = {
    (7, 0): {"float32": 128, "float16": 1024, "float64": 64},
    (7, 5): {"float32": 128, "float16": 1024, "float64": 4},
    (8, 0): {"float32": 128, "float16": 2048, "tf32": 1024, "float64": 64},
    (8, 6): {"float32": 256, "float64": 4},  # tensor-core rates differ between GeForce and workstation cards
    (8, 9): {"float32": 256, "float64": 4},
    (9, 0): {"float32": 256, "float16": 4096, "tf32": 2048, "float64": 128},
}


def peak_tflops(ctx, math):
    """Peak dense TFLOP/s of GPU:0 for ``math`` (``"float32"``, ``"tf32"``, ``"float16"``, ``"float64"``) from
    its SM count, boost clock and compute capability; 0.0 when unknown (CPU, emulator, unlisted card)."""
    if not ctx.gpu:
        return 0.0
    try:
        rt = ctx.xp.cuda.runtime
        dev = ctx.xp.cuda.Device().id
        cc = (rt.deviceGetAttribute(rt.cudaDevAttrComputeCapabilityMajor, dev),
              rt.deviceGetAttribute(rt.cudaDevAttrComputeCapabilityMinor, dev))
        sms = rt.deviceGetAttribute(rt.cudaDevAttrMultiProcessorCount, dev)
        clock_khz = rt.deviceGetAttribute(rt.cudaDevAttrClockRate, dev)
    except Exception:  # noqa: BLE001 - attribute missing on this CUDA version
        return 0.0
    per_clock = SM_FLOPS_PER_CLOCK.get(cc, {}).get(math)
    return sms * clock_khz * 1e3 * per_clock / 1e12 if per_clock else 0.0


@contextlib.contextmanager
def _tf32_mode(tf, torch, enabled):
    """TF32 on or off for both sides of a float32 matmul or convolution row: ours through
    tf.config.experimental.enable_tensor_float_32_execution (TF's default is on), PyTorch's cuBLAS and
    cuDNN through ``allow_tf32``. Restores both afterwards."""
    ours = tf.config.experimental.tensor_float_32_execution_enabled()
    theirs = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) if torch is not None else None
    tf.config.experimental.enable_tensor_float_32_execution(enabled)
    if torch is not None:
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = enabled
    try:
        yield
    finally:
        tf.config.experimental.enable_tensor_float_32_execution(ours)
        if torch is not None:
            torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = theirs


def _matmul_cases(ctx):
    """(shape (B, M, N, K), dtype, transpose_b) per case: the user's shapes x dtype, else the defaults."""
    f32, f16 = np.float32, np.float16
    if ctx.shapes:
        for s in ctx.shapes:
            _need_dims("matmul", s, (3, 4))
        shapes = [s if len(s) == 4 else (1, *s) for s in ctx.shapes]
        return [(s, dt, False) for s in shapes for dt in ctx.dtypes((f32,))]
    cases = ctx.cases(gpu=[((1, 4096, 4096, 4096), f32, False), ((1, 4096, 4096, 4096), f16, False),
                           ((1, 2048, 2048, 2048), f32, True), ((16, 512, 512, 512), f32, False)],
                      cpu=[((1, 384, 384, 384), f32, False), ((4, 128, 128, 128), f32, True)],
                      emulated=[((1, 64, 64, 64), f32, False), ((2, 32, 32, 32), f32, True)])
    if ctx.dtype:
        cases = list(dict.fromkeys((s, ctx.dtypes(None)[0], t) for s, _, t in cases))
    return cases


@register("matmul")
def bench_matmul(ctx):
    """float32 twice, in the same math mode on both sides: TF32 (ours: matmul_f32_tf32 on sm_80+; vendor:
    cuBLAS through PyTorch with allow_tf32) and strict FP32 (ours: matmul_f32; vendor: cuBLAS with TF32
    off, PyTorch or else cupy.matmul); float16 on tensor cores against cupy.matmul. On the CPU TF32 is
    ignored (NumPy float32 both times), as in TF; PyTorch's CPU matmul is timed too when importable."""
    tf = ctx.tf
    torch = _torch_cuda() if ctx.gpu else None
    torch_cpu = _torch_cpu() if not ctx.gpu else None
    rows = []
    for (batch, m, n, k), dt, trans_b in _matmul_cases(ctx):
        bshape = (batch,) if batch > 1 else ()
        a = _rand(bshape + (m, k), dt, 1)
        b = _rand(bshape + ((n, k) if trans_b else (k, n)), dt, 2)
        ta, tb = ctx.tensor(a), ctx.tensor(b)
        va, vb = ctx.vendor_array(a), ctx.vendor_array(b)
        vbt = ctx.xp.swapaxes(vb, -1, -2) if trans_b else vb
        shape = f"{f'{batch}x' if batch > 1 else ''}{m}x{k}@{k}x{n}{'^T' if trans_b else ''}"
        dname = _dtype_name(dt)
        flops = 2.0 * batch * m * n * k
        ours_fn = (lambda ta=ta, tb=tb, t=trans_b: tf.matmul(ta, tb, transpose_b=t))
        cupy_fn = (lambda va=va, vbt=vbt: ctx.xp.matmul(va, vbt))
        others = {}
        if torch_cpu is not None:
            xa, xb = torch_cpu.from_numpy(a), torch_cpu.from_numpy(np.ascontiguousarray(np.swapaxes(b, -1, -2))
                                                                    if trans_b else b)
            others["PyTorch (CPU)"] = ctx.time(lambda xa=xa, xb=xb: torch_cpu.matmul(xa, xb))
        if dt != np.float32:
            label = ("cuBLAS (cupy.matmul" + (", tensor cores)" if dt == np.float16 else ")")) if ctx.gpu \
                else "NumPy matmul"
            rows.append(KernelRow("matmul", f"{shape} {dname}", ctx.flop_unit, ctx.time(ours_fn), ctx.time(cupy_fn),
                                  flops, label, peak_tflops(ctx, dname), shape, dname, others))
            continue
        if torch is not None:
            xa, xb = torch.from_dlpack(va), torch.from_dlpack(vbt)
            vendor_fn = (lambda xa=xa, xb=xb: torch.matmul(xa, xb))
        else:
            vendor_fn = cupy_fn
        for mode in ("TF32", "FP32") if ctx.gpu else ("FP32",):
            with _tf32_mode(tf, torch, mode == "TF32"):
                ours = ctx.time(ours_fn)
                if not ctx.gpu:
                    vendor, label = ctx.time(cupy_fn), "NumPy BLAS"
                elif torch is not None:
                    vendor = ctx.time(vendor_fn)
                    label = f"cuBLAS (PyTorch, allow_tf32={mode == 'TF32'})"
                elif mode == "FP32":
                    vendor, label = ctx.time(cupy_fn), "cuBLAS (cupy.matmul, no TF32)"
                else:
                    vendor, label = NO_TIMING, "no TF32 vendor run (PyTorch missing)"
            peak = peak_tflops(ctx, "tf32" if mode == "TF32" else "float32")
            case = f"{shape} float32" + (f" {mode}" if ctx.gpu else "")
            rows.append(KernelRow("matmul", case, ctx.flop_unit, ours, vendor, flops, label, peak, shape, "float32",
                                  others))
    return rows


@register("conv")
def bench_conv(ctx):
    """ResNet-50's 3x3 stride-1 layers (batch 32 on a GPU), forward; plus both gradients of one layer. On a GPU
    float32 runs twice, in the same math mode on both sides (TF32, then strict FP32), as matmul does."""
    tf = ctx.tf
    layers = ctx.cases(gpu=[(32, 56, 64), (32, 28, 128), (32, 14, 256), (32, 7, 512)], cpu=[(2, 14, 32)],
                       emulated=[(1, 8, 16)])
    for s in layers:
        _need_dims("conv", s, (3,))
    torch = _torch_cuda() if ctx.gpu else None
    torch_cpu = _torch_cpu() if not ctx.gpu else None
    rows = []
    for (n, hw, c), dt in ((s, dt) for s in layers for dt in ctx.dtypes((np.float32,))):
        x, w = _rand((n, hw, hw, c), dt, 3), (_rand((3, 3, c, c), dt, 4) * 0.05).astype(dt)
        tx, tw = ctx.tensor(x), ctx.tensor(w)
        dname = _dtype_name(dt)
        others = {}
        if torch_cpu is not None:
            xc = torch_cpu.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch_cpu.channels_last)
            wc = torch_cpu.from_numpy(w).permute(3, 2, 0, 1).contiguous()
            others["PyTorch (CPU)"] = ctx.time(lambda xc=xc, wc=wc: torch_cpu.nn.functional.conv2d(xc, wc, padding=1))
        run_vendor = None
        if torch is not None and dt == np.float32:
            xt = torch.from_numpy(x).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            wt = torch.from_numpy(w).cuda().permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)

            def run_vendor(xt=xt, wt=wt):
                torch.nn.functional.conv2d(xt, wt, padding=1)
                torch.cuda.synchronize()

        vx, vw = ctx.vendor_array(x), ctx.vendor_array(w)
        flops = 2.0 * n * hw * hw * c * c * 9
        modes = ("TF32", "FP32") if ctx.gpu and dt == np.float32 else (None,)
        for mode in modes:
            with _tf32_mode(tf, torch, mode == "TF32") if mode else contextlib.nullcontext():
                ours = ctx.time(lambda tx=tx, tw=tw: tf.nn.conv2d(tx, tw, strides=1, padding="SAME"))
                if run_vendor is not None:
                    vendor, label = ctx.time(run_vendor), f"cuDNN (PyTorch, TF32 {'on' if mode == 'TF32' else 'off'})"
                elif mode == "TF32":
                    vendor, label = NO_TIMING, "no TF32 vendor run (PyTorch missing)"
                else:
                    vendor = ctx.time(lambda vx=vx, vw=vw: _im2col_conv(ctx.xp, vx, vw))
                    label = "CuPy im2col + cuBLAS" if ctx.gpu else "NumPy im2col + BLAS"
            peak = peak_tflops(ctx, "tf32" if mode == "TF32" else dname)
            rows.append(KernelRow("conv", f"fwd 3x3 N={n} {hw}x{hw}x{c}->{c} {dname}" + (f" {mode}" if mode else ""),
                                  ctx.flop_unit, ours, vendor, flops, label, peak,
                                  f"{n}x{hw}x{hw}x{c} * 3x3x{c}x{c}", dname, others))
    if torch is not None and not ctx.shapes and not ctx.dtype:  # fwd + both gradients of the first layer vs cuDNN
        rows.extend(_conv_grad_rows(ctx, torch, layers[0]))
    return rows


def _conv_grad_rows(ctx, torch, layer):
    """Forward + input gradient + filter gradient of one layer against cuDNN, TF32 then strict FP32."""
    tf = ctx.tf
    n, hw, c = layer
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

    rows = []
    for mode in ("TF32", "FP32"):
        with _tf32_mode(tf, torch, mode == "TF32"):
            ours, vendor = ctx.time(grads), ctx.time(run_vendor)
        rows.append(KernelRow("conv", f"fwd+dx+dw 3x3 N={n} {hw}x{hw}x{c} f32 {mode}", ctx.flop_unit, ours, vendor,
                              3.0 * 2.0 * n * hw * hw * c * c * 9,
                              f"cuDNN fwd+bwd (PyTorch, TF32 {'on' if mode == 'TF32' else 'off'})",
                              peak_tflops(ctx, "tf32" if mode == "TF32" else "float32"),
                              f"{n}x{hw}x{hw}x{c} * 3x3x{c}x{c}", "float32"))
    return rows


def _rows_per_case(ctx, family, case_rows, dims, **cases):
    """``case_rows(ctx, shape, dtype)``'s rows for each of the family's shapes (``ctx.cases(**cases)``, of ``dims``
    dimensions) and dtypes (float32 unless ``--dtype``)."""
    rows = []
    for shape in ctx.cases(**cases):
        _need_dims(family, shape, dims)
        for dt in ctx.dtypes((np.float32,)):
            rows += case_rows(ctx, shape, dt)
    return rows


@register("pool")
def bench_pool(ctx):
    return _rows_per_case(ctx, "pool", _bench_pool_case, (3,), gpu=[(64, 112, 64)], cpu=[(4, 56, 32)],
                          emulated=[(1, 16, 8)])


def _bench_pool_case(ctx, shape, dt):
    tf = ctx.tf
    n, hw, c = shape
    dname = _dtype_name(dt)
    x = _rand((n, hw, hw, c), dt, 5)
    tx, vx = ctx.tensor(x), ctx.vendor_array(x)
    peak = peak_bandwidth_gbs(ctx)
    torch = _torch_cuda() if ctx.gpu and dt == np.float32 else None
    xt = torch.from_numpy(x).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last) \
        if torch is not None else None
    rows = []
    for kind, k, s, pad in (("max", 3, 2, "SAME"), ("avg", 2, 2, "VALID")):
        fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        ours = ctx.time(lambda fn=fn, k=k, s=s, pad=pad: fn(tx, k, s, pad))
        oh = -(-hw // s) if pad == "SAME" else (hw - k) // s + 1
        nbytes = x.nbytes + n * oh * oh * c * x.itemsize
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
        rows.append(KernelRow("pool", f"{kind} {k}x{k}/{s} {pad} {n}x{hw}x{hw}x{c} {dname}", "GB/s", ours, vendor,
                              float(nbytes), label, peak, f"{n}x{hw}x{hw}x{c}", dname))
    return rows


@register("batch_norm")
def bench_batch_norm(ctx):
    """FusedBatchNormV3 in training, then with FusedBatchNormGradV3, on ResNet50-sized NHWC activations; PyTorch's
    ``F.batch_norm`` (and its backward) on a channels-last CUDA tensor of the same values. GB/s count the bytes a
    fused kernel must move: the forward reads x twice and writes y; the gradient reads dy and x twice, writes dx."""
    return _rows_per_case(ctx, "batch_norm", _bench_batch_norm_case, (3,), gpu=[(32, 56, 64), (32, 7, 2048)],
                          cpu=[(8, 28, 64)], emulated=[(1, 8, 8)])


def _bench_batch_norm_case(ctx, shape, dt):
    tf = ctx.tf
    n, hw, c = shape
    dname = _dtype_name(dt)
    x, dy = _rand((n, hw, hw, c), dt, 7), _rand((n, hw, hw, c), dt, 8)
    scale, offset = np.ones(c, np.float32), np.zeros(c, np.float32)
    tx, tdy, ts, to = ctx.tensor(x), ctx.tensor(dy), ctx.tensor(scale), ctx.tensor(offset)
    peak = peak_bandwidth_gbs(ctx)
    empty = ctx.tensor(np.zeros(0, np.float32))

    def forward():
        return tf.raw_ops.FusedBatchNormV3(x=tx, scale=ts, offset=to, mean=empty, variance=empty, epsilon=1e-3,
                                           is_training=True)

    def forward_backward():
        out = forward()
        return tf.raw_ops.FusedBatchNormGradV3(y_backprop=tdy, x=tx, scale=ts, reserve_space_1=out[3],
                                               reserve_space_2=out[4], reserve_space_3=out[5], epsilon=1e-3,
                                               is_training=True)

    torch = _torch_cuda() if ctx.gpu and dt == np.float32 else None
    vendor_fns = {}
    if torch is not None:
        def nchw(a, grad=False):
            t = torch.from_numpy(a).cuda().permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            return t.requires_grad_(grad)

        xt, dyt = nchw(x, True), nchw(dy)
        wt, bt = torch.from_numpy(scale).cuda(), torch.from_numpy(offset).cuda()

        def vendor_forward():
            with torch.no_grad():
                torch.nn.functional.batch_norm(xt, None, None, wt, bt, training=True, eps=1e-3)
            torch.cuda.synchronize()

        def vendor_forward_backward():
            xt.grad = None
            torch.nn.functional.batch_norm(xt, None, None, wt, bt, training=True, eps=1e-3).backward(dyt)
            torch.cuda.synchronize()

        vendor_fns = {"fwd": vendor_forward, "fwd+grad": vendor_forward_backward}
        label = "PyTorch F.batch_norm (channels_last)"
    else:
        xv = ctx.vendor_array(x)

        def moments_forward():
            m = xv.mean(axis=(0, 1, 2))
            return (xv - m) / ctx.xp.sqrt(xv.var(axis=(0, 1, 2)) + 1e-3)

        vendor_fns = {"fwd": moments_forward, "fwd+grad": moments_forward}
        label = ("CuPy" if ctx.gpu else "NumPy") + " mean/var/normalise (forward only)"
    rows = []
    for kind, ours_fn, passes in (("fwd", forward, 3), ("fwd+grad", forward_backward, 8)):
        ours, vendor = ctx.time(ours_fn), ctx.time(vendor_fns[kind])
        rows.append(KernelRow("batch_norm", f"{kind} train {n}x{hw}x{hw}x{c} {dname}", "GB/s", ours, vendor,
                              float(passes * x.nbytes), label, peak, f"{n}x{hw}x{c}", dname))
    return rows


@register("reduce")
def bench_reduce(ctx):
    tf = ctx.tf
    peak = peak_bandwidth_gbs(ctx)
    xp = ctx.xp
    cases = []
    for shape in ctx.cases(gpu=[(64 << 20,), (64 << 10, 1024)], cpu=[(4 << 20,), (4 << 10, 1024)],
                           emulated=[(1 << 14,), (16, 1024)]):
        _need_dims("reduce", shape, (1, 2))
        cases += [(shape, None)] if len(shape) == 1 else [(shape, 1), (shape[::-1], 0)]
    rows = []
    for (shape, axis), dt in ((c, dt) for c in cases for dt in ctx.dtypes((np.float32,))):
        x = _rand(shape, dt, 6)
        dname = _dtype_name(dt)
        tx, vx = ctx.tensor(x), ctx.vendor_array(x)
        ops = [("sum", tf.reduce_sum, xp.sum), ("max", tf.reduce_max, xp.max)]
        if axis == 1:
            ops += [("mean", tf.reduce_mean, xp.mean), ("argmax", tf.math.argmax, xp.argmax)]
        for op, ours_fn, vendor_fn in ops:
            ours = ctx.time(lambda f=ours_fn, a=axis, tx=tx: f(tx, axis=a) if a is not None else f(tx))
            vendor = ctx.time(lambda f=vendor_fn, a=axis, vx=vx: f(vx, axis=a))
            rows.append(KernelRow("reduce", f"{op} {list(shape)} axis={axis} {dname}", "GB/s", ours, vendor,
                                  float(x.nbytes), ("cupy." if ctx.gpu else "numpy.") + op, peak,
                                  "x".join(map(str, shape)), dname))
    return rows


@register("softmax")
def bench_softmax(ctx):
    tf = ctx.tf
    xp = ctx.xp
    peak = peak_bandwidth_gbs(ctx)
    shapes = ctx.cases(gpu=[(65536, 1024), (8192, 8192)], cpu=[(4096, 256)], emulated=[(64, 256)])
    for s in shapes:
        _need_dims("softmax", s, (2,))
    torch = _torch_cuda() if ctx.gpu else None
    rows = []
    for (r, c), dt in ((s, dt) for s in shapes for dt in ctx.dtypes((np.float32,))):
        x = _rand((r, c), dt, 7)
        dname = _dtype_name(dt)
        tx, vx = ctx.tensor(x), ctx.vendor_array(x)
        tt = torch.from_dlpack(vx) if torch is not None else None

        def vendor_softmax(vx=vx):
            e = xp.exp(vx - vx.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        def vendor_log_softmax(vx=vx):
            s = vx - vx.max(axis=-1, keepdims=True)
            return s - xp.log(xp.exp(s).sum(axis=-1, keepdims=True))

        for name, ours_fn, vendor_fn in (("softmax", tf.nn.softmax, vendor_softmax),
                                         ("log_softmax", tf.nn.log_softmax, vendor_log_softmax)):
            ours = ctx.time(lambda f=ours_fn, tx=tx: f(tx))
            ops_time = ctx.time(vendor_fn)
            label = "CuPy ops" if ctx.gpu else "NumPy ops"
            if tt is None:
                rows.append(KernelRow("softmax", f"{name} [{r}, {c}] {dname}", "GB/s", ours, ops_time,
                                      2.0 * x.nbytes, label, peak, f"{r}x{c}", dname))
                continue
            torch_fn = getattr(torch, name)  # PyTorch's fused kernel: the vendor (issue 22's softmax floor)
            vendor = ctx.time(lambda f=torch_fn, tt=tt: f(tt, dim=-1))
            rows.append(KernelRow("softmax", f"{name} [{r}, {c}] {dname}", "GB/s", ours, vendor, 2.0 * x.nbytes,
                                  f"PyTorch torch.{name}", peak, f"{r}x{c}", dname, others={label: ops_time}))
    if ctx.shapes or ctx.dtype:
        return rows
    # Fused sparse softmax cross-entropy (loss + dlogits) against the unfused CuPy formula.
    r, c = (65536, 1000) if ctx.gpu else (64, 100) if ctx.emulated else (4096, 100)
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
    rows.append(KernelRow("softmax", f"sparse xent fwd+grad [{r}, {c}] float32", "GB/s", ours, vendor,
                          2.0 * x.nbytes, "CuPy ops" if ctx.gpu else "NumPy ops", peak, f"{r}x{c}", "float32"))
    return rows


EAGER_CALLS = 200  # eager ops per timed repeat: their mean is one op's latency


@dataclass
class EagerRow(KernelRow):
    """One eager op's latency: ``ours_ms``/``vendor_ms`` per call, the rate in thousands of calls per second."""

    def rate(self, ms):
        return 1.0 / (ms * 1e-3) / 1e3


def _per_call(timing, calls):
    return Timing([t / calls for t in timing.samples_ms])


@register("eager")
def bench_eager(ctx):
    """The latency of one eager op on tiny operands (the host's cost: Python, kernel selection, allocation,
    launch), ``EAGER_CALLS`` calls per repeat, next to PyTorch's eager op on the same device (CuPy or NumPy
    without PyTorch). Issue 22's floor: one eager GPU op <= 15 µs."""
    torch = _torch_cuda() if ctx.gpu else _torch_cpu()
    rows = []
    for size in ctx.cases(gpu=[4], cpu=[4]):
        size = size if isinstance(size, tuple) else (size,)
        _need_dims("eager", size, (1,))
        rows.extend(_eager_rows(ctx, torch, size[0]))
    return rows


def _eager_rows(ctx, torch, n):
    tf = ctx.tf
    x, m = _rand((n,), np.float32, 11), _rand((n, n), np.float32, 12)
    tx, tm = ctx.tensor(x), ctx.tensor(m)
    vx, vm = ctx.vendor_array(x), ctx.vendor_array(m)
    if torch is not None:
        px = torch.from_dlpack(vx) if ctx.gpu else torch.from_numpy(x)
        pm = torch.from_dlpack(vm) if ctx.gpu else torch.from_numpy(m)
        vendor_name = "PyTorch eager" + (" (CUDA)" if ctx.gpu else " (CPU)")
        theirs = {"add": lambda: torch.add(px, px), "matmul": lambda: torch.matmul(pm, pm),
                  "reduce_sum": lambda: torch.sum(px), "relu": lambda: torch.relu(px)}
    else:
        xp = ctx.xp
        vendor_name = "CuPy" if ctx.gpu else "NumPy"
        theirs = {"add": lambda: vx + vx, "matmul": lambda: vm @ vm, "reduce_sum": lambda: vx.sum(),
                  "relu": lambda: xp.maximum(vx, 0)}
    ours = {"add": lambda: tf.add(tx, tx), "matmul": lambda: tf.matmul(tm, tm),
            "reduce_sum": lambda: tf.reduce_sum(tx), "relu": lambda: tf.nn.relu(tx)}
    rows = []
    for name, fn in ours.items():
        with tf.device(ctx.device):
            ours_t = _per_call(ctx.time(_repeated(fn)), EAGER_CALLS)
        vendor_t = _per_call(ctx.time(_repeated(theirs[name])), EAGER_CALLS)
        shape = f"[{n}, {n}]" if name == "matmul" else f"[{n}]"
        rows.append(EagerRow("eager", f"{name} {shape} float32 (per call)", "kcall/s", ours_t, vendor_t, 1.0,
                             vendor_name, 0.0, str(n), "float32"))
    return rows


def _repeated(fn):
    def many():
        for _ in range(EAGER_CALLS):
            fn()

    return many


def run(family, repeat=10, ctx=None):
    """Rows for one family (``'matmul'``, ``'conv'``, ``'pool'``, ``'reduce'``, ``'softmax'``)."""
    if family not in BENCHES:
        raise ValueError(f"unknown kernel family {family!r}; choose from {FAMILIES}")
    return BENCHES[family](ctx or BenchContext(repeat=repeat))


def _fmt_rate(x):
    return f"{x:8.2f}" if x == x else f"{'-':>8}"


def format_rows(rows, device_label):
    """The command's table: per case its shape and dtype, our median time with the spread of the repeats
    (± half the interquartile range, relative to the median), our rate, the share of the device's peak, and the
    vendor's median time and rate; ``ours/vendor`` is our throughput over the vendor's (1.00 = parity)."""
    head = (f"{'family':<10} {'case':<40} {'ours ms':>9} {'spread':>7} {'ours':>15} {'of peak':>7} {'vendor ms':>10} "
            f"{'spread':>7} {'vendor':>15} {'ours/vendor':>11}  vendor routine")
    lines = [f"tfcore kernel benchmarks on {device_label}", head, "-" * len(head)]
    for r in rows:
        frac = getattr(r, "peak_frac", None)
        others = "".join(f"; {name} {float(t):.3f} ms" for name, t in getattr(r, "others", {}).items())
        lines.append(f"{r.family:<10} {r.case:<40} {_fmt_ms(r.ours_ms):>9} {_spread(r.ours_ms):>7} "
                     f"{_fmt_rate(r.ours_rate)} {r.unit:<6} {(f'{frac:.0%}' if frac else '-'):>7} "
                     f"{_fmt_ms(r.vendor_ms):>10} {_spread(r.vendor_ms):>7} {_fmt_rate(r.vendor_rate)} {r.unit:<6} "
                     f"{r.vendor_ms / r.ours_ms:>11.2f}  {r.vendor}{others}")
    lines.append("spread: ± half the interquartile range of the repeats, relative to the median; of peak: our rate / "
                 "the device's peak (- unknown: CPU, emulator)")
    return "\n".join(lines)


def _fmt_ms(ms):
    """Milliseconds with three decimals, or five below 0.1 ms (an eager op's latency: 0.00260 = 2.6 µs)."""
    return f"{float(ms):.5f}" if float(ms) < 0.1 else f"{float(ms):.3f}"


def _spread(t):
    if not isinstance(t, Timing) or len(t.samples_ms) < 2 or not float(t):
        return "-"
    return f"±{t.iqr_ms / 2 / float(t):.0%}"


def report(rows, ctx, errors=()):
    """The JSON document ``--json`` writes: device, settings, one object per row, and failed families."""
    return {"device": ctx.device_label, "kind": ctx.kind, "repeat": ctx.repeat, "dtype": ctx.dtype,
            "shapes": ["x".join(map(str, s)) for s in ctx.shapes] if ctx.shapes else None,
            "rows": [r.to_json() for r in rows], "errors": list(errors)}


def run_all(families=FAMILIES, repeat=10, out=print, shapes=None, dtype=None, json_path=None, errors=None):
    """Run the benchmarks of ``families``; returns the rows (printed as a table, and written as JSON to
    ``json_path`` when given: ``"-"`` is standard output, and the table then goes to standard error).
    A family that raises is reported (``FAILED ...``, and appended to ``errors``) without hiding the others."""
    ctx = BenchContext(repeat=repeat, shapes=shapes, dtype=dtype)
    rows = []
    errors = [] if errors is None else errors
    for fam in families:
        try:
            rows.extend(BENCHES[fam](ctx))
        except Exception as e:  # noqa: BLE001 - one broken family must not hide the others
            errors.append(f"{fam}: {type(e).__name__}: {e}")
    table_out = (lambda text: print(text, file=sys.stderr)) if json_path == "-" else out
    table_out(format_rows(rows, ctx.device_label))
    for e in errors:
        table_out(f"FAILED {e}")
    if json_path is not None:
        text = json.dumps(report(rows, ctx, errors), indent=1)
        if json_path == "-":
            print(text)
        else:
            with open(json_path, "w") as f:
                f.write(text + "\n")
    return rows


def _add_arguments(p):
    from . import conv_bench, training_bench

    p.description = ("Kernel micro-benchmarks: our kernels through the public ops against the vendor library on "
                     "the same data (cuBLAS/cuDNN via CuPy/PyTorch on a GPU; NumPy BLAS and PyTorch on the CPU; "
                     "the CPU emulator with TFCORE_EMULATED_GPUS=1). Per case: shape, dtype, median time and "
                     "spread of the repeats, TFLOP/s or GB/s, fraction of the device's peak, vendor time.")
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = "--shapes per family:\n" + "\n".join(f"  {f:<8} {m}" for f, m in SHAPE_MEANING.items())
    p.add_argument("family", nargs="?", default="all", choices=(*FAMILIES, "all", "train"),
                   help="kernel family to benchmark (default: all); 'train': training steps of an MLP, a CNN "
                        "and ResNet50 next to PyTorch (tfcore/benchmarks/training_bench.py)")
    p.add_argument("--repeat", type=int, default=None, help="timed repetitions per case after one warm-up (the "
                   "median and the spread are reported; default 10, with --cpu 5)")
    p.add_argument("--shapes", type=_shapes_argument, default=None, metavar="SHAPE[,SHAPE...]",
                   help="replace the family's cases, e.g. --shapes 512x512x512,1024x1024x1024 for matmul "
                        "(meaning per family below)")
    p.add_argument("--dtype", choices=DTYPES, default=None, help="run every case in this dtype (default: the "
                   "family's cases: float32, plus float16 tensor-core matmul on a GPU)")
    p.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH",
                   help="also write the results as JSON to PATH ('-' or no PATH: standard output, the table "
                        "then goes to standard error)")
    training_bench.add_arguments(p.add_argument_group("options of 'tfcore bench train'"))
    p.add_argument("--cpu", action="store_true", help="the CPU convolution matrix next to TensorFlow and PyTorch "
                   "(tfcore/benchmarks/conv_bench.py; a markdown table)")
    conv_bench.add_arguments(p.add_argument_group("options of 'tfcore bench --cpu'"), quick=False)


@command("bench", "kernel micro-benchmarks against vendor libraries (CPU, emulated or real GPU); 'train': "
                  "training steps", _add_arguments)
def _bench(args):
    if args.cpu:
        from . import conv_bench

        args.repeat = 5 if args.repeat is None else args.repeat
        return conv_bench.run_from_args(args)
    args.repeat = 10 if args.repeat is None else args.repeat
    if args.family == "train":
        from . import training_bench

        return 0 if training_bench.run(training_bench.config(args)) else 1
    if args.repeat < 1:
        raise SystemExit(f"tfcore bench: --repeat must be >= 1, got {args.repeat}")
    families = FAMILIES if args.family == "all" else (args.family,)
    if args.shapes and len(families) > 1:
        raise SystemExit("tfcore bench: --shapes means different things per family; name one family "
                         f"({', '.join(FAMILIES)})")
    errors = []
    rows = run_all(families, repeat=args.repeat, shapes=args.shapes, dtype=args.dtype, json_path=args.json,
                   errors=errors)
    return 0 if rows and not errors else 1
