"""``tf.linalg.LinearOperator`` and its structured subclasses.

Each operator knows its dense matrix (``to_dense``); ``matmul``, ``matvec``, ``solve``, ``determinant``,
``log_abs_determinant``, ``inverse``, ``adjoint``, ``diag_part``, ``trace`` work on it with the
``tf.linalg`` ops (so they differentiate), with exact shortcuts where the structure gives them for free
(diagonal and identity operators, triangular solves, determinants of triangular and Kronecker
operators). Batch dimensions broadcast as in TF.
"""

import numpy as np

from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from . import array_ops as _a
from . import linalg_ops as _l
from . import math_ops as _m
from . import reduce_ops as _r

__all__ = [
    "LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity",
    "LinearOperatorScaledIdentity", "LinearOperatorLowerTriangular", "LinearOperatorComposition",
    "LinearOperatorInversion", "LinearOperatorAdjoint", "LinearOperatorKronecker", "LinearOperatorBlockDiag",
    "LinearOperatorZeros", "LinearOperatorPermutation", "LinearOperatorToeplitz", "LinearOperatorCirculant",
    "LinearOperatorHouseholder", "LinearOperatorLowRankUpdate", "LinearOperatorTridiag",
    "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant2D", "LinearOperatorCirculant3D",
]


def _t(x):
    return _l.matrix_transpose(x)


class LinearOperator:
    """Base class: subclasses implement ``_to_dense``; hints (``is_non_singular`` ...) are recorded."""

    def __init__(self, dtype=None, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None, parameters=None, graph_parents=None):
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else None
        self.is_non_singular = is_non_singular
        self.is_self_adjoint = is_self_adjoint
        self.is_positive_definite = is_positive_definite
        self._is_square = is_square
        self.name = name or type(self).__name__
        self.parameters = parameters or {}

    def _to_dense(self):
        raise NotImplementedError(f"{type(self).__name__} must define _to_dense")

    def to_dense(self, name="to_dense"):
        """The operator as a dense ``[..., M, N]`` tensor."""
        return self._to_dense()

    @property
    def dtype(self):
        return self._dtype or self.to_dense().dtype

    @property
    def shape(self):
        return self.to_dense().shape

    @property
    def batch_shape(self):
        return TensorShape(self.shape.as_list()[:-2])

    @property
    def domain_dimension(self):
        return self.shape[-1]

    @property
    def range_dimension(self):
        return self.shape[-2]

    @property
    def tensor_rank(self):
        return self.shape.rank

    def shape_tensor(self, name="shape_tensor"):
        return convert_to_tensor(np.asarray(self.shape.as_list(), np.int32))

    @property
    def is_square(self):
        if self._is_square is not None:
            return self._is_square
        s = self.shape
        return s[-1] == s[-2]

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``op @ x`` (``adjoint(op)``, ``adjoint(x)`` with the flags); ``x`` a tensor or an operator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            return LinearOperatorComposition([left, right])
        return _m.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def matvec(self, x, adjoint=False, name="matvec"):
        return _l.matvec(self.to_dense(), x, adjoint_a=adjoint)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``op @ X = rhs``."""
        rhs = _t(convert_to_tensor(rhs)) if adjoint_arg else rhs
        return _l.solve(self.to_dense(), rhs, adjoint=adjoint)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        return _a.squeeze(self.solve(_a.expand_dims(convert_to_tensor(rhs), -1), adjoint=adjoint), [-1])

    def determinant(self, name="det"):
        return _l.det(self.to_dense())

    def log_abs_determinant(self, name="log_abs_det"):
        return _l.slogdet(self.to_dense())[1]

    def diag_part(self, name="diag_part"):
        return _l.diag_part(self.to_dense())

    def trace(self, name="trace"):
        return _r.reduce_sum(self.diag_part(), axis=-1)

    def add_to_tensor(self, x, name="add_to_tensor"):
        return _m.add(self.to_dense(), x)

    def adjoint(self, name=None):
        return LinearOperatorAdjoint(self)

    H = property(adjoint)

    def inverse(self, name=None):
        return LinearOperatorInversion(self)

    def cholesky(self, name=None):
        return LinearOperatorLowerTriangular(_l.cholesky(self.to_dense()), is_non_singular=True)

    def eigvals(self, name=None):
        return _l.eigvalsh(self.to_dense())

    def cond(self, name=None):
        s = _l.svd(self.to_dense(), compute_uv=False)
        return _m.divide(_r.reduce_max(s, axis=-1), _r.reduce_min(s, axis=-1))

    def assert_non_singular(self, name=None):
        if not bool(np.all(np.abs(self.determinant().numpy()) > 0)):
            raise ValueError(f"{self.name} is singular")

    def __repr__(self):
        return f"<tf.linalg.{type(self).__name__} shape={self.shape.as_list()} dtype={self.dtype.name}>"


class LinearOperatorFullMatrix(LinearOperator):
    """An operator backed by a dense ``[..., M, N]`` matrix."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        self._matrix = convert_to_tensor(matrix)
        super().__init__(self._matrix.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square, name,
                         {"matrix": matrix})

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """``diag(d)``: products, solves and determinants are element-wise."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorDiag"):
        self._diag = convert_to_tensor(diag)
        super().__init__(self._diag.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"diag": diag})

    @property
    def diag(self):
        return self._diag

    def _to_dense(self):
        return _l.diag(self._diag)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if isinstance(x, LinearOperator):
            return super().matmul(x, adjoint, adjoint_arg)
        x = convert_to_tensor(x)
        x = _t(x) if adjoint_arg else x
        return _m.multiply(_a.expand_dims(self._diag, -1), x)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        rhs = convert_to_tensor(rhs)
        rhs = _t(rhs) if adjoint_arg else rhs
        return _m.divide(rhs, _a.expand_dims(self._diag, -1))

    def determinant(self, name="det"):
        return _r.reduce_prod(self._diag, axis=-1)

    def log_abs_determinant(self, name="log_abs_det"):
        return _r.reduce_sum(_m.log(_m.abs(self._diag)), axis=-1)

    def diag_part(self, name="diag_part"):
        return self._diag


class LinearOperatorIdentity(LinearOperatorDiag):
    """The ``num_rows x num_rows`` identity (with optional ``batch_shape``)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False, name="LinearOperatorIdentity"):
        dt = dtypes.as_dtype(dtype or dtypes.float32)
        shape = list(batch_shape or []) + [int(num_rows)]
        super().__init__(np.ones(shape, dt.as_numpy_dtype), True, True, True, True, name)
        self.parameters = {"num_rows": num_rows, "batch_shape": batch_shape, "dtype": dt}


class LinearOperatorScaledIdentity(LinearOperatorDiag):
    """``multiplier * I`` of size ``num_rows``."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        m = convert_to_tensor(multiplier)
        self.multiplier = m
        d = _m.multiply(_a.expand_dims(m, -1), _a.ones([int(num_rows)], dtype=m.dtype))
        super().__init__(d, is_non_singular, is_self_adjoint, is_positive_definite, True, name)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (the rest is ignored); solves are triangular solves."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        self._tril = _l.band_part(convert_to_tensor(tril), -1, 0)
        super().__init__(self._tril.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"tril": tril})

    def _to_dense(self):
        return self._tril

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        rhs = convert_to_tensor(rhs)
        rhs = _t(rhs) if adjoint_arg else rhs
        return _l.triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def determinant(self, name="det"):
        return _r.reduce_prod(_l.diag_part(self._tril), axis=-1)

    def log_abs_determinant(self, name="log_abs_det"):
        return _r.reduce_sum(_m.log(_m.abs(_l.diag_part(self._tril))), axis=-1)


class LinearOperatorComposition(LinearOperator):
    """``operators[0] @ operators[1] @ ...``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        if not operators:
            raise ValueError("Expected a non-empty list of operators.")
        self.operators = list(operators)
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(o.name for o in operators), {"operators": operators})

    def _to_dense(self):
        out = self.operators[-1].to_dense()
        for op in reversed(self.operators[:-1]):
            out = op.matmul(out)
        return out


class LinearOperatorInversion(LinearOperator):
    """``inverse(operator)``: ``matmul`` is the operator's ``solve`` and vice versa."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operator = operator
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or operator.name + "_inv", {"operator": operator})

    def _to_dense(self):
        return _l.inv(self.operator.to_dense())

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        if isinstance(x, LinearOperator):
            return super().matmul(x, adjoint, adjoint_arg)
        return self.operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        return self.operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def determinant(self, name="det"):
        return _m.reciprocal(self.operator.determinant())

    def log_abs_determinant(self, name="log_abs_det"):
        return _m.negative(self.operator.log_abs_determinant())


class LinearOperatorAdjoint(LinearOperator):
    """``adjoint(operator)``."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operator = operator
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or operator.name + "_adjoint", {"operator": operator})

    def _to_dense(self):
        return _t(self.operator.to_dense())

    def determinant(self, name="det"):
        return self.operator.determinant()


class LinearOperatorKronecker(LinearOperator):
    """``operators[0] (x) operators[1] (x) ...`` (Kronecker product)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operators = list(operators)
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_x_".join(o.name for o in operators), {"operators": operators})

    def _to_dense(self):
        out = self.operators[0].to_dense()
        for op in self.operators[1:]:
            b = op.to_dense()
            m, n = out.shape[-2], out.shape[-1]
            p, q = b.shape[-2], b.shape[-1]
            prod = _m.multiply(_a.expand_dims(_a.expand_dims(out, -1), -3), _a.expand_dims(_a.expand_dims(b, -3), -2))
            batch = prod.shape.as_list()[:-4]
            out = _a.reshape(prod, batch + [m * p, n * q])
        return out

    def determinant(self, name="det"):
        total = int(np.prod([o.shape[-1] for o in self.operators]))
        det = None
        for o in self.operators:
            term = _m.pow(o.determinant(), float(total // o.shape[-1]))
            det = term if det is None else _m.multiply(det, term)
        return det


class LinearOperatorBlockDiag(LinearOperator):
    """Block-diagonal operator of square ``operators``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        self.operators = list(operators)
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or "_ds_".join(o.name for o in operators), {"operators": operators})

    def _to_dense(self):
        blocks = [o.to_dense() for o in self.operators]
        cols = sum(b.shape[-1] for b in blocks)
        rows, start = [], 0
        for b in blocks:
            n = b.shape[-1]
            pads = [[0, 0]] * (b.ndim - 1) + [[start, cols - start - n]]
            rows.append(_a.pad(b, pads))
            start += n
        return _a.concat(rows, axis=-2)

    def determinant(self, name="det"):
        det = None
        for o in self.operators:
            det = o.determinant() if det is None else _m.multiply(det, o.determinant())
        return det


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """Block lower-triangular operator: ``operators[i][j]`` is block ``(i, j)`` for ``j <= i``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        self.operators = [list(row) for row in operators]
        super().__init__(None, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"operators": operators})

    def _to_dense(self):
        sizes = [row[-1].shape[-1] for row in self.operators]
        rows = []
        for row in self.operators:
            parts = [op.to_dense() for op in row]
            dt = parts[0].dtype
            for j in range(len(row), len(sizes)):
                parts.append(_a.zeros([row[0].shape[-2], sizes[j]], dtype=dt))
            rows.append(_a.concat(parts, axis=-1))
        return _a.concat(rows, axis=-2)


class LinearOperatorZeros(LinearOperator):
    """The all-zero ``num_rows x num_columns`` operator."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        dt = dtypes.as_dtype(dtype or dtypes.float32)
        cols = num_rows if num_columns is None else num_columns
        self._dense_shape = list(batch_shape or []) + [int(num_rows), int(cols)]
        super().__init__(dt, False, True, False, int(num_rows) == int(cols), name)

    def _to_dense(self):
        return _a.zeros(self._dense_shape, dtype=self._dtype)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        raise ValueError("Zero operators are always non-invertible.")


class LinearOperatorPermutation(LinearOperator):
    """Permutation matrix ``P`` with ``(P @ x)[i] = x[perm[i]]``."""

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        self.perm = convert_to_tensor(perm)
        super().__init__(dtype, True, None, None, True, name, {"perm": perm})

    def _to_dense(self):
        n = self.perm.shape[-1]
        return _a.one_hot(self.perm, n, dtype=self._dtype)


class LinearOperatorToeplitz(LinearOperator):
    """Toeplitz matrix from its first ``col``umn and first ``row`` (``row[0]`` is ignored)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        self.col, self.row = convert_to_tensor(col), convert_to_tensor(row)
        super().__init__(self.col.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"col": col, "row": row})

    def _to_dense(self):
        n = self.col.shape[-1]
        values = _a.concat([_a.reverse(self.row[..., 1:], [-1]), self.col], axis=-1)  # row[n-1..1], col[0..n-1]
        idx = (n - 1) + np.arange(n)[:, None] - np.arange(n)[None, :]
        return _a.gather(values, convert_to_tensor(idx), axis=-1)


class LinearOperatorCirculant(LinearOperator):
    """Circulant matrix whose first column is ``col`` (TF takes the spectrum; see ``from_column``):
    ``C[i, j] = col[(i - j) mod n]``, built from the inverse FFT of ``spectrum`` (real part)."""

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name="LinearOperatorCirculant"):
        spec = np.asarray(convert_to_tensor(spectrum).numpy())
        col = np.fft.ifft(spec, axis=-1)
        out_dt = dtypes.as_dtype(input_output_dtype)
        col = col.real if not out_dt.is_complex else col
        self._col = convert_to_tensor(col.astype(out_dt.as_numpy_dtype))
        self.spectrum = convert_to_tensor(spectrum)
        super().__init__(out_dt, is_non_singular, is_self_adjoint, is_positive_definite, True, name,
                         {"spectrum": spectrum})

    def _to_dense(self):
        n = self._col.shape[-1]
        idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
        return _a.gather(self._col, convert_to_tensor(idx), axis=-1)


class _CirculantND(LinearOperator):
    _dims = 2

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        spec = np.asarray(convert_to_tensor(spectrum).numpy())
        kernel = np.fft.ifftn(spec, axes=tuple(range(-self._dims, 0)))
        out_dt = dtypes.as_dtype(input_output_dtype)
        kernel = kernel.real if not out_dt.is_complex else kernel
        shape = kernel.shape[-self._dims:]
        n = int(np.prod(shape))
        coords = np.stack(np.unravel_index(np.arange(n), shape), axis=-1)
        diff = (coords[:, None, :] - coords[None, :, :]) % np.asarray(shape)
        flat_idx = np.ravel_multi_index(tuple(diff[..., k] for k in range(self._dims)), shape)
        batch = kernel.shape[:-self._dims]
        dense = kernel.reshape(batch + (n,))[..., flat_idx]
        self._dense = convert_to_tensor(dense.astype(out_dt.as_numpy_dtype))
        self.spectrum = convert_to_tensor(spectrum)
        super().__init__(out_dt, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or type(self).__name__, {"spectrum": spectrum})

    def _to_dense(self):
        return self._dense


class LinearOperatorCirculant2D(_CirculantND):
    """Doubly circulant (block circulant with circulant blocks) operator from a 2-D spectrum."""

    _dims = 2


class LinearOperatorCirculant3D(_CirculantND):
    """Triply circulant operator from a 3-D spectrum."""

    _dims = 3


class LinearOperatorHouseholder(LinearOperator):
    """Householder reflection ``I - 2 v v^T / (v^T v)``."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        self.reflection_axis = convert_to_tensor(reflection_axis)
        super().__init__(self.reflection_axis.dtype, True, True, False, True, name,
                         {"reflection_axis": reflection_axis})

    def _to_dense(self):
        v = self.reflection_axis
        n = v.shape[-1]
        outer = _m.multiply(_a.expand_dims(v, -1), _a.expand_dims(v, -2))
        norm = _a.expand_dims(_a.expand_dims(_r.reduce_sum(_m.square(v), axis=-1), -1), -1)
        return _m.subtract(_a.eye(n, dtype=v.dtype), _m.multiply(_m.divide(outer, norm), 2.0))


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U diag(d) V^H`` (``V = U`` and ``d = 1`` by default)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        self.base_operator = base_operator
        self.u = convert_to_tensor(u)
        self.v = self.u if v is None else convert_to_tensor(v)
        self.diag_update = None if diag_update is None else convert_to_tensor(diag_update)
        super().__init__(self.u.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _to_dense(self):
        u = self.u if self.diag_update is None else _m.multiply(self.u, _a.expand_dims(self.diag_update, -2))
        return _m.add(self.base_operator.to_dense(), _m.matmul(u, self.v, adjoint_b=True))


class LinearOperatorTridiag(LinearOperator):
    """Tridiagonal operator; ``diagonals_format`` 'compact' (``[..., 3, N]``: super, main, sub), 'sequence'
    (a list of the three) or 'matrix'."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        if diagonals_format == "matrix":
            self._dense = _l.band_part(convert_to_tensor(diagonals), 1, 1)
        else:
            if diagonals_format == "sequence":
                sup, main, sub = (convert_to_tensor(d) for d in diagonals)
            elif diagonals_format == "compact":
                d = convert_to_tensor(diagonals)
                sup, main, sub = d[..., 0, :], d[..., 1, :], d[..., 2, :]
            else:
                raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
            self._dense = _m.add(_m.add(_l.diag(main), _l.diag(sup[..., :-1], k=1)), _l.diag(sub[..., 1:], k=-1))
        self.diagonals_format = diagonals_format
        super().__init__(self._dense.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _to_dense(self):
        return self._dense
