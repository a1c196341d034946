"""String ops whose results are ragged (TF's ``ragged_string_ops``): ``tf.strings.split`` and
``tf.strings.unicode_decode`` give a 1-D tensor for a scalar and a ``tf.RaggedTensor`` ``[n, None]`` for a
vector. The ops themselves live in :mod:`tfcore.ops.string_ops`."""

from ..ops import string_ops
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
