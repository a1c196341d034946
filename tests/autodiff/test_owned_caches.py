"""Device-bound memo tables are owned by their modules and emptied with the context."""

import tfcore as tf
from tfcore.autodiff import tape as tape_mod
from tfcore.backend import collectives
from tfcore.framework.context import context


def test_scalar_gradient_seeds_are_forgotten_with_the_devices():
    with tf.device("/CPU:0"):
        x = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            y = x * x
        assert float(tape.gradient(y, x)) == 4.0
    assert tape_mod._SCALAR_ONES  # the seed for float32 scalars on CPU:0 is shared
    saved = dict(tape_mod._SCALAR_ONES)
    try:
        context.reset_for_tests()
        assert tape_mod._SCALAR_ONES == {}
    finally:
        context.reset_for_tests()
    assert saved


def test_nccl_communicators_are_dropped_with_the_context(monkeypatch):
    cleared = []
    monkeypatch.setattr(collectives._communicators, "clear", lambda: cleared.append(True))
    context.reset_for_tests()
    assert cleared == [True]
