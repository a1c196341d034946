"""``tf.compat.v1.train.summary_iterator`` and ``tf.compat.v1.io.tf_record_iterator``: the TF1 readers of
TFRecord and event files that TF2 code still calls.

TensorBoard's own guide and many TF2 tests read the ``events.out.tfevents.*`` files that ``tf.summary`` and
the Keras ``TensorBoard`` callback write with ``tf.compat.v1.train.summary_iterator(path)``, which yields one
``Event`` proto per record. As in TF, a missing file raises ``NotFoundError`` and a directory
``FailedPreconditionError`` when the iterator is made; a damaged record raises ``DataLossError`` when it is
reached, and a record that is not an ``Event`` raises protobuf's ``DecodeError``.
"""

import os

from ..framework.errors import FailedPreconditionError, NotFoundError
from ..io import _deps
from ..io.tf_record import TFRecordOptions, iter_records


def _checked_path(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise NotFoundError(None, None, f"{path}; No such file or directory")
    if os.path.isdir(path):
        raise FailedPreconditionError(None, None, f"{path}; Is a directory")
    return path


def tf_record_iterator(path, options=None):
    """An iterator over the records of the TFRecord file ``path``, each as ``bytes``.

    ``options`` is a ``tf.io.TFRecordOptions`` or a compression name (``""``, ``"ZLIB"``, ``"GZIP"``), as in TF.
    """
    compression = options.compression_type if isinstance(options, TFRecordOptions) else options
    return iter_records(_checked_path(path), compression_type=compression)


def summary_iterator(path):
    """An iterator over the ``Event`` protos of the event file ``path`` (``tf.compat.v1.Event`` messages:
    ``event.step``, ``event.wall_time``, ``event.summary.value`` with each value's ``tag`` and ``tensor``;
    ``tf.make_ndarray(value.tensor)`` gives a scalar's value)."""
    records = tf_record_iterator(path)
    event_class = _deps.tensorboard_proto("event_pb2").Event
    return (event_class.FromString(record) for record in records)
