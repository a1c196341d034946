"""BLAS worker threads only for matrix products large enough to pay for them.

NumPy's OpenBLAS keeps its worker threads busy-waiting after every multi-threaded call (about 2**28
cycles, a tenth of a second, by default) before they sleep. A training step mixes small BLAS products
(a Dense layer's, a bias gradient's ``ones @ x``) with tfcore's native threaded kernels (convolutions,
pooling): the spinning workers then take the cores those kernels split their work over, and every
kernel in the step runs 2-5x slower than alone (a 3x3 32,64-channel CNN step on 2 cores: 34 ms with BLAS
threads, 18 ms without). TF runs every op on one intra-op pool, so it has no such fight.

``matmul(x, y)`` is ``x @ y`` that runs a product below ``SERIAL_BELOW_FLOPS`` on the calling thread
(OpenBLAS set to one thread for that call, then restored), so its workers are not woken and do not
spin; a large product keeps the threads (``tf.config.threading``'s intra-op count, applied through
threadpoolctl). Products OpenBLAS runs on one thread anyway (m*n*k below 65536*4) skip the switch.
The user's own NumPy code sees BLAS's thread count unchanged.
"""

import threading

import numpy as np

# 2*m*n*k of the smallest product that keeps the BLAS threads: ~0.3 ms of one core's work, long enough
# that a second core pays for its start and for the spinning it leaves behind.
SERIAL_BELOW_FLOPS = 32e6
# OpenBLAS's lowest cut-over: below this m*n*k it never wakes its threads (matrix-vector products:
# 2304 * GEMM_MULTITHREAD_THRESHOLD 4, interface/gemv.c; matrix products start higher).
_OPENBLAS_SERIAL_MNK = 4 * 2304

_lock = threading.Lock()
_depth = 0
_saved = 1
_functions = None  # (get_num_threads, set_num_threads) of NumPy's OpenBLAS, () when there is none


def _find_functions():
    """OpenBLAS's thread-count functions, found through threadpoolctl (a base dependency)."""
    global _functions
    found = ()
    try:
        from threadpoolctl import ThreadpoolController
        libs = ThreadpoolController().select(internal_api="openblas").lib_controllers
    except Exception:  # noqa: BLE001 - no threadpoolctl, or it cannot inspect this process: no switching
        libs = []
    for lib in libs[:1]:
        for prefix in ("scipy_", ""):
            for suffix in ("64_", ""):
                get = getattr(lib.dynlib, f"{prefix}openblas_get_num_threads{suffix}", None)
                put = getattr(lib.dynlib, f"{prefix}openblas_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    found = (get, put)
                    break
            if found:
                break
    _functions = found
    return found


def _enter_serial():
    global _depth, _saved
    functions = _functions if _functions is not None else _find_functions()
    if not functions:
        return
    with _lock:
        if _depth == 0:
            _saved = functions[0]()
            if _saved != 1:
                functions[1](1)
        _depth += 1


def _leave_serial():
    global _depth
    functions = _functions
    if not functions:
        return
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved != 1:
            functions[1](_saved)


def wants_serial(m, n, k):
    """Whether a product of ``m x k`` by ``k x n`` (summed over any batch) should run on the calling thread
    with OpenBLAS's workers asleep."""
    return _OPENBLAS_SERIAL_MNK <= m * n * k < _SERIAL_BELOW_MNK


_SERIAL_BELOW_MNK = SERIAL_BELOW_FLOPS / 2


def matmul(x, y):
    """``x @ y``; for NumPy arrays on one BLAS thread when the product is small (module doc). Other arrays
    (CuPy's) multiply as they do. On the eager op path: ``x.size * n`` is the product's m*n*k (x's batches
    included; a batch only y has is not counted, so such a product keeps the threads)."""
    if type(x) is np.ndarray and y.ndim:
        mnk = x.size * (y.shape[-1] if y.ndim > 1 else 1)
        if _OPENBLAS_SERIAL_MNK <= mnk < _SERIAL_BELOW_MNK:
            _enter_serial()
            try:
                return x @ y
            finally:
                _leave_serial()
    return x @ y
