"""``tf.io`` codecs: web-safe base64, ZLIB/GZIP decompression, CSV records, JPEG headers, BMP/GIF decoding,
and SparseTensor serialization (``serialize_sparse`` / ``serialize_many_sparse`` / ``deserialize_many_sparse``).

Every codec is a registered host op on string tensors, with TF's semantics and error messages.
"""

import base64
import binascii
import gzip
import zlib

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.sparse_tensor import SparseTensor, check_sparse
from ..framework.tensor_conversion import convert_to_tensor
from ..ops.registry import Op, execute
from . import image_codecs, protos
from .tensor_serialization import array_from_tensor_proto, tensor_proto_from_array


def _string_input(op, t, scalar=False):
    if t._dtype is not dtypes.string or (scalar and t._array.ndim != 0):
        raise InvalidArgumentError(None, None, f"{op.name}: input must be a {'scalar ' if scalar else ''}string "
                                               f"tensor, got {t._dtype.name}{list(t._array.shape)}")


def _map_bytes(fn, arr):
    out = np.empty(arr.shape, object)
    fo = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        fo[i] = fn(v)
    return out


# -- base64 ---------------------------------------------------------------------------------------------------
def _b64_rule(op, inputs, attrs):
    _string_input(op, inputs[0])
    return dtypes.string


_ENCODE_B64 = Op("EncodeBase64", rule=_b64_rule)
_ENCODE_B64.kernel("cpu")(lambda b, x, pad: _map_bytes(
    lambda v: base64.urlsafe_b64encode(v) if pad else base64.urlsafe_b64encode(v).rstrip(b"="), x))


def _decode_b64_one(v):
    body = v.rstrip(b"=")
    if len(v) - len(body) > 2 or len(body) % 4 == 1 or \
            any(c not in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in body):
        raise InvalidArgumentError(None, None, f"DecodeBase64: Invalid character found in base64 (or bad length): "
                                               f"{v[:32]!r}")
    try:
        return base64.urlsafe_b64decode(body + b"=" * (-len(body) % 4))
    except binascii.Error as e:
        raise InvalidArgumentError(None, None, f"DecodeBase64: invalid base64 data: {e}") from None


_DECODE_B64 = Op("DecodeBase64", rule=_b64_rule)
_DECODE_B64.kernel("cpu")(lambda b, x: _map_bytes(_decode_b64_one, x))


def encode_base64(input, pad=False, name=None):  # noqa: A002 - TF's argument name
    """``tf.io.encode_base64``: web-safe base64 (``-`` and ``_``), without ``=`` padding unless ``pad``."""
    return execute(_ENCODE_B64, (convert_to_tensor(input, dtype=dtypes.string),), {"pad": bool(pad)})


def decode_base64(input, name=None):  # noqa: A002
    """``tf.io.decode_base64``: decode web-safe base64, with or without padding."""
    return execute(_DECODE_B64, (convert_to_tensor(input, dtype=dtypes.string),))


# -- decompression -------------------------------------------------------------------------------------------
def _decompress_one(v, kind):
    try:
        if kind == "ZLIB":
            return zlib.decompress(v)
        if kind == "GZIP":
            return gzip.decompress(v)
    except (zlib.error, OSError, EOFError) as e:
        raise InvalidArgumentError(None, None, f"DecodeCompressed: invalid {kind} data: {e}") from None
    return v


_DECOMPRESS = Op("DecodeCompressed", rule=_b64_rule)
_DECOMPRESS.kernel("cpu")(lambda b, x, kind: _map_bytes(lambda v: _decompress_one(v, kind), x))


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002 - TF's argument name
    """``tf.io.decode_compressed``: ZLIB- or GZIP-decompress each string (``''``: unchanged)."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise InvalidArgumentError(None, None, f"DecodeCompressed: compression_type must be '', 'ZLIB' or 'GZIP', "
                                               f"got {compression_type!r}")
    return execute(_DECOMPRESS, (convert_to_tensor(bytes, dtype=dtypes.string),), {"kind": compression_type})


# -- CSV -----------------------------------------------------------------------------------------------------
def _split_record(rec, delim, quoted, i):
    if not quoted:
        return rec.split(delim)
    fields, cur, j, n = [], bytearray(), 0, len(rec)
    while True:
        cur = bytearray()
        if j < n and rec[j:j + 1] == b'"':
            j += 1
            while True:
                if j >= n:
                    raise InvalidArgumentError(None, None, f"DecodeCSV: Quoted field has to end with quote followed "
                                                           f"by delim or end, in record {i}")
                c = rec[j:j + 1]
                if c == b'"':
                    if rec[j + 1:j + 2] == b'"':
                        cur += b'"'
                        j += 2
                        continue
                    j += 1
                    break
                cur += c
                j += 1
            if j < n and rec[j:j + 1] != delim:
                raise InvalidArgumentError(None, None, f"DecodeCSV: Quoted field has to end with quote followed by "
                                                       f"delim or end, in record {i}")
        else:
            k = rec.find(delim, j)
            k = n if k < 0 else k
            field = rec[j:k]
            if b'"' in field:
                raise InvalidArgumentError(None, None, f"DecodeCSV: Unquoted fields cannot have quotes inside, in "
                                                       f"record {i}")
            cur += field
            j = k
        fields.append(bytes(cur))
        if j >= n:
            return fields
        j += 1  # the delimiter
        if j == n:
            fields.append(b"")
            return fields


_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _parse_field(v, dt, col, rec):
    if dt is dtypes.string:
        return v
    text = v.decode("utf-8", "replace").strip()
    try:
        if dt.is_integer:
            val = int(text, 10)
            info = np.iinfo(dt.as_numpy_dtype)
            if not info.min <= val <= info.max:
                raise ValueError
            return val
        return float(text)
    except ValueError:
        kind = {"float32": "float", "float64": "double"}.get(dt.name, dt.name)
        raise InvalidArgumentError(None, None, f"Field {col} in record {rec} is not a valid {kind}: "
                                               f"{v.decode('utf-8', 'replace')}") from None


def _csv_rule(op, inputs, attrs):
    _string_input(op, inputs[0])
    return tuple(attrs["types"])


_DECODE_CSV = Op("DecodeCSV", rule=_csv_rule, multi_output=True)


@_DECODE_CSV.kernel("cpu")
def _decode_csv(b, records, *defaults, types, delim, quoted, na_value, select_cols):
    flat = records.reshape(-1)
    outs = [np.empty(len(flat), object if dt is dtypes.string else dt.as_numpy_dtype) for dt in types]
    for i, rec in enumerate(flat):
        fields = _split_record(rec, delim, quoted, i)
        if select_cols is not None:
            if select_cols[-1] >= len(fields):
                raise InvalidArgumentError(None, None, f"DecodeCSV: Expect {select_cols[-1] + 1} fields but have "
                                                       f"{len(fields)} in record {i}")
            fields = [fields[c] for c in select_cols]
        elif len(fields) != len(types):
            raise InvalidArgumentError(None, None, f"DecodeCSV: Expect {len(types)} fields but have {len(fields)} in "
                                                   f"record {i}")
        for c, (v, dt, d) in enumerate(zip(fields, types, defaults)):
            if v == b"" or v == na_value:
                if d.size == 0:
                    raise InvalidArgumentError(None, None, f"DecodeCSV: Field {c} is required but missing in "
                                                           f"record {i}!")
                outs[c][i] = d.reshape(-1)[0]
            else:
                outs[c][i] = _parse_field(v, dt, c, i)
    return tuple(o.reshape(records.shape) for o in outs)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="", select_cols=None,
               name=None):
    """``tf.io.decode_csv``: one tensor per column (the records' shape), typed by ``record_defaults`` (a scalar
    default, or an empty tensor for a required column; float32/float64/int32/int64/string)."""
    recs = convert_to_tensor(records, dtype=dtypes.string)
    if not isinstance(record_defaults, list | tuple) or not record_defaults:
        raise ValueError("decode_csv: record_defaults must be a non-empty list of tensors")
    defaults = []
    for k, d in enumerate(record_defaults):
        t = convert_to_tensor(d) if not (isinstance(d, list | tuple) and len(d) == 0) else \
            convert_to_tensor(np.zeros(0, np.float32))
        if isinstance(d, list | tuple) and len(d) == 1:
            t = convert_to_tensor(d[0])
        if t._dtype not in _CSV_TYPES:
            raise InvalidArgumentError(None, None, f"DecodeCSV: record_defaults[{k}] must be float32, float64, int32, "
                                                   f"int64 or string, got {t._dtype.name}")
        if t._array.size > 1:
            raise InvalidArgumentError(None, None, f"DecodeCSV: record_defaults[{k}] must have at most one element")
        defaults.append(t)
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        raise InvalidArgumentError(None, None, f"DecodeCSV: field_delim must be a single character, got "
                                               f"{field_delim!r}")
    cols = None
    if select_cols is not None:
        cols = tuple(int(c) for c in select_cols)
        if any(c < 0 for c in cols) or list(cols) != sorted(set(cols)):
            raise ValueError("decode_csv: select_cols must be non-negative and strictly increasing")
        if len(cols) != len(defaults):
            raise ValueError(f"decode_csv: Length of select_cols ({len(cols)}) and record_defaults "
                             f"({len(defaults)}) should match")
    na = na_value.encode() if isinstance(na_value, str) else bytes(na_value)
    out = execute(_DECODE_CSV, (recs, *defaults), {
        "types": tuple(t._dtype for t in defaults), "delim": delim, "quoted": bool(use_quote_delim),
        "na_value": na if na else None, "select_cols": cols})
    return list(out)


# -- JPEG headers, BMP, GIF ---------------------------------------------------------------------------------
_IS_JPEG = Op("IsJpeg", rule=lambda op, inputs, attrs: _string_input(op, inputs[0], True) or dtypes.bool)
_IS_JPEG.kernel("cpu")(lambda b, x: np.array(x.reshape(()).item()[:3] == b"\xff\xd8\xff"))


def is_jpeg(contents, name=None):
    """``tf.io.is_jpeg``: whether the scalar string starts with JPEG's signature."""
    return execute(_IS_JPEG, (convert_to_tensor(contents, dtype=dtypes.string),))


def jpeg_shape(data, what="ExtractJpegShape"):
    """``(height, width, components)`` from a JPEG's start-of-frame header."""
    if data[:2] != b"\xff\xd8":
        raise InvalidArgumentError(None, None, f"{what}: Invalid JPEG data or crop window: not a JPEG")
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise InvalidArgumentError(None, None, f"{what}: Invalid JPEG data: bad marker at byte {i}")
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0x01,) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        seg = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            if i + 10 > len(data):
                break
            h = int.from_bytes(data[i + 5:i + 7], "big")
            w = int.from_bytes(data[i + 7:i + 9], "big")
            return h, w, data[i + 9]
        if marker == 0xDA:
            break
        i += 2 + seg
    raise InvalidArgumentError(None, None, f"{what}: Invalid JPEG data or crop window: no frame header")


def _jpeg_shape_rule(op, inputs, attrs):
    _string_input(op, inputs[0], True)
    return attrs["output_type"]


_EXTRACT_JPEG_SHAPE = Op("ExtractJpegShape", rule=_jpeg_shape_rule, output_arg="image_shape")
_EXTRACT_JPEG_SHAPE.kernel("cpu")(lambda b, x, output_type: np.array(
    jpeg_shape(x.reshape(()).item()), output_type.as_numpy_dtype))


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """``tf.io.extract_jpeg_shape``: ``[height, width, channels]`` of a JPEG, read from its header only."""
    dt = dtypes.as_dtype(output_type)
    if dt not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"extract_jpeg_shape: output_type must be int32 or int64, got {dt.name}")
    return execute(_EXTRACT_JPEG_SHAPE, (convert_to_tensor(contents, dtype=dtypes.string),), {"output_type": dt})


def _decode_image_rule(op, inputs, attrs):
    _string_input(op, inputs[0], True)
    if attrs["channels"] not in (0, 1, 3, 4):
        raise InvalidArgumentError(None, None, f"{op.name}: channels must be 0, 1, 3 or 4, got {attrs['channels']}")
    return dtypes.uint8


_DECODE_BMP = Op("DecodeBmp", rule=_decode_image_rule, output_arg="image")
_DECODE_BMP.kernel("cpu")(lambda b, x, channels: image_codecs.decode_array(
    x.reshape(()).item(), channels, dtypes.uint8, "DecodeBmp", ("bmp",)))
_DECODE_GIF = Op("DecodeGif", rule=_decode_image_rule, output_arg="image")
_DECODE_GIF.kernel("cpu")(lambda b, x, channels: image_codecs.decode_array(
    x.reshape(()).item(), 3, dtypes.uint8, "DecodeGif", ("gif",)))


def decode_bmp(contents, channels=0, name=None):
    """``tf.io.decode_bmp``: a ``[h, w, c]`` uint8 image (needs Pillow: ``tfcore[images]``)."""
    return execute(_DECODE_BMP, (convert_to_tensor(contents, dtype=dtypes.string),), {"channels": int(channels)})


def decode_gif(contents, name=None):
    """``tf.io.decode_gif``: every frame, ``[num_frames, h, w, 3]`` uint8 (needs Pillow: ``tfcore[images]``)."""
    return execute(_DECODE_GIF, (convert_to_tensor(contents, dtype=dtypes.string),), {"channels": 3})


# -- SparseTensor serialization --------------------------------------------------------------------------------
def _proto_bytes(arr, dt):
    return tensor_proto_from_array(np.asarray(arr), dt).SerializeToString()


def _serialize_sparse_rule(op, inputs, attrs):
    ind, vals, shape = inputs
    if ind._array.ndim != 2 or shape._array.ndim != 1 or (op.name == "SerializeManySparse"
                                                           and shape._array.shape[0] < 1):
        raise InvalidArgumentError(None, None, f"{op.name}: sparse_input must be a SparseTensor"
                                               f"{' of rank at least 1' if op.name == 'SerializeManySparse' else ''}")
    return dtypes.string


_SERIALIZE_SPARSE = Op("SerializeSparse", rule=_serialize_sparse_rule, output_arg="serialized_sparse")


@_SERIALIZE_SPARSE.kernel("cpu")
def _serialize_sparse(b, ind, vals, shape, dt):
    out = np.empty(3, object)
    out[:] = [_proto_bytes(ind, dtypes.int64), _proto_bytes(vals, dt), _proto_bytes(shape, dtypes.int64)]
    return out


_SERIALIZE_MANY = Op("SerializeManySparse", rule=_serialize_sparse_rule, output_arg="serialized_sparse")


@_SERIALIZE_MANY.kernel("cpu")
def _serialize_many(b, ind, vals, shape, dt):
    n = int(shape[0])
    rows = ind[:, 0] if len(ind) else np.zeros(0, np.int64)
    if len(rows) and ((rows < 0) | (rows >= n)).any():
        raise InvalidArgumentError(None, None, "SerializeManySparse: an index's first dimension is out of range")
    out = np.empty((n, 3), object)
    for i in range(n):
        sel = np.nonzero(rows == i)[0]
        out[i] = [_proto_bytes(ind[sel, 1:].astype(np.int64), dtypes.int64), _proto_bytes(vals[sel], dt),
                  _proto_bytes(shape[1:].astype(np.int64), dtypes.int64)]
    return out


def serialize_sparse(sp_input, out_type=dtypes.string, name=None):
    """``tf.io.serialize_sparse``: a string ``[3]`` of serialized TensorProtos (indices, values, dense_shape)."""
    sp = check_sparse(sp_input, "sp_input")
    if dtypes.as_dtype(out_type) is not dtypes.string:
        raise TypeError(f"serialize_sparse: only out_type=tf.string is supported, got {dtypes.as_dtype(out_type)}")
    return execute(_SERIALIZE_SPARSE, (sp.indices, sp.values, sp.dense_shape), {"dt": sp.dtype})


def serialize_many_sparse(sp_input, out_type=dtypes.string, name=None):
    """``tf.io.serialize_many_sparse``: ``[N, 3]`` strings, one serialized SparseTensor per minibatch entry (the
    first dimension), each without that dimension."""
    sp = check_sparse(sp_input, "sp_input")
    if dtypes.as_dtype(out_type) is not dtypes.string:
        raise TypeError(f"serialize_many_sparse: only out_type=tf.string is supported, got "
                        f"{dtypes.as_dtype(out_type)}")
    return execute(_SERIALIZE_MANY, (sp.indices, sp.values, sp.dense_shape), {"dt": sp.dtype})


def _parse_proto(data, what):
    tp = protos.message_class("TensorProto")()
    try:
        tp.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError
        raise InvalidArgumentError(None, None, f"{what}: Could not parse serialized proto") from e
    return array_from_tensor_proto(tp)


def _deserialize_rule(op, inputs, attrs):
    s = inputs[0]
    if s._dtype is not dtypes.string or s._array.ndim != 2 or s._array.shape[1] != 3:
        raise InvalidArgumentError(None, None, f"DeserializeManySparse: serialized_sparse must be a [N, 3] string "
                                               f"tensor, got {s._dtype.name}{list(s._array.shape)}")
    return (dtypes.int64, attrs["dtype"], dtypes.int64)


_DESERIALIZE_MANY = Op("DeserializeManySparse", rule=_deserialize_rule, multi_output=True)


@_DESERIALIZE_MANY.kernel("cpu")
def _deserialize_many(b, serialized, dtype, rank):
    what = "DeserializeManySparse"
    all_ind, all_vals, shapes = [], [], []
    for i, (si, sv, ss) in enumerate(serialized):
        ind, _ = _parse_proto(si, what)
        vals, vdt = _parse_proto(sv, what)
        shape, _ = _parse_proto(ss, what)
        if vdt is not dtype:
            raise InvalidArgumentError(None, None, f"{what}: Requested SparseTensor of type {dtype.name} but "
                                                   f"SparseTensor[{i}].values.dtype() == {vdt.name}")
        if rank is not None and len(shape) + 1 != rank:
            raise InvalidArgumentError(None, None, f"{what}: SparseTensor[{i}] has rank {len(shape)}, expected "
                                                   f"{rank - 1}")
        if shapes and len(shape) != len(shapes[0]):
            raise InvalidArgumentError(None, None, f"{what}: Inconsistent rank across SparseTensors: rank prior to "
                                                   f"SparseTensor[{i}] was: {len(shapes[0])} but rank of "
                                                   f"SparseTensor[{i}] is: {len(shape)}")
        ind = np.asarray(ind, np.int64).reshape(-1, len(shape))
        all_ind.append(np.concatenate([np.full((len(ind), 1), i, np.int64), ind], axis=1))
        all_vals.append(vals.reshape(-1))
        shapes.append(np.asarray(shape, np.int64))
    r = len(shapes[0]) if shapes else ((rank or 1) - 1)
    ind = np.concatenate(all_ind) if all_ind else np.zeros((0, r + 1), np.int64)
    vals = np.concatenate(all_vals) if all_vals else np.zeros(0, object if dtype is dtypes.string else
                                                                dtype.as_numpy_dtype)
    dense = np.concatenate([[len(shapes)], np.max(np.stack(shapes), axis=0) if shapes else np.zeros(r, np.int64)])
    return ind, vals, dense.astype(np.int64)


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """``tf.io.deserialize_many_sparse``: the ``[N, 3]`` serialized SparseTensors as one SparseTensor with a new
    first (batch) dimension; the other dimensions are the largest of the inputs'."""
    dt = dtypes.as_dtype(dtype)
    ind, vals, shape = execute(_DESERIALIZE_MANY, (convert_to_tensor(serialized_sparse, dtype=dtypes.string),),
                               {"dtype": dt, "rank": None if rank is None else int(rank)})
    return SparseTensor(ind, vals, shape)
