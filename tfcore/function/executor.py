"""Runs a :class:`FuncGraph` with new inputs through a compiled plan.

The plan is built once per graph by the passes in ``passes`` (pruning, constant
folding, common-subexpression elimination, element-wise fusion); running it is
a loop over steps that calls ``ops.registry.execute`` for op nodes (so tapes
record them and gradients through a function call work), reads and assigns
variables by handle, and calls the Python callables of call nodes.
"""

import numpy as np

from ..framework.errors import InvalidArgumentError
from ..ops.registry import execute
from . import passes


class Plan:
    """The steps of a graph after the passes; ``constants`` prefill the slot environment."""

    __slots__ = ("graph", "steps", "constants", "n_slots", "outputs", "stats", "cuda_graph")

    def __init__(self, graph, steps, constants, outputs, stats):
        self.graph = graph
        self.steps = steps
        self.constants = constants
        self.n_slots = len(graph.slot_values)
        self.outputs = outputs
        self.stats = stats
        self.cuda_graph = None  # cuda_graph.GraphRunner once decided; False: never captured (see cuda_graph)


def compile_plan(graph, fuse=False):
    return passes.optimize(graph, Plan, fuse=fuse)


def compile_runner(plan, returns="list", shapes=None):
    """A Python function ``run(*args) -> outputs`` equivalent to ``run_plan(plan, args)``, or None.

    ``returns``: ``"list"`` (the flat outputs, as ``run_plan``), ``"tuple"`` (them as a tuple) or
    ``"single"`` (the only output itself). ``shapes`` (slot -> shape tuple seen while tracing): the
    runner raises :class:`ShapeChanged` when an op or call output gets another static shape (code that
    read the trace's shapes in Python may have baked them into the graph).

    The lean path for small graphs replayed very often (tf.data runs one per element): the steps are
    generated as straight-line code over local variables, so a replay allocates no slot environment
    and dispatches on no step kinds. Plans with guards or sub-graph calls (which need the environment
    or the effects flag) get None and run through :func:`run_plan`.
    """
    graph = plan.graph
    if graph.captures or len(plan.steps) > 256:
        return None
    ns = {"execute": execute, "ShapeChanged": ShapeChanged}
    names = {}
    for i, s in enumerate(graph.placeholders):
        names[s] = f"p{i}"
    for s, v in plan.constants:
        if s not in names:
            names[s] = f"c{s}"
            ns[f"c{s}"] = v
    lines = [f"def run({', '.join(f'p{i}' for i in range(len(graph.placeholders)))}):"]

    def name(slot):
        n = names.get(slot)
        if n is None:
            raise KeyError(slot)
        return n

    def bind(outs):
        for s in outs:
            names[s] = f"s{s}"
        return [f"s{s}" for s in outs]

    try:
        for k, (kind, fn, ins, outs, attrs, target) in enumerate(plan.steps):
            args = "[" + ", ".join(name(i) for i in ins) + "]"
            if kind == 0:
                ns[f"f{k}"], ns[f"a{k}"] = fn, attrs
                call = f"execute(f{k}, {args}, a{k})"
            elif kind == 1:
                ns[f"v{k}"] = target
                call = f"v{k}.value()"
            elif kind == 2:
                ns[f"v{k}"] = target
                lines.append(f"    v{k}.assign({name(ins[0])})")
                continue
            elif kind == 3:
                ns[f"f{k}"] = fn
                call = f"f{k}({', '.join(name(i) for i in ins)})"
            else:
                return None
            if not outs:
                lines.append(f"    {call}")
            elif (kind == 0 and len(outs) == 1 and not fn.multi_output) or kind == 1 or (kind == 3 and attrs["single"]):
                lines.append(f"    {bind(outs)[0]} = {call}")
            else:
                lines.append(f"    r = {call}")
                lines.append(f"    {', '.join(bind(outs))}, = r")
            if shapes is not None and kind in (0, 3):
                for o in outs:
                    shape = shapes.get(o)
                    if shape is not None:
                        ns[f"h{o}"] = shape
                        lines.append(f"    if s{o}._array.shape != h{o}: raise ShapeChanged({o})")
        outs = [name(s) for s in plan.outputs]
        if returns == "single":
            lines.append(f"    return {outs[0]}")
        elif returns == "tuple":
            lines.append("    return (" + "".join(o + ", " for o in outs) + ")")
        else:
            lines.append("    return [" + ", ".join(outs) + "]")
    except KeyError:
        return None
    exec(compile("\n".join(lines), f"<tf.data graph {graph.name}>", "exec"), ns)  # noqa: S102 - our own code
    return ns["run"]


def run_plan(plan, args, outer_env=None):
    """Run ``plan`` on flat placeholder values ``args``; returns the flat output values."""
    env = new_env(plan, args, outer_env)
    run_steps(env, plan.steps)
    return [env[s] for s in plan.outputs]


def new_env(plan, args, outer_env=None):
    """The slot environment of one run: constants, captures from ``outer_env`` and the placeholders."""
    graph = plan.graph
    env = [None] * plan.n_slots
    for s, v in plan.constants:
        env[s] = v
    if graph.captures:
        for outer_slot, s in graph.captures:
            env[s] = outer_env[outer_slot]
    for s, v in zip(graph.placeholders, args):
        env[s] = v
    return env


def run_steps(env, steps, effects=False):
    """Run plan ``steps`` in order on the slot environment ``env``; returns the effects flag (True once a
    variable assignment or an effectful call ran: guards report it). ``run_plan`` runs a whole plan
    through it; ``cuda_graph`` runs the steps it does not capture through it one at a time."""
    for kind, fn, ins, outs, attrs, target in steps:
        if kind == 0 or kind == 6:  # op (6: with residual edges, see _run_with_residuals)
            if kind == 0:
                out = execute(fn, [env[i] for i in ins], attrs)
            else:
                out = _run_with_residuals(env, fn, ins, attrs, target)
            if len(outs) == 1 and not fn.multi_output:  # a multi-output op with one output returns a 1-tuple
                env[outs[0]] = out
            else:
                for s, v in zip(outs, out):
                    env[s] = v
        elif kind == 1:  # variable read
            env[outs[0]] = target.value()
        elif kind == 2:  # variable assignment
            target.assign(env[ins[0]])
            effects = True
        elif kind == 3:  # python call (control flow, tf.print, py_function, TensorArray, fused kernels)
            result = fn(*[env[i] for i in ins])
            effects = effects or target
            if outs:
                if attrs["single"]:
                    env[outs[0]] = result
                else:
                    for s, v in zip(outs, result):
                        env[s] = v
        elif kind == 4:  # subgraph-aware call (gets the environment for its captures)
            result = fn(env, *[env[i] for i in ins])
            effects = True
            for s, v in zip(outs, result):
                env[s] = v
        else:            # kind 5: a value Python code read while tracing must not have changed
            _check_guard(env[ins[0]], attrs, effects)
    return effects


def _run_with_residuals(env, op, ins, attrs, residual_edges):
    """Execute an op step with residual edges (``Node.res_in``/``res_out``): the arrays an earlier step's
    kernel saved in this replay go in as attrs (left out when it saved none: the kernel recomputes), and
    the arrays this kernel saves go into the environment for the steps that consume them."""
    res_in, res_out = residual_edges
    if res_in:
        attrs = dict(attrs) if attrs else {}
        for name, s in res_in:
            if env[s] is not None:
                attrs[name] = env[s]
    if not res_out:
        return execute(op, [env[i] for i in ins], attrs)
    saved = []
    out = execute(op, [env[i] for i in ins], attrs, saved)
    saved = saved[0] or {}
    for name, s in res_out:
        env[s] = saved.get(name)
    return out


class ShapeChanged(Exception):  # noqa: N818 - a signal to the caller, not an error users see
    """A lean runner's op produced another static shape than while tracing (the slot is the argument)."""


class GuardFailure(InvalidArgumentError):
    """A guarded value changed; ``effects`` tells whether stateful nodes already ran in this call."""

    def __init__(self, message, effects):
        super().__init__(None, None, message)
        self.effects = effects


def _check_guard(t, attrs, effects):
    now = t._device.backend.to_numpy(t._array)
    if not np.array_equal(now, attrs["value"]):
        raise GuardFailure(
            "tf.function: Python code converted a tensor computed inside the function to a Python "
            f"value while tracing ({attrs['where']}); the traced graph used the value "
            f"{attrs['value'].tolist()!r} but this call computed {np.asarray(now).tolist()!r}. Use TensorFlow ops "
            "(tf.cond, tf.while_loop, tf.shape, tensor indexing) instead of Python values of tensors inside "
            "tf.function.", effects)
