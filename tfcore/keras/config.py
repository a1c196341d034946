"""``tf.keras.config`` (Keras 3): global Keras settings, including unsafe deserialization of lambdas."""

from .backend import epsilon, floatx, image_data_format, set_epsilon, set_floatx, set_image_data_format
from .saving.safe_mode import enable_unsafe_deserialization

__all__ = ["epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx", "set_image_data_format",
           "enable_unsafe_deserialization"]
