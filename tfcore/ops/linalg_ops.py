"""``tf.linalg``: decompositions, solves, determinants and diagonal/band ops on (batched) matrices.

Primitive ops (TF's names: ``MatrixInverse``, ``Cholesky``, ``Qr``, ``Svd``, ``SelfAdjointEigV2``,
``MatrixBandPart``, ``MatrixDiagV3`` ...) run ``xp.linalg`` on the last two axes and carry TF's
gradients (``linalg_grad.py``), written with public ops so they differentiate again. Everything
else (``lstsq``, ``logdet``, ``pinv``, ``trace``, ``matvec``, ``cholesky_solve``, ``expm`` ...) is a
composition of ops, differentiable through them.
"""

import collections

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.variables import Variable
from . import array_ops as _a
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor, describe
from .nn_ops import l2_normalize as _l2
from .registry import Op, execute

__all__ = [
    "inv", "det", "slogdet", "logdet", "solve", "cholesky", "cholesky_solve", "qr", "svd", "eigh", "eigvalsh",
    "lstsq", "band_part", "matvec", "trace", "diag", "diag_part", "set_diag", "tensor_diag", "tensor_diag_part",
    "adjoint", "matrix_transpose", "triangular_solve", "pinv", "matrix_rank", "cross", "normalize", "expm",
    "l2_normalize", "matrix_band_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "matrix_inverse",
    "matrix_determinant", "matrix_solve", "matrix_triangular_solve",
]


def _matrix_rule(square=False, rhs=False):
    def rule(op, ts, attrs):
        a = ts[0]
        d = a._dtype
        if not (d.is_floating or d.is_complex) or d is dtypes.bfloat16 or d is dtypes.float16:
            raise InvalidArgumentError(None, None, f"{op.name}: expected a float32/float64/complex matrix, "
                                                   f"got {describe(ts)}")
        shape = a._array.shape
        if len(shape) < 2:
            raise InvalidArgumentError(None, None, f"{op.name}: input must have rank >= 2, got {describe(ts)}")
        if square and shape[-1] != shape[-2]:
            raise InvalidArgumentError(None, None, f"{op.name}: input must be a square matrix (or a batch of "
                                                   f"them), got shape {list(shape)}")
        if rhs:
            b = ts[1]
            if b._dtype is not d:
                raise InvalidArgumentError(None, None, f"{op.name}: matrix and rhs must have the same dtype, "
                                                       f"got {describe(ts)}")
            if b._array.ndim < 2 or b._array.shape[-2] != shape[-1]:
                raise InvalidArgumentError(None, None, f"{op.name}: rhs must have shape [..., {shape[-1]}, K] to "
                                                       f"match the matrix, got {describe(ts)}")
        return None
    return rule


def _rhs(matrix, rhs):
    """``rhs`` as a tensor; Python and NumPy values take the matrix's dtype (TF's shared type attr)."""
    if isinstance(rhs, (Tensor, Variable)):
        return as_tensor(rhs)
    return as_tensor(rhs, matrix.dtype)


def _t(x):
    """Swap the last two axes."""
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _a.transpose(x, perm)


def _lin_error(op_name, e):
    return InvalidArgumentError(None, None, f"{op_name}: {e}")


# -- inverse, determinants, solves ----------------------------------------------------------------

def _inverse_grad(call, dy):
    ainv = call.outputs[0]
    if call.attrs["adjoint"]:
        return (_m.negative(_m.matmul(ainv, _m.matmul(dy, ainv, transpose_a=True))),)
    return (_m.negative(_m.matmul(ainv, _m.matmul(dy, ainv, transpose_b=True), transpose_a=True)),)


MATRIX_INVERSE = Op("MatrixInverse", rule=_matrix_rule(square=True), grad=_inverse_grad)


@MATRIX_INVERSE.kernel()
def _inverse(b, a, *, adjoint):
    xp = b.xp
    if adjoint:
        a = xp.swapaxes(a, -1, -2).conj()
    try:
        return xp.linalg.inv(a)
    except np.linalg.LinAlgError as e:
        raise _lin_error("MatrixInverse", "Input is not invertible.") from e


def _det_grad(call, dy):
    a, det = call.inputs[0], call.outputs[0]
    scale = _a.expand_dims(_a.expand_dims(_m.multiply(dy, det), -1), -1)
    return (_m.multiply(scale, _t(inv(a))),)


MATRIX_DETERMINANT = Op("MatrixDeterminant", rule=_matrix_rule(square=True), grad=_det_grad)


@MATRIX_DETERMINANT.kernel()
def _det(b, a):
    return b.xp.linalg.det(a)


def _slogdet_grad(call, dsign, dlog):
    a = call.inputs[0]
    return (_m.multiply(_a.expand_dims(_a.expand_dims(dlog, -1), -1), _t(inv(a))),)


LOG_MATRIX_DETERMINANT = Op("LogMatrixDeterminant", rule=_matrix_rule(square=True), grad=_slogdet_grad,
                            multi_output=True)


@LOG_MATRIX_DETERMINANT.kernel()
def _slogdet(b, a):
    sign, logdet_ = b.xp.linalg.slogdet(a)
    return sign.astype(a.dtype), logdet_.astype(a.dtype)


def _solve_grad(call, dy):
    a, x = call.inputs[0], call.outputs[0]
    adj = call.attrs["adjoint"]
    gb = solve(a, dy, adjoint=not adj)
    x_h, gb_h = _m.conj_if_complex(x), _m.conj_if_complex(gb)  # TF: matmul(..., adjoint_b=True)
    ga = _m.negative(_m.matmul(x, gb_h, transpose_b=True) if adj else _m.matmul(gb, x_h, transpose_b=True))
    return ga, gb


MATRIX_SOLVE = Op("MatrixSolve", rule=_matrix_rule(square=True, rhs=True), grad=_solve_grad)


@MATRIX_SOLVE.kernel()
def _solve(b, a, rhs, *, adjoint):
    xp = b.xp
    if adjoint:
        a = xp.swapaxes(a, -1, -2).conj()
    try:
        return xp.linalg.solve(a, rhs)
    except np.linalg.LinAlgError as e:
        raise _lin_error("MatrixSolve", "Input matrix is not invertible.") from e


def _tri_solve_grad(call, dy):
    a, x = call.inputs[0], call.outputs[0]
    lower, adj = call.attrs["lower"], call.attrs["adjoint"]
    gb = triangular_solve(a, dy, lower=lower, adjoint=not adj)
    ga = _m.negative(_m.matmul(x, gb, transpose_b=True) if adj else _m.matmul(gb, x, transpose_b=True))
    ga = band_part(ga, -1, 0) if lower else band_part(ga, 0, -1)
    return ga, gb


MATRIX_TRIANGULAR_SOLVE = Op("MatrixTriangularSolve", rule=_matrix_rule(square=True, rhs=True),
                             grad=_tri_solve_grad)


@MATRIX_TRIANGULAR_SOLVE.kernel()
def _tri_solve(b, a, rhs, *, lower, adjoint):
    xp = b.xp
    a = xp.tril(a) if lower else xp.triu(a)
    if adjoint:
        a = xp.swapaxes(a, -1, -2).conj()
    try:
        return xp.linalg.solve(a, rhs)
    except np.linalg.LinAlgError as e:
        raise _lin_error("MatrixTriangularSolve", "Input matrix is not invertible.") from e


# -- decompositions --------------------------------------------------------------------------------

def _cholesky_grad(call, dy):
    low = call.outputs[0]
    linv = inv(low)
    middle = _m.matmul(low, dy, transpose_a=True)
    middle = set_diag(band_part(middle, -1, 0), _m.multiply(diag_part(middle), 0.5))
    ga = _m.matmul(_m.matmul(linv, middle, transpose_a=True), linv)
    return (_m.multiply(_m.add(ga, _t(ga)), 0.5),)


CHOLESKY = Op("Cholesky", rule=_matrix_rule(square=True), grad=_cholesky_grad)


@CHOLESKY.kernel()
def _cholesky(b, a):
    try:
        return b.xp.linalg.cholesky(a)
    except np.linalg.LinAlgError as e:
        raise _lin_error("Cholesky", "Cholesky decomposition was not successful. The input might not be "
                                     "valid.") from e


def _right_solve_r(x, r):
    """``x @ inv(r)^T`` (TF's ``_TriangularSolve(x, r)``)."""
    return _t(triangular_solve(r, _t(x), lower=False))


def _qr_grad(call, dq, dr):
    a = call.inputs[0]
    q, r = call.outputs
    m, n = a.shape[-2], a.shape[-1]
    if call.attrs["full_matrices"] and m > n or m < n:
        raise InvalidArgumentError(None, None, "QrGrad not implemented when nrows < ncols or when "
                                               "full_matrices is true and nrows > ncols.")
    qdq = _m.matmul(q, dq, transpose_a=True)
    rdr = _m.matmul(r, dr, transpose_b=True)
    tril = band_part(_m.add(_m.subtract(qdq, _t(qdq)), _m.subtract(rdr, _t(rdr))), -1, 0)
    grad_a = _m.matmul(q, _m.add(dr, _right_solve_r(tril, r)))
    grad_b = _right_solve_r(_m.subtract(dq, _m.matmul(q, qdq)), r)
    return (_m.add(grad_a, grad_b),)


QR = Op("Qr", rule=_matrix_rule(), grad=_qr_grad, multi_output=True, output_arg=("q", "r"))


@QR.kernel()
def _qr(b, a, *, full_matrices):
    return b.xp.linalg.qr(a, mode="complete" if full_matrices else "reduced")


def _svd_grad(call, ds, du, dv):
    """Reduced-SVD gradient (Townsend, 2016) for distinct non-zero singular values."""
    a = call.inputs[0]
    s, u, v = call.outputs
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    if call.attrs["full_matrices"] and m != n:
        raise InvalidArgumentError(None, None, "SVD gradient has not been implemented for input with unequal "
                                               "number of rows and columns when full_matrices=True.")
    s2 = _m.square(s)
    diff = _m.subtract(_a.expand_dims(s2, -2), _a.expand_dims(s2, -1))  # [i, j] = s_j^2 - s_i^2
    eye = _a.eye(k, dtype=s.dtype)
    f = _m.multiply(_m.divide_no_nan(_a.ones_like(diff), diff), _m.subtract(1.0, eye))
    s_mat = diag(s)
    s_inv = diag(_m.reciprocal(s))
    utdu = _m.matmul(u, du, transpose_a=True)
    vtdv = _m.matmul(v, dv, transpose_a=True)
    j = _m.multiply(f, _m.subtract(utdu, _t(utdu)))
    kk = _m.multiply(f, _m.subtract(vtdv, _t(vtdv)))
    inner = _m.add(_m.add(_m.matmul(j, s_mat), diag(ds)), _m.matmul(s_mat, kk))
    grad = _m.matmul(_m.matmul(u, inner), v, transpose_b=True)
    if m > k:
        proj_u = _m.subtract(_a.eye(m, dtype=s.dtype), _m.matmul(u, u, transpose_b=True))
        grad = _m.add(grad, _m.matmul(_m.matmul(_m.matmul(proj_u, du), s_inv), v, transpose_b=True))
    if n > k:
        proj_v = _m.subtract(_a.eye(n, dtype=s.dtype), _m.matmul(v, v, transpose_b=True))
        grad = _m.add(grad, _m.matmul(_m.matmul(u, s_inv), _m.matmul(dv, proj_v, transpose_a=True)))
    return (grad,)


SVD = Op("Svd", rule=_matrix_rule(), grad=_svd_grad, multi_output=True)


@SVD.kernel()
def _svd(b, a, *, full_matrices):
    u, s, vh = b.xp.linalg.svd(a, full_matrices=full_matrices)
    return s, u, b.xp.swapaxes(vh, -1, -2).conj()


def _eigh_grad(call, de, dv):
    e, v = call.outputs
    diff = _m.subtract(_a.expand_dims(e, -2), _a.expand_dims(e, -1))  # [i, j] = e_j - e_i
    n = e.shape[-1]
    f = _m.multiply(_m.divide_no_nan(_a.ones_like(diff), diff), _m.subtract(1.0, _a.eye(n, dtype=e.dtype)))
    inner = _m.add(diag(de), _m.multiply(f, _m.matmul(v, dv, transpose_a=True)))
    ga = _m.matmul(v, _m.matmul(inner, v, transpose_b=True))
    ga = band_part(_m.add(ga, _t(ga)), -1, 0)  # eigh reads the lower triangle
    return (set_diag(ga, _m.multiply(diag_part(ga), 0.5)),)


SELF_ADJOINT_EIG = Op("SelfAdjointEigV2", rule=_matrix_rule(square=True), grad=_eigh_grad, multi_output=True)


@SELF_ADJOINT_EIG.kernel()
def _eigh(b, a):
    w, v = b.xp.linalg.eigh(a)
    return w.astype(a.dtype if a.dtype.kind == "f" else w.dtype), v


# -- band, diagonals --------------------------------------------------------------------------------

def _band_mask(xp, m, n, lower, upper):
    rows = xp.arange(m).reshape(m, 1)
    cols = xp.arange(n).reshape(1, n)
    keep = xp.ones((m, n), dtype=bool)
    if lower >= 0:
        keep = keep & ((rows - cols) <= lower)
    if upper >= 0:
        keep = keep & ((cols - rows) <= upper)
    return keep


def _band_rule(op, ts, attrs):
    if ts[0]._array.ndim < 2:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be at least 2-dim, got {describe(ts)}")
    return None


MATRIX_BAND_PART = Op("MatrixBandPart", rule=_band_rule,
                      grad=lambda call, dy: (band_part(dy, call.attrs["num_lower"], call.attrs["num_upper"]),),
                      output_arg="band")


@MATRIX_BAND_PART.kernel()
def _band(b, a, *, num_lower, num_upper):
    xp = b.xp
    keep = _band_mask(xp, a.shape[-2], a.shape[-1], num_lower, num_upper)
    return xp.where(keep, a, xp.zeros((), a.dtype))


def _diag_place(xp, d, m, n, k):
    """An ``[..., m, n]`` array with ``d`` on diagonal ``k`` and zeros elsewhere."""
    mask = xp.eye(m, n, k, dtype=bool)
    length = d.shape[-1]
    if k >= 0:  # element i sits in row i
        pad = [(0, 0)] * (d.ndim - 1) + [(0, m - length)]
        full = xp.pad(d, pad)[..., :, None]
    else:  # element i sits in column i
        pad = [(0, 0)] * (d.ndim - 1) + [(0, n - length)]
        full = xp.pad(d, pad)[..., None, :]
    return xp.where(mask, full, xp.zeros((), d.dtype))


def _diag_len(m, n, k):
    return max(0, min(m + min(k, 0), n - max(k, 0)))


MATRIX_DIAG = Op("MatrixDiagV3", grad=lambda call, dy: (diag_part(dy, k=call.attrs["k"]),))


@MATRIX_DIAG.kernel()
def _matrix_diag(b, d, *, k, num_rows, num_cols):
    return _diag_place(b.xp, d, num_rows, num_cols, k)


def _diag_part_rule(op, ts, attrs):
    a = ts[0]._array
    if a.ndim < 2:
        raise InvalidArgumentError(None, None, f"{op.name}: input must be at least 2-dim, got {describe(ts)}")
    return None


MATRIX_DIAG_PART = Op("MatrixDiagPartV3", rule=_diag_part_rule, grad=lambda call, dy: (
    set_diag(_a.zeros_like(call.inputs[0]), dy, k=call.attrs["k"]),), output_arg="diagonal")


@MATRIX_DIAG_PART.kernel()
def _matrix_diag_part(b, a, *, k):
    return b.xp.diagonal(a, offset=k, axis1=-2, axis2=-1).copy()


def _set_diag_rule(op, ts, attrs):
    a, d = ts
    if a._dtype is not d._dtype:
        raise InvalidArgumentError(None, None, f"{op.name}: input and diagonal must have the same dtype, "
                                               f"got {describe(ts)}")
    m, n = a._array.shape[-2:]
    want = a._array.shape[:-2] + (_diag_len(m, n, attrs["k"]),)
    if d._array.shape != want:
        raise InvalidArgumentError(None, None, f"{op.name}: diagonal must have shape {list(want)}, "
                                               f"got {describe(ts)}")
    return None


def _set_diag_grad(call, dy):
    k = call.attrs["k"]
    d = call.inputs[1]
    return set_diag(dy, _a.zeros_like(d), k=k), diag_part(dy, k=k)


MATRIX_SET_DIAG = Op("MatrixSetDiagV3", rule=_set_diag_rule, grad=_set_diag_grad)


@MATRIX_SET_DIAG.kernel()
def _matrix_set_diag(b, a, d, *, k):
    xp = b.xp
    m, n = a.shape[-2:]
    mask = xp.eye(m, n, k, dtype=bool)
    return xp.where(mask, _diag_place(xp, d, m, n, k), a)


# -- public API ------------------------------------------------------------------------------------------

def inv(input, adjoint=False, name=None):  # noqa: A002
    """``tf.linalg.inv``: inverse of each square matrix (``InvalidArgumentError`` when singular)."""
    return execute(MATRIX_INVERSE, (as_tensor(input),), {"adjoint": bool(adjoint)})


def det(input, name=None):  # noqa: A002
    """``tf.linalg.det``: determinant of each square matrix."""
    return execute(MATRIX_DETERMINANT, (as_tensor(input),))


def slogdet(input, name=None):  # noqa: A002
    """``tf.linalg.slogdet``: ``(sign, log_abs_determinant)`` of each square matrix."""
    return execute(LOG_MATRIX_DETERMINANT, (as_tensor(input),))


def logdet(matrix, name=None):
    """``tf.linalg.logdet``: log-determinant of Hermitian positive-definite matrices (via Cholesky)."""
    chol = cholesky(matrix)
    return _m.multiply(_r.reduce_sum(_m.log(diag_part(chol)), axis=-1), 2.0)


def solve(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve``: ``X`` with ``matrix @ X = rhs`` (``adjoint(matrix)`` with ``adjoint=True``)."""
    m = as_tensor(matrix)
    return execute(MATRIX_SOLVE, (m, _rhs(m, rhs)), {"adjoint": bool(adjoint)})


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.triangular_solve``: solve with the lower (or upper) triangle of ``matrix``."""
    m = as_tensor(matrix)
    return execute(MATRIX_TRIANGULAR_SOLVE, (m, _rhs(m, rhs)), {"lower": bool(lower), "adjoint": bool(adjoint)})


def cholesky(input, name=None):  # noqa: A002
    """``tf.linalg.cholesky``: lower-triangular ``L`` with ``L @ L^H = input``."""
    return execute(CHOLESKY, (as_tensor(input),))


def cholesky_solve(chol, rhs, name=None):
    """``tf.linalg.cholesky_solve``: solve ``A X = rhs`` given ``chol = cholesky(A)``."""
    y = triangular_solve(chol, rhs, lower=True, adjoint=False)
    return triangular_solve(chol, y, lower=True, adjoint=True)


QrResult = collections.namedtuple("Qr", ["q", "r"])


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``tf.linalg.qr``: ``(q, r)`` with orthonormal ``q`` and upper-triangular ``r``."""
    q, r = execute(QR, (as_tensor(input),), {"full_matrices": bool(full_matrices)})
    return QrResult(q, r)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``tf.linalg.svd``: singular values ``s`` (descending) and, with ``compute_uv``, ``u`` and ``v`` such that
    ``tensor = u @ diag(s) @ adjoint(v)``; returns ``s`` alone otherwise."""
    s, u, v = execute(SVD, (as_tensor(tensor),), {"full_matrices": bool(full_matrices)})
    return (s, u, v) if compute_uv else s


def eigh(tensor, name=None):
    """``tf.linalg.eigh``: ``(e, v)`` eigenvalues (ascending) and eigenvectors of self-adjoint matrices."""
    return execute(SELF_ADJOINT_EIG, (as_tensor(tensor),))


def eigvalsh(tensor, name=None):
    """``tf.linalg.eigvalsh``: eigenvalues of self-adjoint matrices."""
    return eigh(tensor)[0]


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """``tf.linalg.lstsq``: least-squares ``X`` minimising ``||matrix @ X - rhs||^2 + l2 ||X||^2`` with the
    Cholesky-based normal equations (TF's ``fast=True`` path)."""
    a = as_tensor(matrix)
    rhs = _rhs(a, rhs)
    if a.ndim < 2 or rhs.ndim < 2 or a.shape[-2] != rhs.shape[-2]:
        raise InvalidArgumentError(None, None, f"MatrixSolveLs: matrix [..., M, N] and rhs [..., M, K] must agree, "
                                               f"got {describe((a, rhs))}")
    m, n = a.shape[-2], a.shape[-1]
    reg = float(l2_regularizer)
    if m >= n:
        gram = _m.matmul(a, a, transpose_a=True)
        if reg:
            gram = _m.add(gram, _m.multiply(_a.eye(n, dtype=a.dtype), reg))
        return cholesky_solve(cholesky(gram), _m.matmul(a, rhs, transpose_a=True))
    gram = _m.matmul(a, a, transpose_b=True)
    if reg:
        gram = _m.add(gram, _m.multiply(_a.eye(m, dtype=a.dtype), reg))
    return _m.matmul(a, cholesky_solve(cholesky(gram), rhs), transpose_a=True)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """``tf.linalg.band_part``: keep ``num_lower`` sub- and ``num_upper`` super-diagonals (negative: all)."""
    return execute(MATRIX_BAND_PART, (as_tensor(input),), {"num_lower": int(num_lower), "num_upper": int(num_upper)})


def diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``tf.linalg.diag``: matrices with ``diagonal`` on diagonal ``k`` (square unless ``num_rows/num_cols``)."""
    d = as_tensor(diagonal)
    k = int(k)
    size = d.shape[-1] + abs(k)
    rows = size if num_rows in (-1, None) else int(num_rows)
    cols = size if num_cols in (-1, None) else int(num_cols)
    if _diag_len(rows, cols, k) != d.shape[-1]:
        raise InvalidArgumentError(None, None, f"MatrixDiagV3: a diagonal of length {d.shape[-1]} does not fit "
                                               f"diagonal {k} of a {rows}x{cols} matrix")
    out = execute(MATRIX_DIAG, (d,), {"k": k, "num_rows": rows, "num_cols": cols})
    if padding_value:
        mask = _a.eye(rows, cols, dtype=dtypes.bool) if k == 0 else None
        if mask is None:
            mask = _m.cast(execute(MATRIX_DIAG, (_a.ones_like(d),), {"k": k, "num_rows": rows, "num_cols": cols}),
                           dtypes.bool)
        out = _m.where(mask, out, _m.cast(_a.fill(out.shape.as_list(), padding_value), out.dtype))
    return out


def diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.diag_part``: diagonal ``k`` of each matrix."""
    return execute(MATRIX_DIAG_PART, (as_tensor(input),), {"k": int(k)})


def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.set_diag``: ``input`` with diagonal ``k`` replaced by ``diagonal``."""
    x = as_tensor(input)
    return execute(MATRIX_SET_DIAG, (x, as_tensor(diagonal, x.dtype)), {"k": int(k)})


def tensor_diag(diagonal, name=None):
    """``tf.linalg.tensor_diag``: rank-2k tensor with ``diagonal`` (rank k) on its diagonal."""
    d = as_tensor(diagonal)
    shape = d.shape.as_list()
    flat = _a.reshape(d, [-1])
    return _a.reshape(diag(flat), shape + shape)


def tensor_diag_part(input, name=None):  # noqa: A002
    """``tf.linalg.tensor_diag_part``: the diagonal of a rank-2k tensor of shape ``s + s``."""
    x = as_tensor(input)
    shape = x.shape.as_list()
    k = len(shape) // 2
    if len(shape) % 2 or shape[:k] != shape[k:]:
        raise InvalidArgumentError(None, None, f"DiagPart: input must have shape s + s, got {shape}")
    n = int(np.prod(shape[:k])) if k else 1
    return _a.reshape(diag_part(_a.reshape(x, [n, n])), shape[:k])


def adjoint(matrix, name=None):
    """``tf.linalg.adjoint``: conjugate transpose of the last two axes."""
    return _m.conj(_t(as_tensor(matrix)))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """``tf.linalg.matrix_transpose``: transpose of the last two axes (conjugated with ``conjugate``)."""
    out = _t(as_tensor(a))
    return _m.conj(out) if conjugate else out


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``tf.linalg.matvec``: ``a @ b`` for matrices ``a`` and vectors ``b`` (both batched)."""
    b = as_tensor(b)
    out = _m.matmul(a, _a.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return _a.squeeze(out, [-1])


def trace(x, name=None):
    """``tf.linalg.trace``: sum of the main diagonal of each matrix."""
    return _r.reduce_sum(diag_part(x), axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None):
    """``tf.linalg.pinv``: Moore-Penrose pseudo-inverse from the SVD; singular values at or below
    ``rcond * max(s)`` (default ``10 * max(M, N) * eps``) are dropped."""
    a = as_tensor(a)
    m, n = a.shape[-2], a.shape[-1]
    if rcond is None:
        rcond = 10.0 * max(m, n) * float(np.finfo(a.dtype.as_numpy_dtype).eps)
    s, u, v = svd(a)
    cutoff = _m.multiply(_r.reduce_max(s, axis=-1, keepdims=True), float(rcond))
    keep = _m.greater(s, cutoff)
    s_inv = _m.where(keep, _m.divide_no_nan(_a.ones_like(s), s), _a.zeros_like(s))
    return _m.matmul(_m.multiply(v, _a.expand_dims(s_inv, -2)), u, transpose_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """``tf.linalg.matrix_rank``: number of singular values above ``tol`` (default ``eps * max(M, N) * max(s)``)."""
    a = as_tensor(a)
    s = svd(a, compute_uv=False)
    if tol is None:
        eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
        tol = _m.multiply(_r.reduce_max(s, axis=-1, keepdims=True), eps * max(a.shape[-2], a.shape[-1]))
    return _r.reduce_sum(_m.cast(_m.greater(s, tol), dtypes.int64), axis=-1)


def cross(a, b, name=None):
    """``tf.linalg.cross``: pairwise cross product of 3-vectors (last axis)."""
    a, b = as_tensor(a), as_tensor(b)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise InvalidArgumentError(None, None, f"Cross: inner dimension must be 3, got {describe((a, b))}")
    a0, a1, a2 = _a.unstack(a, axis=-1)
    b0, b1, b2 = _a.unstack(b, axis=-1)
    return _a.stack([_m.subtract(_m.multiply(a1, b2), _m.multiply(a2, b1)),
                     _m.subtract(_m.multiply(a2, b0), _m.multiply(a0, b2)),
                     _m.subtract(_m.multiply(a0, b1), _m.multiply(a1, b0))], axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``tf.linalg.normalize``: ``(tensor / norm, norm)`` with the norm kept broadcastable."""
    x = as_tensor(tensor)
    n = _r.norm(x, ord=ord, axis=axis, keepdims=True)
    return _m.divide(x, n), n


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``tf.linalg.l2_normalize``: ``x / sqrt(max(sum(x**2, axis), epsilon))``."""

    return _l2(x, axis=axis if dim is None else dim, epsilon=epsilon)


def expm(input, name=None):  # noqa: A002
    """``tf.linalg.expm``: matrix exponential by scaling and squaring with a degree-18 Taylor series
    (differentiable through its matmuls)."""
    x = as_tensor(input)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(None, None, f"MatrixExponential: input must be square, got {describe((x,))}")
    norm1 = float(np.max(np.sum(np.abs(x.numpy()), axis=-2))) if x.shape.num_elements() else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm1))) + 1) if norm1 > 0.5 else 0
    scaled = _m.multiply(x, 1.0 / (2.0 ** squarings))
    n = x.shape[-1]
    eye = _m.add(_a.zeros_like(x), _a.eye(n, dtype=x.dtype))
    result, term = eye, eye
    for k in range(1, 19):
        term = _m.multiply(_m.matmul(term, scaled), 1.0 / k)
        result = _m.add(result, term)
    for _ in range(squarings):
        result = _m.matmul(result, result)
    return result


# TF's v1 aliases that tf.linalg keeps
matrix_band_part = band_part
matrix_diag = diag
matrix_diag_part = diag_part
matrix_set_diag = set_diag
matrix_inverse = inv
matrix_determinant = det
matrix_solve = solve
matrix_triangular_solve = triangular_solve
