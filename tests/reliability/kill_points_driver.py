"""Kill a save after each of its filesystem operations and check what is left (run by test_kill_points.py).

``python kill_points_driver.py WORKDIR SCENARIO...`` prints one JSON line per scenario:
``{"scenario", "points", "old", "new", "failures"}``. For kill point k = 1, 2, ... it copies a
directory holding the OLD save, forks a child that counts filesystem operations (``os.replace``,
``os.rename``, ``os.fsync``, ``os.remove``/``unlink``, ``os.rmdir``/``mkdir``, ``shutil.rmtree``,
``open``/``os.open`` for writing, the directory exchange) and ``os._exit``\\ s right after operation
k, while saving NEW values. The parent then loads what is at the name the user gave: it must load
and hold OLD or NEW values exactly, and after that load the files present must be exactly those of
the old save or of the new one (no temporary of the killed writer remains). The loop ends at the
first k the save completes without reaching.
"""

import builtins
import io
import json
import os
import shutil
import sys
import traceback

import numpy as np

import tfcore as tf

KILLED, DONE, ERROR = 77, 0, 3
OLD, NEW = 1.0, 2.0
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT


def _install_kill_hook(k):
    """Make this (child) process exit right after its k-th filesystem operation."""
    count = [0]

    def wrap(fn, counts=lambda *a, **kw: True):
        def hooked(*a, **kw):
            out = fn(*a, **kw)
            if counts(*a, **kw):
                count[0] += 1
                if count[0] == k:
                    os._exit(KILLED)
            return out
        return hooked

    for name in ("replace", "rename", "fsync", "remove", "unlink", "rmdir", "mkdir"):
        setattr(os, name, wrap(getattr(os, name)))
    os.open = wrap(os.open, lambda path, flags, *a, **kw: bool(flags & _WRITE_FLAGS))
    writes = lambda file, mode="r", *a, **kw: any(c in mode for c in "wax+")  # noqa: E731
    builtins.open = io.open = wrap(builtins.open, writes)
    shutil.rmtree = wrap(shutil.rmtree)
    try:
        from tfcore.io import atomic_files
    except ImportError:  # a tfcore without it (the test then shows what kills do to the old writers)
        return
    atomic_files._exchange = wrap(atomic_files._exchange)


def _listing(directory):
    """Every file and folder under ``directory``, relative to it."""
    out = set()
    for root, dirs, files in os.walk(directory):
        out.update(os.path.relpath(os.path.join(root, n), directory) for n in dirs + files)
    return out


class Scenario:
    """One save path: ``prepare`` writes OLD into ``base``; ``save`` writes NEW; ``load`` returns the value."""

    # whether the old files plus the new save's complete files are an acceptable state too
    both_acceptable = False

    def prepare(self, base):
        raise NotImplementedError

    def save(self, base):
        raise NotImplementedError

    def load(self, base):
        raise NotImplementedError


class SavedModel(Scenario):
    def __init__(self):
        self.module = tf.Module()
        self.module.v = tf.Variable(np.full(4, OLD, np.float32))
        self.module.f = tf.function(lambda x: x * self.module.v,
                                    input_signature=[tf.TensorSpec([4], tf.float32)])

    def prepare(self, base):
        self.module.v.assign(np.full(4, OLD, np.float32))
        tf.saved_model.save(self.module, os.path.join(base, "model"))

    def save(self, base):
        self.module.v.assign(np.full(4, NEW, np.float32))
        tf.saved_model.save(self.module, os.path.join(base, "model"))

    def load(self, base):
        loaded = tf.saved_model.load(os.path.join(base, "model"))
        out = loaded.f(tf.ones([4])).numpy()
        assert (out == loaded.v.numpy()).all()
        return loaded.v.numpy()


def _dense_model(value):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    for w in model.weights:
        w.assign(np.full(w.shape, value, np.float32))
    return model


class KerasFile(Scenario):
    def __init__(self):
        self.model = _dense_model(OLD)

    def prepare(self, base):
        _dense_model(OLD).save(os.path.join(base, "m.keras"))

    def save(self, base):
        for w in self.model.weights:
            w.assign(np.full(w.shape, NEW, np.float32))
        self.model.save(os.path.join(base, "m.keras"))

    def load(self, base):
        m = tf.keras.models.load_model(os.path.join(base, "m.keras"))
        return np.concatenate([w.numpy().ravel() for w in m.weights])


class SaveWeights(Scenario):
    def __init__(self, name):
        self.name = name
        self.model = _dense_model(OLD)
        self.fresh = _dense_model(0.0)

    def prepare(self, base):
        _dense_model(OLD).save_weights(os.path.join(base, self.name))

    def save(self, base):
        for w in self.model.weights:
            w.assign(np.full(w.shape, NEW, np.float32))
        self.model.save_weights(os.path.join(base, self.name))

    def load(self, base):
        self.fresh.load_weights(os.path.join(base, self.name))
        return np.concatenate([w.numpy().ravel() for w in self.fresh.weights])


class CheckpointOverwrite(Scenario):
    """``tf.train.Checkpoint.write`` over an existing prefix: data and index must change together."""

    def __init__(self):
        self.v = tf.Variable(np.zeros(5, np.float32))

    def prepare(self, base):
        self.v.assign(np.full(5, OLD, np.float32))
        tf.train.Checkpoint(v=self.v).write(os.path.join(base, "ckpt"))

    def save(self, base):
        self.v.assign(np.full(5, NEW, np.float32))
        tf.train.Checkpoint(v=self.v).write(os.path.join(base, "ckpt"))

    def load(self, base):
        target = tf.Variable(np.zeros(5, np.float32))
        tf.train.Checkpoint(v=target).read(os.path.join(base, "ckpt")).assert_consumed()
        return target.numpy()


class Manager(Scenario):
    """CheckpointManager with max_to_keep=2 over three earlier saves: each save also sweeps one.

    A kill after the new checkpoint is complete but before the state file names it (or before the
    sweep deleted the oldest) leaves the old and the new files side by side; the latest checkpoint
    is then the old one and the next save replaces or sweeps the rest, as in TF.
    """

    both_acceptable = True

    def __init__(self):
        self.v = tf.Variable(np.zeros(3, np.float32))

    def _manager(self, base):
        ckpt = tf.train.Checkpoint(v=self.v)
        return tf.train.CheckpointManager(ckpt, os.path.join(base, "ckpts"), max_to_keep=2)

    def prepare(self, base):
        manager = self._manager(base)
        for _ in range(3):
            self.v.assign(np.full(3, OLD, np.float32))
            manager.save()

    def save(self, base):
        manager = self._manager(base)
        manager.restore_or_initialize()
        self.v.assign(np.full(3, NEW, np.float32))
        manager.save()

    def load(self, base):
        manager = self._manager(base)
        for prefix in manager.checkpoints:  # every checkpoint the manager lists loads
            tf.train.Checkpoint(v=tf.Variable(np.zeros(3, np.float32))).read(prefix).assert_consumed()
        self.v.assign(np.zeros(3, np.float32))
        assert manager.restore_or_initialize() is not None
        return self.v.numpy()


class SavedModelTwoRenames(SavedModel):
    """SavedModel where the system cannot exchange directories: two renames, and recovery by the next load."""

    def __init__(self):
        super().__init__()
        try:
            from tfcore.io import atomic_files
        except ImportError:  # a tfcore without it: always two renames
            return
        atomic_files._exchange = lambda a, b: False


SCENARIOS = {"saved_model": SavedModel, "saved_model_two_renames": SavedModelTwoRenames, "keras": KerasFile,
             "manager": Manager, "checkpoint_overwrite": CheckpointOverwrite,
             "save_weights_h5": lambda: SaveWeights("w.weights.h5"),
             "save_weights_npz": lambda: SaveWeights("w.weights.npz")}


def run(workdir, name):
    scenario = SCENARIOS[name]()
    template = os.path.join(workdir, name + "-template")
    os.makedirs(template)
    scenario.prepare(template)
    result = {"scenario": name, "points": 0, "old": 0, "new": 0, "failures": []}
    expected = [_listing(template)]
    for k in [10 ** 9, *range(1, 1000)]:  # first a save that is never killed: what NEW leaves
        base = os.path.join(workdir, f"{name}-{k}")
        shutil.copytree(template, base)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            code = ERROR
            try:
                _install_kill_hook(k)
                scenario.save(base)
                code = DONE
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code not in (KILLED, DONE):
            result["failures"].append(f"k={k}: the save failed with exit code {code}")
            break
        if k == 10 ** 9:
            expected.append(_listing(base))
            if scenario.both_acceptable:
                expected.append(expected[0] | expected[1])
            shutil.rmtree(base)
            continue
        try:
            value = scenario.load(base)
            if (value == OLD).all():
                result["old"] += 1
            elif (value == NEW).all():
                result["new"] += 1
            else:
                result["failures"].append(f"k={k}: loaded neither the old nor the new values: {value}")
        except Exception as e:  # noqa: BLE001 - reported as a failure of this kill point
            result["failures"].append(f"k={k}: load failed: {type(e).__name__}: {e}")
        left = _listing(base)
        if left not in expected:
            result["failures"].append(f"k={k}: after the next load the files are neither the old save's nor the "
                                      f"new one's: {sorted(left ^ expected[0])} differ from the old, "
                                      f"{sorted(left ^ expected[1])} from the new")
        shutil.rmtree(base)
        if code == DONE:
            result["points"] = k - 1
            break
    return result


if __name__ == "__main__":
    for scenario_name in sys.argv[2:]:
        print(json.dumps(run(sys.argv[1], scenario_name)), flush=True)
