"""``tf.strings``: operations on string tensors."""

from .ops.string_ops import (
                             as_string,
                             join,
                             length,
                             lower,
                             reduce_join,
                             regex_full_match,
                             regex_replace,
                             split,
                             strip,
                             substr,
                             to_number,
                             unicode_decode,
                             upper,
)
