"""Distributed values: PerReplica results, Mirrored values and mirrored variables.

A :class:`MirroredVariable` keeps one ``tf.Variable`` per replica device. Reads
resolve to the copy of the replica running on this thread (or of the device in
scope); writes in cross-replica context update every copy, so the copies stay
identical. Variables created with ``synchronization=ON_READ`` (metrics) become
:class:`SyncOnReadVariable`: each replica accumulates into its own copy and a
cross-replica read aggregates them.
"""

from tfcore.framework import context as _ctx
from tfcore.framework import recording, tracing
from tfcore.framework.tensor import Tensor
from tfcore.framework.variables import (
    ResourceVariable,
    Variable,
    VariableAggregation,
    VariableSynchronization,
    keras_variable_repr,
)
from tfcore.ops.math_ops import add_n, truediv

from . import distribute_lib
from .reduce_util import ReduceOp


class DistributedValues:
    """One value per replica (``tf.distribute.DistributedValues``)."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        return self._values

    def _primary(self):
        return self._values[0]

    def __len__(self):
        return len(self._values)

    # TF's nest protocol: tf.function keys a distributed value by its components' specs (never by identity)
    # and traces them as placeholders, so a distributed dataset's batches reuse one trace.
    def __tf_flatten__(self):
        return None, self._values

    @classmethod
    def __tf_unflatten__(cls, metadata, components):
        return cls(components)

    def __str__(self):  # TF: the components' str (``tf.Tensor(...)``); repr shows their repr
        body = ",\n".join(f"  {i}: {v!s}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    def __repr__(self):
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"


class PerReplica(DistributedValues):
    """Values that differ per replica: ``strategy.run`` results, distributed batches."""


class Mirrored(DistributedValues):
    """Identical values on every replica device (e.g. an all-reduced gradient)."""


def select_replica(index, structure):
    """Replace each distributed value inside ``structure`` by its ``index``-th component."""
    if isinstance(structure, DistributedValues):
        return structure.values[index]
    if isinstance(structure, MirroredVariable):
        return structure
    if isinstance(structure, dict):
        return type(structure)((k, select_replica(index, v)) for k, v in structure.items())
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*[select_replica(index, v) for v in structure])
    if isinstance(structure, list | tuple):
        return type(structure)(select_replica(index, v) for v in structure)
    return structure


def regroup(per_replica_outputs):
    """N replica outputs with one structure -> one structure of PerReplica leaves."""
    first = per_replica_outputs[0]
    if len(per_replica_outputs) == 1:
        return first
    if isinstance(first, dict):
        return type(first)((k, regroup([o[k] for o in per_replica_outputs])) for k in first)
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*[regroup([o[i] for o in per_replica_outputs]) for i in range(len(first))])
    if isinstance(first, list | tuple):
        return type(first)(regroup([o[i] for o in per_replica_outputs]) for i in range(len(first)))
    if first is None:
        return None
    if all(o is first for o in per_replica_outputs):
        return first  # the same object (e.g. a MirroredVariable) from every replica
    return PerReplica(per_replica_outputs)


class MirroredVariable(Variable):
    """A variable with one synchronised copy per replica device (``tf.distribute`` MirroredVariable)."""

    def __init__(self, *args, **kwargs):
        # Built by `_create`; Python calls __init__ again with tf.Variable's arguments when a
        # strategy's creator returns this object from Variable.__new__: nothing to do then.
        if "_components" not in self.__dict__:
            raise TypeError("MirroredVariable is created by a strategy's scope(), not directly")

    @classmethod
    def _create(cls, strategy, components, aggregation=VariableAggregation.NONE):
        self = object.__new__(cls)
        primary = components[0]
        self._strategy = strategy
        self._components = tuple(components)
        self._trainable = primary._trainable
        self._shape = primary._shape
        self._name = primary._name
        self._constraint = primary._constraint
        self._synchronization = primary._synchronization
        self._aggregation = aggregation
        self._uid = primary._uid
        return self

    # -- which copy -----------------------------------------------------------------------
    def _component(self):
        idx = distribute_lib.current_component()
        if idx is not None:
            return self._components[idx]
        dev = _ctx.current_device()
        if dev is not None:
            for c in self._components:
                if c._value._device is dev:
                    return c
        return self._components[0]

    @property
    def values(self):
        return self._components

    @property
    def _value(self):
        return self._component()._value

    @property
    def _device(self):
        return self._component()._value._device

    def _tfc_read(self):
        if recording.active_tapes():
            recording.variable_accessed(self)
        if tracing.ACTIVE[0]:  # a traced read of this replica's copy (replayed per call)
            return tracing.read_variable(self._component())
        return self._component()._value

    @property
    def device(self):
        return self._component().device

    # -- writes -----------------------------------------------------------------------------
    def _update(self, method, value, read_value):
        ctx = distribute_lib.current_replica_context()
        if ctx is not None and (ctx._collective is None or ctx.num_replicas_in_sync == 1):  # nothing to synchronise
            getattr(self._components[ctx.replica_id_in_sync_group_int], method)(value)
        elif ctx is not None:
            if self._aggregation == VariableAggregation.NONE:
                raise ValueError(
                    "You must specify an aggregation method to update a MirroredVariable in Replica Context. "
                    f"(variable {self._name}); use strategy.extended.update or an aggregation.")
            if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
                value = ctx._broadcast_from_first(value)
            else:
                value = ctx.all_reduce(ReduceOp.from_variable_aggregation(self._aggregation), value)
            getattr(self._components[ctx.replica_id_in_sync_group_int], method)(value)
        elif (component := distribute_lib.current_component()) is not None:
            getattr(self._components[component], method)(value)
        else:
            self._update_all(method, value)
        return self if read_value else None

    def _update_all(self, method, value):
        if isinstance(value, DistributedValues):
            values = value.values
        else:
            values = [value] * len(self._components)
        # validate everything first so a bad value changes no copy
        coerced = [c._coerce(v, method) for c, v in zip(self._components, values)]
        for c, v in zip(self._components, coerced):
            getattr(c, method)(v)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._update("assign", value, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_add", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("assign_sub", delta, read_value)

    def __repr__(self):
        if self._keras_path is not None:  # a Keras 3 weight prints as keras.Variable (its value: a MirroredVariable)
            return keras_variable_repr(self)
        body = ",\n".join(f"  {i}: {c!r}" for i, c in enumerate(self._components))
        return f"MirroredVariable:{{\n{body}\n}}"


class SyncOnReadVariable(MirroredVariable):
    """Per-replica accumulators (metrics): replica writes stay local, cross-replica reads aggregate."""

    def _aggregated(self):
        comps = [c._value for c in self._components]
        if self._aggregation == VariableAggregation.ONLY_FIRST_REPLICA or (
                len(comps) == 1 and not self._strategy._synchronizes_workers):
            return comps[0]
        home = comps[0]._device
        moved = [t._copy_to(home) for t in comps]
        total = add_n(moved) if len(moved) > 1 else moved[0]
        total = self._strategy._sum_across_workers(total)  # other processes' replicas (multi-worker)
        if self._aggregation == VariableAggregation.MEAN:
            total = total / self._strategy.num_replicas_in_sync
        return total

    def _tfc_read(self):
        if distribute_lib.current_component() is not None:
            return super()._tfc_read()
        return self._aggregated()

    @property
    def _value(self):
        if distribute_lib.current_component() is not None:
            return self._component()._value
        return self._aggregated()

    def _update(self, method, value, read_value):
        idx = distribute_lib.current_component()
        if idx is not None:
            getattr(self._components[idx], method)(value)
        elif method == "assign" and self._aggregation == VariableAggregation.SUM:
            n = self._strategy.num_replicas_in_sync
            share = truediv(value, n) if not isinstance(value, DistributedValues) else value
            self._update_all("assign", share)
        elif method != "assign" and self._aggregation == VariableAggregation.SUM:
            getattr(self._components[0], method)(value)
        else:
            self._update_all(method, value)
        return self if read_value else None

    def numpy(self):
        return self.value().numpy()


def make_variable(strategy, devices, args, kwargs):
    """The variable creator a strategy installs in ``scope()``: one copy per device."""
    kwargs = dict(kwargs)
    if args:
        kwargs["initial_value"] = args[0]
        for name, value in zip(("trainable", "validate_shape", "caching_device", "name"), args[1:]):
            kwargs[name] = value
    init = kwargs.pop("initial_value", None)
    if callable(init) and not isinstance(init, Tensor | Variable):
        with _ctx.device(devices[0].name):
            init = init()
    kwargs.pop("device", None)
    components = []
    for i, dev in enumerate(devices):
        v = object.__new__(ResourceVariable)  # each replica's copy is a plain variable, as TF's
        value = init if i == 0 or not isinstance(init, Tensor | Variable) else components[0]._value
        v.__init__(value, device=dev, **kwargs)
        components.append(v)
    sync = kwargs.get("synchronization", VariableSynchronization.AUTO)
    aggregation = kwargs.get("aggregation", VariableAggregation.NONE)
    if sync == VariableSynchronization.ON_READ:
        return SyncOnReadVariable._create(strategy, components, aggregation)
    return MirroredVariable._create(strategy, components, aggregation)
