"""NVRTC and ptxas helpers: compile kernel sources to PTX without a GPU, read PTX entry signatures.

The pip wheels ``nvidia-cuda-nvrtc-cu12`` (libnvrtc) and ``nvidia-cuda-nvcc-cu12`` (ptxas) are
found inside the installed ``nvidia`` namespace package; libnvrtc is preloaded with ctypes so
that tfcore binds to it (ctypes, no CuPy needed) even when no CUDA toolkit is installed.
Used by the CuPy kernel library (a cubin for the device's architecture, loaded by ``cupy.RawModule``;
the PTX of the same compile gives the kernels' parameter lists), the NVRTC compile tests and the
ptxas register/spill report.

Why cubin and not PTX: a driver JIT-compiles only PTX of an ISA version it knows, so PTX from an NVRTC
newer than the driver fails to load (``CUDA_ERROR_UNSUPPORTED_PTX_VERSION``: NVRTC 13.5 writes PTX 9.5,
a CUDA 13.0 driver takes <= 9.0). A cubin for ``sm_XX`` runs on any driver of the same CUDA major
version; CuPy compiles with ``-arch=sm_*`` for the same reason (``cupy/cuda/compiler.py``).
"""

import ctypes
import functools
import glob
import os
import re
import shutil
import subprocess
import typing


class NVRTCError(RuntimeError):
    """NVRTC rejected a source (message: the compiler log)."""


def _nvidia_dirs():
    try:
        import nvidia
    except ImportError:
        return []
    return list(getattr(nvidia, "__path__", []))


# Where the pip wheels put libnvrtc: nvidia-cuda-nvrtc-cu12 (CUDA 12) and nvidia-cuda-nvrtc 13.x (CUDA 13).
_WHEEL_LIB_DIRS = {12: ("cuda_nvrtc", "lib"), 13: ("cu13", "lib")}


def wheel_library_candidates(cuda_major=None):
    """libnvrtc files from the pip wheels, those for ``cuda_major`` (CuPy's CUDA) first."""
    order = sorted(_WHEEL_LIB_DIRS, key=lambda major: (major != cuda_major, -major))
    found = []
    for major in order:
        for d in _nvidia_dirs():
            for lib in sorted(glob.glob(os.path.join(d, *_WHEEL_LIB_DIRS[major], "libnvrtc.so.*"))):
                if ".alt." not in lib and "builtins" not in lib:
                    found.append(lib)
    return found


def _cupy_cuda_major():
    try:
        import cupy

        return int(cupy.cuda.runtime.runtimeGetVersion()) // 1000
    except Exception:  # noqa: BLE001 - no CuPy: any NVRTC will do
        return None


LOADED_LIBRARY = [None]  # the libnvrtc path load_nvrtc preloaded (None: the system's, found by CuPy)


@functools.cache
def load_nvrtc():
    """The NVRTC API: libnvrtc from the pip wheel matching CuPy's CUDA major version when present
    (``nvidia-cuda-nvrtc-cu12`` for CUDA 12, ``nvidia-cuda-nvrtc`` 13.x for 13), bound with ctypes
    (:class:`~tfcore.backend.nvrtc_ctypes.NvrtcLibrary`: no CuPy needed to compile); else CuPy's binding
    of the system's NVRTC. The wheel's library is loaded process-wide, so CuPy finds the same one."""
    from .nvrtc_ctypes import NvrtcLibrary

    for lib in wheel_library_candidates(_cupy_cuda_major()):
        try:
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
            binding = NvrtcLibrary(lib)
        except (OSError, AttributeError):
            continue
        LOADED_LIBRARY[0] = lib
        return binding
    from cupy_backends.cuda.libs import nvrtc

    return nvrtc


def nvrtc_version():
    return tuple(load_nvrtc().getVersion())


def supported_archs():
    """The virtual architectures this NVRTC compiles for, e.g. ``(75, 80, ..., 120)``.

    CUDA 13 dropped compute_70 and older; callers pick their targets from this list.
    """
    return tuple(int(a) for a in load_nvrtc().getSupportedArchs())


@functools.cache
def ptxas_path():
    """Path of a ``ptxas`` binary (pip ``nvidia-cuda-nvcc-cu12``, else PATH/CUDA_PATH), or None."""
    for d in _nvidia_dirs():
        p = os.path.join(d, "cuda_nvcc", "bin", "ptxas")
        if os.access(p, os.X_OK):
            return p
    p = shutil.which("ptxas")
    if p:
        return p
    cuda = os.environ.get("CUDA_PATH") or os.environ.get("CUDA_HOME")
    if cuda and os.access(os.path.join(cuda, "bin", "ptxas"), os.X_OK):
        return os.path.join(cuda, "bin", "ptxas")
    return None


def compile_ptx(source, arch, filename="kernel.cu", options=("-std=c++17",)):
    """Compile CUDA C ``source`` for virtual arch ``compute_<arch>``; returns the PTX text.

    ``arch`` is an int like 80 or a string like ``"80"``. Raises :class:`NVRTCError` with the log.
    """
    nvrtc = load_nvrtc()
    prog = nvrtc.createProgram(source, filename, [], [])
    try:
        opts = [f"--gpu-architecture=compute_{arch}", *options]
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as e:
            raise NVRTCError(f"NVRTC failed on {filename} for compute_{arch}: {e}\n"
                             f"{nvrtc.getProgramLog(prog)}") from None
        ptx = nvrtc.getPTX(prog)
    finally:
        nvrtc.destroyProgram(prog)
    if isinstance(ptx, bytes):
        ptx = ptx.decode()
    return ptx.rstrip("\x00")


class Compiled(typing.NamedTuple):
    """One NVRTC compile for a real architecture: the cubin (ELF), its PTX and ptxas's ``-v`` log."""

    cubin: bytes
    ptx: str
    log: str


def compile_cubin(source, arch, filename="kernel.cu", options=("-std=c++17",)):
    """Compile CUDA C ``source`` to a cubin for ``sm_<arch>`` (``--gpu-architecture=sm_<arch>``, as CuPy's
    compiler does); returns :class:`Compiled` (cubin, PTX of the same compile, ptxas ``-v`` log).

    Raises :class:`NVRTCError` with the log."""
    nvrtc = load_nvrtc()
    try:
        return _compile_cubin(nvrtc, source, arch, filename, ["-Xptxas=-v", *options])
    except NVRTCError as e:
        if "INVALID_OPTION" not in str(e):
            raise
    return _compile_cubin(nvrtc, source, arch, filename, list(options))  # an NVRTC without -Xptxas: no report


def _compile_cubin(nvrtc, source, arch, filename, options):
    prog = nvrtc.createProgram(source, filename, [], [])
    try:
        opts = [f"--gpu-architecture=sm_{arch}", *options]
        try:
            nvrtc.compileProgram(prog, opts)
        except nvrtc.NVRTCError as e:
            raise NVRTCError(f"NVRTC failed on {filename} for sm_{arch}: {e}\n"
                             f"{nvrtc.getProgramLog(prog)}") from None
        cubin = nvrtc.getCUBIN(prog)
        ptx = nvrtc.getPTX(prog)
        log = nvrtc.getProgramLog(prog)
    finally:
        nvrtc.destroyProgram(prog)
    ptx = ptx.decode() if isinstance(ptx, bytes) else ptx
    log = log.decode() if isinstance(log, bytes) else log
    return Compiled(bytes(cubin), ptx.rstrip("\x00"), log or "")


_ENTRY_RE = re.compile(r"\.entry\s+(\w+)\s*\(([^)]*)\)", re.S)
_PARAM_RE = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)(?:\s+\.ptr(?:\s+\.\w+)*(?:\s+\.align\s+\d+)?)?"
                       r"\s+(\w+)(?:\[(\d+)\])?")


def ptx_entries(ptx):
    """``{kernel: [param type, ...]}`` from PTX, types like ``'u64'``, ``'f32'`` or ``'b8[2]'`` (structs)."""
    out = {}
    for m in _ENTRY_RE.finditer(ptx):
        params = []
        for p in _PARAM_RE.finditer(m.group(2)):
            _, ty, _, count = p.groups()
            params.append(f"{ty}[{count}]" if count else ty)
        out[m.group(1)] = params
    return out


_PTXAS_FUNC_RE = re.compile(r"Compiling entry function '(\w+)' for '(\w+)'")
_PTXAS_SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_REGS_RE = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?"
                            r"(?:, \d+ bytes cumulative stack size)?(?:, (\d+) bytes smem)?")


def ptxas_report(ptx, arch):
    """Run ``ptxas -v`` on PTX for ``sm_<arch>``; returns ``{kernel: {registers, smem, stack, spill_stores,
    spill_loads}}``; spills include those of the non-inlined device functions ptxas lists under the entry.
    Raises RuntimeError when ptxas fails or is missing."""
    exe = ptxas_path()
    if exe is None:
        raise RuntimeError("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        proc = subprocess.run([exe, "-v", f"-arch=sm_{arch}", src, "-o", os.path.join(d, "k.cubin")],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"ptxas failed for sm_{arch}:\n{proc.stderr[-4000:]}")
    return parse_ptxas_log(proc.stderr)


def parse_ptxas_log(text):
    """``{kernel: {registers, smem, stack, spill_stores, spill_loads}}`` from a ptxas ``-v`` log (``ptxas``'s
    stderr, or NVRTC's program log after ``-Xptxas=-v``)."""
    report, current = {}, None
    for line in str(text).splitlines():
        m = _PTXAS_FUNC_RE.search(line)
        if m:
            current = report.setdefault(m.group(1), {"registers": 0, "smem": 0, "stack": 0,
                                                     "spill_stores": 0, "spill_loads": 0})
            continue
        if current is None:
            continue
        m = _PTXAS_SPILL_RE.search(line)
        if m:  # the entry's own line, then one per device function it calls (non-inlined): count them all
            stack, stores, loads = map(int, m.groups())
            current["stack"] = max(current["stack"], stack)
            current["spill_stores"] += stores
            current["spill_loads"] += loads
        m = _PTXAS_REGS_RE.search(line)
        if m:
            current["registers"] = int(m.group(1))
            current["smem"] = int(m.group(2) or 0)
    return report
