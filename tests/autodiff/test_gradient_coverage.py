"""Every registered op with a gradient passes a float64 finite-difference check, twice.

``CASES`` is THE list of gradient-check coverage: one entry per differentiable op
(``REGISTRY[name].grad is not None``), keyed by TF's op name. Each case is a function of
float64 tensors plus its NumPy inputs. Three tests use it:

- ``test_every_differentiable_op_has_a_case`` enumerates the registry: registering a new
  op with a gradient and no case here fails the suite.
- ``test_first_order`` runs ``check_gradients`` on the case AND checks, with a spy on the
  op's gradient function, that the named op's gradient really ran (a case that stops
  exercising its op fails). Binary element-wise ops use broadcasting shapes, so the
  gradient's reduction to each input's shape is checked too.
- ``test_second_order`` differentiates the case's gradient (nested tapes) and compares it
  with finite differences of that gradient: each gradient function must itself be
  differentiable, made of registered ops.

Ops that are themselves gradients (``ReluGrad``, ``Conv2DBackpropFilter``, ...) are reached
with :func:`vjp`, which turns ``f`` into ``(x..., dy) -> d<f(x), dy>/dx``.
"""

import numpy as np
import pytest

import tfcore as tf
from tests.conftest import check_gradients
from tfcore.ops import conv_ops, fused_ops
from tfcore.ops.registry import REGISTRY, execute, get_op

_rng = np.random.default_rng(1234)


def r(*shape, lo=None, hi=None):
    """Random float64 array; with lo/hi, uniform in [lo, hi) (keeps inputs in an op's domain)."""
    if lo is not None:
        return _rng.uniform(lo, hi, size=shape)
    return _rng.standard_normal(shape)


def away(*shape, gap=0.2):
    """Random values at least ``gap`` from 0 (relu/abs/sign kinks) and from each other."""
    n = int(np.prod(shape))
    vals = (np.arange(n) - n / 2 + 0.5) * gap * 1.7
    return _rng.permutation(vals).reshape(shape)


def vjp(f, wrt=0, fixed=None):
    """``g(*xs, dy)``: the gradient of ``<f(*xs), dy>`` with respect to ``xs[wrt]``.

    ``fixed`` maps argument positions of ``f`` to constant NumPy values left out of
    ``xs`` (inputs the gradient does not depend on, e.g. the image of AvgPoolGrad).
    """
    fixed = fixed or {}

    def g(*args):
        free, dy = list(args[:-1]), args[-1]
        xs = [tf.constant(fixed[i]) if i in fixed else free.pop(0) for i in range(len(fixed) + len(free))]
        with tf.GradientTape() as tape:
            tape.watch(xs[wrt])
            y = f(*xs)
        return tape.gradient(y, xs[wrt], output_gradients=dy)

    return g


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
CASES = {
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
    "AvgPool": (_avgpool, [r(1, 3, 3, 2)]),
    "AvgPoolGrad": (vjp(_avgpool, fixed={0: r(1, 3, 3, 2)}), [r(1, 2, 2, 2)]),
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
CASES.update({
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
CASES.update({
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


def differentiable_ops():
    # an op whose "gradient" raises TF's LookupError (no gradient defined, e.g. AdjustContrastv2) is not one
    return sorted(name for name, op in REGISTRY.items()
                  if op.grad is not None and not getattr(op.grad, "raises_lookup_error", False))


def test_every_differentiable_op_has_a_case():
    missing = [name for name in differentiable_ops() if name not in CASES]
    assert not missing, f"differentiable ops without a gradient check in CASES: {missing}"
    stale = [name for name in CASES if name not in REGISTRY or REGISTRY[name].grad is None]
    assert not stale, f"CASES names ops that are not registered with a gradient: {stale}"


class _Spy:
    """Wraps one op's gradient function and counts its calls."""

    def __init__(self, op):
        self.calls = 0
        self._grad = op.grad

    def __call__(self, call, *dys):
        self.calls += 1
        return self._grad(call, *dys)


def _spy(monkeypatch, name):
    op = REGISTRY[name]
    spy = _Spy(op)
    monkeypatch.setattr(op, "grad", spy)
    return spy


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order(name, monkeypatch):
    fn, inputs, *opts = CASES[name]
    spy = _spy(monkeypatch, name)
    check_gradients(fn, *inputs, **(opts[0] if opts else {}))
    assert spy.calls > 0, f"the case for {name} never ran {name}'s gradient"


def _gradient_of(fn):
    """``(*xs) -> concat(flat d<fn(xs)**2, w>/dx for each x)``, built with a tape.

    Squaring makes the upstream gradient depend on ``xs``, so even a linear op's gradient
    function is differentiated (through its ``dy`` input) by the outer tape.
    """

    def g(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
            w = tf.constant(np.random.default_rng(7).standard_normal(y.shape.as_list()))
            s = tf.reduce_sum(y * y * w)
        grads = tape.gradient(s, list(xs), unconnected_gradients="zero")
        return tf.concat([tf.reshape(gr, [-1]) for gr in grads], axis=0)

    return g


@pytest.mark.parametrize("name", sorted(CASES))
def test_second_order(name, monkeypatch):
    fn, inputs, *opts = CASES[name]
    spy = _spy(monkeypatch, name)
    check_gradients(_gradient_of(fn), *inputs, **(opts[0] if opts else {}))
    assert spy.calls > 0


def test_softmax_xent_label_gradient():
    """d loss / d labels = -log_softmax(logits) (TF2: gradients flow into labels)."""
    logits = r(2, 3)
    labels = tf.constant(_LABELS)
    with tf.GradientTape() as tape:
        tape.watch(labels)
        loss = tf.nn.softmax_cross_entropy_with_logits(labels, tf.constant(logits))
    g = tape.gradient(loss, labels).numpy()
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(g, -logp, rtol=1e-12)


# -- complex inputs: TF's convention (the gradient of a real loss is dL/dRe z + i dL/dIm z, so products
# use the conjugates of the other factors) checked by finite differences on the real and imaginary parts.
def _c2(a, b):
    """A well-conditioned complex 2x2 batch from real parts ``a`` and imaginary parts ``b``."""
    return tf.complex(a, b) + tf.constant(np.eye(2) * 3.0, tf.complex128)


COMPLEX_CASES = {
    "Mul": (lambda a, b, c, d: _ri(_cplx(a, b) * _cplx(c, d)), [r(2, 3), r(2, 3), r(3), r(3)]),
    "RealDiv": (lambda a, b, c, d: _ri(_cplx(a, b) / _cplx(c, d)),
                [r(2, 3), r(2, 3), r(2, 3, lo=0.5, hi=2.0), r(2, 3, lo=0.5, hi=2.0)]),
    "Reciprocal": (lambda a, b: _ri(tf.math.reciprocal(_cplx(a, b))), [r(2, 3, lo=0.5, hi=2.0), r(2, 3)]),
    "BatchMatMulV2": (lambda a, b, c, d: _ri(tf.matmul(_cplx(a, b), _cplx(c, d))),
                      [r(2, 3, 4), r(2, 3, 4), r(4, 2), r(4, 2)]),
    "BatchMatMulV2/adjoint": (lambda a, b, c, d: _ri(tf.matmul(_cplx(a, b), _cplx(c, d), adjoint_a=True)),
                              [r(4, 3), r(4, 3), r(4, 2), r(4, 2)]),
    "MatrixSolve": (lambda a, b, c, d: _ri(tf.linalg.solve(_c2(a, b), _cplx(c, d))),
                    [r(2, 2), r(2, 2), r(2, 3), r(2, 3)]),
    "MatrixSolve/adjoint": (lambda a, b, c, d: _ri(tf.linalg.solve(_c2(a, b), _cplx(c, d), adjoint=True)),
                            [r(2, 2), r(2, 2), r(2, 3), r(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(COMPLEX_CASES))
def test_complex_gradients_use_conjugates_as_tf(name, monkeypatch):
    fn, inputs = COMPLEX_CASES[name]
    spy = _spy(monkeypatch, name.split("/")[0])
    check_gradients(fn, *inputs)
    assert spy.calls > 0
