"""The native CPU kernels (``kernels/cpu_kernels.cc``) against float64 references and the NumPy paths.

Covers the build (cached, keyed by source and CPU; a missing compiler falls back), im2col, Adam,
MaxPool and MaxPoolGrad (ragged shapes, overlapping windows, padding, ties, NaN, infinities), the direct
convolution forward, stride-1 input gradient and filter gradient (4, 8 and 16 output channels, strides,
dilations, SAME/VALID/EXPLICIT padding), and which candidates the ops choose with and without the kernels.
"""

import itertools
import warnings

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import native_cpu
from tfcore.ops import conv_ops, fused_ops, nn_ops, pool_ops, training_ops
from tfcore.ops.registry import kernel_for

pytestmark = pytest.mark.usefixtures("on_cpu")
_rng = np.random.default_rng(11)

needs_native = pytest.mark.skipif(native_cpu.library() is None, reason="no C++ compiler: NumPy paths only")


def _pool_attrs(k, s, padding, explicit=()):
    return dict(ksize=(1, k, k, 1), strides=(1, s, s, 1), padding=padding, explicit_paddings=explicit,
                data_format="NHWC")


def _conv_attrs(stride, dilation, padding, explicit=()):
    return dict(strides=(1, stride, stride, 1), padding=padding, explicit_paddings=explicit, data_format="NHWC",
                dilations=(1, dilation, dilation, 1))


def _reference_conv(x, w, stride, dilation, pads):
    """float64 convolution by explicit loops over taps, padding computed here (not by conv_geometry)."""
    (pt, pb), (pl, pr) = pads
    x = np.pad(x.astype(np.float64), ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kh, kw, _, co = w.shape
    oh = (x.shape[1] - (kh - 1) * dilation - 1) // stride + 1
    ow = (x.shape[2] - (kw - 1) * dilation - 1) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, co))
    for i, j in itertools.product(range(kh), range(kw)):
        patch = x[:, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                  j * dilation:j * dilation + stride * (ow - 1) + 1:stride, :]
        out += patch @ w[i, j].astype(np.float64)
    return out


def _same_pads(size, k, stride, dilation):
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


# -- build -------------------------------------------------------------------------------------------

@needs_native
def test_the_library_is_built_once_and_cached_by_source_and_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("TFCORE_EMULATOR_CACHE", str(tmp_path / "emulator"))
    path = native_cpu._build(native_cpu._source_path(), native_cpu.compiler())
    assert path.exists() and path.parent.parent == tmp_path / "native"
    mtime = path.stat().st_mtime_ns
    assert native_cpu._build(native_cpu._source_path(), native_cpu.compiler()) == path
    assert path.stat().st_mtime_ns == mtime  # the cached library, not a rebuild
    lib = native_cpu.NativeLibrary(path)
    assert lib.fn("tfc_im2col", np.float32) is not lib.fn("tfc_im2col", np.float64)


def _exported(part):
    """The names of the functions the preprocessed source defines for export with ``-DTFC_PART=part``."""
    import re
    import subprocess

    out = subprocess.run([native_cpu.compiler(), "-E", "-P", "-std=c++17", f"-DTFC_PART={part}",
                          str(native_cpu._source_path())], capture_output=True, text=True, check=True).stdout
    return re.findall(r'extern "C" __attribute__\(\(visibility\("default"\)\)\)\s+[\w\s*]*?\b(tfc_\w+)\s*\(', out)


@needs_native
def test_the_parts_define_each_exported_function_once():
    """Built in parts (several cores), each exported function is in exactly one part, and the parts together
    define what the one-unit build does: a function left outside the parts' blocks would be defined in every
    part (the link fails), one inside none would be missing."""
    text = native_cpu._source_path().read_bytes()
    count = int(text.split(b"#define TFC_PARTS ", 1)[1].split()[0])
    parts = [_exported(k) for k in range(count)]
    whole = _exported(-1)
    assert all(parts) and len(whole) == len(set(whole)) > 30
    flat = [name for names in parts for name in names]
    assert sorted(flat) == sorted(whole)
    assert "tfc_native_abi_version" in parts[0] and "tfc_conv2d_winograd_f32" not in parts[0]


def test_parts_only_where_there_are_cores_to_compile_them_at_once(monkeypatch):
    text = native_cpu._source_path().read_bytes()
    monkeypatch.setattr(native_cpu, "usable_cores", lambda: 1)
    assert native_cpu._parts(text) == 1
    monkeypatch.setattr(native_cpu, "usable_cores", lambda: 16)
    assert native_cpu._parts(text) == int(text.split(b"#define TFC_PARTS ", 1)[1].split()[0]) > 1
    assert native_cpu._parts(b"// no parts here") == 1


@pytest.mark.parametrize("broken", [False, True])
def test_without_a_working_compiler_the_numpy_paths_run(tmp_path, monkeypatch, broken):
    """No compiler: quietly the NumPy paths. A compiler that fails: a RuntimeWarning, then the same."""
    monkeypatch.setenv("TFCORE_EMULATOR_CACHE", str(tmp_path / "emulator"))
    monkeypatch.setenv("CXX", "false" if broken else str(tmp_path / "no-such-compiler"))
    native_cpu.reset()
    try:
        if broken:
            with pytest.warns(RuntimeWarning, match="native CPU kernels unavailable"):
                assert native_cpu.library() is None
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert native_cpu.library() is None
        x = _rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
        assert not native_cpu.supports(x)
        y = tf.nn.max_pool2d(x, 2, 2, "SAME").numpy()
        np.testing.assert_array_equal(y, x.reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4)))
    finally:
        native_cpu.reset()


def test_the_switch_turns_the_kernels_off(monkeypatch):
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    assert native_cpu.library() is None
    x = np.ones((1, 4, 4, 2), np.float32)
    assert pool_ops.MAX_POOL.select("cpu", (x,), _pool_attrs(2, 2, "SAME")).name == "max_pool_tiled"


@needs_native
def test_supports_only_contiguous_float_numpy_arrays_of_one_dtype():
    a = np.ones((2, 3), np.float32)
    assert native_cpu.supports(a, a)
    assert not native_cpu.supports(a, a.astype(np.float64))
    assert not native_cpu.supports(a.T)
    assert not native_cpu.supports(a.astype(np.float16))
    assert not native_cpu.supports(a.astype(np.int32))


# -- im2col ------------------------------------------------------------------------------------------

@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,h,w,c,k,stride,dilation,padding", [
    (2, 7, 5, 1, 4, 1, 1, "SAME"), (3, 9, 9, 3, 3, 2, 1, "SAME"), (1, 8, 6, 2, 2, 1, 2, "VALID"),
    (2, 5, 7, 5, 3, 3, 2, "SAME"), (1, 1, 1, 4, 3, 1, 1, "SAME"), (2, 6, 6, 3, 3, 2, 1, "VALID")])
def test_native_im2col_equals_the_numpy_columns(n, h, w, c, k, stride, dilation, padding, dtype):
    x = _rng.standard_normal((n, h, w, c)).astype(dtype)
    strides, dilations = (1, stride, stride, 1), (1, dilation, dilation, 1)
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, k, k, strides, dilations, padding, ())
    got = conv_ops._host_columns(np, x, oh, ow, k, k, strides, dilations, ph, pw)
    want = conv_ops._im2col(np, conv_ops.pad_spatial(np, x, ph, pw), oh, ow, k, k, strides, dilations)
    assert got.dtype == dtype and (c == 1 or got.flags.c_contiguous)  # one channel: the NumPy tap-major copy
    np.testing.assert_array_equal(got, want)


# -- pooling -----------------------------------------------------------------------------------------

def _pool_inputs(shape, dtype, specials):
    x = _rng.standard_normal(shape).astype(dtype)
    if specials:
        x[0, 0, :2, 0] = 1.5          # a tie inside the first window
        x[-1, -1, -1, -1] = np.nan    # a NaN window
        x[0, -1, 0, -1] = -np.inf
        x[-1, 0, -1, 0] = np.inf
    return x


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,k,s,padding", [
    ((2, 28, 28, 8), 2, 2, "SAME"), ((3, 7, 9, 2), 2, 2, "SAME"), ((2, 7, 9, 5), 3, 2, "SAME"),
    ((2, 8, 8, 16), 3, 1, "VALID"), ((1, 6, 6, 1), 3, 3, "SAME"), ((2, 5, 5, 3), 3, 2, "VALID"),
    ((1, 5, 4, 64), 2, 1, "SAME"), ((1, 4, 4, 7), 1, 1, "VALID"),
    # windows that cannot overlap but leave inputs uncovered (gaps, a last row and column): zeros there
    ((2, 7, 7, 4), 2, 3, "VALID"), ((1, 5, 5, 16), 2, 2, "VALID")])
@pytest.mark.parametrize("specials", [False, True])
def test_native_max_pool_and_gradient_equal_the_generic_numpy_kernels(cpu, shape, k, s, padding, dtype,
                                                                       specials):
    attrs = _pool_attrs(k, s, padding)
    x = _pool_inputs(shape, dtype, specials)
    want = pool_ops._max_pool(cpu, x, **attrs)
    pooled = pool_ops._max_pool_native(cpu, x, **attrs)
    np.testing.assert_array_equal(pooled.output, want)
    dy = _rng.standard_normal(want.shape).astype(dtype)
    if specials:
        dy[0, 0, 0, 0], dy[-1, -1, -1, 0] = np.inf, np.nan
    got = pool_ops._max_pool_grad_native(cpu, x, want, dy, **attrs)
    expected = pool_ops._max_pool_grad(cpu, x, want, dy, **attrs)
    # MaxPool's argmax bytes pick the same taps as the search through x: the same bits
    np.testing.assert_array_equal(
        pool_ops._max_pool_grad_native(cpu, x, want, dy, **attrs, argmax=pooled.saved["argmax"]), got)
    if s >= k:  # each input in one window: the same single values
        np.testing.assert_array_equal(got, expected)
    else:  # overlapping windows add in another order (window by window, not tap by tap)
        rtol = 1e-6 if dtype == np.float32 else 1e-14
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


@needs_native
def test_native_max_pool_with_explicit_padding_and_minus_infinity_windows(cpu):
    attrs = _pool_attrs(3, 2, "EXPLICIT", (0, 0, 2, 1, 1, 2, 0, 0))
    x = np.full((1, 5, 5, 4), -np.inf, np.float32)
    x[0, 2:, 2:, :2] = _rng.standard_normal((3, 3, 2))
    y = pool_ops._max_pool(cpu, x, **attrs)
    pooled = pool_ops._max_pool_native(cpu, x, **attrs)
    np.testing.assert_array_equal(pooled.output, y)
    dy = _rng.standard_normal(y.shape).astype(np.float32)
    want = pool_ops._max_pool_grad(cpu, x, y, dy, **attrs)
    np.testing.assert_array_equal(pool_ops._max_pool_grad_native(cpu, x, y, dy, **attrs), want)
    # all -inf windows whose first tap is padding send their gradient nowhere, by argmax too
    assert (pooled.saved["argmax"] == 255).any()
    np.testing.assert_array_equal(
        pool_ops._max_pool_grad_native(cpu, x, y, dy, **attrs, argmax=pooled.saved["argmax"]), want)


@needs_native
def test_pools_choose_the_native_candidates_for_float32_and_float64_only():
    attrs = _pool_attrs(2, 2, "SAME")
    for dt in (np.float32, np.float64):
        x = np.ones((1, 4, 4, 3), dt)
        y = np.ones((1, 2, 2, 3), dt)
        assert pool_ops.MAX_POOL.select("cpu", (x,), attrs).name == "max_pool_native"
        assert pool_ops.MAX_POOL_GRAD.select("cpu", (x, y, y), attrs).name == "max_pool_grad_native"
    assert pool_ops.MAX_POOL.select("cpu", (np.ones((1, 4, 4, 3), np.int32),), attrs).name != "max_pool_native"
    half = np.ones((1, 4, 4, 3), np.float16)
    assert pool_ops.MAX_POOL.select("cpu", (half,), attrs).name != "max_pool_native"


# -- direct convolution -----------------------------------------------------------------------------

_CONV_CASES = [  # (n, h, w, c, kh, kw, co, stride, dilation, padding)
    (32, 28, 28, 1, 4, 4, 8, 1, 1, "SAME"), (4, 14, 14, 8, 4, 4, 16, 1, 1, "SAME"),
    (2, 9, 7, 3, 3, 3, 4, 2, 1, "SAME"), (3, 8, 11, 5, 3, 2, 8, 1, 2, "VALID"),
    (1, 13, 13, 2, 5, 5, 16, 3, 1, "VALID"), (2, 1, 1, 6, 3, 3, 4, 1, 1, "SAME"),
    (1, 6, 19, 16, 1, 1, 8, 1, 1, "VALID"), (2, 10, 10, 4, 3, 3, 8, 2, 2, "SAME"),
    (2, 9, 9, 3, 3, 3, 24, 1, 1, "SAME"), (2, 8, 8, 16, 3, 3, 32, 1, 1, "SAME"),  # several channel chunks
    (1, 7, 6, 2, 3, 3, 64, 2, 1, "VALID"),
    # the wide kernels (several vectors per pixel or filter row on AVX-512 builds), sums over 256 terms,
    # rows that end in a short block (13 = 8 + 4 + an overlapping 4)
    (2, 6, 13, 32, 3, 3, 64, 1, 1, "SAME"), (1, 5, 13, 64, 3, 3, 32, 1, 1, "SAME"),
    (1, 6, 7, 40, 3, 3, 96, 1, 1, "VALID"), (1, 5, 9, 20, 5, 5, 128, 2, 1, "SAME"),
    (2, 5, 6, 24, 3, 3, 32, 1, 2, "SAME"),
    # output channels the kernels do not take (not 4 or a multiple of 8): zero filters pad them to 4 or 8k
    (2, 9, 9, 16, 3, 3, 1, 1, 1, "SAME"), (2, 8, 7, 4, 3, 3, 3, 2, 1, "SAME"), (1, 9, 9, 8, 5, 5, 5, 1, 2, "VALID"),
    (2, 6, 6, 32, 3, 3, 12, 1, 1, "SAME")]


def _geometry(case):
    n, h, w, c, kh, kw, co, stride, dilation, padding = case
    if padding == "SAME":
        pads = _same_pads(h, kh, stride, dilation), _same_pads(w, kw, stride, dilation)
    else:
        pads = (0, 0), (0, 0)
    return pads


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _CONV_CASES)
def test_direct_convolution_and_its_filter_gradient_match_float64_references(cpu, case, dtype):
    n, h, w, c, kh, kw, co, stride, dilation, padding = case
    x = _rng.standard_normal((n, h, w, c)).astype(dtype)
    wt = _rng.standard_normal((kh, kw, c, co)).astype(dtype)
    pads = _geometry(case)
    want = _reference_conv(x, wt, stride, dilation, pads)
    attrs = _conv_attrs(stride, dilation, padding)
    wide = native_cpu.library().wide_direct_channels(dtype)
    long_sum = co > 16 and kh * kw * c > conv_ops._DIRECT_MAX_TERMS
    run_co = conv_ops._kernel_channels(co)
    assert conv_ops._direct_ready(run_co, kh * kw * c, x, wt) is (
        not long_sum or (wide > 0 and run_co % wide == 0))
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert type(got) is np.ndarray and got.dtype == dtype  # the direct kernel saves no columns
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(kh * kw * c))
    dy = _rng.standard_normal(want.shape).astype(dtype)
    xpad = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    dw_want = np.zeros((kh, kw, c, co))
    oh, ow = want.shape[1:3]
    for i, j in itertools.product(range(kh), range(kw)):
        patch = xpad[:, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                     j * dilation:j * dilation + stride * (ow - 1) + 1:stride, :]
        dw_want[i, j] = patch.reshape(-1, c).T @ dy.reshape(-1, co).astype(np.float64)
    dw = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(cpu, (x, dy), {**attrs, "filter_sizes": (kh, kw, c, co)})
    np.testing.assert_allclose(dw, dw_want, rtol=tol, atol=tol * np.sqrt(n * oh * ow))


@needs_native
def test_direct_kernels_take_the_channel_counts_and_sizes_they_are_fast_for():
    x = np.ones((1, 5, 5, 8), np.float32)
    for co, c, k, want in ((4, 8, 3, True), (8, 8, 3, True), (24, 8, 3, True), (64, 16, 4, True),
                           (12, 8, 3, False), (6, 8, 3, False),     # not 4 or a multiple of 8
                           (16, 64, 3, True), (40, 64, 3, False)):  # wide output and over 256 terms: BLAS
        w = np.ones((k, k, c, co), np.float32)
        assert conv_ops._direct_ready(co, k * k * c, x, w) is want, (co, c, k)
    # over 256 terms, the output-channel counts of the wide kernels run directly where the build has them
    wide = native_cpu.library().wide_direct_channels(np.float32)
    assert wide in (0, 32)  # 0 without AVX-512
    for co in (32, 64, 96, 128):
        w = np.ones((3, 3, 64, co), np.float32)
        assert conv_ops._direct_ready(co, 9 * 64, x, w) is (wide > 0), co
    assert not conv_ops._direct_ready(8, 9, x.astype(np.float16), np.ones((3, 3, 8, 8), np.float16))
    # other counts run as the next one the kernels take, with zero filters
    assert [conv_ops._kernel_channels(co) for co in (1, 3, 4, 5, 8, 12, 24, 100)] == [4, 4, 4, 8, 8, 16, 24, 104]


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c,co,k,dilation,padding", [(8, 16, 4, 1, "SAME"), (4, 3, 3, 1, "SAME"),
                                                     (16, 5, 3, 2, "VALID"), (4, 8, 2, 1, "SAME"),
                                                     (64, 32, 3, 1, "SAME"),  # 64 outputs of 288 terms: wide
                                                     (1, 16, 3, 1, "SAME"), (3, 8, 3, 2, "VALID")])  # 1, 3: padded
def test_direct_stride1_input_gradient_matches_the_numpy_path(cpu, monkeypatch, c, co, k, dilation, padding,
                                                              dtype):
    """The input gradient's direct kernel has ``c`` (the forward's input channels) outputs."""
    x_shape = (3, 9, 8, c)
    wt = _rng.standard_normal((k, k, c, co)).astype(dtype)
    attrs = _conv_attrs(1, dilation, padding)
    oh, ow, _, _ = conv_ops.conv_geometry(x_shape, k, k, attrs["strides"], attrs["dilations"], padding, ())
    dy = _rng.standard_normal((3, oh, ow, co)).astype(dtype)
    got = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), {**attrs, "input_sizes": x_shape})
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    want = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt.astype(np.float64), dy.astype(np.float64)),
                                                       {**attrs, "input_sizes": x_shape})
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k * k * co))


@needs_native
def test_conv_ops_train_the_same_with_and_without_the_native_kernels(monkeypatch):
    """seed 001's CNN step: the gradients agree whichever kernels run."""
    rng = np.random.default_rng(3)
    x = rng.random((4, 28, 28, 1)).astype(np.float32)
    w1 = rng.standard_normal((4, 4, 1, 8)).astype(np.float32)
    w2 = rng.standard_normal((4, 4, 8, 16)).astype(np.float32)

    def grads():
        a, b = tf.Variable(w1), tf.Variable(w2)
        with tf.GradientTape() as tape:
            h = tf.nn.max_pool2d(tf.nn.conv2d(x, a, 1, "SAME"), 2, 2, "SAME")
            y = tf.nn.max_pool2d(tf.nn.conv2d(h, b, 1, "SAME"), 2, 2, "SAME")
            loss = tf.reduce_sum(y * y)
        return [g.numpy() for g in tape.gradient(loss, [a, b])]

    native = grads()
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    for got, want in zip(native, grads()):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_tfcore_info_reports_the_native_kernels(monkeypatch, capsys):
    from tfcore.cli import main

    assert main(["info"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("Native CPU kernels:"))
    assert ("built" in line) == (native_cpu.library() is not None)
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    assert native_cpu.report_line() == "Native CPU kernels: off (TFCORE_NATIVE_CPU=0)"


# -- Adam -------------------------------------------------------------------------------------------------

@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 8192, 100_003])
def test_native_adam_gives_the_numpy_kernels_bits(cpu, dtype, n):
    rng = np.random.default_rng(n)
    var, m, g = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    v = np.abs(rng.standard_normal(n)).astype(dtype)
    g[:1] = 0.0
    attrs = dict(alpha=0.00097, beta_1=0.9, beta_2=0.999, epsilon=1e-7)
    got = training_ops._adam_native(cpu, var, m, v, g, **attrs)
    want = training_ops._adam(cpu, var, m, v, g, **attrs)
    for a, b in zip(got, want):
        assert a.dtype == dtype and np.array_equal(a, b)


@needs_native
def test_adam_runs_natively_for_large_flat_updates_only():
    big = np.ones(training_ops.NATIVE_ADAM_MIN_SIZE, np.float32)
    small = big[:100]
    assert training_ops.ADAM.select("cpu", (big,) * 4).name == "adam_native"
    assert training_ops.ADAM.select("cpu", (small,) * 4).name != "adam_native"
    assert training_ops.ADAM.select("cpu", (big.astype(np.float16),) * 4).name != "adam_native"


@needs_native
def test_keras_adam_trains_to_the_same_bits_with_and_without_the_native_kernel(monkeypatch):
    def train():
        tf.keras.utils.set_random_seed(5)
        model = tf.keras.Sequential([tf.keras.layers.Dense(128, activation="relu", input_shape=(80,)),
                                     tf.keras.layers.Dense(10)])
        model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                      loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        x = np.random.default_rng(1).standard_normal((64, 80)).astype(np.float32)
        y = np.arange(64) % 10
        for _ in range(3):
            model.train_on_batch(x, y)
        return [w.numpy() for w in model.weights]

    native = train()
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")
    for a, b in zip(native, train()):
        np.testing.assert_array_equal(a, b)


# -- direct convolution with a bias (``_FusedConv2D``'s CPU candidate) -------------------------------

_BIAS_CASES = [  # (n, h, w, c, kh, kw, co, (sh, sw), (dh, dw), padding): strides and dilations differ in h and w
    (2, 9, 7, 3, 3, 3, 4, (2, 1), (1, 2), "SAME"),
    (1, 8, 11, 5, 3, 2, 8, (1, 3), (2, 1), "VALID"),
    (2, 7, 9, 2, 2, 3, 24, (3, 2), (1, 1), "SAME"),     # several channel chunks
    (1, 6, 5, 16, 3, 3, 16, (1, 1), (2, 2), "SAME"),
    (1, 7, 6, 2, 3, 3, 64, (2, 1), (1, 1), "VALID"),
    (1, 5, 11, 33, 3, 3, 96, (1, 1), (1, 1), "SAME"),  # wide kernels: 2 + 2 + 2 vectors per pixel (float32)
    (1, 4, 13, 8, 3, 3, 128, (1, 2), (1, 1), "SAME"),
]


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _BIAS_CASES)
def test_direct_convolution_with_a_bias(cpu, case, dtype):
    """The kernel's bias epilogue: the float64 reference + bias, and the same bits as the kernel without
    a bias followed by a separate BiasAdd (the bias is added to the finished sums); every output channel
    gets its own bias element (a chunk offset slip would shift them)."""
    n, h, w, c, kh, kw, co, (sh, sw), (dh, dw), padding = case
    x = _rng.standard_normal((n, h, w, c)).astype(dtype)
    wt = _rng.standard_normal((kh, kw, c, co)).astype(dtype)
    bias = (10 * _rng.standard_normal(co)).astype(dtype)
    attrs = dict(strides=(1, sh, sw, 1), padding=padding, explicit_paddings=(), data_format="NHWC",
                 dilations=(1, dh, dw, 1))
    assert conv_ops.direct_conv2d_applies(x, wt, bias)
    got = conv_ops.direct_conv2d(x, wt, bias, **attrs)
    plain = conv_ops.direct_conv2d(x, wt, None, **attrs)
    np.testing.assert_array_equal(got, plain + bias)
    if padding == "SAME":
        pads = _same_pads(h, kh, sh, dh), _same_pads(w, kw, sw, dw)
    else:
        pads = (0, 0), (0, 0)
    xp_ = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    oh, ow = got.shape[1:3]
    want = np.zeros((n, oh, ow, co)) + bias.astype(np.float64)
    for i, j in itertools.product(range(kh), range(kw)):
        patch = xp_[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw, :]
        want += patch @ wt[i, j].astype(np.float64)
    assert want.shape == got.shape
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(kh * kw * c) * 10)


@needs_native
@pytest.mark.parametrize("c,co", [(3, 8), (40, 64)])  # one vector, and the wide kernel (4 vectors) on AVX-512
def test_fused_conv2d_with_bias_and_relu_runs_the_native_kernel_on_cpu(cpu, c, co):
    """The ReLU applied in the kernel gives np.maximum's values, NaN kept."""
    from tfcore.ops import fused_ops

    x = _rng.standard_normal((2, 7, 8, c)).astype(np.float32)
    x[0, 0, 0, 0] = np.nan
    wt = _rng.standard_normal((3, 2, c, co)).astype(np.float32)
    bias = _rng.standard_normal(co).astype(np.float32)
    attrs = dict(strides=(1, 2, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 2, 1))
    got = fused_ops.fused_conv2d(tf.constant(x), tf.constant(wt), tf.constant(bias), attrs, relu=True).numpy()
    want = np.maximum(conv_ops.direct_conv2d(x, wt, None, **attrs) + bias, 0)
    assert np.isnan(want).any() and (want == 0).any()
    np.testing.assert_array_equal(got, want)


# -- threads ----------------------------------------------------------------------------------------

_THREADED_CASES = [  # large enough that each of 3 threads gets > 2 MFLOP; ragged batches and sizes
    (11, 23, 17, 8, 4, 4, 16, 1, 1, "SAME"), (9, 40, 39, 3, 3, 3, 32, 2, 2, "SAME"),
    (4, 26, 26, 16, 5, 5, 8, 1, 1, "VALID"), (13, 28, 28, 4, 7, 7, 8, 2, 1, "SAME")]


@pytest.fixture
def threads():
    """Sets the native kernels' thread count for one test, restored after."""
    before = native_cpu.num_threads()
    yield native_cpu.set_num_threads
    native_cpu.set_num_threads(before)


@needs_native
@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("case", _THREADED_CASES)
def test_threaded_direct_convolution_and_filter_gradient_match_float64_references(cpu, threads, case, count):
    """The rows of the forward and the images of the filter gradient split over threads (uneven parts):
    the same values as the float64 reference, the forward's bits those of one thread."""
    n, h, w, c, kh, kw, co, stride, dilation, padding = case
    x = _rng.standard_normal((n, h, w, c)).astype(np.float32)
    wt = _rng.standard_normal((kh, kw, c, co)).astype(np.float32)
    pads = _geometry(case)
    attrs = _conv_attrs(stride, dilation, padding)
    threads(1)
    one = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert native_cpu.last_parts() == 1
    threads(count)
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert native_cpu.last_parts() == count
    np.testing.assert_array_equal(got, one)
    want = _reference_conv(x, wt, stride, dilation, pads)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.sqrt(kh * kw * c))
    dy = _rng.standard_normal(want.shape).astype(np.float32)
    dw = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(cpu, (x, dy), {**attrs, "filter_sizes": (kh, kw, c, co)})
    assert native_cpu.last_parts() == count
    xpad = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    oh, ow = want.shape[1:3]
    dw_want = np.zeros((kh, kw, c, co))
    for i, j in itertools.product(range(kh), range(kw)):
        patch = xpad[:, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                     j * dilation:j * dilation + stride * (ow - 1) + 1:stride, :]
        dw_want[i, j] = patch.reshape(-1, c).T @ dy.reshape(-1, co).astype(np.float64)
    np.testing.assert_allclose(dw, dw_want, rtol=2e-5, atol=2e-5 * np.sqrt(n * oh * ow))


def _direct_kernel(x, wt, bias, attrs):
    """The direct kernel itself (bias and fused ReLU), whatever :func:`conv_ops.direct_conv2d` would pick."""
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, wt.shape[0], wt.shape[1], attrs["strides"], attrs["dilations"],
                                            attrs["padding"], attrs["explicit_paddings"])
    return conv_ops._direct(x, wt, oh, ow, attrs["strides"], attrs["dilations"], ph, pw, bias, relu=True)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", [(32, 16, 16, 32, 5, 64, (2, 2, 2, 2)), (4, 14, 14, 8, 4, 16, (1, 2, 1, 2)),
                                  (2, 8, 8, 64, 3, 128, (1, 1, 1, 1)), (2, 5, 6, 8, 3, 12, (1, 1, 1, 1)),
                                  (1, 4, 4, 8, 3, 8, (4, 0, 0, 5))])  # rows and columns no tap reaches
def test_fused_conv_with_padding_taps_runs_the_phase_kernel_with_bias_and_relu(cpu, case, dtype):
    """Stride-1 convolutions with many taps on the padding run the phase kernel (the padding costs no
    multiply-adds), its bias and ReLU added in the kernel: ``_FusedConv2D`` gives the bits of Conv2D, BiasAdd
    and Relu run apart, and the float64 reference (outputs no input reaches: the bias after the ReLU)."""
    n, h, w, c, k, co, (top, bottom, left, right) = case
    x = tf.constant(_rng.standard_normal((n, h, w, c)).astype(dtype))
    wt = tf.constant(_rng.standard_normal((k, k, c, co)).astype(dtype))
    bias = tf.constant(np.concatenate([[-1.5, -0.0, 0.0], _rng.standard_normal(co - 3)]).astype(dtype))
    explicit = (0, 0, top, bottom, left, right, 0, 0)
    attrs = _conv_attrs(1, 1, "EXPLICIT", explicit)
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, k, k, attrs["strides"], attrs["dilations"], "EXPLICIT", explicit)
    assert conv_ops._phase_forward_pays(x.shape, k, k, attrs["strides"], attrs["dilations"], ph, pw, oh, ow)
    apart = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, wt, 1, [[0, 0], [top, bottom], [left, right], [0, 0]]), bias))
    fused = fused_ops.fused_conv2d(x, wt, bias, attrs, relu=True)
    np.testing.assert_array_equal(fused.numpy(), apart.numpy())
    biased = _reference_conv(x.numpy(), wt.numpy(), 1, 1, ((top, bottom), (left, right))) + bias.numpy()
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fused.numpy(), np.maximum(biased, 0), rtol=tol, atol=tol * np.sqrt(k * k * c))
    np.testing.assert_allclose(fused_ops.fused_conv2d(x, wt, bias, attrs, relu=False).numpy(), biased, rtol=tol,
                               atol=tol * np.sqrt(k * k * c))


@needs_native
@pytest.mark.parametrize("co", [16, 64])  # one vector per pixel; several (AVX-512: the wide kernels)
@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("k,stride,dilation,padding,explicit", [
    (4, 1, 1, "SAME", ()), (3, 2, 1, "SAME", ()), (3, 1, 2, "EXPLICIT", (0, 0, 2, 0, 1, 3, 0, 0)),
    (5, 1, 1, "EXPLICIT", (0, 0, 0, 4, 4, 0, 0, 0))])
def test_direct_convolution_pads_in_the_kernel_the_same_way_per_image_and_per_batch(cpu, threads, co, count, k,
                                                                                  stride, dilation, padding,
                                                                                  explicit):
    """The direct kernels pad the unpadded input themselves: an image at a time in a thread's buffer when the
    batch has images enough for the threads (8 here), one padded copy with the rows split otherwise (each
    image alone). Both give the same bits (every sum has the same terms in the same order) and the float64
    reference; a bias and the fused ReLU take the same path; the filter gradient pads per image too."""
    x = _rng.standard_normal((8, 11, 9, 8)).astype(np.float32)
    wt = _rng.standard_normal((k, k, 8, co)).astype(np.float32)
    bias = _rng.standard_normal(co).astype(np.float32)
    attrs = _conv_attrs(stride, dilation, padding, explicit)
    threads(count)
    batch = _direct_kernel(x, wt, bias, attrs)
    per_image = np.concatenate([_direct_kernel(x[b:b + 1], wt, bias, attrs) for b in range(8)])
    np.testing.assert_array_equal(batch, per_image)
    if padding == "SAME":
        pads = _same_pads(11, k, stride, dilation), _same_pads(9, k, stride, dilation)
    else:
        pads = (explicit[2], explicit[3]), (explicit[4], explicit[5])
    want = np.maximum(_reference_conv(x, wt, stride, dilation, pads) + bias, 0)
    np.testing.assert_allclose(batch, want, rtol=2e-5, atol=2e-5 * np.sqrt(k * k * 8))
    # the same bits as the kernel on an input padded beforehand (no padding left for it to do), forward and
    # filter gradient (whose sums go on from image to image in memory: the same additions in the same order)
    xpad = np.pad(x, ((0, 0), pads[0], pads[1], (0, 0)))
    valid = _conv_attrs(stride, dilation, "VALID")
    np.testing.assert_array_equal(batch, _direct_kernel(xpad, wt, bias, valid))
    dy = _rng.standard_normal(batch.shape).astype(np.float32)
    dw = conv_ops._direct_filter_grad(x, dy, k, k, attrs["strides"], attrs["dilations"], *pads)
    np.testing.assert_array_equal(
        dw, conv_ops._direct_filter_grad(xpad, dy, k, k, attrs["strides"], attrs["dilations"], (0, 0), (0, 0)))


def _reference_filter_grad(x, dy, kh, kw, stride, dilation, pads):
    """float64 Conv2DBackpropFilter by explicit loops over taps."""
    xpad = np.pad(x.astype(np.float64), ((0, 0), pads[0], pads[1], (0, 0)))
    _, oh, ow, co = dy.shape
    c = x.shape[3]
    dw = np.zeros((kh, kw, c, co))
    for i, j in itertools.product(range(kh), range(kw)):
        patch = xpad[:, i * dilation:i * dilation + stride * (oh - 1) + 1:stride,
                     j * dilation:j * dilation + stride * (ow - 1) + 1:stride, :]
        dw[i, j] = patch.reshape(-1, c).T @ dy.reshape(-1, co).astype(np.float64)
    return dw


@needs_native
@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("n,h,w,c,k,co,stride,dilation,padding,explicit", [  # > 6 MFLOP: 3 threads run
    (45, 8, 8, 8, 3, 16, 1, 1, "SAME", ()),       # ~7 KB images: 4 a tile, several tiles per thread chunk
    (29, 4, 5, 32, 3, 64, 1, 1, "SAME", ()),      # the wide kernels (AVX-512 builds), padded a tile at a time
    (23, 12, 14, 32, 2, 32, 2, 1, "VALID", ()),   # wide, no padding: tiles of the input itself
    (31, 20, 14, 3, 4, 8, 1, 1, "SAME", ()),      # odd input channels, even kernel: asymmetric pads
    (25, 12, 12, 5, 3, 24, 1, 2, "EXPLICIT", (0, 0, 2, 0, 1, 3, 0, 0)),  # dilated, explicit, 3 vectors of 8
    (41, 16, 16, 16, 3, 8, 2, 2, "SAME", ()),     # 8 outputs (half a vector on AVX-512), 2 groups of 8 a tap
    (1, 9, 8, 8, 5, 16, 1, 1, "SAME", ())])       # batch 1: one chunk whatever the threads; 200 = 8*24 + 8 rows
def test_filter_gradient_in_tiles_of_small_images_matches_float64_references(cpu, threads, count, n, h, w, c, k,
                                                                             co, stride, dilation, padding,
                                                                             explicit):
    """The filter gradient's kernel runs all its passes over a tile of a few images before the next tile
    (the sums carried in dw between tiles) and splits the batch into up to 8 chunks per thread when the
    filter is small: ragged batches give uneven tiles and chunks. With a multiple of 8 input channels and
    one register a filter row (AVX-512), its blocks are 3 taps' groups of 8 channels, the last rows a group
    at a time. Every case matches the float64 reference,
    gives the same bits on a second call and on an input padded beforehand (the rounding depends on the
    thread count only)."""
    x = _rng.standard_normal((n, h, w, c)).astype(np.float32)
    attrs = _conv_attrs(stride, dilation, padding, explicit)
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, k, k, attrs["strides"], attrs["dilations"], padding, explicit)
    dy = _rng.standard_normal((n, oh, ow, co)).astype(np.float32)
    threads(count)
    dw = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(cpu, (x, dy), {**attrs, "filter_sizes": (k, k, c, co)})
    assert kernel_for("Conv2DBackpropFilter", [x, dy], {**attrs, "filter_sizes": (k, k, c, co)}).name == \
        "conv2d_backprop_filter_direct_native"
    assert native_cpu.last_parts() == min(count, n)
    want = _reference_filter_grad(x, dy, k, k, stride, dilation, (ph, pw))
    np.testing.assert_allclose(dw, want, rtol=2e-5, atol=2e-5 * np.sqrt(n * oh * ow))
    again = conv_ops._direct_filter_grad(x, dy, k, k, attrs["strides"], attrs["dilations"], ph, pw)
    np.testing.assert_array_equal(dw, again)
    xpad = np.pad(x, ((0, 0), ph, pw, (0, 0)))
    np.testing.assert_array_equal(
        dw, conv_ops._direct_filter_grad(xpad, dy, k, k, attrs["strides"], attrs["dilations"], (0, 0), (0, 0)))


@needs_native
def test_small_convolutions_stay_on_one_thread(cpu, threads):
    threads(4)
    x = np.ones((1, 5, 5, 8), np.float32)
    conv_ops.CONV2D.run_kernel(cpu, (x, np.ones((3, 3, 8, 8), np.float32)), _conv_attrs(1, 1, "SAME"))
    assert native_cpu.last_parts() == 1  # 29 kFLOP: waking a pool worker would cost more than it saves


_THREADS_PROGRAM = """
import sys
import numpy as np
import tfcore as tf
from tfcore.backend import native_cpu
tf.config.threading.set_intra_op_parallelism_threads(int(sys.argv[1]))
with tf.device("/CPU:0"):  # also under TFCORE_EMULATED_GPUS
    x = tf.constant(np.ones((16, 28, 28, 8), np.float32))
    tf.nn.conv2d(x, tf.constant(np.ones((3, 3, 8, 16), np.float32)), 1, "SAME")
print(native_cpu.num_threads(), native_cpu.last_parts())
"""


@needs_native
@pytest.mark.parametrize("count", [1, 3])
def test_intra_op_threads_reach_the_native_kernels(count):
    """tf.config.threading.set_intra_op_parallelism_threads (before initialisation, as TF allows) sets how
    many threads a native convolution runs on (a fresh process: this one's devices are initialised)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _THREADS_PROGRAM, str(count)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(count), str(count)]


def _dgrad_float64(w, dy, sizes, strides, dilations, ph, pw):
    """Conv2DBackpropInput in float64 by its definition: each tap's dy @ w[i, j].T scattered (added) onto the
    padded input grid at the tap's strided positions, then the padding cut off."""
    n, h, wd, c = sizes
    kh, kw = w.shape[:2]
    (sh, sw), (dh, dw) = strides, dilations
    oh, ow = dy.shape[1:3]
    dxpad = np.zeros((n, ph[0] + h + ph[1] + kh * dh + sh, pw[0] + wd + pw[1] + kw * dw + sw, c))
    for i in range(kh):
        for j in range(kw):
            tap = np.einsum("nyxk,ck->nyxc", dy.astype(np.float64), w[i, j].astype(np.float64))
            dxpad[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw] += tap
    return dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + wd]


_DGRAD_CASES = [  # (x_shape, kh, kw, co, strides, dilations, padding, explicit paddings)
    ((3, 13, 11, 8), 7, 7, 16, (2, 2), (1, 1), "SAME", ()),  # ragged: 13 + pads - 7 not a multiple of 2
    ((2, 9, 10, 4), 4, 4, 16, (2, 2), (1, 1), "SAME", ()),  # even kernel: asymmetric pads
    ((2, 12, 9, 8), 3, 3, 16, (2, 1), (2, 2), "SAME", ()), ((3, 11, 12, 16), 3, 3, 16, (1, 2), (1, 1), "VALID", ()),
    ((2, 10, 10, 4), 2, 2, 16, (2, 2), (1, 1), "VALID", ()), ((1, 5, 7, 8), 5, 5, 16, (2, 2), (1, 1), "SAME", ()),
    ((2, 14, 13, 3), 5, 3, 8, (3, 3), (1, 1), "SAME", ()),  # stride 3, 3 input channels (run as 4)
    ((1, 6, 6, 8), 3, 3, 8, (3, 3), (1, 1), "VALID", ()),  # stride = kernel: every tap in one phase
    ((2, 7, 7, 8), 1, 1, 16, (2, 2), (1, 1), "VALID", ()),  # stride > kernel: phases no tap reaches (zeros)
    ((1, 11, 13, 5), 5, 3, 12, (3, 2), (2, 1), "SAME", ()),  # 5 channels (run as 8), dilation with stride
    ((2, 16, 16, 32), 5, 5, 64, (1, 1), (1, 1), "VALID", ()),  # the wide chunks (NV > 1); end columns in blocks
    ((2, 21, 19, 1), 7, 7, 8, (2, 2), (1, 1), "SAME", ()),  # one input channel (run as 4)
    ((1, 8, 8, 8), 3, 3, 4, (2, 2), (1, 1), "EXPLICIT", (0, 0, 3, 1, 0, 4, 0, 0)),  # a pad beyond the kernel
    ((2, 9, 9, 8), 3, 3, 16, (2, 2), (1, 1), "EXPLICIT", (0, 0, 5, 5, 5, 5, 0, 0)),  # taller pads than the kernel
    ((2, 30, 31, 8), 5, 5, 16, (1, 1), (1, 1), "SAME", ()), ((1, 4, 4, 3), 3, 3, 1, (1, 1), (1, 1), "SAME", ())]


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _DGRAD_CASES)
def test_input_gradient_runs_the_phase_kernel_and_matches_float64(cpu, case, dtype):
    """Conv2DBackpropInput by the native phase kernel (each stride phase sums only its own taps, no zero-spread
    or zero-padded dy) against its float64 definition: ragged sizes, strides 1-3 on one or both axes,
    dilations, even kernels, SAME (asymmetric), VALID and explicit paddings, odd channel counts, batch 1."""
    x_shape, kh, kw, co, strides, dilations, padding, explicit = case
    wt = _rng.standard_normal((kh, kw, x_shape[3], co)).astype(dtype)
    attrs = dict(strides=(1, *strides, 1), padding=padding, explicit_paddings=explicit, data_format="NHWC",
                 dilations=(1, *dilations, 1), input_sizes=x_shape)
    oh, ow, ph, pw = conv_ops.conv_geometry(x_shape, kh, kw, attrs["strides"], attrs["dilations"], padding, explicit)
    dy = _rng.standard_normal((x_shape[0], oh, ow, co)).astype(dtype)
    assert conv_ops.CONV2D_BACKPROP_INPUT.select("cpu", (wt, dy), attrs).name == "conv2d_backprop_input_direct_native"
    got = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs)
    want = _dgrad_float64(wt, dy, x_shape, strides, dilations, ph, pw)
    assert got.shape == x_shape and got.dtype == dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(kh * kw * co))


@needs_native
@pytest.mark.parametrize("x_shape,strides", [((1, 40, 37, 16), (1, 1)), ((1, 61, 60, 16), (2, 2))])
def test_input_gradient_split_over_row_bands_matches_one_thread(cpu, x_shape, strides):
    """One image: the phase kernel splits its rows into bands over the threads (a band's middle rows shorter
    than the column blocks need, bands across phases); every pixel's sum is the same on any split."""
    wt = _rng.standard_normal((5, 5, x_shape[3], 16)).astype(np.float32)
    attrs = dict(_conv_attrs(1, 1, "SAME"), strides=(1, *strides, 1), input_sizes=x_shape)
    oh, ow, ph, pw = conv_ops.conv_geometry(x_shape, 5, 5, attrs["strides"], attrs["dilations"], "SAME", ())
    dy = _rng.standard_normal((1, oh, ow, 16)).astype(np.float32)
    threads = native_cpu.num_threads()
    try:
        native_cpu.set_num_threads(1)
        one = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs)
        native_cpu.set_num_threads(3)
        split = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs)
        assert native_cpu.last_parts() == 3
    finally:
        native_cpu.set_num_threads(threads)
    np.testing.assert_array_equal(split, one)
    np.testing.assert_allclose(one, _dgrad_float64(wt, dy, x_shape, strides, (1, 1), ph, pw), rtol=2e-5,
                               atol=2e-4)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("x_shape,k,co,dilation,padding,explicit,phases", [
    ((2, 8, 8, 64), 3, 128, 1, "SAME", (), True),  # 16% of the taps on the padding
    ((3, 14, 13, 8), 4, 16, 1, "SAME", (), True),  # asymmetric pads
    ((2, 9, 11, 12), 3, 3, 2, "SAME", (), True),  # dilation; 3 output channels (run as 4)
    ((1, 7, 9, 8), 3, 8, 1, "EXPLICIT", (0, 0, 4, 1, 0, 3, 0, 0), True),  # a pad wider than the kernel
    ((2, 28, 28, 8), 3, 16, 1, "SAME", (), False),  # 5% padding: the forward kernel
    ((2, 12, 12, 32), 5, 32, 1, "VALID", (), False)])  # no padding
def test_padded_stride1_forward_runs_the_phase_kernel_where_it_saves(cpu, monkeypatch, x_shape, k, co, dilation,
                                                                     padding, explicit, phases, dtype):
    """Stride-1 Conv2D with enough of its taps on the padding runs the input gradient's kernel with the
    flipped filter (it skips those taps); less padded ones the forward kernel. Both give the float64 values.
    (The Winograd kernel, which takes float32 3x3 convolutions of 16 or more channels first, is off here.)"""
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    calls = []
    real = conv_ops._phase_correlation
    monkeypatch.setattr(conv_ops, "_phase_correlation", lambda *a: calls.append(1) or real(*a))
    x = _rng.standard_normal(x_shape).astype(dtype)
    wt = _rng.standard_normal((k, k, x_shape[3], co)).astype(dtype)
    attrs = _conv_attrs(1, dilation, padding, explicit)
    ph, pw = ((_same_pads(x_shape[1], k, 1, dilation), _same_pads(x_shape[2], k, 1, dilation)) if padding == "SAME"
              else ((0, 0), (0, 0)) if padding == "VALID" else (explicit[2:4], explicit[4:6]))
    assert conv_ops.CONV2D.select("cpu", (x, wt), attrs).name == "conv2d_direct_native"
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert bool(calls) is phases
    want = _reference_conv(x, wt, 1, dilation, (ph, pw))
    assert got.shape == want.shape and got.dtype == dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k * k * x_shape[3]))


@needs_native
def test_input_gradient_of_a_wide_stride_takes_the_phase_kernel():
    """A 3x3 stride-3 input gradient (each dx pixel reached by one tap): once declined (a zero-spread dy was 9x
    the work), the phase kernel takes it with no waste."""
    w, dy = np.ones((3, 3, 8, 8), np.float32), np.ones((1, 2, 2, 8), np.float32)
    attrs = dict(_conv_attrs(1, 1, "VALID"), strides=(1, 3, 3, 1), input_sizes=(1, 6, 6, 8))
    assert conv_ops.CONV2D_BACKPROP_INPUT.select("cpu", (w, dy), attrs).name == "conv2d_backprop_input_direct_native"


# -- depthwise convolution, multiplier 1 ----------------------------------------------------------------

_DEPTHWISE_CASES = [  # (n, h, w, c, kh, kw, (sh, sw), (dh, dw), padding): channel counts of every vector width
    (2, 9, 8, 32, 3, 3, (1, 1), (1, 1), "SAME"), (1, 7, 9, 3, 3, 3, (2, 1), (1, 1), "SAME"),
    (3, 8, 7, 6, 4, 4, (1, 1), (1, 1), "SAME"), (1, 9, 9, 5, 3, 2, (1, 2), (2, 1), "VALID"),
    (2, 6, 6, 48, 3, 3, (2, 2), (1, 1), "VALID"), (1, 5, 7, 1, 5, 5, (1, 1), (1, 1), "SAME"),
    (2, 11, 10, 16, 3, 3, (2, 2), (2, 2), "SAME"),
    # rows of 8-pixel blocks and a rest (21 = 8 + 8 + 5), 1x7 taps, 80 channels (channel-vector groups and a rest)
    (1, 6, 21, 80, 1, 7, (1, 1), (1, 1), "SAME"),
    (2, 7, 13, 24, 6, 6, (1, 1), (1, 1), "SAME"),     # 6 taps wide: the filter gradient's generic loop
    (1, 5, 9, 7, 1, 1, (1, 1), (1, 1), "VALID"), (3, 9, 17, 32, 2, 5, (1, 3), (2, 1), "SAME"),
    # explicit padding, wider than the kernel on one side (the input gradient's scatter) and not
    (2, 8, 11, 16, 3, 3, (1, 1), (1, 1), (0, 0, 2, 0, 1, 3, 0, 0)),
    (1, 7, 12, 5, 3, 4, (1, 1), (1, 2), (0, 0, 1, 1, 0, 2, 0, 0)),
    # strided input gradients wide enough for 8-pixel blocks of one column phase, and borders of each phase
    (2, 10, 40, 16, 3, 3, (2, 2), (1, 1), "SAME"), (1, 9, 37, 8, 4, 3, (2, 3), (1, 2), "VALID"),
    (2, 6, 35, 32, 5, 5, (3, 2), (1, 1), (0, 0, 4, 1, 0, 5, 0, 0))]


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _DEPTHWISE_CASES)
def test_native_depthwise_convolution_and_gradients_match_float64_references(cpu, case, dtype):
    """The native depthwise candidates (forward, input and filter gradient) against the same convolution done
    channel by channel in float64, and the ops choose them for these arrays."""
    n, h, w, c, kh, kw, (sh, sw), (dh, dw), padding = case
    explicit = ()
    if not isinstance(padding, str):
        padding, explicit = "EXPLICIT", padding
    x = _rng.standard_normal((n, h, w, c)).astype(dtype)
    wt = _rng.standard_normal((kh, kw, c, 1)).astype(dtype)
    attrs = dict(strides=(1, sh, sw, 1), padding=padding, explicit_paddings=explicit, data_format="NHWC",
                 dilations=(1, dh, dw, 1))
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, kh, kw, attrs["strides"], attrs["dilations"], padding,
                                            explicit)
    assert kernel_for("DepthwiseConv2dNative", [x, wt], attrs).name == "depthwise_conv2d_native"
    xpad = np.pad(x.astype(np.float64), ((0, 0), ph, pw, (0, 0)))
    want = np.zeros((n, oh, ow, c))
    taps = {}
    for i, j in itertools.product(range(kh), range(kw)):
        taps[i, j] = (slice(None), slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                      slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
        want += xpad[taps[i, j]] * wt[i, j, :, 0].astype(np.float64)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    got = conv_ops._depthwise_conv2d_native(cpu, x, wt, **attrs)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * kh * kw)
    dy = _rng.standard_normal(want.shape).astype(dtype)
    dxpad = np.zeros(xpad.shape)
    dw_want = np.zeros((kh, kw, c, 1))
    for (i, j), sl in taps.items():
        dxpad[sl] += dy * wt[i, j, :, 0].astype(np.float64)
        dw_want[i, j, :, 0] = (xpad[sl] * dy).reshape(-1, c).sum(axis=0)
    dx_want = dxpad[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w]
    dx_attrs = dict(attrs, input_sizes=x.shape)
    assert kernel_for("DepthwiseConv2dNativeBackpropInput", [wt, dy], dx_attrs).name == \
        "depthwise_backprop_input_native"
    dx = conv_ops._depthwise_backprop_input_native(cpu, wt, dy, **dx_attrs)
    np.testing.assert_allclose(dx, dx_want, rtol=tol, atol=tol * kh * kw)
    dw_attrs = dict(attrs, filter_sizes=wt.shape)
    assert kernel_for("DepthwiseConv2dNativeBackpropFilter", [x, dy], dw_attrs).name == \
        "depthwise_backprop_filter_native"
    dwt = conv_ops._depthwise_backprop_filter_native(cpu, x, dy, **dw_attrs)
    np.testing.assert_allclose(dwt, dw_want, rtol=tol, atol=tol * np.sqrt(n * oh * ow))


@needs_native
@pytest.mark.parametrize("n,padding", [(9, "SAME"), (3, "SAME"), (1, "SAME"), (9, "VALID")])
def test_threaded_depthwise_gives_the_one_thread_results(cpu, threads, n, padding):
    """Images padded one at a time in each thread's buffer (9 images) or one padded copy with the rows split
    (3, 1): the forward and the stride-1 input gradient give the bits of one thread; the filter gradient
    (partial sums per chunk of images) equal to rounding."""
    x = _rng.standard_normal((n, 96, 75, 48)).astype(np.float32)  # over 2 MFLOP per thread in one image
    wt = _rng.standard_normal((3, 3, 48, 1)).astype(np.float32)
    attrs = dict(strides=(1, 1, 1, 1), padding=padding, explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 1, 1))
    dy = _rng.standard_normal(conv_ops._depthwise_conv2d(cpu, x, wt, **attrs).shape).astype(np.float32)

    def run():
        y = conv_ops._depthwise_conv2d_native(cpu, x, wt, **attrs)
        parts = native_cpu.last_parts()
        return (y, conv_ops._depthwise_backprop_input_native(cpu, wt, dy, input_sizes=x.shape, **attrs),
                conv_ops._depthwise_backprop_filter_native(cpu, x, dy, filter_sizes=wt.shape, **attrs), parts)

    threads(1)
    one = run()
    for count in (2, 3):
        threads(count)
        got = run()
        assert got[3] == count  # the forward's rows or images split
        np.testing.assert_array_equal(got[0], one[0])
        np.testing.assert_array_equal(got[1], one[1])
        np.testing.assert_allclose(got[2], one[2], rtol=2e-5, atol=2e-5 * np.sqrt(dy[..., 0].size))
    np.testing.assert_allclose(one[0], conv_ops._depthwise_conv2d(cpu, x, wt, **attrs), rtol=2e-5, atol=2e-5)


@needs_native
def test_depthwise_keeps_nan_and_infinity_as_the_padded_numpy_path(cpu):
    """Zero padding times an infinite filter tap or dy is NaN in the NumPy candidates (0 * inf): the kernels,
    which pad in their own buffers or read zeros for the padding, give the same non-finite outputs."""
    x = _rng.standard_normal((2, 6, 7, 16)).astype(np.float32)
    x[0, 2, 3, 5] = np.nan
    wt = _rng.standard_normal((3, 3, 16, 1)).astype(np.float32)
    wt[0, 0, 1, 0] = np.inf
    attrs = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 1, 1))
    with np.errstate(invalid="ignore"):
        want = conv_ops._depthwise_conv2d(cpu, x, wt, **attrs)
    got = conv_ops._depthwise_conv2d_native(cpu, x, wt, **attrs)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    assert np.isnan(got[:, 0, :, 1]).all()  # the top row's first tap is padding: 0 * inf
    # the filter gradient reads the padding without copying it: 0 * an infinite dy is NaN there too
    dy = _rng.standard_normal(want.shape).astype(np.float32)
    dy[1, 0, 0, 2] = np.inf   # a corner pixel: taps of row 0 and column 0 read padding
    dy[0, 3, 6, 4] = -np.inf  # the last column: taps of column 2 read padding
    w_attrs = dict(attrs, filter_sizes=wt.shape)
    with np.errstate(invalid="ignore"):
        want_dw = conv_ops._depthwise_backprop_filter(cpu, x, dy, **w_attrs)
    got_dw = conv_ops._depthwise_backprop_filter_native(cpu, x, dy, **w_attrs)
    np.testing.assert_array_equal(np.isnan(got_dw), np.isnan(want_dw))
    assert np.isnan(got_dw[0, :, 2, 0]).all() and np.isnan(got_dw[:, 2, 4, 0]).all()


@needs_native
def test_depthwise_multipliers_above_one_and_other_dtypes_keep_the_numpy_path():
    attrs = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 1, 1))
    x = np.ones((1, 4, 4, 2), np.float32)
    assert kernel_for("DepthwiseConv2dNative", [x, np.ones((3, 3, 2, 2), np.float32)], attrs).name != \
        "depthwise_conv2d_native"
    assert kernel_for("DepthwiseConv2dNative", [x.astype(np.float16), np.ones((3, 3, 2, 1), np.float16)],
                      attrs).name != "depthwise_conv2d_native"
    assert kernel_for("DepthwiseConv2dNative", [x[:, ::2], np.ones((3, 3, 2, 1), np.float32)],
                      attrs).name == "depthwise_conv2d_native"  # copied contiguous
@needs_native
@pytest.mark.parametrize("count", [2, 3])
def test_threaded_max_pool_and_gradient_equal_the_generic_numpy_kernels(cpu, threads, count):
    """Pooling splits its images over the threads (uneven parts; overlapping 3x3 stride-2 windows, so the
    gradient adds into shared pixels of one image): the NumPy kernels' values, NaN included."""
    attrs = _pool_attrs(3, 2, "SAME")
    x = _pool_inputs((13, 60, 57, 16), np.float32, True)
    threads(count)
    pooled = pool_ops._max_pool_native(cpu, x, **attrs)
    got = pooled.output
    assert native_cpu.last_parts() == count
    np.testing.assert_array_equal(got, pool_ops._max_pool(cpu, x, **attrs))
    dy = _rng.standard_normal(got.shape).astype(np.float32)
    dx = pool_ops._max_pool_grad_native(cpu, x, got, dy, **attrs)
    assert native_cpu.last_parts() == count
    np.testing.assert_array_equal(pool_ops._max_pool_grad_native(cpu, x, got, dy, **attrs,
                                                                 argmax=pooled.saved["argmax"]), dx)
    threads(1)
    np.testing.assert_array_equal(dx, pool_ops._max_pool_grad_native(cpu, x, got, dy, **attrs))
    # overlapping windows add window by window here, tap by tap in NumPy: equal to rounding
    np.testing.assert_allclose(dx, pool_ops._max_pool_grad(cpu, x, got, dy, **attrs), rtol=1e-6, atol=1e-6)


@needs_native
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_native_relu_grad_is_tfs_formula_split_over_threads(threads, dtype):
    """ReluGrad's native candidate takes large gradients: ``g * (y > 0)`` bit for bit (inf * 0 is NaN, as
    in TF), over several threads; small ones stay on NumPy."""
    y = _rng.standard_normal((64, 28, 28, 16)).astype(dtype)
    g = _rng.standard_normal(y.shape).astype(dtype)
    y[0, 0, 0, :3] = [0.0, -0.0, np.nan]
    g[0, 0, 0, 3:5] = np.inf
    y[0, 0, 0, 3:5] = [-1.0, 1.0]
    threads(2)
    with np.errstate(invalid="ignore"):  # inf * 0
        want, want_tape = g * (y > 0), g * (np.maximum(y, 0) > 0)
    assert kernel_for("ReluGrad", [g, y], {}).name == "relu_grad_native"
    got = nn_ops._relu_grad_native(None, g, y)
    assert native_cpu.last_parts() == 2
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[0, 0, 0, 3]) and got[0, 0, 0, 4] == np.inf
    assert kernel_for("ReluGrad", [g[:1, :2], y[:1, :2]], {}).name != "relu_grad_native"
    x = tf.constant(y)
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = tf.nn.relu(x)
    via_tape = tape.gradient(out, x, output_gradients=tf.constant(g)).numpy()  # ReluGrad(g, relu(y))
    np.testing.assert_array_equal(via_tape, want_tape)
