"""tf.keras.mixed_precision: policies, autocast variables, float32 heads and statistics, loss scaling,
and convergence on the bundled digits under mixed_float16 (CPU and an emulated GPU)."""

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.context import context

mp = tf.keras.mixed_precision
layers = tf.keras.layers


@pytest.fixture(autouse=True)
def float32_policy_after():
    yield
    mp.set_global_policy(None)


def _f16(a):
    return np.asarray(a, np.float64).astype(np.float16).astype(np.float64)


# -- policies ---------------------------------------------------------------------------------------------

def test_policy_names_give_compute_and_variable_dtypes():
    for name, compute, variable in [("mixed_float16", "float16", "float32"), ("mixed_bfloat16", "bfloat16", "float32"),
                                    ("float32", "float32", "float32"), ("float16", "float16", "float16"),
                                    ("bfloat16", "bfloat16", "bfloat16"), ("float64", "float64", "float64")]:
        p = mp.Policy(name)
        assert (p.name, p.compute_dtype, p.variable_dtype) == (name, compute, variable)
    assert repr(mp.Policy("mixed_float16")) == '<DTypePolicy "mixed_float16">'  # as Keras 3 (TF 2.21)
    assert mp.DTypePolicy is mp.Policy
    with pytest.raises(ValueError, match="Cannot convert value 'mixed_float32'"):
        mp.Policy("mixed_float32")
    with pytest.raises(TypeError, match="not a DType"):
        mp.Policy(tf.float16)


def test_global_policy_default_set_and_reset():
    assert mp.global_policy().name == "float32"
    mp.set_global_policy("mixed_float16")
    assert mp.global_policy().name == "mixed_float16"
    assert layers.Dense(2).dtype_policy.name == "mixed_float16"
    with pytest.raises(ValueError, match="floating-point policies"):
        mp.set_global_policy("int32")
    assert mp.global_policy().name == "mixed_float16"  # a refused policy changes nothing
    mp.set_global_policy(None)
    assert mp.global_policy().name == "float32"


# -- layers: variables, activations, outputs ----------------------------------------------------------------

class _Probe(layers.Layer):
    """Records the dtypes its weight reads as inside call."""

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        self.seen = (tf.convert_to_tensor(self.w).dtype, (self.w * 2.0).dtype, self.w.dtype, x.dtype)
        return x * self.w


def test_mixed_float16_layer_keeps_float32_variables_and_computes_in_float16():
    mp.set_global_policy("mixed_float16")
    dense = layers.Dense(3, kernel_initializer="ones", bias_initializer="ones")
    x = np.full((2, 4), 0.1, np.float32)
    y = dense(x)
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == ("float32", "float16", "float32")
    assert y.dtype == tf.float16
    assert dense.kernel.dtype == tf.float32 and dense.kernel.numpy().dtype == np.float32
    assert isinstance(dense.kernel, mp.AutoCastVariable)
    assert dense.kernel.read_value().dtype == tf.float32  # outside call: the float32 variable
    np.testing.assert_allclose(y.numpy(), _f16(_f16(0.1) * 4 + 1), rtol=1e-3)

    probe = _Probe()
    probe(x)
    assert probe.seen == (tf.float16, tf.float16, tf.float32, tf.float16)


def test_gradients_reach_the_float32_variables_in_float32():
    mp.set_global_policy("mixed_float16")
    dense = layers.Dense(2, kernel_initializer="ones")
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.cast(dense(x), tf.float32))
    gk, gb = tape.gradient(loss, [dense.kernel, dense.bias])
    assert gk.dtype == tf.float32 and gb.dtype == tf.float32
    np.testing.assert_allclose(gk.numpy(), np.repeat(x.T, 2, axis=1))
    np.testing.assert_allclose(gb.numpy(), [1.0, 1.0])


def test_dtype_argument_takes_a_policy_or_its_name_and_float32_heads_stay_float32():
    mp.set_global_policy("mixed_float16")
    head = layers.Activation("softmax", dtype="float32")
    assert head.dtype_policy.name == "float32"
    out = head(tf.constant(np.zeros((1, 4)), tf.float16))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [[0.25] * 4])
    assert layers.Dense(2, dtype=mp.Policy("float32")).compute_dtype == "float32"
    bf = layers.Dense(2, dtype="mixed_bfloat16")
    assert bf(np.ones((1, 3), np.float32)).dtype == tf.bfloat16 and bf.kernel.dtype == tf.float32


def test_functional_model_dtypes_and_policy_config_round_trip():
    mp.set_global_policy("mixed_float16")
    inputs = tf.keras.Input((4,))
    hidden = layers.Dense(8, activation="relu")(inputs)
    logits = layers.Dense(3)(hidden)
    outputs = layers.Activation("softmax", dtype="float32")(logits)
    model = tf.keras.Model(inputs, outputs)
    assert (inputs.dtype, hidden.dtype, logits.dtype, outputs.dtype) == (tf.float32, tf.float16, tf.float16,
                                                                          tf.float32)
    assert model(np.ones((2, 4), np.float32)).dtype == tf.float32
    assert all(w.dtype == tf.float32 for w in model.weights)
    config = model.layers[1].get_config()
    assert config["dtype"] == {"class_name": "Policy", "config": {"name": "mixed_float16"}}
    mp.set_global_policy(None)
    assert layers.Dense.from_config(config).dtype_policy.name == "mixed_float16"


def test_batch_normalization_statistics_in_float32():
    mp.set_global_policy("mixed_float16")
    bn = layers.BatchNormalization(momentum=0.5)
    x = np.random.default_rng(0).standard_normal((16, 3)).astype(np.float32) * 3 + 1
    y = bn(x, training=True)
    assert y.dtype == tf.float16
    for w in (bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance):
        assert w.dtype == tf.float32 and not isinstance(w, mp.AutoCastVariable)
    xh = _f16(x)  # the layer sees float16 inputs and normalises them in float32
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * xh.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * xh.var(0), rtol=1e-5)
    np.testing.assert_allclose(y.numpy(), (xh - xh.mean(0)) / np.sqrt(xh.var(0) + 1e-3), atol=4e-3)


def test_embedding_gathers_float32_rows_and_casts_them():
    mp.set_global_policy("mixed_float16")
    emb = layers.Embedding(5000, 2)
    emb.build(None)
    emb.embeddings.assign(np.stack([np.arange(5000) % 7, np.full(5000, 0.5)], axis=1).astype(np.float32))
    out = emb(np.array([[4097.0, 1.0]]))  # float ids are not cast to float16 first (4097 is not a float16)
    assert out.dtype == tf.float16 and emb.embeddings.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[[4097 % 7, 0.5], [1, 0.5]]])


def test_metrics_stay_float32_under_a_mixed_global_policy():
    mp.set_global_policy("mixed_float16")
    m = tf.keras.metrics.Mean()
    m.update_state([1.0, 2.0])
    assert m.dtype == "float32" and m.result().dtype == tf.float32


# -- LossScaleOptimizer --------------------------------------------------------------------------------------

def test_loss_scale_optimizer_minimize_as_documented():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.25))
    var = tf.Variable(1.0)
    opt.minimize(lambda: var ** 2, var_list=[var])
    assert var.numpy() == 0.5
    assert float(opt.dynamic_scale.numpy()) == 2.0 ** 15 and int(opt.step_counter.numpy()) == 1
    assert opt.initial_scale == 2.0 ** 15 and opt.dynamic_growth_steps == 2000
    for keras2 in ("loss_scale", "dynamic_counter", "dynamic", "get_scaled_loss", "get_unscaled_gradients"):
        with pytest.raises(AttributeError, match="Keras 3"):  # TF 2.21 has none of them
            getattr(opt, keras2)


def test_loss_scale_optimizer_variables_and_checkpoint_are_keras3s(tmp_path):
    """Read from TF 2.21 (same model, one step): the wrapper's variables, then the inner optimizer's with its
    slots built under the wrapper; checkpoint entries dynamic_scale, step_counter, inner_optimizer/..."""
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,), name="dense")], name="sequential")
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01))
    assert [v.path for v in opt.variables] == ["loss_scale_optimizer/iteration", "loss_scale_optimizer/learning_rate",
                                               "adam/iteration", "adam/learning_rate"]
    with pytest.raises(AttributeError, match="built"):
        opt.dynamic_scale  # noqa: B018 - created by the first step, as in Keras 3
    with tf.GradientTape() as tape:
        scaled = opt.scale_loss(tf.reduce_sum(model(tf.ones((1, 3)))))
    opt.apply_gradients(zip(tape.gradient(scaled, model.trainable_variables), model.trainable_variables))
    assert [v.path for v in opt.variables] == [
        "loss_scale_optimizer/iteration", "loss_scale_optimizer/learning_rate", "loss_scale_optimizer/step_counter",
        "loss_scale_optimizer/dynamic_scale", "adam/iteration", "adam/learning_rate",
        "loss_scale_optimizer/adam/sequential_dense_kernel_momentum",
        "loss_scale_optimizer/adam/sequential_dense_kernel_velocity",
        "loss_scale_optimizer/adam/sequential_dense_bias_momentum",
        "loss_scale_optimizer/adam/sequential_dense_bias_velocity"]
    assert opt.iterations is opt.inner_optimizer.iterations and opt.learning_rate is opt.inner_optimizer.learning_rate
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ck"))
    names = sorted(n for n, _ in tf.train.list_variables(path) if n.startswith("optimizer/"))
    assert names == [f"optimizer/{k}/.ATTRIBUTES/VARIABLE_VALUE" for k in (
        "_iterations", "_learning_rate", "_trainable_variables/0", "_trainable_variables/1", "dynamic_scale",
        "inner_optimizer/_iterations", "inner_optimizer/_learning_rate", "inner_optimizer/_variables/2",
        "inner_optimizer/_variables/3", "inner_optimizer/_variables/4", "inner_optimizer/_variables/5",
        "step_counter")]
    # and back: a fresh wrapper restores the scale, the counter and the inner slots
    opt.dynamic_scale.assign(512.0)
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ck2"))
    fresh = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01))
    fresh.build(model.trainable_variables)
    tf.train.Checkpoint(model=model, optimizer=fresh).restore(path)
    assert float(fresh.dynamic_scale.numpy()) == 512.0 and int(fresh.iterations.numpy()) == 1
    np.testing.assert_array_equal(fresh.inner_optimizer.variables[2].numpy(), opt.inner_optimizer.variables[2].numpy())


def test_loss_scale_optimizer_arguments_are_validated():
    sgd = tf.keras.optimizers.SGD()
    with pytest.raises(ValueError, match="no longer supports `dynamic=False`"):  # TF 2.21's message
        mp.LossScaleOptimizer(sgd, dynamic=False, initial_scale=8)
    assert mp.LossScaleOptimizer(sgd, dynamic=True).initial_scale == 2.0 ** 15  # accepted, as TF
    with pytest.raises(ValueError, match="dynamic_growth_steps"):
        mp.LossScaleOptimizer(sgd, dynamic_growth_steps=0)
    with pytest.raises(ValueError, match="initial_scale"):
        mp.LossScaleOptimizer(sgd, initial_scale=-1.0)
    with pytest.raises(TypeError, match="inner_optimizer"):
        mp.LossScaleOptimizer("sgd")
    opt = mp.LossScaleOptimizer(sgd, initial_scale=8, dynamic_growth_steps=4)
    cfg = opt.get_config()
    assert set(cfg) == {"name", "inner_optimizer", "initial_scale", "dynamic_growth_steps"}  # Keras 3's keys
    again = mp.LossScaleOptimizer.from_config(cfg)
    assert again.get_config() == cfg
    assert mp.LossScaleOptimizer.from_config({**cfg, "dynamic": True}).get_config() == cfg  # a Keras 2 config


def test_non_finite_step_changes_no_variable_and_no_slot_and_halves_the_scale():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.1), initial_scale=8, dynamic_growth_steps=2)
    v = tf.Variable([1.0, 2.0])
    opt.apply_gradients([(tf.constant([0.5, 0.5]), v)])  # builds the slots, counter 1
    before = [v.numpy().copy()] + [s.numpy().copy() for s in opt.inner_optimizer.variables]
    opt.apply_gradients([(tf.constant([np.nan, 1.0]), v)])
    after = [v.numpy()] + [s.numpy() for s in opt.inner_optimizer.variables]
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.step_counter.numpy()) == 0
    assert int(opt.iterations.numpy()) == 1  # Keras 3 (TF 2.21): the skipped step does not count
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.step_counter.numpy()) == 1
    opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])  # 2 finite steps: the scale doubles
    assert float(opt.dynamic_scale.numpy()) == 8.0 and int(opt.step_counter.numpy()) == 0
    small = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(), initial_scale=1)
    small.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    small.apply_gradients([(tf.constant([np.inf, 1.0]), v)])
    assert float(small.dynamic_scale.numpy()) == 0.25  # Keras 3 halves without a floor (TF 2.21: 1 -> 0.25)


def test_keras3_trajectory_of_a_skipping_run():
    """The sequence TF 2.21 prints for SGD(0.1), initial_scale=2, dynamic_growth_steps=2 and gradients
    good, inf, inf, inf, good, good, good: (iterations, scale, variable) after each step."""
    v = tf.Variable([1.0, 2.0])
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), initial_scale=2.0, dynamic_growth_steps=2)
    good, bad = tf.constant([1.0, 1.0]), tf.constant([np.inf, 1.0])
    seen = []
    for g in (good, bad, bad, bad, good, good, good):
        opt.apply_gradients([(g, v)])
        seen.append((int(opt.iterations.numpy()), float(opt.dynamic_scale.numpy()),
                     v.numpy().astype(np.float64).round(4).tolist()))
    assert seen == [(1, 2.0, [0.95, 1.95]), (1, 1.0, [0.95, 1.95]), (1, 0.5, [0.95, 1.95]), (1, 0.25, [0.95, 1.95]),
                    (2, 0.25, [0.55, 1.55]), (3, 0.5, [0.15, 1.15]), (4, 0.5, [-0.05, 0.95])]


def test_scale_loss_promotes_float16_and_uses_the_initial_scale_before_the_first_step():
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
    assert float(opt.scale_loss(tf.constant(2.0)).numpy()) == 65536.0
    assert opt.scale_loss(tf.constant(2.0, tf.float16)).dtype == tf.float32  # TF 2.21: float32
    assert opt.scale_loss(tf.constant(2.0, tf.float64)).dtype == tf.float64


def test_float16_overflow_is_skipped_until_the_scale_fits_then_grows():
    """dW = 16 * scale overflows float16 (max 65504) for scale >= 4096: four skipped steps, then 2048 works."""
    mp.set_global_policy("mixed_float16")
    dense = layers.Dense(2, kernel_initializer="zeros")
    x = np.full((4, 4), 4.0, np.float32)
    dense(x)
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(1e-6), dynamic_growth_steps=3)
    scales = []
    for _ in range(8):
        kernel_before = dense.kernel.numpy().copy()
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.cast(dense(x), tf.float32))
        scale = float(opt.dynamic_scale.numpy()) if opt.built else opt.initial_scale
        opt.minimize(loss, dense.trainable_variables, tape=tape)
        applied = not np.array_equal(dense.kernel.numpy(), kernel_before)
        scales.append((scale, applied))
    assert scales[:5] == [(32768.0, False), (16384.0, False), (8192.0, False), (4096.0, False), (2048.0, True)]
    # three finite steps at 2048 double the scale to 4096, which overflows again and is halved
    assert scales[5:] == [(2048.0, True), (2048.0, True), (4096.0, False)]
    np.testing.assert_allclose(dense.kernel.numpy(), -1e-6 * 16 * 3, rtol=1e-3)


def test_loss_scaling_keeps_small_float16_gradients_from_underflowing():
    """d(1e-8 * sum(y))/dy = 1e-8 is below float16's smallest subnormal (6e-8): zero without scaling."""
    mp.set_global_policy("mixed_float16")
    dense = layers.Dense(1, kernel_initializer="ones")
    x = np.full((2, 3), 0.5, np.float32)

    def grads(opt=None):
        with tf.GradientTape() as tape:
            loss = tf.cast(dense(x), tf.float32) * 1e-8
            loss = tf.reduce_sum(loss)
            scaled = opt.scale_loss(loss) if opt is not None else loss
        g = tape.gradient(scaled, dense.kernel)
        return g / opt.initial_scale if opt is not None else g

    np.testing.assert_array_equal(grads().numpy(), 0.0)
    np.testing.assert_allclose(grads(mp.LossScaleOptimizer(tf.keras.optimizers.SGD())).numpy(), [[1e-8]] * 3,
                               rtol=1e-3)


def test_compile_wraps_the_optimizer_under_mixed_float16_only():
    for policy, wrapped in (("mixed_float16", True), ("mixed_bfloat16", False), ("float32", False)):
        mp.set_global_policy(policy)
        model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,))])
        model.compile(optimizer="adam", loss="mse")
        assert isinstance(model.optimizer, mp.LossScaleOptimizer) is wrapped, policy
        if wrapped:
            assert isinstance(model.optimizer.inner_optimizer, tf.keras.optimizers.Adam)


def test_mirrored_replicas_agree_on_skipping(two_cpus):
    from tfcore.distribute import values

    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        v = tf.Variable([1.0, 2.0])
        opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.5), initial_scale=4)

    def step(x):
        with tf.GradientTape() as tape:
            loss = opt.scale_loss(tf.reduce_sum(v * x))
        opt.apply_gradients(zip(tape.gradient(loss, [v]), [v]))  # Keras 3: apply_gradients unscales

    # replica 1 alone sees an infinite gradient: both replicas skip the step
    strategy.run(step, args=(values.PerReplica([tf.constant([1.0, 1.0]), tf.constant([np.inf, 1.0])]),))
    for copy in v.values:
        np.testing.assert_array_equal(copy.numpy(), [1.0, 2.0])
    assert [float(s.numpy()) for s in opt.dynamic_scale.values] == [2.0, 2.0]
    strategy.run(step, args=(values.PerReplica([tf.constant([1.0, 1.0]), tf.constant([1.0, 3.0])]),))
    for copy in v.values:  # the summed gradient [2, 4] applied on every copy
        np.testing.assert_allclose(copy.numpy(), [0.0, 0.0])


# -- convergence on the bundled digits -------------------------------------------------------------------------

def _digits_accuracy(policy, device):
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.digits.load_data()
    mp.set_global_policy(policy)
    tf.keras.utils.set_random_seed(0)
    with tf.device(device):
        model = tf.keras.Sequential([layers.Flatten(input_shape=(8, 8)), layers.Dense(64, activation="relu"),
                                     layers.Dense(10), layers.Activation("softmax", dtype="float32")])
        model.compile(optimizer=tf.keras.optimizers.Adam(1e-2), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        model.fit(x_train.astype(np.float32) / 16, y_train, epochs=3, batch_size=128, verbose=0)
        _, accuracy = model.evaluate(x_test.astype(np.float32) / 16, y_test, batch_size=360, verbose=0)
    mp.set_global_policy(None)
    return accuracy, model


def test_mixed_float16_converges_to_the_float32_accuracy_on_cpu(monkeypatch):
    reference, _ = _digits_accuracy("float32", "/CPU:0")
    scaled = []
    monkeypatch.setattr(mp.LossScaleOptimizer, "scale_loss",
                        lambda self, loss, f=mp.LossScaleOptimizer.scale_loss: scaled.append(1) or f(self, loss))
    accuracy, model = _digits_accuracy("mixed_float16", "/CPU:0")
    assert reference > 0.9
    assert abs(accuracy - reference) <= 0.01
    assert isinstance(model.optimizer, mp.LossScaleOptimizer)
    steps = 3 * -(-1437 // 128)
    # fit's train step scales the loss: in Python once per trace (full and last partial batch), then the
    # traced graph replays the scaling on every step
    assert 1 <= len(scaled) <= 2
    assert int(model.optimizer.step_counter.numpy()) == steps and int(model.optimizer.iterations.numpy()) == steps


@pytest.fixture
def emulated_gpu(monkeypatch):
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "1")
    context.reset_for_tests()
    yield
    monkeypatch.setenv("TFCORE_EMULATED_GPUS", "0")
    context.reset_for_tests()


def test_mixed_float16_converges_on_an_emulated_gpu_with_float16_kernels(emulated_gpu, monkeypatch):
    from tfcore.backend import kernel_library

    launched = set()
    launch = kernel_library.EmulatorKernelLibrary.launch

    def spy(self, name, *args, **kwargs):
        launched.add(name)
        return launch(self, name, *args, **kwargs)

    monkeypatch.setattr(kernel_library.EmulatorKernelLibrary, "launch", spy)
    reference, _ = _digits_accuracy("float32", "/CPU:0")
    accuracy, model = _digits_accuracy("mixed_float16", "/GPU:0")
    assert model.weights[0].device.endswith("GPU:0")
    assert "matmul_f16" in launched  # the float16 layers ran our float16 kernel
    assert abs(accuracy - reference) <= 0.01


def test_train_command_with_mixed_precision(capsys):
    from tfcore.cli import main

    with tf.device("/CPU:0"):
        assert main(["train", "--model", "mlp", "--epochs", "4", "--verbose", "0", "--mixed-precision"]) == 0
    text = capsys.readouterr().out
    assert "Mixed precision: policy mixed_float16 (compute float16, variables float32)" in text
    assert "LossScaleOptimizer" in text and "Final loss scale:" in text
    assert float(text.split("Test accuracy:")[1].split()[0]) >= 0.93
    assert mp.global_policy().name == "float32"  # the command restores the global policy
