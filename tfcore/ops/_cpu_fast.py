"""NumPy fast paths shared by hot CPU kernels (training steps on small batches).

NumPy's generic loops are slow on some shapes that training steps hit every step: a sum over
the leading axis of a ``[rows, channels]`` array walks it row by row (~10x slower than a BLAS
``ones @ x``), and ``maximum`` with a broadcast scalar takes a non-SIMD loop (~3x slower than
against a same-shape zeros array). The helpers here compute the same results faster (column
sums up to float rounding: BLAS adds in another order; a bias added to few channels exactly: the same
element-wise sums over longer rows); they are for the ``cpu`` backend only
(callers check ``b.kind``), CuPy keeps its own routines.

The small tables of constants (ones vectors, zeros arrays) hold read-only arrays, bounded in
count and size, keyed by shape and dtype, emptied with the context (``context.on_reset``).
"""

import numpy as np

from ..backend import blas_threads
from ..framework import context as _ctx

_BLAS = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_MAX_ENTRIES = 32            # per table; emptied when full (shapes in a training loop repeat)
_ZEROS_MAX_ELEMENTS = 1 << 20  # larger relu inputs use the scalar loop (no big shared buffers)
_BLAS_MIN_ROWS = 128           # fewer rows: NumPy's own sum is as fast
_BIAS_ROW = 256                # values per row of the tiled bias add
_BIAS_MIN_ELEMENTS = 1 << 14   # smaller outputs: np.tile costs more than the short rows do
_ones = {}
_zeros = {}


@_ctx.on_reset
def clear():
    """Drop the shared constant arrays."""
    _ones.clear()
    _zeros.clear()


def _shared(table, key, make):
    a = table.get(key)
    if a is None:
        if len(table) >= _MAX_ENTRIES:
            table.clear()
        a = table[key] = make()
        a.flags.writeable = False
    return a


def column_sums(x2):
    """``x2.sum(axis=0)`` of a 2-D NumPy array, through BLAS for float32/float64 C-contiguous input."""
    if x2.dtype not in _BLAS or not x2.flags.c_contiguous or x2.shape[0] < _BLAS_MIN_ROWS:
        return x2.sum(axis=0, dtype=x2.dtype)
    n = x2.shape[0]
    return blas_threads.matmul(_shared(_ones, (n, x2.dtype), lambda: np.ones(n, x2.dtype)), x2)


def shared_zeros_like(x):
    """A read-only zeros array shaped like ``x`` (for full-array ``maximum``), or None when ``x`` is large
    or not a float32/float64 NumPy array (a CuPy array takes a scalar zero)."""
    if type(x) is not np.ndarray or x.dtype not in _BLAS or x.size > _ZEROS_MAX_ELEMENTS:
        return None
    return _shared(_zeros, (x.shape, x.dtype), lambda: np.zeros(x.shape, x.dtype))


def add_bias(out, bias):
    """``out += bias`` in place (``bias`` along the last axis of ``out``), with exactly NumPy's values.

    With few channels NumPy's broadcast loop runs C values at a time (~4x slower than long rows): a
    C-contiguous float32/float64 ``out`` is viewed as rows of ``reps * C`` values and gets the bias
    repeated ``reps`` times (the same element-wise sums). Other arrays (CuPy's) take ``out += bias``."""
    c = bias.shape[0] if bias.ndim == 1 else 0
    if (0 < c <= _BIAS_ROW // 2 and out.size >= _BIAS_MIN_ELEMENTS and type(out) is np.ndarray
            and out.dtype in _BLAS and bias.dtype == out.dtype and out.flags.c_contiguous):
        rows = out.size // c
        for reps in range(_BIAS_ROW // c, 1, -1):
            if rows % reps == 0:
                flat = out.reshape(rows // reps, reps * c)
                flat += np.tile(bias, reps)
                return out
    out += bias
    return out
