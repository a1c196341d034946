"""The eager runtime context: physical and logical devices, device and name scopes.

``tf.config`` (``tfcore/config``) edits the configuration held here; the first
placement of a tensor initialises the logical devices, after which the
configuration is frozen (RuntimeError on change, as in TF).
"""

import collections
import os
import threading

from .. import backend as _backend
from ..backend import collectives as _collectives
from . import device_spec, dtypes
from .errors import InvalidArgumentError

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(
        collections.namedtuple("LogicalDeviceConfiguration",
                               ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """``tf.config.LogicalDeviceConfiguration``: one logical device; memory_limit in MB."""

    def __new__(cls, memory_limit=None, experimental_priority=None, experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority, experimental_device_ordinal)


class Device:
    """A logical device at run time: its TF name, its backend and its physical device.

    ``physical`` is the :class:`PhysicalDevice` it was carved from and
    ``logical_index`` its position among that physical device's logical devices:
    two Devices with the same ``physical`` share one card (copies between them
    can stay in device memory). ``memory_limit`` is the configured limit in MB
    (None: the device default); ``allocator`` the backend's allocator (None on CPU).
    """

    __slots__ = ("name", "short_name", "device_type", "index", "backend", "physical",
                 "memory_limit", "logical_index", "memory_growth", "__weakref__")

    def __init__(self, device_type, index, backend, physical, memory_limit=None, logical_index=0,
                 memory_growth=False):
        self.device_type = device_type
        self.index = index
        self.name = device_spec.canonical_name(device_type, index)
        self.short_name = f"/device:{device_type}:{index}"
        self.backend = backend
        self.physical = physical
        self.memory_limit = memory_limit
        self.logical_index = logical_index
        self.memory_growth = memory_growth

    @property
    def allocator(self):
        return getattr(self.backend, "allocator", None)

    def shares_physical_device(self, other):
        """True when ``other`` is another logical device on the same physical device."""
        return other is not self and other.physical == self.physical

    def __repr__(self):
        return f"<Device {self.name}>"


# How many threads have a device scope set or a non-empty tape stack. While it is 0 (the
# common case: plain eager code) ``execute`` skips both thread-local reads, ~75 ns each.
# ``_ThreadState``'s setters keep it exact for the calling thread; a thread that exits
# inside a scope leaves it high, which only costs the fast path, never correctness.
ACTIVE = [0]
_active_lock = threading.Lock()


class _ThreadState(threading.local):
    """Everything the per-op path reads per thread, in ONE thread-local object.

    ``execute`` reads ``device`` and ``tapes`` on every op; keeping the tape stack
    (``framework.recording``) here too means one thread-local type serves both.
    ``device`` and ``tapes`` are properties so that every assignment (from any
    module) updates :data:`ACTIVE` and ``_hot``, the ``(device, tapes)`` pair; hot
    readers check ``ACTIVE[0]`` first and then read ``_hot`` (one thread-local lookup
    instead of two). ``tapes`` lists are replaced, never mutated in place.
    """

    def __init__(self):
        self._device = None       # innermost tf.device scope's Device (None: no scope)
        self.device_spec = None   # its merged DeviceSpec
        self.name_scope = ""      # "outer/inner" (no trailing slash)
        self._tapes = []          # active gradient tapes, outermost first (framework.recording)
        self._hot = (None, self._tapes)  # (device, tapes): what execute reads, in ONE lookup
        self._counted = False     # this thread is counted in ACTIVE

    def _recount(self):
        self._hot = (self._device, self._tapes)
        active = self._device is not None or bool(self._tapes)
        if active is not self._counted:
            with _active_lock:
                ACTIVE[0] += 1 if active else -1
            self._counted = active

    @property
    def device(self):
        return self._device

    @device.setter
    def device(self, value):
        self._device = value
        self._recount()

    @property
    def tapes(self):
        return self._tapes

    @tapes.setter
    def tapes(self, value):
        self._tapes = value
        self._recount()


class Context:
    """Process-wide device configuration and the logical devices built from it."""

    def __init__(self):
        self._lock = threading.RLock()
        self._physical = None           # list[PhysicalDevice]
        self._gpu_info = {}             # physical name -> PhysicalGPUInfo
        self.visible = None             # set of physical names (None: all)
        self.logical_configs = {}       # physical name -> list[LogicalDeviceConfiguration]
        self.memory_growth = {}         # physical name -> bool
        self.devices = None             # list[Device] once initialised
        self._by_spec = {}
        self.default_device = None
        self.log_device_placement = False
        self.soft_device_placement = True
        self._logged_fallbacks = set()
        self.intra_op_parallelism_threads = 0   # 0: let the system choose (TF's default)
        self.inter_op_parallelism_threads = 0
        self.tensor_float_32_execution = True   # tf.config.experimental.enable_tensor_float_32_execution
        self.op_determinism = False             # tf.config.experimental.enable_op_determinism
        self.device_policy = "silent"           # tf.config.experimental.set_device_policy
        self.synchronous_execution = True       # tf.config.experimental.set_synchronous_execution

    # -- physical devices -------------------------------------------------
    def physical_devices(self):
        if self._physical is None:
            with self._lock:
                if self._physical is None:
                    phys = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
                    for i, info in enumerate(_backend.discover_gpus()):
                        name = f"/physical_device:GPU:{i}"
                        phys.append(PhysicalDevice(name, "GPU"))
                        self._gpu_info[name] = info
                    self._physical = phys
        return self._physical

    def gpu_info(self, physical_device):
        self.physical_devices()
        return self._gpu_info.get(physical_device.name)

    def visible_physical_devices(self):
        return [d for d in self.physical_devices() if self.visible is None or d.name in self.visible]

    # -- configuration (before initialisation only) -----------------------
    @property
    def initialized(self):
        return self.devices is not None

    def check_mutable(self, what):
        if self.devices is not None:
            raise RuntimeError(f"{what} cannot be modified after devices have been initialized.")

    # -- logical devices --------------------------------------------------
    def ensure_initialized(self):
        if self.devices is None:
            with self._lock:
                if self.devices is None:
                    self._initialize()
        return self.devices

    def _initialize(self):
        """Build the logical devices from the configuration (called once, under the lock).

        A physical device with a logical configuration gives one Device per entry
        (GPUs: each with its own allocator and memory limit; memory growth is then
        ignored for that GPU, as TF ignores ``allow_growth`` once virtual devices
        are configured). Device indices count per type across physical devices.
        """
        devices = []
        counters = collections.Counter()
        for phys in self.visible_physical_devices():
            configs = self.logical_configs.get(phys.name)
            growth = False if configs else self._memory_growth_of(phys)
            for logical_index, cfg in enumerate(configs or [None]):
                limit_mb = cfg.memory_limit if cfg is not None else None
                if phys.device_type == "CPU":
                    backend = _backend.make_cpu_backend()
                else:
                    backend = _backend.make_gpu_backend(
                        self._gpu_info[phys.name],
                        memory_limit_bytes=None if limit_mb is None else int(limit_mb * (1 << 20)),
                        memory_growth=growth,
                        logical_index=logical_index)
                idx = counters[phys.device_type]
                counters[phys.device_type] += 1
                devices.append(Device(phys.device_type, idx, backend, phys, limit_mb, logical_index,
                                      growth and phys.device_type == "GPU"))
        self._by_spec = {}
        self.devices = devices
        gpus = [d for d in devices if d.device_type == "GPU"]
        self.default_device = gpus[0] if gpus else self.find("CPU", 0)

    def _memory_growth_of(self, phys):
        """``set_memory_growth``'s setting, unless ``TF_FORCE_GPU_ALLOW_GROWTH`` forces it (as in TF)."""
        forced = forced_allow_growth()
        return forced if forced is not None else bool(self.memory_growth.get(phys.name))

    def find(self, device_type, index):
        for d in self.ensure_initialized():
            if d.device_type == device_type and d.index == index:
                return d
        return None

    def logical_devices(self, device_type=None):
        return [d for d in self.ensure_initialized()
                if device_type is None or d.device_type == device_type.upper()]

    def resolve(self, spec):
        """The Device a (merged) DeviceSpec names; soft placement falls back to CPU:0."""
        key = spec.to_string()
        dev = self._by_spec.get(key)
        if dev is not None:
            return dev
        self.ensure_initialized()
        dtype = spec.device_type
        if dtype is None:
            dev = self.default_device
        else:
            dev = self.find(dtype, spec.device_index or 0)
            if dev is None:
                if not self.soft_device_placement:
                    raise InvalidArgumentError(
                        f"Device {spec.to_string()} not found; available: "
                        f"{[d.name for d in self.devices]}")
                dev = self.find("CPU", 0)
                if key not in self._logged_fallbacks and self.log_device_placement:
                    self._logged_fallbacks.add(key)
                    print(f"Device {key} not found, placing on {dev.name} (soft placement)")
        self._by_spec[key] = dev
        return dev

    def set_soft_device_placement(self, enabled):
        """Turn soft placement on or off; device resolutions cached under the old setting are dropped."""
        self.soft_device_placement = bool(enabled)
        self._by_spec = {}

    def first_fallback(self, key):
        """True the first time a fallback ``key`` (e.g. (op name, device name)) is reported, then False."""
        if key in self._logged_fallbacks:
            return False
        self._logged_fallbacks.add(key)
        return True

    def release(self):
        """Give every logical device's memory back (each backend's ``release``); devices are forgotten."""
        with self._lock:
            devices, self.devices = self.devices or [], None
            self._by_spec = {}
            self.default_device = None
        for d in devices:
            release = getattr(d.backend, "release", None)
            if release is not None:
                release()

    def reset_for_tests(self):
        """Forget devices and configuration (tests only; real programs never do this).

        The old devices' memory goes back to the device first, so a later context can reserve it
        again (without this, each reset on a real GPU left less memory for the next one).
        """
        self.release()
        self.__init__()
        for clear in _reset_callbacks:
            clear()


# Caches of device-bound values (scalar gradient seeds, NCCL communicators, ...) are owned by their
# modules and registered here, so that forgetting the devices forgets them too.
_reset_callbacks = [_collectives.clear]  # the backend's NCCL communicators


def on_reset(clear):
    """Register ``clear()`` to run whenever the context forgets its devices; returns ``clear``."""
    _reset_callbacks.append(clear)
    return clear


def forced_allow_growth():
    """``TF_FORCE_GPU_ALLOW_GROWTH``: True for "true", False for "false", None when unset.

    As in TF, it overrides ``tf.config.experimental.set_memory_growth`` for every GPU without a
    logical-device configuration. Other values are refused with a ValueError naming the variable.
    """
    raw = os.environ.get("TF_FORCE_GPU_ALLOW_GROWTH")
    if raw is None or raw == "":
        return None
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"TF_FORCE_GPU_ALLOW_GROWTH must be 'true' or 'false', got {raw!r}")
    return value == "true"


context = Context()
_state = _ThreadState()


def thread_state():
    return _state


def default_device():
    """Device for ops without a scope and without tensor inputs."""
    d = context.default_device
    if d is None:
        context.ensure_initialized()
        d = context.default_device
    return d


def current_device():
    """The innermost ``tf.device`` scope's Device, or None."""
    return _state._device if ACTIVE[0] else None


def placement_for(dtype, device):
    """Where a tensor or variable of ``dtype`` meant for ``device`` lives.

    Strings live in host memory, as in TF (no GPU kernels hold them): on any other device a
    string value goes to CPU:0. Everything else stays where it was asked for.
    """
    if dtype is dtypes.string and device.backend.kind != "cpu":
        return context.find("CPU", 0)
    return device


class device:  # noqa: N801 - TF's public name (tf.device)
    """``with tf.device('/GPU:1'):`` — place ops created inside on that device.

    Nested scopes merge as in TF (inner fields override outer ones); ``None``
    clears the scope. Names of devices that do not exist fall back to CPU:0
    (TF2's soft placement).
    """

    __slots__ = ("_spec", "_saved")

    def __init__(self, device_name):
        if hasattr(device_name, "name") and not isinstance(device_name, str):
            device_name = device_name.name  # LogicalDevice / Device
        self._spec = None if device_name is None else device_spec.parse(device_name)

    def __enter__(self):
        self._saved = (_state.device, _state.device_spec)
        if self._spec is None:
            _state.device, _state.device_spec = None, None
        else:
            outer = _state.device_spec
            merged = outer.make_merged_spec(self._spec) if outer is not None else self._spec
            _state.device = context.resolve(merged)
            _state.device_spec = merged
        return self

    def __exit__(self, *exc):
        _state.device, _state.device_spec = self._saved
        return False


class name_scope:  # noqa: N801 - TF's public name (tf.name_scope)
    """``with tf.name_scope('block'):`` — prefix names of variables created inside."""

    __slots__ = ("_name", "_saved")

    def __init__(self, name):
        if name is None or not isinstance(name, str):
            raise ValueError(f"name_scope: name must be a string, got {name!r}")
        self._name = name

    @property
    def name(self):
        return self._name

    def __enter__(self):
        self._saved = _state.name_scope
        name = self._name
        if name.endswith("/"):  # absolute scope
            full = name[:-1]
        else:
            full = f"{self._saved}/{name}" if self._saved and name else (name or self._saved)
        _state.name_scope = full
        return full + "/" if full else ""

    def __exit__(self, *exc):
        _state.name_scope = self._saved
        return False


def current_name_scope():
    return _state.name_scope
