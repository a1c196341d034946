"""Fused optimizer update ops (TF's ``training_ops``: ``ResourceApplyAdam`` and friends).

Each op takes a variable's current value, its slot values and the gradient, and
returns the NEW values as fresh arrays (tensors are immutable; tensors read
earlier keep what they saw). Keras optimizers run these for every variable
first and assign the results only when all succeeded, so a bad gradient leaves
every variable and slot unchanged. Hyperparameters are attrs (Python floats):
the step's learning rate is computed once per ``apply_gradients`` on the host.

One fused op per update keeps the per-variable cost at one ``execute`` instead
of the ten or so element-wise ops the update formula needs.
"""


import numpy as np

from ..backend import native_cpu
from ..framework.errors import InvalidArgumentError
from ._common import describe
from .registry import REGISTRY, Op, execute

_NAMES = {
    "ResourceApplyGradientDescent": ("var", "grad"),
    "ResourceApplyKerasMomentum": ("var", "accum", "grad"),
    "ResourceApplyAdam": ("var", "m", "v", "grad"),
    "ResourceApplyAdamWithAmsgrad": ("var", "m", "v", "vhat", "grad"),
    "ResourceApplyRMSProp": ("var", "ms", "mom", "grad"),
    "ResourceApplyCenteredRMSProp": ("var", "mg", "ms", "mom", "grad"),
    "ResourceApplyAdagradV2": ("var", "accum", "grad"),
}


def _apply_rule(op, ts, attrs):
    """Every input has the variable's dtype (floating) and shape; names them otherwise."""
    var = ts[0]
    names = _NAMES[op.name]
    if not var._dtype.is_floating:
        raise InvalidArgumentError(
            None, None, f"{op.name}: var must be floating-point, got {describe(ts)} ({', '.join(names)})")
    shape = var._array.shape
    for name, t in zip(names[1:], ts[1:]):
        if t._array.shape != shape:
            raise InvalidArgumentError(
                None, None, f"{op.name}: var and {name} do not have the same shape{list(shape)} "
                f"{list(t._array.shape)} (inputs {', '.join(names)}: {describe(ts)})")
        if t._dtype is not var._dtype:
            raise InvalidArgumentError(
                None, None, f"{op.name}: var and {name} do not have the same dtype {var._dtype.name} "
                f"{t._dtype.name} (inputs {', '.join(names)}: {describe(ts)})")
    return (var._dtype,) * (len(ts) - 1) if op.multi_output else var._dtype


GRADIENT_DESCENT = Op("ResourceApplyGradientDescent", rule=_apply_rule)
KERAS_MOMENTUM = Op("ResourceApplyKerasMomentum", rule=_apply_rule, multi_output=True)
ADAM = Op("ResourceApplyAdam", rule=_apply_rule, multi_output=True)
ADAM_AMSGRAD = Op("ResourceApplyAdamWithAmsgrad", rule=_apply_rule, multi_output=True)
RMSPROP = Op("ResourceApplyRMSProp", rule=_apply_rule, multi_output=True)
CENTERED_RMSPROP = Op("ResourceApplyCenteredRMSProp", rule=_apply_rule, multi_output=True)
ADAGRAD = Op("ResourceApplyAdagradV2", rule=_apply_rule, multi_output=True)


def _scalar(x, like):
    return like.dtype.type(x)


@GRADIENT_DESCENT.kernel()
def _gd(b, var, grad, *, lr):
    out = grad * _scalar(-lr, var)
    out += var
    return out


@KERAS_MOMENTUM.kernel()
def _momentum(b, var, accum, grad, *, lr, momentum, use_nesterov):
    # accum <- momentum * accum - lr * grad; var <- var + accum (+ nesterov look-ahead)
    new_accum = accum * _scalar(momentum, var)
    new_accum -= grad * _scalar(lr, var)
    if use_nesterov:
        new_var = new_accum * _scalar(momentum, var)
        new_var -= grad * _scalar(lr, var)
        new_var += var
    else:
        new_var = var + new_accum
    return new_var, new_accum


def _adam_moments(m, v, grad, beta_1, beta_2):
    new_m = grad - m
    new_m *= _scalar(1.0 - beta_1, m)
    new_m += m
    new_v = grad * grad
    new_v -= v
    new_v *= _scalar(1.0 - beta_2, v)
    new_v += v
    return new_m, new_v


def _adam_step(xp, var, m, v, alpha, epsilon):
    denom = xp.sqrt(v)
    denom += _scalar(epsilon, var)
    upd = m * _scalar(alpha, var)
    upd /= denom
    return var - upd


@ADAM.kernel()
def _adam(b, var, m, v, grad, *, alpha, beta_1, beta_2, epsilon):
    new_m, new_v = _adam_moments(m, v, grad, beta_1, beta_2)
    xp = b.xp
    upd = xp.sqrt(new_v)  # the new value is built in this buffer: one temporary instead of three
    if upd.ndim == 0:  # a scalar variable: NumPy's 0-d math gives scalars, which `out=` cannot write into
        upd = xp.array(upd)
    upd += _scalar(epsilon, var)
    xp.divide(new_m, upd, out=upd)
    upd *= _scalar(-alpha, var)
    upd += var
    return upd, new_m, new_v


# Fewer values than this: NumPy's passes over cached data beat the ctypes call (measured: 3K values 11 vs
# 14 us; 84K values 119 vs 55 us).
NATIVE_ADAM_MIN_SIZE = 8192


def _native_adam_ok(var, m, v, grad, **_):
    return var.size >= NATIVE_ADAM_MIN_SIZE and native_cpu.supports(var, m, v, grad)


@ADAM.kernel("cpu", supports=_native_adam_ok, priority=1, name="adam_native")
def _adam_native(b, var, m, v, grad, *, alpha, beta_1, beta_2, epsilon):
    """Adam as one C loop over the values (``kernels/cpu_kernels.cc``) instead of NumPy's ten passes: the
    same operations in the same order and precision as :func:`_adam`, so the same bits."""
    out = [np.empty_like(var), np.empty_like(var), np.empty_like(var)]
    t = var.dtype.type
    native_cpu.library().fn("tfc_adam", var.dtype)(
        native_cpu.ptr(var), native_cpu.ptr(m), native_cpu.ptr(v), native_cpu.ptr(grad), var.size,
        float(t(-alpha)), float(t(1.0 - beta_1)), float(t(1.0 - beta_2)), float(t(epsilon)),
        *(native_cpu.ptr(a) for a in out))
    return tuple(out)


@ADAM_AMSGRAD.kernel()
def _adam_amsgrad(b, var, m, v, vhat, grad, *, alpha, beta_1, beta_2, epsilon):
    new_m, new_v = _adam_moments(m, v, grad, beta_1, beta_2)
    new_vhat = b.xp.maximum(vhat, new_v)
    return _adam_step(b.xp, var, new_m, new_vhat, alpha, epsilon), new_m, new_v, new_vhat


def _rms_finish(xp, var, mom, grad, denom, lr, momentum):
    inc = grad * _scalar(lr, var)
    inc /= xp.sqrt(denom)
    if momentum > 0:
        new_mom = mom * _scalar(momentum, var)
        new_mom += inc
        return var - new_mom, new_mom
    return var - inc, mom


@RMSPROP.kernel()
def _rmsprop(b, var, ms, mom, grad, *, lr, rho, momentum, epsilon):
    new_ms = ms * _scalar(rho, var)
    new_ms += (grad * grad) * _scalar(1.0 - rho, var)
    new_var, new_mom = _rms_finish(b.xp, var, mom, grad, new_ms + _scalar(epsilon, var), lr, momentum)
    return new_var, new_ms, new_mom


@CENTERED_RMSPROP.kernel()
def _centered_rmsprop(b, var, mg, ms, mom, grad, *, lr, rho, momentum, epsilon):
    new_ms = ms * _scalar(rho, var)
    new_ms += (grad * grad) * _scalar(1.0 - rho, var)
    new_mg = mg * _scalar(rho, var)
    new_mg += grad * _scalar(1.0 - rho, var)
    denom = new_ms - new_mg * new_mg
    denom += _scalar(epsilon, var)
    new_var, new_mom = _rms_finish(b.xp, var, mom, grad, denom, lr, momentum)
    return new_var, new_mg, new_ms, new_mom


@ADAGRAD.kernel()
def _adagrad(b, var, accum, grad, *, lr, epsilon):
    new_accum = grad * grad
    new_accum += accum
    denom = b.xp.sqrt(new_accum + _scalar(epsilon, var))
    upd = grad * _scalar(lr, var)
    upd /= denom
    return var - upd, new_accum


# -- many variables in one op -------------------------------------------------------------------

def _multi_rule(op, ts, attrs):
    """Each variable's inputs pass the per-variable op's rule; all share one dtype (one flat buffer)."""
    base, n = REGISTRY[attrs["op"]], attrs["n"]
    base_attrs = {k: v for k, v in attrs.items() if k not in ("op", "n")}
    for i in range(n):
        _apply_rule(base, ts[i::n], base_attrs)
    dt = ts[0]._dtype
    for t in ts:
        if t._dtype is not dt:
            raise InvalidArgumentError(None, None, f"{op.name}({base.name}): all variables must share one dtype, "
                                       f"got {describe(ts)}")
    return (dt,) * (len(ts) - n)


MULTI_TENSOR_APPLY = Op("_MultiTensorApply", rule=_multi_rule, multi_output=True)


@MULTI_TENSOR_APPLY.kernel()
def _multi_tensor_apply(b, *arrays, op, n, **attrs):
    """Inputs ``[var_1..var_n, slot_1..slot_n, ..., grad_1..grad_n]``; outputs ``[new var_1..n, new
    slot_1..n, ...]``. Each group is made one flat array, the per-variable op's kernel runs ONCE on the
    flat arrays (the updates are element-wise with shared scalars: the same values as n calls), and
    the results are split back into views shaped like the variables.

    A group that already is one flat buffer laid out in order — the variables and slots after the
    previous update, which installed these very views — is used in place; only other groups (the
    gradients) are concatenated. So a training step copies its gradients once and nothing else."""
    base = REGISTRY[op]
    xp = b.xp
    step = _align_step(arrays[0].itemsize)
    flats = []
    for j in range(0, len(arrays), n):
        group = arrays[j:j + n]
        flat = _flat_of(group, step)
        flats.append(flat if flat is not None else _concatenate_padded(xp, group, step))
    out = base.run_kernel(b, flats, attrs)
    if not base.multi_output:
        out = (out,)
    spans = []
    start = 0
    for a in arrays[:n]:
        spans.append((start, start + a.size, a.shape))
        start += _padded(a.size, step)
    result = []
    for flat in out:
        if b.scoped:
            flat = b.adopt(flat)  # the device's memory as ONE buffer, so the views below share it
        result += [flat[s:e].reshape(shape) for s, e, shape in spans]
    return tuple(result)


# Every variable's slot in a flat buffer starts on a 16-byte boundary (the buffer itself is at least that
# aligned: 256 bytes from the device allocator, 16+ from NumPy), so the views that become the variables
# keep the kernels' vector loads and tensor-core cp.async paths, which need 16-byte aligned bases.
FLAT_ALIGN_BYTES = 16


def _align_step(itemsize):
    """Elements per 16-byte alignment unit (4 float32, 8 float16, 2 float64)."""
    return max(1, FLAT_ALIGN_BYTES // int(itemsize))


def _padded(size, step):
    return -(-int(size) // step) * step


def _concatenate_padded(xp, group, step):
    """One flat array holding the arrays of ``group`` in order, each followed by zeros up to the next
    multiple of ``step`` elements (one concatenate). Updates also run over the pads; nothing reads them."""
    pieces = []
    pads = {}
    for a in group:
        pieces.append(a.reshape(-1))
        pad = _padded(a.size, step) - a.size
        if pad:
            if pad not in pads:
                pads[pad] = xp.zeros(pad, dtype=a.dtype)
            pieces.append(pads[pad])
    return xp.concatenate(pieces)


def _address(a):
    cai = getattr(a, "__cuda_array_interface__", None)
    return (cai if cai is not None else a.__array_interface__)["data"][0]


def _flat_of(group, step=1):
    """The 1-D array whose consecutive pieces are exactly the arrays of ``group``, each padded to a
    multiple of ``step`` elements (C-contiguous views of one C-contiguous buffer, in order, as
    :func:`_concatenate_padded` lays them out), or None. Decided from the arrays alone (their
    common ``base`` and addresses), so it holds whatever produced them; a view of that buffer equals
    the concatenation because update kernels never write into their inputs."""
    first = group[0]
    owner = first.base  # an array, or (allocator-backed host memory) the raw block the array was made on
    # owner None first: NumPy's float64 dtype compares equal to None
    if owner is None or getattr(owner, "dtype", None) != first.dtype or not owner.flags.c_contiguous:
        return None
    item = first.itemsize
    start = _address(first)
    offset, rem = divmod(start - _address(owner), item)
    if rem or offset < 0:
        return None
    end = start
    for a in group:
        if a.base is not owner or a.size == 0 or not a.flags.c_contiguous or _address(a) != end:
            return None
        end += _padded(a.size, step) * item
    count = (end - start) // item
    if offset + count > owner.size:
        return None
    flat = owner.reshape(-1)
    return flat if offset == 0 and count == owner.size else flat[offset:offset + count]


def apply(op, inputs, **attrs):
    """Run a fused update op; returns the new values (a tuple for multi-output ops).

    Multi-tensor form: when every input is a LIST of tensors (one per variable, all of one dtype),
    one ``_MultiTensorApply`` op updates them all and each result is a list (a tuple of lists for
    multi-output ops) — one op call per step instead of one per variable.
    """
    if type(inputs[0]) is list:
        n = len(inputs[0])
        out = execute(MULTI_TENSOR_APPLY, [t for group in inputs for t in group], {"op": op.name, "n": n, **attrs})
        lists = [list(out[j:j + n]) for j in range(0, len(out), n)]
        return tuple(lists) if op.multi_output else lists[0]
    return execute(op, inputs, attrs)
