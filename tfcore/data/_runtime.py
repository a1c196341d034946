"""How tf.data runs user code: traced dataset functions, their device scope, and seeds.

As in TF, a function given to ``map``, ``filter``, ``take_while``, ``scan`` or ``reduce`` is
*traced* once into a graph when the dataset is built (``map()`` call time), with arguments
shaped like the input's elements, and every element replays that graph
(:class:`TracedFunction`). AutoGraph converts Python ``if``/``while``/``for`` on tensors; Python
side effects (``print``, appending to a list) happen at trace time only, ``tf.print`` and
``tf.py_function``/``tf.numpy_function`` run for every element, and reading an element's value
into Python (``.numpy()``, ``bool(x)``) raises TF's error for symbolic tensors.

tfcore traces with values (see ``function/func_graph.py``): the trace runs on a *representative*
element of the input (``Dataset._trace_element()``: a real element where that is cheap, computed
without replaying upstream functions), with ``tf.print`` not printing, seeded random generators
rewound afterwards and variable values left as they are read. Because tfcore's ops may read static
shapes in Python, a graph is kept per static input shape: a fully defined ``element_spec`` traces
once; with ``None`` dimensions, the second distinct shape traces once more and, when both graphs
are the same, that graph serves every shape from then on (otherwise one graph per shape, as
``tf.function`` here does for ``None`` dimensions).

Functions whose elements or results are not tensors (datasets returned to ``flat_map`` /
``interleave``, sparse or ragged components, ``window``'s nested datasets), and every function
after ``tf.data.experimental.enable_debug_mode()``, run eagerly once per element instead.

Functions run with ``CPU:0`` as the device scope (dataset elements live on the host; Keras moves
batches to the training device) and with no gradient tape recording: input preprocessing is not
part of the model, as in TF where dataset functions are separate graphs.
"""

import operator
import os
import random as _pyrandom
import threading

import numpy as np

from ..backend.cpu import usable_cores
from ..framework import context as _ctx
from ..framework import device_spec as _device_spec
from ..framework import recording as _recording
from ..framework import tracing as _tracing
from ..framework.tensor import Tensor
from ..function import autograph as _ag
from ..function import executor as _executor
from ..function.func_graph import FuncGraph
from ..function.polymorphic_function import Function
from ..ops import random_ops as _random_ops
from . import structure
from .chunks import Failure

_thread_state = _ctx.thread_state()
_tape_state = _recording._state
_ACTIVE = _ctx.ACTIVE
_CPU_SPEC = _device_spec.parse("/device:CPU:0")
_only_cpu = [None, False]  # (context.devices list, whether CPU:0 is its only device)
_debug_mode = [False]


def enable_debug_mode():
    """``tf.data.experimental.enable_debug_mode()``: dataset functions built from now on run eagerly,
    once per element (Python side effects per element, ``.numpy()`` allowed), as TF's debug mode."""
    _debug_mode[0] = True


def scope_is_noop():
    """True when running under the CPU:0 scope with no tapes changes nothing on this thread.

    That is the case when this thread has no device scope and no tape, and CPU:0 is
    the only device: every op then runs on CPU:0 anyway and nothing records. Entering
    and leaving the scope costs ~2.7 us (thread-state setters update the process-wide
    active-thread count under a lock), more than the rest of a light map step, so the
    per-element paths skip it when it is a no-op.
    """
    if _ACTIVE[0]:
        ts = _thread_state
        if ts._device is not None or ts._tapes:
            return False
    devices = _ctx.context.devices
    if devices is not _only_cpu[0]:
        if devices is None:
            return False
        _only_cpu[1] = len(devices) == 1
        _only_cpu[0] = devices
    return _only_cpu[1]


class _CpuScope:
    """Enter/leave the CPU:0 scope with no tapes (a no-op when :func:`scope_is_noop`)."""

    __slots__ = ("saved",)

    def __enter__(self):
        if scope_is_noop():
            self.saved = None
            return self
        ts, rs = _thread_state, _tape_state
        self.saved = ts.device, ts.device_spec, rs.tapes
        ts.device, ts.device_spec, rs.tapes = structure.cpu_device(), _CPU_SPEC, []
        return self

    def __exit__(self, *exc):
        saved = self.saved
        if saved is not None:
            ts, rs = _thread_state, _tape_state
            ts.device, ts.device_spec, rs.tapes = saved
        return False


def normalize_result(out):
    """A map function's result as an element: CPU tensors; a top-level list becomes a tuple.

    Fast path for the usual results (a CPU tensor, a flat tuple of CPU tensors), which
    are returned as they are.
    """
    t = type(out)
    if t is Tensor:
        if out._device is structure.cpu_device():
            return out
    elif t is tuple:
        cpu = structure.cpu_device()
        for c in out:
            if type(c) is not Tensor or c._device is not cpu:
                break
        else:
            return out
    return structure.normalize_element(out, top_level_list_to_tuple=True)


class _Untraceable(Exception):
    """The function's arguments or results are not tensors: it runs eagerly instead."""


_MAX_SHAPE_GRAPHS = 64
_PLAIN_OUTPUT_TYPES = (bool, int, float, complex, str, bytes, np.ndarray, np.generic, type(None))


class _Entry:
    """One traced graph: its compiled plan, a lean runner for it, and how to pack the flat outputs."""

    __slots__ = ("graph", "plan", "run", "kind", "template", "is_slot", "shapes", "alternates")

    def __init__(self, graph, plan, out, shapes):
        self.graph = graph
        self.plan = plan
        self.shapes = shapes    # static shapes of op outputs while tracing (None: the graph is shape-free)
        self.alternates = []    # graphs traced for elements whose intermediate shapes differed
        leaves = structure.flatten(out)
        self.is_slot = [type(v) is Tensor for v in leaves]
        if type(out) is Tensor:
            self.kind = 0
        elif type(out) is tuple and all(self.is_slot) and len(leaves) == len(out):  # flat: ((a, b), c) is not
            self.kind = 1
        else:
            self.kind = 2
        self.template = structure.pack_as(out, [None if f else v for v, f in zip(leaves, self.is_slot)])
        self.compile()

    def compile(self):
        """(Re)build ``run(*flat inputs) -> result``: the lean runner packs a tensor or a flat tuple itself,
        and checks intermediate shapes until the graph is known to be shape-free."""
        plan = self.plan
        run = _executor.compile_runner(plan, ("single", "tuple", "list")[self.kind], self.shapes)
        if run is None:
            run = (lambda *args: _executor.run_plan(plan, args)) if self.kind == 2 else \
                (lambda *args: self.pack(_executor.run_plan(plan, args)))
        self.run = run if self.kind != 2 else (lambda *args: self.pack(run(*args)))

    def pack(self, outs):
        kind = self.kind
        if kind == 0:
            return outs[0]
        if kind == 1:
            return tuple(outs)
        it = iter(outs)
        leaves = [next(it) if f else v for v, f in zip(structure.flatten(self.template), self.is_slot)]
        return structure.pack_as(self.template, leaves)


class TracedFunction:
    """A Python function over dataset elements traced into graphs and replayed per element.

    Called with a tuple of arguments (each a nested structure of tensors) and their flat list of
    tensors. ``post`` (optional) turns the function's result into the graph's output inside the
    trace (normalisation, checks). Replays are thread-safe: a plan keeps no state between runs,
    and traces happen under a lock.
    """

    __slots__ = ("_fn", "_post", "_name", "_lock", "_entries", "_generic", "_first", "tracing_count")

    def __init__(self, fn, post=None, name=None):
        self._fn = _autograph(fn)
        self._post = post
        self._name = name or getattr(fn, "__name__", "dataset_fn")
        self._lock = threading.Lock()
        self._entries = {}      # static shapes of the flat inputs -> _Entry
        self._generic = None    # the _Entry that serves every shape (two shapes traced the same graph)
        self._first = None
        self.tracing_count = 0

    def trace(self, args):
        """Trace with ``args`` (a representative input); returns the trace's result (values)."""
        flat = structure.flatten(args)
        key = _shape_key(flat)
        with self._lock:
            entry, out = self._trace(args, flat)
            self._keep(key, entry)
        return out

    def _trace(self, args, flat):
        for t in flat:
            if type(t) is not Tensor:
                raise _Untraceable(type(t).__name__)
        graph = FuncGraph(self._name, dataset_function=True)
        phs = [Tensor(t._array, t._dtype, t._device) for t in flat]
        fn, post = self._fn, self._post
        self.tracing_count += 1
        with _tracing.suspended(), _CpuScope(), _random_ops.previewing(), _tracing.recording_into(graph):
            for p in phs:
                graph.add_placeholder(p)
            out = fn(*structure.pack_as(args, phs))
            if post is not None:
                out = post(out)
        for leaf in structure.flatten(out):
            if type(leaf) is Tensor:
                graph.outputs.append(graph.slot_of(leaf))
            elif not isinstance(leaf, _PLAIN_OUTPUT_TYPES):
                raise _Untraceable(type(leaf).__name__)
        graph.output_structure = out
        shapes = {s: v._array.shape for s, v in enumerate(graph.slot_values) if type(v) is Tensor}
        graph.release_values()
        return _Entry(graph, _executor.compile_plan(graph), out, shapes), out

    def _keep(self, key, entry):
        if len(self._entries) >= _MAX_SHAPE_GRAPHS:
            return
        if self._first is None:
            self._first = entry
        elif self._generic is None and len(self._entries) == 1 and _same_graph(self._first, entry):
            self._generic = self._first
        self._entries[key] = entry

    def _entry_for(self, args, flat, key):
        """The graph for inputs of a new static shape: the generic one, else a new trace."""
        with self._lock:
            entry = self._entries.get(key) or self._generic
            if entry is None:
                entry, _ = self._trace(args, flat)
                self._keep(key, entry)
        return entry

    def __call__(self, args, flat):
        entry = self._entries.get(tuple(map(_shape_of, flat))) or self._generic
        if entry is None:
            entry = self._entry_for(args, flat, _shape_key(flat))
        try:
            return entry.run(*flat)
        except _executor.ShapeChanged:
            return self._for_intermediate_shapes(entry, args, flat)
        except _executor.GuardFailure as e:
            if e.effects:
                raise
            # tfcore library code read a value of this element while tracing (a guard): a graph for this value
            with self._lock:
                entry, _ = self._trace(args, flat)
            return entry.run(*flat)

    def _for_intermediate_shapes(self, entry, args, flat):
        """An op of ``entry`` gave this element another static shape than while tracing (a decoded image's
        size, a py_function's result): trace with this element; the same graph means it is shape-free
        (stop checking), else keep the new graph as an alternate for elements like this one."""
        for alt in entry.alternates:
            try:
                return alt.run(*flat)
            except _executor.ShapeChanged:
                continue
        with self._lock:
            if entry.shapes is None:  # another thread found it shape-free
                return entry.run(*flat)
            new, _ = self._trace(args, flat)
            if _same_graph(entry, new):
                entry.shapes = None
                entry.compile()
                return entry.run(*flat)
            if len(entry.alternates) < _MAX_SHAPE_GRAPHS:
                entry.alternates.append(new)
        return new.run(*flat)


def _autograph(fn):
    if isinstance(fn, Function):  # a tf.function given to map: traced inline with its own AutoGraph setting
        return fn._traced_python_function()
    return _ag.convert_for_tracing(fn)


_shape_of = operator.attrgetter("_array.shape")


def _shape_key(flat):
    return tuple([t._array.shape if type(t) is Tensor else None for t in flat])


def _same_graph(a, b):
    """True when two traces (of different input shapes) recorded the same graph: same nodes, attributes,
    constants and outputs, so the graph does not depend on the static shape it was traced with."""
    ga, gb = a.graph, b.graph
    if (len(ga.nodes) != len(gb.nodes) or ga.placeholders != gb.placeholders or ga.outputs != gb.outputs
            or a.kind != b.kind or a.is_slot != b.is_slot or ga.captures or gb.captures
            or sorted(ga.constants) != sorted(gb.constants)):
        return False
    try:
        if not _same_value(a.template, b.template):
            return False
        for s, v in ga.constants.items():
            if not _same_value(v, gb.constants[s]):
                return False
        for x, y in zip(ga.nodes, gb.nodes):
            if (x.kind != y.kind or x.inputs != y.inputs or x.outputs != y.outputs or x.stateful != y.stateful
                    or x.name != y.name or x.target is not y.target):
                return False
            if x.kind == "op":
                if x.op is not y.op or not _same_value(x.attrs, y.attrs):
                    return False
            elif x.kind == "guard":
                if not _same_value(x.attrs["value"], y.attrs["value"]):
                    return False
            elif x.kind not in ("read", "assign") and (not _same_callable(x.op, y.op)
                                                       or not _same_value(x.attrs, y.attrs)):
                return False
    except Exception:  # noqa: BLE001 - a comparison that cannot be made means "not the same"
        return False
    return True


def _same_callable(f, g):
    if f is g:
        return True
    code_f, code_g = getattr(f, "__code__", None), getattr(g, "__code__", None)
    if code_f is None or code_f is not code_g:
        return False
    cf, cg = f.__closure__ or (), g.__closure__ or ()
    return len(cf) == len(cg) and all(_same_value(x.cell_contents, y.cell_contents) for x, y in zip(cf, cg))


def _same_value(x, y):
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if type(x) is Tensor:
        return x._dtype is y._dtype and _same_value(np.asarray(x._device.backend.to_numpy(x._array)),
                                                     np.asarray(y._device.backend.to_numpy(y._array)))
    if isinstance(x, np.ndarray):
        return x.shape == y.shape and x.dtype == y.dtype and bool(np.array_equal(x, y))
    if isinstance(x, list | tuple):
        return len(x) == len(y) and all(_same_value(a, b) for a, b in zip(x, y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(_same_value(x[k], y[k]) for k in x)
    if isinstance(x, bool | int | float | complex | str | bytes | np.generic | type(None)):
        return bool(x == y)
    return False  # other objects (graphs of control flow, closures' tensors): compared by identity only


class DataFunction:
    """A user function applied to dataset elements, called as TF calls it.

    A tuple element is splatted into positional arguments (``f(*element)``); any other element (a
    tensor, a dict) is passed as one argument. The function is traced at construction with
    ``element`` (a representative input element, see :class:`TracedFunction`) and every call
    replays the graph; :attr:`trace_output` is the trace's result (``None`` when it runs eagerly:
    debug mode, or arguments/results that are not tensors). With ``normalize`` the result is
    normalised to CPU tensors (a top-level list becomes a tuple) inside the graph.
    """

    __slots__ = ("fn", "normalize", "traced", "trace_output", "trace_input")

    def __init__(self, fn, normalize=True, element=None, trace=True):
        if not callable(fn):
            raise TypeError(f"Expected a callable, got {type(fn).__name__}")
        self.fn = fn
        self.normalize = normalize
        self.traced = None
        self.trace_output = None
        self.trace_input = element
        if trace and not _debug_mode[0]:
            traced = TracedFunction(fn, post=normalize_result if normalize else None)
            if trace != "deferred":  # "deferred": traced with its first element
                try:
                    self.trace_output = traced.trace(element if type(element) is tuple else (element,))
                except _Untraceable:
                    return
            self.traced = traced

    @property
    def tracing_count(self):
        return 0 if self.traced is None else self.traced.tracing_count

    def replay_first_graph(self, element):
        """The first traced graph run on ``element`` (which may have other static sizes), without running the
        Python function again; None when there is no such graph or it has effects (variable assignments,
        Python calls). Random ops are previewed (generators rewound). ``map``'s ``element_spec`` uses it to
        find which output sizes follow the input's unknown sizes."""
        traced = self.traced
        entry = None if traced is None else traced._first
        if entry is None or any(step[0] not in (0, 1) for step in entry.plan.steps):
            return None
        flat = structure.flatten(element if type(element) is tuple else (element,))
        if len(flat) != len(entry.graph.placeholders) or any(type(t) is not Tensor for t in flat):
            return None
        with _tracing.suspended(), _CpuScope(), _random_ops.previewing():
            return entry.pack(_executor.run_plan(entry.plan, flat))

    def _replay(self, element):
        traced = self.traced
        if type(element) is Tensor:
            return traced((element,), (element,))
        if type(element) is tuple:
            for c in element:
                if type(c) is not Tensor:
                    return traced(element, structure.flatten(element))
            return traced(element, element)
        args = (element,)
        return traced(args, structure.flatten(args))

    def __call__(self, element):
        if self.traced is not None:
            if scope_is_noop():
                return self._replay(element)
            with _CpuScope():
                return self._replay(element)
        fn = self.fn
        if scope_is_noop():
            out = fn(*element) if type(element) is tuple else fn(element)
        else:
            ts, rs = _thread_state, _tape_state
            saved = ts.device, ts.device_spec, rs.tapes
            ts.device, ts.device_spec, rs.tapes = structure.cpu_device(), _CPU_SPEC, []
            try:
                out = fn(*element) if type(element) is tuple else fn(element)
            finally:
                ts.device, ts.device_spec, rs.tapes = saved
        return normalize_result(out) if self.normalize else out

    def map_chunk(self, xs, stop_at_failure, catch=Exception):
        """``self`` applied to every element of ``xs`` inside ONE device scope.

        Returns the results in order; an element whose call raised ``catch`` is a
        :class:`~.chunks.Failure` holding the exception. With ``stop_at_failure``
        the list ends at the first failure (the caller keeps the rest of ``xs``).
        """
        out = []
        append = out.append
        if self.traced is not None:
            call = self._replay
        else:
            fn, norm = self.fn, self.normalize

            def call(x):
                r = fn(*x) if type(x) is tuple else fn(x)
                return normalize_result(r) if norm else r
        with _CpuScope():
            for x in xs:
                try:
                    r = call(x)
                except catch as e:
                    append(Failure(e))
                    if stop_at_failure:
                        break
                    continue
                append(r)
        return out


class StateFunction:
    """``scan``/``reduce`` functions ``f(state, element)``, traced as :class:`DataFunction` is.

    ``post`` checks and normalises the result inside the trace. Calls return ``post``'s result.
    """

    __slots__ = ("fn", "post", "traced", "trace_output")

    def __init__(self, fn, post, state, element, trace=True):
        if not callable(fn):
            raise TypeError(f"Expected a callable, got {type(fn).__name__}")
        self.fn = fn
        self.post = post
        self.traced = None
        self.trace_output = None
        if trace and not _debug_mode[0]:
            traced = TracedFunction(fn, post=post)
            if trace != "deferred":  # "deferred": traced with its first element
                try:
                    self.trace_output = traced.trace((state, element))
                except _Untraceable:
                    return
            self.traced = traced

    def __call__(self, state, element):
        args = (state, element)
        with _CpuScope():
            if self.traced is not None:
                return self.traced(args, structure.flatten(args))
            return self.post(self.fn(state, element))


def in_cpu_scope(fn, *args):
    """Call ``fn(*args)`` with CPU:0 as the device scope and no tape recording."""
    with _CpuScope():
        return fn(*args)


# -- seeds ------------------------------------------------------------------------
_DEFAULT_GRAPH_SEED = 87654321


def get_seed(op_seed):
    """TF's ``(global_seed, op_seed)`` pair for a dataset op (both None: nondeterministic).

    Delegates to ``tf.random``'s seed rules (``tf.random.set_seed`` sets the global
    seed; an op seed without one uses TF's default global seed).
    """
    try:
        from ..ops.random_ops import get_seed as _get_seed
    except ImportError:  # pragma: no cover - random ops not built
        _get_seed = None
    if _get_seed is not None:
        g, o = _get_seed(op_seed)
        return (None if g is None else int(g)), (None if o is None else int(o))
    if op_seed is None:
        return None, None
    return _DEFAULT_GRAPH_SEED, int(op_seed)


class SeedStream:
    """Per-dataset source of RNGs: one Python ``random.Random`` per iteration.

    With a seed, iteration ``k`` always gets the same generator, so the order of
    a seeded ``shuffle`` is reproducible run after run; ``reshuffle`` gives
    iteration ``k`` its own generator (different order each epoch), otherwise
    every iteration reuses iteration 0's. Without a seed, a random base is drawn
    once from the OS.
    """

    __slots__ = ("_base", "_reshuffle", "_count")

    def __init__(self, seed, reshuffle):
        g, o = get_seed(seed)
        if g is None and o is None:
            self._base = int.from_bytes(os.urandom(16), "little")
        else:
            self._base = ((g % 2**64) << 64) | (o % 2**64)
        self._reshuffle = reshuffle
        self._count = 0

    def next_rng(self):
        k = self._count if self._reshuffle else 0
        self._count += 1
        return _pyrandom.Random((self._base << 32) | (k & 0xFFFFFFFF))


def autotune_parallelism():
    """Threads used for AUTOTUNE parallelism: the cores this process may use."""
    return usable_cores()
