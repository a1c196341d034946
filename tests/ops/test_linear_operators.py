"""tf.linalg.LinearOperator family against dense NumPy float64 matrices."""

import numpy as np
import pytest

import tfcore as tf

LA = tf.linalg
rng = np.random.default_rng(23)


def _check(op, dense):
    np.testing.assert_allclose(op.to_dense().numpy(), dense, rtol=1e-10, atol=1e-12)
    x = rng.standard_normal((dense.shape[-1], 2))
    np.testing.assert_allclose(op.matmul(x).numpy(), dense @ x, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(op.matvec(x[:, 0]).numpy(), dense @ x[:, 0], rtol=1e-10, atol=1e-12)
    assert op.shape.as_list() == list(dense.shape)
    if dense.shape[-1] == dense.shape[-2] and abs(np.linalg.det(dense)) > 1e-8:
        np.testing.assert_allclose(op.determinant().numpy(), np.linalg.det(dense), rtol=1e-8)
        np.testing.assert_allclose(op.log_abs_determinant().numpy(), np.linalg.slogdet(dense)[1], rtol=1e-8)
        np.testing.assert_allclose(op.solve(x).numpy(), np.linalg.solve(dense, x), rtol=1e-8)
        np.testing.assert_allclose(op.inverse().to_dense().numpy(), np.linalg.inv(dense), rtol=1e-8)
    np.testing.assert_allclose(op.adjoint().to_dense().numpy(), dense.T, rtol=1e-12)
    np.testing.assert_allclose(op.trace().numpy(), np.trace(dense), rtol=1e-10, atol=1e-12)


def test_basic_operators():
    m = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    _check(LA.LinearOperatorFullMatrix(m), m)
    d = np.array([1.0, -2.0, 3.0])
    _check(LA.LinearOperatorDiag(d), np.diag(d))
    _check(LA.LinearOperatorIdentity(3, dtype=tf.float64), np.eye(3))
    _check(LA.LinearOperatorScaledIdentity(3, np.float64(2.5)), 2.5 * np.eye(3))
    _check(LA.LinearOperatorLowerTriangular(m), np.tril(m))
    assert LA.LinearOperatorZeros(2, 3, dtype=tf.float64).to_dense().numpy().tolist() == [[0.0] * 3] * 2
    with pytest.raises(ValueError, match="non-invertible"):
        LA.LinearOperatorZeros(2).solve(np.ones((2, 1), np.float32))
    _check(LA.LinearOperatorPermutation([2, 0, 1], dtype=tf.float64), np.eye(3)[[2, 0, 1]])
    v = np.array([1.0, 2.0, 2.0])
    _check(LA.LinearOperatorHouseholder(v), np.eye(3) - 2 * np.outer(v, v) / v.dot(v))
    col, row = np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0, 5.0])
    _check(LA.LinearOperatorToeplitz(col, row), np.array([[1, 4, 5], [2, 1, 4], [3, 2, 1.0]]))
    u = rng.standard_normal((3, 2))
    _check(LA.LinearOperatorLowRankUpdate(LA.LinearOperatorDiag(d), u, diag_update=np.array([2.0, 3.0])),
           np.diag(d) + u @ np.diag([2.0, 3.0]) @ u.T)
    diags = np.array([[1.0, 2.0, 0.0], [4.0, 5.0, 6.0], [0.0, 7.0, 8.0]])  # super, main, sub (compact)
    _check(LA.LinearOperatorTridiag(diags), np.array([[4, 1, 0], [7, 5, 2], [0, 8, 6.0]]))


def test_combinators():
    a = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    b = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    opa, opb = LA.LinearOperatorFullMatrix(a), LA.LinearOperatorFullMatrix(b)
    _check(LA.LinearOperatorKronecker([opa, opb]), np.kron(a, b))
    _check(LA.LinearOperatorBlockDiag([opa, opb]), np.block([[a, np.zeros((2, 3))], [np.zeros((3, 2)), b]]))
    c = rng.standard_normal((3, 2))
    _check(LA.LinearOperatorBlockLowerTriangular([[opa], [LA.LinearOperatorFullMatrix(c), opb]]),
           np.block([[a, np.zeros((2, 3))], [c, b]]))
    sq = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    _check(LA.LinearOperatorComposition([opa, LA.LinearOperatorFullMatrix(sq)]), a @ sq)
    _check((opa @ LA.LinearOperatorFullMatrix(sq)), a @ sq)
    _check(LA.LinearOperatorInversion(opa), np.linalg.inv(a))
    _check(LA.LinearOperatorAdjoint(opa), a.T)
    spd = a @ a.T
    np.testing.assert_allclose(LA.LinearOperatorFullMatrix(spd).cholesky().to_dense().numpy(), np.linalg.cholesky(spd))


def test_circulants():
    col = np.array([1.0, 2.0, 3.0, 4.0])
    spectrum = np.fft.fft(col)
    circ = LA.LinearOperatorCirculant(spectrum, input_output_dtype=tf.float64)
    dense = np.array([[col[(i - j) % 4] for j in range(4)] for i in range(4)])
    _check(circ, dense)
    kernel = rng.standard_normal((2, 3))
    c2 = LA.LinearOperatorCirculant2D(np.fft.fft2(kernel), input_output_dtype=tf.float64)
    x = rng.standard_normal((2, 3))
    want = np.real(np.fft.ifft2(np.fft.fft2(kernel) * np.fft.fft2(x))).reshape(-1)  # circular convolution
    np.testing.assert_allclose(c2.matvec(x.reshape(-1)).numpy(), want, rtol=1e-10, atol=1e-12)
    k3 = rng.standard_normal((2, 2, 2))
    c3 = LA.LinearOperatorCirculant3D(np.fft.fftn(k3), input_output_dtype=tf.float64)
    x3 = rng.standard_normal((2, 2, 2))
    want3 = np.real(np.fft.ifftn(np.fft.fftn(k3) * np.fft.fftn(x3))).reshape(-1)
    np.testing.assert_allclose(c3.matvec(x3.reshape(-1)).numpy(), want3, rtol=1e-10, atol=1e-12)


def test_gradients_flow_through_operators():
    d = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        logdet = LA.LinearOperatorDiag(d).log_abs_determinant()
    np.testing.assert_allclose(tape.gradient(logdet, d).numpy(), [1.0, 0.5, 1 / 3], rtol=1e-6)
    assert isinstance(LA.LinearOperator, type) and issubclass(LA.LinearOperatorDiag, LA.LinearOperator)
