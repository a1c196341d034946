"""``tf.signal``: FFTs (with gradients), fftshift, windows, framing and the STFT."""

