"""``tf.keras.optimizers.Optimizer``: the base of every optimizer (TF 2.11+ API).

``apply_gradients(zip(grads, vars))`` is atomic: it first computes the new value
of every variable and slot with one fused op per variable (``ops.training_ops``),
and assigns them only when all succeeded, so a gradient of the wrong shape or
dtype raises ``InvalidArgumentError`` and changes nothing (not even
``iterations``). Updates run with tape recording stopped and outside any
``tf.device`` scope, on the variable's own device, where its slots live too.

Subclasses provide ``_slot_names`` (created per variable by ``build``) and
``_compute_update(grad, var, value, slots, lr, step)`` returning the new values
``[var, *slots]``. A user subclass may instead override ``update_step(gradient,
variable)`` TF-style (using ``add_variable_from_reference`` in ``build``); it is
then called per variable, without the all-or-nothing guarantee (it receives
IndexedSlices as they come, as in Keras 3).

Sparse gradients (``tf.IndexedSlices``, from ``tf.gather``/Embedding) are applied as Keras 3's TF backend
applies them: its ``update_step`` mixes the slices with dense slots, which makes them dense (repeated rows
summed), except where it squares (or takes the absolute value of) the gradient first, which it does per
slice. So the update is the dense one with the summed gradient, and with the per-row sum of the slices'
squares where the formula has ``g * g`` (Adam's, RMSprop's, Adagrad's second moments...): an Embedding row
looked up three times in a batch gets ``v += 3 g^2``, not ``(3 g)^2``. Each optimizer names the per-slice
terms it needs in ``_sparse_terms`` and takes them as keyword arguments of ``_compute_update``.
"""

import contextlib
import re

import numpy as np

from ...autodiff.tape import GradientTape
from ...framework import context as _ctx
from ...framework import deferred, dtypes, recording, tracing
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ...framework.tensor_conversion import convert_to_tensor
from ...framework.variables import ResourceVariable, Variable
from ...ops import math_ops, reduce_ops
from ..backend import unique_object_name
from ..engine.variable_paths import set_keras_path, to_snake_case
from . import distributed
from . import schedules as _schedules

_DEPRECATED_KWARGS = ("decay",)
_NO_SCOPE = contextlib.nullcontext()
# Optimizers whose ``_compute_update`` is element-wise with shared scalars (multi-tensor capable).
_BUILTIN_MODULES = frozenset(f"tfcore.keras.optimizers.{m}" for m in ("adam", "sgd", "rmsprop", "adagrad"))


class _VariableList(list):
    """``optimizer.variables`` is a property in TF 2.11 and a method before: support both spellings."""

    def __call__(self):
        return self


def _var_key(var):
    uid = getattr(var, "_uid", None)
    return uid if uid is not None else id(var)


# tfcore's slot names -> Keras 3's (Adam/Nadam/SGD "momentum", "velocity"; Adamax "norm")
_KERAS3_SLOT_NAMES = {"m": "momentum", "v": "velocity", "vhat": "velocity_hat", "u": "norm"}


def _short_name(var):
    name = getattr(var, "name", None) or "variable"
    return name[:-2] if name.endswith(":0") else name


def _cpu_device():
    _ctx.context.ensure_initialized()
    return _ctx.context.find("CPU", 0)


def _commit(var, value):
    """Install a value computed (and validated) by an update op."""
    if type(var) is ResourceVariable:
        var._value = value
    else:
        var.assign(value)


class Optimizer:
    """Base optimizer: learning rate (float, schedule or callable), clipping, weight decay, ``iterations``.

    Args mirror TF's: ``name``, ``weight_decay``, ``clipnorm``, ``clipvalue``, ``global_clipnorm``,
    ``use_ema``, ``ema_momentum``, ``ema_overwrite_frequency``, ``jit_compile`` (accepted; tfcore
    runs eagerly).
    """

    _slot_names = ()
    # Keras 3's attributes holding the slot variables, as its ``build`` creates them: one tuple of
    # ``(slot name, attribute)`` per ``add_optimizer_variables`` call, which interleaves its slots per
    # model variable. Checkpoints name the slot lists so (``optimizer/_momentums/0``) and list the slots
    # in this order in ``optimizer/_variables``, as TF 2.16+ writes them (saving/graph.py).
    _keras3_slot_lists = ()
    # Per-slice terms of an IndexedSlices gradient that ``_compute_update`` takes as keyword arguments
    # ('grad_sq': per-row sums of the slices' squares; 'grad_abs': of their absolute values).
    _sparse_terms = ()

    def __init__(self, name=None, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, jit_compile=True, **kwargs):
        for k in kwargs:
            if k in _DEPRECATED_KWARGS:
                raise ValueError(f"{k} is deprecated in the new Keras optimizer, please use a learning rate "
                                 "schedule instead.")
            if k != "lr":
                raise TypeError(f"{k} is not a valid argument, kwargs should be empty for `Optimizer`.")
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                             f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        if use_ema and not 0 <= ema_momentum <= 1:
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
        # Keras 3's auto_name: adam, adam_1, ... (one counter with layer names; clear_session resets it)
        self.name = unique_object_name(to_snake_case(type(self).__name__)) if name is None else name
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.jit_compile = jit_compile
        self._cpu = _cpu_device()
        self._iterations = self._keras_variable(Variable(np.int64(0), name="iteration", trainable=False,
                                                         dtype=dtypes.int64, device=self._cpu))
        self._one = convert_to_tensor(np.int64(1), device=self._cpu)  # the per-step increment
        self._variables = _VariableList([self._iterations])
        self._slots = {}            # var key -> list of slot variables (in _slot_names order)
        self._trainable_variables = []  # the model variables built, in build order (Keras 3's list)
        self._ema = {}              # var key -> EMA variable
        self._built = False
        self._excluded_from_decay = (set(), ())
        self._learning_rate = None
        self._current_learning_rate = None

    # -- learning rate ---------------------------------------------------------
    def _build_learning_rate(self, learning_rate):
        """A float becomes a float32 variable on the host; a schedule gets a variable for its current value."""
        if isinstance(learning_rate, _schedules.LearningRateSchedule):
            self._current_learning_rate = self._keras_variable(Variable(
                np.float32(_host_float(learning_rate(0))), name="current_learning_rate", trainable=False,
                dtype=dtypes.float32, device=self._cpu))
            return learning_rate
        if callable(learning_rate) and not isinstance(learning_rate, Variable):
            return learning_rate
        try:
            if learning_rate is None or isinstance(learning_rate, str | bytes | bool):
                raise TypeError(type(learning_rate).__name__)
            value = _host_float(learning_rate)
        except (TypeError, ValueError):
            raise ValueError("Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a "
                             "callable (that takes in the current iteration value and returns the corresponding "
                             f"learning rate value). Received instead: learning_rate={learning_rate!r}") from None
        return self._keras_variable(Variable(np.float32(value), name="learning_rate", trainable=False,
                                             dtype=dtypes.float32, device=self._cpu))

    def _keras_variable(self, variable, name=None):
        """Give an optimizer variable Keras 3's path: ``adam/iteration``, ``adam/dense_kernel_momentum``; under a
        wrapper that builds it (a LossScaleOptimizer), ``loss_scale_optimizer/adam/dense_kernel_momentum``."""
        prefix = self.name
        outer = self.__dict__.get("_outer_path")
        if outer:
            prefix = f"{outer}/{prefix}"
        return set_keras_path(variable, path=f"{prefix}/{name or variable._name[:-2]}")

    @property
    def learning_rate(self):
        lr = self._learning_rate
        if isinstance(lr, _schedules.LearningRateSchedule):
            return self._current_learning_rate
        return lr

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(self._learning_rate, _schedules.LearningRateSchedule):
            raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                            "`learning_rate` constructor argument, hence its learning rate is not settable. "
                            "If you need the learning rate to be settable, you should instantiate the "
                            "optimizer with a float `learning_rate` argument.")
        if isinstance(value, _schedules.LearningRateSchedule) or (
                callable(value) and not isinstance(value, Variable)):
            self._learning_rate = self._build_learning_rate(value)
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(np.float32(_host_float(value)))
        else:
            self._learning_rate = self._build_learning_rate(value)

    lr = learning_rate

    def _current_lr(self):
        """This step's learning rate as a Python float (schedules are evaluated at ``iterations``)."""
        lr = self._learning_rate
        if isinstance(lr, Variable):
            return float(lr._value)
        if isinstance(lr, _schedules.LearningRateSchedule):
            value = lr(self._iterations)
            self._current_learning_rate.assign(np.float32(_host_float(value)))
            return _host_float(value)
        return _host_float(lr())

    # -- iterations / variables ---------------------------------------------------
    @property
    def iterations(self):
        """The number of updates applied so far (an int64 variable)."""
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self._iterations.assign(np.int64(_host_float(value)))

    def _step(self):
        it = self._iterations
        return int(it._value._array) if type(it) is ResourceVariable else int(np.asarray(it.numpy()))

    @property
    def built(self):
        """Whether ``build`` has created the slot variables (Keras 3's ``Optimizer.built``)."""
        return self._built

    @property
    def variables(self):
        """Keras 3's list: ``[iteration, learning_rate, *slot variables]`` in creation order, the learning
        rate there when it is a variable (a float's; not a schedule's or a callable's). Callable as
        ``variables()`` too. ``summary()`` counts these as "Optimizer params" (an Adam is ``2 + 2n``)."""
        lr = self._learning_rate
        if isinstance(lr, Variable):
            return _VariableList([self._variables[0], lr, *self._variables[1:]])
        return self._variables

    def add_variable(self, shape, dtype=None, initializer="zeros", name=None):
        """A new non-trainable optimizer variable (``initializer``: 'zeros', 'ones' or a callable)."""
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        value = _initial_value(initializer, tuple(shape), dtype)
        v = self._keras_variable(Variable(value, name=name or "variable", trainable=False, dtype=dtype))
        self._variables.append(v)
        return v

    def add_variable_from_reference(self, model_variable, variable_name, shape=None, initial_value=None):
        """A slot like ``model_variable`` (same dtype, device; zeros unless ``initial_value``)."""
        shape = tuple(model_variable.shape.as_list()) if shape is None else tuple(shape)
        dtype = model_variable.dtype
        if initial_value is None:
            initial_value = np.zeros(shape, dtype.as_numpy_dtype)
        name = f"{self.name}/{variable_name}/{_short_name(model_variable)}"
        dev = getattr(model_variable, "_device", None)
        v = Variable(initial_value, name=name, trainable=False, dtype=dtype,
                     device=dev if isinstance(dev, _ctx.Device) else None)
        # Keras 3 names a slot after the model variable's path and the slot: dense_kernel_momentum
        ref = getattr(model_variable, "_keras_path", None) or getattr(model_variable, "name", None) or "variable"
        slot = _KERAS3_SLOT_NAMES.get(variable_name, variable_name)
        self._keras_variable(v, name=f"{ref.replace('/', '_').replace(':', '_')}_{slot}")
        self._variables.append(v)
        return v

    def _slot_initial_value(self, slot_name, var):
        return None

    def build(self, var_list):
        """Create the slots of every variable in ``var_list`` (once per variable)."""
        self._create_slots(var_list)
        self._built = True

    def keras3_slot_groups(self):
        """This optimizer's slot names grouped as Keras 3's ``build`` creates them: one group per
        ``add_optimizer_variables`` call (``_keras3_slot_lists``), slot names the class does not map last."""
        names = list(self._slot_names)
        groups = [[s for s, _ in g if s in names] for g in self._keras3_slot_lists]
        listed = {s for g in groups for s in g}
        return [g for g in groups if g] + ([[s for s in names if s not in listed]] if len(listed) < len(names) else [])

    def _create_slots(self, var_list):
        """The slots of the variables of ``var_list`` that have none yet, made in Keras 3's order: the EMA
        averages of all of them, then each slot group's slots interleaved per variable (RMSprop: every
        velocity, then every momentum). ``variables`` lists them so, and a ``.keras`` file saves the optimizer's
        variables by that index."""
        new, keys = [], set()
        for var in var_list:
            key = _var_key(var)
            if key not in self._slots and key not in keys:
                keys.add(key)
                new.append(var)
        if not new:  # every step after the first: nothing to build
            return
        averages = [self.add_variable_from_reference(v, "average", initial_value=v.numpy())
                    for v in new] if self.use_ema else []
        made = [{} for _ in new]
        for group in self.keras3_slot_groups():
            for var, slots in zip(new, made):
                for n in group:
                    slots[n] = self.add_variable_from_reference(var, n, initial_value=self._slot_initial_value(n, var))
        for i, (var, slots) in enumerate(zip(new, made)):
            key = _var_key(var)
            self._slots[key] = [slots[n] for n in self._slot_names]
            self._trainable_variables.append(var)
            if averages:
                self._ema[key] = averages[i]
            for n in self._slot_names:  # checkpoint values restored before the slots existed
                deferred.created(self, deferred.slot_name(var, n), slots[n])

    def get_slot_names(self):
        return list(self._slot_names)

    def get_slot(self, var, slot_name):
        """Legacy-optimizer access to one slot variable of ``var``."""
        return self._slots[_var_key(var)][list(self._slot_names).index(slot_name)]

    # -- weight decay --------------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Variables (or names matching any of ``var_names``) that weight decay skips."""
        ids = {_var_key(v) for v in var_list or ()}
        self._excluded_from_decay = (ids, tuple(var_names or ()))

    def _decays(self, var):
        if not self.weight_decay:
            return False
        ids, names = self._excluded_from_decay
        if _var_key(var) in ids:
            return False
        return not any(re.search(n, var.name) for n in names)

    # -- gradients -------------------------------------------------------------------
    def compute_gradients(self, loss, var_list, tape=None):
        """``[(gradient, variable)]`` of ``loss`` (a tensor with ``tape``, or a no-argument callable)."""
        if not callable(loss) and tape is None:
            raise ValueError(f"`tape` is required when a `Tensor` loss is passed. Received: loss={loss}, "
                             f"tape={tape}.")
        if tape is None:
            tape = GradientTape()
        if callable(loss):
            with tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = tape.gradient(loss, var_list)
        return list(zip(grads, var_list))

    def minimize(self, loss, var_list, tape=None):
        """Compute gradients of ``loss`` and apply them; returns ``iterations``."""
        grads_and_vars = self.compute_gradients(loss, var_list, tape)
        return self.apply_gradients(grads_and_vars)

    def _clip_gradients(self, grads):
        """Keras 3's clipping; an IndexedSlices stays sparse under ``clipnorm`` (the norm of its slices, as
        ``tf.clip_by_norm``) and becomes dense under ``global_clipnorm`` and ``clipvalue``."""
        if self.clipnorm is not None and self.clipnorm > 0:
            return [IndexedSlices(clip_by_norm(g.values, self.clipnorm), g.indices, g.dense_shape)
                    if type(g) is IndexedSlices else clip_by_norm(g, self.clipnorm) for g in grads]
        if self.global_clipnorm is not None and self.global_clipnorm > 0:
            return clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue is not None and self.clipvalue > 0:
            return [math_ops.clip_by_value(_dense(g), -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False, **kwargs):
        """Apply ``(gradient, variable)`` pairs (``None`` gradients are skipped); returns ``iterations``.

        All-or-nothing for built-in optimizers: every new value is computed before any is assigned.
        """
        pairs = list(grads_and_vars)
        ctx = distributed.in_multi_replica_context()
        if ctx is not None:
            return distributed.apply_across_replicas(ctx, pairs, self._apply_gradients_locally,
                                                     aggregate=not skip_gradients_aggregation)
        return self._apply_gradients_locally(pairs)

    def _apply_gradients_locally(self, pairs):
        """The update on this replica's copies (the whole update outside distribution).

        Inside tf.function the update is one graph node replayed with each call's gradients: its
        step-dependent host scalars (learning rate schedules, bias corrections) are recomputed per call.
        """
        if tracing.is_tracing():
            kept = [(g, v) for g, v in pairs if g is not None]
            variables = [v for _, v in kept]
            if not self._built:
                tracing.creating_variables()  # TF: a second optimizer's slots on a later trace raise ValueError
                with tracing.suspended():
                    self.build(variables)
            flat, rebuild = flatten_gradients([g for g, _ in kept])
            tracing.call_python(lambda *flat: self._apply_gradients_eagerly(list(zip(rebuild(flat), variables))),
                                flat, name="OptimizerApply")
            return self._iterations
        return self._apply_gradients_eagerly(pairs)

    def _apply_gradients_eagerly(self, pairs):
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            raise ValueError(f"No gradients provided for any variable: {[_short_name(v) for _, v in pairs]}. "
                             f"Provided `grads_and_vars` is {pairs}.")
        grads = [g if isinstance(g, Tensor | IndexedSlices) else convert_to_tensor(g) for g, _ in kept]
        variables = [getattr(v, "_autocast_wrapped", v) for _, v in kept]  # update an AutoCastVariable's own
        # updates run on each variable's own device: clear an active tf.device scope (if any)
        with recording.stop_recording(), (_ctx.device(None) if _ctx.current_device() is not None else _NO_SCOPE):
            if not self._built:
                self.build(variables)
            self._create_slots(variables)
            grads = self._clip_gradients(grads)
            lr = self._current_lr()
            if type(self).update_step is not Optimizer.update_step:
                self._apply_user_steps(grads, variables, lr)
            else:
                step = self._step() + 1
                if self._can_update_together(grads, variables):
                    updates = self._updates_together(grads, variables, lr, step)
                else:
                    updates = [self._updates_for(g, v, lr, step) for g, v in zip(grads, variables)]
                for var_and_slots, new_values in updates:
                    for target, value in zip(var_and_slots, new_values):
                        _commit(target, value)
            self._iterations.assign_add(self._one)
            if self.use_ema:
                self._update_ema(variables)
        return self._iterations

    def _updates_for(self, grad, var, lr, step):
        slots = self._slots[_var_key(var)]
        value = var.value()
        if self._decays(var):
            value = math_ops.multiply(value, convert_to_tensor(1.0 - self.weight_decay * lr, dtype=value._dtype))
        if type(grad) is IndexedSlices:
            new = self._compute_sparse_update(grad, value, [s.value() for s in slots], lr, step)
        else:
            new = self._compute_update(grad, value, [s.value() for s in slots], lr, step)
        if not isinstance(new, tuple | list):
            new = (new,)
        return [var, *slots], new

    def _can_update_together(self, grads, variables):
        """True when one multi-tensor update op can serve every variable: a built-in optimizer's
        element-wise update, no weight decay, plain variables (or one replica's copies of mirrored ones, in
        the distributed merge) of one dtype on one device."""
        if len(variables) < 2 or self.weight_decay or type(self)._compute_update.__module__ not in _BUILTIN_MODULES:
            return False
        first = variables[0]._value
        dev, dt = first._device, first._dtype
        for v, g in zip(variables, grads):
            if type(g) is IndexedSlices:
                return False
            if type(v) is not ResourceVariable and not distributed.is_mirrored_copy_update(v):
                return False
            if v._value._device is not dev or v._value._dtype is not dt:
                return False
            if g._dtype is not dt:
                return False  # the per-variable ops report the mismatch
        return True

    def _updates_together(self, grads, variables, lr, step):
        """:meth:`_updates_for` of every variable through ONE update op (``_compute_update`` gets lists)."""
        slot_lists = [self._slots[_var_key(v)] for v in variables]
        values = [v.value() for v in variables]
        slots = [[s[j].value() for s in slot_lists] for j in range(len(self._slot_names))] if slot_lists else []
        new = self._compute_update(list(grads), values, slots, lr, step)
        if type(new) is list:
            new = (new,)
        return [([v, *s], [column[i] for column in new]) for i, (v, s) in enumerate(zip(variables, slot_lists))]

    def _apply_user_steps(self, grads, variables, lr):
        for g, v in zip(grads, variables):
            if self._decays(v):
                v.assign_sub(v * (self.weight_decay * lr))
            self.update_step(g, v)

    def update_step(self, gradient, variable):
        """One variable's update (built-ins compute it fused; TF-style subclasses override this)."""
        with recording.stop_recording():
            targets, values = self._updates_for(gradient, variable, self._current_lr(), self._step() + 1)
            for t, v in zip(targets, values):
                _commit(t, v)

    def _compute_sparse_update(self, grad, value, slots, lr, step):
        """The update for an IndexedSlices ``grad`` (see the module docstring): ``_compute_update`` with the
        slices summed per row, plus the per-slice terms named in ``_sparse_terms``."""
        if grad.dtype is not value._dtype:
            grad = IndexedSlices(math_ops.cast(grad.values, value._dtype), grad.indices, grad.dense_shape)
        terms = {}
        if "grad_sq" in self._sparse_terms:
            terms["grad_sq"] = _dense(IndexedSlices(math_ops.square(grad.values), grad.indices, grad.dense_shape))
        if "grad_abs" in self._sparse_terms:
            terms["grad_abs"] = _dense(IndexedSlices(math_ops.abs(grad.values), grad.indices, grad.dense_shape))
        return self._compute_update(_dense(grad), value, slots, lr, step, **terms)

    def _compute_update(self, grad, value, slots, lr, step):
        raise NotImplementedError(f"{type(self).__name__} must implement `update_step(gradient, variable)`.")

    def _update_ema(self, variables):
        m = self.ema_momentum
        for v in variables:
            ema = self._ema[_var_key(v)]
            ema.assign(ema._value * np.asarray(m, ema.dtype.as_numpy_dtype)
                       + v.value() * np.asarray(1 - m, ema.dtype.as_numpy_dtype))
        freq = self.ema_overwrite_frequency
        if freq and self._step() % freq == 0:
            self.finalize_variable_values(variables)

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, overwrite the variables with their moving averages (end of ``fit``)."""
        if not self.use_ema:
            return
        for v in var_list:
            ema = self._ema.get(_var_key(v))
            if ema is not None:
                v.assign(ema._value)

    # -- config --------------------------------------------------------------------------
    def _hyper_config(self):
        return {}

    def get_config(self):
        lr = self._learning_rate
        if isinstance(lr, _schedules.LearningRateSchedule):
            lr_config = _schedules.serialize(lr)
        elif isinstance(lr, Variable):
            lr_config = float(lr._value)
        else:
            lr_config = lr
        config = {"name": self.name, "weight_decay": self.weight_decay, "clipnorm": self.clipnorm,
                  "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue, "use_ema": self.use_ema,
                  "ema_momentum": self.ema_momentum, "ema_overwrite_frequency": self.ema_overwrite_frequency,
                  "learning_rate": lr_config}
        config.update(self._hyper_config())
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config.pop("is_legacy_optimizer", None)  # Keras 2's configs
        for key in ("loss_scale_factor", "gradient_accumulation_steps"):  # Keras 3's, TF 2.21 writes them
            value = config.pop(key, None)
            if value is not None:
                raise ValueError(f"{cls.__name__}.from_config: `{key}`={value!r} is not supported by "
                                 "tfcore (scale the loss or accumulate gradients in a custom step).")
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            config["learning_rate"] = _schedules.deserialize(lr, custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self.name!r}>"


def _host_float(x):
    if hasattr(x, "numpy"):
        return float(np.asarray(x.numpy()))
    return float(x)


def _initial_value(initializer, shape, dtype):
    if callable(initializer):
        return initializer(shape, dtype=dtype)
    if initializer == "zeros":
        return np.zeros(shape, dtype.as_numpy_dtype)
    if initializer == "ones":
        return np.ones(shape, dtype.as_numpy_dtype)
    raise ValueError(f"Unknown initializer {initializer!r}: use 'zeros', 'ones' or a callable")


def flatten_gradients(grads):
    """``(tensors, rebuild)``: gradients as a flat list of tensors for a traced graph node (an IndexedSlices
    as its values, indices and dense shape) and the function that rebuilds them from a replay's tensors."""
    flat, layout = [], []
    for g in grads:
        if type(g) is IndexedSlices:
            layout.append(True)
            flat.extend((g.values, g.indices, g.dense_shape))
        else:
            layout.append(False)
            flat.append(g)

    def rebuild(tensors):
        out, i = [], 0
        for sparse in layout:
            if sparse:
                out.append(IndexedSlices(*tensors[i:i + 3]))
                i += 3
            else:
                out.append(tensors[i])
                i += 1
        return out

    return flat, rebuild


def _dense(g):
    """A gradient as a dense tensor (an IndexedSlices' repeated rows summed)."""
    return convert_to_tensor(g) if type(g) is IndexedSlices else g


def _sum_squares(g):
    """Sum of squares of a gradient (of an IndexedSlices' slices, as Keras 3's ``global_norm``)."""
    return reduce_ops.reduce_sum(math_ops.square(g.values if type(g) is IndexedSlices else g))


def clip_by_norm(t, clip_norm):
    """``t * clip_norm / max(l2norm(t), clip_norm)`` (TF's ``tf.clip_by_norm`` over all axes)."""
    norm = math_ops.sqrt(_sum_squares(t))
    c = convert_to_tensor(clip_norm, dtype=t.dtype)
    return math_ops.divide(math_ops.multiply(t, c), math_ops.maximum(norm, c))


def clip_by_global_norm(t_list, clip_norm):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)`` (TF's ``tf.clip_by_global_norm``)."""
    sq = [math_ops.cast(_sum_squares(t), dtypes.float32) for t in t_list]
    global_norm = float(np.sqrt(sum(float(s) for s in sq)))
    if not np.isfinite(global_norm):
        scale = float("nan")
    else:
        scale = clip_norm / max(global_norm, clip_norm)
    if scale == 1.0:
        return [_dense(t) for t in t_list]
    return [math_ops.multiply(_dense(t), convert_to_tensor(scale, dtype=t.dtype)) for t in t_list]
