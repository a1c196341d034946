"""CUDA launches of kernels/pool.cu; registered for MaxPool, MaxPoolGrad, AvgPool, AvgPoolGrad.

One thread per output (forward) or per input element (backward), 1-D grid-stride launches.
"""

from ...backend.kernel_library import kernel_define
from .. import pool_ops as _p
from ._util import contiguous, grid_1d, i32, register_cuda, suffix

THREADS = kernel_define("pool", "PL_THREADS")


def _geom(shape, ksize, strides, padding, explicit_paddings):
    """(N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl) as kernel int32 scalars."""
    oh, ow, ph, pw = _p.pool_geometry(shape, ksize, strides, padding, explicit_paddings)
    n, h, w, c = shape
    return tuple(i32(v) for v in (n, h, w, c, oh, ow, ksize[1], ksize[2], strides[1], strides[2], ph[0], pw[0]))


def pool_forward(b, x, kind, ksize, strides, padding, explicit_paddings=()):
    """``kind`` is ``'max'`` or ``'avg'``."""
    xp = b.xp
    x = contiguous(xp, x)
    g = _geom(x.shape, ksize, strides, padding, explicit_paddings)
    y = xp.empty((x.shape[0], int(g[4]), int(g[5]), x.shape[3]), dtype=x.dtype)
    if y.size:
        b.kernels.launch(f"{kind}_pool_fwd_{suffix(x.dtype)}", grid_1d(y.size, THREADS), (THREADS, 1, 1), (x, y) + g)
    return y


def max_pool_backward(b, x, dy, ksize, strides, padding, explicit_paddings=()):
    """dX: each dY goes to the first maximum of its window (row-major), as TF."""
    xp = b.xp
    x, dy = contiguous(xp, x), contiguous(xp, dy)
    g = _geom(x.shape, ksize, strides, padding, explicit_paddings)
    dx = xp.empty(x.shape, dtype=dy.dtype)
    if dx.size == 0:
        return dx
    if dy.size == 0:
        return xp.zeros(x.shape, dtype=dy.dtype)
    b.kernels.launch(f"max_pool_bwd_{suffix(x.dtype)}", grid_1d(dx.size, THREADS), (THREADS, 1, 1), (x, dy, dx) + g)
    return dx


def avg_pool_backward(b, dy, input_shape, ksize, strides, padding):
    xp = b.xp
    dy = contiguous(xp, dy)
    g = _geom(tuple(input_shape), ksize, strides, padding, ())
    dx = xp.empty(tuple(input_shape), dtype=dy.dtype)
    if dx.size == 0:
        return dx
    if dy.size == 0:
        return xp.zeros(tuple(input_shape), dtype=dy.dtype)
    b.kernels.launch(f"avg_pool_bwd_{suffix(dy.dtype)}", grid_1d(dx.size, THREADS), (THREADS, 1, 1), (dy, dx) + g)
    return dx


def _window(a):
    return a["ksize"], a["strides"], a["padding"]


register_cuda(_p.MAX_POOL, lambda b, x, **a: pool_forward(b, x, "max", *_window(a), a["explicit_paddings"]))
register_cuda(_p.MAX_POOL_GRAD, lambda b, x, y, dy, **a: max_pool_backward(b, x, dy, *_window(a),
                                                                           a["explicit_paddings"]))
# AvgPool has no explicit padding (pool_ops rejects it): SAME/VALID only.
register_cuda(_p.AVG_POOL, lambda b, x, **a: pool_forward(b, x, "avg", *_window(a)))
register_cuda(_p.AVG_POOL_GRAD, lambda b, dy, **a: avg_pool_backward(b, dy, a["orig_input_shape"], *_window(a)))
