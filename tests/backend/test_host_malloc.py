"""tfcore.backend.host_malloc: glibc's mmap/trim thresholds set once when the CPU backend is made,
unless the user chose their own or opted out."""

import os
import subprocess
import sys
import textwrap

import pytest

from tfcore.backend import host_malloc


@pytest.fixture
def fresh(monkeypatch):
    """A host_malloc that has not run yet, with mallopt recorded instead of called."""
    calls = []
    monkeypatch.setattr(host_malloc, "_state", {"done": False, "applied": False})
    monkeypatch.setattr(host_malloc, "_glibc", lambda: lambda param, value: calls.append((param, value)) or 1)
    for var in ("TFCORE_MALLOC_TUNING", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES"):
        monkeypatch.delenv(var, raising=False)
    return calls


def test_tune_sets_both_thresholds_once(fresh):
    assert host_malloc.tune() is True and host_malloc.applied()
    assert fresh == [(-3, 32 << 20), (-1, 128 << 20)]
    assert host_malloc.tune() is True and len(fresh) == 2  # once per process


@pytest.mark.parametrize("var,value", [("TFCORE_MALLOC_TUNING", "0"), ("MALLOC_MMAP_THRESHOLD_", "65536"),
                                       ("MALLOC_TRIM_THRESHOLD_", "0"),
                                       ("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=0")])
def test_the_users_choice_or_opt_out_wins(fresh, monkeypatch, var, value):
    monkeypatch.setenv(var, value)
    assert host_malloc.tune() is False and not host_malloc.applied()
    assert fresh == []


def test_other_glibc_tunables_do_not_stop_it(fresh, monkeypatch):
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F")
    assert host_malloc.tune() is True


def test_without_glibc_nothing_happens(monkeypatch):
    monkeypatch.setattr(host_malloc, "_state", {"done": False, "applied": False})
    monkeypatch.setattr(host_malloc, "_glibc", lambda: None)
    monkeypatch.delenv("TFCORE_MALLOC_TUNING", raising=False)
    assert host_malloc.tune() is False


@pytest.mark.skipif(host_malloc._glibc() is None, reason="not a glibc system")
def test_a_process_using_the_cpu_gets_the_thresholds_and_reuses_heap_pages():
    """In a fresh process: making the CPU device applies the thresholds, and a step-like cycle of large
    temporaries (allocated, written, freed) page-faults in its first round only."""
    code = textwrap.dedent("""
        import resource
        import numpy as np
        import tfcore as tf
        from tfcore.backend import host_malloc
        tf.constant(1.0)  # makes the CPU device
        faults = []
        for _ in range(6):
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            arrays = [np.ones(n, np.float32) for n in (300_000, 1_700_000, 900_000, 4_000_000)]
            del arrays
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        print(host_malloc.applied(), max(faults[1:]))
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("TFCORE_MALLOC_TUNING", "MALLOC_MMAP_THRESHOLD_",
                                                             "MALLOC_TRIM_THRESHOLD_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    applied, later_faults = out.stdout.split()
    assert applied == "True"
    # Without the thresholds the second round page-faults ~2000 times (glibc raised its mmap threshold
    # after the first round's frees, so round two grows the heap afresh); with them only round one does.
    assert int(later_faults) < 100
