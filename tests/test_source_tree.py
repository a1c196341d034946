"""tfcore runs from a plain copy of the checkout, with no install (issue 21 item 11).

A GPU machine gets a copy of the working tree; ``PYTHONPATH=<copy>`` must import ``tfcore`` with its
``tfcore.kernels`` and ``tfcore.distribute`` from the copy's top-level ``kernels/`` and ``distribute/``
(``tfcore/_source_tree.py``), run kernels from the copy's sources, and collect ``tests/gpu``. The
subprocesses use this interpreter (for NumPy) but only the copy's tfcore: the editable install of this
checkout, whose finder would otherwise answer for ``tfcore.kernels``, must not be what is imported.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SKIPPED = ("__pycache__", "*.pyc", "*.so", ".git", ".venv", "*.egg-info", ".pytest_cache", "build")

PROBE = r'''
import os, sys
import tfcore as tf, tfcore.kernels, tfcore.distribute
from tfcore.backend import kernel_library
root = sys.argv[1]
for mod in (tf, tfcore.kernels, tfcore.distribute):
    assert os.path.realpath(mod.__file__).startswith(root), (mod.__name__, mod.__file__)
assert str(kernel_library.kernels_dir()).startswith(root), kernel_library.kernels_dir()
assert "bias_add" in kernel_library.kernel_families()
strategy = tf.distribute.MirroredStrategy(["/CPU:0"])
with tf.device("/GPU:0"):  # an emulated GPU: the copy's bias_add.cu runs in the emulator
    y = tf.nn.bias_add(tf.ones((2, 3)), tf.constant([1.0, 2.0, 3.0]))
print("OK", y.device, y.numpy().tolist(), type(strategy).__name__)
'''


@pytest.fixture(scope="module")
def plain_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkout") / "tfcore-copy"
    shutil.copytree(REPO, root, ignore=shutil.ignore_patterns(*SKIPPED))  # the working tree, as a GPU machine gets it
    return root.resolve()


def _env(root, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFCORE_", "PYTEST_"))}
    env.update(PYTHONPATH=str(root), **extra)
    return env


@pytest.mark.parametrize("isolated", [False, True], ids=["with-site", "no-site"])
def test_imports_and_kernels_come_from_the_copy(plain_copy, isolated):
    """``isolated``: ``python -S`` with site-packages on PYTHONPATH: NumPy importable, but no ``.pth`` file runs,
    so no editable install of any checkout is in play at all."""
    cmd, env = [sys.executable, "-c", PROBE, str(plain_copy)], _env(plain_copy, TFCORE_EMULATED_GPUS="1")
    if isolated:
        cmd.insert(1, "-S")
        env["PYTHONPATH"] += "".join(os.pathsep + p for p in sys.path if p.endswith("site-packages"))
    proc = subprocess.run(cmd, cwd=plain_copy, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "OK /job:localhost/replica:0/task:0/device:GPU:0 [[2.0, 3.0, 4.0], [2.0, 3.0, 4.0]]" in proc.stdout


def test_the_readme_commands_run_from_the_copy(plain_copy):
    """The README's GPU-section commands: ``python -m tfcore info`` and ``python -m pytest tests/gpu``."""
    info = subprocess.run([sys.executable, "-m", "tfcore", "info"], cwd=plain_copy, capture_output=True,
                          text=True, timeout=300, env=_env(plain_copy))
    assert info.returncode == 0 and info.stdout.startswith("tfcore "), info.stderr[-3000:]
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                            "tests/gpu"], cwd=plain_copy, capture_output=True, text=True, timeout=300,
                           env=_env(plain_copy))
    assert tests.returncode == 0 and " skipped" in tests.stdout and "error" not in tests.stdout.lower(), \
        tests.stdout[-3000:] + tests.stderr[-2000:]


def test_an_installed_layout_maps_nothing(tmp_path, monkeypatch):
    from tfcore import _source_tree

    pkg = tmp_path / "site" / "tfcore"
    for folder in ("kernels", "distribute"):
        (pkg / folder).mkdir(parents=True)
    monkeypatch.setattr(_source_tree, "PACKAGE_DIR", pkg)
    assert _source_tree.source_root() is None
    monkeypatch.setattr(_source_tree, "PACKAGE_DIR", REPO / "tfcore")
    assert _source_tree.source_root() == REPO
