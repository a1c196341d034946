"""``iter(dataset)``: the Python iterator over a dataset, and ``tf.experimental.Optional``."""

import numpy as np

from ..framework import dtypes, nest, tracing
from ..framework.errors import InvalidArgumentError, OutOfRangeError
from ..framework.tensor import Tensor
from ..framework.variables import Variable, variable_creators_scope
from . import structure
from .threads import close_iterator

_END = object()


class IterContext:
    """Pipeline-wide settings an iteration runs with (from the final dataset's options)."""

    __slots__ = ("deterministic", "threadpool_size")

    def __init__(self, options):
        det = options.deterministic
        self.deterministic = True if det is None else bool(det)
        size = options.threading.private_threadpool_size
        self.threadpool_size = int(size) if size else None


class OwnedIterator:
    """``tf.data.Iterator``: ``next(it)`` / ``it.get_next()`` over one pass of a dataset.

    Python's ``next`` raises StopIteration at the end; ``get_next`` raises
    ``tf.errors.OutOfRangeError`` as TF does. Dropping the iterator (or breaking
    out of a ``for`` loop) stops the pipeline's background threads.

    Trackable, as in TF: a ``tf.train.Checkpoint(iterator=it)`` saves where the iteration is and a
    restore continues from there. tfcore saves the number of elements consumed (an int64 variable,
    ``_iterator_position``) and restores by restarting the pipeline and skipping that many, so the
    elements after a restore are the saved ones when each pass of the pipeline gives the same order
    (a ``shuffle`` needs ``seed=`` and ``reshuffle_each_iteration=False``); TF serializes the
    pipeline's internal buffers instead, which also restores a reshuffling pass exactly.
    """

    __slots__ = ("_it", "_dataset", "_consumed", "_position", "_made_while_tracing", "__weakref__")

    def __init__(self, dataset):
        self._dataset = dataset
        # made inside a trace (a Python loop over a dataset there): its elements unroll into that trace
        self._made_while_tracing = bool(tracing.ACTIVE[0] and tracing.is_tracing())
        self._it = self._start()
        self._consumed = 0
        self._position = None  # the checkpointed position variable, created when a checkpoint asks

    def _start(self):
        return self._dataset._make_iter(IterContext(self._dataset.options()))

    def __iter__(self):
        return self

    def __next__(self):
        if tracing.ACTIVE[0] and not self._made_while_tracing and tracing.is_tracing():
            return self._next_in_graph()
        return self._next_element()

    def _next_in_graph(self):
        """``next(iterator)`` while a tf.function traces, on an iterator made outside the trace (an argument):
        one stateful graph node that takes the next element on every call of the function (TF's
        IteratorGetNext), not the trace's element baked in as a constant.
        At the end of the data a call raises ``OutOfRangeError``, as TF's; while tracing, Python's
        StopIteration still ends a Python loop over the iterator (no node is recorded then)."""
        state = {"tracing": True, "structure": None}

        def get_next():
            try:
                element = self._next_element()
            except StopIteration:
                if state["tracing"]:
                    raise
                raise OutOfRangeError(None, None, "End of sequence") from None
            if state["structure"] is None:
                state["structure"] = element
            return list(nest.flatten(element))

        flat = tracing.call_python(get_next, [], name="IteratorGetNext")
        state["tracing"] = False
        return nest.pack_sequence_as(state["structure"], list(flat))

    def _next_element(self):
        position = self._position
        if position is not None and int(position.numpy()) != self._consumed:
            self._seek(int(position.numpy()))  # a checkpoint restore assigned the position
        element = next(self._it)
        self._consumed += 1
        if position is not None:
            position.assign(self._consumed)
        return element

    def _seek(self, position):
        """Restart the pipeline and skip ``position`` elements (restoring a checkpointed iterator)."""
        if position < 0:
            raise InvalidArgumentError(None, None, f"Iterator restore: the saved position is {position}, "
                                                   "expected a number of elements >= 0")
        close_iterator(self._it)
        self._it = self._start()
        for _ in range(position):
            if next(self._it, _END) is _END:
                break
        self._consumed = position

    def _tfc_checkpoint_children(self):
        if self._position is None:
            with variable_creators_scope(()):  # one position, not a per-replica mirror
                self._position = Variable(np.int64(self._consumed), trainable=False, dtype=dtypes.int64,
                                          name="iterator_position")
        return [("_iterator_position", self._position)]

    def get_next(self):
        """The next element; ``tf.errors.OutOfRangeError`` at the end of the dataset."""
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        """A ``tf.experimental.Optional`` holding the next element, or empty at the end."""
        try:
            return Optional.from_value(next(self))
        except StopIteration:
            return Optional.empty(self._dataset.element_spec)

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def _close(self):
        """Stop background work now (also happens when the iterator is collected)."""
        it, self._it = self._it, iter(())
        close_iterator(it)

    def __repr__(self):
        return f"<OwnedIterator element_spec={self._dataset.element_spec!r}>"


class Optional:
    """``tf.experimental.Optional``: a value that may be absent."""

    __slots__ = ("_value", "_spec")

    def __init__(self, value, spec):
        self._value = value
        self._spec = spec

    @staticmethod
    def from_value(value):
        value = structure.normalize_element(value)
        return Optional(value, structure.spec_of(value))

    @staticmethod
    def empty(element_spec):
        return Optional(None, element_spec)

    def has_value(self, name=None):
        return Tensor(np.asarray(self._value is not None), dtypes.bool, structure.cpu_device())

    def get_value(self, name=None):
        if self._value is None:
            raise InvalidArgumentError(None, None, "OptionalGetValue: the optional does not have a value")
        return self._value

    @property
    def element_spec(self):
        return self._spec

    def __repr__(self):
        return f"<Optional has_value={self._value is not None}>"
