"""Keras training in Keras 3's layout: the trainer (``trainer.py``: compile, fit, evaluate, predict, the
steps), the epoch iterator (``epoch_iterator.py``: epochs, steps and ``steps_per_execution`` groups) and
the step runner (``step_runner.py``: the one place that decides how a step runs)."""
