"""The base of every Keras loss: ``Loss`` (weighting and reduction), ``LossFunctionWrapper`` (a class around
a per-sample loss function) and the helpers they share.

A ``Loss`` object computes per-sample losses with ``call(y_true, y_pred)`` and then
weights and reduces them (``compute_weighted_loss``), exactly as Keras does:
``SUM_OVER_BATCH_SIZE`` (the default behind ``AUTO``) divides the weighted sum by the
NUMBER of per-sample losses, not by the sum of the weights. Probabilities are clipped
to ``[epsilon, 1 - epsilon]`` (``epsilon = 1e-7``) before logarithms, as Keras'
backend does. Keras 3 keeps the same split (``keras/src/losses/loss.py``).
"""


from ...framework import dtypes
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import Variable
from ...ops import array_ops, math_ops, reduce_ops

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
    if isinstance(x, Variable):
        x = x.value()
        return x if dtype is None else math_ops.cast(x, dtype)
    if isinstance(x, Tensor):
        return math_ops.cast(x, dtype)
    return convert_to_tensor(x, dtype=dtype)


def _floating(x):
    """``x`` as a float32/float64 tensor: float16/bfloat16 (mixed-precision outputs) and non-floating
    values are cast to float32, so losses are computed and reduced in float32 (as Keras 3 does)."""
    x = _tensor(x)
    return x if x.dtype is dtypes.float32 or x.dtype is dtypes.float64 else math_ops.cast(x, dtypes.float32)


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
