"""Image preprocessing layers: ``Resizing`` and ``CenterCrop`` (and the shared image-layer base and
Keras's ``smart_resize`` crop), computed as TF computes them (``tf.image.resize``, no antialiasing)."""

from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, image_ops, math_ops
from .. import backend
from ..engine.base_layer import Layer


def _as_float(images, dtype):
    return images if images.dtype == dtype else math_ops.cast(images, dtype)


def _batched(images):
    """(images as (N, H, W, C), whether the input was a single image)."""
    if images.ndim == 3:
        return array_ops.expand_dims(images, 0), True
    if images.ndim != 4:
        raise ValueError(f"Expected images of rank 3 (H, W, C) or 4 (N, H, W, C); got shape {images.shape}")
    return images, False


def _unbatch(images, single):
    return array_ops.squeeze(images, [0]) if single else images


def _crop_box(height, width, target_h, target_w):
    """Keras's smart_resize crop: the largest centred window with the target's aspect ratio."""
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    return int(float(height - crop_h) / 2), int(float(width - crop_w) / 2), crop_h, crop_w


def smart_resize(images, size, interpolation="bilinear"):
    """Crop the largest centred window of the target aspect ratio, then resize it to ``size``."""
    x, single = _batched(images)
    h, w = x.shape[1], x.shape[2]
    top, left, ch, cw = _crop_box(h, w, size[0], size[1])
    x = x[:, top:top + ch, left:left + cw, :]
    return _unbatch(image_ops.resize(x, size, method=interpolation), single)


class _ImageLayer(Layer):
    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally
    _converts_python_inputs = True

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or backend.image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError(f"`data_format` must be 'channels_last' or 'channels_first'. Received: {data_format}")

    def _to_last(self, images):
        if self.data_format == "channels_first":
            perm = [0, 2, 3, 1] if images.ndim == 4 else [1, 2, 0]
            return array_ops.transpose(images, perm)
        return images

    def _from_last(self, images):
        if self.data_format == "channels_first":
            perm = [0, 3, 1, 2] if images.ndim == 4 else [2, 0, 1]
            return array_ops.transpose(images, perm)
        return images

    def call(self, inputs, training=None):
        x = _as_float(inputs, self._dtype)
        return self._from_last(self._transform(self._to_last(x), training))

    def _output_dtype(self, input_dtype):
        return self._dtype


class Resizing(_ImageLayer):
    """Resize images to (``height``, ``width``) (``crop_to_aspect_ratio``: centre-crop to the target's
    aspect ratio first; ``pad_to_aspect_ratio``: pad with ``fill_value`` instead)."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                 fill_mode="constant", fill_value=0.0, antialias=False, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Only one of `crop_to_aspect_ratio` or `pad_to_aspect_ratio` can be True.")
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio
        self.pad_to_aspect_ratio = pad_to_aspect_ratio
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = antialias

    def _transform(self, images, training):
        x, single = _batched(images)
        size = (self.height, self.width)
        if self.crop_to_aspect_ratio:
            return _unbatch(smart_resize(x, size, self.interpolation), single)
        if self.pad_to_aspect_ratio:
            h, w = x.shape[1], x.shape[2]
            pad_h = max(int(round(w * self.height / self.width)) - h, 0)
            pad_w = max(int(round(h * self.width / self.height)) - w, 0)
            x = array_ops.pad(x, [[0, 0], [pad_h // 2, pad_h - pad_h // 2], [pad_w // 2, pad_w - pad_w // 2], [0, 0]],
                              constant_values=self.fill_value)
        out = image_ops.resize(x, size, method=self.interpolation, antialias=self.antialias)
        return _unbatch(_as_float(out, self._dtype), single)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.data_format == "channels_first":
            dims[-2:] = [self.height, self.width]
        else:
            dims[-3:-1] = [self.height, self.width]
        return TensorShape(dims)

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "interpolation": self.interpolation,
                       "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                       "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                       "fill_value": self.fill_value, "antialias": self.antialias, "data_format": self.data_format})
        return config


class CenterCrop(_ImageLayer):
    """Crop the central (``height``, ``width``) window; an image smaller than that is crop-and-resized
    to the target size instead (Keras)."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height, self.width = int(height), int(width)

    def _transform(self, images, training):
        x, single = _batched(images)
        h, w = x.shape[1], x.shape[2]
        if h >= self.height and w >= self.width:
            top, left = (h - self.height) // 2, (w - self.width) // 2
            return _unbatch(x[:, top:top + self.height, left:left + self.width, :], single)
        return _unbatch(smart_resize(x, (self.height, self.width)), single)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width, "data_format": self.data_format})
        return config
