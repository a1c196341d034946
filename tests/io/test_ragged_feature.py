"""``tf.io.RaggedFeature``: any number of values per Example, parsed into a RaggedTensor (TF 2.21 output)."""

import pytest

import tfcore as tf


def _example(colors, lengths):
    return tf.train.Example(features=tf.train.Features(feature={
        "colors": tf.train.Feature(bytes_list=tf.train.BytesList(value=colors)),
        "lengths": tf.train.Feature(int64_list=tf.train.Int64List(value=lengths)),
    })).SerializeToString()


def test_parse_example_ragged_feature_gives_ragged_rows():
    batch = [_example([b"red", b"blue"], [7]), _example([b"orange"], []), _example([b"green"], [3, 5, 2])]
    spec = {"colors": tf.io.RaggedFeature(tf.string), "lengths": tf.io.RaggedFeature(tf.int64)}
    out = tf.io.parse_example(batch, spec)
    assert isinstance(out["lengths"], tf.RaggedTensor)
    assert out["lengths"].to_list() == [[7], [], [3, 5, 2]]
    assert out["colors"].to_list() == [[b"red", b"blue"], [b"orange"], [b"green"]]
    assert out["lengths"].row_splits.dtype == tf.int32  # TF's default row_splits_dtype for RaggedFeature


def test_parse_single_example_ragged_feature_is_a_vector():
    out = tf.io.parse_single_example(_example([b"a"], [1, 2]), {"lengths": tf.io.RaggedFeature(tf.int64)})
    assert out["lengths"].numpy().tolist() == [1, 2]


def test_ragged_feature_partitions_are_refused_by_name():
    with pytest.raises(ValueError, match="partitions"):
        tf.io.RaggedFeature(tf.int64, partitions=("x",))
