"""``tf.strings``: operations on string tensors."""

from .ops.string_extra_ops import (
                                  format,
                                  to_hash_bucket_fast,
                                  to_hash_bucket_strong,
                                  unicode_transcode,
                                  unsorted_segment_join,
)
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
