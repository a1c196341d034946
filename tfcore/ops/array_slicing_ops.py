"""Slicing: ``tf.slice``, ``tf.strided_slice`` and ``Tensor.__getitem__`` / ``Variable.__getitem__``
(Python indices, slices, ``...``, ``tf.newaxis``, scalar integer tensors; a boolean key is
``boolean_mask``), all one ``StridedSlice`` op whose gradient scatters into zeros.
"""

import builtins

import numpy as np

from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor, is_tensor
from ..framework.variables import Variable
from ._array_common import _host_ints
from ._common import as_tensor
from .array_gather_scatter_ops import _gather_dense_gradient, boolean_mask
from .array_shape_ops import _TRACING
from .registry import Op, execute

__all__ = ["slice", "strided_slice", "newaxis"]


newaxis = None


def _strided_slice_grad(call, g):
    return [execute(_STRIDED_SLICE_GRAD, (g,), {"shape": call.inputs[0]._array.shape,
                                                   "index": call.attrs["index"]})]


def _strided_slice_grad_grad(call, gg):
    return [execute(_STRIDED_SLICE, (gg,), {"index": call.attrs["index"]})]


def _strided_slice_tf(attrs, input_dtypes):
    """tfcore's index (ints, slices, None, Ellipsis) as TF's StridedSlice: begin, end and strides inputs and
    the five masks, bit ``j`` for index entry ``j`` (as TF's ``_slice_helper`` builds them)."""
    begin, end, strides = [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    for j, k in enumerate(attrs["index"]):
        bit = 1 << j
        if k is Ellipsis or k is None:
            masks["ellipsis_mask" if k is Ellipsis else "new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(k, builtins.slice):
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
            begin.append(k.start or 0), end.append(k.stop or 0), strides.append(k.step or 1)
        else:
            masks["shrink_axis_mask"] |= bit
            begin.append(k), end.append(k + 1), strides.append(1)
    arrays = [np.asarray(v, np.int32).reshape(-1) for v in (begin, end, strides)]
    return [(None, arrays[0], "Index"), (None, arrays[1], None), (None, arrays[2], None)], masks, ["index"]


def _slice_tf(attrs, input_dtypes):
    """tf.slice's index (one slice per dimension) as TF's Slice: begin and size inputs (-1: to the end)."""
    index = attrs["index"]
    begin = [k.start or 0 for k in index]
    size = [-1 if k.stop is None else k.stop - (k.start or 0) for k in index]
    return [(None, np.asarray(begin, np.int32), "Index"), (None, np.asarray(size, np.int32), None)], {}, ["index"]


_STRIDED_SLICE = Op("StridedSlice", grad=_strided_slice_grad, tf_lowering=_strided_slice_tf)
_SLICE = Op("Slice", grad=_strided_slice_grad, tf_lowering=_slice_tf)


_STRIDED_SLICE_GRAD = Op("StridedSliceGrad", grad=_strided_slice_grad_grad)


@_STRIDED_SLICE.kernel()
def _strided_slice(b, x, *, index):
    out = x[index]
    # a full index into a tf.string (object) array yields the Python str/bytes itself: keep it a 0-d array
    return out if hasattr(out, "dtype") else b.xp.asarray(out, dtype=x.dtype)


_SLICE.kernel()(_strided_slice)


@_STRIDED_SLICE_GRAD.kernel()
def _strided_slice_grad_impl(b, g, *, shape, index):
    out = b.xp.zeros(shape, dtype=g.dtype)
    out[index] = g
    return out


_INDEX_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                "tensors are valid indices, got {!r}")


def _index_value(v, key):
    """A slice bound / index as a Python int (scalar integer tensors allowed)."""
    if v is None or type(v) is int:
        return v
    if isinstance(v, np.integer):
        return int(v)
    if is_tensor(v):
        t = as_tensor(v)
        if t._dtype.is_integer and t._array.ndim == 0:
            return int(t.numpy())
    raise TypeError(_INDEX_ERROR.format(key))


def _normalize_index(key):
    """A ``__getitem__`` key -> tuple of ints, slices, None and Ellipsis (TF's allowed index forms)."""
    if type(key) is not tuple:
        key = (key,)
    out = []
    for k in key:
        if k is None or k is Ellipsis or type(k) is int:
            out.append(k)
        elif isinstance(k, builtins.slice):
            step = _index_value(k.step, key)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            out.append(builtins.slice(_index_value(k.start, key), _index_value(k.stop, key), step))
        elif isinstance(k, bool):
            raise TypeError(_INDEX_ERROR.format(key))
        else:
            out.append(_index_value(k, key))
    return tuple(out)


def _check_int_indices(t, index):
    """Out-of-range integer indices raise TF's InvalidArgumentError before the kernel runs."""
    shp = t._array.shape
    n_real = builtins.sum(1 for k in index if k is not None and k is not Ellipsis)
    if n_real > len(shp):
        raise InvalidArgumentError(
            None, None, f"StridedSlice: Index out of range using input dim {len(shp)}; input has only "
            f"{len(shp)} dims ({t.dtype.name}{list(shp)})")
    dim = 0
    for pos, k in enumerate(index):
        if k is Ellipsis:
            dim = len(shp) - builtins.sum(1 for j in index[pos + 1:] if j is not None and j is not Ellipsis)
            continue
        if k is None:
            continue
        if type(k) is int and not -shp[dim] <= k < shp[dim]:
            raise InvalidArgumentError(
                None, None, f"StridedSlice: slice index {k} of dimension {dim} out of bounds "
                f"({t.dtype.name}{list(shp)})")
        dim += 1


def _getitem(self, key):
    t = self if type(self) is Tensor else self.value()
    if (isinstance(key, Tensor) and key._dtype is dtypes.bool) or (isinstance(key, np.ndarray) and key.dtype == bool):
        return boolean_mask(t, key)  # x[x > 0]: TF's _slice_helper gives boolean_mask for a boolean tensor key
    if _TRACING[0] and isinstance(key, Tensor) and key._array.ndim == 0 and key._dtype.is_integer \
            and _tracing.current_graph() is not None and _tracing.current_graph().knows(key):
        # x[i] with i computed in the traced graph: a graph op on i (not i's trace-time value).
        _check_int_indices(t, (int(key._array),))
        return _gather_dense_gradient(t, key, 0)
    index = _normalize_index(key)
    _check_int_indices(t, index)
    return execute(_STRIDED_SLICE, (t,), {"index": index})


Tensor._override_operator("__getitem__", _getitem)


def _install_variable_getitem():
    Variable._override_operator("__getitem__", _getitem)


_install_variable_getitem()


@add_dispatch_support
def slice(input_, begin, size, name=None):  # noqa: A001
    """``tf.slice``: the block starting at ``begin`` of extent ``size`` (-1: to the end)."""
    t = as_tensor(input_)
    shp = t._array.shape
    bg, sz = _host_ints(begin, "Slice", "begin"), _host_ints(size, "Slice", "size")
    if len(bg) != len(shp) or len(sz) != len(shp):
        raise InvalidArgumentError(
            None, None, f"Slice: Expected begin and size arguments to be 1-D tensors of size {len(shp)}, but got "
            f"shapes [{len(bg)}] and [{len(sz)}] instead (input {t.dtype.name}{list(shp)})")
    index = []
    for i, (b0, s0, d) in enumerate(zip(bg, sz, shp)):
        s0 = d - b0 if s0 == -1 else s0
        if not (0 <= b0 <= d and 0 <= s0 <= d - b0):
            raise InvalidArgumentError(
                None, None, f"Slice: Expected size[{i}] in [0, {d - b0}], but got {sz[i]} "
                f"(begin {bg}, input {t.dtype.name}{list(shp)})" if 0 <= b0 <= d else
                f"Slice: Expected begin[{i}] in [0, {d}], but got {b0} (input {t.dtype.name}{list(shp)})")
        index.append(builtins.slice(b0, b0 + s0))
    return execute(_SLICE, (t,), {"index": tuple(index)})


@add_dispatch_support
def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice`` with TF's bit masks, lowered to the same index form as ``t[...]``."""
    t = as_tensor(input_)
    bg, en = _host_ints(begin, "StridedSlice", "begin"), _host_ints(end, "StridedSlice", "end")
    st = [1] * len(bg) if strides is None else _host_ints(strides, "StridedSlice", "strides")
    if not len(bg) == len(en) == len(st):
        raise InvalidArgumentError(None, None, "StridedSlice: begin, end and strides must have the same length")
    index = []
    for i in builtins.range(len(bg)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(bg[i])
        else:
            if st[i] == 0:
                raise InvalidArgumentError(None, None, "StridedSlice: strides[i] must be non-zero")
            index.append(builtins.slice(None if begin_mask & bit else bg[i], None if end_mask & bit else en[i],
                                        st[i]))
    index = tuple(index)
    _check_int_indices(t, index)
    return execute(_STRIDED_SLICE, (t,), {"index": index})
