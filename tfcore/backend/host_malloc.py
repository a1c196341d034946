"""glibc ``malloc`` tuning for the NumPy backend: large temporaries reuse heap memory.

CPU kernels allocate fresh arrays of 0.1-10 MiB every step (im2col columns, pooling masks, gradients).
glibc's defaults hand such blocks out by ``mmap`` (above a dynamic threshold that starts at 128 KiB)
and give freed heap tops back to the OS (above a trim threshold), so each step touches fresh pages:
one page fault per 4 KiB, several microseconds each on virtual machines. On a 2-core VM the faults
were over half the time of the seed CNN's training step (the tiled MaxPoolGrad: 1.2 ms with the
defaults, 0.25 ms with the heap reused). TF's own CPU allocator keeps its memory too.

:func:`tune` (run once when the CPU backend loads) sets ``M_MMAP_THRESHOLD`` to 32 MiB (glibc's maximum;
larger arrays are still mapped and unmapped) and ``M_TRIM_THRESHOLD`` to 256 MiB (freed memory above
that at the heap top goes back to the OS). It changes nothing when the process is not on glibc, when
the user set any ``MALLOC_*_`` tunable in the environment (theirs win), or when
``TFCORE_HOST_MALLOC=default``.
"""

import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 256 << 20
_USER_TUNABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES")

applied = None  # None: not tried; True/False: whether the thresholds were set


def tune():
    """Set the two thresholds once per process; returns whether they are set."""
    global applied
    if applied is not None:
        return applied
    applied = False
    if not sys.platform.startswith("linux") or os.environ.get("TFCORE_HOST_MALLOC", "").lower() == "default":
        return applied
    if any(k in os.environ for k in _USER_TUNABLES):
        return applied
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only (musl has no mallopt thresholds)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return applied
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    applied = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return applied
