"""CUDA launch of kernels/matmul.cu and its registration for BatchMatMulV2.

Geometry: one block of ``THREADS`` per ``BM x BN`` tile of C, grid.z over the batch
(grid-stride past 65535). Operands are read in place when C-contiguous or transposed views of a
C-contiguous array (the kernel's transpose flags read those); only other layouts are copied.
Batch broadcasting: an operand whose batch dims are all 1 gets batch stride 0; one whose batch
dims already equal the broadcast batch gets its own stride;
anything else is materialised with ``broadcast_to`` first.

Kernel choice is the op registry's (``tfcore info --ops MatMul`` lists the candidates):
- ``tf32``: float32 on tensor cores as TF32 (``matmul_f32_tf32``) when
  ``tf.config.experimental.tensor_float_32_execution_enabled()`` (TF's default: on) and the device is
  sm_80+ (emulated GPUs report 8.0);
- ``tensor_cores_f16``: float16 on tensor cores (``matmul_f16``, multistage cp.async pipeline), sm_80+;
- ``simt``: everything else: strict float32 (``matmul_f32``), float16 on CUDA cores (``matmul_f16_simt``).
Every entry also takes the fused epilogue's ``bias`` (or null) and ``act``: ``_FusedMatMul``'s candidates
(fused.py) run the same three choices with C = act(product + bias) written once.
The CPU backend ignores TF32 (NumPy float32), as TF on CPU does. ``NVIDIA_TF32_OVERRIDE=0`` in the
environment disables TF32 whatever the setting says, as NVIDIA's libraries do.
"""

import numpy as np

from ...backend.kernel_library import kernel_define
from ..math_ops import MATMUL
from ._util import (
    ACT_NONE,
    MAX_GRID_Y,
    PRIORITY,
    aligned,
    ceil_div,
    contiguous,
    empty_product,
    epilogue_act,
    epilogue_bias,
    grid_cap,
    i32,
    i64,
    register_cuda,
    suffix,
    tensor_cores_available,
    tf32_available,
)

# Tile and block sizes, read from kernels/matmul.cu's #defines (the one place they are written).
BM = kernel_define("matmul", "MM_BM")
BN = kernel_define("matmul", "MM_BN")
THREADS = kernel_define("matmul", "MM_THREADS")
TC_SMEM_BYTES = kernel_define("matmul", "TC_SMEM_BYTES")  # multistage tensor-core kernels (> 48 KiB: opt-in)
# Entries that take TC_SMEM_BYTES of dynamic shared memory (sm_80+ and the emulator only).
TENSOR_CORE_KERNELS = ("matmul_f16", "matmul_f32_tf32")


def _batch_operand(xp, x, batch_shape):
    """(array, batch stride in elements) for an operand broadcast to ``batch_shape``."""
    mat = x.shape[-2] * x.shape[-1]
    own = x.shape[:-2]
    if int(np.prod(own, dtype=np.int64)) == 1:
        return contiguous(xp, x), 0
    padded = (1,) * (len(batch_shape) - len(own)) + tuple(own)
    if padded == tuple(batch_shape):
        return contiguous(xp, x), mat
    return xp.ascontiguousarray(xp.broadcast_to(x, tuple(batch_shape) + x.shape[-2:])), mat


def _stored(x, transposed):
    """(array the kernel reads, its transpose flag) for operand ``x`` read as ``x.T`` when ``transposed``:
    a transposed view of a C-contiguous array (``y.T``, ``swapaxes(-1, -2)``: what gradients and
    ``tf.transpose`` hand over) is read in place through the flipped flag instead of being copied."""
    if x.ndim >= 2 and not x.flags.c_contiguous:
        t = x.swapaxes(-1, -2)
        if t.flags.c_contiguous:
            return t, not transposed
    return x, transposed


def launch_matmul(b, a, w, transpose_a=False, transpose_b=False, kernel=None, bias=None, act=ACT_NONE):
    """C = op(a) @ op(w) with broadcasting batch dims, through our kernel.

    ``kernel`` names the entry (the registry's candidates and the tests pass one); by default float32
    runs the strict ``matmul_f32`` and float16 ``matmul_f16`` (tensor cores; ``matmul_f16_simt``
    before sm_80). ``bias`` (N elements of a's dtype) and ``act`` (``ACT_NONE`` / ``ACT_RELU``): the
    kernel's fused epilogue C = act(op(a) @ op(w) + bias), one launch and one write of C.
    """
    xp = b.xp
    sfx = suffix(a.dtype)
    m = a.shape[-1] if transpose_a else a.shape[-2]
    k = a.shape[-2] if transpose_a else a.shape[-1]
    n = w.shape[-2] if transpose_b else w.shape[-1]
    batch_shape = np.broadcast_shapes(a.shape[:-2], w.shape[:-2])
    batch = int(np.prod(batch_shape, dtype=np.int64))
    out_shape = tuple(batch_shape) + (m, n)
    if batch == 0 or m == 0 or n == 0 or k == 0:
        return empty_product(xp, out_shape, a.dtype, bias, act)
    a, transpose_a = _stored(a, transpose_a)
    w, transpose_b = _stored(w, transpose_b)
    a, sa = _batch_operand(xp, a, batch_shape)
    w, sb = _batch_operand(xp, w, batch_shape)
    c = xp.empty(out_shape, dtype=a.dtype)
    lda, ldb = a.shape[-1], w.shape[-1]
    q = 4 if sfx == "f32" else 8  # float4 = 4 floats; 16-byte chunk = 8 halves
    vec = all(v % q == 0 for v in (lda, ldb, sa, sb)) and aligned(a) and aligned(w)
    grid = (ceil_div(n, BN), ceil_div(m, BM), grid_cap(batch, MAX_GRID_Y))
    name = kernel or ("matmul_f16" if sfx == "f16" and tensor_cores_available(a) else
                      "matmul_f16_simt" if sfx == "f16" else "matmul_f32")
    b.kernels.launch(name, grid, (THREADS, 1, 1),
                     (a, w, c, i32(m), i32(n), i32(k), i64(lda), i64(ldb), i64(n), i64(sa), i64(sb), i64(m * n),
                      i32(batch), i32(transpose_a), i32(transpose_b), i32(vec), epilogue_bias(xp, bias, n, a.dtype),
                      i32(epilogue_act(act))),
                     shared_mem=TC_SMEM_BYTES if name in TENSOR_CORE_KERNELS else 0)
    return c


def _grid_fits(x, y, *, transpose_a, transpose_b):
    """ceil(M / BM) blocks go in gridDim.y."""
    return ceil_div(x.shape[-1] if transpose_a else x.shape[-2], BM) <= MAX_GRID_Y


def tf32(x, y, *, transpose_a, transpose_b):
    """float32 matmul on sm_80+ with TF32 allowed: the TF32 tensor-core kernel is eligible."""
    return tf32_available(x) and _grid_fits(x, y, transpose_a=transpose_a, transpose_b=transpose_b)


def tensor_cores_f16(x, y, *, transpose_a, transpose_b):
    """float16 matmul on sm_80+: the mma.sync m16n8k16 kernel is eligible."""
    return tensor_cores_available(x) and _grid_fits(x, y, transpose_a=transpose_a, transpose_b=transpose_b)


@MATMUL.kernel("cuda", dtypes=(np.float32,), supports=tf32, priority=PRIORITY + 1,
               name="cuda_kernels.matmul.matmul_f32_tf32")
def _matmul_tf32(b, x, y, *, transpose_a, transpose_b):
    return launch_matmul(b, x, y, transpose_a, transpose_b, kernel="matmul_f32_tf32")


@MATMUL.kernel("cuda", dtypes=(np.float16,), supports=tensor_cores_f16, priority=PRIORITY + 1,
               name="cuda_kernels.matmul.matmul_f16")
def _matmul_f16_tensor_cores(b, x, y, *, transpose_a, transpose_b):
    return launch_matmul(b, x, y, transpose_a, transpose_b, kernel="matmul_f16")


def _matmul_simt(b, x, y, *, transpose_a, transpose_b):
    """Strict float32 (``matmul_f32``) or float16 on CUDA cores (``matmul_f16_simt``)."""
    name = "matmul_f32" if x.dtype == np.float32 else "matmul_f16_simt"
    return launch_matmul(b, x, y, transpose_a, transpose_b, kernel=name)


register_cuda(MATMUL, _matmul_simt, _grid_fits, name="matmul_f32|matmul_f16_simt")
