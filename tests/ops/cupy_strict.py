"""A strict CuPy stand-in for emulated GPUs: catch op code that would break on a real GPU, without one.

An emulated GPU computes with NumPy, so op code that calls ``np.`` functions on
device arrays, mixes host and device arrays, or uses a function CuPy lacks works
there and breaks on CuPy. :func:`strict_cupy_mode` turns an emulated GPU's backend
into one that refuses what CuPy refuses:

- its arrays are :class:`StrictArray` (a NumPy subclass): mixing one with a host
  ``numpy.ndarray`` in a ufunc or array function raises ``TypeError`` as CuPy does;
  ``numpy`` functions on them work only where CuPy has the same function (CuPy
  dispatches ``__array_function__`` to its own), reductions give 0-d arrays;
- ``b.xp`` is :class:`StrictXP`: only names that exist in ``cupy`` (checked against
  the installed CuPy, which imports without a GPU), arguments bound against CuPy's
  signature, ``argsort(kind=...)`` refused, ``ufunc.at`` limited to CuPy's dtypes,
  and a ``cupyx`` with ``scatter_add`` / ``scipy.special.erf`` for ``xp_compat``;
- an op implementation returning a host array, and host synchronisations
  (``item``, ``tolist``, ``bool``/``int``/``float`` of a device array) are recorded
  in :data:`SYNCS` so tests can check hot paths do not stall the GPU.
"""

import contextlib
import inspect
import math
import os
import types

import numpy as np

try:
    import cupy as _cupy
except Exception:  # noqa: BLE001 - without CuPy the namespace checks are skipped
    _cupy = None

_CREATION = frozenset({"asarray", "array", "asanyarray"})
_ATOMIC_ADD = frozenset(np.dtype(c) for c in "iILQefd")  # cupyx.scatter_add's dtypes
SYNCS = []  # (what, shape) for each host synchronisation since the last clear


class CupyIncompatible(TypeError):
    """Op code did something CuPy refuses."""


def _is_host(a):
    return type(a) is np.ndarray


def _reject_host(name, args, kwargs):
    for a in list(args) + list(kwargs.values()):
        items = a if isinstance(a, list | tuple) else (a,)
        for x in items:
            if _is_host(x):
                raise CupyIncompatible(f"{name}: a host numpy.ndarray {x.dtype}{list(x.shape)} mixed with "
                                       "device arrays (CuPy raises TypeError)")


def _unwrap(a):
    if isinstance(a, StrictArray):
        return a.view(np.ndarray)
    if isinstance(a, list | tuple):
        return type(a)(_unwrap(x) for x in a)
    return a


def wrap(a):
    """Host results -> device arrays (NumPy scalars become 0-d arrays, as CuPy returns)."""
    if isinstance(a, StrictArray):
        return a
    if isinstance(a, np.ndarray):
        return a.view(StrictArray)
    if isinstance(a, np.generic):
        return np.asarray(a).view(StrictArray)
    if isinstance(a, tuple | list) and any(isinstance(x, np.ndarray | np.generic) for x in a):
        if hasattr(a, "_fields"):  # NumPy's result namedtuples (QRResult, SVDResult ...): CuPy returns tuples
            return tuple(wrap(x) for x in a)
        return type(a)(wrap(x) for x in a)
    return a


class StrictArray(np.ndarray):
    """Stands for a ``cupy.ndarray`` on an emulated GPU (see the module docstring)."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        checked = inputs[:1] + inputs[2:] if method == "at" else inputs  # host index arrays are fine
        _reject_host(f"numpy.{ufunc.__name__}", checked + (out or ()), {})
        if method == "at":
            if ufunc is not np.add:
                raise CupyIncompatible(f"{ufunc.__name__}.at: use xp_compat (CuPy covers add.at only here)")
            if inputs[0].dtype not in _ATOMIC_ADD:
                raise CupyIncompatible(f"add.at on {inputs[0].dtype}: CuPy's atomics do not cover it")
        args = _unwrap(inputs)
        if out is not None:
            kwargs["out"] = _unwrap(out)
        with np.errstate(all="ignore"):  # CuPy never warns on floating-point errors
            res = getattr(ufunc, method)(*args, **kwargs)
        if method == "at":
            return None
        if out is not None:
            return out[0] if len(out) == 1 else out
        return wrap(res)

    def __array_function__(self, func, types_, args, kwargs):
        name = func.__name__
        # numpy.linalg.inv is checked against cupy.linalg; every other function against cupy's top level
        sub = "linalg" if (getattr(func, "__module__", None) or "").startswith("numpy.linalg") else None
        space = getattr(_cupy, sub) if _cupy is not None and sub else _cupy
        if _cupy is not None and not hasattr(space, name):
            where = f"cupy.{sub}" if sub else "CuPy"
            raise CupyIncompatible(f"numpy.{name} on a device array: {where} has no {name}")
        _reject_host(f"numpy.{name}", args, kwargs)
        return wrap(func(*_unwrap(args), **_unwrap(kwargs)))

    def __getattribute__(self, name):
        if _cupy is not None and name[0] != "_" and not hasattr(_cupy.ndarray, name):
            raise AttributeError(f"cupy.ndarray has no attribute {name!r}")
        return super().__getattribute__(name)

    def _sync(self, what):
        SYNCS.append((what, self.shape))

    def item(self, *a):
        self._sync("item")
        return self.view(np.ndarray).item(*a)

    def tolist(self):
        self._sync("tolist")
        return self.view(np.ndarray).tolist()

    def __bool__(self):
        self._sync("bool")
        return bool(self.view(np.ndarray))

    def __int__(self):
        self._sync("int")
        return int(self.view(np.ndarray))

    def __float__(self):
        self._sync("float")
        return float(self.view(np.ndarray))

    def __index__(self):
        self._sync("index")
        return self.view(np.ndarray).__index__()


def _signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


class _StrictUfunc:
    def __init__(self, ufunc, cp_ufunc):
        self._u, self._cp = ufunc, cp_ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args, **kwargs):
        _reject_host(f"cupy.{self.__name__}", args, kwargs)
        return wrap(self._u(*args, **kwargs))

    def __getattr__(self, name):
        if self._cp is not None and not hasattr(self._cp, name):
            raise AttributeError(f"cupy.{self.__name__} has no {name!r}")
        return getattr(self._u, name)


class _StrictFunction:
    def __init__(self, name, fn, cp_fn):
        self._name, self._fn = name, fn
        self._sig = _signature(cp_fn) if cp_fn is not None else None

    def __call__(self, *args, **kwargs):
        name = self._name
        if self._sig is not None:
            try:
                self._sig.bind(*args, **kwargs)
            except TypeError as e:
                raise CupyIncompatible(f"cupy.{name}{self._sig} rejects the arguments: {e}") from None
        if name in ("argsort", "sort"):
            if kwargs.get("kind") is not None:
                raise CupyIncompatible(f"cupy.{name}: 'kind' is not accepted (CuPy's sort is always stable)")
            kwargs["kind"] = "stable"
        if name not in _CREATION:
            _reject_host(f"cupy.{name}", args, kwargs)
        return wrap(self._fn(*args, **kwargs))


class StrictXP:
    """NumPy restricted to CuPy's namespace; the ``xp`` of a strict emulated GPU."""

    def __init__(self, np_mod=np, cp_mod=_cupy, path="cupy"):
        self._np, self._cp, self._path = np_mod, cp_mod, path
        self._cache = {}
        if np_mod is np:
            self.cupyx = _StrictCupyx()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        cache = self.__dict__["_cache"]
        if name in cache:
            return cache[name]
        np_attr = getattr(self._np, name)
        cp_attr = None
        if self._cp is not None:
            if not hasattr(self._cp, name):
                raise AttributeError(f"{self._path}.{name} does not exist (op code must not use it)")
            cp_attr = getattr(self._cp, name)
        if isinstance(np_attr, types.ModuleType):
            out = StrictXP(np_attr, cp_attr, f"{self._path}.{name}")
        elif isinstance(np_attr, np.ufunc):
            out = _StrictUfunc(np_attr, cp_attr)
        elif callable(np_attr) and not isinstance(np_attr, type):
            out = _StrictFunction(name, np_attr, cp_attr)
        else:
            out = np_attr
        cache[name] = out
        return out


class _StrictSpecial:
    @staticmethod
    def erf(x):
        _reject_host("cupyx.scipy.special.erf", (x,), {})
        host = x.view(np.ndarray)
        flat = np.array([math.erf(float(v)) for v in host.reshape(-1)], dtype=np.float64)
        return wrap(flat.reshape(host.shape).astype(x.dtype))


class _StrictCupyx:
    """The part of ``cupyx`` that ``tfcore.backend.xp_compat`` uses."""

    scipy = types.SimpleNamespace(special=_StrictSpecial())

    @staticmethod
    def scatter_add(a, slices, v):
        if not isinstance(a, StrictArray):
            raise CupyIncompatible("cupyx.scatter_add: target is not a device array")
        if a.dtype not in _ATOMIC_ADD:
            raise CupyIncompatible(f"cupyx.scatter_add does not support {a.dtype}")
        _reject_host("cupyx.scatter_add", (v,), {})
        np.add.at(a.view(np.ndarray), _unwrap(slices), _unwrap(v))


class _UnwrappingKernels:
    """Hands the emulator plain NumPy views (its launcher is host code, not op code)."""

    def __init__(self, lib):
        self._lib = lib

    def launch(self, name, grid, block, args, *a, **kw):
        return self._lib.launch(name, grid, block, [_unwrap(x) for x in args], *a, **kw)

    def __getattr__(self, name):
        return getattr(self._lib, name)


def _strict_backend_class(base):
    class StrictCudaBackend(base):
        """An emulated GPU backend whose arrays and ``xp`` behave like CuPy's."""

        host_memory = False  # as a real GPU's: reading values on the host is a synchronisation

        def asarray(self, value, dtype=None):
            return wrap(base.asarray(self, _unwrap(value), dtype))

        def to_numpy(self, array):
            return np.array(_unwrap(array))

        def adopt(self, array):
            if not isinstance(array, StrictArray):
                raise CupyIncompatible(f"a GPU op implementation returned a host {type(array).__name__}")
            return wrap(base.adopt(self, array.view(np.ndarray)))

        def from_other(self, array, src_backend):
            return wrap(base.from_other(self, _unwrap(array), src_backend))

        def copy_into(self, dst, src):
            np.copyto(_unwrap(dst), _unwrap(src))

    return StrictCudaBackend


@contextlib.contextmanager
def strict_cupy_mode(device):
    """Make the emulated GPU ``device`` (a context Device) behave like CuPy while inside."""
    b = device.backend
    if not getattr(b, "emulated", False):
        raise ValueError(f"{device.name} is not an emulated GPU")
    saved = (b.__class__, b.__dict__.get("xp"), b.kernels)
    b.__class__ = _strict_backend_class(saved[0])
    b.xp = StrictXP()
    b.kernels = _UnwrappingKernels(saved[2])
    try:
        yield b
    finally:
        b.__class__, b.xp, b.kernels = saved


@contextlib.contextmanager
def strict_emulated_gpu():
    """One emulated GPU (``TFCORE_EMULATED_GPUS=1``) in strict CuPy mode; yields its backend and restores the
    previous device configuration after."""
    from tfcore.framework.context import context

    saved = os.environ.get("TFCORE_EMULATED_GPUS")
    os.environ["TFCORE_EMULATED_GPUS"] = "1"
    try:
        context.reset_for_tests()
        gpu = context.find("GPU", 0)
        assert gpu is not None and gpu.backend.emulated
        with strict_cupy_mode(gpu) as backend:
            yield backend
    finally:
        if saved is None:
            os.environ.pop("TFCORE_EMULATED_GPUS", None)
        else:
            os.environ["TFCORE_EMULATED_GPUS"] = saved
        context.reset_for_tests()
