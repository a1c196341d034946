"""CUDA launches of kernels/reduce.cu; registered for Sum, Mean, Max, Min, Prod, ArgMax, ArgMin.

The reduced axes are brought into an ``[outer, R, inner]`` view: when they form one contiguous
run of axes no data moves; otherwise the input is transposed (kept axes first) into
``[outer, R, 1]``. Rows (inner == 1) and columns (inner > 1) have separate kernels; both split
long reductions across blocks when the GPU would otherwise have too few blocks to stay busy:
both in ONE launch (``reduce_rows_split_*`` / ``reduce_cols_split_*``: the last block of a row, or
of an output column tile, to finish combines its float32 partials in a fixed order; partials and
tickets live in a small per-device workspace). Columns use a (bx, by) block of 256 threads whose
x covers bx * V consecutive inner positions (V = 4 with vector loads when inner % 4 == 0 and the data
is aligned; bx < 32 when inner is small, so a warp reads several rows instead of idling).
"""

import math

import numpy as np

from ...backend.kernel_library import kernel_define
from ..registry import get_op
from ._util import MAX_GRID_Y, aligned, ceil_div, contiguous, grid_cap, i32, i64, register_cuda, suffix, workspace

# Block sizes, read from kernels/reduce.cu's #defines (the one place they are written).
THREADS = kernel_define("reduce", "RD_THREADS")
COLS_X = kernel_define("reduce", "RD_COLS_X")  # widest column block; argreduce_cols_*: block (COLS_X, COLS_Y)
COLS_Y = kernel_define("reduce", "RD_COLS_Y")
UNROLL = kernel_define("reduce", "RD_UNROLL")
VEC = kernel_define("reduce", "RD_VEC")  # elements per vector load (float4, or 4 halves)
# Two-pass heuristics: aim for at least TARGET_BLOCKS blocks; a split handles >= SPLIT_CHUNK items.
TARGET_BLOCKS = 1024
SPLIT_CHUNK = 8192
SPLIT_MIN_COLS_R = 1024
SPLIT_COLS_ITERS = 64  # a column split walks at least this many rows per thread (RD_THREADS / bx rows a step)

OP_CODES = {"sum": 0, "max": 1, "min": 2, "prod": 3}
_IDENTITY = {"sum": 0.0, "max": -np.inf, "min": np.inf, "prod": 1.0}


def to_layout(xp, x, axes):
    """(contiguous array, outer, R, inner) with the ``axes`` of ``x`` reduced to the middle dim."""
    nd = x.ndim
    axes = sorted(a % nd for a in axes) if nd else []
    shape = x.shape
    if axes and axes == list(range(axes[0], axes[-1] + 1)):
        x = contiguous(xp, x)
        outer = math.prod(shape[:axes[0]])
        r = math.prod(shape[axes[0]:axes[-1] + 1])
        return x, outer, r, math.prod(shape[axes[-1] + 1:])
    if not axes:
        return contiguous(xp, x), math.prod(shape), 1, 1
    kept = [i for i in range(nd) if i not in axes]
    x = xp.ascontiguousarray(xp.transpose(x, kept + axes))
    return x, math.prod(shape[i] for i in kept), math.prod(shape[i] for i in axes), 1


def _pow2_threads(n):
    return int(min(THREADS, max(32, 1 << max(0, (int(n) - 1).bit_length()))))


def _rows(b, x, y, outer, r, splits, code, scale, name, vec):
    threads = _pow2_threads(ceil_div(r, (VEC if vec else 1) * splits))
    b.kernels.launch(name, (grid_cap(outer * splits, MAX_GRID_Y), 1, 1), (threads, 1, 1),
                     (x, y, i64(outer), i64(r), i32(splits), i32(code), np.float32(scale), i32(vec)))


def _make_split_workspace(xp):
    return lambda need: (xp.zeros(need[0], np.float32), xp.zeros(need[1], np.uint32))


def _split_workspace(b, outer, splits):
    """(float32 partials >= outer * splits, uint32 row tickets >= outer, zeroed once) for ``b``."""
    return workspace(b, "reduce_rows_split", (outer * splits, outer), _make_split_workspace(b.xp))


def _cols_workspace(b, partials, tiles):
    """(float32 partials >= ``partials``, uint32 tickets >= ``tiles`` output tiles, zeroed once) of the
    column kernels, kept apart from the rows' workspace."""
    return workspace(b, "reduce_cols_split", (partials, tiles), _make_split_workspace(b.xp))


def _rows_split(b, x, y, outer, r, splits, code, scale, sfx, vec):
    part, tickets = _split_workspace(b, outer, splits)
    threads = _pow2_threads(ceil_div(r, (VEC if vec else 1) * splits))
    try:
        b.kernels.launch(f"reduce_rows_split_{sfx}", (grid_cap(outer * splits, MAX_GRID_Y), 1, 1), (threads, 1, 1),
                         (x, y, part, tickets, i64(outer), i64(r), i32(splits), i32(code), np.float32(scale),
                          i32(vec)))
    except BaseException:
        workspace.drop(b, "reduce_rows_split")  # a launch that failed half-way may leave tickets taken
        raise


def cols_block(inner, vec):
    """(bx, by) of a column-reduction block: bx threads (a power of two <= COLS_X) cover bx * V inner
    positions, by = THREADS / bx rows advance together."""
    v = VEC if vec else 1
    bx = int(min(COLS_X, 1 << max(0, (ceil_div(inner, v) - 1).bit_length())))
    return bx, THREADS // bx


def _cols(b, x, y, outer, r, inner, splits, code, scale, sfx, vec):
    bx, by = cols_block(inner, vec)
    tiles = ceil_div(inner, bx * (VEC if vec else 1))
    grid = (tiles, grid_cap(outer * splits, MAX_GRID_Y), 1)
    if splits <= 1:
        b.kernels.launch(f"reduce_cols_{sfx}", grid, (bx, by, 1),
                         (x, y, i64(outer), i64(r), i64(inner), i32(code), np.float32(scale), i32(vec)))
        return
    # Partials [outer, splits, inner]; one ticket per output tile (o, x-block).
    part, tickets = _cols_workspace(b, outer * splits * inner, outer * tiles)
    try:
        b.kernels.launch(f"reduce_cols_split_{sfx}", grid, (bx, by, 1),
                         (x, y, part, tickets, i64(outer), i64(r), i64(inner), i32(splits), i32(code),
                          np.float32(scale), i32(vec)))
    except BaseException:
        workspace.drop(b, "reduce_cols_split")
        raise


def reduce_layout(b, x, outer, r, inner, op, scale=1.0, splits=None):
    """Reduce contiguous ``x`` viewed as [outer, r, inner] -> flat array of outer * inner (x's dtype).

    ``splits`` forces the number of blocks per reduced row (1: single pass); None chooses.
    """
    xp = b.xp
    sfx = suffix(x.dtype)
    code = OP_CODES[op]
    out = xp.empty(outer * inner, dtype=x.dtype)
    if out.size == 0:
        return out
    if r == 0:
        out.fill(_IDENTITY[op] if scale == 1.0 else np.nan)  # empty mean: 0/0
        return out
    if inner == 1:
        vec = r % VEC == 0 and aligned(x, VEC * x.dtype.itemsize)
        if splits is None:
            splits = 1
            if r >= 4 * SPLIT_CHUNK and outer < TARGET_BLOCKS:
                splits = min(ceil_div(r, SPLIT_CHUNK), ceil_div(TARGET_BLOCKS, outer))
        if splits <= 1:
            _rows(b, x, out, outer, r, 1, code, scale, f"reduce_rows_{sfx}", vec)
            return out
        _rows_split(b, x, out, outer, r, splits, code, scale, sfx, vec)
        return out
    vec = inner % VEC == 0 and aligned(x, VEC * x.dtype.itemsize)
    bx, by = cols_block(inner, vec)
    if splits is None:
        splits = 1
        blocks = ceil_div(inner, bx * (VEC if vec else 1)) * outer
        if r >= SPLIT_MIN_COLS_R and blocks < TARGET_BLOCKS:
            splits = max(1, min(r // (by * SPLIT_COLS_ITERS), ceil_div(TARGET_BLOCKS, blocks)))
    _cols(b, x, out, outer, r, inner, splits, code, scale, sfx, vec)
    return out


def reduce_axes(b, x, axes, keepdims, op, splits=None):
    """``op`` in sum/mean/max/min/prod over ``axes`` of ``x`` (float32 / float16)."""
    xp = b.xp
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape)) if keepdims else \
        tuple(d for i, d in enumerate(x.shape) if i not in axes)
    x3, outer, r, inner = to_layout(xp, x, axes)
    if op == "mean":
        flat = reduce_layout(b, x3, outer, r, inner, "sum", 1.0 / r if r else float("nan"), splits)
    else:
        flat = reduce_layout(b, x3, outer, r, inner, op, 1.0, splits)
    return flat.reshape(out_shape)


def argreduce_axis(b, x, axis, is_min):
    """int64 index of the first max (or min) along ``axis``."""
    xp = b.xp
    x = contiguous(xp, x)
    outer, r, inner = math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:])
    out = xp.empty(outer * inner, dtype=np.int64)
    if out.size:
        sfx = suffix(x.dtype)
        if inner == 1:
            b.kernels.launch(f"argreduce_rows_{sfx}", (grid_cap(outer, MAX_GRID_Y), 1, 1), (_pow2_threads(r), 1, 1),
                             (x, out, i64(outer), i64(r), i32(is_min)))
        else:
            b.kernels.launch(f"argreduce_cols_{sfx}", (ceil_div(inner, COLS_X), grid_cap(outer, MAX_GRID_Y), 1),
                             (COLS_X, COLS_Y, 1), (x, out, i64(outer), i64(r), i64(inner), i32(is_min)))
    return out.reshape(x.shape[:axis] + x.shape[axis + 1:])


# -- registrations ------------------------------------------------------------------------------

def _reduce_launch(kind):
    return lambda b, x, *, axis, keepdims: reduce_axes(b, x, axis, keepdims, kind)


def _argreduce_launch(is_min):
    return lambda b, x, *, axis, output_type: argreduce_axis(b, x, axis, is_min).astype(
        output_type.as_numpy_dtype, copy=False)


for _name, _kind in (("Sum", "sum"), ("Mean", "mean"), ("Max", "max"), ("Min", "min"), ("Prod", "prod")):
    register_cuda(get_op(_name), _reduce_launch(_kind))
register_cuda(get_op("ArgMax"), _argreduce_launch(0))
register_cuda(get_op("ArgMin"), _argreduce_launch(1))
