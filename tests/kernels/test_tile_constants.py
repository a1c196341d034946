"""The Python launchers' tile and block constants are the ``#define``s of kernels/*.cu.

A launcher computes its grid from these numbers; a kernel edited without its launcher would read or
write outside its tile. Launchers read them with ``kernel_library.kernel_define`` (the source is the one
place they are written); this test re-reads the sources independently and checks the wiring of the op-info table's
``TILE_CONSTANTS`` rows (tests/opinfo/kernel_families.py).
"""

import pathlib
import re

import pytest

from tests.opinfo.kernel_families import TILE_CONSTANTS

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"


def _defines():
    table = {}
    for path in sorted(KERNELS.glob("*.cu*")):
        for name, value in re.findall(r"^#define\s+(\w+)\s+(\w+)", path.read_text(), re.M):
            table[name] = value

    def resolve(name):
        value = table[name]
        return int(value) if value.isdigit() else resolve(value)
    return resolve


@pytest.mark.parametrize("module, attr, define", TILE_CONSTANTS)
def test_launcher_constant_matches_kernel_define(module, attr, define):
    assert getattr(module, attr) == _defines()(define), f"{module.__name__}.{attr} != {define}"


def test_every_conv2d_define_is_checked():
    """A new numeric CV_* constant in conv2d.cu must get a launcher constant and a TILE_CONSTANTS row."""
    text = (KERNELS / "conv2d.cu").read_text()
    defines = set(re.findall(r"^#define\s+(CV_[A-Z_]+)\s+(?:\d+|TFC_\w+)\b", text, re.M))
    checked = {define for module, _, define in TILE_CONSTANTS if module.__name__.endswith(".conv")}
    assert len(defines) >= 8 and defines <= checked, sorted(defines - checked)


def test_kernel_define_follows_aliases_and_names_what_is_missing(monkeypatch):
    from tfcore.backend import kernel_library as kl

    source = ("#define A 8\n#define B A  // alias\n#define C D\n#if X\n#define E 1\n#else\n#define E 2\n#endif\n"
              "#define F G\n#define G F\n")
    monkeypatch.setattr(kl, "kernel_source", lambda family: source)
    kl._kernel_defines.cache_clear()
    try:
        assert kl.kernel_define("fake", "A") == 8 and kl.kernel_define("fake", "B") == 8
        with pytest.raises(KeyError, match="no numeric #define C .*names D"):
            kl.kernel_define("fake", "C")
        with pytest.raises(KeyError, match="no numeric #define Z"):
            kl.kernel_define("fake", "Z")
        with pytest.raises(ValueError, match="defines E differently"):
            kl.kernel_define("fake", "E")
        with pytest.raises(ValueError, match="circular"):
            kl.kernel_define("fake", "F")
    finally:
        kl._kernel_defines.cache_clear()
