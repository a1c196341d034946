"""``tf.distribute``: MirroredStrategy, MultiWorkerMirroredStrategy, cross-device reductions (``tfcore.distribute``).

See docs/architecture.md §6: one replica per device, variables created under ``scope()``
are mirrored, ``run`` executes per replica, and gradients are reduced with the
reduction that fits the devices (NCCL, on-device, or host).
"""

from . import cluster_resolver, experimental
from .collective_all_reduce_strategy import MultiWorkerMirroredStrategy
from .cross_device_ops import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce, OnDeviceAllReduce,
                               ReductionToOneDevice)
from .distribute_lib import (get_cross_replica_context, get_replica_context, get_strategy, has_strategy,
                             in_cross_replica_context)
from .input_lib import (DistributedDataset, DistributedIterator, InputContext, InputOptions,
                        InputReplicationMode)
from .reduce_util import ReduceOp
from .strategy import (MirroredStrategy, OneDeviceStrategy, ReplicaContext, RunOptions, Strategy, StrategyExtended,
                       experimental_set_strategy)
from .values import DistributedValues, Mirrored, MirroredVariable, PerReplica, SyncOnReadVariable


def _replicas_for_average_loss():
    ctx = get_replica_context()
    return ctx.num_replicas_in_sync if ctx is not None else get_strategy().num_replicas_in_sync


def _install_hooks():
    """``tf.nn.compute_average_loss`` divides by the GLOBAL batch inside a replica function."""
    from tfcore.ops import loss_ops

    loss_ops._num_replicas_in_sync = _replicas_for_average_loss


_install_hooks()
