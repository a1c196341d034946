"""Collectives over a set of logical devices: all-reduce (sum), broadcast, all-gather.

``tf.distribute`` picks a policy and packs tensors into flat buckets; this module moves and
combines the buckets' arrays (one per device, each on its device) with one of three transports:

- ``"nccl"``: NCCL across distinct physical GPUs (CuPy's bindings; one communicator per
  device set, kept in a small bounded cache that :func:`clear` empties);
- ``"on_device"``: logical GPUs carved from one physical GPU share its memory (NCCL refuses a
  device twice): ``allreduce_buckets_<dtype>`` (kernels/allreduce.cu) reads every replica's
  buckets where they are and writes the sums (or means) into every replica's outputs — ONE launch
  for all the float32 (and one for all the float16) buckets of a call, a table of addresses
  telling the kernel where each bucket lives; no staging buffer, no copies;
- ``"host"``: through host memory with NumPy (CPUs, emulated GPUs, anything else).

:func:`transport_for` says which one a device set can use. Only this package imports CuPy/NCCL.
"""

import collections
import threading

import numpy as np

from .kernel_library import grid_cap, kernel_define

ALLREDUCE_THREADS = kernel_define("allreduce", "AR_THREADS")
ALLREDUCE_VEC = kernel_define("allreduce", "AR_VEC")  # elements per vector access
ALLREDUCE_TILE = kernel_define("allreduce", "AR_TILE")  # AR_THREADS * AR_VEC: elements per block and grid-stride step
_MAX_BLOCKS = 65535
_KERNEL_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}
_MAX_COMMUNICATORS = 8


def nccl_available():
    """Whether NCCL can be used in this process."""
    from .cuda import nccl_module

    return nccl_module() is not None


def same_physical_device(backends):
    """All logical devices carved from one physical GPU (they share its memory)."""
    return len({(type(b), b.device_id) for b in backends}) == 1


def shared_physical_devices(backends):
    """``{physical GPU id: [indices into backends]}`` for every GPU that holds two or more of ``backends``
    (logical GPUs of one card); empty when each device is on its own GPU."""
    groups = collections.defaultdict(list)
    for i, b in enumerate(backends):
        if getattr(b, "kind", None) == "cuda":
            groups[(type(b), b.device_id)].append(i)
    return {key[1]: idx for key, idx in groups.items() if len(idx) > 1}


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
    return [out[0] for out in _on_device_buckets([[a] for a in arrays], backends, 1, False)]


def all_reduce_buckets(buckets, backends, transport=None, *, divisor=1, inplace=False):
    """All-reduce several buckets at once: ``buckets[r][k]`` is replica r's flat array of bucket k
    (on ``backends[r]``); returns ``out[r][k]``, the element-wise sum over r of bucket k divided by
    ``divisor`` (a MEAN passes the number of replicas; only floating dtypes may have one other than 1),
    on replica r's device.

    The "on_device" transport reduces every float32 bucket in one kernel launch (and every float16
    bucket in another); ``inplace=True`` lets it write the results over the inputs (callers that own
    the buffers: packed buckets), otherwise each replica gets new arrays. Other transports reduce
    bucket by bucket.
    """
    n = len(backends)
    if len(buckets) != n:
        raise ValueError(f"all_reduce: {len(buckets)} arrays for {n} devices")
    nb = len(buckets[0]) if buckets else 0
    if any(len(b) != nb for b in buckets):
        raise ValueError("all_reduce_buckets: every replica needs the same number of buckets")
    if divisor != 1:
        for k in range(nb):
            if not np.issubdtype(np.dtype(buckets[0][k].dtype), np.floating):
                raise TypeError(f"all_reduce_buckets: a divisor needs floating buckets, not {buckets[0][k].dtype}")
    transport = transport or transport_for(backends)
    if n > 1 and transport == "on_device":
        return _on_device_buckets(buckets, backends, divisor, inplace)
    out = [[None] * nb for _ in range(n)]
    for k in range(nb):
        summed = all_reduce([buckets[r][k] for r in range(n)], backends, transport)
        for r, b in enumerate(backends):
            out[r][k] = summed[r] if divisor == 1 else _divided(b, summed[r], divisor)
    return out


def _divided(backend, a, divisor):
    with backend.activate():
        return backend.adopt(backend.xp.true_divide(a, backend.xp.asarray(divisor, dtype=a.dtype)))


def _address(a):
    cai = getattr(a, "__cuda_array_interface__", None)
    return cai["data"][0] if cai is not None else a.__array_interface__["data"][0]


def _wait_for(waiter, producer):
    """Work queued next on ``waiter`` runs after the work already queued on ``producer``."""
    ws, ps = getattr(waiter, "stream", None), getattr(producer, "stream", None)
    if ps is None or ws is ps:
        return  # synchronous device (emulated) or the same stream: already ordered
    if ws is not None and hasattr(ps, "record") and hasattr(ws, "wait_event"):
        ws.wait_event(ps.record())
    else:
        producer.synchronize()


def _on_device_buckets(buckets, backends, divisor, inplace):
    home = backends[0]
    n, nb = len(backends), len(buckets[0])
    out = [[None] * nb for _ in range(n)]
    for b in backends[1:]:
        _wait_for(home, b)  # every replica's inputs are complete before home's stream reads them
    by_suffix = {}
    for k in range(nb):
        suffix = _KERNEL_SUFFIX.get(np.dtype(buckets[0][k].dtype))
        if suffix is None:
            _xp_bucket(buckets, backends, k, divisor, out)
        else:
            by_suffix.setdefault(suffix, []).append(k)
    keep = []  # tables and inputs stay alive until the kernels ran
    for suffix, ks in by_suffix.items():
        src, dst = [], []
        for r, b in enumerate(backends):
            with b.activate():
                ins = [b.xp.ascontiguousarray(buckets[r][k].reshape(-1)) for k in ks]
                outs = ins if inplace else [b.adopt(b.xp.empty(a.shape, a.dtype)) for a in ins]
            src.append(ins)
            dst.append(outs)
            for k, o in zip(ks, outs):
                out[r][k] = o.reshape(buckets[r][k].shape)
        counts = [a.size for a in src[0]]
        first_tile = np.concatenate([[0], np.cumsum([-(-c // ALLREDUCE_TILE) for c in counts])])
        addresses = [_address(a) for row in src + dst for a in row]
        itemsize = src[0][0].dtype.itemsize
        vec = all(addr % (ALLREDUCE_VEC * itemsize) == 0 for addr in addresses)
        table = np.array([*first_tile, *counts, *addresses], dtype=np.uint64).view(np.int64)
        tiles = int(first_tile[-1])
        if tiles:
            with home.activate():
                table_dev = home.asarray(table)
                home.kernels.launch(f"allreduce_buckets_{suffix}", (grid_cap(tiles, _MAX_BLOCKS), 1, 1),
                                    (ALLREDUCE_THREADS, 1, 1),
                                    [table_dev, np.int32(n), np.int32(len(ks)), np.float32(divisor), np.int32(vec)])
            keep.append((table_dev, src, dst))
    if keep and getattr(home, "stream", None) is not None:
        home.synchronize()  # the results are read on every replica's stream; the table may be freed
    return out


def _xp_bucket(buckets, backends, k, divisor, out):
    """A dtype without a kernel (integers, float64): array ops on the home device."""
    home = backends[0]
    with home.activate():
        total = home.xp.array(buckets[0][k], copy=True)
        for r in range(1, len(backends)):
            total += buckets[r][k]
        if divisor != 1:
            total = home.xp.true_divide(total, home.xp.asarray(divisor, dtype=total.dtype))
    home.synchronize()
    for r, b in enumerate(backends):
        with b.activate():
            out[r][k] = b.adopt(b.from_other(total, home))


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

    shared = shared_physical_devices(backends)
    if shared:  # NCCL's init.cc: "Duplicate GPU detected : rank %d and rank %d both on CUDA device" -> invalid usage
        where = "; ".join(f"logical devices {idx} on physical GPU {gpu}" for gpu, idx in shared.items())
        raise ValueError(f"all_reduce: NCCL needs one rank per physical GPU, but {where} share a GPU; use the "
                         f"'on_device' or 'host' transport for logical GPUs of one card")
    nccl = nccl_module()
    if nccl is None:
        raise RuntimeError('all_reduce: NCCL is not available (pip install "tfcore[cuda12]" or "tfcore[cuda13]")')
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
