"""``tf.config.experimental``: memory growth and statistics, device details, TF's older aliases."""

import contextlib

from ..framework import context as _ctx
from .devices import (
    get_logical_device_configuration,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_visible_devices,
)
from .memory import (
    get_device_details,
    get_memory_growth,
    get_memory_info,
    get_memory_usage,
    reset_memory_stats,
    set_memory_growth,
)

VirtualDeviceConfiguration = _ctx.LogicalDeviceConfiguration
get_virtual_device_configuration = get_logical_device_configuration
set_virtual_device_configuration = set_logical_device_configuration
_context = _ctx.context


def enable_tensor_float_32_execution(enabled):
    """Allow TF32 math for float32 matmul/conv on GPUs that support it (default on, as TF)."""
    _context.tensor_float_32_execution = bool(enabled)


def tensor_float_32_execution_enabled():
    """Whether TF32 math is allowed for float32 matmul/conv on GPUs."""
    return _context.tensor_float_32_execution


_CUDA_GRAPHS_ENV = "TFCORE_CUDA_GRAPHS"
_cuda_graphs = None  # None: follow TFCORE_CUDA_GRAPHS; True/False: enable_cuda_graphs() was called


def enable_cuda_graphs(enabled=True):
    """Replay ``tf.function`` calls on real GPUs as CUDA graphs (tfcore's own switch; default off).

    CUDA graphs stay opt-in until figures from a real GPU show them correct and faster (README, "How
    it runs"). ``TFCORE_CUDA_GRAPHS=1`` turns them on for a process; this call overrides that
    (``enable_cuda_graphs(False)`` turns them off), except that ``TFCORE_CUDA_GRAPHS=0`` always wins.
    Read on every call of a function, so it may be changed at any time.
    """
    global _cuda_graphs
    if not isinstance(enabled, (bool, int)) or isinstance(enabled, float):
        raise TypeError(f"enable_cuda_graphs: 'enabled' must be a bool, got {enabled!r}")
    _cuda_graphs = bool(enabled)


@contextlib.contextmanager
def cuda_graphs_scope(enabled):
    """Within the body, CUDA graphs are on or off as :func:`enable_cuda_graphs` would set them; the
    previous setting (including "follow ``TFCORE_CUDA_GRAPHS``") comes back after it. For self-checks
    that must run with graphs on whatever the user chose."""
    global _cuda_graphs
    saved = _cuda_graphs
    enable_cuda_graphs(enabled)
    try:
        yield
    finally:
        _cuda_graphs = saved


def cuda_graphs_enabled():
    """Whether ``tf.function`` calls on real GPUs replay CUDA graphs (see :func:`enable_cuda_graphs`)."""
    import os

    env = os.environ.get(_CUDA_GRAPHS_ENV, "").strip().lower()
    if env in ("0", "false", "off", "no"):
        return False
    if _cuda_graphs is not None:
        return _cuda_graphs
    return env in ("1", "true", "on", "yes")


def enable_op_determinism():
    """Ask kernels for deterministic results (read by kernels that have a nondeterministic fast path)."""
    _context.op_determinism = True


def disable_op_determinism():
    _context.op_determinism = False


__all__ = [
    "VirtualDeviceConfiguration", "get_virtual_device_configuration", "set_virtual_device_configuration",
    "get_visible_devices", "set_visible_devices", "list_logical_devices", "list_physical_devices",
    "get_device_details", "get_memory_growth", "set_memory_growth", "get_memory_info", "get_memory_usage",
    "reset_memory_stats", "enable_tensor_float_32_execution", "tensor_float_32_execution_enabled",
    "enable_op_determinism", "disable_op_determinism", "enable_cuda_graphs", "cuda_graphs_enabled",
]


_DEVICE_POLICIES = (None, "warn", "explicit", "silent", "silent_for_int32")


def set_device_policy(device_policy):
    """``tf.config.experimental.set_device_policy``: what happens when an op's input is on another device.

    ``'silent'`` (the default, also ``None``) copies it; ``'warn'`` copies and warns; ``'explicit'`` raises
    InvalidArgumentError; ``'silent_for_int32'`` copies int32 tensors silently and warns for others.
    """
    if device_policy not in _DEVICE_POLICIES:
        raise ValueError(f"Not a valid device policy: {device_policy!r}; expected one of {list(_DEVICE_POLICIES)}")
    _context.device_policy = device_policy or "silent"


def get_device_policy():
    """``tf.config.experimental.get_device_policy``: ``'silent'``, ``'warn'``, ``'explicit'`` or
    ``'silent_for_int32'``."""
    return _context.device_policy


def set_synchronous_execution(enable):
    """``tf.config.experimental.set_synchronous_execution``: TF's switch between synchronous and asynchronous
    eager dispatch. tfcore dispatches eager ops on the calling thread either way (device work already runs
    on streams), so results and errors are the same; the setting is kept for ``get_synchronous_execution``."""
    if enable is None:
        enable = True
    if not isinstance(enable, bool):
        raise ValueError(f"set_synchronous_execution: enable must be True, False or None, got {enable!r}")
    _context.synchronous_execution = enable


def get_synchronous_execution():
    """``tf.config.experimental.get_synchronous_execution`` (True by default)."""
    return _context.synchronous_execution


__all__ += ["set_device_policy", "get_device_policy", "set_synchronous_execution", "get_synchronous_execution"]
