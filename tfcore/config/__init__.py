"""``tf.config``: physical and logical devices, visibility, memory growth and limits (docs/architecture.md §5).

Typical use, before the first tensor is created::

    for gpu in tf.config.list_physical_devices('GPU'):
        tf.config.experimental.set_memory_growth(gpu, True)

    gpu = tf.config.list_physical_devices('GPU')[0]
    tf.config.set_logical_device_configuration(
        gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=1024)] * 2)   # GPU:0 and GPU:1
"""

from . import experimental, threading
from .devices import (
    LogicalDevice,
    LogicalDeviceConfiguration,
    PhysicalDevice,
    get_logical_device_configuration,
    get_soft_device_placement,
    get_visible_devices,
    list_logical_devices,
    list_physical_devices,
    set_logical_device_configuration,
    set_soft_device_placement,
    set_visible_devices,
)
from ..framework.tracing import functions_run_eagerly, run_functions_eagerly  # noqa: E402
from ..framework.tracing import functions_run_eagerly as experimental_functions_run_eagerly  # noqa: E402
from ..framework.tracing import run_functions_eagerly as experimental_run_functions_eagerly  # noqa: E402
