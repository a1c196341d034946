"""ZeroPadding1D, ZeroPadding2D and ZeroPadding3D: zeros around the spatial dimensions."""

from ....framework.tensor_shape import TensorShape
from ....ops import array_ops
from ...engine.base_layer import InputSpec, Layer
from .cropping import _Cropping


class _ZeroPadding(_Cropping):
    def call(self, inputs):
        pads = [[0, 0]] * inputs.ndim
        for axis, pair in zip(self._spatial_axes(), self.cropping):
            pads[axis] = list(pair)
        return array_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if dims[axis] is not None:
                dims[axis] += a + b
        return TensorShape(dims)

    def get_config(self):
        config = super().get_config()
        config["padding"] = config.pop("cropping")
        return config


class ZeroPadding1D(_ZeroPadding):
    """Pad the time axis with zeros: int or (start, end)."""

    rank = 1

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, **kwargs)


class ZeroPadding2D(Layer):
    """Pad rows and columns with zeros: int, (h, w), or ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        if isinstance(padding, int):
            self.padding = ((padding, padding), (padding, padding))
        elif len(padding) == 2 and all(isinstance(p, int) for p in padding):
            self.padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        elif len(padding) == 2:
            self.padding = tuple(tuple(int(v) for v in p) for p in padding)
            if any(len(p) != 2 for p in self.padding):
                raise ValueError(f"`padding` should have two elements. Received: padding={padding}")
        else:
            raise ValueError(f"`padding` should be either an int, a tuple of 2 ints (symmetric_height_pad, "
                             f"symmetric_width_pad), or a tuple of 2 tuples of 2 ints. Received: padding={padding}.")
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        (t, b), (lft, r) = self.padding
        if self.data_format == "channels_first":
            pads = [[0, 0], [0, 0], [t, b], [lft, r]]
        else:
            pads = [[0, 0], [t, b], [lft, r], [0, 0]]
        return array_ops.pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        (t, b), (lft, r) = self.padding
        hi, wi = (2, 3) if self.data_format == "channels_first" else (1, 2)
        if dims[hi] is not None:
            dims[hi] += t + b
        if dims[wi] is not None:
            dims[wi] += lft + r
        return TensorShape(dims)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


class ZeroPadding3D(_ZeroPadding):
    """Pad the three spatial dimensions with zeros."""

    rank = 3

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)
