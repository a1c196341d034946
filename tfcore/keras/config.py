"""``tf.keras.config`` (Keras 3): global Keras settings, including unsafe deserialization of lambdas."""

from .backend import epsilon, floatx, image_data_format, set_epsilon, set_floatx, set_image_data_format
from .engine.call_errors import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .saving.safe_mode import enable_unsafe_deserialization

__all__ = ["epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx", "set_image_data_format",
           "enable_unsafe_deserialization", "enable_traceback_filtering", "disable_traceback_filtering",
           "is_traceback_filtering_enabled"]
