"""``tf.strings``: operations on string tensors."""

from .ops.string_ops import (
                             as_string,
                             join,
                             length,
                             lower,
                             reduce_join,
                             regex_full_match,
                             regex_replace,
                             strip,
                             substr,
                             to_number,
                             upper,
)
from .ragged.ragged_string_ops import split, unicode_decode
