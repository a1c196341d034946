"""``tf.train.CheckpointManager``, ``load_checkpoint`` and ``list_variables``."""

import collections
import glob
import os
import time

from ..io import atomic_files
from . import bundle, state
from .checkpoint import Checkpoint


class CheckpointReader:
    """What ``tf.train.load_checkpoint`` returns: the tensors of one checkpoint by key."""

    def __init__(self, prefix):
        self._bundle = bundle.BundleReader(prefix)

    def get_tensor(self, tensor_str):
        value = self._bundle.read(tensor_str)
        return value.item() if value.shape == () and value.dtype == object else value

    def has_tensor(self, tensor_str):
        return self._bundle.has(tensor_str)

    def get_variable_to_shape_map(self):
        return {k: self._bundle.shape(k) for k in self._bundle.names()}

    def get_variable_to_dtype_map(self):
        return {k: self._bundle.dtype(k) for k in self._bundle.names()}


def _prefix(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        latest = state.latest_checkpoint(ckpt_dir_or_file)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}")
        return latest
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix, or for the latest checkpoint in a directory."""
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """``[(key, shape)]`` of every tensor in the checkpoint, sorted by key."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


def _delete(prefix):
    for path in [prefix + ".index"] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def _remove_unfinished(prefix):
    """Delete ``<prefix>-N`` data files that have no index: a save killed between its data and its index.

    The manager owns its directory (two managers saving into one directory conflict in TF too), so a
    data file without an index is never another writer's save in progress.
    """
    for data in glob.glob(glob.escape(prefix) + "-*.data-?????-of-?????"):
        p = data[:data.rindex(".data-")]
        if p[len(prefix) + 1:].isdigit() and not os.path.isfile(p + ".index"):
            try:
                os.remove(data)
            except FileNotFoundError:
                pass


class CheckpointManager:
    """Keeps the newest ``max_to_keep`` checkpoints of one ``tf.train.Checkpoint`` in ``directory``."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None, init_fn=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"`checkpoint` must be a tf.train.Checkpoint, got {type(checkpoint).__name__}")
        if max_to_keep is not None and (not isinstance(max_to_keep, int) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or None for `max_to_keep`, got {max_to_keep!r}.")
        if keep_checkpoint_every_n_hours is not None and keep_checkpoint_every_n_hours <= 0:
            raise ValueError(f"`keep_checkpoint_every_n_hours` must be positive, got {keep_checkpoint_every_n_hours}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        _remove_unfinished(self._prefix)
        self._last_checkpoint_step = None
        self._maybe_delete = collections.OrderedDict()
        self._latest_checkpoint = None
        now = time.time()
        self._last_preserved_timestamp = now
        atomic_files.clean_directory(self._directory)  # temporaries of a save that was killed
        s = state.get_checkpoint_state(self._directory)
        if s is not None:
            paths = list(s.all_model_checkpoint_paths)
            stamps = list(s.all_model_checkpoint_timestamps)
            if len(stamps) != len(paths):
                stamps = [now] * len(paths)
            for p, t in zip(paths, stamps):  # get_checkpoint_state dropped paths outside the directory
                if os.path.isfile(p + ".index"):
                    self._maybe_delete[p] = t
                else:  # a sweep killed after deleting the index: finish it
                    _delete(p)
            if s.last_preserved_timestamp:
                self._last_preserved_timestamp = s.last_preserved_timestamp
            self._latest_checkpoint = state.latest_checkpoint(self._directory)

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoints(self):
        """Prefixes of the checkpoints this manager keeps, oldest first."""
        return list(self._maybe_delete)

    @property
    def latest_checkpoint(self):
        """The newest checkpoint's prefix, or None."""
        return self._latest_checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    def _step(self):
        s = self._step_counter
        return int(s.numpy()) if hasattr(s, "numpy") else int(s)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save ``<directory>/<checkpoint_name>-<number>``; delete the oldest beyond ``max_to_keep``.

        ``checkpoint_number`` (an int or integer variable) defaults to the checkpoint's ``save_counter``,
        which is incremented on every save. Returns the prefix, or None when ``checkpoint_interval``
        steps have not passed yet.
        """
        if self._checkpoint_interval is not None and check_interval:
            step = self._step()
            if self._last_checkpoint_step is not None and step - self._last_checkpoint_step < \
                    self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = counter
        if hasattr(checkpoint_number, "numpy"):
            checkpoint_number = checkpoint_number.numpy()
        prefix = f"{self._prefix}-{int(checkpoint_number)}"
        atomic_files.clean_directory(self._directory)
        path = self._checkpoint.write(prefix, options=options)
        stamp = time.time()
        self._maybe_delete.pop(path, None)  # an overwritten checkpoint moves to the end of the queue
        self._maybe_delete[path] = stamp
        self._latest_checkpoint = path
        # record the new checkpoint before deleting anything: a crash while sweeping still finds it
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def _sweep(self):
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._keep_every_n_hours and stamp - self._keep_every_n_hours * 3600.0 >= \
                    self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete(path)

    def _record_state(self):
        state.update_state(self._directory, self._latest_checkpoint, list(self._maybe_delete),
                           timestamps=list(self._maybe_delete.values()),
                           last_preserved_timestamp=self._last_preserved_timestamp)

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returning its prefix) or run ``init_fn`` (returning None)."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = self._step()
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None



def load_variable(ckpt_dir_or_file, name):
    """The value (NumPy) of the tensor ``name`` in a checkpoint (a trailing ``:0`` is ignored, as in TF)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """Poll ``checkpoint_dir`` until its latest checkpoint differs from ``last_checkpoint`` (None on timeout)."""
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = state.latest_checkpoint(checkpoint_dir)
        if checkpoint_path is None or checkpoint_path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            return checkpoint_path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new checkpoint path of ``checkpoint_dir`` as it appears (TF's semantics).

    Waits at most ``timeout`` seconds for the next one; then stops, unless ``timeout_fn`` is given and returns
    False (keep waiting). Successive yields are at least ``min_interval_secs`` apart.
    """
    checkpoint_path = None
    while True:
        new_checkpoint_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path, timeout=timeout)
        if new_checkpoint_path is None:
            if not timeout_fn or timeout_fn():
                return
            continue
        start = time.time()
        checkpoint_path = new_checkpoint_path
        yield checkpoint_path
        time_to_next_eval = start + min_interval_secs - time.time()
        if time_to_next_eval > 0:
            time.sleep(time_to_next_eval)
