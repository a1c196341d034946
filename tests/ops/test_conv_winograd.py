"""The CPU Winograd convolution (``tfcore/ops/conv_winograd.py``, ``conv2d_winograd`` in ``kernels/cpu_kernels.cc``).

F(2x2, 3x3) and F(2x2, 5x5) for stride-1, undilated float32 Conv2D, ``_FusedConv2D`` (bias, ReLU) and
Conv2DBackpropInput of 16 or more channels (multiples of 8), against float64 references: the Toom-Cook
matrices, ragged shapes (outputs not a multiple of the 2x2 tile), both of ``for_padded_rows``' branches, SAME /
VALID / EXPLICIT padding, threads, the direct-kernel fallback on non-finite outputs, the
``TF_ENABLE_WINOGRAD_NONFUSED`` switch and the convolutions it must not take, and a Keras model trained with it
on and off. Every test that expects the Winograd kernel asserts that it ran (:func:`winograd_calls`).
"""

import re
from pathlib import Path

import numpy as np
import pytest

import tfcore as tf
from tests.ops.test_native_cpu import (  # noqa: F401  (threads: a fixture)
    _conv_attrs,
    _dgrad_float64,
    _reference_conv,
    _same_pads,
    needs_native,
    threads,
)
from tfcore.backend import native_cpu
from tfcore.ops import conv_ops, conv_winograd, fused_ops

pytestmark = [pytest.mark.usefixtures("on_cpu"), needs_native]
_rng = np.random.default_rng(28)

# F(2x2, 5x5)'s bound on the largest error relative to the largest output (float32 against float64). Measured
# over _CONV_CASES' 5x5 cases, 5 seeds each (AVX-512 build): 1.3e-6 to 7.4e-6, median 2.6e-6 (the direct
# kernel on the same: 4e-7 to 2.4e-6, median 8.6e-7). F(2x2, 3x3) keeps the direct kernel's elementwise
# tolerance: 1.1e-7 to 5.5e-7 of the largest output, median 2.1e-7 (the direct kernel: median 4.8e-7).
_F2X2_5X5_BOUND = 2e-5


@pytest.fixture
def winograd_calls(monkeypatch):
    """Records each call of ``conv_winograd.winograd_conv2d`` (its arguments and whether it returned an output
    or None, the fallback to the direct kernel) and returns the real result; ``TF_ENABLE_WINOGRAD_NONFUSED``
    unset (Winograd on), and Winograd chosen whatever share of the taps falls on the padding (the small ragged
    shapes here are mostly padding, which otherwise sends them to the phase kernel: see
    ``test_heavily_padded_convolutions_run_the_phase_kernel``)."""
    monkeypatch.delenv("TF_ENABLE_WINOGRAD_NONFUSED", raising=False)
    monkeypatch.setattr(conv_ops, "_WINOGRAD_MAX_PADDING", 1.0)
    calls = []
    real = conv_winograd.winograd_conv2d

    def recording(*args, **kwargs):
        out = real(*args, **kwargs)
        calls.append({"x": args[0].shape, "w": args[1].shape, "args": args, "ran": out is not None})
        return out

    monkeypatch.setattr(conv_winograd, "winograd_conv2d", recording)
    return calls


def _pads(h, w, k, padding, explicit):
    """(top, bottom), (left, right) computed here, not by conv_geometry."""
    if padding == "SAME":
        return _same_pads(h, k, 1, 1), _same_pads(w, k, 1, 1)
    if padding == "VALID":
        return (0, 0), (0, 0)
    return tuple(explicit[2:4]), tuple(explicit[4:6])


def _assert_winograd_accuracy(got, want, k, terms):
    """F(2x2, 3x3): the direct kernel's elementwise tolerance; F(2x2, 5x5): ``_F2X2_5X5_BOUND`` of the largest
    output (its transforms' rounding grows with the largest values of a tile, not each output's own)."""
    assert got.shape == want.shape and got.dtype == np.float32
    if k == 3:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.sqrt(terms))
    else:
        err = np.abs(got - want).max() / np.abs(want).max()
        assert err < _F2X2_5X5_BOUND, f"F(2x2, 5x5) error {err:.2e} of the largest output"


def _expect_winograd(x, w):
    """Whether Conv2D of these arrays reaches the Winograd kernel: it runs inside the direct candidate, which
    declines output-channel counts over 16 with sums over 256 terms unless the build has the wide kernels
    (AVX-512). On AVX-512 builds every case here takes it."""
    expected = conv_ops._direct_applies(x, w)
    assert expected or not native_cpu.library().wide_direct_channels(np.float32)
    return expected


# -- the matrices --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("r", [3, 5])
def test_the_matrices_compute_the_1d_and_2d_correlations_in_float64(r):
    """y = AT ((G g) * (BT d)) is the correlation y[i] = sum_k d[i + k] g[k] (F(2, r)), and its nesting the
    2-D tile Y = AT ((G g G') * (BT d BT')) AT'."""
    bt, at, g_mat = conv_winograd.winograd_matrices(r)
    alpha = r + 1
    assert bt.shape == (alpha, alpha) and at.shape == (2, alpha) and g_mat.shape == (alpha, r)
    assert all(m.dtype == np.float64 for m in (bt, at, g_mat))
    rng = np.random.default_rng(r)
    for _ in range(5):
        d, g = rng.standard_normal(alpha), rng.standard_normal(r)
        want = np.array([sum(d[i + k] * g[k] for k in range(r)) for i in range(2)])
        np.testing.assert_allclose(at @ ((g_mat @ g) * (bt @ d)), want, rtol=1e-12, atol=1e-12)
        d2, g2 = rng.standard_normal((alpha, alpha)), rng.standard_normal((r, r))
        want2 = np.array([[np.sum(d2[i:i + r, j:j + r] * g2) for j in range(2)] for i in range(2)])
        got2 = at @ ((g_mat @ g2 @ g_mat.T) * (bt @ d2 @ bt.T)) @ at.T
        np.testing.assert_allclose(got2, want2, rtol=1e-12, atol=1e-12)


def test_bt_holds_the_small_integers_of_the_native_kernel():
    bt3, at3, _ = conv_winograd.winograd_matrices(3)
    bt5, at5, _ = conv_winograd.winograd_matrices(5)
    for bt in (bt3, bt5):
        np.testing.assert_array_equal(bt, np.round(bt))
    np.testing.assert_array_equal(bt3, [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, -1, 0, 1]])
    np.testing.assert_array_equal(bt5[0], [1, 0, -5, 0, 4, 0])
    np.testing.assert_array_equal(bt5[3], [0, 1, 2, -1, -2, 0])
    np.testing.assert_array_equal(at5[1], [0, 1, -1, 0.5, -0.5, 1])
    assert conv_winograd.winograd_matrices(3) is conv_winograd.winograd_matrices(3)  # cached


def _winograd_tiles_in_the_source():
    """``{alpha: (BT, AT)}`` as written in ``kernels/cpu_kernels.cc``'s ``WinogradTiles`` specialisations."""
    source = (Path(conv_ops.__file__).resolve().parents[2] / "kernels" / "cpu_kernels.cc").read_text()
    tiles = {}
    for alpha, body in re.findall(r"struct WinogradTiles<(\d+)>\s*\{(.*?)\n\};", source, re.S):
        found = {}
        for name, values in re.findall(r"\b(BT|AT)\[\d+\]\[\d+\]\s*=\s*\{(.*?)\};", body, re.S):
            rows = re.findall(r"\{([^{}]*)\}", values)
            found[name] = np.array([[float(v.strip().rstrip("f")) for v in row.split(",")] for row in rows])
        tiles[int(alpha)] = found["BT"], found["AT"]
    return tiles


def test_the_native_kernels_constants_are_winograd_matrices():
    """The C++ kernel's BT and AT and the Python G (passed to it) must be one F(2, r): a drift in either
    breaks every output."""
    tiles = _winograd_tiles_in_the_source()
    assert sorted(tiles) == [4, 6]
    for r in (3, 5):
        bt, at, _ = conv_winograd.winograd_matrices(r)
        np.testing.assert_array_equal(tiles[r + 1][0], bt)
        np.testing.assert_array_equal(tiles[r + 1][1], at)


# -- Conv2D --------------------------------------------------------------------------------------------------

_CONV_CASES = [  # (n, h, w, c, co, k, padding, explicit): odd and even sizes, batch 1 (rows split over one
    # padded copy) and batch 5 (each image padded in a thread's buffer), VALID with even outputs (no copy)
    (1, 7, 9, 16, 16, 3, "SAME", ()), (5, 8, 6, 24, 32, 3, "SAME", ()), (1, 10, 11, 32, 64, 3, "VALID", ()),
    (2, 9, 9, 64, 128, 3, "EXPLICIT", (0, 0, 0, 2, 1, 0, 0, 0)), (3, 12, 12, 16, 24, 3, "VALID", ()),
    (1, 9, 8, 128, 16, 3, "SAME", ()), (1, 1, 1, 16, 16, 3, "SAME", ()),
    (1, 7, 9, 16, 16, 5, "SAME", ()), (5, 8, 7, 32, 64, 5, "SAME", ()), (2, 12, 11, 24, 32, 5, "VALID", ()),
    (1, 6, 10, 64, 128, 5, "EXPLICIT", (0, 0, 3, 1, 0, 4, 0, 0)), (2, 9, 9, 128, 32, 5, "SAME", ()),
    (3, 10, 8, 16, 16, 5, "VALID", ())]


def _case_id(case):
    n, h, w, c, co, k, padding, explicit = case
    return f"{n}x{h}x{w}-{c}to{co}-{k}x{k}-{padding}{'-' + '.'.join(map(str, explicit[2:6])) if explicit else ''}"


@pytest.mark.parametrize("case", _CONV_CASES, ids=_case_id)
def test_conv2d_kernel_runs_winograd_and_matches_float64(cpu, winograd_calls, case):
    n, h, w, c, co, k, padding, explicit = case
    x = _rng.standard_normal((n, h, w, c)).astype(np.float32)
    wt = _rng.standard_normal((k, k, c, co)).astype(np.float32)
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), _conv_attrs(1, 1, padding, explicit))
    assert [call["ran"] for call in winograd_calls] == ([True] if _expect_winograd(x, wt) else [])
    want = _reference_conv(x, wt, 1, 1, _pads(h, w, k, padding, explicit))
    _assert_winograd_accuracy(got, want, k, k * k * c)


@pytest.mark.parametrize("case", [_CONV_CASES[i] for i in (1, 3, 9, 10)], ids=_case_id)
def test_tf_nn_conv2d_runs_winograd_and_matches_float64(winograd_calls, case):
    n, h, w, c, co, k, padding, explicit = case
    x = _rng.standard_normal((n, h, w, c)).astype(np.float32)
    wt = _rng.standard_normal((k, k, c, co)).astype(np.float32)
    pads = _pads(h, w, k, padding, explicit)
    arg = [[0, 0], list(pads[0]), list(pads[1]), [0, 0]] if padding == "EXPLICIT" else padding
    got = tf.nn.conv2d(tf.constant(x), tf.constant(wt), strides=1, padding=arg)
    assert got.dtype == tf.float32 and "CPU" in got.device
    assert len(winograd_calls) == 1 and winograd_calls[0]["ran"]
    _assert_winograd_accuracy(got.numpy(), _reference_conv(x, wt, 1, 1, pads), k, k * k * c)


def test_strided_views_take_it_with_the_same_values(winograd_calls):
    """``winograd_applies`` takes non-contiguous arrays (no copy to decide); the kernel runs on contiguous
    copies: a transposed input and a flipped filter view give the values of their contiguous copies."""
    x = _rng.standard_normal((2, 8, 16, 9)).astype(np.float32).transpose(0, 3, 1, 2)  # (2, 9, 8, 16)
    wt = _rng.standard_normal((5, 5, 16, 32)).astype(np.float32)[::-1, ::-1]
    assert not (x.flags.c_contiguous or wt.flags.c_contiguous)
    attrs = _conv_attrs(1, 1, "SAME")
    got = conv_ops.direct_conv2d(x, wt, None, **attrs)
    assert [call["ran"] for call in winograd_calls] == [True]
    np.testing.assert_array_equal(got, conv_ops.direct_conv2d(x.copy(), wt.copy(), None, **attrs))
    _assert_winograd_accuracy(got, _reference_conv(x, wt, 1, 1, _pads(9, 8, 5, "SAME", ())), 5, 25 * 16)


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16])
def test_half_precision_convolutions_take_it_through_float32(winograd_calls, dtype):
    """float16 and bfloat16 convolutions on the CPU run as float32 (a candidate that casts and dispatches
    again), so the Winograd kernel takes them; the result is the float32 one rounded once."""
    x = _rng.standard_normal((2, 7, 6, 16)).astype(np.float32)
    wt = _rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
    xh, wh = tf.cast(tf.constant(x), dtype), tf.cast(tf.constant(wt), dtype)
    got = tf.nn.conv2d(xh, wh, 1, "SAME")
    assert got.dtype == dtype and [call["ran"] for call in winograd_calls] == [True]
    full = tf.nn.conv2d(tf.cast(xh, tf.float32), tf.cast(wh, tf.float32), 1, "SAME")
    np.testing.assert_array_equal(got.numpy(), tf.cast(full, dtype).numpy())


@pytest.mark.parametrize("c,co,k", [(16, 24, 5), (64, 24, 3), (64, 40, 3)])
def test_every_convolution_winograd_applies_to_reaches_it(winograd_calls, c, co, k):
    x = _rng.standard_normal((2, 8, 8, c)).astype(np.float32)
    wt = _rng.standard_normal((k, k, c, co)).astype(np.float32)
    assert conv_winograd.winograd_applies(x, wt, (1, 1, 1, 1), (1, 1, 1, 1))
    got = tf.nn.conv2d(tf.constant(x), tf.constant(wt), 1, "SAME").numpy()
    _assert_winograd_accuracy(got, _reference_conv(x, wt, 1, 1, _pads(8, 8, k, "SAME", ())), k, k * k * c)
    chosen = conv_ops.CONV2D.select("cpu", (x, wt), _conv_attrs(1, 1, "SAME")).name
    assert winograd_calls, f"{c}->{co} {k}x{k} ran {chosen}"


# -- _FusedConv2D --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,h,w,c,co,k,padding,explicit", [
    (2, 7, 8, 16, 32, 3, "SAME", ()), (5, 9, 7, 32, 16, 5, "SAME", ()),
    (1, 8, 9, 24, 64, 3, "EXPLICIT", (0, 0, 2, 0, 0, 1, 0, 0)), (1, 11, 10, 16, 128, 5, "VALID", ())])
def test_fused_conv2d_bias_and_relu_through_winograd(winograd_calls, n, h, w, c, co, k, padding, explicit):
    """``_FusedConv2D``'s bias and ReLU in the Winograd kernel's epilogue: relu(conv + bias) in float64, and the
    bits of Conv2D (also Winograd), BiasAdd and Relu run apart (the bias is added to the finished sums)."""
    x = tf.constant(_rng.standard_normal((n, h, w, c)).astype(np.float32))
    wt = tf.constant(_rng.standard_normal((k, k, c, co)).astype(np.float32))
    bias = tf.constant(np.concatenate([[-1.5, -0.0, 0.0, 40.0], 3 * _rng.standard_normal(co - 4)]).astype(np.float32))
    attrs = _conv_attrs(1, 1, padding, explicit)
    pads = _pads(h, w, k, padding, explicit)
    biased = _reference_conv(x.numpy(), wt.numpy(), 1, 1, pads) + bias.numpy()
    fused = fused_ops.fused_conv2d(x, wt, bias, attrs, relu=True).numpy()
    assert len(winograd_calls) == 1 and winograd_calls[0]["ran"]
    assert winograd_calls[0]["args"][6] is not None and winograd_calls[0]["args"][7]  # bias and ReLU in the kernel
    assert (fused == 0).any() and (fused > 0).any()
    _assert_winograd_accuracy(fused, np.maximum(biased, 0), k, k * k * c)
    plain = fused_ops.fused_conv2d(x, wt, bias, attrs, relu=False).numpy()
    _assert_winograd_accuracy(plain, biased, k, k * k * c)
    arg = [[0, 0], list(pads[0]), list(pads[1]), [0, 0]] if padding == "EXPLICIT" else padding
    apart = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, wt, 1, arg), bias)).numpy()
    assert len(winograd_calls) == 3 and all(call["ran"] for call in winograd_calls)
    np.testing.assert_array_equal(fused, apart)


# -- Conv2DBackpropInput -------------------------------------------------------------------------------------

def _backprop_input(cpu, x_shape, k, co, padding, explicit, seed=None):
    rng = _rng if seed is None else np.random.default_rng(seed)
    wt = rng.standard_normal((k, k, x_shape[3], co)).astype(np.float32)
    attrs = dict(_conv_attrs(1, 1, padding, explicit), input_sizes=x_shape)
    (pt, pb), (pl, pr) = _pads(x_shape[1], x_shape[2], k, padding, explicit)
    oh, ow = x_shape[1] + pt + pb - k + 1, x_shape[2] + pl + pr - k + 1
    dy = rng.standard_normal((x_shape[0], oh, ow, co)).astype(np.float32)
    got = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs)
    return got, _dgrad_float64(wt, dy, x_shape, (1, 1), (1, 1), (pt, pb), (pl, pr))


@pytest.mark.parametrize("x_shape,k,co,padding,explicit", [
    ((2, 9, 8, 16), 3, 32, "SAME", ()), ((1, 7, 7, 32), 3, 16, "VALID", ()),
    ((5, 8, 9, 24), 3, 16, "EXPLICIT", (0, 0, 2, 0, 1, 2, 0, 0)), ((2, 10, 9, 16), 5, 16, "SAME", ()),
    ((1, 11, 12, 64), 5, 32, "VALID", ()), ((3, 9, 7, 16), 5, 24, "EXPLICIT", (0, 0, 4, 1, 0, 3, 0, 0))])
def test_stride1_input_gradient_runs_winograd_and_matches_float64(cpu, winograd_calls, x_shape, k, co, padding,
                                                                   explicit):
    """A stride-1 input gradient is Conv2D of dy with the flipped filter and the padding mirrored (k - 1 - pad):
    the Winograd kernel takes it with co input and c output channels."""
    got, want = _backprop_input(cpu, x_shape, k, co, padding, explicit)
    assert len(winograd_calls) == 1 and winograd_calls[0]["ran"]
    assert winograd_calls[0]["w"] == (k, k, co, x_shape[3])
    _assert_winograd_accuracy(got, want, k, k * k * co)


@pytest.mark.parametrize("x_shape,k,explicit", [
    ((1, 6, 6, 16), 3, (0, 0, 3, 0, 0, 0, 0, 0)), ((2, 7, 6, 16), 5, (0, 0, 1, 2, 5, 0, 0, 0))])
def test_input_gradient_with_pads_beyond_the_kernel_does_not_take_winograd(cpu, winograd_calls, x_shape, k,
                                                                           explicit):
    """An explicit pad over k - 1 mirrors to a negative one (dx rows no dy row reaches): the phase kernel."""
    got, want = _backprop_input(cpu, x_shape, k, 16, "EXPLICIT", explicit)
    assert winograd_calls == []
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * np.sqrt(k * k * 16))


# -- threads -------------------------------------------------------------------------------------------------

@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("n,h,w,c,co,k", [
    (1, 28, 27, 32, 32, 3),  # one image: rows split over one padded copy
    (7, 21, 20, 16, 16, 3),  # 7 images >= 2 x 3 threads: each padded in its thread's buffer
    (1, 19, 20, 32, 32, 5), (7, 13, 12, 16, 32, 5)])
def test_one_and_three_threads_give_the_same_bits(cpu, winograd_calls, n, h, w, c, co, k):
    x = _rng.standard_normal((n, h, w, c)).astype(np.float32)
    wt = _rng.standard_normal((k, k, c, co)).astype(np.float32)
    bias = _rng.standard_normal(co).astype(np.float32)
    attrs = _conv_attrs(1, 1, "SAME")
    native_cpu.set_num_threads(1)
    one = conv_ops.direct_conv2d(x, wt, bias, relu=True, **attrs)
    assert native_cpu.last_parts() == 1
    native_cpu.set_num_threads(3)
    split = conv_ops.direct_conv2d(x, wt, bias, relu=True, **attrs)
    assert native_cpu.last_parts() == 3
    assert [call["ran"] for call in winograd_calls] == [True, True]
    np.testing.assert_array_equal(split, one)
    want = np.maximum(_reference_conv(x, wt, 1, 1, _pads(h, w, k, "SAME", ())) + bias, 0)
    _assert_winograd_accuracy(split, want, k, k * k * c)


# -- non-finite values: the direct kernel ---------------------------------------------------------------------

def _with_specials(a, where, value):
    a = a.copy()
    a[where] = value
    return a


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("operand,value", [("x", np.inf), ("x", np.nan), ("x", -np.inf), ("w", np.nan),
                                           ("w", -np.inf)])
def test_non_finite_values_fall_back_to_the_direct_kernels_bits(cpu, winograd_calls, monkeypatch, k, operand,
                                                                value):
    """A tile's transforms spread an infinity or NaN to all the tile's outputs (and inf - inf to NaN): the kernel
    reports it and the direct kernel runs, so the NaN and infinity positions (and every other value) are those
    of Winograd off."""
    x = _rng.standard_normal((3, 9, 8, 16)).astype(np.float32)
    wt = _rng.standard_normal((k, k, 16, 32)).astype(np.float32)
    if operand == "x":
        x = _with_specials(x, (1, 4, 3, 5), value)
    else:
        wt = _with_specials(wt, (1, 2, 7, 9), value)
    attrs = _conv_attrs(1, 1, "SAME")
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert [call["ran"] for call in winograd_calls] == [False]  # tried, then the fallback
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    direct = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert len(winograd_calls) == 1
    assert not np.isfinite(got).all() and np.isfinite(got).any()
    np.testing.assert_array_equal(got, direct)


def test_non_finite_dy_in_the_input_gradient_falls_back(cpu, winograd_calls, monkeypatch):
    wt = _rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
    dy = _with_specials(_rng.standard_normal((2, 7, 8, 16)).astype(np.float32), (0, 3, 3, 2), np.nan)
    attrs = dict(_conv_attrs(1, 1, "SAME"), input_sizes=(2, 7, 8, 16))
    got = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs)
    assert [call["ran"] for call in winograd_calls] == [False]
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    np.testing.assert_array_equal(got, conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), attrs))
    assert np.isnan(got).sum() == 9 * 16  # the 3x3 dx pixels the NaN reaches, every channel


def test_a_transform_that_overflows_falls_back_to_finite_direct_sums(cpu, winograd_calls, monkeypatch):
    """F(2x2, 5x5)'s input transform multiplies values by up to 100 (BT's rows reach 5 and 4): inputs near
    float32's largest overflow there though the direct sums are finite. The fallback keeps them finite."""
    x = (1e37 * _rng.uniform(-3, 3, (2, 8, 8, 16))).astype(np.float32)
    wt = (1e-3 * _rng.standard_normal((5, 5, 16, 16))).astype(np.float32)
    attrs = _conv_attrs(1, 1, "SAME")
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert [call["ran"] for call in winograd_calls] == [False]
    assert np.isfinite(got).all()
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    np.testing.assert_array_equal(got, conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs))


@pytest.mark.parametrize("cols_limit", [None, 2 * 8 * 8 * 9 * 16])  # one chunk; batch chunks of 2 images
def test_non_finite_values_where_the_direct_kernels_decline_fall_back_to_im2col(cpu, winograd_calls, monkeypatch,
                                                                               cols_limit):
    """Where the direct kernels do not take a Winograd convolution (AVX2 builds, long sums), a non-finite value
    sends it to im2col + GEMM: the bits of Winograd off (the generic candidate), chunked over the batch the
    same way; ``_FusedConv2D`` adds its bias and ReLU to those sums."""
    monkeypatch.setattr(conv_ops, "_direct_applies", lambda x, w: False)
    if cols_limit:
        monkeypatch.setattr(conv_ops, "_COLS_LIMIT", cols_limit)
    x = _with_specials(_rng.standard_normal((5, 8, 8, 16)).astype(np.float32), (3, 2, 5, 1), np.nan)
    wt = _rng.standard_normal((3, 3, 16, 24)).astype(np.float32)
    bias = _rng.standard_normal(24).astype(np.float32)
    attrs = _conv_attrs(1, 1, "SAME")
    got = tf.nn.conv2d(tf.constant(x), tf.constant(wt), 1, "SAME").numpy()
    fused = fused_ops.fused_conv2d(x, wt, bias, attrs, relu=True)
    assert [call["ran"] for call in winograd_calls] == [False, False]
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    assert conv_ops.CONV2D.select("cpu", (x, wt), attrs).name == "_conv2d[host im2col]"
    np.testing.assert_array_equal(got, tf.nn.conv2d(tf.constant(x), tf.constant(wt), 1, "SAME").numpy())
    assert np.isnan(got).sum() == 9 * 24  # the 3x3 outputs the NaN reaches, every channel
    np.testing.assert_array_equal(np.asarray(fused), np.maximum(got + bias, 0))


# -- what takes it -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,on", [(None, True), ("1", True), ("true", True), ("0", False), ("false", False),
                                      ("False", False)])
def test_tf_enable_winograd_nonfused_switches_it(cpu, winograd_calls, monkeypatch, value, on):
    """TensorFlow's switch for its GPUs' non-fused Winograd (a boolean environment variable, default on)."""
    if value is not None:
        monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", value)
    x = _rng.standard_normal((1, 6, 7, 16)).astype(np.float32)
    wt = _rng.standard_normal((3, 3, 16, 16)).astype(np.float32)
    assert conv_winograd.enabled() is on
    assert conv_winograd.winograd_applies(x, wt, (1, 1, 1, 1), (1, 1, 1, 1)) is on
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), _conv_attrs(1, 1, "SAME"))
    assert len(winograd_calls) == int(on)
    _assert_winograd_accuracy(got, _reference_conv(x, wt, 1, 1, _pads(6, 7, 3, "SAME", ())), 3, 9 * 16)


@pytest.mark.parametrize("dtype,kh,kw,c,co,stride,dilation", [
    (np.float64, 3, 3, 16, 16, 1, 1), (np.float32, 3, 3, 16, 16, 2, 1), (np.float32, 3, 3, 16, 16, 1, 2),
    (np.float32, 4, 4, 16, 16, 1, 1), (np.float32, 7, 7, 16, 16, 1, 1), (np.float32, 3, 5, 16, 16, 1, 1),
    (np.float32, 1, 1, 16, 16, 1, 1), (np.float32, 3, 3, 8, 16, 1, 1), (np.float32, 5, 5, 16, 8, 1, 1),
    (np.float32, 3, 3, 20, 16, 1, 1), (np.float32, 3, 3, 16, 12, 1, 1)])
def test_convolutions_outside_its_reach_do_not_take_it(cpu, winograd_calls, dtype, kh, kw, c, co, stride, dilation):
    """float64, strides, dilations, other filter sizes, fewer than 16 or non-multiple-of-8 channels: the
    direct (or im2col) kernels, with their float64 values."""
    x = _rng.standard_normal((2, 9, 10, c)).astype(dtype)
    wt = _rng.standard_normal((kh, kw, c, co)).astype(dtype)
    attrs = _conv_attrs(stride, dilation, "VALID")
    assert not conv_winograd.winograd_applies(x, wt, attrs["strides"], attrs["dilations"])
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert winograd_calls == []
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, _reference_conv(x, wt, stride, dilation, ((0, 0), (0, 0))), rtol=tol,
                               atol=tol * np.sqrt(kh * kw * c))


# -- Keras ---------------------------------------------------------------------------------------------------

def _train_losses(steps=4):
    """A small CNN's losses over a few SGD steps: Conv2D 3x3 3->16 (not Winograd: 3 input channels), then
    3x3 16->16 with ReLU (``_FusedConv2D``) and 5x5 16->32, both Winograd forward and input gradient."""
    tf.keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 10, 9, 3)).astype(np.float32)
    y = rng.standard_normal((6, 1)).astype(np.float32)
    model = tf.keras.Sequential([
        tf.keras.Input((10, 9, 3)),
        tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        tf.keras.layers.Conv2D(32, 5, padding="valid"),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    return [float(model.train_on_batch(x, y)) for _ in range(steps)]


def test_a_keras_cnn_trains_to_the_same_losses_with_winograd_on_and_off(winograd_calls, monkeypatch):
    on = _train_losses()
    kinds = {(call["w"][0], call["w"][2], call["w"][3]) for call in winograd_calls}
    assert all(call["ran"] for call in winograd_calls)
    assert {(3, 16, 16), (5, 16, 32), (5, 32, 16)} <= kinds  # forward 3x3 and 5x5; the 5x5 input gradient
    count = len(winograd_calls)
    monkeypatch.setenv("TF_ENABLE_WINOGRAD_NONFUSED", "0")
    off = _train_losses()
    assert len(winograd_calls) == count
    assert on[-1] < on[0]
    np.testing.assert_allclose(on, off, rtol=1e-5)


@needs_native
@pytest.mark.parametrize("x_shape,k,padding,winograd", [
    ((2, 16, 16, 32), 5, "SAME", True),    # 14% of the taps on the padding
    ((2, 8, 8, 64), 3, "SAME", True),      # 16%
    ((2, 4, 4, 32), 5, "SAME", False),     # 47%
    ((2, 16, 16, 32), 5, "VALID", True)])  # no padding (its input gradient: 44%, below)
def test_heavily_padded_convolutions_run_the_phase_kernel(cpu, monkeypatch, x_shape, k, padding, winograd):
    """Winograd multiplies the padding's zeros, the phase kernel skips them: a stride-1 convolution with more
    than a quarter of its taps on the padding (forward, or the input gradient's mirrored padding: a VALID
    forward's is heavy) runs the phase kernel, the others Winograd. Both give the float64 values."""
    monkeypatch.delenv("TF_ENABLE_WINOGRAD_NONFUSED", raising=False)
    calls = []
    real = conv_winograd.winograd_conv2d
    monkeypatch.setattr(conv_winograd, "winograd_conv2d", lambda *a: calls.append(a[0].shape) or real(*a))
    x = _rng.standard_normal(x_shape).astype(np.float32)
    wt = _rng.standard_normal((k, k, x_shape[3], 32)).astype(np.float32)
    attrs = _conv_attrs(1, 1, padding)
    got = conv_ops.CONV2D.run_kernel(cpu, (x, wt), attrs)
    assert bool(calls) is winograd
    pads = _pads(x_shape[1], x_shape[2], k, padding, ())
    _assert_winograd_accuracy(got, _reference_conv(x, wt, 1, 1, pads), k, k * k * x_shape[3])
    calls.clear()
    dy = _rng.standard_normal(got.shape).astype(np.float32)
    dx = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (wt, dy), {**attrs, "input_sizes": x_shape})
    assert bool(calls) is (winograd and padding == "SAME")
    np.testing.assert_allclose(dx, _dgrad_float64(wt, dy, x_shape, (1, 1), (1, 1), *pads), rtol=2e-5,
                               atol=2e-5 * max(1.0, np.abs(dx).max()))
