"""tf.strings beyond the basics (format, ngrams, unicode_*, bytes_split, unsorted_segment_join, hash buckets)
and tf.fingerprint / tf.as_string, against TF's documented values."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops._farmhash import fingerprint64

# farmhash::Fingerprint64 of bytes(i * 7 % 251 for i in range(n)), computed with the reference C++ code
# (pyfarmhash 0.5.1); the lengths cover every branch (0-16, 17-32, 33-64, the 64-byte loop).
FARMHASH_GOLDEN = {0: 11160318154034397263, 1: 13718060045003475796, 3: 7836721383716570152,
                   4: 365121004050576997, 7: 1123016345076934235, 8: 15872949792654440359,
                   15: 14789918387257155207, 16: 18136686206037405083, 17: 11915285948536389748,
                   31: 3692271659337506713, 32: 764915578794662492, 33: 18105585573320925255,
                   63: 12502309870682690639, 64: 9001590363970424565, 65: 12241068543928303612,
                   127: 13174843887380237625, 128: 651049388705982093, 129: 11514278634614915057,
                   300: 1987667210937437789}


@pytest.mark.parametrize("n", sorted(FARMHASH_GOLDEN))
def test_fingerprint64_matches_farmhash(n):
    assert fingerprint64(bytes(i * 7 % 251 for i in range(n))) == FARMHASH_GOLDEN[n]


def test_to_hash_bucket_strong_matches_tensorflow():
    """TF 2.21's outputs (its docs example, plus a 64-bit key and strings past one SipHash block)."""
    out = tf.strings.to_hash_bucket_strong(["Hello", "TensorFlow", "2.x", ""], 3, [1, 2])
    assert out.dtype == tf.int64 and out.numpy().tolist() == [2, 2, 1, 1]
    got = tf.strings.to_hash_bucket_strong(["a", "bb", "c" * 21], 1000003, [123456789, 987654321])
    assert got.numpy().tolist() == [794515, 417044, 270209]
    with pytest.raises(tf.errors.InvalidArgumentError, match="key"):
        tf.strings.to_hash_bucket_strong(["a"], 3, [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
        tf.strings.to_hash_bucket_strong(["a"], 0, [1, 2])


def test_to_hash_bucket_fast_docs_example():
    out = tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3)
    assert out.dtype == tf.int64 and out.numpy().tolist() == [0, 2, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_buckets"):
        tf.strings.to_hash_bucket_fast(["a"], 0)


def test_fingerprint_layout():
    out = tf.fingerprint(tf.constant(["Hello", "a"]))
    assert out.dtype == tf.uint8 and out.shape == [2, 8]
    assert bytes(out.numpy()[0]) == fingerprint64(b"Hello").to_bytes(8, "little")
    ints = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = tf.fingerprint(ints).numpy()
    assert bytes(got[1]) == fingerprint64(ints[1].tobytes()).to_bytes(8, "little")
    # invariant under reshapes that keep the batch dimension (TF's documented property)
    np.testing.assert_array_equal(tf.fingerprint(ints.reshape(2, 3, 1)).numpy(), got)
    rows = tf.fingerprint(tf.constant([["a", "bc"], ["", "d"]])).numpy()
    cat = fingerprint64(b"a").to_bytes(8, "little") + fingerprint64(b"bc").to_bytes(8, "little")
    assert bytes(rows[0]) == fingerprint64(cat).to_bytes(8, "little")
    with pytest.raises(tf.errors.InvalidArgumentError, match="method"):
        tf.fingerprint(ints, method="md5")


def test_format_like_tf_print():
    assert tf.strings.format("tensor: {}, suffix", tf.range(5)).numpy() == b"tensor: [0 1 2 3 4], suffix"
    assert tf.strings.format("{}", tf.range(10), summarize=2).numpy() == b"[0 1 ... 8 9]"
    assert tf.strings.format("{} / {}", [tf.constant(["a"]), 1.5]).numpy() == b'["a"] / 1.5'
    assert tf.strings.format("x=<>", tf.constant([[1, 2], [3, 4]]), placeholder="<>").numpy() == \
        b"x=[[1 2]\n [3 4]]"
    with pytest.raises(tf.errors.InvalidArgumentError, match="num placeholders"):
        tf.strings.format("{} {}", [1])


def test_ngrams():
    assert tf.strings.ngrams(["A", "B", "C", "D"], 2).numpy().tolist() == [b"A B", b"B C", b"C D"]
    assert tf.strings.ngrams(["TF", "and", "keras"], 1).numpy().tolist() == [b"TF", b"and", b"keras"]
    rt = tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]), (1, 2), pad_values=("<", ">"))
    assert rt.to_list() == [[b"a", b"b", b"c", b"< a", b"a b", b"b c", b"c >"], [b"d", b"< d", b"d >"]]
    padded = tf.strings.ngrams(["a", "b"], 3, separator="|", pad_values="#", padding_width=1)
    assert padded.numpy().tolist() == [b"#|a|b", b"a|b|#"]
    short = tf.strings.ngrams(tf.constant([["a", "b"]]), 3, preserve_short_sequences=True)
    assert short.to_list() == [[b"a b"]]
    assert tf.strings.ngrams(tf.constant([["a", "b"]]), 3).to_list() == [[]]


def test_bytes_split_and_unicode_split_with_offsets():
    assert tf.strings.bytes_split("hi").numpy().tolist() == [b"h", b"i"]
    assert tf.strings.bytes_split(["ab", ""]).to_list() == [[b"a", b"b"], []]
    assert tf.strings.bytes_split([["ab"], ["c"]]).to_list() == [[[b"a", b"b"]], [[b"c"]]]
    word = "héllo".encode()
    chars, offs = tf.strings.unicode_split_with_offsets([word, b"a\xffb"], "UTF-8")
    assert chars.to_list() == [[b"h", "é".encode(), b"l", b"l", b"o"], [b"a", "\ufffd".encode(), b"b"]]
    assert offs.to_list() == [[0, 1, 3, 4, 5], [0, 1, 2]]
    assert tf.strings.unicode_split(word, "UTF-8").numpy().tolist()[1] == "é".encode()
    cps, offs = tf.strings.unicode_decode_with_offsets(word, "UTF-8")
    assert cps.numpy().tolist() == [104, 233, 108, 108, 111] and offs.numpy().tolist() == [0, 1, 3, 4, 5]
    assert offs.dtype == tf.int64
    cps, offs = tf.strings.unicode_decode_with_offsets(b"a\xffb", "UTF-8", errors="ignore")
    assert cps.numpy().tolist() == [97, 98] and offs.numpy().tolist() == [0, 2]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.strings.unicode_decode_with_offsets(b"a\xff", "UTF-8", errors="strict")


def test_unicode_encode_and_transcode():
    assert tf.strings.unicode_encode([104, 105], "UTF-8").numpy() == b"hi"
    out = tf.strings.unicode_encode(tf.ragged.constant([[72, 105], [233, 0x110000]]), "UTF-8")
    assert out.numpy().tolist() == [b"Hi", "é\ufffd".encode()]
    assert tf.strings.unicode_encode([[72], [105]], "UTF-16-BE").numpy().tolist() == [b"\x00H", b"\x00i"]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.strings.unicode_encode([0xD800], "UTF-8", errors="strict")
    tr = tf.strings.unicode_transcode(["Hello", "TensorFlow", "2.x"], "UTF-8", "UTF-16-BE")
    assert tr.numpy().tolist() == [b"\x00H\x00e\x00l\x00l\x00o",
                                   b"\x00T\x00e\x00n\x00s\x00o\x00r\x00F\x00l\x00o\x00w", b"\x002\x00.\x00x"]
    assert tf.strings.unicode_transcode(["A", "B", "C"], "US ASCII", "UTF-8").numpy().tolist() == [b"A", b"B", b"C"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="output_encoding"):
        tf.strings.unicode_transcode(["a"], "UTF-8", "latin-1")


def test_unsorted_segment_join():
    out = tf.strings.unsorted_segment_join(["Y", "q", "c"], [1, 0, 1], 3)
    assert out.numpy().tolist() == [b"q", b"Yc", b""]
    out = tf.strings.unsorted_segment_join([["Y", "q"], ["c", "a"]], [0, 0], 1, separator=":")
    assert out.numpy().tolist() == [[b"Y:c", b"q:a"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        tf.strings.unsorted_segment_join(["a"], [2], 1)


def test_top_level_as_string():
    assert tf.as_string(tf.constant([1.5, 2.0]), precision=2).numpy().tolist() == [b"1.50", b"2.00"]
    assert tf.as_string is tf.strings.as_string
