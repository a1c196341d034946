"""The Python launchers' tile and block constants are the ``#define``s of kernels/*.cu.

A launcher computes its grid from these numbers; a kernel edited without its launcher would read or
write outside its tile. Launchers read them with ``kernel_library.kernel_define`` (the source is the one
place they are written); this test re-reads the sources independently and checks the wiring.
"""

import pathlib
import re

import pytest

from tfcore.backend import collectives
from tfcore.ops.cuda_kernels import bias_add, conv, matmul, pool, reduce, softmax

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


@pytest.mark.parametrize("module, attr, define", [
    (matmul, "BM", "MM_BM"), (matmul, "BN", "MM_BN"), (matmul, "THREADS", "MM_THREADS"),
    (matmul, "TC_SMEM_BYTES", "TC_SMEM_BYTES"),
    (conv, "BM", "CV_BM"), (conv, "BN", "CV_BN"), (conv, "BK", "CV_BK"), (conv, "THREADS", "CV_THREADS"),
    (conv, "MIN_BLOCKS", "CV_MIN_BLOCKS"), (conv, "BN_NARROW", "CV_BN_NARROW"),
    (conv, "NARROW_MIN_BLOCKS", "CV_NARROW_MIN_BLOCKS"), (conv, "GRAD_X", "CV_GRAD_X"), (conv, "GRAD_Y", "CV_GRAD_Y"),
    (conv, "SUM_THREADS", "CV_SUM_THREADS"), (conv, "DW_THREADS", "CV_DW_THREADS"),
    (conv, "DW_SMEM_FLOATS", "CV_DW_SMEM_FLOATS"),
    (conv, "TC_BK_F16", "CV_TC_BK_F16"), (conv, "TC_BK_F32", "CV_TC_BK_F32"), (conv, "TC_STAGES", "CV_TC_STAGES"),
    (conv, "TC_SMEM_BYTES", "CV_TC_SMEM_BYTES"), (conv, "TC_MIN_BLOCKS", "CV_TC_MIN_BLOCKS"),
    (bias_add, "THREADS", "BA_THREADS"), (pool, "THREADS", "PL_THREADS"),
    (reduce, "THREADS", "RD_THREADS"), (reduce, "COLS_X", "RD_COLS_X"), (reduce, "COLS_Y", "RD_COLS_Y"),
    (reduce, "UNROLL", "RD_UNROLL"), (reduce, "VEC", "RD_VEC"),
    (softmax, "THREADS", "SM_THREADS"), (softmax, "WARP_COLS_MAX", "SM_WARP_COLS_MAX"),
    (softmax, "VEC", "SM_VEC"), (softmax, "CACHE_VECS", "SM_CACHE_VECS"),
    (softmax, "BLOCK_COLS_MAX", "SM_BLOCK_COLS_MAX"),
    (collectives, "ALLREDUCE_THREADS", "AR_THREADS"), (collectives, "ALLREDUCE_VEC", "AR_VEC"),
    (collectives, "ALLREDUCE_TILE", "AR_TILE"),
])
def test_launcher_constant_matches_kernel_define(module, attr, define):
    assert getattr(module, attr) == _defines()(define), f"{module.__name__}.{attr} != {define}"


def test_every_conv2d_define_is_checked():
    """A new numeric CV_* constant in conv2d.cu must get a launcher constant and a row above."""
    text = (KERNELS / "conv2d.cu").read_text()
    defines = set(re.findall(r"^#define\s+(CV_[A-Z_]+)\s+(?:\d+|TFC_\w+)\b", text, re.M))
    checked = set(re.findall(r'\(conv, "\w+", "(CV_\w+)"\)', pathlib.Path(__file__).read_text()))
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
