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
