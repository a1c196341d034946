"""Adaptive pooling: AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D.

Each spatial dimension of length ``n`` is split into ``output_size`` bins
``[floor(i * n / out), ceil((i + 1) * n / out))`` (PyTorch's and Keras' rule) and each bin is reduced.
"""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops, reduce_ops
from ...engine.base_layer import InputSpec, Layer
from ..convolutional.base_conv import normalize_tuple


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
