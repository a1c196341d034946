"""Hostile files: a file is data, never code, and never a path outside the place the user named.

Each case asserts the exception type, that its message names the file, and that nothing changed
(no code ran, no file outside the directory was read or deleted).
"""

import os
import pickle

import pytest

import tfcore as tf

D = tf.data.Dataset


class _Payload:
    """Pickling this makes the unpickler call ``os.mkdir(marker)``: code from the file runs."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def _as_list(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


@pytest.mark.parametrize("index", [b"tfcore-cache-v1\n", None], ids=["old-index", "forged-new-index"])
def test_cache_file_with_pickle_payload_runs_nothing(tmp_path, index):
    prefix = str(tmp_path / "cache")
    marker = str(tmp_path / "PWNED")
    assert _as_list(D.range(3).cache(prefix)) == [0, 1, 2]  # a real cache, then replaced by the payload
    if index is not None:
        with open(prefix + ".index", "wb") as f:
            f.write(index)
    payload = pickle.dumps(_Payload(marker), protocol=4)
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(payload)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(tf.errors.DataLossError, match="cache"):
        _as_list(D.range(3).cache(prefix))
    assert not os.path.exists(marker)
    assert sorted(os.listdir(tmp_path)) == before


def _write_state(directory, paths):
    with open(os.path.join(directory, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{paths[-1]}"\n')
        for p in paths:
            f.write(f'all_model_checkpoint_paths: "{p}"\n')


@pytest.mark.parametrize("kind", ["relative", "absolute"])
def test_checkpoint_state_file_cannot_reach_outside_its_directory(tmp_path, kind):
    outside = tmp_path / "victim"
    outside.mkdir()
    v = tf.Variable(7.0)
    tf.train.Checkpoint(v=v).write(str(outside / "precious"))  # a checkpoint the manager must never touch
    victim_files = sorted(os.listdir(outside))
    ckpt_dir = tmp_path / "ckpts"
    ckpt_dir.mkdir()
    target = "../victim/precious" if kind == "relative" else str(outside / "precious")
    _write_state(str(ckpt_dir), [target])
    v.assign(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    manager = tf.train.CheckpointManager(ckpt, str(ckpt_dir), max_to_keep=1)
    assert manager.latest_checkpoint is None
    assert manager.checkpoints == []
    assert manager.restore_or_initialize() is None
    assert v.numpy() == 1.0  # nothing was read from outside
    for _ in range(3):  # max_to_keep=1: every save sweeps
        manager.save()
    assert sorted(os.listdir(outside)) == victim_files  # nothing deleted outside
    assert tf.train.latest_checkpoint(str(ckpt_dir)).startswith(str(ckpt_dir))


def test_latest_checkpoint_ignores_paths_outside_the_directory(tmp_path):
    outside = tmp_path / "victim"
    outside.mkdir()
    tf.train.Checkpoint(v=tf.Variable(7.0)).write(str(outside / "precious"))
    ckpt_dir = tmp_path / "ckpts"
    ckpt_dir.mkdir()
    _write_state(str(ckpt_dir), ["../victim/precious"])
    assert tf.train.latest_checkpoint(str(ckpt_dir)) is None
