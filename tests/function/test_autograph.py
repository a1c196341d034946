"""AutoGraph: each converted construct, Python semantics for Python values, to_code, error lines."""

import numpy as np
import pytest

import tfcore as tf


def test_if_else_on_tensors_becomes_cond():
    @tf.function
    def square_if_positive(x):
        if x > 0:
            x = x * x
        else:
            x = 0.0
        return x

    assert float(square_if_positive(tf.constant(3.0))) == 9.0
    assert float(square_if_positive(tf.constant(-3.0))) == 0.0
    assert square_if_positive.experimental_get_tracing_count() == 1
    code = tf.autograph.to_code(square_if_positive.python_function)
    assert code.startswith("def tf__square_if_positive(x):") and "ag__.if_stmt(x > 0" in code


def test_elif_and_early_return():
    @tf.function
    def sign(x):
        if x > 0:
            return 1
        elif x < 0:
            return -1
        return 0

    assert [int(sign(tf.constant(v))) for v in (5, -5, 0)] == [1, -1, 0]
    assert sign.experimental_get_tracing_count() == 1


def test_an_early_return_then_rebinding_an_argument_reads_its_value():
    """The statements after an early return become a branch function: one that rebinds a name it reads
    (``x = x + 1``) used to raise UnboundLocalError; the branches now take the names they assign."""
    @tf.function
    def shift(x, big):
        if isinstance(x, list):
            return 0
        if big > 0:
            x = x * 10
            return x
        x = x + 1
        return x

    assert int(shift(tf.constant(1), tf.constant(0))) == 2
    assert int(shift(tf.constant(1), tf.constant(5))) == 10


def test_while_with_nested_if():
    @tf.function
    def collatz(n):
        steps = 0
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    assert int(collatz(tf.constant(6))) == 8
    assert int(collatz(tf.constant(27))) == 111
    assert collatz.experimental_get_tracing_count() == 1


def test_for_over_tf_range_with_break_and_continue():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            if i % 2 == 1:
                continue
            if i > 6:
                break
            s += i
        return s

    assert int(f(tf.constant(5))) == 0 + 2 + 4
    assert int(f(tf.constant(20))) == 0 + 2 + 4 + 6
    assert f.experimental_get_tracing_count() == 1


def test_for_over_tensor_rows_and_print(capsys):
    @tf.function
    def total(m):
        acc = tf.zeros([3])
        for row in m:
            acc += row
        print("acc", acc)      # Python print, while tracing: the loop's symbolic result (TF 2.21's AutoGraph
        print("traced")        # leaves print alone; tf.print prints on every call)
        return acc

    np.testing.assert_allclose(total(tf.constant(np.arange(6.0, dtype=np.float32).reshape(2, 3))).numpy(), [3, 5, 7])
    np.testing.assert_allclose(total(tf.constant(np.ones((2, 3), np.float32))).numpy(), [2, 2, 2])
    out = capsys.readouterr().out
    # TF 2.21 prints: acc Tensor("while:3", shape=(3,), dtype=float32) (its loop has more outputs than tfcore's)
    assert out.count("traced") == 1 and out.count("acc Tensor(\"while:") == 1
    assert 'shape=(3,), dtype=float32)' in out


def test_python_conditions_keep_python_semantics(capsys):
    @tf.function
    def f(x, training):
        if training:
            print("python branch")
            x = x + 1
        for _ in range(2):  # a Python range is unrolled
            x = x * 2
        return x

    assert int(f(tf.constant(1), True)) == 8
    assert int(f(tf.constant(1), False)) == 4
    assert capsys.readouterr().out.count("python branch") == 1


def test_loop_over_dataset_and_boolean_operators():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(4, dtype=np.float32))

    @tf.function
    def f(x):
        s = tf.constant(0.0)
        for v in ds:
            s += v
        if x > 0 and x < 10:
            s = s * 2
        return s

    assert float(f(tf.constant(5.0))) == 12.0
    assert float(f(tf.constant(50.0))) == 6.0


def test_undefined_in_one_branch_is_an_error():
    @tf.function
    def f(x):
        if x > 0:
            y = x
        else:
            pass
        return y  # noqa: F821

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        f(tf.constant(1.0))


def test_errors_point_at_the_users_line():
    @tf.function
    def f(x):
        if x > 0:
            x = tf.reshape(x, [7])  # the failing line
        return x

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0, 2.0]) if False else tf.constant(1.0))
    tb = info.traceback
    assert any(entry.path.name == "test_autograph.py" and "the failing line" in str(entry.statement) for entry in tb)


def test_do_not_convert():
    @tf.autograph.experimental.do_not_convert
    def raw(x):
        if x > 0:
            return x
        return -x

    f = tf.function(raw)
    assert float(f(tf.constant(2.0))) == 2.0
    assert float(f(tf.constant(-2.0))) == 2.0  # a second graph, specialised to the Python condition
    assert "ag__" not in repr(f.get_concrete_function(tf.constant(1.0)).graph.get_operations())


def test_for_over_a_dataset_is_one_node_iterating_per_call():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32)).batch(2)
    counter = tf.Variable(0.0)

    @tf.function
    def f(scale):
        s = tf.constant(0.0)
        n = 0
        for x in ds:
            s += tf.reduce_sum(x) * scale
            counter.assign_add(1.0)
            n += 1
        return s, n

    s, n = f(tf.constant(1.0))
    assert (float(s), int(n)) == (15.0, 3)
    s, n = f(tf.constant(2.0))
    assert (float(s), int(n)) == (30.0, 3) and float(counter) == 6.0
    ops = [op.type for op in f.get_concrete_function(tf.constant(1.0)).graph.get_operations()]
    assert ops == ["DatasetLoop"] and f.experimental_get_tracing_count() == 1

    @tf.function
    def first_big(limit):
        found = tf.constant(-1.0)
        for x in tf.data.Dataset.range(10):
            if tf.cast(x, tf.float32) > limit:
                found = tf.cast(x, tf.float32)
                break
        return found

    assert float(first_big(tf.constant(3.5))) == 4.0
    assert float(first_big(tf.constant(7.5))) == 8.0
