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

    __slots__ = ("graph", "steps", "constants", "n_slots", "outputs", "stats")

    def __init__(self, graph, steps, constants, outputs, stats):
        self.graph = graph
        self.steps = steps
        self.constants = constants
        self.n_slots = len(graph.slot_values)
        self.outputs = outputs
        self.stats = stats


def compile_plan(graph, fuse=False):
    return passes.optimize(graph, Plan, fuse=fuse)


def run_plan(plan, args, outer_env=None):
    """Run ``plan`` on flat placeholder values ``args``; returns the flat output values."""
    graph = plan.graph
    env = [None] * plan.n_slots
    for s, v in plan.constants:
        env[s] = v
    if graph.captures:
        for outer_slot, s in graph.captures:
            env[s] = outer_env[outer_slot]
    for s, v in zip(graph.placeholders, args):
        env[s] = v
    effects = False
    for kind, fn, ins, outs, attrs, target in plan.steps:
        if kind == 0:    # op
            out = execute(fn, [env[i] for i in ins], attrs)
            if len(outs) == 1:
                env[outs[0]] = out
            else:
                for s, v in zip(outs, out):
                    env[s] = v
        elif kind == 1:  # variable read
            env[outs[0]] = target._tfc_read()
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
    return [env[s] for s in plan.outputs]


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
