"""``tf.train.Coordinator``: stop a group of threads together and report the first exception (TF's semantics)."""

import contextlib
import sys
import threading
import time

from .errors import OutOfRangeError

__all__ = ["Coordinator"]


class Coordinator:
    """``tf.train.Coordinator``.

    Threads poll :meth:`should_stop`; any of them may :meth:`request_stop`, optionally with the exception that
    made it stop. :meth:`join` waits for the threads and re-raises the first exception reported that is not a
    "clean stop" (``clean_stop_exception_types``, default ``(tf.errors.OutOfRangeError,)``).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        """``ex`` as exc_info, or None for a clean-stop exception."""
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Ask every thread to stop. ``ex`` (an exception or an ``exc_info`` tuple) is kept, if it is the first and
        not a clean-stop exception, for :meth:`join` to raise."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, value, _ = ex
                    raise value
                if ex is not None:
                    raise ex
            if ex is not None and not self._exc_info_to_raise:
                if isinstance(ex, tuple):
                    self._exc_info_to_raise = ex
                else:
                    if not isinstance(ex, BaseException):
                        raise ValueError(f"ex must be an exception or an exc_info tuple, got {ex!r}")
                    self._exc_info_to_raise = (type(ex), ex, ex.__traceback__)
            self._stop_event.set()

    def clear_stop(self):
        """Clear the stop request (and the recorded exception) so the coordinator can be reused."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context in which any exception requests a stop (recorded for :meth:`join`) instead of propagating."""
        try:
            yield
        except:  # noqa: E722 - TF catches everything, including SystemExit
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Block until a stop is requested or ``timeout`` seconds pass; returns whether a stop was requested."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Have :meth:`join` wait for ``thread`` too."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for the registered threads and ``threads`` to end. Once a stop is requested they have
        ``stop_grace_period_secs`` to finish; stragglers raise RuntimeError (unless ``ignore_live_threads``).
        Re-raises the exception passed to :meth:`request_stop`, if any."""
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = max(min(2 * stop_wait_secs, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers and not ignore_live_threads:
                raise RuntimeError("Coordinator stopped with threads still running: " + " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raise the exception passed to :meth:`request_stop`, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
