"""``tf.version``: the version strings TF exposes (tfcore's own version; no git or compiler build info)."""

from ._version import __version__ as VERSION  # noqa: F401, N811 - TF's public name

GIT_VERSION = "unknown"
COMPILER_VERSION = "unknown"
GRAPH_DEF_VERSION = 0
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
