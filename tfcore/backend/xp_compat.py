"""Array-module helpers that behave the same on NumPy and CuPy.

Op implementations are written once against ``b.xp`` (numpy on the CPU and on
emulated GPUs, cupy on real GPUs). Where the two modules differ — a function
CuPy lacks, a different spelling, dtypes CuPy's atomics do not cover, NumPy-only
warning control — the op calls a helper here instead of branching itself, so
that only backend code knows which array module it is talking to (docs/architecture.md §1).
"""

import contextlib
import math

import numpy as np

_NULL = contextlib.nullcontext()

# Dtypes ``cupyx.scatter_add`` accepts (CUDA atomicAdd): int32, uint32, uint64, float16, float32, float64.
_CUPY_ATOMIC_ADD = frozenset(np.dtype(c) for c in "iILQefd")
# Narrow integers and bool accumulate in a 32-bit buffer; the cast back wraps as NumPy's add.at does.
_WIDER = {"b": np.int32, "h": np.int32, "B": np.uint32, "H": np.uint32, "?": np.int32}


def _cupyx(xp):
    """``cupyx`` for a CuPy ``xp``; a CuPy stand-in (the tests' strict emulation) may bring its own."""
    own = getattr(xp, "cupyx", None)
    if own is not None:
        return own
    import cupyx  # noqa: PLC0415 - CuPy only exists on GPU machines
    import cupyx.scipy.special  # noqa: F401, PLC0415

    return cupyx


def is_numpy(xp):
    """True when ``xp`` is NumPy (the CPU backend and emulated GPUs)."""
    return xp is np


def scatter_add(xp, out, index, values):
    """``out[index] += values`` in place, accumulating repeated indices (``np.add.at`` semantics).

    CuPy's ``scatter_add`` only covers the dtypes CUDA has atomics for: int64
    is added through a uint64 view (two's complement addition is the same bit
    operation), narrow integers and bool through a 32-bit buffer, complex numbers
    as two real scatters. Out-of-range indices must be rejected by the caller
    (CuPy wraps them silently).
    """
    if xp is np:
        np.add.at(out, index, values)
        return
    cupyx = _cupyx(xp)
    dt = out.dtype
    values = xp.asarray(values)
    if dt in _CUPY_ATOMIC_ADD:
        cupyx.scatter_add(out, index, values.astype(dt, copy=False))
    elif dt == np.int64:
        cupyx.scatter_add(out.view(xp.uint64), index, values.astype(xp.int64, copy=False).view(xp.uint64))
    elif dt.char in _WIDER:
        wide = out.astype(_WIDER[dt.char])
        cupyx.scatter_add(wide, index, values.astype(wide.dtype))
        out[...] = (wide != 0) if dt == np.bool_ else wide.astype(dt)
    elif dt.kind == "c":
        part = np.float32 if dt == np.complex64 else np.float64
        re, im = xp.ascontiguousarray(out.real), xp.ascontiguousarray(out.imag)
        cupyx.scatter_add(re, index, xp.real(values).astype(part))
        cupyx.scatter_add(im, index, xp.imag(values).astype(part))
        out[...] = re + 1j * im
    else:
        raise TypeError(f"scatter_add: dtype {dt} is not supported on the GPU")


def as_strided(xp, a, shape, strides):
    """A strided view of ``a`` (``numpy``/``cupy.lib.stride_tricks.as_strided``); no copy, read only use."""
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=strides)


def argsort_stable(xp, x, axis):
    """Stable argsort along ``axis`` (CuPy's argsort is always stable and rejects ``kind``)."""
    if xp is np:
        return np.argsort(x, axis=axis, kind="stable")
    return xp.argsort(x, axis=axis)


_np_erf = None


def erf(xp, x):
    """The error function element-wise, in ``x``'s dtype.

    NumPy has no ``erf``: SciPy's ufunc when it is installed, else ``math.erf``
    per element; CuPy: ``cupyx.scipy.special.erf``.
    """
    global _np_erf
    if xp is not np:
        return _cupyx(xp).scipy.special.erf(x).astype(x.dtype, copy=False)
    if _np_erf is None:
        try:
            from scipy.special import erf as _np_erf  # noqa: PLC0415
        except ImportError:
            _np_erf = np.vectorize(math.erf, otypes=[np.float64])
    if x.size == 0:
        return x.copy()
    return np.asarray(_np_erf(x)).astype(x.dtype, copy=False)


def errstate(xp, **kwargs):
    """``np.errstate(**kwargs)`` for NumPy; CuPy never warns on floating-point errors, so a no-op there."""
    if xp is np:
        return np.errstate(**kwargs)
    return _NULL
