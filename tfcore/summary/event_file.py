"""Event files: TF's ``events.out.tfevents.*`` TFRecord files of ``Event`` protos, written off-thread.

A background thread owns the file: summary calls only enqueue ``(wall_time, step, tag, array,
dtype, metadata)``; the thread builds the protos (TensorBoard's ``event_pb2``/``summary_pb2``),
frames them as TFRecords and flushes when ``max_queue`` events are pending, when ``flush_millis``
has passed, on ``flush()`` (which waits) and on ``close()``. Writers still open at interpreter
exit are flushed and closed by an ``atexit`` hook.
"""

import atexit
import os
import queue
import socket
import threading
import time
import weakref

from ..io import _deps
from ..io.tensor_serialization import tensor_proto_from_array
from ..io.tf_record import RecordWriter

_OPEN = weakref.WeakSet()
_counter = [0]
_counter_lock = threading.Lock()


def event_file_name(logdir, suffix):
    """``events.out.tfevents.<seconds>.<host>.<pid>.<n><suffix>`` in ``logdir`` (TF2's naming)."""
    with _counter_lock:
        n = _counter[0]
        _counter[0] += 1
    return os.path.join(logdir, f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                                f"{os.getpid()}.{n}{suffix}")


class EventFileWriter:
    """One event file and the thread that writes it."""

    def __init__(self, logdir, max_queue=10, flush_millis=120000, filename_suffix=".v2"):
        self._event_pb2 = _deps.tensorboard_proto("event_pb2")
        self._summary_pb2 = _deps.tensorboard_proto("summary_pb2")
        self._tensor_pb2 = _deps.tensorboard_proto("tensor_pb2")
        os.makedirs(logdir, exist_ok=True)
        self.path = event_file_name(logdir, filename_suffix)
        self._records = RecordWriter(self.path)
        self._max_queue = max(1, int(max_queue))
        self._flush_secs = max(0.0, flush_millis / 1000.0)
        self._queue = queue.Queue()
        self._error = None
        self._closed = False
        first = self._event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
        self._records.write(first.SerializeToString())
        self._records.flush()
        self._thread = threading.Thread(target=self._run, name=f"tfcore-summary-writer-{os.path.basename(logdir)}",
                                        daemon=True)
        self._thread.start()
        _OPEN.add(self)

    # -- called from user threads ------------------------------------------------------
    def add_summary(self, wall_time, step, tag, array, dtype, metadata):
        self._check()
        self._queue.put(("summary", wall_time, step, tag, array, dtype, metadata))

    def add_event_bytes(self, event_bytes):
        """A serialized Event written as it is (``write_raw_pb``, graphs)."""
        self._check()
        self._queue.put(("raw", event_bytes))

    def flush(self):
        """Block until every queued event is written and the file is flushed."""
        if self._closed:
            return
        done = threading.Event()
        self._queue.put(("flush", done))
        done.wait()
        self._check()

    def close(self):
        if self._closed:
            return
        self.flush()
        done = threading.Event()
        self._queue.put(("close", done))
        done.wait()
        self._closed = True
        _OPEN.discard(self)

    @property
    def closed(self):
        return self._closed

    def _check(self):
        if self._error is not None:
            err, self._error = self._error, None
            raise err

    # -- the writer thread ---------------------------------------------------------------
    def _event_bytes(self, item):
        _, wall_time, step, tag, array, dtype, metadata = item
        value = self._summary_pb2.Summary.Value(tag=tag)
        value.tensor.ParseFromString(tensor_proto_from_array(array, dtype).SerializeToString())
        if metadata is not None:
            value.metadata.ParseFromString(metadata)
        ev = self._event_pb2.Event(wall_time=wall_time, step=step)
        ev.summary.value.append(value)
        return ev.SerializeToString()

    def _run(self):
        pending = 0
        last_flush = time.monotonic()
        while True:
            timeout = max(0.0, last_flush + self._flush_secs - time.monotonic()) if pending else None
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            try:
                if item is None:
                    pass
                elif item[0] == "summary":
                    self._records.write(self._event_bytes(item))
                    pending += 1
                elif item[0] == "raw":
                    self._records.write(item[1])
                    pending += 1
                elif item[0] in ("flush", "close"):
                    self._records.flush()
                    pending = 0
                    last_flush = time.monotonic()
                    if item[0] == "close":
                        self._records.close()
                    item[1].set()
                    if item[0] == "close":
                        return
                    continue
                if pending and (pending >= self._max_queue or time.monotonic() - last_flush >= self._flush_secs):
                    self._records.flush()
                    pending = 0
                    last_flush = time.monotonic()
            except Exception as e:  # reported to the next caller; the thread keeps serving flush/close
                self._error = e
                if item is not None and item[0] in ("flush", "close"):
                    item[1].set()


@atexit.register
def _close_all():
    for w in list(_OPEN):
        try:
            w.close()
        except Exception:
            pass
