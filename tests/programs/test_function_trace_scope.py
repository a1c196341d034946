"""What TF 2.21 raises for the mistakes guide/function.ipynb shows, checked against TF's own output.

tfcore traces a tf.function on real values; these are the errors TF gives because its traces are
symbolic: a tensor leaked out of a trace is out of scope afterwards, a function that creates a
``tf.Variable`` on every call fails on its first call (TF traces it a second time), and a second
optimizer whose slot variables would be created on a later trace is refused. Each message is TF 2.21's.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend.errors import OperatorNotAllowedInGraphError
from tfcore.keras.trainers import step_runner

OUT_OF_SCOPE = "is out of scope and cannot be used here. Use return values, explicit Python locals or TensorFlow"
SINGLETON = "tf.function only supports singleton tf.Variables created on the first call."


def _leak():
    leaked = []

    @tf.function
    def leaky_function(a):
        x = a + 1  # Bad - leaks local tensor
        leaked.append(x)
        return a + 2

    correct = leaky_function(tf.constant(1))
    return correct, leaked[0]


def test_leaked_tensor_in_another_trace_raises_tf_type_error():
    correct, x = _leak()
    assert correct.numpy() == 3  # the function's return value is a normal tensor

    @tf.function
    def captures_leaked_tensor(b):
        b += x  # Bad - `x` is leaked from `leaky_function`
        return b

    with pytest.raises(TypeError, match=OUT_OF_SCOPE) as e:
        captures_leaked_tensor(tf.constant(2))
    assert "because it was defined in FuncGraph(name=leaky_function" in str(e.value)


def test_leaked_tensor_eagerly_is_symbolic():
    _, x = _leak()
    with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
        x.numpy()
    with pytest.raises(TypeError, match=OUT_OF_SCOPE):
        x + 1
    with pytest.raises(TypeError, match=OUT_OF_SCOPE):
        tf.identity(x)
    with pytest.raises(NotImplementedError, match="Cannot convert a symbolic tf.Tensor"):
        np.array(x)
    with pytest.raises(OperatorNotAllowedInGraphError):
        bool(x)
    with pytest.raises(TypeError, match="SymbolicTensor"):
        int(x)
    with pytest.raises(ValueError, match="could not be lifted out of a `tf.function`"):
        tf.Variable(x)
    # metadata stays readable, printed in TF's symbolic form
    assert x.shape == () and x.dtype == tf.int32
    assert repr(x) == f"<tf.Tensor '{x.name}' shape=() dtype=int32>"
    assert str(x) == f'Tensor("{x.name}", shape=(), dtype=int32)'


def test_returned_tensor_is_fresh_and_the_leaked_one_is_not():
    leaked = []

    @tf.function
    def leaky_function(a):
        x = a + 1
        leaked.append(x)
        return x  # Good - uses local tensor

    out = leaky_function(tf.constant(1))
    assert out.numpy() == 2 and out is not leaked[0]
    with pytest.raises(AttributeError):
        leaked[0].numpy()
    assert leaky_function(tf.constant(5)).numpy() == 6  # later calls replay the graph


def test_trace_under_outer_tape_keeps_gradients():
    @tf.function
    def add(a, b):
        return a * a + b

    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v).numpy() == 6.0


def test_python_values_returned_as_tensors():
    foo = 1

    @tf.function
    def buggy_add():
        return 1 + foo

    out = buggy_add()
    assert isinstance(out, tf.Tensor) and out.dtype == tf.int32 and out.numpy() == 2
    assert tf.function(lambda: None)() is None
    pair = tf.function(lambda: (2.5, None))()
    assert pair[0].dtype == tf.float32 and pair[1] is None


def test_variable_created_on_every_call_raises_on_first_call():
    traced = []

    @tf.function
    def f(x):
        traced.append(1)
        v = tf.Variable(1.0)
        return v

    with pytest.raises(ValueError, match=SINGLETON):
        f(1.0)
    assert len(traced) == 2  # TF traces twice: the second trace refuses the new variable


def test_variable_created_once_is_allowed_and_traced_twice_as_tf():
    class Count(tf.Module):
        def __init__(self):
            self.count = None
            self.traces = 0

        @tf.function
        def __call__(self):
            self.traces += 1
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    assert int(c()) == 1  # the verifying re-trace does not apply its assignment
    assert int(c()) == 2
    assert c.traces == 2 and c.__call__.experimental_get_tracing_count() == 2


def _train_step_fn():
    @tf.function
    def train_step(w, x, y, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    return train_step


def test_second_optimizer_on_later_trace_raises_and_changes_nothing():
    opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)
    train_step = _train_step_fn()
    w = tf.Variable(2.0)
    x, y = tf.constant([-1.0]), tf.constant([2.0])
    train_step(w, x, y, opt1)
    after_first = float(w.numpy())
    assert after_first != 2.0
    with pytest.raises(ValueError, match=SINGLETON):
        train_step(w, x, y, opt2)
    fresh = len(tf.keras.optimizers.Adam().variables)
    assert float(w.numpy()) == after_first and len(opt2.variables) == fresh  # no slot variables were made
    train_step(w, x, y, opt1)  # the first optimizer's trace still runs
    assert float(w.numpy()) != after_first


def test_one_function_per_optimizer_works():
    class TrainStep(tf.Module):
        def __init__(self, optimizer):
            self.optimizer = optimizer

        @tf.function
        def __call__(self, w, x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w * x - y))
            gradients = tape.gradient(loss, [w])
            self.optimizer.apply_gradients(zip(gradients, [w]))

    w = tf.Variable(2.0)
    x, y = tf.constant([-1.0]), tf.constant([2.0])
    TrainStep(tf.keras.optimizers.Adam(1e-2))(w, x, y)
    TrainStep(tf.keras.optimizers.Adam(1e-3))(w, x, y)
    assert float(w.numpy()) < 2.0


def test_keras_fit_step_functions_build_variables_on_their_first_trace():
    """Keras' step functions build the model in their first trace (Keras 3 builds before tracing): no
    second trace, and the fit loop's tensors stay usable."""
    model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
    model.compile("adam", "mse", metrics=["mae"])
    x = np.ones((8, 3), np.float32)
    history = model.fit(x, np.zeros((8, 2), np.float32), epochs=2, batch_size=4, verbose=0)
    assert len(history.history["loss"]) == 2
    assert step_runner.compiled_step(model, "train_step").experimental_get_tracing_count() == 1


def test_next_of_a_dataset_iterator_advances_on_every_call():
    """guide/function's good_consume_next: ``next(iterator)`` of a tf.data iterator is a graph node (TF's
    IteratorGetNext), so each call takes the next element; past the end a call raises OutOfRangeError."""
    seen = []

    @tf.function
    def good_consume_next(iterator):
        seen.append(1)  # Python side effect: traces only
        return next(iterator)

    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    assert [int(good_consume_next(iterator)) for _ in range(3)] == [1, 2, 3]
    assert len(seen) == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        good_consume_next(iterator)

    @tf.function
    def pair(it):
        a, b = next(it)
        return a + b

    it2 = iter(tf.data.Dataset.from_tensor_slices(([1, 2], [10, 20])))
    assert [int(pair(it2)), int(pair(it2))] == [11, 22]


def test_tensor_leaked_from_a_trace_that_created_variables_is_out_of_scope():
    """The dry re-trace after a first trace that created variables does not hide that trace's leaks."""
    leaked = []

    class Scale(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(2.0)
            y = x * self.v
            leaked.append(y)
            return y + 1.0

    s = Scale()
    assert float(s(tf.constant(3.0))) == 7.0
    with pytest.raises(TypeError, match=OUT_OF_SCOPE):
        leaked[0] + 1.0
