"""Kernels generated at run time from CUDA source (tf.function's fused element-wise chains).

``launch_source(backend, source, name, grid, block, args)`` runs kernel ``name`` of ``source`` on
an emulated GPU: the source is written once under the emulator cache (named by its hash) and built
by the emulator like a kernels/*.cu file. Every generated source must also compile with NVRTC
(tests check it with :func:`tfcore.backend.nvrtc.compile_ptx`).
"""

import hashlib
import threading

_lock = threading.Lock()


def source_file(source):
    """The cached ``.cu`` file holding ``source`` (written once)."""
    from .emulator.build import cache_root

    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    path = cache_root() / "generated" / f"fused_{digest}.cu"
    with _lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(source)
            tmp.replace(path)
    return path


def launch_source(backend, source, name, grid, block, args):
    """Run kernel ``name`` of ``source`` on the emulated GPU ``backend`` (arrays: its NumPy buffers)."""
    from .emulator.launcher import load_module

    load_module(source_file(source)).launch(name, grid, block, args, 0)
