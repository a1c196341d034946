"""The ``checkpoint`` state file: TF's ``CheckpointState`` text proto naming a directory's checkpoints.

``tf.train.latest_checkpoint(dir)`` reads it. Paths inside the directory are stored relative to it
(as TF's ``save_relative_paths=True``); the file is replaced atomically (temp file + rename).

A path read from the file is data from outside the program: one that resolves outside the
directory (``../x``, an absolute path elsewhere, a symlink out) is dropped with a warning, so a
hostile state file cannot make ``latest_checkpoint`` or a ``CheckpointManager`` read or delete
anything outside the directory the user named.
"""

import logging
import os

from ..framework.errors import DataLossError
from ..io import atomic_files
from . import _protos

_log = logging.getLogger("tfcore")
STATE_FILE = "checkpoint"


def update_state(directory, model_checkpoint_path, all_model_checkpoint_paths, timestamps=None,
                 last_preserved_timestamp=None, latest_filename=None):
    """Write ``<directory>/checkpoint`` atomically."""
    State = _protos.message_class("CheckpointState")
    s = State(model_checkpoint_path=_rel_in(directory, model_checkpoint_path))
    s.all_model_checkpoint_paths.extend(_rel_in(directory, p) for p in all_model_checkpoint_paths)
    if timestamps is not None:
        s.all_model_checkpoint_timestamps.extend(timestamps)
    if last_preserved_timestamp is not None:
        s.last_preserved_timestamp = last_preserved_timestamp
    text = _protos.text_format().MessageToString(s)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, latest_filename or STATE_FILE)
    atomic_files.write_file(path, text.encode())


def _rel_in(directory, path):
    """``path`` relative to ``directory`` when it lies inside it."""
    a, d = os.path.abspath(path), os.path.abspath(directory)
    if os.path.dirname(a) == d:
        return os.path.basename(a)
    return path


def is_inside(directory, path):
    """Whether ``path`` (symlinks resolved) lies strictly inside ``directory``."""
    d = os.path.realpath(os.fspath(directory))
    p = os.path.realpath(os.fspath(path))
    return p != d and os.path.commonpath([d, p]) == d


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's ``CheckpointState`` (paths joined with the dir), or None.

    Paths that resolve outside ``checkpoint_dir`` are dropped (``model_checkpoint_path`` becomes empty).
    """
    path = os.path.join(os.fspath(checkpoint_dir), latest_filename or STATE_FILE)
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        text = f.read()
    State = _protos.message_class("CheckpointState")
    s = State()
    try:
        _protos.text_format().Parse(text, s)
    except Exception as e:  # text_format.ParseError
        raise DataLossError(f"Corrupted checkpoint state file {path}: {e}") from e
    if not s.model_checkpoint_path:
        raise DataLossError(f"Invalid checkpoint state file {path}: no model_checkpoint_path")

    def fix(p):
        return p if os.path.isabs(p) else os.path.join(os.fspath(checkpoint_dir), p)

    def inside(p):
        if is_inside(checkpoint_dir, p):
            return True
        _log.warning("Ignoring checkpoint path %r in %s: it lies outside the directory %s", p, path,
                     os.fspath(checkpoint_dir))
        return False

    latest = fix(s.model_checkpoint_path)
    s.model_checkpoint_path = latest if inside(latest) else ""
    paths = [q for q in (fix(p) for p in s.all_model_checkpoint_paths) if inside(q)]
    del s.all_model_checkpoint_paths[:]
    s.all_model_checkpoint_paths.extend(paths)
    return s


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint recorded in ``checkpoint_dir``, or None (``tf.train.latest_checkpoint``)."""
    s = get_checkpoint_state(checkpoint_dir, latest_filename)
    if s is None:
        return None
    p = s.model_checkpoint_path
    if not p:  # the file named a path outside the directory
        return None
    if os.path.isfile(p + ".index") or os.path.isfile(p):
        return p
    return None
