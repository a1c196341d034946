"""``tf.sparse`` ops: to_dense, from_dense, sparse_dense_matmul, reduce_sum, reorder, add.

``SparseToDense`` and ``SparseTensorDenseMatMul`` are registered ops with TF's gradients
(to the values, the default value and the dense operand); the others are compositions of
registered ops, so gradients flow through them too. The two kernels are host (NumPy) kernels:
under a GPU device scope they run on the CPU (soft placement) and their gradients' dense ops
run wherever their inputs are.
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor, check_sparse, dense_index_check
from ..framework.tensor_conversion import convert_to_tensor
from . import array_ops, math_ops, reduce_ops
from .registry import Op, execute


def _indices_check(indices, shape, validate, what):
    dense_index_check(indices, shape, what)
    if validate and len(indices) > 1:
        flat = np.ravel_multi_index(indices.T, shape) if indices.shape[1] else np.zeros(len(indices), np.int64)
        d = np.diff(flat)
        if (d <= 0).any():
            i = int(np.argmax(d <= 0)) + 1
            kind = "repeated" if d[i - 1] == 0 else "out of order"
            raise InvalidArgumentError(None, None, f"{what}: indices[{i}] = {indices[i].tolist()} is {kind}. Many "
                                                   "sparse ops require sorted indices; use tf.sparse.reorder")


def _to_dense_rule(op, inputs, attrs):
    idx, shape, values, default = inputs
    if values._dtype is not default._dtype:
        raise InvalidArgumentError(None, None, f"SparseToDense: default_value dtype {default._dtype.name} does not "
                                               f"match values dtype {values._dtype.name}")
    if default._array.ndim != 0:
        raise InvalidArgumentError(None, None, "SparseToDense: default_value must be a scalar")
    return values._dtype


def _to_dense_grad(call, g):
    idx, _, values, _ = call.inputs
    dvalues = array_ops.gather_nd(g, idx) if call.needs_grad(2) else None
    ddefault = None
    if call.needs_grad(3):
        ddefault = reduce_ops.reduce_sum(g) - reduce_ops.reduce_sum(array_ops.gather_nd(g, idx))
    return [None, None, dvalues, ddefault]


_TO_DENSE = Op("SparseToDense", rule=_to_dense_rule, grad=_to_dense_grad, output_arg="dense")


@_TO_DENSE.kernel("cpu")
def _to_dense(b, indices, shape, values, default, validate_indices):
    shp = tuple(int(s) for s in shape)
    _indices_check(indices, shp, validate_indices, "SparseToDense")
    out = np.full(shp, default, dtype=values.dtype)
    if len(indices):
        out[tuple(indices.T)] = values
    return out


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """``tf.sparse.to_dense``: the dense tensor (``default_value``, 0 by default, where no value is given)."""
    sp = check_sparse(sp_input, "sp_input")
    values = sp.values
    if default_value is None:
        default_value = b"" if values.dtype is dtypes.string else 0
    default = convert_to_tensor(default_value, dtype=values.dtype)
    return execute(_TO_DENSE, (sp.indices, sp.dense_shape, values, default),
                   {"validate_indices": bool(validate_indices)})


def from_dense(tensor, name=None):
    """``tf.sparse.from_dense``: the non-zero (non-empty for strings) entries of ``tensor``, in row-major order."""
    t = convert_to_tensor(tensor)
    zero = convert_to_tensor(b"" if t.dtype is dtypes.string else 0, dtype=t.dtype)
    indices = math_ops.where(math_ops.not_equal(t, zero))
    values = array_ops.gather_nd(t, indices)
    return SparseTensor(indices, values, array_ops.shape(t, out_type=dtypes.int64))


def _matmul_rule(op, inputs, attrs):
    idx, values, shape, b = inputs
    if shape._array.shape != (2,) or b._array.ndim != 2:
        raise InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: a must be a rank-2 SparseTensor and b a "
                                               f"matrix, got dense shape rank {shape._array.shape[0]} and b shape "
                                               f"{list(b._array.shape)}")
    if values._dtype is not b._dtype:
        raise InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: a is {values._dtype.name} but b is "
                                               f"{b._dtype.name}")
    return b._dtype


def _matmul_grad(call, g):
    idx, values, shape, b = call.inputs
    adj_a, adj_b = call.attrs["adjoint_a"], call.attrs["adjoint_b"]
    db = dvalues = None
    if call.needs_grad(3):
        # out = op(A) @ op(B): d op(B) = op(A)^T @ g
        d_opb = sparse_dense_matmul(SparseTensor(idx, values, shape), g, adjoint_a=not adj_a)
        db = array_ops.transpose(d_opb) if adj_b else d_opb
    if call.needs_grad(1):
        rows, cols = idx[:, 0], idx[:, 1]
        if adj_a:
            rows, cols = cols, rows
        opb = array_ops.transpose(b) if adj_b else b
        # A[r, c] contributes g[r, :] * op(B)[c, :] to the output
        dvalues = reduce_ops.reduce_sum(array_ops.gather(g, rows) * array_ops.gather(opb, cols), axis=1)
    return [None, dvalues, None, db]


_MATMUL = Op("SparseTensorDenseMatMul", rule=_matmul_rule, grad=_matmul_grad, output_arg="product")


@_MATMUL.kernel("cpu")
def _matmul(b, indices, values, shape, dense, adjoint_a, adjoint_b):
    shp = [int(s) for s in shape]
    rows, cols = indices[:, 0], indices[:, 1]
    if adjoint_a:
        rows, cols = cols, rows
        shp = shp[::-1]
    rhs = dense.T.conj() if adjoint_b else dense
    if rhs.shape[0] != shp[1]:
        raise ValueError(f"inner dimensions differ: op(a) is {shp} and op(b) is {list(rhs.shape)}")
    vals = values.conj() if adjoint_a else values
    if len(rows) and ((rows < 0) | (rows >= shp[0]) | (cols < 0) | (cols >= shp[1])).any():
        raise ValueError(f"an index of a lies outside its dense shape {shp}")
    out = np.zeros((shp[0], rhs.shape[1]), dtype=dense.dtype)
    if len(rows):
        np.add.at(out, rows, vals[:, None] * rhs[cols])
    return out


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``tf.sparse.sparse_dense_matmul``: ``op(sp_a) @ op(b)`` for a rank-2 SparseTensor and a matrix.

    Also accepts a dense ``sp_a`` with a SparseTensor ``b`` (computed as ``(b^T a^T)^T``).
    """
    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        out = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return array_ops.transpose(out)
    sp = check_sparse(sp_a, "sp_a")
    dense = convert_to_tensor(b, dtype=sp.values.dtype)
    return execute(_MATMUL, (sp.indices, sp.values, sp.dense_shape, dense),
                   {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)})


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """``tf.sparse.reduce_sum``: the sum over ``axis`` (all axes when None) of a SparseTensor's entries."""
    sp = check_sparse(sp_input, "sp_input")
    out = reduce_ops.reduce_sum(to_dense(sp, validate_indices=False), axis=axis, keepdims=bool(keepdims))
    return from_dense(out) if output_is_sparse else out


def reorder(sp_input, name=None):
    """``tf.sparse.reorder``: the same SparseTensor with indices in row-major order."""
    sp = check_sparse(sp_input, "sp_input")
    ind = np.asarray(sp.indices.numpy())
    shape = [int(s) for s in sp.dense_shape.numpy()]
    order = np.argsort(np.ravel_multi_index(ind.T, shape), kind="stable") if len(ind) and ind.shape[1] else \
        np.arange(len(ind))
    perm = convert_to_tensor(order.astype(np.int64))
    return SparseTensor(array_ops.gather(sp.indices, perm), array_ops.gather(sp.values, perm), sp.dense_shape)


def add(a, b, threshold=0):
    """``tf.sparse.add``: SparseTensor + SparseTensor (sparse result) or + dense Tensor (dense result)."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        if a.dense_shape.numpy().tolist() != b.dense_shape.numpy().tolist():
            raise InvalidArgumentError(None, None, "SparseAdd: operands' shapes do not match: "
                                                   f"{a.dense_shape.numpy().tolist()} vs "
                                                   f"{b.dense_shape.numpy().tolist()}")
        return from_dense(to_dense(a, validate_indices=False) + to_dense(b, validate_indices=False))
    if isinstance(a, SparseTensor):
        return to_dense(a, validate_indices=False) + b
    return a + to_dense(check_sparse(b, "b"), validate_indices=False)


# -- SparseTensor * dense, SparseTensor / dense (TF's sparse_dense_cwise_mul / _div operators) ----------------
def _cwise(fn, name):
    def op(sp, other):
        dense = convert_to_tensor(other, dtype_hint=sp.values.dtype)
        if dense.dtype is not sp.values.dtype:
            dense = math_ops.cast(dense, sp.values.dtype)
        if dense.shape.rank == 0:
            picked = dense
        else:  # the dense operand broadcast to the sparse shape, read at the stored entries only
            shape = [int(d) for d in np.asarray(sp.dense_shape.numpy())]
            picked = array_ops.gather_nd(array_ops.broadcast_to(dense, shape), sp.indices)
        return SparseTensor(sp.indices, fn(sp.values, picked), sp.dense_shape)
    op.__name__ = name
    op.__doc__ = f"``SparseTensor.{name}``: the stored values combined with the dense operand; the result is " \
                 "sparse with the same indices (as TF)."
    return op


SparseTensor.__mul__ = _cwise(math_ops.multiply, "__mul__")
SparseTensor.__rmul__ = _cwise(math_ops.multiply, "__rmul__")
SparseTensor.__truediv__ = _cwise(math_ops.truediv, "__truediv__")
SparseTensor.__div__ = SparseTensor.__truediv__
