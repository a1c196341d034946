"""``tf.strings``: operations on string tensors."""

from .ops.string_hash_ops import to_hash_bucket_fast, to_hash_bucket_strong
from .ops.string_ops import (
                                  as_string,
                                  format,
                                  join,
                                  length,
                                  lower,
                                  reduce_join,
                                  regex_full_match,
                                  regex_replace,
                                  strip,
                                  substr,
                                  to_number,
                                  unsorted_segment_join,
                                  upper,
)
from .ops.unicode_ops import unicode_transcode
from .ragged.ragged_string_ops import (
                                  bytes_split,
                                  ngrams,
                                  split,
                                  unicode_decode,
                                  unicode_decode_with_offsets,
                                  unicode_encode,
                                  unicode_split,
                                  unicode_split_with_offsets,
)
