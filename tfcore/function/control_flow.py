"""Control flow usable eagerly and inside tf.function: ``tf.cond``, ``tf.while_loop`` and friends.

Eagerly these are Python control flow (as in TF, where eager ``tf.cond`` runs one
branch): tapes record the ops that ran, so gradients need nothing special.

While tracing, each branch or loop body is traced into its own :class:`FuncGraph`
(inner graphs capture what they use from the enclosing one) and the enclosing
graph records ONE node that picks a branch, or loops, at run time. The untaken
branch is traced *dry*: its variable assignments are recorded but not applied
and its Python calls do not run. Active gradient tapes see the whole construct
as one operation whose gradient is again a ``cond`` over the branches'
gradients (so it is right whichever branch runs), or, for a loop, a node that
re-runs the loop under a tape (recomputation instead of stored iterations).
"""

import numpy as np

from ..autodiff.tape import GradientTape
from ..framework import dtypes, nest, recording, tracing
from ..framework.dispatch import add_dispatch_support
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.variables import Variable
from ..ops import array_ops
from ..ops.tensor_array_ops import TensorArray
from . import executor
from .func_graph import FuncGraph, Node


class _ControlFlowOp:
    """What a tape's record of a cond/while call needs: a name and a gradient function."""

    __slots__ = ("name", "grad", "grad_takes_none")

    def __init__(self, name, grad):
        self.name = name
        self.grad = grad
        self.grad_takes_none = True


def _is_symbolic(x):
    g = tracing.current_graph()
    return g is not None and isinstance(x, Tensor) and g.knows(x)


def _to_tensor_leaf(x):
    if isinstance(x, Variable):
        return x.value()
    if isinstance(x, Tensor) or _is_tensor_array(x) or x is None:
        return x
    return convert_to_tensor(x)


def _is_tensor_array(x):
    return type(x).__name__ == "TensorArray" and hasattr(x, "_items")


def _pred_value(pred, name):
    if isinstance(pred, Variable):
        pred = pred.value()
    if isinstance(pred, Tensor):
        if pred.shape.rank not in (0, None) and pred._array.size != 1:
            raise ValueError(f"{name}: pred must be a scalar boolean tensor, got shape {pred.shape}")
        return bool(np.asarray(pred._device.backend.to_numpy(pred._array)).reshape(()))
    if isinstance(pred, bool | np.bool_ | int):
        return bool(pred)
    raise TypeError(f"{name}: pred must be a bool or a boolean scalar tensor, got {pred!r}")


def _host_int(x):
    """A scalar's value without a tracing guard (control flow reads its own predicates)."""
    if isinstance(x, Tensor):
        return int(np.asarray(x._device.backend.to_numpy(x._array)).reshape(()))
    return int(x)


def _trace_subgraph(name, fn, args, dry=False):
    """Trace ``fn(*args)`` into a new graph inside the current one; returns (graph, flat outputs, structure)."""
    outer = tracing.current_graph()
    g = FuncGraph(name, outer=outer, dry=dry)
    saved_tapes = recording.active_tapes()
    recording._state.tapes = []
    try:
        with tracing.recording_into(g):
            ph = []
            for a in args:
                if isinstance(a, Tensor):
                    t = Tensor(a._array, a._dtype, a._device)
                    g.add_placeholder(t)
                    ph.append(t)
                else:
                    g.add_placeholder(a)
                    ph.append(a)
            out = fn(*ph)
            out = nest.map_structure(_to_tensor_leaf, out)
    finally:
        recording._state.tapes = saved_tapes
    flat = nest.flatten(out)
    g.outputs = [g.slot_of(x) for x in flat if x is not None]
    return g, flat, out


def _fresh(x):
    return Tensor(x._array, x._dtype, x._device) if isinstance(x, Tensor) else x


def _plan(g):
    if not hasattr(g, "_plan"):
        g._plan = executor.compile_plan(g)
    return g._plan


def _run_sub(g, args, outer_env):
    return executor.run_plan(_plan(g), args, outer_env)


class _EnvView:
    """An outer environment for a subgraph given as explicit (slot -> value) pairs."""

    def __init__(self, mapping):
        self._m = mapping

    def __getitem__(self, k):
        return self._m[k]


# -- cond --------------------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond(pred, true_fn, false_fn)``: the result of ``true_fn()`` if pred else ``false_fn()``."""
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    value = _pred_value(pred, "cond")
    if not _is_symbolic(pred if not isinstance(pred, Variable) else pred.value()):
        return true_fn() if value else false_fn()
    if isinstance(pred, Variable):
        pred = pred.value()
    return _graph_cond(pred, value, [true_fn, false_fn], [True, False], "cond")


def _graph_cond(index_tensor, taken, branch_fns, keys, name):
    """Record a multi-way branch on ``index_tensor`` (bool for cond, int for switch_case)."""
    outer = tracing.current_graph()
    graphs = []
    outs = None
    structure = None
    for k, fn in zip(keys, branch_fns):
        live = k == taken
        g, flat, struct = _trace_subgraph(f"{name}_branch{k}", fn, [], dry=not live)
        graphs.append(g)
        if live:
            outs, structure = flat, struct
    ref = graphs[keys.index(taken)]
    for g, k in zip(graphs, keys):
        if len(g.outputs) != len(ref.outputs):
            raise ValueError(f"{name}: true_fn and false_fn must return the same nested structure; branch {k} "
                             f"returns {len(g.outputs)} tensors, branch {taken} returns {len(ref.outputs)}")
        for a, b in zip(g.outputs, ref.outputs):
            ta, tb = g.slot_values[a], ref.slot_values[b]
            if isinstance(ta, Tensor) and isinstance(tb, Tensor) and ta._dtype is not tb._dtype:
                raise TypeError(f"{name}: branches return different dtypes: {ta._dtype.name} and {tb._dtype.name}")
    cap_slots = sorted({o for g in graphs for o, _ in g.captures})
    key_of = dict(zip(keys, graphs))
    is_bool = isinstance(taken, bool)

    def run(env, idx, *caps):
        i = _pred_value(idx, name) if is_bool else _host_int(idx)
        g = key_of.get(i, graphs[-1])
        return _run_sub(g, [], env)

    idx_slot = outer.slot_of(index_tensor)
    results = [_fresh(x) for x in outs if x is not None]
    out_slots = [outer._new_slot(r) for r in results]
    outer.nodes.append(Node("subcall", run, [idx_slot] + cap_slots, out_slots, stateful=True, name="If"))
    _record_cond_on_tapes(index_tensor, graphs, keys, outer, cap_slots, results, is_bool, name)
    it = iter(results)
    return nest.pack_sequence_as(structure, [next(it) if x is not None else None for x in outs])


def _record_cond_on_tapes(index_tensor, graphs, keys, outer, cap_slots, results, is_bool, name):
    tapes = recording.active_tapes()
    if not tapes:
        return
    cap_tensors = [outer.slot_values[s] for s in cap_slots]
    variables = _trainable_variables(graphs)
    var_tensors = [v.value() for v in variables]   # the outer tape sees these reads
    n_caps = len(cap_tensors)

    def grad(call, *dys):
        idx, caps = call.inputs[0], list(call.inputs[1:1 + n_caps])
        diff = [i for i, c in enumerate(caps) if isinstance(c, Tensor) and c._dtype.is_floating]

        def branch_grad(g):
            def fn():
                env = _EnvView(dict(zip(cap_slots, caps)))
                with GradientTape() as tape:
                    for i in diff:
                        tape.watch(caps[i])
                    for v in variables:
                        tape.watch(v)
                    outs = _run_sub(g, [], env)
                pairs = [(o, d) for o, d in zip(outs, dys) if d is not None and isinstance(o, Tensor)]
                gs = tape.gradient([o for o, _ in pairs], [caps[i] for i in diff] + list(variables),
                                   output_gradients=[d for _, d in pairs],
                                   unconnected_gradients="zero")
                return list(gs)
            return fn

        if not diff and not variables:
            return [None] * len(call.inputs)
        if is_bool:
            gs = cond(idx, branch_grad(graphs[0]), branch_grad(graphs[1]))
        else:
            gs = switch_case(idx, [branch_grad(g) for g in graphs])
        gs = nest.flatten(gs)
        out = [None] * len(call.inputs)
        for i, gv in zip(diff, gs):
            out[1 + i] = gv
        for j, gv in enumerate(gs[len(diff):]):
            out[1 + n_caps + j] = gv
        return out

    op = _ControlFlowOp(name.capitalize(), grad)
    for tape in tapes:
        tape._record(op, (index_tensor, *cap_tensors, *var_tensors), tuple(results), {})


def _trainable_variables(graphs):
    seen = {}
    for g in graphs:
        for v in g.variables:
            if getattr(v, "trainable", False) and v.dtype.is_floating:
                seen.setdefault(id(v), v)
    return list(seen.values())


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first pair whose predicate is true (else ``default``)."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for p in pairs:
        if not isinstance(p, tuple) or len(p) != 2 or not callable(p[1]):
            raise TypeError(f"case: pred_fn_pairs must be (predicate, callable) pairs, got {p!r}")
    if default is None:
        if not pairs:
            raise ValueError("case: pred_fn_pairs is empty and no default was given")
        *pairs, (_, default) = pairs
    if exclusive:
        from ..ops import math_ops, reduce_ops

        preds = [convert_to_tensor(p) for p, _ in pairs]
        if preds and not _is_symbolic(preds[0]):
            n = sum(bool(_pred_value(p, "case")) for p in preds)
            if n > 1:
                raise InvalidArgumentError(
                    None, None, f"{name}: more than one condition evaluated as True but exclusive=True: "
                    f"{[bool(_pred_value(p, 'case')) for p in preds]}")
        del math_ops, reduce_ops
    result = default
    for p, fn in reversed(pairs):
        result = (lambda p_=p, fn_=fn, else_=result: (lambda: cond(p_, fn_, else_)))()
    return result()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: ``branch_fns[branch_index]()`` (out of range: ``default`` or the last branch)."""
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    else:
        items = list(enumerate(branch_fns))
    if not items:
        raise ValueError("switch_case: branch_fns must not be empty")
    for _, fn in items:
        if not callable(fn):
            raise TypeError(f"switch_case: branch_fns must be callables, got {fn!r}")
    keys = [k for k, _ in items]
    fns = [f for _, f in items]
    if default is None:
        default = fns[-1]
    keys = keys + [-1]
    fns = fns + [default]
    idx = branch_index.value() if isinstance(branch_index, Variable) else branch_index
    if isinstance(idx, Tensor) and not idx._dtype.is_integer:
        raise TypeError(f"switch_case: branch_index must be an int32 or int64 tensor, got {idx._dtype.name}")
    i = _host_int(idx)
    taken = i if i in keys[:-1] else -1
    if not _is_symbolic(idx):
        return fns[keys.index(taken)]()

    def pick(index):
        i = _host_int(index)
        return i if i in keys[:-1] else -1

    outer = tracing.current_graph()
    selector = tracing.call_python(lambda t: convert_to_tensor(np.int64(pick(t))), [idx], stateful=False,
                                   name="BranchIndex")
    del outer
    return _graph_cond(selector, taken, fns, keys, name)


# -- while_loop -------------------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, list | tuple) or (hasattr(loop_vars, "_fields") and False)
    structure = [loop_vars] if not isinstance(loop_vars, list | tuple) else loop_vars
    structure = nest.map_structure(_to_tensor_leaf, structure)
    flat0 = nest.flatten(structure)
    invariants = None
    if shape_invariants is not None:
        inv = [shape_invariants] if single else shape_invariants
        invariants = [as_shape(s) if s is not None else None for s in nest.flatten(inv)]
        if len(invariants) != len(flat0):
            raise ValueError(f"while_loop: shape_invariants has {len(invariants)} entries for {len(flat0)} loop "
                             "variables")
        for x, s in zip(flat0, invariants):
            if isinstance(x, Tensor) and s is not None and not s.is_compatible_with(x.shape):
                raise ValueError(f"while_loop: initial loop variable shape {x.shape} is not compatible with the "
                                 f"shape invariant {s}")
    max_iter = maximum_iterations
    if max_iter is not None:
        max_iter = max_iter.value() if isinstance(max_iter, Variable) else max_iter

    def call_cond(flat):
        args = nest.pack_sequence_as(structure, flat)
        return cond(*args)

    def call_body(flat):
        args = nest.pack_sequence_as(structure, flat)
        out = body(*args)
        if single or (len(structure) == 1 and not isinstance(out, list | tuple)):
            out = [out]
        out = nest.map_structure(_to_tensor_leaf, out)
        try:
            new = nest.flatten(list(out))
        except TypeError:
            new = nest.flatten(out)
        if len(new) != len(flat):
            raise ValueError(f"while_loop: body returned {len(new)} loop variables, expected {len(flat)} "
                             f"(the structure of loop_vars)")
        return new

    graph = tracing.current_graph()
    symbolic = graph is not None
    if not symbolic:
        flat = flat0
        n = 0
        limit = None if max_iter is None else _host_int(max_iter)
        while (limit is None or n < limit) and _pred_value(call_cond(flat), "while_loop"):
            flat = call_body(flat)
            n += 1
        result = nest.pack_sequence_as(structure, flat)
        return result[0] if single else _same_type(loop_vars, result)
    return _graph_while(graph, call_cond, call_body, structure, flat0, invariants, max_iter, single, loop_vars)


def _same_type(loop_vars, result):
    if isinstance(loop_vars, tuple) and not hasattr(loop_vars, "_fields"):
        return tuple(result)
    return result


def _check_shapes(flat_before, flat_after, invariants):
    for i, (a, b) in enumerate(zip(flat_before, flat_after)):
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            continue
        if a._dtype is not b._dtype:
            raise TypeError(f"while_loop: loop variable {i} enters the loop with dtype {a._dtype.name} but has "
                            f"dtype {b._dtype.name} after one iteration")
        inv = invariants[i] if invariants is not None else None
        if inv is None:
            inv = TensorShape(list(a._array.shape))
        if not inv.is_compatible_with(b.shape):
            raise ValueError(
                f"Input tensor 'loop_var_{i}' enters the loop with shape {a.shape}, but has shape {b.shape} after "
                "one iteration. To allow the shape to vary across iterations, use the `shape_invariants` argument "
                "of tf.while_loop to specify a less-specific shape.")


def _graph_while(outer, call_cond, call_body, structure, flat0, invariants, max_iter, single, loop_vars):
    go = _pred_value(_trace_cond_value(call_cond, flat0), "while_loop")
    cond_g, cond_out, _ = _trace_subgraph("while_cond", lambda *a: call_cond(list(a)), flat0)
    limit_now = None if max_iter is None else _host_int(max_iter)
    live = go and (limit_now is None or limit_now > 0)
    body_g, first, _ = _trace_subgraph("while_body", lambda *a: call_body(list(a)), flat0, dry=not live)
    _check_shapes(flat0, first, invariants)
    cap_slots = sorted({o for o, _ in cond_g.captures} | {o for o, _ in body_g.captures})
    max_slot = outer.slot_of(max_iter) if isinstance(max_iter, Tensor) else None
    static_max = None if isinstance(max_iter, Tensor) or max_iter is None else int(max_iter)

    def loop(env, flat, limit):
        n = 0
        while limit is None or n < limit:
            if not _pred_value(_run_sub(cond_g, flat, env)[0], "while_loop"):
                break
            flat = _run_sub(body_g, flat, env)
            n += 1
        return flat

    def run(env, *args):
        k = len(flat0)
        flat = list(args[:k])
        limit = static_max if max_slot is None else _host_int(env[max_slot])
        return loop(env, flat, limit)

    # Finish the loop now (the trace's own values), with recording off; the body ran once already.
    trace_env = _EnvView({s: outer.slot_values[s] for s in cap_slots})
    with tracing.suspended():
        saved = recording.active_tapes()
        recording._state.tapes = []
        try:
            if live:
                rest = None if limit_now is None else limit_now - 1
                final = loop(trace_env, list(first), rest)
            else:
                final = list(flat0)
        finally:
            recording._state.tapes = saved
    in_slots = [outer.slot_of(x) for x in flat0]
    extra = ([max_slot] if max_slot is not None else [])
    results = [_fresh(x) for x in final]
    out_slots = [outer._new_slot(r) for r in results]
    outer.nodes.append(Node("subcall", run, in_slots + extra + cap_slots, out_slots, stateful=True,
                            name="While"))
    _record_while_on_tapes(outer, loop, flat0, cap_slots, results, max_slot, static_max, [cond_g, body_g])
    result = nest.pack_sequence_as(structure, results)
    del cond_out
    return result[0] if single else _same_type(loop_vars, result)


def _trace_cond_value(call_cond, flat):
    with tracing.suspended():
        saved = recording.active_tapes()
        recording._state.tapes = []
        try:
            return call_cond(list(flat))
        finally:
            recording._state.tapes = saved


def _record_while_on_tapes(outer, loop, flat0, cap_slots, results, max_slot, static_max, graphs):
    tapes = recording.active_tapes()
    if not tapes:
        return
    caps = [outer.slot_values[s] for s in cap_slots]
    variables = _trainable_variables(graphs)
    var_tensors = [v.value() for v in variables]
    k, n_caps = len(flat0), len(caps)
    limit_t = [] if max_slot is None else [outer.slot_values[max_slot]]

    def grad(call, *dys):
        inputs = list(call.inputs)
        xs, cs = inputs[:k], inputs[k:k + n_caps]

        def recompute(*vals):
            n_dys = len(dys)
            xv = [_fresh(v) for v in vals[:k]]  # distinct from captures that are the same tensor
            cv = list(vals[k:k + n_caps])
            dv = list(vals[k + n_caps:k + n_caps + n_dys])
            limit = static_max if max_slot is None else _host_int(vals[-1])
            env = _EnvView(dict(zip(cap_slots, cv)))
            watch = [v for v in xv + cv if isinstance(v, Tensor) and v._dtype.is_floating]
            with GradientTape() as tape:
                for v in watch:
                    tape.watch(v)
                for v in variables:
                    tape.watch(v)
                outs = loop(env, list(xv), limit)
            pairs = [(o, d) for o, d in zip(outs, dv) if d is not None and isinstance(o, Tensor)
                     and o._dtype.is_floating]
            gs = tape.gradient([o for o, _ in pairs], watch + list(variables),
                               output_gradients=[d for _, d in pairs], unconnected_gradients="zero")
            it = iter(gs)
            res = [next(it) if (isinstance(v, Tensor) and v._dtype.is_floating) else None for v in xv + cv]
            return res + [next(it) for _ in variables]

        dys_t = [d if d is not None else _zeros_like(o) for d, o in zip(dys, call.outputs)]
        gs = tracing.call_python(recompute, xs + cs + dys_t + limit_t, stateful=False, name="WhileGrad")
        return list(gs)

    op = _ControlFlowOp("While", grad)
    for tape in tapes:
        tape._record(op, tuple(flat0) + tuple(caps) + tuple(var_tensors), tuple(results), {})


def _zeros_like(t):
    return array_ops.zeros_like(t) if isinstance(t, Tensor) else None


# -- functional ops built on while_loop --------------------------------------------------------------------
def _stack(values):
    return array_ops.stack(values, axis=0)


@add_dispatch_support  # tf.map_fn over a RaggedTensor (tfcore/ragged/ragged_dispatch.py)
def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn``: ``fn`` applied to each slice of ``elems`` along axis 0, results stacked."""
    if not callable(fn):
        raise TypeError(f"map_fn: fn must be callable, got {fn!r}")
    flat = [_to_tensor_leaf(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("map_fn: elems must contain at least one tensor")
    n = flat[0].shape[0]
    for e in flat:
        if e.shape.rank == 0:
            raise ValueError("map_fn: elements in elems must be 1+ dimensional tensors, not scalars")
        if e.shape[0] != n:
            raise ValueError(f"map_fn: all elems must have the same size along axis 0; got {[x.shape for x in flat]}")

    def body(i, *tas):
        xs = nest.pack_sequence_as(elems, [e[i] for e in flat])
        y = nest.flatten(fn(xs))
        return (i + 1,) + tuple(ta.write(i, _to_tensor_leaf(v)) for ta, v in zip(tas, y))

    if fn_output_signature is not None or dtype is not None:
        sig = fn_output_signature if fn_output_signature is not None else dtype
        structure = sig
        out_dtypes = [getattr(s, "dtype", s) for s in nest.flatten(sig)]
    else:
        structure = _first_output(fn, elems, flat)
        out_dtypes = [_to_tensor_leaf(p).dtype for p in nest.flatten(structure)]

    tas = tuple(TensorArray(d, size=n) for d in out_dtypes)
    res = while_loop(lambda i, *_: i < n, body, (array_ops.constant(0), *tas))
    outs = [ta.stack() for ta in res[1:]]
    return nest.pack_sequence_as(structure, outs)


def _first_output(fn, elems, flat):
    """Run ``fn`` on element 0 without recording, to learn its output structure and dtypes."""
    with tracing.suspended():
        saved = recording.active_tapes()
        recording._state.tapes = []
        try:
            out = fn(nest.pack_sequence_as(elems, [e[0] for e in flat]))
        finally:
            recording._state.tapes = saved
    return out


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """``tf.scan``: the running ``a = fn(a, x)`` over ``elems`` along axis 0, every ``a`` stacked."""
    if not callable(fn):
        raise TypeError(f"scan: fn must be callable, got {fn!r}")
    flat = [_to_tensor_leaf(e) for e in nest.flatten(elems)]
    n = flat[0].shape[0]

    if reverse:
        flat = [array_ops.reverse(e, [0]) for e in flat]
    start = 0
    if initializer is None:
        acc = nest.pack_sequence_as(elems, [e[0] for e in flat])
        start = 1
    else:
        acc = nest.map_structure(_to_tensor_leaf, initializer)
    acc_flat = nest.flatten(acc)
    tas = tuple(TensorArray(a.dtype, size=n) for a in acc_flat)
    if start:
        tas = tuple(ta.write(0, a) for ta, a in zip(tas, acc_flat))

    def body(i, accs, tas):
        x = nest.pack_sequence_as(elems, [e[i] for e in flat])
        new = nest.flatten(fn(nest.pack_sequence_as(acc, list(accs)), x))
        new = [_to_tensor_leaf(v) for v in new]
        return i + 1, tuple(new), tuple(ta.write(i, v) for ta, v in zip(tas, new))

    _, _, tas = while_loop(lambda i, a, t: i < n, body, (array_ops.constant(start), tuple(acc_flat), tas))
    outs = [ta.stack() for ta in tas]
    if reverse:
        outs = [array_ops.reverse(o, [0]) for o in outs]
    return nest.pack_sequence_as(acc, outs)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``tf.foldl``: ``fn(...fn(fn(init, e0), e1)..., en)`` along axis 0 of ``elems``."""
    return _fold(fn, elems, initializer, reverse=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``tf.foldr``: like foldl from the last element to the first."""
    return _fold(fn, elems, initializer, reverse=True)


def _fold(fn, elems, initializer, reverse):
    if not callable(fn):
        raise TypeError(f"fold: fn must be callable, got {fn!r}")

    flat = [_to_tensor_leaf(e) for e in nest.flatten(elems)]
    if reverse:
        flat = [array_ops.reverse(e, [0]) for e in flat]
    n = flat[0].shape[0]
    start = 0
    if initializer is None:
        if n == 0:
            raise ValueError("fold: elems is empty and no initializer was given")
        acc = nest.pack_sequence_as(elems, [e[0] for e in flat])
        start = 1
    else:
        acc = nest.map_structure(_to_tensor_leaf, initializer)

    def body(i, accs):
        x = nest.pack_sequence_as(elems, [e[i] for e in flat])
        new = nest.flatten(fn(nest.pack_sequence_as(acc, list(accs)), x))
        return i + 1, tuple(_to_tensor_leaf(v) for v in new)

    _, accs = while_loop(lambda i, a: i < n, body, (array_ops.constant(start), tuple(nest.flatten(acc))))
    return nest.pack_sequence_as(acc, list(accs))


# -- small ops ---------------------------------------------------------------------------------------------
class control_dependencies:  # noqa: N801 - TF's public name
    """``with tf.control_dependencies([ops]):`` — tfcore keeps program order for every stateful node
    in a traced graph, so the listed operations already run before anything created inside."""

    def __init__(self, control_inputs):
        if control_inputs is not None:
            for c in control_inputs:
                if c is not None and not (isinstance(c, Tensor | Variable) or callable(c)
                                          or hasattr(c, "type") or _is_tensor_array(c)):
                    raise TypeError(f"control_dependencies: control input must be an Operation or Tensor, got {c!r}")
        self._inputs = control_inputs

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def init_scope():
    """``with tf.init_scope():`` — code inside runs eagerly, outside any graph being traced."""
    return tracing.suspended()


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TF's argument name
    """``tf.py_function``: run ``func`` eagerly on tensors (every call, also inside tf.function)."""
    if func is None:
        return lambda f: (lambda *a: py_function(f, list(a), Tout, name))
    if not callable(func):
        raise TypeError(f"py_function: func must be callable, got {func!r}")
    return _py_call(func, inp, Tout, numpy=False)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: like py_function but ``func`` gets and returns NumPy arrays."""
    if func is None:
        return lambda f: (lambda *a: numpy_function(f, list(a), Tout, stateful, name))
    if not callable(func):
        raise TypeError(f"numpy_function: func must be callable, got {func!r}")
    return _py_call(func, inp, Tout, numpy=True, stateful=stateful)


def _py_call(func, inp, tout, numpy, stateful=True):
    inputs = [_to_tensor_leaf(x) for x in (inp or [])]
    multi = isinstance(tout, list | tuple)
    touts = [dtypes.as_dtype(t) if t is not None else None for t in (tout if multi else [tout])]

    def run(*tensors):
        args = [t.numpy() if numpy else t for t in tensors]
        out = func(*args)
        if tout is None or (multi and len(touts) == 0):
            return None
        outs = list(out) if multi else [out]
        if len(outs) != len(touts):
            raise InvalidArgumentError(None, None, f"py_function: func returned {len(outs)} values, Tout has "
                                       f"{len(touts)}")
        res = [convert_to_tensor(np.asarray(o) if numpy else o, dtype=d) for o, d in zip(outs, touts)]
        return res if multi else res[0]

    def dry():
        res = [array_ops.zeros([], dtype=d) for d in touts]
        return res if multi else res[0]

    result = tracing.call_python(run, inputs, stateful=stateful, dry_result=dry if tout is not None else None,
                                 name="EagerPyFunc")
    return result


# -- for loops over datasets (AutoGraph) -----------------------------------------------------------------
def dataset_loop(dataset, body, state, break_index=None):
    """``for elem in dataset`` inside a trace: ``state = body(elem, *state)`` per element, ONE graph node.

    The body is traced once (with the first element) into a sub-graph; every call of the function
    iterates the dataset anew (a new pass: reshuffled, as TF's in-graph dataset loops) and runs the
    body graph per element. ``state`` holds the loop's variables (tensors, Python numbers); a true
    ``state[break_index]`` after an element ends the loop.
    """
    outer = tracing.current_graph()
    state = [_to_tensor_leaf(v) for v in state]
    with tracing.suspended():
        it = iter(dataset)
        first = next(it, None)
    empty = first is None
    if empty:  # zeros shaped like the element spec (unknown dimensions 0) to trace the body (dry)
        first = nest.map_structure(
            lambda sp: convert_to_tensor(np.zeros([0 if d is None else d for d in (
                sp.shape.as_list() if sp.shape.rank is not None else [])], sp.dtype.as_numpy_dtype)),
            dataset.element_spec)
    structure = first
    flat_elem = nest.flatten(first)
    k = len(flat_elem)

    def traced_body(*args):
        elem = nest.pack_sequence_as(structure, list(args[:k]))
        return [_to_tensor_leaf(v) for v in body(elem, *args[k:])]

    g, new_state, _ = _trace_subgraph("dataset_loop_body", traced_body, flat_elem + state, dry=empty)
    if len(new_state) != len(state):
        raise ValueError(f"for loop over a dataset: the body returned {len(new_state)} loop variables, "
                         f"expected {len(state)}")
    cap_slots = sorted({o for o, _ in g.captures})

    def stop(st):
        return break_index is not None and _pred_value(st[break_index], "for loop break")

    def loop(env, st, elements):
        for elem in elements:
            if stop(st):
                break
            st = _run_sub(g, nest.flatten(elem) + list(st), env)
        return st

    def run(env, *args):
        with tracing.suspended():
            return loop(env, list(args[:len(state)]), iter(dataset))

    trace_env = _EnvView({s: outer.slot_values[s] for s in cap_slots})
    final = list(state)
    if not empty:
        with tracing.suspended():
            saved = recording.active_tapes()
            recording._state.tapes = []
            try:
                final = loop(trace_env, list(new_state), it)
            finally:
                recording._state.tapes = saved
    in_slots = [outer.slot_of(x) for x in state]
    results = [_fresh(x) for x in final]
    out_slots = [outer._new_slot(r) for r in results]
    outer.nodes.append(Node("subcall", run, in_slots + cap_slots, out_slots, stateful=True, name="DatasetLoop"))
    return results


