"""What ``Model.compile`` builds: the loss container and the metrics container (Keras's compile_utils).

``LossesContainer(y_true, y_pred, sample_weight, regularization_losses)`` returns the total loss
(``sum(loss_weight_i * loss_i) + sum(regularization_losses)``) and tracks it in a ``Mean`` named
``loss`` weighted by the batch size (so an epoch's value is the per-sample mean), plus one
``<output>_loss`` mean per output when there are several.

``MetricsContainer`` resolves metric identifiers on the first batch, when the shapes are known:
'accuracy'/'acc' (and 'crossentropy'/'ce') pick the binary, sparse or categorical variant from the
compiled loss when it is a cross-entropy, else from the shapes of ``y_true`` and ``y_pred`` (Keras'
rules). ``metrics`` ignore ``sample_weight``; ``weighted_metrics`` use it.
"""

from ...framework import nest
from ...framework.tensor import Tensor
from ...ops import array_ops, math_ops, reduce_ops
from .. import losses as losses_mod
from .. import metrics as metrics_mod
from . import distribution

_ACC = ("accuracy", "acc")
_CE = ("crossentropy", "ce")


def _object_name(obj):
    if isinstance(obj, str):
        return obj
    if hasattr(obj, "name") and isinstance(obj.name, str):
        return obj.name
    return getattr(obj, "__name__", None) or type(obj).__name__


def _as_loss(identifier):
    if identifier is None:
        return None
    loss = losses_mod.get(identifier)
    if isinstance(loss, losses_mod.Loss):
        return loss
    return losses_mod.LossFunctionWrapper(loss, name=_object_name(identifier))


def _masked_weights(mask, sample_weight, y_pred, loss):
    """Keras's loss masking: the mask becomes (part of) the sample weights; for a mean reduction it is
    rescaled by ``mask.size / sum(mask)`` so the loss is the mean over the unmasked entries."""
    m = math_ops.cast(mask, y_pred.dtype)
    if getattr(loss, "reduction", "auto") in ("auto", "sum_over_batch_size"):
        size = math_ops.cast(array_ops.size(m), y_pred.dtype)
        m = m * math_ops.divide_no_nan(size, reduce_ops.reduce_sum(m))
    if sample_weight is None:
        return m
    sw = math_ops.cast(sample_weight, y_pred.dtype)
    while sw.ndim < m.ndim:
        sw = array_ops.expand_dims(sw, -1)
    return m * sw


def _flat(structure):
    return nest.flatten(structure) if nest.is_nested(structure) else [structure]


def _per_output(spec, output_names, what):
    """A spec (single / list / dict keyed by output name) spread over the outputs (None where absent)."""
    n = len(output_names)
    if isinstance(spec, dict):
        unknown = set(spec) - set(output_names)
        if unknown:
            raise ValueError(f"Found unexpected {what} keys {sorted(unknown)}: expected keys from the model "
                             f"outputs {output_names}")
        return [spec.get(name) for name in output_names]
    if isinstance(spec, list | tuple):
        if n == 1:
            return [list(spec) if what == "metrics" else spec[0] if len(spec) == 1 else spec]
        if len(spec) != n:
            raise ValueError(f"When passing a list as {what}, it should have one entry per model output. "
                             f"The model has {n} outputs, but you passed {what}={spec}")
        return list(spec)
    return [spec] * n


class LossesContainer:
    """Computes and tracks the compiled loss."""

    def __init__(self, losses, loss_weights=None, output_names=None):
        self._user_losses = losses
        self._user_loss_weights = loss_weights
        self._output_names = output_names
        self._loss_metric = metrics_mod.Mean(name="loss")
        self._per_output_metrics = None
        self._losses = None
        self._weights = None
        self._built = False

    @property
    def metrics(self):
        if not self._built:
            return []
        return [self._loss_metric] + [m for m in self._per_output_metrics or () if m is not None]

    def _build(self, y_pred):
        flat = _flat(y_pred)
        names = self._output_names if self._output_names and len(self._output_names) == len(flat) else [
            f"output_{i + 1}" for i in range(len(flat))]
        self._names = names
        self._losses = [_as_loss(x) for x in _per_output(self._user_losses, names, "loss")]
        w = self._user_loss_weights
        self._weights = [1.0] * len(flat) if w is None else [
            1.0 if v is None else float(v) for v in _per_output(w, names, "loss_weights")]
        if len(flat) > 1:
            self._per_output_metrics = [metrics_mod.Mean(name=f"{n}_loss") if loss is not None else None
                                        for n, loss in zip(names, self._losses)]
        self._built = True

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        if not self._built:
            with distribution.shared_state_creation():
                if not self._built:
                    self._build(y_pred)
        preds = _flat(y_pred)
        trues = _flat_targets(y_true, len(preds), self._names)
        weights = _flat_targets(sample_weight, len(preds), self._names) if sample_weight is not None else \
            [None] * len(preds)
        total = None
        batch = None
        for i, (loss, yt, yp, sw) in enumerate(zip(self._losses, trues, preds, weights)):
            if loss is None or yt is None:
                continue
            mask = getattr(yp, "_keras_mask", None)
            if mask is not None:
                sw = _masked_weights(mask, sw, yp, loss)
            value = loss(yt, yp, sample_weight=sw)
            if batch is None:
                batch = float(yp.shape[0]) if isinstance(yp, Tensor) and yp.ndim else 1.0
            if self._per_output_metrics is not None:
                self._per_output_metrics[i].update_state(value, sample_weight=batch)
            if self._weights[i] != 1.0:
                value = value * self._weights[i]
            total = value if total is None else total + value
        if regularization_losses:
            reg = regularization_losses[0]
            for r in regularization_losses[1:]:
                reg = reg + r
            total = reg if total is None else total + reg
        if total is None:
            return None
        self._loss_metric.update_state(total, sample_weight=batch if batch is not None else 1.0)
        n = distribution.replicas_in_sync()
        if n > 1:  # replica gradients are summed: scale so the sum is the global-batch mean's gradient
            total = total * (1.0 / n)
        return total

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()


def _flat_targets(y, n, names):
    """Targets (or sample weights) as a list aligned with the ``n`` flattened outputs."""
    if y is None:
        return [None] * n
    if isinstance(y, dict):
        return [y.get(name) for name in names]
    if n == 1:
        return [y[0] if isinstance(y, list | tuple) and len(y) == 1 else y]
    flat = nest.flatten(y)
    if len(flat) != n:
        raise ValueError(f"The model has {n} outputs but {len(flat)} targets were given")
    return flat


class MetricsContainer:
    """Builds, updates and lists the compiled metrics."""

    def __init__(self, metrics=None, weighted_metrics=None, output_names=None, loss=None):
        self._user_metrics = metrics
        self._user_weighted = weighted_metrics
        self._output_names = output_names
        self._loss = loss
        self._metrics = None      # per output: list of metric objects
        self._weighted = None
        self._built = False

    @property
    def metrics(self):
        if not self._built:
            return []
        out, seen = [], set()
        for group in (self._metrics, self._weighted):
            for per_output in group:
                for m in per_output:
                    if id(m) not in seen:
                        seen.add(id(m))
                        out.append(m)
        return out

    def _build(self, y_true, y_pred):
        preds = _flat(y_pred)
        names = self._output_names if self._output_names and len(self._output_names) == len(preds) else [
            f"output_{i + 1}" for i in range(len(preds))]
        self._names = names
        trues = _flat_targets(y_true, len(preds), names)
        losses = _per_output(self._loss, names, "loss") if self._loss is not None else [None] * len(preds)
        self._metrics = self._resolve(self._user_metrics, names, trues, preds, losses, "metrics")
        self._weighted = self._resolve(self._user_weighted, names, trues, preds, losses, "weighted_metrics")
        self._built = True

    def _resolve(self, spec, names, trues, preds, losses, what):
        if spec is None:
            return [[] for _ in preds]
        if isinstance(spec, dict):
            per = [spec.get(n) for n in names]
        elif isinstance(spec, list | tuple) and len(preds) > 1 and len(spec) == len(preds) and all(
                isinstance(s, list | tuple) or s is None for s in spec):
            per = list(spec)
        else:
            per = [spec] * len(preds)
        out = []
        for i, items in enumerate(per):
            items = [] if items is None else items if isinstance(items, list | tuple) else [items]
            objs = []
            for item in items:
                m = self._metric_object(item, trues[i], preds[i], losses[i])
                if len(preds) > 1:
                    m._name = f"{names[i]}_{m.name}"
                objs.append(m)
            out.append(objs)
        return out

    @staticmethod
    def _metric_object(metric, y_t, y_p, loss):
        if isinstance(metric, metrics_mod.Metric):
            return metric
        fn = None
        if isinstance(metric, str) and metric in _ACC + _CE:
            fn = _resolve_by_loss(metric, loss) or _resolve_by_shape(metric, y_t, y_p)
        else:
            fn = metrics_mod.get(metric)
        if isinstance(fn, metrics_mod.Metric):
            return fn
        if isinstance(fn, losses_mod.Loss):
            loss_obj = fn

            def fn(y_true, y_pred, _loss=loss_obj):
                return _loss(y_true, y_pred)

        name = metric if isinstance(metric, str) else _object_name(metric)
        if name is None:
            raise ValueError(f"Metric should be a callable, received: {metric}")
        return metrics_mod.MeanMetricWrapper(fn, name=name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self._built:
            with distribution.shared_state_creation():
                if not self._built:
                    self._build(y_true, y_pred)
        preds = _flat(y_pred)
        trues = _flat_targets(y_true, len(preds), self._names)
        weights = _flat_targets(sample_weight, len(preds), self._names) if sample_weight is not None else \
            [None] * len(preds)
        for i, (yt, yp) in enumerate(zip(trues, preds)):
            if yt is None:
                continue
            for m in self._metrics[i]:
                m.update_state(yt, yp)
            for m in self._weighted[i]:
                m.update_state(yt, yp, sample_weight=weights[i])

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    @property
    def configured(self):
        """Whether ``compile`` was given any ``metrics``/``weighted_metrics`` (Keras 3 then lists a
        ``compile_metrics`` entry in ``model.metrics``)."""
        return bool(self._user_metrics) or bool(self._user_weighted)

    def as_metric(self):
        """The :class:`CompileMetrics` entry of ``model.metrics`` for these metrics (one per container)."""
        entry = self.__dict__.get("_as_metric")
        if entry is None:
            entry = self._as_metric = CompileMetrics(self)
        return entry


def merged_results(metrics):
    """``{name: result}`` of ``metrics``; a metric whose result is a dict (a ``CompileMetrics`` container)
    contributes its items."""
    out = {}
    for m in metrics:
        r = m.result()
        if isinstance(r, dict):
            out.update(r)
        else:
            out[m.name] = r
    return out


class CompileMetrics(metrics_mod.Metric):
    """Keras 3's ``compile_metrics``: the metrics given to ``compile``, as ONE entry of ``model.metrics``
    (after the ``loss`` tracker), so ``model.metrics_names`` is ``['loss', 'compile_metrics']``. Its
    ``metrics`` are the built metric objects (empty until the first batch), its ``result()`` a dict of their
    results, its ``variables`` theirs; ``evaluate`` still returns the flat list ``[loss, mae, ...]``."""

    def __init__(self, container):
        super().__init__(name="compile_metrics")
        self._container = container

    @property
    def metrics(self):
        return self._container.metrics

    @property
    def built_metrics(self):
        """Whether the metric objects exist yet (they are made from the first batch's targets)."""
        return self._container._built

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None):
        self._container.update_state(y_true, y_pred, sample_weight)

    def reset_state(self):
        self._container.reset_state()

    def result(self):
        return merged_results(self.metrics)


def flat_metric_names(metrics):
    """The names of ``metrics`` with a :class:`CompileMetrics` entry replaced by its metrics' names (the order
    ``evaluate`` returns values in, as Keras 3's ``_flatten_metrics_in_order``)."""
    names = []
    for m in metrics:
        if isinstance(m, CompileMetrics):
            names += [sub.name for sub in m.metrics]
        else:
            names.append(m.name)
    return names


def _loss_kind(loss):
    """'binary' / 'sparse' / 'categorical' for cross-entropy losses in any form, else None."""
    if loss is None:
        return None
    fn = loss.fn if isinstance(loss, losses_mod.LossFunctionWrapper) else loss
    if isinstance(fn, str):
        fn = losses_mod._FUNCTIONS.get(fn)
    if fn is losses_mod.binary_crossentropy:
        return "binary"
    if fn is losses_mod.sparse_categorical_crossentropy:
        return "sparse"
    if fn is losses_mod.categorical_crossentropy:
        return "categorical"
    return None


_BY_KIND = {
    "accuracy": {"binary": metrics_mod.binary_accuracy, "sparse": metrics_mod.sparse_categorical_accuracy,
                 "categorical": metrics_mod.categorical_accuracy},
    "crossentropy": {"binary": metrics_mod.binary_crossentropy,
                     "sparse": metrics_mod.sparse_categorical_crossentropy,
                     "categorical": metrics_mod.categorical_crossentropy},
}


def _resolve_by_loss(metric, loss):
    kind = _loss_kind(loss)
    if kind is None:
        return None
    return _BY_KIND["accuracy" if metric in _ACC else "crossentropy"][kind]


def _resolve_by_shape(metric, y_t, y_p):
    t_shape = list(y_t.shape) if y_t is not None and hasattr(y_t, "shape") else []
    p_shape = list(y_p.shape) if hasattr(y_p, "shape") else []
    t_last = t_shape[-1] if t_shape else None
    p_last = p_shape[-1] if p_shape else None
    if p_last == 1:
        kind = "binary"
    elif len(t_shape) < len(p_shape) or (t_last == 1 and p_last is not None and p_last > 1):
        kind = "sparse"
    else:
        kind = "categorical"
    return _BY_KIND["accuracy" if metric in _ACC else "crossentropy"][kind]
