"""String ops whose results are ragged (TF's ``ragged_string_ops``): ``tf.strings.split`` and
``tf.strings.unicode_decode`` give a 1-D tensor for a scalar and a ``tf.RaggedTensor`` ``[n, None]`` for a
vector. The ops themselves live in :mod:`tfcore.ops.string_ops`."""

import numpy as np

from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops, string_ops, unicode_ops
from .ragged_tensor import RaggedTensor


def _ragged_result(t, values, splits):
    if t.shape.rank == 0:
        return values
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """``tf.strings.split``: split on ``sep`` (default: runs of whitespace, empty pieces dropped).

    A scalar gives a 1-D tensor, a vector a RaggedTensor ``[n, None]``; ``maxsplit`` limits the
    number of splits per string.
    """
    return _ragged_result(*string_ops.split_parts(input, sep, maxsplit))


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode``: int32 code points of each string (a RaggedTensor for a vector)."""
    return _ragged_result(*string_ops.unicode_decode_parts(input, input_encoding, errors, replacement_char))


def _nest(t, values, splits):
    """Per-string pieces ``values[splits[i]:splits[i + 1]]`` of the strings of ``t`` (any shape): a 1-D tensor
    for a scalar, a RaggedTensor with one more (ragged) dimension otherwise."""
    shape = t.shape.as_list()
    if not shape:
        return values
    out = RaggedTensor.from_row_splits(values, splits, validate=False)
    for i in range(len(shape) - 1, 0, -1):  # group the rows by each outer dimension (uniform lengths)
        outer = int(np.prod(shape[:i]))
        out = RaggedTensor.from_row_splits(out, np.arange(outer + 1, dtype=np.int64) * shape[i], validate=False)
    return out


def _map_ragged_strings(fn, input):  # noqa: A002
    """``fn`` (string tensor -> ragged result) applied to a RaggedTensor's flat values, keeping its rows."""
    if isinstance(input, RaggedTensor):
        return input.with_values(_map_ragged_strings(fn, input.values))
    return fn(input)


def bytes_split(input, name=None):  # noqa: A002
    """``tf.strings.bytes_split``: each string as a sequence of 1-byte strings (ragged for rank >= 1)."""
    return _map_ragged_strings(lambda x: _nest(*unicode_ops.bytes_split_parts(x)), input)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """``tf.strings.unicode_split``: each string as its characters (strings in ``input_encoding``)."""
    return unicode_split_with_offsets(input, input_encoding, errors, replacement_char)[0]


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """``tf.strings.unicode_decode_with_offsets``: ``(code points, byte offsets of each character)``."""
    if isinstance(input, RaggedTensor):
        cps, offs = unicode_decode_with_offsets(input.values, input_encoding, errors, replacement_char,
                                                replace_control_characters)
        return input.with_values(cps), input.with_values(offs)
    t, cps, splits, offs = unicode_ops.decode_with_offsets(input, input_encoding, errors, replacement_char,
                                                                replace_control_characters)
    return _nest(t, cps, splits), _nest(t, offs, splits)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """``tf.strings.unicode_split_with_offsets``: ``(characters, byte offsets)``."""
    if isinstance(input, RaggedTensor):
        chars, offs = unicode_split_with_offsets(input.values, input_encoding, errors, replacement_char)
        return input.with_values(chars), input.with_values(offs)
    t, cps, splits, offs = unicode_ops.decode_with_offsets(input, input_encoding, errors, replacement_char,
                                                                what="unicode_split")
    n = int(cps.shape[0])
    chars = unicode_ops.encode_rows(cps, np.arange(n + 1, dtype=np.int64), input_encoding, errors,
                                         replacement_char)
    return _nest(t, chars, splits), _nest(t, offs, splits)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """``tf.strings.unicode_encode``: int32 code points (innermost dimension) to strings: a vector gives a
    scalar, a ``[..., n]`` tensor or RaggedTensor one string per row."""
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding, errors, replacement_char))
        return unicode_ops.encode_rows(input.values, input.row_splits, output_encoding, errors,
                                            replacement_char)
    t = convert_to_tensor(input)
    shape = t.shape.as_list()
    if not shape:
        raise ValueError("unicode_encode: input must have rank at least 1")
    width = shape[-1]
    rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
    out = unicode_ops.encode_rows(array_ops.reshape(t, [-1]),
                                       np.arange(rows + 1, dtype=np.int64) * width, output_encoding, errors,
                                       replacement_char)
    return array_ops.reshape(out, shape[:-1])


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """``tf.strings.ngrams``: the n-grams of the innermost dimension (each width in ``ngram_width`` in turn),
    optionally padded with ``pad_values`` (``padding_width`` per side, default ``width - 1``)."""
    args = (ngram_width, separator, pad_values, padding_width, preserve_short_sequences)
    if isinstance(data, RaggedTensor):
        if isinstance(data.values, RaggedTensor):
            return data.with_values(ngrams(data.values, *args))
        values, splits = string_ops.ngram_rows(data.values, data.row_splits, *args)
        return RaggedTensor.from_row_splits(values, splits, validate=False)
    t = convert_to_tensor(data)
    shape = t.shape.as_list()
    if not shape:
        raise ValueError("ngrams: data must have rank at least 1")
    if len(shape) == 1:
        return string_ops.ngram_rows(t, [0, shape[0]], *args)[0]
    if len(shape) > 2:
        return ngrams(RaggedTensor.from_tensor(t, ragged_rank=len(shape) - 1), *args)
    values, splits = string_ops.ngram_rows(array_ops.reshape(t, [-1]),
                                                 np.arange(shape[0] + 1, dtype=np.int64) * shape[1], *args)
    return RaggedTensor.from_row_splits(values, splits, validate=False)
