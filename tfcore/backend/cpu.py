"""The NumPy backend: CPU tensors are plain ``numpy.ndarray`` objects."""

import os

import numpy as np

from .base import Backend


def usable_cores():
    """The CPU cores this process may run on (its affinity mask where the OS has one, else every core)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


class CPUBackend(Backend):
    """NumPy on the host. Every logical CPU device shares NumPy's allocator."""

    kind = "cpu"
    xp = np

    def asarray(self, value, dtype=None):
        return np.asarray(value, dtype=dtype)

    def to_numpy(self, array):
        return np.asarray(array)

    def from_other(self, array, src_backend):
        if src_backend.kind == "cpu" and src_backend.xp is np:
            return array
        return np.array(src_backend.to_numpy(array))
