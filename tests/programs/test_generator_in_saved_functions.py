"""A tf.function drawing from a ``tf.random.Generator``, traced and saved (guide/random_numbers).

TF's stateful RNG ops take the generator's state variable as input and advance it, so the traced graph
(and a SavedModel of it) keeps drawing new numbers and continues the stream where the generator was.
tfcore's traced draw reads the state variable, draws with the pure ``GeneratorDraw`` op and assigns the
next state. The save failed on the code before the change (the op held the NumPy generator).
"""

import numpy as np
import pytest

import tfcore as tf


def test_traced_and_eager_draws_share_one_stream():
    g = tf.random.Generator.from_seed(1)

    @tf.function
    def f():
        return g.normal([2])

    mixed = [f().numpy(), f().numpy(), g.normal([2]).numpy(), f().numpy()]
    ref = tf.random.Generator.from_seed(1)
    np.testing.assert_array_equal(np.stack(mixed), np.stack([ref.normal([2]).numpy() for _ in range(4)]))


def test_each_draw_kind_advances_the_state_variable_inside_a_function():
    g = tf.random.Generator.from_seed(3)

    @tf.function
    def f():
        return g.uniform([3]), g.uniform([2], maxval=10, dtype=tf.int64), g.truncated_normal([2])

    before = g.state.numpy().copy()
    first, second = f(), f()
    assert not np.array_equal(g.state.numpy(), before)
    for a, b in zip(first, second):
        assert not np.array_equal(a.numpy(), b.numpy())
    ref = tf.random.Generator.from_seed(3)
    expected = [ref.uniform([3]), ref.uniform([2], maxval=10, dtype=tf.int64), ref.truncated_normal([2])]
    for got, want in zip(first, expected):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_saved_function_keeps_drawing_and_continues_the_stream(tmp_path):
    pytest.importorskip("tensorboard", reason="SavedModel uses tensorboard's compiled TF protos")

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.rng = tf.random.Generator.from_seed(1234)

        @tf.function
        def __call__(self):
            return self.rng.normal([2, 3])

    m = M()
    m()
    tf.saved_model.save(m, str(tmp_path / "m"))
    expected = [m().numpy() for _ in range(2)]  # what the stream gives next, from the saved state
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    got = [loaded().numpy() for _ in range(2)]
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert not np.array_equal(got[0], got[1])
