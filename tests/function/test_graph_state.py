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
