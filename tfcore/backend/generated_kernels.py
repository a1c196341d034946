"""Where the emulator keeps kernels generated at run time from CUDA source (tf.function's fused
element-wise chains; ``GPUBackend.compile_elementwise`` compiles them).

On an emulated GPU a generated source is written once under the emulator cache (named by its hash)
and built like a kernels/*.cu file; on a real GPU ``CupyKernelLibrary.compile_source`` compiles it
with NVRTC. Every generated source must compile with NVRTC (tests check it).
"""

import hashlib
import threading

from .emulator.build import cache_root

_lock = threading.Lock()


def source_file(source):
    """The cached ``.cu`` file holding ``source`` (written once)."""

    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    path = cache_root() / "generated" / f"fused_{digest}.cu"
    with _lock:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(source)
            tmp.replace(path)
    return path
