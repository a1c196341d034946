"""``tfcore.ops.array_ops``: TF's array-op namespace, one import for the array ops of every subject.

The ops live in modules by subject: :mod:`~tfcore.ops.array_creation_ops` (constant, zeros, fill, range,
...), :mod:`~tfcore.ops.array_shape_ops` (reshape, transpose, concat, pad, ...),
:mod:`~tfcore.ops.array_gather_scatter_ops` (gather, scatter_nd, boolean_mask, one_hot, ...),
:mod:`~tfcore.ops.array_sort_ops` (sort, argsort, unique) and :mod:`~tfcore.ops.array_slicing_ops`
(slice, strided_slice, ``Tensor.__getitem__``). Over a hundred modules and user programs import
``array_ops`` as TF's own code does, so it stays as this re-export.
"""

from . import array_creation_ops, array_gather_scatter_ops, array_shape_ops, array_slicing_ops, array_sort_ops
from .array_creation_ops import *
from .array_gather_scatter_ops import *
from .array_gather_scatter_ops import _gather_dense_gradient  # noqa: F401 - read here by function/autograph
from .array_shape_ops import *
from .array_slicing_ops import *
from .array_sort_ops import *

__all__ = [*array_creation_ops.__all__, *array_shape_ops.__all__, *array_gather_scatter_ops.__all__,
           *array_sort_ops.__all__, *array_slicing_ops.__all__]
