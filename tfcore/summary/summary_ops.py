"""``tf.summary.write`` and the TensorBoard plugin summaries: scalar, histogram, image, text, audio.

Each summary is computed with registered ops (histogram bucketing, PNG/WAV encoding) and
recorded by the ``WriteSummary`` op, which hands the host value to the writer's thread; the
event protos, plugin metadata and tensor layouts are TensorBoard's, as TF writes them.
"""

import time

import numpy as np

from ..framework import dtypes
from ..framework.context import current_name_scope
from ..framework.errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ..framework.tensor_conversion import convert_to_tensor
from ..io import _deps
from ..io.image_codecs import encode_png, encode_wav
from ..ops import array_ops, math_ops
from ..ops.image_ops import convert_image_dtype
from ..ops.registry import Op, execute
from . import writer as _w

DEFAULT_BUCKET_COUNT = 30


def _tag(name):
    scope = current_name_scope()
    return f"{scope}/{name}" if scope else name


def _step_value(step):
    if step is None:
        step = _w.get_step()
        if step is None:
            raise ValueError("No step set. Please specify one either through the `step` argument or through "
                             "tf.summary.experimental.set_step()")
    return step


def _write_rule(op, inputs, attrs):
    step = inputs[1]
    if step.shape.rank != 0 or not step._dtype.is_integer:
        raise InvalidArgumentError(None, None, f"WriteSummary: step must be an integer scalar, got "
                                               f"{step._dtype.name} of shape {step.shape}")
    return dtypes.bool


def _write_kernel(b, tensor, step, writer, tag, metadata, dtype):
    writer._events().add_summary(time.time(), int(step), tag, np.array(tensor), dtype, metadata)
    return np.array(True)


_WRITE = Op("WriteSummary", rule=_write_rule, stateful=True)
_WRITE.kernel("cpu")(_write_kernel)


def _metadata_bytes(metadata):
    if metadata is None:
        return None
    if isinstance(metadata, bytes):
        return metadata
    return metadata.SerializeToString()


def write(tag, tensor, step=None, metadata=None, name=None):
    """``tf.summary.write``: write ``tensor`` under ``tag`` at ``step`` to the default writer.

    Returns True when written, False when there is no default writer or recording is off.
    ``tensor`` may be a callable (evaluated only when recording). ``metadata`` is a
    ``SummaryMetadata`` proto or its serialized bytes.
    """
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    step = _step_value(step)
    if callable(tensor):
        tensor = tensor()
    t = convert_to_tensor(tensor)
    s = convert_to_tensor(step, dtype=dtypes.int64) if not isinstance(step, Tensor) else step
    return execute(_WRITE, (t, s), {"writer": _w.current_writer(), "tag": _tag(tag),
                                    "metadata": _metadata_bytes(metadata), "dtype": t._dtype})


def write_raw_pb(tensor, step=None, name=None):
    """``tf.summary.experimental.write_raw_pb``: write serialized ``tf.compat.v1.Summary`` protos."""
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    step = int(np.asarray(getattr(_step_value(step), "numpy", lambda: _step_value(step))()))
    event_pb2 = _deps.tensorboard_proto("event_pb2")
    for raw in np.asarray(convert_to_tensor(tensor, dtype=dtypes.string).numpy(), dtype=object).reshape(-1):
        ev = event_pb2.Event(wall_time=time.time(), step=step)
        ev.summary.ParseFromString(raw)
        _w.current_writer()._events().add_event_bytes(ev.SerializeToString())
    return convert_to_tensor(True)


def _plugin_metadata(plugin, description, **kwargs):
    mod = __import__(f"tensorboard.plugins.{plugin}.metadata", fromlist=["create_summary_metadata"])
    return mod.create_summary_metadata(display_name=None, description=description or "", **kwargs)


def _plugin(plugin, description, **kwargs):
    _deps.tensorboard_proto("summary_pb2")  # a clear error when tensorboard is missing
    return _plugin_metadata(plugin, description, **kwargs).SerializeToString()


def scalar(name, data, step=None, description=None):
    """``tf.summary.scalar``: a float32 scalar for TensorBoard's Scalars dashboard."""
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    t = convert_to_tensor(data)
    if t.shape.rank != 0:
        raise ValueError(f"tf.summary.scalar: data must be a scalar, got shape {t.shape}")
    return write(name, math_ops.cast(t, dtypes.float32), step, _plugin("scalar", description))


# -- histograms --------------------------------------------------------------------
def _buckets_kernel(b, data, bucket_count):
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    k = max(int(bucket_count), 0)
    if data.size == 0 or k == 0:
        return np.zeros((k, 3))
    lo, hi = data.min(), data.max()
    rng = hi - lo
    if rng == 0:
        counts = np.zeros(k)
        counts[-1] = data.size
        edges = np.full(k, hi)
        return np.stack([edges, edges, counts], axis=1)
    width = rng / k
    idx = np.minimum(np.floor((data - lo) / width).astype(np.int32), k - 1)
    counts = np.bincount(idx, minlength=k).astype(np.float64)
    edges = lo + np.arange(k + 1, dtype=np.float64) * ((hi - lo) / k)
    edges[-1] = hi
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def _buckets_rule(op, inputs, attrs):
    t = inputs[0]
    if not (t._dtype.is_floating or t._dtype.is_integer or t._dtype.is_bool):
        raise InvalidArgumentError(None, None, f"HistogramBuckets: data must be numeric, got {t._dtype.name}")
    return dtypes.float64


_BUCKETS = Op("SummaryHistogramBuckets", rule=_buckets_rule)
_BUCKETS.kernel("cpu")(_buckets_kernel)


def histogram_buckets(data, buckets=None):
    """The ``[buckets, 3]`` float64 ``(left, right, count)`` table TF's histogram summary stores.

    Equal-width buckets over ``[min, max]``, the last one closed; all-equal data puts every count
    in the last bucket with both edges at the value; empty data gives zeros.
    """
    return execute(_BUCKETS, (convert_to_tensor(data),),
                   {"bucket_count": DEFAULT_BUCKET_COUNT if buckets is None else int(buckets)})


def histogram(name, data, step=None, buckets=None, description=None):
    """``tf.summary.histogram``: TF's bucketing of ``data`` (default 30 buckets) for the Histograms dashboard."""
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    return write(name, lambda: histogram_buckets(data, buckets), step, _plugin("histogram", description))


# -- images, text, audio ------------------------------------------------------------
def _as_uint8_images(data):
    t = convert_to_tensor(data)
    if t.shape.rank != 4 or t.shape[3] not in (1, 3, 4):
        raise ValueError(f"tf.summary.image: data must be [k, height, width, channels] with 1, 3 or 4 channels, got "
                         f"shape {t.shape}")
    if t._dtype is dtypes.uint8:
        return t
    if t._dtype.is_floating:
        return convert_image_dtype(t, dtypes.uint8, saturate=True)
    raise ValueError(f"tf.summary.image: data must be uint8 or float, got {t._dtype.name}")


def image(name, data, step=None, max_outputs=3, description=None):
    """``tf.summary.image``: up to ``max_outputs`` images of ``data`` as PNG.

    ``data`` is ``[k, h, w, c]`` (c in 1, 3, 4), uint8 or float in [0, 1].
    """
    if not _w.should_record_summaries():
        return convert_to_tensor(False)

    def encoded():  # built from ops only (no host reads), so it also records into a traced graph
        imgs = _as_uint8_images(data)
        k = min(int(max_outputs), int(imgs.shape[0]))
        h, w = int(imgs.shape[1]), int(imgs.shape[2])
        dims = [convert_to_tensor(str(w).encode()), convert_to_tensor(str(h).encode())]
        return array_ops.stack(dims + [encode_png(imgs[i]) for i in range(k)])

    return write(name, encoded, step, _plugin("image", description))


def text(name, data, step=None, description=None):
    """``tf.summary.text``: a string tensor (Markdown) for TensorBoard's Text dashboard."""
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    t = convert_to_tensor(data, dtype=dtypes.string)
    return write(name, t, step, _plugin("text", description))


def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None, description=None):
    """``tf.summary.audio``: up to ``max_outputs`` clips of ``data`` as 16-bit WAV.

    ``data`` is ``[k, frames, channels]`` floats in [-1, 1].
    """
    if encoding not in (None, "wav"):
        raise ValueError(f"Unknown encoding: {encoding!r}")
    if not _w.should_record_summaries():
        return convert_to_tensor(False)
    from tensorboard.plugins.audio import metadata as audio_md

    def encoded():  # built from ops only, as image()
        t = convert_to_tensor(data)
        if t.shape.rank != 3:
            raise ValueError(f"tf.summary.audio: data must be [k, frames, channels], got {t.shape}")
        k = min(int(max_outputs), int(t.shape[0]))
        label = convert_to_tensor(b"")
        return array_ops.stack([array_ops.stack([encode_wav(t[i], sample_rate), label]) for i in range(k)])

    md = _plugin("audio", description, encoding=audio_md.Encoding.Value("WAV"))
    return write(name, encoded, step, md)

