"""MaxPool's argmax residual and ``_FusedMaxPoolGrad`` (ReluGrad folded into MaxPoolGrad, issue 28).

The fused op against a float64 reference (first maximum of each window, row-major, times ``y > 0``) and
against the two unfused kernels to the bit (float32/float64, ragged and gapped disjoint windows, SAME and
VALID, ties of ReLU zeros, NaN and infinities in x and dy, with and without MaxPool's argmax bytes), its
rule, its gradient, and the graph remapper that puts it into ``tf.function`` training steps.
"""

import itertools

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import native_cpu
from tfcore.framework.errors import InvalidArgumentError
from tfcore.ops import nn_ops, pool_ops
from tfcore.ops.registry import execute

pytestmark = pytest.mark.usefixtures("on_cpu")
_rng = np.random.default_rng(28)

needs_native = pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: NumPy paths only")


def _attrs(k, s, padding, fused=False):
    a = dict(ksize=(1, k, k, 1), strides=(1, s, s, 1), padding=padding, explicit_paddings=(), data_format="NHWC")
    return {**a, "fused_ops": ("ReluGrad",)} if fused else a


def _relu_input(shape, dtype, specials):
    """A ReLU's output (many zeros: ties and all-zero windows), with NaN and inf when ``specials``."""
    x = np.maximum(_rng.standard_normal(shape), 0).astype(dtype)
    if specials:
        x[0, 0, 0, 0] = np.nan
        x[-1, -1, -1, -1] = np.inf
    return x


def _reference(x, y, dy, k, s, pads):
    """float64: each window's dy * (y > 0) at the window's first maximum (row-major), by loops."""
    n, h, w, c = x.shape
    dx = np.zeros(x.shape, np.float64)
    for b, oy, ox, ch in itertools.product(range(n), range(y.shape[1]), range(y.shape[2]), range(c)):
        mask = 1.0 if y[b, oy, ox, ch] > 0 else 0.0
        for i, j in itertools.product(range(k), range(k)):
            r, col = oy * s + i - pads[0], ox * s + j - pads[1]
            if 0 <= r < h and 0 <= col < w and x[b, r, col, ch] == y[b, oy, ox, ch]:
                dx[b, r, col, ch] = np.float64(dy[b, oy, ox, ch]) * mask
                break
    return dx


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k,s,padding,pads", [
    ((2, 8, 8, 16), 2, 2, "VALID", (0, 0)), ((3, 7, 9, 5), 2, 2, "SAME", (0, 0)),
    ((2, 7, 7, 4), 2, 3, "VALID", (0, 0)), ((1, 7, 8, 3), 3, 3, "SAME", (1, 0)), ((2, 5, 5, 32), 2, 2, "SAME", (0, 0))])
@pytest.mark.parametrize("specials", [False, True])
def test_fused_max_pool_grad_is_relu_grad_of_max_pool_grad_to_the_bit(cpu, dtype, shape, k, s, padding, pads,
                                                                      specials):
    x = _relu_input(shape, dtype, specials)
    pooled = pool_ops._max_pool_native(cpu, x, **_attrs(k, s, padding))
    y, argmax = pooled.output, pooled.saved["argmax"]
    dy = _rng.standard_normal(y.shape).astype(dtype)
    if specials:
        dy[0, -1, -1, 0], dy[-1, 0, 0, -1] = np.inf, -np.inf
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN in ReluGrad, as in TF
        unfused = nn_ops._relu_grad(cpu, pool_ops._max_pool_grad(cpu, x, y, dy, **_attrs(k, s, padding)), x)
        np.testing.assert_array_equal(
            pool_ops._fused_max_pool_grad(cpu, x, y, dy, **_attrs(k, s, padding, True)), unfused)
    for am in (None, argmax):
        got = pool_ops._fused_max_pool_grad_native(cpu, x, y, dy, **_attrs(k, s, padding, True), argmax=am)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, unfused)
    if not specials:
        np.testing.assert_array_equal(got, _reference(x, y, dy, k, s, pads).astype(dtype))


def test_fused_max_pool_grad_rule_names_the_bad_attrs():
    x = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    y = tf.constant(np.ones((1, 2, 2, 2), np.float32))
    with pytest.raises(InvalidArgumentError, match=r"_FusedMaxPoolGrad: windows must not overlap.*\[1, 3, 3, 1\]"):
        execute(pool_ops.FUSED_MAX_POOL_GRAD, (x, y, y), _attrs(3, 2, "SAME", True))
    with pytest.raises(InvalidArgumentError, match="_FusedMaxPoolGrad: fused_ops must be"):
        execute(pool_ops.FUSED_MAX_POOL_GRAD, (x, y, y), {**_attrs(2, 2, "SAME"), "fused_ops": ("Relu",)})
    with pytest.raises(InvalidArgumentError, match="_FusedMaxPoolGrad: shapes do not match"):
        execute(pool_ops.FUSED_MAX_POOL_GRAD, (x, x, y), _attrs(2, 2, "SAME", True))


def test_fused_max_pool_grad_gradient_is_its_adjoint():
    """<gg, F(dy)> == <F^T(gg), dy> for the linear map dy -> fused gradient (float64)."""
    x = tf.constant(_relu_input((2, 6, 6, 3), np.float64, False))
    y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    dy = tf.constant(_rng.standard_normal(y.shape))
    gg = tf.constant(_rng.standard_normal(x.shape))
    with tf.GradientTape() as tape:
        tape.watch(dy)
        out = execute(pool_ops.FUSED_MAX_POOL_GRAD, (x, y, dy), _attrs(2, 2, "VALID", True))
        inner = tf.reduce_sum(out * gg)
    (g,) = tape.gradient(inner, [dy])
    assert float(tf.reduce_sum(g * dy)) == pytest.approx(float(inner), rel=1e-12)


def _cnn_grads(model, x, labels):
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(x, training=True))
    return tape.gradient(loss, model.trainable_variables)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tf_function_training_step_folds_relu_grad_into_max_pool_grad(dtype):
    """A Keras Conv2D(relu) + MaxPooling2D model: the traced step runs _FusedMaxPoolGrad (one per pooling
    layer) and gives the eager (unfused) gradients to the bit."""
    tf.keras.backend.set_floatx(dtype)
    try:
        model = tf.keras.Sequential([
            tf.keras.Input((12, 12, 1)),
            tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"), tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
    finally:
        tf.keras.backend.set_floatx("float32")
    x = tf.constant(_rng.standard_normal((4, 12, 12, 1)).astype(dtype))
    labels = tf.constant(_rng.integers(0, 10, 4))
    eager = _cnn_grads(model, x, labels)
    step = tf.function(_cnn_grads)
    step(model, x, labels)  # the trace
    traced = step(model, x, labels)  # the plan
    for a, b in zip(traced, eager):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    cf = step.get_concrete_function(model, x, labels)
    assert cf._plan.stats["remapped"] == 2
    assert sum(s[1] is pool_ops.FUSED_MAX_POOL_GRAD for s in cf._plan.steps) == 2
    assert not any(s[1] is nn_ops.RELU_GRAD for s in cf._plan.steps)


def test_remapper_leaves_overlapping_windows_and_other_features_alone():
    """3x3 stride-2 windows overlap (no fusion); a ReluGrad of another tensor than the pool's input neither."""
    w = tf.constant(_rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    x = tf.constant(_rng.standard_normal((2, 9, 9, 2)).astype(np.float32))

    @tf.function
    def overlapping(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME"))
            loss = tf.reduce_sum(tf.nn.max_pool2d(h, 3, 2, "SAME") ** 2)
        return tape.gradient(loss, x)

    @tf.function
    def pool_of_relu_of_relu(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            h = tf.nn.relu(x)
            loss = tf.reduce_sum(tf.nn.max_pool2d(h * 2.0, 2, 2, "SAME") ** 2)
        return tape.gradient(loss, x)

    for f in (overlapping, pool_of_relu_of_relu):
        f(x)
        got = f(x)
        cf = f.get_concrete_function(x)
        assert cf._plan.stats["remapped"] == 0
        np.testing.assert_array_equal(got.numpy(), f.python_function(x).numpy())
