"""Ops on ``tf.RaggedTensor`` through type-based dispatch (TF's ``ragged/ragged_dispatch.py``).

Registered once for every op of a kind, not op by op:

* unary element-wise ops (and string ops that work value by value, such as ``tf.strings.substr``)
  apply to ``flat_values`` and keep the row partitions;
* binary element-wise ops apply to the flat values when both operands share row partitions, or when
  the dense operand broadcasts against the flat values (a scalar, or the inner dense dimensions);
* reductions (``tf.reduce_sum/mean/max/min/prod/any/all``) reduce rows with segment ops (TF's
  ``ragged_math_ops``): ``axis=1`` per row, ``axis=0`` per column position, ``axis=None`` everything;
* ``tf.concat``, ``tf.tile``, ``tf.reverse`` and ``tf.map_fn`` build new row partitions.
"""

import inspect

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import dispatch_for_api, unwrap
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ..function import control_flow as _cf
from ..ops import array_ops as _a
from ..ops import math_ops as _m
from ..ops import math_reduction_ops as _mx
from ..ops import nn_ops as _nn
from ..ops import reduce_ops as _r
from ..ops import special_math_ops as _sm
from ..ops import string_hash_ops as _sh
from ..ops import string_ops as _s
from ..ops import unicode_ops as _u
from . import dynamic_ragged_shape as _drs
from .dynamic_ragged_shape import DynamicRaggedShape
from .ragged_tensor import RaggedTensor, RaggedTensorSpec, _concat_ragged, _host
from .ragged_tensor import stack as ragged_stack

_UNARY = {
    _m: ["abs", "negative", "square", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "sin", "cos", "tan", "tanh",
         "sigmoid", "sign", "floor", "ceil", "round", "reciprocal", "logical_not", "cast", "saturate_cast",
         "is_nan", "is_inf", "is_finite", "erf", "asin", "acos", "atan", "sinh", "cosh", "softplus", "relu",
         "relu6", "elu", "selu", "erfc", "lgamma", "digamma", "exp2", "log_sigmoid", "conj", "real", "imag"],
    _sm: ["abs", "erfinv", "ndtri", "softsign", "bessel_i0e", "bessel_i1e", "rint"],
    _a: ["identity", "zeros_like", "ones_like", "stop_gradient"],
    _s: ["substr", "lower", "upper", "length", "regex_replace", "regex_full_match", "strip", "to_number",
         "as_string"],
    _sh: ["to_hash_bucket_fast", "to_hash_bucket_strong"],
    _u: ["unicode_transcode"],
}
_BINARY = {
    _m: ["add", "add_v2", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod", "maximum",
         "minimum", "pow", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
         "logical_or", "logical_xor", "squared_difference", "atan2", "divide_no_nan", "xdivy", "xlogy",
         "truncatediv", "truncatemod", "realdiv", "multiply_no_nan"],
    _sm: ["xlog1py", "zeta", "igamma", "igammac"],
}
_REDUCTIONS = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
               "reduce_prod": "prod", "reduce_any": "any", "reduce_all": "all"}


def _apis(table):
    seen = set()
    for module, names in table.items():
        for name in names:
            api = getattr(module, name, None)
            if api is not None and getattr(api, "_tf_dispatch_target", None) is not None and api not in seen:
                seen.add(api)
                yield api


def _bound(api, args, kwargs):
    sig = inspect.signature(unwrap(api))
    bound = sig.bind(*args, **kwargs)
    return bound


def _same_partitions(a, b):
    return a.ragged_rank == b.ragged_rank and all(
        _host(x).shape == _host(y).shape and np.array_equal(_host(x), _host(y))
        for x, y in zip(a.nested_row_splits, b.nested_row_splits))


# -- element-wise ------------------------------------------------------------------------------------------------
def _unary_handler(api):
    first = next(iter(inspect.signature(unwrap(api)).parameters))

    def handler(*args, **kwargs):
        bound = _bound(api, args, kwargs)
        rt = bound.arguments[first]
        if not isinstance(rt, RaggedTensor):
            raise TypeError(f"{api.__name__}: only its first argument ({first!r}) may be a RaggedTensor")
        bound.arguments[first] = rt.flat_values
        return rt.with_flat_values(api(*bound.args, **bound.kwargs))
    return handler


def _binary_handler(api):
    x_name, y_name = list(inspect.signature(unwrap(api)).parameters)[:2]

    def handler(*args, **kwargs):
        bound = _bound(api, args, kwargs)
        x, y = bound.arguments[x_name], bound.arguments[y_name]
        rt = x if isinstance(x, RaggedTensor) else y
        if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
            if not _same_partitions(x, y):  # TF: an InvalidArgumentError from its partition assertions
                raise InvalidArgumentError(None, None, _partition_mismatch(api, x.nested_row_splits,
                                                                           y.nested_row_splits))
            fx, fy = x.flat_values, y.flat_values
        else:
            dense = convert_to_tensor(y if rt is x else x, dtype_hint=rt.dtype)
            flat = rt.flat_values
            if dense.shape.rank is not None and dense.shape.rank >= flat.shape.rank + rt.ragged_rank \
                    and dense.shape.rank > 0:
                # As ragged as the ragged operand: cut the dense one to the same rows (TF broadcasts it).
                given = dense
                dense = _from_dense_like(dense, rt)
                if dense is None:
                    raise InvalidArgumentError(None, None, _dense_mismatch(api, given, rt))
                dense = dense.flat_values
            elif dense.shape.rank is not None and dense.shape.rank > flat.shape.rank - 1 and dense.shape.rank > 0 \
                    and not _broadcasts(dense.shape.as_list(), flat.shape.as_list()[1:]):
                raise InvalidArgumentError(None, None, f"{api.__name__}: cannot broadcast a dense operand of shape "
                                           f"{dense.shape} against a RaggedTensor of shape {rt.shape}")
            fx, fy = (flat, dense) if rt is x else (dense, flat)
        bound.arguments[x_name], bound.arguments[y_name] = fx, fy
        return rt.with_flat_values(api(*bound.args, **bound.kwargs))
    return handler


def _assert_equal_message(x, y):
    """The message of TF's ``assert_equal`` on two vectors of one length (``Condition x == y did not hold.``,
    the first 3 differing indices and values, the first 3 elements of each)."""
    diff = np.nonzero(x != y)[0]
    k = min(3, diff.size)
    n = min(3, x.size)
    head = ""
    if k:
        head = (f"Indices of first {k} different values:\n{diff[:k].reshape(-1, 1)}\n"
                f"Corresponding x values:\n{x[diff[:k]]}\nCorresponding y values:\n{y[diff[:k]]}\n")
    return f"Condition x == y did not hold.\n{head}First {n} elements of x:\n{x[:3]}\nFirst {n} elements of y:\n{y[:3]}"


def _partition_mismatch(api, x_splits, y_splits):
    """TF's error for ragged operands whose row partitions differ: its assertion on the first row splits that
    differ (x: the first operand's), or tfcore's description when their numbers of rows differ."""
    for xs, ys in zip(x_splits, y_splits):
        xh, yh = _host(xs).astype(np.int64), _host(ys).astype(np.int64)
        if xh.shape == yh.shape and not np.array_equal(xh, yh):
            return _assert_equal_message(xh, yh)
        if xh.shape != yh.shape:
            break
    return (f"{api.__name__}: ragged operands must have the same row partitions, got row lengths "
            f"{[np.diff(_host(s)).tolist() for s in x_splits]} and {[np.diff(_host(s)).tolist() for s in y_splits]}")


def _dense_mismatch(api, dense, rt):
    """TF's error when a dense [nrows, D, ...] operand does not fit a ragged one: its assertion that the dense
    operand's uniform row splits (x) equal the ragged row splits (y)."""
    shape = dense.shape.as_list()
    splits = _host(rt.row_splits).astype(np.int64)
    if rt.ragged_rank == 1 and len(shape) >= 2 and shape[0] == rt.nrows_int() and shape[1] is not None:
        return _assert_equal_message(np.arange(shape[0] + 1, dtype=np.int64) * shape[1], splits)
    return (f"{api.__name__}: cannot broadcast a dense operand of shape {dense.shape} against a RaggedTensor of "
            f"shape {rt.shape}")


def _broadcasts(dense_dims, inner_dims):
    """Whether trailing dims ``dense_dims`` broadcast against the flat values' inner dims (1s allowed)."""
    if len(dense_dims) > len(inner_dims) + 1:
        return False
    return all(d in (1, i) for d, i in zip(reversed(dense_dims), reversed(inner_dims)))


def _from_dense_like(dense, rt):
    """``dense`` (shape [nrows, D, ...]) broadcast to ``rt``'s rows (ragged_rank 1 only)."""
    if rt.ragged_rank != 1 or dense.shape[0] not in (1, rt.nrows_int()):
        return None
    lens = _host(rt.row_lengths())
    width = int(lens.max()) if lens.size else 0
    shape = dense.shape.as_list()
    if shape[1] != 1 and np.any(lens != shape[1]):  # a dense dim broadcasts only against rows of its length
        return None
    full = _a.broadcast_to(dense, [rt.nrows_int(), width if shape[1] == 1 else shape[1]] + shape[2:])
    return RaggedTensor.from_tensor(full, lengths=lens)


# -- reductions -------------------------------------------------------------------------------------------------
def _segment(kind, data, ids, n):
    if kind == "sum":
        return _r.unsorted_segment_sum(data, ids, n)
    if kind == "max":
        return _mx.unsorted_segment_max(data, ids, n)
    if kind == "min":
        return _mx.unsorted_segment_min(data, ids, n)
    if kind == "any":
        return _m.greater(_r.unsorted_segment_sum(_m.cast(data, dtypes.int32), ids, n), 0)
    if kind == "all":
        return _m.equal(_r.unsorted_segment_sum(_m.cast(_m.logical_not(data), dtypes.int32), ids, n), 0)
    raise ValueError(kind)


def _reduce_handler(api, kind):
    def handler(input_tensor, axis=None, keepdims=False, name=None):
        rt = input_tensor
        if axis is None:
            return api(rt.flat_values, axis=None, keepdims=keepdims)
        axes = [int(a) for a in (np.atleast_1d(_host(convert_to_tensor(axis))))]
        rank = rt.shape.rank
        axes = sorted({a + rank if a < 0 else a for a in axes}, reverse=True)
        for a in axes:
            if not 0 <= a < rank:
                raise ValueError(f"{api.__name__}: axis {a} out of range for a RaggedTensor of rank {rank}")
        out = rt
        for a in axes:
            out = _reduce_one(api, kind, out, a)
        if keepdims:
            for a in sorted(axes):
                out = _a.expand_dims(out, a) if not isinstance(out, RaggedTensor) else out
        return out
    return handler


def _reduce_one(api, kind, rt, axis):
    if not isinstance(rt, RaggedTensor):
        return api(rt, axis=axis)
    if axis > 1:  # a deeper axis: reduce inside the values, keep the outer partition
        return rt.with_values(_reduce_one(api, kind, rt.values, axis - 1))
    values = rt.values
    if isinstance(values, RaggedTensor):
        raise ValueError(f"{api.__name__}: reducing axis {axis} of a RaggedTensor of ragged_rank "
                         f"{rt.ragged_rank} is not supported")
    if kind == "prod":  # no segment product op: pad with the identity and reduce densely
        return api(rt.to_tensor(default_value=1), axis=axis)
    mean = kind == "mean"
    if mean and (values.dtype.is_integer or values.dtype.is_bool):
        values = _m.cast(values, dtypes.float64)  # TF's ragged reduce_mean of integers is float64
    if axis == 1:  # one segment per row, from the row splits with tensor ops (traced functions record them)
        ids = rt.value_rowids()
        n = rt.nrows_int()
        total = _segment("sum" if mean else kind, values, ids, n)
        if not mean:
            return total
        counts = _a.reshape(_m.cast(rt.row_lengths(), values.dtype), [n] + [1] * (values.shape.rank - 1))
        return _m.divide(total, counts)
    # axis 0: one segment per position inside the rows
    lens = _host(rt.row_lengths())
    ids = convert_to_tensor(np.concatenate([np.arange(k) for k in lens]).astype(np.int64) if lens.size
                            else np.zeros(0, np.int64))
    n = int(lens.max()) if lens.size else 0
    counts_host = np.bincount(_host(ids), minlength=n) if n else np.zeros(0, np.int64)
    total = _segment("sum" if mean else kind, values, ids, n)
    if not mean:
        return total
    counts = convert_to_tensor(counts_host.astype(values.dtype.as_numpy_dtype).reshape(
        [n] + [1] * (values.shape.rank - 1)))
    return _m.divide(total, counts)


# -- structure ---------------------------------------------------------------------------------------------------
def _as_ragged(x, ragged_rank=1):
    if isinstance(x, RaggedTensor):
        return x
    return RaggedTensor.from_tensor(convert_to_tensor(x), ragged_rank=ragged_rank)


def _concat(values, axis, name="concat"):
    values = list(values)
    dtype = next(v.dtype for v in values if isinstance(v, RaggedTensor))
    rr = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    parts = [v if isinstance(v, RaggedTensor) else _as_ragged(convert_to_tensor(v, dtype=dtype), rr)
             for v in values]
    rank = parts[0].shape.rank
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if axis == 0:
        return _concat_ragged(parts)
    if axis == 1 and all(p.ragged_rank == 1 for p in parts):
        n = parts[0].nrows_int()
        if any(p.nrows_int() != n for p in parts):
            raise ValueError(f"concat: inputs must have the same number of rows along axis 1, got "
                             f"{[p.nrows_int() for p in parts]}")
        offsets = np.cumsum([0] + [int(p.values.shape[0]) for p in parts])
        splits = [_host(p.row_splits) for p in parts]
        index = [np.arange(o + s[i], o + s[i + 1]) for i in range(n) for o, s in zip(offsets, splits)]
        index = np.concatenate(index).astype(np.int64) if index else np.zeros(0, np.int64)
        lens = np.sum([np.diff(s) for s in splits], axis=0).astype(np.int64)
        flat = _a.concat([p.values for p in parts], axis=0)
        return RaggedTensor.from_row_lengths(_a.gather(flat, convert_to_tensor(index)), lens, validate=False)
    raise ValueError(f"concat: axis {axis} of RaggedTensors of ragged_rank "
                     f"{[p.ragged_rank for p in parts]} is not supported")


def _tile(input, multiples, name=None):  # noqa: A002
    rt = input
    mult = [int(m) for m in _host(convert_to_tensor(multiples)).reshape(-1)]
    if rt.ragged_rank != 1 or len(mult) != rt.shape.rank:
        raise ValueError(f"tile: multiples {mult} must have one entry per dimension of a ragged_rank 1 "
                         f"RaggedTensor of shape {rt.shape}")
    splits = _host(rt.row_splits)
    index, lens = [], []
    for _ in range(mult[0]):
        for i in range(rt.nrows_int()):
            row = np.arange(splits[i], splits[i + 1])
            index.append(np.tile(row, mult[1]))
            lens.append(row.size * mult[1])
    index = np.concatenate(index).astype(np.int64) if index else np.zeros(0, np.int64)
    values = _a.gather(rt.values, convert_to_tensor(index))
    if len(mult) > 2 and any(m != 1 for m in mult[2:]):
        values = _a.tile(values, [1] + mult[2:])
    return RaggedTensor.from_row_lengths(values, np.asarray(lens, np.int64), validate=False)


def _reverse(tensor, axis, name=None):
    """Reverse the order of rows (axis 0) and/or of the values inside every row (axis 1)."""
    rt = tensor
    axes = sorted({int(a) + (rt.shape.rank if int(a) < 0 else 0) for a in _host(convert_to_tensor(axis)).reshape(-1)})
    if any(a > 1 for a in axes) or rt.ragged_rank != 1:
        raise ValueError(f"reverse: axes {axes} of a RaggedTensor of ragged_rank {rt.ragged_rank}: only axes 0 and 1 "
                         "of a ragged_rank 1 tensor are supported")
    splits = _host(rt.row_splits)
    rows = [np.arange(splits[i], splits[i + 1]) for i in range(rt.nrows_int())]
    if 1 in axes:
        rows = [r[::-1] for r in rows]
    if 0 in axes:
        rows = rows[::-1]
    index = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    lens = np.asarray([r.size for r in rows], np.int64)
    return RaggedTensor.from_row_lengths(_a.gather(rt.values, convert_to_tensor(index)), lens, validate=False)


def _embedding_lookup(params, ids, max_norm=None, name=None):
    if isinstance(params, RaggedTensor):
        raise TypeError("embedding_lookup: params may not be a RaggedTensor")
    return ids.with_flat_values(_nn.embedding_lookup(params, ids.flat_values, max_norm=max_norm))


def _strings_join(inputs, separator="", name=None):
    inputs = list(inputs)
    rt = next(v for v in inputs if isinstance(v, RaggedTensor))
    flats = []
    for v in inputs:
        if isinstance(v, RaggedTensor):
            if not _same_partitions(v, rt):
                raise ValueError("strings.join: ragged inputs must have the same row partitions")
            flats.append(v.flat_values)
        else:
            flats.append(v)
    return rt.with_flat_values(_s.join(flats, separator=separator))


def _map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
            name=None, fn_output_signature=None):
    """``fn`` on each row of a RaggedTensor; rows of rank >= 1 make a RaggedTensor again (TF's default
    output signature is the input's), scalars a dense tensor (or as ``fn_output_signature`` says)."""
    if not isinstance(elems, RaggedTensor):
        raise TypeError("map_fn: only a single RaggedTensor elems is supported with ragged inputs, got "
                        f"{type(elems).__name__}")
    rows = [fn(row) for row in elems]
    rows = [r if isinstance(r, RaggedTensor) else convert_to_tensor(r) for r in rows]
    want_dense = fn_output_signature is not None and not isinstance(fn_output_signature, RaggedTensorSpec)
    if want_dense or (rows and all(not isinstance(r, RaggedTensor) and r.shape.rank == 0 for r in rows)):
        if not rows:
            return _a.zeros([0], dtype=getattr(fn_output_signature, "dtype", fn_output_signature) or elems.dtype)
        return _a.stack(rows, axis=0)
    if not rows:
        return elems
    return ragged_stack(rows)


def _shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``tf.shape(rt)``: a ``tf.experimental.DynamicRaggedShape`` (row partitions in ``out_type``)."""
    return DynamicRaggedShape.from_tensor(input, dtype=out_type)


def register():
    """Register the ragged handlers (idempotent through the module import)."""
    dispatch_for_api(_a.shape, RaggedTensor, _shape)
    for api, handler in ((_a.zeros, _drs.zeros), (_a.ones, _drs.ones), (_a.fill, _drs.fill),
                         (_a.reshape, _drs.reshape)):
        dispatch_for_api(api, DynamicRaggedShape, handler)
    for api in _apis(_UNARY):
        dispatch_for_api(api, RaggedTensor, _unary_handler(api))
    for api in _apis(_BINARY):
        dispatch_for_api(api, RaggedTensor, _binary_handler(api))
    for name, kind in _REDUCTIONS.items():
        api = getattr(_r, name)
        dispatch_for_api(api, RaggedTensor, _reduce_handler(api, kind))
    dispatch_for_api(_a.concat, RaggedTensor, _concat)
    dispatch_for_api(_a.tile, RaggedTensor, _tile)
    dispatch_for_api(_a.reverse, RaggedTensor, _reverse)
    dispatch_for_api(_s.join, RaggedTensor, _strings_join)
    dispatch_for_api(_cf.map_fn, RaggedTensor, _map_fn)
    if getattr(_nn.embedding_lookup, "_tf_dispatch_target", None) is not None:
        dispatch_for_api(_nn.embedding_lookup, RaggedTensor, _embedding_lookup)


register()
