"""``tf.strings``' Unicode kernels: decode with byte offsets, encode, transcode, and bytes split.

Host (CPU) kernels on object arrays of bytes, as in :mod:`tfcore.ops.string_ops`. Ops on ragged data take
and return ``(flat values, row_splits)`` pairs like TF's kernels (``UnicodeEncode``);
:mod:`tfcore.ragged.ragged_string_ops` builds the public functions that accept and return RaggedTensors.
"""

import codecs
import threading

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from .registry import Op, execute
from .string_ops import _object_vector, _string_rule, _strings

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
# input encodings unicode_transcode also reads (TF accepts ICU's names there)
_TRANSCODE_INPUTS = dict(_ENCODINGS, **{"US ASCII": "ascii", "US-ASCII": "ascii", "ISO-8859-1": "latin-1",
                                        "UTF-16-LE": "utf-16-le", "UTF-32-LE": "utf-32-le"})


@add_dispatch_support
def check_encoding(encoding, what, arg, known=_ENCODINGS):
    if encoding not in known:
        raise InvalidArgumentError(None, None, f"{what}: {arg} must be one of {sorted(known)}, got "
                                               f"{encoding!r}")
    return known[encoding]


@add_dispatch_support
def check_errors(errors, what):
    if errors not in ("replace", "strict", "ignore"):
        raise InvalidArgumentError(None, None, f"{what}: errors must be 'replace', 'strict' or 'ignore', got "
                                               f"{errors!r}")
    return errors


# -- decoding with byte offsets -----------------------------------------------------------------------------
_SPANS = threading.local()
_BAD = "\udfff"  # a lone surrogate: never produced by a successful decode


def _record_bad(err):
    _SPANS.spans.append(err.end - err.start)
    return _BAD, err.end


codecs.register_error("tfcore_record_bad", _record_bad)


def _is_control(cp):
    return cp < 0x20 or 0x7F <= cp < 0xA0


@add_dispatch_support
def decode_chars(v, encoding, errors, replacement_char, replace_control):
    """``(code points, byte offsets)`` of one string, with TF's error handling (each invalid byte sequence is
    one ``replacement_char``; ``ignore`` drops it; ``strict`` raises)."""
    _SPANS.spans = []
    text = v.decode(encoding, errors="tfcore_record_bad")
    spans = _SPANS.spans
    cps, offs, pos, k = [], [], 0, 0
    for ch in text:
        if ch == _BAD:
            if errors == "strict":
                raise InvalidArgumentError(None, None, f"Invalid formatting on input string {v!r}: bad {encoding} "
                                                       f"data at byte {pos}")
            if errors == "replace":
                cps.append(replacement_char)
                offs.append(pos)
            pos += spans[k]
            k += 1
            continue
        cp = ord(ch)
        cps.append(replacement_char if replace_control and _is_control(cp) else cp)
        offs.append(pos)
        pos += len(ch.encode(encoding))
    return cps, offs


def _decode_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    return (dtypes.int32, dtypes.int64, dtypes.int64)


_DECODE_OFFSETS = Op("UnicodeDecodeWithOffsets", rule=_decode_rule, multi_output=True)


@_DECODE_OFFSETS.kernel("cpu")
def _decode_offsets(b, x, encoding, errors, replacement_char, replace_control):
    flat = x.reshape(-1)
    pieces = [decode_chars(v, encoding, errors, replacement_char, replace_control) for v in flat]
    splits = np.zeros(len(pieces) + 1, np.int64)
    np.cumsum([len(p[0]) for p in pieces], out=splits[1:])
    cps = np.array([c for p in pieces for c in p[0]], np.int32)
    offs = np.array([o for p in pieces for o in p[1]], np.int64)
    return cps, splits, offs


@add_dispatch_support
def decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                        replace_control_characters=False, what="unicode_decode_with_offsets"):
    """``(input tensor, code points, row_splits, offsets)`` over the flattened strings."""
    enc = check_encoding(input_encoding, what, "input_encoding")
    check_errors(errors, what)
    t = _strings(input, what)
    cps, splits, offs = execute(_DECODE_OFFSETS, (t,), {
        "encoding": enc, "errors": errors, "replacement_char": int(replacement_char),
        "replace_control": bool(replace_control_characters)})
    return t, cps, splits, offs


# -- encoding -----------------------------------------------------------------------------------------------
def _encode_cps(cps, encoding, errors, replacement_char):
    out = []
    for cp in cps:
        cp = int(cp)
        if cp < 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            if errors == "strict":
                raise InvalidArgumentError(None, None, f"UnicodeEncode: invalid code point {cp}")
            if errors == "ignore":
                continue
            cp = replacement_char
        out.append(chr(cp))
    return "".join(out).encode(encoding)


def _encode_rule(op, inputs, attrs):
    values, splits = inputs
    if not values._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"UnicodeEncode: input must hold int32 code points, got "
                                               f"{values._dtype.name}")
    return dtypes.string


_ENCODE = Op("UnicodeEncode", rule=_encode_rule)


@_ENCODE.kernel("cpu")
def _encode(b, values, splits, encoding, errors, replacement_char):
    return _object_vector([_encode_cps(values[splits[i]:splits[i + 1]], encoding, errors, replacement_char)
                           for i in range(len(splits) - 1)])


@add_dispatch_support
def encode_rows(values, splits, output_encoding, errors="replace", replacement_char=65533):
    """One string per row of code points ``values[splits[i]:splits[i + 1]]`` (a 1-D string tensor)."""
    enc = check_encoding(output_encoding, "unicode_encode", "output_encoding")
    check_errors(errors, "unicode_encode")
    return execute(_ENCODE, (convert_to_tensor(values), convert_to_tensor(splits, dtype=dtypes.int64)),
                   {"encoding": enc, "errors": errors, "replacement_char": int(replacement_char)})


_TRANSCODE = Op("UnicodeTranscode", rule=lambda op, inputs, attrs: _string_rule(op, inputs, attrs) or dtypes.string)


@_TRANSCODE.kernel("cpu")
def _transcode(b, x, src, dst, errors, replacement_char, replace_control):
    out = np.empty(x.shape, object)
    fo, fi = out.reshape(-1), x.reshape(-1)
    for i, v in enumerate(fi):
        cps, _ = decode_chars(v, src, errors, replacement_char, replace_control)
        fo[i] = _encode_cps(cps, dst, errors, replacement_char)
    return out


@add_dispatch_support
def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """``tf.strings.unicode_transcode``: each string re-encoded from ``input_encoding`` to ``output_encoding``."""
    src = check_encoding(input_encoding, "unicode_transcode", "input_encoding", _TRANSCODE_INPUTS)
    dst = check_encoding(output_encoding, "unicode_transcode", "output_encoding")
    check_errors(errors, "unicode_transcode")
    return execute(_TRANSCODE, (_strings(input, "unicode_transcode"),), {
        "src": src, "dst": dst, "errors": errors, "replacement_char": int(replacement_char),
        "replace_control": bool(replace_control_characters)})


# -- bytes split ---------------------------------------------------------------------------------------------
def _split_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    return (dtypes.string, dtypes.int64)


_BYTES_SPLIT = Op("StringBytesSplit", rule=_split_rule, multi_output=True)


@_BYTES_SPLIT.kernel("cpu")
def _bytes_split(b, x):
    flat = x.reshape(-1)
    splits = np.zeros(len(flat) + 1, np.int64)
    np.cumsum([len(v) for v in flat], out=splits[1:])
    return _object_vector([v[i:i + 1] for v in flat for i in range(len(v))]), splits


@add_dispatch_support
def bytes_split_parts(input):  # noqa: A002
    t = _strings(input, "bytes_split")
    values, splits = execute(_BYTES_SPLIT, (t,))
    return t, values, splits
