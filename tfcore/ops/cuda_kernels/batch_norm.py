"""CUDA launches of kernels/batch_norm.cu; registered for FusedBatchNormV3 and FusedBatchNormGradV3 (float32 and
float16 ``x``, float32 statistics, every data format).

The forward runs three kernels in training (statistics partials, a per-channel finalize, the normalising pass)
and two in inference; the gradient three (per-channel sums, finalize, the ``dx`` pass). The generic xp
kernels of ``batch_norm_ops`` run about fifteen CuPy operations each (an einsum among them): the host time of
those launches made batch normalisation most of an eager ResNet50 step on the GPU. The splits of the rows
depend only on the shape, so a shape's results are the same bits on every GPU.
"""

import math

import numpy as np

from ...backend.kernel_library import kernel_define
from .. import batch_norm_ops  # noqa: F401  (registers the two ops)
from ..registry import get_op
from ._util import aligned, ceil_div, contiguous, f32, grid_1d, i32, i64, register_cuda, suffix

THREADS = kernel_define("batch_norm", "BN_THREADS")
ROWS_X = kernel_define("batch_norm", "BN_ROWS_X")
ROWS_Y = kernel_define("batch_norm", "BN_ROWS_Y")
FIN_THREADS = kernel_define("batch_norm", "BN_FIN_THREADS")
VEC = 4  # elements per vector access of the element-wise passes (tfc_vload4 / tfc_vstore4)

_TARGET_BLOCKS = 1024  # statistics blocks to aim for: several per SM on any current GPU
_PER_THREAD = 32  # values a statistics thread reads at least before more splits pay
_MAX_CHUNK = 1 << 23  # values per split: a partial's float32 count stays exact


def _layout(shape, data_format):
    """``(outer, C, inner)``: x as [outer, C, inner] (channels last: inner 1)."""
    if data_format.startswith("NC"):
        return shape[0], shape[1], math.prod(shape[2:])
    return math.prod(shape[:-1]), shape[-1], 1


def _splits(values, per_split_floor, blocks_per_split):
    """How many chunks each channel's ``values`` are cut into, and the chunk length."""
    splits = max(1, min(ceil_div(values, per_split_floor), _TARGET_BLOCKS // blocks_per_split),
                 ceil_div(values, _MAX_CHUNK))
    chunk = ceil_div(values, splits)
    return ceil_div(values, chunk), chunk


def _statistics_grid(outer, c, inner):
    """``(variant, grid, block, splits, size_args)`` of the statistics and gradient-sum kernels (``size_args``:
    their arguments after the pointers, the chunk length last)."""
    if inner == 1:
        tiles = ceil_div(c, ROWS_X)
        splits, chunk = _splits(outer, ROWS_Y * _PER_THREAD, tiles)
        return "rows", (tiles, splits, 1), (ROWS_X, ROWS_Y, 1), splits, (i64(outer), i32(c), i64(chunk))
    splits, chunk = _splits(outer * inner, THREADS * _PER_THREAD, c)
    return "planes", (c, splits, 1), (THREADS, 1, 1), splits, (i64(outer), i32(c), i64(inner), i64(chunk))


def _vec(c, inner, *arrays):
    """Vector accesses: channels last, whole vectors per row, every array VEC-element aligned."""
    return int(inner == 1 and c % VEC == 0 and all(aligned(a, VEC * a.dtype.itemsize) for a in arrays))


def _elementwise(b, name, arrays, out, c, inner):
    vec = _vec(c, inner, *arrays, out)
    b.kernels.launch(f"{name}_{suffix(out.dtype)}", grid_1d(out.size // (VEC if vec else 1), THREADS),
                     (THREADS, 1, 1), (*arrays, out, i64(out.size), i32(c), i64(inner), i32(vec)))


def batch_norm_forward(b, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format,
                       is_training):
    """FusedBatchNormV3's outputs ``(y, out_mean, out_var, save_mean, save_var, reserve_space_3)``."""
    xp = b.xp
    x = contiguous(xp, x)
    scale, offset, mean, variance = (contiguous(xp, a) for a in (scale, offset, mean, variance))
    outer, c, inner = _layout(x.shape, data_format)
    sfx = suffix(x.dtype)
    stats = [xp.empty((c,), np.float32) for _ in range(4)]
    coef = xp.empty((3 * c,), np.float32)
    splits = 0
    part = coef  # not read in inference
    if is_training:
        variant, grid, block, splits, size_args = _statistics_grid(outer, c, inner)
        part = xp.empty((3 * splits * c,), np.float32)
        b.kernels.launch(f"bn_stats_{variant}_{sfx}", grid, block, (x, part, *size_args))
    b.kernels.launch("bn_finalize", (c, 1, 1), (FIN_THREADS, 1, 1),
                     (part, i32(splits), i32(c), scale, offset, mean, variance, f32(epsilon),
                      f32(exponential_avg_factor), i32(bool(is_training)), *stats, coef))
    y = xp.empty(x.shape, x.dtype)
    _elementwise(b, "bn_apply", (x, coef), y, c, inner)
    return (y, *stats, xp.zeros((0,), np.float32))


def batch_norm_grad(b, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3, *, epsilon,
                    data_format, is_training):
    """FusedBatchNormGradV3's outputs ``(x_backprop, scale_backprop, offset_backprop, reserve_space_4,
    reserve_space_5)`` (the last two 0-d zeros, as TF's CPU kernel)."""
    xp = b.xp
    dy, x = contiguous(xp, y_backprop), contiguous(xp, x)
    scale, mean, var = (contiguous(xp, a) for a in (scale, reserve_space_1, reserve_space_2))
    outer, c, inner = _layout(x.shape, data_format)
    sfx = suffix(x.dtype)
    variant, grid, block, splits, size_args = _statistics_grid(outer, c, inner)
    part = xp.empty((2 * splits * c,), np.float32)
    b.kernels.launch(f"bn_grad_sums_{variant}_{sfx}", grid, block, (dy, x, mean, part, *size_args))
    dscale, doffset = xp.empty((c,), np.float32), xp.empty((c,), np.float32)
    coef = xp.empty((4 * c,), np.float32)
    b.kernels.launch("bn_grad_finalize", (c, 1, 1), (FIN_THREADS, 1, 1),
                     (part, i32(splits), i32(c), i64(outer * inner), scale, mean, var, f32(epsilon),
                      i32(bool(is_training)), dscale, doffset, coef))
    dx = xp.empty(x.shape, x.dtype)
    _elementwise(b, "bn_grad_apply", (dy, x, coef), dx, c, inner)
    placeholder = xp.zeros((), np.float32)
    return dx, dscale, doffset, placeholder, placeholder


def _forward_applies(x, *_args, **_attrs):
    """Empty batches (TF: mean 0, variance NaN) and zero channels take the generic kernel."""
    return x.size > 0


def _grad_applies(dy, x, *_args, **_attrs):
    return x.size > 0


register_cuda(get_op("FusedBatchNormV3"), batch_norm_forward, supports=_forward_applies)
register_cuda(get_op("FusedBatchNormGradV3"), batch_norm_grad, supports=_grad_applies)
