"""tf.linalg against NumPy float64 references (values, batching, TF's conventions and errors).

Gradients of the primitive ops and the CPU/GPU equivalence are checked by the op-info table
(tests/opinfo/table.py).
"""

import numpy as np
import pytest

import tfcore as tf

rng = np.random.default_rng(42)
A = rng.standard_normal((2, 4, 4)) + 2 * np.eye(4)
SPD = A @ A.transpose(0, 2, 1) + np.eye(4)
B = rng.standard_normal((2, 4, 3))


def test_inverse_determinants_solves():
    np.testing.assert_allclose(tf.linalg.inv(A).numpy(), np.linalg.inv(A), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.inv(A, adjoint=True).numpy(), np.linalg.inv(A.transpose(0, 2, 1)),
                               rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.det(A).numpy(), np.linalg.det(A), rtol=1e-10)
    sign, logabs = tf.linalg.slogdet(A)
    np.testing.assert_allclose(sign.numpy(), np.linalg.slogdet(A)[0])
    np.testing.assert_allclose(logabs.numpy(), np.linalg.slogdet(A)[1], rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.logdet(SPD).numpy(), np.linalg.slogdet(SPD)[1], rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(A, B).numpy(), np.linalg.solve(A, B), rtol=1e-9)
    np.testing.assert_allclose(tf.linalg.solve(A, B, adjoint=True).numpy(),
                               np.linalg.solve(A.transpose(0, 2, 1), B), rtol=1e-9)
    listed = tf.linalg.solve(A[0], [[1.0], [0.0], [0.0], [0.0]])  # Python values take the matrix's dtype (TF)
    assert listed.dtype == tf.float64
    np.testing.assert_allclose(listed.numpy()[:, 0], np.linalg.inv(A[0])[:, 0], rtol=1e-10)
    low = np.tril(A)
    np.testing.assert_allclose(tf.linalg.triangular_solve(A, B).numpy(), np.linalg.solve(low, B), rtol=1e-9)
    np.testing.assert_allclose(tf.linalg.triangular_solve(A, B, lower=False, adjoint=True).numpy(),
                               np.linalg.solve(np.triu(A).transpose(0, 2, 1), B), rtol=1e-9)
    chol = np.linalg.cholesky(SPD)
    np.testing.assert_allclose(tf.linalg.cholesky(SPD).numpy(), chol, rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(chol, B).numpy(), np.linalg.solve(SPD, B), rtol=1e-9)
    with pytest.raises(tf.errors.InvalidArgumentError, match="square"):
        tf.linalg.inv(np.ones((2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
        tf.linalg.cholesky(-np.eye(3))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        tf.linalg.inv(np.zeros((2, 2)))


def test_decompositions():
    tall = rng.standard_normal((3, 5, 3))
    q, r = tf.linalg.qr(tall)
    assert q.shape == (3, 5, 3) and r.shape == (3, 3, 3)
    np.testing.assert_allclose((q @ r).numpy(), tall, atol=1e-12)
    np.testing.assert_allclose(np.tril(r.numpy(), -1), 0.0, atol=1e-14)
    qf, rf = tf.linalg.qr(tall, full_matrices=True)
    assert qf.shape == (3, 5, 5) and rf.shape == (3, 5, 3)
    s, u, v = tf.linalg.svd(tall)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(tall, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose((u.numpy() * s.numpy()[:, None, :]) @ v.numpy().transpose(0, 2, 1), tall, atol=1e-12)
    assert tf.linalg.svd(tall, compute_uv=False).shape == (3, 3)
    e, vec = tf.linalg.eigh(SPD)
    np.testing.assert_allclose(e.numpy(), np.linalg.eigvalsh(SPD), rtol=1e-10)
    np.testing.assert_allclose(SPD @ vec.numpy(), vec.numpy() * e.numpy()[:, None, :], atol=1e-10)
    np.testing.assert_allclose(tf.linalg.eigvalsh(SPD).numpy(), np.linalg.eigvalsh(SPD), rtol=1e-10)


def test_least_squares_pinv_rank():
    m = rng.standard_normal((6, 3))
    rhs = rng.standard_normal((6, 2))
    np.testing.assert_allclose(tf.linalg.lstsq(m, rhs).numpy(), np.linalg.lstsq(m, rhs, rcond=None)[0], rtol=1e-9)
    reg = tf.linalg.lstsq(m, rhs, l2_regularizer=0.5).numpy()
    np.testing.assert_allclose(reg, np.linalg.solve(m.T @ m + 0.5 * np.eye(3), m.T @ rhs), rtol=1e-9)
    wide = m.T  # 3 x 6: minimum-norm solution
    np.testing.assert_allclose(tf.linalg.lstsq(wide, rhs[:3]).numpy(), np.linalg.pinv(wide) @ rhs[:3], rtol=1e-9)
    np.testing.assert_allclose(tf.linalg.pinv(m).numpy(), np.linalg.pinv(m), rtol=1e-9)
    low_rank = m[:, :2] @ rng.standard_normal((2, 4))
    assert tf.linalg.matrix_rank(low_rank).numpy() == 2


def test_band_diagonals_and_helpers():
    x = np.arange(24.0).reshape(2, 3, 4)
    keep = np.array([[i - j <= 1 and j - i <= 0 for j in range(4)] for i in range(3)])
    np.testing.assert_array_equal(tf.linalg.band_part(x, 1, 0).numpy(), np.where(keep, x, 0))
    np.testing.assert_array_equal(tf.linalg.band_part(x, -1, 0).numpy(), np.tril(x))
    np.testing.assert_array_equal(tf.linalg.diag_part(x).numpy(), np.diagonal(x, axis1=1, axis2=2))
    np.testing.assert_array_equal(tf.linalg.diag_part(x, k=1).numpy(), np.diagonal(x, 1, axis1=1, axis2=2))
    np.testing.assert_array_equal(tf.linalg.diag([[1.0, 2.0], [3.0, 4.0]]).numpy(),
                                  [np.diag([1.0, 2.0]), np.diag([3.0, 4.0])])
    np.testing.assert_array_equal(tf.linalg.diag([1.0, 2.0], k=-1).numpy(), np.diag([1.0, 2.0], -1))
    np.testing.assert_array_equal(tf.linalg.diag([1.0, 2.0], num_rows=3, num_cols=2, padding_value=9).numpy(),
                                  [[1, 9], [9, 2], [9, 9]])
    d = -np.ones((2, 3))
    expected = x.copy()
    for b in range(2):
        for i in range(3):
            expected[b, i, i] = -1
    np.testing.assert_array_equal(tf.linalg.set_diag(x, d).numpy(), expected)
    np.testing.assert_allclose(tf.linalg.trace(A).numpy(), np.trace(A, axis1=1, axis2=2))
    np.testing.assert_allclose(tf.linalg.matvec(A, B[..., 0]).numpy(), np.einsum("bij,bj->bi", A, B[..., 0]))
    np.testing.assert_array_equal(tf.linalg.adjoint(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(tf.linalg.matrix_transpose(x).numpy(), x.transpose(0, 2, 1))
    np.testing.assert_array_equal(tf.linalg.tensor_diag([[1.0, 2.0], [3.0, 4.0]]).numpy(),
                                  np.diag([1.0, 2.0, 3.0, 4.0]).reshape(2, 2, 2, 2))
    np.testing.assert_array_equal(tf.linalg.tensor_diag_part(np.diag([1.0, 2.0, 3.0, 4.0]).reshape(2, 2, 2, 2))
                                  .numpy(), [[1.0, 2.0], [3.0, 4.0]])
    a3, b3 = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(tf.linalg.cross(a3, b3).numpy(), np.cross(a3, b3))
    unit, norm = tf.linalg.normalize(a3, axis=1)
    np.testing.assert_allclose(norm.numpy(), np.linalg.norm(a3, axis=1, keepdims=True))
    np.testing.assert_allclose(tf.linalg.l2_normalize(a3, axis=1).numpy(), unit.numpy())
    np.testing.assert_allclose(tf.linalg.norm(a3).numpy(), np.linalg.norm(a3))
    # expm: exp of a diagonalisable matrix through its eigen-decomposition
    sym = (A[0] + A[0].T) / 4
    w, v = np.linalg.eigh(sym)
    np.testing.assert_allclose(tf.linalg.expm(sym).numpy(), (v * np.exp(w)) @ v.T, rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.expm(3.0 * sym).numpy(), (v * np.exp(3 * w)) @ v.T, rtol=1e-9)
    with pytest.raises(tf.errors.InvalidArgumentError, match="diagonal must have shape"):
        tf.linalg.set_diag(x, np.ones((2, 2)))
