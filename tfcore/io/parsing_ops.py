"""Parsing serialized ``tf.train.Example`` protos: feature specs and ``tf.io.parse_example``.

``parse_example`` runs one registered op, ``ParseExampleV2``, on a host string tensor of
serialized Examples; its outputs are the dense tensors (``FixedLenFeature``,
``FixedLenSequenceFeature``) and the indices/values/shape triples of ``VarLenFeature``s, which
become ``tf.sparse.SparseTensor``s. Semantics and error messages follow TF's op.
"""

import collections

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops.registry import Op, execute
from . import protos

_ALLOWED = (dtypes.float32, dtypes.int64, dtypes.string)
_KIND_OF = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_TYPE_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _check_dtype(dtype, what):
    dt = dtypes.as_dtype(dtype)
    if dt not in _ALLOWED:
        raise ValueError(f"{what}: unsupported dtype {dt.name}; Example features are float32, int64 or string")
    return dt


def _shape_list(shape, what):
    s = TensorShape(shape)
    if s.rank is None or any(d is None for d in s.as_list()):
        raise ValueError(f"{what}: shape must be fully defined, got {s}")
    return tuple(s.as_list())


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """``tf.io.FixedLenFeature(shape, dtype, default_value=None)``: a feature with a fixed number of values."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """``tf.io.VarLenFeature(dtype)``: any number of values, parsed into a ``SparseTensor``."""


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """``tf.io.FixedLenSequenceFeature(shape, dtype, allow_missing=False, default_value=None)``.

    In ``parse_example`` the values form ``[rows] + shape``; a batch is padded to the longest
    example with ``default_value`` (0 or b'' when None).
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _default_array(value, shape, dt, key):
    if value is None:
        return None
    np_dt = object if dt is dtypes.string else dt.as_numpy_dtype
    arr = np.asarray(convert_to_tensor(value, dtype=dt).numpy(), dtype=np_dt)
    n = int(np.prod(shape, dtype=np.int64))
    if arr.size == n:
        return arr.reshape(shape)
    if arr.size == 1:
        return np.full(shape, arr.reshape(()).item(), dtype=np_dt)
    raise ValueError(f"default_value of feature {key!r} has {arr.size} values; its shape {list(shape)} needs {n}")


def _specs(features):
    """Validated ``(key, kind, dtype, shape, default)`` tuples, sorted by key (TF's output order)."""
    if not isinstance(features, dict) or not features:
        raise ValueError("features must be a non-empty dict of feature name -> FixedLenFeature / VarLenFeature / "
                         f"FixedLenSequenceFeature, got {features!r}")
    out = []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, FixedLenFeature):
            dt = _check_dtype(f.dtype, f"FixedLenFeature {key!r}")
            shape = _shape_list(f.shape, f"FixedLenFeature {key!r}")
            out.append((key, "fixed", dt, shape, _default_array(f.default_value, shape, dt, key)))
        elif isinstance(f, VarLenFeature):
            out.append((key, "var", _check_dtype(f.dtype, f"VarLenFeature {key!r}"), None, None))
        elif isinstance(f, FixedLenSequenceFeature):
            dt = _check_dtype(f.dtype, f"FixedLenSequenceFeature {key!r}")
            if not f.allow_missing:
                raise ValueError(f"Unsupported: FixedLenSequenceFeature requires allow_missing to be True "
                                 f"(feature {key!r}).")
            shape = _shape_list(f.shape, f"FixedLenSequenceFeature {key!r}")
            default = None if f.default_value is None else _default_array(f.default_value, (), dt, key)
            out.append((key, "seq", dt, shape, default))
        else:
            raise ValueError(f"Unsupported feature type for {key!r}: {type(f).__name__} (expected FixedLenFeature, "
                             "VarLenFeature or FixedLenSequenceFeature)")
    return tuple(out)


def _values(feature_map, key, dt, name, index):
    """The values of ``key`` in one Example as a list (None when absent), type-checked."""
    if key not in feature_map:
        return None
    f = feature_map[key]
    kind = f.WhichOneof("kind")
    if kind is None:
        return []
    want = _KIND_OF[dt]
    if kind != want:
        raise InvalidArgumentError(
            None, None, f"Name: {name}, Key: {key}, Index: {index}.  Data types don't match. "
                        f"Data type: {_TYPE_NAME[kind]} but expected type: {_TYPE_NAME[want]}")
    return getattr(f, kind).value


def _np_dtype(dt):
    return object if dt is dtypes.string else dt.as_numpy_dtype


def _parse_kernel(b, serialized, specs, names):
    example_cls = protos.message_class("Example")
    flat = serialized.reshape(-1)
    n = flat.shape[0]
    batch_shape = serialized.shape
    examples = []
    for i in range(n):
        try:
            examples.append(example_cls.FromString(flat[i]).features.feature)
        except Exception as e:  # protobuf's DecodeError
            raise InvalidArgumentError(None, None, f"Could not parse example input, value: '{flat[i]!r:.100}'") from e
    outputs = []
    for key, kind, dt, shape, default in specs:
        np_dt = _np_dtype(dt)
        if kind == "fixed":
            size = int(np.prod(shape, dtype=np.int64))
            out = np.empty((n, size), dtype=np_dt)
            for i, fm in enumerate(examples):
                name = names[i] if names is not None else "<unknown>"
                vals = _values(fm, key, dt, name, i)
                if vals is None:
                    if default is None:
                        raise InvalidArgumentError(
                            None, None, f"Name: {name}, Feature: {key} (data type: {dt.name}) is required but "
                                        "could not be found.")
                    out[i] = default.reshape(-1)
                    continue
                if len(vals) != size:
                    raise InvalidArgumentError(
                        None, None, f"Name: {name}, Key: {key}, Index: {i}.  Number of {_TYPE_NAME[_KIND_OF[dt]]} "
                                    f"values != expected.  Values size: {len(vals)} but output shape: {list(shape)}")
                out[i] = vals
            outputs.append(out.reshape(batch_shape + shape))
        elif kind == "var":
            rows = []
            for i, fm in enumerate(examples):
                vals = _values(fm, key, dt, names[i] if names is not None else "<unknown>", i)
                rows.append(vals if vals is not None else ())
            lengths = np.fromiter(map(len, rows), dtype=np.int64, count=n)
            total = int(lengths.sum())
            values = np.empty(total, dtype=np_dt)
            pos = 0
            for vals in rows:
                if len(vals):
                    values[pos:pos + len(vals)] = vals
                    pos += len(vals)
            batch_idx = np.repeat(np.arange(n, dtype=np.int64), lengths)
            within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            width = int(lengths.max()) if n else 0
            if len(batch_shape) == 0:
                indices = within[:, None]
                dense_shape = np.array([width], dtype=np.int64)
            else:
                indices = np.stack([batch_idx, within], axis=1)
                dense_shape = np.array([n, width], dtype=np.int64)
            outputs.extend((indices.reshape(-1, indices.shape[1]), values, dense_shape))
        else:  # FixedLenSequenceFeature
            row = int(np.prod(shape, dtype=np.int64))
            per = []
            for i, fm in enumerate(examples):
                name = names[i] if names is not None else "<unknown>"
                vals = _values(fm, key, dt, name, i)
                vals = () if vals is None else vals
                if (row == 0 and len(vals)) or (row and len(vals) % row):
                    raise InvalidArgumentError(
                        None, None, f"Name: {name}, Key: {key}, Index: {i}.  Number of values is not a multiple "
                                    f"of stride length. Saw {len(vals)} values but output shape is: "
                                    f"{[-1] + list(shape)}")
                per.append(vals)
            counts = [len(v) // row if row else 0 for v in per]
            width = max(counts, default=0)
            fill = default.item() if default is not None else (b"" if dt is dtypes.string else 0)
            out = np.full((n, width * row), fill, dtype=np_dt)
            for i, vals in enumerate(per):
                if len(vals):
                    out[i, :len(vals)] = vals
            outputs.append(out.reshape(batch_shape + (width,) + shape))
    return tuple(outputs)


def _parse_rule(op, inputs, attrs):
    s = inputs[0]
    if s._dtype is not dtypes.string:
        raise InvalidArgumentError(None, None, f"ParseExampleV2: serialized must be a string tensor, got "
                                               f"{s._dtype.name}")
    if s._array.ndim > 1:
        raise InvalidArgumentError(None, None, f"ParseExampleV2: serialized must be a scalar or a vector, got shape "
                                               f"{list(s._array.shape)}")
    out = []
    for _key, kind, dt, _shape, _default in attrs["specs"]:
        out.extend((dtypes.int64, dt, dtypes.int64) if kind == "var" else (dt,))
    return tuple(out)


_PARSE = Op("ParseExampleV2", rule=_parse_rule, multi_output=True)
_PARSE.kernel("cpu")(lambda b, serialized, specs, names: _parse_kernel(b, serialized, specs, names))


def _names(example_names, n):
    if example_names is None:
        return None
    names = [x.decode() if isinstance(x, bytes) else str(x)
             for x in np.asarray(convert_to_tensor(example_names, dtype=dtypes.string).numpy(), object).reshape(-1)]
    if len(names) != n:
        raise InvalidArgumentError(None, None, f"ParseExampleV2: example_names has {len(names)} names for {n} "
                                               "serialized examples")
    return tuple(names)


def _parse(serialized, features, example_names):
    specs = _specs(features)
    s = convert_to_tensor(serialized, dtype=dtypes.string)
    names = _names(example_names, int(np.prod(s._array.shape)))
    flat = execute(_PARSE, (s,), {"specs": specs, "names": names})
    result, i = {}, 0
    for key, kind, *_ in specs:
        if kind == "var":
            result[key] = SparseTensor(flat[i], flat[i + 1], flat[i + 2])
            i += 3
        else:
            result[key] = flat[i]
            i += 1
    return result


def parse_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_example``: parse a batch (vector) of serialized Examples into a dict of tensors.

    FixedLenFeature -> ``[batch] + shape``; VarLenFeature -> SparseTensor ``[batch, max_len]``;
    FixedLenSequenceFeature -> ``[batch, max_rows] + shape`` padded with its default_value.
    """
    return _parse(serialized, features, example_names)


def parse_single_example(serialized, features, example_names=None, name=None):
    """``tf.io.parse_single_example``: parse one serialized Example (a scalar string)."""
    s = convert_to_tensor(serialized, dtype=dtypes.string)
    if s._array.ndim != 0:
        raise ValueError(f"parse_single_example: serialized must be a scalar, got shape {list(s._array.shape)}")
    return _parse(s, features, example_names)
