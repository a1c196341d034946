"""``tf.keras.callbacks``: hooks into ``fit``/``evaluate``/``predict`` with Keras's semantics.

``CallbackList`` dispatches every hook. Logs reach callbacks as Python floats; the
per-batch hooks (and the host sync they need) are skipped entirely when no callback
overrides them, as Keras does, so a quiet ``fit`` never waits on the device per step.
"""

import collections
import csv
import json as _json
import os
import time
import warnings

import numpy as np

from .. import summary
from ..distribute import distributed_file_utils
from ..saving.checkpoint import Checkpoint
from ..saving.management import CheckpointManager
from .engine.compile_utils import flat_metric_names
from .utils import io_utils
from .utils.progbar import Progbar

_BATCH_HOOKS = {
    "train": ("on_train_batch_begin", "on_train_batch_end", "on_batch_begin", "on_batch_end"),
    "test": ("on_test_batch_begin", "on_test_batch_end"),
    "predict": ("on_predict_batch_begin", "on_predict_batch_end"),
}


def _to_python(logs):
    """Logs with tensors/arrays turned into Python floats (scalars) or NumPy arrays."""
    if not logs:
        return {} if logs is None else logs
    out = {}
    for k, v in logs.items():
        if hasattr(v, "numpy"):
            v = v.numpy()
        if isinstance(v, np.ndarray | np.generic):
            v = v.item() if v.ndim == 0 else v
        out[k] = v
    return out


def _model_strategy(model):
    return getattr(model, "distribute_strategy", None)


def _print(msg):
    io_utils.print_msg(msg)


class Callback:
    """Base class: override any ``on_*`` hook; ``self.model`` and ``self.params`` are set by ``fit``.

    A callback whose ``_supports_tf_logs`` is True receives logs as tensors (no host sync).
    """

    _supports_tf_logs = False

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        """Legacy alias: called by the default ``on_train_batch_begin``."""

    def on_batch_end(self, batch, logs=None):
        """Legacy alias: called by the default ``on_train_batch_end``."""

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def _implements(self, hook):
        return getattr(type(self), hook) is not getattr(Callback, hook)


class CallbackList:
    """A list of callbacks called together; adds ``History`` and ``ProgbarLogger`` on request."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        self.callbacks = list(callbacks) if callbacks else []
        self._history = None
        self._progbar = None
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self._progbar = ProgbarLogger(count_mode="steps")
            self.callbacks.insert(0, self._progbar)
        if add_history:
            existing = [c for c in self.callbacks if isinstance(c, History)]
            if existing:
                self._history = existing[0]
            else:
                self._history = History()
                self.callbacks.append(self._history)
        self.model = None
        self.params = {}
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback):
        self.callbacks.append(callback)

    def set_params(self, params):
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def needs_batch_hooks(self, mode):
        """Whether any callback overrides a per-batch hook of ``mode`` ('train', 'test', 'predict')."""
        return any(c._implements(h) for c in self.callbacks for h in _BATCH_HOOKS[mode]
                   if isinstance(c, Callback))

    def _call(self, hook, *args, logs=None):
        if type(logs) is dict and len(logs) > 1:  # Keras 3 hands callbacks pythonify_logs' sorted order
            logs = dict(sorted(logs.items()))
        converted = None
        for c in self.callbacks:
            if getattr(c, "_supports_tf_logs", False):
                getattr(c, hook)(*args, logs=logs)
            else:
                if converted is None:
                    converted = _to_python(logs)
                getattr(c, hook)(*args, logs=converted)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs=logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)

    def __iter__(self):
        return iter(self.callbacks)


class History(Callback):
    """Records every epoch's logs: ``history.history['loss']`` is the list of epoch losses."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []
        if self.model is not None:  # fit(epochs=0) returns it too
            self.model.history = self

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Prints the progress bar of ``fit``/``evaluate``/``predict`` (and ``Epoch i/n`` headers)."""

    _supports_tf_logs = True  # Progbar converts values itself, only when it prints

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError(f'Unknown `count_mode`: {count_mode}. Expected values are ["samples", "steps"]')
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False
        self._names_known = False

    def set_params(self, params):
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps") if self.use_steps else params.get("samples", params.get("steps"))

    def _reset(self, target=None):
        self.seen = 0
        self.progbar = None
        if target is not None:
            self.target = target

    def _ensure_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, stateful_metrics=self.stateful_metrics,
                                   unit_name="step" if self.use_steps else "sample")
            self._names_known = False
        if not self._names_known and self.model is not None and hasattr(self.model, "metrics"):
            # compiled metrics exist only after the first batch: keep asking until they do (Keras too)

            metrics = self.model.metrics
            names = set(flat_metric_names(metrics)) | {m.name for m in metrics}
            self._names_known = bool(names) and all(getattr(m, "built_metrics", True) for m in metrics)
            self.progbar.stateful_metrics = self.stateful_metrics | names

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()
            self._ensure_progbar()

    def on_predict_begin(self, logs=None):
        self._reset()
        self._ensure_progbar()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        self._ensure_progbar()
        if self.verbose and self.epochs > 1:
            _print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._update(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs=None):
        self._finalize(logs)

    def on_train_end(self, logs=None):
        self._called_in_fit = False

    def _update(self, batch, logs):
        self._ensure_progbar()
        logs = dict(logs or {})
        batch_size = logs.pop("size", 0)
        logs.pop("num_steps", None)
        self.seen = batch + 1 if self.use_steps else self.seen + (batch_size or 1)
        self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize(self, logs):
        self._ensure_progbar()
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.seen
        logs = {k: v for k, v in (logs or {}).items() if k not in ("size", "num_steps")}
        self.progbar.update(self.target, list(logs.items()), finalize=True)


class _MonitorMixin:
    """Shared monitor/mode handling of EarlyStopping, ModelCheckpoint, ReduceLROnPlateau."""

    @staticmethod
    def _greater_is_better(monitor, mode, cls_name):
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{cls_name} mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min":
            return False
        if mode == "max":
            return True
        return monitor.endswith(("acc", "accuracy", "auc")) or monitor.startswith("fmeasure")

    @staticmethod
    def _monitor_value(logs, monitor, cls_name):
        value = (logs or {}).get(monitor)
        if value is None:
            warnings.warn(f"{cls_name} conditioned on metric `{monitor}` which is not available. Available "
                          f"metrics are: {','.join(sorted(logs or {}))}")
        return value


class EarlyStopping(Callback, _MonitorMixin):
    """Stop training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.greater = self._greater_is_better(monitor, mode, "EarlyStopping")
        if not self.greater:
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def monitor_op(self, a, b):
        return np.greater(a, b) if self.greater else np.less(a, b)

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = -np.inf if self.greater else np.inf
        self.best_weights = None
        self.best_epoch = 0

    def _is_improvement(self, value, reference):
        return self.monitor_op(value - self.min_delta, reference)

    def on_epoch_end(self, epoch, logs=None):
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    _print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            _print(f"Epoch {self.stopped_epoch + 1}: early stopping")

    def get_monitor_value(self, logs):
        return self._monitor_value(logs, self.monitor, "Early stopping")


class ReduceLROnPlateau(Callback, _MonitorMixin):
    """Multiply the learning rate by ``factor`` when ``monitor`` stalls for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = _get_lr(self.model)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not "
                          f"available. Available metrics are: {','.join(sorted(logs))}")
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _get_lr(self.model)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _set_lr(self.model, new_lr)
                    if self.verbose > 0:
                        _print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


def _current_learning_rate(optimizer):
    """The optimizer's learning rate now, as a float (a schedule evaluated at ``iterations``; the inner
    optimizer of a LossScaleOptimizer), or None without an optimizer."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)
    lr = getattr(optimizer, "_learning_rate", None)  # a schedule itself: Keras 3 evaluates it at iterations
    if lr is None or not callable(lr) or hasattr(lr, "numpy"):
        lr = getattr(optimizer, "learning_rate", None)
    if lr is None:
        return None
    if callable(lr) and not hasattr(lr, "numpy"):
        lr = lr(optimizer.iterations)
    try:
        return float(np.asarray(lr.numpy())) if hasattr(lr, "numpy") else float(lr)
    except (TypeError, ValueError):
        return None


def _get_lr(model):
    lr = model.optimizer.learning_rate
    return float(np.asarray(lr.numpy())) if hasattr(lr, "numpy") else float(lr)


def _set_lr(model, value):
    model.optimizer.learning_rate = float(value)


class TerminateOnNaN(Callback):
    """Stop training as soon as a batch's loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            _print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback from plain functions: ``on_epoch_end=lambda epoch, logs: ...`` and so on."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        hooks = dict(kwargs, on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_batch_begin=on_batch_begin, on_batch_end=on_batch_end, on_train_begin=on_train_begin,
                     on_train_end=on_train_end)
        self._hooks = {}
        for name, fn in hooks.items():
            if fn is None:
                continue
            if not hasattr(Callback, name):
                raise TypeError(f"LambdaCallback: unknown hook {name!r}")
            self._hooks[name] = fn
            setattr(self, name, fn)

    def _implements(self, hook):
        return hook in self._hooks


class ModelCheckpoint(Callback, _MonitorMixin):
    """Save the model (or its weights) every epoch or ``save_freq`` batches; ``filepath`` may hold
    ``{epoch:02d}``/``{val_loss:.2f}``-style fields filled from the epoch number and logs."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", options=None, initial_value_threshold=None, **kwargs):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer")
        self.greater = self._greater_is_better(monitor, mode, "ModelCheckpoint")
        self.best = initial_value_threshold if initial_value_threshold is not None else (
            -np.inf if self.greater else np.inf)
        self._batches_seen = 0
        self._current_epoch = 0
        self._warned_no_save = False

    def monitor_op(self, a, b):
        return np.greater(a, b) if self.greater else np.less(a, b)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if isinstance(self.save_freq, int):
            self._batches_seen += 1
            if self._batches_seen % self.save_freq == 0:
                self._save_model(self._current_epoch, batch, logs)

    def _implements(self, hook):
        if hook == "on_train_batch_end":
            return isinstance(self.save_freq, int)
        return super()._implements(hook)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _get_file_path(self, epoch, batch, logs):
        fields = dict(logs or {})
        try:
            if batch is None or "batch" in fields:
                return self.filepath.format(epoch=epoch + 1, **fields)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **fields)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from e

    def _save_model(self, epoch, batch, logs):
        logs = logs or {}
        filepath = self._get_file_path(epoch, batch, logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"Can save best model only with {self.monitor} available, skipping.")
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    _print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                _print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to {current:.5f}, "
                       f"saving model to {filepath}")
            self.best = current
        elif self.verbose > 0:
            _print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
        strategy = _model_strategy(self.model)
        written = distributed_file_utils.write_filepath(filepath, strategy)  # only the chief's file is kept
        directory = os.path.dirname(written)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self._write(written)
        distributed_file_utils.remove_temp_dir_with_filepath(filepath, strategy)
        if self.verbose > 0:
            _print(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")  # Keras 3 says both

    def _write(self, filepath):
        if self.save_weights_only or not hasattr(self.model, "save"):
            if not self.save_weights_only and not self._warned_no_save:
                self._warned_no_save = True
                warnings.warn("ModelCheckpoint: this model has no `save` (whole-model saving comes with "
                              "SavedModel support); saving its weights instead.")
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)


class CSVLogger(Callback):
    """Write each epoch's logs as a CSV row (``epoch`` first, then the log keys sorted)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.csv_file = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115 - closed in on_train_end

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}

        def handle_value(k):
            is_zero_dim = isinstance(k, np.ndarray) and k.ndim == 0
            if isinstance(k, str):
                return k
            if isinstance(k, collections.abc.Iterable) and not is_zero_dim:
                return f'"[{", ".join(map(str, k))}]"'
            return k

        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, delimiter=self.sep)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, handle_value(logs.get(k, "NA"))) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.writer = None


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch start to ``schedule(epoch, lr)`` (or ``schedule(epoch)``)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = _get_lr(self.model)
        try:
            lr = self.schedule(epoch, lr)
        except TypeError:
            lr = self.schedule(epoch)
        if hasattr(lr, "numpy"):
            lr = lr.numpy()
        if not isinstance(lr, float | int | np.floating | np.integer):
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        _set_lr(self.model, float(lr))
        if self.verbose > 0:
            _print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(lr)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = _get_lr(self.model)


class TensorBoard(Callback):
    """``tf.keras.callbacks.TensorBoard``: logs for TensorBoard in ``log_dir/train`` and ``log_dir/validation``.

    Per epoch: ``epoch_<metric>`` scalars (validation metrics without their ``val_`` prefix in
    the validation run) and, every ``histogram_freq`` epochs, a histogram of every weight
    (``<weight name>/histogram``). ``update_freq='batch'`` or an integer N also writes
    ``batch_<metric>`` every N training batches at the global batch step. After each validation
    pass inside ``fit`` the validation run gets ``evaluation_<metric>_vs_iterations`` at the
    optimizer's iteration count. ``write_graph`` writes the model's config (TensorBoard's
    Keras-model graph view). Needs ``tensorboard`` (``pip install 'tfcore[tensorboard]'``).
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None, **kwargs):
        super().__init__()
        if kwargs:
            raise TypeError(f"Unrecognized arguments in `TensorBoard` callback: {sorted(kwargs)}")
        if not isinstance(histogram_freq, int) or histogram_freq < 0:
            raise ValueError(f"histogram_freq must be a non-negative integer, got {histogram_freq!r}")
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (not isinstance(update_freq, int) or update_freq < 1):
            raise ValueError(f"update_freq must be 'epoch', 'batch' or a positive integer, got {update_freq!r}")
        if profile_batch:
            warnings.warn("TensorBoard(profile_batch=...): tfcore has no profiler; no profile is written.")
        if embeddings_freq:
            warnings.warn("TensorBoard(embeddings_freq=...): embedding projector data is not written by tfcore.")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._writers = {}
        self._in_fit = False
        self._global_train_batch = 0
        self._epoch_start = None
        self._epoch_batches = 0

    def _implements(self, hook):
        if hook in ("on_train_batch_begin", "on_train_batch_end"):
            return self.update_freq != "epoch" or self.write_steps_per_second
        return super()._implements(hook)

    def _writer(self, run):
        w = self._writers.get(run)
        if w is None:
            log_dir = distributed_file_utils.write_dirpath(self.log_dir, _model_strategy(self.model))  # chief only
            w = self._writers[run] = summary.create_file_writer(os.path.join(log_dir, run))
        return w

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._in_fit = True
        if self.write_graph:
            self._write_keras_model()

    def _write_keras_model(self):
        import json


        try:
            config = json.dumps({"class_name": type(self.model).__name__, "config": self.model.get_config(),
                                 "keras_version": "tfcore", "backend": "tensorflow"}, default=str)
        except Exception:  # a model without a serializable config has no graph view
            return
        from tensorboard.compat.proto import summary_pb2

        md = summary_pb2.SummaryMetadata()
        md.plugin_data.plugin_name = "graph_keras_model"
        md.plugin_data.content = b"1"
        with self._writer("train").as_default():
            summary.write("keras", config, step=0, metadata=md)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_start = time.time()
        self._epoch_batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self._global_train_batch += 1
        self._epoch_batches += 1
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        with self._writer("train").as_default(step=self._global_train_batch):
            for name, value in (logs or {}).items():
                if np.ndim(value) == 0:
                    summary.scalar("batch_" + name, value)

    def on_test_end(self, logs=None):
        opt = getattr(self.model, "optimizer", None)
        if opt is None or not hasattr(opt, "iterations") or not self._in_fit:
            return
        step = int(np.asarray(opt.iterations.numpy()))
        with self._writer("validation").as_default(step=step):
            for name, value in (logs or {}).items():
                summary.scalar(f"evaluation_{name}_vs_iterations", value)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        learning_rate = _current_learning_rate(getattr(self.model, "optimizer", None))
        if learning_rate is not None:  # Keras 3 logs epoch_learning_rate in the train run
            train["learning_rate"] = learning_rate
        if self.write_steps_per_second and self._epoch_start is not None:
            train["steps_per_second"] = self._epoch_batches / max(time.time() - self._epoch_start, 1e-9)
        for run, values in (("train", train), ("validation", val)):
            if values:
                with self._writer(run).as_default(step=epoch):
                    for name, value in values.items():
                        if np.ndim(value) == 0:
                            summary.scalar("epoch_" + name, value)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _log_weights(self, epoch):
        with self._writer("train").as_default(step=epoch):
            for layer in self.model.layers:
                for weight in layer.weights:
                    # Keras 3 tags a weight by its path ("sequential/dense/kernel"); a variable without one by its name
                    name = (getattr(weight, "path", None) or weight.name).replace(":", "_")
                    summary.histogram(name + "/histogram", weight)
                    if self.write_images:
                        img = np.asarray(weight.numpy(), dtype=np.float32)
                        if img.ndim == 1:
                            img = img[None, :]
                        if img.ndim == 2:
                            lo, hi = img.min(), img.max()
                            img = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
                            summary.image(name + "/image", img[None, :, :, None])

    def on_train_end(self, logs=None):
        self._in_fit = False
        for w in self._writers.values():
            w.close()
        self._writers = {}
        distributed_file_utils.remove_temp_dirpath(self.log_dir, _model_strategy(self.model))


_STATE_FILE = "training_state.json"  # BackupAndRestore: where training was when the backup was made


class BackupAndRestore(Callback):
    """``tf.keras.callbacks.BackupAndRestore(backup_dir, save_freq="epoch", double_checkpoint=False,
    delete_checkpoint=True)``: resume an interrupted ``fit`` where its last backup left off.

    At the end of every epoch (or every ``save_freq`` batches) the callback saves the model and its
    optimizer with a ``tf.train.CheckpointManager`` in ``backup_dir``, with a small JSON file saying
    where training was (epoch, and batches done in that epoch). When ``fit`` starts and a backup exists,
    the callback restores it and ``fit`` continues from that point: the epoch, and past the batches that
    epoch had already trained on, so a job that died and is started again ends with the same weights as
    one that never stopped (given the same data order). ``delete_checkpoint=True`` removes the backup
    when training ends normally.

    In a multi-worker job (an MPI job ends as a whole when a worker dies) every worker restores the
    chief's backup; only the chief's is kept: the others write theirs into a temporary directory
    (``distribute.distributed_file_utils``).

    ``save_freq``: ``"epoch"``, or an integer: back up every that many batches (and not at epoch ends).
    ``double_checkpoint``: keep the previous backup too (a crash while writing leaves one to use).
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq!r}. "
                             "Expected either 'epoch' or a positive integer value.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._epoch = 0
        self._batches_in_epoch = 0
        self._batches_seen = 0

    def _strategy(self):
        return getattr(self.model, "distribute_strategy", None)

    def _checkpoint(self):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            return Checkpoint(model=self.model)
        if hasattr(optimizer, "build"):
            optimizer.build(self.model.trainable_variables)  # slots exist before a restore fills them
        return Checkpoint(model=self.model, optimizer=optimizer)

    def on_train_begin(self, logs=None):
        self._ckpt = self._checkpoint()
        state_path = os.path.join(self.backup_dir, _STATE_FILE)
        latest = CheckpointManager(self._ckpt, self.backup_dir, max_to_keep=None).latest_checkpoint
        if latest is not None and os.path.exists(state_path):
            self._ckpt.restore(latest).expect_partial()
            with open(state_path) as f:
                state = _json.load(f)
            self._epoch, self._batches_in_epoch = int(state["epoch"]), int(state["batch"])
            self.model.__dict__["_resume_from"] = (self._epoch, self._batches_in_epoch)  # fit continues here
        self._write_dir = distributed_file_utils.write_dirpath(self.backup_dir, self._strategy())
        self._manager = CheckpointManager(self._ckpt, self._write_dir, max_to_keep=2 if self.double_checkpoint else 1)

    def on_epoch_begin(self, epoch, logs=None):
        if epoch != self._epoch:
            self._batches_in_epoch = 0
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches_in_epoch = batch + 1
        if self.save_freq != "epoch":
            self._batches_seen += 1
            if self._batches_seen % self.save_freq == 0:
                if self._batches_in_epoch == self.params.get("steps"):  # the epoch's last batch: resume at the next
                    self._save(self._epoch + 1, 0)
                else:
                    self._save(self._epoch, self._batches_in_epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._epoch, self._batches_in_epoch = epoch + 1, 0
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0)

    def _save(self, epoch, batch):
        os.makedirs(self._write_dir, exist_ok=True)
        self._manager.save()
        tmp = os.path.join(self._write_dir, _STATE_FILE + ".tmp")
        with open(tmp, "w") as f:
            _json.dump({"epoch": epoch, "batch": batch}, f)
        os.replace(tmp, os.path.join(self._write_dir, _STATE_FILE))  # written after the checkpoint it describes
        distributed_file_utils.remove_temp_dirpath(self.backup_dir, self._strategy())

    def on_train_end(self, logs=None):
        import shutil

        distributed_file_utils.wait_for_all_workers(self._strategy())  # nobody is still writing a backup
        if self.delete_checkpoint and self._write_dir == self.backup_dir:
            shutil.rmtree(self.backup_dir, ignore_errors=True)
        distributed_file_utils.remove_temp_dirpath(self.backup_dir, self._strategy())
