"""Top-level tf ops (searchsorted, histograms, reverse_sequence, dynamic partition/stitch, tensor_scatter_nd_*,
tf.bitwise, space/batch, shape helpers, recompute_grad ...) and the tf.math extras, against NumPy."""

import numpy as np
import pytest

import tfcore as tf

rng = np.random.default_rng(11)


def test_searchsorted_and_histograms():
    seq = np.sort(rng.integers(0, 10, (3, 6)), axis=1).astype(np.float32)
    vals = rng.integers(-1, 11, (3, 4)).astype(np.float32)
    for side in ("left", "right"):
        got = tf.searchsorted(seq, vals, side=side).numpy()
        want = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.int32
    assert tf.searchsorted([1.0, 2.0], [1.5], out_type=tf.int64).dtype == tf.int64
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted(seq, vals, side="middle")
    # TF's documented example
    values = [-1.0, 0.0, 1.5, 2.0, 5.0, 15]
    np.testing.assert_array_equal(tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5).numpy(), [2, 1, 1, 0, 2])
    np.testing.assert_array_equal(tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5).numpy(),
                                  [0, 0, 1, 2, 4, 4])


def test_reverse_sequence():
    x = np.arange(24.0).reshape(2, 4, 3)
    got = tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0).numpy()
    want = x.copy()
    want[0, :3] = x[0, 2::-1]
    np.testing.assert_array_equal(got, want)
    xt = np.transpose(x, (1, 0, 2))
    np.testing.assert_array_equal(tf.reverse_sequence(xt, [3, 1], seq_axis=0, batch_axis=1).numpy(),
                                  np.transpose(want, (1, 0, 2)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="seq_lengths"):
        tf.reverse_sequence(x, [3, 1, 2], seq_axis=1, batch_axis=0)


def test_dynamic_partition_and_stitch():
    data = np.arange(10.0, 16.0)
    parts = tf.dynamic_partition(data, [0, 0, 1, 1, 0, 1], 2)
    np.testing.assert_array_equal(parts[0].numpy(), [10.0, 11.0, 14.0])
    np.testing.assert_array_equal(parts[1].numpy(), [12.0, 13.0, 15.0])
    # TF's documented dynamic_stitch example
    indices = [6, [4, 1], [[5, 2], [0, 3]]]
    data = [[61.0, 62.0], [[41.0, 42.0], [11.0, 12.0]], [[[51.0, 52.0], [21.0, 22.0]], [[1.0, 2.0], [31.0, 32.0]]]]
    np.testing.assert_array_equal(tf.dynamic_stitch(indices, data).numpy(),
                                  [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]])
    partitions = [0, 0, 1, 1, 0, 1]
    x = tf.constant(np.arange(6.0) * 2)
    cond = tf.dynamic_partition(tf.range(6), partitions, 2)
    back = tf.dynamic_stitch(cond, tf.dynamic_partition(x, partitions, 2))
    np.testing.assert_array_equal(back.numpy(), x.numpy())
    v = tf.Variable(np.arange(6.0))
    with tf.GradientTape() as tape:
        p = tf.dynamic_partition(v, partitions, 2)
        loss = tf.reduce_sum(p[0] * 2.0) + tf.reduce_sum(p[1] * 3.0)
    np.testing.assert_array_equal(tape.gradient(loss, v).numpy(), [2, 2, 3, 3, 2, 3])


def test_tensor_scatter_family():
    t = np.zeros((4, 2))
    idx = [[1], [3], [1]]
    upd = np.array([[1.0, -2.0], [3.0, 4.0], [5.0, -6.0]])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_sub(t, idx, upd).numpy(),
                                  [[0, 0], [-6, 8], [0, 0], [-3, -4]])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max(t, idx, upd).numpy(), [[0, 0], [5, 0], [0, 0], [3, 4]])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_min(t, idx, upd).numpy(), [[0, 0], [0, -6], [0, 0], [0, 0]])
    # TF's documented example
    tensor = [0, 0, 0, 0, 0, 0, 0, 0]
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max(tensor, [[1], [3], [7]], [1, -1, 4]).numpy(),
                                  [0, 1, 0, 0, 0, 0, 0, 4])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_update(tensor, [[1]], [9]).numpy(), [0, 9, 0, 0, 0, 0, 0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="updates must have shape"):
        tf.tensor_scatter_nd_max(t, idx, upd[:2])


def test_bitwise():
    a = np.array([0, 5, 3, 14], np.int32)
    b = np.array([5, 0, 7, 11], np.int32)
    np.testing.assert_array_equal(tf.bitwise.bitwise_and(a, b).numpy(), a & b)
    np.testing.assert_array_equal(tf.bitwise.bitwise_or(a, b).numpy(), a | b)
    np.testing.assert_array_equal(tf.bitwise.bitwise_xor(a, b).numpy(), a ^ b)
    np.testing.assert_array_equal(tf.bitwise.invert(a).numpy(), ~a)
    np.testing.assert_array_equal(tf.bitwise.left_shift(a, 2).numpy(), a << 2)
    np.testing.assert_array_equal(tf.bitwise.right_shift(np.array([-8, 8], np.int64), 1).numpy(), [-4, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="integer"):
        tf.bitwise.bitwise_and([1.0], [2.0])


def test_static_values_shapes_and_graph_names():
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(None) is None
    assert tf.get_static_value(tf.Variable(1.0)) is None
    x = tf.ones([2, 3])
    assert tf.ensure_shape(x, [None, 3]) is not x
    with pytest.raises(tf.errors.InvalidArgumentError, match="not compatible"):
        tf.ensure_shape(x, [3, 3])
    assert [t.numpy().tolist() for t in tf.shape_n([x, tf.ones([4])])] == [[2, 3], [4]]
    assert len(tf.identity_n([x, x])) == 2
    assert tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]).numpy().tolist() == [2, 4, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [2, 3]
    with pytest.raises(ValueError):
        tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))
    assert tf.parallel_stack([x, x]).shape == (2, 2, 3)
    assert tf.unravel_index([5, 7], [3, 4]).numpy().tolist() == [[1, 1], [1, 3]]
    assert tf.guarantee_const(x).shape == (2, 3)
    assert tf.no_op() is None and tf.group(x) is None and len(tf.tuple([x, None])) == 2
    assert not tf.is_symbolic_tensor(x)
    assert tf.timestamp().dtype == tf.float64
    assert tf.get_logger().name == "tensorflow"
    assert tf.AggregationMethod.DEFAULT == tf.AggregationMethod.ADD_N


def test_space_batch_round_trip():
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)
    s2b = tf.space_to_batch_nd(x, [2, 3], [[0, 0], [0, 0]])
    assert s2b.shape == (12, 2, 2, 3)
    np.testing.assert_array_equal(s2b.numpy()[0], x[0, ::2, ::3])
    np.testing.assert_array_equal(s2b.numpy()[2 * 1 + 0 * 6], x[0, 0::2, 1::3])
    np.testing.assert_array_equal(tf.batch_to_space(s2b, [2, 3], [[0, 0], [0, 0]]).numpy(), x)
    paddings, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3])
    assert paddings.numpy().tolist() == [[0, 1], [0, 2]] and crops.numpy().tolist() == [[0, 1], [0, 2]]
    y = np.arange(5 * 7, dtype=np.float32).reshape(1, 5, 7, 1)
    there = tf.space_to_batch(y, [2, 3], paddings)
    np.testing.assert_array_equal(tf.batch_to_space(there, [2, 3], crops).numpy(), y)


def test_math_extras():
    x = np.array([-2.5, -0.5, 0.0, 0.5, 3.0])
    np.testing.assert_allclose(tf.math.asinh(x).numpy(), np.arcsinh(x))
    np.testing.assert_allclose(tf.math.acosh(np.abs(x) + 1).numpy(), np.arccosh(np.abs(x) + 1))
    np.testing.assert_allclose(tf.math.atanh(x / 4).numpy(), np.arctanh(x / 4))
    a, b = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    np.testing.assert_array_equal(tf.truncatediv(a, b).numpy(), np.trunc(a / b).astype(int))
    np.testing.assert_array_equal(tf.truncatemod(a, b).numpy(), np.fmod(a, b))
    np.testing.assert_allclose(tf.truncatemod(np.array([7.5, -7.5]), 2.0).numpy(), np.fmod([7.5, -7.5], 2.0))
    np.testing.assert_array_equal(tf.math.multiply_no_nan([np.inf, 2.0], [0.0, 3.0]).numpy(), [0.0, 6.0])
    np.testing.assert_array_equal(tf.math.reciprocal_no_nan([0.0, 4.0]).numpy(), [0.0, 0.25])
    np.testing.assert_array_equal(tf.math.xlogy([0.0, 2.0], [0.0, np.e]).numpy(), [0.0, 2.0])
    np.testing.assert_allclose(tf.math.xlog1py([0.0, 2.0], [-1.0, 1.0]).numpy(), [0.0, 2 * np.log(2)])
    np.testing.assert_array_equal(tf.math.xdivy([0.0, 3.0], [0.0, 2.0]).numpy(), [0.0, 1.5])
    np.testing.assert_array_equal(tf.math.rint([0.5, 1.5, -0.5]).numpy(), [0.0, 2.0, -0.0])
    from math import erfc
    np.testing.assert_allclose(tf.math.erfc(x).numpy(), [erfc(v) for v in x], rtol=1e-6)
    np.testing.assert_array_equal(tf.math.accumulate_n([x, x, x]).numpy(), 3 * x)
    assert bool(tf.math.is_non_decreasing([1, 1, 2]).numpy()) and not bool(tf.math.is_strictly_increasing([1, 1, 2]))
    np.testing.assert_array_equal(tf.math.invert_permutation([3, 4, 0, 2, 1]).numpy(), [2, 4, 3, 0, 1])
    np.testing.assert_allclose(tf.math.polyval([2.0, -1.0, 3.0], x).numpy(), np.polyval([2, -1, 3], x))
    np.testing.assert_allclose(tf.math.cumulative_logsumexp(x).numpy(), np.log(np.cumsum(np.exp(x))))
    data = np.array([[1.0, 2.0], [5.0, -1.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tf.math.unsorted_segment_max(data, [1, 0, 1], 3).numpy(),
                                  [[5, -1], [3, 4], [np.finfo(np.float64).min] * 2])
    np.testing.assert_array_equal(tf.math.segment_min(data, [0, 0, 1]).numpy(), [[1, -1], [3, 4]])
    np.testing.assert_array_equal(tf.math.segment_max(data, [0, 0, 1]).numpy(), [[5, 2], [3, 4]])
    np.testing.assert_allclose(tf.math.unsorted_segment_sqrt_n(data, [0, 0, 1], 2).numpy(),
                               [(data[0] + data[1]) / np.sqrt(2), data[2]])
    assert tf.math.zero_fraction([0, 1, 0, 3]).numpy() == 0.5
    vals, idx = tf.math.approx_max_k(np.array([[3.0, 1.0, 4.0, 1.5]]), 2)
    np.testing.assert_array_equal(vals.numpy(), [[4.0, 3.0]])
    np.testing.assert_array_equal(idx.numpy(), [[2, 0]])
    np.testing.assert_array_equal(tf.math.approx_min_k(np.array([[3.0, 1.0, 4.0, 1.5]]), 2)[0].numpy(), [[1.0, 1.5]])
    np.testing.assert_allclose(tf.math.softmax([0.0, 0.0]).numpy(), [0.5, 0.5])
    np.testing.assert_allclose(tf.math.log_softmax([0.0, 0.0]).numpy(), np.log([0.5, 0.5]))


def test_recompute_grad_grad_pass_through_no_gradient():
    w = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]))

    def block(x):
        return tf.tanh(tf.matmul(x, w))

    x = tf.constant(np.array([[0.1, -0.2]]))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        plain = tf.reduce_sum(block(x) ** 2)
        again = tf.reduce_sum(tf.recompute_grad(block)(x) ** 2)
    np.testing.assert_allclose(again.numpy(), plain.numpy())
    for src in (x, w):
        np.testing.assert_allclose(tape.gradient(again, src).numpy(), tape.gradient(plain, src).numpy(), rtol=1e-12)
    y = tf.constant([0.3, 1.7])
    with tf.GradientTape() as tape:
        tape.watch(y)
        r = tf.grad_pass_through(tf.round)(y)
    np.testing.assert_array_equal(r.numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(r, y).numpy(), [1.0, 1.0])
    from tfcore.ops.registry import REGISTRY
    op = REGISTRY["Softsign"]
    saved = op.grad
    try:
        tf.no_gradient("Softsign")
        with tf.GradientTape() as tape:
            tape.watch(y)
            s = tf.nn.softsign(y)
        assert tape.gradient(s, y) is None
    finally:
        op.grad = saved
    with pytest.raises(TypeError):
        tf.no_gradient(3)


def test_py_function_numpy_function_vectorized_map():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda t: t * t, [x], tf.float32)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
    z = tf.numpy_function(lambda a: (a + 1).astype(np.float64), [x], tf.float64)
    assert z.dtype == tf.float64 and z.numpy().tolist() == [2.0, 3.0]
    out = tf.vectorized_map(lambda row: tf.reduce_sum(row) * 2.0, tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(out.numpy(), [6.0, 14.0])
    pair = tf.vectorized_map(lambda e: (e[0] + e[1], e[0] * e[1]), (tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])))
    np.testing.assert_array_equal(pair[1].numpy(), [3.0, 8.0])


def test_top_level_keras_aliases():
    assert tf.losses.Hinge is tf.keras.losses.Hinge
    assert tf.metrics.AUC is tf.keras.metrics.AUC
    assert tf.optimizers.Adam is tf.keras.optimizers.Adam
    assert tf.initializers.GlorotUniform is tf.keras.initializers.GlorotUniform


def test_bitcast_name_scope_version():
    assert tf.bitcast(tf.constant([1.0], tf.float32), tf.int32).numpy().tolist() == [1065353216]
    assert tf.bitcast(tf.constant([1], tf.int32), tf.uint8).numpy().tolist() == [[1, 0, 0, 0]]
    assert tf.bitcast(tf.constant([[0, 0, 128, 63]], tf.uint8), tf.float32).numpy().tolist() == [1.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Bitcast"):
        tf.bitcast(tf.constant([1, 2], tf.uint8), tf.float32)
    assert tf.get_current_name_scope() == ""
    with tf.name_scope("outer"), tf.name_scope("inner"):
        assert tf.get_current_name_scope() == "outer/inner"
    assert tf.__version__ == tf.version.VERSION and isinstance(tf.version.GIT_VERSION, str)


def test_special_functions():
    from math import erf, lgamma

    x = np.array([-2.5, -0.3, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 150.0])
    np.testing.assert_allclose(tf.math.lgamma(x).numpy(), [lgamma(v) for v in x], rtol=1e-10, atol=1e-11)
    h = 1e-6
    fd = [(lgamma(v + h) - lgamma(v - h)) / (2 * h) for v in x]
    np.testing.assert_allclose(tf.math.digamma(x).numpy(), fd, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(tf.math.digamma(np.array([1.0])).numpy(), [-0.5772156649015329], rtol=1e-10)
    v = tf.Variable([0.7, 3.0])
    with tf.GradientTape() as tape:
        s = tf.reduce_sum(tf.math.lgamma(v))
    np.testing.assert_allclose(tape.gradient(s, v).numpy(), tf.math.digamma(v).numpy(), rtol=1e-5)
    y = np.linspace(-0.999, 0.999, 21)
    np.testing.assert_allclose([erf(t) for t in tf.math.erfinv(y).numpy()], y, atol=1e-14)
    np.testing.assert_allclose(tf.math.ndtri(np.array([0.5, 0.975, 0.025])).numpy(), [0.0, 1.959963984540054,
                                                                                       -1.959963984540054], atol=1e-12)
    np.testing.assert_allclose(tf.math.lbeta(np.array([[1.0, 2.0], [2.0, 3.0]])).numpy(),
                               [np.log(0.5), np.log(1 / 12)], rtol=1e-10)
