"""What a traced graph must not freeze and must not drop.

- Residuals (Conv2D's im2col columns handed to Conv2DBackpropFilter) belong to one execution: a
  graph that kept the trace's columns computed every later filter gradient from the first batch.
- Stateful ops (summary and file writes) run on every call even though nothing reads their outputs.
"""

import numpy as np
import pytest

import tfcore as tf


@pytest.fixture(autouse=True)
def on_cpu():
    with tf.device("/CPU:0"):
        yield


def _conv_model():
    tf.random.set_seed(3)
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(4, 3, activation="relu", input_shape=(6, 6, 2)),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(3),
    ])


def _train(step_fn, model, batches):
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    run = step_fn(step)
    losses = [float(run(x, y)) for x, y in batches]
    return losses, model.get_weights()


def test_traced_conv_training_equals_eager_step_for_step():
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((8, 6, 6, 2)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32))
               for _ in range(4)]
    eager_losses, eager_weights = _train(lambda f: f, _conv_model(), batches)
    traced = []
    traced_losses, traced_weights = _train(lambda f: traced.append(tf.function(f)) or traced[0], _conv_model(),
                                           batches)
    assert traced[0].experimental_get_tracing_count() == 1  # steps 2-4 replayed the graph
    np.testing.assert_allclose(traced_losses, eager_losses, rtol=1e-6)
    for a, b in zip(traced_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_summaries_inside_a_function_are_written_on_every_call(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.util import tensor_util

    writer = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def log(step, value):
        with writer.as_default(step=step):
            tf.summary.scalar("value", value)
        return value

    for i in range(3):
        log(tf.constant(i, tf.int64), tf.constant(float(i) * 0.5))
    writer.flush()
    assert log.experimental_get_tracing_count() == 1
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.TENSORS: 0})
    acc.Reload()
    events = acc.Tensors("value")
    assert [e.step for e in events] == [0, 1, 2]
    assert [float(tensor_util.make_ndarray(e.tensor_proto)) for e in events] == [0.0, 0.5, 1.0]


# -- residual edges: the forward conv's columns reach the filter gradient on every replay ---------------

@pytest.fixture
def im2col_convolutions(monkeypatch):
    """The im2col + GEMM convolutions, whose forward saves the columns its filter gradient reuses (the native
    direct kernels, which save none, take every channel count of these small shapes)."""
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")


def _conv_grad_fn():
    w = tf.Variable(np.random.default_rng(1).standard_normal((3, 3, 2, 6)).astype(np.float32))

    @tf.function
    def grad(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.conv2d(x, w, 1, "SAME") ** 2)
        return tape.gradient(loss, w)

    return w, grad


def test_replays_hand_each_calls_columns_to_the_filter_gradient(monkeypatch, im2col_convolutions):
    from tfcore.ops import conv_ops

    w, grad = _conv_grad_fn()
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal((2, 5, 5, 2)).astype(np.float32) for _ in range(3)]
    grad(xs[0])
    wn = w.numpy()
    wants = [tf.nn.conv2d_backprop_filter(x, (3, 3, 2, 6), 2 * tf.nn.conv2d(x, wn, 1, "SAME"), 1, "SAME").numpy()
             for x in xs[1:]]  # eager: no residual handed over
    op = conv_ops.CONV2D_BACKPROP_FILTER
    kernel = op._direct["cpu"]
    seen = []

    def spy(b, x, dy, **attrs):
        seen.append(attrs.get("im2col"))
        return kernel(b, x, dy, **attrs)

    monkeypatch.setitem(op._direct, "cpu", spy)
    for x, want in zip(xs[1:], wants):
        np.testing.assert_allclose(grad(tf.constant(x)).numpy(), want, rtol=1e-5)
    assert grad.experimental_get_tracing_count() == 1
    assert len(seen) == 2 and all(c is not None for c in seen)
    xpad = np.pad(xs[2], ((0, 0), (1, 1), (1, 1), (0, 0)))
    want = conv_ops.windows(np, xpad, 5, 5, 3, 3, (1, 1, 1, 1), (1, 1, 1, 1)).reshape(50, 18)
    np.testing.assert_array_equal(seen[1], want)  # this call's columns, not the trace's


def test_residual_edges_are_not_graph_tensors_and_the_trace_arrays_are_released(im2col_convolutions):
    _, grad = _conv_grad_fn()
    x = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    graph = grad.get_concrete_function(x).graph
    nodes = {n.op.name: n for n in graph.nodes if n.kind == "op"}
    conv, bpf = nodes["Conv2D"], nodes["Conv2DBackpropFilter"]
    (name, slot), = conv.res_out
    assert name == "im2col" and bpf.res_in == (("im2col", slot),)
    assert slot not in conv.outputs and slot not in bpf.inputs and "im2col" not in (bpf.attrs or {})
    assert graph.slot_values[slot] is None  # the trace's columns are not kept
    assert [len(op.outputs) for op in graph.get_operations() if op.type == "Conv2D"] == [1]


def test_a_function_with_residual_edges_saves_and_loads(tmp_path, im2col_convolutions):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.random.default_rng(4).standard_normal((3, 3, 1, 2)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([2, 5, 5, 1], tf.float32)])
        def grad(self, x):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.nn.conv2d(x, self.w, 1, "SAME") ** 2)
            return tape.gradient(loss, self.w)

    m = M()
    x = np.random.default_rng(5).standard_normal((2, 5, 5, 1)).astype(np.float32)
    want = m.grad(x).numpy()
    tf.saved_model.save(m, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded.grad(tf.constant(x)).numpy(), want, rtol=1e-5)
