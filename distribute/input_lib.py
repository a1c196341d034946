"""Distributed input: global batches split into per-replica batches on each replica's device."""

import numpy as np

from tfcore.data.iterators import Optional
from tfcore.framework import context as _ctx
from tfcore.framework import nest, tracing
from tfcore.framework.errors import OutOfRangeError
from tfcore.framework.tensor import Tensor
from tfcore.framework.tensor_conversion import convert_to_tensor
from tfcore.ops.array_ops import slice as slice_op
from tfcore.ops.array_ops import split

from .values import PerReplica


class InputContext:
    """``tf.distribute.InputContext``: what a dataset function needs to shard and size its batches."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


def _to_device(t, dev):
    if not isinstance(t, Tensor):
        with _ctx.device(dev.name):
            return convert_to_tensor(t)
    return t._copy_to(dev)


def _split_sizes(n, parts):
    """Per-replica sizes of a global batch of ``n`` (as even as possible, earlier replicas larger)."""
    return [len(a) for a in np.array_split(np.arange(n), parts)]


def split_batch(element, devices):
    """One global-batch element -> the same structure with PerReplica leaves."""

    n = len(devices)

    def walk(s):
        if isinstance(s, dict):
            return type(s)((k, walk(v)) for k, v in s.items())
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*[walk(v) for v in s])
        if isinstance(s, list | tuple):
            return type(s)(walk(v) for v in s)
        t = s if isinstance(s, Tensor) else _to_device(s, devices[0])
        if t.shape.rank == 0:
            return PerReplica([_to_device(t, d) for d in devices])
        parts = split(t, _split_sizes(int(t.shape[0]), n), axis=0) if n > 1 else [t]
        return PerReplica([_to_device(p, d) for p, d in zip(parts, devices)])

    return walk(element)


def _rows(t, start, stop):
    if isinstance(t, np.ndarray):
        return t[start:stop]

    return slice_op(t, [start] + [0] * (t.shape.rank - 1), [stop - start] + [-1] * (t.shape.rank - 1))


def worker_rows(element, num_workers, index):
    """Worker ``index``'s share of one global batch: its contiguous rows (``np.array_split`` sizes, earlier
    workers larger) of every batched leaf; scalars are kept whole."""
    if num_workers <= 1:
        return element

    def cut(leaf):
        if isinstance(leaf, Tensor | np.ndarray) and len(leaf.shape) > 0:
            sizes = _split_sizes(int(leaf.shape[0]), num_workers)
            start = sum(sizes[:index])
            return _rows(leaf, start, start + sizes[index])
        return leaf


    return nest.map_structure(cut, element)


def worker_batches(elements, num_workers, index, policy):
    """This worker's batches from ``elements`` (the global batches its pipeline yields), as TF rebatches and
    shards them: ``DATA``: its rows of every global batch; ``FILE``/``OFF`` (its pipeline holds its own data, or
    everybody's): every batch cut into ``num_workers`` pieces taken in turn, so that one step of the job
    consumes one global batch's worth of rows."""
    name = getattr(policy, "name", policy)
    for element in elements:
        if num_workers <= 1:
            yield element
        elif name == "DATA":
            yield worker_rows(element, num_workers, index)
        else:
            for piece in range(num_workers):
                yield worker_rows(element, num_workers, piece)


def _stack_replicas(elements, devices):
    """N per-replica elements with one structure -> one structure of PerReplica leaves."""
    first = elements[0]
    if isinstance(first, dict):
        return type(first)((k, _stack_replicas([e[k] for e in elements], devices)) for k in first)
    if isinstance(first, list | tuple):
        return type(first)(_stack_replicas([e[i] for e in elements], devices) for i in range(len(first)))
    return PerReplica([_to_device(e, d) for e, d in zip(elements, devices)])


class InputReplicationMode:
    """``tf.distribute.InputReplicationMode``: how input pipelines map to replicas."""

    PER_WORKER = "PER_WORKER"    # one pipeline per worker, its batches split across the worker's replicas
    PER_REPLICA = "PER_REPLICA"  # one pipeline per replica (distribute_datasets_from_function only)


class InputOptions:
    """``tf.distribute.InputOptions``: options for ``experimental_distribute_dataset`` and
    ``distribute_datasets_from_function``.

    ``experimental_fetch_to_device`` (default True) copies each per-replica element to its replica's device;
    False leaves elements in host memory. ``experimental_replication_mode`` is an
    :class:`InputReplicationMode`; ``experimental_place_dataset_on_device`` and
    ``experimental_per_replica_buffer_size`` are kept for TF compatibility (tfcore's pipelines run on the host).
    """

    __slots__ = ("experimental_fetch_to_device", "experimental_replication_mode",
                 "experimental_place_dataset_on_device", "experimental_per_replica_buffer_size")

    def __init__(self, experimental_fetch_to_device=None, experimental_replication_mode=InputReplicationMode.PER_WORKER,
                 experimental_place_dataset_on_device=False, experimental_per_replica_buffer_size=1):
        if experimental_replication_mode not in (InputReplicationMode.PER_WORKER, InputReplicationMode.PER_REPLICA):
            raise ValueError(f"experimental_replication_mode must be an InputReplicationMode, "
                             f"got {experimental_replication_mode!r}")
        if int(experimental_per_replica_buffer_size) < 0:
            raise ValueError("experimental_per_replica_buffer_size must be >= 0")
        self.experimental_fetch_to_device = True if experimental_fetch_to_device is None else bool(
            experimental_fetch_to_device)
        self.experimental_replication_mode = experimental_replication_mode
        self.experimental_place_dataset_on_device = bool(experimental_place_dataset_on_device)
        self.experimental_per_replica_buffer_size = int(experimental_per_replica_buffer_size)

    def __eq__(self, other):
        return isinstance(other, InputOptions) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __hash__(self):
        return hash(tuple(getattr(self, k) for k in self.__slots__))

    def __repr__(self):
        return "InputOptions(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"


def check_options(options, from_function):
    """TF's validation of ``options`` for the two input entry points; returns the options to use."""
    if options is None:
        return InputOptions()
    if not isinstance(options, InputOptions):
        raise TypeError(f"options must be a tf.distribute.InputOptions, got {type(options).__name__}")
    if not from_function:
        if options.experimental_replication_mode == InputReplicationMode.PER_REPLICA:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`distribute_datasets_from_function`.")
        if options.experimental_place_dataset_on_device:
            raise NotImplementedError("`experimental_place_dataset_on_device` can not be set to True when "
                                      "using experimental_distribute_dataset.")
    elif options.experimental_place_dataset_on_device and options.experimental_fetch_to_device:
        raise ValueError("`experimental_place_dataset_on_device` can not be set to True when "
                         "experimental_fetch_to_device is True and replication mode is set to `PER_REPLICA`.")
    return options


def _host_devices(devices):
    return [_ctx.context.find("CPU", 0)] * len(devices)


class DistributedIterator:
    """``tf.distribute.DistributedIterator``: iterates a :class:`DistributedDataset`; each element is the input of
    one step for every replica (``PerReplica`` leaves)."""

    def __init__(self, elements, element_spec=None):
        self._elements = elements
        self._element_spec = element_spec
        # made inside a trace (a Python loop over the dataset there): its elements unroll into that trace
        self._made_while_tracing = bool(tracing.ACTIVE[0] and tracing.is_tracing())

    def __iter__(self):
        return self

    def __next__(self):
        if tracing.ACTIVE[0] and not self._made_while_tracing and tracing.is_tracing():
            return self._next_in_graph()
        return next(self._elements)

    def _next_in_graph(self):
        """``next(iterator)`` while a tf.function traces, on an iterator made outside it: one stateful graph
        node that takes the next element on every call (TF's ``IteratorGetNext`` on each worker), not the
        trace's element kept as a constant. Its outputs are the replicas' tensors of every leaf, packed back
        into ``PerReplica`` values. At the end a call raises ``OutOfRangeError``, as TF's."""
        state = {"tracing": True, "structure": None}

        def get_next():
            try:
                element = next(self._elements)
            except StopIteration:
                if state["tracing"]:
                    raise
                raise OutOfRangeError(None, None, "End of sequence") from None
            leaves = nest.flatten(element)
            if state["structure"] is None:
                state["structure"] = (element, [len(x.values) if isinstance(x, PerReplica) else None
                                                for x in leaves])
            return [t for x in leaves for t in (x.values if isinstance(x, PerReplica) else (x,))]

        flat = iter(tracing.call_python(get_next, [], name="IteratorGetNext"))
        state["tracing"] = False
        element, counts = state["structure"]
        leaves = [next(flat) if n is None else PerReplica(tuple(next(flat) for _ in range(n))) for n in counts]
        return nest.pack_sequence_as(element, leaves)

    def get_next(self):
        """The next element; raises ``tf.errors.OutOfRangeError`` at the end."""

        try:
            return next(self._elements)
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """The next element as a ``tf.experimental.Optional`` (empty at the end)."""

        try:
            return Optional(next(self._elements), self._element_spec)
        except StopIteration:
            return Optional.empty(self._element_spec)

    @property
    def element_spec(self):
        return self._element_spec


class DistributedDataset:
    """``tf.distribute.DistributedDataset``: what ``experimental_distribute_dataset`` returns. Iterating it
    splits each global batch into one batch per replica (on its device, unless
    ``InputOptions(experimental_fetch_to_device=False)``)."""

    def __init__(self, dataset, devices, options=None, worker=None):
        self._dataset = dataset
        self._devices = devices
        self._options = options if options is not None else InputOptions()
        self._worker = worker  # (num_workers, worker index, AutoShardPolicy applied) in a multi-worker job

    @property
    def element_spec(self):
        return getattr(self._dataset, "element_spec", None)

    def _placement(self):
        return self._devices if self._options.experimental_fetch_to_device else _host_devices(self._devices)

    def _elements(self):
        placement = self._placement()
        elements = iter(self._dataset)
        if self._worker is not None:
            elements = worker_batches(elements, *self._worker)
        for element in elements:
            yield split_batch(element, placement)

    def __iter__(self):
        return DistributedIterator(self._elements(), self.element_spec)

    def reduce(self, initial_state, reduce_fn):
        """Fold ``reduce_fn(state, element)`` over the distributed elements."""
        state = initial_state
        for element in self:
            state = reduce_fn(state, element)
        return state


class DistributedDatasetFromFunction(DistributedDataset):
    """What ``distribute_datasets_from_function`` returns: each step takes one element (a per-replica batch) for
    every replica."""

    def _elements(self):
        it = iter(self._dataset)
        n = len(self._devices)
        placement = self._placement()
        while True:
            batch = []
            for _ in range(n):
                try:
                    batch.append(next(it))
                except StopIteration:
                    return
            yield _stack_replicas(batch, placement)
