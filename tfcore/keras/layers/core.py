"""Core layers: Dense, Activation, Lambda, Rescaling, Identity (and the operator layer); Flatten and Reshape are in
``reshaping/``, Dropout in ``regularization/``, as in Keras 3."""


from ... import nn
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ...ops import array_ops, fused_ops, math_ops, sparse_ops
from .. import activations, backend
from ..engine.base_layer import InputSpec, Layer
from ..engine.keras_tensor import register_op_layer
from ..mixed_precision.autocast_variable import read_dtype
from ..saving import safe_mode
from ..utils.object_registration import CustomObjectScope, get_registered_name
from ._weights import add_bias, add_role_weight, set_weight_args, weights_config
from .activation import ShapePreservingLayer


class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` on the last axis; kernel (in, units), bias (units,)."""

    # the attribute Keras 3 keeps a weight in, which names it in checkpoints (saving/graph.py)
    _keras3_weight_attributes = {"kernel": "_kernel"}

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        try:
            n_units = int(units)
        except (TypeError, ValueError):
            n_units = 0
        if n_units <= 0 or isinstance(units, bool):  # checked before the layer exists: nothing registered
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. Received: "
                             f"units={units!r}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = n_units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        set_weight_args(self, "kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        set_weight_args(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        last = TensorShape(input_shape)[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = add_role_weight(self, "kernel", (last, self.units))
        self.bias = add_bias(self, (self.units,))
        self.built = True

    def call(self, inputs):
        act = self.activation
        if (type(inputs) is Tensor and inputs._array.ndim == 2 and self.bias is not None
                and inputs._dtype is read_dtype(self.kernel) is read_dtype(self.bias)):
            # the common case as ONE op: matmul, bias and relu (TF's grappler fuses them the same way)
            out = fused_ops.fused_matmul(inputs, self.kernel, self.bias, relu=act is activations.relu)
            return out if act is activations.relu or act is activations.linear else act(out)
        if isinstance(inputs, SparseTensor):  # a sparse=True Input: only the stored entries are multiplied
            if inputs.shape.rank != 2:
                raise ValueError(f"Dense: a SparseTensor input must be 2-D, got shape {inputs.shape}")
            if inputs.dtype != read_dtype(self.kernel):
                inputs = SparseTensor(inputs.indices, math_ops.cast(inputs.values, read_dtype(self.kernel)),
                                      inputs.dense_shape)
            out = sparse_ops.sparse_dense_matmul(inputs, self.kernel)
        elif inputs.shape.rank == 2:
            out = math_ops.matmul(inputs, self.kernel)
        else:
            lead = inputs.shape.as_list()[:-1]
            out = math_ops.matmul(array_ops.reshape(inputs, (-1, inputs.shape[-1])), self.kernel)
            out = array_ops.reshape(out, lead + [self.units])
        if self.bias is not None:
            out = nn.bias_add(out, self.bias)
        return self.activation(out) if self.activation is not activations.linear else out

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)[:-1].concatenate([self.units])

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "activation": activations.serialize(self.activation),
                       "use_bias": self.use_bias})
        config.update(weights_config(self, ("kernel", "bias")))
        return config


class Activation(ShapePreservingLayer):
    """Applies an activation function (by name or callable)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


class Lambda(Layer):
    """Wrap an arbitrary function of the inputs as a layer (``Lambda(lambda x: x ** 2)``)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return Layer.compute_output_shape(self, input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        return TensorShape([TensorShape(input_shape)[0]] + list(self._output_shape))

    def _has_static_output_shape(self):
        return self._output_shape is not None

    def get_config(self):
        """Keras 3's config: a Python lambda as marshalled bytecode (``__lambda__``), a named function by name.

        Loading a lambda back needs ``safe_mode=False`` (it runs code from the file), as in Keras 3.
        """
        config = {"function": _function_config(self.function),
                  "arguments": {k: v for k, v in self.arguments.items()}}
        if self._output_shape is not None:
            config["output_shape"] = (_function_config(self._output_shape) if callable(self._output_shape)
                                      else list(self._output_shape))
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """Rebuild a Lambda; a ``__lambda__`` function is refused with Keras 3's message in safe mode."""
        config = dict(config)
        config["function"] = _function_from_config(config.get("function"), custom_objects, safe_mode, "function")
        if "output_shape" in config and (isinstance(config["output_shape"], dict)):
            config["output_shape"] = _function_from_config(config["output_shape"], custom_objects, safe_mode,
                                                           "output_shape")
        elif isinstance(config.get("output_shape"), list):
            config["output_shape"] = tuple(config["output_shape"])
        return cls(**config)


def _function_config(fn):
    if getattr(fn, "__name__", None) == "<lambda>":
        code, defaults, closure = safe_mode.func_dump(fn)
        return {"class_name": "__lambda__", "config": {"code": code, "defaults": defaults, "closure": closure}}
    return {"module": getattr(fn, "__module__", None), "class_name": "function", "config": fn.__name__,
            "registered_name": get_registered_name(fn)}


def _function_from_config(value, custom_objects, safe, field):
    if callable(value):
        return value
    if safe_mode.is_lambda_config(value):
        with safe_mode.SafeModeScope(safe):
            return safe_mode.load_lambda(value, layer=True)
    if isinstance(value, dict) and value.get("class_name") == "function":
        with CustomObjectScope(custom_objects or {}):
            return activations.get(value)
    raise ValueError(f"Invalid `Lambda` config: `{field}` must be a function config, got {value!r}")


@register_op_layer
class TFOpLambda(Layer):
    """A Python operator (``x + y``, ``x[:, 0]``) applied to KerasTensors (TF's TFOpLambda)."""

    _allow_non_tensor_positional_args = True  # ``x * 2.0``: the operator's Python operands are positional

    def __init__(self, fn, name=None, **kwargs):
        super().__init__(name=backend.unique_object_name(name) if name else None, **kwargs)
        self._fn = fn
        self._autocast = False

    def call(self, *args):
        return self._fn(*args)

    def _output_dtype(self, input_dtype):
        return input_dtype


class Rescaling(ShapePreservingLayer):
    """``inputs * scale + offset`` (e.g. ``Rescaling(1./255)`` for images)."""

    _allow_non_tensor_positional_args = True  # Keras 3: preprocessing layers take Python data positionally
    _converts_python_inputs = True

    _config_keys = ("scale", "offset")

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset

    def call(self, inputs):
        if not inputs.dtype.is_floating:
            inputs = math_ops.cast(inputs, self._dtype)
        return inputs * math_ops.cast(self.scale, inputs.dtype) + math_ops.cast(self.offset, inputs.dtype)


class Identity(Layer):
    """Returns its input unchanged (a placeholder in architectures)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def _output_dtype(self, input_dtype):
        return input_dtype
