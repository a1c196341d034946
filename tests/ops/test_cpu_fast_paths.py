"""CPU fast paths of hot kernels give the same values as their general paths (or NumPy references).

The native CPU kernels are switched off here (``TFCORE_NATIVE_CPU=0``): these are the paths that run
without a C++ compiler. Covers: BiasAddGrad column sums through BLAS, ReLU against a cached zeros array, the tiled
MaxPoolGrad, the stride-1 Conv2DBackpropInput as one flipped-kernel product, the one-channel
im2col, the im2col columns reused by Conv2DBackpropFilter, the CPU SparseSoftmaxCrossEntropy
kernel, DivNoNan, _MultiTensorApply (and its flat-buffer reuse) and the fused ops.
"""

import itertools

import numpy as np
import pytest

import tfcore as tf
from tfcore.framework.errors import InvalidArgumentError
from tfcore.ops import _cpu_fast, conv_ops, fused_ops, loss_ops, nn_ops, pool_ops, training_ops
from tfcore.ops.registry import Residuals, execute, get_op

_rng = np.random.default_rng(7)
pytestmark = pytest.mark.usefixtures("on_cpu")  # CPU kernels, whatever the default device is


@pytest.fixture(autouse=True)
def numpy_paths(monkeypatch):
    """These are the NumPy paths: the native kernels (tests/ops/test_native_cpu.py) would run first."""
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")


# -- BiasAddGrad, Relu -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(300, 5), (4, 8, 8, 3), (2, 7), (0, 4), (130, 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bias_add_grad_column_sums_match_numpy_sum(cpu, shape, dtype):
    g = _rng.standard_normal(shape).astype(dtype)
    got = nn_ops._bias_add_grad(cpu, g, data_format="NHWC")
    want = g.reshape(-1, shape[-1]).astype(np.float64).sum(axis=0)
    assert got.dtype == dtype and got.shape == (shape[-1],)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_bias_add_grad_nchw_and_integer_inputs_keep_the_general_path(cpu):
    g = _rng.standard_normal((3, 4, 5, 6)).astype(np.float32)
    np.testing.assert_allclose(nn_ops._bias_add_grad(cpu, g, data_format="NCHW"), g.sum(axis=(0, 2, 3)), rtol=1e-5)
    gi = np.arange(600, dtype=np.int32).reshape(200, 3)
    np.testing.assert_array_equal(nn_ops._bias_add_grad(cpu, gi, data_format="NHWC"), gi.sum(axis=0))


def test_relu_against_cached_zeros_keeps_nan_and_clears_negative_infinity():
    x = np.array([[np.nan, -np.inf, -1.0, 0.0, 2.0, np.inf]] * 3, np.float32)
    for _ in range(2):  # the second call uses the cached zeros
        y = tf.nn.relu(x).numpy()
        np.testing.assert_array_equal(y[:, 1:], np.array([[0, 0, 0, 2, np.inf]] * 3, np.float32))
        assert np.isnan(y[:, 0]).all()
        y[:] = 5  # the result is the caller's own copy: the cached zeros are untouched
    np.testing.assert_array_equal(tf.nn.relu(-np.ones((3, 6), np.float32)).numpy(), np.zeros((3, 6)))


# -- MaxPoolGrad --------------------------------------------------------------------------------------

def _max_pool_grad_reference(x, dy, k):
    """Each window's gradient goes to its first maximum in row-major order (loops)."""
    n, h, w, c = x.shape
    dx = np.zeros_like(x)
    for b, i, j, ch in itertools.product(range(n), range(h // k), range(w // k), range(c)):
        win = x[b, i * k:(i + 1) * k, j * k:(j + 1) * k, ch]
        r, s = np.unravel_index(np.argmax(win == win.max()), win.shape)
        dx[b, i * k + r, j * k + s, ch] += dy[b, i, j, ch]
    return dx


@pytest.mark.parametrize("k", [2, 3])
def test_tiled_max_pool_grad_picks_the_first_maximum_with_ties(cpu, k):
    x = np.maximum(_rng.standard_normal((2, 3 * k, 2 * k, 3)), 0).astype(np.float32)  # relu zeros: many ties
    x[0, :k, :k, 0] = 1.5  # a whole window tied at a positive value
    attrs = dict(ksize=(1, k, k, 1), strides=(1, k, k, 1), padding="VALID", explicit_paddings=(), data_format="NHWC")
    y = pool_ops._max_pool(cpu, x, **attrs)
    dy = _rng.standard_normal(y.shape).astype(np.float32)
    want = _max_pool_grad_reference(x, dy, k)
    np.testing.assert_array_equal(pool_ops._max_pool_grad(cpu, x, y, dy, **attrs), want)
    np.testing.assert_array_equal(pool_ops._max_pool_grad_tiled(cpu, x, y, dy, **attrs), want)


_TILED = [(2, 2), (3, 2), (2, 3), (1, 2), (2, 1), (3, 3), (1, 1)]


def _pool_attrs(kh, kw, padding="VALID"):
    return dict(ksize=(1, kh, kw, 1), strides=(1, kh, kw, 1), padding=padding, explicit_paddings=(),
                data_format="NHWC")


@pytest.mark.parametrize("kh,kw", _TILED)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_max_pool_candidates_match_the_generic_kernels_with_ties_and_nan(cpu, kh, kw, padding, dtype):
    x = np.maximum(_rng.standard_normal((3, 3 * kh, 5 * kw, 3)), 0).astype(dtype)  # relu zeros: ties
    x[0, :kh, :kw, 0] = 1.5                       # a whole window tied
    x[1, kh:2 * kh, kw:2 * kw, 1] = -np.inf       # a window of -inf
    x[2, :kh, 2 * kw:3 * kw, 2] = np.nan          # a NaN window: NaN maximum, no gradient
    x[2, kh, 0, 0] = np.nan                       # one NaN among numbers
    attrs = _pool_attrs(kh, kw, padding)
    assert pool_ops._tiles(x, **attrs)
    y = pool_ops._max_pool(cpu, x, **attrs)
    got = pool_ops._max_pool_tiled(cpu, x, **attrs)
    assert got.dtype == dtype and got.flags.c_contiguous
    np.testing.assert_array_equal(got, y)
    dy = _rng.standard_normal(y.shape).astype(dtype)
    want = pool_ops._max_pool_grad(cpu, x, y, dy, **attrs)
    np.testing.assert_array_equal(pool_ops._max_pool_grad_tiled(cpu, x, y, dy, **attrs), want)
    assert np.isnan(y[2, 0, 2, 2]) and not want[2, :kh, 2 * kw:3 * kw, 2].any()


def test_tiled_max_pool_candidates_are_chosen_only_for_tiling_windows_and_finite_gradients(cpu):
    x = _rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    attrs = _pool_attrs(2, 2, "SAME")
    y = pool_ops._max_pool(cpu, x, **attrs)
    dy = np.ones(y.shape, np.float32)
    assert pool_ops.MAX_POOL.select("cpu", (x,), attrs).name == "max_pool_tiled"
    assert pool_ops.MAX_POOL_GRAD.select("cpu", (x, y, dy), attrs).name == "max_pool_grad_tiled"
    dy[0, 0, 0, 0] = np.inf
    assert pool_ops.MAX_POOL_GRAD.select("cpu", (x, y, dy), attrs).priority is None  # the generic kernel
    odd = _rng.standard_normal((2, 7, 6, 3)).astype(np.float32)  # SAME pads the 7 rows
    overlapping = dict(attrs, strides=(1, 1, 1, 1))
    for arr, a in ((odd, attrs), (x, overlapping), (x.astype(np.float16), attrs)):
        assert pool_ops.MAX_POOL.select("cpu", (arr,), a).priority is None


@pytest.mark.parametrize("shape,k,padding", [((2, 28, 28, 8), 2, "SAME"), ((3, 7, 9, 2), 2, "SAME"),
                                             ((3, 7, 9, 2), 3, "VALID"), ((1, 6, 6, 1), 3, "SAME")])
def test_max_pool_op_and_gradient_match_the_loop_reference(shape, k, padding):
    x = _rng.standard_normal(shape).astype(np.float32)
    with tf.device("/CPU:0"):
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.nn.max_pool2d(xt, k, k, padding)
            loss = tf.reduce_sum(y * tf.constant(np.arange(y.shape.num_elements(), dtype=np.float32).reshape(y.shape)))
        dx = tape.gradient(loss, xt).numpy()
    oh, ow = y.shape[1], y.shape[2]
    ph = max((oh - 1) * k + k - shape[1], 0) // 2 if padding == "SAME" else 0
    pw = max((ow - 1) * k + k - shape[2], 0) // 2 if padding == "SAME" else 0
    xpad = np.full((shape[0], oh * k, ow * k, shape[3]), -np.inf, np.float32)
    h, w = min(shape[1], oh * k - ph), min(shape[2], ow * k - pw)
    xpad[:, ph:ph + h, pw:pw + w] = x[:, :h, :w]
    np.testing.assert_array_equal(y.numpy(), xpad.reshape(shape[0], oh, k, ow, k, -1).max(axis=(2, 4)))
    dy = np.arange(y.shape.num_elements(), dtype=np.float32).reshape(y.shape)
    want = _max_pool_grad_reference(xpad, dy, k)[:, ph:ph + h, pw:pw + w]
    np.testing.assert_array_equal(dx[:, :h, :w], want)


def test_max_pool_grad_with_non_finite_gradient_uses_the_general_path(cpu):
    x = _rng.standard_normal((1, 4, 4, 1)).astype(np.float32)
    attrs = dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="VALID", explicit_paddings=(), data_format="NHWC")
    y = pool_ops._max_pool(cpu, x, **attrs)
    dy = np.full(y.shape, np.inf, np.float32)
    dx = pool_ops._max_pool_grad(cpu, x, y, dy, **attrs)
    assert np.isinf(dx).sum() == 4 and not np.isnan(dx).any()  # inf only at the maxima, 0 (not nan) elsewhere


def test_max_pool_grad_with_explicit_padding_is_not_tiled(cpu):
    """A padded input that happens to be a multiple of the window must still see the padding."""
    x = _rng.standard_normal((1, 4, 4, 1)).astype(np.float32)
    attrs = dict(ksize=(1, 2, 2, 1), strides=(1, 2, 2, 1), padding="EXPLICIT",
                 explicit_paddings=(0, 0, 1, 0, 1, 0, 0, 0), data_format="NHWC")
    y = pool_ops._max_pool(cpu, x, **attrs)
    assert y.shape == (1, 2, 2, 1)
    dx = pool_ops._max_pool_grad(cpu, x, y, np.ones(y.shape, np.float32), **attrs)
    xpad = np.pad(x[0, :, :, 0], ((1, 0), (1, 0)), constant_values=-np.inf)
    want = _max_pool_grad_reference(xpad[None, :4, :4, None], np.ones((1, 2, 2, 1), np.float32), 2)[0, :, :, 0]
    np.testing.assert_array_equal(dx[0, :3, :3, 0], want[1:, 1:])


# -- convolution ---------------------------------------------------------------------------------------

_PADDINGS = [("SAME", ()), ("VALID", ()), ("EXPLICIT", (0, 0, 1, 2, 0, 3, 0, 0)),
             ("EXPLICIT", (0, 0, 4, 4, 4, 4, 0, 0))]


@pytest.mark.parametrize("padding,explicit", _PADDINGS)
@pytest.mark.parametrize("kh,kw,dil", [(3, 3, 1), (2, 3, 2), (1, 1, 1)])
def test_stride1_backprop_input_as_one_product_matches_per_tap_col2im(cpu, monkeypatch, padding, explicit, kh, kw,
                                                                       dil):
    attrs = dict(strides=(1, 1, 1, 1), padding=padding, explicit_paddings=explicit, data_format="NHWC",
                 dilations=(1, dil, dil, 1))
    sizes = (2, 6, 7, 3)
    w = _rng.standard_normal((kh, kw, 3, 4))
    oh, ow, _, _ = conv_ops.conv_geometry(sizes, kh, kw, attrs["strides"], attrs["dilations"], padding, explicit)
    dy = _rng.standard_normal((2, oh, ow, 4))
    attrs["input_sizes"] = sizes
    monkeypatch.setenv("TFCORE_NATIVE_CPU", "0")  # the generic candidate (the native kernel has its own tests)
    got = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (w, dy), attrs)
    monkeypatch.setattr(conv_ops, "_flipped_pads", lambda *a: None)  # the per-tap products instead of one
    want = conv_ops.CONV2D_BACKPROP_INPUT.run_kernel(cpu, (w, dy), attrs)
    assert got.shape == sizes
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("stride,dil", [(1, 1), (2, 1), (1, 2), (2, 2)])
def test_one_channel_im2col_matches_the_strided_view(stride, dil):
    x = _rng.standard_normal((2, 7, 6, 1))
    st, dl = (1, stride, stride, 1), (1, dil, dil, 1)
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, 3, 2, st, dl, "SAME", ())
    xpad = conv_ops.pad_spatial(np, x, ph, pw)
    want = conv_ops.windows(np, xpad, oh, ow, 3, 2, st, dl).reshape(2 * oh * ow, 6)
    np.testing.assert_array_equal(conv_ops._im2col(np, xpad, oh, ow, 3, 2, st, dl), want)


def test_conv2d_saves_its_columns_as_a_residual_that_the_filter_gradient_reuses(cpu, monkeypatch):
    attrs = dict(strides=(1, 1, 1, 1), padding="SAME", explicit_paddings=(), data_format="NHWC",
                 dilations=(1, 1, 1, 1))
    x1 = _rng.standard_normal((2, 5, 5, 3))
    w = _rng.standard_normal((3, 3, 3, 4))
    dy = _rng.standard_normal((2, 5, 5, 4))
    res = conv_ops.CONV2D.run_kernel(cpu, (x1, w), attrs)
    assert isinstance(res, Residuals) and res.saved["im2col"].shape == (2 * 5 * 5, 3 * 3 * 3)
    reused = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(
        cpu, (x1, dy), {**attrs, "filter_sizes": w.shape, "im2col": res.saved["im2col"]})
    fresh = conv_ops.CONV2D_BACKPROP_FILTER.run_kernel(cpu, (x1, dy), {**attrs, "filter_sizes": w.shape})
    np.testing.assert_allclose(reused, fresh, rtol=1e-12)
    np.testing.assert_allclose(fresh[1, 1], np.einsum("nhwc,nhwo->co", x1, dy), rtol=1e-10)  # the centre tap
    monkeypatch.setattr(conv_ops, "MAX_SAVED_COLUMNS_BYTES", 64)
    assert not isinstance(conv_ops.CONV2D.run_kernel(cpu, (x1, w), attrs), Residuals)  # large columns are not kept


def test_residuals_live_on_the_tapes_call_record_only():
    with tf.device("/CPU:0"):
        x = tf.constant(_rng.standard_normal((1, 4, 4, 2)))
        w = tf.Variable(_rng.standard_normal((3, 3, 2, 3)))
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.conv2d(x, w, 1, "SAME") ** 2)
        conv_calls = [c for c in tape._records if c.op.name == "Conv2D"]
        assert len(conv_calls) == 1 and conv_calls[0].residuals["im2col"].shape == (16, 18)
        g = tape.gradient(y, w)
        xn, wn = x.numpy(), w.numpy()
        out = tf.nn.conv2d(x, wn, 1, "SAME").numpy()
        xpad = np.pad(xn, ((0, 0), (1, 1), (1, 1), (0, 0)))
        want = np.einsum("nhwc,nhwo->co", xpad[:, 0:4, 0:4], 2 * out)  # tap (0, 0)
        np.testing.assert_allclose(g.numpy()[0, 0], want, rtol=1e-10)
        assert not isinstance(tf.nn.conv2d(x, wn, 1, "SAME"), Residuals)  # unwrapped without a tape too


@pytest.mark.parametrize("shape", [(32, 28, 28, 8), (7, 5, 3), (13, 16), (4, 200), (0, 8), (6,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiled_bias_add_is_numpys_broadcast_add(shape, dtype, monkeypatch):
    monkeypatch.setattr(_cpu_fast, "_BIAS_MIN_ELEMENTS", 0 if len(shape) < 4 else 1 << 14)
    out = _rng.standard_normal(shape).astype(dtype)
    bias = _rng.standard_normal(shape[-1]).astype(dtype)
    want = out + bias
    got = out.copy()
    assert _cpu_fast.add_bias(got, bias) is got
    np.testing.assert_array_equal(got, want)
    strided = np.zeros(shape[:-1] + (2 * shape[-1],), dtype)[..., ::2]  # not C-contiguous: NumPy's add
    _cpu_fast.add_bias(strided, bias)
    np.testing.assert_array_equal(strided, np.zeros_like(want) + bias)


# -- SparseSoftmaxCrossEntropyWithLogits, DivNoNan --------------------------------------------------

@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_xent_cpu_kernel_matches_the_formula(cpu, label_dtype):
    x = (_rng.standard_normal((6, 5)) * 30).astype(np.float32)
    labels = np.array([0, 4, 2, 2, 1, 3], label_dtype)
    loss, backprop = loss_ops._sparse_softmax_xent(cpu, x, labels)
    x64 = x.astype(np.float64)
    logp = x64 - x64.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    np.testing.assert_allclose(loss, -logp[np.arange(6), labels], rtol=1e-5, atol=1e-5)
    onehot = np.eye(5)[labels]
    np.testing.assert_allclose(backprop, np.exp(logp) - onehot, atol=1e-6)


@pytest.mark.parametrize("bad", [-1, 5, 2**31 - 1])
def test_sparse_xent_cpu_kernel_rejects_labels_out_of_range(bad):
    with pytest.raises(InvalidArgumentError, match=f"Received a label value of {bad} "):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([1, bad], np.int64), np.zeros((2, 5), np.float32))


def test_div_no_nan_op():
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(tf.math.divide_no_nan(x, tf.constant([0.0, 2.0, 0.0])).numpy(),
                                  [[0, 1, 0], [0, 2.5, 0]])
    np.testing.assert_array_equal(tf.math.divide_no_nan(x, tf.constant(0.0)).numpy(), np.zeros((2, 3)))
    assert float(tf.math.divide_no_nan(tf.constant(np.nan), tf.constant(0.0))) == 0.0
    assert float(tf.math.divide_no_nan(tf.constant(3.0), tf.constant(2.0))) == 1.5
    y = tf.constant([0.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(y)
        out = tf.reduce_sum(tf.math.divide_no_nan(tf.constant([3.0, 4.0]), y))
    np.testing.assert_allclose(tape.gradient(out, y).numpy(), [0.0, -1.0])  # 0 where y == 0, -x/y^2 elsewhere
    with pytest.raises(InvalidArgumentError, match="DivNoNan"):
        execute(get_op("DivNoNan"), (tf.constant(1), tf.constant(2)))


# -- _MultiTensorApply ----------------------------------------------------------------------------------

_SHAPES = [(3, 4), (4,), (2, 2, 3)]


def _values(seed, positive=False):
    rng = np.random.default_rng(seed)
    return [tf.constant((np.abs(rng.standard_normal(s)) if positive else rng.standard_normal(s)).astype(np.float32))
            for s in _SHAPES]


@pytest.mark.parametrize("op,n_slots,attrs", [
    (training_ops.ADAM, 2, dict(alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7)),
    (training_ops.KERAS_MOMENTUM, 1, dict(lr=0.1, momentum=0.9, use_nesterov=True)),
    (training_ops.RMSPROP, 2, dict(lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-7)),
    (training_ops.GRADIENT_DESCENT, 0, dict(lr=0.1)),
])
def test_multi_tensor_apply_equals_one_op_per_variable(op, n_slots, attrs):
    groups = [_values(0)] + [_values(1 + i, positive=True) for i in range(n_slots)] + [_values(9)]
    together = training_ops.apply(op, tuple(groups), **attrs)
    together = together if isinstance(together, tuple) else (together,)
    for i in range(len(_SHAPES)):
        alone = training_ops.apply(op, tuple(g[i] for g in groups), **attrs)
        alone = alone if isinstance(alone, tuple) else (alone,)
        for column, value in zip(together, alone):
            np.testing.assert_array_equal(column[i].numpy(), value.numpy())


def test_multi_tensor_apply_reuses_its_flat_results_and_notices_reassignment():
    shapes = [(2,), (2,), (3,)]
    values = [tf.constant(np.arange(s[0], dtype=np.float32) + 10 * i) for i, s in enumerate(shapes)]
    grads = [tf.ones(s) for s in shapes]
    step = lambda vs: training_ops.apply(training_ops.GRADIENT_DESCENT, (vs, grads), lr=0.5)  # noqa: E731
    first = step(values)
    assert first[0]._array.base is first[2]._array.base  # views of one flat result
    second = step(first)  # first's flat buffer is reused as is
    swapped = step([first[1], first[0], first[2]])  # the same views in another order: concatenated again
    mixed = step([first[0], values[1], first[2]])
    for i in range(3):
        np.testing.assert_array_equal(second[i].numpy(), values[i].numpy() - 1.0)
        np.testing.assert_array_equal(mixed[i].numpy(), [first[0], values[1], first[2]][i].numpy() - 0.5)
    np.testing.assert_array_equal(swapped[0].numpy(), first[1].numpy() - 0.5)
    np.testing.assert_array_equal(swapped[1].numpy(), first[0].numpy() - 0.5)


def test_multi_tensor_apply_validates_each_variable():
    values, grads = _values(0), _values(1)
    grads[1] = tf.zeros((5,))
    with pytest.raises(InvalidArgumentError, match="ResourceApplyGradientDescent: var and grad do not have the same"):
        training_ops.apply(training_ops.GRADIENT_DESCENT, (values, grads), lr=0.1)


# -- fused ops --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("relu", [False, True])
def test_fused_matmul_equals_the_separate_ops(relu):
    a, w, b = (tf.constant(_rng.standard_normal(s).astype(np.float32)) for s in [(5, 4), (4, 3), (3,)])
    want = tf.nn.bias_add(tf.matmul(a, w), b)
    want = tf.nn.relu(want) if relu else want
    np.testing.assert_array_equal(fused_ops.fused_matmul(a, w, b, relu=relu).numpy(), want.numpy())
    wt = tf.transpose(w)
    np.testing.assert_array_equal(fused_ops.fused_matmul(a, wt, b, relu=relu, transpose_b=True).numpy(),
                                  want.numpy())


@pytest.mark.parametrize("relu", [False, True])
def test_fused_conv2d_equals_the_separate_ops(relu):
    x, w, b = (tf.constant(_rng.standard_normal(s).astype(np.float32)) for s in [(2, 5, 5, 3), (3, 3, 3, 4), (4,)])
    _, attrs = conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)
    want = tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b)
    want = tf.nn.relu(want) if relu else want
    np.testing.assert_array_equal(fused_ops.fused_conv2d(x, w, b, attrs, relu=relu).numpy(), want.numpy())


def test_fused_ops_reject_bad_biases():
    a, w = tf.ones((2, 3)), tf.ones((3, 4))
    with pytest.raises(InvalidArgumentError, match="_FusedMatMul"):
        fused_ops.fused_matmul(a, w, tf.ones((3,)))
    with pytest.raises(InvalidArgumentError, match="_FusedMatMul"):
        fused_ops.fused_matmul(a, w, tf.ones((4,), tf.float64))
    _, attrs = conv_ops._conv_call("Conv2D", 1, "SAME", "NHWC", None)
    with pytest.raises(InvalidArgumentError, match="_FusedConv2D"):
        fused_ops.fused_conv2d(tf.ones((1, 3, 3, 2)), tf.ones((3, 3, 2, 4)), tf.ones((2,)), attrs)


def test_multi_tensor_apply_does_not_reuse_a_longer_flat_result():
    shapes = [(2,), (3,), (4,)]
    values = [tf.constant(np.full(s, float(i), np.float32)) for i, s in enumerate(shapes)]
    first = training_ops.apply(training_ops.GRADIENT_DESCENT, (values, [tf.ones(s) for s in shapes]), lr=1.0)
    two = training_ops.apply(training_ops.GRADIENT_DESCENT, (first[:2], [tf.ones(s) for s in shapes[:2]]), lr=1.0)
    np.testing.assert_array_equal(two[0].numpy(), [-2.0, -2.0])
    np.testing.assert_array_equal(two[1].numpy(), [-1.0, -1.0, -1.0])


@pytest.mark.parametrize("axis,keepdims", [((0, 1, 2), False), ((2, 0, 1), True), ((0, 1), False), (None, False)])
def test_sum_over_leading_axes_matches_numpy(axis, keepdims):
    x = _rng.standard_normal((8, 5, 4, 3)).astype(np.float32)
    got = tf.reduce_sum(x, axis=axis, keepdims=keepdims).numpy()
    want = x.astype(np.float64).sum(axis=axis, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(tf.reduce_sum(np.ones((200, 3), np.int32), axis=0).numpy(), [200] * 3)


# -- one-channel convolution (tap-major columns), glibc malloc thresholds ------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("stride,k", [(1, 4), (2, 4), (1, 3), (2, 3), (3, 2)])
def test_one_channel_conv_and_its_gradients_match_a_float64_reference(padding, stride, k):
    x = _rng.standard_normal((3, 9, 10, 1)).astype(np.float32)
    w = _rng.standard_normal((k, k + 1, 1, 5)).astype(np.float32)
    with tf.device("/CPU:0"):
        xt, wt = tf.constant(x), tf.Variable(w)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xt)
            y = tf.nn.conv2d(xt, wt, stride, padding)
            loss = tf.reduce_sum(y * y)
        dx, dw = tape.gradient(loss, [xt, wt])
    st = (1, stride, stride, 1)
    oh, ow, ph, pw = conv_ops.conv_geometry(x.shape, k, k + 1, st, (1, 1, 1, 1), padding, ())
    xpad = np.pad(x.astype(np.float64), ((0, 0), ph, pw, (0, 0)))
    win = conv_ops.windows(np, xpad, oh, ow, k, k + 1, st, (1, 1, 1, 1))      # [N, OH, OW, KH, KW, 1]
    want = np.einsum("nhwijc,ijco->nhwo", win, w.astype(np.float64))
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
    g = 2 * want
    np.testing.assert_allclose(dw.numpy(), np.einsum("nhwijc,nhwo->ijco", win, g), rtol=1e-4, atol=1e-4)
    dxpad = np.zeros_like(xpad)
    for i in range(k):
        for j in range(k + 1):
            dxpad[conv_ops.tap_slice(i, j, oh, ow, st, (1, 1, 1, 1))] += np.einsum("nhwo,co->nhwc", g, w[i, j])
    np.testing.assert_allclose(dx.numpy(), dxpad[:, ph[0]:ph[0] + 9, pw[0]:pw[0] + 10], rtol=1e-4, atol=1e-4)


def test_one_channel_columns_are_a_fortran_ordered_view_that_blas_reads_as_is():
    xpad = _rng.standard_normal((2, 7, 7, 1))
    cols = conv_ops._im2col(np, xpad, 4, 4, 4, 4, (1, 1, 1, 1), (1, 1, 1, 1))
    assert cols.shape == (32, 16) and cols.flags.f_contiguous
    want = conv_ops.windows(np, xpad, 4, 4, 4, 4, (1, 1, 1, 1), (1, 1, 1, 1)).reshape(32, 16)
    np.testing.assert_array_equal(cols, want)


@pytest.mark.parametrize("dtype,sizes", [(np.float32, [3, 5, 4, 1, 7]), (np.float16, [3, 9, 8, 1]),
                                         (np.float64, [1, 3, 2])])
def test_multi_tensor_apply_keeps_every_variable_16_byte_aligned(dtype, sizes):
    """Each variable's slot in the flat buffer is padded to 16 bytes (issue 21 item 9): after a step every
    variable and slot starts 16-byte aligned, in the first (concatenated) and the reused flat buffer, so the
    kernels keep their vector and tensor-core paths; the values equal one update per variable."""
    rng = np.random.default_rng(3)
    values = [tf.constant(rng.standard_normal(s).astype(dtype)) for s in sizes]
    m = [tf.constant(np.abs(rng.standard_normal(s)).astype(dtype)) for s in sizes]
    v = [tf.constant(np.abs(rng.standard_normal(s)).astype(dtype)) for s in sizes]
    grads = [tf.constant(rng.standard_normal(s).astype(dtype)) for s in sizes]
    attrs = dict(alpha=0.01, beta_1=0.9, beta_2=0.999, epsilon=1e-7)
    state = (values, m, v)
    for _ in range(3):  # the first step concatenates, later ones reuse the flat results in place
        new = training_ops.apply(training_ops.ADAM, (*state, grads), **attrs)
        for column in new:
            assert column[0]._array.base is column[-1]._array.base  # still one flat buffer
            for t in column:
                assert t._array.ctypes.data % 16 == 0, (dtype, sizes, t.shape)
        for i in range(len(sizes)):
            alone = training_ops.apply(training_ops.ADAM, tuple(g[i] for g in state) + (grads[i],), **attrs)
            for column, value in zip(new, alone):
                np.testing.assert_array_equal(column[i].numpy(), value.numpy())
        state = new
