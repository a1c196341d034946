"""The seeded random augmentation layers: ``RandomFlip``, ``RandomRotation``, ``RandomZoom``,
``RandomTranslation``, ``RandomContrast``, ``RandomBrightness``, ``RandomCrop``.

Augmentations are active in training and return their input at inference (``RandomCrop``: a centred
crop-and-resize). As in TF 2.21 (Keras 3), their ``training`` argument defaults to True: ``fit``, a direct call
and ``model(x)`` augment; ``predict``, ``evaluate`` and ``training=False`` do not. Random parameters are
drawn on the host from the layer's own generator (seeded by ``seed``, else by NumPy's global state, which
``tf.keras.utils.set_random_seed`` seeds). Geometric transforms sample the input at transformed
coordinates with TF's ``ImageProjectiveTransformV3`` rules (fill modes reflect/wrap/nearest/constant,
bilinear or nearest interpolation) through ``gather``, so they run on every device and are differentiable.
"""

import math

import numpy as np

from ...framework import tracing
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import array_ops, math_ops, reduce_ops
from .image_preprocessing import Resizing, _as_float, _batched, _ImageLayer, _unbatch, smart_resize

_FILL_MODES = ("reflect", "wrap", "constant", "nearest")
_INTERPOLATIONS = ("bilinear", "nearest")

def _factor_range(factor, name, allow_negative=True, lower_bound=None):
    if isinstance(factor, int | float):
        lo, hi = (-factor, factor) if allow_negative else (0.0, factor)
        if factor < 0 and allow_negative:
            lo, hi = factor, -factor
    else:
        if len(factor) != 2:
            raise ValueError(f"`{name}` should be a float or a tuple of 2 floats. Received: {name}={factor}")
        lo, hi = float(factor[0]), float(factor[1])
    if lo > hi:
        raise ValueError(f"`{name}` lower bound must not exceed its upper bound. Received: {name}={factor}")
    if lower_bound is not None and lo < lower_bound:
        raise ValueError(f"`{name}` must be >= {lower_bound}. Received: {name}={factor}")
    return float(lo), float(hi)


class _RandomLayer(_ImageLayer):
    """An augmentation: identity unless ``training``; a per-layer seeded host generator."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed
        self._rng = None

    def _generator(self):
        if self._rng is None:
            seed = self.seed if self.seed is not None else int(np.random.randint(0, 2**31 - 1))
            object.__setattr__(self, "_rng", np.random.default_rng(seed))
        return self._rng

    def call(self, inputs, training=True):
        if not training:
            return self._inference(inputs)
        if tracing.current_graph() is not None:
            # the parameters are drawn on the host in Python: inside a traced function (tf.function, a
            # tf.data map) the augmentation is one node that draws again on every call
            x = inputs if isinstance(inputs, Tensor) else convert_to_tensor(inputs)
            return tracing.call_python(lambda t: _ImageLayer.call(self, t, training), [x],
                                       name="RandomAugmentation")
        return super().call(inputs, training)

    def _inference(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"seed": self.seed})
        return config


class RandomFlip(_RandomLayer):
    """Flip each image left-right and/or up-down with probability 1/2 (``mode``: ``"horizontal"``,
    ``"vertical"`` or ``"horizontal_and_vertical"``)."""

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode

    def _transform(self, images, training):
        x, single = _batched(images)
        n = x.shape[0]
        rng = self._generator()
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            flip = rng.random(n) < 0.5
            x = math_ops.where(array_ops.constant(flip.reshape(n, 1, 1, 1)), array_ops.reverse(x, [2]), x)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            flip = rng.random(n) < 0.5
            x = math_ops.where(array_ops.constant(flip.reshape(n, 1, 1, 1)), array_ops.reverse(x, [1]), x)
        return _unbatch(x, single)

    def get_config(self):
        config = super().get_config()
        config["mode"] = self.mode
        return config


def _map_coord(c, size, mode):
    """TF's fill-mode coordinate mapping (ImageProjectiveTransformV3) on float coordinates."""
    if mode == "reflect":
        if size <= 1:
            return np.zeros_like(c)
        sz2 = 2.0 * size
        c = c.copy()
        lo, hi = c < 0, c > size - 1
        cl = c[lo]
        cl = np.where(cl < -sz2, sz2 * np.trunc(-cl / sz2) + cl, cl)
        c[lo] = np.where(cl < -size, cl + sz2, -cl - 1)
        ch = c[hi]
        ch = ch - sz2 * np.trunc(ch / sz2)
        c[hi] = np.where(ch >= size, sz2 - ch - 1, ch)
        return np.clip(c, 0, size - 1)
    if mode == "wrap":
        if size <= 1:
            return np.zeros_like(c)
        c = c.copy()
        sz = size - 1.0
        lo, hi = c < 0, c > size - 1
        c[lo] = c[lo] + size * (np.trunc(-c[lo] / sz) + 1)
        c[hi] = c[hi] - size * np.trunc(c[hi] / sz)
        return np.clip(c, 0, size - 1)
    if mode == "nearest":
        return np.clip(c, 0, size - 1)
    return c


def projective_transform(images, matrices, interpolation="bilinear", fill_mode="reflect", fill_value=0.0):
    """Sample (N, H, W, C) ``images`` at ``matrices @ (x, y, 1)`` of each output pixel (matrices (N, 3, 3)
    map output coordinates to input coordinates, as TF's transforms), with TF's fill and interpolation rules."""
    n, h, w, c = images.shape.as_list()
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64), indexing="ij")
    coords = np.stack([xs.ravel(), ys.ravel(), np.ones(h * w)])
    src = np.einsum("nij,jk->nik", np.asarray(matrices, np.float64), coords)
    sx = (src[:, 0] / src[:, 2]).reshape(n, h, w)
    sy = (src[:, 1] / src[:, 2]).reshape(n, h, w)
    sx, sy = _map_coord(sx, w, fill_mode), _map_coord(sy, h, fill_mode)
    flat = array_ops.reshape(images, [n * h * w, c])
    base = (np.arange(n) * h * w).reshape(n, 1, 1)
    if interpolation == "nearest":
        taps = [(_round_half_away(sy), _round_half_away(sx), np.ones_like(sx))]
    else:
        y0, x0 = np.floor(sy), np.floor(sx)
        dy, dx = sy - y0, sx - x0
        taps = [(y0, x0, (1 - dy) * (1 - dx)), (y0, x0 + 1, (1 - dy) * dx), (y0 + 1, x0, dy * (1 - dx)),
                (y0 + 1, x0 + 1, dy * dx)]
    out = None
    fill_weight = np.zeros((n, h, w))
    for ty, tx, wt in taps:
        inside = (ty >= 0) & (ty <= h - 1) & (tx >= 0) & (tx <= w - 1)
        fill_weight += np.where(inside, 0.0, wt)
        idx = base + np.clip(ty, 0, h - 1).astype(np.int64) * w + np.clip(tx, 0, w - 1).astype(np.int64)
        weight = np.where(inside, wt, 0.0).astype(images.dtype.as_numpy_dtype)[..., None]
        term = array_ops.gather(flat, idx) * weight
        out = term if out is None else out + term
    if fill_value and np.any(fill_weight):
        out = out + (fill_weight * fill_value).astype(images.dtype.as_numpy_dtype)[..., None]
    return out


class _RandomAffine(_RandomLayer):
    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if fill_mode not in _FILL_MODES:
            raise ValueError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_FILL_MODES}.")
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"Unknown `interpolation` {interpolation}. Expected of one {_INTERPOLATIONS}.")
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = fill_value

    def _transform(self, images, training):
        x, single = _batched(images)
        n, h, w = x.shape[0], x.shape[1], x.shape[2]
        mats = self._matrices(n, h, w)
        return _unbatch(projective_transform(x, mats, self.interpolation, self.fill_mode, self.fill_value), single)

    def get_config(self):
        config = super().get_config()
        config.update({"fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "fill_value": self.fill_value})
        return config


def _about_center(m, h, w):
    """Conjugate (N, 3, 3) maps by the translation to the image centre."""
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    t = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]], np.float64)
    ti = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64)
    return t @ m @ ti


def _stack3(a00, a01, a02, a10, a11, a12):
    """(N, 3, 3) affine matrices from per-image entries of their first two rows."""
    n = len(a00)
    m = np.zeros((n, 3, 3), np.float64)
    m[:, 0, 0], m[:, 0, 1], m[:, 0, 2] = a00, a01, a02
    m[:, 1, 0], m[:, 1, 1], m[:, 1, 2] = a10, a11, a12
    m[:, 2, 2] = 1.0
    return m


class RandomRotation(_RandomAffine):
    """Rotate each image by a random angle in ``factor * 2pi`` (a fraction of a full turn; positive is
    counter-clockwise), about its centre."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 value_range=(0, 255), data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._range = _factor_range(factor, "factor")
        self.value_range = value_range

    def _matrices(self, n, h, w):
        angles = self._generator().uniform(self._range[0], self._range[1], n) * 2.0 * math.pi
        cos, sin, zero = np.cos(angles), np.sin(angles), np.zeros(n)
        # output -> input: rotate the output coordinates back by -angle (the y axis points down)
        return _about_center(_stack3(cos, -sin, zero, sin, cos, zero), h, w)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range})
        return config


class RandomZoom(_RandomAffine):
    """Zoom each image by a random factor ``1 + U(height_factor)`` vertically (``width_factor``, or the
    same factor when None, horizontally); positive factors zoom out, negative ones zoom in."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._h_range = _factor_range(height_factor, "height_factor", lower_bound=-1)
        self._w_range = _factor_range(width_factor, "width_factor", lower_bound=-1) if width_factor is not None \
            else None

    def _matrices(self, n, h, w):
        rng = self._generator()
        zh = 1.0 + rng.uniform(self._h_range[0], self._h_range[1], n)
        zw = 1.0 + rng.uniform(self._w_range[0], self._w_range[1], n) if self._w_range is not None else zh
        zero = np.zeros(n)
        return _about_center(_stack3(zw, zero, zero, zero, zh, zero), h, w)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


class RandomTranslation(_RandomAffine):
    """Shift each image by random fractions ``U(height_factor)`` of its height and ``U(width_factor)`` of
    its width (positive: down/right)."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._h_range = _factor_range(height_factor, "height_factor")
        self._w_range = _factor_range(width_factor, "width_factor")

    def _matrices(self, n, h, w):
        rng = self._generator()
        dy = rng.uniform(self._h_range[0], self._h_range[1], n) * h
        dx = rng.uniform(self._w_range[0], self._w_range[1], n) * w
        one, zero = np.ones(n), np.zeros(n)
        return _stack3(one, zero, -dx, zero, one, -dy)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


class RandomContrast(_RandomLayer):
    """Scale each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]``, then clip to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        lo, hi = (factor, factor) if isinstance(factor, int | float) else (factor[0], factor[1])
        if lo < 0 or hi < 0 or lo > 1:
            raise ValueError("The `factor` argument should be a number (or a list of two numbers) in the range "
                             f"[0.0, 1.0]. Received: factor={factor}")
        self._range = (1.0 - lo, 1.0 + hi)
        self.value_range = tuple(value_range)

    def _transform(self, images, training):
        x, single = _batched(images)
        f = self._generator().uniform(self._range[0], self._range[1], x.shape[0]).reshape(-1, 1, 1, 1)
        mean = reduce_ops.reduce_mean(x, axis=[1, 2], keepdims=True)
        out = (x - mean) * f.astype(x.dtype.as_numpy_dtype) + mean
        out = math_ops.clip_by_value(out, float(self.value_range[0]), float(self.value_range[1]))
        return _unbatch(out, single)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range})
        return config


class RandomBrightness(_RandomLayer):
    """Add a random ``U(factor) * (value_range[1] - value_range[0])`` to each image, clipped to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        self._range = _factor_range(factor, "factor")
        if self._range[0] < -1 or self._range[1] > 1:
            raise ValueError(f"The `factor` argument should be a number (or a list of two numbers) in the range "
                             f"[-1.0, 1.0]. Received: factor={factor}")
        if len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. Received: {value_range}")
        self.value_range = tuple(sorted(value_range))

    def _transform(self, images, training):
        x, single = _batched(images)
        span = self.value_range[1] - self.value_range[0]
        delta = (self._generator().uniform(self._range[0], self._range[1], x.shape[0]) * span).reshape(-1, 1, 1, 1)
        out = x + delta.astype(x.dtype.as_numpy_dtype)
        out = math_ops.clip_by_value(out, float(self.value_range[0]), float(self.value_range[1]))
        return _unbatch(out, single)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor, "value_range": self.value_range})
        return config


class RandomCrop(_RandomLayer):
    """In training, a random (``height``, ``width``) window of each image; at inference (or when the image
    is smaller than the window) the largest centred window of that aspect ratio, resized to the target."""

    def __init__(self, height, width, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.height, self.width = int(height), int(width)

    def _inference(self, inputs):
        x = self._to_last(_as_float(inputs, self._dtype))
        return self._from_last(smart_resize(x, (self.height, self.width)))

    def _transform(self, images, training):
        x, single = _batched(images)
        n, h, w = x.shape[0], x.shape[1], x.shape[2]
        if h < self.height or w < self.width:
            return _unbatch(smart_resize(x, (self.height, self.width)), single)
        rng = self._generator()
        tops = rng.integers(0, h - self.height + 1, n)
        lefts = rng.integers(0, w - self.width + 1, n)
        crops = [x[i:i + 1, t:t + self.height, left:left + self.width, :]
                 for i, (t, left) in enumerate(zip(tops, lefts))]
        return _unbatch(array_ops.concat(crops, 0) if n > 1 else crops[0], single)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self):
        config = super().get_config()
        config.update({"height": self.height, "width": self.width})
        return config


def _round_half_away(v):
    """std::round (what TF's nearest interpolation uses): halves away from zero, unlike np.round."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)
