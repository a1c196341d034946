"""Lookup tables in ``tf.train.Checkpoint``: TF's keys (``<path>/.ATTRIBUTES/table-keys``/``-values``), a
checkpoint written by TF 2.21 (``data/tf_lookup_tables``, made by ``data/make_tf_lookup_checkpoint.py``)
restores here, and a bad restore changes nothing."""

import os

import numpy as np
import pytest

import tfcore as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "tf_lookup_tables", "c-1")


def _tables():
    mutable = tf.lookup.experimental.MutableHashTable(key_dtype=tf.string, value_dtype=tf.int64, default_value=-1)
    static = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x"], [1]), -1)
    dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1,
                                                  initial_num_buckets=8)
    return mutable, static, dense


def test_tables_round_trip_under_tfs_keys(tmp_path):
    mutable, static, dense = _tables()
    mutable.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
    dense.insert(tf.constant([5, 13, -3], tf.int64), tf.constant([50, 130, -30], tf.int64))
    path = tf.train.Checkpoint(t=mutable, s=static, d=dense).save(str(tmp_path / "c"))
    names = dict(tf.train.list_variables(path))
    assert names["t/.ATTRIBUTES/table-keys"] == [2] and names["t/.ATTRIBUTES/table-values"] == [2]
    assert names["d/.ATTRIBUTES/table-keys"] == [8, 1]  # TF's bucket layout
    reader = tf.train.load_checkpoint(path)
    buckets = reader.get_tensor("d/.ATTRIBUTES/table-keys")[:, 0].tolist()
    # TF's probing: 13 & 7 = 5 is taken, so 6; -3 & 7 = 5, then 6, then (6 + 2) & 7 = 0
    assert buckets.index(5) == 5 and buckets.index(13) == 6 and buckets.index(-3) == 0
    fresh_mutable, fresh_static, fresh_dense = _tables()
    tf.train.Checkpoint(t=fresh_mutable, s=fresh_static, d=fresh_dense).restore(path).assert_existing_objects_matched()
    assert fresh_mutable.lookup(tf.constant(["a", "b", "c"])).numpy().tolist() == [1, 2, -1]
    assert fresh_dense.lookup(tf.constant([5, 13, -3, 6], tf.int64)).numpy().tolist() == [50, 130, -30, -1]
    assert int(fresh_dense.size()) == 3


def test_vector_values_round_trip(tmp_path):
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    table.insert(tf.constant(["a", "b"]), tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    path = tf.train.Checkpoint(t=table).save(str(tmp_path / "c"))
    again = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, [0.0, 0.0])
    tf.train.Checkpoint(t=again).restore(path)
    np.testing.assert_array_equal(again.lookup(tf.constant(["b", "z"])).numpy(), [[3.0, 4.0], [0.0, 0.0]])


def test_a_checkpoint_written_by_tensorflow_restores():
    mutable, static, dense = _tables()
    tf.train.Checkpoint(t=mutable, s=static, d=dense).restore(FIXTURE).assert_existing_objects_matched()
    assert mutable.lookup(tf.constant(["a", "b", "c"])).numpy().tolist() == [1, 2, -1]
    assert dense.lookup(tf.constant([5, 6], tf.int64)).numpy().tolist() == [50, -1]
    assert int(dense.size()) == 1


def test_a_table_of_other_dtypes_is_refused_and_nothing_changes(tmp_path):
    path = tf.train.Checkpoint(t=tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1),
                               v=tf.Variable(1.0)).save(str(tmp_path / "c"))
    wrong = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, -1.0)
    wrong.insert(tf.constant(["keep"]), tf.constant([5.0]))
    v = tf.Variable(7.0)
    with pytest.raises(ValueError, match="Cannot restore lookup table"):
        tf.train.Checkpoint(t=wrong, v=v).restore(path)
    assert float(v.numpy()) == 7.0 and wrong.lookup(tf.constant(["keep"])).numpy().tolist() == [5.0]
