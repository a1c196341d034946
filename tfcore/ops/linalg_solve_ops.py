"""``tf.linalg``'s structured solvers, composed of registered ops (so they differentiate through them):
tridiagonal solve and matmul in TF's three diagonal formats, banded triangular solve, and
``tf.linalg.experimental.conjugate_gradient`` on a :class:`LinearOperator`."""

import collections

import numpy as np

from ..framework import dtypes
from . import array_ops as _a
from . import linalg_ops as _l
from . import math_ops as _m
from . import reduce_ops as _r
from ._common import as_tensor

__all__ = ["tridiagonal_solve", "tridiagonal_matmul", "banded_triangular_solve", "conjugate_gradient"]


# -- tridiagonal and banded ----------------------------------------------------------------------------------

def _compact(diagonals, diagonals_format):
    """``(super, main, sub)`` each ``[..., M]`` from TF's ``compact`` / ``sequence`` / ``matrix`` formats."""
    if diagonals_format == "compact":
        d = as_tensor(diagonals)
        if d.ndim < 2 or d.shape[-2] != 3:
            raise ValueError(f"Expected diagonals to have shape [..., 3, M] in the compact format, "
                             f"got {d.shape.as_list()}")
        return d[..., 0, :], d[..., 1, :], d[..., 2, :]
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3 in the sequence format.")
        sup, main, sub = (as_tensor(x) for x in diagonals)
        if not (sup.shape.as_list() == main.shape.as_list() == sub.shape.as_list()):
            raise ValueError("Tensors representing the three diagonals must have the same shape, got "
                             f"{[sup.shape.as_list(), main.shape.as_list(), sub.shape.as_list()]}")
        return sup, main, sub
    if diagonals_format == "matrix":
        m = as_tensor(diagonals)
        if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
            raise ValueError(f"Expected last two dimensions of diagonals to be the same, got {m.shape.as_list()}")
        zero = _a.zeros_like(m[..., :1, 0])
        sup = _a.concat([_l.diag_part(m, k=1), zero], axis=-1)
        sub = _a.concat([zero, _l.diag_part(m, k=-1)], axis=-1)
        return sup, _l.diag_part(m), sub
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _tridiag_dense(sup, main, sub):
    m = main.shape[-1]
    out = _l.diag(main)
    if m > 1:
        out = _m.add(out, _l.diag(sup[..., :-1], k=1, num_rows=m, num_cols=m))
        out = _m.add(out, _l.diag(sub[..., 1:], k=-1, num_rows=m, num_cols=m))
    return out


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """``tf.linalg.tridiagonal_solve``: solve ``A X = rhs`` for tridiagonal ``A`` given as ``compact``
    (``[..., 3, M]``: superdiagonal with its last element ignored, diagonal, subdiagonal with its first element
    ignored), ``sequence`` (three ``[..., M]`` tensors) or ``matrix`` (``[..., M, M]``). ``rhs`` is
    ``[..., M, K]`` or ``[..., M]`` (``[..., K, M]`` with ``transpose_rhs``). Solved with partial pivoting
    (``partial_pivoting=False`` gives the same solution for a non-singular system); a singular system raises
    ``InvalidArgumentError``; ``perturb_singular`` is not supported."""
    if perturb_singular:
        raise ValueError("perturb_singular=True is not supported by tfcore's tridiagonal_solve")
    sup, main, sub = _compact(diagonals, diagonals_format)
    rhs = as_tensor(rhs, main.dtype) if not hasattr(rhs, "dtype") else as_tensor(rhs)
    vector = rhs.ndim == main.ndim
    if vector:
        rhs = _a.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = _l._t(rhs)
    if conjugate_rhs:
        rhs = _m.conj(rhs)
    if rhs.shape[-2] != main.shape[-1]:
        raise ValueError(f"rhs must have {main.shape[-1]} rows to match the diagonals, got {rhs.shape.as_list()}")
    x = _l.solve(_tridiag_dense(sup, main, sub), rhs)
    return _a.squeeze(x, [-1]) if vector else x


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``tf.linalg.tridiagonal_matmul``: ``A @ rhs`` for tridiagonal ``A`` (formats as :func:`tridiagonal_solve`),
    ``rhs`` of shape ``[..., M, N]``; computed from the three diagonals without forming ``A``."""
    sup, main, sub = _compact(diagonals, diagonals_format)
    rhs = as_tensor(rhs, main.dtype) if not hasattr(rhs, "dtype") else as_tensor(rhs)
    if rhs.ndim < 2 or rhs.shape[-2] != main.shape[-1]:
        raise ValueError(f"rhs must have shape [..., {main.shape[-1]}, N], got {rhs.shape.as_list()}")
    zero_row = _a.zeros_like(rhs[..., :1, :])
    nxt = _a.concat([rhs[..., 1:, :], zero_row], axis=-2)
    prev = _a.concat([zero_row, rhs[..., :-1, :]], axis=-2)
    col = lambda d: _a.expand_dims(d, -1)  # noqa: E731
    zero = _a.zeros_like(main[..., :1])
    sup = _a.concat([sup[..., :-1], zero], axis=-1)
    sub = _a.concat([zero, sub[..., 1:]], axis=-1)
    return _m.add(_m.add(_m.multiply(col(main), rhs), _m.multiply(col(sup), nxt)), _m.multiply(col(sub), prev))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.banded_triangular_solve``: solve with a banded triangular matrix given as ``bands``
    ``[..., K, M]``: with ``lower`` row ``k`` holds subdiagonal ``k`` (row 0 the diagonal), right-aligned;
    otherwise row ``K - 1 - k`` holds superdiagonal ``k`` (the last row the diagonal), left-aligned
    (TF's ``LEFT_RIGHT`` alignment)."""
    bands = as_tensor(bands)
    rhs = _l._rhs(bands, rhs)
    if bands.ndim < 2:
        raise ValueError(f"bands must have rank >= 2, got {bands.shape.as_list()}")
    k_rows, m = bands.shape[-2], bands.shape[-1]
    if rhs.ndim < 2 or rhs.shape[-2] != m:
        raise ValueError(f"rhs must have shape [..., {m}, N], got {rhs.shape.as_list()}")
    if k_rows < 1:
        raise ValueError("bands must hold at least the diagonal")
    dense = None
    for k in range(min(k_rows, m)):
        if lower:
            d = bands[..., k, k:]
            part = _l.diag(d, k=-k, num_rows=m, num_cols=m)
        else:
            d = bands[..., k_rows - 1 - k, :m - k]
            part = _l.diag(d, k=k, num_rows=m, num_cols=m)
        dense = part if dense is None else _m.add(dense, part)
    return _l.triangular_solve(dense, rhs, lower=lower, adjoint=adjoint)


# -- experimental ----------------------------------------------------------------------------------------------

CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20,
                       name="conjugate_gradient"):
    """``tf.linalg.experimental.conjugate_gradient``: solve ``operator x = rhs`` for a self-adjoint
    positive-definite :class:`LinearOperator`; stops after ``max_iter`` steps or when every residual norm is
    at most ``tol * ||rhs||``. Returns ``CGState(i, x, r, p, gamma)``."""
    rhs = as_tensor(rhs)

    def dot(u, w):
        return _r.reduce_sum(_m.multiply(_m.conj(u), w), axis=-1)

    n = rhs.shape[-1]
    if x is None:
        x = _a.zeros_like(rhs)
    else:
        x = as_tensor(x, rhs.dtype)
    rhs = _a.broadcast_to(rhs, x.shape.as_list())
    limit = _m.multiply(_r.norm(rhs, axis=-1), tol)
    r = _m.subtract(rhs, operator.matvec(x))
    p = r if preconditioner is None else preconditioner.matvec(r)
    gamma = dot(r, p)
    i = 0
    del n
    while i < max_iter and bool(np.any(_r.norm(r, axis=-1).numpy() > limit.numpy())):
        z = operator.matvec(p)
        alpha = _m.divide(gamma, dot(p, z))
        x = _m.add(x, _m.multiply(_a.expand_dims(alpha, -1), p))
        r = _m.subtract(r, _m.multiply(_a.expand_dims(alpha, -1), z))
        q = r if preconditioner is None else preconditioner.matvec(r)
        new_gamma = dot(r, q)
        beta = _m.divide(new_gamma, gamma)
        gamma = new_gamma
        p = _m.add(q, _m.multiply(_a.expand_dims(beta, -1), p))
        i += 1
    return CGState(as_tensor(i, dtypes.int32), x, r, p, gamma)
