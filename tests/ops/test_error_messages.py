"""Bad shapes/dtypes raise ``InvalidArgumentError`` whose message names the TF op, the shapes
and the dtypes, for every op family (DESIGN §7); a failed op changes no state."""

import numpy as np
import pytest

import tfcore as tf

f32 = tf.float32


def ones(shape, dtype=f32):
    return tf.ones(shape, dtype)


# (family, call, regex the message must match: op name ... shapes/dtypes)
CASES = [
    # math
    ("math", lambda: ones([2, 3]) + ones([4]), r"AddV2.*float32\[2, 3\].*float32\[4\]"),
    ("math", lambda: ones([2, 3]) * ones([2, 3], tf.float64), r"Mul.*float32\[2, 3\].*float64\[2, 3\]"),
    ("math", lambda: tf.maximum(ones([2]), ones([3])), r"Maximum.*float32\[2\].*float32\[3\]"),
    ("math", lambda: tf.where(tf.constant([True, False]), ones([3]), ones([3])), r"SelectV2.*bool\[2\].*float32\[3\]"),
    ("math", lambda: tf.add_n([ones([2]), ones([3])]), r"AddN.*float32\[2\].*float32\[3\]"),
    ("math", lambda: tf.matmul(ones([2, 3]), ones([2, 3])), r"MatMul.*\[2, 3\].*\[2, 3\].*float32"),
    ("math", lambda: tf.matmul(ones([2, 3]), ones([3, 2], tf.float64)), r"MatMul.*float32\[2, 3\].*float64\[3, 2\]"),
    ("math", lambda: tf.einsum("ij,jk->ik", ones([2, 3]), ones([4, 2])), r"Einsum.*float32\[2, 3\].*float32\[4, 2\]"),
    ("math", lambda: tf.tensordot(ones([2, 3]), ones([4, 2]), 1), r"Tensordot.*float32\[2, 3\].*float32\[4, 2\]"),
    ("math", lambda: tf.math.cumsum(ones([2]), axis=3), r"Cumsum.*axis 3.*float32\[2\]"),
    ("math", lambda: tf.sqrt(tf.constant([1, 2])), r"Sqrt.*int32\[2\]"),
    ("math", lambda: tf.clip_by_value(ones([2]), ones([3]), 2.0), r"ClipByValue.*float32\[2\].*float32\[3\]"),
    # reductions
    ("reduce", lambda: tf.reduce_sum(ones([2, 3]), axis=2), r"Sum.*axis 2.*rank 2"),
    ("reduce", lambda: tf.reduce_mean(ones([2, 3]), axis=[0, -3]), r"Mean.*axis -3.*rank 2"),
    ("reduce", lambda: tf.reduce_max(tf.constant([True])), r"Max.*bool\[1\]"),
    ("reduce", lambda: tf.reduce_any(ones([2])), r"Any.*float32\[2\]"),
    ("reduce", lambda: tf.argmax(ones([2, 3]), axis=2), r"ArgMax.*axis 2"),
    # array
    ("array", lambda: tf.reshape(ones([2, 3]), [4, 2]), r"Reshape.*\[2, 3\].*float32.*\[4, 2\]"),
    ("array", lambda: tf.transpose(ones([2, 3]), [0, 2]), r"Transpose.*float32\[2, 3\]"),
    ("array", lambda: tf.concat([ones([2, 3]), ones([2, 4])], 0), r"ConcatV2.*float32\[2, 3\].*float32\[2, 4\]"),
    ("array", lambda: tf.stack([ones([2]), ones([3])]), r"Pack.*float32\[2\].*float32\[3\]"),
    ("array", lambda: tf.gather(ones([2, 3]), [5]), r"indices\[0\] = 5 is not in \[0, 2\) \[Op:GatherV2\]"),
    ("array", lambda: tf.broadcast_to(ones([2, 3]), [4, 3]), r"BroadcastTo.*float32\[2, 3\]"),
    ("array", lambda: tf.tile(ones([2]), [1, 2]), r"Tile.*float32\[2\]"),
    ("array", lambda: tf.pad(ones([2]), [[1, 1], [1, 1]]), r"Pad.*float32\[2\]"),
    ("array", lambda: tf.split(ones([5]), 2), r"Split.*float32\[5\]"),
    ("array", lambda: tf.math.top_k(ones([3]), k=5), r"TopKV2.*float32\[3\]"),
    ("array", lambda: tf.one_hot(tf.constant([1.5]), 3), r"OneHot.*float32"),
    # nn
    ("nn", lambda: tf.nn.softmax(tf.constant([1, 2])), r"Softmax.*int32\[2\]"),
    ("nn", lambda: tf.nn.bias_add(ones([2, 3]), ones([4])), r"BiasAdd.*float32\[2, 3\].*float32\[4\]"),
    ("nn", lambda: tf.nn.conv2d(ones([1, 5, 5, 3]), ones([3, 3, 4, 2]), 1, "SAME"),
     r"Conv2D.*float32\[1, 5, 5, 3\].*float32\[3, 3, 4, 2\]"),
    ("nn", lambda: tf.nn.depthwise_conv2d(ones([1, 4, 4, 3]), ones([3, 3, 2, 1]), [1, 1, 1, 1], "SAME"),
     r"DepthwiseConv2dNative.*float32\[1, 4, 4, 3\]"),
    ("nn", lambda: tf.nn.max_pool2d(ones([4, 4, 1]), 2, 2, "VALID"), r"MaxPool.*float32\[4, 4, 1\]"),
    ("nn", lambda: tf.nn.avg_pool2d(ones([1, 4, 4, 1], tf.int32), 2, 2, "VALID"), r"AvgPool.*int32\[1, 4, 4, 1\]"),
    ("nn", lambda: tf.nn.softmax_cross_entropy_with_logits(ones([2, 3]), ones([2, 4])),
     r"SoftmaxCrossEntropyWithLogits.*float32\[2, 4\].*float32\[2, 3\]"),
    ("nn", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant([1.0]), ones([1, 3])),
     r"SparseSoftmaxCrossEntropyWithLogits.*float32\[1, 3\].*float32\[1\]"),
    ("nn", lambda: tf.nn.l2_loss(tf.constant([1])), r"L2Loss.*int32\[1\]"),
    # random
    ("random", lambda: tf.random.normal([2, -1]), r"RandomStandardNormal.*\[2, -1\]"),
    ("random", lambda: tf.random.categorical(ones([3]), 2), r"Multinomial.*float32\[3\]"),
    ("random", lambda: tf.random.truncated_normal([2], dtype=tf.int32), r"TruncatedNormal.*int32"),
    # image (the op-level check; the Python wrappers raise ValueError on rank, as TF)
    ("image", lambda: tf.image.resize(tf.constant(np.zeros((1, 2, 2, 1), bool)), [3, 3]),
     r"Resize.*bool\[1, 2, 2, 1\]"),
    # cast
    ("cast", lambda: tf.cast(tf.constant(["a"]), f32), r"Cast.*string\[1\]"),
]


@pytest.mark.parametrize("family, call, pattern", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_error_names_op_shapes_and_dtypes(family, call, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern):
        call()


@pytest.mark.parametrize("call", [
    lambda: tf.image.resize(ones([2, 2]), [3, 3]),
    lambda: tf.image.flip_left_right(ones([2])),
    lambda: tf.image.rot90(ones([2, 2])),
    lambda: tf.nn.sigmoid_cross_entropy_with_logits(ones([2]), ones([3])),
])
def test_static_shape_checks_raise_value_error_with_shapes(call):
    with pytest.raises(ValueError, match=r"\[2|\(2|\(3"):
        call()


def test_failed_op_leaves_tapes_and_variables_unchanged():
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = v * 3.0
        with pytest.raises(tf.errors.InvalidArgumentError):
            v * ones([3])
        with pytest.raises(tf.errors.InvalidArgumentError):
            v.assign_add(ones([3]))
    np.testing.assert_array_equal(v.numpy(), [1, 2])
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [3, 3])
