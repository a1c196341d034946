"""THE op-info table: one entry per registered op (see ``tests/opinfo/core.py`` for the fields).

Sections, each keyed by TF's op name: device-comparison samples of the public functions (formerly the GPU
op cases of tests/ops), float64 gradient cases for the first and second gradient (formerly the gradient
coverage list of tests/autodiff), element-wise float64 references, the CUDA kernels an op
must launch, and the SavedModel subset. Adding an op: add its facts here, nothing else in ``tests/``.
Ops that cannot have an entry are in ``EXEMPT`` (``tests/opinfo/exemptions.py``), each with its reason.
"""

import math

import numpy as np

import tfcore as tf
from tfcore.io.image_codecs import encode_wav
from tfcore.ops import conv_ops, fused_ops, pool_ops, training_ops
from tfcore.ops.registry import execute, get_op
from tfcore.selftest import references

from .core import GradCase, Sample, away, bools, entry, f32, f64, grad_case, i32, i64, r, sample, vjp

# ==================================================================================================
# samples: public calls compared between CPU:0 and a GPU device (sample(op, id, fn, *arrays, ...));
# op None: a public function composed of several ops (COMPOSITES)
# ==================================================================================================

X, Y = f32(3, 4), f32(3, 4, seed=1)
POS = f32(3, 4, lo=0.2, hi=2.0, seed=2)
UNIT = f32(3, 4, lo=-0.9, hi=0.9, seed=3)
IMG = f32(2, 5, 6, 3, seed=4)
IMG64 = f64(1, 5, 5, 2, seed=5)

# -- math: element-wise binary ------------------------------------------------------------------
for _op, _name in [
        ("AddV2", "add"), ("Sub", "subtract"), ("Mul", "multiply"), ("Maximum", "maximum"), ("Minimum", "minimum"),
        ("SquaredDifference", "squared_difference"), ("Atan2", "atan2"),
]:
    sample(_op, _name, getattr(tf.math, _name), X, Y, grad=True)
sample("AddV2", "add_broadcast", tf.add, X, f32(4, seed=6), grad=True)
sample("RealDiv", "divide", tf.divide, X, POS, grad=True)
sample("RealDiv", "realdiv", tf.realdiv, X, POS, grad=True)
sample("Pow", "pow", tf.pow, POS, Y, grad=True)
sample(None, "truediv_int", tf.truediv, i32(3, 4, lo=-5), i32(3, 4, lo=1, seed=1))
sample("FloorDiv", "floordiv_int", tf.math.floordiv, i32(3, 4, lo=-9, hi=9), i32(3, 4, lo=1, seed=1))
sample(None, "floordiv_float", tf.math.floordiv, X, POS)
sample("FloorMod", "floormod_int", tf.math.floormod, i64(3, 4, lo=-9, hi=9), i64(3, 4, lo=1, seed=1))
sample("FloorMod", "floormod_float", tf.math.floormod, X, POS)
sample("DivNoNan", "divide_no_nan", tf.math.divide_no_nan, X, np.array([0, 1, 2, 0], np.float32), grad=True)
sample("Mul", "scalar_mul", lambda x: tf.math.scalar_mul(3.0, x), X, grad=True)
for _op, _name in [
        ("Equal", "equal"), ("NotEqual", "not_equal"), ("Less", "less"), ("LessEqual", "less_equal"),
        ("Greater", "greater"), ("GreaterEqual", "greater_equal"),
]:
    sample(_op, _name, getattr(tf.math, _name), i32(3, 4), i32(3, 4, seed=1))
for _op, _name in [("LogicalAnd", "logical_and"), ("LogicalOr", "logical_or"), ("LogicalXor", "logical_xor")]:
    sample(_op, _name, getattr(tf.math, _name), bools(3, 4), bools(3, 4, seed=1))
sample("LogicalNot", "logical_not", tf.math.logical_not, bools(3, 4))
sample("AddV2", "operators", lambda x, y: (x + y) * 2.0 - x / (abs(y) + 1.0) + (-x) ** 2, X, Y, grad=True)

# -- math: element-wise unary ---------------------------------------------------------------------
for _op, _name in [
        ("Neg", "negative"), ("Abs", "abs"), ("Square", "square"), ("Exp", "exp"), ("Expm1", "expm1"),
        ("Sin", "sin"), ("Cos", "cos"), ("Tan", "tan"), ("Atan", "atan"), ("Sinh", "sinh"), ("Cosh", "cosh"),
        ("Tanh", "tanh"), ("Sigmoid", "sigmoid"), ("Softplus", "softplus"), ("Softsign", "softsign"),
        ("Erf", "erf"), (None, "log_sigmoid"),
]:
    sample(_op, _name, getattr(tf.math, _name), X, grad=True)
for _op, _name in [
        ("Sqrt", "sqrt"), ("Rsqrt", "rsqrt"), ("Log", "log"), ("Log1p", "log1p"), ("Reciprocal", "reciprocal"),
]:
    sample(_op, _name, getattr(tf.math, _name), POS, grad=True)
for _op, _name in [("Asin", "asin"), ("Acos", "acos")]:
    sample(_op, _name, getattr(tf.math, _name), UNIT, grad=True)
sample("Log", "log_zero_and_negative", tf.math.log, np.array([0.0, -1.0, 1.0], np.float32))
sample("Erf", "erf_float64", tf.math.erf, f64(5))
for _op, _name in [("Sign", "sign"), ("Floor", "floor"), ("Ceil", "ceil"), ("Round", "round")]:
    sample(_op, _name, getattr(tf.math, _name), X * 3)
sample("Round", "round_half_even", tf.math.round, np.array([0.5, 1.5, 2.5, -0.5], np.float32))
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
for _op, _name in [("IsNan", "is_nan"), ("IsInf", "is_inf"), ("IsFinite", "is_finite")]:
    sample(_op, _name, getattr(tf.math, _name), _SPECIAL)

# -- math: cast, clip, where, add_n, matmul, einsum, cumsum ------------------------------------------------
sample("Cast", "cast_f2i", lambda x: tf.cast(x * 3, tf.int32), X)
sample("Cast", "cast_bool", lambda x: tf.cast(x, tf.bool), i32(6))
sample("Cast", "cast_f16", lambda x: tf.cast(x, tf.float16), X, grad=True)
sample(None, "saturate_cast", lambda x: tf.saturate_cast(x * 300, tf.uint8), X)
sample("ClipByValue", "clip_by_value", lambda x: tf.clip_by_value(x, -0.5, 0.5), X, grad=True)
sample("SelectV2", "where_select", lambda c, x, y: tf.where(c, x, y), bools(3, 4), X, Y, grad=True)
sample("Where", "where_indices", lambda c: tf.where(c), bools(3, 4))
sample("AddN", "add_n", lambda *xs: tf.add_n(xs), X, Y, POS, grad=True)
sample("BatchMatMulV2", "matmul", tf.matmul, f32(5, 7), f32(7, 3, seed=1), grad=True, tol=1e-4)
sample("BatchMatMulV2", "matmul_transposed_batched", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
     f32(2, 7, 5), f32(2, 3, 7, seed=1), grad=True, tol=1e-4)
sample("BatchMatMulV2", "matmul_float64", tf.matmul, f64(4, 6), f64(6, 2, seed=1), grad=True)
sample("BatchMatMulV2", "matmul_int", tf.matmul, i32(3, 4), i32(4, 2, seed=1))
sample(None, "tensordot", lambda a, b: tf.tensordot(a, b, axes=[[1], [0]]), f32(3, 4), f32(4, 5, seed=1), grad=True,
     tol=1e-4)
sample("Einsum", "einsum", lambda a, b: tf.einsum("bij,bjk->bik", a, b), f32(2, 3, 4), f32(2, 4, 2, seed=1), grad=True,
     tol=1e-4)
sample("Cumsum", "cumsum", lambda x: tf.cumsum(x, axis=1, exclusive=True, reverse=True), X, grad=True)
sample("Cumprod", "cumprod", lambda x: tf.math.cumprod(x, axis=0, exclusive=True), X, grad=True)

# -- array ops ---------------------------------------------------------------------------------------
sample("Fill", "fill", lambda: tf.fill([2, 3], 7.0))
sample(None, "zeros_ones", lambda: (tf.zeros([2, 3]), tf.ones([3], tf.int32)))
sample("ZerosLike", "zeros_like_ones_like", lambda x: (tf.zeros_like(x), tf.ones_like(x)), X)
sample("Reshape", "reshape", lambda x: tf.reshape(x, [4, 3]), X, grad=True)
sample("BroadcastTo", "broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 4]), f32(3, 1), grad=True)
sample("Identity", "identity", tf.identity, X, grad=True)
sample("Pack", "stack_unstack", lambda x, y: tf.unstack(tf.stack([x, y], axis=1), axis=2), X, Y, grad=True)
sample("Transpose", "transpose", lambda x: tf.transpose(x, [2, 0, 1]), f32(2, 3, 4), grad=True)
sample("ConcatV2", "concat_split", lambda x, y: tf.split(tf.concat([x, y], axis=1), [3, 5], axis=1), X, Y, grad=True)
sample("Tile", "tile", lambda x: tf.tile(x, [2, 3]), X, grad=True)
sample("PadV2", "pad_constant", lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=5.0), X, grad=True)
sample("MirrorPad", "pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"), X, grad=True)
sample("MirrorPad", "pad_symmetric", lambda x: tf.pad(x, [[1, 0], [1, 2]], mode="SYMMETRIC"), X, grad=True)
sample("Reshape", "expand_squeeze", lambda x: tf.squeeze(tf.expand_dims(x, 1), [1]), X, grad=True)
sample("GatherV2", "gather", lambda p, i: tf.gather(p, i), f32(5, 3), i32(7), grad=True)
sample("GatherV2", "gather_axis1_float64", lambda p, i: tf.gather(p, i, axis=1), f64(3, 5), i64(2, 4), grad=True)
sample("GatherV2", "gather_batch_dims",
       lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), f32(2, 5, 3), i32(2, 4), grad=True)
sample("GatherV2", "gather_int64_params", lambda p, i: tf.gather(p, i), i64(5, 2, hi=100), i32(6))
sample("GatherNd", "gather_nd", lambda p, i: tf.gather_nd(p, i), f32(4, 3, 2), i32(5, 2, hi=3), grad=True)
sample("ScatterNd", "scatter_nd_float", lambda i, u: tf.scatter_nd(i, u, [5, 3]), i32(6, 1), f32(6, 3), grad=True)
sample("ScatterNd", "scatter_nd_int64", lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), i64(7, hi=50))
sample("ScatterNd", "scatter_nd_int32", lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), i32(7, hi=50, seed=3))
sample("ScatterNd", "scatter_nd_float16",
       lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), f32(7).astype(np.float16),
     tol=1e-2)
sample("TensorScatterUpdate", "tensor_scatter_update",
       lambda t, i, u: tf.tensor_scatter_nd_update(t, i, u), X, np.array([[0], [2]]),
     f32(2, 4, seed=1), grad=True)
sample("TensorScatterUpdate", "tensor_scatter_add_int64", lambda t, i, u: tf.tensor_scatter_nd_add(t, i, u), i64(4, 2),
     np.array([[1], [1], [3]]), i64(3, 2, seed=1))
sample("OneHot", "one_hot", lambda i: tf.one_hot(i, 4, on_value=2.0, off_value=-1.0, axis=0), i32(5))
sample("ReverseV2", "reverse", lambda x: tf.reverse(x, [0, 1]), X, grad=True)
sample("ArgSort", "argsort_desc", lambda x: tf.argsort(x, direction="DESCENDING"), i32(3, 6))
sample("ArgSort", "sort", lambda x: tf.sort(x, axis=0), X, grad=True)
sample("UniqueWithCounts", "unique", lambda x: tuple(tf.unique(x)), i32(9))
sample("UniqueWithCounts", "unique_with_counts", lambda x: tuple(tf.unique_with_counts(x, out_idx=tf.int64)), i64(9))
sample("Eye", "eye", lambda: tf.eye(3, 4, batch_shape=[2]))
sample("Range", "range", lambda: (tf.range(2, 11, 3), tf.range(0.0, 1.0, 0.25)))
sample("LinSpace", "linspace", lambda a, b: tf.linspace(a, b, 5), np.float32(0.5), np.float32(2.0))
sample("StridedSlice", "strided_slice", lambda x: x[1:, ::-2], X, grad=True)
sample("StridedSlice", "getitem_newaxis_ellipsis", lambda x: x[None, ..., 1], f32(2, 3, 4), grad=True)
sample("Slice", "slice", lambda x: tf.slice(x, [1, 0], [2, 3]), X, grad=True)
sample(None, "boolean_mask", lambda x, m: tf.boolean_mask(x, m), X, np.array([True, False, True]), grad=True)
sample(None, "sequence_mask", lambda n: tf.sequence_mask(n, 5), i32(4))
sample(None, "repeat", lambda x: tf.repeat(x, 2, axis=0), X, grad=True)
sample(None, "roll", lambda x: tf.roll(x, 2, axis=1), X, grad=True)
sample(None, "meshgrid", lambda a, b: tuple(tf.meshgrid(a, b)), f32(3), f32(2, seed=1))
sample("StopGradient", "stop_gradient", lambda x: tf.stop_gradient(x) * x, X, grad=True)
sample(None, "shape_size_rank", lambda x: (tf.shape(x), tf.size(x), tf.rank(x)), X)

def _whole_and_rows(reduce):
    return lambda x: (reduce(x), reduce(x, axis=1, keepdims=True))


# -- reductions ------------------------------------------------------------------------------------
for _op, _name in [
        ("Sum", "reduce_sum"), ("Mean", "reduce_mean"), ("Max", "reduce_max"), ("Min", "reduce_min"),
        ("Prod", "reduce_prod"), (None, "reduce_logsumexp"), (None, "reduce_std"), (None, "reduce_variance"),
        (None, "reduce_euclidean_norm"),
]:
    sample(_op, _name, _whole_and_rows(getattr(tf.math, _name)), X, grad=True, tol=1e-4)
sample("Sum", "reduce_sum_float64", lambda x: tf.reduce_sum(x, axis=[0, 2]), f64(2, 3, 4), grad=True)
sample("Sum", "reduce_sum_int64", lambda x: tf.reduce_sum(x, axis=0), i64(3, 4))
sample("Mean", "reduce_mean_int", lambda x: tf.reduce_mean(x, axis=1), i32(3, 4, lo=-9, hi=9))
sample("Any", "reduce_any_all", lambda b: (tf.reduce_any(b, axis=0), tf.reduce_all(b, axis=1)), bools(3, 4))
sample("ArgMax", "argmax_argmin", lambda x: (tf.argmax(x, axis=1), tf.argmin(x, axis=0, output_type=tf.int32)), X)
sample("UnsortedSegmentSum", "unsorted_segment_sum",
       lambda d, s: tf.math.unsorted_segment_sum(d, s, 4), f32(6, 2), i32(6, hi=4),
     grad=True)
sample("UnsortedSegmentSum", "unsorted_segment_sum_int64",
       lambda d, s: tf.math.unsorted_segment_sum(d, s, 3), i64(6, 2), i32(6, hi=3))
sample("UnsortedSegmentSum", "unsorted_segment_mean",
       lambda d, s: tf.math.unsorted_segment_mean(d, s, 4), f32(6, 2), i32(6, hi=4),
     grad=True)
sample("SegmentSum", "segment_sum_mean",
       lambda d, s: (tf.math.segment_sum(d, s), tf.math.segment_mean(d, s)), f32(5, 2),
     np.array([0, 0, 1, 2, 2], np.int32), grad=True)
sample("TopKV2", "top_k", lambda x: tuple(tf.math.top_k(x, k=2)), X, grad=True)
sample("InTopKV2", "in_top_k", lambda t, p: tf.math.in_top_k(t, p, 2), i32(3, hi=4), X)
sample(None, "count_nonzero", lambda x: tf.math.count_nonzero(x, axis=0), i32(3, 4, hi=2))
sample(None, "bincount", lambda x: tf.math.bincount(x, minlength=6), i32(10))
sample(None, "confusion_matrix", lambda a, b: tf.math.confusion_matrix(a, b, num_classes=5), i32(8), i32(8, seed=1))
sample(None, "norm", lambda x: (tf.norm(x), tf.norm(x, ord=1, axis=1)), X, grad=True, tol=1e-4)
sample(None, "clip_by_norm", lambda x: tf.clip_by_norm(x, 0.5), X, grad=True, tol=1e-4)
sample(None, "clip_by_global_norm", lambda x, y: tuple(tf.clip_by_global_norm([x, y], 0.5)[0]), X, Y, grad=True,
     tol=1e-4)

# -- nn: activations, softmax, normalisation, losses ----------------------------------------------------
for _op, _name in [
        ("Relu", "relu"), ("Relu6", "relu6"), ("Elu", "elu"), ("Selu", "selu"), (None, "silu"), (None, "swish"),
        ("Softplus", "softplus"), ("Softsign", "softsign"),
]:
    sample(_op, f"nn.{_name}", getattr(tf.nn, _name), X * 7, grad=True)
sample("LeakyRelu", "nn.leaky_relu", lambda x: tf.nn.leaky_relu(x, 0.1), X, grad=True)
sample(None, "nn.gelu", lambda x: (tf.nn.gelu(x), tf.nn.gelu(x, approximate=True)), X, grad=True)
sample(None, "nn.crelu", tf.nn.crelu, X, grad=True)
sample("Softmax", "nn.softmax", tf.nn.softmax, X, grad=True)
sample("LogSoftmax", "nn.log_softmax", tf.nn.log_softmax, X, grad=True)
sample("Softmax", "nn.softmax_float64", lambda x: tf.nn.softmax(x, axis=0), f64(3, 4), grad=True)
sample("BiasAdd", "nn.bias_add", tf.nn.bias_add, f32(2, 3, 4), f32(4, seed=1), grad=True)
sample("BiasAdd", "nn.bias_add_nchw",
       lambda v, b: tf.nn.bias_add(v, b, data_format="NCHW"), f32(2, 3, 2, 2), f32(3, seed=1),
     grad=True)
sample(None, "nn.dropout", lambda x: tf.nn.dropout(x, 0.5, seed=3), X, grad=True)
sample(None, "nn.moments", lambda x: tuple(tf.nn.moments(x, axes=[0])), X, grad=True)
sample(None, "nn.batch_normalization", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
     X, f32(4, seed=1), f32(4, lo=0.5, hi=1.5, seed=2), f32(4, seed=3), f32(4, seed=4), grad=True)
sample("FusedBatchNormV3", "nn.fused_batch_norm", lambda x, s, o: tuple(tf.nn.fused_batch_norm(x, s, o)[:3]), IMG,
       f32(3, seed=1), f32(3, seed=2), grad=True, tol=1e-4)
sample("FusedBatchNormV3", "nn.fused_batch_norm_nchw_inference", lambda x, s, o, m, v: tf.nn.fused_batch_norm(
    x, s, o, m, v, data_format="NCHW", is_training=False)[0], IMG, f32(5, seed=1), f32(5, seed=2), f32(5, seed=3),
       f32(5, lo=0.5, hi=2.0, seed=4), grad=True, tol=1e-4)
sample("FusedBatchNormV3", "nn.fused_batch_norm_float16", lambda x, s, o: tuple(tf.nn.fused_batch_norm(x, s, o)[:3]),
       IMG.astype(np.float16), f32(3, seed=1), f32(3, seed=2), grad=True, tol=2e-3)
sample(None, "nn.l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1), X, grad=True)
sample("GatherV2", "nn.embedding_lookup",
       lambda p, i: tf.nn.embedding_lookup(p, i), f32(6, 3), i32(2, 3, hi=6), grad=True)
sample(None, "nn.space_to_depth", lambda x: tf.nn.space_to_depth(x, 2), f32(1, 4, 4, 2), grad=True)
sample(None, "nn.depth_to_space", lambda x: tf.nn.depth_to_space(x, 2), f32(1, 2, 2, 8), grad=True)
sample("L2Loss", "nn.l2_loss", tf.nn.l2_loss, X, grad=True)
sample(None, "nn.sigmoid_xent", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
     f32(3, 4, lo=0, seed=1), X, grad=True)
sample(None, "nn.weighted_xent", lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.0),
     f32(3, 4, lo=0, seed=1), X, grad=True)
sample("SoftmaxCrossEntropyWithLogits", "nn.softmax_xent",
       lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
     f32(3, 4, lo=0, seed=1), X, grad=True)
sample("SparseSoftmaxCrossEntropyWithLogits", "nn.sparse_softmax_xent",
       lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x),
     i32(3, hi=4), X, grad=True)
sample("SparseSoftmaxCrossEntropyWithLogits", "nn.sparse_softmax_xent_float64",
     lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x), i64(3, hi=4), f64(3, 4),
     grad=True)
sample(None, "nn.log_poisson_loss",
       lambda t, x: tf.nn.log_poisson_loss(t, x), f32(3, 4, lo=0, hi=3, seed=1), X, grad=True)
sample(None, "nn.compute_average_loss", lambda x: tf.nn.compute_average_loss(x, global_batch_size=6), f32(3), grad=True)

# -- nn: convolution and pooling --------------------------------------------------------------------------
sample("Conv2D", "nn.conv2d_same_stride2", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), IMG, f32(3, 3, 3, 4, seed=1),
     grad=True, tol=1e-4)
sample("Conv2D", "nn.conv2d_valid_dilated_float64", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2), IMG64,
     f64(2, 2, 2, 3, seed=1), grad=True)
sample("_FusedConv2D", "nn.fused_conv2d_relu", lambda x, w, b: fused_ops.fused_conv2d(
    x, w, b, conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)[1], relu=True), IMG, f32(3, 3, 3, 4, seed=1),
     f32(4, seed=2), grad=True, tol=1e-4)
sample("_FusedMatMul", "nn.fused_matmul", lambda a, w, b: (fused_ops.fused_matmul(a, w, b, relu=True),
                                         fused_ops.fused_matmul(a, w, b, transpose_b=True)),
     X, f32(4, 4, seed=1), f32(4, seed=2), grad=True)
sample("Conv2D", "nn.conv1d", lambda x, w: tf.nn.conv1d(x, w, 1, "SAME"), f32(2, 6, 3), f32(3, 3, 2, seed=1), grad=True,
     tol=1e-4)
sample("Conv2DBackpropInput", "nn.conv2d_transpose", lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 6, 6, 2], 2, "SAME"),
     f32(2, 3, 3, 4), f32(3, 3, 2, 4, seed=1), grad=True, tol=1e-4)
sample("DepthwiseConv2dNative", "nn.depthwise_conv2d",
       lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"), IMG,
     f32(3, 3, 3, 2, seed=1), grad=True, tol=1e-4)
sample("DepthwiseConv2dNative", "nn.separable_conv2d",
       lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID"), IMG,
     f32(2, 2, 3, 1, seed=1), f32(1, 1, 3, 2, seed=2), grad=True, tol=1e-4)
sample("MaxPool", "nn.max_pool2d", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), IMG, grad=True)


def _fused_max_pool_grad(x, dy):
    """``ReluGrad(MaxPoolGrad(x, y, dy), x)`` as the remapper's one op (disjoint 2x2 windows)."""
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "explicit_paddings": [],
             "data_format": "NHWC", "fused_ops": pool_ops.FUSED_MAX_POOL_GRAD_OPS}
    return execute(pool_ops.FUSED_MAX_POOL_GRAD, (x, tf.nn.max_pool2d(x, 2, 2, "VALID"), dy), attrs)


sample("_FusedMaxPoolGrad", "nn.fused_max_pool_grad_relu", _fused_max_pool_grad, IMG, f32(2, 2, 3, 3, seed=6),
       grad=True)
sample("MaxPool", "nn.max_pool2d_float64", lambda x: tf.nn.max_pool2d(x, 3, 1, "VALID"), IMG64, grad=True)
sample("AvgPool", "nn.avg_pool2d", lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), IMG, grad=True)
sample("AvgPool", "nn.avg_pool2d_float64", lambda x: tf.nn.avg_pool2d(x, 2, 1, "VALID"), IMG64, grad=True)
sample(None, "nn.pool1d", lambda x: (tf.nn.max_pool1d(x, 2, 2, "VALID"), tf.nn.avg_pool1d(x, 2, 1, "SAME")),
     f32(2, 5, 3), grad=True)

# -- random (seeded: the same draws on every device) ----------------------------------------------------
sample("StatelessRandomNormal", "random.stateless", lambda: (tf.random.stateless_normal([3, 2], seed=[1, 2]),
                                  tf.random.stateless_uniform([4], seed=[3, 4], minval=-1.0, maxval=2.0),
                                  tf.random.stateless_truncated_normal([5], seed=[5, 6]),
                                  tf.random.stateless_uniform([4], seed=[7, 8], minval=0, maxval=9, dtype=tf.int64)))
sample("RandomStandardNormal", "random.seeded", lambda: (tf.random.normal([3], seed=1), tf.random.uniform([3], seed=2),
                               tf.random.truncated_normal([3], seed=3),
                               tf.random.uniform([3], maxval=7, dtype=tf.int32, seed=4)))
sample("RandomUniform", "random.seeded_uniform", lambda: tf.random.uniform([4], minval=-1.0, maxval=2.0, seed=7))
sample("TruncatedNormal", "random.seeded_truncated", lambda: tf.random.truncated_normal([9], seed=8))
sample("RandomUniformInt", "random.seeded_int", lambda: tf.random.uniform([5], minval=-4, maxval=9, dtype=tf.int64,
                                                                           seed=9))
sample("RandomShuffle", "random.shuffle", lambda x: tf.random.shuffle(x, seed=5), X)
sample("Multinomial", "random.categorical", lambda x: tf.random.categorical(x, 4, seed=6), X)

# -- image -----------------------------------------------------------------------------------------
for _op, _method in [
        ("ResizeBilinear", "bilinear"), ("ResizeNearestNeighbor", "nearest"), (None, "bicubic"), (None, "area"),
]:
    sample(_op, f"image.resize_{_method}", lambda x, _m=_method: tf.image.resize(x, [7, 4], method=_m), IMG,
         grad=_method != "nearest", tol=1e-4)
sample(None, "image.flips_rot90",
       lambda x: (tf.image.flip_left_right(x), tf.image.flip_up_down(x), tf.image.rot90(x, 3)),
     IMG, grad=True)
sample(None, "image.convert_image_dtype", lambda x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True), IMG)
sample(None, "image.adjust_brightness", lambda x: tf.image.adjust_brightness(x, 0.2), IMG, grad=True)
sample(None, "image.per_image_standardization", tf.image.per_image_standardization, IMG, grad=True, tol=1e-4)
sample(None, "image.grayscale", lambda x: tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(x)), IMG, grad=True)
sample(None, "image.crop_pad", lambda x: (tf.image.crop_to_bounding_box(x, 1, 2, 3, 3),
                                  tf.image.pad_to_bounding_box(x, 1, 0, 7, 8),
                                  tf.image.resize_with_crop_or_pad(x, 4, 8),
                                  tf.image.central_crop(x, 0.5)), IMG, grad=True)
sample(None, "image.random_flip", lambda x: tf.image.random_flip_left_right(x, seed=7), IMG)

# -- fused optimizer updates (training_ops) -------------------------------------------------------------
V, G, S1, S2 = f32(3, 4), f32(3, 4, seed=1), f32(3, 4, seed=2), f32(3, 4, lo=0.1, seed=3)
sample("ResourceApplyGradientDescent", "train.gradient_descent",
       lambda v, g: training_ops.apply(training_ops.GRADIENT_DESCENT, (v, g), lr=0.1), V, G)
sample("ResourceApplyKerasMomentum", "train.momentum", lambda v, a, g: training_ops.apply(
    training_ops.KERAS_MOMENTUM, (v, a, g), lr=0.1, momentum=0.9, use_nesterov=True), V, S1, G)
sample("ResourceApplyAdam", "train.adam", lambda v, m, s, g: training_ops.apply(
    training_ops.ADAM, (v, m, s, g), alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7), V, S1, S2, G)
sample("ResourceApplyAdamWithAmsgrad", "train.adam_amsgrad", lambda v, m, s, h, g: training_ops.apply(
    training_ops.ADAM_AMSGRAD, (v, m, s, h, g), alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
     V, S1, S2, S2, G)
sample("ResourceApplyRMSProp", "train.rmsprop", lambda v, ms, mom, g: training_ops.apply(
    training_ops.RMSPROP, (v, ms, mom, g), lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-7), V, S2, S1, G)
sample("ResourceApplyCenteredRMSProp", "train.centered_rmsprop", lambda v, mg, ms, mom, g: training_ops.apply(
    training_ops.CENTERED_RMSPROP, (v, mg, ms, mom, g), lr=0.01, rho=0.9, momentum=0.0, epsilon=1e-7),
     V, S1 * 0.1, S2, S1, G)
sample("ResourceApplyAdagradV2", "train.adagrad",
       lambda v, a, g: training_ops.apply(training_ops.ADAGRAD, (v, a, g), lr=0.1, epsilon=1e-7),
     V, S2, G)
sample("_MultiTensorApply", "train.multi_tensor_adam", lambda v, m, s, g, vb, gb: training_ops.apply(
    training_ops.ADAM, ([v, vb], [m, vb * 0.5], [s, vb * vb], [g, gb]), alpha=0.01, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7), V, S1, S2, G, f32(5, seed=4), f32(5, seed=5))


# -- linalg (kerasB) ------------------------------------------------------------------------------------
SQ = f64(2, 3, 3, seed=8) + 3.0 * np.eye(3)
SQ32 = SQ.astype(np.float32)
sample("MatrixInverse", "linalg.inv_det_slogdet",
       lambda a: (tf.linalg.inv(a), tf.linalg.det(a), tf.linalg.slogdet(a)[1]), SQ,
     grad=True, tol=1e-6)
sample("MatrixSolve", "linalg.solve_triangular",
       lambda a, b: (tf.linalg.solve(a, b), tf.linalg.triangular_solve(a, b, lower=False)),
     SQ32, f32(2, 3, 2, seed=9), grad=True, tol=1e-4)
sample(None, "linalg.cholesky_logdet", lambda x: (tf.linalg.cholesky(x @ tf.linalg.adjoint(x) + 3.0),
                                          tf.linalg.logdet(x @ tf.linalg.adjoint(x) + 3.0)), SQ, grad=True)
sample("Qr", "linalg.qr", lambda a: tf.abs(tf.linalg.qr(a).r), f64(4, 3, seed=10), tol=1e-6)
sample("Svd", "linalg.svd_eigh",
       lambda a: (tf.linalg.svd(a, compute_uv=False), tf.linalg.eigvalsh(a + tf.linalg.adjoint(a))),
     SQ, grad=True, tol=1e-6)
sample("MatrixBandPart", "linalg.band_diag", lambda x: (tf.linalg.band_part(x, 1, 0), tf.linalg.diag_part(x, k=1),
                                    tf.linalg.set_diag(x, tf.linalg.diag_part(x) * 2.0),
                                    tf.linalg.diag(tf.linalg.diag_part(x), k=-1), tf.linalg.trace(x)), SQ32, grad=True)
sample(None, "linalg.lstsq_pinv_matvec", lambda a, b: (tf.linalg.lstsq(a, b), tf.linalg.pinv(a),
                                               tf.linalg.matvec(a, b[:3, 0])), f64(5, 3, seed=11), f64(5, 2, seed=12),
     grad=True, tol=1e-6)
IMG01 = f32(2, 6, 7, 3, lo=0.0, hi=1.0, seed=13)
sample(None, "image.hsv_yiq_yuv", lambda x: (tf.image.rgb_to_hsv(x), tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)),
                                     tf.image.rgb_to_yiq(x), tf.image.yuv_to_rgb(x)), IMG01, grad=True, tol=1e-4)
sample(None, "image.adjust_gamma_hue_saturation", lambda x: (
    tf.image.adjust_gamma(x, 0.7), tf.image.adjust_hue(x, 0.1), tf.image.adjust_saturation(x, 0.6)), IMG01,
     grad=True, tol=1e-4)
sample("AdjustContrastv2", "image.adjust_contrast",
       lambda x: tf.image.adjust_contrast(x, 1.5), IMG01, tol=1e-5)  # no gradient, as TF
sample(None, "image.psnr_ssim_tv_sobel",
       lambda a, b: (tf.image.psnr(a, b, 1.0), tf.image.ssim(a, b, 1.0, filter_size=3),
                                               tf.image.total_variation(a), tf.image.sobel_edges(a),
                                               tf.image.image_gradients(a)), IMG01, IMG01 * 0.9, grad=True,
     tol=1e-4)
sample(None, "image.crop_and_resize_with_pad", lambda x: (
    tf.image.crop_and_resize(x, [[0.1, 0.2, 0.7, 0.9], [0.0, 0.0, 1.0, 1.0]], [1, 0], [3, 4]),
    tf.image.resize_with_pad(x, 9, 9), tf.image.stateless_random_crop(x, [1, 3, 3, 3], seed=(1, 2))), IMG01,
     grad=True, tol=1e-4)
sample("NonMaxSuppressionV5", "image.non_max_suppression",
       lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 3, 0.5),
     np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11], [0, 100, 1, 101]], np.float32),
     np.array([0.9, 0.75, 0.95, 0.3], np.float32))

# -- top-level ops (kerasB: tfcore.ops.misc_ops / special_math_ops / math_reduction_ops / bitwise_ops) ----------
sample("LowerBound", "searchsorted_histogram", lambda s, v: (tf.searchsorted(s, v), tf.searchsorted(s, v, side="right"),
                                             tf.histogram_fixed_width(v, [0.0, 1.0], nbins=4),
                                             tf.histogram_fixed_width_bins(v, [0.0, 1.0], nbins=4)),
     np.sort(f32(2, 6, lo=0.0, seed=14), axis=1), f32(2, 3, lo=-0.2, hi=1.2, seed=15))
sample("Cast", "reverse_sequence",
       lambda x: tf.reverse_sequence(x, [2, 4, 1], seq_axis=1, batch_axis=0), f32(3, 4, 2, seed=16),
     grad=True)
sample("TensorScatterMax", "tensor_scatter_max_min_sub", lambda t, u: (tf.tensor_scatter_nd_max(t, [[0], [2], [0]], u),
                                                 tf.tensor_scatter_nd_min(t, [[1], [2], [1]], u),
                                                 tf.tensor_scatter_nd_sub(t, [[1], [2], [1]], u)),
     f32(3, 2, seed=17), f32(3, 2, seed=18), grad=True)
sample("BitwiseAnd", "bitwise",
       lambda a, b: (tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b), tf.bitwise.bitwise_xor(a, b),
                              tf.bitwise.invert(a), tf.bitwise.left_shift(a, 2), tf.bitwise.right_shift(b, 1)),
     i32(3, 4, hi=64, seed=19), i32(3, 4, hi=64, seed=20))
sample(None, "dynamic_partition_stitch", lambda x: tf.dynamic_stitch([[0, 2], [1, 3]], tf.dynamic_partition(
    x, [0, 1, 0, 1], 2)), f32(4, 3, seed=21), grad=True)
sample(None, "space_to_batch_round_trip", lambda x: tf.batch_to_space(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]]),
                                                              [2, 2], [[0, 0], [1, 1]]), f32(2, 4, 2, 3, seed=22),
     grad=True)
sample(None, "math_extras", lambda x, s: (tf.math.asinh(x), tf.math.atanh(x * 0.5), tf.truncatemod(x * 5.0, 2.0),
                                  tf.math.xlogy(x, tf.abs(x) + 0.5), tf.math.cumulative_logsumexp(x, axis=1),
                                  tf.math.unsorted_segment_max(x, [1, 0, 1], 2),
                                  tf.math.unsorted_segment_sqrt_n(x, [1, 0, 1], 2)),
     f32(3, 4, seed=23), f32(3, seed=24), grad=True, tol=1e-4)

# -- more tf.nn (kerasB: tfcore.ops.conv_nd_ops / pool_nd_ops / ctc_ops / moments_ops) -------------------------
VOL = f32(1, 3, 4, 5, 2, seed=25)
sample(None, "nn.conv3d_and_transpose", lambda x, w: (tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
                                              tf.nn.conv3d_transpose(tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), w,
                                                                     [1, 3, 4, 5, 2], [1, 2, 1], "SAME")),
     VOL, f32(2, 2, 2, 2, 3, seed=26), grad=True, tol=1e-4)
sample(None, "nn.pool3d_lrn", lambda x: (tf.nn.max_pool3d(x, 2, 1, "SAME"), tf.nn.avg_pool3d(x, 2, 2, "SAME"),
                                 tf.nn.lrn(x[0], 1, 1.0, 0.5, 0.75)), VOL, grad=True, tol=1e-4)
sample(None, "nn.conv1d_transpose_argmax_dilation", lambda x, w, img: (
    tf.nn.conv1d_transpose(x, w, [2, 10, 4], 2, "SAME"), tf.nn.max_pool_with_argmax(img, 2, 2, "SAME"),
    tf.nn.dilation2d(img, img[0, :2, :2, :] * 0.1, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])),
     f32(2, 5, 3, seed=27), f32(3, 4, 3, seed=28), f32(2, 5, 5, 3, seed=29), grad=True, tol=1e-4)
sample(None, "nn.ctc_loss", lambda logits: tf.nn.ctc_loss([[1, 2, 0], [2, 2, 1]], logits, [2, 3], [6, 5]),
     f32(6, 2, 4, seed=30), grad=True, tol=1e-4)
sample(None, "ragged.to_tensor_map_flat_values", lambda v: (
    tf.ragged.map_flat_values(tf.square, tf.RaggedTensor.from_row_lengths(v, [1, 0, 3])).to_tensor(-1.0),
    tf.RaggedTensor.from_tensor(tf.reshape(v, [2, 2]), lengths=[1, 2]).flat_values), f32(4, seed=31), grad=True)
sample("RandomDraw", "random.stateless_gamma_poisson_binomial", lambda: (
    tf.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[1.0, 2.0]), tf.random.stateless_poisson([4], [3, 4], 2.0),
    tf.random.stateless_binomial([4], [5, 6], 10, 0.5), tf.random.stateless_categorical([[0.0, 1.0]], 3, [7, 8])))
sample("Bitcast", "bitcast",
       lambda x: (tf.bitcast(x, tf.int32), tf.bitcast(x, tf.uint8), tf.bitcast(tf.bitcast(x, tf.uint8),
                                                                                         tf.float32)), X)
sample(None, "image.extract_patches",
       lambda x: tf.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
     IMG01, grad=True)
sample(None, "math.special", lambda x: (tf.math.lgamma(x * 3.0), tf.math.digamma(x * 3.0), tf.math.erfinv(x * 0.9),
                                tf.math.ndtri(x * 0.4 + 0.5)), f64(3, 4, seed=32), grad=True, tol=1e-8)


# ==================================================================================================
# gradient cases: float64 finite differences of the first and the second gradient
# op name -> (function of float64 tensors, NumPy inputs[, check_gradients options])
# ==================================================================================================

def _conv(x, w):
    return tf.nn.conv2d(x, w, strides=2, padding="SAME")


def _fused_conv(x, w, bias):
    """Both fusions (bias; bias + relu) of a stride-2 SAME convolution."""
    _, attrs = conv_ops._conv_call("Conv2D", 2, "SAME", "NHWC", None)
    return fused_ops.fused_conv2d(x, w, bias, attrs, relu=True) + 0.5 * fused_ops.fused_conv2d(x, w, bias, attrs)


def _fused_matmul(a, w, bias):
    """Both fusions (bias; bias + relu) of a matrix product."""
    return fused_ops.fused_matmul(a, w, bias, relu=True) + 0.5 * fused_ops.fused_matmul(a, w, bias)


def _dconv(x, w):
    return tf.nn.depthwise_conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")


def _maxpool(x):
    return tf.nn.max_pool2d(x, ksize=2, strides=1, padding="VALID")


def _avgpool(x):
    return tf.nn.avg_pool2d(x, ksize=2, strides=2, padding="SAME")


def _strided(x):
    return x[1:, ::-2]


def _mirror(x):
    return tf.pad(x, [[1, 1], [0, 2]], mode="REFLECT")


@tf.custom_gradient
def _cube(x):
    def grad(dy):
        return dy * 3.0 * x * x

    return x * x * x, grad


_IDX = np.array([[0, 1], [2, 0]])
_SP_IDX = np.array([[0, 1], [1, 0], [2, 3]])


def _spmm(values, b, adjoint_a=False, adjoint_b=False):
    """A 3x4 SparseTensor with ``values`` at ``_SP_IDX`` times ``b``."""
    return tf.sparse.sparse_dense_matmul(tf.sparse.SparseTensor(_SP_IDX, values, [3, 4]), b, adjoint_a, adjoint_b)


_LABELS = np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]])

# op name -> (function of float64 tensors, list of NumPy inputs[, check_gradients options])
_POOL_X = away(1, 4, 4, 1)  # distinct values away from 0, both signs: the fused ReLU mask matters


def _fused_bn(x, scale, offset):
    return tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)[0]


_GRADIENTS = {
    # -- math: unary ----------------------------------------------------------------------
    "Abs": (tf.abs, [away(2, 3)]),
    "Acos": (tf.math.acos, [r(2, 3, lo=-0.8, hi=0.8)]),
    "Asin": (tf.math.asin, [r(2, 3, lo=-0.8, hi=0.8)]),
    "Atan": (tf.math.atan, [r(2, 3)]),
    "Cos": (tf.cos, [r(2, 3)]),
    "Cosh": (tf.math.cosh, [r(2, 3)]),
    "Erf": (tf.math.erf, [r(2, 3)]),
    "Exp": (tf.exp, [r(2, 3)]),
    "Expm1": (tf.math.expm1, [r(2, 3)]),
    "Log": (tf.math.log, [r(2, 3, lo=0.5, hi=2.0)]),
    "Log1p": (tf.math.log1p, [r(2, 3, lo=-0.5, hi=2.0)]),
    "Neg": (lambda x: -x, [r(2, 3)]),
    "Conj": (lambda x: execute(get_op("Conj"), (x,)), [r(2, 3)]),  # identity on reals; complex in test_math_ops
    "Reciprocal": (tf.math.reciprocal, [r(2, 3, lo=0.5, hi=2.0)]),
    "Rsqrt": (tf.math.rsqrt, [r(2, 3, lo=0.5, hi=2.0)]),
    "Sigmoid": (tf.sigmoid, [r(2, 3)]),
    "Sign": (lambda x: tf.sign(x) * x, [away(2, 3)]),
    "Sin": (tf.sin, [r(2, 3)]),
    "Sinh": (tf.math.sinh, [r(2, 3)]),
    "Softplus": (tf.math.softplus, [r(2, 3)]),
    "Softsign": (tf.nn.softsign, [r(2, 3)]),
    "Sqrt": (tf.sqrt, [r(2, 3, lo=0.5, hi=2.0)]),
    "Square": (tf.square, [r(2, 3)]),
    "Tan": (tf.math.tan, [r(2, 3, lo=-1.0, hi=1.0)]),
    "Tanh": (tf.tanh, [r(2, 3)]),
    "Cast": (lambda x: execute(get_op("Cast"), (x,), {"dtype": tf.float64}), [r(2, 3)]),
    "Identity": (tf.identity, [r(2, 3)]),
    # -- math: binary, with broadcasting ------------------------------------------------------
    "AddV2": (lambda a, b: a + b, [r(2, 3), r(3)]),
    "Sub": (lambda a, b: a - b, [r(2, 1), r(1, 3)]),
    "Mul": (lambda a, b: a * b, [r(2, 3), r(2, 1)]),
    "RealDiv": (lambda a, b: a / b, [r(3), r(2, 3, lo=0.5, hi=2.0)]),
    "DivNoNan": (tf.math.divide_no_nan, [r(2, 3), r(3, lo=0.5, hi=2.0)]),
    "Maximum": (tf.maximum, [away(2, 3), away(3) + 0.05]),
    "Minimum": (tf.minimum, [away(2, 3), away(1, 3) + 0.05]),
    "Pow": (tf.pow, [r(2, 3, lo=0.5, hi=2.0), r(3, lo=-1.5, hi=2.5)]),
    "SquaredDifference": (tf.math.squared_difference, [r(2, 3), r(3)]),
    "Atan2": (tf.math.atan2, [r(2, 3), r(3, lo=0.5, hi=2.0)]),
    # -- math: other ---------------------------------------------------------------------
    "AddN": (lambda a, b, c: tf.add_n([a, b, c]), [r(2, 2), r(2, 2), r(2, 2)]),
    "ClipByValue": (lambda x: tf.clip_by_value(x, -0.55, 0.65), [away(2, 4, gap=0.3)]),
    "SelectV2": (lambda a, b: tf.where(tf.constant([True, False, True]), a, b), [r(2, 3), r(3)]),
    "BatchMatMulV2": (lambda a, b: tf.matmul(a, b, transpose_b=True), [r(2, 2, 3), r(1, 4, 3)]),
    "Einsum": (lambda a, b: tf.einsum("bij,jk->bik", a, b), [r(2, 2, 3), r(3, 2)]),
    "Cumsum": (lambda x: tf.math.cumsum(x, axis=1, exclusive=True, reverse=True), [r(2, 4)]),
    "Cumprod": (lambda x: tf.math.cumprod(x, axis=1), [r(2, 4, lo=0.5, hi=1.5)]),
    # -- reductions -------------------------------------------------------------------------
    "Sum": (lambda x: tf.reduce_sum(x, axis=[0, 2], keepdims=True), [r(2, 3, 2)]),
    "Mean": (lambda x: tf.reduce_mean(x, axis=-1), [r(2, 3)]),
    "Max": (lambda x: tf.reduce_max(x, axis=0), [away(3, 2)]),
    "Min": (lambda x: tf.reduce_min(x, axis=1, keepdims=True), [away(2, 3)]),
    "Prod": (lambda x: tf.reduce_prod(x, axis=1), [r(2, 3, lo=0.5, hi=1.5)]),
    # -- array ------------------------------------------------------------------------------
    "BroadcastTo": (lambda x: tf.broadcast_to(x, [2, 2, 3]), [r(1, 3)]),
    "ConcatV2": (lambda a, b: tf.concat([a, b], axis=1), [r(2, 1), r(2, 3)]),
    "GatherNd": (lambda x: tf.gather_nd(x, _IDX), [r(3, 2, 2)]),
    "GatherV2": (lambda x: tf.gather(x, [2, 0, 2], axis=1), [r(2, 3)]),
    "MirrorPad": (_mirror, [r(3, 3)]),
    "MirrorPadGrad": (vjp(_mirror, fixed={0: r(3, 3)}), [r(5, 5)]),
    "Pack": (lambda a, b: tf.stack([a, b], axis=1), [r(2, 3), r(2, 3)]),
    "PadV2": (lambda x: tf.pad(x, [[1, 0], [0, 2]], constant_values=1.5), [r(2, 2)]),
    "Reshape": (lambda x: tf.reshape(x, [3, -1]), [r(2, 3)]),
    "ReverseV2": (lambda x: tf.reverse(x, axis=[1]), [r(2, 3)]),
    "ScatterNd": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [4, 2]), [r(3, 2)]),
    "SegmentSum": (lambda x: tf.math.segment_sum(x, [0, 0, 2]), [r(3, 2)]),
    "UnsortedSegmentSum": (lambda x: tf.math.unsorted_segment_sum(x, [2, 0, 2], 3), [r(3, 2)]),
    "Slice": (lambda x: tf.slice(x, [1, 0], [1, 2]), [r(2, 3)]),
    "SplitV": (lambda x: tf.split(x, [1, 2], axis=1)[1], [r(2, 3)]),
    "StridedSlice": (_strided, [r(3, 4)]),
    "StridedSliceGrad": (vjp(_strided, fixed={0: r(3, 4)}), [r(2, 2)]),
    "TensorScatterUpdate": (lambda x, u: tf.tensor_scatter_nd_update(x, [[0], [2]], u), [r(3, 2), r(2, 2)]),
    "Tile": (lambda x: tf.tile(x, [2, 3]), [r(1, 2)]),
    "TopKV2": (lambda x: tf.math.top_k(x, k=2).values, [away(2, 4)]),
    "Transpose": (lambda x: tf.transpose(x, [2, 0, 1]), [r(2, 3, 2)]),
    "Unpack": (lambda x: tf.unstack(x, axis=1)[2], [r(2, 3)]),
    # -- nn: activations ---------------------------------------------------------------------
    "Relu": (tf.nn.relu, [away(2, 3)]),
    "ReluGrad": (vjp(tf.nn.relu, fixed={0: away(2, 3)}), [r(2, 3)]),
    "Relu6": (tf.nn.relu6, [away(2, 4, gap=2.0)]),
    "Relu6Grad": (vjp(tf.nn.relu6, fixed={0: away(2, 4, gap=2.0)}), [r(2, 4)]),
    "Elu": (tf.nn.elu, [away(2, 3)]),
    "EluGrad": (vjp(tf.nn.elu), [away(2, 3), r(2, 3)]),
    "Selu": (tf.nn.selu, [away(2, 3)]),
    "SeluGrad": (vjp(tf.nn.selu), [away(2, 3), r(2, 3)]),
    "LeakyRelu": (lambda x: tf.nn.leaky_relu(x, alpha=0.1), [away(2, 3)]),
    "LeakyReluGrad": (vjp(lambda x: tf.nn.leaky_relu(x, alpha=0.1), fixed={0: away(2, 3)}), [r(2, 3)]),
    "Softmax": (lambda x: tf.nn.softmax(x, axis=-1), [r(2, 3)]),
    "LogSoftmax": (tf.nn.log_softmax, [r(2, 3)]),
    "BiasAdd": (tf.nn.bias_add, [r(2, 2, 3), r(3)]),
    "BiasAddGrad": (vjp(tf.nn.bias_add, wrt=1, fixed={0: r(2, 2, 3), 1: r(3)}), [r(2, 2, 3)]),
    "L2Loss": (tf.nn.l2_loss, [r(2, 3)]),
    # -- nn: losses ----------------------------------------------------------------------------
    # TF's gradient assumes each row of labels is a distribution: labels stay fixed and valid
    # here; their own gradient (-log_softmax) is checked in test_softmax_xent_label_gradient.
    "SoftmaxCrossEntropyWithLogits": (
        lambda logits: tf.nn.softmax_cross_entropy_with_logits(_LABELS, logits), [r(2, 3)]),
    "SparseSoftmaxCrossEntropyWithLogits": (
        lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0], logits), [r(2, 3)]),
    # -- nn: convolution and pooling (odd sizes, stride 2, SAME) -------------------------------
    "Conv2D": (_conv, [r(1, 3, 3, 2), r(2, 2, 2, 2)]),
    "Conv2DBackpropInput": (vjp(_conv, wrt=0, fixed={0: r(1, 3, 3, 2)}), [r(2, 2, 2, 2), r(1, 2, 2, 2)]),
    "Conv2DBackpropFilter": (vjp(_conv, wrt=1, fixed={1: r(2, 2, 2, 2)}), [r(1, 3, 3, 2), r(1, 2, 2, 2)]),
    "_FusedConv2D": (_fused_conv, [r(1, 3, 3, 2), r(2, 2, 2, 2), r(2)]),
    "_FusedMatMul": (_fused_matmul, [r(3, 4), r(4, 2), r(2)]),
    "DepthwiseConv2dNative": (_dconv, [r(1, 3, 3, 2), r(2, 2, 2, 1)]),
    "DepthwiseConv2dNativeBackpropInput": (vjp(_dconv, wrt=0, fixed={0: r(1, 3, 3, 2)}),
                                           [r(2, 2, 2, 1), r(1, 2, 2, 2)]),
    "DepthwiseConv2dNativeBackpropFilter": (vjp(_dconv, wrt=1, fixed={1: r(2, 2, 2, 1)}),
                                            [r(1, 3, 3, 2), r(1, 2, 2, 2)]),
    "MaxPool": (_maxpool, [away(1, 3, 3, 1)]),
    "MaxPoolGrad": (vjp(_maxpool, fixed={0: away(1, 3, 3, 1)}), [r(1, 2, 2, 1)]),
    "MaxPoolGradGrad": (vjp(vjp(_maxpool), wrt=1, fixed={0: away(1, 3, 3, 1), 1: r(1, 2, 2, 1)}), [r(1, 3, 3, 1)]),
    # linear in dy, x fixed
    "_FusedMaxPoolGrad": (lambda dy: _fused_max_pool_grad(tf.constant(_POOL_X), dy), [r(1, 2, 2, 1)]),
    "AvgPool": (_avgpool, [r(1, 3, 3, 2)]),
    "AvgPoolGrad": (vjp(_avgpool, fixed={0: r(1, 3, 3, 2)}), [r(1, 2, 2, 2)]),
    # -- nn: fused batch normalisation (training: the statistics depend on x) ---------------------
    "FusedBatchNormV3": (_fused_bn, [r(2, 3, 1, 2), r(2, lo=0.5, hi=1.5), r(2)]),
    "FusedBatchNormGradV3": (vjp(_fused_bn, fixed={1: r(2, lo=0.5, hi=1.5), 2: r(2)}), [r(2, 3, 1, 2), r(2, 3, 1, 2)]),
    # -- image --------------------------------------------------------------------------------
    # bilinear computes and returns float32 (as TF): a linear op, checked with a large step
    "ResizeBilinear": (lambda x: tf.cast(tf.image.resize(x, [3, 5], method="bilinear"), tf.float64),
                       [r(1, 2, 3, 1)], {"eps": 1e-2, "rtol": 1e-4, "atol": 1e-5}),
    "ResizeNearestNeighbor": (lambda x: tf.image.resize(x, [3, 5], method="nearest"), [r(1, 2, 3, 1)]),
    # -- sparse --------------------------------------------------------------------------------
    "SparseToDense": (lambda v, d: tf.sparse.to_dense(tf.sparse.SparseTensor(_SP_IDX, v, [3, 4]), d),
                      [r(3), r()]),
    "SparseTensorDenseMatMul": (lambda v, b: _spmm(v, b) + _spmm(v, tf.transpose(b[:3, :]), True, True)[:3, :],
                                [r(3), r(4, 3)]),
    # -- autodiff ------------------------------------------------------------------------------
    "CustomGradient": (_cube, [r(2, 2)]),
    # a custom gradient inside tf.function: an IdentityN node whose gradient is the registered override
    "IdentityN": (tf.function(_cube), [r(2, 2)]),
}



def _well_conditioned(*shape):
    return r(*shape) + 3.0 * np.eye(shape[-2], shape[-1])


def _sym(x):
    return x + tf.linalg.matrix_transpose(x)


def _svd_parts(a):
    s, u, v = tf.linalg.svd(a)
    return tf.concat([s, tf.reshape(u * v, [-1])], axis=0)  # u[:, i] * v[:, i] is sign-invariant


def _eigh_parts(x):
    e, v = tf.linalg.eigh(_sym(x))
    return tf.concat([e, tf.reshape(v * v, [-1])], axis=0)


def _eig_parts(x):
    e, v = tf.linalg.eig(x)
    re, im = tf.math.real(v), tf.math.imag(v)
    return tf.concat([tf.math.real(e), tf.math.imag(e) ** 2, tf.reshape(re * re + im * im, [-1])], axis=0)


# -- linalg (tfcore.ops.linalg_ops) ------------------------------------------------------------------
_GRADIENTS.update({
    "MatrixInverse": (tf.linalg.inv, [_well_conditioned(2, 3, 3)]),
    "MatrixDeterminant": (tf.linalg.det, [_well_conditioned(2, 3, 3)]),
    "LogMatrixDeterminant": (lambda a: tf.linalg.slogdet(a)[1], [_well_conditioned(3, 3)]),
    "MatrixSolve": (lambda a, b: tf.linalg.solve(a, b, adjoint=True), [_well_conditioned(3, 3), r(3, 2)]),
    "MatrixTriangularSolve": (lambda a, b: tf.linalg.triangular_solve(a, b, lower=False),
                              [_well_conditioned(3, 3), r(3, 2)]),
    "Cholesky": (lambda x: tf.linalg.cholesky(tf.matmul(x, x, transpose_b=True) + 3.0 * tf.eye(3, dtype=tf.float64)),
                 [r(3, 3)]),
    "Qr": (lambda a: sum(tf.reshape(t, [-1])[:4] for t in tf.linalg.qr(a)), [_well_conditioned(4, 3)]),
    "Svd": (_svd_parts, [r(3, 3) + np.diag([3.0, 1.5, 0.5])]),
    "SelfAdjointEigV2": (_eigh_parts, [r(3, 3) + np.diag([3.0, 1.0, -1.0])]),
    "MatrixBandPart": (lambda x: tf.linalg.band_part(x, 1, 0), [r(2, 3, 4)]),
    "MatrixDiagV3": (lambda d: tf.linalg.diag(d, k=1), [r(2, 3)]),
    "MatrixDiagPartV3": (lambda x: tf.linalg.diag_part(x, k=-1), [r(2, 3, 4)]),
    "MatrixSetDiagV3": (lambda x, d: tf.linalg.set_diag(x, d), [r(3, 4), r(3)]),
    # eigenvalues (a complex pair among them) and the phase-invariant |v|^2 of the eigenvectors
    "Eig": (_eig_parts, [np.array([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, -1.0, 1.0]]) + 0.1 * r(3, 3)]),
    "MatrixSquareRoot": (tf.linalg.sqrtm, [_well_conditioned(2, 3, 3)]),
    "Lu": (lambda a: tf.linalg.lu(a).lu, [r(3, 3) + np.diag([4.0, 2.0, 1.0])]),
    # -- top-level ops (tfcore.ops.misc_ops) ---------------------------------------------------------
    "ReverseSequence": (lambda x: tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0), [r(2, 4, 2)]),
    "TensorScatterMax": (lambda t, u: tf.tensor_scatter_nd_max(t, [[0], [2], [0]], u), [away(3, 2), away(3, 2) + 0.05]),
    "TensorScatterMin": (lambda t, u: tf.tensor_scatter_nd_min(t, [[1], [2]], u), [away(3, 2), away(2, 2) + 0.05]),
})


def _ri(c):
    """A real, nonlinear function of a complex tensor (its gradient reaches both parts)."""
    return tf.math.real(c) * tf.math.imag(c) + 0.5 * tf.math.real(c)


def _cplx(a, b):
    return tf.complex(a, b)


# -- complex and tf.signal (tfcore.ops.spectral_ops) ------------------------------------------------
_GRADIENTS.update({
    "Complex": (lambda a, b: _ri(tf.complex(a, b)), [r(2, 3), r(3)]),
    "Real": (lambda a, b: tf.math.real(_cplx(a, b)) ** 2, [r(2, 3), r(2, 3)]),
    "Imag": (lambda a, b: tf.math.imag(_cplx(a, b)) ** 2 * a, [r(2, 3), r(2, 3)]),
    "Angle": (lambda a, b: tf.math.angle(_cplx(a, b)), [r(2, 3, lo=0.5, hi=2.0), r(2, 3)]),
    "FFT": (lambda a, b: _ri(tf.signal.fft(_cplx(a, b))), [r(2, 5), r(2, 5)]),
    "IFFT": (lambda a, b: _ri(tf.signal.ifft(_cplx(a, b))), [r(2, 4), r(2, 4)]),
    "FFT2D": (lambda a, b: _ri(tf.signal.fft2d(_cplx(a, b))), [r(3, 4), r(3, 4)]),
    "IFFT2D": (lambda a, b: _ri(tf.signal.ifft2d(_cplx(a, b))), [r(3, 4), r(3, 4)]),
    "FFT3D": (lambda a, b: _ri(tf.signal.fft3d(_cplx(a, b))), [r(2, 2, 3), r(2, 2, 3)]),
    "IFFT3D": (lambda a, b: _ri(tf.signal.ifft3d(_cplx(a, b))), [r(2, 2, 3), r(2, 2, 3)]),
    # default length, cropped (5) and zero-padded (8) inputs
    "RFFT": (lambda x: tf.concat([_ri(tf.signal.rfft(x)), _ri(tf.signal.rfft(x, [5])),
                                  _ri(tf.signal.rfft(x, [8]))], axis=-1), [r(2, 6)]),
    "IRFFT": (lambda a, b: tf.concat([tf.signal.irfft(_cplx(a, b)), tf.signal.irfft(_cplx(a, b), [5]),
                                      tf.signal.irfft(_cplx(a, b), [9])], axis=-1) ** 2, [r(2, 4), r(2, 4)]),
    "RFFT2D": (lambda x: _ri(tf.signal.rfft2d(x)) + tf.reduce_sum(_ri(tf.signal.rfft2d(x, [2, 7]))), [r(3, 5)]),
    "IRFFT2D": (lambda a, b: tf.signal.irfft2d(_cplx(a, b)) ** 2 + tf.reduce_sum(tf.signal.irfft2d(
        _cplx(a, b), [2, 3])), [r(3, 4), r(3, 4)]),
    "RFFT3D": (lambda x: _ri(tf.signal.rfft3d(x)), [r(2, 2, 4)]),
    "IRFFT3D": (lambda a, b: tf.signal.irfft3d(_cplx(a, b)) ** 2, [r(2, 2, 3), r(2, 2, 3)]),
})

for _op, (_fn, _inputs, *_opts) in _GRADIENTS.items():
    grad_case(_op, _fn, _inputs, **(_opts[0] if _opts else {}))

# ==================================================================================================
# entries of ops that the samples above reach only inside another op's call
# ==================================================================================================

sample("OnesLike", "ones_like", tf.ones_like, X)
sample("All", "reduce_all", lambda b: tf.reduce_all(b, axis=0), bools(3, 4, seed=2))
sample("ArgMin", "argmin", lambda x: tf.argmin(x, axis=1), f32(4, 5, seed=3))
sample("UpperBound", "searchsorted_right", lambda s, v: tf.searchsorted(s, v, side="right"),
       np.sort(f32(2, 6, lo=0.0, seed=14), axis=1), f32(2, 3, lo=-0.2, hi=1.2, seed=15))
sample("HistogramFixedWidth", "histogram_fixed_width", lambda v: tf.histogram_fixed_width(v, [0.0, 1.0], nbins=4),
       f32(11, lo=-0.2, hi=1.2, seed=15))
for _op, _fn in [("BitwiseOr", tf.bitwise.bitwise_or), ("BitwiseXor", tf.bitwise.bitwise_xor),
                 ("LeftShift", tf.bitwise.left_shift), ("RightShift", tf.bitwise.right_shift)]:
    sample(_op, _fn.__name__, _fn, i32(3, 4, hi=64, seed=19), i32(3, 4, hi=6, seed=20))
sample("Invert", "invert", tf.bitwise.invert, i32(3, 4, lo=-64, hi=64, seed=21))
sample("StatelessRandomUniform", "stateless_uniform", lambda: tf.random.stateless_uniform([4, 3], seed=[3, 4]))
sample("StatelessTruncatedNormal", "stateless_truncated_normal",
       lambda: tf.random.stateless_truncated_normal([7], seed=[5, 6]))
sample("StatelessRandomUniformInt", "stateless_uniform_int",
       lambda: tf.random.stateless_uniform([5], seed=[7, 8], minval=-3, maxval=9, dtype=tf.int32))
sample("StatelessRandomUniformFullInt", "stateless_uniform_full_int",
       lambda: tf.random.stateless_uniform([5], seed=[7, 8], minval=None, maxval=None, dtype=tf.int64))
sample("RandomUniformFullInt", "generator_uniform_full_int",
       lambda: tf.random.Generator.from_seed(3).uniform_full_int([5], tf.int64))


def _generator_draws():
    """A Generator's draws inside a tf.function: the traced draw is the pure GeneratorDraw op."""
    g = tf.random.Generator.from_seed(7)
    return tf.function(lambda: (g.normal([2, 3]), g.uniform([4], maxval=5, dtype=tf.int32)))()


sample("GeneratorDraw", "generator_draws", _generator_draws)
sample("ComputeAccidentalHits", "compute_accidental_hits",
       lambda t, s: tuple(tf.nn.compute_accidental_hits(t, s, num_true=2)), i64(3, 2, hi=6), i64(5, hi=6, seed=1))
sample("MatrixLogarithm", "logm", tf.linalg.logm,  # no GPU kernel in TF either: runs on CPU:0
       (np.eye(3) * 2.0 + 0.1 * f64(3, 3, seed=33)).astype(np.complex128), tol=1e-8, host=True)

# ==================================================================================================
# host ops: strings, encoded bytes and serialized protos live on the host (docs/architecture.md §2), so on a
# GPU device these samples run on CPU:0 and stay there (host=True); compared as on any device
# ==================================================================================================

_S = np.array([b"Hello World", b"  tf core ", b"a,b,,c"], dtype=object)
_IMG8 = (np.arange(2 * 3 * 3) % 256).astype(np.uint8).reshape(2, 3, 3)


def _sp(v):
    return tf.sparse.SparseTensor([[0, 1], [2, 0]], v, [3, 2])

_EX = tf.train.Example(features=tf.train.Features(feature={
    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5])),
    "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))})).SerializeToString()
_SEQ = tf.train.SequenceExample(context=tf.train.Features(feature={
    "n": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}),
    feature_lists=tf.train.FeatureLists(feature_list={"f": tf.train.FeatureList(feature=[
        tf.train.Feature(float_list=tf.train.FloatList(value=[1.0])),
        tf.train.Feature(float_list=tf.train.FloatList(value=[2.0]))])})).SerializeToString()
for _op, _id, _fn, _arrays in [
    ("StringLower", "strings.lower", tf.strings.lower, (_S,)),
    ("StringUpper", "strings.upper", tf.strings.upper, (_S,)),
    ("StringStrip", "strings.strip", tf.strings.strip, (_S,)),
    ("StringLength", "strings.length_utf8", lambda s: tf.strings.length(s, unit="UTF8_CHAR"), (_S,)),
    ("StringJoin", "strings.join", lambda s: tf.strings.join([s, s], separator="|"), (_S,)),
    ("ReduceJoin", "strings.reduce_join", lambda s: tf.strings.reduce_join(s, separator="+"), (_S,)),
    ("StringSplitV2", "strings.split", lambda s: tf.strings.split(s, sep=",").to_tensor(), (_S,)),
    ("UnicodeDecode", "strings.unicode_decode", lambda s: tf.strings.unicode_decode(s, "UTF-8").flat_values, (_S,)),
    ("StringToNumber", "strings.to_number", tf.strings.to_number, (np.array([b"1.5", b"-2", b"3e2"], object),)),
    ("AsString", "strings.as_string", lambda x: tf.strings.as_string(x, precision=2), (np.float32([1.25, -3.5]),)),
    ("StaticRegexReplace", "strings.regex_replace", lambda s: tf.strings.regex_replace(s, "o+", "0"), (_S,)),
    ("StaticRegexFullMatch", "strings.regex_full_match", lambda s: tf.strings.regex_full_match(s, ".*o.*"), (_S,)),
    ("Substr", "strings.substr", lambda s: tf.strings.substr(s, 1, 3), (_S,)),
    ("UnicodeDecodeWithOffsets", "strings.unicode_decode_with_offsets",
     lambda s: tuple(t.flat_values for t in tf.strings.unicode_decode_with_offsets(s, "UTF-8")), (_S,)),
    ("UnicodeEncode", "strings.unicode_encode", lambda c: tf.strings.unicode_encode(c, "UTF-8"),
     (np.int32([[72, 105], [0x20ac, 33]]),)),
    ("UnicodeTranscode", "strings.unicode_transcode", lambda s: tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"),
     (_S,)),
    ("StringBytesSplit", "strings.bytes_split", lambda s: tf.strings.bytes_split(s).to_tensor(), (_S,)),
    ("StringNGrams", "strings.ngrams", lambda s: tf.strings.ngrams(tf.strings.split(s), 2).to_tensor(),
     (_S,)),
    ("StringFormat", "strings.format", lambda x: tf.strings.format("x = {}", x), (np.float32([1.0, 2.0]),)),
    ("UnsortedSegmentJoin", "strings.unsorted_segment_join",
     lambda s: tf.strings.unsorted_segment_join(s, [1, 0, 1], 2), (_S,)),
    ("StringToHashBucketFast", "strings.to_hash_bucket_fast", lambda s: tf.strings.to_hash_bucket_fast(s, 7), (_S,)),
    ("StringToHashBucketStrong", "strings.to_hash_bucket_strong",
     lambda s: tf.strings.to_hash_bucket_strong(s, 7, [1, 2]), (_S,)),
    ("Fingerprint", "fingerprint", tf.fingerprint, (_S,)),
    ("EncodePng", "io.encode_png_decode_png", lambda x: tf.io.decode_png(tf.io.encode_png(x)), (_IMG8,)),
    ("DecodePng", "io.decode_png", lambda x: tf.io.decode_png(tf.io.encode_png(x), channels=3), (_IMG8,)),
    ("DecodeImage", "io.decode_image", lambda x: tf.io.decode_image(tf.io.encode_png(x)), (_IMG8,)),
    ("EncodeJpeg", "io.encode_jpeg", lambda x: tf.io.encode_jpeg(x, quality=95), (_IMG8,)),
    ("DecodeJpeg", "io.decode_jpeg", lambda x: tf.io.decode_jpeg(tf.io.encode_jpeg(x, quality=95)), (_IMG8,)),
    ("IsJpeg", "io.is_jpeg", lambda x: tf.io.is_jpeg(tf.io.encode_jpeg(x)), (_IMG8,)),
    ("ExtractJpegShape", "io.extract_jpeg_shape", lambda x: tf.io.extract_jpeg_shape(tf.io.encode_jpeg(x)), (_IMG8,)),
    ("EncodeBase64", "io.encode_base64", lambda s: tf.io.encode_base64(s, pad=True), (_S,)),
    ("DecodeBase64", "io.decode_base64", lambda s: tf.io.decode_base64(tf.io.encode_base64(s)), (_S,)),
    ("DecodeCompressed", "io.decode_compressed", lambda s: tf.io.decode_compressed(s), (_S,)),
    ("DecodeCSV", "io.decode_csv", lambda s: tuple(tf.io.decode_csv(s, [[""], [""], ["z"]], na_value="")),
     (np.array([b"a,b,c", b"1,,3"], object),)),
    ("DecodeRaw", "io.decode_raw", lambda s: tf.io.decode_raw(s, tf.uint8, fixed_length=4),
     (np.array([b"abcd", b"wxyz"], object),)),
    ("SerializeTensor", "io.serialize_tensor", lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.float32),
     (np.float32([[1, 2], [3, 4]]),)),
    ("ParseTensor", "io.parse_tensor", lambda x: tf.io.parse_tensor(tf.io.serialize_tensor(x), tf.int32),
     (np.int32([5, 6, 7]),)),
    ("EncodeWav", "audio.encode_wav", lambda a: encode_wav(a, 8000), (np.float32([[0.5], [-0.25], [0.0]]),)),
    ("SerializeSparse", "io.serialize_sparse", lambda v: tf.io.serialize_sparse(_sp(v)), (np.float32([1, 2]),)),
    ("SerializeManySparse", "io.serialize_many_sparse", lambda v: tf.io.serialize_many_sparse(_sp(v)),
     (np.float32([1, 2]),)),
    ("DeserializeManySparse", "io.deserialize_many_sparse", lambda v: tf.sparse.to_dense(tf.io.deserialize_many_sparse(
        tf.io.serialize_many_sparse(_sp(v)), tf.float32)), (np.float32([1, 2]),)),
    ("ParseExampleV2", "io.parse_example", lambda s: tuple(tf.io.parse_example(s, {
        "x": tf.io.FixedLenFeature([2], tf.float32), "n": tf.io.FixedLenFeature([1], tf.int64)}).values()),
     (np.array([_EX, _EX], object),)),
    ("ParseSingleSequenceExample", "io.parse_single_sequence_example", lambda s: tuple(
        tf.io.parse_single_sequence_example(s, {"n": tf.io.FixedLenFeature([1], tf.int64)},
                                            {"f": tf.io.FixedLenSequenceFeature([1], tf.float32)})[1].values()),
     (np.array(_SEQ, object),)),
]:
    sample(_op, _id, _fn, *_arrays, host=True)

# ==================================================================================================
# float64 references of element-wise ops: checked on ragged and edge shapes (empty, size 1, broadcasting)
# ==================================================================================================

def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _erf(x):
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x)


_POSITIVE, _UNIT_OPEN = (0.1, 3.0), (-0.95, 0.95)
for _op, _public, _ref, _domain in [
        ("Neg", tf.math.negative, np.negative, None), ("Abs", tf.math.abs, np.abs, None),
        ("Square", tf.math.square, np.square, None), ("Exp", tf.math.exp, np.exp, None),
        ("Expm1", tf.math.expm1, np.expm1, None), ("Sin", tf.math.sin, np.sin, None),
        ("Cos", tf.math.cos, np.cos, None), ("Tan", tf.math.tan, np.tan, (-1.2, 1.2)),
        ("Atan", tf.math.atan, np.arctan, None), ("Sinh", tf.math.sinh, np.sinh, None),
        ("Cosh", tf.math.cosh, np.cosh, None), ("Tanh", tf.math.tanh, np.tanh, None),
        ("Sigmoid", tf.math.sigmoid, _sigmoid, None), ("Erf", tf.math.erf, _erf, None),
        ("Softplus", tf.math.softplus, lambda x: np.logaddexp(0.0, x), None),
        ("Softsign", tf.math.softsign, lambda x: x / (1.0 + np.abs(x)), None),
        ("Sqrt", tf.math.sqrt, np.sqrt, _POSITIVE), ("Rsqrt", tf.math.rsqrt, lambda x: 1.0 / np.sqrt(x), _POSITIVE),
        ("Log", tf.math.log, np.log, _POSITIVE), ("Log1p", tf.math.log1p, np.log1p, (-0.9, 3.0)),
        ("Reciprocal", tf.math.reciprocal, np.reciprocal, _POSITIVE),
        ("Asin", tf.math.asin, np.arcsin, _UNIT_OPEN), ("Acos", tf.math.acos, np.arccos, _UNIT_OPEN),
        ("Floor", tf.math.floor, np.floor, (-5.0, 5.0)), ("Ceil", tf.math.ceil, np.ceil, (-5.0, 5.0)),
        ("Round", tf.math.round, np.round, (-5.0, 5.0)), ("Sign", tf.math.sign, np.sign, None),
        ("Relu", tf.nn.relu, lambda x: np.maximum(x, 0.0), None),
        ("Relu6", tf.nn.relu6, lambda x: np.clip(x, 0.0, 6.0), (-3.0, 9.0)),
        ("Elu", tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0.0))), None)]:
    entry(_op, ref=_ref, public=_public, **({"domain": _domain} if _domain else {}))

for _op, _public, _ref, _domain in [
        ("AddV2", tf.math.add, np.add, None), ("Sub", tf.math.subtract, np.subtract, None),
        ("Mul", tf.math.multiply, np.multiply, None),
        ("RealDiv", tf.math.divide, np.divide, ((-2.0, 2.0), (0.5, 2.0))),
        ("Maximum", tf.math.maximum, np.maximum, None), ("Minimum", tf.math.minimum, np.minimum, None),
        ("SquaredDifference", tf.math.squared_difference, lambda a, b: (a - b) ** 2, None),
        ("Atan2", tf.math.atan2, np.arctan2, None),
        ("Pow", tf.math.pow, np.power, ((0.2, 2.0), (-2.0, 2.0))),
        ("FloorMod", tf.math.floormod, np.mod, ((-3.0, 3.0), (0.5, 2.0)))]:
    entry(_op, ref=_ref, public=_public, arity=2, **({"domain": _domain} if _domain else {}))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True, initial=-np.inf))
    return e / e.sum(-1, keepdims=True)


_ROWS = [((1,),), ((0, 3),), ((3, 0),), ((2, 1, 33),), ((2, 1500),)]  # (3, 0): empty rows, as TF
_F16 = {"float16": (2e-3, 2e-3)}  # half precision: inputs and outputs rounded, accumulation in float32
entry("Softmax", ref=_softmax, public=tf.nn.softmax, ref_shapes=_ROWS, dtypes=("float16", "float32", "float64"),
      ref_tol=_F16)
entry("LogSoftmax", ref=lambda x: np.log(_softmax(x)), public=tf.nn.log_softmax, ref_shapes=_ROWS,
      dtypes=("float16", "float32", "float64"), ref_tol={"float16": (2e-3, 5e-3)})

# ops with our CUDA kernels, against the float64 references tfcore selftest uses (tfcore/selftest/references.py):
# ragged sizes around the kernels' tiles and vector widths, empty and size-1 edges, broadcast batches
entry("BatchMatMulV2", ref=references.matmul_ref, public=tf.matmul, arity=2, ref_shapes=[
    ((0, 3), (3, 4)), ((1, 1), (1, 1)), ((5, 0), (0, 3)), ((33, 17), (17, 65)), ((2, 1, 9, 4), (3, 4, 130))])
_REDUCTION_SHAPES = [((0, 3),), ((1, 1),), ((7, 1500),), ((2, 33, 5),), ((3, 1, 129),)]
for _op, _public, _name in [("Sum", tf.reduce_sum, "sum"), ("Mean", tf.reduce_mean, "mean"),
                            ("Max", tf.reduce_max, "max"), ("Min", tf.reduce_min, "min"),
                            ("Prod", tf.reduce_prod, "prod")]:
    entry(_op, ref=lambda x, _n=_name: references.reduce_ref(x, (x.ndim - 1,), _n),
          public=lambda x, _p=_public: _p(x, axis=-1), ref_shapes=_REDUCTION_SHAPES,
          domain=(0.5, 1.5) if _op == "Prod" else (-2.0, 2.0))
entry("BiasAdd", ref=references.bias_add_ref, public=tf.nn.bias_add, arity=2, dtypes=("float16", "float32", "float64"),
      ref_tol=_F16, ref_shapes=[((0, 4), (4,)), ((1, 1), (1,)), ((2, 3, 8), (8,)), ((3, 5, 7, 131), (131,))])

# ==================================================================================================
# our CUDA kernels: name prefixes each entry's FIRST sample must launch on a GPU device
# ==================================================================================================

for _op, _kernels in [
        ("BatchMatMulV2", ("matmul_f32",)), ("_FusedMatMul", ("matmul_f32",)),
        ("Conv2D", ("conv2d_fwd",)), ("_FusedConv2D", ("conv2d_fwd",)),
        ("Conv2DBackpropInput", ("conv2d_input_grad",)),
        ("DepthwiseConv2dNative", ("depthwise",)),
        ("MaxPool", ("max_pool",)), ("AvgPool", ("avg_pool",)),
        ("Sum", ("reduce_",)), ("Mean", ("reduce_",)), ("Max", ("reduce_",)), ("Min", ("reduce_",)),
        ("Prod", ("reduce_",)), ("ArgMax", ("arg",)),
        ("Softmax", ("softmax",)), ("LogSoftmax", ("softmax",)),
        ("SparseSoftmaxCrossEntropyWithLogits", ("sparse_xent",)),
        ("BiasAdd", ("bias_add",)), ("FusedBatchNormV3", ("bn_stats_rows", "bn_finalize", "bn_apply"))]:
    entry(_op, kernels=_kernels)

# ==================================================================================================
# SavedModel round trips (a subset: one or two ops per family; each costs a save and a load)
# ==================================================================================================

# Not yet in the subset (a known gap): MatrixInverse (a trace from an input_signature runs on zeros, and
# inverting them raises while tracing).
for _op in ["AddV2", "Exp", "Cast", "BatchMatMulV2", "Sum", "ArgMax", "Softmax", "Conv2D", "MaxPool",
            "GatherV2", "ConcatV2", "Slice", "StridedSlice", "Transpose", "BiasAdd", "Relu", "ScatterNd", "Cumsum",
            "SelectV2", "TopKV2", "MatrixBandPart", "ResizeBilinear", "OneHot", "FusedBatchNormV3"]:
    entry(_op, saved_model=True)

# ==================================================================================================
# NextAfter (tf.math.nextafter): the walkthrough op of docs/architecture.md's "Adding an op", all its facts
# in one entry: a device sample with gradients, the exact reference (also for its CUDA expression), the
# float64 gradient case and the SavedModel round trip
# ==================================================================================================

entry("NextAfter", public=tf.math.nextafter, arity=2, ref=np.nextafter, exact=True, saved_model=True,
      samples=[Sample("nextafter_broadcast", tf.math.nextafter, (X, f32(4, seed=7)), grad=True, op="NextAfter")],
      grad=GradCase(tf.math.nextafter, [r(2, 3), r(3) + 5.0]))


# ==================================================================================================
# UnsortedSegmentProd / SegmentProd (tf.math.unsorted_segment_prod, tf.math.segment_prod): docs/architecture.md's
# worked example of an op with a hand-written CUDA kernel (kernels/segment.cu). Samples: an empty segment, a
# dropped id, rank-2 ids, integer data, zeros (TF's special-cased gradient); the reference on ragged shapes
# with ids derived from the rows (negative and empty segments included); float64 gradients of both orders.
# ==================================================================================================


def _unsorted_ids(rows):
    return (np.arange(rows) * 7) % 5 - 1  # -1 (dropped) .. 3; segment 4 stays empty


def _sorted_ids(rows):
    return np.arange(rows) // 3 * 2  # every odd segment empty


_SEGMENT_SHAPES = [((0, 3),), ((1,),), ((7,),), ((300, 3),), ((5, 4, 3),), ((2, 1, 33),)]
_ZEROS = np.array([[1., 0.], [3., 0.], [0., 6.], [2., 2.], [4., -1.], [0.5, 0.]], np.float32)
entry("UnsortedSegmentProd", kernels=("unsorted_segment_prod_f32",), saved_model=True,
      public=lambda x: tf.math.unsorted_segment_prod(x, _unsorted_ids(x.shape[0]), 5),
      ref=lambda x: references.segment_prod_ref(x, _unsorted_ids(x.shape[0]), 5), ref_shapes=_SEGMENT_SHAPES,
      samples=[Sample("unsorted_segment_prod", lambda d, s: tf.math.unsorted_segment_prod(d, s, 5),
                      (f32(6, 2, lo=0.5, hi=1.5), np.array([3, 0, -1, 3, 0, 1], np.int32)), grad=True,
                      op="UnsortedSegmentProd"),
               Sample("unsorted_segment_prod_zeros", lambda d: tf.math.unsorted_segment_prod(d, [0, 0, 0, -1, 2, 2], 3),
                      (_ZEROS,), grad=True, op="UnsortedSegmentProd"),
               Sample("unsorted_segment_prod_int64_rank2_ids", lambda d, s: tf.math.unsorted_segment_prod(d, s, 4),
                      (i64(2, 3, 2, lo=-3, hi=4), np.array([[1, 0, 1], [-1, 1, 3]], np.int64)),
                      op="UnsortedSegmentProd")],
      grad=GradCase(lambda x: tf.math.unsorted_segment_prod(x, [[2, 0], [2, -1]], 3), [r(2, 2, 3)]))
entry("SegmentProd", kernels=("segment_prod_f32",), saved_model=True,
      public=lambda x: tf.math.segment_prod(x, _sorted_ids(x.shape[0])),
      ref=lambda x: references.segment_prod_ref(x, _sorted_ids(x.shape[0]), int(_sorted_ids(x.shape[0])[-1]) + 1
                                                if x.shape[0] else 0),
      ref_shapes=_SEGMENT_SHAPES,
      samples=[Sample("segment_prod", tf.math.segment_prod, (f32(6, 2, lo=0.5, hi=1.5),
                                                            np.array([0, 0, 2, 2, 2, 3], np.int32)),
                      grad=True, op="SegmentProd"),
               Sample("segment_prod_zeros", lambda d: tf.math.segment_prod(d, [0, 0, 0, 2, 2, 2]), (_ZEROS,),
                      grad=True, op="SegmentProd"),
               Sample("segment_prod_int32", tf.math.segment_prod, (i32(5, 3, lo=-3, hi=4),
                                                                  np.array([1, 1, 1, 4, 4], np.int32)),
                      op="SegmentProd")],
      grad=GradCase(lambda x: tf.math.segment_prod(x, [0, 0, 1, 3]), [r(4, 3)]))

# ==================================================================================================
# BesselI0 / BesselI0e / BesselI1 / BesselI1e (tf.math.bessel_*, also tf.math.special): against the power series
# I_nu(x) = sum_k (x/2)^(2k+nu) / (k! (k+nu)!) in float64 (independent of the Chebyshev expansions the kernels
# use), past the expansions' switch at |x| = 8; i0 and i1 also through their CUDA expressions (cyl_bessel_i*)
# ==================================================================================================


def _bessel_series(x, nu):
    x = np.asarray(x, np.float64)
    term = (x / 2.0) ** nu / math.factorial(nu)
    total = term.copy()
    for k in range(1, 80):
        term = term * (x / 2.0) ** 2 / (k * (k + nu))
        total = total + term
    return total


_BESSEL_SHAPES = [((),), ((0,),), ((1,),), ((7,),), ((3, 5),), ((2, 1, 33),)]
for _op, _fn, _nu, _scaled in [("BesselI0", tf.math.bessel_i0, 0, False), ("BesselI0e", tf.math.bessel_i0e, 0, True),
                               ("BesselI1", tf.math.bessel_i1, 1, False), ("BesselI1e", tf.math.bessel_i1e, 1, True)]:
    entry(_op, public=_fn, ref_shapes=_BESSEL_SHAPES, domain=(-12.0, 12.0),
          ref=lambda x, _nu=_nu, _s=_scaled: _bessel_series(x, _nu) * (np.exp(-np.abs(x)) if _s else 1.0),
          ref_tol={"float32": (2e-6, 1e-7), "float64": (1e-13, 1e-15)},
          samples=[Sample(_op.lower(), _fn, (f32(3, 4, lo=-10.0, hi=10.0),), grad=True, op=_op)],
          grad=GradCase(_fn, [r(2, 3, lo=-3.0, hi=3.0)]))


def _bessel_k_integral(x, nu):
    """K_nu(x) = integral_0^inf exp(-x cosh t) cosh(nu t) dt (x > 0), by the trapezoidal rule, which converges
    geometrically for this smooth, doubly exponentially decaying integrand."""
    t = np.linspace(0.0, 12.0, 6001)
    x = np.asarray(x, np.float64)
    f = np.exp(-x[..., None] * np.cosh(t)) * np.cosh(nu * t)
    return (f.sum(-1) - 0.5 * (f[..., 0] + f[..., -1])) * (t[1] - t[0])


for _op, _fn, _nu, _scaled in [("BesselK0", tf.math.special.bessel_k0, 0, False),
                               ("BesselK0e", tf.math.special.bessel_k0e, 0, True),
                               ("BesselK1", tf.math.special.bessel_k1, 1, False),
                               ("BesselK1e", tf.math.special.bessel_k1e, 1, True)]:
    entry(_op, public=_fn, ref_shapes=_BESSEL_SHAPES, domain=(0.05, 12.0),
          ref=lambda x, _nu=_nu, _s=_scaled: _bessel_k_integral(x, _nu) * (np.exp(x) if _s else 1.0),
          ref_tol={"float32": (2e-6, 1e-30), "float64": (1e-13, 1e-300)},
          samples=[Sample(_op.lower(), _fn, (f32(3, 4, lo=0.1, hi=10.0),), grad=True, op=_op)],
          grad=GradCase(_fn, [r(2, 3, lo=0.3, hi=4.0)]))


_GAUSS = np.polynomial.legendre.leggauss(400)


def _gauss(f, a, b):
    t = 0.5 * (b - a) * _GAUSS[0] + 0.5 * (b + a)
    return 0.5 * (b - a) * (f(t) * _GAUSS[1]).sum(-1)


def _bessel_j_integral(x, n):
    """J_n(x) = (1/pi) integral_0^pi cos(n t - x sin t) dt (Gauss-Legendre)."""
    x = np.asarray(x, np.float64)[..., None]
    return _gauss(lambda t: np.cos(n * t - x * np.sin(t)), 0.0, np.pi) / np.pi


def _bessel_y_integral(x, n):
    """Y_n(x) = (1/pi) integral_0^pi sin(x sin t - n t) dt - (1/pi) integral_0^inf (e^(nt) + (-1)^n e^(-nt))
    e^(-x sinh t) dt (x > 0; the second integrand is below 1e-300 past t = 12 for x >= 0.05)."""
    x = np.asarray(x, np.float64)[..., None]
    first = _gauss(lambda t: np.sin(x * np.sin(t) - n * t), 0.0, np.pi)
    second = _gauss(lambda t: (np.exp(n * t) + (-1) ** n * np.exp(-n * t)) * np.exp(-x * np.sinh(t)), 0.0, 12.0)
    return (first - second) / np.pi


for _op, _fn, _ref, _domain, _grad_range in [
        ("BesselJ0", tf.math.special.bessel_j0, lambda x: _bessel_j_integral(x, 0), (-12.0, 12.0), (-4.0, 4.0)),
        ("BesselJ1", tf.math.special.bessel_j1, lambda x: _bessel_j_integral(x, 1), (-12.0, 12.0), (-4.0, 4.0)),
        ("BesselY0", tf.math.special.bessel_y0, lambda x: _bessel_y_integral(x, 0), (0.1, 12.0), (0.5, 6.0)),
        ("BesselY1", tf.math.special.bessel_y1, lambda x: _bessel_y_integral(x, 1), (0.1, 12.0), (0.5, 6.0))]:
    entry(_op, public=_fn, ref=_ref, ref_shapes=_BESSEL_SHAPES, domain=_domain,
          ref_tol={"float32": (2e-6, 1e-7), "float64": (1e-12, 3e-13)},  # absolute near the functions' zeros
          samples=[Sample(_op.lower(), _fn, (f32(3, 4, lo=_domain[0], hi=_domain[1]),), grad=True, op=_op)],
          grad=GradCase(_fn, [r(2, 3, lo=_grad_range[0], hi=_grad_range[1])]))


def _dawsn_integral(x):
    """Dawson's integral exp(-x^2) integral_0^x exp(t^2) dt = x integral_0^1 exp(x^2 (u^2 - 1)) du."""
    x = np.asarray(x, np.float64)
    return x * _gauss(lambda u: np.exp(x[..., None] ** 2 * (u * u - 1.0)), 0.0, 1.0)


def _spence_integral(x):
    """Spence's function integral_1^x log(t) / (1 - t) dt (x > 0)."""
    x = np.asarray(x, np.float64)

    def f(u):
        t = 1.0 + (x[..., None] - 1.0) * u
        return np.log(t) / (1.0 - t)

    return (x - 1.0) * _gauss(f, 0.0, 1.0)


for _op, _fn, _ref, _domain, _grad_range in [
        ("Dawsn", tf.math.special.dawsn, _dawsn_integral, (-8.0, 8.0), (-4.0, 4.0)),
        ("Spence", tf.math.special.spence, _spence_integral, (0.05, 4.0), (0.2, 3.0))]:
    entry(_op, public=_fn, ref=_ref, ref_shapes=_BESSEL_SHAPES, domain=_domain,
          ref_tol={"float32": (2e-6, 1e-7), "float64": (1e-12, 3e-13)},
          samples=[Sample(_op.lower(), _fn, (f32(3, 4, lo=_domain[0], hi=_domain[1]),), grad=True, op=_op)],
          grad=GradCase(_fn, [r(2, 3, lo=_grad_range[0], hi=_grad_range[1])]))


def _fresnel_integral(x, trig):
    """integral_0^x trig(pi t^2 / 2) dt."""
    x = np.asarray(x, np.float64)
    return x * _gauss(lambda u: trig(0.5 * np.pi * (x[..., None] * u) ** 2), 0.0, 1.0)


for _op, _fn, _trig in [("FresnelCos", tf.math.special.fresnel_cos, np.cos),
                        ("FresnelSin", tf.math.special.fresnel_sin, np.sin)]:
    entry(_op, public=_fn, ref=lambda x, _t=_trig: _fresnel_integral(x, _t), ref_shapes=_BESSEL_SHAPES,
          domain=(-6.0, 6.0), ref_tol={"float32": (2e-6, 1e-7), "float64": (1e-12, 3e-13)},
          samples=[Sample(_op.lower(), _fn, (f32(3, 4, lo=-6.0, hi=6.0),), grad=True, op=_op)],
          grad=GradCase(_fn, [r(2, 3, lo=-2.0, hi=2.0)]))


def _expint_series(x):
    """Ei(x) = gamma + log(x) + sum_k x^k / (k k!) (x > 0; positive terms, no cancellation)."""
    x = np.asarray(x, np.float64)
    term, total = np.ones_like(x), np.zeros_like(x)
    for k in range(1, 120):
        term = term * x / k
        total = total + term / k
    return 0.5772156649015329 + np.log(x) + total


entry("Expint", public=tf.math.special.expint, ref=_expint_series, ref_shapes=_BESSEL_SHAPES, domain=(0.05, 20.0),
      ref_tol={"float32": (2e-6, 1e-7), "float64": (1e-13, 1e-14)},
      samples=[Sample("expint", tf.math.special.expint, (f32(3, 4, lo=0.1, hi=20.0),), grad=True, op="Expint")],
      grad=GradCase(tf.math.special.expint, [r(2, 3, lo=0.3, hi=6.0)]))
