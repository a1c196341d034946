"""``tf.config.threading``: intra-/inter-op thread pool sizes (fixed once devices are initialised).

tfcore runs ops eagerly on the calling thread, so ``inter_op`` is recorded for
API compatibility; ``intra_op`` limits the BLAS/OpenMP pools through
``threadpoolctl`` when it is installed, and the threads the native CPU convolution kernels split one op
over (``backend/native_cpu``; applied when set, before initialisation).
"""

from ..backend import native_cpu
from ..framework import context as _ctx

__all__ = ["get_intra_op_parallelism_threads", "set_intra_op_parallelism_threads",
           "get_inter_op_parallelism_threads", "set_inter_op_parallelism_threads"]

_context = _ctx.context
_limiter = None


def get_intra_op_parallelism_threads():
    """Threads used inside one op (0: the system's choice)."""
    return _context.intra_op_parallelism_threads


def set_intra_op_parallelism_threads(num_threads):
    """Set the threads used inside one op; RuntimeError once devices are initialised."""
    global _limiter
    num_threads = int(num_threads)
    if _context.intra_op_parallelism_threads == num_threads:
        return
    if _context.initialized:
        raise RuntimeError("Intra op parallelism cannot be modified after initialization.")
    _context.intra_op_parallelism_threads = num_threads
    native_cpu.set_num_threads(num_threads)  # the native convolution kernels' own threads
    try:
        import threadpoolctl
    except ImportError:
        return
    if _limiter is not None:
        _limiter.restore_original_limits()
        _limiter = None
    if num_threads > 0:
        _limiter = threadpoolctl.threadpool_limits(limits=num_threads)


def get_inter_op_parallelism_threads():
    """Threads running independent ops (0: the system's choice)."""
    return _context.inter_op_parallelism_threads


def set_inter_op_parallelism_threads(num_threads):
    """Set the inter-op thread count; RuntimeError once devices are initialised."""
    num_threads = int(num_threads)
    if _context.inter_op_parallelism_threads == num_threads:
        return
    if _context.initialized:
        raise RuntimeError("Inter op parallelism cannot be modified after initialization.")
    _context.inter_op_parallelism_threads = num_threads
