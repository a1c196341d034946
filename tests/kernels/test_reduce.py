"""kernels/reduce.cu on the emulator: rows/columns layouts, transposed axes, two-pass splits, arg-reductions."""

import numpy as np
import pytest
from kernel_helpers import tol

from tests.kernel_refs import argreduce_ref, reduce_ref
from tfcore.ops.cuda_kernels import reduce as red

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
