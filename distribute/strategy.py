"""Strategies: the default strategy, OneDeviceStrategy and MirroredStrategy.

``MirroredStrategy.run`` runs the replica function once per device, each
replica in its own thread with ``tf.device`` set to its device, so that
collectives inside it (``ReplicaContext.all_reduce``, ``merge_call``, and the
optimizer's gradient aggregation built on them) can rendezvous like TF's.
"""

import concurrent.futures
import contextlib
import logging
import threading

import numpy as np

from tfcore.framework import context as _ctx
from tfcore.framework import device_spec, nest, recording, tracing
from tfcore.framework.errors import CancelledError
from tfcore.framework.indexed_slices import IndexedSlices
from tfcore.framework.tensor import Tensor
from tfcore.framework.tensor_conversion import convert_to_tensor
from tfcore.framework.variables import variable_creator_scope, variable_creators, variable_creators_scope
from tfcore.function.polymorphic_function import Function
from tfcore.ops import array_ops, math_ops
from tfcore.ops.array_ops import concat
from tfcore.ops.math_ops import cast, multiply, truediv
from tfcore.ops.reduce_ops import reduce_sum

from . import cross_device_ops as cdo
from . import distribute_lib, values
from .input_lib import DistributedDataset, DistributedDatasetFromFunction, InputContext, check_options, split_batch
from .reduce_util import ReduceOp

logger = logging.getLogger("tfcore.distribute")


class _Turns:
    """Replica threads taking turns, as TF's eager ``MirroredStrategy.run`` does (``mirrored_run``): replica 0
    runs its Python until it reaches a collective or returns, then replica 1, and so on; after a collective
    again from replica 0. So a replica function's side effects (a ``print``) happen in replica order, never
    interleaved. ``tf.function`` replicas run concurrently instead, as TF's graphs do."""

    def __init__(self, n):
        self._n = n
        self._cv = threading.Condition()
        self._turn = 0
        self._finished = set()
        self._aborted = False

    def wait(self, index):
        with self._cv:
            self._cv.wait_for(lambda: self._turn == index or self._aborted)
            if self._aborted:
                raise CancelledError(None, None, "Another replica failed; run cancelled")

    def pass_on(self, index, finished=False):
        with self._cv:
            if finished:
                self._finished.add(index)
            nxt = index
            for _ in range(self._n):
                nxt = (nxt + 1) % self._n
                if nxt not in self._finished:
                    break
            self._turn = nxt
            self._cv.notify_all()

    def abort(self):
        with self._cv:
            self._aborted = True
            self._cv.notify_all()


class _Collective:
    """A reusable rendezvous of N replica threads; the last to arrive runs the combining function.
    ``turns``: the replicas take turns (:class:`_Turns`), each passing its turn on while it waits here."""

    def __init__(self, n, turns=None):
        self._n = n
        self._barrier = threading.Barrier(n, action=self._act)
        self._inputs = [None] * n
        self._fn = None
        self._result = None
        self._error = None
        self.turns = turns

    def exchange(self, index, value, fn):
        self._inputs[index] = value
        self._fn = fn
        if self.turns is not None:
            self.turns.pass_on(index)
        try:
            self._barrier.wait()
        except threading.BrokenBarrierError:
            raise CancelledError(None, None, "Another replica failed; collective cancelled") from None
        if self.turns is not None:
            self.turns.wait(index)
        if self._error is not None:
            raise self._error
        return self._result

    def _act(self):
        try:
            self._result = self._fn(list(self._inputs))
            self._error = None
        except BaseException as e:  # noqa: BLE001 - re-raised in every replica thread
            self._result, self._error = None, e

    def abort(self):
        self._barrier.abort()
        if self.turns is not None:
            self.turns.abort()


def _is_tf_function(fn):
    return isinstance(fn, Function)


def tracing_tensor_types():
    return (Tensor,)


class ReplicaContext:
    """What a replica function sees (``tf.distribute.get_replica_context()``)."""

    def __init__(self, strategy, replica_id, collective=None):
        self._strategy = strategy
        self._replica_id = replica_id
        self._collective = collective

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        return self._strategy.num_replicas_in_sync

    @property
    def sync_group(self):
        """The rendezvous this replica shares with the other replicas of the same ``run`` call (None for a
        single replica): ``tf.function`` counts their concurrent traces as one (``replica_state``)."""
        return self._collective

    @property
    def replica_id_in_sync_group(self):
        return convert_to_tensor(np.int32(self._replica_id))

    @property
    def replica_id_in_sync_group_int(self):
        return self._replica_id

    @property
    def devices(self):
        return (self._strategy._devices[self._replica_id].name,)

    def _exchange(self, value, fn):
        if self._collective is None:
            return fn([value])[0]
        return self._collective.exchange(self._replica_id, value, fn)[self._replica_id]

    def all_reduce(self, reduce_op, value, options=None):
        """Reduce ``value`` (a tensor or nested structure of tensors) across replicas."""
        reduce_op = cdo._as_reduce_op(reduce_op)
        leaves = nest.flatten(value)
        if self._collective is not None and any(type(v) is IndexedSlices for v in leaves) \
                and self.num_replicas_in_sync == len(self._strategy._devices):
            return nest.pack_sequence_as(value, self._all_reduce_with_slices(reduce_op, leaves))
        # (across workers, IndexedSlices are made dense and summed: the sum TF gathers, not its slices)
        flat = [convert_to_tensor(v) for v in leaves]
        ops = self._strategy._cross_device_ops

        def combine(all_flat):
            with recording.stop_recording():
                return ops.batch_all_reduce(reduce_op, all_flat)

        if self._collective is None:
            return value
        if tracing.is_tracing():  # inside tf.function: one node that exchanges with the other replicas per call
            out = tracing.call_python(
                lambda *f: distribute_lib.get_replica_context()._exchange(list(f), combine), flat,
                name="CollectiveReduce")
            return nest.pack_sequence_as(value, list(out))
        return nest.pack_sequence_as(value, self._exchange(flat, combine))

    def _all_reduce_with_slices(self, reduce_op, leaves):
        """``all_reduce`` of a flat list holding IndexedSlices: as TF's cross-device ops, the slices of every
        replica are gathered (values and indices concatenated in replica order; MEAN divides the values by
        the replica count) and stay IndexedSlices; the dense leaves are all-reduced as usual."""

        out = list(leaves)
        dense = [i for i, v in enumerate(leaves) if type(v) is not IndexedSlices]
        if dense:
            for i, r in zip(dense, self.all_reduce(reduce_op, [leaves[i] for i in dense])):
                out[i] = r
        sparse = [i for i, v in enumerate(leaves) if type(v) is IndexedSlices]
        flat = []
        for i in sparse:
            flat.extend((leaves[i].values, leaves[i].indices))
        devices = self._strategy._devices

        def combine(all_flat):
            with recording.stop_recording():
                per_replica = []
                for r in range(len(all_flat)):
                    with _ctx.device(devices[r].name):
                        per_replica.append([array_ops.concat([f[k]._copy_to(devices[r]) for f in all_flat], 0)
                                            for k in range(len(flat))])
                return per_replica

        if tracing.is_tracing():
            gathered = list(tracing.call_python(
                lambda *f: distribute_lib.get_replica_context()._exchange(list(f), combine), flat,
                name="CollectiveGather"))
        else:
            gathered = self._exchange(flat, combine)
        n = self.num_replicas_in_sync
        for j, i in enumerate(sparse):
            values_, indices = gathered[2 * j], gathered[2 * j + 1]
            if reduce_op == ReduceOp.MEAN:
                values_ = math_ops.divide(values_, math_ops.cast(n, values_.dtype))
            out[i] = IndexedSlices(values_, indices, leaves[i].dense_shape)
        return out

    def _broadcast_from_first(self, value):
        def combine(all_values):
            first = all_values[0]
            return [first._copy_to(self._strategy._devices[r]) for r in range(len(all_values))]

        return self._exchange(convert_to_tensor(value), combine)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Run ``merge_fn(strategy, *args, **kwargs)`` once in cross-replica context.

        Arguments from all replicas are regrouped into PerReplica values; every
        replica receives the same return value.
        """
        kwargs = kwargs or {}
        strategy = self._strategy
        if self._collective is not None and tracing.is_tracing():
            # inside tf.function: one node per replica that joins the merge on every call
            leaves = nest.flatten([list(args), kwargs])
            # an IndexedSlices (an Embedding's gradient) enters the node as its values and indices, so each
            # call's slices reach the merge, not the trace's
            where = [i for i, x in enumerate(leaves) if isinstance(x, tracing_tensor_types() + (IndexedSlices,))]
            inputs = []
            for i in where:
                x = leaves[i]
                inputs.extend((x.values, x.indices) if type(x) is IndexedSlices else (x,))

            def run(*tensors):
                vals, at = list(leaves), 0
                for i in where:
                    if type(leaves[i]) is IndexedSlices:
                        vals[i] = IndexedSlices(tensors[at], tensors[at + 1], leaves[i].dense_shape)
                        at += 2
                    else:
                        vals[i] = tensors[at]
                        at += 1
                a, kw = nest.pack_sequence_as([list(args), kwargs], vals)
                return distribute_lib.get_replica_context().merge_call(merge_fn, args=tuple(a), kwargs=kw)

            return tracing.call_python(run, inputs, name="MergeCall")
        if self._collective is None:
            with distribute_lib.cross_replica_scope(), _ctx.device(None):
                return merge_fn(strategy, *args, **kwargs)

        def combine(all_inputs):
            a = values.regroup([x[0] for x in all_inputs])
            kw = values.regroup([x[1] for x in all_inputs]) if kwargs else {}
            with recording.stop_recording(), distribute_lib.cross_replica_scope(), _ctx.device(None):
                result = merge_fn(strategy, *a, **kw)
            return [result] * len(all_inputs)

        return self._exchange((tuple(args), kwargs), combine)

    def __enter__(self):
        self._scope = distribute_lib.replica_scope(self)
        return self._scope.__enter__()

    def __exit__(self, *exc):
        return self._scope.__exit__(*exc)


def _flatten_distributed(structure):
    """``(tensors, rebuild)``: the tensor leaves of ``structure``, a distributed value's components counted
    one by one, and ``rebuild(new_tensors)`` that puts new tensors in their places (other leaves kept)."""

    leaves = nest.flatten(structure)
    tensors, where = [], []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, values.DistributedValues) and all(isinstance(c, Tensor) for c in leaf.values):
            where.append((i, type(leaf), len(leaf.values)))
            tensors.extend(leaf.values)
        elif isinstance(leaf, Tensor) and not isinstance(leaf, values.MirroredVariable):
            where.append((i, None, 1))
            tensors.append(leaf)

    def rebuild(new):
        out, k = list(leaves), 0
        for i, cls, count in where:
            out[i] = new[k] if cls is None else cls(new[k:k + count])
            k += count
        return nest.pack_sequence_as(structure, out)

    return tensors, rebuild


class RunOptions:
    """``tf.distribute.RunOptions``: options for ``Strategy.run``. Its settings concern TPU compilation
    (dynamic batch sizes, bucketized dynamic shapes, XLA options); other strategies accept and ignore them,
    as TF's do."""

    __slots__ = ("experimental_enable_dynamic_batch_size", "experimental_bucketizing_dynamic_shape",
                 "experimental_xla_options")

    def __init__(self, experimental_enable_dynamic_batch_size=True, experimental_bucketizing_dynamic_shape=False,
                 experimental_xla_options=None):
        self.experimental_enable_dynamic_batch_size = bool(experimental_enable_dynamic_batch_size)
        self.experimental_bucketizing_dynamic_shape = bool(experimental_bucketizing_dynamic_shape)
        self.experimental_xla_options = experimental_xla_options

    def __eq__(self, other):
        return isinstance(other, RunOptions) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __hash__(self):
        return hash((self.experimental_enable_dynamic_batch_size, self.experimental_bucketizing_dynamic_shape))

    def __repr__(self):
        return "RunOptions(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def _check_run_options(options):
    if options is not None and not isinstance(options, RunOptions):
        raise TypeError(f"options must be a tf.distribute.RunOptions, got {type(options).__name__}")


class StrategyExtended:
    """``strategy.extended``: device lists and variable updates across replicas."""

    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def worker_devices(self):
        return tuple(d.name for d in self._strategy._devices)

    @property
    def parameter_devices(self):
        return self.worker_devices

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints: always, in a single-worker strategy (TF's default)."""
        return True

    @property
    def should_save_summary(self):
        """Whether this worker writes summaries: always, in a single-worker strategy."""
        return True

    @property
    def experimental_should_init(self):
        """Whether this worker initializes variables: always, in a single-worker strategy."""
        return True

    def _in_multi_worker_mode(self):
        """False: one worker (TF's private check that Keras callbacks and keras-tuner call)."""
        return False

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Run ``fn(var_copy, *args)`` for each copy of a mirrored variable (cross-replica)."""
        kwargs = kwargs or {}
        comps = var.values if isinstance(var, values.MirroredVariable) else (var,)
        results = []
        for i, c in enumerate(comps):
            with distribute_lib.component_scope(i, c.device):
                results.append(fn(c, *values.select_replica(i, args), **values.select_replica(i, kwargs)))
        return results[0] if group else tuple(results)


class Strategy:
    """Base class of strategies (``tf.distribute.Strategy``)."""

    def __init__(self, devices, cross_device_ops=None):
        self._devices = list(devices)
        self._cross_device_ops = cross_device_ops or cdo.ReductionToOneDevice()
        self._reduction_reason = "given"
        self.extended = StrategyExtended(self)
        self._pool = None

    @property
    def num_replicas_in_sync(self):
        return len(self._devices)

    @property
    def cross_device_ops(self):
        return self._cross_device_ops

    @contextlib.contextmanager
    def scope(self):
        """Variables created inside are mirrored across the strategy's devices."""
        current = distribute_lib.current_strategy()
        if current is not None and current is not self:
            raise ValueError("Mixing different tf.distribute.Strategy objects is not allowed.")
        with distribute_lib.strategy_scope(self), variable_creator_scope(self._create_variable):
            yield self

    def _create_variable(self, next_creator, **kwargs):
        """The variable creator of ``scope()``: one copy per device (TF's creator signature)."""
        ctx = distribute_lib.current_replica_context()
        if ctx is not None and ctx._collective is not None:
            return ctx.merge_call(lambda strategy: self._make_variable(kwargs))
        return self._make_variable(kwargs)

    def _make_variable(self, kwargs):
        """One copy per device (a multi-worker strategy first gives every worker the chief's initial value)."""
        return values.make_variable(self, self._devices, (), kwargs)

    # -- hooks a multi-worker strategy overrides: this process holds every replica here --------------
    _synchronizes_workers = False  # True: every step joins a collective, even with one local replica

    def _split_batch(self, batch):
        """This process's replicas' shares of one global batch (PerReplica leaves)."""
        return split_batch(batch, self._devices)

    def _global_count(self, count):
        """``count`` summed over the workers of the job."""
        return count

    def _sum_across_workers(self, tensor):
        """``tensor`` summed over the workers of the job (a cross-replica read of a sync-on-read variable)."""
        return tensor

    # -- running ---------------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Run ``fn`` on every replica; distributed arguments are split per replica. ``options``: a
        :class:`RunOptions` (its settings concern TPUs; accepted and validated here)."""
        _check_run_options(options)
        kwargs = kwargs or {}
        n = len(self._devices)
        if n == 1 and not self._synchronizes_workers:
            return self._run_replica(fn, 0, None, args, kwargs)
        if tracing.is_tracing():
            return self._run_as_graph_node(fn, args, kwargs)
        collective = _Collective(n, None if _is_tf_function(fn) else _Turns(n))
        if self._pool is None and n > 1:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=n - 1,
                                                               thread_name_prefix="tfcore-replica")
        creators = variable_creators()  # replica threads inherit the caller's creator scopes, as in TF
        futures = [self._pool.submit(self._run_replica_guarded, fn, i, collective, args, kwargs, creators)
                   for i in range(1, n)]
        results, errors = [None] * n, [None] * n
        results[0], errors[0] = self._run_replica_guarded(fn, 0, collective, args, kwargs)
        for i, f in enumerate(futures, start=1):
            results[i], errors[i] = f.result()
        real = [e for e in errors if e is not None and not isinstance(e, CancelledError)]
        if real or any(errors):
            raise (real or [e for e in errors if e is not None])[0]
        return values.regroup(results)

    def _run_as_graph_node(self, fn, args, kwargs):
        """``run`` inside a tf.function with several replicas: one graph node that runs the replicas (in their
        threads, eagerly) with each call's tensors, per-replica components included. Replica threads do not
        record into the caller's graph, so tracing them inline would replay the trace's results on every
        call. A tensor the replica function reads from a closure instead of its arguments keeps the trace's
        value: pass per-call tensors in ``args``, as TF's guides do."""
        flat_in, rebuild_in = _flatten_distributed([list(args), kwargs])
        rebuild_out = []

        def body(*tensors):
            a, kw = rebuild_in(tensors)
            out = self.run(fn, args=tuple(a), kwargs=kw)
            flat_out, rebuild = _flatten_distributed(out)
            if not rebuild_out:
                rebuild_out.append(rebuild)
            return list(flat_out)

        out = tracing.call_python(body, flat_in, name="StrategyRun")
        return rebuild_out[0](list(out or ())) if rebuild_out else None

    def _run_replica_guarded(self, fn, i, collective, args, kwargs, creators=None):
        turns = collective.turns
        try:
            if turns is not None:
                turns.wait(i)
            try:
                if creators is None:
                    return self._run_replica(fn, i, collective, args, kwargs), None
                with variable_creators_scope(creators):
                    return self._run_replica(fn, i, collective, args, kwargs), None
            finally:
                if turns is not None:
                    turns.pass_on(i, finished=True)
        except BaseException as e:  # noqa: BLE001 - reported to the caller of run()
            collective.abort()
            return None, e

    def _run_replica(self, fn, i, collective, args, kwargs):
        with distribute_lib.strategy_scope(self), ReplicaContext(self, i, collective), \
                _ctx.device(self._devices[i].name):
            return fn(*values.select_replica(i, args), **values.select_replica(i, kwargs))

    # -- cross-replica results ------------------------------------------------------------------
    def reduce(self, reduce_op, value, axis=None):
        """Combine a per-replica value into one tensor (on the first replica's device)."""

        reduce_op = cdo._as_reduce_op(reduce_op)
        vals = list(value.values) if isinstance(value, values.DistributedValues) else None
        if vals is None:
            t = convert_to_tensor(value)
            if axis is not None:
                return (reduce_sum(t, axis=axis) if reduce_op == ReduceOp.SUM
                        else truediv(reduce_sum(t, axis=axis), t.shape[axis]))
            if reduce_op == ReduceOp.SUM and self.num_replicas_in_sync > 1:
                return multiply(t, np.asarray(self.num_replicas_in_sync, t.dtype.as_numpy_dtype))
            return t
        vals = [convert_to_tensor(v) for v in vals]
        with recording.stop_recording():
            if axis is not None:
                counts = self._global_count(sum(int(v.shape[axis]) for v in vals))
                sums = [reduce_sum(v, axis=axis) for v in vals]
                total = self._cross_device_ops.reduce(ReduceOp.SUM, values.PerReplica(sums))
                if reduce_op == ReduceOp.MEAN:
                    total = truediv(total, cast(np.asarray(counts), total.dtype) if total.dtype.is_integer
                                    else np.asarray(counts, total.dtype.as_numpy_dtype))
                return total
            return self._cross_device_ops.reduce(reduce_op, values.PerReplica(vals))

    def gather(self, value, axis):
        """Concatenate per-replica values along ``axis`` (on the first replica's device)."""

        vals = list(value.values) if isinstance(value, values.DistributedValues) else [value]
        home = self._devices[0]
        with _ctx.device(home.name):
            return concat([convert_to_tensor(v)._copy_to(home) for v in vals], axis=axis)

    def experimental_local_results(self, value):
        if isinstance(value, values.DistributedValues):
            return value.values
        if isinstance(value, values.MirroredVariable):
            return value.values
        return (value,)

    # -- input -----------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Split each global batch of ``dataset`` into one batch per replica (on its device); ``options`` is a
        :class:`InputOptions`."""
        return DistributedDataset(dataset, self._devices, check_options(options, from_function=False))

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """``dataset_fn(InputContext)`` builds a per-replica-batch dataset; each step takes one element per replica."""
        ctx = InputContext(num_input_pipelines=1, input_pipeline_id=0,
                           num_replicas_in_sync=self.num_replicas_in_sync)
        options = check_options(options, from_function=True)
        return DistributedDatasetFromFunction(dataset_fn(ctx), self._devices, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)


class _DefaultStrategy(Strategy):
    """The strategy in effect when none is in scope: one replica on the default device."""

    def __init__(self):
        super().__init__([])
        self._default_replica_context = ReplicaContext(self, 0, None)

    @property
    def num_replicas_in_sync(self):
        return 1

    @contextlib.contextmanager
    def scope(self):
        yield self

    def run(self, fn, args=(), kwargs=None, options=None):
        _check_run_options(options)
        with self._default_replica_context:
            return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis=None):
        t = convert_to_tensor(value)
        if axis is None:
            return t
        s = reduce_sum(t, axis=axis)
        return s if cdo._as_reduce_op(reduce_op) == ReduceOp.SUM else truediv(s, t.shape[axis])

    def experimental_distribute_dataset(self, dataset, options=None):
        check_options(options, from_function=False)
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        check_options(options, from_function=True)
        return dataset_fn(InputContext())


def _resolve_devices(devices):
    ctx = _ctx.context
    ctx.ensure_initialized()
    if devices is None:
        gpus = ctx.logical_devices("GPU")
        return gpus if gpus else [ctx.find("CPU", 0)]
    resolved = []
    for d in devices:
        name = d.name if hasattr(d, "name") and not isinstance(d, str) else d
        spec = device_spec.parse(name)
        dev = ctx.find(spec.device_type or "CPU", spec.device_index or 0)
        if dev is None:
            raise ValueError(f"MirroredStrategy: device {name!r} not found; logical devices: "
                             f"{[x.name for x in ctx.devices]}")
        if dev in resolved:
            raise ValueError(f"MirroredStrategy: device {name!r} is listed twice")
        resolved.append(dev)
    if not resolved:
        raise ValueError("MirroredStrategy: `devices` cannot be empty")
    return resolved


class MirroredStrategy(Strategy):
    """Synchronous data-parallel training on several devices of one machine.

    ``devices`` defaults to every visible logical GPU, else the CPU. The
    cross-device reduction is chosen from the devices (docs/architecture.md §6) and logged
    once; pass ``cross_device_ops=`` to override it.
    """

    def __init__(self, devices=None, cross_device_ops=None):
        devs = _resolve_devices(devices)
        chosen, reason = cdo.choose(devs)
        super().__init__(devs, cross_device_ops or chosen)
        self._reduction_reason = "given by cross_device_ops=" if cross_device_ops else reason
        logger.info("Using MirroredStrategy with devices %s; cross-device reduction: %s (%s)",
                    tuple(d.name for d in devs), self._cross_device_ops.name, self._reduction_reason)


class OneDeviceStrategy(Strategy):
    """All computation and variables on one device (``tf.distribute.OneDeviceStrategy``)."""

    def __init__(self, device):
        super().__init__(_resolve_devices([device]))


distribute_lib.register_default_strategy(_DefaultStrategy)

_global_scope = [None]  # the scope entered by experimental_set_strategy (this module owns it)


def experimental_set_strategy(strategy):
    """``tf.distribute.experimental_set_strategy``: make ``strategy`` current without a ``with strategy.scope()``
    block (``None`` clears it), as if its scope had been entered on the calling thread. Raises RuntimeError
    inside another strategy's scope."""
    old = _global_scope[0]
    if old is not None:
        old.__exit__(None, None, None)
        _global_scope[0] = None
    if distribute_lib.has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _global_scope[0] = scope
