"""Keras BatchNormalization in training runs one FusedBatchNormV3 forward and one FusedBatchNormGradV3 backward,
with the values of the composite path (``tf.nn.moments`` + ``tf.nn.batch_normalization``) it replaces.

The composite path is what a layer with ``_fused_format = None`` runs (masks of synchronized layers, axes the op
cannot express); each test compares the two on the same weights and data.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore import distribute as dist
from tfcore.benchmarks.op_profile import count_ops

L = tf.keras.layers
RNG = np.random.default_rng(3)


executed_ops = count_ops  # Counter of the ops fn() executes


def _composite(layer):
    layer._fused_format = None
    return layer


def _train_step(layer, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        loss = tf.reduce_sum(y * y * tf.sin(x))
    return y, tape.gradient(loss, [x] + layer.trainable_variables)


def test_one_training_step_runs_a_handful_of_ops():
    """Forward + backward of a BN layer in training: 52 ops on the composite path, 3 fused, plus 3 small ones
    that blend the biased batch variance into the moving variance as Keras 3 does (the op blends TF's
    Bessel-corrected one; the moving mean is the op's blend)."""
    bn = L.BatchNormalization()
    x = tf.constant(RNG.standard_normal((4, 5, 5, 8)).astype(np.float32))
    _train_step(bn, x)  # build

    def step():
        with tf.GradientTape() as tape:
            tape.watch(x)
            out = bn(x, training=True)
        tape.gradient(out, [x] + bn.trainable_variables)

    ops = executed_ops(step)
    assert ops["FusedBatchNormV3"] == 1 and ops["FusedBatchNormGradV3"] == 1
    assert sum(ops.values()) <= 6, ops
    composite = executed_ops(lambda: (_composite(bn), step()))
    assert "FusedBatchNormV3" not in composite and sum(composite.values()) > 30, composite


@pytest.mark.parametrize("shape, axis", [
    ((4, 5, 3, 6), -1), ((3, 6, 4, 5), 1), ((7, 3), -1), ((5, 4, 3), -1), ((5, 4, 3), 1), ((2, 3, 2, 3, 4), -1),
    ((2, 4, 3, 2, 2), 1), ((6, 3, 3, 1), -1),
])
@pytest.mark.parametrize("options", [{}, {"scale": False}, {"center": False, "momentum": 0.5}])
def test_training_matches_the_composite_path(shape, axis, options):
    x = tf.constant((RNG.standard_normal(shape) * 2 + 1).astype(np.float32))
    fused, composite = L.BatchNormalization(axis=axis, **options), L.BatchNormalization(axis=axis, **options)
    fused.build(shape)
    composite.build(shape)
    _composite(composite)
    for w in fused.trainable_variables:  # non-default gamma/beta
        w.assign(RNG.uniform(0.5, 1.5, w.shape).astype(np.float32))
    composite.set_weights(fused.get_weights())
    for _ in range(2):  # twice: the second step starts from updated moving averages
        count = executed_ops(lambda: _train_step(fused, x))
        y_f, g_f = _train_step(fused, x)
        y_c, g_c = _train_step(composite, x)
        _train_step(composite, x)
        assert count["FusedBatchNormV3"] == 1 and count["FusedBatchNormGradV3"] == 1
        np.testing.assert_allclose(y_f.numpy(), y_c.numpy(), rtol=1e-5, atol=1e-5)
        for a, b in zip(g_f, g_c):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)
    for a, b in zip(fused.non_trainable_variables, composite.non_trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)  # moving mean/variance


def test_moving_variance_blends_the_biased_batch_variance_as_keras3():
    """Every rank blends the biased batch variance, as Keras 3 (TF 2.21 printed 20.025963 for x = arange(8)**1.5
    as (2, 2, 2, 1) and momentum 0.5: 0.5 + 0.5 * 39.05, not the Bessel-corrected 44.63)."""
    x = (np.arange(8, dtype=np.float32) ** 1.5).reshape(2, 2, 2, 1)
    bn = L.BatchNormalization(momentum=0.5)
    bn(x, training=True)
    np.testing.assert_allclose(bn.moving_variance.numpy(), [20.025963], rtol=1e-6)
    x4 = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32)
    bn = L.BatchNormalization(momentum=0.5)
    bn(x4, training=True)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * x4.var(axis=(0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * x4.mean(axis=(0, 1, 2)), rtol=1e-5, atol=1e-7)
    x2 = RNG.standard_normal((16, 3)).astype(np.float32)
    bn2 = L.BatchNormalization(momentum=0.5)
    bn2(x2, training=True)
    np.testing.assert_allclose(bn2.moving_variance.numpy(), 0.5 + 0.5 * x2.var(axis=0), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_16_and_64_bit_layers(dtype):
    x = tf.constant((RNG.standard_normal((4, 3, 3, 5)) * 2 + 1).astype(dtype))
    fused, composite = L.BatchNormalization(dtype=dtype), _composite_built(L.BatchNormalization(dtype=dtype), x)
    fused.build(x.shape)
    y_f, g_f = _train_step(fused, x)
    y_c, g_c = _train_step(composite, x)
    assert y_f.dtype == x.dtype and g_f[0].dtype == x.dtype
    tol = 2e-3 if dtype == "float16" else 1e-12
    np.testing.assert_allclose(tf.cast(y_f, tf.float64).numpy(), tf.cast(y_c, tf.float64).numpy(), rtol=tol,
                               atol=tol)
    for a, b in zip(g_f, g_c):
        np.testing.assert_allclose(tf.cast(a, tf.float64).numpy(), tf.cast(b, tf.float64).numpy(), rtol=tol * 5,
                                   atol=tol * 5)
    for a, b in zip(fused.non_trainable_variables, composite.non_trainable_variables):
        assert a.dtype == ("float32" if dtype == "float16" else "float64")
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5 if dtype == "float16" else 1e-12)


def _composite_built(layer, x):
    layer.build(x.shape)
    return _composite(layer)


def _model(seed):
    tf.keras.utils.set_random_seed(seed)
    return tf.keras.Sequential([
        # no biases before BN: their gradient is 0 up to rounding, and Adam would amplify the rounding noise
        tf.keras.Input((6, 6, 3)), L.Conv2D(4, 3, padding="same", use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.Conv2D(4, 3, use_bias=False), L.BatchNormalization(axis=-1, momentum=0.9), L.GlobalAveragePooling2D(),
        L.Dense(8, use_bias=False), L.BatchNormalization(), L.Dense(3)])


@pytest.mark.parametrize("policy", ["float32", "mixed_float16"])
def test_fit_matches_the_composite_path(policy):
    """A few steps of ``fit`` (tf.function) with SGD (Adam would magnify rounding differences of near-zero
    gradients): weights and moving statistics as on the composite path."""
    x = RNG.standard_normal((16, 6, 6, 3)).astype(np.float32)
    y = RNG.integers(0, 3, 16)
    tf.keras.mixed_precision.set_global_policy(policy)
    try:
        models = [_model(0), _model(0)]
        for layer in models[1].layers:
            if isinstance(layer, L.BatchNormalization):
                _composite(layer)
        for m in models:
            m.compile(tf.keras.optimizers.SGD(0.1), tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    finally:
        tf.keras.mixed_precision.set_global_policy("float32")
    tol = 2e-2 if policy == "mixed_float16" else 1e-4
    for a, b in zip(models[0].weights, models[1].weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=tol, err_msg=a.path)
    np.testing.assert_allclose(models[0].predict(x, verbose=0), models[1].predict(x, verbose=0), rtol=tol * 10,
                               atol=tol * 10)


def test_frozen_layer_and_inference_keep_the_composite_path():
    bn = L.BatchNormalization()
    x = tf.constant(RNG.standard_normal((2, 3, 3, 4)).astype(np.float32))
    bn(x, training=True)
    assert "FusedBatchNormV3" not in executed_ops(lambda: bn(x, training=False))
    bn.trainable = False
    before = bn.moving_mean.numpy()
    assert "FusedBatchNormV3" not in executed_ops(lambda: bn(x, training=True))
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)


def test_synchronized_layer_keeps_the_composite_path():
    bn = L.BatchNormalization(synchronized=True)
    x = tf.constant(RNG.standard_normal((2, 3, 3, 4)).astype(np.float32))
    assert "FusedBatchNormV3" not in executed_ops(lambda: bn(x, training=True))


def test_training_graph_saves_and_reloads(tmp_path):
    """A tf.function that trains a BN layer (FusedBatchNormV3 in its graph) saves as a SavedModel and the reloaded
    function computes the same output."""
    bn = L.BatchNormalization()
    x = RNG.standard_normal((2, 3, 3, 4)).astype(np.float32)
    bn(x, training=True)
    module = tf.Module()
    module.bn = bn
    module.train = tf.function(lambda t: bn(t, training=True),
                               input_signature=[tf.TensorSpec([None, 3, 3, 4], tf.float32)])
    want = module.train(tf.constant(x)).numpy()
    tf.saved_model.save(module, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded.train(tf.constant(x)).numpy(), want, rtol=1e-6, atol=1e-6)


def test_mirrored_strategy_replicas_match_the_composite_path(two_cpus):
    """Under MirroredStrategy each replica normalises its shard with the fused op and updates its copy of the
    sync-on-read moving statistics; reads average them, as on the composite path."""
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        fused, composite = L.BatchNormalization(momentum=0.5), L.BatchNormalization(momentum=0.5)
        fused.build((None, 3, 3, 4))
        composite.build((None, 3, 3, 4))
    _composite(composite)
    shards = [(RNG.standard_normal((2, 3, 3, 4)) * (k + 1)).astype(np.float32) for k in range(2)]
    outs = []
    for layer in (fused, composite):
        per_replica = dist.PerReplica([tf.constant(s) for s in shards])
        outs.append(strategy.run(lambda xs, layer=layer: _train_step(layer, xs), args=(per_replica,)))
    for a, b in zip(fused.non_trainable_variables, composite.non_trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    want_var = np.mean([0.5 + 0.5 * s.var(axis=(0, 1, 2)) for s in shards], axis=0)  # biased, as Keras 3
    np.testing.assert_allclose(fused.moving_variance.numpy(), want_var, rtol=1e-5)
    (y_f, g_f), (y_c, g_c) = outs
    for r in range(2):
        np.testing.assert_allclose(y_f.values[r].numpy(), y_c.values[r].numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(g_f[0].values[r].numpy(), g_c[0].values[r].numpy(), rtol=1e-4, atol=1e-4)
