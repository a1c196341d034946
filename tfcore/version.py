"""``tf.version``: the version strings TF exposes. ``VERSION`` is the TF API level with tfcore's version as
a PEP 440 local label (``2.21.0+tfcore.0.1.0``); ``TFCORE_VERSION`` is tfcore's own (no git or compiler
build info)."""

from ._version import TF_API_VERSION, TFCORE_VERSION  # noqa: F401 - tfcore's names
from ._version import __version__ as VERSION  # noqa: F401, N811 - TF's public name

GIT_VERSION = "unknown"
COMPILER_VERSION = "unknown"
GRAPH_DEF_VERSION = 0
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
