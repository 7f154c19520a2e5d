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
from .arguments import Fallback, array, as_tuple, check_order
from .layout import layout_of, strides_of
from .linear_algebra import diagonal


def _like(a, dtype, shape) -> tuple[np.dtype, tuple[int, ...]]:
    x = array(a)
    return (x.dtype if dtype is None else np.dtype(dtype)), (
        x.shape if shape is None else as_tuple(shape)
    )


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    return _laid_out(a, order, shape, lambda s: _creation.zeros(s, dtype=dtype, device=device))


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    return _laid_out(a, order, shape, lambda s: _creation.ones(s, dtype=dtype, device=device))


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(prototype, dtype, shape)
    return _laid_out(
        prototype, order, shape, lambda s: _creation.empty(s, dtype=dtype, device=device)
    )


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    dtype, shape = _like(a, dtype, shape)
    if isinstance(fill_value, Array):
        filled = _cast(fill_value, dtype)
        return _laid_out(a, order, shape, lambda s: broadcast_to(filled, s), copied=True)
    # numpy copies the fill value in with unsafe casting (2.7 fills an integer array with 2;
    # a Python int the dtype cannot hold raises OverflowError, as numpy's copyto does)
    with np.errstate(over="ignore", invalid="ignore"):
        value = _filled(fill_value, dtype)
    if value.ndim:
        return _laid_out(a, order, shape, lambda s: broadcast_to(array(value), s), copied=True)
    return _laid_out(
        a, order, shape, lambda s: _creation.full(s, value.item(), dtype=dtype, device=device)
    )


def _laid_out(a, order, shape: tuple[int, ...], make, copied: bool = False) -> Array:
    """`make(shape)` laid out as numpy lays out the new array of a *_like function (a later
    sum adds in its memory order, and numpy's temporary elision keeps it): a copy in that
    axis order (the orders pass lays it out so; a device computing every value in C order
    drops it). `copied`: `make` gives a broadcast of the fill value, which numpy copies into
    the new array (a C copy where that order is C's)."""
    axes = _like_axes(a, order, shape)
    made = make(shape)
    if axes is None and not (copied and len(shape) > 1):
        return made
    return _creation.copy_node(made, "C" if axes is None else axes, made._node.source)


def _like_axes(a, order, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The axes (slowest in memory first) of numpy's new array of `np.zeros_like(a,
    order=order, shape=shape)` and its kin; None where they are C order's. "K" (and None)
    keeps a's layout where the shape has a's dims (else C), "A" is F where a is
    F-contiguous, "F" is F."""
    code = order.upper() if isinstance(order, str) else "K" if order is None else order
    check_order(code, "CFAK")
    if len(shape) < 2 or code == "C":
        return None
    reverse = tuple(reversed(range(len(shape))))
    if code == "F":
        return reverse
    x = array(a)
    if code == "K" and len(shape) != x.ndim or x.ndim < 2:
        return None
    if code == "A":
        return reverse if layout_of(x).fortran else None
    # NOTE: numpy's new array keeps the prototype's strides sorted by size, largest first
    # (PyArray_CreateSortedStridePerm, stable): a broadcast axis (stride 0) goes last, where a
    # ufunc's iterator would give it no say
    strides = strides_of(x)
    axes = tuple(sorted(range(x.ndim), key=lambda a: -abs(strides[a])))
    return None if axes == tuple(range(x.ndim)) else axes


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
    if copy and not sparse and len(shape) > 1:
        # NOTE: numpy copies each broadcast grid into C-ordered memory, which has its say in a
        # ufunc's order (`X + Z.T` is C-ordered); a broadcast would have none
        grids = [_creation.copy_node(grid, "C", grid._node.source) for grid in grids]
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
