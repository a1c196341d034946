"""The step runner: the ONE place that decides how a Keras step (``train_step``, ``test_step``,
``predict_step``) runs on a batch, as Keras 3's ``TensorFlowTrainer.make_train_function`` does.

- **eagerly**: ``compile(run_eagerly=True)`` or ``tf.config.run_functions_eagerly(True)``: the Python
  step is called as is (per replica under a strategy: ``strategy.run(step)``).
- **tf.function(step)** (the default): the step is traced once per input structure, its batch dimension
  generalised (``reduce_retracing``), and each call runs the compiled plan (pruned, fused, replayed as a
  CUDA graph where the backend allows and graphs are on). ``steps_per_execution=N`` runs N train steps
  in one function call. ``compile(jit_compile=True)`` makes it ``tf.function(jit_compile=True)``: tfcore
  has no XLA; its plans then fuse element-wise chains (generated kernels on a GPU).
- **strategy.run(tf.function(step))**: under a distribution strategy (the model compiled in its
  scope) the global batch is split per replica and every replica thread calls the same tf.function;
  tracing is keyed by the replica's device, so each replica runs its own compiled plan on its own
  device (fusion and CUDA graphs as on one device). The replicas rendezvous once per step: the
  optimizer's single ``merge_call`` that sums every gradient in one batched cross-device reduction and
  applies the update to each replica's copies (``optimizers/distributed.py``). Metrics are read in
  cross-replica context, where their sync-on-read variables sum over the replicas.

TF's Keras runs ``tf.function(strategy.run(step))`` (one graph holding every replica); tfcore's replicas
are threads, so the function goes inside ``strategy.run`` and the replicas' traces count as one.
"""

import numpy as np

from ...framework import nest
from ...framework.tensor import is_tensor
from ...function import Function
from ..engine import distribution

EAGER = "eager"
FUNCTION = "tf.function"
DISTRIBUTED = "strategy.run(tf.function)"
DISTRIBUTED_EAGER = "strategy.run"


def compiled_step(model, kind):
    """The model's ``kind`` step (``'train_step'``...) as a tf.function, created once per model and step
    method (a ``train_step`` replaced on the instance gets a new one); kept in ``_training_state``."""
    step = getattr(model, kind)
    functions = model._state().setdefault("functions", {})
    underlying = getattr(step, "__func__", step)
    cached = functions.get(kind)
    jit = bool(model.jit_compile)
    if cached is None or cached[0] is not underlying or bool(cached[1]._jit_compile) != jit:
        # trace_checks=False: Keras builds its variables before tracing (no re-trace without variable
        # creation, no out-of-scope marking of the step's tensors)
        cached = functions[kind] = (underlying, Function(step, reduce_retracing=True, name=kind,
                                                         jit_compile=model.jit_compile or None, trace_checks=False))
    return cached[1]


def compiled_multi_step(model):
    """``steps_per_execution`` train steps in one tf.function call (the logs of the last one)."""
    functions = model._state().setdefault("functions", {})
    fn = functions.get("multi_train_step")
    if fn is None or bool(fn._jit_compile) != bool(model.jit_compile):
        def multi_train_step(batches):
            logs = None
            for b in batches:
                logs = model.train_step(b)
            return logs

        fn = functions["multi_train_step"] = Function(multi_train_step, reduce_retracing=True,
                                                      name="train_function", jit_compile=model.jit_compile or None,
                                                      trace_checks=False)
    return fn


class StepRunner:
    """Runs the model's ``kind`` step on batches, in the mode chosen once, when it is made
    (:attr:`mode`: :data:`EAGER`, :data:`FUNCTION`, :data:`DISTRIBUTED` or :data:`DISTRIBUTED_EAGER`).

    ``runner(batch)`` returns the step's logs (``train_step``/``test_step``: metrics aggregated over the
    replicas under a strategy) or outputs (``predict_step``: per-replica values under a strategy; use
    :meth:`predict` for NumPy arrays). ``runner.run_group(batches)`` runs a ``steps_per_execution`` group.
    """

    def __init__(self, model, kind):
        self.model = model
        self.kind = kind
        self.strategy = getattr(model, "_distribution_strategy", None)
        eager = model.run_eagerly
        self.step = getattr(model, kind) if eager else compiled_step(model, kind)
        if self.strategy is None:
            self.mode = EAGER if eager else FUNCTION
        else:
            self.mode = DISTRIBUTED_EAGER if eager else DISTRIBUTED
        spe = model._state().get("steps_per_execution", 1) if kind == "train_step" else 1
        # grouped steps run as one function call: not eagerly, and not yet across replicas (one step per run)
        self.steps_per_execution = spe if self.mode == FUNCTION else 1

    def __call__(self, data):
        if self.strategy is None:
            return self.step(data)
        outputs = distribution.run_step(self.model, self.strategy, self.step, data)
        return outputs if self.kind == "predict_step" else distribution.reduce_logs(self.model, outputs)

    def run_group(self, batches):
        """A tuple of batches (a ``steps_per_execution`` group) in one function call, or one batch."""
        if isinstance(batches, tuple) and self.steps_per_execution > 1:
            return compiled_multi_step(self.model)(batches)
        return self(batches)

    def predict(self, data):
        """The outputs for one batch as NumPy arrays (replicas' shares concatenated in order)."""
        out = self(data)
        if self.strategy is not None:
            return distribution.concat_predictions(out)
        return numpy_structure(out)


def numpy_structure(out):
    """A step's output (a tensor or a nested structure of them) as NumPy arrays."""
    if is_tensor(out):
        return out.numpy()
    return nest.map_structure(lambda t: t.numpy() if hasattr(t, "numpy") else np.asarray(t), out)
