"""numpy's creation functions that take arrays: the *_like family, meshgrid, diag, tril, triu.

(Functions that take no array, np.zeros or np.linspace, never reach __array_function__.)
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api import creation as _creation
from .._api.data_types import astype
from .._api.elementwise import where
from .._api.manipulation import broadcast_to, concat, reshape
from .._array import Array
from ..linalg import diagonal
from .arguments import Fallback, array, as_tuple


def _like(a, dtype, shape) -> tuple[np.dtype, tuple[int, ...]]:
    x = array(a)
    return (x.dtype if dtype is None else np.dtype(dtype)), (
        x.shape if shape is None else as_tuple(shape)
    )


# Note: order= and subok= do not change values; a lazy array has no memory order.
def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    return _creation.zeros(shape, dtype=dtype, device=device)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    return _creation.ones(shape, dtype=dtype, device=device)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(prototype, dtype, shape)
    return _creation.empty(shape, dtype=dtype, device=device)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    if isinstance(fill_value, Array):
        return broadcast_to(_cast(fill_value, dtype), shape)
    # numpy copies the fill value in with unsafe casting (2.7 fills an integer array with 2;
    # a Python int the dtype cannot hold raises OverflowError, as numpy's copyto does)
    with np.errstate(over="ignore", invalid="ignore"):
        value = _filled(fill_value, dtype)
    if value.ndim:
        return broadcast_to(array(value), shape)
    return _creation.full(shape, value.item(), dtype=dtype, device=device)


def _filled(fill_value, dtype: np.dtype) -> np.ndarray:
    """`fill_value` as numpy's full_like copies it into an array of `dtype` (copyto, unsafe
    casting): a sequence converted first, a number into one element."""
    if np.ndim(fill_value):
        return np.asarray(fill_value).astype(dtype)
    value = np.empty((), dtype)
    np.copyto(value, fill_value, casting="unsafe")
    return value


def _cast(x: Array, dtype: np.dtype) -> Array:
    if x.dtype in _dtypes.COMPLEX and dtype not in _dtypes.COMPLEX:
        raise Fallback("a complex fill value for a real array")
    return astype(x, dtype) if x.dtype != dtype else x


# -- grids and diagonals ----------------------------------------------------------------------
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    vectors = [reshape(array(x), (-1,)) for x in xi]
    axes = list(range(len(vectors)))
    if indexing == "xy" and len(vectors) > 1:
        axes[0], axes[1] = 1, 0  # Cartesian indexing: the first two axes swap
    shape = [0] * len(vectors)
    for v, axis in zip(vectors, axes, strict=True):
        shape[axis] = v.shape[0]
    grids = []
    for v, axis in zip(vectors, axes, strict=True):
        lifted = reshape(v, tuple(n if i == axis else 1 for i, n in enumerate(shape)))
        grids.append(lifted if sparse else broadcast_to(lifted, tuple(shape)))
    return tuple(grids)


def diag(v, k=0):
    x = array(v)
    if x.ndim == 2:
        return diagonal(x, offset=k)
    if x.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    return _diagonal_matrix(x, k)


def _diagonal_matrix(x: Array, k: int) -> Array:
    """numpy's diag of a vector: x on the k-th diagonal of an n x n zero matrix, recorded as
    a where() over an eye mask (x padded to n, laid along the rows above, the columns below)."""
    n = x.shape[0] + abs(k)
    padded = concat([x, _creation.zeros((abs(k),), dtype=x.dtype)]) if k else x
    along = reshape(padded, (n, 1) if k >= 0 else (1, n))
    mask = _creation.eye(n, n, k=k, dtype=_dtypes.bool)
    return where(mask, along, _creation.zeros((n, n), dtype=x.dtype))


def tril(m, k=0):
    return _creation.tril(_matrices(m, "tril"), k=k)


def triu(m, k=0):
    return _creation.triu(_matrices(m, "triu"), k=k)


def _matrices(m, func: str) -> Array:
    x = array(m)
    if x.ndim < 2:
        raise Fallback(f"{func} of a {x.ndim}-d array (numpy broadcasts it to a matrix)")
    return x
