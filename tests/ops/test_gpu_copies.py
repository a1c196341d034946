"""Training steps on a GPU copy only what they must: counted on an emulated GPU in strict CuPy mode.

:mod:`copy_counter` records every data copy op code asks the device for (what CuPy would run as
``cupy_copy`` / concatenate kernels). One Adam step of an MLP and of a small CNN (forward, loss,
backward, update) must copy nothing but the gradients, gathered once into the multi-tensor update's
flat buffer: the variables and Adam slots are used in place (they are views of the flat buffers the
previous update produced), matmuls read transposed operands through their flags, and bias
gradients and reshapes work on contiguous arrays.
"""

import os
import sys

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops import training_ops

sys.path.insert(0, os.path.dirname(__file__))
import copy_counter  # noqa: E402
import cupy_strict  # noqa: E402


@pytest.fixture(scope="module")
def strict_gpu():
    with cupy_strict.strict_emulated_gpu() as backend:
        yield backend


def _model(kind):
    L = tf.keras.layers
    if kind == "mlp":
        return tf.keras.Sequential([L.Dense(32, activation="relu", input_shape=(20,)),
                                    L.Dense(16, activation="relu"), L.Dense(10)]), (20,)
    return tf.keras.Sequential([L.Conv2D(4, 3, padding="same", activation="relu", input_shape=(8, 8, 1)),
                                L.MaxPool2D(2), L.Conv2D(8, 3, padding="same", activation="relu"),
                                L.Flatten(), L.Dense(16, activation="relu"), L.Dense(10)]), (8, 8, 1)


def _adam_steps(kind, device, counter_backend=None, steps=3):
    """Losses and final weights of ``steps`` Adam steps; copies of the last one when counting."""
    rng = np.random.default_rng(0)
    with tf.device(device):
        tf.keras.utils.set_random_seed(0)
        model, shape = _model(kind)
        x = tf.constant(rng.standard_normal((4, *shape)).astype(np.float32))
        y = tf.constant(rng.integers(0, 10, 4).astype(np.int64))
        opt = tf.keras.optimizers.Adam(1e-2)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return float(loss.numpy())

        losses = [step() for _ in range(steps - 1)]
        counter = None
        if counter_backend is not None:
            with copy_counter.count_copies(counter_backend) as counter:
                losses.append(step())
        else:
            losses.append(step())
        return losses, [v.numpy() for v in model.trainable_variables], counter


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_adam_step_on_gpu_copies_only_the_gradients(strict_gpu, kind):
    losses, weights, counter = _adam_steps(kind, "/GPU:0", strict_gpu)
    assert counter.by_what() == {"concatenate": 1}, counter.report()
    ((_, site),) = counter.counts
    assert "training_ops.py" in site and "_concatenate_padded" in site  # the optimizer's one flat buffer
    want_losses, want_weights, _ = _adam_steps(kind, "/CPU:0")       # the same numbers as on the CPU
    np.testing.assert_allclose(losses, want_losses, rtol=1e-4)
    for got, want in zip(weights, want_weights):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_counter_sees_the_copies_it_is_meant_to(strict_gpu):
    """The counter is not blind: a transposed view made contiguous and a concatenation are counted."""
    a = strict_gpu.asarray(np.ones((3, 4), np.float32))
    with copy_counter.count_copies(strict_gpu) as c:
        xp = strict_gpu.xp                      # op code reads b.xp at each call
        xp.ascontiguousarray(a.T)
        xp.ascontiguousarray(a)                 # already contiguous: no copy
        xp.concatenate([a.reshape(-1), a.reshape(-1)])
        a.T.reshape(-1)                         # a non-contiguous reshape copies
    assert c.by_what() == {"ascontiguousarray": 1, "concatenate": 1, "reshape": 1}, c.report()


def test_flat_buffer_reuse_is_decided_from_the_arrays():
    """Consecutive views of one buffer are used as one flat array (also from an offset); views out of
    order, with gaps or of different buffers are concatenated."""
    buf = np.arange(20, dtype=np.float32)
    views = [buf[2:8].reshape(2, 3), buf[8:12], buf[12:13].reshape(())]
    flat = training_ops._flat_of(views)
    assert flat is not None and np.shares_memory(flat, buf)
    np.testing.assert_array_equal(flat, np.concatenate([v.reshape(-1) for v in views]))
    assert training_ops._flat_of([views[1], views[0], views[2]]) is None      # out of order
    assert training_ops._flat_of([buf[0:2], buf[3:5]]) is None                # a gap
    assert training_ops._flat_of([buf[0:2], np.arange(2, 4, dtype=np.float32)]) is None
    assert training_ops._flat_of([buf[0:4:2], buf[4:6]]) is None              # strided view
    assert training_ops._flat_of([np.ones(3, np.float32)]) is None            # owns its memory: no base
