"""Summary writers and the per-thread summary state (default writer, step, recording condition).

As in TF, the default writer, the default step and ``record_if`` are per thread;
``SummaryWriter.as_default(step=...)`` sets them for a block and flushes the writer on exit.
"""

import contextlib
import os
import threading

import numpy as np

from ..framework.errors import FailedPreconditionError
from .event_file import EventFileWriter


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = True


_state = _State()


class SummaryWriter:
    """``tf.summary.SummaryWriter``: the interface of summary writers."""

    def set_as_default(self, step=None):
        """Make this the default writer of the thread (and set the step when given)."""
        _state.writer = self
        if step is not None:
            _state.step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        """A block where this is the default writer (and ``step`` the default step); flushes on exit."""
        old_writer, old_step = _state.writer, _state.step
        _state.writer = self
        if step is not None:
            _state.step = step
        try:
            yield self
        finally:
            self.flush()
            _state.writer = old_writer
            if step is not None:
                _state.step = old_step

    def init(self):
        """Kept for TF compatibility: writers are ready when created."""

    def flush(self):
        pass

    def close(self):
        pass


class _FileWriter(SummaryWriter):
    """A writer of one event file in ``logdir`` (see :func:`create_file_writer`)."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._logdir = logdir
        self._file = EventFileWriter(logdir, max_queue, flush_millis, filename_suffix)

    @property
    def logdir(self):
        return self._logdir

    def _events(self):
        if self._file.closed:
            raise FailedPreconditionError(None, None, f"The summary writer for {self._logdir} is closed.")
        return self._file

    def flush(self):
        self._file.flush()

    def close(self):
        """Flush and close the event file; later writes raise FailedPreconditionError."""
        self._file.close()

    def __repr__(self):
        return f"<SummaryWriter logdir={self._logdir!r} file={os.path.basename(self._file.path)!r}>"


class _NoopWriter(SummaryWriter):
    """``create_noop_writer()``: ``as_default`` does not make it default, so nothing is recorded."""

    def set_as_default(self, step=None):
        if step is not None:
            _state.step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        old_step = _state.step
        if step is not None:
            _state.step = step
        try:
            yield self
        finally:
            if step is not None:
                _state.step = old_step


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None):
    """``tf.summary.create_file_writer``: a writer of a new event file in ``logdir`` (created if missing).

    ``max_queue`` (default 10) events may wait before the file is flushed, and it is flushed at
    least every ``flush_millis`` (default 120000) ms; ``filename_suffix`` defaults to ``.v2``.
    """
    if logdir is None:
        raise ValueError("logdir cannot be None")
    logdir = os.fspath(logdir.numpy() if hasattr(logdir, "numpy") else logdir)
    logdir = logdir.decode() if isinstance(logdir, bytes) else logdir
    if max_queue is not None and int(max_queue) < 0:
        raise ValueError(f"max_queue must be >= 0, got {max_queue}")
    if flush_millis is not None and int(flush_millis) < 0:
        raise ValueError(f"flush_millis must be >= 0, got {flush_millis}")
    return _FileWriter(logdir, 10 if max_queue is None else int(max_queue),
                       120000 if flush_millis is None else int(flush_millis),
                       ".v2" if filename_suffix is None else str(filename_suffix))


def create_noop_writer():
    """``tf.summary.create_noop_writer``: a writer that records nothing."""
    return _NoopWriter()


def flush(writer=None, name=None):
    """``tf.summary.flush``: flush ``writer`` (default: the thread's default writer)."""
    w = writer if writer is not None else _state.writer
    if w is not None:
        w.flush()


def get_step():
    """``tf.summary.experimental.get_step``."""
    return _state.step


def set_step(step):
    """``tf.summary.experimental.set_step``: the default step of summaries written by this thread."""
    _state.step = step


def _condition_value(cond):
    if callable(cond):
        cond = cond()
    if hasattr(cond, "numpy"):
        cond = cond.numpy()
    return bool(np.asarray(cond))


@contextlib.contextmanager
def record_if(condition):
    """``tf.summary.record_if``: record summaries in this block only while ``condition`` (bool or callable)."""
    old = _state.is_recording
    _state.is_recording = condition
    try:
        yield
    finally:
        _state.is_recording = old


def should_record_summaries():
    """``tf.summary.should_record_summaries``: a default writer is set and the record_if condition holds."""
    return _state.writer is not None and _condition_value(_state.is_recording)


def current_writer():
    return _state.writer
