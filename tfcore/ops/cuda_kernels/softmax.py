"""CUDA launches of kernels/softmax.cu; registered for Softmax, LogSoftmax and
SparseSoftmaxCrossEntropyWithLogits."""

import math

import numpy as np

from .. import loss_ops as _l
from .. import nn_ops as _n
from ._util import MAX_GRID_Y, ceil_div, contiguous, grid_cap, i64, register_cuda, suffix

# Must match kernels/softmax.cu (SM_THREADS, SM_WARP_COLS_MAX).
THREADS = 256
WARP_COLS_MAX = 1024


def softmax_last_axis(b, x, log=False):
    """softmax (or log-softmax) of ``x`` along its last axis."""
    xp = b.xp
    x = contiguous(xp, x)
    y = xp.empty(x.shape, dtype=x.dtype)
    cols = x.shape[-1] if x.ndim else 1
    rows = math.prod(x.shape[:-1]) if x.ndim else 1
    if y.size == 0:
        return y
    sfx = suffix(x.dtype)
    args = (x, y, i64(rows), i64(cols), np.int32(log))
    if cols <= WARP_COLS_MAX:
        b.kernels.launch(f"softmax_warp_{sfx}", (grid_cap(ceil_div(rows, THREADS // 32), MAX_GRID_Y), 1, 1),
                         (THREADS, 1, 1), args)
    else:
        b.kernels.launch(f"softmax_block_{sfx}", (grid_cap(rows, MAX_GRID_Y), 1, 1), (THREADS, 1, 1), args)
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
    threads = int(min(THREADS, max(32, 1 << (classes - 1).bit_length())))
    b.kernels.launch(f"sparse_xent_{suffix(x.dtype)}", (grid_cap(rows, MAX_GRID_Y), 1, 1), (threads, 1, 1),
                     (x, labels, loss, grad, i64(rows), i64(classes)))
    return loss, grad


def _not_scalar(x):
    return x.ndim != 0


register_cuda(_n.SOFTMAX, softmax_last_axis, _not_scalar)
register_cuda(_n.LOG_SOFTMAX, lambda b, x: softmax_last_axis(b, x, log=True), _not_scalar)
register_cuda(_l.SPARSE_SOFTMAX_CROSS_ENTROPY, sparse_softmax_xent)
