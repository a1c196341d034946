"""Count device-side data copies (what CuPy runs as ``cupy_copy`` / concatenate kernels) on a strict
emulated GPU (:mod:`cupy_strict`), by call site in tfcore.

An emulated GPU computes with NumPy, so a copy that op code makes on a real GPU is made here by the
same xp call or array method. Counted (only the outermost call when one calls another):

- ``xp.ascontiguousarray`` / ``xp.asfortranarray`` of a non-contiguous array, ``xp.array`` of a device
  array, ``xp.copy``;
- array functions that move data: ``concatenate``, ``stack``, ``hstack``, ``vstack``, ``copyto``,
  ``tile``, ``repeat``, ``pad`` (also when reached through ``numpy.*`` on device arrays);
- array methods: ``copy``, ``flatten``, ``astype`` to the same dtype (a copy) and a ``reshape`` /
  ``ravel`` whose result does not share memory with the array (a non-contiguous array reshaped).

Not counted: the emulator's own adoption of NumPy results into allocator memory (``adopt``: a real
GPU's results are already there), dtype conversions (``astype`` to another dtype), element-wise math
and fills (``a[...] = x``), which are kernels of their own.
"""

import collections
import contextlib
import os
import sys
import threading

import cupy_strict
import numpy as np

import tfcore

_FUNCS = frozenset({"concatenate", "stack", "hstack", "vstack", "copyto", "tile", "repeat", "pad"})
_XP_CREATION = frozenset({"ascontiguousarray", "asfortranarray", "array", "copy"})
# the package's own folder, not any path with a "tfcore" folder in it: a repository cloned into a folder
# named tfcore holds these tests under .../tfcore/tests/, which are not library code
_PACKAGE = os.path.dirname(os.path.abspath(tfcore.__file__)) + os.sep


def _site():
    f = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith(_PACKAGE):
            rel = "tfcore/" + fn[len(_PACKAGE):].replace(os.sep, "/")
            return f"{rel}:{f.f_lineno} {f.f_code.co_name}"
        f = f.f_back
    return "<outside tfcore>"


class CopyCounter:
    """``counts``: Counter of ``(what, call site)``; ``total``: their sum."""

    def __init__(self):
        self.counts = collections.Counter()
        self._depth = threading.local()

    @property
    def total(self):
        return sum(self.counts.values())

    def by_what(self):
        out = collections.Counter()
        for (what, _), n in self.counts.items():
            out[what] += n
        return out

    def report(self):
        return "\n".join(f"{n:4d}  {what:18s} {site}" for (what, site), n in self.counts.most_common())

    def _record(self, what):
        self.counts[(what, _site())] += 1

    def _enter(self):
        d = getattr(self._depth, "d", 0)
        self._depth.d = d + 1
        return d == 0

    def _exit(self):
        self._depth.d -= 1


class _CountingXP:
    """Wraps a strict ``xp``: counts the creation functions that copy."""

    def __init__(self, xp, counter):
        self._xp, self._counter = xp, counter

    def __getattr__(self, name):
        attr = getattr(self._xp, name)
        if name not in _XP_CREATION:
            return attr
        counter = self._counter

        def call(a, *args, **kwargs):
            outer = counter._enter()
            try:
                out = attr(a, *args, **kwargs)
            finally:
                counter._exit()
            if outer and isinstance(a, np.ndarray) and a.size and isinstance(out, np.ndarray) and \
                    not np.may_share_memory(out, a):
                counter._record(name)
            return out

        return call


@contextlib.contextmanager
def count_copies(backend):
    """Count copies made on ``backend`` (an emulated GPU already in ``strict_cupy_mode``)."""
    counter = CopyCounter()
    cls = cupy_strict.StrictArray
    saved = {k: cls.__dict__.get(k) for k in ("__array_function__", "reshape", "ravel", "copy", "flatten", "astype")}
    array_function = saved["__array_function__"]

    def counted(what, fn, check):
        def method(self, *args, **kwargs):
            outer = counter._enter()
            try:
                out = fn(self, *args, **kwargs)
            finally:
                counter._exit()
            if outer and check(self, out, args, kwargs):
                counter._record(what)
            return out
        return method

    def moved(self, out, args, kwargs):
        return self.size > 0 and isinstance(out, np.ndarray) and not np.may_share_memory(out, self)

    def same_dtype(self, out, args, kwargs):
        dtype = args[0] if args else kwargs.get("dtype")
        return np.dtype(dtype) == self.dtype and moved(self, out, args, kwargs)

    def af(self, func, types_, args, kwargs):
        outer = counter._enter()
        try:
            out = array_function(self, func, types_, args, kwargs)
        finally:
            counter._exit()
        if outer and func.__name__ in _FUNCS:
            counter._record(func.__name__)
        return out

    cls.__array_function__ = af
    cls.reshape = counted("reshape", np.ndarray.reshape, moved)
    cls.ravel = counted("ravel", np.ndarray.ravel, moved)
    cls.copy = counted("copy", np.ndarray.copy, lambda s, o, a, k: s.size > 0)
    cls.flatten = counted("flatten", np.ndarray.flatten, lambda s, o, a, k: s.size > 0)
    cls.astype = counted("astype", np.ndarray.astype, same_dtype)
    xp = backend.xp
    backend.xp = _CountingXP(xp, counter)
    try:
        yield counter
    finally:
        backend.xp = xp
        for k, v in saved.items():
            if v is None:
                delattr(cls, k)
            else:
                setattr(cls, k, v)
