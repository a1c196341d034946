"""``GroupNormalization`` (Wu & He) and ``RMSNormalization``: per-example normalizations without batch
statistics, as Keras computes them."""

from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, nn_ops, reduce_ops
from .. import constraints, initializers, regularizers
from ..engine.base_layer import InputSpec, Layer
from ._weights import add_role_weight, serialize_or_none, set_weight_args


class GroupNormalization(Layer):
    """Split the channels (``axis``) into ``groups`` and normalise each group of each example by its
    mean and variance; ``gamma``/``beta`` are per channel. ``groups=-1`` is instance normalization."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(groups, int) or (groups <= 0 and groups != -1):
            raise ValueError("Received an invalid value for argument `groups`, expected a positive integer (or "
                             f"`-1` for instance normalization). Received: groups={groups}")
        self.supports_masking = True
        self.groups = groups
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        set_weight_args(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        self.axis = self.axis % len(dims)
        channels = dims[self.axis]
        if channels is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {tuple(dims)}.")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups:
            raise ValueError(f"Number of groups ({self.groups}) cannot be more than the number of channels "
                             f"({channels}).")
        if channels % self.groups:
            raise ValueError(f"Number of groups ({self.groups}) must be a multiple of the number of channels "
                             f"({channels}).")
        self.input_spec = InputSpec(ndim=len(dims), axes={self.axis: channels})
        self.gamma = add_role_weight(self, "gamma", (channels,)) if self.scale else None
        self.beta = add_role_weight(self, "beta", (channels,)) if self.center else None
        self.built = True

    def call(self, inputs):
        shape = inputs.shape.as_list()
        group_shape = list(shape)
        group_shape[self.axis] = shape[self.axis] // self.groups
        group_shape.insert(self.axis, self.groups)
        x = array_ops.reshape(inputs, group_shape)
        axes = list(range(1, len(group_shape)))
        axes.remove(self.axis)
        mean, variance = nn_ops.moments(x, axes, keepdims=True)
        broadcast = [1] * len(group_shape)
        broadcast[self.axis] = self.groups
        broadcast[self.axis + 1] = shape[self.axis] // self.groups
        inv = math_ops.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            inv = inv * array_ops.reshape(self.gamma, broadcast)
        res = -mean * inv
        if self.beta is not None:
            res = res + array_ops.reshape(self.beta, broadcast)
        return array_ops.reshape(x * inv + res, shape)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"groups": self.groups, "axis": self.axis, "epsilon": self.epsilon, "center": self.center,
                       "scale": self.scale})
        for role in ("beta", "gamma"):
            config[f"{role}_initializer"] = initializers.serialize(getattr(self, f"{role}_initializer"))
            config[f"{role}_regularizer"] = serialize_or_none(getattr(self, f"{role}_regularizer"), regularizers)
            config[f"{role}_constraint"] = serialize_or_none(getattr(self, f"{role}_constraint"), constraints)
        return config


class RMSNormalization(Layer):
    """``x * rsqrt(mean(x**2, axis) + epsilon) * scale`` (root-mean-square normalization, Zhang & Sennrich)."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon
        self.supports_masking = True

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        axes = sorted(self.axis) if isinstance(self.axis, list | tuple) else [self.axis]
        for a in axes:
            if not -len(dims) <= a < len(dims):
                raise ValueError(f"Axis {a} is out of bounds for input shape {tuple(dims)}. Received: axis={self.axis}")
        self._axes = [a % len(dims) for a in axes]
        self.scale = self.add_weight("scale", shape=tuple(dims[a] for a in self._axes), initializer="ones")
        self._broadcast = [dims[i] if i in self._axes else 1 for i in range(len(dims))]
        self.built = True

    def call(self, inputs):
        rrms = math_ops.rsqrt(reduce_ops.reduce_mean(math_ops.square(inputs), axis=self._axes, keepdims=True)
                              + self.epsilon)
        return inputs * rrms * array_ops.reshape(self.scale, self._broadcast)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "epsilon": self.epsilon})
        return config
