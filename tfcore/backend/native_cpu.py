"""Native CPU kernels (``kernels/cpu_kernels.cc``): built here with the C++ compiler, loaded with ctypes.

NumPy runs every CPU op, but some loops it can only express as several passes over strided views
(convolutions with few channels, im2col, max pooling and its gradient, Adam's update): the CPU
candidates of those ops call these kernels instead when they are available, one C loop per op.

The library is compiled on first use with ``g++ -O3 -march=native`` (``$CXX`` if set) and cached
under ``~/.cache/tfcore/native/<sha256>/``: as one translation unit about a minute, so on a machine with
several cores the source's ``TFC_PARTS`` parts are compiled at once (``-DTFC_PART=k``) and linked (the
hash covers the source, compiler, flags and this CPU's model and feature flags, so a cache shared between
machines never loads code built for another CPU).
Without a compiler, or with ``TFCORE_NATIVE_CPU=0``, :func:`library` is None and the NumPy candidates
run (a compiler that fails to build the file is reported once with a RuntimeWarning): results agree
either way to rounding (the tests compare both).
"""

import concurrent.futures
import ctypes
import hashlib
import os
import platform
import re
import shutil
import tempfile
import threading
import warnings
from pathlib import Path

import numpy as np

from .cpu import usable_cores
from .emulator.build import cache_root, compiler, compiler_version, run_compiler

SOURCE_NAME = "cpu_kernels.cc"
ABI_VERSION = 16
FLAGS = ("-O3", "-march=native", "-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-math-errno",
         "-Wno-psabi", "-pthread")
_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_LOCK = threading.Lock()

_i64 = ctypes.c_int64
_ptr = ctypes.c_void_p
# Parameter lists of the exported functions (before the dtype suffix).
_SIGNATURES = {
    "tfc_im2col": [_ptr] + [_i64] * 14 + [_ptr],
    "tfc_max_pool": [_ptr] + [_i64] * 12 + [_ptr, _ptr],  # ..., y, argmax bytes (None: not written)
    "tfc_max_pool_grad": [_ptr] * 3 + [_i64] * 12 + [_ptr, _i64, _ptr],  # ..., argmax (or None), relu, dx
    # x (unpadded), n, h, w, c, pads top/bottom/left/right, filter, kh .. ow, bias, relu, out, offsets scratch
    "tfc_conv2d_direct": [_ptr] + [_i64] * 8 + [_ptr] + [_i64] * 9 + [_ptr, _i64, _ptr, _ptr],
    "tfc_conv2d_wgrad_direct": [_ptr] + [_i64] * 8 + [_ptr] + [_i64] * 9 + [_ptr] * 2,  # x unpadded, as above
    # x (unpadded), n, h, w, c, pads top/bottom/left/right, filter (or dy), kh .. ow, out
    "tfc_depthwise_fwd": [_ptr] + [_i64] * 8 + [_ptr] + [_i64] * 8 + [_ptr],
    "tfc_depthwise_dgrad": [_ptr] + [_i64] * 6 + [_ptr] + [_i64] * 8 + [_ptr],  # dy, n, oh, ow, c, pt, pl, ..., dx
    "tfc_depthwise_wgrad": [_ptr] + [_i64] * 8 + [_ptr] + [_i64] * 8 + [_ptr],
    # dy, n, oh, ow, co, filter [kh, kw, co, c], kh, kw, c, sh, sw, dh, dw, pad top, pad left, h, w, bias, relu, dx
    "tfc_conv2d_dgrad_direct": [_ptr] + [_i64] * 4 + [_ptr] + [_i64] * 11 + [_ptr, _i64, _ptr],
    # x, n, h, w, c, pads top/bottom/left/right, filter (HWIO), r, co, oh, ow, G (float64), bias, relu, out
    "tfc_conv2d_winograd": [_ptr] + [_i64] * 8 + [_ptr] + [_i64] * 4 + [_ptr] * 2 + [_i64, _ptr],
    "tfc_relu_grad": [_ptr] * 2 + [_i64, _ptr],
    "tfc_adam": [_ptr] * 4 + [_i64] + [ctypes.c_double] * 4 + [_ptr] * 3,
    "tfc_box_muller": [_ptr, _i64, _ptr],  # TF's Box-Muller on Philox words (tfcore/ops/philox.py)
    "tfc_truncated_normal": [ctypes.c_uint64] * 3 + [_i64, _ptr],  # TF's truncated normal on a Philox stream
    "tfc_batch_norm_train": [_ptr, _i64, _i64, _ptr, _ptr, ctypes.c_double, _ptr, _ptr, _ptr],  # FusedBatchNormV3
    "tfc_batch_norm_grad": [_ptr] * 2 + [_i64] * 2 + [_ptr] * 3 + [ctypes.c_double, _i64] + [_ptr] * 3,
}
# Functions without a dtype suffix.
_PLAIN_SIGNATURES = {"tfc_philox": [ctypes.c_uint64] * 3 + [_ptr, _i64, _ptr]}  # TF's Philox (tfcore/ops/philox.py)
# Functions returning a value (the others return nothing).
_RESTYPES = {"tfc_conv2d_direct": ctypes.c_int, "tfc_conv2d_wgrad_direct": ctypes.c_int,
             "tfc_conv2d_dgrad_direct": ctypes.c_int, "tfc_conv2d_winograd": ctypes.c_int}


def enabled():
    """False when ``TFCORE_NATIVE_CPU`` is ``0``/``false``/``off`` (the NumPy candidates then run)."""
    return os.environ.get("TFCORE_NATIVE_CPU", "1").strip().lower() not in ("0", "false", "off", "no")


def _source_path():
    import importlib.resources

    return Path(str(importlib.resources.files("tfcore.kernels"))) / SOURCE_NAME


def _cpu_identity():
    """The CPU model and feature flags (``-march=native`` code is only valid on such a CPU)."""
    text = platform.machine() + platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    text += line
                if line.strip() == "":
                    break
    except OSError:
        pass
    return text


def _build(source, cxx):
    text = source.read_bytes()
    parts = _parts(text)
    h = hashlib.sha256()
    for part in (text, compiler_version(cxx).encode(), " ".join(FLAGS).encode(), _cpu_identity().encode(),
                 f"parts={parts}".encode()):
        h.update(part)
    out_dir = cache_root().parent / "native" / h.hexdigest()[:32]
    lib = out_dir / "cpu_kernels.so"
    if lib.exists():
        return lib
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        tmp_lib = Path(tmp) / "cpu_kernels.so"
        if parts > 1:
            objects = _compile_parts(cxx, source, Path(tmp), parts)
            run_compiler([cxx, *FLAGS, "-o", str(tmp_lib), *map(str, objects)], f"linking {source.name}'s parts")
        else:
            run_compiler([cxx, *FLAGS, "-o", str(tmp_lib), str(source)], f"compiling {source.name}")
        os.replace(tmp_lib, lib)  # atomic: a concurrent build of the same hash writes the same file
    return lib


def _parts(text):
    """How many parts to compile at once: the source's ``TFC_PARTS`` where this machine has two or more
    cores, else 1 (one translation unit: parts on one core only repeat the headers' parsing)."""
    m = re.search(rb"^#define TFC_PARTS (\d+)", text, re.MULTILINE)
    return int(m.group(1)) if m and usable_cores() > 1 else 1


def _compile_parts(cxx, source, tmp, parts):
    """``-DTFC_PART=k`` for each part to an object file, as many compilers at once as there are cores."""
    flags = [f for f in FLAGS if f != "-shared"]
    objects = [tmp / f"part{k}.o" for k in range(parts)]
    commands = [[cxx, *flags, "-c", f"-DTFC_PART={k}", "-o", str(o), str(source)] for k, o in enumerate(objects)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(parts, usable_cores())) as pool:
        list(pool.map(lambda cmd: run_compiler(cmd, f"compiling {source.name}"), commands))
    return objects


class NativeLibrary:
    """The loaded kernels; :meth:`fn` returns the ctypes function for a name and dtype."""

    def __init__(self, path):
        self.path = path
        self._dll = ctypes.CDLL(str(path))
        if self._dll.tfc_native_abi_version() != ABI_VERSION:
            raise RuntimeError(f"{path}: ABI version {self._dll.tfc_native_abi_version()}, expected {ABI_VERSION}")
        self._dll.tfc_set_num_threads.argtypes = [ctypes.c_int]
        self._dll.tfc_set_num_threads(_threads)
        self._wide = {dt: self._dll.tfc_wide_direct_channels(dt.itemsize) for dt in _SUFFIX}
        self._fns = {}
        for base, argtypes in _SIGNATURES.items():
            for suffix in _SUFFIX.values():
                f = getattr(self._dll, f"{base}_{suffix}")
                f.argtypes, f.restype = argtypes, _RESTYPES.get(base)
                self._fns[(base, suffix)] = f
        for base, argtypes in _PLAIN_SIGNATURES.items():
            f = getattr(self._dll, base)
            f.argtypes, f.restype = argtypes, None
            self._fns[(base, None)] = f

    def fn(self, base, dtype=None):
        """The kernel ``base`` for ``dtype`` (float32 or float64; None for the functions without a suffix)."""
        return self._fns[(base, None if dtype is None else _SUFFIX[np.dtype(dtype)])]

    def wide_direct_channels(self, dtype):
        """The fewest output channels (a multiple of it) that the wide direct convolution kernels take for
        ``dtype``: several SIMD vectors per pixel, fast at any sum length (0: this build has none, no
        AVX-512)."""
        return self._wide[np.dtype(dtype)]


def _load():
    cxx = compiler()
    if shutil.which(cxx) is None:  # no C++ compiler installed: the NumPy candidates run, quietly
        return None
    try:
        return NativeLibrary(_build(_source_path(), cxx))
    except Exception as e:  # noqa: BLE001 - a compiler that fails: say so once, then the NumPy candidates run
        warnings.warn(f"tfcore: native CPU kernels unavailable ({e}); using the NumPy implementations",
                      RuntimeWarning, stacklevel=3)
        return None


_UNLOADED = object()
_loaded = _UNLOADED  # the NativeLibrary or None once _load ran (read without the lock: ops call this per launch)


def library():
    """The :class:`NativeLibrary`, or None (disabled, or no compiler). Built once per process."""
    global _loaded
    if not enabled():
        return None
    lib = _loaded
    if lib is _UNLOADED:
        with _LOCK:
            if _loaded is _UNLOADED:
                _loaded = _load()
            lib = _loaded
    return lib


_threads = 0  # the direct convolutions' threads (0: every hardware thread); see set_num_threads


def set_num_threads(threads):
    """Threads the native convolution kernels split one op over: ``tf.config.threading``'s intra-op count
    (``0``, TF's default: every hardware thread). Applied to the loaded library and to a later load."""
    global _threads
    _threads = max(int(threads), 0)
    lib = _loaded
    if lib is not _UNLOADED and lib is not None:
        lib._dll.tfc_set_num_threads(_threads)


def last_parts():
    """How many threads the last native direct convolution (or its filter gradient) ran on."""
    lib = library()
    return 1 if lib is None else lib._dll.tfc_last_parts()


def pool_workers():
    """How many worker threads this process's native kernel pool has now (the split kernels run on the
    caller and up to that many workers): 0 before the first split op, and in a process forked after it
    until its own first split op (the parent's threads do not exist there)."""
    lib = library()
    return 0 if lib is None else lib._dll.tfc_pool_workers()


def num_threads():
    """The thread count set by :func:`set_num_threads` (0: every hardware thread)."""
    return _threads


def reset():
    """Forget the loaded library: the next :func:`library` builds or loads it again (tests switch the
    compiler or the cache directory)."""
    global _loaded
    with _LOCK:
        _loaded = _UNLOADED


def supports(*arrays, contiguous=True):
    """True when the native kernels can take these arrays: the library is there, and every array is a
    float32/float64 NumPy array of one dtype, C-contiguous (unless ``contiguous=False``: the caller
    makes contiguous copies)."""
    dt = arrays[0].dtype
    if dt not in _SUFFIX:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != dt or (contiguous and not a.flags.c_contiguous):
            return False
    return library() is not None


def ptr(a):
    """The data address of a NumPy array, for a ctypes call."""
    return a.ctypes.data


def report_line():
    """``tfcore info``'s line: whether the native CPU kernels run, and where the library is."""
    if not enabled():
        return "Native CPU kernels: off (TFCORE_NATIVE_CPU=0)"
    lib = library()
    if lib is None:
        return f"Native CPU kernels: not available (no working C++ compiler: {compiler()}); NumPy paths run"
    return f"Native CPU kernels: built ({lib.path})"
