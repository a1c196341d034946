"""tf.linalg: eig/eigvals, sqrtm/matrix_square_root, logm, LU, tridiagonal/banded solves, eigh_tridiagonal and
experimental.conjugate_gradient. Reference numbers come from TensorFlow 2.21 (CPU)."""

import numpy as np
import pytest

import tfcore as tf

A = np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, -1.0, 1.0]])
TRI = [[2.0, 1.0, 0.0], [4.0, 5.0, 6.0], [0.0, 1.0, 2.0]]


@pytest.fixture(autouse=True)
def on_cpu():
    with tf.device("/CPU:0"):
        yield


def test_eig_values_vectors_and_dtypes():
    e, v = tf.linalg.eig(A)
    assert e.dtype == tf.complex128 and v.dtype == tf.complex128
    np.testing.assert_allclose(e.numpy(), [3.0, 1.5 + 0.5j, 1.5 - 0.5j], atol=1e-12)  # TF's order
    vn = v.numpy()
    np.testing.assert_allclose(A @ vn, vn * e.numpy(), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=0), 1.0, atol=1e-12)
    assert tf.eig(np.float32(A))[0].dtype == tf.complex64
    np.testing.assert_allclose(tf.eigvals(A).numpy(), e.numpy())
    np.testing.assert_allclose(tf.linalg.eigvals(tf.constant(A, tf.float32)).numpy(), e.numpy(), atol=1e-5)
    c = A + 1j * np.eye(3)
    np.testing.assert_allclose(np.sort_complex(np.round(tf.linalg.eigvals(c).numpy(), 9)),
                               np.sort_complex(np.round(e.numpy() + 1j, 9)),
                               atol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.eig(np.ones((2, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.eig(np.array([[1, 2], [3, 4]]))


def test_eigvals_gradient_matches_tf():
    x = tf.constant(A)
    with tf.GradientTape() as t:
        t.watch(x)
        e = tf.linalg.eigvals(x)
        y = tf.reduce_sum(tf.math.real(e) ** 2 + tf.math.imag(e))
    np.testing.assert_allclose(t.gradient(y, x).numpy(),
                               [[4.2, 1.2, -0.6], [2.4, 5.4, -1.2], [1.2, 1.2, 2.4]], atol=1e-10)


def test_matrix_square_root():
    np.testing.assert_allclose(tf.linalg.sqrtm(tf.constant([[4.0, 1.0], [0.0, 9.0]])).numpy(),
                               [[2.0, 0.2], [0.0, 3.0]], atol=1e-6)
    # a Jordan block (not diagonalisable) and a batch
    jordan = tf.linalg.sqrtm(tf.constant([[1.0, 1.0], [0.0, 1.0]], tf.float64))
    np.testing.assert_allclose(jordan.numpy(), [[1.0, 0.5], [0.0, 1.0]], atol=1e-12)
    rng = np.random.default_rng(0)
    b = rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    s = tf.matrix_square_root(b).numpy()
    np.testing.assert_allclose(s @ s, b, atol=1e-10)
    # rotation-like block with complex eigenvalues: still a real square root
    rot = np.array([[0.0, -1.0], [1.0, 0.0]]) + 2 * np.eye(2)
    r = tf.linalg.sqrtm(rot).numpy()
    assert r.dtype == np.float64
    np.testing.assert_allclose(r @ r, rot, atol=1e-12)
    # no real square root: NaN, as TF
    assert np.isnan(tf.linalg.sqrtm(tf.constant([[-1.0, 0.0], [0.0, 1.0]])).numpy()).all()
    assert tf.linalg.sqrtm is tf.linalg.matrix_square_root


def test_matrix_square_root_gradient():
    x = tf.constant([[4.0, 1.0], [0.5, 9.0]], tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.linalg.sqrtm(x) * [[1.0, 2.0], [3.0, 4.0]])
    g = t.gradient(y, x).numpy()
    eps, num = 1e-6, np.zeros((2, 2))
    w = np.array([[1.0, 2.0], [3.0, 4.0]])
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            num[i, j] = (np.sum(tf.linalg.sqrtm(x + d).numpy() * w) - np.sum(tf.linalg.sqrtm(x - d).numpy() * w)) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6)


def test_logm():
    out = tf.linalg.logm(tf.constant([[1.0, 1.0], [0.0, 2.0]], tf.complex64))
    assert out.dtype == tf.complex64
    np.testing.assert_allclose(out.numpy(), [[0.0, 0.6931472], [0.0, 0.6931472]], atol=1e-6)
    np.testing.assert_allclose(tf.linalg.logm(tf.constant([[1.0, 1.0], [0.0, 1.0]], tf.complex128)).numpy(),
                               [[0.0, 1.0], [0.0, 0.0]], atol=1e-12)
    rng = np.random.default_rng(1)
    m = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.complex128)
    np.testing.assert_allclose(tf.linalg.expm(tf.linalg.logm(m)).numpy(), m, atol=1e-10)
    with pytest.raises(tf.errors.InvalidArgumentError):  # TF: complex64/complex128 only
        tf.linalg.logm(tf.constant([[1.0, 1.0], [0.0, 2.0]]))


def test_lu_family_matches_tf():
    a = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
    lu, p = tf.linalg.lu(a)
    assert p.dtype == tf.int32 and p.numpy().tolist() == [2, 0, 1]
    np.testing.assert_allclose(lu.numpy(), [[7.0, 8.0, 10.0], [0.14285715, 0.8571428, 1.5714285],
                                            [0.5714286, 0.4999998, -0.49999982]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf.linalg.lu_reconstruct(lu, p).numpy(), a.numpy(), atol=1e-5)
    np.testing.assert_allclose(tf.linalg.lu_matrix_inverse(lu, p).numpy(),
                               [[-0.6666667, -1.3333334, 1.0], [-0.6666667, 3.6666667, -2.0], [1.0, -2.0, 1.0]],
                               atol=1e-5)
    np.testing.assert_allclose(tf.linalg.lu_solve(lu, p, [[1.0], [2.0], [3.0]]).numpy(),
                               [[-0.33333337], [0.6666667], [0.0]], atol=1e-6)
    assert tf.linalg.lu(a, output_idx_type=tf.int64).p.dtype == tf.int64
    rng = np.random.default_rng(2)
    batch = rng.standard_normal((2, 4, 4))
    lu_b, p_b = tf.linalg.lu(batch)
    np.testing.assert_allclose(tf.linalg.lu_reconstruct(lu_b, p_b).numpy(), batch, atol=1e-12)
    rhs = rng.standard_normal((2, 4, 3))
    np.testing.assert_allclose(tf.linalg.lu_solve(lu_b, p_b, rhs).numpy(), np.linalg.solve(batch, rhs), atol=1e-10)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.linalg.lu(np.zeros((3, 3)))


def test_tridiagonal_solve_and_matmul_match_tf():
    x = tf.linalg.tridiagonal_solve(tf.constant(TRI), tf.constant([[1.0], [2.0], [3.0]]))
    np.testing.assert_allclose(x.numpy(), [[0.1], [0.3], [0.4]], atol=1e-6)
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(tf.constant(TRI), tf.constant([1.0, 2.0, 3.0])).numpy(),
                               [0.1, 0.3, 0.4], atol=1e-6)
    seq = ([2.0, 1.0, 0.0], [4.0, 5.0, 6.0], [0.0, 1.0, 2.0])
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(seq, [[1.0, 2.0, 3.0]], diagonals_format="sequence",
                                                           transpose_rhs=True).numpy(), [[0.1], [0.3], [0.4]],
                               atol=1e-6)
    dense = np.array([[4.0, 2.0, 0.0], [1.0, 5.0, 1.0], [0.0, 2.0, 6.0]])
    np.testing.assert_allclose(tf.linalg.tridiagonal_solve(dense, [[1.0], [2.0], [3.0]], diagonals_format="matrix")
                               .numpy(), [[0.1], [0.3], [0.4]], atol=1e-6)
    np.testing.assert_allclose(tf.linalg.tridiagonal_matmul(tf.constant(TRI), tf.constant([[1.0], [2.0], [3.0]]))
                               .numpy(), [[8.0], [14.0], [22.0]])
    with pytest.raises(ValueError):
        tf.linalg.tridiagonal_solve(tf.constant(TRI), [1.0, 2.0, 3.0], diagonals_format="bogus")


def test_tridiagonal_solve_gradient():
    diags = tf.constant(np.array(TRI))
    rhs = tf.constant([[1.0], [2.0], [3.0]], tf.float64)
    with tf.GradientTape() as t:
        t.watch([diags, rhs])
        y = tf.reduce_sum(tf.linalg.tridiagonal_solve(diags, rhs) * [[1.0], [-2.0], [0.5]])
    gd, gr = t.gradient(y, [diags, rhs])
    dense = np.array([[4.0, 2.0, 0.0], [1.0, 5.0, 1.0], [0.0, 2.0, 6.0]])
    g_rhs = np.linalg.solve(dense.T, [[1.0], [-2.0], [0.5]])
    np.testing.assert_allclose(gr.numpy(), g_rhs, atol=1e-12)
    x = np.linalg.solve(dense, [[1.0], [2.0], [3.0]])
    ga = -g_rhs @ x.T
    np.testing.assert_allclose(gd.numpy(), [[ga[0, 1], ga[1, 2], 0.0], np.diag(ga), [0.0, ga[1, 0], ga[2, 1]]],
                               atol=1e-12)


def test_banded_triangular_solve_matches_tf():
    rhs = tf.constant([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(tf.constant([[1.0, 2.0, 3.0], [9.0, 4.0, 5.0]]), rhs)
                               .numpy(), [[1.0], [-1.0], [2.6666667]], atol=1e-6)
    np.testing.assert_allclose(tf.linalg.banded_triangular_solve(tf.constant([[9.0, 4.0, 5.0], [1.0, 2.0, 3.0]]), rhs,
                                                                 lower=False).numpy(), [[10.0], [-1.0], [1.0]])


def test_eigh_tridiagonal_matches_tf():
    alpha, beta = tf.constant([1.0, 2.0, 3.0]), tf.constant([0.5, 0.25])
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(alpha, beta).numpy(), [0.7886824, 2.1451888, 3.0661283],
                               rtol=1e-6)
    w, v = tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False)
    t = np.diag([1.0, 2.0, 3.0]) + np.diag([0.5, 0.25], 1) + np.diag([0.5, 0.25], -1)
    np.testing.assert_allclose(t @ v.numpy(), v.numpy() * w.numpy(), atol=1e-5)
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(alpha, beta, select="i", select_range=[1, 2]).numpy(),
                               [2.1451888, 3.0661283], rtol=1e-6)
    np.testing.assert_allclose(tf.linalg.eigh_tridiagonal(alpha, beta, select="v", select_range=[0.5, 2.5]).numpy(),
                               [0.7886826, 2.1451888], rtol=1e-6)
    herm = tf.linalg.eigh_tridiagonal(tf.constant([1.0, 2.0], tf.float64), tf.constant([1j]))
    np.testing.assert_allclose(herm.numpy(), np.linalg.eigvalsh(np.array([[1, 1j], [-1j, 2]])), atol=1e-12)


def test_conjugate_gradient():
    op = tf.linalg.LinearOperatorFullMatrix(tf.constant([[4.0, 1.0], [1.0, 3.0]], tf.float64),
                                            is_self_adjoint=True, is_positive_definite=True)
    state = tf.linalg.experimental.conjugate_gradient(op, tf.constant([1.0, 2.0], tf.float64))
    assert int(state.i) == 2
    np.testing.assert_allclose(state.x.numpy(), [1 / 11, 7 / 11], atol=1e-12)
    assert tf.linalg.experimental.conjugate_gradient(op, tf.constant([1.0, 2.0], tf.float64), max_iter=1).i == 1


def test_adjoint_conjugates():
    m = tf.constant([[1 + 2j, 3j]])
    np.testing.assert_allclose(tf.linalg.adjoint(m).numpy(), [[1 - 2j], [-3j]])
    np.testing.assert_allclose(tf.linalg.matrix_transpose(m, conjugate=True).numpy(), [[1 - 2j], [-3j]])
