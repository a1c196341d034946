"""kernels/pool.cu on the emulator: max/avg pooling forward and backward, SAME/VALID, ties, sizes 0/1."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels import pool
from tfcore.selftest.references import avg_pool_grad_ref, avg_pool_ref, max_pool_grad_ref, max_pool_ref, tf_pads_2d

pytestmark = pytest.mark.emulator

CASES = [  # x shape, (kh, kw), (sh, sw), padding
    ((2, 7, 9, 3), (3, 3), (2, 2), "SAME"),
    ((2, 7, 9, 3), (3, 3), (2, 2), "VALID"),
    ((1, 5, 6, 2), (2, 3), (1, 2), "SAME"),
    ((1, 1, 1, 1), (1, 1), (1, 1), "VALID"),
    ((1, 2, 3, 1), (4, 4), (3, 3), "SAME"),          # window larger than the input
    ((1, 6, 7, 2), (4, 2), (1, 3), "SAME"),          # even window: SAME pads more after than before
    ((2, 8, 5, 1), (2, 2), (2, 2), "SAME"),          # even sizes: SAME needs no padding
    ((1, 10, 9, 2), (3, 4), (3, 2), "VALID"),
]


def _setup(case):
    """Output shape and paddings from the references' own TF SAME/VALID arithmetic (tf_pads_2d),
    not from the production pool_geometry."""
    shape, k, s, padding = case
    ksize, strides = (1, *k, 1), (1, *s, 1)
    (oh, ow), pads = tf_pads_2d(shape, k, s, padding)
    return shape, k, s, ksize, strides, padding, (shape[0], oh, ow, shape[3]), pads


@pytest.mark.parametrize("size, k, s, padding, expected", [
    (7, 3, 2, "SAME", (4, 1, 1)), (6, 4, 1, "SAME", (6, 1, 2)), (8, 2, 2, "SAME", (4, 0, 0)),
    (2, 4, 3, "SAME", (1, 1, 1)), (7, 3, 2, "VALID", (3, 0, 0)), (10, 3, 3, "VALID", (3, 0, 0)),
    (5, 3, 1, "SAME", (5, 1, 1)), (9, 4, 2, "SAME", (5, 1, 2)),
])
def test_reference_padding_is_tf_same_rule(size, k, s, padding, expected):
    """The reference padding helper against values worked out by hand from TF's rule
    (out = ceil(in / stride); pad_total = max((out - 1) * stride + k - in, 0); before = total // 2)."""
    from tfcore.selftest.references import tf_padding

    assert tf_padding(size, k, s, 1, padding) == expected


@pytest.mark.parametrize("case", CASES)
def test_output_shapes_match_the_reference_geometry(kb, case):
    shape, k, s, ksize, strides, padding, out_shape, _ = _setup(case)
    x = np.zeros(shape, np.float32)
    assert pool.pool_forward(kb, x, "max", ksize, strides, padding).shape == out_shape


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", CASES)
def test_pool_forward_backward(kb, rng, case, dtype):
    shape, k, s, ksize, strides, padding, out_shape, pads = _setup(case)
    x = rng.standard_normal(shape).astype(dtype)
    dy = rng.standard_normal(out_shape).astype(dtype)
    rt = tol(dtype, k[0] * k[1])
    np.testing.assert_array_equal(pool.pool_forward(kb, x, "max", ksize, strides, padding), max_pool_ref(x, k, s, pads))
    np.testing.assert_allclose(pool.pool_forward(kb, x, "avg", ksize, strides, padding).astype(np.float64),
                               avg_pool_ref(x, k, s, pads).astype(np.float64), *rt)
    np.testing.assert_allclose(pool.max_pool_backward(kb, x, dy, ksize, strides, padding).astype(np.float64),
                               max_pool_grad_ref(x, dy, k, s, pads).astype(np.float64), *rt)
    np.testing.assert_allclose(pool.avg_pool_backward(kb, dy, shape, ksize, strides, padding).astype(np.float64),
                               avg_pool_grad_ref(dy, shape, k, s, pads).astype(np.float64), *rt)


def test_max_pool_backward_routes_ties_to_first_max(kb):
    x = np.zeros((1, 4, 4, 1), np.float32)            # every window is all ties
    dy = np.arange(1, 5, dtype=np.float32).reshape(1, 2, 2, 1)
    dx = pool.max_pool_backward(kb, x, dy, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    expected = np.zeros((4, 4), np.float32)
    expected[0, 0], expected[0, 2], expected[2, 0], expected[2, 2] = 1, 2, 3, 4
    np.testing.assert_array_equal(dx[0, :, :, 0], expected)


def test_overlapping_windows_accumulate(kb):
    x = np.zeros((1, 3, 3, 1), np.float32)
    x[0, 1, 1, 0] = 5.0                               # the max of all four overlapping 2x2 windows
    dy = np.ones((1, 2, 2, 1), np.float32)
    dx = pool.max_pool_backward(kb, x, dy, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")
    assert dx[0, 1, 1, 0] == 4.0 and dx.sum() == 4.0


def test_pool_empty(kb):
    x = np.ones((0, 4, 4, 2), np.float32)
    unit = (1, 2, 2, 1)
    assert pool.pool_forward(kb, x, "max", unit, unit, "VALID").shape == (0, 2, 2, 2)
    assert pool.max_pool_backward(kb, x, np.ones((0, 2, 2, 2), np.float32), unit, unit, "VALID").shape == x.shape
    assert pool.avg_pool_backward(kb, np.ones((0, 2, 2, 2), np.float32), x.shape, unit, unit, "VALID").shape == x.shape
