"""Gradient conventions beyond the op-info table's per-op cases.

Every registered op with a gradient has its float64 finite-difference case (first and second order)
in the op-info table (tests/opinfo/table.py, run by tests/opinfo/test_gradients.py; the registry
enumeration in tests/opinfo/test_coverage.py fails for a differentiable op without one). This file keeps
the checks that are about a convention rather than one op: gradients reaching softmax cross-entropy's
labels, and TF's conjugate convention for complex inputs.
"""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients

_rng = np.random.default_rng(1234)


def r(*shape, lo=None, hi=None):
    """Random float64 array; with lo/hi, uniform in [lo, hi)."""
    if lo is not None:
        return _rng.uniform(lo, hi, size=shape)
    return _rng.standard_normal(shape)


_LABELS = np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]])


def _ri(c):
    """A real, nonlinear function of a complex tensor (its gradient reaches both parts)."""
    return tf.math.real(c) * tf.math.imag(c) + 0.5 * tf.math.real(c)


def _cplx(a, b):
    return tf.complex(a, b)


def test_softmax_xent_label_gradient():
    """d loss / d labels = -log_softmax(logits) (TF2: gradients flow into labels)."""
    logits = r(2, 3)
    labels = tf.constant(_LABELS)
    with tf.GradientTape() as tape:
        tape.watch(labels)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels, tf.constant(logits))
    g = tape.gradient(loss, labels).numpy()
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(g, -logp, rtol=1e-12)


# -- complex inputs: TF's convention (the gradient of a real loss is dL/dRe z + i dL/dIm z, so products
# use the conjugates of the other factors) checked by finite differences on the real and imaginary parts.
def _c2(a, b):
    """A well-conditioned complex 2x2 batch from real parts ``a`` and imaginary parts ``b``."""
    return tf.complex(a, b) + tf.constant(np.eye(2) * 3.0, tf.complex128)


COMPLEX_CASES = {
    "Mul": (lambda a, b, c, d: _ri(_cplx(a, b) * _cplx(c, d)), [r(2, 3), r(2, 3), r(3), r(3)]),
    "RealDiv": (lambda a, b, c, d: _ri(_cplx(a, b) / _cplx(c, d)),
                [r(2, 3), r(2, 3), r(2, 3, lo=0.5, hi=2.0), r(2, 3, lo=0.5, hi=2.0)]),
    "Reciprocal": (lambda a, b: _ri(tf.math.reciprocal(_cplx(a, b))), [r(2, 3, lo=0.5, hi=2.0), r(2, 3)]),
    "BatchMatMulV2": (lambda a, b, c, d: _ri(tf.matmul(_cplx(a, b), _cplx(c, d))),
                      [r(2, 3, 4), r(2, 3, 4), r(4, 2), r(4, 2)]),
    "BatchMatMulV2/adjoint": (lambda a, b, c, d: _ri(tf.matmul(_cplx(a, b), _cplx(c, d), adjoint_a=True)),
                              [r(4, 3), r(4, 3), r(4, 2), r(4, 2)]),
    "MatrixSolve": (lambda a, b, c, d: _ri(tf.linalg.solve(_c2(a, b), _cplx(c, d))),
                    [r(2, 2), r(2, 2), r(2, 3), r(2, 3)]),
    "MatrixSolve/adjoint": (lambda a, b, c, d: _ri(tf.linalg.solve(_c2(a, b), _cplx(c, d), adjoint=True)),
                            [r(2, 2), r(2, 2), r(2, 3), r(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
def test_complex_gradients_use_conjugates_as_tf(name, gradient_spy):
    fn, inputs = COMPLEX_CASES[name]
    spy = gradient_spy(name.split("/")[0])
    check_gradients(fn, *inputs)
    assert spy.calls > 0
