"""Registered ops that have no op-info entry, each group with the reason it cannot have one.

Keep this small: an op that computes on tensors gets an entry in ``tests/opinfo/table.py`` (ops on strings
and bytes too, as host samples). The ops here need things a table sample cannot hold; their behaviour is
tested against TF's in the test file named.
"""

# decoders of formats TF cannot encode (no sample can be made from tensors): tests/io/test_codec_ops.py
_UNENCODABLE = ["DecodeBmp", "DecodeGif"]
# the file system: reads, writes and globs of real files (tests/io/test_strings_sparse_files.py)
_FILES = ["ReadFile", "WriteFile", "MatchingFiles"]
# the summary writer's event-file write, and its host-side histogram bucketing that only
# tf.summary.histogram calls (tests/io/test_summary.py)
_SUMMARIES = ["WriteSummary", "SummaryHistogramBuckets"]
# a host-side sampler drawing from its own seeded stream per call (tests/ops/test_candidate_sampling.py)
_SAMPLERS = ["CandidateSampler"]

EXEMPT = frozenset(_UNENCODABLE + _FILES + _SUMMARIES + _SAMPLERS)
