"""``tfcore selftest`` stack rows: versions of the driver, CUDA runtime, NVRTC and NCCL, whether they
fit together (``backend.cuda_stack.compatibility_warnings``), the device, and how kernels load (a
cubin for the device's architecture, not PTX for the driver to JIT)."""

import os
import platform

from .report import FAIL, PASS, SKIP


def stack_meta():
    """Versions for the JSON document and the title."""
    import numpy

    from .._version import __version__
    from ..backend import cuda, cuda_stack

    return {"tfcore": __version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "cupy": cuda.cupy_version(), "cuda": cuda_stack.cuda_runtime(), "nvrtc": cuda_stack.nvrtc(),
            "nccl": cuda_stack.nccl(), "cuda_graphs_env": os.environ.get("TFCORE_CUDA_GRAPHS")}


def run_stack_checks(rec, meta, backend):
    from ..backend import cuda_stack

    rt, compiler = meta["cuda"], meta["nvrtc"]
    emulated = backend is not None and getattr(backend, "emulated", False)
    rec.run("stack", "versions", lambda: (PASS, f"tfcore {meta['tfcore']}, Python {meta['python']}, "
                                                f"NumPy {meta['numpy']}, CuPy {meta['cupy'] or 'not installed'}"))
    if backend is None:
        rec.run("stack", "GPU:0", lambda: (SKIP, "no GPU (real or emulated): GPU checks skipped"))
    else:
        cc = ".".join(map(str, backend.compute_capability))
        mem = f", {backend.total_memory / 2**30:.0f} GiB" if getattr(backend, "total_memory", None) else ""
        rec.run("stack", "GPU:0", lambda: (PASS, f"{'emulated: ' if emulated else ''}{backend.device_name}, "
                                                 f"compute capability {cc}{mem}"))

    def driver_runtime():
        if rt is None:
            return SKIP, "no CuPy: no CUDA runtime" + (" (the emulator needs none)" if emulated else "")
        if not rt.get("driver"):
            return (SKIP if emulated else FAIL), f"CUDA runtime {rt['runtime']} (CuPy's), no driver found"
        warnings = [w for w in cuda_stack.compatibility_warnings(rt, None) if w.startswith("WARNING")]
        if warnings:
            return FAIL, warnings[0]
        return PASS, f"driver supports CUDA {rt['driver']}, CuPy's runtime is {rt['runtime']}"

    def nvrtc_row():
        if compiler is None:
            return (SKIP if backend is None or emulated else FAIL), "NVRTC not loadable"
        notes = cuda_stack.compatibility_warnings(rt, compiler) if rt and rt.get("driver") else []
        bad = [n for n in notes if n.startswith("WARNING: NVRTC")]
        if bad:
            return FAIL, bad[0]
        note = next((n for n in notes if n.startswith("note: NVRTC")), "")
        where = os.path.basename(compiler["library"]) if compiler.get("library") else "system libnvrtc"
        return PASS, f"NVRTC {compiler['version']} ({where})" + (f"; {note[6:80]}" if note else "")

    def nccl_row():
        if meta["nccl"] is None:
            return SKIP, "NCCL not available (needed only across physical GPUs)"
        return PASS, f"NCCL {meta['nccl']}"

    rec.run("stack", "CUDA driver and runtime", driver_runtime)
    rec.run("stack", "NVRTC (kernel compiler)", nvrtc_row)
    rec.run("stack", "NCCL", nccl_row)
    if backend is not None:
        rec.run("stack", "kernel image loads (bias_add)", _kernel_image_row, backend)


def _kernel_image_row(backend):
    lib = backend.kernels
    lib.module("bias_add")
    kind = getattr(lib, "loaded_kind", {}).get("bias_add")
    if kind is None:
        return PASS, f"{lib.kind} library (g++ and the CUDA shim on the CPU)"
    if kind != "cubin":
        return PASS, f"loaded as {kind} (this NVRTC does not know sm_{lib.arch}: the driver JIT-compiles it)"
    return PASS, f"cubin for sm_{lib.arch} (no driver JIT)"
