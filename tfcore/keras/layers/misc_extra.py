"""Regularisation and reshaping layers: SpatialDropout1D/2D/3D, GaussianNoise, GaussianDropout, AlphaDropout,
ActivityRegularization, Identity, Permute, RepeatVector, Dot (and ``dot``), PReLU, UnitNormalization.

The noise layers act only when ``training`` is true (as Keras) and draw from ``tf.random`` with the
layer's ``seed``.
"""

import numpy as np

from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, nn_ops, random_ops, reduce_ops
from .. import constraints, initializers, regularizers
from ..engine.base_layer import InputSpec, Layer
from ._weights import serialize_or_none


class _Noise(Layer):
    def __init__(self, rate=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if rate is not None and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate}")
        self.seed = seed
        self.supports_masking = True

    def _output_dtype(self, input_dtype):
        return input_dtype

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


class SpatialDropout1D(_Noise):
    """Drop whole feature maps (channels) of ``(batch, steps, channels)`` inputs with probability ``rate``."""

    def __init__(self, rate, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed, name=name, dtype=dtype, **kwargs)
        self.rate = rate
        self.input_spec = InputSpec(ndim=3)

    def _noise_shape(self, inputs):
        s = inputs.shape.as_list()
        return [s[0], 1, s[2]]

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        return nn_ops.dropout(inputs, rate=self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


class SpatialDropout2D(SpatialDropout1D):
    """Drop whole channels of 4-D inputs (``data_format`` picks the channel axis)."""

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, seed, name=name, dtype=dtype, **kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=4)

    def _noise_shape(self, inputs):
        s = inputs.shape.as_list()
        if self.data_format == "channels_first":
            return [s[0], s[1]] + [1] * (len(s) - 2)
        return [s[0]] + [1] * (len(s) - 2) + [s[-1]]

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class SpatialDropout3D(SpatialDropout2D):
    """Drop whole channels of 5-D inputs."""

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None, **kwargs):
        super().__init__(rate, data_format, seed, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=5)


class GaussianNoise(_Noise):
    """Add zero-mean Gaussian noise of standard deviation ``stddev`` (training only)."""

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(None, seed, **kwargs)
        if not 0 <= stddev <= 1:
            raise ValueError(f"Invalid value received for argument `stddev`. Expected a float value between 0 and "
                             f"1. Received: stddev={stddev}")
        self.stddev = stddev

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        noise = random_ops.normal(inputs.shape.as_list(), stddev=self.stddev, dtype=inputs.dtype, seed=self.seed)
        return math_ops.add(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"stddev": self.stddev, "seed": self.seed})
        return config


class GaussianDropout(_Noise):
    """Multiply by Gaussian noise of mean 1 and variance ``rate / (1 - rate)`` (training only)."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        self.rate = rate

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        stddev = float(np.sqrt(self.rate / (1.0 - self.rate)))
        noise = random_ops.normal(inputs.shape.as_list(), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed)
        return math_ops.multiply(inputs, noise)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "seed": self.seed})
        return config


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(_Noise):
    """Dropout that keeps the mean and variance of SELU activations: dropped units are set to
    ``-scale * alpha`` and the result is affinely corrected (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(rate, seed, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        shape = inputs.shape.as_list() if self.noise_shape is None else \
            [inputs.shape[i] if d is None else d for i, d in enumerate(self.noise_shape)]
        keep = math_ops.cast(math_ops.greater_equal(random_ops.uniform(shape, seed=self.seed), self.rate),
                             inputs.dtype)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        x = math_ops.add(math_ops.multiply(inputs, keep), math_ops.multiply(math_ops.subtract(1.0, keep), alpha_p))
        return math_ops.add(math_ops.multiply(x, a), b)

    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed})
        return config


class ActivityRegularization(Layer):
    """Identity whose activity adds ``l1 * sum(|x|) + l2 * sum(x^2)`` to the model's losses."""

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1 = l1
        self.l2 = l2
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        config.update({"l1": self.l1, "l2": self.l2})
        return config


class Identity(Layer):
    """Returns its input unchanged (a placeholder in architectures)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def _output_dtype(self, input_dtype):
        return input_dtype


class Permute(Layer):
    """Permute the non-batch dimensions: ``dims`` is a 1-indexed permutation, e.g. ``(2, 1)``."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return array_ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + [dims[d] for d in self.dims])

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config


class RepeatVector(Layer):
    """``(batch, features)`` -> ``(batch, n, features)``."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return array_ops.repeat(array_ops.expand_dims(inputs, 1), self.n, axis=1)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], self.n, dims[1]])

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config


def _l2_normalize(x, axis):
    return nn_ops.l2_normalize(x, axis=axis, epsilon=1e-12)


def _batch_dot(x, y, axes):
    """Keras' ``batch_dot`` for the common cases: contract ``x``'s ``axes[0]`` with ``y``'s ``axes[1]``
    per sample (1-indexed axes after the batch)."""
    ax, ay = axes
    rx, ry = x.ndim, y.ndim
    if rx == 2 and ry == 2:
        return array_ops.expand_dims(reduce_ops.reduce_sum(math_ops.multiply(x, y), axis=1), 1)
    x_perm = [0] + [i for i in range(1, rx) if i != ax] + [ax]
    y_perm = [0, ay] + [i for i in range(1, ry) if i != ay]
    xt = array_ops.transpose(x, x_perm)
    yt = array_ops.transpose(y, y_perm)
    xs, ys = xt.shape.as_list(), yt.shape.as_list()
    x2 = array_ops.reshape(xt, [xs[0], -1, xs[-1]])
    y2 = array_ops.reshape(yt, [ys[0], ys[1], -1])
    out = math_ops.matmul(x2, y2)
    return array_ops.reshape(out, [xs[0]] + xs[1:-1] + ys[2:])


class Dot(Layer):
    """Per-sample dot product of two tensors along ``axes`` (an int or a pair); ``normalize=True`` computes
    cosine similarities (inputs L2-normalised along the axes first)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int) and (not isinstance(axes, list | tuple) or len(axes) != 2):
            raise ValueError(f"Invalid format for argument `axes`: expected an int or a list/tuple of 2 ints. "
                             f"Received: axes={axes}")
        self.axes = axes
        self.normalize = normalize
        self.supports_masking = True

    def _axes(self, x, y):
        axes = self.axes if isinstance(self.axes, list | tuple) else (self.axes, self.axes)
        return [a % t.ndim if a < 0 else a for a, t in zip(axes, (x, y))]

    def call(self, inputs):
        if not isinstance(inputs, list | tuple) or len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x, y = inputs
        ax, ay = self._axes(x, y)
        if x.shape[ax] != y.shape[ay]:
            raise ValueError(f"Incompatible input shapes: axis values {x.shape[ax]} (at axis {ax}) != {y.shape[ay]} "
                             f"(at axis {ay}). Full input shapes: {x.shape.as_list()}, {y.shape.as_list()}")
        if self.normalize:
            x, y = _l2_normalize(x, ax), _l2_normalize(y, ay)
        return _batch_dot(x, y, (ax, ay))

    def compute_output_shape(self, input_shape):
        sx, sy = (TensorShape(s).as_list() for s in input_shape)
        axes = self.axes if isinstance(self.axes, list | tuple) else (self.axes, self.axes)
        ax, ay = (a % len(s) for a, s in zip(axes, (sx, sy)))
        out = [sx[0]] + [d for i, d in enumerate(sx) if i not in (0, ax)] + [d for i, d in enumerate(sy)
                                                                              if i not in (0, ay)]
        return TensorShape(out if len(out) > 1 else out + [1])

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """Functional interface of :class:`Dot`."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)


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


class UnitNormalization(Layer):
    """Scale each sample to unit L2 norm along ``axis``."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, list | tuple) else axis
        self.supports_masking = True

    def call(self, inputs):
        x = inputs if inputs.dtype.is_floating else math_ops.cast(inputs, self.compute_dtype)
        return nn_ops.l2_normalize(x, axis=self.axis, epsilon=1e-12)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
