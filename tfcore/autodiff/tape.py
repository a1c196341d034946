"""``tf.GradientTape``: records ops on watched tensors and replays them backwards.

Recording: :func:`tfcore.ops.registry.execute` offers each executed op to the
active tapes (``framework.recording``); a tape keeps it when one of its inputs is
watched or was produced from a watched tensor. Gradients are computed by walking
the kept records in reverse order, calling each op's gradient function — itself
made of ops, so an outer tape records the backward pass and nested tapes give
higher-order derivatives.
"""

import enum

import numpy as np

from .. import ops
from ..framework import context as _ctx
from ..framework import nest, recording, tracing
from ..framework.dtypes import DIFFERENTIABLE_DTYPES as _DIFFERENTIABLE
from ..framework.dtypes import float32 as _F32
from ..framework.errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, is_tensor
from ..framework.variables import Variable
from ..ops.registry import Call


class UnconnectedGradients(enum.Enum):
    NONE = "none"
    ZERO = "zero"


_OPS = None


def _ops():
    """``tfcore.ops`` (imported on first use: ops import the registry, which this layer sits on)."""
    global _OPS
    if _OPS is None:
        _OPS = ops
    return _OPS


def _differentiable(t):
    dt = t._dtype
    return dt is _F32 or dt in _DIFFERENTIABLE


class GradientTape:
    """Record operations for automatic differentiation (as ``tf.GradientTape``).

    Args:
      persistent: allow several ``gradient``/``jacobian`` calls.
      watch_accessed_variables: watch trainable variables read while recording.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._tracked = set()         # ids of watched tensors and of their descendants
        self._keep = []               # keeps tracked tensors alive so their ids stay unique
        self._records = []            # Call objects in execution order
        self._var_reads = {}          # id(variable) -> list of tensor ids read from it
        self._watched_vars = {}       # id(variable) -> variable (for watched_variables())
        self._recording = False
        self._used = False

    # -- context -------------------------------------------------------------
    def __enter__(self):
        self._push()
        return self

    def __exit__(self, *exc):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        self._recording = True
        recording.push_tape(self)

    def _pop(self):
        self._recording = False
        recording.pop_tape(self)

    def stop_recording(self):
        """Context manager: ops inside are not recorded by this tape."""
        tape = self

        class _Stop:
            def __enter__(self_inner):
                if not tape._recording:
                    raise ValueError("Tape.stop_recording: the tape is not recording.")
                tape._pop()

            def __exit__(self_inner, *exc):
                tape._push()
                return False

        return _Stop()

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording)."""
        self._tracked.clear()
        self._keep.clear()
        self._records.clear()
        self._var_reads.clear()
        self._watched_vars.clear()

    # -- watching ----------------------------------------------------------------
    def watch(self, tensor):
        """Watch tensors or variables (nested structures allowed)."""
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                self._watch_variable(t)
            elif isinstance(t, Tensor):
                if not _differentiable(t):
                    continue  # TF ignores (and warns about) non-float watches
                self._tracked.add(id(t))
                self._keep.append(t)
            else:
                raise ValueError(f"GradientTape.watch: cannot watch {type(t).__name__} {t!r}")

    def _watch_variable(self, var):
        key = id(var)
        if key not in self._watched_vars:
            self._watched_vars[key] = var
            self._var_reads.setdefault(key, [])
        value = var._value
        self._track_read(var, value)

    def _track_read(self, var, value):
        vid = id(value)
        reads = self._var_reads.setdefault(id(var), [])
        if vid not in self._tracked:
            self._tracked.add(vid)
            self._keep.append(value)
        if vid not in reads:
            reads.append(vid)

    def _variable_accessed(self, var):
        """A variable was read while recording (every read of every weight: kept lean)."""
        key = id(var)
        if key not in self._watched_vars:
            if not (self._watch_accessed and var.trainable and _differentiable(var._value)):
                return
            self._watched_vars[key] = var
        value = var._value
        vid = id(value)
        tracked = self._tracked
        if vid not in tracked:
            tracked.add(vid)
            self._keep.append(value)
        reads = self._var_reads.get(key)
        if reads is None:
            self._var_reads[key] = [vid]
        elif vid not in reads:
            reads.append(vid)

    def watched_variables(self):
        return tuple(self._watched_vars.values())

    # -- recording -------------------------------------------------------------
    def _record(self, op, inputs, outputs, attrs, residuals=None):
        tracked = self._tracked
        for t in inputs:
            if id(t) in tracked:
                break
        else:
            return
        self._records.append(Call(op, inputs, outputs, attrs, tracked, residuals))
        for o in outputs:
            dt = o._dtype
            if dt is _F32 or dt in _DIFFERENTIABLE:
                tracked.add(id(o))

    # -- gradients ---------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(target)/d(sources), with the structure of ``sources``.

        ``target`` may be a tensor or a nested structure of tensors (their
        gradients are summed); ``output_gradients`` are the upstream gradients.
        """
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")
        self._used = True
        unconnected = (unconnected_gradients if unconnected_gradients is UnconnectedGradients.NONE
                       else UnconnectedGradients(unconnected_gradients))
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if not (is_tensor(s)):
                raise ValueError(f"GradientTape.gradient: source {s!r} is not a tensor or variable")
        targets = nest.flatten(target)
        out_grads = nest.flatten(output_gradients) if output_gradients is not None else [None] * len(targets)
        if len(out_grads) != len(targets):
            raise ValueError("GradientTape.gradient: output_gradients must match target structure")
        # a source that is itself a target gets the target's output gradient (ones by default), as TF's
        # tape does for "sources that are targets" (TF identifies both by the variable's handle)
        variable_targets = [(t, g) for t, g in zip(targets, out_grads) if isinstance(t, Variable)]
        targets = [t.value() if isinstance(t, Variable) else t for t in targets]
        # ... unless the target's value is a read this tape recorded (the backward pass then seeds it)
        variable_targets = [(t, g) for t, g in variable_targets if id(t.value()) not in self._var_reads.get(id(t), ())]
        was_recording = self._recording
        if was_recording:
            self._pop()
        try:
            grads = self._backward(targets, out_grads)
            result = []
            for s in flat_sources:
                g = self._source_grad(s, grads)
                for t, out_grad in variable_targets:
                    if t is s:
                        own = _ops().ones_like(s.value()) if out_grad is None else out_grad
                        g = own if g is None else _ops().add(g, own)
                if g is None and unconnected is UnconnectedGradients.ZERO:
                    g = _ops().zeros_like(s)
                result.append(g)
        finally:
            if was_recording:
                self._push()
            if not self._persistent:
                self._release()
        return nest.pack_sequence_as(sources, result)

    def _release(self):
        self._records = []
        self._keep = []
        self._tracked = set()

    def _source_grad(self, s, grads):
        if isinstance(s, Variable):
            ids = self._var_reads.get(id(s), ())
        else:
            ids = (id(s),)
        total = None
        for i in ids:
            g = grads.get(i)
            if g is not None:
                total = g if total is None else _add_gradients(total, g)
        return total

    def _backward(self, targets, out_grads):
        """Gradients of ``targets`` for every tracked tensor: ``{id(tensor): gradient}``.

        Hot loop (one iteration per recorded op): single-output records skip the
        list building, and a tensor's first gradient is stored as is (a sum op
        runs only when a second one arrives).
        """
        ops = _ops()
        add = ops.add
        grads = {}
        tracked = self._tracked
        for t, g in zip(targets, out_grads):
            if id(t) not in tracked:
                continue
            g = _seed(t) if g is None else ops.convert_to_tensor(g, dtype=t.dtype)
            _accumulate(grads, t, g)
        if not grads:
            return grads
        get = grads.get
        for call in reversed(self._records):
            outs = call.outputs
            if len(outs) == 1:
                g = get(id(outs[0]))
                if g is None:
                    continue
                if type(g) is IndexedSlices:
                    in_grads = _sparse_grad(call, g)
                else:
                    in_grads = call.op.grad(call, g)
            else:
                ogs = [get(id(o)) for o in outs]
                if all(g is None for g in ogs):
                    continue
                ogs = [_dense(g) if type(g) is IndexedSlices else g for g in ogs]
                if not call.op.grad_takes_none:
                    ogs = [g if g is not None else (ops.zeros_like(o) if o._dtype in _DIFFERENTIABLE else None)
                           for g, o in zip(ogs, outs)]
                in_grads = call.op.grad(call, *ogs)
            if type(in_grads) is not list and type(in_grads) is not tuple:
                in_grads = (in_grads,) if not isinstance(in_grads, list | tuple) else in_grads
            inputs = call.inputs
            if len(in_grads) != len(inputs):
                raise InvalidArgumentError(
                    f"Gradient of {call.op.name} returned {len(in_grads)} values for {len(inputs)} inputs")
            for x, g in zip(inputs, in_grads):
                if g is None:
                    continue
                key = id(x)
                if key not in tracked:
                    continue
                dt = x._dtype
                if dt is not _F32 and dt not in _DIFFERENTIABLE:
                    continue
                prev = get(key)
                grads[key] = g if prev is None else (
                    add(prev, g) if type(prev) is Tensor and type(g) is Tensor else _add_gradients(g, prev))
        return grads

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """Full Jacobian: result[i] has shape ``target.shape + sources[i].shape``."""
        return self._jacobian(target, sources, unconnected_gradients, batch=False)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobian: shape ``[batch] + target.shape[1:] + source.shape[1:]``.

        Assumes (as TF does) that example i of target depends only on example i of source.
        """
        return self._jacobian(target, source, unconnected_gradients, batch=True)

    def _jacobian(self, target, sources, unconnected_gradients, batch):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")
        ops = _ops()
        unconnected = UnconnectedGradients(unconnected_gradients)
        target = target.value() if isinstance(target, Variable) else target
        flat_sources = nest.flatten(sources)
        tshape = tuple(target.shape)
        if batch:
            n_batch, inner = tshape[0], int(np.prod(tshape[1:], dtype=np.int64))
            rows = inner
        else:
            rows = int(np.prod(tshape, dtype=np.int64))
        was_recording = self._recording
        if was_recording:
            self._pop()
        per_source = [[] for _ in flat_sources]
        try:
            for r in range(rows):
                seed = np.zeros(rows, dtype=target.dtype.as_numpy_dtype)
                seed[r] = 1
                if batch:
                    seed = np.broadcast_to(seed, (n_batch, rows)).reshape(tshape)
                else:
                    seed = seed.reshape(tshape)
                g_all = self._backward([target], [ops.convert_to_tensor(seed, dtype=target.dtype)])
                for k, s in enumerate(flat_sources):
                    g = self._source_grad(s, g_all)
                    per_source[k].append(_dense(g) if type(g) is IndexedSlices else g)
        finally:
            if was_recording:
                self._push()
            self._used = True
            if not self._persistent:
                self._release()
        results = []
        for s, gs in zip(flat_sources, per_source):
            sshape = tuple(s.shape)
            if all(g is None for g in gs):
                if unconnected is UnconnectedGradients.ZERO:
                    shape = (tshape + sshape[1:]) if batch else (tshape + sshape)
                    results.append(ops.zeros(shape, dtype=s.dtype))
                else:
                    results.append(None)
                continue
            gs = [g if g is not None else ops.zeros_like(s) for g in gs]
            if rows == 0:
                shape = (tshape + sshape[1:]) if batch else (tshape + sshape)
                results.append(ops.zeros(shape, dtype=s.dtype))
                continue
            stacked = ops.stack(gs, axis=1 if batch else 0)  # batch: [B, rows, ...s[1:]]
            shape = (tshape + sshape[1:]) if batch else (tshape + sshape)
            results.append(ops.reshape(stacked, shape))
        return nest.pack_sequence_as(sources, results)


_SCALAR_ONES = {}  # (dtype, device) -> the scalar 1 (tensors are immutable: one per kind is shared)
_ctx.on_reset(_SCALAR_ONES.clear)  # its devices go away with the context's


def _seed(t):
    """The default output gradient: ones like ``t`` (a cached tensor for scalar targets, e.g. losses)."""
    if t._array.ndim:
        return _ops().ones_like(t)
    key = (t._dtype, t._device)
    one = _SCALAR_ONES.get(key)
    if one is None:
        with tracing.suspended():  # shared across traces and eager code: never one trace's own tensor
            one = _SCALAR_ONES[key] = _ops().ones_like(t)
    return one


def _accumulate(grads, x, g):
    key = id(x)
    prev = grads.get(key)
    grads[key] = g if prev is None else _add_gradients(prev, g)


# -- sparse (IndexedSlices) gradients --------------------------------------------------------------------------
# As in TF's backprop: ``tf.gather``'s gradient along axis 0 is an IndexedSlices; two of them add up by
# concatenation (repeated rows stay separate slices, which optimizers see, as Keras 3's do); anything else
# that meets one, or an op whose gradient function takes tensors, gets it made dense first.

def _dense(g):
    return _ops().convert_to_tensor(g)


def _add_gradients(a, b):
    """The sum of two gradients of one tensor: concatenated slices when both are IndexedSlices."""
    ops = _ops()
    if type(a) is IndexedSlices and type(b) is IndexedSlices:
        idx_dtype = a.indices.dtype if a.indices.dtype == b.indices.dtype else ops.int64
        return IndexedSlices(ops.concat([a.values, b.values], 0),
                             ops.concat([ops.cast(a.indices, idx_dtype), ops.cast(b.indices, idx_dtype)], 0),
                             a.dense_shape if a.dense_shape is not None else b.dense_shape)
    if type(a) is IndexedSlices:
        a = _dense(a)
    if type(b) is IndexedSlices:
        b = _dense(b)
    return ops.add(a, b)


def _sparse_grad(call, g):
    """The gradient of ``call`` for an IndexedSlices output gradient: kept sparse through ``Identity`` and
    ``Cast`` (TF's ``_CastGrad`` casts the values), made dense for every other op."""
    name = call.op.name
    if name in ("Identity", "Cast") and len(call.inputs) == 1:
        x = call.inputs[0]
        if name == "Identity" or x._dtype.is_floating:
            values = g.values if x._dtype is g.dtype else _ops().cast(g.values, x._dtype)
            return [IndexedSlices(values, g.indices, g.dense_shape)]
    return call.op.grad(call, _dense(g))
