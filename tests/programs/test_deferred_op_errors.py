"""A value-dependent op error inside tf.function (guide/intro_to_graphs, "unused_return_graph").

TF 2.21 builds the graph first and checks indices only when an op runs: an op whose result is unused is
pruned and never raises; a used one raises its InvalidArgumentError when the function runs. tfcore traces
on real values, so the failing op gives a ``DeferredErrorTensor`` that raises the same error on any use.
The first test fails on the code before the change (the trace raised GatherV2's error).
"""

import pytest

import tfcore as tf


def test_an_unused_gather_out_of_range_does_not_fail_the_function():
    @tf.function
    def unused_return_graph(x):
        tf.gather(x, [1])  # unused
        return x

    assert unused_return_graph(tf.constant([0.0])).numpy().tolist() == [0.0]


def test_a_used_gather_out_of_range_raises_its_error_as_an_output_or_an_input():
    @tf.function
    def as_output(x):
        return tf.gather(x, [1])

    @tf.function
    def as_input(x):
        return tf.gather(x, [1]) * 2.0

    for f in (as_output, as_input):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^indices\[0\] = 1 is not in \[0, 1\) \[Op:GatherV2\]$"):  # TF 2.21's text
            f(tf.constant([0.0]))
    assert as_input(tf.constant([0.0, 4.0])).numpy().tolist() == [8.0]  # a valid input traces and runs


def test_reading_the_value_of_a_failed_op_while_tracing_raises_its_error():
    @tf.function
    def f(x):
        y = tf.gather(x, [3])
        print(y.shape)
        return x

    with pytest.raises(tf.errors.InvalidArgumentError, match="GatherV2"):
        f(tf.constant([1.0, 2.0]))


def test_eager_gather_out_of_range_still_raises_at_once():
    with pytest.raises(tf.errors.InvalidArgumentError, match="GatherV2"):
        tf.gather(tf.constant([0.0]), [1])
