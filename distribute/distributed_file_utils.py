"""Where a worker of a multi-worker job writes files (TF's ``distributed_file_utils``).

Only the chief's checkpoints, SavedModels and summaries are kept. The other workers still run the
same saving code (a save may read values that are reduced across workers, so every worker must take
part), but into ``<dir>/workertemp_<task_id>``, removed afterwards.
"""

import os
import shutil

from . import distribute_lib


def _strategy(strategy):
    return strategy if strategy is not None else distribute_lib.get_strategy()


def _writes_elsewhere(strategy):
    extended = getattr(_strategy(strategy), "extended", None)
    in_multi_worker = getattr(extended, "_in_multi_worker_mode", None)
    return bool(in_multi_worker and in_multi_worker() and not extended.should_checkpoint)


def _temp_dir(dirpath, strategy):
    return os.path.join(dirpath, f"workertemp_{_strategy(strategy).cluster_resolver.task_id}")


def write_dirpath(dirpath, strategy=None):
    """``dirpath`` for the chief (and outside a multi-worker job), a temporary directory inside it otherwise."""
    return _temp_dir(dirpath, strategy) if _writes_elsewhere(strategy) else dirpath


def write_filepath(filepath, strategy=None):
    """``filepath`` for the chief, the same name in this worker's temporary directory otherwise."""
    dirpath, base = os.path.split(os.fspath(filepath))
    return os.path.join(write_dirpath(dirpath, strategy), base)


def remove_temp_dirpath(dirpath, strategy=None):
    """Remove this worker's temporary directory of ``dirpath`` (nothing for the chief)."""
    if _writes_elsewhere(strategy):
        shutil.rmtree(_temp_dir(dirpath, strategy), ignore_errors=True)


def remove_temp_dir_with_filepath(filepath, strategy=None):
    remove_temp_dirpath(os.path.dirname(os.fspath(filepath)), strategy)


def wait_for_all_workers(strategy=None):
    """A barrier across the workers of a multi-worker job (nothing otherwise)."""
    barrier = getattr(getattr(_strategy(strategy), "extended", None), "_barrier", None)
    if barrier is not None:
        barrier()
