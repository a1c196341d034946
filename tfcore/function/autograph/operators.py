"""What AutoGraph's generated code calls (``ag__.*``): graph control flow for tensors computed in
the traced graph, plain Python for everything else (Python conditions keep Python semantics)."""

import builtins

from ...framework import tracing
from ...framework.tensor import Tensor
from ...framework.variables import Variable
from ...ops import array_ops, math_ops
from .. import control_flow


class _Undefined:
    """A name not bound yet where a converted statement starts."""

    def __repr__(self):
        return "ag__.UNDEFINED"


UNDEFINED = _Undefined()


def _value(x):
    return x.value() if isinstance(x, Variable) and not isinstance(x, Tensor) else x


def is_symbolic(x):
    """True for a tensor computed inside the graph being traced (its value is not known in Python)."""
    g = tracing.current_graph()
    x = _value(x)
    return g is not None and isinstance(x, Tensor) and g.knows(x)


def _undef_to_none(values):
    return tuple(None if v is UNDEFINED else v for v in values)


def if_stmt(test, true_fn, false_fn, state, names):
    if is_symbolic(test):
        def branch(fn, label):
            def run():
                out = fn(*state)
                for n, v in zip(names, out):
                    if v is UNDEFINED:
                        where = "if" if label == "true" else "else"
                        raise ValueError(f"'{n}' must also be initialized in the {where} branch")
                return tuple(out)
            return run

        return control_flow.cond(_value(test), branch(true_fn, "true"), branch(false_fn, "false"))
    return true_fn(*state) if test else false_fn(*state)


def if_return(test, true_fn, false_fn, state=()):
    """An ``if`` whose branches both return: ``state`` holds the current values of the names the
    branches assign (their parameters)."""
    if is_symbolic(test):
        return control_flow.cond(_value(test), lambda: true_fn(*state), lambda: false_fn(*state))
    return true_fn(*state) if test else false_fn(*state)


def _tensor_loop(test_fn, body_fn, state, names):
    idx = [i for i, v in enumerate(state) if v is not UNDEFINED]
    full = list(state)

    def fill(lv):
        f = list(full)
        for i, v in zip(idx, lv):
            f[i] = v
        return f

    def cond(*lv):
        return test_fn(*fill(lv))

    def body(*lv):
        out = body_fn(*fill(lv))
        return tuple(out[i] for i in idx)

    res = control_flow.while_loop(cond, body, tuple(state[i] for i in idx))
    out = list(state)
    for i, v in zip(idx, res):
        out[i] = v
    return tuple(out)


def while_stmt(test_fn, body_fn, state, names):
    state = tuple(state)
    while True:
        t = test_fn(*state)
        if is_symbolic(t) or (tracing.current_graph() is not None and builtins.any(is_symbolic(v) for v in state)
                              and isinstance(_value(t), Tensor)):
            return _tensor_loop(test_fn, body_fn, state, names)
        if not t:
            return state
        state = tuple(body_fn(*state))


class RangeSpec:
    """``tf.range(...)`` in a ``for`` header: iterated by a graph loop, never materialised."""

    def __init__(self, range_fn, args, kwargs):
        self.range_fn = range_fn
        self.args = args
        self.kwargs = kwargs

    def materialize(self):
        return self.range_fn(*self.args, **self.kwargs)


def range_(range_fn, *args, **kwargs):
    if getattr(range_fn, "__module__", "").startswith("tfcore") and tracing.current_graph() is not None:
        return RangeSpec(range_fn, args, kwargs)
    return range_fn(*args, **kwargs)


def for_stmt(iterable, body_fn, state, names, break_flag):
    state = tuple(state)
    brk = names.index(break_flag) if break_flag else None
    if isinstance(iterable, RangeSpec):
        args = list(iterable.args)
        start, limit, delta = (0, args[0], 1) if len(args) == 1 else (args + [1])[:3]
        start = iterable.kwargs.get("start", start)
        limit = iterable.kwargs.get("limit", limit)
        delta = iterable.kwargs.get("delta", delta)
        dtype = iterable.kwargs.get("dtype")
        i0 = array_ops.constant(start) if dtype is None else math_ops.cast(array_ops.constant(start), dtype)
        limit_t = math_ops.cast(_value(limit), i0.dtype) if isinstance(_value(limit), Tensor) else limit
        delta_t = math_ops.cast(_value(delta), i0.dtype) if isinstance(_value(delta), Tensor) else delta

        def test(i, *st):
            going = math_ops.logical_or(
                math_ops.logical_and(delta_t > 0, i < limit_t), math_ops.logical_and(delta_t < 0, i > limit_t)) \
                if isinstance(delta_t, Tensor) else ((i < limit_t) if delta_t > 0 else (i > limit_t))
            if brk is not None:
                return and_(lambda: not_(st[brk]), lambda: going)
            return going

        def body(i, *st):
            return (i + delta_t,) + tuple(body_fn(i, *st))

        out = _tensor_loop(test, body, (i0,) + state, ("__ag_i",) + tuple(names))
        return out[1:]
    if is_symbolic(iterable):
        t = _value(iterable)
        n = array_ops.shape(t)[0]
        i0 = array_ops.constant(0)

        def test(i, *st):
            going = i < n
            if brk is not None:
                return and_(lambda: not_(st[brk]), lambda: going)
            return going

        def body(i, *st):
            return (i + 1,) + tuple(body_fn(array_ops._gather_dense_gradient(t, i, 0), *st))  # t[i]: dense grad

        out = _tensor_loop(test, body, (i0,) + state, ("__ag_i",) + tuple(names))
        return out[1:]
    if tracing.current_graph() is not None and hasattr(iterable, "element_spec") and hasattr(iterable, "_make_iter"):
        return _dataset_loop(iterable, body_fn, state, brk)
    for elem in iterable:
        state = tuple(body_fn(elem, *state))
        if brk is not None and state[brk]:
            break
    return state


def _dataset_loop(dataset, body_fn, state, brk):
    """A for loop over a tf.data.Dataset while tracing: one graph node iterating it per call."""
    idx = [i for i, v in enumerate(state) if v is not UNDEFINED]
    full = list(state)

    def body(elem, *lv):
        f = list(full)
        for i, v in zip(idx, lv):
            f[i] = v
        out = body_fn(elem, *f)
        return tuple(out[i] for i in idx)

    loop_brk = idx.index(brk) if brk is not None else None
    res = control_flow.dataset_loop(dataset, body, tuple(state[i] for i in idx), loop_brk)
    out = list(state)
    for i, v in zip(idx, res):
        out[i] = v
    return tuple(out)


def and_(a, b):
    x = a()
    if is_symbolic(x):
        return math_ops.logical_and(_value(x), _value(b()))
    return x and b()


def or_(a, b):
    x = a()
    if is_symbolic(x):
        return math_ops.logical_or(_value(x), _value(b()))
    return x or b()


def not_(x):
    if is_symbolic(x):
        return math_ops.logical_not(_value(x))
    return not x


def print_(*args, **kwargs):
    """``print`` in converted code: Python's ``print``, which inside tf.function runs while tracing and shows
    the trace's tensors in TF's symbolic form (``Tensor("a:0", shape=(), dtype=int32)``), as TF 2.21's AutoGraph
    leaves ``print`` alone (it converts builtins only with ``Feature.BUILTIN_FUNCTIONS``); ``tf.print`` prints
    on every call. Silent in a re-run of a signature already traced (``FuncGraph.repeats_trace``: a graph
    specialised to other static shapes), since TF traced, and printed, once."""
    g = tracing.current_graph()
    if g is not None and g.repeats_trace:
        return None
    return builtins.print(*args, **kwargs)
