"""``tfcore train --workers N``: the digits job as N MPI worker processes on this host.

``launch(args)`` runs ``mpirun -np N python -m tfcore.cli train ...`` for the user (the same as typing
``mpirun -np N tfcore train ...``); each worker then builds a ``MultiWorkerMirroredStrategy``
(:func:`strategy`), one replica per worker (its local rank's GPU when there are GPUs, else its CPU).
Only the chief prints progress.
"""

import shutil
import subprocess
import sys

from ..backend import mpi
from ..distribute import MultiWorkerMirroredStrategy


def _child_arguments(args):
    argv = ["--model", args.model, "--epochs", str(args.epochs), "--batch-size", str(args.batch_size),
            "--seed", str(args.seed), "--verbose", str(args.verbose), "--workers", str(args.workers)]
    return argv + (["--mixed-precision"] if args.mixed_precision else [])


def mpirun_command(args, mpirun="mpirun"):
    """The command ``launch`` runs: N processes on this host (``--oversubscribe``: more workers than cores is
    allowed; ``--bind-to none``: workers are not pinned to one core each)."""
    return [mpirun, "--oversubscribe", "--bind-to", "none", "-np", str(args.workers), sys.executable, "-m",
            "tfcore.cli", "train", *_child_arguments(args)]


def launch(args):
    """Start the workers with mpirun and wait; returns the job's exit status."""
    if args.devices != 1:
        raise SystemExit("tfcore train: error: --workers and --devices cannot be combined: each worker trains on "
                         "one device (its local rank's GPU, else its CPU)")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise SystemExit("tfcore train: error: --workers needs mpirun: install Open MPI (e.g. `apt-get install "
                         "openmpi-bin libopenmpi-dev`) and `pip install tfcore[mpi]`")
    try:
        import mpi4py  # noqa: F401 - the workers need it; say so before starting them
    except ImportError:
        raise SystemExit("tfcore train: error: --workers needs mpi4py: `pip install tfcore[mpi]`") from None
    env = mpi.local_launch_env()
    cmd = mpirun_command(args, mpirun)
    print("Running: " + " ".join(cmd), flush=True)
    return subprocess.call(cmd, env=env)


def strategy(args):
    """In a worker: the MultiWorkerMirroredStrategy of the job (``--workers`` must match the launcher)."""

    size = mpi.launcher_size()
    if args.workers not in (1, size):
        raise SystemExit(f"tfcore train: error: --workers {args.workers} but mpirun started {size} processes")
    if args.devices != 1:
        raise SystemExit("tfcore train: error: --devices cannot be combined with several workers")
    return MultiWorkerMirroredStrategy()
