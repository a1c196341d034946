"""CUDA launches of kernels/conv2d.cu; registered for Conv2D, its backprops and depthwise conv.

Padding comes from :func:`tfcore.ops.conv_ops.conv_geometry` (TF's SAME arithmetic, or the
explicit paddings), so the kernels only see ``pad_top``/``pad_left``.

Forward, input gradient and filter gradient are implicit GEMMs on the SIMT tile: 128x128
(``conv2d_fwd_f32``, ...) or, when the GEMM's N (CO for forward and filter gradient, C for the input
gradient) is at most 64, 128x64 (``conv2d_fwd_n64_f32``, ...; :func:`gemm_tile`). The input gradient
runs one GEMM per stride phase (:func:`input_grad_phases`), so no zero tap is multiplied. The
filter gradient reduces over N*OH*OW, which is split across ``gridDim.z`` slices
(:func:`filter_grad_splits`): each slice writes float32 partials ``[splits, taps, CO]`` and
``conv2d_filter_grad_sum_*`` adds them in a fixed order (deterministic, no atomics).

Tensor cores (``tensor_cores=True``; sm_80+): the same three GEMMs on the 128x128 mma.sync tile with a
4-stage cp.async pipeline (``conv2d_{fwd,input_grad,filter_grad}_tc_f16`` for float16,
``..._tc_tf32`` for float32 as TF32), ``TC_SMEM_BYTES`` of dynamic shared memory. Registry candidates
(``tfcore info --ops Conv2D``): ``*_tc_tf32`` when TF32 is enabled and the device is sm_80+ (the rule
of matmul's TF32 candidate, :func:`._util.tf32_available`), ``*_tc_f16`` on sm_80+; the SIMT kernels
run everything else (strict float32 with TF32 off, float16 before sm_80).

The forward entries take the fused epilogue's ``bias`` (or null) and ``act`` (:func:`conv2d_forward`'s
``bias=``/``act=``): ``_FusedConv2D``'s candidates (fused.py) write y = act(conv + bias) in one launch.
"""

import math

import numpy as np

from ...backend.kernel_library import kernel_define
from .. import conv_ops as _c
from ._util import (
    ACT_NONE,
    MAX_GRID_Y,
    PRIORITY,
    aligned,
    ceil_div,
    contiguous,
    empty_product,
    epilogue_act,
    epilogue_bias,
    grid_1d,
    grid_cap,
    i32,
    i64,
    register_cuda,
    suffix,
    tensor_cores_available,
    tf32_available,
)

# Tile and block sizes, read from kernels/conv2d.cu's #defines (the one place they are written).
BM = kernel_define("conv2d", "CV_BM")
BN = kernel_define("conv2d", "CV_BN")
BN_NARROW = kernel_define("conv2d", "CV_BN_NARROW")  # the *_n64_* entries' tile width
BK = kernel_define("conv2d", "CV_BK")
THREADS = kernel_define("conv2d", "CV_THREADS")
MIN_BLOCKS = kernel_define("conv2d", "CV_MIN_BLOCKS")  # resident 128x128 GEMM blocks per SM (__launch_bounds__)
NARROW_MIN_BLOCKS = kernel_define("conv2d", "CV_NARROW_MIN_BLOCKS")  # resident 128x64 GEMM blocks per SM
GRAD_X = kernel_define("conv2d", "CV_GRAD_X")
GRAD_Y = kernel_define("conv2d", "CV_GRAD_Y")
SUM_THREADS = kernel_define("conv2d", "CV_SUM_THREADS")
DW_THREADS = kernel_define("conv2d", "CV_DW_THREADS")  # depthwise forward / input-gradient block (bx x by)
DW_SMEM_FLOATS = kernel_define("conv2d", "CV_DW_SMEM_FLOATS")  # their shared filter-tap buffer
# Tensor-core entries (*_tc_f16, *_tc_tf32): 128x128 tiles of THREADS threads, k-tiles of TC_BK_F16 halves
# or TC_BK_F32 floats, TC_STAGES of them in TC_SMEM_BYTES of dynamic shared memory, TC_MIN_BLOCKS per SM.
TC_BK_F16 = kernel_define("conv2d", "CV_TC_BK_F16")
TC_BK_F32 = kernel_define("conv2d", "CV_TC_BK_F32")
TC_STAGES = kernel_define("conv2d", "CV_TC_STAGES")
TC_SMEM_BYTES = kernel_define("conv2d", "CV_TC_SMEM_BYTES")
TC_MIN_BLOCKS = kernel_define("conv2d", "CV_TC_MIN_BLOCKS")

# Split-K sizing of the filter gradients: aim for SPLIT_WAVES waves of blocks on a GPU with
# SPLIT_SMS SMs (H100 SXM: 132), keep every slice at least MIN_SPLIT_ROWS rows of N*OH*OW long, and
# the float32 partial buffer at most MAX_PARTIAL_ELEMS elements (32 MiB).
SPLIT_SMS = 132
SPLIT_WAVES = 2
MIN_SPLIT_ROWS = 256
MAX_PARTIAL_ELEMS = 1 << 23


def _tc_entry(sfx):
    """``(entry suffix, elements per 16-byte chunk, k-tile)`` of the tensor-core entries for ``sfx``."""
    return ("f16", 8, TC_BK_F16) if sfx == "f16" else ("tf32", 4, TC_BK_F32)


def gemm_tile(n, tile=None):
    """``(BN, entry infix, resident blocks per SM)`` of the GEMM tile for a GEMM with ``n`` columns: the
    128x64 tile (``_n64``) when n <= 64, else 128x128. ``tile`` (64 or 128) forces one (tests)."""
    if tile is None:
        tile = BN_NARROW if n <= BN_NARROW else BN
    if tile == BN_NARROW:
        return BN_NARROW, "_n64", NARROW_MIN_BLOCKS
    if tile == BN:
        return BN, "", MIN_BLOCKS
    raise ValueError(f"no {tile}-wide conv2d GEMM tile")


def _tap_phase(r, pad, stride, dil, k):
    """The taps of stride phase ``r`` in one dimension: ``(k0, count, k_step, o_step)``, the taps
    k0 + j*k_step (j < count) being every k < ``k`` with (r + pad - k*dil) % stride == 0; tap j reads
    output index ((r + pad - k0*dil) / stride) - j*o_step for an input index of phase ``r``."""
    k_step = stride // math.gcd(stride, dil)
    k0 = next((t for t in range(min(k, k_step)) if (r + pad - t * dil) % stride == 0), None)
    if k0 is None:
        return 0, 0, 1, 0
    return k0, (k - 1 - k0) // k_step + 1, k_step, k_step * dil // stride


def input_grad_phases(h, w, kh, kw, sh, sw, dh, dw, pt, pl):
    """The stride phases of an input gradient: one ``(rh, rw, Hp, Wp, kh0, nkh, kh_step, oh_step, kw0,
    nkw, kw_step, ow_step)`` per (ih % sh, iw % sw) that has input pixels (Hp, Wp > 0); see CvPhase in
    kernels/conv2d.cu. A phase with no taps (nkh or nkw 0) still runs: it writes its pixels' zeros."""
    out = []
    for rh in range(min(sh, h)):
        th = _tap_phase(rh, pt, sh, dh, kh)
        for rw in range(min(sw, w)):
            tw = _tap_phase(rw, pl, sw, dw, kw)
            out.append((rh, rw, (h - 1 - rh) // sh + 1, (w - 1 - rw) // sw + 1, *th, *tw))
    return out


def _geom(x_shape, w_shape, co, strides, dilations, padding, explicit_paddings):
    """The kernels' geometry tuple (N, H, W, C, OH, OW, KH, KW, CO, sh, sw, dh, dw, pt, pl)."""
    n, h, wd, c = x_shape
    kh, kw = w_shape[0], w_shape[1]
    oh, ow, ph, pw = _c.conv_geometry(x_shape, kh, kw, strides, dilations, padding, explicit_paddings)
    vals = (n, h, wd, c, oh, ow, kh, kw, co, strides[1], strides[2], dilations[1], dilations[2], ph[0], pw[0])
    return tuple(i32(v) for v in vals)


def conv2d_forward(b, x, w, strides, dilations, padding, explicit_paddings=(), *, tile=None, tensor_cores=False,
                   bias=None, act=ACT_NONE):
    """Implicit-GEMM forward: NHWC ``x``, HWIO ``w`` (``tile``: see :func:`gemm_tile`; ``tensor_cores``:
    the ``conv2d_fwd_tc_*`` entry, float16 or float32 as TF32, sm_80+ only). ``bias`` (CO elements of x's
    dtype) and ``act`` (``ACT_NONE`` / ``ACT_RELU``): the kernel's fused epilogue y = act(conv + bias)."""
    xp = b.xp
    sfx = suffix(x.dtype)
    x, w = contiguous(xp, x), contiguous(xp, w)
    co = w.shape[3]
    g = _geom(x.shape, w.shape, co, strides, dilations, padding, explicit_paddings)
    n, oh, ow = x.shape[0], int(g[4]), int(g[5])
    if min(n, oh, ow, co) <= 0:
        return xp.zeros((max(n, 0), max(oh, 0), max(ow, 0), co), dtype=x.dtype)
    if w.size == 0:  # C == 0 or an empty window: every output is an empty sum
        return empty_product(xp, (n, oh, ow, co), x.dtype, bias, act)
    epilogue = (epilogue_bias(xp, bias, co, x.dtype), i32(epilogue_act(act)))
    y = xp.empty((n, oh, ow, co), dtype=x.dtype)
    m = n * oh * ow
    if tensor_cores:
        tsfx, e, _ = _tc_entry(sfx)
        vec_x, vec_w = x.shape[3] % e == 0 and aligned(x), co % e == 0 and aligned(w)
        b.kernels.launch(f"conv2d_fwd_tc_{tsfx}", (ceil_div(co, BN), ceil_div(m, BM), 1), (THREADS, 1, 1),
                         (x, w, y) + g + (i32(vec_x), i32(vec_w)) + epilogue, shared_mem=TC_SMEM_BYTES)
        return y
    vec_x = sfx == "f32" and x.shape[3] % 4 == 0 and aligned(x)
    vec_w = sfx == "f32" and co % 4 == 0 and aligned(w)
    bn, infix, _ = gemm_tile(co, tile)
    b.kernels.launch(f"conv2d_fwd{infix}_{sfx}", (ceil_div(co, bn), ceil_div(m, BM), 1), (THREADS, 1, 1),
                     (x, w, y) + g + (i32(vec_x), i32(vec_w)) + epilogue)
    return y


def filter_grad_splits(base_blocks, rows, out_elems, min_rows=MIN_SPLIT_ROWS, blocks_per_sm=MIN_BLOCKS, bk=BK):
    """``(splits, rows_per_split)`` for a filter gradient that reduces over ``rows`` (= N*OH*OW) with
    ``base_blocks`` blocks per slice and ``out_elems`` outputs: enough slices for SPLIT_WAVES waves of
    SPLIT_SMS * ``blocks_per_sm`` blocks, each slice at least ``min_rows`` long (a multiple of the
    kernel's k-tile ``bk``), the partial buffer at most MAX_PARTIAL_ELEMS floats, and no empty slice."""
    want = ceil_div(SPLIT_WAVES * SPLIT_SMS * blocks_per_sm, max(base_blocks, 1))
    return _split_rows(rows, min(want, rows // max(min_rows, 1), MAX_PARTIAL_ELEMS // max(out_elems, 1)), bk)


def _split_rows(rows, splits, bk=BK):
    """``(splits, rows_per_split)`` for about ``splits`` slices of ``rows``: rows_per_split a multiple of
    ``bk`` below 2**30 (the kernels count a slice's rows in int32), at most MAX_GRID_Y slices, none empty."""
    splits = max(1, min(splits, MAX_GRID_Y), ceil_div(rows, 1 << 30))
    per = ceil_div(ceil_div(rows, splits), bk) * bk
    return ceil_div(rows, per), per


def _sum_partials(b, part, dw, splits, sfx):
    """dW = the sum of the ``splits`` slices of ``part`` (float32 ``[splits, taps, CO]``), in dW's dtype."""
    if splits == 1 and part is dw:
        return
    count = dw.size
    b.kernels.launch(f"conv2d_filter_grad_sum_{sfx}", grid_1d(count, SUM_THREADS), (SUM_THREADS, 1, 1),
                     (part, dw, i32(splits), i64(count)))


def conv2d_input_grad(b, w, dy, input_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False,
                      *, tile=None, tensor_cores=False):
    """dX of a conv (or depthwise conv) from the filter and dY; dense: one implicit GEMM per stride
    phase p, dX_p[N*Hp*Wp, C] = dY'[N*Hp*Wp, nkh*nkw*CO] @ W'[nkh*nkw*CO, C] over only the taps that
    reach the phase (:func:`input_grad_phases`; ``tile``: see :func:`gemm_tile`; ``tensor_cores``: the
    ``conv2d_input_grad_tc_*`` entry, dense only)."""
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
        n, h, wd, c = input_sizes
        grid, block = depthwise_grid(c, n * h * wd)
        b.kernels.launch(f"depthwise_input_grad_{sfx}", grid, block, (dy, w, dx) + g)
        return dx
    n, h, wd, c = input_sizes
    if tensor_cores:
        tsfx, e, _ = _tc_entry(sfx)
        name, bn, smem = f"conv2d_input_grad_tc_{tsfx}", BN, TC_SMEM_BYTES
        vecs = (i32(co % e == 0 and aligned(dy)), i32(co % e == 0 and aligned(w)))
    else:
        vec = sfx == "f32" and co % 4 == 0
        vecs = (i32(vec and aligned(dy)), i32(vec and aligned(w)))
        bn, infix, _ = gemm_tile(c, tile)
        name, smem = f"conv2d_input_grad{infix}_{sfx}", 0
    geo = [int(v) for v in g]
    for phase in input_grad_phases(h, wd, w.shape[0], w.shape[1], *geo[9:15]):
        grid = (ceil_div(n * phase[2] * phase[3], BM), ceil_div(c, bn), 1)
        b.kernels.launch(name, grid, (THREADS, 1, 1), (dy, w, dx) + g + tuple(i32(v) for v in phase) + vecs,
                         shared_mem=smem)
    return dx


def conv2d_filter_grad(b, x, dy, filter_sizes, strides, dilations, padding, explicit_paddings=(), depthwise=False,
                       *, splits=None, tile=None, tensor_cores=False):
    """dW of a conv (or depthwise conv) from X and dY, split over N*OH*OW across blocks (``splits``
    slices; None: :func:`filter_grad_splits` picks from the problem size; ``tile``: see
    :func:`gemm_tile`; ``tensor_cores``: the ``conv2d_filter_grad_tc_*`` entry, dense only)."""
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
    bk = BK
    if depthwise:
        grid_xy, block = (ceil_div(co, GRAD_X), grid_cap(taps, MAX_GRID_Y)), (GRAD_X, GRAD_Y, 1)
        infix, per_sm = "", MIN_BLOCKS
    elif tensor_cores:
        tsfx, e, bk = _tc_entry(sfx)
        grid_xy, block, per_sm = (ceil_div(taps, BM), ceil_div(co, BN)), (THREADS, 1, 1), TC_MIN_BLOCKS
    else:
        bn, infix, per_sm = gemm_tile(co, tile)
        grid_xy, block = (ceil_div(taps, BM), ceil_div(co, bn)), (THREADS, 1, 1)
    base = grid_xy[0] * grid_xy[1]
    if splits is None:
        nsplit, per = filter_grad_splits(base, rows, dw.size, blocks_per_sm=per_sm, bk=bk)
    else:
        nsplit, per = _split_rows(rows, splits, bk)
    # One float32 slice is dW itself for float32 dW; otherwise partials, summed (and converted) below.
    part = dw if nsplit == 1 and sfx == "f32" else xp.empty((nsplit, taps, co), dtype=np.float32)
    if depthwise:
        args = (x, dy, part) + g + (i32(per),)
        b.kernels.launch(f"depthwise_filter_grad_{sfx}", grid_xy + (nsplit,), block, args)
    elif tensor_cores:
        vec_x, vec_dy = c % e == 0 and aligned(x), co % e == 0 and aligned(dy)
        args = (x, dy, part) + g + (i32(per), i32(vec_x), i32(vec_dy))
        b.kernels.launch(f"conv2d_filter_grad_tc_{tsfx}", grid_xy + (nsplit,), block, args, shared_mem=TC_SMEM_BYTES)
    else:
        vec_x = sfx == "f32" and c % 4 == 0 and aligned(x)
        vec_dy = sfx == "f32" and co % 4 == 0 and aligned(dy)
        args = (x, dy, part) + g + (i32(per // BK), i32(vec_x), i32(vec_dy))
        b.kernels.launch(f"conv2d_filter_grad{infix}_{sfx}", grid_xy + (nsplit,), block, args)
    _sum_partials(b, part, dw, nsplit, sfx)
    return dw


def depthwise_grid(channels, pixels):
    """(grid, block) of ``depthwise_fwd_*`` (channels = C*Q outputs) and ``depthwise_input_grad_*``
    (channels = C): blocks of DW_THREADS = bx x by threads, bx = min(32, next power of two >= channels)
    consecutive channels of by pixels; gridDim.x channel groups, gridDim.y grid-strides over pixel tiles."""
    bx = int(min(32, 1 << max(0, (int(channels) - 1).bit_length())))
    by = DW_THREADS // bx
    return (ceil_div(channels, bx), grid_cap(ceil_div(pixels, by), MAX_GRID_Y), 1), (bx, by, 1)


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
    grid, block = depthwise_grid(co, shape[0] * shape[1] * shape[2])
    b.kernels.launch(f"depthwise_fwd_{sfx}", grid, block, (x, w, y) + g)
    return y


# -- registrations ------------------------------------------------------------------------------

def _forward_fits(x, w, *, strides, padding, explicit_paddings, dilations, **_):
    """The implicit-GEMM grid has ceil(N*OH*OW / BM) rows in gridDim.y."""
    oh, ow, _, _ = _c.conv_geometry(x.shape, w.shape[0], w.shape[1], strides, dilations, padding, explicit_paddings)
    return ceil_div(x.shape[0] * oh * ow, BM) <= MAX_GRID_Y


def _input_grad_fits(w, dy, *, input_sizes, **_):
    """The dgrad GEMM has ceil(C / BN) column tiles in gridDim.y and indexes W in int32."""
    return ceil_div(int(input_sizes[3]), BN) <= MAX_GRID_Y and math.prod(w.shape) < 2**31


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


# Tensor-core candidates, ahead of the SIMT ones: float32 as TF32 when TF32 is enabled on an sm_80+ device
# (tf32_available, matmul's rule), float16 on sm_80+ (tensor_cores_available). Same grid limits as SIMT.
def _tc_rule(available, fits):
    def supports(*arrays, **attrs):
        return available(arrays[0]) and fits(*arrays, **attrs)

    supports.__name__ = f"{available.__name__}_and_{fits.__name__.lstrip('_')}"
    return supports


def _tc_forward(b, x, w, **a):
    return conv2d_forward(b, x, w, *_geometry_args(a), tensor_cores=True)


def _tc_input_grad(b, w, dy, **a):
    return conv2d_input_grad(b, w, dy, a["input_sizes"], *_geometry_args(a), tensor_cores=True)


def _tc_filter_grad(b, x, dy, **a):
    return conv2d_filter_grad(b, x, dy, a["filter_sizes"], *_geometry_args(a), tensor_cores=True)


_TC_CANDIDATES = (
    (_c.CONV2D, _tc_forward, _forward_fits, "conv2d_fwd_tc"),
    (_c.CONV2D_BACKPROP_INPUT, _tc_input_grad, _input_grad_fits, "conv2d_input_grad_tc"),
    (_c.CONV2D_BACKPROP_FILTER, _tc_filter_grad, _filter_grad_fits, "conv2d_filter_grad_tc"),
)
for _op, _launch, _fits, _entry in _TC_CANDIDATES:
    _op.kernel("cuda", dtypes=(np.float32,), supports=_tc_rule(tf32_available, _fits), priority=PRIORITY + 1,
               name=f"cuda_kernels.conv.{_entry}_tf32")(_launch)
    _op.kernel("cuda", dtypes=(np.float16,), supports=_tc_rule(tensor_cores_available, _fits), priority=PRIORITY + 1,
               name=f"cuda_kernels.conv.{_entry}_f16")(_launch)
register_cuda(_c.DEPTHWISE_CONV2D, lambda b, x, w, **a: depthwise_forward(b, x, w, *_geometry_args(a)))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_INPUT, _input_grad_launch(True))
register_cuda(_c.DEPTHWISE_CONV2D_BACKPROP_FILTER, _filter_grad_launch(True))
