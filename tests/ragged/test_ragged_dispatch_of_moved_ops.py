"""RaggedTensor dispatch of the ops whose modules were split by subject (issue 27, item 3).

``tfcore/ragged/ragged_dispatch.py`` names each op's module in its dispatch tables and skips a name the
module lacks, so a table left pointing at the wrong module after a move silently turned these into
errors. Expected values from TensorFlow 2.21 (run on the same inputs).
"""

import numpy as np

import tfcore as tf

VALUES = [[0.1, 0.2], [0.3]]
WORDS = [[b"ab", b"c"], [b"d"]]


def _check(result, expected, **tol):
    assert isinstance(result, tf.RaggedTensor)
    assert result.row_splits.numpy().tolist() == [0, 2, 3]
    got = result.flat_values.numpy()
    want = np.asarray([v for row in expected for v in row])
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, **tol)
    else:
        assert got.tolist() == want.tolist()


def test_special_math_functions_dispatch_on_ragged():
    r = tf.ragged.constant(VALUES)
    _check(tf.math.erfinv(r), [[0.088856004, 0.17914349], [0.27246267]], rtol=1e-5)
    _check(tf.math.ndtri(r), [[-1.2815516, -0.8416212], [-0.5244005]], rtol=1e-5)
    _check(tf.math.xlog1py(r, r), [[0.009531018, 0.036464315], [0.07870928]], rtol=1e-5)
    _check(tf.math.rint(r), [[0.0, 0.0], [0.0]])


def test_string_hashing_and_transcoding_dispatch_on_ragged():
    s = tf.ragged.constant(WORDS)
    _check(tf.strings.to_hash_bucket_fast(s, 10), [[2, 2], [5]])
    _check(tf.strings.to_hash_bucket_strong(s, 10, [1, 2]), [[6, 9], [8]])
    _check(tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"), [[b"\x00a\x00b", b"\x00c"], [b"\x00d"]])
