"""Activation layers with Keras's arguments: ReLU, Softmax, LeakyReLU, ELU, PReLU (a learned negative slope) and
ThresholdedReLU."""

from ... import nn
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, nn_ops
from .. import activations, constraints, initializers, regularizers
from ..engine.base_layer import InputSpec, Layer
from ._weights import serialize_or_none


class ShapePreservingLayer(Layer):
    """A layer whose output has its input's shape; ``get_config`` adds the attributes in ``_config_keys``."""

    _config_keys = ()

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({k: getattr(self, k) for k in self._config_keys})
        return config


class ReLU(ShapePreservingLayer):
    """``min(max_value, x)`` for x >= threshold, ``negative_slope * (x - threshold)`` below."""

    _config_keys = ("max_value", "negative_slope", "threshold")

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold
        self._build_at_init()

    def call(self, inputs):
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class Softmax(ShapePreservingLayer):
    """Softmax along ``axis`` (default -1); an optional boolean ``mask`` excludes entries."""

    _config_keys = ("axis",)

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self._build_at_init()

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = inputs + (1.0 - math_ops.cast(mask, inputs.dtype)) * -1e9
        return nn.softmax(inputs, axis=self.axis)


class LeakyReLU(ShapePreservingLayer):
    _config_keys = ("alpha",)

    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self._build_at_init()

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.alpha)


class ELU(ShapePreservingLayer):
    _config_keys = ("alpha",)

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self._build_at_init()

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)


class PReLU(Layer):
    """Parametric ReLU: ``max(x, 0) + alpha * min(x, 0)`` with a learned ``alpha`` per unit (shared along
    ``shared_axes``)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, list | tuple):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        param_shape = list(TensorShape(input_shape).as_list()[1:])
        if self.shared_axes is not None:
            for i in self.shared_axes:
                param_shape[i - 1] = 1
        self.alpha = self.add_weight("alpha", shape=param_shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        axes = {}
        if self.shared_axes:
            for i in range(1, len(param_shape) + 1):
                if i not in self.shared_axes:
                    axes[i] = TensorShape(input_shape)[i]
        self.input_spec = InputSpec(ndim=len(param_shape) + 1, axes=axes)
        self.built = True

    def call(self, inputs):
        pos = nn_ops.relu(inputs)
        neg = math_ops.multiply(math_ops.negative(self.alpha), nn_ops.relu(math_ops.negative(inputs)))
        return math_ops.add(pos, neg)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"alpha_initializer": serialize_or_none(self.alpha_initializer, initializers),
                       "alpha_regularizer": serialize_or_none(self.alpha_regularizer, regularizers),
                       "alpha_constraint": serialize_or_none(self.alpha_constraint, constraints),
                       "shared_axes": self.shared_axes})
        return config


class ThresholdedReLU(Layer):
    """``x`` where ``x > theta``, 0 elsewhere."""

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError(f"Invalid value for argument `theta`: expected a non-negative float. "
                             f"Received: theta={theta}")
        self.theta = float(theta)
        self.supports_masking = True

    def call(self, inputs):
        return math_ops.where(math_ops.greater(inputs, self.theta), inputs, array_ops.zeros_like(inputs))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = super().get_config()
        config["theta"] = self.theta
        return config
