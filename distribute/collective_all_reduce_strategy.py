"""``tf.distribute.MultiWorkerMirroredStrategy``: synchronous data parallelism across processes (and hosts).

Every worker process (started by ``mpirun -np N python train.py`` or ``tfcore train --workers N``) runs
the same program on its local replicas: one per GPU it owns, else its CPU. MPI defines the world
(``tfcore.backend.mpi``): rank, size, rendezvous and the host collectives; ``TF_CONFIG``, when set,
gives roles and must agree with MPI. Gradients are reduced in two levels (docs/architecture.md §6): the local
replicas first, with the reduction MirroredStrategy would choose for them, then across workers with
the ``CommunicationOptions.implementation``: ``RING`` (MPI all-reduce of host buffers) or ``NCCL``
(NCCL communicators bootstrapped over MPI; device buffers). ``AUTO`` takes NCCL when every local
replica is a distinct physical GPU, else RING.

Variables created under ``scope()`` take the chief's initial values (broadcast from rank 0), so every
worker starts, and stays, identical. Only the chief writes checkpoints, SavedModels and summaries
(``extended.should_checkpoint``); Keras callbacks send other workers to temporary directories.
"""

import enum
import logging

import numpy as np

from tfcore.backend import collectives, mpi
from tfcore.framework import context as _ctx
from tfcore.framework import recording
from tfcore.framework.tensor import Tensor, backend_array, from_backend_array
from tfcore.framework.tensor_conversion import convert_to_tensor
from tfcore.framework.variables import Variable, VariableSynchronization

from . import cluster_resolver as _cr
from . import cross_device_ops as cdo
from . import values
from .input_lib import DistributedDataset, DistributedDatasetFromFunction, InputContext, check_options, split_batch
from .reduce_util import ReduceOp
from .strategy import MirroredStrategy, StrategyExtended

logger = logging.getLogger("tfcore.distribute")

_DEFAULT_BYTES_PER_PACK = 32 << 20


class CommunicationImplementation(enum.Enum):
    """``tf.distribute.experimental.CommunicationImplementation``: how workers all-reduce."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation  # the deprecated name (tf.distribute.experimental)


class CommunicationOptions:
    """``tf.distribute.experimental.CommunicationOptions(bytes_per_pack=0, timeout_seconds=None,
    implementation=AUTO)``.

    ``bytes_per_pack``: gradients are packed into buckets of at most this many bytes, one all-reduce per
    bucket (0: tfcore's default, 32 MiB). ``timeout_seconds``: a RING all-reduce (or the broadcast of a new
    variable's initial value) that waits longer than this for another worker raises
    ``tf.errors.DeadlineExceededError`` (a worker that hangs without dying; one that dies ends the MPI job
    anyway). NCCL calls are not timed.
    """

    def __init__(self, bytes_per_pack=0, timeout_seconds=None, implementation=CommunicationImplementation.AUTO):
        if isinstance(bytes_per_pack, bool) or not isinstance(bytes_per_pack, int | np.integer) or bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be a non-negative integer, got {bytes_per_pack!r}")
        if isinstance(implementation, str):
            try:
                implementation = CommunicationImplementation(implementation.upper())
            except ValueError:
                implementation = None
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("implementation should be a tf.distribute.experimental.CommunicationImplementation "
                             f"(AUTO, RING or NCCL), got {implementation!r}")
        if timeout_seconds is not None and not timeout_seconds > 0:
            raise ValueError(f"timeout_seconds must be positive or None, got {timeout_seconds!r}")
        self.bytes_per_pack = int(bytes_per_pack)
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def __repr__(self):
        return (f"CommunicationOptions(bytes_per_pack={self.bytes_per_pack}, timeout_seconds={self.timeout_seconds}"
                f", implementation={self.implementation})")


class MultiWorkerAllReduce(cdo.CrossDeviceOps):
    """Two-level all-reduce: ``local`` reduces this worker's replicas, then the world sums across workers
    (``"ring"``: MPI on host buffers; ``"nccl"``: NCCL over MPI on the first replica's GPU); MEAN divides by
    the replicas of the whole job. Every replica receives the result on its device."""

    name = "MultiWorkerAllReduce"

    def __init__(self, local, world, transport, bytes_per_pack, num_replicas, timeout_seconds=None):
        self._local = local
        self._world = world
        self.timeout_seconds = timeout_seconds  # RING: a worker that does not join fails the step
        self.transport = transport
        self.bytes_per_pack = bytes_per_pack or _DEFAULT_BYTES_PER_PACK
        self._num_replicas = num_replicas

    def batch_all_reduce(self, reduce_op, per_replica):
        n = len(per_replica)
        if not self._world.uses_mpi:  # one process outside mpirun: MirroredStrategy's reduction
            return self._local.batch_all_reduce(reduce_op, per_replica)
        with recording.stop_recording():
            local = self._local.batch_all_reduce(ReduceOp.SUM, per_replica) if n > 1 else per_replica
            totals = self._across_workers(local[0])
            if reduce_op == ReduceOp.MEAN:
                totals = [cdo._mean(t, self._num_replicas) for t in totals]
            return [[t._copy_to(per_replica[r][k]._device) for k, t in enumerate(totals)] for r in range(n)]

    def _across_workers(self, tensors):
        dev = tensors[0]._device
        buckets = cdo._buckets(tensors, self.bytes_per_pack)
        with _ctx.device(dev.name):
            packed = [cdo._pack([tensors[k] for k in bucket]) for bucket in buckets]
            if self.transport == "nccl":
                summed = self._world.nccl_all_reduce([backend_array(p) for p in packed], dev.backend)
                summed = [from_backend_array(a, dev, p.dtype) for a, p in zip(summed, packed)]
            else:
                summed = self._world.all_reduce([np.asarray(p.numpy()) for p in packed], timeout=self.timeout_seconds)
                summed = [convert_to_tensor(a, dtype=p.dtype) for a, p in zip(summed, packed)]
            out = [None] * len(tensors)
            for bucket, total in zip(buckets, summed):
                for k, t in zip(bucket, cdo._unpack(total, [tensors[k] for k in bucket])):
                    out[k] = t
        return out


class MultiWorkerExtended(StrategyExtended):
    """``strategy.extended`` of MultiWorkerMirroredStrategy: the worker's role in the job."""

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints (the chief only)."""
        return self._strategy._is_chief

    @property
    def should_save_summary(self):
        return self._strategy._is_chief

    @property
    def experimental_should_init(self):
        return True

    @property
    def _num_workers(self):
        return self._strategy._world.size

    def _in_multi_worker_mode(self):
        """Whether the job has more than one worker (TF's private check, used by Keras callbacks)."""
        return self._strategy._world.size > 1

    def _barrier(self):
        """Wait until every worker got here (e.g. before the chief deletes files the others still write)."""
        self._strategy._world.barrier()

    @property
    def _task_type(self):
        return self._strategy.cluster_resolver.task_type

    @property
    def _task_id(self):
        return self._strategy.cluster_resolver.task_id


def _local_devices(world):
    """One replica per GPU this worker owns: the GPU of its local rank when several workers share the host,
    every visible GPU when it runs alone there, else the CPU."""
    ctx = _ctx.context
    ctx.ensure_initialized()
    gpus = ctx.logical_devices("GPU")
    if not gpus:
        return [ctx.find("CPU", 0)]
    if world.local_size > 1:
        return [gpus[world.local_rank % len(gpus)]]
    return list(gpus)


def _resolve_cluster(resolver, world):
    """The cluster resolver of this worker, checked against MPI: ``TF_CONFIG`` (or the given resolver) must
    describe ``world.size`` training tasks with this task at position ``world.rank``."""
    if resolver is None and _cr._load_tf_config().get("cluster"):
        resolver = _cr.TFConfigClusterResolver()
    if resolver is None or not resolver.cluster_spec():
        hosts = world.all_gather(world.host)
        return _cr.SimpleClusterResolver({"worker": hosts}, task_type="worker", task_id=world.rank)
    spec = resolver.cluster_spec()
    tasks = _cr.training_tasks(spec)
    if resolver.task_type is None or resolver.task_id is None:
        raise ValueError(f"MultiWorkerMirroredStrategy: the cluster resolver names no task type/index for this "
                         f"worker (cluster {spec.as_dict()}); set TF_CONFIG's \"task\"")
    position = _cr.task_position(spec, resolver.task_type, resolver.task_id)
    if tasks != world.size or position != world.rank:
        launched = (f"MPI rank {world.rank} of size {world.size}" if world.uses_mpi
                    else "a single process (not started by mpirun)")
        raise ValueError(
            f"MultiWorkerMirroredStrategy: TF_CONFIG and MPI disagree: TF_CONFIG describes {tasks} training "
            f"task(s) with this task ({resolver.task_type!r}, index {resolver.task_id}) at position {position}, "
            f"but this process is {launched}. Start one process per task with `mpirun -np {tasks}` and give "
            "each the TF_CONFIG of its rank, or unset TF_CONFIG to take the roles from MPI")
    return resolver


class MultiWorkerMirroredStrategy(MirroredStrategy):
    """``tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=None, communication_options=None)``.

    Synchronous training on every replica of every worker of an MPI job; see the module docstring.
    ``num_replicas_in_sync`` counts the replicas of the whole job. Outside ``mpirun`` it is a
    one-worker strategy over the local replicas (as TF's without TF_CONFIG).
    """

    _synchronizes_workers = True

    def __init__(self, cluster_resolver=None, communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions()
        if not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a tf.distribute.experimental.CommunicationOptions, "
                             f"got {type(communication_options).__name__}")
        world = mpi.world()
        resolver = _resolve_cluster(cluster_resolver, world)
        devices = _local_devices(world)
        counts = world.all_gather(len(devices))
        if len(set(counts)) != 1:
            raise ValueError(f"MultiWorkerMirroredStrategy: every worker needs the same number of local replicas; "
                             f"the workers have {counts}")
        self._world = world
        self._communication_options = communication_options
        super().__init__(devices=devices)
        local_ops = self._cross_device_ops
        transport = self._choose_transport(devices, communication_options.implementation)
        self._cross_device_ops = MultiWorkerAllReduce(local_ops, world, transport, communication_options.bytes_per_pack,
                                                      len(devices) * world.size, communication_options.timeout_seconds)
        self._reduction_reason = (f"{local_ops.name} across local replicas, then {transport} across "
                                  f"{world.size} worker(s)")
        self.extended = MultiWorkerExtended(self)
        self.cluster_resolver = resolver
        self._is_chief = _cr.is_chief(resolver.cluster_spec(), resolver.task_type, resolver.task_id)
        self._worker_shard = (world.size, world.rank) if world.size > 1 else None
        logger.info("MultiWorkerMirroredStrategy: worker %d of %d, local devices %s; %s", world.rank, world.size,
                    [d.name for d in devices], self._reduction_reason)

    def _choose_transport(self, devices, implementation):
        distinct_gpus = (all(d.device_type == "GPU" and d.backend.device_collectives for d in devices)
                         and len({d.backend.device_id for d in devices}) == len(devices))
        # NCCL also refuses two ranks on one GPU: the workers sharing a host must own different GPUs
        owned = self._world.all_gather([(self._world.host, d.backend.device_id) if distinct_gpus else None
                                        for d in devices])
        flat = [o for per_worker in owned for o in per_worker]
        distinct_gpus = None not in flat and len(set(flat)) == len(flat)
        if implementation == CommunicationImplementation.NCCL:
            if not distinct_gpus or not collectives.nccl_available():
                raise ValueError(
                    "CommunicationImplementation.NCCL needs NCCL and one distinct physical GPU per local replica; "
                    f"this worker's replicas are {[d.name for d in devices]} (NCCL "
                    f"{'available' if collectives.nccl_available() else 'not available'}). Use RING or AUTO")
            return "nccl"
        if implementation == CommunicationImplementation.AUTO and distinct_gpus and collectives.nccl_available():
            return "nccl"
        return "ring"

    @property
    def num_replicas_in_sync(self):
        return len(self._devices) * self._world.size

    # -- variables: everybody starts from the chief's values --------------------------------------------
    def _make_variable(self, kwargs):
        if self._world.size > 1 and kwargs.get("synchronization") != VariableSynchronization.ON_READ:
            kwargs = dict(kwargs)
            init = kwargs.get("initial_value")
            if callable(init) and not isinstance(init, Tensor | Variable):
                with _ctx.device(self._devices[0].name):
                    init = init()
            value = convert_to_tensor(init, dtype=kwargs.get("dtype"))
            kwargs["initial_value"] = self._world.broadcast_array(
                np.asarray(value.numpy()), root=0, timeout=self._communication_options.timeout_seconds)
            kwargs["dtype"] = value.dtype
        return super()._make_variable(kwargs)

    # -- the hooks of Strategy ---------------------------------------------------------------------------
    def _split_batch(self, batch):
        return split_batch(batch, self._devices)

    def _global_count(self, count):
        return int(self._world.all_reduce([np.asarray(count, np.int64)])[0])

    def _sum_across_workers(self, tensor):
        if self._world.size == 1:
            return tensor
        with recording.stop_recording(), _ctx.device(tensor._device.name):
            return convert_to_tensor(self._world.all_reduce([np.asarray(tensor.numpy())])[0], dtype=tensor.dtype)

    def reduce(self, reduce_op, value, axis=None):
        """Reduce across every replica of every worker (TF: a plain tensor from a worker's single replica is
        that replica's value, reduced across the workers)."""
        if (self._world.size > 1 and len(self._devices) == 1
                and not isinstance(value, values.DistributedValues | values.MirroredVariable)):
            value = values.PerReplica([value])
        return super().reduce(reduce_op, value, axis=axis)

    def gather(self, value, axis):
        """Concatenate the per-replica values of every worker along ``axis`` (rank order)."""
        local = super().gather(value, axis)
        if self._world.size == 1:
            return local
        parts = self._world.all_gather(np.asarray(local.numpy()))
        with _ctx.device(self._devices[0].name):
            return convert_to_tensor(np.concatenate(parts, axis=axis), dtype=local.dtype)

    # -- input ----------------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Each worker reads its shard of ``dataset`` (``tf.data.experimental.AutoShardPolicy``: FILE, DATA,
        OFF; AUTO = FILE when the pipeline reads enough files, else DATA) and splits its batches over its
        replicas. ``dataset`` yields global batches, as with MirroredStrategy."""
        from tfcore.data.auto_shard import auto_shard_dataset

        options = check_options(options, from_function=False)
        if self._world.size == 1:
            return DistributedDataset(dataset, self._devices, options)
        sharded, policy = auto_shard_dataset(dataset, self._world.size, self._world.rank)
        return DistributedDataset(sharded, self._devices, options, worker=(self._world.size, self._world.rank, policy))

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)`` builds this worker's pipeline (one input pipeline per worker) of
        per-replica batches; each step takes one element per local replica."""
        ctx = InputContext(num_input_pipelines=self._world.size, input_pipeline_id=self._world.rank,
                           num_replicas_in_sync=self.num_replicas_in_sync)
        options = check_options(options, from_function=True)
        return DistributedDatasetFromFunction(dataset_fn(ctx), self._devices, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def __repr__(self):
        return (f"MultiWorkerMirroredStrategy(worker {self._world.rank} of {self._world.size}, "
                f"devices={[d.name for d in self._devices]})")


class _ExperimentalMultiWorkerMirroredStrategy(MultiWorkerMirroredStrategy):
    """``tf.distribute.experimental.MultiWorkerMirroredStrategy(communication=AUTO, cluster_resolver=None,
    communication_options=None)``: the deprecated spelling with ``communication``."""

    def __init__(self, communication=CommunicationImplementation.AUTO, cluster_resolver=None,
                 communication_options=None):
        if communication_options is None:
            communication_options = CommunicationOptions(implementation=communication)
        elif communication != CommunicationImplementation.AUTO and communication != \
                communication_options.implementation:
            raise ValueError("`communication` and `communication_options.implementation` differ; set only one")
        super().__init__(cluster_resolver=cluster_resolver, communication_options=communication_options)
