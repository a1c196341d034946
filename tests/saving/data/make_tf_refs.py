"""Writes the TensorFlow-made reference files that tests/saving reads (run with TF 2.21 installed).

    python tests/saving/data/make_tf_refs.py

- ``tf_module/ckpt-1``: ``tf.train.Checkpoint(model=Net(), step=int64, note=string).save`` of a small
  tf.Module with nested modules, a list, a dict and several dtypes, then one more save
  (``ckpt-2``) after changing values, so the ``checkpoint`` state file names ckpt-2.
- ``keras3_cnn.keras``: a trained Keras 3 Sequential CNN (Conv2D, BatchNormalization, Flatten, Dropout,
  Dense) compiled with Adam; ``keras3_functional.keras``: a functional model with a Concatenate;
  ``keras3_lstm.keras``: Embedding + Bidirectional(LSTM) + LSTM + Dense; ``keras3_refs.npz``: inputs,
  the models' predictions, and the CNN's Adam step count and first slot.
- ``tf_keras/ckpt``: ``tf.train.Checkpoint(model=..., optimizer=...).write`` of a trained Keras 3 MLP
  (Dense, BatchNormalization, Dense; Adam): Keras 3's object names (``model/_functional/_operations/1/_kernel``,
  ``optimizer/_variables/<i>``); its inputs and predictions are in ``keras3_refs.npz`` (``ck_x``, ``ck_pred``).
"""

import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        self.b = tf.Variable(np.array([0.5, -1.5, 2.0], np.float64), name="b")
        self.inner = tf.Module()
        self.inner.count = tf.Variable(np.int32(7), name="count")
        self.inner.flag = tf.Variable(True, name="flag")
        self.blocks = [tf.Variable(np.full((2,), 3.0, np.float32)), {"scale": tf.Variable(np.float32(0.25))}]


def checkpoints():
    out = os.path.join(HERE, "tf_module")
    shutil.rmtree(out, ignore_errors=True)
    net = Net()
    ckpt = tf.train.Checkpoint(model=net, step=tf.Variable(np.int64(41)), note=tf.Variable(b"written by TF"))
    ckpt.save(os.path.join(out, "ckpt"))
    net.w.assign(net.w * 10.0)
    ckpt.step.assign_add(1)
    ckpt.save(os.path.join(out, "ckpt"))


def keras_files():
    import keras

    keras.utils.set_random_seed(0)
    rs = np.random.RandomState(0)
    x = rs.rand(8, 6, 6, 1).astype("float32")
    cnn = keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(2, 3, activation="relu"),
                            keras.layers.BatchNormalization(), keras.layers.Flatten(), keras.layers.Dropout(0.1),
                            keras.layers.Dense(3, activation="softmax")])
    cnn.compile(keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy", metrics=["accuracy"])
    cnn.fit(x, np.arange(8) % 3, epochs=2, batch_size=4, verbose=0)
    cnn.save(os.path.join(HERE, "keras3_cnn.keras"))
    inp = keras.Input((4,))
    h = keras.layers.Dense(3, activation="tanh", name="h")(inp)
    out = keras.layers.Dense(2, name="o")(keras.layers.concatenate([h, inp]))
    func = keras.Model(inp, out)
    xf = rs.rand(5, 4).astype("float32")
    func.save(os.path.join(HERE, "keras3_functional.keras"))
    rnn = keras.Sequential([keras.Input((6,), dtype="int32"), keras.layers.Embedding(10, 4),
                            keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True)),
                            keras.layers.LSTM(3), keras.layers.Dense(2)])
    xr = rs.randint(0, 10, (3, 6)).astype("int32")
    rnn.save(os.path.join(HERE, "keras3_lstm.keras"))
    mlp = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                            keras.layers.Dense(2)])
    mlp.compile(keras.optimizers.Adam(0.01), "mse")
    ck_x = rs.rand(8, 3).astype("float32")
    mlp.fit(ck_x, ck_x[:, :2], epochs=2, batch_size=4, verbose=0)
    shutil.rmtree(os.path.join(HERE, "tf_keras"), ignore_errors=True)
    tf.train.Checkpoint(model=mlp, optimizer=mlp.optimizer).write(os.path.join(HERE, "tf_keras", "ckpt"))
    np.savez(os.path.join(HERE, "keras3_refs.npz"), ck_x=ck_x, ck_pred=mlp.predict(ck_x, verbose=0),
             x=x, cnn=cnn.predict(x, verbose=0), xf=xf,
             func=func.predict(xf, verbose=0), iterations=int(cnn.optimizer.iterations.numpy()),
             kernel_momentum=cnn.optimizer.variables[2].numpy(), xr=xr, lstm=rnn.predict(xr, verbose=0))


if __name__ == "__main__":
    checkpoints()
    keras_files()
    print("TensorFlow", tf.__version__)
