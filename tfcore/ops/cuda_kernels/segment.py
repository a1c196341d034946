"""CUDA launches of kernels/segment.cu; registered for UnsortedSegmentProd and SegmentProd.

float16, float32, float64, int32 and int64 data (the kernel's entries); int32 ids are widened to int64. Other dtypes
have no GPU candidate and run on the CPU. Both launches are 1-D grid-stride loops: over data's elements
(unsorted: atomicCAS products into an output of ones) or over the output's elements (sorted: each thread
multiplies its segment's rows in order, deterministically).
"""

import math

import numpy as np

from ...backend.kernel_library import kernel_define
from .. import math_reduction_ops as _mr
from ._util import contiguous, grid_1d, i64, register_cuda

THREADS = kernel_define("segment", "SG_THREADS")
SUFFIX = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
          np.dtype(np.int32): "i32", np.dtype(np.int64): "i64"}


def _rows_and_ids(xp, data, ids):
    """(data as [rows, inner] contiguous, flat int64 ids, rows, inner, the output's trailing dims)."""
    rest = tuple(data.shape[ids.ndim:])
    flat_ids = contiguous(xp, ids.reshape(-1)).astype(xp.int64, copy=False)
    return contiguous(xp, data), flat_ids, flat_ids.size, math.prod(rest), rest


def unsorted_segment_prod(b, data, ids, *, num_segments):
    """``out[s] = prod(data[j] for ids[j] == s)``, any id order; negative ids dropped, empty segments 1;
    an id ``>= num_segments`` raises TF's InvalidArgumentError before anything is launched."""
    xp = b.xp
    data, flat_ids, rows, inner, rest = _rows_and_ids(xp, data, ids)
    _mr.check_segment_ids(xp, flat_ids, num_segments, "UnsortedSegmentProd")
    out = xp.ones((num_segments,) + rest, dtype=data.dtype)
    if out.size and data.size:
        b.kernels.launch(f"unsorted_segment_prod_{SUFFIX[data.dtype]}", grid_1d(data.size, THREADS),
                         (THREADS, 1, 1), (data, flat_ids, out, i64(rows), i64(inner), i64(num_segments)))
    return out


def segment_prod(b, data, ids):
    """The same product for sorted non-negative ids (TF's errors otherwise, raised before the launch), with
    ``last id + 1`` rows, computed per output element in row order."""
    xp = b.xp
    data, flat_ids, rows, inner, rest = _rows_and_ids(xp, data, ids)
    num_segments = _mr.sorted_segment_count(xp, flat_ids)
    out = xp.empty((num_segments,) + rest, dtype=data.dtype)
    if out.size:
        b.kernels.launch(f"segment_prod_{SUFFIX[data.dtype]}", grid_1d(out.size, THREADS), (THREADS, 1, 1),
                         (data, flat_ids, out, i64(rows), i64(inner), i64(num_segments)))
    return out


register_cuda(_mr.UNSORTED_SEGMENT_PROD, unsorted_segment_prod, dtypes=tuple(SUFFIX))
register_cuda(_mr.SEGMENT_PROD, segment_prod, dtypes=tuple(SUFFIX))
