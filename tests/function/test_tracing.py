"""tf.function's tracing and signature rules (seed 004's examples, input_signature, retracing)."""

import logging

import numpy as np
import pytest

import tfcore as tf


def test_seed_004_tensor_arguments_trace_per_dtype(capsys):
    @tf.function
    def f(x):
        print('The function is running in Python')
        tf.print(x)

    a = tf.constant(1, dtype=tf.int32)
    f(a)
    b = tf.constant(2, dtype=tf.int32)
    f(b)
    b_ = np.array(2, dtype=np.int32)
    f(b_)
    c = tf.constant(0.1, dtype=tf.float32)
    f(c)
    d = tf.constant(0.2, dtype=tf.float32)
    f(d)
    out = capsys.readouterr()
    assert out.out.splitlines() == ["The function is running in Python"] * 2
    assert out.err.splitlines() == ["1", "2", "2", "0.1", "0.2"]
    assert f.experimental_get_tracing_count() == 2


def test_seed_004_python_scalars_trace_per_value(capsys):
    @tf.function
    def f(x):
        print('The function is running in Python')
        tf.print(x)

    for v in (1, 2, 1, 0.1, 0.2, 0.1):
        f(v)
    out = capsys.readouterr()
    assert out.out.count("The function is running in Python") == 4
    assert out.err.splitlines() == ["1", "2", "1", "0.1", "0.2", "0.1"]
    assert f.experimental_get_tracing_count() == 4


def test_shapes_retrace_and_reduce_retracing_generalises():
    @tf.function
    def f(x):
        return x * 2

    f(tf.zeros([2]))
    f(tf.zeros([3]))
    f(tf.zeros([3]))
    assert f.experimental_get_tracing_count() == 2

    @tf.function(reduce_retracing=True)
    def g(x):
        return tf.reduce_sum(x)

    for n in (2, 3, 4, 5):
        assert float(g(tf.ones([n]))) == n
    assert g.experimental_get_tracing_count() == 2


def test_input_signature_traces_once_and_rejects_incompatible_inputs():
    x = tf.Variable(1.0, dtype=tf.float32)

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
    def add(a):
        x.assign_add(tf.reduce_sum(a))
        return x

    add(tf.constant([1.0, 2.0]))
    add(tf.constant([1.0, 2.0, 3.0]))
    out = add(np.array([4.0], np.float32))
    assert float(out) == 14.0 and float(x) == 14.0
    assert add.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="Can not cast"):
        add(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Can not cast"):
        add(tf.constant([[1.0]]))
    with pytest.raises(TypeError, match="input_signature"):
        tf.function(lambda a: a, input_signature=[1])
    assert float(x) == 14.0  # rejected calls changed nothing


def test_variables_captured_by_handle_and_assignments_in_program_order():
    v = tf.Variable(1.0)

    @tf.function
    def step(a):
        v.assign(v * a)
        r1 = v.read_value()
        v.assign_add(1.0)
        return r1, v.read_value()

    r1, r2 = step(tf.constant(3.0))
    assert (float(r1), float(r2)) == (3.0, 4.0)
    v.assign(10.0)  # replay reads the variable's current value, not a trace-time copy
    r1, r2 = step(tf.constant(2.0))
    assert (float(r1), float(r2)) == (20.0, 21.0)
    assert step.experimental_get_tracing_count() == 1


def test_variable_creation_only_on_first_trace():
    holder = []

    @tf.function
    def once(x):
        if not holder:
            holder.append(tf.Variable(2.0))
        return holder[0] * x

    assert float(once(tf.constant(3.0))) == 6.0
    assert float(once(tf.constant(4.0))) == 8.0

    @tf.function
    def always(x):
        w = tf.Variable(1.0)
        return w * x

    # TF 2.21 traces a function that created variables a second time, refusing new ones: this fails on its
    # first call (guide/function, "Creating tf.Variables"), and on a later trace as well
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        always(tf.constant(1.0))
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        always(tf.constant([1.0]))


def test_methods_are_bound_per_instance():
    class M(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)

        @tf.function
        def scale(self, x):
            return self.k * x

    a, b = M(2.0), M(3.0)
    assert float(a.scale(tf.constant(1.0))) == 2.0
    assert float(b.scale(tf.constant(1.0))) == 3.0
    assert float(a.scale(tf.constant(5.0))) == 10.0
    assert a.scale.experimental_get_tracing_count() == 1
    assert b.scale.experimental_get_tracing_count() == 1


def test_concrete_function_graph_and_signatures():
    @tf.function
    def f(x, y):
        return tf.matmul(x, y) + 1.0

    cf = f.get_concrete_function(tf.TensorSpec([2, 2], tf.float32), tf.TensorSpec([2, 2], tf.float32))
    types = [op.type for op in cf.graph.get_operations()]
    assert types == ["BatchMatMulV2", "AddV2"]
    got = cf(tf.ones([2, 2]), tf.ones([2, 2]))
    np.testing.assert_allclose(got.numpy(), np.full((2, 2), 3.0))
    assert f.experimental_get_tracing_count() == 1
    text = f.pretty_printed_concrete_signatures()
    assert "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2, 2), dtype=tf.float32, name=None)" in text
    with pytest.raises(tf.errors.InvalidArgumentError):  # TF 2.21: "cannot compute ... expected to be a float tensor"
        cf(tf.ones([2, 2], tf.int32), tf.ones([2, 2], tf.int32))


def test_executing_eagerly_is_false_inside_a_trace():
    seen = []

    @tf.function
    def f(x):
        seen.append(tf.executing_eagerly())
        return x

    f(tf.constant(1))
    assert seen == [False] and tf.executing_eagerly()


def test_frequent_retracing_warns(caplog):
    @tf.function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING, logger="tfcore"):
        for i in range(6):
            f(i)
    assert "triggered tf.function retracing" in caplog.text


def test_run_functions_eagerly():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        f(tf.constant(1))
        f(tf.constant(1))
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(calls) == 2 and f.experimental_get_tracing_count() == 0


def test_train_step_matches_eager_and_gradients_flow_through_a_call():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    y = rng.integers(0, 3, 16)
    results = []
    for use_function in (False, True):
        model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(8,)),
                                     tf.keras.layers.Dense(3)])
        model.set_weights([np.random.default_rng(i).standard_normal(w.shape).astype(np.float32) * 0.3
                           for i, w in enumerate(model.weights)])
        opt = tf.keras.optimizers.Adam(0.01)
        loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        step = _make_step(model, opt, loss_fn)
        if use_function:
            step = tf.function(step)
        losses = [float(step(tf.constant(x), tf.constant(y))) for _ in range(4)]
        results.append((losses, [w.numpy() for w in model.weights]))
        if use_function:
            assert step.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    f = tf.function(lambda a: tf.sin(a) * a)
    a = tf.constant([0.3, 1.2], tf.float64)
    for _ in range(2):  # the trace, then a replay
        with tf.GradientTape() as tape:
            tape.watch(a)
            out = f(a)
        np.testing.assert_allclose(tape.gradient(out, a).numpy(), np.cos(a.numpy()) * a.numpy() + np.sin(a.numpy()))


def _make_step(model, opt, loss_fn):
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return step


def test_python_value_of_a_computed_tensor_is_guarded():
    @tf.function(autograph=False)
    def f(x):
        if x > 0:  # without AutoGraph this reads the trace's value into Python: a guarded graph per value
            return x
        return -x

    assert [float(f(tf.constant(v))) for v in (2.0, -2.0, 3.0, -1.0)] == [2.0, 2.0, 3.0, 1.0]
    v = tf.Variable(0.0)

    @tf.function(autograph=False)
    def g(x):
        v.assign_add(1.0)
        if x > 0:  # read after an effect: a changed value cannot be re-run, so it is an error
            return x
        return -x

    assert float(g(tf.constant(2.0))) == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="converted a tensor computed inside the function"):
        g(tf.constant(-2.0))


def test_graph_passes_fold_merge_and_prune():
    @tf.function
    def f(x):
        c = tf.constant(2.0) * tf.constant(3.0)   # folded
        a = tf.exp(x)
        b = tf.exp(x)                              # merged with a
        tf.square(x)                               # unused: pruned
        return a + b + c

    out = f(tf.constant(0.5))
    assert float(out) == pytest.approx(2 * np.exp(0.5) + 6.0, rel=1e-6)
    cf = f.get_concrete_function(tf.constant(0.5))
    assert float(cf(tf.constant(1.0))) == pytest.approx(2 * np.e + 6.0, rel=1e-6)
    stats = cf._plan.stats
    assert stats["folded"] >= 1 and stats["merged"] >= 1 and stats["pruned"] >= 1


def test_jit_compile_fuses_elementwise_chains_with_identical_results(on_cpu):
    """CPU chains: the ops' own kernels back to back (test_function_on_gpu covers generated CUDA kernels)."""

    def f(x, w, b):
        h = tf.nn.relu(tf.matmul(x, w) + b) * 2.0 - 1.0
        return tf.tanh(h) + tf.exp(-h)

    rng = np.random.default_rng(0)
    args = [tf.constant(rng.random(s)) for s in ((4, 3), (3, 5), (5,))]
    want = f(*args).numpy()
    fused = tf.function(f, jit_compile=True)
    for _ in range(2):
        np.testing.assert_array_equal(fused(*args).numpy(), want)
    plan = fused.get_concrete_function(*args)._fused_plan
    assert plan.stats["fused"] >= 5
    assert any(step[1].__name__ == "fused_AddV2+Relu+Mul+Sub" for step in plan.steps if step[0] == 3)
    x = args[0]
    with tf.GradientTape() as tape:  # under a tape the unfused ops run (and are recorded)
        tape.watch(x)
        y = tf.reduce_sum(fused(x, args[1], args[2]))
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y2 = tf.reduce_sum(f(x, args[1], args[2]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), tape2.gradient(y2, x).numpy())


def test_concrete_function_with_none_dims_accepts_other_sizes():
    @tf.function
    def f(x):
        return tf.reshape(x, [x.shape[0], 1]) * 2.0  # reads a static shape while tracing

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    np.testing.assert_allclose(cf(tf.constant([1.0, 2.0, 3.0])).numpy(), [[2.0], [4.0], [6.0]])
    np.testing.assert_allclose(cf(tf.constant([5.0])).numpy(), [[10.0]])
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError):
        cf(tf.constant([[1.0]]))
