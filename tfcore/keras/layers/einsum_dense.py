"""``EinsumDense``: a dense layer whose contraction is an einsum equation (the projections of attention).

``EinsumDense("abc,cde->abde", output_shape=(None, 8, 16), bias_axes="de")`` maps (batch, T, 64) to
(batch, T, 8, 16) with a (64, 8, 16) kernel. The kernel and bias shapes follow Keras's analysis of the
equation, so ``set_weights`` takes TensorFlow's arrays unchanged.
"""

import re

from ...framework.tensor_shape import TensorShape
from ...ops import math_ops
from .. import activations
from ..engine.base_layer import Layer
from ._weights import add_role_weight, set_weight_args, weights_config


def analyze_einsum_string(equation, bias_axes, input_shape, output_shape):
    """(kernel shape, bias shape or None, full output shape) for ``equation`` as Keras derives them."""
    dot_replaced = re.sub(r"\.\.\.", "0", equation)
    for pattern, left in (("([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$", False),
                          ("0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$", True),
                          ("([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$", False)):
        split = re.match(pattern, dot_replaced)
        if split:
            return _analyze_split_string(split, bias_axes, input_shape, output_shape, left_elided=left)
    raise ValueError(f"Invalid einsum equation '{equation}'. Equations must be in the form "
                     "[X],[Y]->[Z], ...[X],[Y]->...[Z], or [X]...,[Y]->[Z]....")


def _analyze_split_string(split, bias_axes, input_shape, output_shape, left_elided=False):
    input_spec, weight_spec, output_spec = split.group(1), split.group(2), split.group(3)
    elided = len(input_shape) - len(input_spec)
    output_shape = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    output_shape.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            output_shape.insert(1, input_shape[i])
    elif elided > 0:
        for i in range(len(input_shape) - elided, len(input_shape)):
            output_shape.append(input_shape[i])
    if left_elided:
        input_dim_map = {d: (i + elided) - len(input_shape) for i, d in enumerate(input_spec)}
        output_dim_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        input_dim_map = {d: i for i, d in enumerate(input_spec)}
        output_dim_map = {d: i for i, d in enumerate(output_spec)}
    for d in input_spec:
        in_dim = input_shape[input_dim_map[d]]
        if d in output_dim_map:
            out_dim = output_shape[output_dim_map[d]]
            if out_dim is not None and out_dim != in_dim:
                raise ValueError(f"Input shape and output shape do not match at shared dimension '{d}'. Input "
                                 f"shape is {in_dim}, and output shape is {out_dim}.")
    for d in output_spec:
        if d not in input_spec and d not in weight_spec:
            raise ValueError(f"Dimension '{d}' was specified in the output '{output_spec}' but has no "
                             f"corresponding dim in the input spec '{input_spec}' or weight spec '{weight_spec}'")
    weight_shape = []
    for d in weight_spec:
        if d in input_dim_map:
            weight_shape.append(input_shape[input_dim_map[d]])
        elif d in output_dim_map:
            weight_shape.append(output_shape[output_dim_map[d]])
        else:
            raise ValueError(f"Weight dimension '{d}' did not have a match in either the input spec "
                             f"'{input_spec}' or the output spec '{output_spec}'. For this layer, the weight must "
                             "be fully specified.")
    bias_shape = None
    if bias_axes is not None:
        for c in bias_axes:
            if c not in output_spec:
                raise ValueError(f"Bias dimension '{c}' was requested, but is not part of the output spec "
                                 f"'{output_spec}'")
        first = min(output_spec.find(c) for c in bias_axes)
        bias_shape = [output_shape[output_dim_map[c]] if c in bias_axes else 1 for c in output_spec[first:]]
        if not left_elided:
            bias_shape.extend([1] * elided)
    return weight_shape, bias_shape, output_shape


class EinsumDense(Layer):
    """``activation(einsum(equation, inputs, kernel) + bias)`` (``tf.keras.layers.EinsumDense``)."""

    # the attribute Keras 3 keeps a weight in, which names it in checkpoints (saving/graph.py)
    _keras3_weight_attributes = {"kernel": "_kernel"}

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(equation, str) or "->" not in equation:
            raise ValueError(f"EinsumDense: `equation` must be a string 'in,kernel->out'. Received: {equation!r}")
        self.equation = equation
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) else tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        kernel_shape, bias_shape, full = analyze_einsum_string(self.equation, self.bias_axes, dims,
                                                               self.partial_output_shape)
        self.full_output_shape = tuple(full)
        self.kernel = add_role_weight(self, "kernel", tuple(kernel_shape))
        self.bias = add_role_weight(self, "bias", tuple(bias_shape)) if bias_shape is not None else None
        self.built = True

    def call(self, inputs):
        out = math_ops.einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            out = out + self.bias
        return self.activation(out) if self.activation is not activations.linear else out

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        out = analyze_einsum_string(self.equation, self.bias_axes, dims, self.partial_output_shape)[2]
        return TensorShape(self._fill_from_input(out, dims))

    def _fill_from_input(self, out, dims):
        """Output dims left None in ``output_shape`` but shared with the input take the input's size."""
        lhs, rhs = self.equation.split("->")
        in_spec, out_spec = lhs.split(",")[0], rhs
        if "..." in in_spec or "..." in out_spec:
            return out
        sizes = dict(zip(in_spec, dims))
        return [sizes.get(c, d) if d is None else d for c, d in zip(out_spec, out)]

    def get_config(self):
        config = super().get_config()
        config.update({"output_shape": self.partial_output_shape, "equation": self.equation,
                       "activation": activations.serialize(self.activation), "bias_axes": self.bias_axes})
        config.update(weights_config(self, ("kernel", "bias")))
        return config
