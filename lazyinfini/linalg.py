"""The linalg extension (li.linalg): each function records one LINALG node, run by the executor
as one call into array_api_compat.numpy.linalg.

Functions returning several arrays (eig, eigh, qr, slogdet, svd) record one node per field,
each picking its item of the library's result with ("_index", i).
Spec: https://data-apis.org/array-api/latest/extensions/linear_algebra_functions.html
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import _dtypes
from ._api.checks import broadcast_shapes as common_shape
from ._api.checks import (
    check_array,
    check_dtype_arg,
    check_dtype_in,
    check_flag,
    check_int,
    error,
    normalize_axis,
)
from ._api.elementwise import conform
from ._api.linear_algebra import (
    _promoted,
    _vector_axis,
    matmul,
    matrix_transpose,
    tensordot,
    vecdot,
)
from ._api.views import link
from ._array import Array, implicit_value, record
from ._graph import Op, caller_source, link_siblings
from ._graph.views import diagonal_length

__all__ = [
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]

_SPEC = "https://data-apis.org/array-api/latest/extensions/generated/array_api.linalg"


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# -- recording ---------------------------------------------------------------------------------


def _call(name: str, srcs, shape, dtype, source: str, index=None, **kwargs) -> Array:
    """A LINALG node calling linalg.<name>(*srcs, **kwargs), item `index` of its result."""
    arg = (("_function", name), *sorted(kwargs.items()))
    if index is not None:
        arg += (("_index", index),)
    return record(Op.LINALG, tuple(srcs), shape, dtype, arg, source)


def _linked(items: tuple) -> tuple:
    """The arrays of one library call's items (svd's U, S and Vh), their nodes linked: computing
    one of them computes the others arrays still hold in the same call (_cache.py)."""
    link_siblings([item._n for item in items])
    return items


def _matrices(func: str, x, category: str = "floating", square: bool = False) -> Array:
    """x checked as a stack of matrices (..., M, N) of a `category` dtype."""
    check_array(func, "x", x)
    check_dtype_in(func, "x", x.dtype, category)
    if x.ndim < 2:
        raise error(ValueError, func, f"x must be at least 2-d, got shape {x.shape}")
    if square and x.shape[-1] != x.shape[-2]:
        raise error(ValueError, func, f"x must hold square matrices, got shape {x.shape}")
    return x


def _real(dtype: np.dtype) -> np.dtype:
    """The real dtype of `dtype`'s precision (complex64 -> float32)."""
    return {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}.get(
        dtype, dtype
    )


def _complex(dtype: np.dtype) -> np.dtype:
    """The complex dtype of `dtype`'s precision (half floats widen to complex64)."""
    if dtype in _dtypes.COMPLEX:
        return dtype
    return _dtypes.complex128 if dtype == _dtypes.float64 else _dtypes.complex64


# -- one matrix in, one array out --------------------------------------------------------------


def cholesky(x, /, *, upper=False) -> Array:
    """The Cholesky factor of Hermitian positive-definite matrices."""
    x = _matrices("cholesky", x, square=True)
    upper = check_flag("cholesky", "upper", upper)
    return _call("cholesky", (x._node,), x.shape, x.dtype, caller_source(), upper=upper)


def det(x, /) -> Array:
    """The determinant of square matrices."""
    x = _matrices("det", x, square=True)
    return _call("det", (x._node,), x.shape[:-2], x.dtype, caller_source())


def inv(x, /) -> Array:
    """The inverse of square matrices."""
    x = _matrices("inv", x, square=True)
    return _call("inv", (x._node,), x.shape, x.dtype, caller_source())


def diagonal(x, /, *, offset=0) -> Array:
    """The offset diagonal of matrices."""
    x = _matrices("diagonal", x, category="any")
    rows, cols = x.shape[-2:]
    offset = _offset("diagonal", offset, rows, cols)
    shape = x.shape[:-2] + (diagonal_length(rows, cols, offset),)
    # Note: a writable view of x (numpy's is read-only), so `d += 1` reaches x's diagonal.
    return link(x, _call("diagonal", (x._node,), shape, x.dtype, caller_source(), offset=offset))


def trace(x, /, *, offset=0, dtype=None) -> Array:
    """The sum along the offset diagonal of matrices."""
    source = caller_source()
    x = _matrices("trace", x, category="numeric")
    offset = _offset("trace", offset, *x.shape[-2:])
    dtype = _sum_dtype(x.dtype) if dtype is None else check_dtype_arg("trace", dtype)
    # Note (spec): the input is cast to the result dtype before summing (to avoid overflow).
    node = conform(x._node, dtype, x.shape, source)
    return _call("trace", (node,), x.shape[:-2], dtype, source, offset=offset)


def _offset(func: str, offset, rows: int, cols: int) -> int:
    """A diagonal offset; past the matrix it selects nothing, clamped so numpy's C long holds it."""
    return max(-rows, min(check_int(func, "offset", offset), cols))


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """Note (spec): narrow integers sum in the default integer dtype of their signedness."""
    if dtype in _dtypes.SIGNED:
        return _dtypes.DEFAULT_INT
    if dtype in _dtypes.UNSIGNED:
        return _dtypes.uint64
    return dtype


def matrix_power(x, n, /) -> Array:
    """Square matrices raised to the integer power n (n < 0 inverts)."""
    x = _matrices("matrix_power", x, square=True)
    n = check_int("matrix_power", "n", n)
    return _call("matrix_power", (x._node,), x.shape, x.dtype, caller_source(), n=n)


def pinv(x, /, *, rtol=None) -> Array:
    """The Moore-Penrose pseudo-inverse of matrices."""
    x = _matrices("pinv", x)
    shape = x.shape[:-2] + (x.shape[-1], x.shape[-2])
    rtol = _rtol("pinv", rtol, x)
    return _call("pinv", (x._node,), shape, x.dtype, caller_source(), rtol=rtol)


def matrix_rank(x, /, *, rtol=None) -> Array:
    """The rank of matrices: the count of singular values above rtol * the largest."""
    x = _matrices("matrix_rank", x)
    if 0 in x.shape[-2:]:
        raise error(ValueError, "matrix_rank", f"x holds empty matrices, shape {x.shape}")
    rtol = _rtol("matrix_rank", rtol, x)
    shape = x.shape[:-2]
    return _call("matrix_rank", (x._node,), shape, _dtypes.DEFAULT_INT, caller_source(), rtol=rtol)


def _rtol(func: str, rtol, x: Array):
    """A float, None, or the values of an array of tolerances.

    NOTE: an array rtol is computed now: the library takes it as a keyword, not an input.
    """
    if rtol is None or isinstance(rtol, float) or (isinstance(rtol, int) and rtol is not True):
        return None if rtol is None else float(rtol)
    if isinstance(rtol, Array):
        check_dtype_in(func, "rtol", rtol.dtype, "real floating")
        batch = x.shape[:-2]
        if rtol.ndim > len(batch) or common_shape(func, rtol.shape, batch) != batch:
            raise error(ValueError, func, f"rtol of shape {rtol.shape} must broadcast to {batch}")
        return implicit_value(rtol, func, "rtol")
    raise error(TypeError, func, f"rtol must be a float or an array, got {rtol!r}")


# -- norms ---------------------------------------------------------------------------------------

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(x, /, *, keepdims=False, ord="fro") -> Array:
    """The matrix norm of each matrix ('fro', 'nuc', 1, -1, 2, -2, inf, -inf)."""
    x = _matrices("matrix_norm", x)
    keepdims = check_flag("matrix_norm", "keepdims", keepdims)
    if isinstance(ord, bool) or ord not in _MATRIX_ORDS:
        raise error(ValueError, "matrix_norm", f"ord {ord!r} is not one of {_MATRIX_ORDS}")
    shape = x.shape[:-2] + ((1, 1) if keepdims else ())
    ord = ord if isinstance(ord, str) else float(ord)
    source = caller_source()
    return _call(
        "matrix_norm", (x._node,), shape, _real(x.dtype), source, keepdims=keepdims, ord=ord
    )


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2) -> Array:
    """The vector p-norm over axis (all axes when None)."""
    check_array("vector_norm", "x", x)
    check_dtype_in("vector_norm", "x", x.dtype, "floating")
    keepdims = check_flag("vector_norm", "keepdims", keepdims)
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise error(ValueError, "vector_norm", f"ord must be a number, got {ord!r}")
    axes = _norm_axes(x, axis)
    kept = [1 if i in axes else n for i, n in enumerate(x.shape)]
    shape = tuple(kept) if keepdims else tuple(n for i, n in enumerate(x.shape) if i not in axes)
    axis = None if axis is None else axes
    source = caller_source()
    return _call(
        "vector_norm",
        (x._node,),
        shape,
        _real(x.dtype),
        source,
        axis=axis,
        keepdims=keepdims,
        ord=float(ord),
    )


def _norm_axes(x: Array, axis) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(x.ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    normalized = tuple(normalize_axis("vector_norm", a, x.ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise error(ValueError, "vector_norm", f"repeated axis in {axis}")
    return normalized


# -- several arrays out --------------------------------------------------------------------------


def eig(x, /) -> EigResult:
    """Eigenvalues and eigenvectors of square matrices (complex results)."""
    x = _matrices("eig", x, square=True)
    source, dtype = caller_source(), _complex(x.dtype)
    values = _call("eig", (x._node,), x.shape[:-1], dtype, source, index=0)
    vectors = _call("eig", (x._node,), x.shape, dtype, source, index=1)
    return _linked(EigResult(values, vectors))


def eigvals(x, /) -> Array:
    """Eigenvalues of square matrices (complex)."""
    x = _matrices("eigvals", x, square=True)
    return _call("eigvals", (x._node,), x.shape[:-1], _complex(x.dtype), caller_source())


def eigh(x, /) -> EighResult:
    """Eigenvalues (ascending, real) and eigenvectors of Hermitian matrices."""
    x = _matrices("eigh", x, square=True)
    source = caller_source()
    values = _call("eigh", (x._node,), x.shape[:-1], _real(x.dtype), source, index=0)
    vectors = _call("eigh", (x._node,), x.shape, x.dtype, source, index=1)
    return _linked(EighResult(values, vectors))


def eigvalsh(x, /) -> Array:
    """Eigenvalues (ascending, real) of Hermitian matrices."""
    x = _matrices("eigvalsh", x, square=True)
    return _call("eigvalsh", (x._node,), x.shape[:-1], _real(x.dtype), caller_source())


def qr(x, /, mode="reduced") -> QRResult:
    """The QR decomposition of matrices ('reduced' or 'complete')."""
    x = _matrices("qr", x)
    if mode not in ("reduced", "complete"):
        raise error(ValueError, "qr", f"mode must be 'reduced' or 'complete', got {mode!r}")
    *batch, m, n = x.shape
    k = m if mode == "complete" else min(m, n)
    source, batch = caller_source(), tuple(batch)
    q = _call("qr", (x._node,), batch + (m, k), x.dtype, source, index=0, mode=mode)
    r = _call("qr", (x._node,), batch + (k, n), x.dtype, source, index=1, mode=mode)
    return _linked(QRResult(q, r))


def slogdet(x, /) -> SlogdetResult:
    """The sign and the log of the absolute value of determinants."""
    x = _matrices("slogdet", x, square=True)
    source, shape = caller_source(), x.shape[:-2]
    sign = _call("slogdet", (x._node,), shape, x.dtype, source, index=0)
    logabsdet = _call("slogdet", (x._node,), shape, _real(x.dtype), source, index=1)
    return _linked(SlogdetResult(sign, logabsdet))


def svd(x, /, full_matrices=True) -> SVDResult:
    """The singular value decomposition U, S, Vh of matrices."""
    x = _matrices("svd", x)
    *batch, m, n = x.shape
    k, batch = min(m, n), tuple(batch)
    full = check_flag("svd", "full_matrices", full_matrices)
    source = caller_source()
    u_shape, vh_shape = (
        (batch + (m, m), batch + (n, n)) if full else (batch + (m, k), batch + (k, n))
    )
    fields = [(u_shape, x.dtype), (batch + (k,), _real(x.dtype)), (vh_shape, x.dtype)]
    items = (
        _call("svd", (x._node,), shape, dtype, source, index=i, full_matrices=full)
        for i, (shape, dtype) in enumerate(fields)
    )
    return _linked(SVDResult(*items))


def svdvals(x, /) -> Array:
    """The singular values of matrices, descending."""
    x = _matrices("svdvals", x)
    shape = x.shape[:-2] + (min(x.shape[-2:]),)
    return _call("svdvals", (x._node,), shape, _real(x.dtype), caller_source())


# -- two arrays in -------------------------------------------------------------------------------


def solve(x1, x2, /) -> Array:
    """The solution X of x1 @ X = x2 (x2 a vector when 1-d)."""
    source = caller_source()
    x1, x2, dtype = _promoted("solve", x1, x2, category="floating")
    _matrices("solve", x1, square=True)
    if x2.ndim == 0:
        raise error(ValueError, "solve", "x2 must be at least 1-d")
    m = x1.shape[-1]
    rows = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
    if rows != m:
        raise error(ValueError, "solve", f"x1 has shape {x1.shape}, x2 {x2.shape}: {m} != {rows}")
    if x2.ndim == 1:
        shape = x1.shape[:-2] + x2.shape
    else:
        shape = common_shape("solve", x1.shape[:-2], x2.shape[:-2]) + x2.shape[-2:]
    nodes = (conform(x1._node, dtype, x1.shape, source), conform(x2._node, dtype, x2.shape, source))
    return _call("solve", nodes, shape, dtype, source)


def outer(x1, x2, /) -> Array:
    """The outer product of two vectors."""
    source = caller_source()
    x1, x2, dtype = _promoted("outer", x1, x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise error(ValueError, "outer", f"x1 and x2 must be 1-d, got {x1.shape} and {x2.shape}")
    nodes = (conform(x1._node, dtype, x1.shape, source), conform(x2._node, dtype, x2.shape, source))
    return _call("outer", nodes, x1.shape + x2.shape, dtype, source)


def cross(x1, x2, /, *, axis=-1) -> Array:
    """Cross products of 3-element vectors along axis."""
    source = caller_source()
    x1, x2, dtype = _promoted("cross", x1, x2, category="numeric")  # numpy's bool - bool raises
    axis = _vector_axis("cross", x1, x2, axis)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise error(
            ValueError, "cross", f"axis {axis} must have size 3, got {x1.shape} and {x2.shape}"
        )
    shape = common_shape("cross", x1.shape, x2.shape)
    nodes = (conform(x1._node, dtype, shape, source), conform(x2._node, dtype, shape, source))
    return _call("cross", nodes, shape, dtype, source, axis=axis)


def _document() -> None:
    """Each public function's docstring gets its spec link (one line + link, as elsewhere)."""
    for name in __all__:
        fn = globals()[name]
        if fn.__module__ == __name__:
            fn.__doc__ = f"{fn.__doc__} {_SPEC}.{name}.html"


_document()
