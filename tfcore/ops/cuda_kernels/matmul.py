"""CUDA launch of kernels/matmul.cu and its registration for BatchMatMulV2.

Geometry: one block of ``THREADS`` per ``BM x BN`` tile of C, grid.z over the batch
(grid-stride past 65535). Batch broadcasting: an operand whose batch dims are all 1 gets
batch stride 0; one whose batch dims already equal the broadcast batch gets its own stride;
anything else is materialised with ``broadcast_to`` first.
"""

import numpy as np

from ..math_ops import MATMUL
from ._util import MAX_GRID_Y, aligned, ceil_div, contiguous, grid_cap, i32, i64, register_cuda, suffix

# Must match kernels/matmul.cu (MM_BM, MM_BN, MM_THREADS).
BM = 128
BN = 128
THREADS = 256


def _batch_operand(xp, x, batch_shape):
    """(array, batch stride in elements) for an operand broadcast to ``batch_shape``."""
    mat = x.shape[-2] * x.shape[-1]
    own = x.shape[:-2]
    if int(np.prod(own, dtype=np.int64)) == 1:
        return contiguous(xp, x), 0
    padded = (1,) * (len(batch_shape) - len(own)) + tuple(own)
    if padded == tuple(batch_shape):
        return contiguous(xp, x), mat
    return xp.ascontiguousarray(xp.broadcast_to(x, tuple(batch_shape) + x.shape[-2:])), mat


def launch_matmul(b, a, w, transpose_a=False, transpose_b=False, kernel=None):
    """C = op(a) @ op(w) with broadcasting batch dims, through our kernel.

    ``kernel`` overrides the entry name (tests use ``matmul_f16_simt``).
    """
    xp = b.xp
    sfx = suffix(a.dtype)
    m = a.shape[-1] if transpose_a else a.shape[-2]
    k = a.shape[-2] if transpose_a else a.shape[-1]
    n = w.shape[-2] if transpose_b else w.shape[-1]
    batch_shape = np.broadcast_shapes(a.shape[:-2], w.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    out_shape = tuple(batch_shape) + (m, n)
    if batch == 0 or m == 0 or n == 0 or k == 0:
        return xp.zeros(out_shape, dtype=a.dtype)
    a, sa = _batch_operand(xp, a, batch_shape)
    w, sb = _batch_operand(xp, w, batch_shape)
    c = xp.empty(out_shape, dtype=a.dtype)
    lda, ldb = a.shape[-1], w.shape[-1]
    q = 4 if sfx == "f32" else 8  # float4 = 4 floats; 16-byte chunk = 8 halves
    vec = all(v % q == 0 for v in (lda, ldb, sa, sb)) and aligned(a) and aligned(w)
    grid = (ceil_div(n, BN), ceil_div(m, BM), grid_cap(batch, MAX_GRID_Y))
    name = kernel or f"matmul_{sfx}"
    b.kernels.launch(name, grid, (THREADS, 1, 1),
                     (a, w, c, i32(m), i32(n), i32(k), i64(lda), i64(ldb), i64(n), i64(sa), i64(sb), i64(m * n),
                      i32(batch), i32(transpose_a), i32(transpose_b), i32(vec)))
    return c


def _grid_fits(x, y, *, transpose_a, transpose_b):
    """ceil(M / BM) blocks go in gridDim.y."""
    return ceil_div(x.shape[-1] if transpose_a else x.shape[-2], BM) <= MAX_GRID_Y


register_cuda(MATMUL, lambda b, x, y, *, transpose_a, transpose_b: launch_matmul(b, x, y, transpose_a, transpose_b),
              _grid_fits)
