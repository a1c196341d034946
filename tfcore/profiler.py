"""``tf.profiler``: TF's profiler API, accepted so that programs which profile run unchanged.

tfcore has no profiler: ``tf.profiler.experimental.start``/``stop``, ``Profile`` and ``Trace`` do what
TF's do to the program (start and stop a session, check that sessions do not nest, mark regions) and
write no profile; the first ``start`` warns once, as the Keras TensorBoard callback's ``profile_batch``
does. ``python -m tfcore info`` and the benchmarks in ``bench/`` are the tools for timing tfcore.
"""

import contextlib
import threading
import warnings

from .framework.errors import AlreadyExistsError, UnavailableError

_lock = threading.Lock()
_session = [None]   # the log directory of the running (no-op) profiling session
_warned = [False]


class _Experimental:
    """``tf.profiler.experimental``."""

    class ProfilerOptions:
        """``tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, python_tracer_level=0, ...)``."""

        def __init__(self, host_tracer_level=2, python_tracer_level=0, device_tracer_level=1, delay_ms=None):
            self.host_tracer_level = host_tracer_level
            self.python_tracer_level = python_tracer_level
            self.device_tracer_level = device_tracer_level
            self.delay_ms = delay_ms

    @staticmethod
    def start(logdir, options=None):
        """Start a profiling session (TF: AlreadyExistsError when one is running). Writes no profile."""
        with _lock:
            if _session[0] is not None:
                raise AlreadyExistsError(None, None, "Another profiler is running.")
            _session[0] = str(logdir)
            if not _warned[0]:
                _warned[0] = True
                warnings.warn("tf.profiler: tfcore has no profiler; the session runs and no profile is written.",
                              stacklevel=2)

    @staticmethod
    def stop(save=True):
        """Stop the session (TF: UnavailableError when none is running)."""
        with _lock:
            if _session[0] is None:
                raise UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
            _session[0] = None

    @staticmethod
    @contextlib.contextmanager
    def Profile(logdir, options=None):  # noqa: N802 - TF's name
        """``with tf.profiler.experimental.Profile(logdir):`` a session around the block."""
        _Experimental.start(logdir, options)
        try:
            yield
        finally:
            _Experimental.stop()

    class Trace:
        """``with tf.profiler.experimental.Trace(name, step_num=..., _r=1):`` marks a region (no-op here)."""

        def __init__(self, name, **kwargs):
            self.name = name
            self.kwargs = kwargs

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False


experimental = _Experimental()
