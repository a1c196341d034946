"""Adaptive pooling (AdaptiveAveragePooling1D/2D/3D, AdaptiveMaxPooling1D/2D/3D), ThresholdedReLU,
the ``Wrapper`` base class and SpectralNormalization.

Adaptive pooling splits each spatial dimension of length ``n`` into ``output_size`` bins
``[floor(i * n / out), ceil((i + 1) * n / out))`` (PyTorch's and Keras' rule) and reduces each bin.
"""



from ...framework.tensor_shape import TensorShape
from ...framework.variables import Variable
from ...ops import array_ops, math_ops, reduce_ops
from .. import initializers
from ..engine.base_layer import InputSpec, Layer
from .convolutional import normalize_tuple


class _AdaptivePooling(Layer):
    rank = 2
    _reduce = None

    def __init__(self, output_size, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.output_size = normalize_tuple(output_size, self.rank, "output_size")
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _axes(self):
        return list(range(2, self.rank + 2)) if self.data_format == "channels_first" else \
            list(range(1, self.rank + 1))

    def call(self, inputs):
        x = inputs
        for axis, out in zip(self._axes(), self.output_size):
            n = x.shape[axis]
            parts = []
            for i in range(out):
                lo, hi = (i * n) // out, -(-((i + 1) * n) // out)
                sl = [slice(None)] * x.ndim
                sl[axis] = slice(lo, hi)
                parts.append(type(self)._reduce(x[tuple(sl)], axis=axis, keepdims=True))
            x = array_ops.concat(parts, axis=axis)
        return x

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, out in zip(self._axes(), self.output_size):
            dims[axis] = out
        return TensorShape(dims)

    def get_config(self):
        config = super().get_config()
        config.update({"output_size": self.output_size, "data_format": self.data_format})
        return config


def _adaptive(name, rank, reduce, doc):
    return type(name, (_AdaptivePooling,), {"rank": rank, "_reduce": staticmethod(reduce), "__doc__": doc,
                                            "__module__": __name__})


AdaptiveAveragePooling1D = _adaptive("AdaptiveAveragePooling1D", 1, reduce_ops.reduce_mean,
                                     "Average over adaptive bins of the time axis.")
AdaptiveAveragePooling2D = _adaptive("AdaptiveAveragePooling2D", 2, reduce_ops.reduce_mean,
                                     "Average over adaptive bins of rows and columns.")
AdaptiveAveragePooling3D = _adaptive("AdaptiveAveragePooling3D", 3, reduce_ops.reduce_mean,
                                     "Average over adaptive bins of three spatial dimensions.")
AdaptiveMaxPooling1D = _adaptive("AdaptiveMaxPooling1D", 1, reduce_ops.reduce_max,
                                 "Maximum over adaptive bins of the time axis.")
AdaptiveMaxPooling2D = _adaptive("AdaptiveMaxPooling2D", 2, reduce_ops.reduce_max,
                                 "Maximum over adaptive bins of rows and columns.")
AdaptiveMaxPooling3D = _adaptive("AdaptiveMaxPooling3D", 3, reduce_ops.reduce_max,
                                 "Maximum over adaptive bins of three spatial dimensions.")


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


class Wrapper(Layer):
    """Base class of layers that wrap another ``layer`` (``TimeDistributed``, ``SpectralNormalization`` ...)."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure "
                             "wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer._maybe_build(input_shape)
        self.built = True

    def call(self, inputs, *args, **kwargs):
        return self.layer(inputs, *args, **kwargs)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        from .serialization import serialize

        config = super().get_config()
        config["layer"] = serialize(self.layer)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from .serialization import deserialize

        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects)
        return cls(layer, **config)


class SpectralNormalization(Wrapper):
    """Divide the wrapped layer's ``kernel`` by its largest singular value, estimated by ``power_iterations``
    steps of power iteration on a persistent vector ``u`` (updated only in training, as Keras)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        if not hasattr(self.layer, "kernel"):
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel_shape = self.layer.kernel.shape.as_list()
        self.vector_u = self.add_weight("vector_u", shape=(1, self.kernel_shape[-1]),
                                        initializer=initializers.TruncatedNormal(stddev=0.02), trainable=False)
        self._raw_kernel = self.layer.kernel

    def _normalized(self, training):
        w = self._raw_kernel
        flat = array_ops.reshape(w, [-1, self.kernel_shape[-1]])
        u = self.vector_u
        u_val = u.value() if isinstance(u, Variable) else u
        v = None
        for _ in range(self.power_iterations):
            v = _l2n(math_ops.matmul(u_val, flat, transpose_b=True))
            u_val = _l2n(math_ops.matmul(v, flat))
        u_val = array_ops.stop_gradient(u_val)
        v = array_ops.stop_gradient(v)
        sigma = math_ops.matmul(math_ops.matmul(v, flat), u_val, transpose_b=True)
        if training:
            self.vector_u.assign(u_val)
        return array_ops.reshape(math_ops.divide(flat, sigma), self.kernel_shape)

    def call(self, inputs, training=False):
        layer = self.layer
        original = layer.kernel
        layer.__dict__["kernel"] = self._normalized(bool(training))
        try:
            return layer.call(inputs)
        finally:
            layer.__dict__["kernel"] = original

    def get_config(self):
        config = super().get_config()
        config["power_iterations"] = self.power_iterations
        return config


def _l2n(x):
    return math_ops.divide(x, math_ops.sqrt(math_ops.maximum(reduce_ops.reduce_sum(math_ops.square(x)), 1e-12)))


