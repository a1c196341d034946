"""Winograd convolution on the CPU: stride-1 3x3 and 5x5 float32 Conv2D (and Conv2DBackpropInput, a Conv2D of
``dy`` with the flipped filter) with fewer multiply-adds than the direct sum.

F(m x m, r x r) computes each m x m tile of outputs from an alpha x alpha tile of inputs (alpha = m + r - 1)
with alpha^2 products per (input, output) channel pair instead of m^2 r^2: F(2x2, 3x3) 16 against 36, F(2x2,
5x5) 36 against 100. The native kernel (``conv2d_winograd`` in ``kernels/cpu_kernels.cc``) transforms a tile
row at a time in each thread's cache and runs the products as the direct kernel's register-blocked GEMMs.

The matrices are Toom-Cook's on the points 0, 1, -1, 1/2, -1/2 and infinity (as many as alpha needs), made
here in float64: for the correlation ``y[i] = sum_k d[i + k] g[k]`` (Lavin & Gray's F(m, r)),
``y = AT ((G g) * (BT d))`` with ``G`` and ``AT'`` the Vandermonde evaluations of r- and m-term polynomials
at the points and ``BT`` the transposed inverse of the alpha-term one (the transposition principle applied to
Toom-Cook's polynomial product).

BT's rows are scaled to small integers (``G``'s by the inverse), so the input and output transforms round
nothing but their sums. Accuracy, measured against float64 on random data (largest error over the largest
output, median of 5 seeds per case in ``tests/ops/test_conv_winograd.py``): F(2x2, 3x3) 2.1e-7 (the direct
sum: 4.8e-7); F(2x2, 5x5) 2.6e-6, at most 7.4e-6 (the direct sum: 8.6e-7), the trade cuDNN's non-fused
Winograd makes in TensorFlow on GPUs. ``TF_ENABLE_WINOGRAD_NONFUSED=0`` (TF's switch for that algorithm)
turns it off here too; a non-finite value, which a tile's transforms would spread to the tile's other
outputs, makes the call run the direct kernel instead (im2col + GEMM where the direct kernels do not take
the shapes).

A Winograd filter gradient (F(r x r, 2 x 2), sums over the tiles in the transformed domain) was built and
measured against the direct filter gradient: 0.7-1.0x its time for 5x5 and 3x3 32->64, 1.2-1.35x for 3x3
16->32 (the dy transform writes 9x its input), so it was not kept.
"""

import functools
import os

import numpy as np

from ..backend import native_cpu

# Filter sizes of the native kernel (F(2x2, r x r): tiles of alpha = r + 1).
_SIZES = (3, 5)
_POINTS = (0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0)

# Where it pays (one Zen 4 core against the direct kernel): at least this many input and output channels (with
# 8 input channels a tile's products have 8 terms and the transforms cost as much as they save).
_MIN_CHANNELS = 16


@functools.cache
def winograd_matrices(r, m=2):
    """``(BT, AT, G)`` of F(m, r) in float64: ``BT`` alpha x alpha, ``AT`` m x alpha, ``G`` alpha x r, alpha =
    m + r - 1. Each row of ``BT`` is scaled so that its smallest nonzero entry is +-1 (small integers for 3x3
    and 5x5: the native kernel's constant ``WinogradTiles``) and the same row of ``G`` by the inverse."""
    alpha = m + r - 1
    points = _POINTS[:alpha - 1]

    def evaluation(k):  # alpha x k: row j evaluates a k-term polynomial at point j; the last row at infinity
        e = np.zeros((alpha, k))
        for j, p in enumerate(points):
            e[j] = [p ** i for i in range(k)]
        e[alpha - 1, k - 1] = 1.0
        return e

    bt = np.linalg.inv(evaluation(alpha)).T
    bt[np.abs(bt) < 1e-12] = 0.0
    scale = np.array([1.0 / np.abs(row[row != 0]).min() for row in bt])
    bt = np.round(bt * scale[:, None], 12)
    g = evaluation(r) / scale[:, None]
    return bt, np.ascontiguousarray(evaluation(m).T), np.ascontiguousarray(g)


def enabled():
    """False when ``TF_ENABLE_WINOGRAD_NONFUSED`` is ``0``/``false`` (TensorFlow's switch for its GPUs' non-fused
    Winograd convolutions)."""
    return os.environ.get("TF_ENABLE_WINOGRAD_NONFUSED", "1").strip().lower() not in ("0", "false", "off", "no")


def winograd_applies(x, w, strides, dilations):
    """Whether :func:`winograd_conv2d` takes NHWC ``x`` and the HWIO filter ``w`` (no copies made): float32,
    stride 1, no dilation, a 3x3 or 5x5 filter, input and output channels multiples of 8 and at least
    ``_MIN_CHANNELS``, the native kernels built."""
    kh, kw, c, co = w.shape
    return (kh == kw and kh in _SIZES and strides[1] == strides[2] == 1 and dilations[1] == dilations[2] == 1
            and c % 8 == 0 and co % 8 == 0 and min(c, co) >= _MIN_CHANNELS and x.dtype == np.float32
            and enabled() and native_cpu.supports(x, w, contiguous=False))


def winograd_conv2d(x, w, oh, ow, ph, pw, bias=None, relu=False):
    """``relu?(conv2d(x, w) + bias)`` for a stride-1 convolution padded by ``ph``/``pw`` (top, bottom) and
    (left, right) with ``oh x ow`` outputs, by the native Winograd kernel; None when an output was not finite
    (the caller then runs the direct kernel). Call only where :func:`winograd_applies`."""
    r = w.shape[0]
    g = winograd_matrices(r)[2]
    x = np.ascontiguousarray(x)
    w = np.ascontiguousarray(w)
    bias = None if bias is None else np.ascontiguousarray(bias)
    n, h, wd, c = x.shape
    co = w.shape[3]
    out = np.empty((n, oh, ow, co), dtype=x.dtype)
    ran = native_cpu.library().fn("tfc_conv2d_winograd", x.dtype)(
        native_cpu.ptr(x), n, h, wd, c, ph[0], ph[1], pw[0], pw[1], native_cpu.ptr(w), r, co, oh, ow,
        native_cpu.ptr(g), None if bias is None else native_cpu.ptr(bias), int(relu), native_cpu.ptr(out))
    return out if ran == 1 else None
