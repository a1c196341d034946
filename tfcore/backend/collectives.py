"""Collectives over a set of logical devices: all-reduce (sum), broadcast, all-gather.

``tf.distribute`` picks a policy and packs tensors into flat buckets; this module moves and
combines the buckets' arrays (one per device, each on its device) with one of three transports:

- ``"nccl"``: NCCL across distinct physical GPUs (CuPy's bindings; one communicator per
  device set, kept in a small bounded cache that :func:`clear` empties);
- ``"on_device"``: logical GPUs carved from one physical GPU share its memory: the buckets are
  gathered into one ``[devices, n]`` buffer and ``allreduce_rows_<dtype>`` (kernels/allreduce.cu)
  sums the rows in place in one launch (NCCL refuses a device twice);
- ``"host"``: through host memory with NumPy (CPUs, emulated GPUs, anything else).

:func:`transport_for` says which one a device set can use. Only this package imports CuPy/NCCL.
"""

import collections
import threading

import numpy as np

ALLREDUCE_THREADS = 256  # kernels/allreduce.cu AR_THREADS
_KERNEL_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}
_MAX_COMMUNICATORS = 8


def nccl_available():
    """Whether NCCL can be used in this process."""
    from .cuda import nccl_module

    return nccl_module() is not None


def same_physical_device(backends):
    """All logical devices carved from one physical GPU (they share its memory)."""
    return len({(type(b), b.device_id) for b in backends}) == 1


def transport_for(backends):
    """``'nccl'``, ``'on_device'`` or ``'host'``: the fastest transport ``backends`` support."""
    if len(backends) > 1 and all(b.device_collectives for b in backends):
        if same_physical_device(backends):
            return "on_device"
        if len({b.device_id for b in backends}) == len(backends) and nccl_available():
            return "nccl"
    return "host"


# -- all-reduce ----------------------------------------------------------------------------------

def all_reduce(arrays, backends, transport=None):
    """Element-wise sum of ``arrays`` (one flat array per device, same length and dtype, each on
    ``backends[i]``); returns one array per device holding the sum, on that device."""
    if len(arrays) != len(backends):
        raise ValueError(f"all_reduce: {len(arrays)} arrays for {len(backends)} devices")
    if len(arrays) == 1:
        return list(arrays)
    transport = transport or transport_for(backends)
    if transport == "nccl":
        return _nccl_all_reduce(arrays, backends)
    if transport == "on_device":
        return _on_device_all_reduce(arrays, backends)
    if transport == "host":
        return _host_all_reduce(arrays, backends)
    raise ValueError(f"all_reduce: unknown transport {transport!r}")


def _host_all_reduce(arrays, backends):
    host = [np.asarray(b.to_numpy(a)) for a, b in zip(arrays, backends)]
    total = host[0].copy()
    for h in host[1:]:
        np.add(total, h, out=total, casting="unsafe")
    out = []
    for b in backends:
        a = _on(b, total)
        out.append(a.copy() if out and a is total else a)  # the CPU backend does not copy: one buffer each
    return out


def _on(backend, host_array):
    with backend.activate():
        return backend.adopt(backend.asarray(host_array))


def _on_device_all_reduce(arrays, backends):
    home = backends[0]
    xp = home.xp
    n, length = len(arrays), arrays[0].size
    with home.activate():
        buf = xp.empty((n, length), dtype=arrays[0].dtype)
        for r, a in enumerate(arrays):
            buf[r] = a  # one physical GPU: every logical device's array is in this card's memory
        suffix = _KERNEL_SUFFIX.get(np.dtype(buf.dtype))
        if suffix is not None and length:
            from .kernel_library import grid_cap

            grid = (grid_cap(-(-length // ALLREDUCE_THREADS), 65535), 1, 1)
            home.kernels.launch(f"allreduce_rows_{suffix}", grid, (ALLREDUCE_THREADS, 1, 1),
                                [buf, np.int32(n), np.int64(length), np.float32(1.0)])
        else:  # other dtypes: the same in-place reduction with array ops
            buf[...] = buf.sum(axis=0, dtype=buf.dtype)
    out = []
    for r, b in enumerate(backends):
        with b.activate():
            out.append(b.adopt(b.from_other(buf[r], home)))
    return out


class _Communicators:
    """NCCL communicators per device set, created on first use; at most ``_MAX_COMMUNICATORS``
    kept (least recently used dropped first)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._by_devices = collections.OrderedDict()

    def get(self, device_ids):
        key = tuple(device_ids)
        with self._lock:
            comms = self._by_devices.pop(key, None)
            if comms is None:
                from .cuda import nccl_module

                comms = nccl_module().NcclCommunicator.initAll(list(key))
            self._by_devices[key] = comms
            while len(self._by_devices) > _MAX_COMMUNICATORS:
                self._by_devices.popitem(last=False)
            return comms

    def clear(self):
        with self._lock:
            self._by_devices.clear()


_communicators = _Communicators()


def clear():
    """Drop cached NCCL communicators (devices reconfigured, tests)."""
    _communicators.clear()


def _nccl_dtype(nccl, dtype):
    table = {np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float16): nccl.NCCL_FLOAT16,
             np.dtype(np.float64): nccl.NCCL_FLOAT64, np.dtype(np.int32): nccl.NCCL_INT32,
             np.dtype(np.int64): nccl.NCCL_INT64}
    try:
        return table[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"all_reduce: NCCL has no type for {np.dtype(dtype).name}") from None


def _nccl_all_reduce(arrays, backends):
    from .cuda import nccl_module

    nccl = nccl_module()
    comms = _communicators.get([b.device_id for b in backends])
    nccl_type = _nccl_dtype(nccl, arrays[0].dtype)
    out = []
    for a, b in zip(arrays, backends):
        with b.activate():
            out.append(b.xp.array(a, copy=True))  # reduced in place: never the caller's buffer
    nccl.groupStart()
    for r, (buf, b) in enumerate(zip(out, backends)):
        with b.activate():
            comms[r].allReduce(buf.data.ptr, buf.data.ptr, buf.size, nccl_type, nccl.NCCL_SUM, b.stream.ptr)
    nccl.groupEnd()
    return out


# -- broadcast / all-gather ----------------------------------------------------------------------

def broadcast(array, src_backend, backends):
    """Copies of ``array`` (on ``src_backend``) on each of ``backends`` (device-to-device where possible)."""
    out = []
    for b in backends:
        with b.activate():
            out.append(array if b is src_backend else b.adopt(b.from_other(array, src_backend)))
    return out


def all_gather(arrays, backends, axis=0):
    """On every device, the concatenation of ``arrays`` (one per device) along ``axis``."""
    out = []
    for b in backends:
        with b.activate():
            parts = [a if src is b else b.from_other(a, src) for a, src in zip(arrays, backends)]
            out.append(b.adopt(b.xp.concatenate(parts, axis=axis)))
    return out
