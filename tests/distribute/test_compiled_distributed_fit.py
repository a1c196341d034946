"""Keras fit/evaluate/predict under MirroredStrategy run a compiled step per replica with ONE rendezvous
per step (the optimizer's merge that sums the gradients and applies them), and equal one device on the
global batch (tfcore/keras/trainers/step_runner.py, tfcore/keras/optimizers/distributed.py)."""

import threading

import numpy as np
import pytest
from tfcore.distribute import strategy as strategy_mod

import tfcore as tf
from tfcore.keras.trainers import step_runner

REPLICAS = 2


def _data(n=32, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    return x, (x[:, :3].argmax(1) + (rng.random(n) < 0.3)).astype(np.int32) % 3


class CountingModel(tf.keras.Model):
    """A subclassed model whose train_step counts its Python executions (a compiled step runs it only
    while tracing)."""

    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(8, activation="relu")
        self.out = tf.keras.layers.Dense(3)
        self.python_steps = 0
        self._count_lock = threading.Lock()

    def call(self, x, training=False):
        # an element-wise chain on the batch's values (Mul, AddV2) that jit_compile fuses on every device
        return self.out(self.hidden(x) * 0.5 + 0.25)

    def train_step(self, data):
        with self._count_lock:
            self.python_steps += 1
        return super().train_step(data)


def _compile(model, run_eagerly=None, jit_compile=None):
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"],
                  run_eagerly=run_eagerly, jit_compile=jit_compile)


def _mirrored(run_eagerly=None, jit_compile=None, kind="cpu"):
    strategy = tf.distribute.MirroredStrategy([f"/{kind}:{i}" for i in range(REPLICAS)])
    with strategy.scope():
        tf.random.set_seed(1)
        model = CountingModel()
        model.build((None, 6))
        _compile(model, run_eagerly, jit_compile)
    return strategy, model


@pytest.fixture
def rendezvous(monkeypatch):
    """Counts the replica threads' arrivals at a collective (all_reduce, merge_call): one rendezvous of
    REPLICAS replicas is REPLICAS arrivals."""
    arrivals = [0]
    lock = threading.Lock()
    original = strategy_mod._Collective.exchange

    def exchange(self, index, value, fn):
        with lock:
            arrivals[0] += 1
        return original(self, index, value, fn)

    monkeypatch.setattr(strategy_mod._Collective, "exchange", exchange)
    return lambda: arrivals[0] / REPLICAS


def test_fit_under_mirrored_strategy_traces_once_and_replays(devices):
    devices(n_cpus=REPLICAS)
    x, y = _data()
    _, model = _mirrored()
    model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    # 12 steps: each replica ran train_step in Python once, to trace it; every other step replayed its plan
    assert model.python_steps == REPLICAS
    assert step_runner.StepRunner(model, "train_step").mode == step_runner.DISTRIBUTED
    fn = model._training_state["functions"]["train_step"][1]
    assert fn.experimental_get_tracing_count() == 1  # the replicas' concurrent traces count once, as TF's one graph


def test_run_eagerly_under_mirrored_strategy_calls_the_python_step_every_time(devices):
    devices(n_cpus=REPLICAS)
    x, y = _data()
    _, model = _mirrored(run_eagerly=True)
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert model.python_steps == REPLICAS * 4
    assert step_runner.StepRunner(model, "train_step").mode == step_runner.DISTRIBUTED_EAGER


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_one_rendezvous_per_training_step(devices, rendezvous, run_eagerly):
    devices(n_cpus=REPLICAS)
    x, y = _data()
    _, model = _mirrored(run_eagerly=run_eagerly)
    model.fit(x[:8], y[:8], batch_size=8, epochs=1, verbose=0)  # builds the metrics, traces
    before = rendezvous()
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert rendezvous() - before == 8  # 8 steps: one merge each (reduce and apply together), not two


def test_compiled_distributed_fit_equals_eager_and_one_device(devices):
    devices(n_cpus=REPLICAS)
    x, y = _data()
    results = []
    for run_eagerly in (True, False):
        _, model = _mirrored(run_eagerly=run_eagerly)
        hist = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        results.append((model.get_weights(), hist.history, model.evaluate(x, y, verbose=0),
                        model.predict(x, batch_size=8, verbose=0)))
    with tf.device("/CPU:0"):
        tf.random.set_seed(1)
        single = CountingModel()
        single.build((None, 6))
        single.set_weights(_mirrored()[1].get_weights())  # the same initial weights
        _compile(single)
        hist = single.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
        results.append((single.get_weights(), hist.history, single.evaluate(x, y, verbose=0),
                        single.predict(x, batch_size=8, verbose=0)))
    (w_e, h_e, ev_e, p_e), (w_c, h_c, ev_c, p_c), (w_1, h_1, ev_1, p_1) = results
    for a, b, c in zip(w_e, w_c, w_1):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_c["loss"], h_1["loss"], rtol=1e-5)
    np.testing.assert_allclose(h_c["loss"], h_e["loss"], rtol=1e-5)
    assert h_c["accuracy"] == h_1["accuracy"] == h_e["accuracy"]
    np.testing.assert_allclose(ev_c, ev_1, rtol=1e-5)
    np.testing.assert_allclose(p_c, p_1, rtol=1e-5, atol=1e-6)


@pytest.mark.emulator
def test_each_replica_runs_its_own_fused_plan_on_its_emulated_gpu(devices):
    """jit_compile=True: every replica's plan fuses element-wise chains into generated kernels for its own
    logical GPU, and training still equals one device on the global batch."""
    devices(emulated_gpus=1, gpu_split=REPLICAS, gpu_memory_mb=64)
    x, y = _data(16)
    _, model = _mirrored(jit_compile=True, kind="gpu")
    with tf.device("/CPU:0"):
        tf.random.set_seed(1)
        single = CountingModel()
        single.build((None, 6))
        single.set_weights(model.get_weights())
        _compile(single)
        single.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    fn = model._training_state["functions"]["train_step"][1]
    plans = {key[-1][1][-5:]: cf._fused_plan for key, cf in fn._cache.items()}
    assert sorted(plans) == ["GPU:0", "GPU:1"]
    for plan in plans.values():
        assert plan is not None and plan.stats["fused"] > 0
    for a, b in zip(single.get_weights(), model.get_weights()):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_the_merge_updates_each_replicas_copies_with_one_multi_tensor_op(devices, monkeypatch):
    """Built-in optimizers update every variable of one device in ONE op (``_updates_together``); in the
    merge, each replica's copies of the mirrored variables get that op too, not one update per variable."""
    devices(n_cpus=REPLICAS)
    x, y = _data()
    calls = {"together": 0, "per_variable": 0}
    optimizer_cls = tf.keras.optimizers.Optimizer
    together, per_variable = optimizer_cls._updates_together, optimizer_cls._updates_for

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(optimizer_cls, "_updates_together", counted("together", together))
    monkeypatch.setattr(optimizer_cls, "_updates_for", counted("per_variable", per_variable))
    _, model = _mirrored()
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    assert calls == {"together": 4 * REPLICAS, "per_variable": 0}  # 4 steps, one op per replica's copies


@pytest.mark.parametrize("optimizer", ["Adam", "SGD"])
def test_compiled_distributed_fit_of_an_embedding_equals_one_device(two_cpus, optimizer):
    """An Embedding's gradient is an IndexedSlices: the compiled replicas pass each step's slices to the
    one merge (not the trace's), which gathers them across replicas; the losses and weights equal one
    device's on the same global batches (the second epoch differed when the merge node kept the trace's
    slices)."""
    x = np.random.default_rng(0).integers(0, 10, (32, 4)).astype(np.int32)
    y = np.ones((32, 1), np.float32)

    def build():
        tf.keras.utils.set_random_seed(0)
        model = tf.keras.Sequential([tf.keras.Input((4,), dtype="int32"), tf.keras.layers.Embedding(10, 3),
                                     tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
        model.compile(getattr(tf.keras.optimizers, optimizer)(0.01), "mse")
        return model

    one = build()
    want = one.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False).history["loss"]
    with tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"]).scope():
        two = build()
    got = two.fit(x, y, batch_size=16, epochs=2, verbose=0, shuffle=False).history["loss"]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(two.get_weights()[0], one.get_weights()[0], rtol=1e-5, atol=1e-6)
