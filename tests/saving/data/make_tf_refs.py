"""Writes the TensorFlow-made reference files that tests/saving reads (run with TF 2.21 installed).

    python tests/saving/data/make_tf_refs.py

- ``tf_module/ckpt-1``: ``tf.train.Checkpoint(model=Net(), step=int64, note=string).save`` of a small
  tf.Module with nested modules, a list, a dict and several dtypes, then one more save
  (``ckpt-2``) after changing values, so the ``checkpoint`` state file names ckpt-2.
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


if __name__ == "__main__":
    checkpoints()
    print("TensorFlow", tf.__version__)
