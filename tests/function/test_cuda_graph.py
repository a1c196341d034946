"""CUDA-graph replay of tf.function plans (tfcore.function.cuda_graph) without a GPU.

The decision logic runs as on a GPU; capture and replay go through ``graph_capture.RecordingCapture``,
which records the captured op steps and re-runs them on each launch against the same pinned buffers,
so these tests check the runner's mechanics (buffers, copies in and out, variables, fallbacks) on the
CPU and, in the emulated pass, on an emulated GPU. tests/gpu/test_cuda_graph_gpu.py runs real graphs.
"""

import gc
import weakref

import numpy as np
import pytest

import tfcore as tf
from tfcore.function import cuda_graph, graph_capture


@pytest.fixture(autouse=True)
def graphs_on(monkeypatch):
    """CUDA graphs are opt-in (off by default): these tests switch them on with the environment variable."""
    from tfcore.config import experimental

    monkeypatch.setattr(experimental, "_cuda_graphs", None, raising=False)
    monkeypatch.setenv(cuda_graph.ENV_SWITCH, "1")


def _dense_model(seed=0):
    model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(2)])
    model.set_weights([np.random.default_rng(seed + i).standard_normal(w.shape).astype(np.float32) * 0.5
                       for i, w in enumerate(model.weights)])
    return model


def _batches(n, batch=4, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, 3)).astype(np.float32), rng.standard_normal((batch, 2)).astype(np.float32))
            for _ in range(n)]


def _manual_adam_step(model, lr=0.05):
    """A training step of op steps and variable assignments only (Adam written with tf ops)."""
    vs = model.trainable_variables
    m = [tf.Variable(tf.zeros_like(v)) for v in vs]
    s = [tf.Variable(tf.zeros_like(v)) for v in vs]
    t = tf.Variable(0.0)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, vs)
        t.assign_add(1.0)
        c1 = 1.0 - tf.pow(0.9, t)
        c2 = 1.0 - tf.pow(0.999, t)
        for v, g, mi, si in zip(vs, grads, m, s):
            mi.assign(0.9 * mi + 0.1 * g)
            si.assign(0.999 * si + 0.001 * g * g)
            v.assign_sub(lr * (mi / c1) / (tf.sqrt(si / c2) + 1e-7))
        return loss, model(x)
    return step


def _run(make_step, n=6, function=True, capture=None, keras_opt=None):
    model = _dense_model()
    if keras_opt is not None:
        opt = keras_opt()

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            g = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(g, model.trainable_variables))
            return loss
    else:
        step = make_step(model)
    fn = tf.function(step) if function else step
    outs = []
    with graph_capture.use(capture or graph_capture.CaptureBackend()):
        for x, y in _batches(n):
            outs.append(tf.nest.map_structure(lambda t: t.numpy(), fn(tf.constant(x), tf.constant(y))))
    stats = _stats(fn) if function else None
    return outs, [w.copy() for w in model.get_weights()], stats


def _stats(fn):
    return list(fn._cache.values())[0].experimental_cuda_graph_stats()


def _assert_same(a, b):
    for x, y in zip(tf.nest.flatten(a), tf.nest.flatten(b)):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)


def test_manual_adam_step_replays_like_eager():
    cap = graph_capture.RecordingCapture()
    outs, weights, stats = _run(_manual_adam_step, capture=cap)
    ref_outs, ref_weights, _ = _run(_manual_adam_step, function=False)
    _assert_same(outs, ref_outs)
    _assert_same(weights, ref_weights)
    assert stats["status"] == "replaying" and stats["segments"] == 1 and stats["eager_steps"] == 0
    # call 1 traces, call 2 warms up, call 3 captures and launches, calls 4-6 replay
    assert cap.captures == 1 and cap.launches == 4 and stats["replays"] == 4
    assert len({float(o[0]) for o in outs}) == len(outs)  # losses differ: inputs and weights really changed


@pytest.mark.parametrize("opt", [lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                 lambda: tf.keras.optimizers.Adam(0.05)], ids=["sgd", "adam"])
def test_keras_optimizer_step_replays_forward_backward(opt):
    """The optimizer's update is a Python call (host-side learning rate and bias corrections): it runs
    normally between graph launches, and the variables it assigns are copied into the graph's buffers."""
    cap = graph_capture.RecordingCapture()
    outs, weights, stats = _run(None, capture=cap, keras_opt=opt)
    ref_outs, ref_weights, _ = _run(None, function=False, keras_opt=opt)
    _assert_same(outs, ref_outs)
    _assert_same(weights, ref_weights)
    assert stats["status"] == "replaying" and stats["segments"] == 1 and stats["eager_steps"] == 1


def test_held_values_and_outside_assignments():
    """Tensors read from a variable keep their values across replays; assignments between calls are seen."""
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = tf.Variable(np.ones((3, 3), np.float32))

    @tf.function
    def f(x):
        y = tf.matmul(x, w) + v
        v.assign(y * 0.5)
        return tf.reduce_sum(y), y

    def ref(x, vv):
        y = x @ np.ones((3, 3), np.float32) + vv
        return y.sum(), y, y * 0.5

    vv = v.numpy()
    held = []
    with graph_capture.use(graph_capture.RecordingCapture()):
        for i in range(6):
            x = np.full((2, 3), float(i), np.float32)
            if i == 4:
                v.assign(np.full((2, 3), 7.0, np.float32))
                vv = v.numpy()
            total, y = f(tf.constant(x))
            rt, ry, vv = ref(x, vv)
            np.testing.assert_allclose(total.numpy(), rt)
            np.testing.assert_allclose(y.numpy(), ry)
            held.append((v.value(), vv.copy(), y, ry))
    for t, expect, y, ry in held:  # nothing a call returned or a read saw was overwritten later
        np.testing.assert_allclose(t.numpy(), expect)
        np.testing.assert_allclose(y.numpy(), ry)
    assert f.get_concrete_function(tf.constant(x)).experimental_cuda_graph_stats()["status"] == "replaying"


def test_not_capturable_graphs_fall_back():
    cap = graph_capture.RecordingCapture()

    @tf.function
    def noisy(x):
        return tf.random.uniform((3,)) + x * 2.0

    @tf.function
    def printing(x):
        tf.print(x)
        return x + 1.0

    with graph_capture.use(cap):
        draws = [noisy(tf.constant([1.0, 2.0, 3.0])).numpy() for _ in range(4)]
        for _ in range(4):
            np.testing.assert_allclose(printing(tf.constant([1.0])).numpy(), [2.0])
    assert len({tuple(d) for d in draws}) == 4  # the random op runs outside the graph: new numbers every call
    assert _stats(noisy)["status"] == "replaying" and _stats(noisy)["eager_steps"] == 1
    assert cap.captures == 1  # noisy's two ops after the random op; printing has one op next to its print
    st = _stats(printing)
    assert st["status"].startswith("not capturable: no run of 2+ capturable ops"), st


def test_step_verdicts():
    """What the warm-up decides about each step kind (the rules in cuda_graph's docstring)."""
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f(x):
        a = tf.square(x) + v          # ops and a read: capturable
        b = tf.random.normal((2,))    # random: eager
        v.assign(a)                   # assignment: capturable
        c = tf.py_function(lambda t: t * 2, [a], tf.float32)   # Python call: eager
        return a + b + c

    with graph_capture.use(graph_capture.RecordingCapture()):
        for _ in range(3):
            f(tf.constant([1.0, 2.0]))
    plan = list(f._cache.values())[0]._plan
    runner = plan.cuda_graph
    kinds = {}
    for kind, item in runner.schedule:
        steps = [item] if kind == "eager" else item.steps
        for st in steps:
            name = st[1].name if st[0] == 0 else {1: "read", 2: "assign", 3: "call"}.get(st[0])
            kinds[name] = kind
    assert kinds["RandomStandardNormal"] == "eager" and kinds["call"] == "eager"
    assert kinds["Square"] == "graph" and kinds["read"] == "graph"


def test_default_capture_backend_needs_a_real_cuda_gpu():
    @tf.function
    def f(x):
        return tf.tanh(x * 2.0 + 1.0)

    for _ in range(3):
        f(tf.constant([1.0]))
    st = _stats(f)
    assert st["status"].startswith("not capturable") and "not supported by the cuda capture backend" in st["status"]
    assert list(f._cache.values())[0]._plan.cuda_graph is False  # the plain path from now on


def test_shape_change_gets_its_own_graph():
    cap = graph_capture.RecordingCapture()
    w = tf.Variable(np.ones((3, 2), np.float32))

    @tf.function
    def f(x):
        return tf.nn.relu(tf.matmul(x, w) - 1.0)

    with graph_capture.use(cap):
        for n in (4, 4, 4, 5, 5, 5, 4):
            x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
            np.testing.assert_allclose(f(tf.constant(x)).numpy(), np.maximum(x @ np.ones((3, 2)) - 1.0, 0), rtol=1e-6)
    assert cap.captures == 2


def test_exception_during_capture_falls_back_cleanly():
    cap = graph_capture.RecordingCapture(fail_at=3)
    outs, weights, stats = _run(_manual_adam_step, capture=cap)
    ref_outs, ref_weights, _ = _run(_manual_adam_step, function=False)
    _assert_same(outs, ref_outs)
    _assert_same(weights, ref_weights)
    assert stats["status"].startswith("not capturable: capture failed") and "injected" in stats["status"]
    assert cap.captures == 1 and cap.launches == 0


def test_off_switch(monkeypatch):
    monkeypatch.setenv(cuda_graph.ENV_SWITCH, "0")
    cap = graph_capture.RecordingCapture()
    outs, weights, stats = _run(_manual_adam_step, capture=cap)
    ref_outs, ref_weights, _ = _run(_manual_adam_step, function=False)
    _assert_same(outs, ref_outs)
    assert cap.captures == 0 and stats["status"] == "off"


def test_graphs_are_off_by_default_and_opt_in(monkeypatch):
    monkeypatch.delenv(cuda_graph.ENV_SWITCH)
    cap = graph_capture.RecordingCapture()
    _outs, _w, stats = _run(_manual_adam_step, capture=cap)
    assert cap.captures == 0 and stats["status"] == "off" and "off by default" in stats["reason"]
    assert not tf.config.experimental.cuda_graphs_enabled()
    tf.config.experimental.enable_cuda_graphs(True)
    _outs, _w, stats = _run(_manual_adam_step, capture=cap)
    assert cap.captures == 1 and stats["status"] == "replaying"


def test_the_config_switch_and_the_environment(monkeypatch):
    exp = tf.config.experimental
    assert exp.cuda_graphs_enabled()                      # TFCORE_CUDA_GRAPHS=1 (the fixture)
    exp.enable_cuda_graphs(False)                         # the call overrides =1
    assert not exp.cuda_graphs_enabled() and cuda_graph.off_reason().startswith("tf.config")
    exp.enable_cuda_graphs(True)
    monkeypatch.setenv(cuda_graph.ENV_SWITCH, "0")        # =0 always wins
    assert not exp.cuda_graphs_enabled() and cuda_graph.off_reason() == f"{cuda_graph.ENV_SWITCH}=0"
    with pytest.raises(TypeError, match="enabled"):
        exp.enable_cuda_graphs("yes")
    assert exp.cuda_graphs_enabled() is False             # the bad call changed nothing


class _FailingFinish(graph_capture.RecordingCapture):
    """The capture fails, and so does finishing that call normally (its first eager rerun of a step)."""

    def __init__(self):
        super().__init__(fail_at=1)
        self.armed = False

    def begin(self, backend):
        self.armed = True
        return super().begin(backend)


def test_a_failed_capture_gives_up_for_good_even_when_finishing_the_call_raises(monkeypatch):
    from tfcore.function import executor

    cap = _FailingFinish()
    real = executor.run_steps

    def run_steps(env, steps, effects=False):
        if cap.armed and len(steps) > 1:  # GraphRunner._finish_eagerly runs the failed segment's steps
            cap.armed = False
            raise RuntimeError("device error while finishing the call")
        return real(env, steps, effects)

    monkeypatch.setattr(executor, "run_steps", run_steps)
    w = tf.Variable([[1.0], [2.0]])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * 3.0)

    x = tf.constant([[0.1, 0.2]])
    with graph_capture.use(cap):
        f(x)
        f(x)
        with pytest.raises(RuntimeError, match="finishing the call"):
            f(x)                                          # capture fails, then the fallback raises
        for _ in range(2):
            np.testing.assert_allclose(f(x).numpy(), 3.0 * np.tanh(0.5), rtol=1e-6)
    assert cap.captures == 1                              # never retried
    assert f.get_concrete_function(x).experimental_cuda_graph_stats()["status"].startswith(
        "not capturable: capture failed")


def test_resize_runs_between_segments():
    cap = graph_capture.RecordingCapture()

    @tf.function
    def f(x):
        y = tf.nn.relu(x * 2.0) + 1.0
        return tf.image.resize(y, (6, 6), "bilinear") * 3.0 - 1.0

    x = tf.constant(np.random.default_rng(0).standard_normal((1, 4, 4, 2)).astype(np.float32))
    with graph_capture.use(cap):
        outs = [f(x).numpy() for _ in range(4)]
    stats = f.get_concrete_function(x).experimental_cuda_graph_stats()
    assert stats["status"] == "replaying" and stats["eager_steps"] >= 1, stats
    ref = (tf.image.resize(tf.nn.relu(x * 2.0) + 1.0, (6, 6), "bilinear") * 3.0 - 1.0).numpy()
    for o in outs:
        np.testing.assert_allclose(o, ref, rtol=1e-6)


def test_tapes_get_the_plain_path():
    cap = graph_capture.RecordingCapture()
    w = tf.Variable([[1.0], [2.0]])

    @tf.function
    def f(x):
        return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * 3.0)

    x = tf.constant([[0.1, 0.2]])
    with graph_capture.use(cap):
        for _ in range(4):
            f(x)
        launches = cap.launches
        with tf.GradientTape() as tape:
            y = f(x)
        g = tape.gradient(y, w)
    assert cap.launches == launches and launches > 0
    expect = 3.0 * (1 - np.tanh(0.5) ** 2) * np.array([[0.1], [0.2]])
    np.testing.assert_allclose(g.numpy(), expect, rtol=1e-5)


def test_buffers_are_freed_with_the_function():
    w = tf.Variable(np.ones((3, 3), np.float32))

    def make():
        @tf.function
        def f(x):
            return tf.matmul(tf.matmul(x, w), w) + 1.0
        return f

    f = make()
    with graph_capture.use(graph_capture.RecordingCapture()):
        for _ in range(4):
            f(tf.ones((2, 3)))
    runner = list(f._cache.values())[0]._plan.cuda_graph
    buffers = [weakref.ref(t) for seg in runner.segments
               for t in list(seg.buffers.values()) + list(seg.inbufs.values())]
    assert buffers and all(r() is not None for r in buffers)
    del f, runner
    gc.collect()
    assert all(r() is None for r in buffers)
