"""``tf.debugging``: placement logging and assertions that raise ``InvalidArgumentError``.

In eager mode an assertion checks immediately and returns None (as TF does);
``check_numerics`` and ``assert_all_finite`` return their input.
"""

import numpy as np

from .framework import context as _ctx
from .framework import dtypes
from .framework import dtypes as _dtypes
from .framework.errors import InvalidArgumentError
from .framework.tensor import Tensor
from .ops._common import as_tensor
from .ops.logging_ops import format_array


def set_log_device_placement(enabled):
    """Print the device of every executed op (``Executing op X in device Y``)."""
    _ctx.context.log_device_placement = bool(enabled)


def get_log_device_placement():
    return _ctx.context.log_device_placement


def _host(x):
    return as_tensor(x).numpy()


def _fail(message, default, data, summarize):
    prefix = f"{message}\n" if message else ""
    details = "\n".join(f"{name} = {format_array(np.asarray(v), summarize or 3)}" for name, v in data)
    raise InvalidArgumentError(None, None, f"{prefix}{default}\n{details}" if details else f"{prefix}{default}")


def _compare(x, y, fn, what, message, summarize):
    a, b = _host(x), _host(y)
    try:
        ok = fn(a, b)
    except ValueError as e:
        raise InvalidArgumentError(None, None, f"{message or ''} shapes {a.shape} and {b.shape} are "
                                   f"incompatible: {e}") from e
    if not np.all(ok):
        _fail(message, f"Condition x {what} y did not hold element-wise:", [("x", a), ("y", b)], summarize)


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless ``x == y`` everywhere (broadcasting)."""
    _compare(x, y, np.equal, "==", message, summarize)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    _compare(x, y, np.not_equal, "!=", message, summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    _compare(x, y, np.less, "<", message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    _compare(x, y, np.less_equal, "<=", message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    _compare(x, y, np.greater, ">", message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    _compare(x, y, np.greater_equal, ">=", message, summarize)


def assert_positive(x, message=None, summarize=None, name=None):
    assert_greater(x, np.zeros((), _host(x).dtype), message, summarize)


def assert_non_negative(x, message=None, summarize=None, name=None):
    assert_greater_equal(x, np.zeros((), _host(x).dtype), message, summarize)


def assert_negative(x, message=None, summarize=None, name=None):
    assert_less(x, np.zeros((), _host(x).dtype), message, summarize)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise unless ``|x - y| <= atol + rtol * |y|`` everywhere (defaults: 10 * eps of the dtype)."""
    t = as_tensor(x)
    a, b = t.numpy(), _host(y)
    eps = np.finfo(a.dtype).eps if a.dtype.kind == "f" else 0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    if not np.all(np.abs(a - b) <= atol + rtol * np.abs(b)):
        _fail(message, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}", [("x", a), ("y", b)],
              summarize)


def assert_all_finite(t, message, name=None, x=None):
    """Return ``t``; raise InvalidArgumentError if it has an Inf or NaN."""
    t = as_tensor(t if t is not None else x)
    a = t.numpy()
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        kinds = ("NaN" if np.isnan(a).any() else "") + (" and Inf" if np.isinf(a).any() else "")
        raise InvalidArgumentError(None, None, f"{message} : Tensor had {kinds.strip(' and')} values")
    return t


def check_numerics(tensor, message, name=None):
    """``tf.debugging.check_numerics``."""
    return assert_all_finite(tensor, message)


def assert_rank(x, rank, message=None, name=None):
    r = as_tensor(x)._array.ndim
    if r != int(rank):
        raise ValueError(f"{message or ''} Tensor must have rank {int(rank)}. Received rank {r}, shape "
                         f"{list(as_tensor(x).shape)}".strip())


def assert_type(tensor, tf_type, message=None, name=None):
    if as_tensor(tensor).dtype is not dtypes.as_dtype(tf_type):
        raise TypeError(f"{message or ''} {as_tensor(tensor).dtype.name} != {dtypes.as_dtype(tf_type).name}".strip())


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's public name
    """``tf.debugging.Assert``: raise InvalidArgumentError with ``data`` when ``condition`` is False."""
    if not bool(np.all(_host(condition))):
        parts = [format_array(_host(d), summarize or 3) if not isinstance(d, str) else d for d in data]
        raise InvalidArgumentError(None, None, "assertion failed: [" + "] [".join(parts) + "]")


# -- more of TF's assertions (eager: check now, return None) ------------------------------------------

def assert_non_positive(x, message=None, summarize=None, name=None):
    """Raise InvalidArgumentError unless every element of ``x`` is <= 0."""
    _compare(x, 0, np.less_equal, "<=", message, summarize)


def assert_integer(x, message=None, name=None):
    """Raise TypeError unless ``x`` has an integer dtype."""
    t = as_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError(f"{message + ' ' if message else ''}Expected integer dtype for x, got {t.dtype.name}.")


def assert_scalar(tensor, message=None, name=None):
    """Raise ValueError unless ``tensor`` has rank 0."""
    t = as_tensor(tensor)
    if t.shape.rank != 0:
        raise ValueError(f"{message + ' ' if message else ''}Expected scalar shape, saw shape: {t.shape}.")
    return t


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raise ValueError unless ``x`` has rank >= ``rank``."""
    t = as_tensor(x)
    if t.shape.rank < int(rank):
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank at least {rank}. Received "
                         f"rank {t.shape.rank}, shape {t.shape}")


def assert_rank_in(x, ranks, message=None, name=None):
    """Raise ValueError unless the rank of ``x`` is one of ``ranks``."""
    t = as_tensor(x)
    ranks = [int(r) for r in ranks]
    if t.shape.rank not in ranks:
        raise ValueError(f"{message + ' ' if message else ''}Tensor rank {t.shape.rank} (shape {t.shape}) is not in "
                         f"{ranks}")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``); ValueError if they differ or are not floating."""

    found = _dtypes.as_dtype(dtype) if dtype is not None else None
    for t in tensors or []:
        d = as_tensor(t).dtype
        if found is not None and d is not found:
            raise ValueError(f"Expected dtype {found.name}, got {d.name}")
        found = d
    if found is None:
        return _dtypes.float32
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found.name}.")
    return found


def assert_proper_iterable(values):
    """Raise TypeError if ``values`` is a tensor, an array or a string rather than a Python iterable."""
    if isinstance(values, str | bytes) or hasattr(values, "numpy") or isinstance(values, np.ndarray):
        raise TypeError(f"Expected argument 'values' to be a 'proper' iterable. Found: {type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be iterable. Found: {type(values)}")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Check ``[(tensor, ('N', 'D')), ...]``: ranks match and each symbolic dimension name has one size
    across all tensors (ints must match exactly; ``None``/``'.'`` match anything)."""
    sizes = {}
    for x, spec in shapes:
        t = as_tensor(x)
        dims = t.shape.as_list()
        spec = list(spec) if not isinstance(spec, str) else list(spec)
        if len(spec) != len(dims) and not (spec and spec[0] == "..."):
            raise ValueError(f"{message + ' ' if message else ''}Specified by tensor {t.shape} dimension rank "
                             f"{len(dims)} but the assertion expects rank {len(spec)} ({spec})")
        if spec and spec[0] == "...":
            spec, dims = spec[1:], dims[len(dims) - len(spec) + 1:]
        for want, got in zip(spec, dims):
            if want is None or want == ".":
                continue
            if isinstance(want, int):
                if got != want:
                    raise ValueError(f"{message + ' ' if message else ''}Dimension of size {got} does not match "
                                     f"the expected {want} in shape {t.shape}")
            elif sizes.setdefault(want, got) != got:
                raise ValueError(f"{message + ' ' if message else ''}Dimension '{want}' has size {got} here but "
                                 f"{sizes[want]} elsewhere")


def is_numeric_tensor(tensor):
    """True for a tensor of a numeric (integer, floating or complex) dtype."""

    if not isinstance(tensor, Tensor):
        return False
    d = tensor.dtype
    return d.is_integer or d.is_floating or d.is_complex
