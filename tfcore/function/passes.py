"""Graph passes that turn a traced :class:`FuncGraph` into an executor plan.

- pruning: nodes whose outputs nobody needs go, unless stateful (variable
  assignments, Python calls, ``tf.print``);
- constant folding: op nodes whose inputs are all constants run once, here;
- common-subexpression elimination: an op node identical to an earlier one
  (same op, same input slots, same attrs) reuses its outputs;
- pattern fusions (``remapper``: ReluGrad folded into MaxPoolGrad);
- element-wise fusion (``fuse=True``, from ``jit_compile=True``): see ``fusion``;
Random ops are never folded or merged (each call draws new numbers). Residual edges
(``Node.res_in``/``res_out``: saved arrays such as Conv2D's im2col columns) count as inputs and
outputs for pruning and merging; nodes with them are never folded.
"""

import numpy as np

from ..ops.registry import execute
from .func_graph import Node

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
        if (n.stateful or n.kind in ("assign", "call", "guard") or any(s in live for s in n.outputs)
                or any(s in live for _, s in n.res_out)):
            kept.append(n)
            live.update(n.inputs)
            live.update(s for _, s in n.res_in)
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
        res_in = tuple((k, alias.get(s, s)) for k, s in n.res_in)
        if n.kind == "op" and not n.stateful and not _is_random(n.op):
            if ins and all(s in consts for s in ins) and len(n.outputs) == 1 and not (res_in or n.res_out):
                try:
                    consts[n.outputs[0]] = execute(n.op, [consts[s] for s in ins], n.attrs)
                    folded += 1
                    continue
                except Exception:  # noqa: BLE001 - folding is an optimisation: leave the node to run
                    pass
            key = _attr_key(n.attrs)
            if key is not None:
                k = (n.op, tuple(ins), key, res_in, tuple(name for name, _ in n.res_out))
                prev = seen.get(k)
                if prev is not None:
                    for a, b in zip(n.outputs, prev.outputs):
                        alias[a] = b
                    for (_, a), (_, b) in zip(n.res_out, prev.res_out):
                        alias[a] = b
                    merged += 1
                    continue
                seen[k] = n
        nodes.append(_with_inputs(n, ins, res_in))
    outputs = [alias.get(s, s) for s in graph.outputs]
    saved_outputs, graph_outputs = graph.outputs, outputs
    graph.outputs = graph_outputs
    try:
        kept = prune(graph, nodes)
    finally:
        graph.outputs = saved_outputs
    pruned = len(nodes) - len(kept)
    from . import remapper

    kept, remapped = remapper.remap(kept, outputs)
    fused = 0
    if fuse:
        from . import fusion

        kept, fused = fusion.fuse(graph, kept, outputs)
    steps = [_step(n) for n in kept]
    stats = {"nodes": len(graph.nodes), "steps": len(steps), "folded": folded, "merged": merged,
             "pruned": pruned, "fused": fused,
             "remapped": remapped}
    needed = set(outputs)
    for n in kept:
        needed.update(n.inputs)
    constants = [(s, v) for s, v in consts.items() if s in needed]
    return plan_cls(graph, steps, constants, outputs, stats)


def _with_inputs(n, ins, res_in=()):
    if ins == n.inputs and res_in == n.res_in:
        return n

    return Node(n.kind, n.op, ins, n.outputs, n.attrs, n.target, n.stateful, n.name, n.device, res_in, n.res_out)


_KIND = {"op": 0, "read": 1, "assign": 2, "call": 3, "subcall": 4, "guard": 5}
OP_WITH_RESIDUALS = 6  # an op step with residual edges: its target is ``(res_in, res_out)``


def _step(n):
    if n.kind == "op" and (n.res_in or n.res_out):
        return (OP_WITH_RESIDUALS, n.op, n.inputs, n.outputs, n.attrs or None, (n.res_in, n.res_out))
    target = n.stateful if n.kind == "call" else n.target  # call steps: whether the call has effects
    return (_KIND[n.kind], n.op, n.inputs, n.outputs, n.attrs if n.kind != "op" else (n.attrs or None), target)
