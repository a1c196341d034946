"""Our kernel families on a real GPU (CuPy + NVRTC) against the NumPy references.

The same launchers the ops use, on CuPy arrays. This is where the float16 tensor-core matmul
(mma.sync, sm_80+; the emulator runs the SIMT fallback) and the float4 fast paths meet hardware.
"""

import types

import numpy as np
import pytest

from tfcore.ops.cuda_kernels import batch_norm, bias_add, conv, pool, reduce, softmax
from tfcore.ops.cuda_kernels.matmul import launch_matmul
from tfcore.selftest import references as ref


@pytest.fixture(scope="module")
def gb():
    import cupy

    from tfcore.backend.kernel_library import CupyKernelLibrary

    return types.SimpleNamespace(kind="cuda", xp=cupy, kernels=CupyKernelLibrary(0))


def _close(got, want, rtol, atol):
    np.testing.assert_allclose(np.asarray(got.get(), np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype,kernel", [(np.float32, None), (np.float16, None), (np.float16, "matmul_f16_simt")])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(257, 300, 129), (64, 64, 64), (1, 5, 3), (1000, 40, 1000)])
def test_matmul(gb, m, k, n, ta, tb, dtype, kernel):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    c = launch_matmul(gb, gb.xp.asarray(a), gb.xp.asarray(b), ta, tb, kernel=kernel)
    tol = (2e-2, 2e-2 * np.sqrt(k) / 4) if dtype == np.float16 else (1e-4, 1e-4 * np.sqrt(k))
    _close(c, ref.matmul_ref(a, b, ta, tb), *tol)


def test_matmul_batched_broadcast(gb):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 2, 70, 33)).astype(np.float32), rng.standard_normal((33, 90)).astype(np.float32)
    _close(launch_matmul(gb, gb.xp.asarray(a), gb.xp.asarray(b)), ref.matmul_ref(a, b), 1e-4, 1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape,k,co,s,d,padding", [((4, 17, 15, 8), 3, 130, 1, 1, "SAME"),
                                                    ((2, 9, 9, 3), 3, 5, 2, 1, "VALID"),
                                                    ((3, 20, 19, 12), 3, 20, 3, 2, "SAME"),
                                                    ((8, 28, 28, 64), 3, 64, 1, 1, "SAME")])  # split-K wgrad
def test_conv2d(gb, shape, k, co, s, d, padding, dtype):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(shape).astype(dtype), rng.standard_normal((k, k, shape[3], co)).astype(dtype)
    strides, dil = (1, s, s, 1), (1, d, d, 1)
    pads = ref.conv_pads(shape, (k, k), (s, s), (d, d), padding)
    oh = (shape[1] + pads[0] + pads[1] - (k - 1) * d - 1) // s + 1
    ow = (shape[2] + pads[2] + pads[3] - (k - 1) * d - 1) // s + 1
    dy = rng.standard_normal((shape[0], oh, ow, co)).astype(dtype)
    xp = gb.xp
    f16 = dtype == np.float16
    kt, rows = k * k * max(shape[3], co), shape[0] * oh * ow
    _close(conv.conv2d_forward(gb, xp.asarray(x), xp.asarray(w), strides, dil, padding),
           ref.conv2d_ref(x, w, (s, s), (d, d), pads), *((2e-2, 2e-2 * np.sqrt(kt) / 4) if f16 else (1e-4, 1e-3)))
    _close(conv.conv2d_input_grad(gb, xp.asarray(w), xp.asarray(dy), shape, strides, dil, padding),
           ref.conv2d_input_grad_ref(w, dy, shape, (s, s), (d, d), pads),
           *((2e-2, 2e-2 * np.sqrt(kt) / 4) if f16 else (1e-4, 1e-3)))
    _close(conv.conv2d_filter_grad(gb, xp.asarray(x), xp.asarray(dy), w.shape, strides, dil, padding),
           ref.conv2d_filter_grad_ref(x, dy, w.shape, (s, s), (d, d), pads),
           *((2e-2, 2e-2 * np.sqrt(rows) / 4) if f16 else (1e-4, 1e-4 * np.sqrt(rows))))


@pytest.mark.parametrize("act", [0, 1])
@pytest.mark.parametrize("kernel,dtype", [("matmul_f32", np.float32), ("matmul_f16_simt", np.float16),
                                          ("matmul_f16", np.float16), ("matmul_f32_tf32", np.float32)])
@pytest.mark.parametrize("m,k,n,tb", [(257, 300, 131, False), (64, 64, 66, True)])
def test_matmul_fused_bias_act(gb, m, k, n, tb, kernel, dtype, act):
    """The fused bias + ReLU epilogue of every matmul entry (_FusedMatMul's kernels)."""
    if kernel in ("matmul_f16", "matmul_f32_tf32") and int(gb.kernels.arch) < 80:
        pytest.skip("tensor-core entries need sm_80+")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    bias = rng.standard_normal(n).astype(dtype)
    xp = gb.xp
    c = launch_matmul(gb, xp.asarray(a), xp.asarray(b), False, tb, kernel=kernel, bias=xp.asarray(bias), act=act)
    want = ref.matmul_ref(a, b, False, tb).astype(np.float64) + bias
    want = np.maximum(want, 0) if act else want
    tol = ((2e-2, 2e-2 * np.sqrt(k) / 4) if dtype == np.float16 else
           (0, 2e-3 * np.sqrt(k)) if kernel == "matmul_f32_tf32" else (1e-4, 1e-4 * np.sqrt(k)))
    _close(c, want, *tol)


@pytest.mark.parametrize("act", [0, 1])
@pytest.mark.parametrize("variant", [dict(tile=64), dict(tile=128), dict(tensor_cores=True)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_conv2d_forward_fused_bias_act(gb, dtype, variant, act):
    """The fused bias + ReLU epilogue of the conv forward entries (_FusedConv2D's kernels)."""
    if variant.get("tensor_cores") and int(gb.kernels.arch) < 80:
        pytest.skip("tensor-core entries need sm_80+")
    rng = np.random.default_rng(6)
    shape, k, co = (3, 20, 19, 12), 3, 70
    x, w = rng.standard_normal(shape).astype(dtype), rng.standard_normal((k, k, shape[3], co)).astype(dtype)
    bias = rng.standard_normal(co).astype(dtype)
    one = (1, 1, 1, 1)
    xp = gb.xp
    y = conv.conv2d_forward(gb, xp.asarray(x), xp.asarray(w), (1, 2, 2, 1), one, "SAME", bias=xp.asarray(bias),
                            act=act, **variant)
    pads = ref.conv_pads(shape, (k, k), (2, 2), (1, 1), "SAME")
    want = ref.conv2d_ref(x.astype(np.float64), w.astype(np.float64), (2, 2), (1, 1), pads) + bias
    want = np.maximum(want, 0) if act else want
    kt = k * k * shape[3]
    tf32 = variant.get("tensor_cores") and dtype == np.float32
    _close(y, want, *((2e-2, 2e-2 * np.sqrt(kt) / 4) if dtype == np.float16 else
                      (0, 2e-3 * np.sqrt(kt)) if tf32 else (1e-4, 1e-3)))


def test_pool(gb):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 13, 11, 5)).astype(np.float32)
    k, s = (1, 3, 3, 1), (1, 2, 2, 1)
    pads = ref.conv_pads(x.shape, (3, 3), (2, 2), (1, 1), "SAME")
    oh, ow = -(-x.shape[1] // 2), -(-x.shape[2] // 2)
    dy = rng.standard_normal((2, oh, ow, 5)).astype(np.float32)
    xd, dyd = gb.xp.asarray(x), gb.xp.asarray(dy)
    _close(pool.pool_forward(gb, xd, "max", k, s, "SAME"), ref.max_pool_ref(x, (3, 3), (2, 2), pads), 0, 0)
    _close(pool.pool_forward(gb, xd, "avg", k, s, "SAME"), ref.avg_pool_ref(x, (3, 3), (2, 2), pads), 1e-5, 1e-6)
    _close(pool.max_pool_backward(gb, xd, dyd, k, s, "SAME"), ref.max_pool_grad_ref(x, dy, (3, 3), (2, 2), pads),
           1e-5, 1e-6)
    _close(pool.avg_pool_backward(gb, dyd, x.shape, k, s, "SAME"), ref.avg_pool_grad_ref(dy, x.shape, (3, 3), (2, 2),
                                                                                         pads), 1e-5, 1e-6)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("shape,axes", [((1 << 20,), (0,)), ((300, 4099), (1,)), ((4099, 300), (0,)),
                                        ((6, 50, 7), (0, 2))])
def test_reduce(gb, shape, axes, op):
    x = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    n = int(np.prod([shape[a] for a in axes]))
    _close(reduce.reduce_axes(gb, gb.xp.asarray(x), axes, False, op), ref.reduce_ref(x, axes, op), 1e-5,
           1e-5 * np.sqrt(n))


def test_argmax(gb):
    x = np.random.default_rng(5).integers(-5, 5, (40, 3000)).astype(np.float32)
    for axis in (0, 1):
        np.testing.assert_array_equal(reduce.argreduce_axis(gb, gb.xp.asarray(x), axis, False).get(),
                                      ref.argreduce_ref(x, axis))


@pytest.mark.parametrize("shape", [(1000, 10), (64, 1024), (8, 5000)])
def test_softmax_and_xent(gb, shape):
    rng = np.random.default_rng(6)
    x = (3 * rng.standard_normal(shape)).astype(np.float32)
    xd = gb.xp.asarray(x)
    _close(softmax.softmax_last_axis(gb, xd), ref.softmax_ref(x), 1e-5, 1e-6)
    _close(softmax.softmax_last_axis(gb, xd, log=True), ref.softmax_ref(x, log=True), 1e-5, 1e-5)
    labels = rng.integers(0, shape[1], shape[0]).astype(np.int32)
    loss, grad = softmax.sparse_softmax_xent(gb, xd, gb.xp.asarray(labels))
    want_loss, want_grad = ref.sparse_xent_ref(x, labels)
    _close(loss, want_loss, 1e-5, 1e-5)
    _close(grad, want_grad, 1e-5, 1e-6)


@pytest.mark.parametrize("activation", [None, "relu", "gelu", "sigmoid", "tanh"])
def test_bias_add(gb, activation):
    rng = np.random.default_rng(7)
    x, b = rng.standard_normal((64, 33, 16)).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    _close(bias_add.bias_add_act(gb, gb.xp.asarray(x), gb.xp.asarray(b), activation),
           ref.bias_add_ref(x, b, activation), 1e-5, 1e-6)


@pytest.mark.parametrize("shape, data_format", [((32, 56, 56, 64), "NHWC"), ((32, 7, 7, 2048), "NHWC"),
                                                ((5, 7, 3), "NHWC"), ((16, 64, 28, 28), "NCHW")])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_batch_norm(gb, shape, data_format, dtype):
    """FusedBatchNormV3 training forward and its gradient on ResNet-sized activations (hundreds of splits of the
    rows, the vector passes), a ragged one and NCHW, against the float64 references; the same bits twice."""
    rng = np.random.default_rng(8)
    c = shape[1] if data_format == "NCHW" else shape[-1]
    x = (2 * rng.standard_normal(shape) + 0.5).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    scale, offset = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    xd, sd, od = gb.xp.asarray(x), gb.xp.asarray(scale), gb.xp.asarray(offset)
    kw = dict(epsilon=1e-3, exponential_avg_factor=1.0, data_format=data_format, is_training=True)
    out = batch_norm.batch_norm_forward(gb, xd, sd, od, sd, sd, **kw)
    again = batch_norm.batch_norm_forward(gb, xd, sd, od, sd, sd, **kw)
    for a, b in zip(out, again):
        np.testing.assert_array_equal(a.get(), b.get())
    want = ref.batch_norm_ref(x, scale, offset, epsilon=1e-3, data_format=data_format)
    rtol, atol = (4e-3, 8e-3) if dtype == np.float16 else (1e-4, 1e-4)
    _close(out[0], want[0], rtol, atol)
    for got, w in zip(out[1:5], want[1:5]):
        _close(got, w, 1e-5, 1e-6)
    dx, dscale, doffset = batch_norm.batch_norm_grad(gb, gb.xp.asarray(dy), xd, sd, out[3], out[4], out[5],
                                                     epsilon=1e-3, data_format=data_format, is_training=True)[:3]
    gwant = ref.batch_norm_grad_ref(dy, x, scale, out[3].get(), out[4].get(), 1e-3, data_format)
    k = np.sqrt(x.size // c)
    _close(dx, gwant[0], rtol, atol)
    _close(dscale, gwant[1], 1e-4, 1e-4 * k)
    _close(doffset, gwant[2], 1e-4, 1e-4 * k)
