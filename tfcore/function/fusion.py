"""Element-wise fusion (``jit_compile=True``): chains of element-wise ops become one plan step.

A chain is a run of consecutive element-wise op nodes in which each node's single output is used
only by the next one (and is not a function output). On CPU the fused step calls the ops' own
CPU kernels back to back on the arrays: no intermediate Tensor objects, no per-op dispatch, no
rule checks (the trace already validated shapes and dtypes for this graph's static shapes), so it
computes exactly what the unfused ops compute. On a GPU a chain of float ops whose inputs have
the output's shape (or one element) becomes ONE generated CUDA kernel (one pass over memory, no
intermediate arrays), compiled by the device's backend when the plan is built
(``compile_elementwise``: NVRTC on a real GPU, the emulator on an emulated one; the tests compile
every generated source with NVRTC too). The executor uses the fused plan only when no gradient
tape is recording (tapes need the individual ops).
"""

import math

import numpy as np

from ..framework.tensor import Tensor
from .func_graph import Node

# Element-wise ops without a CUDA expression that the CPU may still fuse; every op registered with a
# ``cuda_expr`` is element-wise by definition and fuses without being listed here.
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
        if n.kind != "op" or (n.op.name not in ELEMENTWISE and n.op.cuda_expr is None) or len(n.outputs) != 1:
            return False
        dev = _device(graph, n.outputs[0])
        if dev is None:
            return False
        if dev.backend.compiles_elementwise:
            return _cuda_fusable(graph, n, dev)
        return not dev.backend.scoped  # the ops' kernels back to back, outside any device activation

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


def _cuda_fusable(graph, n, dev):
    if n.op.cuda_expr is None or n.attrs:
        return False
    out = graph.slot_values[n.outputs[0]]
    if out._dtype.name not in ("float32", "float64"):
        return False
    for s in n.inputs:
        v = graph.slot_values[s]
        if getattr(v, "_device", None) is not dev or v._dtype is not out._dtype:
            return False
        shape = tuple(v.shape) if not isinstance(v, Tensor) else tuple(v._array.shape)
        if shape != tuple(out.shape) and math.prod(shape) != 1:
            return False
    return True


def _fused_node(graph, chain):
    dev = graph.slot_values[chain[-1].outputs[0]]._device
    if dev.backend.compiles_elementwise:
        return _cuda_fused_node(graph, chain, dev)
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
        steps.append((n.op, tuple(refs), n.attrs or {}))
        prev = n.outputs[0]
    last = graph.slot_values[chain[-1].outputs[0]]
    dtype, dev = last._dtype, last._device
    backend = dev.backend
    names = "+".join(n.op.name for n in chain)

    def fused(*tensors):
        arrays = [t._array for t in tensors]
        r = None
        for op, refs, attrs in steps:  # each op's own kernel candidate, back to back
            r = op.run_kernel(backend, [r if i < 0 else arrays[i] for i in refs], attrs)
        return Tensor(r, dtype, dev)

    fused.__name__ = f"fused_{names}"
    return Node("call", fused, external, [chain[-1].outputs[0]], attrs={"single": True, "none": False},
                stateful=False, name=f"Fused[{names}]")


# -- generated CUDA kernels (GPUs) ---------------------------------------------------------------------------
THREADS = 256


def cuda_source(name, exprs, refs, n_inputs, ctype):
    """CUDA C for one fused chain: ``y[i] = f_k(...f_1(x...))`` with size-1 inputs broadcast; ``exprs`` are
    the ops' ``cuda_expr`` (:class:`~tfcore.ops.registry.Op`), ``refs`` their inputs (-1: the previous value)."""
    params = ", ".join([f"const T* __restrict__ x{k}" for k in range(n_inputs)] + ["T* __restrict__ y",
                                                                                    "long long n"]
                       + [f"int b{k}" for k in range(n_inputs)])
    lines = [f"    const T a{k} = x{k}[b{k} ? 0 : i];" for k in range(n_inputs)]
    for j, (expr, rs) in enumerate(zip(exprs, refs)):
        args = [f"v{j - 1}" if r < 0 else f"a{r}" for r in rs]
        lines.append(f"    const T v{j} = {expr.format(*args)};")
    lines.append(f"    y[i] = v{len(exprs) - 1};")
    body = "\n".join(lines)
    return (f"typedef {ctype} T;\n"
            f'extern "C" __global__ void {name}({params}) {{\n'
            "    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
            "    if (i >= n) return;\n"
            f"{body}\n}}\n")


def _cuda_fused_node(graph, chain, dev):
    external, refs, prev = [], [], None
    for n in chain:
        rs = []
        for s in n.inputs:
            if s == prev:
                rs.append(-1)
            else:
                if s not in external:
                    external.append(s)
                rs.append(external.index(s))
        refs.append(tuple(rs))
        prev = n.outputs[0]
    last = graph.slot_values[chain[-1].outputs[0]]
    dtype, shape = last._dtype, tuple(last.shape)
    ctype = "float" if dtype.name == "float32" else "double"
    op_names = [n.op.name for n in chain]
    kname = f"tfc_fused_{'_'.join(o.lower() for o in op_names)}_{ctype}"
    source = cuda_source(kname, [n.op.cuda_expr for n in chain], refs, len(external), ctype)
    backend = dev.backend
    launch = backend.compile_elementwise(source, kname)  # now, while the plan is built (never under capture)
    np_dtype = dtype.as_numpy_dtype
    size = math.prod(shape)
    grid = ((size + THREADS - 1) // THREADS or 1, 1, 1)

    def fused(*tensors):
        with backend.activate():
            arrays = [backend.xp.ascontiguousarray(t._array) for t in tensors]
            y = backend.xp.empty(shape, dtype=np_dtype)
            if size:
                launch(grid, (THREADS, 1, 1),
                       arrays + [y, np.int64(size)] + [np.int32(a.size == 1 and size != 1) for a in arrays])
            y = backend.adopt(y)
        return Tensor(y, dtype, dev)

    fused.__name__ = f"fused_{'+'.join(op_names)}"
    fused.cuda_source = source
    return Node("call", fused, external, [chain[-1].outputs[0]], attrs={"single": True, "none": False},
                stateful=False, name=f"FusedKernel[{'+'.join(op_names)}]")
