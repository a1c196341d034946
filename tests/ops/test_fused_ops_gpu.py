"""``_FusedMatMul`` / ``_FusedConv2D`` on an emulated GPU: ONE kernel launch per op (the matmul / conv forward
kernel with its fused bias + ReLU epilogue, tfcore/ops/cuda_kernels/fused.py), the CPU op's values, and the
gradients of the unfused ops, unchanged.

The module gets one emulated GPU in strict CuPy mode (as tests/ops/test_gpu_placement.py does), so the
fused candidates' host code is also checked for CuPy compatibility.
"""

import os
import sys

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.context import context
from tfcore.ops import conv_ops, fused_ops
from tfcore.ops.registry import kernel_for

sys.path.insert(0, os.path.dirname(__file__))
import cupy_strict  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from opinfo.core import RecordingKernels as _Recording  # noqa: E402


@pytest.fixture(scope="module")
def gpu_kernels():
    """One emulated GPU in strict CuPy mode whose launches are recorded; the configuration restored after."""
    mp = pytest.MonkeyPatch()
    mp.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    gpu = context.find("GPU", 0)
    assert gpu is not None and gpu.backend.emulated
    with cupy_strict.strict_cupy_mode(gpu) as backend:
        rec = _Recording(backend.kernels)
        backend.kernels = rec
        try:
            yield rec
        finally:
            backend.kernels = rec._lib
    mp.undo()
    context.reset_for_tests()


def _run(device, fn, arrays, kernels=None):
    """fn's output and the gradients of sum(output * weights) w.r.t. every input, on ``device``; the kernels
    launched by the forward op alone when ``kernels`` records them."""
    with tf.device(device):
        ts = [tf.constant(a) for a in arrays]
        with tf.GradientTape() as tape:
            tape.watch(ts)
            if kernels is not None:
                kernels.names.clear()
            y = fn(*ts)
            launched = list(kernels.names) if kernels is not None else None
            weights = tf.constant(np.random.default_rng(9).uniform(-1, 1, y.shape).astype(arrays[0].dtype))
            loss = tf.reduce_sum(y * weights)
        grads = tape.gradient(loss, ts)
    return y, [g.numpy() for g in grads], launched


def _compare(got, want, grads, want_grads, rtol, atol):
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=rtol, atol=atol)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol * 10)


def _tolerance(dtype, k, tf32=False):
    if dtype == np.float16:
        return 2e-2, 2e-2 * max(1.0, np.sqrt(k) / 4)
    if tf32:
        return 0, 2e-3 * np.sqrt(k)
    return 2e-5, 2e-5 * max(1.0, np.sqrt(k))


MATMUL_CASES = [  # (m, k, n, transpose_b)
    (37, 19, 131, False),  # N % 4 == 3, two column tiles
    (5, 9, 66, True),      # N % 4 == 2, b read transposed
]


def _matmul_arrays(m, k, n, tb, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    return a, w, rng.standard_normal(n).astype(dtype)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("m,k,n,tb", MATMUL_CASES)
@pytest.mark.parametrize("dtype,entry", [(np.float32, "matmul_f32"), (np.float16, "matmul_f16")])
def test_fused_matmul_is_one_kernel_and_matches_the_cpu_op(gpu_kernels, dtype, entry, m, k, n, tb, relu):
    arrays = _matmul_arrays(m, k, n, tb, dtype)

    def fn(a, w, b):
        return fused_ops.fused_matmul(a, w, b, relu=relu, transpose_b=tb)

    want, want_grads, _ = _run("/CPU:0", fn, arrays)
    got, grads, launched = _run("/GPU:0", fn, arrays, gpu_kernels)
    assert launched == [entry]  # no separate bias / ReLU pass
    assert got.device.endswith("GPU:0")
    _compare(got, want, grads, want_grads, *_tolerance(dtype, k))


@pytest.mark.parametrize("relu", [False, True])
def test_fused_matmul_tf32(gpu_kernels, tf32_allowed, relu):
    arrays = _matmul_arrays(37, 40, 131, False, np.float32, seed=1)

    def fn(a, w, b):
        return fused_ops.fused_matmul(a, w, b, relu=relu)

    want, want_grads, _ = _run("/CPU:0", fn, arrays)
    got, grads, launched = _run("/GPU:0", fn, arrays, gpu_kernels)
    assert launched == ["matmul_f32_tf32"]
    _compare(got, want, grads, want_grads, *_tolerance(np.float32, 131, tf32=True))  # gradients: TF32 too


def _conv_arrays(x_shape, k, co, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(x_shape).astype(dtype), rng.standard_normal((*k, x_shape[3], co)).astype(dtype),
            rng.standard_normal(co).astype(dtype))


CONV_CASES = [  # (x shape, filter (kh, kw), CO, strides, padding)
    ((2, 7, 9, 3), (3, 3), 5, 1, "SAME"),      # CO <= 64: the 128 x 64 tile
    ((1, 8, 7, 4), (2, 3), 70, 2, "VALID"),    # CO > 64: the 128 x 128 tile, stride 2
]


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("case", CONV_CASES, ids=[f"co{c[2]}" for c in CONV_CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fused_conv2d_is_one_kernel_and_matches_the_cpu_op(gpu_kernels, dtype, case, relu):
    x_shape, k, co, stride, padding = case
    arrays = _conv_arrays(x_shape, k, co, dtype)
    attrs = conv_ops._conv_call("Conv2D", stride, padding, "NHWC", None)[1]

    def fn(x, w, b):
        return fused_ops.fused_conv2d(x, w, b, attrs, relu=relu)

    want, want_grads, _ = _run("/CPU:0", fn, arrays)
    got, grads, launched = _run("/GPU:0", fn, arrays, gpu_kernels)
    sfx = "f32" if dtype == np.float32 else "f16"
    entry = "conv2d_fwd_tc_f16" if dtype == np.float16 else f"conv2d_fwd{'_n64' if co <= 64 else ''}_f32"
    assert launched == [entry], sfx
    _compare(got, want, grads, want_grads, *_tolerance(dtype, k[0] * k[1] * x_shape[3]))


@pytest.mark.parametrize("relu", [False, True])
def test_fused_conv2d_tf32(gpu_kernels, tf32_allowed, relu):
    arrays = _conv_arrays((2, 9, 10, 16), (3, 3), 24, np.float32, seed=2)
    attrs = conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)[1]

    def fn(x, w, b):
        return fused_ops.fused_conv2d(x, w, b, attrs, relu=relu)

    want, want_grads, _ = _run("/CPU:0", fn, arrays)
    got, grads, launched = _run("/GPU:0", fn, arrays, gpu_kernels)
    assert launched == ["conv2d_fwd_tc_tf32"]
    _compare(got, want, grads, want_grads, *_tolerance(np.float32, 9 * 16 * 10, tf32=True))


def test_candidates_follow_the_plain_ops_rules(gpu_kernels, monkeypatch):
    """Which fused candidate runs: the plain ops' choice (TF32 only when allowed); float64 falls back to the
    generic code (the plain kernels, then the bias and ReLU as separate passes)."""
    a32, w32, b32 = _matmul_arrays(4, 3, 5, False, np.float32)
    attrs = {"transpose_a": False, "transpose_b": False, "fused_ops": ("BiasAdd", "Relu")}
    gpu = "/GPU:0"
    assert kernel_for(fused_ops.FUSED_MATMUL, [a32, w32, b32], attrs, gpu).name.endswith(
        "matmul_f32|matmul_f16_simt")  # the session sets NVIDIA_TF32_OVERRIDE=0
    monkeypatch.delenv("NVIDIA_TF32_OVERRIDE", raising=False)
    assert kernel_for(fused_ops.FUSED_MATMUL, [a32, w32, b32], attrs, gpu).name == "cuda_kernels.fused.matmul_f32_tf32"
    f16 = [v.astype(np.float16) for v in (a32, w32, b32)]
    assert kernel_for(fused_ops.FUSED_MATMUL, f16, attrs, gpu).name == "cuda_kernels.fused.matmul_f16"
    f64 = [v.astype(np.float64) for v in (a32, w32, b32)]
    assert kernel_for(fused_ops.FUSED_MATMUL, f64, attrs, gpu).priority is None  # generic
    x, w, b = _conv_arrays((1, 5, 5, 3), (3, 3), 4, np.float32)
    cattrs = {**conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)[1], "fused_ops": ("BiasAdd",)}
    assert kernel_for(fused_ops.FUSED_CONV2D, [x, w, b], cattrs, gpu).name == "cuda_kernels.fused.conv2d_fwd_tc_tf32"
    monkeypatch.setenv("NVIDIA_TF32_OVERRIDE", "0")
    assert kernel_for(fused_ops.FUSED_CONV2D, [x, w, b], cattrs, gpu).name == "cuda_kernels.fused.conv2d_fwd"


def test_float64_falls_back_to_the_generic_fused_code(gpu_kernels):
    arrays = _matmul_arrays(6, 5, 7, False, np.float64)

    def fn(a, w, b):
        return fused_ops.fused_matmul(a, w, b, relu=True)

    want, want_grads, _ = _run("/CPU:0", fn, arrays)
    got, grads, launched = _run("/GPU:0", fn, arrays, gpu_kernels)
    assert got.device.endswith("GPU:0") and not any(n.startswith("matmul") for n in launched)
    _compare(got, want, grads, want_grads, 1e-12, 1e-12)
