"""numpy 2's Array API functions in np.linalg (diagonal, trace, vector_norm, matrix_norm, outer,
multi_dot, pinv, ...), recorded as numpy composes them: from the twins of its other functions,
so each gives numpy's numbers where those do.

(np.linalg.matmul and np.linalg.vecdot call numpy's ufuncs: they reach Array.__array_ufunc__.)
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtypes
from .._api import elementwise as _elementwise
from .._api.elementwise import where
from .._api.linear_algebra import matmul
from .._api.linear_algebra import matrix_transpose as _matrix_transpose
from .._api.manipulation import expand_dims
from . import linear_algebra as _products
from . import statistics as _statistics
from .arguments import Fallback, array, as_tuple
from .linear_algebra import dot, norm, svd
from .manipulation import ravel, reshape, transpose

_UNSET = object()

NAMES = (
    "diagonal",
    "trace",
    "matrix_transpose",
    "outer",
    "cross",
    "tensordot",
    "matrix_norm",
    "vector_norm",
    "svdvals",
    "multi_dot",
    "matrix_rank",
    "pinv",
    "cond",
)


def diagonal(x, /, *, offset=0):
    return _products.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    return _products.trace(x, offset, -2, -1, dtype)


def matrix_transpose(x, /):
    x = array(x)
    if x.ndim < 2:
        raise ValueError("matrix_transpose: x must be at least 2-dimensional")
    return _matrix_transpose(x)


def outer(x1, x2, /):
    a, b = array(x1), array(x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer: x1 and x2 must be 1-dimensional, got {a.ndim} and {b.ndim}")
    return _products.outer(a, b)


def cross(x1, x2, /, *, axis=-1):
    a, b = array(x1), array(x2)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross: x1 and x2 must hold 3-element vectors along axis")
    if axis != -1:
        raise Fallback("cross along another axis")
    return _products.cross(a, b)


def tensordot(x1, x2, /, *, axes=2):
    return _products.tensordot(x1, x2, axes)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    # Note (numpy): a norm over one axis of x raveled, or of x with the normed axes moved first
    # and merged (its sums add in that memory's order)
    x = array(x)
    shape = list(x.shape)
    if axis is None:
        flat, along = ravel(x), 0
    elif isinstance(axis, tuple):
        axes = tuple(a % x.ndim for a in axis)
        rest = tuple(i for i in range(x.ndim) if i not in axes)
        merged = (math.prod(x.shape[i] for i in axes), *(x.shape[i] for i in rest))
        flat, along = reshape(transpose(x, axis + rest), merged), 0
    else:
        flat, along = x, axis
    result = norm(flat, ord=ord, axis=along)
    if not keepdims:
        return result
    for i in range(len(shape)) if axis is None else as_tuple(axis):
        shape[i] = 1
    return reshape(result, tuple(shape))


def svdvals(x, /):
    return svd(x, compute_uv=False)


def multi_dot(arrays, *, out=None):
    if out is not None:
        raise Fallback("multi_dot into out=")
    if len(arrays) < 2:
        raise ValueError("multi_dot: expecting at least two arrays")
    if len(arrays) == 2:
        return dot(arrays[0], arrays[1])
    items = [array(a) for a in arrays]
    first, last = items[0].ndim, items[-1].ndim
    if first == 1:
        items[0] = reshape(items[0], (1, -1))
    if last == 1:
        items[-1] = reshape(items[-1], (-1, 1))
    if any(item.ndim != 2 for item in items):
        raise ValueError("multi_dot: the arrays must be 2-dimensional (the ends may be 1)")
    result = _chained(items, _chain_order([i.shape[0] for i in items] + [items[-1].shape[1]]))
    if first == 1 and last == 1:
        return result[0, 0]
    return ravel(result) if first == 1 or last == 1 else result


def _chain_order(sizes: list[int]) -> dict:
    """numpy's order of a chain of matrix products (rows of each, then the last's columns): the
    split of each run i..j with the fewest multiplications, the first split of equal costs
    (for three matrices, numpy's own cost formula picks the same)."""
    n = len(sizes) - 1
    cost, split = {(i, i): 0 for i in range(n)}, {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i, j] = math.inf
            for k in range(i, j):
                q = cost[i, k] + cost[k + 1, j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if q < cost[i, j]:
                    cost[i, j], split[i, j] = q, k
    return split


def _chained(items: list, split: dict, i: int = 0, j: int | None = None):
    j = len(items) - 1 if j is None else j
    if i == j:
        return items[i]
    k = split[i, j]
    return dot(_chained(items, split, i, k), _chained(items, split, k + 1, j))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise ValueError("matrix_rank: tol and rtol can't both be set")
    x = _matrices(A, hermitian)
    s = svd(x, compute_uv=False)
    if tol is None:
        if rtol is None:
            rtol = max(x.shape[-2:]) * np.finfo(s.dtype).eps
        else:
            rtol = expand_dims(array(rtol), axis=-1)
        tol = _elementwise.multiply(_statistics.max(s, axis=-1, keepdims=True), rtol)
    else:
        tol = expand_dims(array(tol), axis=-1)
    return _statistics.count_nonzero(_elementwise.greater(s, tol), axis=-1)


def pinv(a, rcond=None, hermitian=False, *, rtol=_UNSET):
    x = _matrices(a, hermitian)
    if rcond is not None and rtol is not _UNSET:
        raise ValueError("pinv: rtol and rcond can't both be set")
    if rcond is None:
        # Note (numpy): its default cutoff is 1e-15 (rtol=None: the standard's)
        rcond = 1e-15 if rtol is _UNSET else rtol
        rcond = max(x.shape[-2:]) * np.finfo(x.dtype).eps if rcond is None else rcond
    u, s, vh = svd(_elementwise.conj(x) if x.dtype in _dtypes.COMPLEX else x, False)
    cutoff = _elementwise.multiply(
        expand_dims(array(rcond), axis=-1), _statistics.max(s, axis=-1, keepdims=True)
    )
    inverted = where(_elementwise.greater(s, cutoff), _elementwise.divide(1, s), 0)
    scaled = _elementwise.multiply(expand_dims(inverted, axis=-1), _matrix_transpose(u))
    return matmul(_matrix_transpose(vh), scaled)


def cond(x, p=None):
    m = _matrices(x, False)
    if p not in (None, 2, -2):
        raise Fallback("cond of another norm than the 2-norm")
    s = svd(m, compute_uv=False)
    first, last = s[..., 0], s[..., -1]
    r = _elementwise.divide(last, first) if p == -2 else _elementwise.divide(first, last)
    # Note (numpy): a NaN ratio is inf unless x holds a NaN
    nan = _elementwise.isnan(r)
    held = _statistics.any(_elementwise.isnan(m), axis=(-2, -1))
    return where(_elementwise.logical_and(nan, _elementwise.logical_not(held)), np.inf, r)


def _matrices(a, hermitian: bool):
    """a as a stack of non-empty matrices these functions take lazily."""
    x = array(a)
    if x.ndim < 2 or 0 in x.shape[-2:] or hermitian:
        raise Fallback("a vector, an empty matrix or hermitian=True")
    return x
