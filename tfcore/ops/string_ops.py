"""``tf.strings`` ops on host string tensors (object arrays of ``bytes``), with TF's semantics.

Every op is registered (CPU kernels; string tensors live in host memory, so a GPU device scope
falls back to CPU as in TF). Splits and decodes of a vector return a
:class:`~tfcore.framework.ragged_tensor.RaggedTensor` (one ragged dimension), of a scalar a
1-D tensor, as TF does. The kernels on ragged data (``StringNGrams``) take and return ``(flat values,
row_splits)`` pairs like TF's; :mod:`tfcore.ragged.ragged_string_ops` wraps them. Beside them: ``format``
and ``unsorted_segment_join``; Unicode lives in :mod:`tfcore.ops.unicode_ops`, hashing in
:mod:`tfcore.ops.string_hash_ops`.
"""

import re

import numpy as np

from ..framework import dtypes
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from .logging_ops import format_array
from .registry import Op, execute

_WS = b" \t\n\r\x0b\x0c"


def _strings(x, what):
    t = convert_to_tensor(x, dtype=dtypes.string) if not hasattr(x, "_dtype") else x
    if getattr(t, "_dtype", None) is not dtypes.string:
        t = convert_to_tensor(x)
        raise InvalidArgumentError(None, None, f"{what}: expected a string tensor, got {t._dtype.name}")
    return t


def _string_rule(op, inputs, attrs):
    for t in inputs:
        if t._dtype is not dtypes.string:
            raise InvalidArgumentError(None, None, f"{op.name}: expected string tensors, got {t._dtype.name}")
    return None


def _map(fn, arr, otype=object):
    out = np.empty(arr.shape, dtype=otype)
    flat_in, flat_out = arr.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat_in):
        flat_out[i] = fn(v)
    return out


def _unary(name, fn, out_dtype=dtypes.string):
    def rule(op, inputs, attrs):
        _string_rule(op, inputs, attrs)
        return out_dtype

    op = Op(name, rule=rule)
    otype = object if out_dtype is dtypes.string else out_dtype.as_numpy_dtype
    op.kernel("cpu")(lambda b, x, **attrs: _map(lambda v: fn(v, **attrs), x, otype))
    return op


# -- case, strip, length --------------------------------------------------------------
def _lower(v, encoding):
    return v.decode("utf-8").lower().encode("utf-8") if encoding else v.lower()


def _upper(v, encoding):
    return v.decode("utf-8").upper().encode("utf-8") if encoding else v.upper()


_LOWER = _unary("StringLower", _lower)
_UPPER = _unary("StringUpper", _upper)
_STRIP = _unary("StringStrip", lambda v: v.strip(_WS))


def _check_encoding(encoding):
    if encoding not in ("", "utf-8", "UTF-8"):
        raise InvalidArgumentError(None, None, f"encoding must be '' or 'utf-8', got {encoding!r}")
    return encoding.lower()


@add_dispatch_support
def lower(input, encoding="", name=None):  # noqa: A002 - TF's argument name
    """``tf.strings.lower``: ASCII lower case (``encoding='utf-8'``: Unicode lower case)."""
    return execute(_LOWER, (_strings(input, "lower"),), {"encoding": _check_encoding(encoding)})


@add_dispatch_support
def upper(input, encoding="", name=None):  # noqa: A002
    """``tf.strings.upper``: ASCII upper case (``encoding='utf-8'``: Unicode upper case)."""
    return execute(_UPPER, (_strings(input, "upper"),), {"encoding": _check_encoding(encoding)})


@add_dispatch_support
def strip(input, name=None):  # noqa: A002
    """``tf.strings.strip``: remove leading and trailing ASCII whitespace."""
    return execute(_STRIP, (_strings(input, "strip"),))


def _length(v, unit):
    if unit == "BYTE":
        return len(v)
    return len(v) - sum(1 for c in v if c & 0xC0 == 0x80)  # UTF-8 characters: bytes that start one


_LENGTH = _unary("StringLength", _length, dtypes.int32)


@add_dispatch_support
def length(input, unit="BYTE", name=None):  # noqa: A002
    """``tf.strings.length``: bytes per string (``unit='UTF8_CHAR'``: UTF-8 characters), int32."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(None, None, f"length: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return execute(_LENGTH, (_strings(input, "length"),), {"unit": unit})


# -- join ---------------------------------------------------------------------------------
def _join_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    try:
        np.broadcast_shapes(*(t._array.shape for t in inputs))
    except ValueError:
        raise InvalidArgumentError(None, None, "StringJoin: inputs must have the same shape (or be scalars), got "
                                               f"{[list(t._array.shape) for t in inputs]}") from None
    return dtypes.string


_JOIN = Op("StringJoin", rule=_join_rule)


@_JOIN.kernel("cpu")
def _join(b, *arrays, separator):
    arrays = np.broadcast_arrays(*arrays)
    out = np.empty(arrays[0].shape, dtype=object)
    flat = [a.reshape(-1) for a in arrays]
    o = out.reshape(-1)
    for i in range(o.shape[0]):
        o[i] = separator.join(a[i] for a in flat)
    return out


def _as_sep(separator):
    return separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)


@add_dispatch_support
def join(inputs, separator="", name=None):
    """``tf.strings.join``: element-wise concatenation of a list of string tensors (scalars broadcast)."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise ValueError("join: inputs must be a non-empty list of string tensors")
    ts = tuple(_strings(x, "join") for x in inputs)
    return execute(_JOIN, ts, {"separator": _as_sep(separator)})


_REDUCE_JOIN = Op("ReduceJoin", rule=lambda op, inputs, attrs: _string_rule(op, inputs, attrs) or dtypes.string)


@_REDUCE_JOIN.kernel("cpu")
def _reduce_join(b, x, axis, keepdims, separator):
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(a % x.ndim for a in axis))
    keep = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, keep + list(axes)).reshape([x.shape[d] for d in keep] + [-1])
    out = np.empty(moved.shape[:-1], dtype=object)
    flat_in = moved.reshape(-1, moved.shape[-1])
    flat_out = out.reshape(-1)
    for i in range(flat_out.shape[0]):
        flat_out[i] = separator.join(flat_in[i])
    if keepdims:
        out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return out


@add_dispatch_support
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """``tf.strings.reduce_join``: join the strings along ``axis`` (all axes when None)."""
    t = _strings(inputs, "reduce_join")
    nd = t._array.ndim
    if axis is not None:
        axis = [axis] if isinstance(axis, int | np.integer) else list(axis)
        for a in axis:
            if not -nd <= a < max(nd, 1):
                raise InvalidArgumentError(None, None, f"reduce_join: axis {a} out of range for rank {nd}")
        axis = tuple(int(a) for a in axis)
    return execute(_REDUCE_JOIN, (t,), {"axis": axis, "keepdims": bool(keepdims), "separator": _as_sep(separator)})


# -- split and unicode decode (ragged results) ---------------------------------------------
def _ragged_rule(out_dtype):
    def rule(op, inputs, attrs):
        t = inputs[0]
        _string_rule(op, inputs, attrs)
        if t._array.ndim > 1:
            raise InvalidArgumentError(None, None, f"{op.name}: input must be a scalar or a vector, got shape "
                                                   f"{list(t._array.shape)}")
        return (out_dtype, dtypes.int64)

    return rule


def _ragged_kernel(fn, np_dt):
    def kernel(b, x, **attrs):
        pieces = [fn(v, **attrs) for v in x.reshape(-1)]
        splits = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum([len(p) for p in pieces], out=splits[1:])
        values = np.empty(int(splits[-1]), dtype=np_dt)
        for i, p in enumerate(pieces):
            values[splits[i]:splits[i + 1]] = p
        return values, splits

    return kernel


def _split_one(v, sep, maxsplit):
    if sep is None:
        return v.split(None, maxsplit) if maxsplit >= 0 else v.split()
    return v.split(sep, maxsplit)


_SPLIT = Op("StringSplitV2", rule=_ragged_rule(dtypes.string), multi_output=True)
_SPLIT.kernel("cpu")(_ragged_kernel(_split_one, object))


@add_dispatch_support
def split_parts(input, sep=None, maxsplit=-1):  # noqa: A002
    """``(input tensor, pieces, row_splits)`` of ``tf.strings.split`` (``tfcore.ragged.ragged_string_ops``
    builds the RaggedTensor)."""
    t = _strings(input, "split")
    if sep is not None:
        sep = _as_sep(sep)
        if not sep:
            raise InvalidArgumentError(None, None, "split: sep must not be empty (use tf.strings.bytes_split)")
    values, splits = execute(_SPLIT, (t,), {"sep": sep, "maxsplit": int(maxsplit)})
    return t, values, splits


_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _decode_one(v, encoding, errors, replacement_char):
    try:
        text = v.decode(encoding, errors="strict" if errors == "strict" else errors)
    except UnicodeDecodeError as e:
        raise InvalidArgumentError(None, None, f"UnicodeDecode: invalid {encoding} data in {v!r}: {e}") from e
    cps = [ord(c) for c in text]
    if errors == "replace" and replacement_char != 0xFFFD:
        cps = [replacement_char if c == 0xFFFD else c for c in cps]
    return cps


_DECODE = Op("UnicodeDecode", rule=_ragged_rule(dtypes.int32), multi_output=True)
_DECODE.kernel("cpu")(_ragged_kernel(_decode_one, np.int32))


@add_dispatch_support
def unicode_decode_parts(input, input_encoding, errors="replace", replacement_char=65533):  # noqa: A002
    """``(input tensor, code points, row_splits)`` of ``tf.strings.unicode_decode``."""
    if input_encoding not in _CODECS:
        raise InvalidArgumentError(None, None, f"unicode_decode: input_encoding must be one of {sorted(_CODECS)}, "
                                               f"got {input_encoding!r}")
    if errors not in ("replace", "strict", "ignore"):
        raise InvalidArgumentError(None, None, f"unicode_decode: errors must be 'replace', 'strict' or 'ignore', "
                                               f"got {errors!r}")
    t = _strings(input, "unicode_decode")
    values, splits = execute(_DECODE, (t,), {"encoding": _CODECS[input_encoding], "errors": errors,
                                             "replacement_char": int(replacement_char)})
    return t, values, splits


# -- numbers <-> strings -----------------------------------------------------------------
_NUM_RE = re.compile(rb"[ \t\n\r\x0b\x0c]*[+-]?([0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?|"
                     rb"inf|infinity|nan)[ \t\n\r\x0b\x0c]*", re.IGNORECASE)
_INT_RE = re.compile(rb"[ \t\n\r\x0b\x0c]*[+-]?[0-9]+[ \t\n\r\x0b\x0c]*")


def _to_number_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    return attrs["out_type"]


_TO_NUMBER = Op("StringToNumber", rule=_to_number_rule)


@_TO_NUMBER.kernel("cpu")
def _to_number(b, x, out_type):
    np_dt = out_type.as_numpy_dtype
    out = np.empty(x.shape, dtype=np_dt)
    flat, o = x.reshape(-1), out.reshape(-1)
    info = np.iinfo(np_dt) if out_type.is_integer else None
    for i, v in enumerate(flat):
        ok = (_INT_RE if info is not None else _NUM_RE).fullmatch(v)
        if ok:
            val = int(v) if info is not None else float(v)
            if info is not None and not info.min <= val <= info.max:
                ok = None
            else:
                o[i] = val
        if not ok:
            raise InvalidArgumentError(None, None, f"StringToNumberOp could not correctly convert string: "
                                                   f"{v.decode('utf-8', 'replace')}")
    return out


@add_dispatch_support
def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """``tf.strings.to_number``: parse numbers (float32/float64/int32/int64); a bad string raises."""
    dt = dtypes.as_dtype(out_type)
    if dt not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(f"to_number: out_type must be float32, float64, int32 or int64, got {dt.name}")
    return execute(_TO_NUMBER, (_strings(string_tensor, "to_number"),), {"out_type": dt})


def _as_string_rule(op, inputs, attrs):
    t = inputs[0]
    if t._dtype is dtypes.string:
        raise InvalidArgumentError(None, None, "AsString: input is already a string tensor")
    return dtypes.string


_AS_STRING = Op("AsString", rule=_as_string_rule)


@_AS_STRING.kernel("cpu")
def _as_string(b, x, fmt, kind):
    if kind == "bool":
        return _map(lambda v: b"true" if v else b"false", x)
    if kind == "complex":
        return _map(lambda v: f"({fmt % v.real},{fmt % v.imag})".encode(), x)
    conv = float if kind == "float" else int
    return _map(lambda v: (fmt % conv(v)).encode(), x)


@add_dispatch_support
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """``tf.strings.as_string``: numbers as strings with C ``printf`` formatting (``%f`` by default)."""
    t = convert_to_tensor(input)
    dt = t._dtype
    if len(fill) > 1:
        raise InvalidArgumentError(None, None, f"AsString: Fill string must be one or fewer characters, got {fill!r}")
    if fill not in ("", " ", "0"):
        raise InvalidArgumentError(None, None, f"AsString: fill must be '', ' ' or '0', got {fill!r}")
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "AsString: Cannot select both scientific and shortest notation")
    kind = "bool" if dt.is_bool else "complex" if dt.is_complex else "float" if dt.is_floating else "int"
    if kind in ("int", "bool") and (precision > -1 or scientific or shortest):
        raise InvalidArgumentError(None, None, f"AsString: precision, scientific and shortest are not supported for "
                                               f"{dt.name}")
    fmt = "%" + fill + (str(width) if width > -1 else "")
    if kind in ("float", "complex"):
        fmt += (f".{precision}" if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
    else:
        fmt += "d"
    return execute(_AS_STRING, (t,), {"fmt": fmt, "kind": kind})


# -- regular expressions ---------------------------------------------------------------------
def _compile(pattern, what):
    try:
        return re.compile(_as_sep(pattern))
    except re.error as e:
        raise InvalidArgumentError(None, None, f"{what}: invalid pattern {pattern!r}: {e}") from None


def _rewrite_fn(rewrite):
    """RE2 rewrite strings: ``\\0``-``\\9`` name groups, ``\\\\`` is a backslash."""
    parts, i, rw = [], 0, _as_sep(rewrite)
    literal = b""
    while i < len(rw):
        c = rw[i:i + 1]
        if c == b"\\" and i + 1 < len(rw):
            nxt = rw[i + 1:i + 2]
            if nxt.isdigit():
                parts.append(literal)
                parts.append(int(nxt))
                literal = b""
            else:
                literal += nxt
            i += 2
            continue
        literal += c
        i += 1
    parts.append(literal)
    return lambda m: b"".join(p if isinstance(p, bytes) else (m.group(p) or b"") for p in parts)


_REGEX_REPLACE = Op("StaticRegexReplace",
                    rule=lambda op, inputs, attrs: _string_rule(op, inputs, attrs) or dtypes.string)
_REGEX_REPLACE.kernel("cpu")(lambda b, x, regex, fn, count: _map(lambda v: regex.sub(fn, v, count=count), x))


@add_dispatch_support
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """``tf.strings.regex_replace``: replace matches of ``pattern`` (every one, or the first) by ``rewrite``."""
    return execute(_REGEX_REPLACE, (_strings(input, "regex_replace"),),
                   {"regex": _compile(pattern, "regex_replace"), "fn": _rewrite_fn(rewrite),
                    "count": 0 if replace_global else 1})


_FULL_MATCH = Op("StaticRegexFullMatch",
                 rule=lambda op, inputs, attrs: _string_rule(op, inputs, attrs) or dtypes.bool)
_FULL_MATCH.kernel("cpu")(lambda b, x, regex: _map(lambda v: regex.fullmatch(v) is not None, x, np.bool_))


@add_dispatch_support
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """``tf.strings.regex_full_match``: whether each whole string matches ``pattern``."""
    return execute(_FULL_MATCH, (_strings(input, "regex_full_match"),),
                   {"regex": _compile(pattern, "regex_full_match")})


_SUBSTR = Op("Substr", rule=lambda op, inputs, attrs: _string_rule(op, inputs[:1], attrs) or dtypes.string)


@_SUBSTR.kernel("cpu")
def _substr(b, x, pos, length, unit):
    def one(v):
        if unit == "UTF8_CHAR":
            s = v.decode("utf-8")
            p = pos if pos >= 0 else len(s) + pos
            if not 0 <= p <= len(s):
                raise ValueError(f"pos {pos} out of range for a string of {len(s)} characters")
            return s[p:p + length].encode("utf-8")
        p = pos if pos >= 0 else len(v) + pos
        if not 0 <= p <= len(v):
            raise ValueError(f"pos {pos} out of range for a string of {len(v)} bytes")
        return v[p:p + length]

    return _map(one, x)


@add_dispatch_support
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TF's argument names
    """``tf.strings.substr``: ``len`` bytes (or UTF-8 characters) from ``pos`` (negative: from the end)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(None, None, f"substr: unit must be 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return execute(_SUBSTR, (_strings(input, "substr"),), {"pos": int(pos), "length": int(len), "unit": unit})


# -- helpers of the ragged kernels -------------------------------------------------------------
def _object_vector(items):
    out = np.empty(len(items), object)
    out[:] = items
    return out


# -- ngrams --------------------------------------------------------------------------------------------------
def _ngrams_rule(op, inputs, attrs):
    data, splits = inputs
    _string_rule(op, (data,), attrs)
    return (dtypes.string, dtypes.int64)


_NGRAMS = Op("StringNGrams", rule=_ngrams_rule, multi_output=True)


@_NGRAMS.kernel("cpu")
def _ngrams(b, data, splits, widths, separator, left_pad, right_pad, pad_width, preserve_short):
    out, out_splits = [], [0]

    def make(tokens, width, pw):
        padded = [left_pad] * pw + list(tokens) + [right_pad] * pw
        return [separator.join(padded[i:i + width]) for i in range(max(0, len(padded) - width + 1))]

    for r in range(len(splits) - 1):
        tokens = data[splits[r]:splits[r + 1]]
        start = len(out)
        for w in widths:
            pw = min(w - 1 if pad_width < 0 else pad_width, w - 1)
            out.extend(make(tokens, w, pw))
        if preserve_short and len(out) == start and len(tokens):
            pw = max(pad_width, 0)
            out.extend(make(tokens, len(tokens) + 2 * pw, pw)[:1])
        out_splits.append(len(out))
    return _object_vector(out), np.asarray(out_splits, np.int64)


@add_dispatch_support
def ngram_rows(values, splits, ngram_width, separator=" ", pad_values=None, padding_width=None,
               preserve_short_sequences=False):
    """``(ngrams, ngram row_splits)`` of ``tf.strings.ngrams`` for rows ``values[splits[i]:splits[i + 1]]``."""
    widths = [ngram_width] if isinstance(ngram_width, int | np.integer) else list(ngram_width)
    if not widths or any(int(w) < 1 for w in widths):
        raise InvalidArgumentError(None, None, f"ngrams: ngram_width must be positive, got {ngram_width}")
    if padding_width is not None and int(padding_width) < 1:
        raise ValueError(f"ngrams: padding_width must be at least 1, got {padding_width}")
    if pad_values is None:
        left = right = b""
        pad_width = 0
    else:
        if isinstance(pad_values, tuple | list):
            if len(pad_values) != 2:
                raise ValueError("ngrams: pad_values must be a string or a (left, right) pair of strings")
            left, right = (_as_sep(p) for p in pad_values)
        else:
            left = right = _as_sep(pad_values)
        pad_width = -1 if padding_width is None else int(padding_width)
    return execute(_NGRAMS, (values, convert_to_tensor(splits, dtype=dtypes.int64)), {
        "widths": tuple(int(w) for w in widths), "separator": _as_sep(separator), "left_pad": left,
        "right_pad": right, "pad_width": pad_width, "preserve_short": bool(preserve_short_sequences)})


# -- format ------------------------------------------------------------------------------------------------
_FORMAT = Op("StringFormat", rule=lambda op, inputs, attrs: dtypes.string)


@_FORMAT.kernel("cpu")
def _format(b, *arrays, pieces, summarize):
    out = [pieces[0]]
    for a, piece in zip(arrays, pieces[1:]):
        out.append(format_array(np.asarray(a), summarize))
        out.append(piece)
    return np.array("".join(out).encode("utf-8"), dtype=object)


@add_dispatch_support
def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001 - TF's name
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by one input tensor, printed as
    ``tf.print`` does (``summarize`` elements at each end of every dimension; -1: all)."""
    if not isinstance(template, str):
        raise TypeError(f"format: template must be a Python string, got {type(template).__name__}")
    if not isinstance(inputs, list | tuple):
        inputs = [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise InvalidArgumentError(None, None, f"StringFormat: num placeholders in template and num inputs must "
                                               f"match: {len(pieces) - 1} vs. {len(inputs)}")
    ts = tuple(convert_to_tensor(x) for x in inputs)
    return execute(_FORMAT, ts, {"pieces": tuple(pieces), "summarize": int(summarize)})


# -- unsorted_segment_join ---------------------------------------------------------------------------------
def _segment_join_rule(op, inputs, attrs):
    data, ids = inputs
    _string_rule(op, (data,), attrs)
    if not ids._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"UnsortedSegmentJoin: segment_ids must be integers, got "
                                               f"{ids._dtype.name}")
    if data._array.shape[:ids._array.ndim] != ids._array.shape:
        raise InvalidArgumentError(None, None, f"UnsortedSegmentJoin: segment_ids.shape "
                                               f"{list(ids._array.shape)} must be a prefix of inputs.shape "
                                               f"{list(data._array.shape)}")
    return dtypes.string


_SEGMENT_JOIN = Op("UnsortedSegmentJoin", rule=_segment_join_rule)


@_SEGMENT_JOIN.kernel("cpu")
def _segment_join(b, data, ids, num_segments, separator):
    inner = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1).astype(np.int64)
    flat = data.reshape((len(flat_ids), -1))
    width = flat.shape[1]
    groups = [[[] for _ in range(width)] for _ in range(num_segments)]
    for j, s in enumerate(flat_ids):
        if s < 0:
            continue
        if s >= num_segments:
            raise InvalidArgumentError(None, None, f"UnsortedSegmentJoin: segment_ids[{j}] = {s} is out of range "
                                                   f"[0, {num_segments})")
        for k in range(width):
            groups[s][k].append(flat[j, k])
    out = np.empty((num_segments, width), object)
    for s in range(num_segments):
        for k in range(width):
            out[s, k] = separator.join(groups[s][k])
    return out.reshape((num_segments,) + inner)


@add_dispatch_support
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """``tf.strings.unsorted_segment_join``: ``out[i]`` joins (in input order) the strings whose segment id is
    ``i``; negative ids are dropped, empty segments give ``''``."""
    n = int(convert_to_tensor(num_segments).numpy())
    if n < 0:
        raise InvalidArgumentError(None, None, f"UnsortedSegmentJoin: num_segments must be non-negative, got {n}")
    return execute(_SEGMENT_JOIN, (_strings(inputs, "unsorted_segment_join"), convert_to_tensor(segment_ids)),
                   {"num_segments": n, "separator": _as_sep(separator)})
