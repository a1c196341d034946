"""MultiWorkerMirroredStrategy with NCCL bootstrapped over MPI, on a real GPU: a one-rank MPI job.

NCCL refuses two ranks on one GPU, and the machines of this project have one GPU, so the job has one
rank: rank 0 makes the NCCL unique id, MPI broadcasts it, the rank builds its communicator and the
gradients of the digits CNN cross "the workers" with ``ncclAllReduce`` (a world of one). The weights must
equal a run of the same script without MPI (MirroredStrategy's reduction only). Multi-GPU runs need two
GPUs (see the README).
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tfcore.backend import mpi

WORKER = os.path.join(os.path.dirname(__file__), "..", "distribute", "multi_worker", "worker.py")
MPIRUN = shutil.which("mpirun")

try:
    import mpi4py  # noqa: F401

    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False

pytestmark = [
    pytest.mark.skipif(MPIRUN is None, reason="Open MPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"),
    pytest.mark.skipif(not HAVE_MPI4PY, reason="mpi4py is not installed (pip install tfcore[mpi])"),
]


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_")) and k != "TF_CONFIG"}
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}, **extra)
    env.pop("TFCORE_EMULATED_GPUS", None)
    return mpi.local_launch_env(env)


def test_nccl_over_mpi_one_rank_trains_like_one_process(tmp_path):
    os.makedirs(tmp_path / "alone")
    alone = subprocess.run([sys.executable, WORKER, "custom", str(tmp_path / "alone")], env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    os.makedirs(tmp_path / "job")
    job = subprocess.run([MPIRUN, "--oversubscribe", "--bind-to", "none", "-np", "1", sys.executable, WORKER, "custom",
                          str(tmp_path / "job")], env=_env(TFCORE_TEST_COMMUNICATION="NCCL", NCCL_DEBUG="WARN"),
                         capture_output=True, text=True, timeout=300)
    assert job.returncode == 0, job.stdout + job.stderr
    ref = np.load(tmp_path / "alone" / "rank0.npz")
    got = np.load(tmp_path / "job" / "rank0.npz")
    for k in ref.files:
        if (k.startswith("w") and k[1:].isdigit()) or k == "losses":
            np.testing.assert_allclose(got[k], ref[k], rtol=0, atol=1e-6, err_msg=k)


def test_nccl_communicator_is_bootstrapped_over_mpi(tmp_path):
    script = (
        "import numpy as np\n"
        "from tfcore.backend import mpi\n"
        "from tfcore.framework.context import context\n"
        "w = mpi.world()\n"
        "assert w.uses_mpi and w.size == 1, (w.uses_mpi, w.size)\n"
        "gpu = context.find('GPU', 0)\n"
        "b = gpu.backend\n"
        "with b.activate():\n"
        "    a = b.asarray(np.arange(1000, dtype=np.float32))\n"
        "out = w.nccl_all_reduce([a], b)[0]\n"
        "np.testing.assert_array_equal(b.to_numpy(out), np.arange(1000, dtype=np.float32))\n"
        "assert out is not a\n"
        "print('nccl over mpi ok')\n")
    job = subprocess.run([MPIRUN, "-np", "1", sys.executable, "-c", script], env=_env(), capture_output=True,
                         text=True, timeout=300)
    assert job.returncode == 0 and "nccl over mpi ok" in job.stdout, job.stdout + job.stderr
