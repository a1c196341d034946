"""CUDA launches of kernels/conv2d.cu; registered for Conv2D, its backprops and depthwise conv.

Padding comes from :func:`tfcore.ops.conv_ops.conv_geometry` (TF's SAME arithmetic, or the
explicit paddings), so the kernels only see ``pad_top``/``pad_left``.

Forward, input gradient and filter gradient are implicit GEMMs on the 128x128 SIMT tile. The
filter gradient reduces over N*OH*OW, which is split across ``gridDim.z`` slices
(:func:`filter_grad_splits`): each slice writes float32 partials ``[splits, taps, CO]`` and
``conv2d_filter_grad_sum_*`` adds them in a fixed order (deterministic, no atomics).
"""

import numpy as np

from .. import conv_ops as _c
from ._util import MAX_GRID_Y, aligned, ceil_div, contiguous, grid_1d, grid_cap, i32, i64, register_cuda, suffix

# Must match kernels/conv2d.cu (CV_BM, CV_BN, CV_BK, CV_THREADS, CV_MIN_BLOCKS, CV_GRAD_X, CV_GRAD_Y,
# CV_SUM_THREADS); tests/kernels/test_tile_constants.py checks them.
BM = 128
BN = 128
BK = 8
THREADS = 256
MIN_BLOCKS = 2  # resident GEMM blocks per SM (__launch_bounds__)
GRAD_X = 32
GRAD_Y = 8
SUM_THREADS = 256
DIRECT_THREADS = 256  # block of the one-thread-per-element kernels

# Split-K sizing of the filter gradients: aim for SPLIT_WAVES waves of blocks on a GPU with
# SPLIT_SMS SMs (H100 SXM: 132), keep every slice at least MIN_SPLIT_ROWS rows of N*OH*OW long, and
# the float32 partial buffer at most MAX_PARTIAL_ELEMS elements (32 MiB).
SPLIT_SMS = 132
SPLIT_WAVES = 2
MIN_SPLIT_ROWS = 256
MAX_PARTIAL_ELEMS = 1 << 23


def _geom(x_shape, w_shape, co, strides, dilations, padding, explicit_paddings):
    """The kernels' geometry tuple (N, H, W, C, OH, OW, KH, KW, CO, sh, sw, dh, dw, pt, pl)."""
    n, h, wd, c = x_shape
    kh, kw = w_shape[0], w_shape[1]
    oh, ow, ph, pw = _c.conv_geometry(x_shape, kh, kw, strides, dilations, padding, explicit_paddings)
    vals = (n, h, wd, c, oh, ow, kh, kw, co, strides[1], strides[2], dilations[1], dilations[2], ph[0], pw[0])
    return tuple(i32(v) for v in vals)


def conv2d_forward(b, x, w, strides, dilations, padding, explicit_paddings=()):
    """Implicit-GEMM forward: NHWC ``x``, HWIO ``w``."""
    xp = b.xp
    sfx = suffix(x.dtype)
    x, w = contiguous(xp, x), contiguous(xp, w)
    co = w.shape[3]
    g = _geom(x.shape, w.shape, co, strides, dilations, padding, explicit_paddings)
    n, oh, ow = x.shape[0], int(g[4]), int(g[5])
    if min(n, oh, ow, co) <= 0:
        return xp.zeros((max(n, 0), max(oh, 0), max(ow, 0), co), dtype=x.dtype)
    if w.size == 0:  # C == 0 or an empty window: every output is an empty sum
        return xp.zeros((n, oh, ow, co), dtype=x.dtype)
    y = xp.empty((n, oh, ow, co), dtype=x.dtype)
    m = n * oh * ow
    vec_x = sfx == "f32" and x.shape[3] % 4 == 0 and aligned(x)
    vec_w = sfx == "f32" and co % 4 == 0 and aligned(w)
    b.kernels.launch(f"conv2d_fwd_{sfx}", (ceil_div(co, BN), ceil_div(m, BM), 1), (THREADS, 1, 1),
                     (x, w, y) + g + (i32(vec_x), i32(vec_w)))
    return y


def filter_grad_splits(base_blocks, rows, out_elems, min_rows=MIN_SPLIT_ROWS):
    """``(splits, rows_per_split)`` for a filter gradient that reduces over ``rows`` (= N*OH*OW) with
    ``base_blocks`` blocks per slice and ``out_elems`` outputs: enough slices for SPLIT_WAVES waves of
    SPLIT_SMS * MIN_BLOCKS blocks, each slice at least ``min_rows`` long (a multiple of BK), the
    partial buffer at most MAX_PARTIAL_ELEMS floats, and no empty slice."""
    want = ceil_div(SPLIT_WAVES * SPLIT_SMS * MIN_BLOCKS, max(base_blocks, 1))
    return _split_rows(rows, min(want, rows // max(min_rows, 1), MAX_PARTIAL_ELEMS // max(out_elems, 1)))


def _split_rows(rows, splits):
    """``(splits, rows_per_split)`` for about ``splits`` slices of ``rows``: rows_per_split a multiple of
    BK below 2**30 (the kernels count a slice's rows in int32), at most MAX_GRID_Y slices, none empty."""
    splits = max(1, min(splits, MAX_GRID_Y), ceil_div(rows, 1 << 30))
    per = ceil_div(ceil_div(rows, splits), BK) * BK
    return ceil_div(rows, per), per


def _sum_partials(b, part, dw, splits, sfx):
    """dW = the sum of the ``splits`` slices of ``part`` (float32 ``[splits, taps, CO]``), in dW's dtype."""
    if splits == 1 and part is dw:
        return
    count = dw.size
    b.kernels.launch(f"conv2d_filter_grad_sum_{sfx}", grid_1d(count, SUM_THREADS), (SUM_THREADS, 1, 1),
                     (part, dw, i32(splits), i64(count)))


def conv2d_input_grad(b, w, dy, input_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False):
    """dX of a conv (or depthwise conv) from the filter and dY; dense: an implicit GEMM
    dX[N*H*W, C] = dY'[N*H*W, KH*KW*CO] @ W'[KH*KW*CO, C]."""
    xp = b.xp
    sfx = suffix(dy.dtype)
    w, dy = contiguous(xp, w), contiguous(xp, dy)
    co = w.shape[2] * w.shape[3] if depthwise else w.shape[3]
    dx = xp.empty(tuple(input_sizes), dtype=dy.dtype)
    if dx.size == 0:
        return dx
    if dy.size == 0 or w.size == 0:
        return xp.zeros(tuple(input_sizes), dtype=dy.dtype)
    g = _geom(tuple(input_sizes), w.shape, co, strides, dilations, padding, explicit_paddings)
    if depthwise:
        b.kernels.launch(f"depthwise_input_grad_{sfx}", grid_1d(dx.size, DIRECT_THREADS), (DIRECT_THREADS, 1, 1),
                         (dy, w, dx) + g)
        return dx
    n, h, wd, c = input_sizes
    vec = sfx == "f32" and co % 4 == 0
    grid = (ceil_div(n * h * wd, BM), ceil_div(c, BN), 1)
    b.kernels.launch(f"conv2d_input_grad_{sfx}", grid, (THREADS, 1, 1),
                     (dy, w, dx) + g + (i32(vec and aligned(dy)), i32(vec and aligned(w))))
    return dx


def conv2d_filter_grad(b, x, dy, filter_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False,
                       *, splits=None):
    """dW of a conv (or depthwise conv) from X and dY, split over N*OH*OW across blocks (``splits``
    slices; None: :func:`filter_grad_splits` picks from the problem size)."""
    xp = b.xp
    sfx = suffix(x.dtype)
    x, dy = contiguous(xp, x), contiguous(xp, dy)
    kh, kw, c, q = filter_sizes
    co = c * q if depthwise else q
    dw = xp.empty(tuple(filter_sizes), dtype=x.dtype)
    if dw.size == 0:
        return dw
    if dy.size == 0 or x.size == 0:
        return xp.zeros(tuple(filter_sizes), dtype=x.dtype)
    g = _geom(x.shape, filter_sizes, co, strides, dilations, padding, explicit_paddings)
    rows = x.shape[0] * int(g[4]) * int(g[5])
    taps = kh * kw if depthwise else kh * kw * c
    if depthwise:
        grid_xy, block = (ceil_div(co, GRAD_X), grid_cap(taps, MAX_GRID_Y)), (GRAD_X, GRAD_Y, 1)
    else:
        grid_xy, block = (ceil_div(taps, BM), ceil_div(co, BN)), (THREADS, 1, 1)
    base = grid_xy[0] * grid_xy[1]
    if splits is None:
        nsplit, per = filter_grad_splits(base, rows, dw.size)
    else:
        nsplit, per = _split_rows(rows, splits)
    # One float32 slice is dW itself for float32 dW; otherwise partials, summed (and converted) below.
    part = dw if nsplit == 1 and sfx == "f32" else xp.empty((nsplit, taps, co), dtype=np.float32)
    if depthwise:
        args = (x, dy, part) + g + (i32(per),)
        b.kernels.launch(f"depthwise_filter_grad_{sfx}", grid_xy + (nsplit,), block, args)
    else:
        vec_x = sfx == "f32" and c % 4 == 0 and aligned(x)
        vec_dy = sfx == "f32" and co % 4 == 0 and aligned(dy)
        args = (x, dy, part) + g + (i32(per // BK), i32(vec_x), i32(vec_dy))
        b.kernels.launch(f"conv2d_filter_grad_{sfx}", grid_xy + (nsplit,), block, args)
    _sum_partials(b, part, dw, nsplit, sfx)
    return dw


def depthwise_forward(b, x, w, strides, dilations, padding, explicit_paddings=()):
    xp = b.xp
    sfx = suffix(x.dtype)
    x, w = contiguous(xp, x), contiguous(xp, w)
    co = w.shape[2] * w.shape[3]
    g = _geom(x.shape, w.shape, co, strides, dilations, padding, explicit_paddings)
    shape = (x.shape[0], int(g[4]), int(g[5]), co)
    if min(shape) <= 0:
        return xp.zeros(tuple(max(s, 0) for s in shape), dtype=x.dtype)
    y = xp.empty(shape, dtype=x.dtype)
    b.kernels.launch(f"depthwise_fwd_{sfx}", grid_1d(y.size, DIRECT_THREADS), (DIRECT_THREADS, 1, 1), (x, w, y) + g)
    return y


# -- registrations ------------------------------------------------------------------------------

def _forward_fits(x, w, *, strides, padding, explicit_paddings, dilations, **_):
    """The implicit-GEMM grid has ceil(N*OH*OW / BM) rows in gridDim.y."""
    oh, ow, _, _ = _c.conv_geometry(x.shape, w.shape[0], w.shape[1], strides, dilations, padding, explicit_paddings)
    return ceil_div(x.shape[0] * oh * ow, BM) <= MAX_GRID_Y


def _input_grad_fits(w, dy, *, input_sizes, **_):
    """The dgrad GEMM has ceil(C / BN) column tiles in gridDim.y."""
    return ceil_div(int(input_sizes[3]), BN) <= MAX_GRID_Y


def _filter_grad_fits(x, dy, *, filter_sizes, **_):
    """The wgrad GEMM has ceil(CO / BN) column tiles in gridDim.y and indexes one image of X in int32."""
    _, h, wd, c = x.shape
    return ceil_div(int(filter_sizes[3]), BN) <= MAX_GRID_Y and h * wd * c < 2**31


def _geometry_args(a):
    return a["strides"], a["dilations"], a["padding"], a["explicit_paddings"]


def _input_grad_launch(depthwise):
    return lambda b, w, dy, **a: conv2d_input_grad(b, w, dy, a["input_sizes"], *_geometry_args(a), depthwise=depthwise)


def _filter_grad_launch(depthwise):
    return lambda b, x, dy, **a: conv2d_filter_grad(b, x, dy, a["filter_sizes"], *_geometry_args(a),
                                                    depthwise=depthwise)


register_cuda(_c.CONV2D, lambda b, x, w, **a: conv2d_forward(b, x, w, *_geometry_args(a)), _forward_fits)
register_cuda(_c.CONV2D_BACKPROP_INPUT, _input_grad_launch(False), _input_grad_fits)
register_cuda(_c.CONV2D_BACKPROP_FILTER, _filter_grad_launch(False), _filter_grad_fits)
register_cuda(_c.DEPTHWISE_CONV2D, lambda b, x, w, **a: depthwise_forward(b, x, w, *_geometry_args(a)))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_INPUT, _input_grad_launch(True))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_FILTER, _filter_grad_launch(True))
