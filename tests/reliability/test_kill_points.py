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
SCENARIOS = {"saved_model": 10, "saved_model_two_renames": 10, "keras": 4, "manager": 10,
             "save_weights_h5": 2, "save_weights_npz": 2}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
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
