"""CUDA launch of kernels/bias_add.cu (bias + optional activation epilogue); registered for BiasAdd
and, through the reduce kernels, BiasAddGrad."""

import math

from ...backend.kernel_library import kernel_define
from .. import nn_ops as _n
from ._util import aligned, contiguous, grid_1d, i32, i64, register_cuda, suffix
from .reduce import reduce_axes

THREADS = kernel_define("bias_add", "BA_THREADS")
ACTIVATIONS = {None: 0, "linear": 0, "relu": 1, "gelu": 2, "sigmoid": 3, "tanh": 4, "gelu_tanh": 5}


def bias_add_act(b, x, bias, activation=None, data_format="NHWC"):
    """act(x + bias), bias along the channel axis (last, or 1 for NC... formats)."""
    xp = b.xp
    x, bias = contiguous(xp, x), contiguous(xp, bias)
    y = xp.empty(x.shape, dtype=x.dtype)
    if y.size == 0:
        return y
    if data_format.startswith("NC"):
        c, inner = x.shape[1], math.prod(x.shape[2:])
    else:
        c, inner = x.shape[-1], 1
    sfx = suffix(x.dtype)
    vec = sfx == "f32" and inner == 1 and c % 4 == 0 and aligned(x) and aligned(y)
    b.kernels.launch(f"bias_add_{sfx}", grid_1d(y.size // (4 if vec else 1), THREADS), (THREADS, 1, 1),
                     (x, bias, y, i64(y.size), i32(c), i64(inner), i32(ACTIVATIONS[activation]), i32(vec)))
    return y


def _bias_add_grad(b, g, *, data_format):
    ch = 1 if data_format.startswith("NC") else g.ndim - 1
    return reduce_axes(b, g, tuple(i for i in range(g.ndim) if i != ch), False, "sum")


register_cuda(_n.BIAS_ADD, lambda b, v, bias, *, data_format: bias_add_act(b, v, bias, None, data_format))
register_cuda(_n.BIAS_ADD_GRAD, _bias_add_grad)
