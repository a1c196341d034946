"""Kernel libraries: launch a CUDA kernel from kernels/*.cu by name (docs/architecture.md §4).

``KernelLibrary.launch(name, grid, block, args, shared_mem=0)`` is the one call op
implementations make. Two implementations:

- :class:`CupyKernelLibrary` (real GPUs): each kernel file is compiled once per process
  (and cached on disk) with NVRTC to a cubin for the device's architecture (``sm_XX``: no driver
  JIT, so an NVRTC newer than the driver still loads), loaded with ``cupy.RawModule`` and launched
  on the current stream (the logical device's, entered by ``CudaBackend.activate``). Scalars are
  typed from the parameter lists in the PTX of the same compile.
- :class:`EmulatorKernelLibrary` (emulated GPUs): the same sources compiled by g++ with the
  CUDA shim and launched on the CPU (``backend/emulator``).

Kernel files are read with importlib.resources from the installed ``tfcore.kernels``
package (the repo's ``kernels/`` directory); :func:`kernel_source` inlines local
``#include "x.cuh"`` headers so NVRTC needs no include path.
"""

import functools
import hashlib
import importlib.resources
import os
import re
import threading
from pathlib import Path

import numpy as np

_INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)
_DIRECT_KERNEL_RE = re.compile(r'(?:extern\s+"C"\s+__global__|TFC_KERNEL)\s+void\s+'
                               r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\(")


def kernels_dir():
    """Directory holding the kernel sources (``tfcore.kernels``)."""
    return Path(str(importlib.resources.files("tfcore.kernels")))


def kernel_families():
    """Sorted family names: one per ``kernels/<family>.cu``."""
    return sorted(p.stem for p in kernels_dir().glob("*.cu"))


def kernel_path(family):
    p = kernels_dir() / f"{family}.cu"
    if not p.exists():
        raise KeyError(f"no kernel family {family!r} (files: {kernel_families()})")
    return p


def _inline(path, seen):
    text = path.read_text()

    def repl(m):
        inc = path.parent / m.group(1)
        if not inc.exists():
            return m.group(0)
        if inc in seen:
            return f"// {m.group(1)} already included"
        seen.add(inc)
        resume = text.count("\n", 0, m.end()) + 2
        return f'#line 1 "{m.group(1)}"\n{_inline(inc, seen)}\n#line {resume} "{path.name}"'

    return _INCLUDE_RE.sub(repl, text)


def kernel_source(family):
    """Source text of ``kernels/<family>.cu`` with local headers (common.cuh) inlined."""
    return _inline(kernel_path(family), set())


_DEFINE_RE = re.compile(r"^[ \t]*#define[ \t]+(\w+)[ \t]+(\w+)[ \t]*(?://.*)?$", re.M)


@functools.cache
def _kernel_defines(family):
    table = {}
    for name, value in _DEFINE_RE.findall(kernel_source(family)):
        table.setdefault(name, set()).add(value)
    return table


def kernel_define(family, name):
    """The integer value of ``#define name`` in ``kernels/<family>.cu`` (its headers included; an alias of
    another define is followed). Launchers take their tile and block sizes from here, so the kernel
    source is the one place they are written."""
    table = _kernel_defines(family)
    seen = []
    while not name.isdigit():
        if name in seen:
            raise ValueError(f"kernels/{family}.cu: #define {seen[0]} is circular ({' -> '.join(seen)})")
        values = table.get(name)
        if values is None:
            raise KeyError(f"kernels/{family}.cu has no numeric #define {seen[0] if seen else name}"
                           + (f" (it names {name}, which is not defined)" if seen else ""))
        if len(values) > 1:
            raise ValueError(f"kernels/{family}.cu defines {name} differently in different branches: {sorted(values)}")
        seen.append(name)
        (name,) = values
    return int(name)


def direct_kernel_names(family):
    """Kernel names written literally in the source (macro-generated ones are not found here)."""
    return _DIRECT_KERNEL_RE.findall(kernel_path(family).read_text())


def max_blocks_override():
    """``TFCORE_KERNEL_MAX_BLOCKS``: at most this many blocks along every grid dimension that a launcher
    covers with a grid-stride (or row) loop, or None. Tests set it to a few blocks so that each block
    loops over several rows/elements (the block-reuse paths a full grid never takes)."""
    v = os.environ.get("TFCORE_KERNEL_MAX_BLOCKS")
    return max(1, int(v)) if v else None


def grid_cap(n, limit):
    """Blocks for a grid-stride dimension over ``n`` items of work: ``min(n, limit)``, at least 1,
    capped by :func:`max_blocks_override`."""
    cap = max_blocks_override()
    n = min(int(n), int(limit))
    return max(1, min(n, cap) if cap else n)


class KernelNotFoundError(KeyError):
    pass


class KernelLibrary:
    """Launches kernels from kernels/*.cu by name. Subclasses load one module per family."""

    kind = "abstract"

    def __init__(self):
        self._modules = {}
        self._where = {}  # kernel name -> family
        self._lock = threading.RLock()

    # -- to implement ---------------------------------------------------------
    def _load(self, family):
        """Load/compile one family; returns (module, set of kernel names)."""
        raise NotImplementedError

    def _launch(self, module, name, grid, block, args, shared_mem):
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------
    def module(self, family):
        with self._lock:
            entry = self._modules.get(family)
            if entry is None:
                entry = self._modules[family] = self._load(family)
                for n in entry[1]:
                    self._where.setdefault(n, family)
            return entry[0]

    def family_of(self, name):
        """The family whose file defines kernel ``name`` (loading families as needed)."""
        fam = self._where.get(name)
        if fam is not None:
            return fam
        with self._lock:
            for family in kernel_families():  # literal names first: loads only the right file
                if name in direct_kernel_names(family):
                    self.module(family)
                    if name in self._where:
                        return self._where[name]
            for family in kernel_families():  # macro-generated names: load until found
                self.module(family)
                if name in self._where:
                    return self._where[name]
        raise KernelNotFoundError(f"no kernel named {name!r} in {kernels_dir()} ({self.kind} library)")

    def kernel_names(self):
        for f in kernel_families():
            self.module(f)
        return sorted(self._where)

    def launch(self, name, grid, block, args, shared_mem=0):
        """Launch kernel ``name`` over ``grid`` x ``block`` (ints or 1-3 tuples) with ``args``."""
        fam = self._where.get(name) or self.family_of(name)
        return self._launch(self._modules[fam][0], name, grid, block, tuple(args), int(shared_mem))

    def compile_source(self, source, name):
        """Compile CUDA C generated at run time (``source``, e.g. a fused element-wise chain) and return
        ``launch(grid, block, args, shared_mem=0)`` for its kernel ``name``.

        Compiled once per source text (cached in memory and on disk); call it when a plan is built, not
        inside a launch, so no compilation ever happens under a CUDA-graph capture."""
        raise NotImplementedError


class EmulatorKernelLibrary(KernelLibrary):
    """Kernels compiled by g++ with the CUDA shim and run on the CPU (emulated GPUs)."""

    kind = "emulator"

    def __init__(self, workers=None, racecheck=None):
        """``racecheck``: load the shared-memory race-checking builds (None: ``TFCORE_EMULATOR_RACECHECK``,
        read when a family is first loaded)."""
        super().__init__()
        self.workers = workers
        self.racecheck = racecheck

    def _load(self, family):
        from .emulator.launcher import load_module

        mod = load_module(kernel_path(family), racecheck=self.racecheck)
        return mod, set(mod.signatures)

    def signature(self, name):
        return self.module(self.family_of(name)).signatures[name]

    def _launch(self, module, name, grid, block, args, shared_mem):
        module.launch(name, grid, block, args, shared_mem, workers=self.workers)

    def compile_source(self, source, name):
        from .emulator.launcher import load_module
        from .generated_kernels import source_file

        module = load_module(source_file(source), racecheck=self.racecheck)
        if name not in module.signatures:
            raise KernelNotFoundError(f"no kernel named {name!r} in the generated source ({self.kind} library)")

        def launch(grid, block, args, shared_mem=0):
            module.launch(name, grid, block, tuple(args), int(shared_mem), workers=self.workers)

        return launch


@functools.cache
def emulator_library():
    """The process-wide emulator library (modules compiled/loaded once, shared by all emulated GPUs)."""
    return EmulatorKernelLibrary()


def _ptx_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(os.environ.get("TFCORE_PTX_CACHE") or os.path.join(base, "tfcore", "ptx"))


def _cache_key(family, source, arch, target):
    from . import nvrtc

    key = hashlib.sha256(f"{source}\0{target}\0{arch}\0{nvrtc.nvrtc_version()}".encode()).hexdigest()
    return _ptx_cache_dir() / f"{family}-{target}{arch}-{key[:24]}"


def _write_atomic(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f"{path.suffix}.tmp{os.getpid()}")
    if isinstance(data, bytes):
        tmp.write_bytes(data)
    else:
        tmp.write_text(data)
    os.replace(tmp, path)


def compile_family_ptx(family, arch, source=None):
    """PTX of one kernel family for ``compute_<arch>`` (disk-cached by source, arch and NVRTC version).

    Only for a device newer than every architecture this NVRTC knows (the driver JIT-compiles it);
    :func:`compile_family_cubin` is what devices load. ``source``: the CUDA C to compile instead of
    ``kernels/<family>.cu`` (generated kernels; ``family`` then only names the cache files)."""
    from . import nvrtc

    source = kernel_source(family) if source is None else source
    path = _cache_key(family, source, arch, "compute").with_suffix(".ptx")
    if path.exists():
        return path, path.read_text()
    ptx = nvrtc.compile_ptx(source, arch, filename=f"{family}.cu")
    _write_atomic(path, ptx)
    return path, ptx


def compile_family_cubin(family, arch, source=None):
    """``(cubin path, PTX text)`` of one kernel family for ``sm_<arch>``, disk-cached by source, arch and
    NVRTC version. The PTX of the same compile (cached beside it) gives the kernels' parameter lists;
    the ptxas ``-v`` log is kept as ``.log`` (registers and spills per kernel). ``source`` as in
    :func:`compile_family_ptx`."""
    from . import nvrtc

    source = kernel_source(family) if source is None else source
    base = _cache_key(family, source, arch, "sm")
    cubin_path, ptx_path = base.with_suffix(".cubin"), base.with_suffix(".ptx")
    if cubin_path.exists() and ptx_path.exists():
        return cubin_path, ptx_path.read_text()
    out = nvrtc.compile_cubin(source, arch, filename=f"{family}.cu")
    _write_atomic(base.with_suffix(".log"), out.log)
    _write_atomic(ptx_path, out.ptx)
    _write_atomic(cubin_path, out.cubin)  # last: its presence means the set is complete
    return cubin_path, out.ptx


def compile_family_for_device(family, arch, source=None):
    """``(path, PTX text, kind)`` to load one family on a device of compute capability ``arch``: a cubin
    for ``sm_<arch>`` when this NVRTC supports that architecture (kind ``"cubin"``), else PTX for the
    newest older architecture it supports, left to the driver's JIT (kind ``"ptx"``). ``source`` as in
    :func:`compile_family_ptx`."""
    from . import nvrtc

    arch = int(arch)
    archs = nvrtc.supported_archs()
    if arch in archs:
        path, ptx = compile_family_cubin(family, arch, source)
        return path, ptx, "cubin"
    older = [a for a in archs if a <= arch]
    if not older:
        raise RuntimeError(f"NVRTC {'.'.join(map(str, nvrtc.nvrtc_version()))} supports no architecture "
                           f"up to sm_{arch} (it supports {archs})")
    path, ptx = compile_family_ptx(family, max(older), source)
    return path, ptx, "ptx"


# -- kernel arguments on real GPUs ---------------------------------------------------------------------
# Scalars are typed from the PTX entry's parameter list; arrays (device pointers) pass as they are.
# Per PTX type: the NumPy scalar type a value of which passes unchanged (converting it would give an
# equal value of the same type), and the converter for anything else.

def _int32_or_uint32(a):
    return np.int32(a) if -(1 << 31) <= int(a) < (1 << 31) else np.uint32(a)


def _half_or_int16(a):
    return np.float16(a) if isinstance(a, float | np.floating) else np.int16(a)


_SCALAR_ARGS = {"f32": (np.float32, np.float32), "f64": (np.float64, np.float64)}
_SCALAR_ARGS.update(dict.fromkeys(("u32", "s32", "b32"), (np.int32, _int32_or_uint32)))
_SCALAR_ARGS.update(dict.fromkeys(("u64", "s64", "b64"), (np.int64, np.int64)))
_SCALAR_ARGS.update(dict.fromkeys(("u16", "s16", "b16", "b8[2]"), (np.float16, _half_or_int16)))
_SCALAR_ARGS.update(dict.fromkeys(("u8", "s8", "b8", "b8[1]"), (np.int8, np.int8)))


def arg_converters(name, params):
    """One ``(unchanged type, converter)`` per PTX parameter type of kernel ``name`` (built once per kernel).

    A parameter of a type we cannot pass gets a converter that raises TypeError when a scalar reaches
    it (an array there still passes, as before)."""
    out = []
    for i, ty in enumerate(params):
        conv = _SCALAR_ARGS.get(ty)
        if conv is None:
            conv = (None, functools.partial(_unsupported_arg, name, i, ty))
        out.append(conv)
    return tuple(out)


def _unsupported_arg(name, i, ty, _a):
    raise TypeError(f"kernel {name}: unsupported parameter {i} of PTX type {ty}")


def pack_args(name, converters, args, ndarray):
    """The argument tuple for a launch: ``ndarray`` (CuPy) arrays as they are, None as a null pointer,
    scalars through their parameter's converter; a host NumPy array is refused (TypeError)."""
    out = []
    for (keep, conv), a in zip(converters, args):
        t = type(a)
        if t is ndarray or t is keep or isinstance(a, ndarray):
            out.append(a)
        elif a is None:
            out.append(np.uint64(0))
        elif isinstance(a, np.ndarray):
            i = len(out)
            raise TypeError(f"kernel {name}: argument {i} is a host NumPy array; pass a CuPy array")
        else:
            out.append(conv(a))
    return tuple(out)


class CupyKernelLibrary(KernelLibrary):
    """Kernels on a real GPU: an NVRTC cubin for the device's arch, ``cupy.RawModule``, current stream."""

    kind = "cupy"

    def __init__(self, device_id):
        super().__init__()
        import cupy

        self.cupy = cupy
        self.device_id = int(device_id)
        with cupy.cuda.Device(self.device_id) as dev:
            self.arch = int(dev.compute_capability)
        self._ndarray = cupy.ndarray
        self._kernels = {}  # name -> cupy RawKernel function
        self._plans = {}  # name -> (function, converters): see plan()
        self.loaded_kind = {}  # family -> "cubin" or "ptx" (what _load gave cupy.RawModule)
        self._generated = {}  # source hash -> (RawModule, PTX entries, {name: (function, converters)})

    def _load(self, family):
        from .nvrtc import ptx_entries

        path, ptx, self.loaded_kind[family] = compile_family_for_device(family, self.arch)
        with self.cupy.cuda.Device(self.device_id):
            mod = self.cupy.RawModule(path=str(path))
        entries = ptx_entries(ptx)
        return (mod, entries), set(entries)

    def plan(self, name):
        """``(kernel function, converters)`` for kernel ``name``, built on its first launch and cached.

        The converters (:func:`arg_converters`) come from the PTX entry's parameter list, so a launch
        only maps its arguments through them (:func:`pack_args`) instead of re-reading PTX types.
        """
        entry = self._plans.get(name)
        if entry is None:
            fam = self._where.get(name) or self.family_of(name)
            mod, entries = self._modules[fam][0]
            k = self._kernels.get(name)
            if k is None:
                k = self._kernels[name] = mod.get_function(name)
            entry = self._plans[name] = (k, arg_converters(name, entries[name]))
        return entry

    def launch(self, name, grid, block, args, shared_mem=0):
        """:meth:`KernelLibrary.launch` without the per-call family lookup (the plan is cached per name)."""
        k, convs = self._plans.get(name) or self.plan(name)
        self._run(k, convs, name, grid, block, args, shared_mem)

    def _run(self, k, convs, name, grid, block, args, shared_mem):
        if type(args) is not tuple:
            args = tuple(args)
        if len(convs) != len(args):
            raise TypeError(f"kernel {name} takes {len(convs)} arguments, got {len(args)}")
        shared_mem = int(shared_mem)
        if shared_mem > 48 * 1024 and k.max_dynamic_shared_size_bytes < shared_mem:
            k.max_dynamic_shared_size_bytes = shared_mem
        if type(grid) is not tuple:
            grid = (grid,) if isinstance(grid, int) else tuple(grid)
        if type(block) is not tuple:
            block = (block,) if isinstance(block, int) else tuple(block)
        if not all(grid) or not all(block):
            return  # empty launch: nothing to do (CUDA rejects zero-sized grids)
        k(grid, block, pack_args(name, convs, args, self._ndarray), shared_mem=shared_mem)

    def compile_source(self, source, name):
        """NVRTC compiles ``source`` for this device (a cubin, disk-cached by its hash like the families),
        loaded once per source with ``cupy.RawModule``; launches go to the current stream."""
        from .nvrtc import ptx_entries

        digest = hashlib.sha256(source.encode()).hexdigest()[:24]
        with self._lock:
            entry = self._generated.get(digest)
            if entry is None:
                path, ptx, _ = compile_family_for_device(f"generated-{digest}", self.arch, source)
                with self.cupy.cuda.Device(self.device_id):
                    mod = self.cupy.RawModule(path=str(path))
                entry = self._generated[digest] = (mod, ptx_entries(ptx), {})
        mod, entries, functions = entry
        if name not in entries:
            raise KernelNotFoundError(f"no kernel named {name!r} in the generated source ({self.kind} library)")
        with self._lock:
            if name not in functions:
                functions[name] = (mod.get_function(name), arg_converters(name, entries[name]))
        k, convs = functions[name]

        def launch(grid, block, args, shared_mem=0):
            self._run(k, convs, name, grid, block, args, shared_mem)

        return launch

    def _launch(self, module, name, grid, block, args, shared_mem):
        self.launch(name, grid, block, args, shared_mem)
