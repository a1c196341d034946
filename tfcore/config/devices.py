"""``tf.config`` device functions: physical devices, visibility, logical devices, placement.

Configuration lives in the runtime context (``tfcore.framework.context``) and can
change only until the devices are initialised (the first tensor placed, or
``list_logical_devices``); afterwards a *change* raises RuntimeError, exactly as
TF, while setting a value to what it already is stays allowed.
"""

from ..framework import context as _ctx
from ..framework.context import LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice

__all__ = [
    "PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration", "list_physical_devices",
    "get_visible_devices", "set_visible_devices", "list_logical_devices", "get_logical_device_configuration",
    "set_logical_device_configuration", "get_soft_device_placement", "set_soft_device_placement",
]

_context = _ctx.context


def _filter(devices, device_type):
    if device_type is None:
        return list(devices)
    device_type = device_type.upper()
    return [d for d in devices if d.device_type == device_type]


def check_physical(device):
    """Raise ValueError unless ``device`` is one of ``list_physical_devices()``."""
    if device not in _context.physical_devices():
        raise ValueError(f"Unrecognized device: {device!r}")


def list_physical_devices(device_type=None):
    """Physical devices (``PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')``).

    Does not initialise the runtime, so the result can be used to configure it.
    """
    return _filter(_context.physical_devices(), device_type)


def get_visible_devices(device_type=None):
    """The physical devices the runtime will use (all of them unless restricted)."""
    return _filter(_context.visible_physical_devices(), device_type)


def set_visible_devices(devices, device_type=None):
    """Restrict the runtime to ``devices`` (of ``device_type`` when given; others stay as they are).

    Raises ValueError for a device not in ``list_physical_devices()`` (or not of
    ``device_type``), or when the CPU would be hidden; RuntimeError when the
    visible set changes after initialisation.
    """
    if not isinstance(devices, list | tuple):
        devices = [devices]
    devices = list(devices)
    kind = device_type.upper() if device_type is not None else None
    for d in devices:
        check_physical(d)
        if kind is not None and d.device_type != kind:
            raise ValueError(f"Unrecognized device: {d!r} (not of type {device_type})")
    keep = [d for d in _context.visible_physical_devices() if kind is not None and d.device_type != kind]
    names = {d.name for d in keep} | {d.name for d in devices}
    if not any(d.device_type == "CPU" for d in _context.physical_devices() if d.name in names):
        raise ValueError("The CPU must stay visible: tfcore needs CPU:0 for host computation")
    current = {d.name for d in _context.visible_physical_devices()}
    if names == current:
        return
    _context.check_mutable("Visible devices")
    _context.visible = names


def list_logical_devices(device_type=None):
    """Logical devices (``LogicalDevice(name='/device:GPU:0', device_type='GPU')``); initialises the runtime."""
    return [LogicalDevice(d.short_name, d.device_type) for d in _context.logical_devices(device_type)]


def get_logical_device_configuration(device):
    """The list of LogicalDeviceConfiguration set for physical ``device``, or None."""
    check_physical(device)
    configs = _context.logical_configs.get(device.name)
    return None if configs is None else list(configs)


def set_logical_device_configuration(device, logical_devices):
    """Split physical ``device`` into one logical device per LogicalDeviceConfiguration.

    GPUs: every entry needs ``memory_limit`` (MB); each logical GPU gets its own
    allocator with that limit. CPU: entries must not set a memory limit; N
    entries give CPU:0..N-1. Memory growth cannot be enabled on a GPU that has
    a logical configuration (see ``set_memory_growth``); a growth setting made
    before is ignored for that GPU, as in TF.
    """
    check_physical(device)
    if isinstance(logical_devices, LogicalDeviceConfiguration) or not isinstance(logical_devices, list | tuple):
        raise ValueError(f"logical_devices must be a list of LogicalDeviceConfiguration, got {logical_devices!r}")
    configs = list(logical_devices)
    for cfg in configs:
        if not isinstance(cfg, LogicalDeviceConfiguration):
            raise ValueError(f"Expected LogicalDeviceConfiguration entries, got {cfg!r}")
    if device.device_type == "CPU":
        for cfg in configs:
            if cfg.memory_limit is not None:
                raise ValueError("Setting memory limit on CPU virtual devices is currently not supported")
            if cfg.experimental_priority is not None:
                raise ValueError("Setting experimental_priority on CPU virtual devices is currently not supported")
    elif device.device_type == "GPU":
        _check_gpu_memory_limits(device, configs)
    else:
        raise ValueError(f"Virtual devices are not supported for {device.device_type}")
    if _context.logical_configs.get(device.name) == configs:
        return
    _context.check_mutable("Virtual devices")
    _context.logical_configs[device.name] = configs


def _check_gpu_memory_limits(device, configs):
    """Every entry's ``memory_limit`` is a positive number of MB, and together they fit in the GPU.

    Checked here, where the user passes them, rather than at the first tensor: TypeError for a
    non-number (``"abc"``), ValueError for zero, negative or more than the device's memory.
    """
    import numbers

    for cfg in configs:
        limit = cfg.memory_limit
        if limit is None:
            raise ValueError("Setting memory limit is required for GPU virtual devices")
        if isinstance(limit, bool) or not isinstance(limit, numbers.Real):
            raise TypeError(f"memory_limit must be a number of megabytes, got {limit!r} "
                            f"({type(limit).__name__}) for {device.name}")
        if not limit > 0:
            raise ValueError(f"memory_limit must be a positive number of megabytes, got {limit} for {device.name}")
    info = _context.gpu_info(device)
    total_mb = getattr(info, "total_memory", 0) / (1 << 20)
    requested = sum(cfg.memory_limit for cfg in configs)
    if total_mb and requested > total_mb:
        which = f"memory_limit={configs[0].memory_limit}" if len(configs) == 1 else \
            f"memory_limit values {[cfg.memory_limit for cfg in configs]} (sum {requested})"
        raise ValueError(f"{which} MB exceeds the memory of {device.name} "
                         f"({info.device_name}, {total_mb:.0f} MB)")


def get_soft_device_placement():
    """Whether ops fall back to CPU:0 when their device or kernel is missing (default True)."""
    return _context.soft_device_placement


def set_soft_device_placement(enabled):
    """Enable or disable soft placement (may change at any time)."""
    _context.set_soft_device_placement(enabled)
