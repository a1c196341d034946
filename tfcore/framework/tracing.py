"""The per-thread tracing state of ``tf.function`` (the only owner of it).

While a thread traces a function, the innermost graph being built is held here;
``ops.registry.execute``, ``Variable`` reads/writes/creation and the Python-call
nodes (``tf.print``, ``tf.py_function``, TensorArray) report to it. The graph
classes live in ``tfcore.function``; this module only routes events to the
current graph object, which implements ``_record_op``, ``_read_variable``,
``_write_variable``, ``_variable_created`` and ``_record_call``.

``ACTIVE[0]`` counts the threads that are tracing: while it is 0 the hot paths
skip the thread-local lookup entirely (one list index per op).
"""

import threading

ACTIVE = [0]
STARTS = [0]  # how many times a thread started tracing (tf.function checks that no other trace overlapped)
_lock = threading.Lock()


class _State(threading.local):
    def __init__(self):
        self.graph = None     # the innermost graph being built on this thread (None: not tracing)
        self.run_eagerly = False


_state = _State()
_global = {"run_functions_eagerly": False}


def current_graph():
    """The graph this thread is recording into, or None."""
    return _state.graph if ACTIVE[0] else None


def is_tracing():
    return ACTIVE[0] and _state.graph is not None


def inside_function():
    """``tf.inside_function()``: True while a tf.function is being traced (building its graph)."""
    return bool(is_tracing())


def executing_eagerly():
    """``tf.executing_eagerly()``: False while tracing a tf.function."""
    return not (ACTIVE[0] and _state.graph is not None)


class recording_into:  # noqa: N801 - used like a function
    """``with recording_into(graph):`` makes ``graph`` this thread's current graph (nests)."""

    __slots__ = ("_graph", "_saved")

    def __init__(self, graph):
        self._graph = graph

    def __enter__(self):
        self._saved = _state.graph
        if self._saved is None and self._graph is not None:
            with _lock:
                ACTIVE[0] += 1
                STARTS[0] += 1
        elif self._saved is not None and self._graph is None:
            with _lock:
                ACTIVE[0] -= 1
        _state.graph = self._graph
        return self._graph

    def __exit__(self, *exc):
        if self._saved is None and self._graph is not None:
            with _lock:
                ACTIVE[0] -= 1
        elif self._saved is not None and self._graph is None:
            with _lock:
                ACTIVE[0] += 1
        _state.graph = self._saved
        return False


def suspended():
    """``with suspended():`` — run eagerly, recording nothing (``tf.init_scope`` and Python-call nodes)."""
    return recording_into(None)


def graph_form(tensor, as_repr):
    """TF's text for ``tensor`` when it is a symbolic tensor of the trace running on this thread
    (``Tensor("a:0", shape=(), dtype=int32)``), else None (called only when ACTIVE[0])."""
    g = _state.graph
    if g is None:
        return None
    return g.graph_form(tensor, as_repr)


def constant_created(t):
    """``tf.constant`` made ``t`` (called only when ACTIVE[0]): the graph being traced names it ``Const``."""
    g = _state.graph
    if g is not None:
        g._constant_created(t)


def record_op(op, inputs, outputs, attrs, saved=None):
    """``execute`` ran ``op``: add a node to the current graph (called only when ACTIVE[0]). ``saved``: the
    arrays the kernel kept for the gradient (``Residuals``), or None."""
    g = _state.graph
    if g is not None:
        g._record_op(op, inputs, outputs, attrs, saved)


def read_variable(var):
    """The value a variable read sees (the current graph records the read)."""
    g = _state.graph
    if g is None:
        return var._value
    return g._read_variable(var)


def write_variable(var, value):
    """True when the current graph took the assignment (recorded; maybe not applied in a dry trace)."""
    g = _state.graph
    if g is None:
        return False
    return g._write_variable(var, value)


def variable_created(var):
    g = _state.graph
    if g is not None:
        g._variable_created(var)


def creating_variables():
    """Code that creates variables with recording suspended (an optimizer's slots) asks the graph being
    traced first: tf.function refuses new variables on any trace but the first (TF's ValueError)."""
    g = _state.graph if ACTIVE[0] else None
    if g is not None:
        g._creating_variables()


def traced_alone(starts):
    """True when no thread is tracing now and exactly one trace started since ``STARTS[0]`` was
    ``starts`` (the caller's own): no other trace can still hold the caller's trace-time tensors."""
    with _lock:
        return ACTIVE[0] == 0 and STARTS[0] == starts + 1


def call_python(fn, inputs, stateful=True, dry_result=None, name="PyCall"):
    """Run ``fn(*inputs)`` now and, when tracing, record it as one node replayed with new inputs.

    ``inputs`` is a flat list of tensors (or graph values); ``fn`` returns a flat list/tuple
    of tensors, a single tensor, or None. While a graph records, ``fn`` runs with recording
    suspended, so what it does inside is one opaque node (used for ``tf.print``,
    ``tf.py_function``, TensorArray updates and the optimizer's host-side step).
    """
    g = _state.graph if ACTIVE[0] else None
    if g is None:
        return fn(*inputs)
    return g._record_call(fn, list(inputs), stateful, dry_result, name)


def alias(copy, original):
    """``copy`` is ``original``'s value moved to another device (an implicit copy while tracing).

    The graph refers to the copy by ``original``'s slot, so a replay feeds the value that call
    computed (and ``execute`` copies it again) instead of the trace's value as a constant.
    """
    g = _state.graph
    if g is not None and g.knows(original):
        g._alias(copy, original)


def host_read(tensor, kind="numpy"):
    """A tensor's value is read into Python while tracing (``numpy()``, ``bool()``, ``int()``...).

    ``kind`` names the read: ``'numpy'``, ``'array'`` (NumPy conversion), ``'bool'`` or ``'scalar'``
    (``int()``/``float()``/``index``). When the tensor is computed inside a tf.function graph, the
    Python code that read it baked the trace's value into the graph; the graph records a guard that
    raises if a later call sees another value. A tf.data function's graph refuses reads by user code
    instead, as TF does for symbolic tensors.
    """
    g = _state.graph
    if g is not None:
        g._host_read(tensor, kind)


def run_functions_eagerly(run_eagerly):
    """``tf.config.run_functions_eagerly``: tf.functions call their Python function directly."""
    _global["run_functions_eagerly"] = bool(run_eagerly)


def functions_run_eagerly():
    return _global["run_functions_eagerly"]
