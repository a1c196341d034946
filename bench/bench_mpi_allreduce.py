"""MPI all-reduce on this machine: the figures that calibrate ``docs/distributed.md``'s cost model.

Run under mpirun (as root add ``--allow-run-as-root``)::

    mpirun --oversubscribe --bind-to none -np 2 python bench/bench_mpi_allreduce.py
    mpirun --oversubscribe --bind-to none -np 4 python bench/bench_mpi_allreduce.py

Rank 0 prints, per message size, the median time of ``MPI_Allreduce`` (float32 sum) over the repeats,
then the ring model's latency (alpha) and inverse bandwidth (beta) fitted to them
(``tfcore.distribute.cost_model.fit_ring``).
"""

import time

import numpy as np
from mpi4py import MPI
from tfcore.distribute import cost_model


def main():
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    sizes = [2 ** k for k in range(3, 27, 2)]  # 8 B .. 64 MiB
    medians = []
    for nbytes in sizes:
        send = np.ones(nbytes // 4, np.float32)
        recv = np.empty_like(send)
        repeats = max(3, min(200, int(2e8 // max(nbytes, 1) // 64)))
        times = []
        for _ in range(repeats + 1):
            comm.Barrier()
            t = time.perf_counter()
            comm.Allreduce(send, recv, op=MPI.SUM)
            times.append(time.perf_counter() - t)
        worst = comm.allreduce(float(np.median(times[1:])), op=MPI.MAX)
        medians.append(worst)
        if rank == 0:
            print(f"{size} ranks  {nbytes:>10d} B  {worst * 1e6:10.1f} us  {nbytes / worst / 1e9:8.3f} GB/s algbw")
    if rank == 0:
        alpha, beta = cost_model.fit_ring(sizes, medians, size)
        print(f"ring fit ({size} ranks): alpha = {alpha * 1e6:.1f} us per step, "
              f"bandwidth = {1 / beta / 1e9:.2f} GB/s per link")


if __name__ == "__main__":
    main()
