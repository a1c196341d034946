"""kernels/reduce.cu on the emulator: rows/columns layouts, transposed axes, split reductions in one launch,
arg-reductions."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels import reduce as red
from tfcore.selftest.references import argreduce_ref, reduce_ref

pytestmark = pytest.mark.emulator

OPS = ["sum", "mean", "max", "min", "prod"]


def _data(rng, shape, op, dtype):
    if op == "prod":  # values near 1 keep products of many terms finite
        return (1.0 + 0.05 * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("axes", [(2,), (1,), (0,), (0, 2), (0, 1, 2), (1, 2)])
def test_reduce_axes_f32(kb, rng, op, axes):
    x = _data(rng, (5, 37, 6), op, np.float32)
    y = red.reduce_axes(kb, x, axes, False, op)
    ref = reduce_ref(x, axes, op)
    assert y.shape == ref.shape
    np.testing.assert_allclose(y, ref, *tol(np.float32, x.size))


@pytest.mark.parametrize("op", OPS)
def test_reduce_f16_accumulates_in_f32(kb, rng, op):
    x = _data(rng, (3, 300), op, np.float16)
    for axes in ((1,), (0,)):
        y = red.reduce_axes(kb, x, axes, True, op)
        assert y.dtype == np.float16 and y.shape == reduce_ref(x, axes, op, keepdims=True).shape
        np.testing.assert_allclose(y.astype(np.float64), reduce_ref(x, axes, op, True).astype(np.float64),
                                   *tol(np.float16, 300))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", ["sum", "max", "prod"])
def test_two_pass_rows_and_columns(kb, rng, op, dtype):
    x = _data(rng, (3, 1003), op, dtype)
    for splits in (2, 5):
        rows = red.reduce_layout(kb, x, 3, 1003, 1, op, splits=splits)                  # reduce the long rows
        np.testing.assert_allclose(rows.astype(np.float64), reduce_ref(x, (1,), op).astype(np.float64),
                                   *tol(dtype, 1003))
        xt = np.ascontiguousarray(x.T)                                                    # [1003, 3]: columns
        cols = red.reduce_layout(kb, xt, 1, 1003, 3, op, splits=splits)
        np.testing.assert_allclose(cols.astype(np.float64), reduce_ref(xt, (0,), op).astype(np.float64),
                                   *tol(dtype, 1003))


def test_two_pass_chosen_automatically_for_long_rows(kb, rng, monkeypatch):
    monkeypatch.setattr(red, "SPLIT_CHUNK", 64)     # small thresholds: the real ones need millions of items
    x = rng.standard_normal(4 * 64 * 3 + 8).astype(np.float32)  # float4 path with chunks rounded up to 4
    np.testing.assert_allclose(red.reduce_axes(kb, x, (0,), False, "sum"), x.astype(np.float64).sum(),
                               *tol(np.float32, x.size))


def test_reduce_empty(kb):
    x = np.ones((3, 0), np.float32)
    np.testing.assert_array_equal(red.reduce_axes(kb, x, (1,), False, "sum"), np.zeros(3))
    np.testing.assert_array_equal(red.reduce_axes(kb, x, (1,), False, "prod"), np.ones(3))
    np.testing.assert_array_equal(red.reduce_axes(kb, x, (1,), False, "max"), np.full(3, -np.inf))
    np.testing.assert_array_equal(red.reduce_axes(kb, x, (1,), False, "min"), np.full(3, np.inf))
    assert np.isnan(red.reduce_axes(kb, x, (1,), False, "mean")).all()
    assert red.reduce_axes(kb, x, (0,), False, "sum").shape == (0,)
    np.testing.assert_array_equal(red.reduce_axes(kb, np.float32([2.5]), (0,), False, "sum"), 2.5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_argmax_argmin(kb, rng, axis, dtype):
    x = rng.integers(-3, 4, size=(4, 70, 5)).astype(dtype)  # many ties: the first index must win
    for is_min in (False, True):
        got = red.argreduce_axis(kb, x, axis, is_min)
        np.testing.assert_array_equal(got, argreduce_ref(x, axis, is_min))


# -- column reductions in one launch ------------------------------------------------------------------

class _Launches:
    """A kb that records the kernel names it launches."""

    kind, xp = "cuda", np

    def __init__(self, kb):
        self._lib, self.names, self.kernels = kb.kernels, [], self

    def launch(self, name, grid, block, args, shared_mem=0):
        self.names.append((name, tuple(grid), tuple(block)))
        return self._lib.launch(name, grid, block, args, shared_mem)


def _unaligned(x):
    """A C-contiguous copy of ``x`` starting one element past a 16-byte boundary (no vector loads)."""
    buf = np.empty(x.size + 8, x.dtype)
    off = 1 if buf.ctypes.data % 16 == 0 else 0
    out = buf[off:off + x.size].reshape(x.shape)
    out[...] = x
    return out


# (outer, R, inner): inner % 4 == 0 runs the 4-wide loads; small inner narrows the block's x.
COL_SHAPES = [(1, 1, 2), (2, 1, 4), (3, 7, 2), (1, 301, 3), (2, 77, 5), (3, 50, 8), (1, 97, 132), (2, 40, 37),
              (1, 33, 260)]


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("op", OPS)
def test_columns_one_launch_ragged_and_forced_splits(kb, rng, op, dtype):
    rec = _Launches(kb)
    sfx = "f32" if dtype == np.float32 else "f16"
    for outer, r, inner in COL_SHAPES:
        x = _data(rng, (outer, r, inner), op, dtype)
        want = reduce_ref(x, (1,), op).astype(np.float64).ravel()
        for xin in (x, _unaligned(x)) if inner % 4 == 0 else (x,):
            for splits in (1, 2, 3, 7, r + 2):  # r + 2: more splits than rows, some chunks empty
                rec.names.clear()
                if op == "mean":
                    got = red.reduce_layout(rec, xin, outer, r, inner, "sum", 1.0 / r, splits=splits)
                else:
                    got = red.reduce_layout(rec, xin, outer, r, inner, op, splits=splits)
                assert got.dtype == dtype
                np.testing.assert_allclose(got.astype(np.float64), want, *tol(dtype, r),
                                           err_msg=f"{(outer, r, inner)} splits={splits}")
                (name, grid, block), = rec.names  # ONE launch, split or not
                assert name == (f"reduce_cols_split_{sfx}" if splits > 1 else f"reduce_cols_{sfx}")
                vec = inner % 4 == 0 and xin is x
                assert block[0] * block[1] == red.THREADS
                assert block[0] * (4 if vec else 1) >= min(inner, red.COLS_X * (4 if vec else 1))
                assert grid[0] == -(-inner // (block[0] * (4 if vec else 1)))
    tickets = red._cols_workspace(kb, 1, 1)[1]
    assert not tickets.any()


def test_columns_empty_and_size_one(kb):
    assert red.reduce_layout(kb, np.ones((0, 5, 3), np.float32), 0, 5, 3, "sum", splits=3).shape == (0,)
    assert red.reduce_layout(kb, np.ones((2, 5, 0), np.float32), 2, 5, 0, "sum", splits=3).shape == (0,)
    np.testing.assert_array_equal(red.reduce_layout(kb, np.ones((2, 0, 3), np.float32), 2, 0, 3, "max", splits=3),
                                  np.full(6, -np.inf))
    x = np.arange(6, dtype=np.float32).reshape(2, 1, 3)
    np.testing.assert_array_equal(red.reduce_layout(kb, x, 2, 1, 3, "prod", splits=4), x.ravel())


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_column_tickets_are_reused_across_launches(kb, rng, dtype):
    """Columns split over several blocks, launched again and again with other splits and shapes: every
    output tile's ticket is back at zero after each launch, and the workspace grows when needed."""
    for outer, r, inner, splits in [(1, 500, 3, 2), (2, 500, 3, 5), (1, 300, 64, 7), (3, 200, 36, 3),
                                    (1, 500, 3, 5), (4, 100, 130, 9), (1, 50, 2, 2)]:
        x = rng.standard_normal((outer, r, inner)).astype(dtype)
        for op in ("sum", "min"):
            got = red.reduce_layout(kb, x, outer, r, inner, op, splits=splits)
            np.testing.assert_allclose(got.astype(np.float64), reduce_ref(x, (1,), op).astype(np.float64).ravel(),
                                       *tol(dtype, r))
        part, tickets = red._cols_workspace(kb, 1, 1)
        assert not tickets.any()
        assert part.size >= outer * splits * inner


def test_column_split_chosen_automatically(kb, rng, monkeypatch):
    monkeypatch.setattr(red, "SPLIT_MIN_COLS_R", 64)
    monkeypatch.setattr(red, "SPLIT_COLS_ITERS", 1)
    rec = _Launches(kb)
    x = rng.standard_normal((2, 600, 12)).astype(np.float32)
    got = red.reduce_axes(rec, x, (1,), False, "sum")
    np.testing.assert_allclose(got, x.astype(np.float64).sum(1), *tol(np.float32, 600))
    (name, grid, block), = rec.names
    assert name == "reduce_cols_split_f32" and block == (4, 64, 1) and grid[1] > 2


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_column_split_is_deterministic_under_any_grid(kb, rng, monkeypatch, dtype):
    """The partials and their combining order depend on (splits, block) only, not on how many blocks
    run: bit-identical results with 1 block, 3 blocks and the full grid."""
    x = rng.standard_normal((3, 700, 20)).astype(dtype)
    outs = []
    for cap in (None, "1", "3"):
        if cap is None:
            monkeypatch.delenv("TFCORE_KERNEL_MAX_BLOCKS", raising=False)
        else:
            monkeypatch.setenv("TFCORE_KERNEL_MAX_BLOCKS", cap)
        outs.append(red.reduce_layout(kb, x, 3, 700, 20, "sum", splits=6))
    for o in outs[1:]:
        np.testing.assert_array_equal(o, outs[0])
    np.testing.assert_allclose(outs[0].astype(np.float64), reduce_ref(x, (1,), "sum").astype(np.float64).ravel(),
                               *tol(dtype, 700))
