"""``tf.io.read_file``, ``write_file``, ``matching_files`` and ``decode_raw`` as registered host ops."""

import glob
import os

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError, NotFoundError
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.variables import Variable
from ..ops.registry import Op, execute


def _scalar_name(t, what):
    if t._dtype is not dtypes.string or t._array.ndim != 0:
        raise InvalidArgumentError(None, None, f"{what}: filename must be a scalar string, got "
                                               f"{t._dtype.name}{list(t._array.shape)}")
    return os.fsdecode(t._array.item())


def _read_rule(op, inputs, attrs):
    _scalar_name(inputs[0], "ReadFile")
    return dtypes.string


_READ = Op("ReadFile", rule=_read_rule, output_arg="contents")


@_READ.kernel("cpu")
def _read(b, filename):
    path = os.fsdecode(filename.item())
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise InvalidArgumentError(None, None, f"ReadFile: {path} is a directory") from None
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def read_file(filename, name=None):
    """``tf.io.read_file``: the whole file as a scalar string tensor."""
    return execute(_READ, (convert_to_tensor(filename, dtype=dtypes.string),))


def _write_rule(op, inputs, attrs):
    _scalar_name(inputs[0], "WriteFile")
    c = inputs[1]
    if c._dtype is not dtypes.string or c._array.ndim != 0:
        raise InvalidArgumentError(None, None, "WriteFile: contents must be a scalar string")
    return dtypes.bool


_WRITE = Op("WriteFile", rule=_write_rule, stateful=True)


@_WRITE.kernel("cpu")
def _write(b, filename, contents):
    path = os.fsdecode(filename.item())
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(contents.item())
    os.replace(tmp, path)
    return np.array(True)


def write_file(filename, contents, name=None):
    """``tf.io.write_file``: write a scalar string to ``filename`` (creating its directory; atomic)."""
    execute(_WRITE, (convert_to_tensor(filename, dtype=dtypes.string),
                     convert_to_tensor(contents, dtype=dtypes.string)))


_MATCH = Op("MatchingFiles", rule=lambda op, inputs, attrs: dtypes.string, output_arg="filenames")


@_MATCH.kernel("cpu")
def _match(b, pattern):
    files = []
    for p in pattern.reshape(-1):
        files.extend(sorted(glob.glob(os.fsdecode(p))))
    out = np.empty(len(files), dtype=object)
    out[:] = [os.fsencode(f) for f in files]
    return out


def matching_files(pattern, name=None):
    """``tf.io.matching_files``: the sorted file names matching a glob pattern (or patterns)."""
    return execute(_MATCH, (convert_to_tensor(pattern, dtype=dtypes.string),))


def _decode_raw_rule(op, inputs, attrs):
    t = inputs[0]
    if t._dtype is not dtypes.string:
        raise InvalidArgumentError(None, None, f"DecodeRaw: input_bytes must be strings, got {t._dtype.name}")
    return attrs["out_type"]


_DECODE_RAW = Op("DecodeRaw", rule=_decode_raw_rule)


@_DECODE_RAW.kernel("cpu")
def _decode_raw(b, x, out_type, little_endian, fixed_length):
    np_dt = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    flat = x.reshape(-1)
    rows = []
    for v in flat:
        if fixed_length is not None:
            v = v[:fixed_length].ljust(fixed_length, b"\0")
        if len(v) % np_dt.itemsize:
            raise ValueError(f"Input to DecodeRaw has length {len(v)} that is not a multiple of "
                             f"{np_dt.itemsize}, the size of {out_type.name}")
        rows.append(np.frombuffer(v, dtype=np_dt).astype(out_type.as_numpy_dtype))
    width = {len(r) for r in rows}
    if len(width) > 1:
        raise ValueError(f"DecodeRaw requires input strings to all be the same size, got lengths {sorted(width)}")
    n = width.pop() if width else 0
    return np.stack(rows).reshape(x.shape + (n,)) if rows else np.zeros(x.shape + (0,), out_type.as_numpy_dtype)


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """``tf.io.decode_raw``: reinterpret the bytes of each string as a vector of ``out_type``."""
    dt = dtypes.as_dtype(out_type)
    if dt is dtypes.string or dt is dtypes.bool:
        raise TypeError(f"decode_raw: out_type must be numeric, got {dt.name}")
    return execute(_DECODE_RAW, (convert_to_tensor(input_bytes, dtype=dtypes.string),),
                   {"out_type": dt, "little_endian": bool(little_endian),
                    "fixed_length": None if fixed_length is None else int(fixed_length)})


def match_filenames_once(pattern, name=None):
    """``tf.io.match_filenames_once``: a non-trainable local variable holding the files matching ``pattern``
    when it is called (TF 2 initialises it at once)."""

    return Variable(matching_files(pattern), trainable=False, name=name or "matching_filenames",
                    validate_shape=False)
