"""BatchNormalization and LayerNormalization with Keras's defaults and update rules, UnitNormalization, and
SpectralNormalization (a wrapper that normalises its layer's kernel)."""

from ... import nn
from ...framework import dtypes, recording
from ...framework.tensor_shape import TensorShape
from ...framework.variables import Variable, VariableAggregation, VariableSynchronization
from ...ops import array_ops, batch_norm_ops, math_ops, nn_ops, reduce_ops
from .. import initializers
from ..engine.base_layer import InputSpec, Layer
from ._weights import add_role_weight, initializers_config, set_weight_args
from .activation import ShapePreservingLayer
from .wrappers import Wrapper


def _axes_list(axis):
    return list(axis) if isinstance(axis, list | tuple) else [axis]


class _Normalization(ShapePreservingLayer):
    """The affine part shared by BatchNormalization and LayerNormalization: ``gamma`` (when ``scale``)
    and ``beta`` (when ``center``) with their initializer, regularizer and constraint arguments."""

    _config_keys = ("axis", "epsilon", "center", "scale")

    def __init__(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                 gamma_regularizer, beta_constraint, gamma_constraint, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        set_weight_args(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        set_weight_args(self, "gamma", gamma_initializer, gamma_regularizer, gamma_constraint)
        self.supports_masking = True

    def _add_gamma_beta(self, param_shape):
        # float32 parameters, not autocast: a 16-bit layer normalises in float32 (as Keras)
        kw = {"dtype": self._param_dtype(), "experimental_autocast": False}
        self.gamma = add_role_weight(self, "gamma", param_shape, **kw) if self.scale else None
        self.beta = add_role_weight(self, "beta", param_shape, **kw) if self.center else None

    def _param_dtype(self):
        """float32 for float16/bfloat16 layers (statistics and parameters), else the variable dtype."""
        dt = self._variable_dtype
        return dtypes.float32 if dt.is_floating and dt.size < 4 else dt

    def _to_param_dtype(self, inputs):
        """16-bit inputs cast to the float32 the statistics are computed in (cast back by :meth:`_output`)."""
        dt = self._param_dtype()
        return math_ops.cast(inputs, dt) if inputs.dtype.is_floating and inputs.dtype is not dt else inputs

    @staticmethod
    def _output(outputs, like):
        return math_ops.cast(outputs, like.dtype) if outputs.dtype is not like.dtype else outputs

    def get_config(self):
        config = super().get_config()
        config.update(initializers_config(self, ("beta", "gamma")))
        return config


class BatchNormalization(_Normalization):
    """Normalise with batch statistics when ``training=True`` (updating the moving averages), else with
    the moving mean/variance. momentum 0.99, epsilon 1e-3; a frozen layer (``trainable=False``) always runs
    in inference mode, as in TF 2.

    As Keras 3 (TF 2.21, every rank), the moving variance is updated with the biased batch variance (Keras
    2's fused kernel took the Bessel-corrected one for 4-D inputs: tf.keras before TF 2.16).

    Training runs one ``FusedBatchNormV3`` op forward (and one ``FusedBatchNormGradV3`` backward) when the
    layer normalises over the last axis (or axis 1) of a 2- to 5-D float16/bfloat16/float32/float64 input
    (2- and 3-D inputs are reshaped to 4-D, which copies nothing) and is not ``synchronized``; the op also
    blends the batch statistics into the moving averages (``old - (old - batch) * (1 - momentum)``, the
    update of the composite path). Other cases, and inference, run the composite ``tf.nn.moments`` +
    ``tf.nn.batch_normalization``.
    """

    _config_keys = ("axis", "momentum", "epsilon", "center", "scale")

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 synchronized=False, fused=None, renorm=False, virtual_batch_size=None, adjustment=None,
                 **kwargs):
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization renorm, virtual_batch_size and adjustment are not "
                                      "supported by tfcore")
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                         gamma_regularizer, beta_constraint, gamma_constraint, **kwargs)
        self.momentum = momentum
        self.fused = fused
        self.synchronized = synchronized
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        rank = shape.rank
        axes = [a % rank for a in _axes_list(self.axis)]
        for a in axes:
            if shape[a] is None:
                raise ValueError(f"Axis {a} of input tensor should have a defined dimension but the layer received "
                                 f"an input with shape {input_shape}.")
        self._axes = axes
        param_shape = [shape[a] for a in axes] if len(axes) > 1 else (shape[axes[0]],)
        self.input_spec = InputSpec(ndim=rank, axes={a: shape[a] for a in axes})
        self._reduction_axes = [i for i in range(rank) if i not in axes]
        self._broadcast_shape = None
        if len(axes) > 1 or axes[0] != rank - 1:
            self._broadcast_shape = [shape[i] if i in axes else 1 for i in range(rank)]
        param_shape = tuple(param_shape)
        self._add_gamma_beta(param_shape)
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape, dtype=self._param_dtype(),
                                           experimental_autocast=False,
                                           initializer=self.moving_mean_initializer, trainable=False,
                                           synchronization=VariableSynchronization.ON_READ,
                                           aggregation=VariableAggregation.MEAN)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape, dtype=self._param_dtype(),
                                               experimental_autocast=False,
                                               initializer=self.moving_variance_initializer, trainable=False,
                                               synchronization=VariableSynchronization.ON_READ,
                                               aggregation=VariableAggregation.MEAN)
        self._fused_format = _fused_data_format(rank, axes) if not self.synchronized else None
        self.built = True

    def _param(self, v):
        if v is None or self._broadcast_shape is None:
            return v
        return array_ops.reshape(v, self._broadcast_shape)

    def call(self, inputs, training=None):
        given = inputs
        training = bool(training) and self.trainable
        if training and self._fused_format is not None and inputs.dtype.is_floating:
            fused = self._fused_training(inputs)
            if fused is not None:
                return fused
        inputs = self._to_param_dtype(inputs)
        if training:
            mean, variance = nn.moments(inputs, self._reduction_axes, keepdims=False)
            decay = 1.0 - self.momentum
            with recording.stop_recording():  # moving averages are state, not part of the loss
                self.moving_mean.assign_sub((self.moving_mean - array_ops.stop_gradient(mean)) * decay)
                self.moving_variance.assign_sub((self.moving_variance - array_ops.stop_gradient(variance)) * decay)
        else:
            mean, variance = self.moving_mean, self.moving_variance
        out = nn.batch_normalization(inputs, self._param(mean), self._param(variance), self._param(self.beta),
                                     self._param(self.gamma), self.epsilon)
        return self._output(out, given)

    def _fused_training(self, inputs):
        """Training-mode output from one ``FusedBatchNormV3`` op (which also blends the batch statistics into
        the moving averages), or None when the input's static shape cannot be viewed as 4-D."""
        fmt, shape4 = self._fused_format, None
        shape = inputs.shape.as_list()
        if len(shape) < 4:
            if any(d is None for d in shape[1:]):
                return None
            shape4 = [-1] + shape[1:] + [1] * (4 - len(shape))
            if fmt == "NHWC":  # (N, C) -> (N, 1, 1, C); (N, L, C) -> (N, L, 1, C)
                shape4 = [-1] + shape[1:-1] + [1] * (4 - len(shape)) + [shape[-1]]
        given = inputs
        param_dtype = self._param_dtype()
        half = inputs.dtype in (dtypes.float16, dtypes.bfloat16) and param_dtype is dtypes.float32
        if not half and inputs.dtype is not param_dtype:
            inputs = math_ops.cast(inputs, param_dtype)
        x = array_ops.reshape(inputs, shape4) if shape4 is not None else inputs
        channels = self.moving_mean.shape[0]
        gamma = self.gamma if self.gamma is not None else array_ops.ones([channels], param_dtype)
        beta = self.beta if self.beta is not None else array_ops.zeros([channels], param_dtype)
        decay = 1.0 - self.momentum
        out = batch_norm_ops.fused_batch_norm_v3(x, gamma, beta, self.moving_mean, self.moving_variance,
                                                 epsilon=self.epsilon, exponential_avg_factor=decay,
                                                 data_format=fmt, is_training=True)
        with recording.stop_recording():  # moving averages are state, not part of the loss
            self.moving_mean.assign(out.batch_mean)
            # Keras 3 blends the biased batch variance (reserve_space_2), not the op's Bessel-corrected one
            self.moving_variance.assign_sub((self.moving_variance - out.reserve_space_2) * decay)
        y = out.y
        if shape4 is not None:
            y = array_ops.reshape(y, [-1] + shape[1:])
        return self._output(y, given)

    def get_config(self):
        config = super().get_config()
        config.update(initializers_config(self, ("moving_mean", "moving_variance")))
        return config


def _fused_data_format(rank, axes):
    """The ``FusedBatchNormV3`` data format a BatchNormalization over ``axes`` of a rank-``rank`` input runs in
    (2- and 3-D inputs reshaped to 4-D), or None when the op cannot express it."""
    if len(axes) != 1 or not 2 <= rank <= 5:
        return None
    last = {4: "NHWC", 5: "NDHWC"}.get(rank, "NHWC")
    first = {4: "NCHW", 5: "NCDHW"}.get(rank, "NCHW")
    if axes[0] == rank - 1:
        return last
    if axes[0] == 1:
        return first
    return None


class LayerNormalization(_Normalization):
    """Normalise each example over ``axis`` (default last): ``(x - mean) / sqrt(var + eps) * gamma + beta``."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(axis, epsilon, center, scale, beta_initializer, gamma_initializer, beta_regularizer,
                         gamma_regularizer, beta_constraint, gamma_constraint, **kwargs)

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        rank = shape.rank
        self._axes = sorted(a % rank for a in _axes_list(self.axis))
        param_shape = tuple(shape[a] for a in self._axes)
        self._broadcast_shape = [shape[i] if i in self._axes else 1 for i in range(rank)]
        self._needs_reshape = self._axes != list(range(rank - len(self._axes), rank))
        self._add_gamma_beta(param_shape)
        self.built = True

    def call(self, inputs):
        given = inputs
        inputs = self._to_param_dtype(inputs)
        mean, variance = nn.moments(inputs, self._axes, keepdims=True)
        gamma, beta = self.gamma, self.beta
        if self._needs_reshape:
            gamma = array_ops.reshape(gamma, self._broadcast_shape) if gamma is not None else None
            beta = array_ops.reshape(beta, self._broadcast_shape) if beta is not None else None
        return self._output(nn.batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon), given)


class UnitNormalization(Layer):
    """Scale each sample to unit L2 norm along ``axis``."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, list | tuple) else axis
        self.supports_masking = True

    def call(self, inputs):
        x = inputs if inputs.dtype.is_floating else math_ops.cast(inputs, self.compute_dtype)
        return nn_ops.l2_normalize(x, axis=self.axis, epsilon=1e-12)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class SpectralNormalization(Wrapper):
    """Divide the wrapped layer's ``kernel`` by its largest singular value, estimated by ``power_iterations``
    steps of power iteration on a persistent vector ``u`` (updated only in training, as Keras)."""

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError(f"`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape):
        super().build(input_shape)
        if not hasattr(self.layer, "kernel"):
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' nor 'embeddings'")
        self.kernel_shape = self.layer.kernel.shape.as_list()
        self.vector_u = self.add_weight("vector_u", shape=(1, self.kernel_shape[-1]),
                                        initializer=initializers.TruncatedNormal(stddev=0.02), trainable=False)
        self._raw_kernel = self.layer.kernel

    def _normalized(self, training):
        w = self._raw_kernel
        flat = array_ops.reshape(w, [-1, self.kernel_shape[-1]])
        u = self.vector_u
        u_val = u.value() if isinstance(u, Variable) else u
        v = None
        for _ in range(self.power_iterations):
            v = _l2n(math_ops.matmul(u_val, flat, transpose_b=True))
            u_val = _l2n(math_ops.matmul(v, flat))
        u_val = array_ops.stop_gradient(u_val)
        v = array_ops.stop_gradient(v)
        sigma = math_ops.matmul(math_ops.matmul(v, flat), u_val, transpose_b=True)
        if training:
            self.vector_u.assign(u_val)
        return array_ops.reshape(math_ops.divide(flat, sigma), self.kernel_shape)

    def call(self, inputs, training=False):
        layer = self.layer
        original = layer.kernel
        layer.__dict__["kernel"] = self._normalized(bool(training))
        try:
            return layer.call(inputs)
        finally:
            layer.__dict__["kernel"] = original

    def get_config(self):
        config = super().get_config()
        config["power_iterations"] = self.power_iterations
        return config


def _l2n(x):
    return math_ops.divide(x, math_ops.sqrt(math_ops.maximum(reduce_ops.reduce_sum(math_ops.square(x)), 1e-12)))
