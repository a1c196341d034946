"""The NumPy backend: CPU tensors are plain ``numpy.ndarray`` objects."""

import numpy as np

from . import host_malloc
from .base import Backend

host_malloc.tune()  # large kernel temporaries reuse heap pages (see host_malloc)


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
