"""The world of a multi-process job, from MPI: rank, size, rendezvous and collectives across workers.

``tf.distribute.MultiWorkerMirroredStrategy`` builds on an existing distributed engine rather than
a protocol of its own (docs/architecture.md §6): **MPI** (Open MPI, through the ``mpi4py`` extra:
``pip install tfcore[mpi]``) starts the processes (``mpirun -np N python train.py``), says which
one each is, and sums host buffers across them (``MPI_Allreduce``); on GPUs an **NCCL communicator is
bootstrapped over MPI**: rank 0 makes the NCCL unique id and broadcasts it, every rank then builds
``NcclCommunicator(size, uid, rank)`` (what CuPy's ``cupyx.distributed`` and Horovod do).

This module is the only one that imports mpi4py. :func:`world` returns the process's
:class:`World` (one per process, made on first use); outside ``mpirun`` it is a world of one
process that needs no MPI at all.
"""

import os
import sys
import threading

import numpy as np

from .collectives import _nccl_dtype
from .errors import DeadlineExceededError

# Environment variables a launcher sets in every process it starts (Open MPI, MPICH/Hydra, PMIx, Slurm).
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE")
_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK")

# MPI has no 16-bit float type: such buffers travel as float32 and are rounded back once.
_WIDENED = {np.dtype(np.float16): np.dtype(np.float32)}


def launched_by_mpirun():
    """Whether this process was started by an MPI launcher (its environment says so)."""
    return any(os.environ.get(v) for v in _SIZE_VARS)


def launcher_size():
    """The number of processes the launcher started (1 outside one), read from the environment."""
    for v in _SIZE_VARS:
        if os.environ.get(v):
            return int(os.environ[v])
    return 1


def local_launch_env(env=None):
    """The environment for ``mpirun`` starting workers on this host: ``env`` (default ``os.environ``) plus
    what Open MPI needs in a container.

    As root it refuses to start unless told twice (``OMPI_ALLOW_RUN_AS_ROOT[_CONFIRM]``). Without ``ssh`` or
    ``rsh`` on the PATH, Open MPI 4's ``rsh`` launcher aborts even a one-host job ("plm_rsh_agent: ssh : rsh
    could not be found", seen on the GPU machines); ``OMPI_MCA_plm=^rsh`` leaves the local launcher, as
    Open MPI's developers advise (open-mpi/ompi#12386). Values the caller set are kept.
    """
    import shutil

    out = dict(os.environ if env is None else env)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        out.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        out.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    if (not any(shutil.which(agent, path=out.get("PATH")) for agent in ("ssh", "rsh"))
            and "OMPI_MCA_plm" not in out and "OMPI_MCA_plm_rsh_agent" not in out):
        out["OMPI_MCA_plm"] = "^rsh"
    return out


def mpi_module():
    """``mpi4py.MPI``, initialising MPI on first use; raises ImportError naming the extra if missing."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError("Multi-worker training needs mpi4py and an MPI library: install Open MPI "
                          "(e.g. `apt-get install openmpi-bin libopenmpi-dev`) and `pip install tfcore[mpi]`"
                          f" ({e})") from e
    return MPI


class World:
    """The processes of one job: ``rank``, ``size``, ``local_rank`` and ``local_size`` (processes on this
    host), and collectives every process calls in the same order.

    A world of one process (``comm=None``) answers every collective locally.
    """

    def __init__(self, comm=None):
        self._comm = comm
        self._lock = threading.Lock()  # one collective at a time from this process
        self._nccl = {}
        if comm is None:
            self.rank, self.size, self.local_rank, self.local_size = 0, 1, 0, 1
            self.host = os.uname().nodename
            return
        MPI = mpi_module()
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        local = comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        local.Free()
        self.host = MPI.Get_processor_name()

    @property
    def uses_mpi(self):
        return self._comm is not None

    # -- host collectives ------------------------------------------------------------------------
    def all_reduce(self, arrays, timeout=None):
        """Element-wise sums over every process of ``arrays`` (NumPy arrays, the same shapes and dtypes in
        every process, in the same order); returns new arrays. One ``MPI_Allreduce`` per array.

        ``timeout`` (seconds): wait at most that long for the other processes (a non-blocking all-reduce
        polled until done), then raise ``DeadlineExceededError`` (TF's ``CommunicationOptions.timeout_seconds``);
        uncaught, it ends the job."""
        out = []
        for a in arrays:
            a = np.asarray(a)
            a = a if a.flags.c_contiguous else a.copy(order="C")
            if self._comm is None:
                out.append(a.copy())
                continue
            wide = _WIDENED.get(a.dtype)
            send = a.astype(wide) if wide is not None else a
            if send.dtype == np.bool_:
                send = send.astype(np.uint8)
            recv = np.empty_like(send)
            with self._lock:
                if timeout is None:
                    self._comm.Allreduce(send, recv, op=mpi_module().SUM)
                else:
                    _wait(self._comm.Iallreduce(send, recv, op=mpi_module().SUM), timeout, self.rank,
                          f"all-reduce of {a.size} values")
            out.append(recv.astype(a.dtype) if recv.dtype != a.dtype else recv)
        return out

    def broadcast(self, obj, root=0):
        """``obj`` of process ``root`` in every process (any picklable object, NumPy arrays included)."""
        if self._comm is None:
            return obj
        with self._lock:
            return self._comm.bcast(obj, root=root)

    def broadcast_array(self, array, root=0, timeout=None):
        """Process ``root``'s ``array`` in every process, which passes an array of the same shape and dtype
        (sent as a buffer, no pickling; object arrays fall back to :meth:`broadcast`). ``timeout`` as in
        :meth:`all_reduce`."""
        array = np.array(array, copy=True, order="C")
        if self._comm is None:
            return array
        if array.dtype == object:
            return self.broadcast(array, root)
        with self._lock:
            if timeout is None:
                self._comm.Bcast(array, root=root)
            else:
                _wait(self._comm.Ibcast(array, root=root), timeout, self.rank, f"broadcast of {array.size} values")
        return array

    def all_gather(self, obj):
        """The list of every process's ``obj``, in rank order."""
        if self._comm is None:
            return [obj]
        with self._lock:
            return self._comm.allgather(obj)

    def barrier(self):
        if self._comm is not None:
            with self._lock:
                self._comm.Barrier()

    def abort(self, code=1):
        """End every process of the job (after an uncaught error in one of them)."""
        if self._comm is not None:
            self._comm.Abort(code)

    # -- NCCL bootstrapped over MPI --------------------------------------------------------------
    def nccl_communicator(self, backend):
        """This process's NCCL communicator over the whole world for the GPU of ``backend``: rank 0 makes the
        unique id, MPI broadcasts it, every rank joins (cached per device). Raises RuntimeError when NCCL or a
        GPU is missing."""
        from .cuda import nccl_module

        nccl = nccl_module()
        if nccl is None or not getattr(backend, "device_collectives", False):
            raise RuntimeError("CommunicationImplementation.NCCL needs NCCL and a CUDA GPU in every worker "
                               f"(this worker's device backend: {type(backend).__name__}, NCCL "
                               f"{'available' if nccl is not None else 'not available'}); use RING or AUTO")
        key = backend.device_id
        comm = self._nccl.get(key)
        if comm is None:
            uid = nccl.get_unique_id() if self.rank == 0 else None
            uid = self.broadcast(uid, root=0)
            with backend.activate():
                comm = nccl.NcclCommunicator(self.size, uid, self.rank)
            self._nccl[key] = comm
        return comm

    def nccl_all_reduce(self, arrays, backend):
        """Sums over every process of ``arrays`` (device arrays on ``backend``'s GPU) with NCCL; new arrays."""
        from .cuda import nccl_module

        nccl = nccl_module()
        comm = self.nccl_communicator(backend)
        out = []
        with backend.activate():
            for a in arrays:
                buf = backend.xp.array(a, copy=True)
                comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, _nccl_dtype(nccl, buf.dtype), nccl.NCCL_SUM,
                               backend.stream.ptr)
                out.append(backend.adopt(buf))
        backend.synchronize()
        return out


def _wait(request, timeout, rank, what):
    """Poll a non-blocking MPI request until it completes or ``timeout`` seconds pass."""
    import time

    deadline = time.monotonic() + timeout
    pause = 1e-5
    while not request.Test():
        if time.monotonic() > deadline:
            raise DeadlineExceededError(None, None, f"Collective {what} timed out after {timeout} s on worker "
                                                    f"{rank}: another worker did not join "
                                                    "(CommunicationOptions.timeout_seconds)")
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)


_world = [None]
_world_lock = threading.Lock()


def world():
    """This process's :class:`World`: from MPI under an MPI launcher (initialising MPI), else one process."""
    with _world_lock:
        if _world[0] is None:
            if launched_by_mpirun():
                w = World(mpi_module().COMM_WORLD)
                _install_abort_on_error(w)
            else:
                w = World(None)
            _world[0] = w
        return _world[0]


def _install_abort_on_error(w):
    """An uncaught exception, or ``sys.exit`` with an error status, in one process ends the whole job
    (``MPI_Abort``) instead of leaving the others waiting in a collective for ever (and this one in
    ``MPI_Finalize``), as ``python -m mpi4py`` does; the traceback (or the exit message) is printed first."""
    if w.size <= 1:
        return
    previous_hook, previous_exit = sys.excepthook, sys.exit

    def hook(kind, value, tb):
        previous_hook(kind, value, tb)
        sys.stderr.flush()
        sys.stdout.flush()
        w.abort(1)

    def exit_(status=None):
        if status not in (None, 0) and threading.current_thread() is threading.main_thread():
            if not isinstance(status, int):
                print(status, file=sys.stderr)  # what Python prints for sys.exit("message")
            sys.stderr.flush()
            sys.stdout.flush()
            w.abort(status if isinstance(status, int) else 1)
        previous_exit(status)

    sys.excepthook = hook
    sys.exit = exit_
