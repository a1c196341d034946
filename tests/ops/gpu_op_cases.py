"""The table of public ops run on a GPU device and compared with the CPU (tests/ops and tests/gpu share it).

Each :class:`Case` calls one public op (or a small composition) on tensors made from
NumPy inputs. :func:`run_case` runs it under ``tf.device(...)``: outputs (as NumPy),
the devices they landed on, and — for differentiable cases — the gradients of a
weighted sum of the float outputs with respect to the float inputs.
Shapes are small: on an emulated GPU our CUDA kernels run on the CPU emulator.
"""

import dataclasses

import numpy as np

import tfcore as tf
from tfcore.ops import conv_ops, fused_ops, training_ops


@dataclasses.dataclass
class Case:
    id: str
    fn: object
    arrays: tuple
    grad: bool = False
    tol: float = 1e-5


def _rng(seed=0):
    return np.random.default_rng(seed)


def f32(*shape, lo=-1.0, hi=1.0, seed=0):
    return _rng(seed).uniform(lo, hi, shape).astype(np.float32)


def f64(*shape, lo=-1.0, hi=1.0, seed=0):
    return _rng(seed).uniform(lo, hi, shape)


def i32(*shape, lo=0, hi=5, seed=0, dtype=np.int32):
    return _rng(seed).integers(lo, hi, shape).astype(dtype)


def i64(*shape, lo=0, hi=5, seed=0):
    return i32(*shape, lo=lo, hi=hi, seed=seed, dtype=np.int64)


def bools(*shape, seed=0):
    return _rng(seed).random(shape) > 0.5


CASES = []


def case(id, fn, *arrays, grad=False, tol=1e-5):  # noqa: A002
    CASES.append(Case(id, fn, arrays, grad, tol))


X, Y = f32(3, 4), f32(3, 4, seed=1)
POS = f32(3, 4, lo=0.2, hi=2.0, seed=2)
UNIT = f32(3, 4, lo=-0.9, hi=0.9, seed=3)
IMG = f32(2, 5, 6, 3, seed=4)
IMG64 = f64(1, 5, 5, 2, seed=5)

# -- math: element-wise binary ------------------------------------------------------------------
for _name in ["add", "subtract", "multiply", "maximum", "minimum", "squared_difference", "atan2"]:
    case(_name, getattr(tf.math, _name), X, Y, grad=True)
case("add_broadcast", tf.add, X, f32(4, seed=6), grad=True)
case("divide", tf.divide, X, POS, grad=True)
case("realdiv", tf.realdiv, X, POS, grad=True)
case("pow", tf.pow, POS, Y, grad=True)
case("truediv_int", tf.truediv, i32(3, 4, lo=-5), i32(3, 4, lo=1, seed=1))
case("floordiv_int", tf.math.floordiv, i32(3, 4, lo=-9, hi=9), i32(3, 4, lo=1, seed=1))
case("floordiv_float", tf.math.floordiv, X, POS)
case("floormod_int", tf.math.floormod, i64(3, 4, lo=-9, hi=9), i64(3, 4, lo=1, seed=1))
case("floormod_float", tf.math.floormod, X, POS)
case("divide_no_nan", tf.math.divide_no_nan, X, np.array([0, 1, 2, 0], np.float32), grad=True)
case("scalar_mul", lambda x: tf.math.scalar_mul(3.0, x), X, grad=True)
for _name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
    case(_name, getattr(tf.math, _name), i32(3, 4), i32(3, 4, seed=1))
for _name in ["logical_and", "logical_or", "logical_xor"]:
    case(_name, getattr(tf.math, _name), bools(3, 4), bools(3, 4, seed=1))
case("logical_not", tf.math.logical_not, bools(3, 4))
case("operators", lambda x, y: (x + y) * 2.0 - x / (abs(y) + 1.0) + (-x) ** 2, X, Y, grad=True)

# -- math: element-wise unary ---------------------------------------------------------------------
for _name in ["negative", "abs", "square", "exp", "expm1", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh",
              "sigmoid", "softplus", "softsign", "erf", "log_sigmoid"]:
    case(_name, getattr(tf.math, _name), X, grad=True)
for _name in ["sqrt", "rsqrt", "log", "log1p", "reciprocal"]:
    case(_name, getattr(tf.math, _name), POS, grad=True)
for _name in ["asin", "acos"]:
    case(_name, getattr(tf.math, _name), UNIT, grad=True)
case("log_zero_and_negative", tf.math.log, np.array([0.0, -1.0, 1.0], np.float32))
case("erf_float64", tf.math.erf, f64(5))
for _name in ["sign", "floor", "ceil", "round"]:
    case(_name, getattr(tf.math, _name), X * 3)
case("round_half_even", tf.math.round, np.array([0.5, 1.5, 2.5, -0.5], np.float32))
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
for _name in ["is_nan", "is_inf", "is_finite"]:
    case(_name, getattr(tf.math, _name), _SPECIAL)

# -- math: cast, clip, where, add_n, matmul, einsum, cumsum ------------------------------------------------
case("cast_f2i", lambda x: tf.cast(x * 3, tf.int32), X)
case("cast_bool", lambda x: tf.cast(x, tf.bool), i32(6))
case("cast_f16", lambda x: tf.cast(x, tf.float16), X, grad=True)
case("saturate_cast", lambda x: tf.saturate_cast(x * 300, tf.uint8), X)
case("clip_by_value", lambda x: tf.clip_by_value(x, -0.5, 0.5), X, grad=True)
case("where_select", lambda c, x, y: tf.where(c, x, y), bools(3, 4), X, Y, grad=True)
case("where_indices", lambda c: tf.where(c), bools(3, 4))
case("add_n", lambda *xs: tf.add_n(xs), X, Y, POS, grad=True)
case("matmul", tf.matmul, f32(5, 7), f32(7, 3, seed=1), grad=True, tol=1e-4)
case("matmul_transposed_batched", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
     f32(2, 7, 5), f32(2, 3, 7, seed=1), grad=True, tol=1e-4)
case("matmul_float64", tf.matmul, f64(4, 6), f64(6, 2, seed=1), grad=True)
case("matmul_int", tf.matmul, i32(3, 4), i32(4, 2, seed=1))
case("tensordot", lambda a, b: tf.tensordot(a, b, axes=[[1], [0]]), f32(3, 4), f32(4, 5, seed=1), grad=True,
     tol=1e-4)
case("einsum", lambda a, b: tf.einsum("bij,bjk->bik", a, b), f32(2, 3, 4), f32(2, 4, 2, seed=1), grad=True,
     tol=1e-4)
case("cumsum", lambda x: tf.cumsum(x, axis=1, exclusive=True, reverse=True), X, grad=True)
case("cumprod", lambda x: tf.math.cumprod(x, axis=0, exclusive=True), X, grad=True)

# -- array ops ---------------------------------------------------------------------------------------
case("fill", lambda: tf.fill([2, 3], 7.0))
case("zeros_ones", lambda: (tf.zeros([2, 3]), tf.ones([3], tf.int32)))
case("zeros_like_ones_like", lambda x: (tf.zeros_like(x), tf.ones_like(x)), X)
case("reshape", lambda x: tf.reshape(x, [4, 3]), X, grad=True)
case("broadcast_to", lambda x: tf.broadcast_to(x, [2, 3, 4]), f32(3, 1), grad=True)
case("identity", tf.identity, X, grad=True)
case("stack_unstack", lambda x, y: tf.unstack(tf.stack([x, y], axis=1), axis=2), X, Y, grad=True)
case("transpose", lambda x: tf.transpose(x, [2, 0, 1]), f32(2, 3, 4), grad=True)
case("concat_split", lambda x, y: tf.split(tf.concat([x, y], axis=1), [3, 5], axis=1), X, Y, grad=True)
case("tile", lambda x: tf.tile(x, [2, 3]), X, grad=True)
case("pad_constant", lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=5.0), X, grad=True)
case("pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"), X, grad=True)
case("pad_symmetric", lambda x: tf.pad(x, [[1, 0], [1, 2]], mode="SYMMETRIC"), X, grad=True)
case("expand_squeeze", lambda x: tf.squeeze(tf.expand_dims(x, 1), [1]), X, grad=True)
case("gather", lambda p, i: tf.gather(p, i), f32(5, 3), i32(7), grad=True)
case("gather_axis1_float64", lambda p, i: tf.gather(p, i, axis=1), f64(3, 5), i64(2, 4), grad=True)
case("gather_batch_dims", lambda p, i: tf.gather(p, i, axis=1, batch_dims=1), f32(2, 5, 3), i32(2, 4), grad=True)
case("gather_int64_params", lambda p, i: tf.gather(p, i), i64(5, 2, hi=100), i32(6))
case("gather_nd", lambda p, i: tf.gather_nd(p, i), f32(4, 3, 2), i32(5, 2, hi=3), grad=True)
case("scatter_nd_float", lambda i, u: tf.scatter_nd(i, u, [5, 3]), i32(6, 1), f32(6, 3), grad=True)
case("scatter_nd_int64", lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), i64(7, hi=50))
case("scatter_nd_int32", lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), i32(7, hi=50, seed=3))
case("scatter_nd_float16", lambda i, u: tf.scatter_nd(i, u, [4]), i32(7, 1, hi=4), f32(7).astype(np.float16),
     tol=1e-2)
case("tensor_scatter_update", lambda t, i, u: tf.tensor_scatter_nd_update(t, i, u), X, np.array([[0], [2]]),
     f32(2, 4, seed=1), grad=True)
case("tensor_scatter_add_int64", lambda t, i, u: tf.tensor_scatter_nd_add(t, i, u), i64(4, 2),
     np.array([[1], [1], [3]]), i64(3, 2, seed=1))
case("one_hot", lambda i: tf.one_hot(i, 4, on_value=2.0, off_value=-1.0, axis=0), i32(5))
case("reverse", lambda x: tf.reverse(x, [0, 1]), X, grad=True)
case("argsort_desc", lambda x: tf.argsort(x, direction="DESCENDING"), i32(3, 6))
case("sort", lambda x: tf.sort(x, axis=0), X, grad=True)
case("unique", lambda x: tuple(tf.unique(x)), i32(9))
case("unique_with_counts", lambda x: tuple(tf.unique_with_counts(x, out_idx=tf.int64)), i64(9))
case("eye", lambda: tf.eye(3, 4, batch_shape=[2]))
case("range", lambda: (tf.range(2, 11, 3), tf.range(0.0, 1.0, 0.25)))
case("linspace", lambda a, b: tf.linspace(a, b, 5), np.float32(0.5), np.float32(2.0))
case("strided_slice", lambda x: x[1:, ::-2], X, grad=True)
case("getitem_newaxis_ellipsis", lambda x: x[None, ..., 1], f32(2, 3, 4), grad=True)
case("slice", lambda x: tf.slice(x, [1, 0], [2, 3]), X, grad=True)
case("boolean_mask", lambda x, m: tf.boolean_mask(x, m), X, np.array([True, False, True]), grad=True)
case("sequence_mask", lambda n: tf.sequence_mask(n, 5), i32(4))
case("repeat", lambda x: tf.repeat(x, 2, axis=0), X, grad=True)
case("roll", lambda x: tf.roll(x, 2, axis=1), X, grad=True)
case("meshgrid", lambda a, b: tuple(tf.meshgrid(a, b)), f32(3), f32(2, seed=1))
case("stop_gradient", lambda x: tf.stop_gradient(x) * x, X, grad=True)
case("shape_size_rank", lambda x: (tf.shape(x), tf.size(x), tf.rank(x)), X)

def _whole_and_rows(reduce):
    return lambda x: (reduce(x), reduce(x, axis=1, keepdims=True))


# -- reductions ------------------------------------------------------------------------------------
for _name in ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp",
              "reduce_std", "reduce_variance", "reduce_euclidean_norm"]:
    case(_name, _whole_and_rows(getattr(tf.math, _name)), X, grad=True, tol=1e-4)
case("reduce_sum_float64", lambda x: tf.reduce_sum(x, axis=[0, 2]), f64(2, 3, 4), grad=True)
case("reduce_sum_int64", lambda x: tf.reduce_sum(x, axis=0), i64(3, 4))
case("reduce_mean_int", lambda x: tf.reduce_mean(x, axis=1), i32(3, 4, lo=-9, hi=9))
case("reduce_any_all", lambda b: (tf.reduce_any(b, axis=0), tf.reduce_all(b, axis=1)), bools(3, 4))
case("argmax_argmin", lambda x: (tf.argmax(x, axis=1), tf.argmin(x, axis=0, output_type=tf.int32)), X)
case("unsorted_segment_sum", lambda d, s: tf.math.unsorted_segment_sum(d, s, 4), f32(6, 2), i32(6, hi=4),
     grad=True)
case("unsorted_segment_sum_int64", lambda d, s: tf.math.unsorted_segment_sum(d, s, 3), i64(6, 2), i32(6, hi=3))
case("unsorted_segment_mean", lambda d, s: tf.math.unsorted_segment_mean(d, s, 4), f32(6, 2), i32(6, hi=4),
     grad=True)
case("segment_sum_mean", lambda d, s: (tf.math.segment_sum(d, s), tf.math.segment_mean(d, s)), f32(5, 2),
     np.array([0, 0, 1, 2, 2], np.int32), grad=True)
case("top_k", lambda x: tuple(tf.math.top_k(x, k=2)), X, grad=True)
case("in_top_k", lambda t, p: tf.math.in_top_k(t, p, 2), i32(3, hi=4), X)
case("count_nonzero", lambda x: tf.math.count_nonzero(x, axis=0), i32(3, 4, hi=2))
case("bincount", lambda x: tf.math.bincount(x, minlength=6), i32(10))
case("confusion_matrix", lambda a, b: tf.math.confusion_matrix(a, b, num_classes=5), i32(8), i32(8, seed=1))
case("norm", lambda x: (tf.norm(x), tf.norm(x, ord=1, axis=1)), X, grad=True, tol=1e-4)
case("clip_by_norm", lambda x: tf.clip_by_norm(x, 0.5), X, grad=True, tol=1e-4)
case("clip_by_global_norm", lambda x, y: tuple(tf.clip_by_global_norm([x, y], 0.5)[0]), X, Y, grad=True,
     tol=1e-4)

# -- nn: activations, softmax, normalisation, losses ----------------------------------------------------
for _name in ["relu", "relu6", "elu", "selu", "silu", "swish", "softplus", "softsign"]:
    case(f"nn.{_name}", getattr(tf.nn, _name), X * 7, grad=True)
case("nn.leaky_relu", lambda x: tf.nn.leaky_relu(x, 0.1), X, grad=True)
case("nn.gelu", lambda x: (tf.nn.gelu(x), tf.nn.gelu(x, approximate=True)), X, grad=True)
case("nn.crelu", tf.nn.crelu, X, grad=True)
case("nn.softmax", tf.nn.softmax, X, grad=True)
case("nn.log_softmax", tf.nn.log_softmax, X, grad=True)
case("nn.softmax_float64", lambda x: tf.nn.softmax(x, axis=0), f64(3, 4), grad=True)
case("nn.bias_add", tf.nn.bias_add, f32(2, 3, 4), f32(4, seed=1), grad=True)
case("nn.bias_add_nchw", lambda v, b: tf.nn.bias_add(v, b, data_format="NCHW"), f32(2, 3, 2, 2), f32(3, seed=1),
     grad=True)
case("nn.dropout", lambda x: tf.nn.dropout(x, 0.5, seed=3), X, grad=True)
case("nn.moments", lambda x: tuple(tf.nn.moments(x, axes=[0])), X, grad=True)
case("nn.batch_normalization", lambda x, m, v, o, s: tf.nn.batch_normalization(x, m, v, o, s, 1e-3),
     X, f32(4, seed=1), f32(4, lo=0.5, hi=1.5, seed=2), f32(4, seed=3), f32(4, seed=4), grad=True)
case("nn.fused_batch_norm", lambda x, s, o: tuple(tf.nn.fused_batch_norm(x, s, o)[:3]), IMG, f32(3, seed=1),
     f32(3, seed=2), grad=True, tol=1e-4)
case("nn.l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1), X, grad=True)
case("nn.embedding_lookup", lambda p, i: tf.nn.embedding_lookup(p, i), f32(6, 3), i32(2, 3, hi=6), grad=True)
case("nn.space_to_depth", lambda x: tf.nn.space_to_depth(x, 2), f32(1, 4, 4, 2), grad=True)
case("nn.depth_to_space", lambda x: tf.nn.depth_to_space(x, 2), f32(1, 2, 2, 8), grad=True)
case("nn.l2_loss", tf.nn.l2_loss, X, grad=True)
case("nn.sigmoid_xent", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
     f32(3, 4, lo=0, seed=1), X, grad=True)
case("nn.weighted_xent", lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 2.0),
     f32(3, 4, lo=0, seed=1), X, grad=True)
case("nn.softmax_xent", lambda z, x: tf.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
     f32(3, 4, lo=0, seed=1), X, grad=True)
case("nn.sparse_softmax_xent", lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x),
     i32(3, hi=4), X, grad=True)
case("nn.sparse_softmax_xent_float64",
     lambda z, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=z, logits=x), i64(3, hi=4), f64(3, 4),
     grad=True)
case("nn.log_poisson_loss", lambda t, x: tf.nn.log_poisson_loss(t, x), f32(3, 4, lo=0, hi=3, seed=1), X, grad=True)
case("nn.compute_average_loss", lambda x: tf.nn.compute_average_loss(x, global_batch_size=6), f32(3), grad=True)

# -- nn: convolution and pooling --------------------------------------------------------------------------
case("nn.conv2d_same_stride2", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"), IMG, f32(3, 3, 3, 4, seed=1),
     grad=True, tol=1e-4)
case("nn.conv2d_valid_dilated_float64", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=2), IMG64,
     f64(2, 2, 2, 3, seed=1), grad=True)
case("nn.fused_conv2d_relu", lambda x, w, b: fused_ops.fused_conv2d(
    x, w, b, conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)[1], relu=True), IMG, f32(3, 3, 3, 4, seed=1),
     f32(4, seed=2), grad=True, tol=1e-4)
case("nn.fused_matmul", lambda a, w, b: (fused_ops.fused_matmul(a, w, b, relu=True),
                                         fused_ops.fused_matmul(a, w, b, transpose_b=True)),
     X, f32(4, 4, seed=1), f32(4, seed=2), grad=True)
case("nn.conv1d", lambda x, w: tf.nn.conv1d(x, w, 1, "SAME"), f32(2, 6, 3), f32(3, 3, 2, seed=1), grad=True,
     tol=1e-4)
case("nn.conv2d_transpose", lambda x, w: tf.nn.conv2d_transpose(x, w, [2, 6, 6, 2], 2, "SAME"),
     f32(2, 3, 3, 4), f32(3, 3, 2, 4, seed=1), grad=True, tol=1e-4)
case("nn.depthwise_conv2d", lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"), IMG,
     f32(3, 3, 3, 2, seed=1), grad=True, tol=1e-4)
case("nn.separable_conv2d", lambda x, d, p: tf.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "VALID"), IMG,
     f32(2, 2, 3, 1, seed=1), f32(1, 1, 3, 2, seed=2), grad=True, tol=1e-4)
case("nn.max_pool2d", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), IMG, grad=True)
case("nn.max_pool2d_float64", lambda x: tf.nn.max_pool2d(x, 3, 1, "VALID"), IMG64, grad=True)
case("nn.avg_pool2d", lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), IMG, grad=True)
case("nn.avg_pool2d_float64", lambda x: tf.nn.avg_pool2d(x, 2, 1, "VALID"), IMG64, grad=True)
case("nn.pool1d", lambda x: (tf.nn.max_pool1d(x, 2, 2, "VALID"), tf.nn.avg_pool1d(x, 2, 1, "SAME")),
     f32(2, 5, 3), grad=True)

# -- random (seeded: the same draws on every device) ----------------------------------------------------
case("random.stateless", lambda: (tf.random.stateless_normal([3, 2], seed=[1, 2]),
                                  tf.random.stateless_uniform([4], seed=[3, 4], minval=-1.0, maxval=2.0),
                                  tf.random.stateless_truncated_normal([5], seed=[5, 6]),
                                  tf.random.stateless_uniform([4], seed=[7, 8], minval=0, maxval=9, dtype=tf.int64)))
case("random.seeded", lambda: (tf.random.normal([3], seed=1), tf.random.uniform([3], seed=2),
                               tf.random.truncated_normal([3], seed=3),
                               tf.random.uniform([3], maxval=7, dtype=tf.int32, seed=4)))
case("random.shuffle", lambda x: tf.random.shuffle(x, seed=5), X)
case("random.categorical", lambda x: tf.random.categorical(x, 4, seed=6), X)

# -- image -----------------------------------------------------------------------------------------
for _method in ["bilinear", "nearest", "bicubic", "area"]:
    case(f"image.resize_{_method}", lambda x, _m=_method: tf.image.resize(x, [7, 4], method=_m), IMG,
         grad=_method != "nearest", tol=1e-4)
case("image.flips_rot90", lambda x: (tf.image.flip_left_right(x), tf.image.flip_up_down(x), tf.image.rot90(x, 3)),
     IMG, grad=True)
case("image.convert_image_dtype", lambda x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True), IMG)
case("image.adjust_brightness", lambda x: tf.image.adjust_brightness(x, 0.2), IMG, grad=True)
case("image.per_image_standardization", tf.image.per_image_standardization, IMG, grad=True, tol=1e-4)
case("image.grayscale", lambda x: tf.image.grayscale_to_rgb(tf.image.rgb_to_grayscale(x)), IMG, grad=True)
case("image.crop_pad", lambda x: (tf.image.crop_to_bounding_box(x, 1, 2, 3, 3),
                                  tf.image.pad_to_bounding_box(x, 1, 0, 7, 8),
                                  tf.image.resize_with_crop_or_pad(x, 4, 8),
                                  tf.image.central_crop(x, 0.5)), IMG, grad=True)
case("image.random_flip", lambda x: tf.image.random_flip_left_right(x, seed=7), IMG)

# -- fused optimizer updates (training_ops) -------------------------------------------------------------
V, G, S1, S2 = f32(3, 4), f32(3, 4, seed=1), f32(3, 4, seed=2), f32(3, 4, lo=0.1, seed=3)
case("train.gradient_descent", lambda v, g: training_ops.apply(training_ops.GRADIENT_DESCENT, (v, g), lr=0.1), V, G)
case("train.momentum", lambda v, a, g: training_ops.apply(
    training_ops.KERAS_MOMENTUM, (v, a, g), lr=0.1, momentum=0.9, use_nesterov=True), V, S1, G)
case("train.adam", lambda v, m, s, g: training_ops.apply(
    training_ops.ADAM, (v, m, s, g), alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7), V, S1, S2, G)
case("train.adam_amsgrad", lambda v, m, s, h, g: training_ops.apply(
    training_ops.ADAM_AMSGRAD, (v, m, s, h, g), alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7),
     V, S1, S2, S2, G)
case("train.rmsprop", lambda v, ms, mom, g: training_ops.apply(
    training_ops.RMSPROP, (v, ms, mom, g), lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-7), V, S2, S1, G)
case("train.centered_rmsprop", lambda v, mg, ms, mom, g: training_ops.apply(
    training_ops.CENTERED_RMSPROP, (v, mg, ms, mom, g), lr=0.01, rho=0.9, momentum=0.0, epsilon=1e-7),
     V, S1 * 0.1, S2, S1, G)
case("train.adagrad", lambda v, a, g: training_ops.apply(training_ops.ADAGRAD, (v, a, g), lr=0.1, epsilon=1e-7),
     V, S2, G)
case("train.multi_tensor_adam", lambda v, m, s, g, vb, gb: training_ops.apply(
    training_ops.ADAM, ([v, vb], [m, vb * 0.5], [s, vb * vb], [g, gb]), alpha=0.01, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7), V, S1, S2, G, f32(5, seed=4), f32(5, seed=5))


# -- linalg (kerasB) ------------------------------------------------------------------------------------
SQ = f64(2, 3, 3, seed=8) + 3.0 * np.eye(3)
SQ32 = SQ.astype(np.float32)
case("linalg.inv_det_slogdet", lambda a: (tf.linalg.inv(a), tf.linalg.det(a), tf.linalg.slogdet(a)[1]), SQ,
     grad=True, tol=1e-6)
case("linalg.solve_triangular", lambda a, b: (tf.linalg.solve(a, b), tf.linalg.triangular_solve(a, b, lower=False)),
     SQ32, f32(2, 3, 2, seed=9), grad=True, tol=1e-4)
case("linalg.cholesky_logdet", lambda x: (tf.linalg.cholesky(x @ tf.linalg.adjoint(x) + 3.0),
                                          tf.linalg.logdet(x @ tf.linalg.adjoint(x) + 3.0)), SQ, grad=True)
case("linalg.qr", lambda a: tf.abs(tf.linalg.qr(a).r), f64(4, 3, seed=10), tol=1e-6)
case("linalg.svd_eigh", lambda a: (tf.linalg.svd(a, compute_uv=False), tf.linalg.eigvalsh(a + tf.linalg.adjoint(a))),
     SQ, grad=True, tol=1e-6)
case("linalg.band_diag", lambda x: (tf.linalg.band_part(x, 1, 0), tf.linalg.diag_part(x, k=1),
                                    tf.linalg.set_diag(x, tf.linalg.diag_part(x) * 2.0),
                                    tf.linalg.diag(tf.linalg.diag_part(x), k=-1), tf.linalg.trace(x)), SQ32, grad=True)
case("linalg.lstsq_pinv_matvec", lambda a, b: (tf.linalg.lstsq(a, b), tf.linalg.pinv(a),
                                               tf.linalg.matvec(a, b[:3, 0])), f64(5, 3, seed=11), f64(5, 2, seed=12),
     grad=True, tol=1e-6)
IMG01 = f32(2, 6, 7, 3, lo=0.0, hi=1.0, seed=13)
case("image.hsv_yiq_yuv", lambda x: (tf.image.rgb_to_hsv(x), tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)),
                                     tf.image.rgb_to_yiq(x), tf.image.yuv_to_rgb(x)), IMG01, grad=True, tol=1e-4)
case("image.adjust_gamma_hue_saturation", lambda x: (
    tf.image.adjust_gamma(x, 0.7), tf.image.adjust_hue(x, 0.1), tf.image.adjust_saturation(x, 0.6)), IMG01,
     grad=True, tol=1e-4)
case("image.adjust_contrast", lambda x: tf.image.adjust_contrast(x, 1.5), IMG01, tol=1e-5)  # no gradient, as TF
case("image.psnr_ssim_tv_sobel", lambda a, b: (tf.image.psnr(a, b, 1.0), tf.image.ssim(a, b, 1.0, filter_size=3),
                                               tf.image.total_variation(a), tf.image.sobel_edges(a),
                                               tf.image.image_gradients(a)), IMG01, IMG01 * 0.9, grad=True,
     tol=1e-4)
case("image.crop_and_resize_with_pad", lambda x: (
    tf.image.crop_and_resize(x, [[0.1, 0.2, 0.7, 0.9], [0.0, 0.0, 1.0, 1.0]], [1, 0], [3, 4]),
    tf.image.resize_with_pad(x, 9, 9), tf.image.stateless_random_crop(x, [1, 3, 3, 3], seed=(1, 2))), IMG01,
     grad=True, tol=1e-4)
case("image.non_max_suppression", lambda b, s: tf.image.non_max_suppression_with_scores(b, s, 3, 0.5),
     np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11], [0, 100, 1, 101]], np.float32),
     np.array([0.9, 0.75, 0.95, 0.3], np.float32))

# -- top-level ops (kerasB: tfcore.ops.misc_ops / math_extra_ops / bitwise_ops) ------------------------------
case("searchsorted_histogram", lambda s, v: (tf.searchsorted(s, v), tf.searchsorted(s, v, side="right"),
                                             tf.histogram_fixed_width(v, [0.0, 1.0], nbins=4),
                                             tf.histogram_fixed_width_bins(v, [0.0, 1.0], nbins=4)),
     np.sort(f32(2, 6, lo=0.0, seed=14), axis=1), f32(2, 3, lo=-0.2, hi=1.2, seed=15))
case("reverse_sequence", lambda x: tf.reverse_sequence(x, [2, 4, 1], seq_axis=1, batch_axis=0), f32(3, 4, 2, seed=16),
     grad=True)
case("tensor_scatter_max_min_sub", lambda t, u: (tf.tensor_scatter_nd_max(t, [[0], [2], [0]], u),
                                                 tf.tensor_scatter_nd_min(t, [[1], [2], [1]], u),
                                                 tf.tensor_scatter_nd_sub(t, [[1], [2], [1]], u)),
     f32(3, 2, seed=17), f32(3, 2, seed=18), grad=True)
case("bitwise", lambda a, b: (tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b), tf.bitwise.bitwise_xor(a, b),
                              tf.bitwise.invert(a), tf.bitwise.left_shift(a, 2), tf.bitwise.right_shift(b, 1)),
     i32(3, 4, hi=64, seed=19), i32(3, 4, hi=64, seed=20))
case("dynamic_partition_stitch", lambda x: tf.dynamic_stitch([[0, 2], [1, 3]], tf.dynamic_partition(
    x, [0, 1, 0, 1], 2)), f32(4, 3, seed=21), grad=True)
case("space_to_batch_round_trip", lambda x: tf.batch_to_space(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 1]]),
                                                              [2, 2], [[0, 0], [1, 1]]), f32(2, 4, 2, 3, seed=22),
     grad=True)
case("math_extras", lambda x, s: (tf.math.asinh(x), tf.math.atanh(x * 0.5), tf.truncatemod(x * 5.0, 2.0),
                                  tf.math.xlogy(x, tf.abs(x) + 0.5), tf.math.cumulative_logsumexp(x, axis=1),
                                  tf.math.unsorted_segment_max(x, [1, 0, 1], 2),
                                  tf.math.unsorted_segment_sqrt_n(x, [1, 0, 1], 2)),
     f32(3, 4, seed=23), f32(3, seed=24), grad=True, tol=1e-4)

# -- tf.nn extras (kerasB: tfcore.ops.nn_extra_ops) -------------------------------------------------------------
VOL = f32(1, 3, 4, 5, 2, seed=25)
case("nn.conv3d_and_transpose", lambda x, w: (tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
                                              tf.nn.conv3d_transpose(tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), w,
                                                                     [1, 3, 4, 5, 2], [1, 2, 1], "SAME")),
     VOL, f32(2, 2, 2, 2, 3, seed=26), grad=True, tol=1e-4)
case("nn.pool3d_lrn", lambda x: (tf.nn.max_pool3d(x, 2, 1, "SAME"), tf.nn.avg_pool3d(x, 2, 2, "SAME"),
                                 tf.nn.lrn(x[0], 1, 1.0, 0.5, 0.75)), VOL, grad=True, tol=1e-4)
case("nn.conv1d_transpose_argmax_dilation", lambda x, w, img: (
    tf.nn.conv1d_transpose(x, w, [2, 10, 4], 2, "SAME"), tf.nn.max_pool_with_argmax(img, 2, 2, "SAME"),
    tf.nn.dilation2d(img, img[0, :2, :2, :] * 0.1, [1, 1, 1, 1], "SAME", "NHWC", [1, 1, 1, 1])),
     f32(2, 5, 3, seed=27), f32(3, 4, 3, seed=28), f32(2, 5, 5, 3, seed=29), grad=True, tol=1e-4)
case("nn.ctc_loss", lambda logits: tf.nn.ctc_loss([[1, 2, 0], [2, 2, 1]], logits, [2, 3], [6, 5]),
     f32(6, 2, 4, seed=30), grad=True, tol=1e-4)
case("ragged.to_tensor_map_flat_values", lambda v: (
    tf.ragged.map_flat_values(tf.square, tf.RaggedTensor.from_row_lengths(v, [1, 0, 3])).to_tensor(-1.0),
    tf.RaggedTensor.from_tensor(tf.reshape(v, [2, 2]), lengths=[1, 2]).flat_values), f32(4, seed=31), grad=True)
case("random.stateless_gamma_poisson_binomial", lambda: (
    tf.random.stateless_gamma([3, 2], seed=[1, 2], alpha=[1.0, 2.0]), tf.random.stateless_poisson([4], [3, 4], 2.0),
    tf.random.stateless_binomial([4], [5, 6], 10, 0.5), tf.random.stateless_categorical([[0.0, 1.0]], 3, [7, 8])))
case("bitcast", lambda x: (tf.bitcast(x, tf.int32), tf.bitcast(x, tf.uint8), tf.bitcast(tf.bitcast(x, tf.uint8),
                                                                                         tf.float32)), X)
case("image.extract_patches", lambda x: tf.image.extract_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 1, 1], "SAME"),
     IMG01, grad=True)
case("math.special", lambda x: (tf.math.lgamma(x * 3.0), tf.math.digamma(x * 3.0), tf.math.erfinv(x * 0.9),
                                tf.math.ndtri(x * 0.4 + 0.5)), f64(3, 4, seed=32), grad=True, tol=1e-8)

# ==================================================================================================
# running a case
# ==================================================================================================

def _flat(out):
    if isinstance(out, tuple | list):
        return [t for o in out for t in _flat(o)]
    return [out]


def _is_float(t):
    return t.dtype.is_floating


def run_case(c, device):
    """Run case ``c`` on ``device``: ``(outputs, devices, gradients)``; devices of outputs and gradients."""
    tf.random.set_seed(1234)
    with tf.device(device):
        ts = [tf.constant(a) for a in c.arrays]
        if not c.grad:
            outs = _flat(c.fn(*ts))
            return [o.numpy() for o in outs], [o.device for o in outs], []
        srcs = [t for t in ts if _is_float(t)]
        with tf.GradientTape() as tape:
            for t in srcs:
                tape.watch(t)
            outs = _flat(c.fn(*ts))
            terms = []
            for k, o in enumerate(outs):
                if _is_float(o) and o.shape.num_elements():
                    w = tf.constant(np.linspace(0.5, 1.5, o.shape.num_elements()).reshape(o.shape.as_list()),
                                    dtype=o.dtype)
                    terms.append(tf.reduce_sum(tf.cast(o * w, tf.float32)) * float(k + 1))
            loss = tf.add_n(terms)
        grads = tape.gradient(loss, srcs)
    return ([o.numpy() for o in outs], [o.device for o in outs] + [g.device for g in grads if g is not None],
            [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads])  # IndexedSlices: dense


def assert_same(c, got, want, what):
    """Equal within the case's tolerance (exact for integers, bools and strings; NaNs must match)."""
    assert len(got) == len(want), f"{c.id}: {len(got)} {what} vs {len(want)}"
    for k, (a, b) in enumerate(zip(got, want)):
        if a is None or b is None:
            assert a is None and b is None, f"{c.id}: {what}[{k}] is None on one device only"
            continue
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, \
            f"{c.id}: {what}[{k}] {a.dtype}{a.shape} vs CPU {b.dtype}{b.shape}"
        if a.dtype.kind in "fc":
            tol = max(c.tol, 1e-2) if a.dtype == np.float16 else c.tol
            np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol,
                                       equal_nan=True, err_msg=f"{c.id}: {what}[{k}]")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{c.id}: {what}[{k}]")
