"""The op registry and THE op-execution entry point (docs/architecture.md §3).

An :class:`Op` is registered once with TF's op name, a shape/dtype rule, an
ordered list of kernel candidates per device kind and a gradient written with
other ops. Every public op calls :func:`execute`, which does placement, input
conversion, the rule, kernel selection, the kernel call, error translation and
tape recording. ``tf.function``
records graph nodes through this same entry (``framework.tracing``) while tracing.

Kernel candidates (:class:`Kernel`): ``@op.kernel(kinds...)`` registers the
generic implementation (xp code), the last candidate of those kinds;
``@op.kernel("cuda", dtypes=..., supports=..., priority=...)`` a specialised
one (our CUDA kernels, a CPU fast path), tried first when its constraints hold.
``execute`` runs the first eligible candidate; registration order never
matters. :func:`kernel_for` and ``tfcore info --ops`` show the choice.

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

import contextlib
import re
import time
import warnings

import numpy as np

from ..framework import context as _ctx
from ..framework import dtypes, tensor_conversion_registry
from ..framework import tracing as _tracing
from ..framework.errors import InvalidArgumentError, OpError, ResourceExhaustedError
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
_conversions = tensor_conversion_registry.get
_TRACING = _tracing.ACTIVE    # [number of threads tracing a tf.function]: 0 skips the graph hook
_OBSERVER = [None]            # [an OpObserver while one watches every execute], see observe_ops

REGISTRY = {}
KINDS = ("cpu", "cuda")  # device kinds a kernel may be registered for (Backend.kind)
# Tapes and gradients only concern floating and complex tensors; float32 is checked by identity
# first because DType's hash is a Python call.
_F32 = dtypes.float32
_DIFFERENTIABLE = dtypes.DIFFERENTIABLE_DTYPES


class Kernel:
    """One implementation candidate of an op on one device kind, with explicit eligibility.

    ``dtypes``: numpy dtypes the first input array may have (None: any). ``supports``:
    ``supports(*arrays, **attrs) -> bool`` for what dtypes cannot say (a grid limit, a rank),
    None: always. Candidates are tried by descending ``priority``; the generic (xp) code of
    ``@op.kernel()`` is the last one.
    """

    __slots__ = ("fn", "name", "dtypes", "supports", "priority")

    def __init__(self, fn, name=None, dtypes=None, supports=None, priority=0):
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", None) or repr(fn)
        self.dtypes = None if dtypes is None else frozenset(_np_dtype(d) for d in dtypes)
        self.supports = supports
        self.priority = priority

    @property
    def constrained(self):
        return self.dtypes is not None or self.supports is not None

    def eligible(self, arrays, attrs):
        """Whether this candidate handles ``arrays`` (the kernel's input arrays) and ``attrs``."""
        if self.dtypes is not None and (not arrays or arrays[0].dtype not in self.dtypes):
            return False
        return self.supports is None or bool(self.supports(*arrays, **attrs))

    def describe(self):
        parts = [self.name]
        if self.dtypes is not None:
            parts.append("dtypes=" + ",".join(sorted(d.name for d in self.dtypes)))
        if self.supports is not None:
            parts.append("supports=" + getattr(self.supports, "__name__", "fn"))
        if self.priority:
            parts.append(f"priority={self.priority}")
        return " ".join(parts)

    def __repr__(self):
        return f"<Kernel {self.describe()}>"


def _direct_callable(cands):
    """What ``execute`` calls for a kind without a selection step: the first candidate when it has no
    constraints; a dispatcher over the constrained ones when the list ends with an unconstrained
    (generic) candidate, so one of them always applies; None otherwise (``_select_kernel`` decides,
    falling back to the CPU)."""
    if not cands[0].constrained:
        return cands[0].fn
    if cands[-1].constrained:
        return None
    checks = tuple((c.dtypes, c.supports, c.fn) for c in cands[:-1] if c.dtypes is None or c.dtypes)
    generic = cands[-1].fn

    def dispatch(b, *arrays, **attrs):
        first = arrays[0].dtype if arrays else None
        for dts, supports, fn in checks:
            if (dts is None or first in dts) and (supports is None or supports(*arrays, **attrs)):
                return fn(b, *arrays, **attrs)
        return generic(b, *arrays, **attrs)

    dispatch.__qualname__ = dispatch.__name__ = f"dispatch[{', '.join(c.name for c in cands)}]"
    return dispatch


def _np_dtype(d):
    as_np = getattr(d, "as_numpy_dtype", None)  # a tfcore DType
    return np.dtype(as_np if as_np is not None else d)


class Op:
    """One registered op: name, rule, per-device-kind kernel candidates, gradient.

    Args:
      name: TF's op name (``'MatMul'``).
      rule: ``rule(op, inputs, attrs)`` validating input tensors; raises
        InvalidArgumentError, returns the output DType (or a tuple for several
        outputs) or None to take it from the result array.
      grad: gradient function, or None for a non-differentiable op.
      multi_output: the implementation returns a tuple of arrays.
      grad_takes_none: (multi-output ops) the gradient function accepts None for outputs that
        received no gradient; otherwise tapes pass zeros shaped like those outputs.
      saves_residuals: documents (and tells composing kernels) that a kernel of this op may return
        :class:`Residuals` (arrays its gradient reuses, e.g. Conv2D's im2col columns), which
        ``execute`` keeps on the recorded :class:`Call`.
      residual_attrs: names of attrs through which a gradient hands this op another op's
        residuals (``Conv2DBackpropFilter``'s ``im2col``). They belong to one execution: a traced
        graph never keeps the trace's arrays; it records a *residual edge* from the producing node
        instead (``FuncGraph._record_op``), so every replay passes that replay's arrays along.
      stateful: the op has effects beyond its outputs (TF's ``is_stateful``: writing a summary or a
        file); graphs keep such nodes, in program order, even when nothing reads their outputs.
      output_arg: the name of the op's output in TF's OpDef (``"z"`` for ``AddV2``, ``"product"`` for
        ``MatMul``); a SavedModel names graph edges ``node:<output_arg>:<i>`` as TF does. A tuple for an op
        with several named outputs of one tensor each (``TopKV2``: ``("values", "indices")``).
      tf_attr_inputs: attributes that TF's OpDef takes as int32 input tensors instead, each
        ``(attr, type_attr)`` or ``(attr, type_attr, position)`` (``Sum``'s ``axis`` is TF's
        ``reduction_indices`` input, typed by ``Tidx``; ``Fill``'s ``shape`` is its first input ``dims``;
        ``type_attr`` None: untyped): a SavedModel writes each as a Const input (after the op's own inputs,
        or at ``position``), so TF can load the graph.
      tf_input_types: the type attribute of each of TF's inputs in order (None: none), set from the
        inputs' dtypes when saving (``GatherV2``: ``("Tparams", "Tindices")``); default: ``T`` from the first.
      tf_attr_names: tfcore attribute name -> TF's, where they differ (``keepdims`` -> ``keep_dims``; None
        drops it), or a function of the op's input dtypes returning that mapping.
      tf_count_attr: TF's attribute counting a list input (``ConcatV2``'s ``N``: the op's inputs).
      tf_lowering: for what the fields above cannot say, a function ``(attrs, input_dtypes)`` returning
        ``(inputs, tf_attrs, dropped)``: Const inputs to insert as ``(position or None, numpy array,
        type attr or None)``, TF attributes to set, tfcore attributes to drop (``StridedSlice``'s index
        becomes TF's begin/end/strides inputs and masks).
      cuda_expr: for an element-wise op, its value as a CUDA C expression over ``{0}``, ``{1}`` (the
        inputs) and ``T`` (the element type): ``tf.function`` fuses chains of such ops into one
        generated kernel (``tfcore/function/fusion.py``). None: the op is not fused on GPUs.

    ``candidates[kind]`` is the ordered list of :class:`Kernel` for a device kind: specialised
    kernels by descending priority, then the generic one. ``execute`` runs the first eligible
    one; ``_direct[kind]`` holds the function when the first candidate has no constraints (or a
    dispatcher built from the constraints when the list ends with generic code), so the common
    case costs one dict lookup.
    """

    __slots__ = ("name", "rule", "candidates", "_direct", "grad", "multi_output", "grad_takes_none",
                 "saves_residuals", "residual_attrs", "stateful", "output_arg", "cuda_expr", "tf_attr_inputs",
                 "tf_input_types", "tf_attr_names", "tf_count_attr", "tf_lowering")

    def __init__(self, name, rule=None, grad=None, multi_output=False, grad_takes_none=False,
                 saves_residuals=False, residual_attrs=(), stateful=False, output_arg="output", cuda_expr=None,
                 tf_attr_inputs=(), tf_input_types=None, tf_attr_names=None, tf_count_attr=None,
                 tf_lowering=None):
        if name in REGISTRY:
            raise ValueError(f"Op {name} is already registered")
        self.name = name
        self.rule = rule
        self.candidates = {}
        self._direct = {}
        self.grad = grad
        self.multi_output = multi_output
        self.grad_takes_none = grad_takes_none
        self.saves_residuals = saves_residuals
        self.residual_attrs = frozenset(residual_attrs)
        self.stateful = stateful
        self.output_arg = output_arg
        self.cuda_expr = cuda_expr
        self.tf_attr_inputs = tuple(tf_attr_inputs)
        self.tf_input_types = tf_input_types
        self.tf_attr_names = tf_attr_names if callable(tf_attr_names) else dict(tf_attr_names or {})
        self.tf_count_attr = tf_count_attr
        self.tf_lowering = tf_lowering
        REGISTRY[name] = self

    def kernel(self, *kinds, dtypes=None, supports=None, priority=None, name=None):
        """Decorator registering an implementation candidate for device kinds (default: all).

        Without ``dtypes``/``supports``/``priority`` it is the generic implementation of those
        kinds (the last candidate; registering another generic one replaces it). With them it
        is a specialised candidate, tried before the generic one when eligible. A function with a
        ``kind_variants`` dict registers ``kind_variants[kind]`` for the kinds it names (a
        registration-time choice, e.g. :func:`~tfcore.ops._common.host_float32`'s CPU variant).
        """
        kinds = kinds or KINDS
        specialised = dtypes is not None or supports is not None or priority is not None

        def deco(fn):
            variants = getattr(fn, "kind_variants", None) or {}  # e.g. ``host_float32``'s cpu variant
            for k in kinds:
                cands = [c for c in self.candidates.get(k, ()) if specialised or c.priority is not None]
                cand = Kernel(variants.get(k, fn), name, dtypes, supports, priority if specialised else None)
                cands.append(cand)
                # Specialised by descending priority (stable), the generic one (priority None) last.
                cands.sort(key=lambda c: float("inf") if c.priority is None else -c.priority)
                self.candidates[k] = cands
                direct = _direct_callable(cands)
                if direct is None:
                    self._direct.pop(k, None)
                else:
                    self._direct[k] = direct
            return fn

        return deco

    def select(self, kind, arrays, attrs=_EMPTY):
        """The first eligible :class:`Kernel` of this op for device ``kind``, or None."""
        for cand in self.candidates.get(kind, ()):
            if cand.eligible(arrays, attrs):
                return cand
        return None

    def run_kernel(self, b, arrays, attrs=_EMPTY):
        """Call the kernel ``execute`` would choose on backend ``b`` with raw arrays (for fused ops
        that compose other ops' kernels inside one kernel call); returns what the kernel returns
        (a :class:`Residuals` for ops that save residuals)."""
        cand = self.select(b.kind, arrays, attrs)
        if cand is None:
            raise InvalidArgumentError(None, None, f"{self.name}: no kernel for {b.kind} arrays of dtype "
                                                   f"{arrays[0].dtype if arrays else None}")
        return cand.fn(b, *arrays, **attrs)

    def gradient(self, fn):
        """Decorator setting the gradient function."""
        self.grad = fn
        return fn

    def __repr__(self):
        return f"<Op {self.name}>"


class Residuals:
    """A kernel's result plus arrays its gradient reuses: ``return Residuals(output, cols=cols)``.

    Only ops created with ``saves_residuals=True`` may return one. ``execute`` unwraps it; when
    a tape records the op, ``saved`` becomes ``call.residuals`` (freed with the tape's record),
    otherwise it is dropped at once.
    """

    __slots__ = ("output", "saved")

    def __init__(self, output, **saved):
        self.output = output
        self.saved = saved


class Call:
    """What a gradient function sees of one recorded execution.

    ``tracked`` is the recording tape's set of ids of tensors it differentiates
    (None: unknown, every input counts); :meth:`needs_grad` lets a gradient
    function skip work whose result the tape would discard. ``residuals`` is the
    dict of arrays the kernel saved for the gradient (:class:`Residuals`), or None.
    """

    __slots__ = ("op", "inputs", "outputs", "attrs", "_tracked", "residuals")

    def __init__(self, op, inputs, outputs, attrs, tracked=None, residuals=None):
        self.op = op
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self._tracked = tracked
        self.residuals = residuals

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


_NUMPY_OOM = re.compile(r"shape \(([^)]*)\) and data type (\w+)")


def _out_of_memory(op, inputs, out_dtype, dev, error):
    """TF's ``ResourceExhaustedError`` for a host allocation that failed (NumPy's ``MemoryError``)."""
    m = _NUMPY_OOM.search(str(error))
    if m:
        shape = ",".join(d.strip() for d in m.group(1).split(",") if d.strip())
        try:
            dtype = dtypes.as_dtype(np.dtype(m.group(2))).name
        except TypeError:
            dtype = m.group(2)
    else:
        shape, dtype = "?", getattr(out_dtype, "name", "?")
    return ResourceExhaustedError(
        None, None, f"OOM when allocating tensor with shape[{shape}] and type {dtype} on {dev.name} "
                    f"by allocator {dev.backend.kind} (op {op.name}, inputs: {_describe(inputs)})")


def _describe(inputs):
    return ", ".join(f"{t._dtype.name}{list(t._array.shape)}" for t in inputs)


def _convert_inputs(inputs, op=None):
    """Slow path of :func:`execute`: read variables, convert values, copy across devices.

    Returns ``(tensors, device, caller_tensors)``: the Tensors the kernel gets (all on
    the op's device) and the ones before implicit copies, which tapes record so that
    gradients reach the caller's tensors (as in TF, copies are not visible to tapes).
    Soft placement is decided before any copy: an op with no kernel at all for the device's
    kind, or with a string input (strings live in host memory), runs on CPU:0.
    """
    dev = _state._device
    converted = []
    for x in inputs:
        if type(x) is not Tensor:
            fns = _conversions(type(x))  # variables (and user types): their registered conversion
            t = fns[0](x) if fns else None
            x = t if type(t) is Tensor else convert_to_tensor(x, device=dev)
        converted.append(x)
    if dev is None:
        dev = converted[0]._device if converted else _ctx.default_device()
    if dev.backend.kind != "cpu" and ((op is not None and dev.backend.kind not in op.candidates)
                                      or any(_ctx.placement_for(t._dtype, dev) is not dev for t in converted)):
        dev = _context.find("CPU", 0)
    caller = tuple(converted)
    for t in caller:
        if t._device is not dev:
            if _context.device_policy != "silent":
                _check_device_policy(op, caller, dev)
            return tuple(t._copy_to(dev) for t in caller), dev, caller
    return caller, dev, caller


def _check_device_policy(op, tensors, dev):
    """``tf.config.experimental.set_device_policy``: 'explicit' refuses implicit copies, 'warn' (and
    'silent_for_int32' for non-int32 tensors) warns about them."""
    policy = _context.device_policy
    for i, t in enumerate(tensors):
        if t._device is dev or (policy == "silent_for_int32" and t._dtype is dtypes.int32):
            continue
        name = op.name if op is not None else "an op"
        msg = (f"{name}: input {i} is on {t._device.name} but the op runs on {dev.name}; "
               f"device policy is '{policy}'")
        if policy == "explicit":
            raise InvalidArgumentError(None, None, msg + " (copy it with tf.identity under tf.device first)")
        warnings.warn(msg + "; copying it", RuntimeWarning, stacklevel=4)


class DeferredErrorTensor(Tensor):
    """The output of a pure op that failed on its trace-time values while tracing a tf.function.

    Tracing runs each op on real values, but TF builds the graph first and raises a value-dependent
    error (an index out of range) only when the op runs, and never when the op's result is unused
    (pruned): ``tf.gather(x, [1])  # unused`` in guide/intro_to_graphs. So such an op gives this tensor
    instead of raising: any use of it (another op, ``.numpy()``, a function output) raises the op's
    error; an unused one is dropped with the graph (the op is never recorded).
    """

    __slots__ = ("_error",)

    def __init__(self, error):  # no Tensor.__init__: there is no value
        object.__setattr__(self, "_error", error)

    def _raise(self):
        raise self._error

    @property
    def _array(self):
        self._raise()

    @property
    def _dtype(self):
        self._raise()

    @property
    def _device(self):
        self._raise()

    def __repr__(self):
        return f"<tf.Tensor (its op failed: {self._error})>"


def execute(op, inputs, attrs=None, residuals_into=None):
    """Run ``op`` on ``inputs`` (tensors, variables or convertible values).

    Returns a Tensor, or a tuple of Tensors for multi-output ops. ``residuals_into``: a list to which
    the dict of arrays the kernel saved for the gradient (:class:`Residuals`), or None, is appended
    (graph replays hand them to the gradient nodes that consume them).

    This is the per-op hot path: the common case (Tensor inputs on one device,
    CPU backend, one output) does no allocation beyond the result array and its
    Tensor, and calls the kernel with the arrays as direct arguments.
    """
    if _OBSERVER[0] is not None and not _OBSERVER[0].inside:
        return _OBSERVER[0].run(execute, op, inputs, attrs, residuals_into)
    if _ACTIVE[0]:  # some thread has a device scope or a tape: read this thread's
        dev, tapes = _state._hot
    else:
        dev = tapes = None
    # Fast check: every input is already a Tensor on the op's device (scope, else first input).
    for x in inputs:
        if type(x) is not Tensor or (dev is not None and x._device is not dev):
            inputs, dev, recorded = _convert_inputs(inputs, op)
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
    # Kernel selection: the kind's unconstrained first candidate, or the registry's dispatcher over its
    # constrained candidates ending in the generic code; otherwise choose here (or fall back to the CPU).
    impl = op._direct.get(b.kind)
    if impl is None:
        dev, b, impl, inputs = _select_kernel(op, dev, inputs, attrs)
    if _context.log_device_placement:
        print(f"Executing op {op.name} in device {dev.name}")
    try:
        if b.scoped:
            with b.activate():
                out = impl(b, *[t._array for t in inputs], **attrs)
                if type(out) is not Residuals:
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
    except OpError as e:
        if _TRACING[0] and getattr(e, "_value_dependent", False) and not (op.stateful or op.multi_output) \
                and _tracing.is_tracing():
            return DeferredErrorTensor(e)  # TF raises it only if the graph runs the op (not when unused)
        raise
    except _TRANSLATED_ERRORS as e:
        raise InvalidArgumentError(
            None, None, f"{op.name}: {e} (inputs: {_describe(inputs)}, device {dev.short_name})") from e
    except MemoryError as e:
        raise _out_of_memory(op, inputs, out_dtype, dev, e) from None
    saved = None
    if op.multi_output:
        if type(out) is Residuals:
            out, saved = _unwrap_residuals(out, b, True)
        dts = out_dtype if out_dtype is not None else (None,) * len(out)
        outputs = tuple(_wrap(a, dev, dt) for a, dt in zip(out, dts))
    else:
        if type(out) is not _np_ndarray:  # a NumPy scalar, a device array, or Residuals
            if type(out) is Residuals:
                out, saved = _unwrap_residuals(out, b, False)
            if isinstance(out, _np_generic):
                out = np.asarray(out)
            elif isinstance(out, bytes):  # NumPy's math on 0-d object (string) arrays gives the Python object
                out = np.array(out, dtype=object)
        outputs = Tensor(out, out_dtype if out_dtype is not None else _from_numpy(out.dtype), dev)
    if tapes and op.grad is not None:
        outs = outputs if type(outputs) is tuple else (outputs,)
        for tape in tapes:
            if saved is None:
                tape._record(op, recorded, outs, attrs)
            else:
                tape._record(op, recorded, outs, attrs, saved)
    if _TRACING[0]:
        _tracing.record_op(op, recorded, outputs, attrs, saved)
    if residuals_into is not None:
        residuals_into.append(saved)
    return outputs


class OpObserver:
    """Watches every op :func:`execute` runs while :func:`observe_ops` holds it (a profiler's hook).

    ``run(execute, op, inputs, attrs, residuals_into)`` runs the op (``inside`` is True meanwhile, so ops a
    kernel runs inside count as part of the outer op), then ``wait()``, and calls ``after(op, seconds,
    outputs)`` with the wall time of both. Subclasses override ``after`` (and ``wait``, e.g. to synchronise a
    device so the time includes the op's kernels).
    """

    inside = False

    def run(self, execute_fn, op, inputs, attrs, residuals_into):
        self.inside = True
        t0 = time.perf_counter()
        try:
            out = execute_fn(op, inputs, attrs, residuals_into)
            self.wait()
        finally:
            self.inside = False
        self.after(op, time.perf_counter() - t0, out)
        return out

    def wait(self):
        """Called after each op, inside its timing (nothing by default)."""

    def after(self, op, seconds, outputs):
        """One op ran (``outputs`` as ``execute`` returns them)."""


@contextlib.contextmanager
def observe_ops(observer):
    """While inside, every op any thread executes goes through ``observer`` (an :class:`OpObserver`).

    For profiling tools (``bench/profile_ops.py``); one observer at a time. Costs nothing when unused (one
    check per op)."""
    if _OBSERVER[0] is not None:
        raise RuntimeError("observe_ops: another observer is already watching the ops")
    _OBSERVER[0] = observer
    try:
        yield observer
    finally:
        _OBSERVER[0] = None


def _unwrap_residuals(res, b, multi_output):
    """(output, saved arrays) of a kernel's :class:`Residuals`; scoped backends adopt the output here."""
    out = res.output
    if b.scoped:
        out = tuple(map(b.adopt, out)) if multi_output else b.adopt(out)
    return out, res.saved


def _wrap(a, dev, dt):
    if isinstance(a, _np_generic):
        a = np.asarray(a)
    return Tensor(a, dt if dt is not None else _from_numpy(a.dtype), dev)


def _select_kernel(op, dev, inputs, attrs):
    """The first eligible candidate for ``dev``'s kind; none: run on CPU:0 (TF's soft placement).

    Returns ``(device, backend, kernel function, inputs)``; inputs are copied when the op moves.
    """
    b = dev.backend
    cand = op.select(b.kind, [t._array for t in inputs], attrs)
    if cand is not None:
        return dev, b, cand.fn, inputs
    cpu = _context.find("CPU", 0)
    inputs = [t._copy_to(cpu) for t in inputs]
    cand = op.select("cpu", [t._array for t in inputs], attrs) if dev is not cpu else None
    if cand is None:
        raise InvalidArgumentError(f"{op.name}: no implementation for device {dev.name} or CPU")
    if _context.first_fallback((op.name, dev.name)) and _context.log_device_placement:
        print(f"Op {op.name} has no kernel for {dev.name}; running it on {cpu.name}")
    return cpu, cpu.backend, cand.fn, inputs


def kernel_for(op, inputs, attrs=None, device=None):
    """Debugging: the :class:`Kernel` ``execute`` would run for ``op`` (an Op or its name) on
    ``inputs`` (tensors or values) on ``device`` (a device name; default: the current one)."""
    if isinstance(op, str):
        op = get_op(op)
    attrs = attrs or _EMPTY
    with _ctx.device(device) if device is not None else contextlib.nullcontext():
        tensors, dev, _ = _convert_inputs(list(inputs))
    cand = op.select(dev.backend.kind, [t._array for t in tensors], attrs)
    if cand is None and dev.backend.kind != "cpu":
        cand = op.select("cpu", [t._array for t in tensors], attrs)
    return cand


def describe_kernels(op):
    """``{kind: [candidate descriptions in the order execute tries them]}`` for ``op`` (or its name)."""
    if isinstance(op, str):
        op = get_op(op)
    return {k: [c.describe() for c in cands] for k, cands in op.candidates.items()}
