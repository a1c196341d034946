"""``tf.train.ClusterSpec``: the jobs and task addresses of a (multi-worker) cluster, with TF's validation."""

__all__ = ["ClusterSpec"]


class ClusterSpec:
    """``tf.train.ClusterSpec``: a mapping from job names to task addresses.

    ``cluster`` is a dict from job name to a list of addresses (task ``i`` is ``list[i]``) or to a dict from
    task index to address (sparse jobs), or another ClusterSpec.
    """

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            self._spec = {job: dict(tasks) for job, tasks in cluster._spec.items()}
            return
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")
        self._spec = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                job_tasks = {int(i): addr for i, addr in tasks.items()}
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from integers to strings.")
            for addr in job_tasks.values():
                if not isinstance(addr, (str, bytes)):
                    raise TypeError(f"Task address {addr!r} must be bytes or unicode")
            self._spec[job] = {i: (a.decode() if isinstance(a, bytes) else a) for i, a in job_tasks.items()}

    def __bool__(self):
        return bool(self._spec)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._spec == other._spec

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        items = ", ".join(f"{k!r}: {v!r}" for k, v in sorted(self.as_dict().items()))
        return "ClusterSpec({" + items + "})"

    @property
    def jobs(self):
        """The job names, in the order given."""
        return list(self._spec)

    def _job(self, job_name):
        try:
            return self._spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def as_dict(self):
        """``{job: [addresses]}`` for jobs numbered ``0..n-1``, ``{job: {index: address}}`` otherwise."""
        out = {}
        for job, tasks in self._spec.items():
            indices = sorted(tasks)
            if indices == list(range(len(indices))):
                out[job] = [tasks[i] for i in indices]
            else:
                out[job] = {i: tasks[i] for i in indices}
        return out

    def num_tasks(self, job_name):
        """How many tasks ``job_name`` has (ValueError for an unknown job)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of ``job_name``."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of task ``task_index`` of ``job_name`` (ValueError when either is unknown)."""
        tasks = self._job(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The addresses of ``job_name``'s tasks by index, ``None`` where an index has no task."""
        tasks = self._job(job_name)
        out = [None] * (max(tasks) + 1 if tasks else 0)
        for i, addr in tasks.items():
            out[i] = addr
        return out
