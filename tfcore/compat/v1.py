"""``tf.compat.v1``: only the TF1 protocol-buffer classes that TF2-era libraries still build by hand, and the
TF1 readers of event and TFRecord files (``train.summary_iterator``, ``io.tf_record_iterator``).

TensorBoard's hparams plugin (used by keras-tuner's TensorBoard logging) writes its session summaries as
``tf.compat.v1.Summary()`` protos. tfcore has no TF1 graph API; the names here are TensorFlow's own message
classes as the ``tensorboard`` package ships them (its copies of TF's ``.proto`` files: same fields, so
the bytes are TF's), loaded on
first use with a clear error when ``tensorboard`` is missing. Any other name raises AttributeError.
"""
from ..io import _deps

_PROTOS = {"Summary": "summary_pb2", "Event": "event_pb2", "SummaryMetadata": "summary_pb2",
           "HistogramProto": "summary_pb2", "TensorProto": "tensor_pb2"}


_NAMESPACES = {"train": "v1_train", "io": "v1_io"}


def __getattr__(name):
    if name in _NAMESPACES:
        import importlib
        return importlib.import_module(f"{__package__}.{_NAMESPACES[name]}")
    module = _PROTOS.get(name)
    if module is None:
        raise AttributeError(f"module 'tfcore.compat.v1' has no attribute {name!r}: tfcore implements the TF2 API "
                             "only (tf.compat.v1 holds just the protos " + ", ".join(sorted(_PROTOS))
                             + " and train.summary_iterator, io.tf_record_iterator)")
    return getattr(_deps.tensorboard_proto(module), name)
