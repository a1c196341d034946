"""NumPy references for the CUDA kernels in kernels/*.cu (docs/architecture.md §4): the tests use the same float64
definitions as ``tfcore selftest``, which keeps them in the package (``tfcore/selftest/references.py``,
written from the math, independently of the kernels and of the op code in tfcore.ops)."""

from tfcore.selftest.references import *  # noqa: F403
