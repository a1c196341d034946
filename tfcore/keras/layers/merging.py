"""Merging layers: combine a list of tensors (Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate,
Dot)."""

import functools

import numpy as np

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, math_ops, nn_ops, reduce_ops
from ..engine.base_layer import Layer


class _Merge(Layer):
    """Element-wise merge of a list of same-shaped tensors (broadcasting like Keras)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _merge(self, inputs):
        raise NotImplementedError

    def compute_mask(self, inputs, mask=None):
        """Keras 3 (TF 2.21): the logical OR of the inputs' masks; None unless every input has one."""
        if mask is None:
            return None
        masks = list(mask) if isinstance(mask, list | tuple) else [mask]
        if any(m is None for m in masks):
            return None
        return functools.reduce(math_ops.logical_or, [math_ops.cast(m, dtypes.bool) for m in masks])

    def build(self, input_shape):
        if not isinstance(input_shape, list | tuple) or len(input_shape) < 1:
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: "
                             f"input_shape={input_shape} (not a list of shapes)")
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, list | tuple):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs}")
        return self._merge(list(inputs))

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s).as_list() for s in input_shape]
        rank = max(len(s) for s in shapes)
        out = []
        for i in range(rank):
            dims = {s[i - rank + len(s)] for s in shapes if i - rank + len(s) >= 0} - {1}
            known = dims - {None}
            if len(known) > 1:
                raise ValueError(f"Inputs have incompatible shapes. Received shapes {[tuple(s) for s in shapes]}")
            out.append(known.pop() if known else (None if None in dims else 1))
        return TensorShape(out)


class Add(_Merge):
    def _merge(self, inputs):
        return functools.reduce(lambda a, b: a + b, inputs)


class Subtract(_Merge):
    def build(self, input_shape):
        if len(input_shape) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: "
                             f"input_shape={input_shape}")
        super().build(input_shape)

    def _merge(self, inputs):
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge(self, inputs):
        return functools.reduce(lambda a, b: a * b, inputs)


class Average(_Merge):
    def _merge(self, inputs):
        return functools.reduce(lambda a, b: a + b, inputs) / float(len(inputs))


class Maximum(_Merge):
    def _merge(self, inputs):
        return functools.reduce(math_ops.maximum, inputs)


class Minimum(_Merge):
    def _merge(self, inputs):
        return functools.reduce(math_ops.minimum, inputs)


class Concatenate(_Merge):
    """Concatenate along ``axis`` (default -1); other dimensions must match."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def compute_mask(self, inputs, mask=None):
        """Keras: each input's mask expanded to the input's shape (all True when it has none), concatenated
        along ``axis``, then ``any`` over the last axis."""
        if mask is None or all(m is None for m in mask):
            return None
        full = []
        for x, m in zip(inputs, mask):
            if m is None:
                full.append(array_ops.ones_like(x, dtype=dtypes.bool))
            else:
                m = math_ops.cast(m, dtypes.bool)
                if m.shape.rank < x.shape.rank:
                    m = array_ops.broadcast_to(array_ops.expand_dims(m, -1), x.shape)
                full.append(m)
        return reduce_ops.reduce_any(array_ops.concat(full, axis=self.axis), axis=-1)

    def build(self, input_shape):
        super().build(input_shape)
        shapes = [TensorShape(s).as_list() for s in input_shape]
        if len({len(s) for s in shapes}) != 1:
            raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for the concatenation "
                             f"axis. Received: input_shape={[tuple(s) for s in shapes]}")
        axis = self.axis % len(shapes[0])
        for i in range(len(shapes[0])):
            if i == axis:
                continue
            dims = {s[i] for s in shapes} - {None}
            if len(dims) > 1:
                raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for the "
                                 f"concatenation axis. Received: input_shape={[tuple(s) for s in shapes]}")

    def _merge(self, inputs):
        common = _concat_dtype([x.dtype for x in inputs])
        if common is not None:  # Keras 3 promotes (ops.concatenate): int64 and float32 columns give float32
            inputs = [x if x.dtype == common else math_ops.cast(x, common) for x in inputs]
        return array_ops.concat(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s).as_list() for s in input_shape]
        axis = self.axis % len(shapes[0])
        out = list(shapes[0])
        for s in shapes[1:]:
            for i, d in enumerate(s):
                if i == axis:
                    out[i] = None if out[i] is None or d is None else out[i] + d
                elif out[i] is None:
                    out[i] = d
        return TensorShape(out)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


def _concat_dtype(input_dtypes):
    """The dtype Keras 3's ``ops.concatenate`` gives inputs of mixed numeric dtypes, None when they agree
    (or are not all numeric, which ``concat`` then rejects naming them).

    Keras follows JAX's promotion: with a float among them the widest float wins (an integer or bool
    input becomes that float); integers alone give NumPy's common integer type.
    """
    kinds = set(input_dtypes)
    if len(kinds) < 2 or not all(d.is_floating or d.is_integer or d.is_bool for d in kinds):
        return None
    floats = [d for d in kinds if d.is_floating]
    if floats:
        return max(floats, key=lambda d: d.size)
    return dtypes.as_dtype(np.result_type(*[d.as_numpy_dtype for d in kinds]))


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
