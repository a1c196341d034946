"""Registered ops that have no op-info entry, each group with the reason it cannot have one.

Keep this small: an op that computes on numbers gets an entry in ``tests/opinfo/table.py``. The ops
here work on strings, encoded bytes or files, which live on the host (docs/architecture.md §2), so
none of the table's generic checks applies to them (no GPU kernel, no gradient, no float64 reference,
no SavedModel graph of numbers); their behaviour is tested against TF's in the test file named.
"""

# strings: host-only, no gradients (tests/ops/test_string_extra_ops.py, tests/io/test_strings_sparse_files.py)
_STRINGS = ["StringLower", "StringUpper", "StringStrip", "StringLength", "StringJoin", "ReduceJoin",
            "StringSplitV2", "UnicodeDecode", "StringToNumber", "AsString", "StaticRegexReplace",
            "StaticRegexFullMatch", "Substr", "UnicodeDecodeWithOffsets", "UnicodeEncode", "UnicodeTranscode",
            "StringBytesSplit", "StringNGrams", "StringFormat", "UnsortedSegmentJoin", "StringToHashBucketFast",
            "StringToHashBucketStrong", "Fingerprint"]
# encoded images/audio, base64, compression, CSV: bytes in or out (tests/io/test_codec_ops.py)
_CODECS = ["EncodePng", "EncodeWav", "DecodeImage", "DecodePng", "DecodeJpeg", "EncodeJpeg", "EncodeBase64",
           "DecodeBase64", "DecodeCompressed", "DecodeCSV", "IsJpeg", "ExtractJpegShape", "DecodeBmp", "DecodeGif",
           "DecodeRaw"]
# serialized protos: tf.train.Example parsing, serialized tensors and SparseTensors (tests/io/)
_SERIALIZED = ["SerializeTensor", "ParseTensor", "SerializeSparse", "SerializeManySparse", "DeserializeManySparse",
               "ParseExampleV2", "ParseSingleSequenceExample"]
# files and event files: stateful writes outside the tensor world; the summary writer's host-side
# histogram bucketing runs on CPU:0 only, inside tf.summary.histogram (tests/io/)
_FILES = ["ReadFile", "WriteFile", "MatchingFiles", "WriteSummary", "SummaryHistogramBuckets"]
# a host-side sampler drawing from its own seeded stream per call (tests/ops/test_candidate_sampling.py)
_SAMPLERS = ["CandidateSampler"]

EXEMPT = frozenset(_STRINGS + _CODECS + _SERIALIZED + _FILES + _SAMPLERS)
