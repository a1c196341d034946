"""Gaps the tensorflow/docs tutorials met (issue 29, item 2's tutorial suite): each test fails on the code
before the fix and states what TF 2.21 does (the guide named in each test shows it)."""

import numpy as np
import pytest

import tfcore as tf


# -- tf.random.Generator (guide/random_numbers) -------------------------------------------------------------
def test_a_checkpoint_saves_and_restores_where_a_generator_stream_is(tmp_path):
    """TF: a Generator is trackable (its state is a variable); restoring replays the stream from the save."""
    g = tf.random.Generator.from_seed(1)
    cp = tf.train.Checkpoint(generator=g)
    g.normal([])
    path = cp.write(str(tmp_path / "ckpt"))
    after_save = [float(g.normal([])) for _ in range(3)]
    cp.restore(path)
    assert [float(g.normal([])) for _ in range(3)] == after_save


def test_a_generator_restored_into_a_fresh_generator_continues_the_saved_stream(tmp_path):
    g = tf.random.Generator.from_seed(7)
    g.uniform([5])
    path = tf.train.Checkpoint(my_generator=g).write(str(tmp_path / "ckpt"))
    expected = g.normal([4]).numpy()
    other = tf.random.Generator.from_seed(123)
    tf.train.Checkpoint(my_generator=other).restore(path)
    np.testing.assert_array_equal(other.normal([4]).numpy(), expected)


def test_generator_state_is_an_int64_variable_that_from_state_and_reset_continue_from():
    g = tf.random.Generator.from_seed(3)
    g.normal([2])
    state = g.state
    assert isinstance(state, tf.Variable) and state.dtype == tf.int64 and not state.trainable
    saved = tf.identity(state)
    expected = g.normal([3]).numpy()
    np.testing.assert_array_equal(tf.random.Generator.from_state(saved, alg="philox").normal([3]).numpy(), expected)
    g.reset(saved)
    np.testing.assert_array_equal(g.normal([3]).numpy(), expected)
    assert not np.array_equal(g.state.numpy(), saved.numpy())  # drawing advances the state variable


def test_a_generator_state_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"Shapes \(13,\) and \[3\] are incompatible"):  # TF 2.21's error
        tf.random.Generator.from_state(np.zeros([13], np.int64))


def test_a_generator_under_a_mirrored_strategy_checkpoints_its_stream(tmp_path, two_cpus):
    """TF: replicas draw different numbers from one generator, and a restore replays them."""
    strat = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strat.scope():
        g = tf.random.Generator.from_seed(1)
        cp = tf.train.Checkpoint(my_generator=g)
        strat.run(lambda: g.normal([]))
        path = cp.write(str(tmp_path / "ckpt"))
        first = sorted(float(v) for v in strat.experimental_local_results(strat.run(lambda: g.normal([]))))
        cp.restore(path)
        again = sorted(float(v) for v in strat.experimental_local_results(strat.run(lambda: g.normal([]))))
    assert again == first and first[0] != first[1]


# -- dataset iterators in checkpoints (guide/checkpoint) ------------------------------------------------------
def test_a_checkpoint_saves_and_restores_where_a_dataset_iterator_is(tmp_path):
    """TF: ``Checkpoint(iterator=iter(ds))`` saves the position; a restore continues from the saved element."""
    ds = tf.data.Dataset.range(10).map(lambda x: x * 2)
    it = iter(ds)
    cp = tf.train.Checkpoint(step=tf.Variable(1), iterator=it)
    assert [int(next(it)) for _ in range(3)] == [0, 2, 4]
    path = cp.save(str(tmp_path / "ckpt"))
    assert [int(next(it)) for _ in range(2)] == [6, 8]
    cp.restore(path)
    assert [int(it.get_next()) for _ in range(2)] == [6, 8]


def test_a_fresh_iterator_restored_from_a_checkpoint_continues_the_saved_iteration(tmp_path):
    ds = tf.data.Dataset.range(20).shuffle(20, seed=5, reshuffle_each_iteration=False).batch(3)
    it = iter(ds)
    for _ in range(2):
        next(it)
    path = tf.train.Checkpoint(iterator=it).write(str(tmp_path / "ckpt"))
    expected = [next(it).numpy().tolist() for _ in range(2)]
    fresh = iter(ds)
    tf.train.Checkpoint(iterator=fresh).read(path)
    assert [next(fresh).numpy().tolist() for _ in range(2)] == expected
    assert fresh.get_next_as_optional().has_value()


def test_restoring_an_iterator_past_its_end_leaves_it_exhausted(tmp_path):
    it = iter(tf.data.Dataset.range(3))
    cp = tf.train.Checkpoint(iterator=it)
    list(it)
    path = cp.write(str(tmp_path / "ckpt"))
    fresh = iter(tf.data.Dataset.range(3))
    tf.train.Checkpoint(iterator=fresh).read(path)
    with pytest.raises(tf.errors.OutOfRangeError):
        fresh.get_next()


# -- lists on a Checkpoint, restored as they fill (guide/checkpoint) -----------------------------------------
def test_a_list_attribute_is_a_list_wrapper_whose_appended_variables_are_restored(tmp_path):
    """TF: ``restore.listed = []`` after ``restore()``; appending ``v1`` gives it its saved value."""
    save = tf.train.Checkpoint()
    save.listed = [tf.Variable(1.)]
    save.listed.append(tf.Variable(2.))
    save.mapped = {"one": save.listed[0]}
    save.mapped["two"] = save.listed[1]
    path = save.save(str(tmp_path / "list_example"))
    restore = tf.train.Checkpoint()
    v2 = tf.Variable(0.)
    restore.mapped = {"two": v2}
    restore.restore(path)
    assert v2.numpy() == 2.0
    restore.listed = []
    assert repr(restore.listed) == "ListWrapper([])" and isinstance(restore.listed, list)
    v1 = tf.Variable(0.)
    restore.listed.append(v1)
    assert v1.numpy() == 1.0


def test_extending_a_list_wrapper_restores_each_new_element(tmp_path):
    path = tf.train.Checkpoint(listed=[tf.Variable(5.), tf.Variable(6.)]).write(str(tmp_path / "c"))
    restore = tf.train.Checkpoint(listed=[])
    restore.read(path)
    first, second = tf.Variable(0.), tf.Variable(0.)
    restore.listed.extend([first, second])
    assert (first.numpy(), second.numpy()) == (5.0, 6.0)


def test_a_variable_attached_to_a_checkpoint_after_restore_gets_its_value(tmp_path):
    """TF restores a dependency added after ``restore()`` (``fake_layer.kernel = deferred_restore``)."""
    path = tf.train.Checkpoint(net=tf.train.Checkpoint(kernel=tf.Variable([3.0, 4.0]))).write(str(tmp_path / "c"))
    layer = tf.train.Checkpoint()
    tf.train.Checkpoint(net=layer).read(path)
    late = tf.Variable([0.0, 0.0])
    layer.kernel = late
    np.testing.assert_array_equal(late.numpy(), [3.0, 4.0])


def test_a_late_variable_of_the_wrong_shape_is_refused_and_left_unchanged(tmp_path):
    path = tf.train.Checkpoint(listed=[tf.Variable([1.0, 2.0])]).write(str(tmp_path / "c"))
    restore = tf.train.Checkpoint()
    restore.read(path)
    restore.listed = []
    wrong = tf.Variable([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        restore.listed.append(wrong)
    np.testing.assert_array_equal(wrong.numpy(), [0.0, 0.0, 0.0])
