"""``keras.utils`` image helpers: img_to_array, array_to_img, load_img, save_img (Keras 3 semantics).

They work on PIL images and need Pillow (``pip install tfcore[images]``); without it they raise ImportError.
"""

import io
import os

import numpy as np

_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil():
    try:
        from PIL import Image
    except ImportError as e:  # pragma: no cover - exercised by monkeypatching the import
        raise ImportError("Could not import PIL.Image. The use of `load_img`, `save_img`, `array_to_img` and "
                          "`img_to_array` requires Pillow: `pip install tfcore[images]` (or `pip install pillow`).") \
            from e
    return Image


def _data_format(data_format):
    data_format = data_format or "channels_last"
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid data_format: {data_format}")
    return data_format


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image from a 3-D array ``(height, width, channels)`` (or channels first).

    With ``scale`` the values are shifted and scaled to [0, 255] (min to 0, max to 255). 4 channels give an
    RGBA image, 3 an RGB image, 1 a grayscale ('L', or 'I' when values exceed 255 and ``scale`` is off).
    """
    image_mod = _pil()
    data_format = _data_format(data_format)
    dtype = dtype or "float32"
    x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=dtype)
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] == 4:
        return image_mod.fromarray(x.astype("uint8"), "RGBA")
    if x.shape[2] == 3:
        return image_mod.fromarray(x.astype("uint8"), "RGB")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            return image_mod.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_mod.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {x.shape[2]}")


def img_to_array(img, data_format=None, dtype=None):
    """A float32 (or ``dtype``) NumPy array ``(height, width, channels)`` from a PIL image (or array)."""
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        x = x.reshape((1, *x.shape)) if data_format == "channels_first" else x.reshape((*x.shape, 1))
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write the image array ``x`` to ``path`` (format from ``file_format`` or the file name)."""
    data_format = _data_format(data_format)
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg"
                               or str(path).lower().endswith((".jpg", ".jpeg"))):
        import warnings

        warnings.warn("The JPG format does not support RGBA images, converting to RGB.", stacklevel=2)
        img = img.convert("RGB")
    if file_format == "jpg":
        file_format = "jpeg"
    img.save(path, format=file_format, **kwargs)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """Load an image file (path, ``pathlib.Path`` or bytes stream) as a PIL image.

    ``color_mode``: 'grayscale', 'rgb' or 'rgba'; ``target_size``: ``(height, width)`` to resize to with
    ``interpolation``; ``keep_aspect_ratio`` center-crops to the target aspect ratio before resizing.
    """
    image_mod = _pil()
    if color_mode not in ("grayscale", "rgb", "rgba"):
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if isinstance(path, io.BytesIO):
        img = image_mod.open(path)
    elif isinstance(path, str | bytes | os.PathLike):
        with open(path, "rb") as f:
            img = image_mod.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode == "rgba":
        if img.mode != "RGBA":
            img = img.convert("RGBA")
    elif img.mode != "RGB":
        img = img.convert("RGB")
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            if interpolation not in _INTERPOLATIONS:
                raise ValueError(f"Invalid interpolation method {interpolation!r}. Supported methods are "
                                 + ", ".join(_INTERPOLATIONS))
            resample = getattr(image_mod.Resampling, interpolation.upper())
            if keep_aspect_ratio:
                width, height = img.size
                target_width, target_height = width_height
                crop_height = (width * target_height) // target_width
                crop_width = (height * target_width) // target_height
                crop_height = min(height, crop_height)
                crop_width = min(width, crop_width)
                crop_box_hstart = (height - crop_height) // 2
                crop_box_wstart = (width - crop_width) // 2
                box = [crop_box_wstart, crop_box_hstart, crop_box_wstart + crop_width,
                       crop_box_hstart + crop_height]
                img = img.resize(width_height, resample, box=box)
            else:
                img = img.resize(width_height, resample)
    return img
