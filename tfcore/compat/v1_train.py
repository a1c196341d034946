"""``tf.compat.v1.train``: only ``summary_iterator`` (tfcore has no TF1 training API)."""

from .record_iterators import summary_iterator

__all__ = ["summary_iterator"]
