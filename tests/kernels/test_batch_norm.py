"""kernels/batch_norm.cu on the emulator against the float64 references (tfcore/selftest/references.py):
FusedBatchNormV3 (training and inference, exponential averages) and FusedBatchNormGradV3, channels last (the
vector and scalar passes, one channel tile and several, one split of the rows and several) and channels first,
float32 and float16."""

import numpy as np
import pytest

from tfcore.ops.cuda_kernels import batch_norm as bn
from tfcore.selftest.references import batch_norm_grad_ref, batch_norm_ref

pytestmark = pytest.mark.emulator

EPS = 1e-3
# (shape, data_format): rows path with C % 4 == 0 (vector passes), C odd (scalar), > 1 tile of 32 channels, several
# splits of the rows; planes path (NCHW) with one split and several
CASES = [((2, 3, 4, 8), "NHWC"), ((5, 7, 3), "NHWC"), ((70, 33), "NHWC"), ((600, 40), "NHWC"),
         ((2, 5, 3, 4), "NCHW"), ((3, 2, 9000), "NCHW"), ((1, 1, 1, 1), "NHWC"), ((2, 3, 2, 2, 4), "NDHWC")]


def _channels(shape, data_format):
    return shape[1] if data_format.startswith("NC") else shape[-1]


def _inputs(rng, shape, data_format, dtype, shift=0.0):
    c = _channels(shape, data_format)
    x = (rng.standard_normal(shape) * 2.0 + shift).astype(dtype)
    scale = rng.uniform(0.5, 1.5, c).astype(np.float32)
    offset = rng.standard_normal(c).astype(np.float32)
    mean = rng.standard_normal(c).astype(np.float32)
    var = rng.uniform(0.5, 2.0, c).astype(np.float32)
    return x, scale, offset, mean, var


def _y_tol(dtype):
    return (2e-3, 4e-3) if dtype == np.float16 else (2e-5, 2e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape, data_format", CASES)
@pytest.mark.parametrize("factor", [1.0, 0.3])
def test_forward_training(kb, rng, shape, data_format, dtype, factor):
    x, scale, offset, mean, var = _inputs(rng, shape, data_format, dtype)
    got = bn.batch_norm_forward(kb, x, scale, offset, mean, var, epsilon=EPS, exponential_avg_factor=factor,
                                data_format=data_format, is_training=True)
    want = batch_norm_ref(x, scale, offset, mean, var, EPS, factor, data_format, training=True)
    assert got[0].dtype == dtype and got[0].shape == x.shape
    assert all(a.dtype == np.float32 and a.shape == scale.shape for a in got[1:5])
    assert got[5].shape == (0,) and got[5].dtype == np.float32
    np.testing.assert_allclose(got[0].astype(np.float64), want[0], *_y_tol(dtype))
    for g, w in zip(got[1:5], want[1:5]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape, data_format", [CASES[0], CASES[1], CASES[4]])
def test_forward_inference(kb, rng, shape, data_format, dtype):
    x, scale, offset, mean, var = _inputs(rng, shape, data_format, dtype)
    got = bn.batch_norm_forward(kb, x, scale, offset, mean, var, epsilon=EPS, exponential_avg_factor=1.0,
                                data_format=data_format, is_training=False)
    want = batch_norm_ref(x, scale, offset, mean, var, EPS, data_format=data_format, training=False)
    np.testing.assert_allclose(got[0].astype(np.float64), want[0], *_y_tol(dtype))
    for g in got[1:5:2]:
        np.testing.assert_array_equal(g, mean)
    for g in got[2:5:2]:
        np.testing.assert_array_equal(g, var)
    assert not any(np.shares_memory(g, a) for g in got for a in (mean, var))


def test_statistics_of_values_far_from_zero(kb, rng):
    """Mean 1000, standard deviation 1 over 5000 rows and several splits: the Welford / Chan merges keep the
    variance to float32 precision (a sum of squares minus the squared sum would lose every digit)."""
    x, scale, offset, mean, var = _inputs(rng, (5000, 8), "NHWC", np.float32, shift=1000.0)
    got = bn.batch_norm_forward(kb, x, scale, offset, mean, var, epsilon=EPS, exponential_avg_factor=1.0,
                                data_format="NHWC", is_training=True)
    want = batch_norm_ref(x, scale, offset, epsilon=EPS)
    np.testing.assert_allclose(got[4], want[4], rtol=1e-5)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape, data_format", CASES)
@pytest.mark.parametrize("training", [True, False])
def test_gradient(kb, rng, shape, data_format, dtype, training):
    x, scale, _, mean, var = _inputs(rng, shape, data_format, dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    if training:  # the forward's reserve spaces: the batch's own statistics
        _, _, _, mean, var = (a.astype(np.float32) for a in batch_norm_ref(x, scale, scale, epsilon=EPS,
                                                                           data_format=data_format))
    dx, dscale, doffset, r4, r5 = bn.batch_norm_grad(kb, dy, x, scale, mean, var, np.zeros(0, np.float32),
                                                     epsilon=EPS, data_format=data_format, is_training=training)
    want = batch_norm_grad_ref(dy, x, scale, mean, var, EPS, data_format, training)
    assert dx.dtype == dtype and dx.shape == x.shape and r4.shape == r5.shape == ()
    terms = x.size // scale.size
    np.testing.assert_allclose(dx.astype(np.float64), want[0], *_y_tol(dtype))
    atol = 2e-5 * np.sqrt(terms) * (50 if dtype == np.float16 else 1)
    np.testing.assert_allclose(dscale, want[1], rtol=1e-5, atol=atol)
    np.testing.assert_allclose(doffset, want[2], rtol=1e-5, atol=atol)


@pytest.mark.parametrize("shape, data_format, variant, splits", [
    ((600, 40), "NHWC", "rows", 3), ((401408, 64), "NHWC", "rows", 512), ((1568, 2048), "NHWC", "rows", 7),
    ((3, 2, 9000), "NCHW", "planes", 4), ((32, 64, 112, 112), "NCHW", "planes", 16), ((5, 7, 3), "NHWC", "rows", 1)])
def test_splits_depend_on_the_shape_alone(shape, data_format, variant, splits):
    """The statistics grid of a shape: enough blocks to fill a GPU, 32+ values a thread, no empty split."""
    outer, c, inner = bn._layout(shape, data_format)
    got_variant, grid, block, got_splits, size_args = bn._statistics_grid(outer, c, inner)
    chunk = int(size_args[-1])
    assert (got_variant, got_splits) == (variant, splits)
    assert (got_splits - 1) * chunk < outer * inner <= got_splits * chunk
    assert grid[1] == got_splits and block[0] * block[1] == bn.THREADS
