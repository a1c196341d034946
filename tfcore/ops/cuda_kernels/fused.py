"""CUDA candidates of ``_FusedMatMul`` and ``_FusedConv2D``: the matmul / conv forward kernels with their
fused epilogue (common.cuh's ``tfc_epilogue``: ``y = act(acc + bias[col])`` applied in registers before
the single store), so a Dense or Conv2D layer's product, bias and ReLU are ONE kernel launch and one
write of the output, where the generic code (fused_ops.py) runs the product kernel and then the bias
and the ReLU as two passes over the output (``out += bias``, ``maximum(out, 0, out=out)``: a read and a
write of the output each).

Eligibility is the plain ops' (matmul.py, conv.py): float32 as TF32 on tensor cores when
:func:`._util.tf32_available`, float16 on tensor cores on sm_80+, the SIMT kernels (strict float32,
float16 on CUDA cores) otherwise, each within its grid limits; anything else (float64, grids too large)
falls back to the generic implementation. The values are the separate ops' up to float32 rounding of the
product (the bias is added to the float32 accumulator and the result rounded once, as the CPU op does).
Gradients are unchanged: they read the op's output (``ReluGrad(g, y)``) and inputs only.
"""

import numpy as np

from ..fused_ops import FUSED_CONV2D, FUSED_MATMUL
from . import conv as _conv
from . import matmul as _mm
from ._util import ACT_NONE, ACT_RELU, PRIORITY, register_cuda, tensor_cores_available, tf32_available


def fused_act(fused_ops):
    """The epilogue activation of a ``fused_ops`` attribute (``("BiasAdd",)`` or ``("BiasAdd", "Relu")``)."""
    return ACT_RELU if "Relu" in fused_ops else ACT_NONE


# -- _FusedMatMul ---------------------------------------------------------------------------------

def _matmul_fits(x, w, bias, *, transpose_a, transpose_b, **_):
    return _mm._grid_fits(x, w, transpose_a=transpose_a, transpose_b=transpose_b)


def matmul_tf32(x, w, bias, **attrs):
    """float32 on sm_80+ with TF32 allowed (matmul.py's ``tf32`` rule)."""
    return tf32_available(x) and _matmul_fits(x, w, bias, **attrs)


def matmul_tensor_cores_f16(x, w, bias, **attrs):
    """float16 on sm_80+ (matmul.py's ``tensor_cores_f16`` rule)."""
    return tensor_cores_available(x) and _matmul_fits(x, w, bias, **attrs)


def _matmul_launcher(entry):
    def launch(b, x, w, bias, *, transpose_a, transpose_b, fused_ops):
        name = entry or ("matmul_f32" if x.dtype == np.float32 else "matmul_f16_simt")
        return _mm.launch_matmul(b, x, w, transpose_a, transpose_b, kernel=name, bias=bias, act=fused_act(fused_ops))

    launch.__name__ = f"fused_{entry or 'matmul_simt'}"
    return launch


FUSED_MATMUL.kernel("cuda", dtypes=(np.float32,), supports=matmul_tf32, priority=PRIORITY + 1,
                    name="cuda_kernels.fused.matmul_f32_tf32")(_matmul_launcher("matmul_f32_tf32"))
FUSED_MATMUL.kernel("cuda", dtypes=(np.float16,), supports=matmul_tensor_cores_f16, priority=PRIORITY + 1,
                    name="cuda_kernels.fused.matmul_f16")(_matmul_launcher("matmul_f16"))
register_cuda(FUSED_MATMUL, _matmul_launcher(None), _matmul_fits, name="matmul_f32|matmul_f16_simt")


# -- _FusedConv2D ---------------------------------------------------------------------------------

def _conv_fits(x, w, bias, **attrs):
    return _conv._forward_fits(x, w, **attrs)


def conv_tf32(x, w, bias, **attrs):
    """float32 on sm_80+ with TF32 allowed (conv.py's ``conv2d_fwd_tc_tf32`` rule)."""
    return tf32_available(x) and _conv_fits(x, w, bias, **attrs)


def conv_tensor_cores_f16(x, w, bias, **attrs):
    """float16 on sm_80+ (conv.py's ``conv2d_fwd_tc_f16`` rule)."""
    return tensor_cores_available(x) and _conv_fits(x, w, bias, **attrs)


def _conv_launcher(tensor_cores):
    def launch(b, x, w, bias, *, fused_ops, **attrs):
        return _conv.conv2d_forward(b, x, w, *_conv._geometry_args(attrs), tensor_cores=tensor_cores, bias=bias,
                                    act=fused_act(fused_ops))

    launch.__name__ = "fused_conv2d_fwd_tc" if tensor_cores else "fused_conv2d_fwd"
    return launch


FUSED_CONV2D.kernel("cuda", dtypes=(np.float32,), supports=conv_tf32, priority=PRIORITY + 1,
                    name="cuda_kernels.fused.conv2d_fwd_tc_tf32")(_conv_launcher(True))
FUSED_CONV2D.kernel("cuda", dtypes=(np.float16,), supports=conv_tensor_cores_f16, priority=PRIORITY + 1,
                    name="cuda_kernels.fused.conv2d_fwd_tc_f16")(_conv_launcher(True))
register_cuda(FUSED_CONV2D, _conv_launcher(False), _conv_fits, name="conv2d_fwd")
