"""A training step leaves no reference-cycle garbage.

Tensors caught in a cycle live until Python's garbage collector runs, holding their device memory, and
the collections then cost the step: on an H200 (docs/gpu-results/2026-11-27-h200-run3.md) one closure in
``nest.pack_sequence_as`` kept all 216 gradients of an eager Keras ResNet50 step alive, and the collector's
passes made the step about a quarter slower. These tests run on whatever the default device is (the CPU, an
emulated GPU in CI's second pass, a real GPU where one exists).
"""

import collections
import gc

import numpy as np
import pytest

import tfcore as tf
from tfcore.benchmarks import op_profile
from tfcore.framework import nest


def cyclic_garbage(fn, warmup=2):
    """Types (name -> count) of the objects made by one ``fn()`` that only the garbage collector frees.

    Every object alive before the call is held until the count is taken, so that cycles made earlier (an
    earlier test's devices, say) cannot become garbage during the call and be counted as its own."""
    for _ in range(warmup):
        fn()
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    existing = gc.get_objects()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        fn()
        gc.collect()
        found = collections.Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        del existing
        if was_enabled:
            gc.enable()
    return found


def _small_cnn():
    L = tf.keras.layers
    return tf.keras.Sequential([L.Conv2D(4, 3, input_shape=(8, 8, 2)), L.BatchNormalization(), L.ReLU(),
                                L.Flatten(), L.Dense(3)])


def _data():
    rng = np.random.default_rng(0)
    return rng.random((8, 8, 8, 2), dtype=np.float32), rng.integers(0, 3, 8)


def test_pack_sequence_as_leaves_no_cycle():
    leaves = [tf.constant(float(i)) for i in range(5)]
    structure = {"a": [1, (2, 3)], "b": {"c": 4, "d": [5]}}
    packed = nest.pack_sequence_as(structure, leaves)
    assert nest.flatten(packed) == leaves
    assert cyclic_garbage(lambda: nest.pack_sequence_as(structure, leaves)) == {}


def test_eager_gradient_tape_step_leaves_no_cycle():
    step, _ = op_profile.build_step(tf, "cnn", 8)  # GradientTape, a Keras CNN, sparse cross-entropy, Adam
    assert cyclic_garbage(step) == {}


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["compiled", "run_eagerly"])
def test_fit_step_leaves_no_cycle(run_eagerly):
    model = _small_cnn()
    model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    x, y = _data()
    assert cyclic_garbage(lambda: model.fit(x, y, batch_size=4, epochs=1, verbose=0)) == {}
