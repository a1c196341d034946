"""Writes ``tf_ragged_grow/``: the ragged guide's ``CustomModule`` saved by TensorFlow 2.21 (run with a real TF).

``grow(x) = x * v`` (``v = 100.0``) traced for ``tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32)``:
its FunctionDef takes the flat values and the row splits as two inputs and its signature is a
``TypeSpecProto`` of class ``RAGGED_TENSOR_SPEC`` (``tests/saving/test_ragged_saved_model.py`` loads it).

    /work/venvs/tf221/bin/python tests/saving/data/make_tf_ragged_saved_model.py
"""

import os
import shutil

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


class CustomModule(tf.Module):
    def __init__(self, variable_value):
        super().__init__()
        self.v = tf.Variable(variable_value)

    @tf.function
    def grow(self, x):
        return x * self.v


if __name__ == "__main__":
    out = os.path.join(HERE, "tf_ragged_grow")
    shutil.rmtree(out, ignore_errors=True)
    module = CustomModule(100.0)
    module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    tf.saved_model.save(module, out)
    print("wrote", out)
