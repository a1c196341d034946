"""``_FusedMatMul`` and ``_FusedConv2D``: a product, its bias and an optional ReLU as one op.

TF's grappler rewrites ``MatMul``/``Conv2D`` + ``BiasAdd`` (+ ``Relu``) into these ops on the CPU;
Keras ``Dense`` and ``Conv2D`` layers call them here directly (eagerly), so a layer runs one op
instead of three: one ``execute``, one tape record, one output buffer (the bias and the ReLU are
applied in place on the product's fresh result). Values are exactly those of the separate ops.

Op contracts (TF's names and attributes):
  ``_FusedMatMul(a [M, K], b [K, N], bias [N])``, attrs ``transpose_a``, ``transpose_b``,
  ``fused_ops`` = ``("BiasAdd",)`` or ``("BiasAdd", "Relu")``.
  ``_FusedConv2D(input NHWC, filter [kh, kw, in, out], bias [out])``, attrs of ``Conv2D`` plus
  ``fused_ops``.
Gradients are written with the unfused ops (``ReluGrad``, ``BiasAddGrad``, ``MatMul``, the conv
backprops), so higher-order gradients work as for the separate ops.

On the ``cuda`` kind, ``cuda_kernels/fused.py`` registers candidates that run each op as ONE kernel: the
matmul / conv forward kernel with the bias and ReLU applied to its float32 accumulators before the single
store (kernels/common.cuh's ``tfc_epilogue``), instead of the product kernel followed by the two in-place
passes of :func:`_finish`. The generic kernels below run everything else (float64, grids past the limits).
"""

from ..framework.errors import InvalidArgumentError
from . import _cpu_fast
from ._common import describe, host_float32
from .conv_ops import (
    CONV2D,
    CONV2D_BACKPROP_FILTER,
    CONV2D_BACKPROP_INPUT,
    _conv2d_rule,
    _conv_attrs,
    direct_conv2d,
    direct_conv2d_applies,
)
from .math_ops import MATMUL, _matmul_grad_needed, _matmul_rule
from .nn_ops import BIAS_ADD_GRAD, RELU_GRAD
from .registry import Call, Op, Residuals, execute

__all__ = ["fused_matmul", "fused_conv2d"]

_FUSIONS = (("BiasAdd",), ("BiasAdd", "Relu"))
_NHWC = {"data_format": "NHWC"}


def _bias_rule(op, product, bias, fused_ops):
    if fused_ops not in _FUSIONS:
        raise InvalidArgumentError(None, None, f"{op.name}: fused_ops must be one of {list(_FUSIONS)}, got "
                                   f"{fused_ops}")
    if bias._dtype is not product._dtype or bias._array.ndim != 1:
        raise InvalidArgumentError(None, None, f"{op.name}: bias must be a 1-D tensor of the inputs' dtype, got "
                                   f"{describe([product, bias])}")


def _finish(b, out, bias, fused_ops):
    """Bias (and ReLU) applied in place on ``out``, the product's fresh result array."""
    _cpu_fast.add_bias(out, bias)
    if len(fused_ops) == 2:
        zeros = _cpu_fast.shared_zeros_like(out)
        b.xp.maximum(out, zeros if zeros is not None else out.dtype.type(0), out=out)
    return out


def _activation_grad(call, g):
    """The gradient at the biased product: ``ReluGrad(g, y)`` when a ReLU is fused (y = the output)."""
    if len(call.attrs["fused_ops"]) == 2:
        return execute(RELU_GRAD, (g, call.outputs[0]))
    return g


# -- _FusedMatMul ---------------------------------------------------------------------------------

def _fused_matmul_rule(op, ts, attrs):
    a, b, bias = ts
    _matmul_rule(op, (a, b), attrs)
    _bias_rule(op, a, bias, attrs["fused_ops"])
    sa, sb = a._array.shape, b._array.shape
    n = sb[-2] if attrs["transpose_b"] else sb[-1]
    if len(sa) != 2 or len(sb) != 2 or bias._array.shape[0] != n:
        raise InvalidArgumentError(None, None, f"{op.name}: expects matrices and a bias of the product's "
                                   f"{n} columns, got {describe(ts)}")
    return a._dtype


def _fused_matmul_grad(call, g):
    a, b, bias = call.inputs
    g = _activation_grad(call, g)
    mm = Call(MATMUL, (a, b), call.outputs, {"transpose_a": call.attrs["transpose_a"],
                                              "transpose_b": call.attrs["transpose_b"]}, call._tracked)
    ga, gb = _matmul_grad_needed(mm, g)
    return [ga, gb, execute(BIAS_ADD_GRAD, (g,), _NHWC) if call.needs_grad(2) else None]


FUSED_MATMUL = Op("_FusedMatMul", rule=_fused_matmul_rule, grad=_fused_matmul_grad, output_arg="product")


@FUSED_MATMUL.kernel()
@host_float32  # float16 on the CPU: product, bias and ReLU in float32, rounded once
def _fused_matmul(b, x, w, bias, *, transpose_a, transpose_b, fused_ops):
    out = MATMUL.run_kernel(b, (x, w), {"transpose_a": transpose_a, "transpose_b": transpose_b})
    return _finish(b, out, bias, fused_ops)


def fused_matmul(a, b, bias, relu=False, transpose_a=False, transpose_b=False):
    """``relu?(matmul(a, b) + bias)`` as one ``_FusedMatMul`` (tensors or variables of one float dtype)."""
    return execute(FUSED_MATMUL, (a, b, bias), {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
                                                "fused_ops": _FUSIONS[1] if relu else _FUSIONS[0]})


# -- _FusedConv2D ---------------------------------------------------------------------------------

def _fused_conv2d_rule(op, ts, attrs):
    x, w, bias = ts
    _conv2d_rule(op, (x, w), attrs)
    _bias_rule(op, x, bias, attrs["fused_ops"])
    if bias._array.shape[0] != w._array.shape[3]:
        raise InvalidArgumentError(None, None, f"{op.name}: bias must have one value per filter, got "
                                   f"{describe(ts)}")
    return x._dtype


def _fused_conv2d_grad(call, g):
    x, w, bias = call.inputs
    g = _activation_grad(call, g)
    a = _conv_attrs(call.attrs)
    return [execute(CONV2D_BACKPROP_INPUT, (w, g), {**a, "input_sizes": tuple(x._array.shape)})
            if call.needs_grad(0) else None,
            execute(CONV2D_BACKPROP_FILTER, (x, g), {**a, "filter_sizes": tuple(w._array.shape),
                                                     **(call.residuals or {})})  # Conv2D's im2col columns
            if call.needs_grad(1) else None,
            execute(BIAS_ADD_GRAD, (g,), _NHWC) if call.needs_grad(2) else None]


FUSED_CONV2D = Op("_FusedConv2D", rule=_fused_conv2d_rule, grad=_fused_conv2d_grad, saves_residuals=True)


@FUSED_CONV2D.kernel()
@host_float32
def _fused_conv2d(b, x, w, bias, *, fused_ops, **attrs):
    out = CONV2D.run_kernel(b, (x, w), attrs)
    if type(out) is Residuals:  # Conv2D's saved columns become this op's (its gradient runs the filter backprop)
        return Residuals(_finish(b, out.output, bias, fused_ops), **out.saved)
    return _finish(b, out, bias, fused_ops)


def _direct_applies(x, w, bias, *, strides, dilations, **_):
    return direct_conv2d_applies(x, w, bias, strides, dilations)


@FUSED_CONV2D.kernel("cpu", supports=_direct_applies, priority=1, name="fused_conv2d_direct")
def _fused_conv2d_direct(b, x, w, bias, *, fused_ops, **attrs):
    """The native direct convolution with the bias added to its finished sums and the ReLU applied in the
    kernel (the values of Conv2D + BiasAdd + Relu when Conv2D runs the same kernel, as it does for these
    shapes)."""
    return direct_conv2d(x, w, bias, relu=len(fused_ops) == 2, **attrs)


def fused_conv2d(x, filters, bias, attrs, relu=False):
    """``relu?(conv2d(x, filters) + bias)`` as one ``_FusedConv2D``; ``attrs`` are Conv2D's (NHWC)."""
    return execute(FUSED_CONV2D, (x, filters, bias), {**attrs, "fused_ops": _FUSIONS[1] if relu else _FUSIONS[0]})
