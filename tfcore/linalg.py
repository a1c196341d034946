"""``tf.linalg``."""

from . import linalg_experimental as experimental
from .ops.array_ops import eye
from .ops.linalg_decomposition_ops import (
    eig,
    eigh_tridiagonal,
    eigvals,
    logm,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_square_root,
    sqrtm,
)
from .ops.linalg_ops import (
    adjoint,
    band_part,
    cholesky,
    cholesky_solve,
    cross,
    det,
    diag,
    diag_part,
    eigh,
    eigvalsh,
    expm,
    inv,
    l2_normalize,
    logdet,
    lstsq,
    matrix_rank,
    matrix_transpose,
    matvec,
    normalize,
    pinv,
    qr,
    set_diag,
    slogdet,
    solve,
    svd,
    tensor_diag,
    tensor_diag_part,
    trace,
    triangular_solve,
)
from .ops.linalg_solve_ops import banded_triangular_solve, tridiagonal_matmul, tridiagonal_solve
from .ops.linear_operators import *
from .ops.math_ops import einsum, matmul, tensordot
from .ops.reduce_ops import global_norm, norm
