"""Writes the TensorFlow-made checkpoints of Keras programs that tests/saving/test_checkpoint_keras_layout.py
restores and compares key by key (run with TF 2.21, Keras 3 and tf_keras installed):

    python tests/saving/data/make_tf_keras3_checkpoints.py

``tf_keras3/<name>``: ``tf.train.Checkpoint(...).write`` of each program in ``PROGRAMS`` under TF 2.21 +
Keras 3 (Keras 3's object graph: ``model/_functional/_operations/<i>/_kernel``, ``optimizer/_variables/<i>``,
``optimizer/_trainable_variables/<i>``, one list per slot kind). ``tf_keras2/dense_adam``: the first
program written by tf_keras with its legacy Adam (Keras 2's graph: ``model/layer_with_weights-0/kernel``,
``optimizer/iter``, slots under ``.OPTIMIZER_SLOT``), as TF <= 2.15 and tfcore before the Keras 3 layout
wrote it; ``tf_keras2/dense_adam_v2``: the same with tf_keras's Keras 2.11+ Adam (``optimizer/_variables/<i>``
without the learning rate, ``_momentums``/``_velocities`` lists, no ``_trainable_variables``).

The test file builds the same programs in tfcore (``PROGRAMS`` is imported there with ``tf`` and ``keras``
set to tfcore's), so each program is written once. Each trains one step so that every slot exists.
"""

import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _step(tf, model, opt, x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    variables = model.trainable_variables
    opt.apply_gradients(zip(tape.gradient(loss, variables), variables))


def dense_adam(tf, keras, adam=None):
    """A Sequential with an Input and a Dense, Adam after one step: ``Checkpoint(model=, optimizer=)``."""
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    opt = (adam or keras.optimizers.Adam)(0.01)
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    return model, opt, lambda: _step(tf, model, opt, x, x[:, :2]), dict(model=model, optimizer=opt)


def dense_nadam(tf, keras):
    """As ``dense_adam`` with Nadam, whose ``_u_product`` variable follows the slots in ``optimizer/_variables``."""
    return dense_adam(tf, keras, keras.optimizers.Nadam)


def cnn_sgd_momentum(tf, keras):
    """Conv2D, BatchNormalization, Flatten, Dense; SGD with momentum after one (training) step."""
    model = keras.Sequential([keras.Input((5, 5, 1)), keras.layers.Conv2D(2, 3), keras.layers.BatchNormalization(),
                              keras.layers.Flatten(), keras.layers.Dense(2)])
    opt = keras.optimizers.SGD(0.1, momentum=0.9)
    x = np.linspace(0, 1, 50, dtype="float32").reshape(2, 5, 5, 1)
    return model, opt, lambda: _step(tf, model, opt, x, np.ones((2, 2), "float32")), dict(model=model, optimizer=opt)


def rnn_rmsprop(tf, keras):
    """Embedding, LSTM, Dense; RMSprop (momentum, centered: three slot lists) after one step."""
    model = keras.Sequential([keras.Input((4,), dtype="int32"), keras.layers.Embedding(10, 3), keras.layers.LSTM(2),
                              keras.layers.Dense(1)])
    opt = keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True)
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], "int32")
    return model, opt, lambda: _step(tf, model, opt, x, np.ones((2, 1), "float32")), dict(model=model, optimizer=opt)


def guide_subclassed(tf, keras):
    """The checkpoint guide's program: a subclassed model, Adam, a step counter (``Checkpoint(step=, optimizer=,
    net=)``)."""

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.l1 = keras.layers.Dense(5)

        def call(self, x):
            return self.l1(x)

    net = Net()
    opt = keras.optimizers.Adam(0.1)
    x = np.arange(4, dtype="float32").reshape(2, 2)
    step = tf.Variable(np.int64(7))
    return net, opt, lambda: _step(tf, net, opt, x, np.ones((2, 5), "float32")), dict(step=step, optimizer=opt, net=net)


def functional_fit(tf, keras):
    """A functional model compiled with Adam and fit: ``Checkpoint(model=)`` holds the optimizer as
    ``model/optimizer``."""
    inp = keras.Input((3,))
    h = keras.layers.Dense(4, name="h")(inp)
    out = keras.layers.Dense(2, name="o")(keras.layers.concatenate([h, inp]))
    model = keras.Model(inp, out)
    model.compile(keras.optimizers.Adam(0.01), "mse")
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    return model, model.optimizer, lambda: model.fit(x, x[:, :2], batch_size=4, epochs=1, verbose=0), dict(model=model)


def layer_zoo(tf, keras):
    """A two-input functional model of layers whose Keras 3 attribute names differ from their weight names or
    nest (Conv2DTranspose's ``kernel``, DepthwiseConv2D's ``kernel``, EinsumDense's ``_kernel``, MultiHeadAttention's
    ``_query_dense``, Bidirectional's ``forward_layer/cell``) after one AdamW step: ``Checkpoint(model=)``."""
    L = keras.layers
    image, tokens = keras.Input((5, 5, 2)), keras.Input((4,), dtype="int32")
    a = L.Conv2DTranspose(2, 3)(image)
    a = L.DepthwiseConv2D(3)(a)
    a = L.SeparableConv2D(3, 3)(a)
    a = L.GlobalAveragePooling2D()(a)
    e = L.Embedding(10, 4)(tokens)
    e = L.LayerNormalization()(L.MultiHeadAttention(2, 2)(e, e))
    e = L.Bidirectional(L.GRU(2))(e)
    e = L.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c")(e)
    model = keras.Model([image, tokens], L.Dense(1)(L.concatenate([a, e])))
    opt = keras.optimizers.AdamW(0.01)
    x = [np.linspace(0, 1, 100, dtype="float32").reshape(2, 5, 5, 2), np.array([[1, 2, 3, 4], [4, 3, 2, 1]], "int32")]
    # the model alone: with the optimizer beside it, trainable weights would be keyed optimizer/_trainable_variables/<i>
    return model, opt, lambda: _step(tf, model, opt, x, np.ones((2, 1), "float32")), dict(model=model)


PROGRAMS = {f.__name__: f for f in (dense_adam, dense_nadam, cnn_sgd_momentum, rnn_rmsprop, guide_subclassed,
                                    functional_fit, layer_zoo)}


def main():
    import keras
    import tensorflow as tf

    keras.utils.set_random_seed(0)
    out = os.path.join(HERE, "tf_keras3")
    shutil.rmtree(out, ignore_errors=True)
    for name, make in PROGRAMS.items():
        _, _, train, objects = make(tf, keras)
        train()
        tf.train.Checkpoint(**objects).write(os.path.join(out, name))
    import tf_keras

    out2 = os.path.join(HERE, "tf_keras2")
    shutil.rmtree(out2, ignore_errors=True)
    _, _, train, objects = dense_adam(tf, tf_keras, tf_keras.optimizers.legacy.Adam)
    train()
    tf.train.Checkpoint(**objects).write(os.path.join(out2, "dense_adam"))
    _, _, train, objects = dense_adam(tf, tf_keras)  # Keras 2.11+'s optimizer: _variables without the learning rate
    train()
    tf.train.Checkpoint(**objects).write(os.path.join(out2, "dense_adam_v2"))
    print("TensorFlow", tf.__version__, "Keras", keras.__version__, "tf_keras", tf_keras.__version__, file=sys.stderr)


if __name__ == "__main__":
    main()
