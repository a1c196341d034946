"""RaggedTensors through tf.function (the ragged guide's tf.function cells; expected values are TF 2.21's)."""

import pytest

import tfcore as tf


def test_traced_function_takes_and_returns_ragged():
    @tf.function
    def make_palindrome(x, axis):
        return tf.concat([x, tf.reverse(x, [axis])], axis)

    out = make_palindrome(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=1)
    assert isinstance(out, tf.RaggedTensor)
    assert out.to_list() == [[1, 2, 2, 1], [3, 3], [4, 5, 6, 6, 5, 4]]


def test_concrete_function_of_a_ragged_argument():
    @tf.function
    def increment(x):
        return x + 1

    rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert increment.get_concrete_function(rt)(rt).to_list() == [[2, 3], [4], [5, 6, 7]]
    assert increment(tf.ragged.constant([[1], [3, 4]])).to_list() == [[2], [4, 5]]  # another partition


def test_input_signature_with_ragged_tensor_spec():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def max_and_min(rt):
        return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1)

    hi, lo = max_and_min(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    assert hi.numpy().tolist() == [2, 3, 6] and lo.numpy().tolist() == [1, 3, 4]
    with pytest.raises(TypeError, match="max_and_min"):
        max_and_min(tf.ragged.constant([[1.0]]))


# -- RaggedTensorSpec traces: the row partitions are graph inputs -------------------------------------------------
class _Grow(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(100.0)

    @tf.function
    def grow(self, x):
        return x * self.v


def test_concrete_function_of_a_ragged_tensor_spec_alone():
    module = _Grow()
    cf = module.grow.get_concrete_function(tf.RaggedTensorSpec(shape=[None, None], dtype=tf.float32))
    # the flat values and the row splits are the graph's inputs (TF: x, x_1)
    assert [(i.dtype, i.shape.rank) for i in cf.graph.inputs] == [(tf.float32, 1), (tf.int64, 1)]
    assert isinstance(cf.structured_input_signature[0][0], tf.RaggedTensorSpec)
    for rows in ([[1.0, 4.0, 3.0], [2.0]], [[1.0], [], [4.0, 3.0], [2.0]], [[5.0, 6.0]]):
        out = cf(tf.ragged.constant(rows))
        assert isinstance(out, tf.RaggedTensor)
        assert out.to_list() == [[100.0 * v for v in r] for r in rows]
    assert module.grow(tf.ragged.constant([[2.0], [3.0, 4.0]])).to_list() == [[200.0], [300.0, 400.0]]
    assert module.grow.experimental_get_tracing_count() == 1


def test_ragged_input_signature_traces_once_for_any_row_partition():
    @tf.function(input_signature=[tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)])
    def stats(rt):
        return tf.math.reduce_max(rt, axis=-1), tf.math.reduce_min(rt, axis=-1), tf.reduce_mean(rt, axis=1)

    cases = {((1, 2), (3,), (4, 5, 6)): ([2, 3, 6], [1, 3, 4], [1.5, 3.0, 5.0]),
             ((1,), (3, 2), (4, 5, 6)): ([1, 3, 6], [1, 2, 4], [1.0, 2.5, 5.0]),  # same shapes, other partition
             ((7, 1), (2,), (4, 5, 6)): ([7, 2, 6], [1, 2, 4], [4.0, 2.0, 5.0])}
    for rows, (hi, lo, mean) in cases.items():
        got = stats(tf.ragged.constant([list(r) for r in rows]))
        assert [g.numpy().tolist() for g in got] == [hi, lo, mean]
    cf = stats.get_concrete_function()
    assert stats.experimental_get_tracing_count() == 1
    # the reductions read the row splits with graph ops: no value read on the host, no graph per partition
    assert "Guard" not in [n.type for n in cf.graph.nodes] and not cf._by_value


def test_uniform_row_length_survives_a_traced_function():
    rt = tf.RaggedTensor.from_uniform_row_length(tf.ragged.constant([[1], [2, 3], [4], [5]]), 2)

    @tf.function
    def double(x):
        return x * 2

    out = double(rt)
    assert out.shape.as_list() == [2, 2, None] and out.to_list() == [[[2], [4, 6]], [[8], [10]]]
    cf = double.get_concrete_function(tf.RaggedTensorSpec([None, 2, None], tf.int32, ragged_rank=2))
    assert cf(rt).shape.as_list() == [2, 2, None]
    assert cf.structured_input_signature[0][0].shape.as_list() == [None, 2, None]
