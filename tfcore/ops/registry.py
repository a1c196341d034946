"""The op registry and THE op-execution entry point (DESIGN.md §3).

An :class:`Op` is registered once with TF's op name, a shape/dtype rule, one
implementation per backend kind and a gradient written with other ops. Every
public op calls :func:`execute`, which does placement, input conversion, the
rule, the kernel call, error translation and tape recording. ``tf.function``
records graph nodes through this same entry (``framework.tracing``) while tracing.

Implementation signature: ``impl(backend, *arrays, **attrs)`` returning one
array, or a tuple of arrays for multi-output ops. ``backend.xp`` is numpy or
cupy; the CUDA kind also has ``backend.kernels``.

Gradient signature: ``grad(call, *output_grads)`` returning one gradient per
input (None where an input gets none). ``call.inputs``, ``call.outputs`` and
``call.attrs`` are what the op saw and produced; ``call.needs_grad(i)`` is False
when the tape would drop input ``i``'s gradient (a constant, labels, an int
tensor), so a gradient function may return None there without computing it.
Inputs that ``execute`` copied to the op's device are recorded as the caller's
tensors (the copy is invisible to tapes, as in TF), so gradients reach them.

Hot-path notes: ``execute`` reads the thread state (device scope, tape stack)
only when ``context.ACTIVE[0]`` says some thread has either; kernels get the
arrays as direct arguments for one and two inputs; rules may return the output
DType to skip the NumPy-dtype lookup (``_common.arith_rule``).
"""

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes
from ..framework import tracing as _tracing
from ..framework.errors import InvalidArgumentError, OpError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor

_EMPTY = {}
_np_generic = np.generic
_np_ndarray = np.ndarray
_TRANSLATED_ERRORS = (ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError)
_from_numpy = dtypes.from_numpy
_state = _ctx.thread_state()  # device scope AND tape stack: one thread-local object
_ACTIVE = _ctx.ACTIVE         # [number of threads with a scope or tapes]: 0 skips reading _state
_context = _ctx.context
_TRACING = _tracing.ACTIVE    # [number of threads tracing a tf.function]: 0 skips the graph hook

REGISTRY = {}
# Tapes and gradients only concern floating and complex tensors; float32 is checked by identity
# first because DType's hash is a Python call.
_F32 = dtypes.float32
_DIFFERENTIABLE = frozenset(d for d in dtypes._ALL if d is not None and (d.is_floating or d.is_complex))


class Op:
    """One registered op: name, rule, per-backend implementations, gradient.

    Args:
      name: TF's op name (``'MatMul'``).
      rule: ``rule(op, inputs, attrs)`` validating input tensors; raises
        InvalidArgumentError, returns the output DType (or a tuple for several
        outputs) or None to take it from the result array.
      grad: gradient function, or None for a non-differentiable op.
      multi_output: the implementation returns a tuple of arrays.
      grad_takes_none: (multi-output ops) the gradient function accepts None for outputs that
        received no gradient; otherwise tapes pass zeros shaped like those outputs.
    """

    __slots__ = ("name", "rule", "impls", "grad", "multi_output", "grad_takes_none")

    def __init__(self, name, rule=None, grad=None, multi_output=False, grad_takes_none=False):
        if name in REGISTRY:
            raise ValueError(f"Op {name} is already registered")
        self.name = name
        self.rule = rule
        self.impls = {}
        self.grad = grad
        self.multi_output = multi_output
        self.grad_takes_none = grad_takes_none
        REGISTRY[name] = self

    def kernel(self, *kinds):
        """Decorator registering an implementation for backend kinds (default: all)."""
        kinds = kinds or ("cpu", "cuda")

        def deco(fn):
            for k in kinds:
                self.impls[k] = fn
            return fn

        return deco

    def gradient(self, fn):
        """Decorator setting the gradient function."""
        self.grad = fn
        return fn

    def __repr__(self):
        return f"<Op {self.name}>"


class Call:
    """What a gradient function sees of one recorded execution.

    ``tracked`` is the recording tape's set of ids of tensors it differentiates
    (None: unknown, every input counts); :meth:`needs_grad` lets a gradient
    function skip work whose result the tape would discard.
    """

    __slots__ = ("op", "inputs", "outputs", "attrs", "_tracked")

    def __init__(self, op, inputs, outputs, attrs, tracked=None):
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self._tracked = tracked

    def needs_grad(self, i):
        """False when the gradient for input ``i`` would be dropped (not tracked, or not float)."""
        tracked = self._tracked
        if tracked is None:
            return True
        x = self.inputs[i]
        if id(x) not in tracked:
            return False
        dt = x._dtype
        return dt is _F32 or dt in _DIFFERENTIABLE


def get_op(name):
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"No op named {name!r} is registered") from None


def _describe(inputs):
    return ", ".join(f"{t._dtype.name}{list(t._array.shape)}" for t in inputs)


def _convert_inputs(inputs):
    """Slow path of :func:`execute`: read variables, convert values, copy across devices.

    Returns ``(tensors, device, caller_tensors)``: the Tensors the kernel gets (all on
    the op's device) and the ones before implicit copies, which tapes record so that
    gradients reach the caller's tensors (as in TF, copies are not visible to tapes).
    """
    dev = _state._device
    converted = []
    for x in inputs:
        if type(x) is not Tensor:
            read = getattr(x, "_tfc_read", None)
            x = read() if read is not None else convert_to_tensor(x, device=dev)
        converted.append(x)
    if dev is None:
        dev = converted[0]._device if converted else _ctx.default_device()
    caller = tuple(converted)
    for t in caller:
        if t._device is not dev:
            return tuple(t._copy_to(dev) for t in caller), dev, caller
    return caller, dev, caller


def execute(op, inputs, attrs=None):
    """Run ``op`` on ``inputs`` (tensors, variables or convertible values).

    Returns a Tensor, or a tuple of Tensors for multi-output ops.

    This is the per-op hot path: the common case (Tensor inputs on one device,
    CPU backend, one output) does no allocation beyond the result array and its
    Tensor, and calls the kernel with the arrays as direct arguments.
    """
    if _ACTIVE[0]:  # some thread has a device scope or a tape: read this thread's
        dev, tapes = _state._hot
    else:
        dev = tapes = None
    # Fast check: every input is already a Tensor on the op's device (scope, else first input).
    for x in inputs:
        if type(x) is not Tensor or (dev is not None and x._device is not dev):
            inputs, dev, recorded = _convert_inputs(inputs)
            break
        if dev is None:
            dev = x._device
    else:
        if type(inputs) is not tuple:
            inputs = tuple(inputs)  # tapes keep the inputs: never alias a caller's list
        if dev is None:
            dev = _ctx.default_device()
        recorded = inputs
    if attrs is None:
        attrs = _EMPTY
    rule = op.rule
    out_dtype = rule(op, inputs, attrs) if rule is not None else None
    b = dev.backend
    impl = op.impls.get(b.kind)
    if impl is None:
        dev, b, impl, inputs = _soft_place(op, dev, inputs)
    if _context.log_device_placement:
        print(f"Executing op {op.name} in device {dev.name}")
    try:
        if b.scoped:
            with b.activate():
                out = impl(b, *[t._array for t in inputs], **attrs)
                out = tuple(map(b.adopt, out)) if op.multi_output else b.adopt(out)
        elif attrs is _EMPTY:
            n = len(inputs)
            if n == 2:
                out = impl(b, inputs[0]._array, inputs[1]._array)
            elif n == 1:
                out = impl(b, inputs[0]._array)
            else:
                out = impl(b, *[t._array for t in inputs])
        elif len(inputs) == 1:
            out = impl(b, inputs[0]._array, **attrs)
        else:
            out = impl(b, *[t._array for t in inputs], **attrs)
    except OpError:
        raise
    except _TRANSLATED_ERRORS as e:
        raise InvalidArgumentError(
            None, None, f"{op.name}: {e} (inputs: {_describe(inputs)}, device {dev.short_name})") from e
    if op.multi_output:
        dts = out_dtype if out_dtype is not None else (None,) * len(out)
        outputs = tuple(_wrap(a, dev, dt) for a, dt in zip(out, dts))
    else:
        if type(out) is not _np_ndarray and isinstance(out, _np_generic):
            out = np.asarray(out)
        outputs = Tensor(out, out_dtype if out_dtype is not None else _from_numpy(out.dtype), dev)
    if tapes and op.grad is not None:
        outs = outputs if type(outputs) is tuple else (outputs,)
        for tape in tapes:
            tape._record(op, recorded, outs, attrs)
    if _TRACING[0]:
        _tracing.record_op(op, recorded, outputs, attrs)
    return outputs


def _wrap(a, dev, dt):
    if isinstance(a, _np_generic):
        a = np.asarray(a)
    return Tensor(a, dt if dt is not None else _from_numpy(a.dtype), dev)


def _soft_place(op, dev, converted):
    """No kernel for this device kind: run on CPU:0 (TF's soft placement)."""
    cpu = _context.find("CPU", 0)
    impl = op.impls.get("cpu")
    if impl is None:
        raise InvalidArgumentError(f"{op.name}: no implementation for device {dev.name} or CPU")
    if (op.name, dev.name) not in _context._logged_fallbacks:
        _context._logged_fallbacks.add((op.name, dev.name))
        if _context.log_device_placement:
            print(f"Op {op.name} has no kernel for {dev.name}; running it on {cpu.name}")
    return cpu, cpu.backend, impl, [t._copy_to(cpu) for t in converted]
