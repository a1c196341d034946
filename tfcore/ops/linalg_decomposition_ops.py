"""``tf.linalg``'s decompositions and matrix functions beyond :mod:`tfcore.ops.linalg_ops`: general
eigendecomposition (``eig``, ``eigvals``), ``eigh_tridiagonal``, matrix square root and logarithm, and LU with
its solve, reconstruction and inverse.

Primitive ops (TF's names): ``Eig`` (complex outputs, gradient from TF's ``_EigGrad``), ``MatrixSquareRoot``
(gradient by solving the Sylvester equation ``S^T X + X S^T = dS`` as a Kronecker system, TF's
``_MatrixSquareRootGrad``), ``MatrixLogarithm`` (complex only, no gradient, as TF) and ``Lu`` (gradient
from the triangular factors, TF's ``_LuGrad``). Everything else composes existing ops, so it
differentiates through them.

The Eig gradient is written in real arithmetic on (real, imaginary) pairs, so that it and its own
gradient only use ops whose gradients are exact for real tensors.
"""

import collections

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from . import array_ops as _a
from . import linalg_ops as _l
from . import math_ops as _m
from . import spectral_ops as _s
from ._common import as_tensor, describe
from .registry import Op, execute

__all__ = [
    "eig", "eigvals", "matrix_square_root", "sqrtm", "logm", "lu", "lu_solve", "lu_reconstruct",
    "lu_matrix_inverse", "eigh_tridiagonal",
]


_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128,
               dtypes.complex64: dtypes.complex64, dtypes.complex128: dtypes.complex128}
_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def _square_rule(allowed):
    def rule(op, ts, attrs):
        a = ts[0]
        if a._dtype not in allowed:
            names = ", ".join(d.name for d in allowed)
            raise InvalidArgumentError(None, None, f"{op.name}: input must be one of {names}, got {describe(ts)}")
        shape = a._array.shape
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise InvalidArgumentError(None, None, f"{op.name}: input must be a square matrix (or a batch of "
                                                   f"them), got {describe(ts)}")
        return None
    return rule


# -- complex arithmetic on (real, imaginary) pairs of real tensors -----------------------------------------

def _cmul(x, y):
    return (_m.subtract(_m.multiply(x[0], y[0]), _m.multiply(x[1], y[1])),
            _m.add(_m.multiply(x[0], y[1]), _m.multiply(x[1], y[0])))


def _cmatmul(x, y):
    return (_m.subtract(_m.matmul(x[0], y[0]), _m.matmul(x[1], y[1])),
            _m.add(_m.matmul(x[0], y[1]), _m.matmul(x[1], y[0])))


def _cadd(x, y):
    return _m.add(x[0], y[0]), _m.add(x[1], y[1])


def _csub(x, y):
    return _m.subtract(x[0], y[0]), _m.subtract(x[1], y[1])


def _cadjoint(x):
    return _l._t(x[0]), _m.negative(_l._t(x[1]))


def _csolve(a, b):
    """``a^-1 b`` through the real system ``[[ar, -ai], [ai, ar]] [xr; xi] = [br; bi]``."""
    top = _a.concat([a[0], _m.negative(a[1])], axis=-1)
    bottom = _a.concat([a[1], a[0]], axis=-1)
    x = _l.solve(_a.concat([top, bottom], axis=-2), _a.concat([b[0], b[1]], axis=-2))
    n = a[0].shape[-1]
    return x[..., :n, :], x[..., n:, :]


def _split(x):
    if x._dtype.is_complex:
        return _s.real(x), _s.imag(x)
    return x, _a.zeros_like(x)


# -- Eig --------------------------------------------------------------------------------------------------

def _eig_grad(call, grad_e, grad_v):
    """TF's ``_EigGrad`` (Boeddeker et al. 2017, eq. 4.77; distinct eigenvalues)."""
    x = call.inputs[0]
    e, v = (_split(t) for t in call.outputs)
    ge = _split(grad_e) if grad_e is not None else (_a.zeros_like(e[0]), _a.zeros_like(e[0]))
    vt = _cadjoint(v)
    mid = (_l.diag(ge[0]), _l.diag(ge[1]))
    if grad_v is not None:
        gv = _split(grad_v)
        # f[i, j] = conj(1 / (e_j - e_i)) off the diagonal (TF's _SafeReciprocal: d / (d^2 + 1e-20)), 0 on it
        d = (_m.subtract(_a.expand_dims(e[0], -2), _a.expand_dims(e[0], -1)),
             _m.subtract(_a.expand_dims(e[1], -2), _a.expand_dims(e[1], -1)))
        den = _m.add(_m.add(_m.square(d[0]), _m.square(d[1])), 1e-20)
        zero = _a.zeros_like(e[0])
        f = (_l.set_diag(_m.divide(d[0], den), zero), _l.set_diag(_m.divide(d[1], den), zero))
        vgv = _cmatmul(vt, gv)
        diag_grad = (_l.diag(_l.diag_part(vgv[0])), _a.zeros_like(vgv[1]))
        inner = _csub(vgv, _cmatmul(_cmatmul(vt, v), diag_grad))
        mid = _cadd(mid, _cmul(f, inner))
    grad_a = _csolve(vt, _cmatmul(mid, vt))
    if x._dtype.is_complex:
        return (_s.complex(grad_a[0], grad_a[1]),)
    return (grad_a[0],)


def _eig_rule(op, ts, attrs):
    _square_rule(tuple(_COMPLEX_OF))(op, ts, attrs)
    out = _COMPLEX_OF[ts[0]._dtype]
    return out, out


EIG = Op("Eig", rule=_eig_rule, grad=_eig_grad, multi_output=True, grad_takes_none=True)


@EIG.kernel("cpu")
def _eig(b, a):
    out = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    if a.size == 0:
        return np.zeros(a.shape[:-1], out), np.zeros(a.shape, out)
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(None, None, "Eig: the input contains non-finite values")
    w, v = np.linalg.eig(a)
    return w.astype(out), v.astype(out)


def eig(tensor, name=None):
    """``tf.linalg.eig``: ``(e, v)`` eigenvalues and unit-norm eigenvectors (columns) of square matrices,
    both complex (``complex64`` for float32/complex64 input, ``complex128`` otherwise); ``a @ v = v @ diag(e)``.
    Differentiable for distinct eigenvalues (TF's gradient)."""
    e, v = execute(EIG, (as_tensor(tensor),))
    return e, v


def eigvals(tensor, name=None):
    """``tf.linalg.eigvals``: the (complex) eigenvalues of square matrices."""
    return eig(tensor)[0]


# -- matrix square root and logarithm ----------------------------------------------------------------------

def _db_sqrt(a, iters=100):
    """Denman-Beavers iteration with determinant scaling for a batch ``[N, n, n]`` (any eigenvalues off the
    closed negative real axis, diagonalisable or not)."""
    n = a.shape[-1]
    y = a.astype(np.complex128)
    z = np.broadcast_to(np.eye(n, dtype=y.dtype), y.shape).copy()
    for k in range(iters):
        with np.errstate(all="ignore"):
            yi, zi = np.linalg.inv(y), np.linalg.inv(z)
            if k < 10:  # scaling speeds up the first steps; the unscaled iteration converges quadratically
                mu = np.abs(np.linalg.det(y) * np.linalg.det(z)) ** (-1.0 / (2 * n))
                mu = np.where(np.isfinite(mu) & (mu > 0), mu, 1.0)[:, None, None]
            else:
                mu = 1.0
            y_new = 0.5 * (mu * y + zi / mu)
            z_new = 0.5 * (mu * z + yi / mu)
        delta = np.max(np.abs(y_new - y)) if y.size else 0.0
        y, z = y_new, z_new
        if delta <= 1e-15 * max(1.0, float(np.max(np.abs(y)))):
            break
    return y


def _eig_fn(a, fn):
    """``V fn(D) V^-1`` per matrix of ``[N, n, n]``; None for matrices whose eigenvectors are ill-conditioned."""
    w, v = np.linalg.eig(a.astype(np.complex128))
    cond = np.linalg.cond(v)
    with np.errstate(all="ignore"):
        out = v @ (fn(w)[..., :, None] * np.linalg.inv(v))
    return out, cond < 1e6


def _matrix_fn(a, fn, fallback):
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    if flat.shape[0] == 0 or n == 0:
        return np.zeros(a.shape, np.complex128)
    out, good = _eig_fn(flat, fn)
    if not np.all(good):
        out[~good] = fallback(flat[~good])
    return out.reshape(a.shape)


def _sqrtm_grad(call, g):
    """TF's ``_MatrixSquareRootGrad``: ``X`` with ``S^T X + X S^T = g`` from ``(kron(S^T, I) + kron(I, S)) vec X``."""
    s = call.outputs[0]
    n = s.shape[-1]
    batch = s.shape.as_list()[:-2]
    eye = _a.zeros_like(s) + _a.eye(n, dtype=s.dtype)

    def kron(x, y):  # [..., n, n] x [..., n, n] -> [..., n*n, n*n]
        prod = _m.multiply(_a.expand_dims(_a.expand_dims(x, -1), -3), _a.expand_dims(_a.expand_dims(y, -3), -2))
        return _a.reshape(prod, batch + [n * n, n * n])

    system = _m.add(kron(_l._t(s), eye), kron(eye, s))
    x = _l.solve(system, _a.reshape(g, batch + [n * n, 1]))
    return (_a.reshape(x, batch + [n, n]),)


_SQRT_TYPES = (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
MATRIX_SQUARE_ROOT = Op("MatrixSquareRoot", rule=_square_rule(_SQRT_TYPES), grad=_sqrtm_grad)


@MATRIX_SQUARE_ROOT.kernel("cpu")
def _sqrtm(b, a):
    out = _matrix_fn(a, np.sqrt, _db_sqrt)
    if a.dtype.kind == "f":
        # a real matrix with a negative real eigenvalue has no real square root: NaN, as TF
        n = a.shape[-1]
        flat = a.reshape((-1, n, n))
        bad = np.zeros(flat.shape[0], bool)
        if flat.size:
            w = np.linalg.eigvals(flat)
            bad = np.any((w.real < 0) & (np.abs(w.imag) <= 1e-12 * np.maximum(1.0, np.abs(w.real))), axis=-1)
        real = out.real.reshape(flat.shape)
        real[bad] = np.nan
        return real.reshape(a.shape).astype(a.dtype)
    return out.astype(a.dtype)


def matrix_square_root(input, name=None):  # noqa: A002
    """``tf.linalg.sqrtm``: the principal square root ``S`` (``S @ S = input``) of each square matrix (NaN for a
    real matrix with a negative real eigenvalue, which has no real square root). Differentiable."""
    return execute(MATRIX_SQUARE_ROOT, (as_tensor(input),))


sqrtm = matrix_square_root


def _iss_log(a):
    """Inverse scaling and squaring: square roots until ``||A - I|| < 1/4``, then the series of ``log(I + X)``."""
    n = a.shape[-1]
    eye = np.eye(n)
    out = np.empty(a.shape, np.complex128)
    for i, m in enumerate(a):
        k = 0
        while np.linalg.norm(m - eye, 1) > 0.25 and k < 60:
            m = _db_sqrt(m[None])[0]
            k += 1
        x = m - eye
        term, acc = eye.astype(np.complex128), np.zeros_like(m)
        for j in range(1, 60):
            term = term @ x
            acc = acc + ((-1) ** (j + 1)) * term / j
        out[i] = acc * (2 ** k)
    return out


MATRIX_LOGARITHM = Op("MatrixLogarithm", rule=_square_rule((dtypes.complex64, dtypes.complex128)))


@MATRIX_LOGARITHM.kernel("cpu")
def _logm(b, a):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _matrix_fn(a, np.log, _iss_log).astype(a.dtype)


def logm(input, name=None):  # noqa: A002
    """``tf.linalg.logm``: the principal matrix logarithm of complex square matrices (``complex64`` /
    ``complex128`` only, as TF; no gradient, as TF)."""
    return execute(MATRIX_LOGARITHM, (as_tensor(input),))


# -- LU ---------------------------------------------------------------------------------------------------

def _unit_lower(lu_):
    lower = _l.band_part(lu_, -1, 0)
    return _l.set_diag(lower, _a.ones_like(_l.diag_part(lower)))


def _gather_rows(x, perm):
    nb = len(x.shape) - 2
    return _a.gather(x, perm, axis=nb, batch_dims=nb)


def _lu_grad(call, dlu, dperm):
    """TF's ``_LuGrad``: with ``A[p] = L U``, ``dA[p] = L^-H (tril_-1(L^H dL) + triu(dU U^H)) U^-H``."""
    lu_, perm = call.outputs
    lower = _unit_lower(lu_)
    upper = _l.band_part(lu_, 0, -1)
    l_part = _m.matmul(lower, _l.band_part(dlu, -1, 0), adjoint_a=True)
    l_part = _l.set_diag(_l.band_part(l_part, -1, 0), _a.zeros_like(_l.diag_part(l_part)))
    u_part = _l.band_part(_m.matmul(_l.band_part(dlu, 0, -1), upper, adjoint_b=True), 0, -1)
    middle = _m.add(l_part, u_part)
    g = _l.triangular_solve(lower, middle, lower=True, adjoint=True)
    g = _l._t(_l.triangular_solve(upper, _l._t(g), lower=False))  # g @ U^-T
    return (_gather_rows(g, _invert_perm(perm)),)


def _invert_perm(perm):
    """The inverse of each permutation on the last axis."""
    return _m.cast(_a.argsort(perm, axis=-1, stable=True), perm.dtype)


def _lu_rule(op, ts, attrs):
    _square_rule(_SQRT_TYPES)(op, ts, attrs)
    return ts[0]._dtype, attrs["output_idx_type"]


LU = Op("Lu", rule=_lu_rule, grad=_lu_grad, multi_output=True, grad_takes_none=False)


@LU.kernel()
def _lu(b, a, *, output_idx_type):
    xp = b.xp
    n = a.shape[-1]
    lu_ = a.reshape((-1, n, n)).copy()
    nb = lu_.shape[0]
    perm = xp.tile(xp.arange(n, dtype=output_idx_type.as_numpy_dtype), (nb, 1))
    rows = xp.arange(nb)
    for k in range(n):
        piv = k + xp.argmax(xp.abs(lu_[:, k:, k]), axis=1)
        row_k = lu_[rows, k].copy()
        lu_[rows, k] = lu_[rows, piv]
        lu_[rows, piv] = row_k
        p_k = perm[rows, k].copy()
        perm[rows, k] = perm[rows, piv]
        perm[rows, piv] = p_k
        if k + 1 < n:
            pivot = lu_[:, k, k]
            if bool(xp.any(pivot == 0)):
                raise InvalidArgumentError(None, None, "Lu: input is not invertible.")
            lu_[:, k + 1:, k] /= pivot[:, None]
            lu_[:, k + 1:, k + 1:] -= lu_[:, k + 1:, k:k + 1] * lu_[:, k:k + 1, k + 1:]
    if n and bool(xp.any(lu_[:, n - 1, n - 1] == 0)):
        raise InvalidArgumentError(None, None, "Lu: input is not invertible.")
    return lu_.reshape(a.shape), perm.reshape(a.shape[:-1])


LuResult = collections.namedtuple("Lu", ["lu", "p"])


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.linalg.lu``: ``(lu, p)`` with partial pivoting: ``input[..., p, :] = L @ U`` where ``L`` is the
    unit-diagonal lower triangle of ``lu`` and ``U`` its upper triangle. Raises ``InvalidArgumentError`` for a
    singular matrix (as TF). Differentiable in ``lu``."""
    idx = dtypes.as_dtype(output_idx_type)
    if idx not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"output_idx_type must be int32 or int64, got {idx.name}")
    out, p = execute(LU, (as_tensor(input),), {"output_idx_type": idx})
    return LuResult(out, p)


def _check_lu(lower_upper, perm):
    lu_ = as_tensor(lower_upper)
    p = as_tensor(perm)
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2]:
        raise InvalidArgumentError(None, None, f"lower_upper must be square, got {describe((lu_,))}")
    if p.shape.as_list() != lu_.shape.as_list()[:-1]:
        raise InvalidArgumentError(None, None, f"perm must have shape {lu_.shape.as_list()[:-1]}, "
                                               f"got {p.shape.as_list()}")
    return lu_, p


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``tf.linalg.lu_reconstruct``: the matrix whose :func:`lu` is ``(lower_upper, perm)``."""
    lu_, p = _check_lu(lower_upper, perm)
    x = _m.matmul(_unit_lower(lu_), _l.band_part(lu_, 0, -1))
    return _gather_rows(x, _invert_perm(p))


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``tf.linalg.lu_solve``: ``X`` with ``A @ X = rhs`` from ``A``'s :func:`lu`."""
    lu_, p = _check_lu(lower_upper, perm)
    rhs = _l._rhs(lu_, rhs)
    batch = np.broadcast_shapes(tuple(lu_.shape.as_list()[:-2]), tuple(rhs.shape.as_list()[:-2]))
    rhs = _a.broadcast_to(rhs, list(batch) + rhs.shape.as_list()[-2:])
    p = _a.broadcast_to(p, list(batch) + p.shape.as_list()[-1:])
    lu_ = _a.broadcast_to(lu_, list(batch) + lu_.shape.as_list()[-2:])
    y = _l.triangular_solve(_unit_lower(lu_), _gather_rows(rhs, p), lower=True)
    return _l.triangular_solve(_l.band_part(lu_, 0, -1), y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """``tf.linalg.lu_matrix_inverse``: the inverse of ``A`` from its :func:`lu`."""
    lu_, p = _check_lu(lower_upper, perm)
    n = lu_.shape[-1]
    return lu_solve(lu_, p, _a.zeros_like(lu_) + _a.eye(n, dtype=lu_.dtype))


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """``tf.linalg.eigh_tridiagonal``: eigenvalues (ascending) and, with ``eigvals_only=False``, eigenvectors
    (columns) of the Hermitian tridiagonal matrix with diagonal ``alpha`` (real, ``[n]``) and superdiagonal
    ``beta`` (``[n - 1]``). ``select``: ``'a'`` all, ``'v'`` those in ``(lo, hi]``, ``'i'`` indices ``lo..hi``."""
    alpha = as_tensor(alpha)
    beta = as_tensor(beta) if hasattr(beta, "dtype") else as_tensor(beta, alpha.dtype)
    if alpha.dtype.is_complex:
        raise ValueError("alpha must be real (the diagonal of a Hermitian matrix)")
    if alpha.ndim != 1 or beta.ndim != 1 or beta.shape[0] != max(alpha.shape[0] - 1, 0):
        raise ValueError(f"alpha must be [n] and beta [n - 1], got {alpha.shape.as_list()} and {beta.shape.as_list()}")
    if select not in ("a", "v", "i"):
        raise ValueError(f"select must be 'a', 'v' or 'i', got {select!r}")
    if select != "a" and (select_range is None or len(select_range) != 2):
        raise ValueError("select_range must be a pair when select is 'v' or 'i'")
    n = alpha.shape[0]
    if beta.dtype.is_complex:
        main = _s.complex(alpha, _a.zeros_like(alpha))
        if main.dtype is not beta.dtype:
            raise ValueError(f"alpha and beta precisions differ: {describe((alpha, beta))}")
        sub = _m.conj(beta)
    else:
        main, sub = alpha, beta
        if beta.dtype is not alpha.dtype:
            raise ValueError(f"alpha and beta must have the same dtype: {describe((alpha, beta))}")
    dense = _l.diag(main)
    if n > 1:
        dense = _m.add(dense, _l.diag(beta, k=1))
        dense = _m.add(dense, _l.diag(sub, k=-1))
    w, v = _l.eigh(dense)
    w = _m.cast(w, alpha.dtype) if w.dtype is not alpha.dtype else w
    idx = np.arange(n)
    if select == "i":
        lo, hi = int(select_range[0]), int(select_range[1])
        idx = idx[max(lo, 0):min(hi, n - 1) + 1]
    elif select == "v":
        lo, hi = float(select_range[0]), float(select_range[1])
        wn = w.numpy()
        idx = idx[(wn > lo) & (wn <= hi)]
    if len(idx) != n:
        w = _a.gather(w, idx)
        v = _a.gather(v, idx, axis=1)
    return w if eigvals_only else (w, v)
