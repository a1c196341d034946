"""kernels/conv2d.cu on the emulator: implicit-GEMM forward, input gradient (dgrad, one GEMM per stride
phase) and split-K filter gradient (wgrad) with its partial-sum kernel, each on the 128x128 and the
128x64 tile, and depthwise.

References are float64 NumPy (tfcore/selftest/references.py) with paddings from ``conv_pads``, TF's SAME rule
written out in the tests, never the production ``conv_geometry``.
"""

import types

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels import conv
from tfcore.ops.cuda_kernels._util import ACT_NONE, ACT_RELU
from tfcore.selftest.references import (
    conv2d_filter_grad_ref,
    conv2d_input_grad_ref,
    conv2d_ref,
    conv_pads,
    depthwise_filter_grad_ref,
    depthwise_forward_ref,
    depthwise_input_grad_ref,
)

pytestmark = pytest.mark.emulator

# (x shape NHWC, filter (kh, kw), out channels, strides, dilations, padding, explicit paddings)
CASES = [
    ((2, 7, 9, 3), (3, 3), 5, (1, 1), (1, 1), "SAME", ()),         # C, CO % 4 != 0: scalar gathers everywhere
    ((1, 8, 8, 4), (3, 3), 130, (2, 2), (1, 1), "SAME", ()),       # C % 4 == 0, CO > BN: 2 column tiles
    ((2, 9, 7, 2), (2, 3), 3, (2, 1), (2, 1), "VALID", ()),         # mixed strides and dilations
    ((1, 6, 5, 3), (3, 2), 4, (1, 2), (1, 1), "EXPLICIT", (0, 0, 1, 2, 0, 1, 0, 0)),  # CO % 4 == 0
    ((1, 1, 1, 1), (1, 1), 1, (1, 1), (1, 1), "VALID", ()),         # every size 1
    ((1, 10, 11, 8), (3, 3), 12, (3, 3), (1, 1), "SAME", ()),       # stride 3; 4-wide gathers everywhere
    ((2, 9, 9, 4), (3, 3), 8, (2, 2), (2, 2), "SAME", ()),          # stride 2 with dilation 2
    ((1, 7, 8, 4), (3, 3), 4, (1, 1), (2, 2), "EXPLICIT", (0, 0, 2, 0, 1, 3, 0, 0)),  # dilation 2, lopsided
    ((2, 8, 7, 5), (3, 3), 6, (3, 2), (1, 1), "VALID", ()),         # stride 3 x 2, VALID, ragged
    ((1, 5, 6, 1), (3, 3), 1, (1, 1), (1, 1), "SAME", ()),          # C = CO = 1
    ((3, 1, 1, 5), (3, 3), 6, (1, 1), (1, 1), "SAME", ()),          # H = W = 1 under a 3x3 SAME window
    ((2, 12, 11, 4), (3, 3), 8, (1, 1), (1, 1), "SAME", ()),        # N*H*W = 264: 3 ragged row tiles
    ((1, 5, 4, 130), (2, 2), 6, (1, 1), (1, 1), "VALID", ()),       # C > BN: 2 dgrad column tiles, 520 taps
    ((1, 6, 6, 16), (3, 3), 8, (2, 2), (1, 1), "SAME", ()),         # 144 taps: 2 wgrad row tiles
]
CASE_IDS = [f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-d{c[4]}-{c[5]}" for c in CASES]


def _attrs(case):
    x_shape, (kh, kw), co, s, d, padding, ex = case
    return x_shape, (kh, kw), co, (1, *s, 1), (1, *d, 1), padding, ex


def _out_hw(x_shape, k, strides, dilations, pads):
    """Output size from the reference paddings (independent of the launcher's geometry)."""
    oh = (x_shape[1] + pads[0] + pads[1] - (k[0] - 1) * dilations[1] - 1) // strides[1] + 1
    ow = (x_shape[2] + pads[2] + pads[3] - (k[1] - 1) * dilations[2] - 1) // strides[2] + 1
    return oh, ow


def _problem(rng, case, dtype, depthwise=False):
    x_shape, k, co, strides, dilations, padding, ex = _attrs(case)
    pads = conv_pads(x_shape, k, strides[1:3], dilations[1:3], padding, ex)
    oh, ow = _out_hw(x_shape, k, strides, dilations, pads)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal((*k, x_shape[3], co)).astype(dtype)
    dy_c = x_shape[3] * co if depthwise else co
    dy = rng.standard_normal((x_shape[0], oh, ow, dy_c)).astype(dtype)
    return types.SimpleNamespace(x=x, w=w, dy=dy, strides=strides, dilations=dilations, padding=padding, ex=ex,
                                 pads=pads, s=strides[1:3], d=dilations[1:3], rows=x_shape[0] * oh * ow)


def _close(got, want, dtype, k):
    assert got.shape == want.shape and got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), *tol(dtype, k))


class _Recorder:
    """A backend that records every launch (name, grid) and forwards it to the emulator."""

    def __init__(self, kb):
        self.xp, self.kind, self._kernels, self.launches = kb.xp, kb.kind, kb.kernels, []
        self.kernels = self

    def launch(self, name, grid, block, args, shared_mem=0):
        self.launches.append((name, tuple(grid)))
        return self._kernels.launch(name, grid, block, args, shared_mem)


def test_conv_pads_reference_rule():
    """The tests' SAME rule against hand-derived values (TF: the odd padding goes at the end)."""
    assert conv_pads((1, 7, 7, 1), (3, 3), (2, 2), (1, 1), "SAME") == (1, 1, 1, 1)      # out 4: 6 + 3 - 7
    assert conv_pads((1, 8, 8, 1), (3, 3), (2, 2), (1, 1), "SAME") == (0, 1, 0, 1)      # out 4: 6 + 3 - 8
    assert conv_pads((1, 5, 6, 1), (3, 3), (1, 1), (2, 2), "SAME") == (2, 2, 2, 2)      # window 5
    assert conv_pads((1, 10, 11, 1), (3, 3), (3, 3), (1, 1), "SAME") == (1, 1, 0, 1)    # out 4: 9+3-10, 9+3-11
    assert conv_pads((1, 1, 1, 1), (3, 3), (1, 1), (1, 1), "SAME") == (1, 1, 1, 1)
    assert conv_pads((1, 9, 9, 1), (4, 4), (4, 4), (1, 1), "SAME") == (1, 2, 1, 2)      # out 3: 8 + 4 - 9
    assert conv_pads((1, 9, 9, 1), (3, 3), (2, 2), (1, 1), "VALID") == (0, 0, 0, 0)
    assert conv_pads((1, 6, 5, 1), (3, 2), (1, 2), (1, 1), "EXPLICIT", (0, 0, 1, 2, 0, 1, 0, 0)) == (1, 2, 0, 1)


@pytest.mark.parametrize("tile", [64, 128])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_conv2d_forward(kb, rng, case, dtype, tile):
    p = _problem(rng, case, dtype)
    y = conv.conv2d_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex, tile=tile)
    _close(y, conv2d_ref(p.x, p.w, p.s, p.d, p.pads), dtype, p.w[..., 0].size)


@pytest.mark.parametrize("tile", [64, 128])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_conv2d_input_grad(kb, rng, case, dtype, tile):
    p = _problem(rng, case, dtype)
    dx = conv.conv2d_input_grad(kb, p.w, p.dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex, tile=tile)
    _close(dx, conv2d_input_grad_ref(p.w, p.dy, p.x.shape, p.s, p.d, p.pads), dtype,
           p.w.shape[0] * p.w.shape[1] * p.w.shape[3])


@pytest.mark.parametrize("tile", [64, 128])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_conv2d_filter_grad(kb, rng, case, dtype, tile):
    p = _problem(rng, case, dtype)
    dw = conv.conv2d_filter_grad(kb, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex, tile=tile)
    _close(dw, conv2d_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), dtype, p.rows)


# Ragged shapes around the 64-wide tile (CO, C <= 64 pick the *_n64_* entries), with strides 1, 2 and 3
# (dgrad: 1, 4 and 9 stride phases, some without taps), dilations and every padding kind.
NARROW_CASES = [
    ((2, 13, 11, 64), (3, 3), 64, (1, 1), (1, 1), "SAME", ()),      # CO = C = 64: one full 64-wide tile
    ((1, 9, 10, 61), (3, 3), 63, (2, 2), (1, 1), "SAME", ()),       # ragged columns, scalar gathers
    ((2, 11, 9, 33), (3, 2), 36, (2, 3), (1, 2), "VALID", ()),      # stride 2 x 3, dilation, ragged
    ((1, 10, 10, 8), (5, 5), 17, (3, 3), (2, 1), "SAME", ()),       # stride 3, dilation 2 in h
    ((2, 7, 8, 12), (1, 1), 20, (2, 2), (1, 1), "VALID", ()),       # 1x1 stride 2: 3 of 4 phases have no tap
    ((1, 2, 1, 4), (3, 3), 4, (3, 3), (1, 1), "SAME", ()),          # H, W < stride: phases without pixels
    ((1, 8, 9, 40), (4, 3), 24, (2, 2), (3, 1), "EXPLICIT", (0, 0, 3, 2, 1, 0, 0, 0)),  # lopsided pads
    ((1, 6, 7, 65), (2, 2), 65, (2, 1), (1, 1), "SAME", ()),        # C = CO = 65: the 128-wide tile
]
NARROW_IDS = [f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-d{c[4]}-{c[5]}" for c in NARROW_CASES]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", NARROW_CASES, ids=NARROW_IDS)
def test_conv2d_tile_choice_and_stride_phases(kb, rng, case, dtype):
    """The launcher's own choices (tile from CO / C, one dgrad launch per stride phase with pixels),
    every result against its float64 reference."""
    p = _problem(rng, case, dtype)
    sfx = conv.suffix(dtype)
    c, co = p.x.shape[3], p.w.shape[3]
    fwd_infix = "_n64" if co <= 64 else ""
    dgrad_infix = "_n64" if c <= 64 else ""
    rec = _Recorder(kb)
    y = conv.conv2d_forward(rec, p.x, p.w, p.strides, p.dilations, p.padding, p.ex)
    assert [n for n, _ in rec.launches] == [f"conv2d_fwd{fwd_infix}_{sfx}"]
    _close(y, conv2d_ref(p.x, p.w, p.s, p.d, p.pads), dtype, p.w[..., 0].size)

    rec.launches.clear()
    dx = conv.conv2d_input_grad(rec, p.w, p.dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex)
    phases = min(p.s[0], p.x.shape[1]) * min(p.s[1], p.x.shape[2])
    assert [n for n, _ in rec.launches] == [f"conv2d_input_grad{dgrad_infix}_{sfx}"] * phases
    rows = sum(grid[0] for _, grid in rec.launches)
    assert rows <= phases + -(-p.x.shape[0] * p.x.shape[1] * p.x.shape[2] // conv.BM)
    _close(dx, conv2d_input_grad_ref(p.w, p.dy, p.x.shape, p.s, p.d, p.pads), dtype,
           p.w.shape[0] * p.w.shape[1] * co)

    rec.launches.clear()
    dw = conv.conv2d_filter_grad(rec, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex)
    assert rec.launches[0][0] == f"conv2d_filter_grad{fwd_infix}_{sfx}"
    _close(dw, conv2d_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), dtype, p.rows)


def _reaching_taps(ih, pad, stride, dil, k, out):
    """The taps (a brute-force list) through which input index ``ih`` receives a gradient."""
    return [t for t in range(k) if (ih + pad - t * dil) % stride == 0 and 0 <= (ih + pad - t * dil) // stride < out]


@pytest.mark.parametrize("h, k, stride, dil, pad", [
    (9, 3, 2, 1, 1), (10, 3, 3, 1, 1), (9, 3, 2, 2, 2), (11, 5, 3, 2, 0), (8, 1, 2, 1, 0), (7, 4, 4, 2, 3),
    (12, 6, 4, 6, 5), (3, 3, 5, 1, 1), (5, 3, 1, 2, 2),
])
def test_input_grad_phases_hold_exactly_the_taps_that_reach_them(h, k, stride, dil, pad):
    """Per phase, the taps the GEMM multiplies are those whose stride divides (no zero tap); the range
    test left to the kernel is the output bound only. Square problems: both dimensions get the same
    phases, each checked against brute force, and the phases cover every input pixel once."""
    out = (h + 2 * pad - (k - 1) * dil - 1) // stride + 1
    phases = conv.input_grad_phases(h, h, k, k, stride, stride, dil, dil, pad, pad)
    assert len(phases) == min(stride, h) ** 2
    by_r = {}
    for rh, rw, hp, wp, *taps_hw in phases:
        by_r.setdefault(rh, (hp, tuple(taps_hw[:4])))
        assert by_r.setdefault(rw, (wp, tuple(taps_hw[4:]))) == (wp, tuple(taps_hw[4:]))
        assert by_r[rh] == (hp, tuple(taps_hw[:4]))
    assert sum(by_r[rh][0] * by_r[rw][0] for rh, rw, *_ in phases) == h * h
    for r, (hp, (k0, nk, k_step, o_step)) in by_r.items():
        assert hp == len(range(r, h, stride))
        taps = [k0 + j * k_step for j in range(nk)]
        assert taps == [t for t in range(k) if (r + pad - t * dil) % stride == 0]
        for ih in range(r, h, stride):
            ohb = (ih + pad - k0 * dil) // stride
            for j, t in enumerate(taps):
                assert ohb - j * o_step == (ih + pad - t * dil) // stride
            got = [t for j, t in enumerate(taps) if 0 <= ohb - j * o_step < out]
            assert got == _reaching_taps(ih, pad, stride, dil, k, out)


# Cases whose N*OH*OW spans several BK-row k-tiles, for forced split-K slices.
SPLIT_CASES = [
    ((2, 16, 16, 4), (3, 3), 8, (1, 1), (1, 1), "SAME", ()),        # 512 rows, 4-wide gathers
    ((3, 9, 10, 3), (3, 3), 5, (2, 2), (1, 1), "SAME", ()),         # 75 rows (ragged last tile), scalar
    ((2, 11, 9, 4), (2, 3), 6, (1, 2), (2, 1), "VALID", ()),        # 90 rows, dilation, mixed strides
    ((1, 9, 8, 130), (1, 1), 3, (1, 1), (1, 1), "SAME", ()),        # 130 taps: 2 row tiles per slice
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("splits", [2, 3, 7, 100000])
@pytest.mark.parametrize("case", SPLIT_CASES, ids=[f"{c[0]}-co{c[2]}" for c in SPLIT_CASES])
def test_conv2d_filter_grad_split_k(kb, rng, case, splits, dtype):
    """Several gridDim.z slices, each writing float32 partials, summed by conv2d_filter_grad_sum_*."""
    p = _problem(rng, case, dtype)
    rec = _Recorder(kb)
    dw = conv.conv2d_filter_grad(rec, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex,
                                 splits=splits)
    (gemm, grid), (summed, _) = rec.launches
    sfx = conv.suffix(dtype)
    infix = "_n64" if p.w.shape[3] <= conv.BN_NARROW else ""
    assert gemm == f"conv2d_filter_grad{infix}_{sfx}" and summed == f"conv2d_filter_grad_sum_{sfx}"
    ktiles = -(-p.rows // conv.BK)
    assert 2 <= grid[2] <= min(splits, ktiles)  # at most one slice per k-tile, never an empty one
    if splits >= ktiles:
        assert grid[2] == ktiles
    _close(dw, conv2d_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), dtype, p.rows)


def test_conv2d_filter_grad_split_k_is_deterministic(kb, rng):
    p = _problem(rng, SPLIT_CASES[0], np.float32)
    args = (p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex)
    a = conv.conv2d_filter_grad(kb, *args, splits=5)
    b = conv.conv2d_filter_grad(kb, *args, splits=5)
    one = conv.conv2d_filter_grad(kb, *args, splits=1)
    np.testing.assert_array_equal(a, b)  # fixed summation order: bitwise reproducible
    np.testing.assert_allclose(a, one, *tol(np.float32, p.rows))


def test_conv2d_filter_grad_default_split_launches(kb, rng):
    """Without ``splits`` the launcher picks several slices once N*OH*OW is long enough (512 rows here)."""
    p = _problem(rng, SPLIT_CASES[0], np.float32)
    rec = _Recorder(kb)
    dw = conv.conv2d_filter_grad(rec, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex)
    splits, _ = conv.filter_grad_splits(1, p.rows, p.w.size, blocks_per_sm=conv.NARROW_MIN_BLOCKS)
    assert splits == 2 and rec.launches[0][1] == (1, 1, 2)
    assert [n for n, _ in rec.launches] == ["conv2d_filter_grad_n64_f32", "conv2d_filter_grad_sum_f32"]
    _close(dw, conv2d_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), np.float32, p.rows)


def test_conv2d_filter_grad_single_f32_slice_writes_dw_directly(kb, rng):
    p = _problem(rng, CASES[0], np.float32)
    rec = _Recorder(kb)
    dw = conv.conv2d_filter_grad(rec, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex)
    assert [n for n, _ in rec.launches] == ["conv2d_filter_grad_n64_f32"]  # no partial buffer, no sum kernel
    _close(dw, conv2d_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), np.float32, p.rows)


@pytest.mark.parametrize("base, rows, out", [
    (5, 32 * 56 * 56, 3 * 3 * 64 * 64),      # the ResNet 56x56x64 3x3 layer, N = 32
    (144, 32 * 7 * 7, 3 * 3 * 512 * 512),    # a deep layer: the partial-buffer cap binds
    (1, 100, 75),                            # too short to split
    (1, 512, 288),
    (4, 10**9, 10**6),                       # huge reduction: slices stay below 2**30 rows
    (1, 7, 10**8),                           # huge filter: one slice
])
def test_filter_grad_splits_heuristic(base, rows, out):
    splits, per = conv.filter_grad_splits(base, rows, out)
    assert splits >= 1 and per % conv.BK == 0 and 0 < per < 2**30
    assert (splits - 1) * per < rows <= splits * per        # covers every row, no empty slice
    assert splits <= conv.MAX_GRID_Y
    if splits > 1:
        assert splits * out <= conv.MAX_PARTIAL_ELEMS or per >= 2**29
        assert per >= conv.MIN_SPLIT_ROWS - conv.BK
    if (base, rows) == (5, 32 * 56 * 56):
        assert splits * base >= conv.SPLIT_WAVES * conv.SPLIT_SMS * conv.MIN_BLOCKS  # >= 2 full waves
    if rows <= 100:
        assert splits == 1


DW_CASES = [
    ((2, 7, 6, 3), (3, 3), 2, (1, 1), (1, 1), "SAME", ()),
    ((1, 9, 8, 5), (2, 3), 1, (2, 2), (1, 2), "VALID", ()),
    ((2, 10, 9, 4), (3, 3), 3, (3, 3), (2, 2), "SAME", ()),        # stride 3, dilation 2
    ((1, 6, 7, 2), (3, 2), 2, (1, 2), (1, 1), "EXPLICIT", (0, 0, 2, 1, 0, 1, 0, 0)),
    ((1, 1, 1, 1), (3, 3), 1, (1, 1), (1, 1), "SAME", ()),
    ((1, 4, 5, 40), (2, 2), 1, (1, 1), (1, 1), "SAME", ()),        # CO = 40 > CV_GRAD_X
    # Shared filter taps staged in chunks: (tap, q) pairs x 32 channels > DW_SMEM_FLOATS
    ((2, 11, 10, 40), (5, 5), 4, (2, 3), (1, 1), "SAME", ()),      # 100 pairs: 2 chunks, ragged channel group
    ((1, 9, 12, 20), (7, 7), 3, (1, 2), (2, 1), "SAME", ()),       # 147 pairs: 3 chunks, dilation 2 in h
    ((3, 5, 7, 6), (3, 3), 2, (3, 2), (2, 2), "EXPLICIT", (0, 0, 1, 2, 3, 0, 0, 0)),  # stride 3x2, dilation 2
    ((2, 8, 9, 3), (3, 3), 5, (2, 2), (2, 2), "VALID", ()),        # q = 5, stride 2 with dilation 2
    ((1, 3, 40, 33), (1, 3), 1, (1, 1), (1, 3), "SAME", ()),       # 33 channels: a second group of 1
    # Filters above 64 taps: the forward stages taps in chunks of 2048 / 32 = 64 too (not only the input
    # gradient's (tap, q) pairs); strides and dilations differ in h and w
    ((1, 8, 9, 32), (9, 9), 1, (1, 2), (2, 1), "SAME", ()),        # 81 taps: 2 forward chunks
    ((2, 5, 14, 17), (3, 23), 2, (2, 1), (1, 1), "SAME", ()),      # 69 taps, 34 outputs: a ragged group of 2
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", DW_CASES, ids=[f"{c[0]}-q{c[2]}-s{c[3]}-d{c[4]}-{c[5]}" for c in DW_CASES])
def test_depthwise(kb, rng, case, dtype):
    p = _problem(rng, case, dtype, depthwise=True)
    kh, kw, _, q = p.w.shape
    y = conv.depthwise_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex)
    _close(y, depthwise_forward_ref(p.x, p.w, p.s, p.d, p.pads), dtype, kh * kw)
    dx = conv.conv2d_input_grad(kb, p.w, p.dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex, depthwise=True)
    _close(dx, depthwise_input_grad_ref(p.w, p.dy, p.x.shape, p.s, p.d, p.pads), dtype, kh * kw * q)
    want = depthwise_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads)
    for splits in (None, 3):
        dw = conv.conv2d_filter_grad(kb, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex,
                                     depthwise=True, splits=splits)
        _close(dw, want, dtype, p.rows)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_depthwise_tiles_and_tap_chunks(kb, rng, dtype):
    """Forward and input gradient: channel-group blocks (bx = 4 for 3 channels, 32 beyond), one launch each,
    taps staged in several chunks when (tap, q) pairs x bx exceed the shared buffer."""
    case = ((2, 9, 8, 36), (7, 7), 2, (2, 1), (1, 2), "SAME", ())   # 98 pairs x 32 > 2048: two chunks
    p = _problem(rng, case, dtype, depthwise=True)
    assert conv.DW_SMEM_FLOATS < 7 * 7 * 2 * 32
    rec = _Recorder(kb)
    y = conv.depthwise_forward(rec, p.x, p.w, p.strides, p.dilations, p.padding, p.ex)
    dx = conv.conv2d_input_grad(rec, p.w, p.dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex, depthwise=True)
    _close(y, depthwise_forward_ref(p.x, p.w, p.s, p.d, p.pads), dtype, 49)
    _close(dx, depthwise_input_grad_ref(p.w, p.dy, p.x.shape, p.s, p.d, p.pads), dtype, 98)
    sfx = "f32" if dtype == np.float32 else "f16"
    assert rec.launches == [(f"depthwise_fwd_{sfx}", (3, -(-p.rows // 8), 1)),
                            (f"depthwise_input_grad_{sfx}", (2, -(-2 * 9 * 8 // 8), 1))]
    assert conv.depthwise_grid(3, 100) == ((1, 2, 1), (4, 64, 1))
    assert conv.depthwise_grid(1, 5) == ((1, 1, 1), (1, 256, 1))


def test_depthwise_filter_grad_split_launches(kb, rng):
    case = ((2, 16, 16, 3), (3, 3), 2, (1, 1), (1, 1), "SAME", ())
    p = _problem(rng, case, np.float32, depthwise=True)
    rec = _Recorder(kb)
    dw = conv.conv2d_filter_grad(rec, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex, depthwise=True)
    (name, grid), (summed, _) = rec.launches
    assert name == "depthwise_filter_grad_f32" and summed == "conv2d_filter_grad_sum_f32"
    assert grid == (1, 9, 2)  # 512 rows: two slices of 256
    _close(dw, depthwise_filter_grad_ref(p.x, p.dy, p.w.shape, p.s, p.d, p.pads), np.float32, p.rows)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_conv2d_empty_sizes(kb, dtype):
    one = (1, 1, 1, 1)
    x = np.ones((0, 4, 4, 2), dtype)
    w = np.ones((3, 3, 2, 5), dtype)
    assert conv.conv2d_forward(kb, x, w, one, one, "SAME").shape == (0, 4, 4, 5)
    x = np.ones((1, 4, 4, 0), dtype)          # no input channels: every output is an empty sum
    y = conv.conv2d_forward(kb, x, np.ones((3, 3, 0, 5), dtype), one, one, "SAME")
    np.testing.assert_array_equal(y, np.zeros((1, 4, 4, 5)))
    dx = conv.conv2d_input_grad(kb, w, np.ones((0, 4, 4, 5), dtype), (0, 4, 4, 2), one, one, "SAME")
    assert dx.shape == (0, 4, 4, 2) and dx.dtype == dtype
    dw = conv.conv2d_filter_grad(kb, np.ones((0, 4, 4, 2), dtype), np.ones((0, 4, 4, 5), dtype),
                                 (3, 3, 2, 5), one, one, "SAME")
    np.testing.assert_array_equal(dw, np.zeros((3, 3, 2, 5)))
    assert dw.dtype == dtype
    # CO == 0: no dY channels, so dX is all zeros and dW is empty
    dx = conv.conv2d_input_grad(kb, np.ones((3, 3, 2, 0), dtype), np.ones((1, 4, 4, 0), dtype), (1, 4, 4, 2),
                                one, one, "SAME")
    np.testing.assert_array_equal(dx, np.zeros((1, 4, 4, 2)))
    dw = conv.conv2d_filter_grad(kb, np.ones((1, 4, 4, 2), dtype), np.ones((1, 4, 4, 0), dtype), (3, 3, 2, 0),
                                 one, one, "SAME")
    assert dw.shape == (3, 3, 2, 0)
    # C == 0: dX is empty, dW has no taps
    dx = conv.conv2d_input_grad(kb, np.ones((3, 3, 0, 5), dtype), np.ones((1, 4, 4, 5), dtype), (1, 4, 4, 0),
                                one, one, "SAME")
    assert dx.shape == (1, 4, 4, 0)


def test_gradient_kernels_decline_what_their_int32_and_grid_limits_cannot_hold():
    """The registrations' supports checks: the generic code runs what the GEMM grids cannot index."""
    def arr(shape):
        return types.SimpleNamespace(shape=shape)

    assert conv._input_grad_fits(arr((3, 3, 4, 8)), arr((1, 4, 4, 8)), input_sizes=(1, 4, 4, 4))
    assert not conv._input_grad_fits(arr((1, 1, 4, 8)), arr((1, 4, 4, 8)), input_sizes=(1, 4, 4, 128 * 65536))
    assert conv._filter_grad_fits(arr((1, 8, 8, 4)), arr((1, 8, 8, 8)), filter_sizes=(3, 3, 4, 8))
    assert not conv._filter_grad_fits(arr((1, 1 << 16, 1 << 13, 4)), arr((1, 1, 1, 8)), filter_sizes=(3, 3, 4, 8))
    assert not conv._filter_grad_fits(arr((1, 8, 8, 4)), arr((1, 8, 8, 8)), filter_sizes=(3, 3, 4, 128 * 65536))


# -- tensor cores: float16 (mma m16n8k16) and float32 as TF32 (mma m16n8k8), conv2d_*_tc_{f16,tf32} -------------

def _tf32(x):
    """x rounded to TF32 like cvt.rna.tf32.f32 (10 mantissa bits, ties away from zero), as float64."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32).astype(np.float64)


# Beyond CASES (ragged channels: element-wise gathers): channel counts that are whole 16-byte chunks
# (cp.async gathers), k loops longer than the 4-stage pipeline, several row and column tiles.
TC_CASES = CASES + [
    ((2, 9, 10, 16), (3, 3), 24, (1, 1), (1, 1), "SAME", ()),       # C, CO % 8 == 0: cp.async everywhere
    ((1, 9, 10, 12), (3, 3), 20, (2, 2), (1, 1), "SAME", ()),       # C, CO % 4 == 0, % 8 != 0: cp.async for TF32 only
    ((2, 13, 11, 64), (3, 3), 64, (1, 1), (1, 1), "SAME", ()),      # 18 (f16) / 36 (TF32) k-tiles, 3 row tiles
    ((1, 6, 7, 136), (2, 2), 136, (2, 1), (1, 1), "SAME", ()),      # C = CO = 136: 2 column tiles, 544 taps
    ((1, 11, 9, 24), (3, 3), 40, (3, 3), (2, 2), "SAME", ()),       # stride 3, dilation 2, 9 dgrad phases
    ((2, 9, 8, 8), (4, 3), 16, (2, 2), (3, 1), "EXPLICIT", (0, 0, 3, 2, 1, 0, 0, 0)),  # lopsided pads
    ((3, 5, 5, 8), (1, 1), 8, (2, 2), (1, 1), "VALID", ()),         # 1x1 stride 2: phases without taps
]
TC_IDS = [f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-d{c[4]}-{c[5]}" for c in TC_CASES]


def _tc_run(kb, p, direction, splits=None):
    """One direction on the tensor-core entries; returns (result, reference function, terms summed)."""
    kh, kw, c, co = p.w.shape
    if direction == "fwd":
        got = conv.conv2d_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex, tensor_cores=True)
        return got, lambda x, w, dy: conv2d_ref(x, w, p.s, p.d, p.pads), kh * kw * c
    if direction == "dgrad":
        got = conv.conv2d_input_grad(kb, p.w, p.dy, p.x.shape, p.strides, p.dilations, p.padding, p.ex,
                                     tensor_cores=True)
        return got, lambda x, w, dy: conv2d_input_grad_ref(w, dy, p.x.shape, p.s, p.d, p.pads), kh * kw * co
    got = conv.conv2d_filter_grad(kb, p.x, p.dy, p.w.shape, p.strides, p.dilations, p.padding, p.ex,
                                  splits=splits, tensor_cores=True)
    return got, lambda x, w, dy: conv2d_filter_grad_ref(x, dy, p.w.shape, p.s, p.d, p.pads), p.rows


def _tc_check(p, got, ref, k, dtype):
    if dtype == np.float16:  # float16 inputs are exact in the mma, float32 accumulation, float16 result
        _close(got, ref(p.x, p.w, p.dy), dtype, k)
        return
    assert got.shape and got.dtype == np.float32
    scale = np.sqrt(k)  # |sum| of k products of unit normals
    # the TF32 product: exact products of the TF32-rounded inputs, float32 accumulation ...
    np.testing.assert_allclose(got, ref(_tf32(p.x), _tf32(p.w), _tf32(p.dy)), *tol(np.float32, k))
    # ... within TF32's error of the exact float64 result (10 mantissa bits per input)
    np.testing.assert_allclose(got, ref(p.x.astype(np.float64), p.w.astype(np.float64), p.dy.astype(np.float64)),
                               rtol=0, atol=2e-3 * scale)


@pytest.mark.parametrize("direction", ["fwd", "dgrad", "wgrad"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", TC_CASES, ids=TC_IDS)
def test_conv2d_tensor_cores(kb, rng, case, dtype, direction):
    p = _problem(rng, case, dtype)
    rec = _Recorder(kb)
    got, ref, k = _tc_run(rec, p, direction)
    entry = {"fwd": "conv2d_fwd_tc", "dgrad": "conv2d_input_grad_tc", "wgrad": "conv2d_filter_grad_tc"}[direction]
    names = {n for n, _ in rec.launches}
    assert f"{entry}_{'f16' if dtype == np.float16 else 'tf32'}" in names
    assert names <= {f"{entry}_f16", f"{entry}_tf32", f"conv2d_filter_grad_sum_{conv.suffix(dtype)}"}
    _tc_check(p, got, ref, k, dtype)


# Odd channel counts (element-wise gathers, single-column stores) with strides and dilations that differ in h
# and w, on every tensor-core gradient path: input gradient (stride phases), filter gradient, split-K filter
# gradient, float16 and TF32.
TC_ODD_CASES = [
    ((1, 9, 10, 5), (3, 2), 7, (2, 1), (1, 2), "SAME", ()),
    ((2, 8, 11, 3), (2, 3), 5, (1, 3), (2, 1), "EXPLICIT", (0, 0, 1, 0, 2, 1, 0, 0)),
    ((2, 16, 14, 9), (3, 3), 3, (3, 2), (1, 2), "VALID", ()),
]


@pytest.mark.parametrize("direction", ["dgrad", "wgrad", "wgrad-split"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", TC_ODD_CASES, ids=[f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-d{c[4]}" for c in TC_ODD_CASES])
def test_conv2d_tensor_core_gradients_odd_channels_mixed_geometry(kb, rng, case, dtype, direction):
    p = _problem(rng, case, dtype)
    assert p.x.shape[3] % 2 == 1 and p.w.shape[3] % 2 == 1 and p.s[0] != p.s[1] and p.d[0] != p.d[1]
    rec = _Recorder(kb)
    split = direction == "wgrad-split"
    got, ref, k = _tc_run(rec, p, direction[:5], splits=2 if split else None)
    sfx = "f16" if dtype == np.float16 else "tf32"
    entry = "conv2d_input_grad_tc" if direction == "dgrad" else "conv2d_filter_grad_tc"
    assert any(n == f"{entry}_{sfx}" and (not split or g[2] == 2) for n, g in rec.launches), rec.launches
    _tc_check(p, got, ref, k, dtype)


TC_SPLIT_CASES = SPLIT_CASES + [TC_CASES[-5]]  # + 572 rows, C % 8 == 0: cp.async gathers


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("splits", [2, 5, 100000])
@pytest.mark.parametrize("case", TC_SPLIT_CASES, ids=[f"{c[0]}-co{c[2]}" for c in TC_SPLIT_CASES])
def test_conv2d_tensor_core_filter_grad_split_k(kb, rng, case, splits, dtype):
    """Split-K slices of whole k-tiles (32 rows for float16, 16 for TF32), float32 partials, fixed-order sum."""
    p = _problem(rng, case, dtype)
    rec = _Recorder(kb)
    got, ref, k = _tc_run(rec, p, "wgrad", splits=splits)
    (gemm, grid), (summed, _) = rec.launches
    bk = conv.TC_BK_F16 if dtype == np.float16 else conv.TC_BK_F32
    ktiles = -(-p.rows // bk)
    assert summed == f"conv2d_filter_grad_sum_{conv.suffix(dtype)}"
    assert 2 <= grid[2] <= min(splits, ktiles) and (splits < ktiles or grid[2] == ktiles)
    _tc_check(p, got, ref, k, dtype)
    again, _, _ = _tc_run(kb, p, "wgrad", splits=splits)
    np.testing.assert_array_equal(got, again)  # deterministic: no atomics, fixed summation order


def test_conv2d_tf32_is_not_float32_math(kb, rng):
    """The TF32 entries round their inputs: visibly different from the strict SIMT float32 result."""
    p = _problem(rng, TC_CASES[-5], np.float32)
    k = p.w[..., 0].size
    y = conv.conv2d_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex, tensor_cores=True)
    strict = conv.conv2d_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex)
    exact = conv2d_ref(p.x.astype(np.float64), p.w.astype(np.float64), p.s, p.d, p.pads)
    np.testing.assert_allclose(strict, exact, *tol(np.float32, k))
    assert np.max(np.abs(y - exact)) > 1e-5 * np.sqrt(k)


def test_conv2d_tensor_cores_unaligned_operands(kb, rng):
    """Tensors not 16-byte aligned (views one element in): the element-wise gathers, same results."""
    p = _problem(rng, TC_CASES[-7], np.float16)
    x = np.empty(p.x.size + 1, np.float16)[1:].reshape(p.x.shape)
    x[...] = p.x
    w = np.empty(p.w.size + 1, np.float16)[1:].reshape(p.w.shape)
    w[...] = p.w
    assert not conv.aligned(x) and not conv.aligned(w)
    y = conv.conv2d_forward(kb, x, w, p.strides, p.dilations, p.padding, p.ex, tensor_cores=True)
    _close(y, conv2d_ref(p.x, p.w, p.s, p.d, p.pads), np.float16, p.w[..., 0].size)


# -- the fused bias + activation epilogue (common.cuh's tfc_epilogue; _FusedConv2D's kernels) ------------------

# Odd channel counts (scalar gathers, CO % 4 != 0), two column tiles, strides / dilations / VALID, explicit
# lopsided pads, ragged row tiles, whole 16-byte chunks (cp.async) and C = CO = 136 (2 column tiles).
EPILOGUE_CASES = [CASES[0], CASES[1], CASES[2], CASES[3], CASES[8], CASES[11], TC_CASES[14], TC_CASES[17]]
EPILOGUE_IDS = [f"{c[0]}-k{c[1]}-co{c[2]}-s{c[3]}-{c[5]}" for c in EPILOGUE_CASES]
EPILOGUE_VARIANTS = {"simt64": dict(tile=64), "simt128": dict(tile=128), "tc": dict(tensor_cores=True)}


@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("variant", sorted(EPILOGUE_VARIANTS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", EPILOGUE_CASES, ids=EPILOGUE_IDS)
def test_conv2d_forward_fused_epilogue(kb, rng, case, dtype, variant, with_bias, act):
    p = _problem(rng, case, dtype)
    co = p.w.shape[3]
    bias = rng.standard_normal(co).astype(dtype) if with_bias else None
    rec = _Recorder(kb)
    y = conv.conv2d_forward(rec, p.x, p.w, p.strides, p.dilations, p.padding, p.ex, bias=bias, act=act,
                            **EPILOGUE_VARIANTS[variant])
    assert len(rec.launches) == 1  # the epilogue is in the forward kernel: one launch
    tf32 = variant == "tc" and dtype == np.float32
    k = p.w[..., 0].size
    if tf32:  # the TF32 product (rounded inputs, float32 accumulation)
        prod = conv2d_ref(_tf32(p.x), _tf32(p.w), p.s, p.d, p.pads)
    else:
        prod = conv2d_ref(p.x.astype(np.float64), p.w.astype(np.float64), p.s, p.d, p.pads)
    want = prod + (bias.astype(np.float64) if bias is not None else 0.0)
    if act == ACT_RELU:
        want = np.maximum(want, 0.0)
        assert (y >= 0).all()
    assert y.shape == want.shape and y.dtype == dtype
    np.testing.assert_allclose(y.astype(np.float64), want, *tol(np.float32 if tf32 else dtype, k))
    if not with_bias and act == ACT_NONE:  # null bias, no activation: the plain forward, bit for bit
        plain = conv.conv2d_forward(kb, p.x, p.w, p.strides, p.dilations, p.padding, p.ex,
                                    **EPILOGUE_VARIANTS[variant])
        np.testing.assert_array_equal(y, plain)


@pytest.mark.parametrize("act", [ACT_NONE, ACT_RELU])
def test_conv2d_forward_fused_epilogue_empty_window(kb, rng, act):
    """C == 0: every output is act(0 + bias), with no launch, as the separate ops give."""
    one = (1, 1, 1, 1)
    bias = rng.standard_normal(5).astype(np.float32)
    y = conv.conv2d_forward(kb, np.ones((1, 4, 4, 0), np.float32), np.ones((3, 3, 0, 5), np.float32), one, one,
                            "SAME", bias=bias, act=act)
    want = np.broadcast_to(np.maximum(bias, 0) if act else bias, (1, 4, 4, 5))
    np.testing.assert_array_equal(y, want)
