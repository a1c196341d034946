"""Every production kernel family on the emulator in racecheck mode, and races racecheck must find.

1. Each family's emulator tests (the op-info table's ``RACECHECK`` runs, tests/opinfo/kernel_families.py:
   a representative subset with small shapes, reusing the test functions of test_<family>.py) run with a
   racecheck kernel library; each family's test also
   checks that every kernel entry of the family was launched in racecheck mode.
   ``TFCORE_EMULATOR_RACECHECK=1 pytest tests/kernels`` runs ALL kernel tests in racecheck mode.
2. Bugs planted in copies of the sources (a dropped __syncthreads, cp.async wait_group or commit_group)
   are caught: test_kernel_mutants.py.
"""

import numpy as np
import pytest

from tests.opinfo.kernel_families import RACECHECK
from tfcore.backend.kernel_library import EmulatorKernelLibrary

pytestmark = pytest.mark.emulator


class _Recording(EmulatorKernelLibrary):
    """A racecheck emulator library that remembers the kernels it launched."""

    def __init__(self):
        super().__init__(racecheck=True)
        self.launched = set()

    def launch(self, name, grid, block, args, shared_mem=0):
        self.launched.add(name)
        return super().launch(name, grid, block, args, shared_mem)


class _KB:
    kind = "cuda"
    xp = np

    def __init__(self, kernels):
        self.kernels = kernels


@pytest.fixture(scope="module")
def race_lib():
    return _Recording()


def test_every_family_is_listed():
    from tfcore.backend.kernel_library import kernel_families

    assert sorted(RACECHECK) == kernel_families()


@pytest.mark.parametrize("family", sorted(RACECHECK))
def test_family_passes_racecheck(race_lib, family):
    kb = _KB(race_lib)
    assert race_lib.module(family).racecheck
    for fn, kwargs in RACECHECK[family]:
        fn(kb=kb, rng=np.random.default_rng(1234), **kwargs)
    entries = {n for n, f in race_lib._where.items() if f == family}
    assert entries and entries <= race_lib.launched, f"not run in racecheck mode: {sorted(entries - race_lib.launched)}"
