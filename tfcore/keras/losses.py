"""``tf.keras.losses``: loss classes, their function forms, reductions and ``get``.

A ``Loss`` object computes per-sample losses with ``call(y_true, y_pred)`` and then
weights and reduces them (``compute_weighted_loss``), exactly as Keras does:
``SUM_OVER_BATCH_SIZE`` (the default behind ``AUTO``) divides the weighted sum by the
NUMBER of per-sample losses, not by the sum of the weights. Probabilities are clipped
to ``[epsilon, 1 - epsilon]`` (``epsilon = 1e-7``) before logarithms, as Keras'
backend does — except for outputs of Keras' softmax/sigmoid activations, whose cached
logits (``_keras_logits``) the cross-entropies use instead, as TF Keras does: exact
values and gradients, and far fewer ops per training step.
"""

import warnings

from ..framework import dtypes
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..ops import array_ops, loss_ops, math_ops, reduce_ops

EPSILON = 1e-7


class Reduction:
    """Types of loss reduction (``tf.keras.losses.Reduction``)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


# -- helpers -------------------------------------------------------------------------------

def _tensor(x, dtype=None):
    if isinstance(x, Tensor) and (dtype is None or x._dtype is dtype):
        return x
    if hasattr(x, "_tfc_read"):
        x = x._tfc_read()
        return x if dtype is None else math_ops.cast(x, dtype)
    if isinstance(x, Tensor):
        return math_ops.cast(x, dtype)
    return convert_to_tensor(x, dtype=dtype)


def _floating(x):
    """``x`` as a floating tensor: float dtypes kept, others cast to float32."""
    x = _tensor(x)
    return x if x.dtype.is_floating else math_ops.cast(x, dtypes.float32)


def _pred_and_true(y_true, y_pred):
    """``y_pred`` as a floating tensor (float32 for other inputs) and ``y_true`` cast to its dtype."""
    y_pred = _floating(y_pred)
    return _tensor(y_true, y_pred.dtype), y_pred


def _mean(x, axis=-1):
    return math_ops.divide(reduce_ops.reduce_sum(x, axis=axis), float(x.shape[axis]))


def squeeze_or_expand_dimensions(y_pred, y_true=None, sample_weight=None):
    """Keras' rank fix-up: drop or add a trailing 1 so ``y_true``/``sample_weight`` match ``y_pred``."""
    if y_true is not None:
        rp, rt = y_pred.ndim, y_true.ndim
        if rt == rp - 1 and y_pred.shape[-1] == 1:
            y_pred = array_ops.squeeze(y_pred, [-1])
        elif rp == rt - 1 and y_true.shape[-1] == 1:
            y_true = array_ops.squeeze(y_true, [-1])
    if sample_weight is None:
        return y_pred, y_true, None
    rw, rp = sample_weight.ndim, y_pred.ndim
    if rw == rp + 1 and sample_weight.shape[-1] == 1:
        sample_weight = array_ops.squeeze(sample_weight, [-1])
    elif rw == rp - 1 and rw > 0:
        sample_weight = array_ops.expand_dims(sample_weight, -1)
    return y_pred, y_true, sample_weight


def reduce_weighted_loss(weighted_losses, reduction=Reduction.SUM_OVER_BATCH_SIZE):
    """Reduce already-weighted per-sample losses."""
    if reduction == Reduction.NONE:
        return weighted_losses
    if reduction != Reduction.SUM and type(weighted_losses) is Tensor and weighted_losses._array.size \
            and weighted_losses._dtype in (dtypes.float32, dtypes.float64):
        return reduce_ops.reduce_mean(weighted_losses)  # = sum / count exactly (same steps), in one op
    total = reduce_ops.reduce_sum(weighted_losses)
    if reduction == Reduction.SUM:
        return total
    n = 1
    for d in (weighted_losses._array.shape if type(weighted_losses) is Tensor else weighted_losses.shape.as_list()):
        n *= d
    return math_ops.divide(total, float(n)) if n else total


def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.SUM_OVER_BATCH_SIZE, name=None):
    """Multiply ``losses`` by ``sample_weight`` (broadcast after a rank fix-up) and reduce."""
    Reduction.validate(reduction)
    if reduction == Reduction.AUTO:
        reduction = Reduction.SUM_OVER_BATCH_SIZE
    losses = _floating(losses)
    if sample_weight is not None:
        sw = _tensor(sample_weight, losses.dtype)
        _, _, sw = squeeze_or_expand_dimensions(losses, None, sw)
        losses = math_ops.multiply(losses, sw)
    return reduce_weighted_loss(losses, reduction)


# -- function forms ------------------------------------------------------------------------

def mean_squared_error(y_true, y_pred):
    """``mean(square(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return _mean(math_ops.squared_difference(y_pred, y_true))


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_pred - y_true), axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    return _mean(math_ops.abs(math_ops.subtract(y_pred, y_true)))


def huber(y_true, y_pred, delta=1.0):
    """``mean(0.5 * e**2 if |e| <= delta else delta * |e| - 0.5 * delta**2, axis=-1)``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    err = math_ops.abs(math_ops.subtract(y_pred, y_true))
    quadratic = math_ops.multiply(math_ops.square(err), 0.5)
    linear = math_ops.subtract(math_ops.multiply(err, float(delta)), 0.5 * delta * delta)
    return _mean(math_ops.where(math_ops.less_equal(err, float(delta)), quadratic, linear))


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)`` with both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    t = math_ops.clip_by_value(y_true, EPSILON, 1.0)
    p = math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return reduce_ops.reduce_sum(math_ops.multiply(t, math_ops.log(math_ops.divide(t, p))), axis=-1)


def _get_logits(output, from_logits, activation, fn_name):
    """``(tensor, from_logits)``: the logits a Keras ``activation`` cached on ``output``, if any (Keras'
    ``_get_logits``; it warns when ``from_logits=True`` was passed for such an output)."""
    logits = getattr(output, "_keras_logits", None)
    if logits is None or logits._array.shape != output._array.shape or logits._dtype is not output._dtype:
        return output, from_logits
    if from_logits:
        warnings.warn(f'"`{fn_name}` received `from_logits=True`, but the `output` argument was produced by a '
                      f'{activation} activation and thus does not represent logits. Was this intended?',
                      stacklevel=3)
    return logits, True


def _smooth(y_true, label_smoothing, num_classes):
    if not label_smoothing:
        return y_true
    ls = float(label_smoothing)
    return math_ops.add(math_ops.multiply(y_true, 1.0 - ls), ls / num_classes)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Mean over ``axis`` of ``-(y log p + (1-y) log(1-p))``; labels smoothed towards 0.5."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth(y_true, label_smoothing, 2)
    y_pred, from_logits = _get_logits(y_pred, from_logits, "Sigmoid", "binary_crossentropy")
    if from_logits:
        per = loss_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        bce = math_ops.add(math_ops.multiply(y_true, math_ops.log(math_ops.add(p, EPSILON))),
                           math_ops.multiply(math_ops.subtract(1.0, y_true),
                                             math_ops.log(math_ops.add(math_ops.subtract(1.0, p), EPSILON))))
        per = math_ops.negative(bce)
    return _mean(per, axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(y_true * log(p), axis)`` with ``p`` renormalised and clipped (or ``log_softmax`` of logits)."""
    y_true, y_pred = _pred_and_true(y_true, y_pred)
    y_true = _smooth(y_true, label_smoothing, y_pred.shape[axis])
    if axis in (-1, y_pred.ndim - 1):
        y_pred, from_logits = _get_logits(y_pred, from_logits, "Softmax", "categorical_crossentropy")
    if from_logits:
        return loss_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = math_ops.divide(y_pred, reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return math_ops.negative(reduce_ops.reduce_sum(math_ops.multiply(y_true, math_ops.log(p)), axis=axis))


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1, ignore_class=None):
    """Cross-entropy with integer labels; probabilities are clipped and logged (unless a softmax
    activation cached its logits), then the fused ``SparseSoftmaxCrossEntropyWithLogits`` op runs
    (as Keras' backend does)."""
    y_pred = _tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = math_ops.cast(y_pred, dtypes.float32)
    if axis in (-1, y_pred.ndim - 1):
        y_pred, from_logits = _get_logits(y_pred, from_logits, "Softmax", "sparse_categorical_crossentropy")
    else:
        perm = [i for i in range(y_pred.ndim) if i != axis % y_pred.ndim] + [axis % y_pred.ndim]
        y_pred = array_ops.transpose(y_pred, perm)
    # clip with maximum/minimum: same values and gradient as clip_by_value, fewer ops in the backward pass
    logits = y_pred if from_logits else math_ops.log(math_ops.minimum(math_ops.maximum(y_pred, EPSILON),
                                                                      1.0 - EPSILON))
    labels = _tensor(y_true)
    if labels.dtype is not dtypes.int64 and labels.dtype is not dtypes.int32:
        labels = math_ops.cast(labels, dtypes.int64)
    out_shape = logits._array.shape[:-1]
    if labels._array.shape != out_shape:
        labels = array_ops.reshape(labels, out_shape)
    valid = None
    if ignore_class is not None:
        valid = math_ops.not_equal(labels, int(ignore_class))
        labels = math_ops.where(valid, labels, array_ops.zeros_like(labels))
    flat_logits = logits if logits.ndim == 2 else array_ops.reshape(logits, (-1, logits.shape[-1]))
    flat_labels = labels if labels.ndim == 1 else array_ops.reshape(labels, (-1,))
    loss = loss_ops.sparse_softmax_cross_entropy_with_logits(labels=flat_labels, logits=flat_logits)
    if loss._array.shape != out_shape:
        loss = array_ops.reshape(loss, out_shape)
    if valid is not None:
        loss = math_ops.multiply(loss, math_ops.cast(valid, loss.dtype))
    return loss


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
kld = KLD = kullback_leibler_divergence = kl_divergence


# -- classes ---------------------------------------------------------------------------------

class Loss:
    """Base class: subclasses implement ``call(y_true, y_pred)`` returning per-sample losses."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction = reduction
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        """Per-sample losses from ``call``, weighted by ``sample_weight`` and reduced."""
        if not isinstance(y_true, dict | list | tuple):
            y_true = _tensor(y_true)
        if not isinstance(y_pred, dict | list | tuple):
            y_pred = _tensor(y_pred)
        losses = self.call(y_true, y_pred)
        return compute_weighted_loss(losses, sample_weight, self._get_reduction())

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _get_reduction(self):
        return Reduction.SUM_OVER_BATCH_SIZE if self.reduction == Reduction.AUTO else self.reduction

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A ``Loss`` computing per-sample values with ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if isinstance(y_true, Tensor) and isinstance(y_pred, Tensor) and self._fix_ranks:
            y_pred, y_true, _ = squeeze_or_expand_dimensions(y_pred, y_true)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    _fix_ranks = True

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error"):
        super().__init__(mean_squared_error, reduction=reduction, name=name)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error"):
        super().__init__(mean_absolute_error, reduction=reduction, name=name)


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction=Reduction.AUTO, name="huber_loss"):
        super().__init__(huber, reduction=reduction, name=name, delta=delta)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction=Reduction.AUTO, name="kl_divergence"):
        super().__init__(kl_divergence, reduction=reduction, name=name)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="binary_crossentropy"):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction=Reduction.AUTO,
                 name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    _fix_ranks = False  # the function reshapes labels to the logits' batch shape itself

    def __init__(self, from_logits=False, ignore_class=None, reduction=Reduction.AUTO,
                 name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits


# -- lookup --------------------------------------------------------------------------------

_CLASSES = {c.__name__: c for c in (Loss, LossFunctionWrapper, MeanSquaredError, MeanAbsoluteError, Huber,
                                     KLDivergence, BinaryCrossentropy, CategoricalCrossentropy,
                                     SparseCategoricalCrossentropy)}
_FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "huber": huber, "huber_loss": huber,
    "kl_divergence": kl_divergence, "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}


def serialize(loss):
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return loss.__name__


def deserialize(name, custom_objects=None):
    """A loss function (for a name) or a Loss object (for a ``{'class_name', 'config'}`` dict)."""
    if isinstance(name, dict):
        classes = {**_CLASSES, **(custom_objects or {})}
        cls = classes.get(name["class_name"])
        if cls is None:
            raise ValueError(f"Unknown loss function: '{name['class_name']}'. Please ensure you are using a "
                             "`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return cls.from_config(name["config"])
    table = {**_FUNCTIONS, **_CLASSES, **(custom_objects or {})}
    if name not in table:
        raise ValueError(f"Unknown loss function: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope.")
    obj = table[name]
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """A loss from a name ('mse', 'sparse_categorical_crossentropy', class names), a dict, a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str | dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


def is_categorical_crossentropy(loss):
    """True for the categorical (one-hot) cross-entropy in any of its forms (Keras uses it for 'accuracy')."""
    return isinstance(loss, CategoricalCrossentropy) or (
        isinstance(loss, LossFunctionWrapper) and loss.fn is categorical_crossentropy) or (
        loss is categorical_crossentropy or loss == "categorical_crossentropy")
