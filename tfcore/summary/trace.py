"""``tf.summary.trace_on`` / ``trace_export`` / ``trace_off``: export the graphs of traced functions.

While tracing is on, ``tf.function`` (when it exists) hands each graph it runs to
:func:`add_graph` as a serialized ``GraphDef``; ``trace_export`` writes them to the default writer
as ``Event.graph_def`` records (TensorBoard's Graphs dashboard) and stops tracing. Code that runs
only eagerly has no graph, so nothing is exported for it (as in TF).
"""

import threading
import time
import warnings

from ..io import _deps
from . import writer as _w

_lock = threading.Lock()
_trace = {"on": False, "graphs": []}


def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Start collecting the graphs of functions that run (``profiler=True`` is not available and warns)."""
    if profiler:
        warnings.warn("tf.summary.trace_on(profiler=True): tfcore has no profiler; only graphs are collected.")
    with _lock:
        _trace["on"] = bool(graph)
        _trace["graphs"] = []


def is_tracing():
    return _trace["on"]


def add_graph(graph_def_bytes):
    """Called by tf.function for each graph executed while tracing is on."""
    with _lock:
        if _trace["on"]:
            _trace["graphs"].append(bytes(graph_def_bytes))


def trace_off():
    with _lock:
        _trace["on"] = False
        _trace["graphs"] = []


def trace_export(name, step=None, profiler_outdir=None):
    """Write the collected graphs to the default writer at ``step`` and stop tracing.

    Returns the number of graphs written (0 when nothing graph-like ran while tracing).
    """
    with _lock:
        graphs, _trace["graphs"], _trace["on"] = _trace["graphs"], [], False
    writer = _w.current_writer()
    if writer is None or not _w.should_record_summaries():
        return 0
    if step is None:
        step = _w.get_step()
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` argument or through "
                             "tf.summary.experimental.set_step()")
    step = int(step.numpy() if hasattr(step, "numpy") else step)
    if not graphs:
        warnings.warn(f"tf.summary.trace_export({name!r}): no tf.function graph ran while tracing; nothing exported.")
        return 0
    event_pb2 = _deps.tensorboard_proto("event_pb2")
    for g in graphs:
        writer._events().add_event_bytes(event_pb2.Event(wall_time=time.time(), step=step,
                                                         graph_def=g).SerializeToString())
    return len(graphs)
