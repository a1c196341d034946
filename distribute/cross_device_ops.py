"""Cross-device reductions: how gradients from several replicas are summed.

``batch_all_reduce(reduce_op, per_replica)`` takes ``per_replica[r][k]`` — tensor
k of replica r, replica r's tensors on replica r's device — and returns the
same layout holding the reduced values, each on its replica's device.

- :class:`ReductionToOneDevice`: copy everything to one device (the host by
  default), add there, copy back. Used for CPUs and emulated GPUs.
- :class:`HierarchicalCopyAllReduce`: pairwise tree reduction across devices.
- :class:`NcclAllReduce`: NCCL all-reduce across distinct physical GPUs, tensors
  packed into buckets of ``bytes_per_pack`` bytes, one NCCL group call per bucket.
- :class:`OnDeviceAllReduce`: logical GPUs carved from one physical GPU share its
  memory; each bucket is gathered into one [replicas, n] buffer and reduced in
  place by a single kernel launch (NCCL refuses duplicate GPUs).
"""

import numpy as np

from tfcore.framework import context as _ctx
from tfcore.framework import recording
from tfcore.framework.tensor import Tensor

from .reduce_util import ReduceOp


def _as_reduce_op(reduce_op):
    if isinstance(reduce_op, str):
        return ReduceOp(reduce_op.upper())
    return reduce_op


class CrossDeviceOps:
    """Base class (``tf.distribute.CrossDeviceOps``)."""

    name = "CrossDeviceOps"

    def batch_all_reduce(self, reduce_op, per_replica):
        raise NotImplementedError

    def reduce(self, reduce_op, per_replica_value, destinations=None, options=None):
        """Reduce one PerReplica value; the result is on the first replica's device."""
        values = list(per_replica_value.values) if hasattr(per_replica_value, "values") else [per_replica_value]
        reduced = self.batch_all_reduce(_as_reduce_op(reduce_op), [[v] for v in values])
        return reduced[0][0]

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        per_value = [list(v.values) for v, _ in value_destination_pairs]
        n = len(per_value[0]) if per_value else 0
        out = self.batch_all_reduce(_as_reduce_op(reduce_op), [[pv[r] for pv in per_value] for r in range(n)])
        return [out[0][k] for k in range(len(per_value))]

    def broadcast(self, tensor, destinations):
        return [tensor._copy_to(d) for d in destinations]


class ReductionToOneDevice(CrossDeviceOps):
    """Reduce on one device (default: the host CPU) and copy the result back to every replica."""

    name = "ReductionToOneDevice"

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self._reduce_to_device = reduce_to_device
        self._accumulation_fn = accumulation_fn

    def _target(self, per_replica):
        if self._reduce_to_device is None:
            return _ctx.context.find("CPU", 0)
        from tfcore.framework import device_spec

        return _ctx.context.resolve(device_spec.parse(self._reduce_to_device))

    def batch_all_reduce(self, reduce_op, per_replica):
        from tfcore.ops.math_ops import add_n, truediv

        n = len(per_replica)
        if n == 1:
            return per_replica
        target = self._target(per_replica)
        accumulate = self._accumulation_fn or add_n
        out = [[None] * len(per_replica[0]) for _ in range(n)]
        with recording.stop_recording(), _ctx.device(target.name):
            for k in range(len(per_replica[0])):
                total = accumulate([per_replica[r][k]._copy_to(target) for r in range(n)])
                if reduce_op == ReduceOp.MEAN:
                    total = truediv(total, np.asarray(n, total.dtype.as_numpy_dtype))
                for r in range(n):
                    out[r][k] = total._copy_to(per_replica[r][k]._device)
        return out


class HierarchicalCopyAllReduce(CrossDeviceOps):
    """Tree reduction: replicas are added pairwise on device (log2 N rounds), then broadcast."""

    name = "HierarchicalCopyAllReduce"

    def __init__(self, num_packs=1):
        self.num_packs = num_packs

    def batch_all_reduce(self, reduce_op, per_replica):
        from tfcore.ops.math_ops import add, truediv

        n = len(per_replica)
        if n == 1:
            return per_replica
        out = [[None] * len(per_replica[0]) for _ in range(n)]
        with recording.stop_recording():
            for k in range(len(per_replica[0])):
                level = [per_replica[r][k] for r in range(n)]
                while len(level) > 1:
                    nxt = []
                    for i in range(0, len(level), 2):
                        if i + 1 < len(level):
                            dev = level[i]._device
                            with _ctx.device(dev.name):
                                nxt.append(add(level[i], level[i + 1]._copy_to(dev)))
                        else:
                            nxt.append(level[i])
                    level = nxt
                total = level[0]
                if reduce_op == ReduceOp.MEAN:
                    with _ctx.device(total._device.name):
                        total = truediv(total, np.asarray(n, total.dtype.as_numpy_dtype))
                for r in range(n):
                    out[r][k] = total._copy_to(per_replica[r][k]._device)
        return out


def _buckets(tensors, bytes_per_pack):
    """Group tensor indices (same dtype, in order) into buckets of at most ``bytes_per_pack`` bytes."""
    buckets, current, size, dtype = [], [], 0, None
    for k, t in enumerate(tensors):
        nbytes = t._array.nbytes
        if current and (t._dtype is not dtype or size + nbytes > bytes_per_pack):
            buckets.append(current)
            current, size = [], 0
        current.append(k)
        size += nbytes
        dtype = t._dtype
    if current:
        buckets.append(current)
    return buckets


def _pack(xp, arrays):
    return xp.concatenate([a.reshape(-1) for a in arrays]) if len(arrays) > 1 else arrays[0].reshape(-1).copy()


def _unpack(flat, like):
    out, offset = [], 0
    for a in like:
        out.append(flat[offset:offset + a.size].reshape(a.shape))
        offset += a.size
    return out


class NcclAllReduce(CrossDeviceOps):
    """NCCL all-reduce across distinct physical GPUs (CuPy's NCCL bindings).

    One communicator per device set (created once and cached); gradients packed
    into buckets of ``bytes_per_pack`` bytes; each bucket is one
    ``groupStart/allReduce.../groupEnd`` call across the devices.
    """

    name = "NcclAllReduce"
    _communicators = {}

    def __init__(self, num_packs=1, bytes_per_pack=32 << 20):
        self.num_packs = num_packs
        self.bytes_per_pack = bytes_per_pack

    @classmethod
    def _comms(cls, device_ids):
        key = tuple(device_ids)
        if key not in cls._communicators:
            from cupy.cuda import nccl

            cls._communicators[key] = nccl.NcclCommunicator.initAll(list(device_ids))
        return cls._communicators[key]

    def batch_all_reduce(self, reduce_op, per_replica):
        from cupy.cuda import nccl

        n = len(per_replica)
        if n == 1:
            return per_replica
        devices = [per_replica[r][0]._device for r in range(n)]
        ids = [d.backend.device_id for d in devices]
        comms = self._comms(ids)
        out = [[None] * len(per_replica[0]) for _ in range(n)]
        for bucket in _buckets(per_replica[0], self.bytes_per_pack):
            dtype = per_replica[0][bucket[0]]._dtype
            nccl_type = {"float32": nccl.NCCL_FLOAT32, "float16": nccl.NCCL_FLOAT16,
                         "float64": nccl.NCCL_FLOAT64, "int32": nccl.NCCL_INT32,
                         "int64": nccl.NCCL_INT64}[dtype.name]
            packed = []
            for r, dev in enumerate(devices):
                with dev.backend.activate():
                    packed.append(_pack(dev.backend.xp, [per_replica[r][k]._array for k in bucket]))
            nccl.groupStart()
            for r, dev in enumerate(devices):
                with dev.backend.activate():
                    comms[r].allReduce(packed[r].data.ptr, packed[r].data.ptr, packed[r].size, nccl_type,
                                       nccl.NCCL_SUM, dev.backend.stream.ptr)
            nccl.groupEnd()
            for r, dev in enumerate(devices):
                with dev.backend.activate():
                    flat = packed[r] / n if reduce_op == ReduceOp.MEAN else packed[r]
                    for k, a in zip(bucket, _unpack(flat, [per_replica[r][k]._array for k in bucket])):
                        out[r][k] = Tensor(a.astype(a.dtype, copy=False), per_replica[r][k]._dtype, dev)
        return out


ALLREDUCE_BLOCK = 256  # threads per block of the allreduce_rows kernels (kernels/allreduce.cu)


class OnDeviceAllReduce(CrossDeviceOps):
    """Reduction for logical GPUs that share one physical GPU: one kernel launch per bucket.

    Each bucket of every replica is copied into row r of one ``[replicas, n]``
    buffer in the card's memory (device-to-device copies: all replicas live in the
    same physical memory); ``allreduce_rows_<dtype>`` sums the rows and writes the
    result back into every row in place; row r is then split into replica r's
    tensors. No host round trip, unlike TF's fallback through one device.
    """

    name = "OnDeviceAllReduce"

    def __init__(self, bytes_per_pack=32 << 20):
        self.bytes_per_pack = bytes_per_pack

    def batch_all_reduce(self, reduce_op, per_replica):
        n = len(per_replica)
        if n == 1:
            return per_replica
        devices = [per_replica[r][0]._device for r in range(n)]
        home = devices[0].backend
        xp = home.xp
        out = [[None] * len(per_replica[0]) for _ in range(n)]
        for bucket in _buckets(per_replica[0], self.bytes_per_pack):
            dtype = per_replica[0][bucket[0]]._dtype
            suffix = {"float32": "f32", "float16": "f16"}.get(dtype.name)
            like = [per_replica[0][k]._array for k in bucket]
            length = sum(a.size for a in like)
            with home.activate():
                buf = xp.empty((n, length), dtype=like[0].dtype)
                for r in range(n):
                    buf[r] = _pack(xp, [per_replica[r][k]._array for k in bucket])
                scale = 1.0 / n if reduce_op == ReduceOp.MEAN else 1.0
                if suffix is not None and length:
                    grid = ((length + ALLREDUCE_BLOCK - 1) // ALLREDUCE_BLOCK, 1, 1)
                    home.kernels.launch(f"allreduce_rows_{suffix}", grid, (ALLREDUCE_BLOCK, 1, 1),
                                        [buf, np.int32(n), np.int64(length), np.float32(scale)])
                else:  # other dtypes: the same in-place reduction with array ops
                    total = buf.sum(axis=0, dtype=buf.dtype)
                    buf[...] = total if scale == 1.0 else (total * scale).astype(buf.dtype)
            for r, dev in enumerate(devices):
                with dev.backend.activate():
                    row = dev.backend.adopt(dev.backend.from_other(buf[r], home))
                    for k, a in zip(bucket, _unpack(row, like)):
                        out[r][k] = Tensor(a, per_replica[r][k]._dtype, dev)
        return out


def choose(devices):
    """The reduction for a device set: (CrossDeviceOps, reason) following DESIGN.md §6."""
    if len(devices) <= 1:
        return ReductionToOneDevice(), "a single replica"
    if any(d.device_type != "GPU" for d in devices):
        return ReductionToOneDevice(), "host reduction (CPU devices)"
    if not all(d.backend.device_collectives for d in devices):
        return ReductionToOneDevice(), "host reduction (emulated GPUs)"
    physical = [d.physical.name for d in devices]
    if len(set(physical)) == 1:
        return OnDeviceAllReduce(), "on-device reduction (logical GPUs of one physical GPU)"
    if len(set(physical)) == len(physical) and _nccl_available():
        return NcclAllReduce(), "NCCL all-reduce (distinct physical GPUs)"
    return HierarchicalCopyAllReduce(), "hierarchical copy (NCCL unavailable or mixed device set)"


def _nccl_available():
    from tfcore.backend import cuda

    return cuda.nccl_module() is not None
