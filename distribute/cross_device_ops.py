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
  memory; one kernel launch reads every replica's buckets where they are and writes
  the sums (MEAN: divided by the replicas) into every replica's buffer (NCCL refuses
  duplicate GPUs).

This module picks the policy (:func:`choose`) and packs buckets with tensor ops; moving and
summing the buckets' arrays is ``tfcore.backend.collectives``'s job. MEAN divides the sums
as the host reduction does (TF's ``value / n``), for every policy and dtype.
"""

import logging

import numpy as np

from tfcore.backend import collectives
from tfcore.framework import context as _ctx
from tfcore.framework import device_spec, recording
from tfcore.framework.tensor import backend_array, from_backend_array
from tfcore.ops.array_ops import concat, reshape, split
from tfcore.ops.math_ops import add, add_n, truediv

from .reduce_util import ReduceOp

logger = logging.getLogger("tfcore.distribute")


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

        return _ctx.context.resolve(device_spec.parse(self._reduce_to_device))

    def batch_all_reduce(self, reduce_op, per_replica):
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
        nbytes = t.shape.num_elements() * t.dtype.size
        if current and (t.dtype != dtype or size + nbytes > bytes_per_pack):
            buckets.append(current)
            current, size = [], 0
        current.append(k)
        size += nbytes
        dtype = t.dtype
    if current:
        buckets.append(current)
    return buckets


def _pack(tensors):
    """One flat tensor (on the tensors' device) holding ``tensors`` one after the other."""

    flat = [reshape(t, [-1]) for t in tensors]
    return concat(flat, 0) if len(flat) > 1 else flat[0]


def _unpack(flat, like):
    """Split ``flat`` back into tensors shaped like ``like`` (on ``flat``'s device)."""

    sizes = [t.shape.num_elements() for t in like]
    parts = split(flat, sizes, 0) if len(like) > 1 else [flat]
    return [reshape(p, t.shape) for p, t in zip(parts, like)]


def _mean(total, n):
    """``total / n`` as the host reduction computes it (TF's ``value / n``: integers give floats)."""

    return truediv(total, np.asarray(n, total.dtype.as_numpy_dtype))


def _all_reduce_buckets(reduce_op, per_replica, bytes_per_pack, transport):
    """Pack each replica's tensors into buckets, all-reduce every bucket with one call to the
    backend's ``transport`` and unpack. MEAN divides the sums on each replica's device; the
    "on_device" kernel divides float16/float32 buckets itself (sum / n in float32, what the
    division after the sum gives)."""
    n = len(per_replica)
    if n == 1:
        return per_replica
    devices = [per_replica[r][0]._device for r in range(n)]
    backends = [d.backend for d in devices]
    if transport == "nccl":
        transport = _nccl_or_fallback(devices, backends)
    out = [[None] * len(per_replica[0]) for _ in range(n)]
    with recording.stop_recording():
        buckets = _buckets(per_replica[0], bytes_per_pack)
        packed = [[None] * len(buckets) for _ in range(n)]
        for r, dev in enumerate(devices):
            with _ctx.device(dev.name):
                for i, bucket in enumerate(buckets):
                    packed[r][i] = _pack([per_replica[r][k] for k in bucket])
        fused = [reduce_op == ReduceOp.MEAN and transport == "on_device"
                 and packed[0][i].dtype.as_numpy_dtype in (np.float16, np.float32) for i in range(len(buckets))]
        for group, divisor in ((fused, n), ([not f for f in fused], 1)):
            idx = [i for i, g in enumerate(group) if g]
            if not idx:
                continue
            # A bucket of several tensors was packed into a new buffer: the kernel may write over it.
            inplace = all(len(buckets[i]) > 1 for i in idx)
            summed = collectives.all_reduce_buckets([[backend_array(packed[r][i]) for i in idx] for r in range(n)],
                                                    backends, transport, divisor=divisor, inplace=inplace)
            for r, dev in enumerate(devices):
                with _ctx.device(dev.name):
                    for j, i in enumerate(idx):
                        total = from_backend_array(summed[r][j], dev, packed[r][i].dtype)
                        if reduce_op == ReduceOp.MEAN and divisor == 1:
                            total = _mean(total, n)
                        like = [per_replica[r][k] for k in buckets[i]]
                        for k, t in zip(buckets[i], _unpack(total, like)):
                            out[r][k] = t
    return out


def _nccl_or_fallback(devices, backends):
    """``"nccl"``, or the transport to use instead when some devices are logical GPUs of one physical GPU.

    NCCL refuses two ranks on one GPU (``init.cc``: "Duplicate GPU detected", ``ncclInvalidUsage``). TF
    then warns "NCCL is not supported when using virtual GPUs" and reduces another way; so does tfcore:
    all devices on one card use the on-device reduction (one kernel, no copies), a mix goes through
    the host. The warning names the devices that share a card."""
    shared = collectives.shared_physical_devices(backends)
    if not shared:
        return "nccl"
    names = "; ".join(", ".join(devices[i].name.rpartition("device:")[2] for i in group) + f" on physical GPU {gpu}"
                      for gpu, group in shared.items())
    transport = "on_device" if collectives.same_physical_device(backends) else "host"
    logger.warning("NcclAllReduce: NCCL is not supported when using virtual GPUs (%s), falling back to the %s "
                   "reduction", names, "on-device" if transport == "on_device" else "host")
    return transport


class NcclAllReduce(CrossDeviceOps):
    """NCCL all-reduce across distinct physical GPUs (``tfcore.backend.collectives``, transport "nccl").

    Gradients are packed into buckets of ``bytes_per_pack`` bytes; each bucket is one NCCL group
    call across the devices (one communicator per device set, cached by the backend).

    On logical GPUs that share a physical GPU (``tf.config.set_logical_device_configuration``), which
    NCCL refuses, it warns as TF does and falls back: to the on-device reduction when every device is
    on one card (the same sums), else through the host.
    """

    name = "NcclAllReduce"

    def __init__(self, num_packs=1, bytes_per_pack=32 << 20):
        self.num_packs = num_packs
        self.bytes_per_pack = bytes_per_pack

    def batch_all_reduce(self, reduce_op, per_replica):
        return _all_reduce_buckets(reduce_op, per_replica, self.bytes_per_pack, "nccl")


class OnDeviceAllReduce(CrossDeviceOps):
    """Reduction for logical GPUs that share one physical GPU: one kernel launch for all buckets.

    ``allreduce_buckets_<dtype>`` reads each replica's packed buckets in the card's memory and
    writes the sums (MEAN fused) back over them (``tfcore.backend.collectives``, transport
    "on_device"). No host round trip, unlike TF's fallback through one device.
    """

    name = "OnDeviceAllReduce"

    def __init__(self, bytes_per_pack=32 << 20):
        self.bytes_per_pack = bytes_per_pack

    def batch_all_reduce(self, reduce_op, per_replica):
        return _all_reduce_buckets(reduce_op, per_replica, self.bytes_per_pack, "on_device")


def choose(devices):
    """The reduction for a device set: (CrossDeviceOps, reason) following docs/architecture.md §6."""
    if len(devices) <= 1:
        return ReductionToOneDevice(), "a single replica"
    if any(d.device_type != "GPU" for d in devices):
        return ReductionToOneDevice(), "host reduction (CPU devices)"
    if not all(d.backend.device_collectives for d in devices):
        return ReductionToOneDevice(), "host reduction (emulated GPUs)"
    transport = collectives.transport_for([d.backend for d in devices])
    if transport == "on_device":
        return OnDeviceAllReduce(), "on-device reduction (logical GPUs of one physical GPU)"
    if transport == "nccl":
        return NcclAllReduce(), "NCCL all-reduce (distinct physical GPUs)"
    return HierarchicalCopyAllReduce(), "hierarchical copy (NCCL unavailable or mixed device set)"
