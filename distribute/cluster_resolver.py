"""``tf.distribute.cluster_resolver``: who is in the job and which task this process is.

:class:`TFConfigClusterResolver` reads the ``TF_CONFIG`` environment variable as TF does::

    {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
     "task": {"type": "worker", "index": 0}}

:class:`SimpleClusterResolver` holds a given cluster; MultiWorkerMirroredStrategy makes one from MPI
(one ``worker`` task per rank) when ``TF_CONFIG`` is not set. :func:`task_position` orders the tasks
as TF's collective group does (the chief first, then the workers), so that under ``mpirun`` a
``TF_CONFIG`` can be checked against MPI's rank and size.
"""

import json
import os

from tfcore.framework.server_lib import ClusterSpec

_TASK_JOBS = ("chief", "worker")  # the jobs whose tasks train (MultiWorkerMirroredStrategy)


class ClusterResolver:
    """``tf.distribute.cluster_resolver.ClusterResolver``: the base of resolvers."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


class SimpleClusterResolver(ClusterResolver):
    """``tf.distribute.cluster_resolver.SimpleClusterResolver``: a fixed cluster and task."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        self._cluster_spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self.environment = environment
        self._num_accelerators = num_accelerators or {}
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        return self._master

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return dict(self._num_accelerators)


def _load_tf_config():
    raw = os.environ.get("TF_CONFIG", "")
    if not raw.strip():
        return {}
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}): {raw!r}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {raw!r}")
    return config


class TFConfigClusterResolver(ClusterResolver):
    """``tf.distribute.cluster_resolver.TFConfigClusterResolver``: the cluster and this task from ``TF_CONFIG``.

    ``task_type``/``task_id``/``rpc_layer``/``environment`` default to TF_CONFIG's ``task.type``,
    ``task.index``, ``rpc_layer`` and ``environment``; arguments given here win, as in TF.
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        config = _load_tf_config()
        task = config.get("task", {}) or {}
        self._task_type = task_type if task_type is not None else task.get("type")
        self._task_id = task_id if task_id is not None else task.get("index")
        if self._task_id is not None:
            self._task_id = int(self._task_id)
        self._rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self._environment = environment if environment is not None else config.get("environment", "")
        self._cluster = ClusterSpec(config.get("cluster", {}) or {})
        if self._task_type is not None and self._cluster and self._task_type not in self._cluster.jobs:
            raise ValueError(f"TF_CONFIG: task type {self._task_type!r} is not a job of the cluster "
                             f"{self._cluster.jobs}")
        if (self._task_type is not None and self._task_id is not None and self._cluster
                and self._task_id not in _indices(self._cluster, self._task_type)):
            raise ValueError(f"TF_CONFIG: task index {self._task_id} is out of range for job {self._task_type!r} "
                             f"({self._cluster.num_tasks(self._task_type)} tasks)")

    task_type = property(lambda self: self._task_type, lambda self, v: setattr(self, "_task_type", v))
    task_id = property(lambda self: self._task_id, lambda self, v: setattr(self, "_task_id", v))
    rpc_layer = property(lambda self: self._rpc_layer, lambda self, v: setattr(self, "_rpc_layer", v))
    environment = property(lambda self: self._environment)

    def cluster_spec(self):
        return self._cluster

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = task_type if task_type is not None else self._task_type
        task_id = task_id if task_id is not None else self._task_id
        if task_type is None or task_id is None or not self._cluster:
            return ""
        address = self._cluster.task_address(task_type, task_id)
        layer = rpc_layer if rpc_layer is not None else self._rpc_layer
        return f"{layer}://{address}" if layer else address


def _indices(cluster_spec, job):
    return cluster_spec.task_indices(job) if job in cluster_spec.jobs else []


def training_tasks(cluster_spec):
    """The number of tasks that train (``chief`` + ``worker``)."""
    return sum(len(_indices(cluster_spec, j)) for j in _TASK_JOBS)


def task_position(cluster_spec, task_type, task_id):
    """The position of a task in TF's collective group: the chief first, then the workers by index."""
    if task_type not in _TASK_JOBS:
        raise ValueError(f"MultiWorkerMirroredStrategy: task type {task_type!r} does not train; expected "
                         f"one of {list(_TASK_JOBS)}")
    chiefs = len(_indices(cluster_spec, "chief"))
    return task_id if task_type == "chief" else chiefs + _indices(cluster_spec, "worker").index(task_id)


def is_chief(cluster_spec, task_type, task_id):
    """TF's rule: the ``chief`` task, or worker 0 when the cluster has no chief (or no cluster at all)."""
    if not cluster_spec or task_type is None:
        return True
    if task_type == "chief":
        return True
    return task_type == "worker" and task_id == 0 and "chief" not in cluster_spec.jobs
