"""More ``tf.strings`` ops: format, ngrams, unicode encode/transcode/decode-with-offsets, bytes split,
unsorted_segment_join, to_hash_bucket_fast (TF's Fingerprint64, i.e. farmhash's ``Fingerprint64``) and
to_hash_bucket_strong (SipHash-2-4).

Host (CPU) kernels on object arrays of bytes, as in :mod:`tfcore.ops.string_ops`. Ops on ragged data take
and return ``(flat values, row_splits)`` pairs like TF's kernels (``StringNGrams``, ``UnicodeEncode``);
:mod:`tfcore.ragged.ragged_string_ops` builds the public functions that accept and return RaggedTensors.
"""

import codecs
import threading

import numpy as np

from ..framework import dtypes
from ..framework.errors import InvalidArgumentError
from ..framework.tensor_conversion import convert_to_tensor
from ._farmhash import fingerprint64, siphash24
from .logging_ops import format_array
from .registry import Op, execute
from .string_ops import _as_sep, _string_rule, _strings

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
# input encodings unicode_transcode also reads (TF accepts ICU's names there)
_TRANSCODE_INPUTS = dict(_ENCODINGS, **{"US ASCII": "ascii", "US-ASCII": "ascii", "ISO-8859-1": "latin-1",
                                        "UTF-16-LE": "utf-16-le", "UTF-32-LE": "utf-32-le"})


def check_encoding(encoding, what, arg, known=_ENCODINGS):
    if encoding not in known:
        raise InvalidArgumentError(None, None, f"{what}: {arg} must be one of {sorted(known)}, got "
                                               f"{encoding!r}")
    return known[encoding]


def check_errors(errors, what):
    if errors not in ("replace", "strict", "ignore"):
        raise InvalidArgumentError(None, None, f"{what}: errors must be 'replace', 'strict' or 'ignore', got "
                                               f"{errors!r}")
    return errors


def _object_vector(items):
    out = np.empty(len(items), object)
    out[:] = items
    return out


# -- decoding with byte offsets -----------------------------------------------------------------------------
_SPANS = threading.local()
_BAD = "\udfff"  # a lone surrogate: never produced by a successful decode


def _record_bad(err):
    _SPANS.spans.append(err.end - err.start)
    return _BAD, err.end


codecs.register_error("tfcore_record_bad", _record_bad)


def _is_control(cp):
    return cp < 0x20 or 0x7F <= cp < 0xA0


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


def bytes_split_parts(input):  # noqa: A002
    t = _strings(input, "bytes_split")
    values, splits = execute(_BYTES_SPLIT, (t,))
    return t, values, splits


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


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """``tf.strings.unsorted_segment_join``: ``out[i]`` joins (in input order) the strings whose segment id is
    ``i``; negative ids are dropped, empty segments give ``''``."""
    n = int(convert_to_tensor(num_segments).numpy())
    if n < 0:
        raise InvalidArgumentError(None, None, f"UnsortedSegmentJoin: num_segments must be non-negative, got {n}")
    return execute(_SEGMENT_JOIN, (_strings(inputs, "unsorted_segment_join"), convert_to_tensor(segment_ids)),
                   {"num_segments": n, "separator": _as_sep(separator)})


# -- hashing (farmhash Fingerprint64, SipHash-2-4: tfcore.ops._farmhash) ---------------------------------

def _hash_bucket_rule(op, inputs, attrs):
    _string_rule(op, inputs, attrs)
    return dtypes.int64


_HASH_FAST = Op("StringToHashBucketFast", rule=_hash_bucket_rule)


@_HASH_FAST.kernel("cpu")
def _hash_fast(b, x, num_buckets):
    out = np.empty(x.shape, np.int64)
    fo = out.reshape(-1)
    for i, v in enumerate(x.reshape(-1)):
        fo[i] = fingerprint64(v) % num_buckets
    return out


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_fast``: ``Fingerprint64(s) % num_buckets`` (int64), as TF."""
    n = int(num_buckets)
    if n < 1:
        raise InvalidArgumentError(None, None, f"StringToHashBucketFast: num_buckets must be at least 1, got {n}")
    return execute(_HASH_FAST, (_strings(input, "to_hash_bucket_fast"),), {"num_buckets": n})


_HASH_STRONG = Op("StringToHashBucketStrong", rule=_hash_bucket_rule)


@_HASH_STRONG.kernel("cpu")
def _hash_strong(b, x, num_buckets, key):
    out = np.empty(x.shape, np.int64)
    fo = out.reshape(-1)
    k0, k1 = key
    for i, v in enumerate(x.reshape(-1)):
        fo[i] = siphash24(k0, k1, v) % num_buckets
    return out


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """``tf.strings.to_hash_bucket_strong``: SipHash-2-4 of each string under the 128-bit ``key`` (two
    unsigned 64-bit integers) modulo ``num_buckets`` (int64), as TF."""
    n = int(num_buckets)
    if n < 1:
        raise InvalidArgumentError(None, None, f"StringToHashBucketStrong: num_buckets must be at least 1, got {n}")
    key = [int(k) for k in (key.numpy() if hasattr(key, "numpy") else key)]
    if len(key) != 2 or any(k < 0 or k >= 1 << 64 for k in key):
        raise InvalidArgumentError(None, None, f"StringToHashBucketStrong: key must be two unsigned 64-bit "
                                               f"integers, got {key}")
    return execute(_HASH_STRONG, (_strings(input, "to_hash_bucket_strong"),), {"num_buckets": n, "key": tuple(key)})


def _fingerprint_rule(op, inputs, attrs):
    if inputs[0]._array.ndim < 1:
        raise InvalidArgumentError(None, None, "Fingerprint: data must have rank at least 1, got a scalar")
    return dtypes.uint8


_FINGERPRINT = Op("Fingerprint", rule=_fingerprint_rule, output_arg="fingerprint")


@_FINGERPRINT.kernel("cpu")
def _fingerprint(b, data):
    n = data.shape[0]
    out = np.zeros((n, 8), np.uint8)
    if data.dtype == object:
        per_row = data.size // n if n else 0
        fps = [fingerprint64(v) for v in data.reshape(-1)]
        if n and per_row != 1:
            # several strings per row: the fingerprint of the row's string fingerprints (8 little-endian bytes each)
            rows = [b"".join(f.to_bytes(8, "little") for f in fps[i * per_row:(i + 1) * per_row]) for i in range(n)]
            fps = [fingerprint64(r) for r in rows]
    else:
        raw = np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<"), copy=False).view(np.uint8)
        raw = raw.reshape(n, -1) if n else raw.reshape(0, 0)
        fps = [fingerprint64(raw[i].tobytes()) for i in range(n)]
    for i, f in enumerate(fps):
        out[i] = np.frombuffer(f.to_bytes(8, "little"), np.uint8)
    return out


def fingerprint(data, method="farmhash64", name=None):
    """``tf.fingerprint``: uint8 ``[N, 8]`` farmhash Fingerprint64 (little-endian) of each row ``data[i]``'s raw
    bytes; string rows with several strings fingerprint the concatenation of the strings' fingerprints."""
    if method != "farmhash64":
        raise InvalidArgumentError(None, None, f"Fingerprint: method must be 'farmhash64', got {method!r}")
    return execute(_FINGERPRINT, (convert_to_tensor(data),))
