"""Saving and loading in TensorFlow's formats (docs/architecture.md §8).

- ``tf.train.Checkpoint`` / ``CheckpointManager`` / ``latest_checkpoint`` / ``load_checkpoint`` /
  ``list_variables``: TF's tensor bundle (``.index`` + ``.data-00000-of-00001``), the trackable
  object graph proto and the ``checkpoint`` state file; readable by TensorFlow and vice versa.

The protos come from the ``tensorboard`` package (``pip install 'tfcore[tensorboard]'``) and the
checksums from ``google-crc32c``.
"""

from .checkpoint import Checkpoint, CheckpointLoadStatus, CheckpointOptions, InitializationOnlyStatus
from .management import (
    CheckpointManager,
    CheckpointReader,
    checkpoints_iterator,
    list_variables,
    load_checkpoint,
    load_variable,
)
from .state import get_checkpoint_state, latest_checkpoint
from ..function.func_graph import register_graph_def_exporter
from .graph_def import graph_def as _graph_def

register_graph_def_exporter(_graph_def)
