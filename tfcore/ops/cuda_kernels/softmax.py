"""CUDA launches of kernels/softmax.cu; registered for Softmax, LogSoftmax and
SparseSoftmaxCrossEntropyWithLogits.

Rows of up to WARP_COLS_MAX take a warp each and rows of up to BLOCK_COLS_MAX a block each, the
row held in registers (one read, one write per element); longer rows take the two-read
``*_long_*`` fallback. ``vec``: vector loads/stores when every row is 4-element aligned.
"""

import math

import numpy as np

from ...backend.kernel_library import kernel_define
from .. import loss_ops as _l
from .. import nn_ops as _n
from ._util import MAX_GRID_Y, aligned, ceil_div, contiguous, grid_cap, i32, i64, register_cuda, suffix

# Block sizes and row-length limits, read from kernels/softmax.cu's #defines (the one place they are written).
THREADS = kernel_define("softmax", "SM_THREADS")
VEC = kernel_define("softmax", "SM_VEC")
CACHE_VECS = kernel_define("softmax", "SM_CACHE_VECS")
WARP_COLS_MAX = kernel_define("softmax", "SM_WARP_COLS_MAX")  # one warp per row, the row in registers
BLOCK_COLS_MAX = kernel_define("softmax", "SM_BLOCK_COLS_MAX")  # one block per row; longer rows: two reads


def _variant(cols):
    """'warp', 'block' or 'long': which kernel of a family handles rows of ``cols``."""
    if cols <= WARP_COLS_MAX:
        return "warp"
    return "block" if cols <= BLOCK_COLS_MAX else "long"


def _blocks_for(variant, rows):
    if variant == "warp":
        return (grid_cap(ceil_div(rows, THREADS // 32), MAX_GRID_Y), 1, 1)
    return (grid_cap(rows, MAX_GRID_Y), 1, 1)


def _vec(cols, *arrays):
    """Vector loads/stores: every row starts on a VEC-element boundary of 16-byte (f32) / 8-byte (f16)
    aligned arrays."""
    return int(cols % VEC == 0 and all(aligned(a, VEC * a.dtype.itemsize) for a in arrays))


def softmax_last_axis(b, x, log=False):
    """softmax (or log-softmax) of ``x`` along its last axis."""
    xp = b.xp
    x = contiguous(xp, x)
    y = xp.empty(x.shape, dtype=x.dtype)
    cols = x.shape[-1] if x.ndim else 1
    rows = math.prod(x.shape[:-1]) if x.ndim else 1
    if y.size == 0:
        return y
    variant = _variant(cols)
    b.kernels.launch(f"softmax_{variant}_{suffix(x.dtype)}", _blocks_for(variant, rows), (THREADS, 1, 1),
                     (x, y, i64(rows), i64(cols), i32(log), i32(_vec(cols, x, y))))
    return y


def sparse_softmax_xent(b, logits, labels):
    """(loss[rows], dlogits[rows, classes]); out-of-range labels give NaN rows (TF's GPU kernel)."""
    xp = b.xp
    x = contiguous(xp, logits)
    rows, classes = x.shape
    if labels.dtype != np.int32:
        labels = xp.where((labels >= 0) & (labels < classes), labels, -1).astype(np.int32)
    labels = contiguous(xp, labels)
    loss = xp.empty((rows,), dtype=x.dtype)
    grad = xp.empty(x.shape, dtype=x.dtype)
    if rows == 0:
        return loss, grad
    if classes == 0:
        loss.fill(np.nan)
        return loss, grad
    variant = _variant(classes)
    name = f"sparse_xent_{suffix(x.dtype)}" if variant == "block" else f"sparse_xent_{variant}_{suffix(x.dtype)}"
    b.kernels.launch(name, _blocks_for(variant, rows), (THREADS, 1, 1),
                     (x, labels, loss, grad, i64(rows), i64(classes), i32(_vec(classes, x, grad))))
    return loss, grad


def _not_scalar(x):
    return x.ndim != 0


register_cuda(_n.SOFTMAX, softmax_last_axis, _not_scalar)
register_cuda(_n.LOG_SOFTMAX, lambda b, x: softmax_last_axis(b, x, log=True), _not_scalar)
register_cuda(_l.SPARSE_SOFTMAX_CROSS_ENTROPY, sparse_softmax_xent)
