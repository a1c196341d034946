"""kernels/conv2d.cu on the emulator: implicit-GEMM forward, input/filter gradients, depthwise."""

import numpy as np
import pytest
from kernel_helpers import tol

from tests.kernel_refs import (
    conv2d_filter_grad_ref,
    conv2d_input_grad_ref,
    conv2d_ref,
    depthwise_filter_grad_ref,
    depthwise_forward_ref,
    depthwise_input_grad_ref,
)
from tfcore.ops.conv_ops import conv_geometry
from tfcore.ops.cuda_kernels import conv

pytestmark = pytest.mark.emulator

# (x shape NHWC, filter (kh, kw), out channels, strides, dilations, padding, explicit paddings)
CASES = [
    ((2, 7, 9, 3), (3, 3), 5, (1, 1), (1, 1), "SAME", ()),
    ((1, 8, 8, 4), (3, 3), 130, (2, 2), (1, 1), "SAME", ()),     # C % 4 == 0 (float4 gathers), CO > BN
    ((2, 9, 7, 2), (2, 3), 3, (2, 1), (2, 1), "VALID", ()),       # mixed strides and dilations
    ((1, 6, 5, 3), (3, 2), 4, (1, 2), (1, 1), "EXPLICIT", (0, 0, 1, 2, 0, 1, 0, 0)),
    ((1, 1, 1, 1), (1, 1), 1, (1, 1), (1, 1), "VALID", ()),
]


def _attrs(case):
    x_shape, (kh, kw), co, s, d, padding, ex = case
    return x_shape, (kh, kw), co, (1, *s, 1), (1, *d, 1), padding, ex


def _pads(x_shape, kh, kw, strides, dilations, padding, ex):
    oh, ow, ph, pw = conv_geometry(x_shape, kh, kw, strides, dilations, padding, ex)
    return (oh, ow), (ph[0], ph[1], pw[0], pw[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES)
def test_conv2d_forward(kb, rng, case, dtype):
    x_shape, (kh, kw), co, strides, dilations, padding, ex = _attrs(case)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal((kh, kw, x_shape[3], co)).astype(dtype)
    y = conv.conv2d_forward(kb, x, w, strides, dilations, padding, ex)
    _, pads = _pads(x_shape, kh, kw, strides, dilations, padding, ex)
    ref = conv2d_ref(x, w, strides[1:3], dilations[1:3], pads)
    assert y.shape == ref.shape and y.dtype == dtype
    np.testing.assert_allclose(y.astype(np.float64), ref.astype(np.float64), *tol(dtype, kh * kw * x_shape[3]))


@pytest.mark.parametrize("case", CASES)
def test_conv2d_gradients(kb, rng, case):
    x_shape, (kh, kw), co, strides, dilations, padding, ex = _attrs(case)
    (oh, ow), pads = _pads(x_shape, kh, kw, strides, dilations, padding, ex)
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((kh, kw, x_shape[3], co)).astype(np.float32)
    dy = rng.standard_normal((x_shape[0], oh, ow, co)).astype(np.float32)
    dx = conv.conv2d_input_grad(kb, w, dy, x_shape, strides, dilations, padding, ex)
    np.testing.assert_allclose(dx, conv2d_input_grad_ref(w, dy, x_shape, strides[1:3], dilations[1:3], pads),
                               *tol(np.float32, kh * kw * co))
    dw = conv.conv2d_filter_grad(kb, x, dy, w.shape, strides, dilations, padding, ex)
    np.testing.assert_allclose(dw, conv2d_filter_grad_ref(x, dy, w.shape, strides[1:3], dilations[1:3], pads),
                               *tol(np.float32, x_shape[0] * oh * ow))


def test_conv2d_gradients_f16(kb, rng):
    x_shape, (kh, kw), co, strides, dilations, padding, ex = _attrs(CASES[0])
    (oh, ow), pads = _pads(x_shape, kh, kw, strides, dilations, padding, ex)
    x = rng.standard_normal(x_shape).astype(np.float16)
    w = rng.standard_normal((kh, kw, x_shape[3], co)).astype(np.float16)
    dy = rng.standard_normal((x_shape[0], oh, ow, co)).astype(np.float16)
    dx = conv.conv2d_input_grad(kb, w, dy, x_shape, strides, dilations, padding, ex)
    dw = conv.conv2d_filter_grad(kb, x, dy, w.shape, strides, dilations, padding, ex)
    assert dx.dtype == dw.dtype == np.float16
    np.testing.assert_allclose(dx.astype(np.float64), conv2d_input_grad_ref(w, dy, x_shape, (1, 1), (1, 1), pads)
                               .astype(np.float64), *tol(np.float16, kh * kw * co))
    np.testing.assert_allclose(dw.astype(np.float64), conv2d_filter_grad_ref(x, dy, w.shape, (1, 1), (1, 1), pads)
                               .astype(np.float64), *tol(np.float16, x_shape[0] * oh * ow))


@pytest.mark.parametrize("case", [
    ((2, 7, 6, 3), (3, 3), 2, (1, 1), (1, 1), "SAME", ()),
    ((1, 9, 8, 5), (2, 3), 1, (2, 2), (1, 2), "VALID", ()),
])
def test_depthwise(kb, rng, case):
    x_shape, (kh, kw), q, strides, dilations, padding, ex = _attrs(case)
    (oh, ow), pads = _pads(x_shape, kh, kw, strides, dilations, padding, ex)
    s, d = strides[1:3], dilations[1:3]
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal((kh, kw, x_shape[3], q)).astype(np.float32)
    dy = rng.standard_normal((x_shape[0], oh, ow, x_shape[3] * q)).astype(np.float32)
    y = conv.depthwise_forward(kb, x, w, strides, dilations, padding, ex)
    np.testing.assert_allclose(y, depthwise_forward_ref(x, w, s, d, pads), *tol(np.float32, kh * kw))
    dx = conv.conv2d_input_grad(kb, w, dy, x_shape, strides, dilations, padding, ex, depthwise=True)
    np.testing.assert_allclose(dx, depthwise_input_grad_ref(w, dy, x_shape, s, d, pads), *tol(np.float32, kh * kw * q))
    dw = conv.conv2d_filter_grad(kb, x, dy, w.shape, strides, dilations, padding, ex, depthwise=True)
    np.testing.assert_allclose(dw, depthwise_filter_grad_ref(x, dy, w.shape, s, d, pads),
                               *tol(np.float32, x_shape[0] * oh * ow))


def test_conv2d_empty_sizes(kb):
    one = (1, 1, 1, 1)
    x = np.ones((0, 4, 4, 2), np.float32)
    w = np.ones((3, 3, 2, 5), np.float32)
    assert conv.conv2d_forward(kb, x, w, one, one, "SAME").shape == (0, 4, 4, 5)
    x = np.ones((1, 4, 4, 0), np.float32)          # no input channels: every output is an empty sum
    y = conv.conv2d_forward(kb, x, np.ones((3, 3, 0, 5), np.float32), one, one, "SAME")
    np.testing.assert_array_equal(y, np.zeros((1, 4, 4, 5)))
    dx = conv.conv2d_input_grad(kb, w, np.ones((0, 4, 4, 5), np.float32), (0, 4, 4, 2), one, one, "SAME")
    assert dx.shape == (0, 4, 4, 2)
    dw = conv.conv2d_filter_grad(kb, np.ones((0, 4, 4, 2), np.float32), np.ones((0, 4, 4, 5), np.float32),
                                 (3, 3, 2, 5), one, one, "SAME")
    np.testing.assert_array_equal(dw, np.zeros((3, 3, 2, 5)))
