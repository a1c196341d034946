"""``tf.keras.mixed_precision``: dtype policies, autocast variables and loss scaling.

``set_global_policy('mixed_float16')`` makes new layers compute in float16 while keeping float32
variables (read as float16 inside ``call``); ``LossScaleOptimizer`` scales the loss so small float16
gradients do not underflow, skipping steps whose gradients overflow. ``Model.compile`` wraps the
optimizer in one automatically when the model computes in float16.
"""

from .autocast_variable import AutoCastVariable
from ..optimizers.loss_scale_optimizer import LossScaleOptimizer
from .policy import Policy, global_policy, set_global_policy

DTypePolicy = Policy  # Keras 3's name of the class; tf.keras.mixed_precision.Policy is its alias

__all__ = ["DTypePolicy", "Policy", "global_policy", "set_global_policy", "LossScaleOptimizer", "AutoCastVariable"]
