"""The Keras trainer, mixed into ``keras.Model``: compile, fit, evaluate, predict and the steps (Keras 3's
``trainers/trainer.py``).

``fit`` walks the epochs and steps of an :class:`~.epoch_iterator.EpochIterator` (batches from the data
adapter, ``steps_per_execution`` groups), runs each through a :class:`~.step_runner.StepRunner` (the one
place that decides whether a step runs eagerly, as ``tf.function(step)`` or as
``strategy.run(tf.function(step))``) and hands the returned logs to the callbacks. ``train_step`` is
Keras's: forward under a ``GradientTape``, ``compute_loss`` (the compiled loss plus ``self.losses``),
``optimizer.minimize``, ``compute_metrics``; a subclass may override it (using ``self.compiled_loss``,
``self.compiled_metrics``, ``self.optimizer`` or ``self.compute_loss``) and return a dict of results.

``compile(run_eagerly=False)`` (the default, as in TF) runs ``train_step``/``test_step``/``predict_step``
as tf.functions (traced once per input structure, shapes generalised), under a distribution strategy
one compiled step per replica device with one synchronisation per step; ``run_eagerly=True`` (or
``tf.config.run_functions_eagerly(True)``) calls them directly. ``steps_per_execution=N`` runs N
train steps per function call (one device).

Logs stay tensors during an epoch; they are turned into Python floats only when a callback needs
them per batch (the progress bar does at ``verbose=1``) and at the end of each epoch.
"""

import numbers
import warnings

import numpy as np

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...framework import nest, tracing
from ...framework.tensor import Tensor
from .. import callbacks as callbacks_mod
from .. import optimizers as optimizers_mod
from ..engine import base_layer, compile_utils, data_adapter, distribution
from ..metrics import Metric
from ..optimizers.loss_scale_optimizer import LossScaleOptimizer
from .epoch_iterator import EpochIterator
from .step_runner import StepRunner

_unpack = data_adapter.unpack_x_y_sample_weight


def _get_verbosity(verbose):
    if verbose == "auto":
        return 1
    if verbose is True:
        return 1
    if verbose is False or verbose is None:
        return 0
    return int(verbose)


def _to_python(value):
    if isinstance(value, dict):  # Keras 3's pythonify_logs: a dict result (compile_metrics) is flattened in
        out = {}
        for k, v in value.items():
            if isinstance(v, dict):
                out.update(_to_python(v))
            else:
                out[k] = _to_python(v)
        return out
    if type(value) is Tensor and value._array.ndim == 0:  # a metric result: the host scalar, no copy
        return value._device.backend.to_numpy(value._array).item()
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, np.ndarray | np.generic):
        return value.item() if value.ndim == 0 else value
    return value


_PLAIN = frozenset((bool, int, float, str, type(None)))
_SEQUENCES = (list, tuple)
# The framework's own attributes, which never hold metrics (weights, nodes, layers, compile state).
_NO_METRICS = frozenset({
    "_trainable_weights", "_non_trainable_weights", "_inbound_nodes", "_outbound_nodes", "_eager_losses",
    "_callable_losses", "_weights_cache", "_layers_cache", "_training_state", "_seq_layers", "_input_layer",
    "_output_tensor", "_dtype", "_graph", "_nodes_by_depth", "_input_layers", "_output_layers", "_ordered_layers",
    "_build_input_shape", "_input_spec", "optimizer", "compiled_loss", "compiled_metrics", "history",
})
_METRIC_CLASS = []


def _metric_class():
    """``keras.metrics.Metric`` (imported on first use: the metrics module imports the engine)."""
    if not _METRIC_CLASS:
        _METRIC_CLASS.append(Metric)
    return _METRIC_CLASS[0]


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _check_epochs(epochs, initial_epoch):
    """``fit``'s epoch arguments: non-negative integers (checked before anything changes)."""
    if not _is_int(epochs) or epochs < 0:
        raise ValueError(f"`epochs` must be a non-negative integer, got epochs={epochs!r}")
    if not _is_int(initial_epoch) or initial_epoch < 0:
        raise ValueError(f"`initial_epoch` must be a non-negative integer, got initial_epoch={initial_epoch!r}")


def _check_validation_split(validation_split):
    """``validation_split``: a number in [0, 1); 0 (the default) means no split, as in Keras 3."""
    ok = isinstance(validation_split, int | float | np.integer | np.floating) and not isinstance(validation_split, bool)
    if not ok or not 0 <= validation_split < 1:
        raise ValueError("`validation_split` must be a float in the range [0, 1) (0, the default, means no validation "
                         f"split), got validation_split={validation_split!r}")


def _check_batch_size(batch_size, x, method):
    """``batch_size``: None or a positive integer. With a dataset, generator or iterator (which yield batches
    already) it is ignored, as TF2 does, with a warning naming it; returns the batch size to use."""
    if batch_size is None:
        return None
    if not _is_int(batch_size) or batch_size <= 0:
        raise ValueError(f"`batch_size` must be a positive integer, got batch_size={batch_size!r}")
    if data_adapter.is_dataset_like(x):
        warnings.warn(f"{method}: `batch_size={batch_size}` is ignored: `x` is a {type(x).__name__}, which yields "
                      "batches already (batch the dataset itself, e.g. `dataset.batch(...)`)", stacklevel=3)
        return None
    return int(batch_size)


def _flatten_metrics_in_order(logs, metrics_names):
    """Log values ordered as ``metrics_names`` (then any others); a lone value is returned bare."""
    results = [logs[name] for name in metrics_names if name in logs]
    results += [v for k, v in logs.items() if k not in metrics_names]
    return results[0] if len(results) == 1 else results


def _concat(batches):
    """Concatenate per-batch predictions (nested structures concatenated leaf by leaf)."""
    first = batches[0]
    if isinstance(first, np.ndarray):
        return np.concatenate(batches, axis=0)
    flat = [nest.flatten(b) for b in batches]
    joined = [np.concatenate([f[i] for f in flat], axis=0) for i in range(len(flat[0]))]
    return nest.pack_sequence_as(first, joined)


class Trainer:
    """compile/fit/evaluate/predict for ``keras.Model`` (``class Model(Trainer, Layer)``)."""

    def _init_training(self):
        self._training_state = {"compiled": False, "run_eagerly": None, "loss": None, "compiled_loss": None,
                                "compiled_metrics": None, "jit_compile": False}
        self.optimizer = None
        self.stop_training = False
        self.history = None
        self.train_function = None
        self.test_function = None
        self.predict_function = None

    @property
    def compiled_loss(self):
        """The compiled ``LossesContainer`` (None before ``compile``)."""
        return self._state().get("compiled_loss")

    @compiled_loss.setter
    def compiled_loss(self, value):
        self._state()["compiled_loss"] = value

    @property
    def compiled_metrics(self):
        """The compiled ``MetricsContainer`` (None before ``compile``)."""
        return self._state().get("compiled_metrics")

    @compiled_metrics.setter
    def compiled_metrics(self, value):
        self._state()["compiled_metrics"] = value

    @property
    def loss(self):
        """The ``loss`` argument given to ``compile`` (None before)."""
        return self._state().get("loss")

    @loss.setter
    def loss(self, value):
        self._state()["loss"] = value

    @property
    def jit_compile(self):
        """The ``jit_compile`` setting from ``compile`` (default False). tfcore has no XLA: True gives the
        step functions ``tf.function(jit_compile=True)``, whose plans fuse element-wise chains
        (``function/fusion.py``) when no outer tape records."""
        return self._state().get("jit_compile", False)

    @jit_compile.setter
    def jit_compile(self, value):
        if value not in (True, False):
            raise ValueError(f"`jit_compile` must be True or False. Received: jit_compile={value!r}")
        self._state()["jit_compile"] = value

    @property
    def metrics_variables(self):
        """Every variable of the model's metrics (loss trackers and compiled metrics included)."""
        out = []
        for m in self.metrics:
            out.extend(m.variables)
        return out

    def _make_function(self, kind, attr, force):
        current = getattr(self, attr, None)
        if current is not None and not force:
            return current
        runner = StepRunner(self, kind)

        def function(iterator):
            """Runs one step on the next batch of ``iterator`` (an iterator, or a single batch)."""
            data = next(iterator) if hasattr(iterator, "__next__") else iterator
            return runner(data)

        function.__name__ = attr
        setattr(self, attr, function)
        return function

    def make_train_function(self, force=False):
        """``self.train_function``: one ``train_step`` (a tf.function unless running eagerly) on the next
        batch of an iterator; created once, or again with ``force=True``."""
        return self._make_function("train_step", "train_function", force)

    def make_test_function(self, force=False):
        """``self.test_function``: one ``test_step`` on the next batch of an iterator."""
        return self._make_function("test_step", "test_function", force)

    def make_predict_function(self, force=False):
        """``self.predict_function``: one ``predict_step`` on the next batch of an iterator."""
        return self._make_function("predict_step", "predict_function", force)

    def _state(self):
        state = getattr(self, "_training_state", None)
        if state is None:
            Trainer._init_training(self)
            state = self._training_state
        return state

    # -- compile -------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, weighted_metrics=None,
                run_eagerly=None, steps_per_execution=None, jit_compile=None, **kwargs):
        """Configure training: optimizer (object or name), loss, metrics, loss_weights, weighted_metrics."""
        bad = set(kwargs) - {"sample_weight_mode", "target_tensors", "distribute", "pss_evaluation_shards"}
        if bad:
            raise TypeError(f"Invalid keyword argument(s) in `compile()`: {tuple(sorted(bad))}. Valid keyword "
                            "arguments include \"cloning\", \"experimental_run_tf_function\", \"distribute\", "
                            "\"target_tensors\", or \"sample_weight_mode\".")
        distribution.check_metrics_created_in_scope((metrics, weighted_metrics))
        state = self._state()
        self.optimizer = _loss_scaled(self, optimizers_mod.get(optimizer))
        output_names = getattr(self, "output_names", None)
        self.compiled_loss = compile_utils.LossesContainer(loss, loss_weights, output_names=output_names)
        self.compiled_metrics = compile_utils.MetricsContainer(metrics, weighted_metrics, output_names=output_names,
                                                               loss=loss)
        self.loss = loss
        self._distribution_strategy = distribution.captured_strategy()
        if steps_per_execution is not None and (not isinstance(steps_per_execution, int) or steps_per_execution < 1):
            raise ValueError(f"steps_per_execution must be a positive integer, got {steps_per_execution!r}")
        if jit_compile not in (None, "auto", True, False):
            raise ValueError(f"`jit_compile` must be True, False or 'auto'. Received: jit_compile={jit_compile!r}")
        state.update(compiled=True, run_eagerly=run_eagerly, loss=loss, functions={},
                     steps_per_execution=steps_per_execution or 1, jit_compile=jit_compile is True)
        self.train_function = self.test_function = self.predict_function = None

    @property
    def distribute_strategy(self):
        """The strategy the model was compiled under (the default strategy otherwise)."""

        return getattr(self, "_distribution_strategy", None) or distribute_lib.get_strategy()

    @property
    def _is_compiled(self):
        return self._state()["compiled"]

    @property
    def run_eagerly(self):
        """True when the steps run as plain Python (compile(run_eagerly=True) or run_functions_eagerly)."""
        return bool(self._state().get("run_eagerly")) or tracing.functions_run_eagerly()

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._state()["run_eagerly"] = value

    def _assert_compile_was_called(self):
        if not self._is_compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # -- metrics ---------------------------------------------------------------------------------------
    @property
    def metrics(self):
        """Keras 3's list: after ``compile``, the ``loss`` tracker, a ``compile_metrics`` entry holding the
        compiled metrics (when ``compile`` was given any), the per-output loss trackers; then metrics assigned
        as model attributes."""
        out = []
        d = self.__dict__
        state = d.get("_training_state")
        if state is not None and state["compiled"]:
            losses, compiled = self.compiled_loss, self.compiled_metrics
            tracker = getattr(losses, "_loss_metric", None)
            if tracker is None or not hasattr(compiled, "as_metric"):  # containers replaced by the user
                out += losses.metrics
                out += compiled.metrics
            else:
                out.append(tracker)
                if compiled.configured:
                    out.append(compiled.as_metric())
                out += losses.metrics[1:]
        metric_cls = _metric_class()
        seen = None
        for key, value in d.items():  # runs twice per train_on_batch: bookkeeping and plain values skipped
            t = type(value)
            if t in _PLAIN or key in _NO_METRICS:
                continue
            if t is list or t is tuple or isinstance(value, _SEQUENCES):
                leaves = [leaf for leaf in value if isinstance(leaf, metric_cls)]
                if not leaves:
                    continue
            elif isinstance(value, metric_cls):
                leaves = (value,)
            else:
                continue
            if seen is None:
                seen = {id(m) for m in out}
            for leaf in leaves:
                if id(leaf) not in seen:
                    seen.add(id(leaf))
                    out.append(leaf)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    def get_metrics_result(self):
        """``{name: result}`` of every metric (a metric returning a dict contributes its items)."""
        return compile_utils.merged_results(self.metrics)

    # -- steps -------------------------------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        """The compiled loss of ``(y, y_pred)`` plus the model's regularization losses."""
        return self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)

    def compute_metrics(self, x, y, y_pred, sample_weight):
        """Update the compiled metrics and return every metric's result."""
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def _validate_target_and_loss(self, y, loss):
        if y is None and loss is None:
            raise ValueError(f"Target data is missing. Your model was compiled with loss={self.loss}, and "
                             "therefore expects target data to be provided in `fit()`.")
        if loss is None:
            raise ValueError("No loss found. You may have forgotten to provide a `loss` argument in the "
                             "`compile()` method.")

    def train_step(self, data):
        """One optimisation step on ``data`` = ``(x, y[, sample_weight])``; returns metric results."""
        x, y, sample_weight = _unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._validate_target_and_loss(y, loss)
        trainable = self.trainable_variables
        if trainable:
            self.optimizer.minimize(loss, trainable, tape=tape)
        else:  # Keras 3: a model without trainable weights (plain tf.Variable attributes are none) still steps
            warnings.warn("The model does not have any trainable weights.")  # noqa: B028 - as Keras 3
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        """Loss and metrics on one batch without training."""
        x, y, sample_weight = _unpack(data)
        y_pred = self(x, training=False)
        self.compute_loss(x, y, y_pred, sample_weight)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's output for one batch's ``x``."""
        x, _, _ = _unpack(data)
        return self(x, training=False)

    # -- fit -------------------------------------------------------------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1,
            max_queue_size=10, workers=1, use_multiprocessing=False):
        """Train for ``epochs`` epochs; returns the ``History`` callback (``history.history[name]``)."""
        self._assert_compile_was_called()
        _check_epochs(epochs, initial_epoch)
        _check_validation_split(validation_split)
        batch_size = _check_batch_size(batch_size, x, "fit")
        verbose = _get_verbosity(verbose)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapter.train_validation_split(
                (x, y, sample_weight), validation_split)
        val = None
        if validation_data is not None:
            val = (validation_data, None, None) if data_adapter.is_dataset_like(validation_data) else \
                _unpack(validation_data)
        runner = StepRunner(self, "train_step")
        iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
                                 initial_epoch=initial_epoch, epochs=epochs, shuffle=shuffle,
                                 class_weight=class_weight, steps_per_execution=runner.steps_per_execution,
                                 worker=distribution.worker_of(self))
        cbs = callbacks if isinstance(callbacks, callbacks_mod.CallbackList) else callbacks_mod.CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=epochs,
            steps=iterator.num_batches)
        batch_hooks = cbs.needs_batch_hooks("train")
        self.stop_training = False
        cbs.on_train_begin()
        # BackupAndRestore restored a backup: continue from its epoch, past the batches that epoch trained on
        if "_resume_from" in self.__dict__:
            iterator.resume_at(*self.__dict__.pop("_resume_from"))
        training_logs = None
        for epoch, steps in iterator.enumerate_epochs():
            self.reset_metrics()
            cbs.on_epoch_begin(epoch)
            logs = None
            for begin_step, end_step, data in _building_from_spec(self, steps, runner.steps_per_execution > 1):
                if batch_hooks:
                    cbs.on_train_batch_begin(begin_step)
                logs = runner.run_group(data)
                if batch_hooks:
                    cbs.on_train_batch_end(end_step, logs)
                if self.stop_training:
                    break
            if logs is None:
                if iterator.exhausted:
                    break
                raise ValueError("Unexpected result of `train_function` (Empty logs): the training data "
                                 "produced no batches. Check `x`, `batch_size` and `steps_per_epoch`.")
            if iterator.num_batches is not None and cbs.params.get("steps") is None:
                cbs.params["steps"] = iterator.num_batches
            epoch_logs = _to_python(dict(logs))
            if val is not None and _should_eval(epoch, validation_freq):
                val_batch = None if data_adapter.is_dataset_like(val[0]) else validation_batch_size or batch_size
                val_logs = self.evaluate(x=val[0], y=val[1], sample_weight=val[2],
                                         batch_size=val_batch, steps=validation_steps,
                                         callbacks=cbs, return_dict=True)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        if isinstance(self.optimizer, optimizers_mod.Optimizer) and epochs > initial_epoch:
            self.optimizer.finalize_variable_values(self.trainable_variables)
        cbs.on_train_end(logs=training_logs)
        return self.history

    # -- evaluate / predict -----------------------------------------------------------------------------------
    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, max_queue_size=10, workers=1, use_multiprocessing=False, return_dict=False,
                 **kwargs):
        """Loss and metrics over the data: a scalar, a list ordered as ``metrics_names``, or a dict."""
        self._assert_compile_was_called()
        batch_size = _check_batch_size(batch_size, x, "evaluate")
        verbose = _get_verbosity(verbose)
        iterator = EpochIterator(x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps,
                                 worker=distribution.worker_of(self))
        if isinstance(callbacks, callbacks_mod.CallbackList):
            cbs = callbacks
        else:
            cbs = callbacks_mod.CallbackList(callbacks, add_progbar=verbose != 0, model=self, verbose=verbose,
                                             epochs=1, steps=iterator.num_batches)
        batch_hooks = cbs.needs_batch_hooks("test")
        runner = StepRunner(self, "test_step")
        self.reset_metrics()
        cbs.on_test_begin()
        logs = None
        for _, steps in iterator.enumerate_epochs():
            for step, _, data in _building_from_spec(self, steps):
                if batch_hooks:
                    cbs.on_test_batch_begin(step)
                logs = runner(data)
                if batch_hooks:
                    cbs.on_test_batch_end(step, logs)
        if logs is None:
            raise ValueError("Unexpected result of `evaluate`: the data produced no batches.")
        logs = _to_python(dict(sorted(dict(logs).items())))  # Keras 3's pythonify_logs: keys in sorted order
        cbs.on_test_end(logs=logs)
        if return_dict:
            return logs
        return _flatten_metrics_in_order(logs, compile_utils.flat_metric_names(self.metrics))

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None, max_queue_size=10,
                workers=1, use_multiprocessing=False):
        """The model's outputs for all of ``x`` as NumPy arrays (batched; ``y`` in datasets is ignored)."""
        batch_size = _check_batch_size(batch_size, x, "predict")
        verbose = _get_verbosity(verbose)
        iterator = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps)
        cbs = callbacks if isinstance(callbacks, callbacks_mod.CallbackList) else callbacks_mod.CallbackList(
            callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
            steps=iterator.num_batches)
        batch_hooks = cbs.needs_batch_hooks("predict")
        runner = StepRunner(self, "predict_step")
        cbs.on_predict_begin()
        outputs = []
        for _, steps in iterator.enumerate_epochs():
            for step, _, data in steps:
                if batch_hooks:
                    cbs.on_predict_batch_begin(step)
                out = runner.predict(data)
                outputs.append(out)
                if batch_hooks:
                    cbs.on_predict_batch_end(step, {"outputs": out})
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `tf.keras`.")
        cbs.on_predict_end()
        return _concat(outputs)

    # -- single batches --------------------------------------------------------------------------------------
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, reset_metrics=True,
                       return_dict=False):
        """One ``train_step`` on this batch; metrics reset afterwards unless ``reset_metrics=False``."""
        self._assert_compile_was_called()
        logs = _to_python(dict(StepRunner(self, "train_step")(
            data_adapter.single_batch(x, y, sample_weight, class_weight))))
        return self._finish_batch(logs, reset_metrics, return_dict)

    def _finish_batch(self, logs, reset_metrics, return_dict):
        """Reset the metrics (if asked) and order the logs: one walk over the metrics for both when
        ``reset_metrics``/``metrics_names`` are not overridden."""
        cls = type(self)
        if cls.reset_metrics is not Trainer.reset_metrics or cls.metrics_names is not Trainer.metrics_names:
            if reset_metrics:
                self.reset_metrics()
            return logs if return_dict else _flatten_metrics_in_order(
                logs, compile_utils.flat_metric_names(self.metrics))
        if return_dict and not reset_metrics:
            return logs
        metrics = self.metrics
        if reset_metrics:
            for m in metrics:
                m.reset_state()
        return logs if return_dict else _flatten_metrics_in_order(logs, compile_utils.flat_metric_names(metrics))

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True, return_dict=False):
        """One ``test_step`` on this batch; metrics reset afterwards unless ``reset_metrics=False``."""
        self._assert_compile_was_called()
        logs = _to_python(dict(StepRunner(self, "test_step")(data_adapter.single_batch(x, y, sample_weight))))
        return self._finish_batch(logs, reset_metrics, return_dict)

    def predict_on_batch(self, x):
        """The model's output for this batch as NumPy arrays."""
        return StepRunner(self, "predict_step").predict(data_adapter.single_batch(x))


TrainingMixin = Trainer  # the name ``keras.Model`` and older code use


def _loss_scaled(model, optimizer):
    """The optimizer ``compile`` keeps: wrapped in a LossScaleOptimizer when the model computes in float16
    (Keras does so: without loss scaling float16 gradients underflow and models do not converge)."""

    if model.compute_dtype == "float16" and not isinstance(optimizer, LossScaleOptimizer):
        return LossScaleOptimizer(optimizer)
    return optimizer


def _building_from_spec(model, steps, grouped=False):
    """The epoch iterator's ``steps`` as they are; a model that builds from its data (a Sequential without an
    Input) is first built from the first batch with the batch size unknown, as Keras 3's ``fit``/``evaluate``
    trace their step on the dataset's spec: its summary then shows ``(None, 9)``, not the first batch's size.
    ``grouped``: each step's data is a ``steps_per_execution`` group of batches."""
    if model.built:
        return steps
    build = getattr(model, "_build_from_batches", None)
    if build is None:  # a subclassed model: the layers it builds in its first step see (None, ...)
        return _first_step_with_unknown_batch(steps)
    return _build_then_iterate(model, build, steps, grouped)


def _build_then_iterate(model, build, steps, grouped):
    for begin, end, data in steps:
        if not model.built:
            build(_unpack(data[0] if grouped else data)[0])
        yield begin, end, data


def _first_step_with_unknown_batch(steps):
    """``steps``, the first one run inside ``unknown_batch_size()`` (the context holds while the caller
    runs the step, until it asks for the next one)."""
    steps = iter(steps)
    for first in steps:
        with base_layer.unknown_batch_size():
            yield first
        break
    yield from steps


def _should_eval(epoch, validation_freq):
    epoch = epoch + 1
    if isinstance(validation_freq, int):
        return epoch % validation_freq == 0
    return epoch in validation_freq
