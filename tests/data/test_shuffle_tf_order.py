"""``Dataset.shuffle`` gives TF 2.21's order for a seed (TF's buffer, Philox stream and seed rules).

The expected lists were printed by TensorFlow 2.21.0 (tensorflow-cpu, Python 3) for the same calls.
"""

import tfcore as tf


def _ints(ds):
    return [int(x) for x in ds]


def setup_function():
    tf.random.set_seed(None)


def teardown_function():
    tf.random.set_seed(None)


def test_op_seed_without_global_seed():
    ds = tf.data.Dataset.range(10).shuffle(10, seed=42)
    assert [int(x) for x in ds.as_numpy_iterator()] == [5, 9, 6, 4, 7, 1, 2, 8, 3, 0]


def test_buffer_smaller_than_data_and_two_epochs_reshuffle():
    ds = tf.data.Dataset.range(20).shuffle(4, seed=7)
    assert _ints(ds) == [0, 4, 2, 3, 5, 6, 1, 9, 8, 12, 7, 10, 15, 14, 17, 16, 11, 13, 19, 18]
    assert _ints(ds) == [1, 3, 0, 4, 6, 5, 7, 8, 11, 12, 2, 9, 10, 13, 14, 16, 17, 18, 15, 19]


def test_no_reshuffle_repeats_the_order():
    ds = tf.data.Dataset.range(10).shuffle(5, seed=7, reshuffle_each_iteration=False)
    assert _ints(ds) == _ints(ds) == [2, 3, 0, 7, 4, 8, 5, 1, 6, 9]


def test_global_seed_without_op_seed():
    tf.random.set_seed(5)
    assert _ints(tf.data.Dataset.range(10).shuffle(10)) == [7, 5, 4, 1, 0, 9, 6, 3, 8, 2]


def test_batched_reads_draw_like_single_reads():
    ds = tf.data.Dataset.range(20).shuffle(4, seed=7)
    assert [v for b in ds.batch(6) for v in b.numpy().tolist()] == \
        [0, 4, 2, 3, 5, 6, 1, 9, 8, 12, 7, 10, 15, 14, 17, 16, 11, 13, 19, 18]


def test_unseeded_shuffle_is_a_permutation():
    out = _ints(tf.data.Dataset.range(100).shuffle(30))
    assert sorted(out) == list(range(100))
