"""``tf.compat.v1.io``: only ``tf_record_iterator`` (TF2 code reads records with ``tf.data.TFRecordDataset``)."""

from .record_iterators import tf_record_iterator

__all__ = ["tf_record_iterator"]
