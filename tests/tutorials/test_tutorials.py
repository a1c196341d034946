"""TensorFlow's own tutorials and guides (tensorflow/docs, site/en) run unchanged on tfcore.

Each ``tutorial_*.py`` here is the code cells of one notebook, in order, as written; the only changes
are marked ``# EDIT(tfcore):`` (a downloaded dataset swapped for generated data of the same shapes
from :mod:`generated_data`, epochs cut, plotting and notebook display cells dropped). Each runs as a
user would run a TensorFlow script on tfcore, ``python -m tfcore run tutorial_x.py``, through the
``tensorflow`` alias, in a fresh process, and must exit cleanly; the asserts marked as edits check
that the tutorial's training worked. They run in the CPU pass of ``.ci/run`` only (each costs seconds
of training; the device does not change what they test).
"""

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
TUTORIALS = sorted(p.name for p in HERE.glob("tutorial_*.py"))


@pytest.mark.skipif(os.environ.get("TFCORE_EMULATED_GPUS") not in (None, "", "0"),
                    reason="tutorials run once, in the CPU pass (they test API behaviour, not the device)")
@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_runs_unchanged(name, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "tfcore", "run", str(HERE / name)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"


def test_there_are_tutorials():
    assert len(TUTORIALS) >= 5
