"""``tf.train``: the ``Example`` family of protocol buffers (wire-compatible with TensorFlow's), and
checkpoints (``Checkpoint``, ``CheckpointManager``, ... from ``tfcore.saving``).

``tf.train.Example(features=tf.train.Features(feature={...}))`` and friends are protobuf
messages (``SerializeToString()``, ``FromString()``); they need the ``protobuf`` package
(``pip install 'tfcore[tfrecord]'``).
"""

from .framework.coordinator import Coordinator
from .framework.server_lib import ClusterSpec
from .io import protos as _protos
from .ops.moving_averages import ExponentialMovingAverage
from .saving import (
    Checkpoint,
    CheckpointManager,
    CheckpointOptions,
    checkpoints_iterator,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)

_NAMES = ("Example", "Features", "Feature", "BytesList", "FloatList", "Int64List", "FeatureList", "FeatureLists",
          "SequenceExample")


def __getattr__(name):
    if name in _NAMES:
        cls = _protos.message_class(name)
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'tfcore.train' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_NAMES))
