"""Which CUDA stack this process found: CuPy's CUDA runtime, the driver, NVRTC and NCCL (``tfcore info``).

tfcore runs on CUDA 12 (``pip install "tfcore[cuda12]"``: cupy-cuda12x, nvidia-nccl-cu12,
nvidia-cuda-nvrtc-cu12) or CUDA 13 (``tfcore[cuda13]``: cupy-cuda13x, nvidia-nccl-cu13,
nvidia-cuda-nvrtc 13.x). Every probe here is quiet: a missing piece is reported, never raised.
"""

EXTRAS = {12: "cuda12", 13: "cuda13"}
NCCL_PACKAGES = {12: "nvidia-nccl-cu12", 13: "nvidia-nccl-cu13"}
NVRTC_PACKAGES = {12: "nvidia-cuda-nvrtc-cu12", 13: '"nvidia-cuda-nvrtc>=13,<14"'}


def _version_text(v):
    """CUDA's integer versions (12090) as text ("12.9")."""
    return f"{v // 1000}.{(v % 1000) // 10}"


def cuda_runtime():
    """``{'runtime': '12.9', 'major': 12, 'driver': '13.0' or None}``, or None without CuPy."""
    try:
        import cupy

        runtime = int(cupy.cuda.runtime.runtimeGetVersion())
    except Exception:  # noqa: BLE001 - CuPy missing or broken
        return None
    try:
        driver = int(cupy.cuda.runtime.driverGetVersion())
    except Exception:  # noqa: BLE001
        driver = 0
    return {"runtime": _version_text(runtime), "major": runtime // 1000,
            "driver": _version_text(driver) if driver else None}


def nvrtc():
    """``{'version': '12.9', 'library': path or None}``, or None when NVRTC cannot be loaded."""
    try:
        from . import nvrtc as nvrtc_mod

        major, minor = nvrtc_mod.nvrtc_version()
    except Exception:  # noqa: BLE001 - no CuPy, or no libnvrtc anywhere
        return None
    return {"version": f"{major}.{minor}", "library": nvrtc_mod.LOADED_LIBRARY[0]}


def nccl():
    """NCCL's version as text ("2.28.9"), or None."""
    from . import cuda

    module = cuda.nccl_module()
    if module is None:
        return None
    try:
        v = int(module.get_version())
    except Exception:  # noqa: BLE001
        return "available"
    return f"{v // 10000}.{(v // 100) % 100}.{v % 100}" if v >= 10000 else f"{v // 1000}.{(v // 100) % 10}.{v % 100}"


def _version_tuple(text):
    return tuple(int(x) for x in str(text).split(".")[:2])


def compatibility_warnings(rt, compiler):
    """Warnings about this driver with this CuPy runtime and NVRTC (``rt``: :func:`cuda_runtime`,
    ``compiler``: :func:`nvrtc`); an empty list when they fit or a piece is missing.

    tfcore loads kernels as cubins for the device (``kernel_library.compile_family_cubin``), which any
    driver of the same CUDA major version runs, so an NVRTC newer than the driver within one major
    version is fine (a note: PTX from it would not JIT). A newer major version than the driver's does
    not run at all."""
    if not rt or not rt.get("driver"):
        return []
    driver = _version_tuple(rt["driver"])
    out = []
    runtime = _version_tuple(rt["runtime"])
    if runtime[0] > driver[0]:
        out.append(f"WARNING: CuPy is built for CUDA {rt['runtime']} but the driver supports CUDA {rt['driver']}: "
                   f"update the driver or install tfcore[{EXTRAS.get(driver[0], 'cuda12')}]")
    if compiler and compiler.get("version"):
        nv = _version_tuple(compiler["version"])
        if nv[0] > driver[0]:
            out.append(f"WARNING: NVRTC {compiler['version']} is newer than the driver's CUDA {rt['driver']}: "
                       f"its cubins will not load; install {NVRTC_PACKAGES.get(driver[0], 'an older NVRTC')} "
                       f"or update the driver")
        elif nv > driver:
            out.append(f"note: NVRTC {compiler['version']} is newer than the driver's CUDA {rt['driver']}: fine for "
                       f"tfcore's kernels (loaded as cubins), but PTX from this NVRTC would not JIT on this driver")
    return out


def report_lines():
    """The CUDA part of ``tfcore info``: one line each for the CUDA runtime, NVRTC and NCCL, then any
    driver compatibility warnings (:func:`compatibility_warnings`)."""
    rt = cuda_runtime()
    major = rt["major"] if rt else None
    if rt is None:
        runtime = 'not available (no CuPy: pip install "tfcore[cuda12]" or "tfcore[cuda13]")'
    else:
        runtime = f"{rt['runtime']} (CuPy's), driver {rt['driver'] or 'not found'}"
    compiler = nvrtc()
    if compiler is not None:
        where = compiler["library"] or "the system's libnvrtc"
        nvrtc_line = f"{compiler['version']} ({where})"
    else:
        nvrtc_line = "not available" + (f" (pip install {NVRTC_PACKAGES[major]})" if major in NVRTC_PACKAGES else "")
    collectives = nccl()
    if collectives is not None:
        nccl_line = collectives
    else:
        nccl_line = "not available" + (f" (pip install {NCCL_PACKAGES[major]})" if major in NCCL_PACKAGES else "")
    lines = [f"CUDA runtime: {runtime}", f"NVRTC: {nvrtc_line}", f"NCCL: {nccl_line}"]
    return lines + compatibility_warnings(rt, compiler)
