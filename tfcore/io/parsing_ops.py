"""Parsing serialized ``tf.train.Example`` protos: feature specs and ``tf.io.parse_example``.

``parse_example`` runs one registered op, ``ParseExampleV2``, on a host string tensor of
serialized Examples; its outputs are the dense tensors (``FixedLenFeature``,
``FixedLenSequenceFeature``) and the indices/values/shape triples of ``VarLenFeature``s, which
become ``tf.sparse.SparseTensor``s. Semantics and error messages follow TF's op.
"""

import collections
import math

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..ops.registry import Op, execute
from ..ragged.ragged_tensor import RaggedTensor
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


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """``tf.io.RaggedFeature(dtype, value_key=None, partitions=(), row_splits_dtype=tf.int32, validate=False)``:
    any number of values per Example, parsed into a ``tf.RaggedTensor`` ``[batch, None]`` (a 1-D tensor for
    ``parse_single_example``). tfcore reads the values from the feature named ``value_key`` (default: the
    dict key); row ``partitions`` beyond the batch are not supported."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        if partitions:
            raise ValueError("RaggedFeature: partitions are not supported by tfcore; parse the values and build "
                             "the RaggedTensor with tf.RaggedTensor.from_row_lengths")
        return super().__new__(cls, dtypes.as_dtype(dtype), value_key, tuple(partitions),
                               dtypes.as_dtype(row_splits_dtype), validate)


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
    n = math.prod(shape)
    if arr.size == n:
        return arr.reshape(shape)
    if arr.size == 1:
        return np.full(shape, arr.reshape(()).item(), dtype=np_dt)
    raise ValueError(f"default_value of feature {key!r} has {arr.size} values; its shape {list(shape)} needs {n}")


_SPEC_CACHE = {}


def _freeze(x):
    if isinstance(x, list | tuple):
        return tuple(_freeze(v) for v in x)
    if isinstance(x, TensorShape):
        return ("shape", tuple(x.as_list()) if x.rank is not None else None)
    hash(x)
    return x


def _specs(features):
    """Validated ``(key, kind, dtype, shape, default)`` tuples, sorted by key (TF's output order).

    Memoized on the spec's value (the same ``features`` dict is passed for every record in a
    ``map``); specs with unhashable parts (NumPy defaults) are validated each time.
    """
    try:
        key = tuple((k, type(f), _freeze(tuple(f))) for k, f in sorted(features.items()))
    except (TypeError, AttributeError):
        return _build_specs(features)
    specs = _SPEC_CACHE.get(key)
    if specs is None:
        specs = _build_specs(features)
        if len(_SPEC_CACHE) > 256:
            _SPEC_CACHE.clear()
        _SPEC_CACHE[key] = specs
    return specs


def _build_specs(features):
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
        elif isinstance(f, RaggedFeature):
            if f.value_key not in (None, key):
                raise ValueError(f"RaggedFeature {key!r}: a value_key other than the feature's key "
                                 f"({f.value_key!r}) is not supported by tfcore")
            out.append((key, "ragged", _check_dtype(f.dtype, f"RaggedFeature {key!r}"), None, None))
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


def _np_dtype(dt):
    return object if dt is dtypes.string else dt.as_numpy_dtype


def _mismatch(name, key, index, kind, want):
    return InvalidArgumentError(
        None, None, f"Name: {name}, Key: {key}, Index: {index}.  Data types don't match. "
                    f"Data type: {_TYPE_NAME[kind]} but expected type: {_TYPE_NAME[want]}")


def _gather(examples, key, want, names):
    """Per example: the values of ``key`` (a protobuf repeated field or list), or None when absent."""
    out = []
    append = out.append
    for i, fm in enumerate(examples):
        f = fm.get(key)
        if f is None:
            append(None)
            continue
        vals = getattr(f, want).value  # empty when the feature holds another kind: checked below
        if vals:
            append(vals)
            continue
        kind = f.WhichOneof("kind")
        if kind is None or kind == want:
            append(())
        else:
            raise _mismatch(names[i] if names is not None else "<unknown>", key, i, kind, want)
    return out


def _array(buf, np_dt):
    if np_dt is object:
        arr = np.empty(len(buf), dtype=object)
        arr[:] = buf
        return arr
    return np.array(buf, dtype=np_dt)


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
    return _parse_features(examples, specs, names, batch_shape)


def _parse_features(examples, specs, names, batch_shape):
    """The output arrays of ``specs`` over ``examples`` (one feature map per example)."""
    n = len(examples)
    outputs = []
    for key, kind, dt, shape, default in specs:
        np_dt = _np_dtype(dt)
        want = _KIND_OF[dt]
        per = _gather(examples, key, want, names)
        buf = []
        extend = buf.extend
        if kind == "fixed":
            size = math.prod(shape)
            fill = default.reshape(-1).tolist() if default is not None else None
            for i, vals in enumerate(per):
                if vals is None:
                    if fill is None:
                        raise InvalidArgumentError(
                            None, None, f"Name: {names[i] if names is not None else '<unknown>'}, Feature: {key} "
                                        f"(data type: {dt.name}) is required but could not be found.")
                    extend(fill)
                elif len(vals) != size:
                    raise InvalidArgumentError(
                        None, None, f"Name: {names[i] if names is not None else '<unknown>'}, Key: {key}, Index: "
                                    f"{i}.  Number of {_TYPE_NAME[want]} values != expected.  Values size: "
                                    f"{len(vals)} but output shape: {list(shape)}")
                else:
                    extend(vals)
            outputs.append(_array(buf, np_dt).reshape(batch_shape + shape))
        elif kind in ("var", "ragged"):
            lengths = np.zeros(n, dtype=np.int64)
            for i, vals in enumerate(per):
                if vals:
                    lengths[i] = len(vals)
                    extend(vals)
            values = _array(buf, np_dt)
            total = values.shape[0]
            within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            width = int(lengths.max()) if n else 0
            if len(batch_shape) == 0:
                indices = within[:, None]
                dense_shape = np.array([width], dtype=np.int64)
            else:
                indices = np.stack([np.repeat(np.arange(n, dtype=np.int64), lengths), within], axis=1)
                dense_shape = np.array([n, width], dtype=np.int64)
            outputs.extend((indices, values, dense_shape))
        else:  # FixedLenSequenceFeature
            row = math.prod(shape)
            counts = []
            for i, vals in enumerate(per):
                m = len(vals) if vals is not None else 0
                if (row == 0 and m) or (row and m % row):
                    raise InvalidArgumentError(
                        None, None, f"Name: {names[i] if names is not None else '<unknown>'}, Key: {key}, Index: {i}."
                                    f"  Number of values is not a multiple of stride length. Saw {m} values but "
                                    f"output shape is: {[-1] + list(shape)}")
                counts.append(m // row if row else 0)
            width = max(counts, default=0)
            fill = default.item() if default is not None else (b"" if dt is dtypes.string else 0)
            out = np.full((n, width * row), fill, dtype=np_dt)
            for i, vals in enumerate(per):
                if counts[i]:
                    out[i, :len(vals)] = _array(list(vals), np_dt)
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
        out.extend((dtypes.int64, dt, dtypes.int64) if kind in ("var", "ragged") else (dt,))
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
        elif kind == "ragged":
            sparse = SparseTensor(flat[i], flat[i + 1], flat[i + 2])
            if sparse.dense_shape.shape[0] == 1:  # one Example: its values
                result[key] = sparse.values
            else:
                splits_dtype = features[key].row_splits_dtype
                result[key] = RaggedTensor.from_sparse(sparse).with_row_splits_dtype(splits_dtype)
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


# -- SequenceExample ----------------------------------------------------------------------
def _sequence_specs(features):
    out = []
    for key in sorted(features or {}):
        f = features[key]
        if isinstance(f, FixedLenSequenceFeature):
            dt = _check_dtype(f.dtype, f"FixedLenSequenceFeature {key!r}")
            out.append((key, "seq", dt, _shape_list(f.shape, f"FixedLenSequenceFeature {key!r}"),
                        bool(f.allow_missing)))
        elif isinstance(f, VarLenFeature):
            out.append((key, "var", _check_dtype(f.dtype, f"VarLenFeature {key!r}"), None, True))
        else:
            raise ValueError(f"Unsupported sequence feature type for {key!r}: {type(f).__name__} (expected "
                             "FixedLenSequenceFeature or VarLenFeature)")
    return tuple(out)


def _sequence_kernel(b, serialized, context_specs, sequence_specs, name):
    seq_cls = protos.message_class("SequenceExample")
    data = serialized.reshape(()).item()
    try:
        seq = seq_cls.FromString(data)
    except Exception as e:  # protobuf's DecodeError
        raise InvalidArgumentError(None, None, f"Could not parse example input, value: '{data!r:.100}'") from e
    outputs = list(_parse_features([seq.context.feature], context_specs, (name,), ()))
    lists = seq.feature_lists.feature_list
    for key, kind, dt, shape, allow_missing in sequence_specs:
        want = _KIND_OF[dt]
        np_dt = _np_dtype(dt)
        fl = lists.get(key)
        steps = [] if fl is None else _gather([{key: f} for f in fl.feature], key, want, None)
        if kind == "seq":
            if fl is None and not allow_missing:
                raise InvalidArgumentError(None, None, f"Name: {name}, Feature list '{key}' is required but could "
                                                       "not be found.")
            size = math.prod(shape)
            buf = []
            for t, vals in enumerate(steps):
                if len(vals) != size:
                    raise InvalidArgumentError(
                        None, None, f"Name: {name}, Key: {key}, Index: {t}.  Number of {_TYPE_NAME[want]} values != "
                                    f"expected.  values size: {len(vals)} but output shape: {list(shape)}")
                buf.extend(vals)
            outputs.append(_array(buf, np_dt).reshape((len(steps),) + shape))
        else:
            outputs.extend(_parse_features([{key: f} for f in fl.feature] if fl is not None else [],
                                           ((key, "var", dt, None, None),), None, (len(steps),)))
    return tuple(outputs)


def _sequence_rule(op, inputs, attrs):
    s = inputs[0]
    if s._dtype is not dtypes.string or s._array.ndim != 0:
        raise InvalidArgumentError(None, None, f"ParseSingleSequenceExample: serialized must be a scalar string, "
                                               f"got {s._dtype.name}{list(s._array.shape)}")
    out = []
    for specs in (attrs["context_specs"], attrs["sequence_specs"]):
        for _key, kind, dt, *_ in specs:
            out.extend((dtypes.int64, dt, dtypes.int64) if kind == "var" else (dt,))
    return tuple(out)


_PARSE_SEQUENCE = Op("ParseSingleSequenceExample", rule=_sequence_rule, multi_output=True)
_PARSE_SEQUENCE.kernel("cpu")(_sequence_kernel)


def _unflatten(flat, specs, i):
    result = {}
    for key, kind, *_ in specs:
        if kind == "var":
            result[key] = SparseTensor(flat[i], flat[i + 1], flat[i + 2])
            i += 3
        else:
            result[key] = flat[i]
            i += 1
    return result, i


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """``tf.io.parse_single_sequence_example``: ``(context, feature_lists)`` dicts of one SequenceExample.

    Context features are FixedLenFeature / VarLenFeature as in ``parse_single_example``; sequence
    features are FixedLenSequenceFeature (``[steps] + shape``) or VarLenFeature (SparseTensor
    ``[steps, max_len]``).
    """
    if not context_features and not sequence_features:
        raise ValueError("Missing features: context_features and sequence_features are both empty")
    context_specs = _specs(context_features) if context_features else ()
    if any(kind == "seq" for _, kind, *_ in context_specs):
        raise ValueError("context_features must be FixedLenFeature or VarLenFeature")
    sequence_specs = _sequence_specs(sequence_features)
    s = convert_to_tensor(serialized, dtype=dtypes.string)
    ex_name = "<unknown>" if example_name is None else str(example_name)
    flat = execute(_PARSE_SEQUENCE, (s,), {"context_specs": context_specs, "sequence_specs": sequence_specs,
                                           "name": ex_name})
    context, i = _unflatten(flat, context_specs, 0)
    lists, _ = _unflatten(flat, sequence_specs, i)
    return context, lists
