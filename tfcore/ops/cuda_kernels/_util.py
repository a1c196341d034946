"""Helpers shared by the CUDA kernel launchers: dtype suffixes, scalars, alignment, grids."""

import os

import numpy as np

from ...backend.activation import capture_override, keep_alive_for_capture
from ...backend.kernel_library import grid_cap
from ...framework import context as _ctx

# Kernel entry suffix per supported dtype (kernels/*.cu: one entry per dtype).
_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}

MAX_GRID_Y = 65535  # CUDA's limit on gridDim.y and gridDim.z
MAX_BLOCKS_1D = 65535  # cap for 1-D grid-stride launches (enough blocks to fill any GPU)


def suffix(dtype):
    """``'f32'`` / ``'f16'`` for dtypes our kernels implement, else None (the op falls back)."""
    return _SUFFIX.get(np.dtype(dtype))


def ceil_div(a, b):
    return -(-a // b)


def i32(v):
    return np.int32(v)


def i64(v):
    return np.int64(v)


def f32(v):
    return np.float32(v)


def data_ptr(a):
    """Device (cupy) or host (numpy) address of ``a``'s first element."""
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return cai["data"][0]
    return a.__array_interface__["data"][0]


def aligned(a, nbytes=16):
    return data_ptr(a) % nbytes == 0


def contiguous(xp, a):
    """C-contiguous version of ``a`` (no copy when it already is)."""
    return a if a.flags.c_contiguous else xp.ascontiguousarray(a)


# The GEMM kernels' fused epilogue (common.cuh's tfc_epilogue: TFC_ACT_NONE, TFC_ACT_RELU; bias_add.cu's numbering).
ACT_NONE = 0
ACT_RELU = 1


def epilogue_act(act):
    """``act`` checked against the activations the GEMM epilogues implement."""
    if act not in (ACT_NONE, ACT_RELU):
        raise ValueError(f"the GEMM epilogues implement ACT_NONE (0) and ACT_RELU (1), not {act!r}")
    return act


def epilogue_bias(xp, bias, n, dtype):
    """The bias argument of a GEMM epilogue: None (a null pointer: no bias) or ``n`` contiguous elements of the
    output's ``dtype`` (the kernel reads them as C's element type)."""
    if bias is None:
        return None
    if bias.shape != (n,) or bias.dtype != dtype:
        raise ValueError(f"the epilogue bias must be ({n},) {np.dtype(dtype)}, got {bias.shape} {bias.dtype}")
    return contiguous(xp, bias)


def empty_product(xp, shape, dtype, bias=None, act=ACT_NONE):
    """What a GEMM with an empty reduction (or an empty output) returns: act(0 + bias) broadcast to ``shape``
    (zeros without a bias and activation)."""
    out = xp.zeros(shape, dtype=dtype)
    if bias is not None and out.size:
        out += bias
    if epilogue_act(act) == ACT_RELU:
        xp.maximum(out, out.dtype.type(0), out=out)
    return out


def grid_1d(total, threads, cap=MAX_BLOCKS_1D):
    """Blocks for a grid-stride loop over ``total`` items (``TFCORE_KERNEL_MAX_BLOCKS`` caps them)."""
    return (grid_cap(ceil_div(total, threads), cap), 1, 1)


class _Workspaces:
    """Small device buffers a launcher keeps between calls, one set per backend (per logical device,
    hence per stream: launches that share a buffer are ordered), e.g. a reduction's tickets.

    ``workspace(b, key, need, make)`` returns the cached value when every entry of ``need`` (a tuple
    of sizes) fits what it was made for, else ``make(need)`` (cached in its place).

    A CUDA graph captured on this thread bakes the returned buffers' addresses into its kernels, so
    the value is handed to the capture in progress (``activation.keep_alive_for_capture``): the graph
    keeps it alive until it is released, even when a later, larger call replaces the cache entry (the
    old buffers would otherwise go back to the allocator while replays still write into them). A miss
    during a capture makes a buffer for that graph alone (its zero-fill is captured, not run), uncached.
    Graphs and eager launches may share one workspace: they run on the device's one stream, in order,
    and the kernels leave their tickets at zero.
    """

    ATTR = "_tfc_kernel_workspaces"

    def __call__(self, b, key, need, make):
        cache = getattr(b, self.ATTR, None)
        if cache is None:
            cache = {}
            try:
                setattr(b, self.ATTR, cache)
            except AttributeError:  # a backend that takes no attributes: a fresh buffer per call
                return make(need)
        hit = cache.get(key)
        if hit is not None and all(n <= h for n, h in zip(need, hit[0])):
            keep_alive_for_capture(b, hit[1])
            return hit[1]
        if capture_override(b) is not None:
            # made inside a capture: its zero-fill is a graph node that has not run yet, so it is the
            # graph's own buffer (allocated through the capture's pinning allocator), never cached
            return make(need)
        have = hit[0] if hit is not None else need
        size = tuple(max(n, h) for n, h in zip(need, have))
        value = make(size)
        cache[key] = (size, value)
        return value

    def drop(self, b, key):
        getattr(b, self.ATTR, {}).pop(key, None)


workspace = _Workspaces()


# -- tensor-core eligibility (one rule for matmul and conv candidates) ----------------------------------

TENSOR_CORE_ARCH = 80  # mma.sync m16n8k16 (float16) / m16n8k8 (TF32), ldmatrix, cp.async: sm_80+


def device_arch(a):
    """Compute capability as ``major * 10 + minor`` of the device holding array ``a``: a CuPy array's
    device, else (a host array on the ``cuda`` kind: an emulated GPU) the emulator's 8.0."""
    cc = getattr(getattr(a, "device", None), "compute_capability", None)
    if cc is not None:
        return int(cc)
    from ...backend.emulator.device import COMPUTE_CAPABILITY

    return COMPUTE_CAPABILITY[0] * 10 + COMPUTE_CAPABILITY[1]


def tf32_enabled():
    """TF32 may run: ``tf.config.experimental.tensor_float_32_execution_enabled()``, unless NVIDIA's
    ``NVIDIA_TF32_OVERRIDE=0`` is set, which turns TF32 off process-wide (as it does for cuBLAS,
    cuDNN and so TensorFlow)."""
    return _ctx.context.tensor_float_32_execution and os.environ.get("NVIDIA_TF32_OVERRIDE") != "0"


def tensor_cores_available(a):
    """The device holding ``a`` has the tensor-core instructions our float16 kernels use (sm_80+)."""
    return device_arch(a) >= TENSOR_CORE_ARCH


def tf32_available(a):
    """A float32 op on the device holding ``a`` may run as TF32 on tensor cores: TF32 is enabled
    (:func:`tf32_enabled`) and the device is sm_80+. The rule of every ``*_tf32`` candidate."""
    return tf32_enabled() and tensor_cores_available(a)


# Our kernels are candidates ahead of each op's generic xp code (docs/architecture.md §3): eligible for the dtypes
# the .cu files have entries for; the generic code runs everything else (float64, integers, bfloat16).
KERNEL_DTYPES = tuple(_SUFFIX)
PRIORITY = 10


def register_cuda(op, launch, supports=None, name=None, dtypes=KERNEL_DTYPES):
    """Register ``launch(b, *arrays, **attrs)`` as ``op``'s CUDA kernel candidate (first inputs of ``dtypes``,
    float32/float16 unless the family's entries cover others; ``supports(*arrays, **attrs)`` for limits dtypes
    cannot express, e.g. a grid size)."""
    module = launch.__module__.rpartition(".")[2]
    label = name or (launch.__name__ if launch.__name__ != "<lambda>" else op.name)
    return op.kernel("cuda", dtypes=dtypes, supports=supports, priority=PRIORITY,
                     name=f"cuda_kernels.{module}.{label}")(launch)
