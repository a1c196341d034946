"""``tf.keras.mixed_precision.LossScaleOptimizer``: loss scaling around another optimizer.

float16 gradients underflow: small values flush to zero. The loss is multiplied by a large
"loss scale" before differentiation and the gradients divided by it afterwards, so the
intermediate float16 gradients stay representable. With ``dynamic=True`` (the default) the
scale adapts, as TF's dynamic loss scale:

- a step whose gradients are not all finite is skipped (no variable and no slot changes; only
  ``iterations`` advances, as in TF) and the scale is halved (never below 1);
- after ``dynamic_growth_steps`` consecutive finite steps the scale doubles (if the doubled
  scale is finite) and the counter restarts.

As in Keras 3 (TF 2.16+, so TF 2.21): a custom loop scales the loss with ``scale_loss``, takes the
tape's gradients of the scaled loss and passes them to ``apply_gradients``, which unscales them and
skips a non-finite step itself; ``minimize`` (used by Keras ``fit``) does the same. Keras 2's
``get_scaled_loss`` / ``get_unscaled_gradients`` do not exist in TF 2.21's Keras 3 optimizer: they raise
AttributeError naming ``scale_loss`` (a Keras 2 loop that unscaled the gradients itself and then called
``apply_gradients`` would unscale twice). Under a ``MirroredStrategy`` the finiteness check is made on the all-reduced
gradients, so every replica takes the same decision.
"""

import math

import numpy as np

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...framework import dtypes, tracing
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import ResourceVariable, Variable
from ...ops import math_ops, reduce_ops
from .. import optimizers
from ..optimizers import distributed
from ..optimizers.optimizer import Optimizer, _cpu_device, flatten_gradients

__all__ = ["LossScaleOptimizer"]

_DEFAULT_INITIAL_SCALE = 2.0 ** 15
_DEFAULT_GROWTH_STEPS = 2000
_MULTIPLIER = 2.0
_KERAS2_NAMES = ("get_scaled_loss", "get_unscaled_gradients")


class LossScaleOptimizer(Optimizer):
    """An optimizer that applies (dynamic) loss scaling to ``inner_optimizer``.

    Args:
      inner_optimizer: the ``tf.keras.optimizers.Optimizer`` to wrap.
      dynamic: adapt the loss scale (True) or keep ``initial_scale`` fixed (False).
      initial_scale: the starting (or, when not dynamic, the fixed) loss scale; 2**15 by default when
        dynamic, required when not.
      dynamic_growth_steps: finite steps between doublings of the scale (2000 by default; dynamic only).
    """

    def __init__(self, inner_optimizer, dynamic=True, initial_scale=None, dynamic_growth_steps=None):
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError('"inner_optimizer" must be an instance of `tf.keras.optimizers.Optimizer`, but got: '
                            f"{inner_optimizer!r}.")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError(f"LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: {inner_optimizer!r}")
        if not isinstance(dynamic, bool):
            raise TypeError(f'"dynamic" argument to LossScaleOptimizer.__init__ must be a bool, but got: {dynamic!r}')
        if dynamic:
            initial_scale = _DEFAULT_INITIAL_SCALE if initial_scale is None else initial_scale
            dynamic_growth_steps = _DEFAULT_GROWTH_STEPS if dynamic_growth_steps is None else dynamic_growth_steps
            if isinstance(dynamic_growth_steps, bool) or not isinstance(dynamic_growth_steps, int | np.integer) \
                    or dynamic_growth_steps < 1:
                raise ValueError('"dynamic_growth_steps" must be a positive integer, but got: '
                                 f"{dynamic_growth_steps!r}")
            dynamic_growth_steps = int(dynamic_growth_steps)
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            if dynamic_growth_steps is not None:
                raise ValueError('"dynamic_growth_steps" must be None if "dynamic" is False, but got: '
                                 f"{dynamic_growth_steps}")
        try:
            initial_scale = float(initial_scale)
        except (TypeError, ValueError):
            raise ValueError(f'"initial_scale" must be a number, but got: {initial_scale!r}') from None
        if not math.isfinite(initial_scale) or initial_scale <= 0:
            raise ValueError(f'"initial_scale" must be a positive finite number, but got: {initial_scale}')
        self._optimizer = inner_optimizer
        self._dynamic = dynamic
        self._initial_scale = initial_scale
        self._growth_steps = dynamic_growth_steps
        cpu = _cpu_device()
        self._loss_scale = Variable(np.float32(initial_scale), name="current_loss_scale", trainable=False,
                                    dtype=dtypes.float32, device=cpu)
        self._counter = Variable(np.int64(0), name="good_steps", trainable=False, dtype=dtypes.int64,
                                 device=cpu) if dynamic else None
        self.name = "LossScaleOptimizer"

    def __getattr__(self, name):
        # attributes of the wrapped optimizer (clipnorm, weight_decay, slots, ...) read through
        if name == "_optimizer":
            raise AttributeError(name)
        if name in _KERAS2_NAMES:
            raise AttributeError(f"'LossScaleOptimizer' object has no attribute '{name}': Keras 2's loss scaling "
                                 "API is not in Keras 3 (TF 2.16+). Scale the loss with `scale_loss(loss)` and pass "
                                 "the gradients of the scaled loss to `apply_gradients`, which unscales them.")
        return getattr(self._optimizer, name)

    # -- loss scale state --------------------------------------------------------------------------
    @property
    def dynamic(self):
        """Whether the loss scale is updated during training."""
        return self._dynamic

    @property
    def loss_scale(self):
        """The current loss scale as a float32 scalar tensor."""
        return self._loss_scale.value()

    @property
    def dynamic_counter(self):
        """Consecutive finite steps since the scale last changed (an int64 variable); None when not dynamic."""
        return self._counter

    @property
    def initial_scale(self):
        return self._initial_scale

    @property
    def dynamic_growth_steps(self):
        return self._growth_steps

    @property
    def inner_optimizer(self):
        return self._optimizer

    # -- scaling -------------------------------------------------------------------------------------
    def scale_loss(self, loss):
        """``loss * loss_scale`` (Keras 3), in the loss's dtype; a callable loss gives a callable.

        Differentiate the scaled loss and pass its gradients to :meth:`apply_gradients`, which unscales them.
        """
        if callable(loss) and not isinstance(loss, Tensor):
            return lambda: self.scale_loss(loss())
        loss = loss if isinstance(loss, Tensor) else convert_to_tensor(loss)
        return math_ops.multiply(loss, math_ops.cast(self._loss_scale.value(), loss.dtype))

    def _unscale(self, grads):
        """Each gradient divided by the loss scale (None stays None)."""
        reciprocal = math_ops.reciprocal(self._loss_scale.value())
        return [None if g is None else _scaled(g, math_ops.cast(reciprocal, g.dtype)) for g in grads]

    # -- the optimizer protocol ----------------------------------------------------------------------
    def compute_gradients(self, loss, var_list, tape=None):
        """Gradients of the *scaled* loss: what :meth:`apply_gradients` expects (it unscales them)."""
        tape = GradientTape() if tape is None else tape
        if callable(loss) and not isinstance(loss, Tensor):
            return self._optimizer.compute_gradients(self.scale_loss(loss), var_list, tape)
        with tape:
            scaled = self.scale_loss(loss)
        return self._optimizer.compute_gradients(scaled, var_list, tape)

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Unscale the gradients of a scaled loss and apply them unless one is not finite (Keras 3); update
        the loss scale. Returns ``iterations``.

        In a replica context the gradients are all-reduced first and the check is made on the sums.
        """
        pairs = list(grads_and_vars)
        ctx = distributed.in_multi_replica_context()
        if ctx is not None:
            return distributed.apply_across_replicas(ctx, pairs, self._apply_locally,
                                                     aggregate=not skip_gradients_aggregation)
        return self._apply_locally(pairs)

    def _apply_locally(self, pairs):
        """The step on the host: inside a tf.function one graph node, replayed with each call's gradients
        (the finite check reads the gradients in Python, which a traced graph cannot bake in)."""
        kept = [(g, v) for g, v in pairs if g is not None]
        variables = [v for _, v in kept]
        if not getattr(self._optimizer, "_built", True):
            tracing.creating_variables()  # its slots would be created on this trace (TF: first trace only)
        flat, rebuild = flatten_gradients([g for g, _ in kept])
        tracing.call_python(lambda *flat: self._apply_eagerly(list(zip(rebuild(flat), variables))),
                            flat, name="LossScaleOptimizerApply")
        return self._optimizer.iterations

    def _apply_eagerly(self, pairs):
        finite = all_finite([g for g, _ in pairs if g is not None])
        inner = self._optimizer
        if finite:
            grads = self._unscale([g for g, _ in pairs])
            inner._apply_gradients_locally(list(zip(grads, [v for _, v in pairs])))
        else:
            inner.iterations.assign_add(inner._one)  # the skipped step still counts, as TF
        if self._dynamic and self._owns_update():
            self._update_scale(finite)
        return inner.iterations

    def _owns_update(self):
        """A plain (not mirrored) scale is updated once per step, by the first replica's copy."""
        if type(self._loss_scale) is not ResourceVariable:
            return True
        return distribute_lib.current_component() in (None, 0)

    def _update_scale(self, finite):
        scale = float(self._loss_scale.numpy())
        if not finite:
            self._loss_scale.assign(np.float32(max(scale / _MULTIPLIER, 1.0)))
            self._counter.assign(np.int64(0))
            return
        count = int(self._counter.numpy()) + 1
        if count >= self._growth_steps:
            grown = np.float32(scale * _MULTIPLIER)
            if np.isfinite(grown):
                self._loss_scale.assign(grown)
            self._counter.assign(np.int64(0))
        else:
            self._counter.assign(np.int64(count))

    # -- delegated to the inner optimizer --------------------------------------------------------------
    @property
    def iterations(self):
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self._optimizer.iterations = value

    @property
    def learning_rate(self):
        return self._optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self._optimizer.learning_rate = value

    lr = learning_rate

    @property
    def variables(self):
        return self._optimizer.variables

    def build(self, var_list):
        self._optimizer.build(var_list)

    def finalize_variable_values(self, var_list):
        self._optimizer.finalize_variable_values(var_list)

    def get_slot(self, var, slot_name):
        return self._optimizer.get_slot(var, slot_name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def add_variable(self, shape, dtype=None, initializer="zeros", name=None):
        return self._optimizer.add_variable(shape, dtype, initializer, name)

    def add_variable_from_reference(self, model_variable, variable_name, shape=None, initial_value=None):
        return self._optimizer.add_variable_from_reference(model_variable, variable_name, shape, initial_value)

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        self._optimizer.exclude_from_weight_decay(var_list, var_names)

    # -- config ----------------------------------------------------------------------------------------
    def get_config(self):
        return {"inner_optimizer": optimizers.serialize(self._optimizer), "dynamic": self._dynamic,
                "initial_scale": self._initial_scale, "dynamic_growth_steps": self._growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["inner_optimizer"] = optimizers.deserialize(config["inner_optimizer"], custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<LossScaleOptimizer wrapping {self._optimizer!r}, loss scale {float(self._loss_scale.numpy()):g}>"


def _scaled(g, factor):
    """``g * factor``; an IndexedSlices stays sparse (Keras 3 multiplies its values)."""
    if type(g) is IndexedSlices:
        return IndexedSlices(math_ops.multiply(g.values, factor), g.indices, g.dense_shape)
    return math_ops.multiply(g, factor)


def all_finite(grads):
    """True when every element of every gradient is finite: one float32 sum per gradient, one host read.

    A sum is NaN/inf exactly when an element is (float32 sums of float16 values cannot overflow).
    """
    if not grads:
        return True
    grads = [g.values if type(g) is IndexedSlices else g for g in grads]  # finite iff its slices are
    sums = [reduce_ops.reduce_sum(g if g.dtype is dtypes.float32 or g.dtype is dtypes.float64
                                  else math_ops.cast(g, dtypes.float32)) for g in grads]
    total = sums[0]
    for s in sums[1:]:
        total = math_ops.add(total, s if s.dtype is total.dtype else math_ops.cast(s, total.dtype))
    return bool(np.isfinite(float(total.numpy())))
