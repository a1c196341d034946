"""CUDA launches of kernels/conv2d.cu; registered for Conv2D, its backprops and depthwise conv.

Padding comes from :func:`tfcore.ops.conv_ops.conv_geometry` (TF's SAME arithmetic, or the
explicit paddings), so the kernels only see ``pad_top``/``pad_left``.
"""

from .. import conv_ops as _c
from ._util import MAX_GRID_Y, aligned, ceil_div, contiguous, grid_1d, grid_cap, i32, register_cuda, suffix

# Must match kernels/conv2d.cu (CV_BM, CV_BN, CV_THREADS, CV_GRAD_X, CV_GRAD_Y).
BM = 128
BN = 128
THREADS = 256
GRAD_X = 32
GRAD_Y = 8
DIRECT_THREADS = 256  # block of the one-thread-per-element kernels


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


def conv2d_input_grad(b, w, dy, input_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False):
    """dX of a conv (or depthwise conv) from the filter and dY."""
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
    name = f"{'depthwise' if depthwise else 'conv2d'}_input_grad_{sfx}"
    b.kernels.launch(name, grid_1d(dx.size, DIRECT_THREADS), (DIRECT_THREADS, 1, 1), (dy, w, dx) + g)
    return dx


def conv2d_filter_grad(b, x, dy, filter_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False):
    """dW of a conv (or depthwise conv) from X and dY."""
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
    rows = kh * kw if depthwise else kh * kw * c
    name = f"{'depthwise' if depthwise else 'conv2d'}_filter_grad_{sfx}"
    b.kernels.launch(name, (ceil_div(co, GRAD_X), grid_cap(rows, MAX_GRID_Y), 1), (GRAD_X, GRAD_Y, 1), (x, dy, dw) + g)
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


def _geometry_args(a):
    return a["strides"], a["dilations"], a["padding"], a["explicit_paddings"]


def _input_grad_launch(depthwise):
    return lambda b, w, dy, **a: conv2d_input_grad(b, w, dy, a["input_sizes"], *_geometry_args(a), depthwise=depthwise)


def _filter_grad_launch(depthwise):
    return lambda b, x, dy, **a: conv2d_filter_grad(b, x, dy, a["filter_sizes"], *_geometry_args(a),
                                                    depthwise=depthwise)


register_cuda(_c.CONV2D, lambda b, x, w, **a: conv2d_forward(b, x, w, *_geometry_args(a)), _forward_fits)
register_cuda(_c.CONV2D_BACKPROP_INPUT, _input_grad_launch(False))
register_cuda(_c.CONV2D_BACKPROP_FILTER, _filter_grad_launch(False))
register_cuda(_c.DEPTHWISE_CONV2D, lambda b, x, w, **a: depthwise_forward(b, x, w, *_geometry_args(a)))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_INPUT, _input_grad_launch(True))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_FILTER, _filter_grad_launch(True))
