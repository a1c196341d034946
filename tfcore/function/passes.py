"""Graph passes that turn a traced :class:`FuncGraph` into an executor plan.

- pruning: nodes whose outputs nobody needs go, unless stateful (variable
  assignments, Python calls, ``tf.print``);
- constant folding: op nodes whose inputs are all constants run once, here;
- common-subexpression elimination: an op node identical to an earlier one
  (same op, same input slots, same attrs) reuses its outputs;
- element-wise fusion (``fuse=True``, from ``jit_compile=True``): see ``fusion``;
Random ops are never folded or merged (each call draws new numbers).
"""

import numpy as np

from ..ops.registry import execute

_RANDOM_PREFIXES = ("Random", "TruncatedNormal", "Multinomial", "StatelessRandom", "Dropout")


def _is_random(op):
    return op.name.startswith(_RANDOM_PREFIXES)


def _attr_key(attrs):
    if not attrs:
        return ()
    items = []
    for k, v in sorted(attrs.items()):
        if isinstance(v, np.ndarray):
            v = ("nd", v.dtype.str, v.shape, v.tobytes())
        elif isinstance(v, list):
            v = ("list", tuple(v))
        try:
            hash(v)
        except TypeError:
            return None  # unhashable attr: never merged
        items.append((k, v))
    return tuple(items)


def prune(graph, nodes):
    """Nodes needed for the outputs or with side effects, in program order."""
    live = set(graph.outputs)
    kept = []
    for n in reversed(nodes):
        if n.stateful or n.kind in ("assign", "call", "guard") or any(s in live for s in n.outputs):
            kept.append(n)
            live.update(n.inputs)
    kept.reverse()
    return kept


def optimize(graph, plan_cls, fuse=False):
    consts = dict(graph.constants)
    alias = {}
    seen = {}
    folded = merged = 0
    nodes = []
    for n in graph.nodes:
        ins = [alias.get(s, s) for s in n.inputs]
        if n.kind == "op" and not n.stateful and not _is_random(n.op):
            if ins and all(s in consts for s in ins) and len(n.outputs) == 1:
                try:
                    consts[n.outputs[0]] = execute(n.op, [consts[s] for s in ins], n.attrs)
                    folded += 1
                    continue
                except Exception:  # noqa: BLE001 - folding is an optimisation: leave the node to run
                    pass
            key = _attr_key(n.attrs)
            if key is not None:
                k = (n.op, tuple(ins), key)
                prev = seen.get(k)
                if prev is not None:
                    for a, b in zip(n.outputs, prev.outputs):
                        alias[a] = b
                    merged += 1
                    continue
                seen[k] = n
        nodes.append(_with_inputs(n, ins))
    outputs = [alias.get(s, s) for s in graph.outputs]
    saved_outputs, graph_outputs = graph.outputs, outputs
    graph.outputs = graph_outputs
    try:
        kept = prune(graph, nodes)
    finally:
        graph.outputs = saved_outputs
    pruned = len(nodes) - len(kept)
    fused = 0
    if fuse:
        from . import fusion

        kept, fused = fusion.fuse(graph, kept, outputs)
    steps = [_step(n) for n in kept]
    stats = {"nodes": len(graph.nodes), "steps": len(steps), "folded": folded, "merged": merged,
             "pruned": pruned, "fused": fused}
    needed = set(outputs)
    for n in kept:
        needed.update(n.inputs)
    constants = [(s, v) for s, v in consts.items() if s in needed]
    return plan_cls(graph, steps, constants, outputs, stats)


def _with_inputs(n, ins):
    if ins == n.inputs:
        return n
    from .func_graph import Node

    return Node(n.kind, n.op, ins, n.outputs, n.attrs, n.target, n.stateful, n.name, n.device)


_KIND = {"op": 0, "read": 1, "assign": 2, "call": 3, "subcall": 4, "guard": 5}


def _step(n):
    target = n.stateful if n.kind == "call" else n.target  # call steps: whether the call has effects
    return (_KIND[n.kind], n.op, n.inputs, n.outputs, n.attrs if n.kind != "op" else (n.attrs or None), target)
