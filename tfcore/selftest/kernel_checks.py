"""``tfcore selftest`` kernel checks: every kernel family against its float64 reference.

The same launchers the ops use (``tfcore.ops.cuda_kernels``), on GPU:0's backend inside its activation
(device, stream, allocator), so a real GPU runs the NVRTC cubins and an emulated GPU the same sources on
the CPU emulator. Cases cover what a first hardware run must see: the tensor-core forward, input and
filter gradients in float16 and as TF32, odd channel counts (element gathers), misaligned inputs (no
vector loads), split-K filter gradients, ragged tiles; matmul on every entry with the fused epilogue;
reductions, softmax/cross-entropy, pooling, depthwise, bias+activation, segment products and batch
normalisation. Each row reports
the largest ``|got - want| / (atol + rtol * |want|)`` (a check passes at <= 1), tolerances as in ``tests/gpu``.
``small=True`` (the emulator) shrinks the shapes.
"""

import numpy as np

from ..ops.cuda_kernels import batch_norm, bias_add, conv, pool, reduce, segment, softmax
from ..ops.cuda_kernels.matmul import launch_matmul
from . import references as ref
from .report import FAIL, PASS, SKIP


def _tol(kind, k):
    """(rtol, atol) for a result summing ``k`` products: float32 SIMT, float16, or TF32."""
    if kind == "f16":
        return 2e-2, 2e-2 * max(1.0, np.sqrt(k) / 4)
    if kind == "tf32":
        return 0.0, 2e-3 * max(1.0, np.sqrt(k))
    return 1e-4, 1e-4 * max(1.0, np.sqrt(k))


def error_ratio(got, want, rtol, atol):
    """max |got - want| / (atol + rtol |want|) in float64 (NaN anywhere: inf); shapes must match."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape} != reference {want.shape}")
    if got.size == 0:
        return 0.0
    if not np.isfinite(got).all():
        return float("inf")
    return float(np.max(np.abs(got - want) / (atol + rtol * np.abs(want))))


def _verdict(parts):
    """``parts``: [(label, ratio)] -> (status, detail, worst ratio)."""
    worst = max(r for _, r in parts)
    detail = " ".join(f"{label} {r:.2f}" for label, r in parts) + " (err/tol)"
    return (PASS if worst <= 1.0 else FAIL), detail, worst


class KernelHarness:
    """GPU:0's backend plus host<->device helpers for the checks."""

    def __init__(self, backend):
        self.b = backend
        self.xp = backend.xp
        self.arch = int(backend.compute_capability[0]) * 10 + int(backend.compute_capability[1])
        self.rng = np.random.default_rng(2026)

    def dev(self, host, misaligned=False):
        """``host`` on the device; ``misaligned``: starting one element past an aligned address."""
        if not misaligned:
            return self.b.asarray(host)
        flat = self.xp.empty(host.size + 1, dtype=host.dtype)[1:]
        out = flat.reshape(host.shape)
        out[...] = self.b.asarray(host)
        return out

    def host(self, array):
        return np.asarray(self.b.to_numpy(array))

    def randn(self, shape, dtype, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(dtype)


# -- matmul -----------------------------------------------------------------------------------------------

def _matmul_cases(small):
    if small:
        return [(67, 45, 33, False, False), (20, 37, 24, True, True)]
    return [(257, 300, 129, False, False), (1000, 40, 1000, True, False), (64, 64, 66, False, True)]


MATMUL_ENTRIES = [("matmul_f32", np.float32, "f32", 0), ("matmul_f16_simt", np.float16, "f16", 0),
                  ("matmul_f16", np.float16, "f16", 80), ("matmul_f32_tf32", np.float32, "tf32", 80)]


def check_matmul(h, entry, dtype, kind, small):
    parts = []
    for m, k, n, ta, tb in _matmul_cases(small):
        a = h.randn((k, m) if ta else (m, k), dtype)
        w = h.randn((n, k) if tb else (k, n), dtype)
        bias = h.randn(n, dtype)
        with h.b.activate():
            c = launch_matmul(h.b, h.dev(a), h.dev(w), ta, tb, kernel=entry)
            fused = launch_matmul(h.b, h.dev(a), h.dev(w), ta, tb, kernel=entry, bias=h.dev(bias), act=1)
            got, got_fused = h.host(c), h.host(fused)
        want = ref.matmul_ref(a.astype(np.float64), w.astype(np.float64), ta, tb)
        parts.append((f"{m}x{k}x{n}", error_ratio(got, want, *_tol(kind, k))))
        parts.append(("+bias+relu", error_ratio(got_fused, np.maximum(want + bias, 0), *_tol(kind, k))))
    return _verdict(parts)


def check_matmul_batched_misaligned(h, small):
    shape_a, shape_b = ((3, 2, 30, 17), (17, 40)) if small else ((3, 2, 70, 33), (33, 90))
    parts = []
    for entry, dtype, kind in (("matmul_f32", np.float32, "f32"), ("matmul_f16", np.float16, "f16")):
        if entry == "matmul_f16" and h.arch < 80:
            continue
        a, w = h.randn(shape_a, dtype), h.randn(shape_b, dtype)
        with h.b.activate():
            got = h.host(launch_matmul(h.b, h.dev(a, misaligned=True), h.dev(w, misaligned=True), kernel=entry))
        parts.append((entry, error_ratio(got, ref.matmul_ref(a.astype(np.float64), w.astype(np.float64)),
                                         *_tol(kind, shape_a[-1]))))
    return _verdict(parts)


# -- convolution ------------------------------------------------------------------------------------------

def conv_cases(small):
    """(label, x shape NHWC, k, CO, stride, dilation, padding, misaligned, splits); ``splits`` None: the
    launcher's own split-K choice (many slices for the large case on a real GPU)."""
    if small:
        return [("odd channels C=3 CO=5 s2 VALID", (2, 9, 9, 3), 3, 5, 2, 1, "VALID", False, None),
                ("C=16 CO=24 SAME (cp.async chunks)", (2, 9, 10, 16), 3, 24, 1, 1, "SAME", False, None),
                ("C=12 CO=20 s3 d2 SAME", (1, 11, 9, 12), 3, 20, 3, 2, "SAME", False, None),
                ("misaligned x/w/dy C=CO=16", (2, 9, 10, 16), 3, 16, 1, 1, "SAME", True, None),
                ("split-K wgrad 3 slices C=CO=64", (2, 13, 11, 64), 3, 64, 1, 1, "SAME", False, 3)]
    return [("odd channels C=3 CO=5 s2 VALID", (2, 9, 9, 3), 3, 5, 2, 1, "VALID", False, None),
            ("C=8 CO=130 SAME (2 column tiles)", (4, 17, 15, 8), 3, 130, 1, 1, "SAME", False, None),
            ("C=12 CO=20 s3 d2 SAME", (3, 20, 19, 12), 3, 20, 3, 2, "SAME", False, None),
            ("C=CO=64 SAME (cp.async, 3 row tiles)", (2, 13, 11, 64), 3, 64, 1, 1, "SAME", False, None),
            ("misaligned x/w/dy C=CO=16", (2, 9, 10, 16), 3, 16, 1, 1, "SAME", True, None),
            ("split-K wgrad N=8 56x56x64->64", (8, 56, 56, 64), 3, 64, 1, 1, "SAME", False, None)]


CONV_VARIANTS = [("SIMT f32", np.float32, "f32", False, 0), ("SIMT f16", np.float16, "f16", False, 0),
                 ("TC f16", np.float16, "f16", True, 80), ("TC TF32", np.float32, "tf32", True, 80)]


def check_conv(h, case, dtype, kind, tensor_cores):
    _, shape, k, co, s, d, padding, misaligned, splits = case
    x, w = h.randn(shape, dtype), h.randn((k, k, shape[3], co), dtype)
    pads = ref.conv_pads(shape, (k, k), (s, s), (d, d), padding)
    oh = (shape[1] + pads[0] + pads[1] - (k - 1) * d - 1) // s + 1
    ow = (shape[2] + pads[2] + pads[3] - (k - 1) * d - 1) // s + 1
    dy = h.randn((shape[0], oh, ow, co), dtype)
    strides, dil = (1, s, s, 1), (1, d, d, 1)
    with h.b.activate():
        xd, wd, dyd = (h.dev(v, misaligned) for v in (x, w, dy))
        y = h.host(conv.conv2d_forward(h.b, xd, wd, strides, dil, padding, tensor_cores=tensor_cores))
        dx = h.host(conv.conv2d_input_grad(h.b, wd, dyd, shape, strides, dil, padding, tensor_cores=tensor_cores))
        dw = h.host(conv.conv2d_filter_grad(h.b, xd, dyd, w.shape, strides, dil, padding, splits=splits,
                                            tensor_cores=tensor_cores))
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    rows = shape[0] * oh * ow
    parts = [("fwd", error_ratio(y, ref.conv2d_ref(x64, w64, (s, s), (d, d), pads), *_tol(kind, k * k * shape[3]))),
             ("dgrad", error_ratio(dx, ref.conv2d_input_grad_ref(w64, dy64, shape, (s, s), (d, d), pads),
                                   *_tol(kind, k * k * co))),
             ("wgrad", error_ratio(dw, ref.conv2d_filter_grad_ref(x64, dy64, w.shape, (s, s), (d, d), pads),
                                   *_tol(kind, rows)))]
    return _verdict(parts)


def check_depthwise(h, small):
    shape, k, q = ((2, 9, 9, 8), 3, 2) if small else ((4, 20, 19, 33), 5, 2)
    x, w = h.randn(shape, np.float32), h.randn((k, k, shape[3], q), np.float32)
    pads = ref.conv_pads(shape, (k, k), (2, 2), (1, 1), "SAME")
    oh, ow = -(-shape[1] // 2), -(-shape[2] // 2)
    dy = h.randn((shape[0], oh, ow, shape[3] * q), np.float32)
    one, two = (1, 1, 1, 1), (1, 2, 2, 1)
    with h.b.activate():
        xd, wd, dyd = h.dev(x), h.dev(w), h.dev(dy)
        y = h.host(conv.depthwise_forward(h.b, xd, wd, two, one, "SAME"))
        dx = h.host(conv.conv2d_input_grad(h.b, wd, dyd, shape, two, one, "SAME", depthwise=True))
        dw = h.host(conv.conv2d_filter_grad(h.b, xd, dyd, w.shape, two, one, "SAME", depthwise=True))
    x64, w64, dy64 = x.astype(np.float64), w.astype(np.float64), dy.astype(np.float64)
    return _verdict([("fwd", error_ratio(y, ref.depthwise_forward_ref(x64, w64, (2, 2), (1, 1), pads),
                                         *_tol("f32", k * k))),
                     ("dgrad", error_ratio(dx, ref.depthwise_input_grad_ref(w64, dy64, shape, (2, 2), (1, 1), pads),
                                           *_tol("f32", k * k * q))),
                     ("wgrad", error_ratio(dw, ref.depthwise_filter_grad_ref(x64, dy64, w.shape, (2, 2), (1, 1),
                                                                             pads), *_tol("f32", shape[0] * oh * ow)))])


# -- pooling, reductions, softmax, bias ----------------------------------------------------------------------

def check_pool(h, small):
    x = h.randn((2, 13, 11, 5) if small else (8, 57, 55, 67), np.float32)
    k, s = (1, 3, 3, 1), (1, 2, 2, 1)
    pads = ref.conv_pads(x.shape, (3, 3), (2, 2), (1, 1), "SAME")
    oh, ow = -(-x.shape[1] // 2), -(-x.shape[2] // 2)
    dy = h.randn((x.shape[0], oh, ow, x.shape[3]), np.float32)
    with h.b.activate():
        xd, dyd = h.dev(x), h.dev(dy)
        mx = h.host(pool.pool_forward(h.b, xd, "max", k, s, "SAME"))
        av = h.host(pool.pool_forward(h.b, xd, "avg", k, s, "SAME"))
        gmx = h.host(pool.max_pool_backward(h.b, xd, dyd, k, s, "SAME"))
        gav = h.host(pool.avg_pool_backward(h.b, dyd, x.shape, k, s, "SAME"))
    return _verdict([("max", error_ratio(mx, ref.max_pool_ref(x, (3, 3), (2, 2), pads), 0, 1e-30)),
                     ("avg", error_ratio(av, ref.avg_pool_ref(x, (3, 3), (2, 2), pads), 1e-5, 1e-6)),
                     ("max grad", error_ratio(gmx, ref.max_pool_grad_ref(x, dy, (3, 3), (2, 2), pads), 1e-5, 1e-6)),
                     ("avg grad", error_ratio(gav, ref.avg_pool_grad_ref(dy, x.shape, (3, 3), (2, 2), pads), 1e-5,
                                              1e-6))])


def reduce_cases(small):
    if small:
        return [((5000,), (0,)), ((30, 411), (1,)), ((411, 30), (0,)), ((6, 50, 7), (0, 2))]
    return [((1 << 20,), (0,)), ((300, 4099), (1,)), ((4099, 300), (0,)), ((50176, 32), (0,)), ((6, 50, 7), (0, 2))]


def check_reduce(h, shape, axes):
    x = h.randn(shape, np.float32)
    n = int(np.prod([shape[a] for a in axes]))
    parts = []
    with h.b.activate():
        xd = h.dev(x)
        for op in ("sum", "mean", "max", "min"):
            got = h.host(reduce.reduce_axes(h.b, xd, axes, False, op))
            parts.append((op, error_ratio(got, ref.reduce_ref(x.astype(np.float64), axes, op), 1e-5,
                                          1e-5 * np.sqrt(n))))
        if len(axes) == 1 and x.ndim == 2:
            ints = h.rng.integers(-5, 5, shape).astype(np.float32)  # ties: the first maximum wins
            got = h.host(reduce.argreduce_axis(h.b, h.dev(ints), axes[0], False))
            same = np.array_equal(got, ref.argreduce_ref(ints, axes[0]))
            parts.append(("argmax", 0.0 if same else float("inf")))
    return _verdict(parts)


def softmax_cases(small):
    return [(100, 10), (16, 300), (4, 1500)] if small else [(1000, 10), (64, 1024), (8, 5000), (256, 32768)]


def check_softmax(h, shape):
    x = h.randn(shape, np.float32, 3.0)
    labels = h.rng.integers(0, shape[1], shape[0]).astype(np.int32)
    with h.b.activate():
        xd = h.dev(x)
        sm = h.host(softmax.softmax_last_axis(h.b, xd))
        lsm = h.host(softmax.softmax_last_axis(h.b, xd, log=True))
        loss, grad = softmax.sparse_softmax_xent(h.b, xd, h.dev(labels))
        loss, grad = h.host(loss), h.host(grad)
    x64 = x.astype(np.float64)
    want_loss, want_grad = ref.sparse_xent_ref(x64, labels)
    return _verdict([("softmax", error_ratio(sm, ref.softmax_ref(x64), 1e-5, 1e-6)),
                     ("log_softmax", error_ratio(lsm, ref.softmax_ref(x64, log=True), 1e-5, 1e-5)),
                     ("xent loss", error_ratio(loss, want_loss, 1e-5, 1e-5)),
                     ("xent grad", error_ratio(grad, want_grad, 1e-5, 1e-6))])


def check_bias_add(h, small):
    x, bias = h.randn((16, 9, 16) if small else (64, 33, 16), np.float32), h.randn(16, np.float32)
    parts = []
    with h.b.activate():
        xd, bd = h.dev(x), h.dev(bias)
        for act in (None, "relu", "gelu", "sigmoid", "tanh"):
            got = h.host(bias_add.bias_add_act(h.b, xd, bd, act))
            parts.append((act or "none", error_ratio(got, ref.bias_add_ref(x.astype(np.float64), bias, act), 1e-5,
                                                     1e-6)))
    return _verdict(parts)


def check_segment_prod(h, small):
    """Both segment-product kernels, float32 and int32, many rows per segment (atomicCAS contention)."""
    rows, inner, segments = (300, 7, 5) if small else (200000, 33, 64)
    x = h.rng.uniform(0.999, 1.001, (rows, inner)).astype(np.float32)  # products of many factors stay finite
    k = h.rng.integers(-1, 3, (rows, inner)).astype(np.int32)
    ids = h.rng.integers(-1, segments, rows).astype(np.int32)
    sorted_ids = np.sort(np.abs(ids))
    parts = []
    with h.b.activate():
        for label, data in (("f32", x), ("i32", k)):
            got = h.host(segment.unsorted_segment_prod(h.b, h.dev(data), h.dev(ids), num_segments=segments))
            exact = data.dtype.kind == "i"
            rtol = 0.0 if exact else 1e-6 * np.sqrt(rows)
            parts.append((f"unsorted {label}", error_ratio(got, ref.segment_prod_ref(data, ids, segments), rtol,
                                                           1e-30)))
            got = h.host(segment.segment_prod(h.b, h.dev(data), h.dev(sorted_ids)))
            want = ref.segment_prod_ref(data, sorted_ids, int(sorted_ids[-1]) + 1)
            parts.append((f"sorted {label}", error_ratio(got, want, rtol, 1e-30)))
    return _verdict(parts)


def check_batch_norm(h, small):
    """FusedBatchNormV3 (training) and FusedBatchNormGradV3 on a ResNet-sized NHWC activation (many splits of
    the rows, vector passes) and an NCHW one, float32 and float16 x, against the float64 references."""
    eps = 1e-3
    cases = [((4, 6, 6, 16), "NHWC"), ((2, 8, 5, 5), "NCHW")] if small else \
        [((32, 56, 56, 64), "NHWC"), ((32, 7, 7, 2048), "NHWC"), ((16, 64, 28, 28), "NCHW")]
    parts = []
    with h.b.activate():
        for shape, fmt in cases:
            c = shape[1] if fmt == "NCHW" else shape[-1]
            scale, offset = h.rng.uniform(0.5, 1.5, c).astype(np.float32), h.randn(c, np.float32)
            for dtype, (rtol, atol) in ((np.float32, (1e-4, 1e-4)), (np.float16, (4e-3, 8e-3))):
                x, dy = h.randn(shape, dtype, 2.0) + dtype(0.5), h.randn(shape, dtype)
                out = batch_norm.batch_norm_forward(h.b, h.dev(x), h.dev(scale), h.dev(offset), h.dev(scale),
                                                    h.dev(scale), epsilon=eps, exponential_avg_factor=1.0,
                                                    data_format=fmt, is_training=True)
                want = ref.batch_norm_ref(x, scale, offset, epsilon=eps, data_format=fmt)
                label = f"{fmt} {shape[-1] if fmt == 'NHWC' else shape[1]}ch {np.dtype(dtype).name}"
                parts.append((f"{label} y", error_ratio(h.host(out[0]), want[0], rtol, atol)))
                parts.append((f"{label} var", error_ratio(h.host(out[4]), want[4], 1e-5, 1e-6)))
                mean, var = h.host(out[3]), h.host(out[4])
                dx, dscale, doffset = batch_norm.batch_norm_grad(h.b, h.dev(dy), h.dev(x), h.dev(scale), out[3],
                                                                 out[4], out[5], epsilon=eps, data_format=fmt,
                                                                 is_training=True)[:3]
                gwant = ref.batch_norm_grad_ref(dy, x, scale, mean, var, eps, fmt)
                k = x.size // c
                parts.append((f"{label} dx", error_ratio(h.host(dx), gwant[0], rtol, atol)))
                parts.append((f"{label} dscale", error_ratio(h.host(dscale), gwant[1], 1e-4, 1e-4 * np.sqrt(k))))
                parts.append((f"{label} doffset", error_ratio(h.host(doffset), gwant[2], 1e-4, 1e-4 * np.sqrt(k))))
    return _verdict(parts)


def run_kernel_checks(rec, backend, small):
    """Add one row per kernel check to ``rec`` (a :class:`report.Recorder`)."""
    h = KernelHarness(backend)
    tc_note = f"needs sm_80+ (device is sm_{h.arch})"
    for entry, dtype, kind, min_arch in MATMUL_ENTRIES:
        if h.arch < min_arch:
            rec.run("kernels", f"matmul {entry} (+ fused bias/relu)", lambda: (SKIP, tc_note))
            continue
        rec.run("kernels", f"matmul {entry} (+ fused bias/relu)", check_matmul, h, entry, dtype, kind, small)
    rec.run("kernels", "matmul batched broadcast, misaligned", check_matmul_batched_misaligned, h, small)
    for case in conv_cases(small):
        for label, dtype, kind, tc, min_arch in CONV_VARIANTS:
            name = f"conv {label}: {case[0]}"
            if h.arch < min_arch:
                rec.run("kernels", name, lambda: (SKIP, tc_note))
                continue
            rec.run("kernels", name, check_conv, h, case, dtype, kind, tc)
    rec.run("kernels", "depthwise conv fwd/dgrad/wgrad f32", check_depthwise, h, small)
    rec.run("kernels", "pooling max/avg and gradients f32", check_pool, h, small)
    for shape, axes in reduce_cases(small):
        rec.run("kernels", f"reduce {shape} axes={axes}", check_reduce, h, shape, axes)
    for shape in softmax_cases(small):
        rec.run("kernels", f"softmax/log_softmax/xent {shape}", check_softmax, h, shape)
    rec.run("kernels", "bias_add + activations f32", check_bias_add, h, small)
    rec.run("kernels", "segment prod f32/i32 (atomic, sorted)", check_segment_prod, h, small)
    rec.run("kernels", "batch_norm fwd/grad f32/f16 (NHWC, NCHW)", check_batch_norm, h, small)
