"""``tf.io.serialize_tensor`` / ``tf.io.parse_tensor``: a tensor as a serialized TensorProto.

Numeric and bool tensors are stored as little-endian ``tensor_content`` and strings as
``string_val``, byte for byte as TF writes them; parsing also accepts the typed ``*_val``
fields other writers use (a short list is extended with its last value, as TF does).
"""

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ..ops.registry import Op, execute
from . import _deps, protos

_BY_ENUM = {d.as_datatype_enum: d for d in dtypes._ALL if d is not None}
_VAL_FIELD = {"float32": "float_val", "float64": "double_val", "int32": "int_val", "uint8": "int_val",
              "int16": "int_val", "int8": "int_val", "uint16": "int_val", "int64": "int64_val", "bool": "bool_val",
              "uint32": "uint32_val", "uint64": "uint64_val", "complex64": "scomplex_val",
              "complex128": "dcomplex_val", "float16": "half_val", "bfloat16": "half_val"}


_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dt):
    """TF's DataTypeString spelling used in its error messages (``float`` for float32)."""
    return _TF_NAMES.get(dt.name, dt.name)


def tensor_proto_from_array(arr, dt):
    """A TensorProto message for NumPy array ``arr`` of DType ``dt``."""
    tp = protos.message_class("TensorProto")(dtype=dt.as_datatype_enum)
    tp.tensor_shape.SetInParent()  # TF writes the (empty) shape of a scalar too
    for d in arr.shape:
        tp.tensor_shape.dim.add(size=int(d))
    if dt is dtypes.string:
        tp.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1))
    elif arr.size:
        tp.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return tp


def array_from_tensor_proto(tp):
    """``(array, DType)`` from a TensorProto message."""
    dt = _BY_ENUM.get(tp.dtype)
    if dt is None:
        raise InvalidArgumentError(None, None, f"ParseTensor: unsupported TensorProto dtype enum {tp.dtype}")
    shape = tuple(d.size for d in tp.tensor_shape.dim)
    n = int(np.prod(shape, dtype=np.int64))
    if dt is dtypes.string:
        vals = list(tp.string_val)
        arr = np.empty(n, dtype=object)
        if vals:
            arr[:min(n, len(vals))] = vals[:n]
            arr[len(vals):] = vals[-1]
        else:
            arr[:] = b""
        return arr.reshape(shape), dt
    np_dt = np.dtype(dt.as_numpy_dtype).newbyteorder("<")
    if tp.tensor_content:
        if len(tp.tensor_content) != n * np_dt.itemsize:
            raise InvalidArgumentError(None, None, f"ParseTensor: tensor_content has {len(tp.tensor_content)} bytes; "
                                                   f"shape {list(shape)} of {dt.name} needs {n * np_dt.itemsize}")
        return np.frombuffer(tp.tensor_content, dtype=np_dt).astype(dt.as_numpy_dtype).reshape(shape), dt
    vals = list(getattr(tp, _VAL_FIELD[dt.name]))
    if dt.name in ("float16", "bfloat16"):
        vals = np.asarray(vals, dtype=np.uint16).view(dt.as_numpy_dtype)
    elif dt.is_complex:
        vals = np.asarray(vals).reshape(-1, 2) @ np.array([1, 1j]) if vals else []
    vals = np.asarray(vals, dtype=dt.as_numpy_dtype)
    out = np.zeros(n, dtype=dt.as_numpy_dtype)
    if vals.size:
        k = min(n, vals.size)
        out[:k] = vals[:k]
        out[k:] = vals[-1]
    return out.reshape(shape), dt


def _serialize_kernel(b, arr, dt):
    out = np.empty((), dtype=object)
    out[()] = tensor_proto_from_array(np.asarray(arr), dt).SerializeToString()
    return out


_SERIALIZE = Op("SerializeTensor", rule=lambda op, inputs, attrs: dtypes.string, output_arg="serialized")
_SERIALIZE.kernel("cpu")(_serialize_kernel)


def _parse_kernel(b, serialized, out_type):
    tp = protos.message_class("TensorProto")()
    try:
        tp.ParseFromString(serialized.reshape(()).item())
    except Exception as e:  # protobuf's DecodeError
        raise InvalidArgumentError(None, None, "ParseTensor: could not parse `serialized` as TensorProto") from e
    arr, dt = array_from_tensor_proto(tp)
    if dt is not out_type:
        raise InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({tf_type_name(dt)}) and dtype "
                                               f"({tf_type_name(out_type)})")
    return arr


def _parse_rule(op, inputs, attrs):
    s = inputs[0]
    if s._dtype is not dtypes.string or s._array.ndim != 0:
        raise InvalidArgumentError(None, None, f"ParseTensor: serialized must be a scalar string tensor, got "
                                               f"{s._dtype.name}{list(s._array.shape)}")
    return attrs["out_type"]


_PARSE = Op("ParseTensor", rule=_parse_rule)
_PARSE.kernel("cpu")(_parse_kernel)


def serialize_tensor(tensor, name=None):
    """``tf.io.serialize_tensor``: a scalar string holding ``tensor`` as a serialized TensorProto."""
    t = convert_to_tensor(tensor)
    return execute(_SERIALIZE, (t,), {"dt": t._dtype})


def parse_tensor(serialized, out_type, name=None):
    """``tf.io.parse_tensor``: the tensor in a serialized TensorProto; ``out_type`` must match its dtype."""
    return execute(_PARSE, (convert_to_tensor(serialized, dtype=dtypes.string),),
                   {"out_type": dtypes.as_dtype(out_type)})


_CONTENT_TYPES = {"float32", "float64", "int32", "uint8", "int16", "int8", "int64", "uint16", "uint32", "uint64",
                  "float16", "bfloat16", "complex64", "complex128", "bool"}


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """``tf.make_tensor_proto``: a TensorFlow ``TensorProto`` (the class TensorBoard ships, as
    ``tensorboard.compat.proto.tensor_pb2``; needs the 'tensorboard' extra).

    As TF: more than one element of a numeric type goes to ``tensor_content`` (little-endian), a single
    element to the typed ``*_val`` field (which a reader repeats to fill ``shape``), strings to ``string_val``.
    """
    tensor_pb2 = _deps.tensorboard_proto("tensor_pb2")
    t = values if hasattr(values, "_dtype") else convert_to_tensor(values, dtype=dtype)
    dt = t.dtype if dtype is None else dtypes.as_dtype(dtype)
    arr = np.asarray(t.numpy())
    if dt is not t.dtype:
        arr = arr.astype(dt.as_numpy_dtype)
    if shape is None:
        shape = list(arr.shape)
    else:
        shape = [int(d) for d in shape]
        n = int(np.prod(shape, dtype=np.int64))
        if verify_shape and list(arr.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
        if arr.size != n and not (arr.size == 1 or allow_broadcast):
            if arr.size > n:
                raise ValueError(f"Too many elements provided. Takes at most {n:d}, but got {arr.size:d}.")
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
        if arr.size == n:
            arr = arr.reshape(shape)
        elif allow_broadcast and arr.size != 1:
            arr = np.broadcast_to(arr, shape)
    tp = tensor_pb2.TensorProto(dtype=dt.as_datatype_enum)
    tp.tensor_shape.SetInParent()
    for d in shape:
        tp.tensor_shape.dim.add(size=int(d))
    flat = arr.reshape(-1)
    if dt is dtypes.string:
        tp.string_val.extend(x if isinstance(x, bytes) else str(x).encode() for x in flat)
    elif dt.name in _CONTENT_TYPES and flat.size > 1 and flat.size == int(np.prod(shape, dtype=np.int64)):
        tp.tensor_content = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    else:
        field = getattr(tp, _VAL_FIELD[dt.name])
        if dt.name in ("float16", "bfloat16"):
            field.extend(int(v) for v in flat.view(np.uint16))
        elif dt.is_complex:
            field.extend(float(p) for v in flat for p in (v.real, v.imag))
        elif dt.is_bool:
            field.extend(bool(v) for v in flat)
        elif dt.is_floating:
            field.extend(float(v) for v in flat)
        else:
            field.extend(int(v) for v in flat)
    return tp


def make_ndarray(tensor):
    """``tf.make_ndarray``: the NumPy array a ``TensorProto`` holds (any TensorProto class of TF's layout)."""
    if not hasattr(tensor, "SerializeToString") or not hasattr(tensor, "tensor_shape"):
        raise TypeError(f"make_ndarray: expected a TensorProto, got {type(tensor).__name__}")
    tp = protos.message_class("TensorProto").FromString(tensor.SerializeToString())
    arr, dt = array_from_tensor_proto(tp)
    return arr.astype(object) if dt is dtypes.string else arr
