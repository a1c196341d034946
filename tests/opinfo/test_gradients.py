"""Every entry's gradient case: float64 finite differences of the first and the second gradient.

A spy on the op's gradient function checks that the case really ran the named op's gradient (a case
that stops exercising its op fails). Binary element-wise ops use broadcasting shapes, so the reduction
of each gradient to its input's shape is checked too. The second order differentiates the case's
gradient (nested tapes): each gradient function must itself be made of differentiable registered ops.
"""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

from . import table  # noqa: F401  (fills OPS)
from .core import OPS

CASES = sorted(name for name, info in OPS.items() if info.grad is not None)


@pytest.mark.parametrize("name", CASES)
def test_first_order(name, gradient_spy):
    case = OPS[name].grad
    spy = gradient_spy(name)
    check_gradients(case.fn, *case.inputs, **case.options)
    assert spy.calls > 0, f"the case for {name} never ran {name}'s gradient"


def _gradient_of(fn):
    """``(*xs) -> concat(flat d<fn(xs)**2, w>/dx for each x)``, built with a tape.

    Squaring makes the upstream gradient depend on ``xs``, so even a linear op's gradient
    function is differentiated (through its ``dy`` input) by the outer tape.
    """

    def g(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
            w = tf.constant(np.random.default_rng(7).standard_normal(y.shape.as_list()))
            s = tf.reduce_sum(y * y * w)
        grads = tape.gradient(s, list(xs), unconnected_gradients="zero")
        return tf.concat([tf.reshape(gr, [-1]) for gr in grads], axis=0)

    return g


@pytest.mark.parametrize("name", CASES)
def test_second_order(name, gradient_spy):
    case = OPS[name].grad
    spy = gradient_spy(name)
    check_gradients(_gradient_of(case.fn), *case.inputs, **case.options)
    assert spy.calls > 0
