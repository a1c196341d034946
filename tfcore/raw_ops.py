"""``tf.raw_ops``: ops called by their TF op names with keyword arguments, as ``tf.raw_ops`` spells them.

Only the ops listed here are exposed (each one a registered op of ``tfcore/ops/``); as in TF, every argument
is keyword-only and a multi-output op returns a named tuple of its outputs.
"""

from .ops import batch_norm_ops as _batch_norm_ops

__all__ = ["FusedBatchNormV3", "FusedBatchNormGradV3"]


def FusedBatchNormV3(*, x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0,  # noqa: N802
                     data_format="NHWC", is_training=True, name=None):
    """``tf.raw_ops.FusedBatchNormV3``: ``(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2,
    reserve_space_3)`` (``tfcore/ops/batch_norm_ops.py`` says what each holds)."""
    return _batch_norm_ops.fused_batch_norm_v3(x, scale, offset, mean, variance, epsilon=epsilon,
                                               exponential_avg_factor=exponential_avg_factor,
                                               data_format=data_format, is_training=is_training)


def FusedBatchNormGradV3(*, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,  # noqa: N802
                         epsilon=0.0001, data_format="NHWC", is_training=True, name=None):
    """``tf.raw_ops.FusedBatchNormGradV3``: ``(x_backprop, scale_backprop, offset_backprop, reserve_space_4,
    reserve_space_5)``."""
    return _batch_norm_ops.fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                                                    reserve_space_3, epsilon=epsilon, data_format=data_format,
                                                    is_training=is_training)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"module 'tf.raw_ops' has no attribute '{name}': tfcore's tf.raw_ops has only "
                         f"{', '.join(__all__)} so far (call the public API, e.g. tf.nn.*, for the others)")
