"""Op families, all executed through :func:`tfcore.ops.registry.execute`.

Importing this package registers every op and installs the Tensor operators.
"""

import warnings

from .registry import REGISTRY, Op, execute, get_op
from .array_ops import *
from .math_ops import *
from .reduce_ops import *
from . import fused_ops  # noqa: F401 - registers _FusedMatMul/_FusedConv2D (Keras Dense/Conv2D run them)
from . import cuda_kernels  # noqa: F401 - registers our CUDA kernels as candidates of the heavy ops
from . import variable_scatter_ops  # noqa: F401 - installs tf.Variable.scatter_* (atomic sparse updates)

# TF's kernels are silent on floating-point exceptions (0/0 is NaN, 1/0 inf, with no message); NumPy warns.
# Its warnings raised from tfcore's own modules are ignored; a user's NumPy code still warns as it did.
warnings.filterwarnings("ignore", message=r"(invalid value|divide by zero|overflow|underflow) encountered",
                        category=RuntimeWarning, module=r"tfcore\.")
