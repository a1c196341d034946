"""Keras behaviour kept by the training-step fast paths.

- cross-entropies of softmax/sigmoid activation outputs use the cached logits (``_keras_logits``),
  as TF Keras does: exact values and gradients where clipped probabilities would saturate;
- Dense and Conv2D run one fused op (``_FusedMatMul``/``_FusedConv2D``) with the same values;
- built-in optimizers update all variables with one multi-tensor op, equal to per-variable updates;
- the loss tracker's scalar update, metric resets and ``train_on_batch``'s single metrics walk.
"""

import warnings

import numpy as np
import pytest

import tfcore as tf
from tfcore.ops import registry

_rng = np.random.default_rng(3)


def _op_names(fn):
    names = []
    orig = registry.execute

    def spy(op, inputs, attrs=None):
        names.append(op.name)
        return orig(op, inputs, attrs)

    from tfcore.ops import fused_ops, loss_ops, math_ops, nn_ops, reduce_ops  # modules whose ops the layers run

    mods = [fused_ops, loss_ops, math_ops, nn_ops, reduce_ops]
    for m in mods:
        m.execute = spy
    try:
        fn()
    finally:
        for m in mods:
            m.execute = orig
    return names


# -- losses from cached logits ------------------------------------------------------------------------

def test_sparse_ce_of_a_softmax_output_uses_its_logits_even_when_saturated():
    logits = tf.constant([[30.0, -30.0, 0.0], [0.5, 1.0, -1.0]])
    labels = np.array([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = tf.keras.losses.SparseCategoricalCrossentropy()(labels, tf.keras.activations.softmax(logits))
    want = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)
    np.testing.assert_allclose(float(loss), float(want), rtol=1e-6)
    assert float(loss) > 25  # clipping at 1e-7 would cap the first sample's loss at ~16.1
    p = tf.nn.softmax(logits).numpy()
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), (p - np.eye(3)[labels]) / 2, atol=1e-6)


def test_plain_probabilities_are_still_clipped():
    probs = tf.constant([[1.0, 0.0, 0.0]])
    loss = tf.keras.losses.sparse_categorical_crossentropy(np.array([1]), probs)
    np.testing.assert_allclose(loss.numpy(), [-np.log(1e-7)], rtol=1e-4)


def test_from_logits_on_a_softmax_output_warns_and_uses_the_logits():
    logits = tf.constant([[2.0, 1.0, 0.1]])
    out = tf.keras.activations.softmax(logits)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        loss = tf.keras.losses.sparse_categorical_crossentropy(np.array([0]), out, from_logits=True)
    assert any("from_logits=True" in str(x.message) for x in w)
    np.testing.assert_allclose(loss.numpy(), tf.nn.sparse_softmax_cross_entropy_with_logits([0], logits).numpy(),
                               rtol=1e-6)


def test_categorical_and_binary_ce_use_cached_logits():
    logits = tf.constant([[40.0, 0.0], [-1.0, 2.0]])
    y = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
    cce = tf.keras.losses.categorical_crossentropy(y, tf.keras.activations.softmax(logits))
    np.testing.assert_allclose(cce.numpy(), tf.nn.softmax_cross_entropy_with_logits(y, logits).numpy(), rtol=1e-6)
    bce = tf.keras.losses.binary_crossentropy(y, tf.keras.activations.sigmoid(logits))
    want = tf.keras.losses.binary_crossentropy(y, logits, from_logits=True)
    np.testing.assert_allclose(bce.numpy(), want.numpy(), rtol=1e-6)


def test_dense_softmax_model_trains_on_logits_through_fit():
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax", input_shape=(4,))])
    model.compile("sgd", "sparse_categorical_crossentropy")
    x = _rng.standard_normal((8, 4)).astype(np.float32)
    y = _rng.integers(0, 3, 8)
    logits = x @ model.layers[0].kernel.numpy() + model.layers[0].bias.numpy()
    logp = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1, keepdims=True)) \
        - logits.max(1, keepdims=True)
    np.testing.assert_allclose(model.train_on_batch(x, y), -logp[np.arange(8), y].mean(), rtol=1e-5)


# -- fused layers ---------------------------------------------------------------------------------------

def test_dense_and_conv2d_run_one_fused_op_with_unchanged_values():
    x = _rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    conv = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")
    dense = tf.keras.layers.Dense(5, activation="relu")
    conv(x), dense(x.reshape(2, -1))
    assert _op_names(lambda: conv(x)) == ["_FusedConv2D"]
    assert _op_names(lambda: dense(x.reshape(2, -1))) == ["_FusedMatMul"]
    # float32 sums in another order on a GPU: a few ulps
    want = np.maximum(tf.nn.conv2d(x, conv.kernel, 1, "SAME").numpy() + conv.bias.numpy(), 0)
    np.testing.assert_allclose(conv(x).numpy(), want, rtol=1e-5, atol=1e-6)
    want = np.maximum(x.reshape(2, -1) @ dense.kernel.numpy() + dense.bias.numpy(), 0)
    np.testing.assert_allclose(dense(x.reshape(2, -1)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_unfusable_layers_keep_their_ops():
    x = _rng.standard_normal((2, 3, 4)).astype(np.float32)
    dense = tf.keras.layers.Dense(2, use_bias=False, activation="tanh")
    np.testing.assert_allclose(dense(x).numpy(), np.tanh(x @ dense.kernel.numpy()), rtol=1e-6)
    dense3d = tf.keras.layers.Dense(2, activation="relu")
    np.testing.assert_allclose(dense3d(x).numpy(), np.maximum(x @ dense3d.kernel.numpy() + dense3d.bias.numpy(), 0),
                               rtol=1e-6)
    elu = tf.keras.layers.Dense(2, activation="elu")  # fused product and bias, then the activation
    out = elu(x[0]).numpy()
    z = x[0] @ elu.kernel.numpy() + elu.bias.numpy()
    np.testing.assert_allclose(out, np.where(z > 0, z, np.expm1(z)), rtol=1e-5, atol=1e-6)


# -- multi-tensor optimizer updates ------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: tf.keras.optimizers.Adam(0.01),
    lambda: tf.keras.optimizers.Adam(0.01, amsgrad=True),
    lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    lambda: tf.keras.optimizers.SGD(0.1),
    lambda: tf.keras.optimizers.RMSprop(0.01),
    lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    lambda: tf.keras.optimizers.Adagrad(0.1),
])
def test_one_update_op_for_all_variables_equals_per_variable_updates(make):
    shapes = [(3, 4), (4,), (2, 3)]
    init = [_rng.standard_normal(s).astype(np.float32) for s in shapes]
    together = [tf.Variable(v) for v in init]
    alone = [tf.Variable(v) for v in init]
    opt_together, opts_alone = make(), [make() for _ in shapes]  # one optimizer per variable: same step counts
    for step in range(3):
        grads = [tf.constant(_rng.standard_normal(s).astype(np.float32)) for s in shapes]
        opt_together.apply_gradients(zip(grads, together))
        for g, v, opt in zip(grads, alone, opts_alone):  # one variable per call: the per-variable ops
            opt.apply_gradients([(g, v)])
        if step == 1:  # an assignment between steps: the next update must see it
            together[0].assign(init[0])
            alone[0].assign(init[0])
    for a, b in zip(together, alone):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    assert int(opt_together.iterations.numpy()) == 3


def test_a_bad_gradient_among_many_changes_nothing():
    vs = [tf.Variable(np.ones((2, 2), np.float32)), tf.Variable(np.ones(3, np.float32))]
    opt = tf.keras.optimizers.Adam()
    with pytest.raises(tf.errors.InvalidArgumentError):
        opt.apply_gradients(zip([tf.ones((2, 2)), tf.ones(4)], vs))
    assert all((v.numpy() == 1).all() for v in vs) and int(opt.iterations.numpy()) == 0


# -- metrics ------------------------------------------------------------------------------------------------

def test_mean_scalar_updates_match_the_general_path():
    fast, general = tf.keras.metrics.Mean(), tf.keras.metrics.Mean()
    for value, weight in [(2.0, 3.0), (4.0, None), (1.0, 1)]:
        fast.update_state(tf.constant(value), sample_weight=weight)
        general.update_state(tf.constant([value]), sample_weight=None if weight is None else [float(weight)])
    np.testing.assert_allclose(float(fast.result()), float(general.result()), rtol=1e-7)
    np.testing.assert_allclose(float(fast.result()), (6 + 4 + 1) / 5, rtol=1e-7)
    fast.reset_state()
    assert float(fast.total.numpy()) == 0 and float(fast.result()) == 0
    fast.update_state(tf.constant(5.0))
    assert float(fast.result()) == 5.0


def test_train_on_batch_still_calls_an_overridden_reset_metrics():
    calls = []

    class M(tf.keras.Sequential):
        def reset_metrics(self):
            calls.append(1)
            super().reset_metrics()

    model = M([tf.keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse", metrics=["mae"])
    logs = model.train_on_batch(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), return_dict=True)
    assert calls and set(logs) == {"loss", "mae"}
    assert all(float(v.numpy()) == 0 for v in model.metrics_variables)
    names_and_values = model.train_on_batch(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32))
    assert len(names_and_values) == 2 and model.metrics_names == ["loss", "compile_metrics"]
