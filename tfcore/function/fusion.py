"""Element-wise fusion (``jit_compile=True``): chains of element-wise ops become one plan step.

A chain is a run of consecutive element-wise op nodes in which each node's single output is used
only by the next one (and is not a function output). On CPU the fused step calls the ops' own
CPU kernels back to back on the arrays: no intermediate Tensor objects, no per-op dispatch, no
rule checks (the trace already validated shapes and dtypes for this graph's static shapes), so it
computes exactly what the unfused ops compute. Chains on other devices stay unfused (generated
CUDA kernels for them are not implemented). The executor uses the fused plan only when no gradient
tape is recording (tapes need the individual ops).
"""

from ..framework.tensor import Tensor
from .func_graph import Node

ELEMENTWISE = frozenset({
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Relu", "Relu6", "Tanh", "Sigmoid", "Exp", "Log",
    "Neg", "Square", "Sqrt", "Rsqrt", "Abs", "Softplus", "BiasAdd"})


def _device(graph, slot):
    return getattr(graph.slot_values[slot], "_device", None)


def fuse(graph, nodes, outputs):
    """``nodes`` with fusable chains replaced by call nodes; returns (nodes, number of ops fused)."""
    uses = {}
    for n in nodes:
        for s in n.inputs:
            uses[s] = uses.get(s, 0) + 1
    for s in outputs:
        uses[s] = uses.get(s, 0) + 2
    out, chain, fused = [], [], 0

    def fusable(n):
        if n.kind != "op" or n.op.name not in ELEMENTWISE or len(n.outputs) != 1:
            return False
        dev = _device(graph, n.outputs[0])
        return dev is not None and dev.backend.kind == "cpu" and not dev.backend.scoped

    def flush():
        nonlocal fused
        if len(chain) >= 2:
            out.append(_fused_node(graph, list(chain)))
            fused += len(chain)
        else:
            out.extend(chain)
        chain.clear()

    for n in nodes:
        if fusable(n):
            if chain and chain[-1].outputs[0] in n.inputs and uses.get(chain[-1].outputs[0]) == 1:
                chain.append(n)
                continue
            flush()
            chain.append(n)
        else:
            flush()
            out.append(n)
    flush()
    return out, fused


def _fused_node(graph, chain):
    external = []
    steps = []
    prev = None
    for n in chain:
        refs = []
        for s in n.inputs:
            if s == prev:
                refs.append(-1)
            else:
                if s not in external:
                    external.append(s)
                refs.append(external.index(s))
        steps.append((n.op.impls["cpu"], tuple(refs), n.attrs or {}))
        prev = n.outputs[0]
    last = graph.slot_values[chain[-1].outputs[0]]
    dtype, dev = last._dtype, last._device
    backend = dev.backend
    names = "+".join(n.op.name for n in chain)

    def fused(*tensors):
        arrays = [t._array for t in tensors]
        r = None
        for impl, refs, attrs in steps:
            r = impl(backend, *[r if i < 0 else arrays[i] for i in refs], **attrs)
        return Tensor(r, dtype, dev)

    fused.__name__ = f"fused_{names}"
    return Node("call", fused, external, [chain[-1].outputs[0]], attrs={"single": True, "none": False},
                stateful=False, name=f"Fused[{names}]")
