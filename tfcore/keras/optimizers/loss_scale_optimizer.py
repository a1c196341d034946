"""``tf.keras.optimizers.LossScaleOptimizer`` (also in ``tf.keras.mixed_precision``): dynamic loss scaling
around another optimizer, as Keras 3.

float16 gradients underflow: small values flush to zero. The loss is multiplied by a large "loss scale"
before differentiation and the gradients divided by it afterwards, so the intermediate float16 gradients
stay representable. The scale adapts as Keras 3's (TF 2.16+, so TF 2.21; each rule read from
``keras/src/optimizers/loss_scale_optimizer.py`` and run on TF 2.21):

- a step whose gradients are not all finite is skipped: the inner optimizer does not run (no variable,
  slot or ``iterations`` change), ``step_counter`` goes back to 0 and ``dynamic_scale`` is halved (no
  lower bound);
- a finite step unscales the gradients by ``dynamic_scale`` and applies them with the inner optimizer;
  after ``dynamic_growth_steps`` consecutive finite steps the scale doubles and the counter restarts.

A custom loop scales the loss with ``scale_loss``, takes the tape's gradients of the scaled loss and passes
them to ``apply_gradients``, which unscales them; ``minimize`` (used by Keras ``fit``) does the same. Keras
2's API is gone in TF 2.21: ``dynamic=False`` raises TF's ValueError, and ``get_scaled_loss``,
``get_unscaled_gradients``, ``loss_scale``, ``dynamic_counter`` and ``dynamic`` raise AttributeError naming
Keras 3's replacement (a Keras 2 loop that unscaled the gradients itself would unscale twice).

The variables and checkpoints are Keras 3's: ``variables`` is ``[loss_scale_optimizer/iteration,
loss_scale_optimizer/learning_rate, loss_scale_optimizer/step_counter, loss_scale_optimizer/dynamic_scale]``
then the inner optimizer's (its slots built under the wrapper: ``loss_scale_optimizer/adam/..._momentum``),
and a ``tf.train.Checkpoint`` holds ``optimizer/dynamic_scale``, ``optimizer/step_counter`` and
``optimizer/inner_optimizer/...``, so checkpoints move between TF 2.21 and tfcore. ``iterations`` and
``learning_rate`` are the inner optimizer's. Under a ``MirroredStrategy`` the finiteness check is made on
the all-reduced gradients, so every replica takes the same decision.
"""

import math

import numpy as np

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...framework import dtypes, tracing
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import ResourceVariable
from ...ops import math_ops, reduce_ops
from . import distributed, serialization
from .optimizer import Optimizer, flatten_gradients

__all__ = ["LossScaleOptimizer"]

_DEFAULT_INITIAL_SCALE = 2.0 ** 15
_DEFAULT_GROWTH_STEPS = 2000
# Keras 2 names that TF 2.21's Keras 3 optimizer does not have, and what replaces each
_KERAS2_NAMES = {
    "get_scaled_loss": "Scale the loss with `scale_loss(loss)` and pass the gradients of the scaled loss to "
                       "`apply_gradients`, which unscales them.",
    "get_unscaled_gradients": "Pass the gradients of the `scale_loss(loss)` to `apply_gradients`, which unscales "
                              "them.",
    "loss_scale": "The current scale is the variable `dynamic_scale`.",
    "dynamic_counter": "The finite steps since the scale last changed are the variable `step_counter`.",
    "dynamic": "Loss scaling is always dynamic in Keras 3.",
}


class LossScaleOptimizer(Optimizer):
    """An optimizer that applies dynamic loss scaling to ``inner_optimizer`` (Keras 3's).

    Args:
      inner_optimizer: the ``tf.keras.optimizers.Optimizer`` to wrap.
      initial_scale: the starting loss scale (2**15).
      dynamic_growth_steps: finite steps between doublings of the scale (2000).
      name: the optimizer's name (its variables' paths start with it in snake case).
    """

    def __init__(self, inner_optimizer, initial_scale=_DEFAULT_INITIAL_SCALE,
                 dynamic_growth_steps=_DEFAULT_GROWTH_STEPS, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError('"inner_optimizer" must be an instance of `tf.keras.optimizers.Optimizer`, but got: '
                            f"{inner_optimizer!r}.")
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError(f"LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: {inner_optimizer!r}")
        if isinstance(dynamic_growth_steps, bool) or not isinstance(dynamic_growth_steps, int | np.integer) \
                or dynamic_growth_steps < 1:
            raise ValueError(f'"dynamic_growth_steps" must be a positive integer, but got: {dynamic_growth_steps!r}')
        try:
            scale = float(initial_scale)
        except (TypeError, ValueError):
            raise ValueError(f'"initial_scale" must be a number, but got: {initial_scale!r}') from None
        if not math.isfinite(scale) or scale <= 0:
            raise ValueError(f'"initial_scale" must be a positive finite number, but got: {initial_scale}')
        super().__init__(name=name, **kwargs)
        self._learning_rate = self._build_learning_rate(0.0)  # Keras 3's wrapper has its own, unused
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        # the inner optimizer's slots are built under the wrapper: loss_scale_optimizer/adam/..._momentum
        object.__setattr__(inner_optimizer, "_outer_path", self.name)

    def __getattr__(self, name):
        # other attributes of the wrapped optimizer (slots, amsgrad, ...) read through
        if name in ("step_counter", "dynamic_scale"):
            raise AttributeError(f"'LossScaleOptimizer' object has no attribute '{name}' yet: it is created when "
                                 "the optimizer is built (the first apply_gradients, or build(var_list))")
        if name == "inner_optimizer" or name.startswith("__"):
            raise AttributeError(name)
        if name in _KERAS2_NAMES:
            raise AttributeError(f"'LossScaleOptimizer' object has no attribute '{name}': Keras 2's loss scaling "
                                 f"API is not in Keras 3 (TF 2.16+). {_KERAS2_NAMES[name]}")
        return getattr(self.inner_optimizer, name)

    # -- state -----------------------------------------------------------------------------------------
    def build(self, var_list):
        """Create ``step_counter`` and ``dynamic_scale``, then build the inner optimizer (Keras 3's order)."""
        if self._built:
            return
        self.step_counter = self.add_variable((), dtype=dtypes.int64, name="step_counter")
        self.dynamic_scale = self.add_variable((), dtype=dtypes.float32, name="dynamic_scale",
                                               initializer=lambda shape, dtype: np.float32(self.initial_scale))
        var_list = list(var_list)
        self.inner_optimizer.build(var_list)
        super().build(var_list)  # no slots of its own: records the model variables (checkpoints list them)

    @property
    def variables(self):
        """Keras 3's list: the wrapper's iteration, learning rate, step counter and scale, then the inner
        optimizer's variables."""
        return type(self._variables)([*super().variables, *self.inner_optimizer.variables])

    @property
    def iterations(self):
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self.inner_optimizer.iterations = value

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    lr = learning_rate

    # -- scaling -------------------------------------------------------------------------------------
    def _scale(self):
        return self.dynamic_scale.value() if self._built else convert_to_tensor(np.float32(self.initial_scale))

    def scale_loss(self, loss):
        """``loss * scale`` as Keras 3 computes it: the current ``dynamic_scale`` (``initial_scale`` before the
        first step), a float16 loss promoted to float32 (Keras' type promotion); a callable gives a callable.

        Differentiate the scaled loss and pass its gradients to :meth:`apply_gradients`, which unscales them.
        """
        if callable(loss) and not isinstance(loss, Tensor):
            return lambda: self.scale_loss(loss())
        loss = loss if isinstance(loss, Tensor) else convert_to_tensor(loss)
        scale = self._scale()
        if loss.dtype in (dtypes.float16, dtypes.bfloat16):
            loss = math_ops.cast(loss, dtypes.float32)
        return math_ops.multiply(loss, math_ops.cast(scale, loss.dtype))

    def _unscale(self, grads):
        """Each gradient times ``1 / dynamic_scale`` in its dtype (None stays None)."""
        reciprocal = math_ops.reciprocal(self.dynamic_scale.value())
        return [None if g is None else _scaled(g, math_ops.cast(reciprocal, g.dtype)) for g in grads]

    # -- the optimizer protocol ----------------------------------------------------------------------
    def compute_gradients(self, loss, var_list, tape=None):
        """Gradients of the *scaled* loss: what :meth:`apply_gradients` expects (it unscales them)."""
        tape = GradientTape() if tape is None else tape
        if callable(loss) and not isinstance(loss, Tensor):
            return self.inner_optimizer.compute_gradients(self.scale_loss(loss), var_list, tape)
        with tape:
            scaled = self.scale_loss(loss)
        return self.inner_optimizer.compute_gradients(scaled, var_list, tape)

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Unscale the gradients of a scaled loss and apply them with the inner optimizer unless one is not
        finite; update the loss scale (Keras 3). Returns ``iterations``.

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
        if not self._built:  # Keras 3 builds on the first apply (under a strategy: in its scope, in the merge)
            if tracing.is_tracing():
                tracing.creating_variables()  # TF: variables created on a later trace raise ValueError
            with tracing.suspended():
                self.build([getattr(v, "_autocast_wrapped", v) for _, v in pairs])
        flat, rebuild = flatten_gradients([g for g, _ in kept])
        tracing.call_python(lambda *flat: self._apply_eagerly(list(zip(rebuild(flat), variables))),
                            flat, name="LossScaleOptimizerApply")
        return self.inner_optimizer.iterations

    def _apply_eagerly(self, pairs):
        finite = all_finite([g for g, _ in pairs if g is not None])
        if finite:
            grads = self._unscale([g for g, _ in pairs])
            self.inner_optimizer._apply_gradients_locally(list(zip(grads, [v for _, v in pairs])))
        if self._owns_update():
            self._update_scale(finite)
        return self.inner_optimizer.iterations

    def _owns_update(self):
        """A plain (not mirrored) scale is updated once per step, by the first replica's copy."""
        if type(self.dynamic_scale) is not ResourceVariable:
            return True
        return distribute_lib.current_component() in (None, 0)

    def _update_scale(self, finite):
        scale = float(self.dynamic_scale.numpy())
        if not finite:
            self.step_counter.assign(np.int64(0))
            self.dynamic_scale.assign(np.float32(scale / 2.0))
        elif int(self.step_counter.numpy()) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(np.int64(0))
            self.dynamic_scale.assign(np.float32(scale * 2.0))
        else:
            self.step_counter.assign_add(np.int64(1))

    # -- delegated to the inner optimizer --------------------------------------------------------------
    def finalize_variable_values(self, var_list):
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_slot(self, var, slot_name):
        return self.inner_optimizer.get_slot(var, slot_name)

    def get_slot_names(self):
        return self.inner_optimizer.get_slot_names()

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        self.inner_optimizer.exclude_from_weight_decay(var_list, var_names)

    # -- config ----------------------------------------------------------------------------------------
    def get_config(self):
        return {"name": self.name, "inner_optimizer": serialization.serialize(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config.pop("dynamic", None)  # a Keras 2 config (True: Keras 3 is always dynamic)
        config["inner_optimizer"] = serialization.deserialize(config["inner_optimizer"], custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self):
        scale = float(self.dynamic_scale.numpy()) if self._built else float(self.initial_scale)
        return f"<LossScaleOptimizer wrapping {self.inner_optimizer!r}, loss scale {scale:g}>"


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
