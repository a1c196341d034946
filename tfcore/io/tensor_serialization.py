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
from . import protos

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


_SERIALIZE = Op("SerializeTensor", rule=lambda op, inputs, attrs: dtypes.string)
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
