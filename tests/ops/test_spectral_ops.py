"""tf.complex, tf.math.real/imag/angle and tf.signal against NumPy float64 references (gradients are in
tests/autodiff/test_gradient_coverage.py)."""

import numpy as np
import pytest

import tfcore as tf

rng = np.random.default_rng(7)


def test_complex_real_imag_angle():
    c = tf.complex([1.0, -2.0], [0.5, 0.0])
    assert c.dtype == tf.complex64 and c.numpy().tolist() == [1 + 0.5j, -2 + 0j]
    assert tf.complex(np.float64(1.0), np.float64(2.0)).dtype == tf.complex128
    assert tf.dtypes.complex is tf.complex
    np.testing.assert_array_equal(tf.math.real(c).numpy(), [1.0, -2.0])
    np.testing.assert_array_equal(tf.math.imag(c).numpy(), [0.5, 0.0])
    np.testing.assert_allclose(tf.math.angle(c).numpy(), np.angle([1 + 0.5j, -2 + 0j]), rtol=1e-6)
    assert tf.math.real(tf.constant([3.0])).numpy().tolist() == [3.0]
    assert tf.math.imag(tf.constant([3.0])).numpy().tolist() == [0.0]
    np.testing.assert_allclose(tf.math.angle(tf.constant([-1.0, 2.0])).numpy(), [np.pi, 0.0], rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Complex"):
        tf.complex(tf.constant([1.0]), tf.constant([1.0], tf.float64))


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_complex_ffts_match_numpy(rank):
    x = rng.standard_normal((2, 3, 4, 5)) + 1j * rng.standard_normal((2, 3, 4, 5))
    axes = tuple(range(-rank, 0))
    fwd = {1: tf.signal.fft, 2: tf.signal.fft2d, 3: tf.signal.fft3d}[rank]
    inv = {1: tf.signal.ifft, 2: tf.signal.ifft2d, 3: tf.signal.ifft3d}[rank]
    np.testing.assert_allclose(fwd(x).numpy(), np.fft.fftn(x, axes=axes), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(inv(x).numpy(), np.fft.ifftn(x, axes=axes), rtol=1e-10, atol=1e-12)
    assert fwd(tf.cast(x, tf.complex64)).dtype == tf.complex64


def test_real_ffts_lengths_and_dtypes():
    x = rng.standard_normal((3, 6))
    np.testing.assert_allclose(tf.signal.rfft(x).numpy(), np.fft.rfft(x), atol=1e-12)
    np.testing.assert_allclose(tf.signal.rfft(x, [4]).numpy(), np.fft.rfft(x[:, :4]), atol=1e-12)
    np.testing.assert_allclose(tf.signal.rfft(x, [9]).numpy(), np.fft.rfft(x, 9), atol=1e-12)
    assert tf.signal.rfft(tf.constant(x, tf.float32)).dtype == tf.complex64
    spec = np.fft.rfft(x)
    np.testing.assert_allclose(tf.signal.irfft(spec).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(tf.signal.irfft(spec, [7]).numpy(), np.fft.irfft(spec, 7), atol=1e-12)
    y = rng.standard_normal((2, 4, 6))
    np.testing.assert_allclose(tf.signal.rfft2d(y).numpy(), np.fft.rfft2(y), atol=1e-12)
    np.testing.assert_allclose(tf.signal.irfft2d(np.fft.rfft2(y)).numpy(), y, atol=1e-12)
    np.testing.assert_allclose(tf.signal.rfft3d(y).numpy(), np.fft.rfftn(y), atol=1e-12)
    np.testing.assert_allclose(tf.signal.irfft3d(np.fft.rfftn(y), [2, 4, 6]).numpy(), y, atol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match="RFFT"):
        tf.signal.rfft(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="FFT"):
        tf.signal.fft(tf.constant([1.0, 2.0]))


def test_fftshift():
    x = np.arange(10).reshape(2, 5)
    np.testing.assert_array_equal(tf.signal.fftshift(x).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(tf.signal.ifftshift(x, axes=1).numpy(), np.fft.ifftshift(x, axes=1))


def test_windows():
    n = np.arange(8)
    np.testing.assert_allclose(tf.signal.hann_window(8).numpy(), 0.5 - 0.5 * np.cos(2 * np.pi * n / 8), atol=1e-7)
    np.testing.assert_allclose(tf.signal.hann_window(8, periodic=False).numpy(), np.hanning(8), atol=1e-7)
    np.testing.assert_allclose(tf.signal.hamming_window(7, periodic=False, dtype=tf.float64).numpy(),
                               np.hamming(7), atol=1e-12)
    assert tf.signal.hann_window(1).numpy().tolist() == [1.0]


def test_frame_and_stft():
    sig = tf.range(10)
    np.testing.assert_array_equal(tf.signal.frame(sig, 3, 2).numpy(), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6, 7, 8]])
    np.testing.assert_array_equal(tf.signal.frame(tf.range(5), 3, 2, pad_end=True, pad_value=-1).numpy(),
                                  [[0, 1, 2], [2, 3, 4], [4, -1, -1]])
    two = tf.signal.frame(np.arange(12).reshape(2, 6), 4, 2, axis=1)
    assert two.shape == [2, 2, 4]
    x = rng.standard_normal((2, 64))
    out = tf.signal.stft(x, frame_length=16, frame_step=8)
    assert out.shape == [2, 7, 9] and out.dtype == tf.complex128
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)
    np.testing.assert_allclose(out.numpy()[1, 3], np.fft.rfft(x[1, 24:40] * w), atol=1e-10)
