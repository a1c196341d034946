"""kernels/softmax.cu on the emulator: warp and block rows, log-softmax, -inf, fused sparse cross-entropy."""

import numpy as np
import pytest
from kernel_helpers import tol

from tfcore.ops.cuda_kernels import softmax as sm
from tfcore.selftest.references import softmax_ref, sparse_xent_ref

pytestmark = pytest.mark.emulator


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape", [(3, 5), (4, 1), (2, 3, 33), (2, 1500), (1, 1), (9, 1024)])
def test_softmax_and_log_softmax(kb, rng, shape, dtype):
    x = (3 * rng.standard_normal(shape)).astype(dtype)
    for log in (False, True):
        y = sm.softmax_last_axis(kb, x, log)
        assert y.shape == x.shape and y.dtype == dtype
        np.testing.assert_allclose(y.astype(np.float64), softmax_ref(x, log).astype(np.float64), *tol(dtype))


def test_softmax_large_and_infinite_logits(kb):
    x = np.array([[1000.0, 1000.0, -np.inf], [-np.inf, 0.0, 1.0]], np.float32)
    np.testing.assert_allclose(sm.softmax_last_axis(kb, x), softmax_ref(x), rtol=1e-6, atol=1e-7)


def test_softmax_empty(kb):
    assert sm.softmax_last_axis(kb, np.ones((0, 5), np.float32)).shape == (0, 5)
    assert sm.softmax_last_axis(kb, np.ones((3, 0), np.float32)).shape == (3, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("rows,classes", [(5, 7), (3, 300), (2, 1), (1, 40)])
def test_sparse_xent(kb, rng, rows, classes, dtype):
    x = (2 * rng.standard_normal((rows, classes))).astype(dtype)
    labels = rng.integers(0, classes, size=rows).astype(np.int64)
    loss, grad = sm.sparse_softmax_xent(kb, x, labels)
    ref_loss, ref_grad = sparse_xent_ref(x, labels)
    np.testing.assert_allclose(loss.astype(np.float64), ref_loss.astype(np.float64), *tol(dtype))
    np.testing.assert_allclose(grad.astype(np.float64), ref_grad.astype(np.float64), *tol(dtype))


def test_sparse_xent_bad_labels_give_nan_rows(kb, rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    for labels in (np.array([1, -1, 6, 2], np.int32), np.array([1, 2**40, 7, 2], np.int64)):
        loss, grad = sm.sparse_softmax_xent(kb, x, labels)
        assert np.isnan(loss[1:3]).all() and np.isnan(grad[1:3]).all()
        ref_loss, ref_grad = sparse_xent_ref(x, np.array([1, 0, 0, 2]))
        np.testing.assert_allclose(loss[[0, 3]], ref_loss[[0, 3]], *tol(np.float32))
        np.testing.assert_allclose(grad[[0, 3]], ref_grad[[0, 3]], *tol(np.float32))
