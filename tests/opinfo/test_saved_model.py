"""The entries marked ``saved_model``: their first sample, traced in a ``tf.function`` with an input
signature, saved with ``tf.saved_model.save`` and loaded back, gives the eager values (the op is written
as TF's NodeDef and interpreted from the file on load, never by running Python code from it)."""

import numpy as np
import pytest

import tfcore as tf

from . import table  # noqa: F401  (fills OPS)
from .core import OPS, _flat

SAVED = sorted(name for name, info in OPS.items() if info.saved_model)


def test_every_family_has_a_saved_model_case():
    assert len(SAVED) >= 20


@pytest.mark.parametrize("name", SAVED)
def test_saved_model_round_trip(name, tmp_path):
    c = OPS[name].samples[0]
    with tf.device("/CPU:0"):
        tensors = [tf.constant(a) for a in c.arrays]
        want = [t.numpy() for t in _flat(c.fn(*tensors))]
        module = tf.Module()
        module.f = tf.function(lambda *xs: c.fn(*xs),
                               input_signature=[tf.TensorSpec(t.shape, t.dtype) for t in tensors])
        tf.saved_model.save(module, str(tmp_path / "m"))
        loaded = tf.saved_model.load(str(tmp_path / "m"))
        got = [t.numpy() for t in _flat(loaded.f(*tensors))]
    assert len(got) == len(want), f"{name}: {len(got)} outputs after loading, {len(want)} before"
    for k, (a, b) in enumerate(zip(got, want)):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{name}[{k}]: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"{name}[{k}]")
