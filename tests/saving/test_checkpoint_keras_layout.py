"""tf.train.Checkpoint of Keras objects in Keras 3's layout, as TF 2.21 writes it, and the Keras 2 layout still read.

The TF-written checkpoints under data/tf_keras3 and data/tf_keras2 come from
data/make_tf_keras3_checkpoints.py, whose ``PROGRAMS`` are built here with tfcore (TF is not imported):
tfcore writes the same keys, shapes and dtypes, and restores TF's values exactly, before or after the
model and optimizer are built.
"""

import os
import sys

import numpy as np
import pytest

import tfcore as tf

DATA = os.path.join(os.path.dirname(__file__), "data")
sys.path.insert(0, DATA)
try:
    import make_tf_keras3_checkpoints as tf_programs
finally:
    sys.path.remove(DATA)

NAMES = sorted(tf_programs.PROGRAMS)


def _program(name):
    """``(model, optimizer, train_one_step, checkpoint objects)`` of one program, built with tfcore."""
    return tf_programs.PROGRAMS[name](tf, tf.keras)


def _fixture(name):
    return os.path.join(DATA, "tf_keras3", name)


def _tensors(path):
    reader = tf.train.load_checkpoint(path)
    keys = [k for k, _ in tf.train.list_variables(path) if k != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    return {k: reader.get_tensor(k) for k in keys}, reader.get_variable_to_dtype_map()


@pytest.mark.parametrize("name", NAMES)
def test_writes_the_keys_tensorflow_writes(tmp_path, name):
    """Same keys, shapes and dtypes as TF 2.21 + Keras 3 for the same program (``_kernel``, ``_functional``,
    ``optimizer/_variables/<i>``, model variables under ``optimizer/_trainable_variables/<i>``)."""
    _, _, train, objects = _program(name)
    train()
    path = tf.train.Checkpoint(**objects).write(str(tmp_path / "ck"))
    ours, our_dtypes = _tensors(path)
    theirs, their_dtypes = _tensors(_fixture(name))
    assert {k: v.shape for k, v in ours.items()} == {k: v.shape for k, v in theirs.items()}
    assert {k: our_dtypes[k] for k in ours} == {k: their_dtypes[k] for k in theirs}
    assert not any(".OPTIMIZER_SLOT" in k or "layer_with_weights" in k for k in ours)


def _build(model, opt, name):
    """Create the weights and slots without changing a value (no training step)."""
    if name == "guide_subclassed":
        model(np.zeros((1, 2), "float32"))
    opt.build(model.trainable_variables)


@pytest.mark.parametrize("built", [False, True], ids=["deferred", "built"])
@pytest.mark.parametrize("name", NAMES)
def test_restores_tensorflow_checkpoint_exactly(tmp_path, name, built):
    model, opt, train, objects = _program(name)
    if built:
        train()  # every weight and slot exists, with values of its own
    status = tf.train.Checkpoint(**objects).restore(_fixture(name))
    if not built:
        assert not opt.built
        _build(model, opt, name)  # the values wait for their variables, slots included
    status.assert_consumed()
    ours, _ = _tensors(tf.train.Checkpoint(**objects).write(str(tmp_path / "again")))
    theirs, _ = _tensors(_fixture(name))
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        np.testing.assert_array_equal(ours[key], value, err_msg=key)


def test_slot_lists_name_the_slots_of_each_model_variable():
    """Element j of ``_momentums``/``_velocities`` is the slot of ``_trainable_variables[j]``: checked on the values."""
    model, opt, _, objects = _program("guide_subclassed")
    tf.train.Checkpoint(**objects).restore(_fixture("guide_subclassed"))
    _build(model, opt, "guide_subclassed")
    reader = tf.train.load_checkpoint(_fixture("guide_subclassed"))
    kernel = model.l1.kernel
    np.testing.assert_array_equal(kernel.numpy(), reader.get_tensor("net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"))
    np.testing.assert_array_equal(opt.get_slot(kernel, "m").numpy(),
                                  reader.get_tensor("optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"))
    np.testing.assert_array_equal(opt.get_slot(model.l1.bias, "v").numpy(),
                                  reader.get_tensor("optimizer/_variables/5/.ATTRIBUTES/VARIABLE_VALUE"))
    assert int(opt.iterations.numpy()) == 1 and int(objects["step"].numpy()) == 7


def test_nadam_writes_keras3_u_product(tmp_path):
    """Keras 3's Nadam keeps prod(u_t) in a variable that TF 2.21 restores: tfcore writes its value, last in
    ``_variables``, and keeps it after restoring."""
    _, opt, train, objects = _program("dense_nadam")
    train()
    path = tf.train.Checkpoint(**objects).write(str(tmp_path / "ck"))
    ours = tf.train.load_checkpoint(path)
    theirs = tf.train.load_checkpoint(_fixture("dense_nadam"))
    key = "optimizer/_u_product/.ATTRIBUTES/VARIABLE_VALUE"
    np.testing.assert_allclose(ours.get_tensor(key), theirs.get_tensor(key), rtol=1e-6)
    np.testing.assert_allclose(ours.get_tensor(key), 0.9 * (1 - 0.5 * 0.96), rtol=1e-6)
    assert opt.variables[-1] is opt._u_product and len(opt.variables) == 2 + 2 * 2 + 1
    train()  # the second step's product
    np.testing.assert_allclose(float(opt._u_product.numpy()), 0.9 * (1 - 0.5 * 0.96) * 0.9 * (1 - 0.5 * 0.96 ** 2),
                               rtol=1e-6)


@pytest.mark.parametrize("built", [False, True], ids=["deferred", "built"])
def test_keras2_layout_still_restores(built):
    """tf_keras (legacy Adam) and tfcore before the Keras 3 layout: ``layer_with_weights-0/kernel``, ``iter``,
    slots under ``.OPTIMIZER_SLOT``."""
    path = os.path.join(DATA, "tf_keras2", "dense_adam")
    reader = tf.train.load_checkpoint(path)
    model, opt, train, objects = _program("dense_adam")
    if built:
        train()
    status = tf.train.Checkpoint(**objects).restore(path)
    if not built:
        _build(model, opt, "dense_adam")
    status.assert_existing_objects_matched()
    status.expect_partial()  # legacy Adam's beta_1, beta_2 and decay variables have no tfcore counterpart
    dense = model.layers[0]
    prefix = "model/layer_with_weights-0/"

    def stored(key):
        return reader.get_tensor(key + "/.ATTRIBUTES/VARIABLE_VALUE")

    np.testing.assert_array_equal(dense.kernel.numpy(), stored(prefix + "kernel"))
    np.testing.assert_array_equal(dense.bias.numpy(), stored(prefix + "bias"))
    for slot in ("m", "v"):
        np.testing.assert_array_equal(opt.get_slot(dense.kernel, slot).numpy(),
                                      stored(f"{prefix}kernel/.OPTIMIZER_SLOT/optimizer/{slot}"))
        np.testing.assert_array_equal(opt.get_slot(dense.bias, slot).numpy(),
                                      stored(f"{prefix}bias/.OPTIMIZER_SLOT/optimizer/{slot}"))
    assert int(opt.iterations.numpy()) == int(stored("optimizer/iter"))
    np.testing.assert_allclose(float(opt.learning_rate.numpy()), float(stored("optimizer/learning_rate")))


def test_keras_2_11_optimizer_layout_restores_through_its_slot_lists():
    """tf_keras's (Keras 2.11-2.15) optimizer lists ``_variables`` without the learning rate (``_variables/1`` is
    the first momentum): its slots restore by the ``_momentums``/``_velocities`` lists into a built optimizer."""
    path = os.path.join(DATA, "tf_keras2", "dense_adam_v2")
    reader = tf.train.load_checkpoint(path)
    model, opt, train, objects = _program("dense_adam")
    train()
    tf.train.Checkpoint(**objects).restore(path).assert_consumed()
    dense = model.layers[0]

    def stored(key):
        return reader.get_tensor(key + "/.ATTRIBUTES/VARIABLE_VALUE")

    np.testing.assert_array_equal(dense.kernel.numpy(), stored("model/layer_with_weights-0/kernel"))
    np.testing.assert_array_equal(opt.get_slot(dense.kernel, "m").numpy(), stored("optimizer/_variables/1"))
    np.testing.assert_array_equal(opt.get_slot(dense.kernel, "v").numpy(), stored("optimizer/_variables/2"))
    np.testing.assert_array_equal(opt.get_slot(dense.bias, "v").numpy(), stored("optimizer/_variables/4"))
    assert int(opt.iterations.numpy()) == 1


def test_layers_held_in_lists_are_saved_unlike_tf221(tmp_path):
    """A deliberate difference: Keras 3 on TF 2.21 drops layers held in a list or dict (and the layer holding
    them) from checkpoints, losing their weights; tfcore saves and restores them by index and key."""

    class Block(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.parts = [tf.keras.layers.Dense(2), tf.keras.layers.Dense(2)]
            self.named = {"a": tf.keras.layers.Dense(2)}

        def call(self, x):
            return self.named["a"](self.parts[1](self.parts[0](x)))

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [tf.keras.layers.Dense(2)]
            self.blk = Block()

        def call(self, x):
            return self.blk(self.blocks[0](x))

    x = np.ones((1, 3), "float32")
    a = Net()
    a(x)
    path = tf.train.Checkpoint(model=a).write(str(tmp_path / "ck"))
    keys = dict(tf.train.list_variables(path))
    assert keys["model/blocks/0/_kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [3, 2]
    assert keys["model/blk/parts/1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 2]
    assert keys["model/blk/named/a/bias/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    b = Net()
    b(x)
    tf.train.Checkpoint(model=b).restore(path).assert_consumed()
    np.testing.assert_array_equal(b(x).numpy(), a(x).numpy())
