"""The package version (kept in one place).

``TFCORE_VERSION`` is tfcore's own release. ``__version__`` (``tf.__version__``, ``tf.version.VERSION``) is
what TF code reads to decide which API it runs on: the TensorFlow API level tfcore implements, with
tfcore's own version as a PEP 440 local label (``2.21.0+tfcore.0.1.0``), so checks such as
``tf.__version__.startswith("2.")`` or ``packaging.version.parse(tf.__version__) >= Version("2.16")`` pass
and the tfcore release stays visible.
"""

TFCORE_VERSION = "0.1.0"
TF_API_VERSION = "2.21.0"
__version__ = f"{TF_API_VERSION}+tfcore.{TFCORE_VERSION}"
