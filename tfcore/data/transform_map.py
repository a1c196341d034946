"""Transformations that run user functions: map, filter, flat_map/interleave, take_while,
scan, unique, and ``Dataset.reduce``.

``map``, ``filter``, ``take_while``, ``scan`` and ``reduce`` functions are traced once into a
graph when the transformation is created (``Dataset.reduce``: when it is called), with the
input's representative element, and replayed per element, as TF does (see :mod:`._runtime`):
Python side effects happen at trace time, ``tf.print``/``tf.py_function`` per element.
``flat_map``/``interleave`` functions return datasets, which tfcore graphs cannot hold: they
still run eagerly, once per element. Functions see CPU tensors, run with ``CPU:0`` as the
device scope and with no gradient tape recording.
"""

import collections
import time

import numpy as np

from ..framework import tracing
from ..framework.errors import OpError
from ..framework.tensor import Tensor
from . import autotune, structure
from ._runtime import DataFunction, StateFunction, autotune_parallelism
from .chunks import Failure, chunked
from .dataset_ops import DatasetV2, UnaryDataset, UnaryUnchangedStructureDataset, check_scalar_int
from .iterators import IterContext
from .options import AUTOTUNE, UNKNOWN_CARDINALITY
from .threads import ParallelMapIterator, PrefetchIterator, close_iterator

# Elements a parallel map may run ahead of its consumer. Larger than TF's (which bounds it
# by num_parallel_calls) because each thread hand-off costs ~10 us here; a deep buffer lets
# workers and consumer run in long stretches.
_MAP_BUFFER = 32


def _parallelism(value, ctx, what):
    """Worker count for ``num_parallel_calls``/``cycle_length`` (AUTOTUNE: the usable cores)."""
    n = check_scalar_int(value, what)
    if n == AUTOTUNE:
        n = autotune_parallelism()
        if ctx is not None and ctx.threadpool_size:
            n = min(n, ctx.threadpool_size)
    elif n <= 0:
        raise ValueError(f"{what} must be positive or tf.data.AUTOTUNE, got {n}")
    return n


def _unknown_sizes_followed(fn, input_spec, spec):
    """``spec`` (the trace's output shapes) with None where a size follows an unknown input size.

    TF traces ``map`` with symbolic shapes, so a batch dimension of None stays None. tfcore traces with a
    real element (batch 32): the traced graph is replayed once on that element resized to other sizes in
    the input's None dimensions, and the output sizes that change become None. A graph that cannot run
    on the resized element (an op that baked a size in) keeps the trace's sizes.
    """
    element = fn.trace_input
    in_specs = structure.flatten(input_spec)
    if element is None or not any(_has_unknown_dim(s) for s in in_specs):
        return spec
    leaves = structure.flatten(element)
    if len(leaves) != len(in_specs) or any(type(t) is not Tensor for t in leaves):
        return spec
    resized = structure.pack_as(element, [_resized(t, s) for t, s in zip(leaves, in_specs)])
    try:
        other = fn.replay_first_graph(resized)
        return spec if other is None else structure.relax_spec(spec, structure.spec_of(other))
    except Exception:  # noqa: BLE001 - the trace's sizes stand when the graph cannot run on other sizes
        return spec


def _has_unknown_dim(s):
    shape = getattr(s, "shape", None)
    return shape is not None and (shape.rank is None or None in shape.as_list())


def _resized(t, s):
    """``t`` with each dimension that ``s`` leaves unknown one longer (its values repeated, so strings stay
    parseable records and numbers stay in range)."""
    shape = getattr(s, "shape", None)
    if shape is None or shape.rank is None or shape.rank != t._array.ndim:
        return t
    dims = [n if d is not None else n + 1 for n, d in zip(t._array.shape, shape.as_list())]
    arr = np.resize(np.asarray(t._array), dims)
    return Tensor(arr, t._dtype, t._device)


def _first_element_spec(dataset, fn):
    """element_spec of ``dataset.map(fn)`` for an untraced ``fn``: ``fn`` applied to the input's
    representative element (TF derives it by tracing ``fn``)."""
    return structure.spec_of(fn(first_element(dataset)))


def first_element(dataset):
    """The first element of ``dataset`` (zeros shaped like its spec when it is empty)."""

    with tracing.suspended():  # a dataset built inside a tf.function trace: nothing here is recorded
        it = dataset._make_iter(IterContext(dataset.options()))
        try:
            first = next(it, None)
        finally:
            close_iterator(it)
    return dummy_element(dataset.element_spec) if first is None else first


def dummy_element(spec, unknown=0):
    """Zeros matching ``spec`` (unknown dimensions as ``unknown``; strings empty)."""
    dev = structure.cpu_device()

    def leaf(s):
        dims = [unknown if d is None else d for d in (s.shape.as_list() if s.shape.rank is not None else [])]
        return Tensor(np.zeros(dims, dtype=s.dtype.as_numpy_dtype), s.dtype, dev)
    return structure.map_structure(leaf, spec)


class MapDataset(UnaryDataset):
    """``map(map_func, num_parallel_calls, deterministic)``.

    ``num_parallel_calls=None`` runs the function in the consumer's thread; an int runs
    exactly that many worker threads; ``AUTOTUNE`` lets :mod:`.autotune` choose, while
    the first iterator runs, between running inline and 1..cores workers. Later
    iterators of the same dataset reuse that choice.
    """

    def __init__(self, input_dataset, map_func, num_parallel_calls=None, deterministic=None):
        super().__init__(input_dataset)
        if num_parallel_calls is not None:
            _parallelism(num_parallel_calls, None, "num_parallel_calls")  # validate now
        self._fn = _data_function(map_func, input_dataset)
        self._num_parallel_calls = num_parallel_calls
        self._deterministic = deterministic
        self._spec = None
        self._autotuned_level = None  # AUTOTUNE's final choice of worker threads (0: inline)

    @property
    def element_spec(self):
        if self._spec is None:
            out = self._fn.trace_output
            if out is None:
                self._spec = _first_element_spec(self._input, self._fn)
            else:
                self._spec = _unknown_sizes_followed(self._fn, self._input.element_spec, structure.spec_of(out))
        return self._spec

    def _trace_element(self):
        out = self._fn.trace_output
        return out if out is not None else super()._trace_element()

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        upstream = self._input._make_iter(ctx)
        if self._num_parallel_calls is None:
            return SequentialMap(upstream, self._fn)
        workers = _parallelism(self._num_parallel_calls, ctx, "num_parallel_calls")
        det = ctx.deterministic if self._deterministic is None else bool(self._deterministic)
        if check_scalar_int(self._num_parallel_calls, "num_parallel_calls") == AUTOTUNE:
            if self._autotuned_level == 0:
                return SequentialMap(upstream, self._fn)
            return AutotunedMap(upstream, self._fn, workers, det, self)
        return ParallelMapIterator(upstream, self._fn, workers, det, capacity=max(_MAP_BUFFER, 4 * workers))


def _data_function(fn, input_dataset, normalize=True):
    """``fn`` traced over ``input_dataset``'s elements (see :class:`~._runtime.DataFunction`).

    An op error while tracing with the representative element (a value the function cannot
    handle, e.g. a record it cannot parse) leaves the function untraced until its first element,
    where it traces again (its Python code then runs a second time).
    """
    with tracing.suspended():
        element = input_dataset._trace_element()
    try:
        return DataFunction(fn, normalize, element=element)
    except OpError:
        return DataFunction(fn, normalize, element=element, trace="deferred")


class SequentialMap:
    """``fn`` over an upstream iterator in the consumer's thread, element by element or by chunks.

    ``__next__`` maps one element; ``next_chunk(n)`` (the chunk protocol) maps a run
    of inputs inside one device scope. An exception raised by ``fn`` fails only its
    element, as in TF: iteration can continue after it. ``_ready`` holds results
    waiting to be delivered (failures as :class:`~.chunks.Failure`), ``_todo`` inputs
    pulled but not mapped yet (both empty except after a failure or an AUTOTUNE switch).
    """

    __slots__ = ("_up", "_fn", "_ready", "_todo")

    def __init__(self, it, fn):
        self._up = chunked(it)
        self._fn = fn
        self._ready = collections.deque()
        self._todo = []

    def __iter__(self):
        return self

    def __next__(self):
        if self._ready:
            x = self._ready.popleft()
            if type(x) is Failure:
                raise x.exc
            return x
        if self._todo:
            return self._fn(self._todo.pop(0))
        return self._fn(next(self._up))

    def next_chunk(self, n):
        ready = self._ready
        if ready:
            out = []
            while ready and len(out) < n:
                x = ready[0]
                if type(x) is Failure:
                    if not out:
                        ready.popleft()
                        raise x.exc
                    break
                out.append(ready.popleft())
            return out
        todo = self._todo
        if todo:
            xs, self._todo = todo[:n], todo[n:]
        else:
            xs = self._up.next_chunk(n)
        out = self._fn.map_chunk(xs, True)
        if out and type(out[-1]) is Failure:
            failure = out.pop()
            self._todo = xs[len(out) + 1:] + self._todo
            if not out:
                raise failure.exc
            ready.append(failure)  # raised by the next call, at its position
        return out

    def close(self):
        close_iterator(self._up)


class AutotunedMap:
    """``map(num_parallel_calls=AUTOTUNE)``: inline or worker threads, as :mod:`.autotune` decides.

    Starts inline (a :class:`SequentialMap`), reports every delivery to the tuner and
    switches level when it says so: to ``k`` workers by starting a
    :class:`~.threads.ParallelMapIterator` on the same upstream, back by detaching it
    (its already-pulled results are delivered first, in order). The final level is
    remembered by the dataset for its later iterators.
    """

    __slots__ = ("_seq", "_par", "_tuner", "_level", "_owner", "_det", "_clock")

    def __init__(self, upstream, fn, max_workers, deterministic, owner):
        self._seq = SequentialMap(upstream, fn)
        self._par = None
        self._owner = owner
        self._det = deterministic
        self._clock = time.perf_counter
        self._level = 0
        cached = owner._autotuned_level
        if cached is not None:
            self._tuner = None
            self._switch(cached, None)
        else:
            self._tuner = autotune.make_map_tuner(max_workers)

    def __iter__(self):
        return self

    def _switch(self, level, element_seconds):
        """Run ``level`` workers from now on (0: inline). Pending results stay first in line."""
        par, self._par = self._par, None
        seq = self._seq
        if par is not None:
            pending, _ = par.detach()
            seq._ready.extend(pending)
        if level > 0 and seq._todo:  # inputs left unmapped by an inline failure go first
            todo, seq._todo = seq._todo, []
            seq._ready.extend(seq._fn.map_chunk(todo, False))
        if level > 0:
            self._par = ParallelMapIterator(seq._up, seq._fn, level, self._det, capacity=max(_MAP_BUFFER, 4 * level),
                                            element_seconds=element_seconds)
        self._level = level

    def _after(self, n, fn_seconds):
        tuner = self._tuner
        if tuner.record(n, fn_seconds, self._clock()):
            self._switch(tuner.level, tuner.fn_cost)
        if tuner.final:
            self._tuner = None
            self._owner._autotuned_level = tuner.level

    def _can_run_parallel(self):
        return self._par is not None and not self._seq._ready

    def __next__(self):
        return self.next_chunk(1)[0] if self._tuner is not None else \
            (next(self._par) if self._can_run_parallel() else next(self._seq))

    def next_chunk(self, n):
        inline = not self._can_run_parallel()
        src = self._seq if inline else self._par
        if self._tuner is None:
            return src.next_chunk(n)
        t0 = self._clock()
        got = 1  # a failed element counts as delivered
        try:
            out = src.next_chunk(n)
            got = len(out)
            return out
        except StopIteration:
            got = 0
            raise
        finally:
            if got:
                self._after(got, self._clock() - t0 if inline else 0.0)

    def close(self):
        par, self._par = self._par, None
        if par is not None:
            par.close()
        self._seq.close()


def _as_predicate_result(value):
    if type(value) is Tensor:
        if value._array.ndim != 0 or not value._dtype.is_bool:
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {value._dtype.name} with shape {value.shape}.")
        return bool(value._array)
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, got {value!r}.")


class FilterDataset(UnaryUnchangedStructureDataset):
    """``filter(predicate)``: keeps elements whose predicate is a true scalar bool."""

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._pred = _data_function(predicate, input_dataset, normalize=False)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        pred = self._pred
        try:
            for x in it:
                if _as_predicate_result(pred(x)):
                    yield x
        finally:
            close_iterator(it)


class TakeWhileDataset(UnaryUnchangedStructureDataset):
    """``take_while(predicate)``: elements up to (excluding) the first failing the predicate."""

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._pred = _data_function(predicate, input_dataset, normalize=False)

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        try:
            for x in it:
                if not _as_predicate_result(self._pred(x)):
                    return
                yield x
        finally:
            close_iterator(it)


class InterleaveDataset(UnaryDataset):
    """``interleave``/``flat_map``: TF's cycle/block order over datasets made from input elements.

    ``cycle_length`` input elements are open at once; ``block_length`` consecutive
    elements are taken from each before moving to the next; an exhausted slot is
    refilled from the input when the cycle comes back to it. With
    ``num_parallel_calls`` each open dataset is produced ahead on its own thread
    (same output order).
    """

    def __init__(self, input_dataset, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                 deterministic=None):
        super().__init__(input_dataset)
        self._fn = DataFunction(map_func, normalize=False, trace=False)  # returns datasets: runs eagerly
        self._cycle_length = AUTOTUNE if cycle_length is None else check_scalar_int(cycle_length, "cycle_length")
        self._block_length = 1 if block_length is None else check_scalar_int(block_length, "block_length")
        if self._block_length <= 0:
            raise ValueError(f"block_length must be positive, got {self._block_length}")
        if self._cycle_length != AUTOTUNE and self._cycle_length <= 0:
            raise ValueError(f"cycle_length must be positive or AUTOTUNE, got {self._cycle_length}")
        self._parallel = num_parallel_calls is not None
        self._spec = None

    def _open(self, element, ctx):
        ds = self._fn(element)
        if not isinstance(ds, DatasetV2):
            raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(ds).__name__}.")
        it = ds._make_iter(ctx)
        return PrefetchIterator(it, self._block_length) if self._parallel else it

    @property
    def element_spec(self):
        if self._spec is None:
            ds = self._fn(self._input._trace_element())
            if not isinstance(ds, DatasetV2):
                raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(ds).__name__}.")
            self._spec = ds.element_spec
        return self._spec

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _make_iter(self, ctx):
        cycle = _parallelism(self._cycle_length, ctx, "cycle_length")
        block = self._block_length
        inp = self._input._make_iter(ctx)
        cur = [None] * cycle
        idx = pos = num_open = 0
        end_of_input = False
        try:
            if self._parallel:  # open the first cycle now so all of it is produced in the background
                for k in range(cycle):
                    e = next(inp, _NONE)
                    if e is _NONE:
                        end_of_input = True
                        break
                    cur[k] = self._open(e, ctx)
                    num_open += 1
            while not end_of_input or num_open:
                c = cur[idx]
                if c is not None:
                    try:
                        x = next(c)
                    except StopIteration:
                        cur[idx] = None
                        num_open -= 1
                        close_iterator(c)
                        pos, idx = 0, (idx + 1) % cycle
                        continue
                    pos += 1
                    if pos == block:
                        pos, idx = 0, (idx + 1) % cycle
                    yield x
                elif not end_of_input:
                    e = next(inp, _NONE)
                    if e is _NONE:
                        end_of_input = True
                    else:
                        cur[idx] = self._open(e, ctx)
                        num_open += 1
                else:
                    pos, idx = 0, (idx + 1) % cycle
        finally:
            for c in cur:
                if c is not None:
                    close_iterator(c)
            close_iterator(inp)


_NONE = object()


class ScanDataset(UnaryDataset):
    """``scan(initial_state, scan_func)``: ``(state, out) = scan_func(state, element)``, yields ``out``."""

    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        self._initial = structure.normalize_element(initial_state)
        self._fn = _state_function(scan_func, self._scan_result, self._initial, input_dataset)
        self._spec = None

    def _scan_result(self, out):
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise TypeError("The scan function must return a pair comprising the new state and the output value.")
        new_state = structure.normalize_element(out[0])
        structure.assert_same_structure(self._initial, new_state)
        return new_state, structure.normalize_element(out[1], top_level_list_to_tuple=True)

    def _step(self, state, x):
        return self._fn(state, x)

    @property
    def element_spec(self):
        if self._spec is None:
            out = self._fn.trace_output
            self._spec = structure.spec_of(out[1]) if out is not None else \
                _first_element_spec(self._input, lambda x: self._step(self._initial, x)[1])
        return self._spec

    def _trace_element(self):
        out = self._fn.trace_output
        return out[1] if out is not None else super()._trace_element()

    def _cardinality(self):
        return self._input._cardinality()

    def _make_iter(self, ctx):
        it = self._input._make_iter(ctx)
        state = self._initial
        try:
            for x in it:
                state, out = self._step(state, x)
                yield out
        finally:
            close_iterator(it)


class UniqueDataset(UnaryUnchangedStructureDataset):
    """``unique()``: first occurrence of each scalar value (int or string elements)."""

    def _make_iter(self, ctx):
        seen = set()
        it = self._input._make_iter(ctx)
        try:
            for x in it:
                if type(x) is not Tensor:
                    raise TypeError("Dataset.unique() supports only datasets of single tensors")
                key = x._array.item() if x._array.ndim == 0 else x._array.tobytes()
                if key not in seen:
                    seen.add(key)
                    yield x
        finally:
            close_iterator(it)


def _state_function(fn, post, state, input_dataset):
    """A ``scan``/``reduce`` function traced with ``state`` and the input's representative element
    (an op error there defers the trace to the first element, as :func:`_data_function`)."""
    with tracing.suspended():
        element = input_dataset._trace_element()
    try:
        return StateFunction(fn, post, state, element)
    except OpError:
        return StateFunction(fn, post, state, element, trace="deferred")


def reduce_dataset(dataset, initial_state, reduce_func):
    """``Dataset.reduce``: fold every element into the state with ``reduce_func(state, element)``.

    ``reduce_func`` is traced once, when ``reduce`` is called, and replayed per element.
    """
    state = structure.normalize_element(initial_state)

    def checked(out):
        new_state = structure.normalize_element(out, top_level_list_to_tuple=True)
        try:
            structure.assert_same_structure(state, new_state)
        except ValueError as e:
            raise TypeError(f"The element types for the new state must match the initial state. Expected "
                            f"{structure.spec_of(state)}; got {structure.spec_of(new_state)}.") from e
        for old, new in zip(structure.flatten(state), structure.flatten(new_state)):
            if old._dtype is not new._dtype:
                raise TypeError(f"The element types for the new state must match the initial state. Expected "
                                f"{old._dtype.name}; got {new._dtype.name}.")
        return new_state

    fn = _state_function(reduce_func, checked, state, dataset)
    for x in dataset:
        state = fn(state, x)
    return state
