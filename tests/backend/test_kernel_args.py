"""Kernel argument packing on real GPUs (CupyKernelLibrary), checked with a CuPy stand-in.

The converters of a kernel are built once, from its PTX parameter list, and every launch maps
its arguments through them; the packed arguments must be exactly what the per-launch typing
(``_reference_convert``, the code before the converters were cached) produced: same values,
same NumPy scalar types, arrays and None as before, and the same errors.
"""

import itertools

import numpy as np
import pytest
from fake_cupy import FakeNdarray, install

from tfcore.backend import kernel_library
from tfcore.backend.kernel_library import CupyKernelLibrary, arg_converters, pack_args


def _reference_convert(name, params, args, ndarray):
    """The per-launch typing of CupyKernelLibrary._convert before converters were cached (verbatim logic)."""
    out = []
    for i, (ty, a) in enumerate(zip(params, args)):
        if isinstance(a, ndarray) or a is None:
            out.append(a if a is not None else np.uint64(0))
        elif isinstance(a, np.ndarray):
            raise TypeError(f"kernel {name}: argument {i} is a host NumPy array; pass a CuPy array")
        elif ty in ("f32",):
            out.append(np.float32(a))
        elif ty in ("f64",):
            out.append(np.float64(a))
        elif ty in ("u32", "s32", "b32"):
            out.append(np.int32(a) if -(1 << 31) <= int(a) < (1 << 31) else np.uint32(a))
        elif ty in ("u64", "s64", "b64"):
            out.append(np.int64(a))
        elif ty in ("u16", "s16", "b16", "b8[2]"):
            out.append(np.float16(a) if isinstance(a, float | np.floating) else np.int16(a))
        elif ty in ("u8", "s8", "b8", "b8[1]"):
            out.append(np.int8(a))
        else:
            raise TypeError(f"kernel {name}: unsupported parameter {i} of PTX type {ty}")
    return out


TYPES = ["f32", "f64", "u32", "s32", "b32", "u64", "s64", "b64", "u16", "s16", "b16", "b8[2]", "u8", "s8", "b8",
         "b8[1]"]
ARRAY = FakeNdarray()
VALUES = [0, 1, -1, 7, 2**31 - 1, 2**31, 2**32 - 1, -(2**31), 3.5, -0.25, True, None, ARRAY,
          np.int32(5), np.int32(-5), np.uint32(2**31 + 3), np.int64(9), np.int64(-9), np.float32(1.5),
          np.float64(2.25), np.float16(0.5), np.int16(-3), np.int8(4), np.uint64(11)]


def _outcome(fn, *args):
    try:
        return [(type(v), v if isinstance(v, FakeNdarray) else v.item()) for v in fn(*args)]
    except (TypeError, OverflowError, ValueError) as e:
        return (type(e), str(e))


@pytest.mark.parametrize("ty", TYPES + ["f16x", "pred"])
def test_packed_arguments_equal_the_per_launch_typing(ty):
    params = [ty]
    convs = arg_converters("k", params)
    for v in VALUES:
        want = _outcome(_reference_convert, "k", params, [v], FakeNdarray)
        got = _outcome(pack_args, "k", convs, (v,), FakeNdarray)
        assert got == want, (ty, v)


def test_packed_argument_lists_equal_the_per_launch_typing():
    params = ["u64", "u64", "s32", "f32", "u64", "b8[2]", "s64"]
    convs = arg_converters("k", params)
    rng = np.random.default_rng(0)
    for _ in range(200):
        args = tuple(VALUES[i] for i in rng.integers(0, len(VALUES), len(params)))
        assert _outcome(pack_args, "k", convs, args, FakeNdarray) == \
            _outcome(_reference_convert, "k", params, args, FakeNdarray), args


def test_host_numpy_arrays_are_refused_with_their_position():
    convs = arg_converters("k", ["u64", "u64"])
    with pytest.raises(TypeError, match="kernel k: argument 1 is a host NumPy array"):
        pack_args("k", convs, (ARRAY, np.zeros(2)), FakeNdarray)


class _Function:
    def __init__(self, name, calls):
        self.name, self.calls = name, calls
        self.max_dynamic_shared_size_bytes = 0

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((self.name, grid, block, args, shared_mem))


class _Module:
    def __init__(self):
        self.calls, self.got = [], []

    def get_function(self, name):
        self.got.append(name)
        return _Function(name, self.calls)


@pytest.fixture
def library(monkeypatch):
    install(monkeypatch)
    lib = CupyKernelLibrary(0)
    mod = _Module()
    entries = {"axpy_f32": ["u64", "u64", "f32", "s32"], "fill_f16": ["u64", "b8[2]", "u64"]}
    lib._modules["fake"] = ((mod, entries), set(entries))  # as _load leaves a compiled family
    lib._where.update(dict.fromkeys(entries, "fake"))
    built = []
    real = kernel_library.arg_converters
    monkeypatch.setattr(kernel_library, "arg_converters", lambda name, params: built.append(name) or real(name, params))
    return lib, mod, built


def test_converters_and_function_are_built_once_per_kernel(library):
    lib, mod, built = library
    x, y = FakeNdarray(), FakeNdarray()
    for n, g in itertools.product(range(3), (4, (4,), [4, 1])):
        lib.launch("axpy_f32", g, 256, [x, y, 2.0, n])
        lib.launch("fill_f16", (1, 1, 1), (32,), (y, 0.5, np.int64(8)))
    assert built == ["axpy_f32", "fill_f16"]
    assert mod.got == ["axpy_f32", "fill_f16"]
    assert len(mod.calls) == 18
    name, grid, block, args, smem = mod.calls[-2]
    assert (name, grid, block, smem) == ("axpy_f32", (4, 1), (256,), 0)
    assert args[:2] == (x, y) and type(args[2]) is np.float32 and type(args[3]) is np.int32 and args[3] == 2
    assert mod.calls[-1][3][1] == np.float16(0.5) and type(mod.calls[-1][3][1]) is np.float16
    assert mod.calls[0][1] == (4,)


def test_launch_checks_arity_skips_empty_grids_and_raises_the_shared_memory_limit(library):
    lib, mod, _ = library
    with pytest.raises(TypeError, match="kernel axpy_f32 takes 4 arguments, got 3"):
        lib.launch("axpy_f32", 1, 1, [ARRAY, ARRAY, 1.0])
    lib.launch("axpy_f32", (0, 1), 32, [ARRAY, ARRAY, 1.0, 3])
    assert mod.calls == []
    lib.launch("axpy_f32", 1, 32, (ARRAY, ARRAY, 1.0, 3), shared_mem=64 * 1024)
    k, _ = lib.plan("axpy_f32")
    assert k.max_dynamic_shared_size_bytes == 64 * 1024 and mod.calls[-1][4] == 64 * 1024
    lib._launch(None, "axpy_f32", 2, 32, (ARRAY, ARRAY, 1.0, 3), 0)  # the base class's entry point
    assert mod.calls[-1][1] == (2,)


def test_unknown_kernels_still_raise(library):
    lib, _, _ = library
    lib._modules.update({f: ((None, {}), set()) for f in kernel_library.kernel_families()})
    with pytest.raises(kernel_library.KernelNotFoundError):
        lib.launch("no_such_kernel", 1, 1, ())
