"""tfcore: TensorFlow 2's API on NumPy (CPU) and CuPy with our own CUDA kernels (GPU).

``import tfcore as tf`` and run TF2 code. This module only re-exports; the code
lives in the layer that owns it (see docs/architecture.md §1).
"""

from . import _source_tree

_source_tree.install()  # a plain copy of the checkout: tfcore.kernels / tfcore.distribute from its folders
from ._version import __version__
from .framework import dtypes as _dtypes_mod
from .framework.dtypes import *
from .framework.dtypes import DType, as_dtype
from .framework.tensor import Tensor, is_tensor
from .framework.tensor_conversion_registry import register_tensor_conversion_function
from .framework.tensor_shape import TensorShape
from .framework.tensor_spec import TensorSpec
from .framework.variables import Variable, VariableAggregation, VariableSynchronization, variable_creator_scope
from .framework.context import device, name_scope
from .framework.device_spec import DeviceSpec
from . import ops as _ops
from .ops.array_ops import *
from .ops.math_ops import *
from .ops.math_ops import abs, pow, round
from .ops.reduce_ops import *
from .ops.logging_ops import print
from .ops.tensor_array_ops import TensorArray
from .ops.misc_ops import *
from .ops.script_ops import vectorized_map
from .autodiff import GradientTape, UnconnectedGradients, custom_gradient, gradients
from .autodiff.gradient_utils import grad_pass_through, no_gradient, recompute_grad
from .module import Module
from . import errors, math, dtypes, nest

newaxis = None


from .framework.tracing import executing_eagerly
from .function import function
from .function import (case, cond, control_dependencies, foldl, foldr, init_scope, map_fn, numpy_function,
                       py_function, scan, switch_case, while_loop)

from . import nn, random, image, linalg, debugging, config, data, keras, distribute, autograph
from . import bitwise, ragged, version
from . import experimental  # tf.experimental.DynamicRaggedShape, RowPartition
from . import types  # tf.types.experimental.TraceType
from . import profiler
from . import raw_ops  # tf.raw_ops: ops by their TF names (FusedBatchNormV3, ...)
import sys as _sys  # noqa: E402
from . import compat  # tf.compat; install_as_tensorflow() is opt-in (importing it aliases nothing)
compat.v2 = _sys.modules[__name__]  # tf.compat.v2 is the TF2 API itself (TensorBoard's hparams plugin uses it)
from .debugging import Assert, assert_equal, assert_greater, assert_less, assert_rank  # TF2's top-level aliases
from .ragged import RaggedTensor, RaggedTensorSpec
from .keras import initializers, losses, metrics, optimizers  # TF2's tf.losses ... are Keras'
from . import io, train, sparse, summary, strings, saved_model
from . import export as _export  # registers Model.export's ONNX / TFLite / TF.js formats
from .framework.sparse_tensor import SparseTensor, SparseTensorSpec
from .framework.indexed_slices import IndexedSlices
from .ops.string_hash_ops import fingerprint
from .ops.string_ops import as_string
from .ops.spectral_ops import complex
from . import lookup, sets, signal
from .ops.set_ops import edit_distance
from .ops.linalg_decomposition_ops import eig, eigvals, matrix_square_root
from .framework.tracing import inside_function
from .framework.type_spec import TypeSpec, type_spec_from_value
from .io.tensor_serialization import make_ndarray, make_tensor_proto
from .keras.initializers import Zeros as zeros_initializer, Ones as ones_initializer  # TF2's tf.*_initializer
from .keras.initializers import Constant as constant_initializer, RandomNormal as random_normal_initializer
from .keras.initializers import RandomUniform as random_uniform_initializer
