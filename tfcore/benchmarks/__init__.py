"""Benchmarks shipped with the package (``tfcore bench``): kernel micro-benchmarks next to vendor routines
(``kernel_bench``), training steps next to PyTorch (``training_bench``) and the CPU convolution matrix
next to TensorFlow and PyTorch (``conv_bench``, its per-framework worker ``conv_bench_worker``). They sit
in the API layer: they import the public ``tfcore`` package like a user's script."""
