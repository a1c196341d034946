"""The format-neutral graph every exporter lowers: named tensors, constants and a list of simple ops.

Layer converters (:mod:`.converters`) append ops to a :class:`Graph` in Keras's channels-last layout;
each writer (:mod:`.onnx_writer`, :mod:`.tflite_writer`) lowers those ops to its format. Shapes are
static except the batch dimension, recorded as ``None``.

The op vocabulary (inputs, attributes):

- ``conv2d`` (x, w[kh, kw, cin/groups, cout], b): ``strides``, ``dilations``, ``padding`` "SAME"/"VALID",
  ``groups``;  ``depthwise_conv2d`` (x, w[kh, kw, cin, mult], b): the same, no groups
- ``matmul`` (x, w[in, out], b): a Dense layer on the last axis;  ``batch_matmul`` (a, b): ``transpose_b``
- ``add``, ``sub``, ``mul``, ``div``, ``maximum``, ``minimum``: broadcasting binary ops
- ``relu``, ``relu6``, ``sigmoid``, ``tanh``, ``exp``, ``rsqrt``, ``hard_sigmoid`` (Keras 3's
  ``clip(x / 6 + 0.5, 0, 1)``), ``hard_swish``, ``gelu`` (``approximate``), ``elu``, ``leaky_relu``
  (``alpha``), ``softmax`` (last axis)
- ``max_pool``, ``avg_pool`` (x): ``ksize``, ``strides``, ``padding`` (average excludes padding, as TF)
- ``mean`` (x): ``axes``, ``keepdims``;  ``reshape`` (x): ``shape`` (-1 for the batch);
  ``transpose`` (x): ``perm``;  ``pad`` (x): ``pads`` [(before, after)] per axis;  ``concat``: ``axis``
- ``slice`` (x): ``begin``, ``size`` (static, -1 for "to the end");  ``gather`` (table, indices)
"""

import numpy as np


class Op:
    """One node: ``type`` applied to input tensor names, producing output tensor names."""

    __slots__ = ("type", "inputs", "outputs", "attrs")

    def __init__(self, type, inputs, outputs, attrs):
        self.type, self.inputs, self.outputs, self.attrs = type, list(inputs), list(outputs), dict(attrs)

    def __repr__(self):
        return f"Op({self.type}, {self.inputs} -> {self.outputs}, {self.attrs})"


class Graph:
    """Tensors by name with their static shape (batch ``None``) and dtype; constants; ops in order."""

    def __init__(self, name="model"):
        self.name = name
        self.inputs, self.outputs, self.ops = [], [], []
        self.shapes, self.dtypes, self.consts = {}, {}, {}
        self._used = set()

    def _fresh(self, hint):
        hint = hint.replace(":", "_") or "t"
        name, i = hint, 1
        while name in self._used:
            name, i = f"{hint}_{i}", i + 1
        self._used.add(name)
        return name

    def add_input(self, hint, shape, dtype):
        name = self._fresh(hint)
        self.shapes[name], self.dtypes[name] = tuple(shape), np.dtype(dtype)
        self.inputs.append(name)
        return name

    def const(self, value, hint, dtype=np.float32):
        """A constant tensor (weights are stored float32; index tensors int32/int64)."""
        arr = np.ascontiguousarray(np.asarray(value, dtype=dtype))
        name = self._fresh(hint)
        self.consts[name] = arr
        self.shapes[name], self.dtypes[name] = arr.shape, arr.dtype
        return name

    def op(self, type, inputs, out_shape, hint, dtype=np.float32, **attrs):
        """Append op ``type`` with one output of static ``out_shape``; returns the output's name."""
        out = self._fresh(hint)
        self.shapes[out], self.dtypes[out] = tuple(out_shape), np.dtype(dtype)
        self.ops.append(Op(type, inputs, [out], attrs))
        return out

    def op_types(self):
        return sorted({o.type for o in self.ops})


def same_padding(size, k, s, d=1):
    """TF's SAME padding of one spatial axis: (before, after)."""
    eff = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + eff - size, 0)
    return total // 2, total - total // 2
