"""Writes ``tf_lookup_tables/c-1``: a TF 2.21 checkpoint of a MutableHashTable (a->1, b->2), a
StaticHashTable and a DenseHashTable (5->50, 8 buckets), read by tests/saving/test_lookup_checkpoint.py.

Run with real TensorFlow: ``python make_tf_lookup_checkpoint.py`` (writes next to this file).
"""

import os

import tensorflow as tf

m = tf.lookup.experimental.MutableHashTable(key_dtype=tf.string, value_dtype=tf.int64, default_value=-1)
m.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
s = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x"], [1]), -1)
d = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0, deleted_key=-1,
                                          initial_num_buckets=8)
d.insert(tf.constant([5], tf.int64), tf.constant([50], tf.int64))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_lookup_tables", "c")
print(tf.train.Checkpoint(t=m, s=s, d=d).save(out))
