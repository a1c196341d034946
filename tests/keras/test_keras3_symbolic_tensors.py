"""Keras 3 symbolic tensors (``keras.Input`` and functional outputs) as TF 2.21 shows them.

Read from TF 2.21 / Keras 3.15: ``dtype`` is a plain str (so ``x.dtype.name`` raises AttributeError,
where the mixed-precision guide stops on TF 2.21), an unnamed tensor is ``keras_tensor_N``, and the
repr is ``<KerasTensor shape=(None, 784), dtype=float32, sparse=False, ragged=False, name=digits>``.
"""

import re

import numpy as np
import pytest

import tfcore as tf


def test_input_dtype_is_a_str_and_repr_is_keras3s():
    x = tf.keras.Input(shape=(784,), name="digits")
    assert type(x.dtype) is str and x.dtype == "float32"
    with pytest.raises(AttributeError, match="'str' object has no attribute 'name'"):
        x.dtype.name  # noqa: B018 - TF 2.21 raises here
    assert repr(x) == "<KerasTensor shape=(None, 784), dtype=float32, sparse=False, ragged=False, name=digits>"
    assert str(x) == repr(x) and x.name == "digits" and x.ragged is False and x.ndim == 2
    assert tf.keras.Input(shape=(None, 3), dtype="int32").dtype == "int32"


def test_functional_outputs_are_named_keras_tensor_n_and_models_still_build():
    x = tf.keras.Input(shape=(4,), name="in4")
    h = tf.keras.layers.Dense(3, name="hidden")(x)
    y = h + 1.0
    for t in (h, y):
        assert re.fullmatch(r"keras_tensor(_\d+)?", t.name), t.name
        assert repr(t) == (f"<KerasTensor shape=(None, 3), dtype=float32, sparse=False, ragged=False, "
                           f"name={t.name}>")
    assert h.name != y.name
    model = tf.keras.Model(x, y)
    out = model(np.ones((2, 4), np.float32))
    np.testing.assert_allclose(out.numpy(), np.ones((2, 4)) @ model.layers[1].kernel.numpy() + 1.0, rtol=1e-6)


def test_mixed_precision_symbolic_dtypes_are_strs():
    policy = tf.keras.mixed_precision.Policy("mixed_float16")
    x = tf.keras.Input(shape=(8,))
    h = tf.keras.layers.Dense(4, dtype=policy)(x)
    out = tf.keras.layers.Activation("softmax", dtype="float32")(h)
    assert (h.dtype, out.dtype) == ("float16", "float32") and type(h.dtype) is str
    model = tf.keras.Model(x, out)
    assert model(np.ones((1, 8), np.float32)).dtype == tf.float32
