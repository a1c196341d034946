"""The epoch iterator: the batches of each epoch of ``fit``/``evaluate``/``predict``, as Keras 3's
``trainers/epoch_iterator.py``.

The data adapter (``engine/data_adapter.DataHandler``) turns the user's ``x``/``y``/``sample_weight``
(arrays, a ``tf.data.Dataset``, a generator, a ``PyDataset``) into placed batches per epoch; the epoch
iterator walks its epochs and steps for the trainer. ``steps_per_execution > 1`` groups consecutive
batches, each group run by one step-runner call, and a resumed ``fit`` (``BackupAndRestore``) skips the
batches its first epoch already trained on.
"""

import itertools

from ..engine import data_adapter


class EpochIterator:
    """Epochs of ``(begin_step, end_step, data)``: ``data`` is one batch, or a tuple of up to
    ``steps_per_execution`` batches (steps ``begin_step`` to ``end_step``) when grouping. The callbacks'
    ``on_*_batch_begin`` get ``begin_step`` and ``on_*_batch_end`` ``end_step``, as in Keras 3."""

    def __init__(self, x=None, y=None, sample_weight=None, batch_size=None, steps_per_epoch=None, shuffle=False,
                 class_weight=None, steps_per_execution=1, initial_epoch=0, epochs=1, worker=None):
        self.data_adapter = data_adapter.DataHandler(
            x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
            initial_epoch=initial_epoch, epochs=epochs, shuffle=shuffle, class_weight=class_weight, worker=worker)
        self.steps_per_execution = steps_per_execution
        self._skip_batches = 0

    @property
    def num_batches(self):
        """Steps per epoch when known (the given ``steps_per_epoch``, or the data's size), else None."""
        return self.data_adapter.inferred_steps

    @property
    def exhausted(self):
        """True once an iterator or generator given as ``x`` ran out (no further epochs)."""
        return self.data_adapter.exhausted

    def resume_at(self, epoch, skip_batches):
        """Start at ``epoch`` and skip its first ``skip_batches`` batches (a restored ``BackupAndRestore``)."""
        self.data_adapter.initial_epoch = epoch
        self._skip_batches = skip_batches

    def enumerate_epochs(self):
        """``(epoch, steps)`` per epoch; ``steps`` yields ``(begin_step, end_step, data)``."""
        for epoch, batches in self.data_adapter.enumerate_epochs():
            if self._skip_batches:
                batches, self._skip_batches = itertools.islice(batches, self._skip_batches, None), 0
            yield epoch, self._steps(batches)

    def _steps(self, batches):
        if self.steps_per_execution <= 1:
            for step, batch in batches:
                yield step, step, batch
            return
        group, first = [], None
        for step, batch in batches:
            if first is None:
                first = step
            group.append(batch)
            if len(group) == self.steps_per_execution:
                yield first, step, tuple(group)
                group, first = [], None
        if group:  # a last, shorter group: Keras 3 still reports its end as begin + steps_per_execution - 1
            yield first, first + self.steps_per_execution - 1, tuple(group)
