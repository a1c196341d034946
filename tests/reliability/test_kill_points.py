"""Kill points: a save killed (``os._exit``, as kill -9) right after ANY of its filesystem operations
leaves the old or the new save loadable at the name the user gave, and the next load removes what
the killed writer left. One subprocess (kill_points_driver.py) forks a writer per kill point.

On the code before atomic_files.py every scenario fails: SavedModel had no model at its name when
killed between its two renames, and every path left its temporaries behind.
"""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("h5py")
pytest.importorskip("tensorboard")

DRIVER = os.path.join(os.path.dirname(__file__), "kill_points_driver.py")
# scenario -> the fewest kill points its save must have (a hook that counted nothing would test nothing)
SCENARIOS = {"saved_model": 10, "saved_model_two_renames": 10, "keras": 4, "manager": 10, "checkpoint_overwrite": 6,
             "save_weights_h5": 2, "save_weights_npz": 2}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if os.environ.get("TFCORE_EMULATED_GPUS", "0") not in ("", "0"):
        pytest.skip("the kill-point driver runs on the CPU in its own process; the CPU pass of the suite runs it")
    work = tmp_path_factory.mktemp("kill_points")
    env = dict(os.environ, TFCORE_EMULATED_GPUS="0", CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, DRIVER, str(work), *SCENARIOS], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {r["scenario"]: r for r in lines}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_save_killed_after_every_filesystem_operation(results, scenario):
    r = results[scenario]
    assert r["failures"] == []
    assert r["points"] >= SCENARIOS[scenario]
    assert r["old"] >= 1 and r["new"] >= 1  # kills before the swap keep the old, after it the new
    assert r["old"] + r["new"] == r["points"] + 1


def test_cleanup_removes_only_temporaries_of_dead_writers(tmp_path):
    from tfcore.io import atomic_files

    target = str(tmp_path / "m.keras")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = atomic_files._host()
    names = {"dead": f"{target}.tfcore-tmp.{host}.{dead_pid}.0a0b0c0d",
             "live": f"{target}.tfcore-tmp.{host}.{os.getppid()}.0a0b0c0d",
             "mine": atomic_files.temp_name(target),
             "other_host": f"{target}.tfcore-tmp.elsewhere.{dead_pid}.0a0b0c0d",
             "unrelated": str(tmp_path / "m.keras.backup")}
    for path in names.values():
        with open(path, "w") as f:
            f.write("x")
    atomic_files.clean_stale(target)
    assert {k for k, p in names.items() if os.path.exists(p)} == {"live", "mine", "other_host", "unrelated"}


def test_interrupted_directory_swap_is_put_back_by_the_next_load(tmp_path):
    from tfcore.io import atomic_files

    target = str(tmp_path / "model")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    old = f"{target}.tfcore-old.{atomic_files._host()}.{int(dead.stdout)}.00000000"
    os.makedirs(old)
    with open(os.path.join(old, "saved_model.pb"), "w") as f:
        f.write("old")
    atomic_files.clean_stale(target)
    with open(os.path.join(target, "saved_model.pb")) as f:
        assert f.read() == "old"
    assert os.listdir(tmp_path) == ["model"]
