"""Cropping1D, Cropping2D and Cropping3D: cut rows/columns/planes off the spatial dimensions."""

from ....framework.tensor_shape import TensorShape
from ...engine.base_layer import InputSpec, Layer


def _pairs(value, n, name):
    if isinstance(value, int):
        return ((value, value),) * n
    value = tuple(value)
    if len(value) == n and all(isinstance(v, int) for v in value):
        return tuple((v, v) for v in value)
    if len(value) == 2 and n == 1 and all(isinstance(v, int) for v in value):
        return (tuple(value),)
    if len(value) == n and all(len(v) == 2 for v in value):
        return tuple(tuple(int(x) for x in v) for v in value)
    raise ValueError(f"`{name}` should be an int, a tuple of {n} ints, or a tuple of {n} tuples of 2 ints. "
                     f"Received: {name}={value}")


class _Cropping(Layer):
    rank = 1

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping")
        self.data_format = "channels_last" if self.rank == 1 else (data_format or "channels_last")
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_axes(self):
        return list(range(2, self.rank + 2)) if self.data_format == "channels_first" else list(range(1, self.rank + 1))

    def call(self, inputs):
        sl = [slice(None)] * inputs.ndim
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            n = inputs.shape[axis]
            if a + b >= n:
                raise ValueError(f"Cropping {self.cropping} leaves nothing of an input of shape "
                                 f"{inputs.shape.as_list()}")
            sl[axis] = slice(a, n - b)
        return inputs[tuple(sl)]

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if dims[axis] is not None:
                dims[axis] -= a + b
        return TensorShape(dims)

    def _output_dtype(self, input_dtype):
        return input_dtype

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping if self.rank > 1 else self.cropping[0]
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """Crop ``cropping`` steps (int or (start, end)) off the time axis of ``(batch, steps, features)``."""

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, **kwargs)


class Cropping2D(_Cropping):
    """Crop rows and columns: int, (h, w), or ((top, bottom), (left, right))."""

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crop the three spatial dimensions: int, 3 ints, or 3 (start, end) pairs."""

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)
