"""Auto-sharding of an input pipeline across the workers of a multi-worker job (TF's ``AutoShardPolicy``).

``auto_shard_dataset(dataset, num_workers, index)`` returns ``(dataset, policy)``: the pipeline this
worker reads and the policy applied, as ``tf.distribute`` needs it:

- ``FILE``: the pipeline's file reader (TFRecordDataset, TextLineDataset, ...) reads every
  ``num_workers``-th file starting at ``index``; each worker reads only its files. Needs at least as
  many files as workers (TF's rule).
- ``DATA``: every worker reads the whole pipeline; the distribution code keeps this worker's share of
  each global batch (TF's "shard by data" after rebatching).
- ``OFF``: every worker reads the whole pipeline unchanged.
- ``AUTO`` (the default): ``FILE`` where the pipeline reads at least ``num_workers`` files, else ``DATA``.
- ``HINT``: tfcore has no ``shard(SHARD_HINT)`` placeholders, so it acts as ``OFF``.

The rewrite copies the pipeline's nodes down to the reader (the user's dataset is unchanged).
"""

import copy

from tfcore.framework.errors import InvalidArgumentError

from .options import AutoShardPolicy
from .readers import _FileDataset


def _file_reader(dataset):
    """The first file reader with a static list of files in the pipeline, or None."""

    stack = [dataset]
    while stack:
        ds = stack.pop()
        if isinstance(ds, _FileDataset) and ds._files is not None:
            return ds
        stack.extend(getattr(ds, "_inputs_list", ()))
    return None


def _replaced(dataset, old, new):
    """A copy of ``dataset``'s nodes on the path to ``old`` with ``old`` replaced by ``new``."""
    if dataset is old:
        return new
    inputs = tuple(getattr(dataset, "_inputs_list", ()))
    fresh = tuple(_replaced(i, old, new) for i in inputs)
    if all(a is b for a, b in zip(inputs, fresh)):
        return dataset
    mapping = {id(a): b for a, b in zip(inputs, fresh)}
    out = copy.copy(dataset)
    for key, value in vars(out).items():
        if id(value) in mapping:
            out.__dict__[key] = mapping[id(value)]
        elif isinstance(value, tuple | list) and any(id(v) in mapping for v in value):
            out.__dict__[key] = type(value)(mapping.get(id(v), v) for v in value)
    return out


def policy_of(dataset):
    """The ``AutoShardPolicy`` set on ``dataset`` with ``tf.data.Options`` (AUTO when unset)."""
    options = dataset.options() if hasattr(dataset, "options") else None
    policy = getattr(getattr(options, "experimental_distribute", None), "auto_shard_policy", None)
    return AutoShardPolicy(policy) if policy is not None else AutoShardPolicy.AUTO


def auto_shard_dataset(dataset, num_workers, index):
    """``(pipeline for worker index, policy applied)``; see the module docstring."""
    policy = policy_of(dataset) if hasattr(dataset, "_inputs_list") else AutoShardPolicy.DATA
    if num_workers <= 1 or policy in (AutoShardPolicy.OFF, AutoShardPolicy.HINT):
        return dataset, AutoShardPolicy.OFF
    if policy == AutoShardPolicy.DATA:
        return dataset, AutoShardPolicy.DATA
    reader = _file_reader(dataset)
    files = reader._files if reader is not None else []
    if len(files) < num_workers:
        if policy == AutoShardPolicy.AUTO:
            return dataset, AutoShardPolicy.DATA
        raise InvalidArgumentError(
            None, None, f"AutoShardPolicy.FILE: the pipeline reads {len(files)} file(s) "
            f"{'through ' + type(reader).__name__ if reader is not None else '(no file reader found)'}, fewer than "
            f"the {num_workers} workers; set AutoShardPolicy.DATA or OFF, or write more files")
    mine = copy.copy(reader)
    mine._files = list(files[index::num_workers])
    return _replaced(dataset, reader, mine), AutoShardPolicy.FILE
