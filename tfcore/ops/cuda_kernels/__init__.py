"""CUDA implementations of the heavy op families, backed by our kernels in kernels/*.cu.

Each module computes launch geometry from tile constants that mirror the kernel's
``#define``s (tests/kernels/test_tile_constants.py ties them) and registers its launchers as
"cuda" kernel candidates of the ops (docs/architecture.md §3, §4): eligible for float32/float16 inputs
within the launch limits, tried before the op's generic xp code, which runs everything else.
Registration order does not matter.
"""

from . import batch_norm, bias_add, conv, fused, matmul, pool, reduce, segment, softmax
