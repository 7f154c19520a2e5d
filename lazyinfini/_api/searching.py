"""Searching functions: argmax/argmin/count_nonzero as REDUCE nodes, searchsorted as an OPAQUE
node; nonzero, whose shape depends on the data, computes its input at once.

Spec: https://data-apis.org/array-api/latest/API_specification/searching_functions.html
"""

from __future__ import annotations

import builtins

from .. import _dtypes
from .._array import Array, record
from .._graph import Op
from .checks import check_array, check_dtype_in, check_flag, check_scalar, error, normalize_axis
from .placement import data_dependent
from .statistics import check_nonempty, record_reduction, reduced_shape

_SIDES = ("left", "right")


def arg_extreme(func: str, op: Op, x, axis, keepdims) -> Array:
    """x's argmax or argmin (`op`) over `axis`, as `func` (the quick path calls it too)."""
    check_array(func, "x", x)
    check_dtype_in(func, "x", x.dtype, "real numeric")
    keepdims = check_flag(func, "keepdims", keepdims)
    # Note (spec): one axis or None (the flattened array), never a tuple.
    axes = tuple(range(x.ndim)) if axis is None else (normalize_axis(func, axis, x.ndim),)
    check_nonempty(func, x, axes)
    shape = reduced_shape(x.shape, axes, keepdims)
    arg = (("axis", None if axis is None else axes[0]), ("keepdims", keepdims))
    return record(op, (x._node,), shape, _dtypes.DEFAULT_INDEX, arg)


def argmax(x, /, axis=None, *, keepdims=False) -> Array:
    """Index of the first largest element along `axis` (of the flattened x when None).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.argmax.html"""
    return arg_extreme("argmax", Op.ARGMAX, x, axis, keepdims)


def argmin(x, /, axis=None, *, keepdims=False) -> Array:
    """Index of the first smallest element along `axis` (of the flattened x when None).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.argmin.html"""
    return arg_extreme("argmin", Op.ARGMIN, x, axis, keepdims)


def count_nonzero(x, /, axis=None, *, keepdims=False) -> Array:
    """Number of non-zero (True, non-0+0j) elements over `axis`.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.count_nonzero.html"""
    check_array("count_nonzero", "x", x)
    dtype = _dtypes.DEFAULT_INDEX
    return record_reduction("count_nonzero", Op.COUNT_NONZERO, x, axis, keepdims, dtype)


def nonzero(x, /) -> tuple[Array, ...]:
    """Indices of the non-zero elements, one array per axis, in row-major order.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.nonzero.html"""
    check_array("nonzero", "x", x)
    if x.ndim == 0:
        raise error(ValueError, "nonzero", "x must have at least one dimension (it is 0-d)")
    # Note (spec): the result's shape depends on the data: the input is computed here.
    return data_dependent("nonzero", x, (_dtypes.DEFAULT_INDEX,) * x.ndim)


def searchsorted(x1, x2, /, side="left", sorter=None) -> Array:
    """Indices where x2's elements would be inserted into sorted 1-d x1 to keep it sorted.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.searchsorted.html"""
    func = "searchsorted"
    check_array(func, "x1", x1)
    check_dtype_in(func, "x1", x1.dtype, "real numeric")
    if x1.ndim != 1:
        raise error(ValueError, func, f"x1 must be 1-d, got shape {x1.shape}")
    if side not in _SIDES:
        raise error(ValueError, func, f"side must be 'left' or 'right', got {side!r}")
    values = _search_values(func, x1, x2)
    srcs = (x1._node, values._node)
    if sorter is not None:
        srcs += (_check_sorter(func, x1, sorter)._node,)
    return record(Op.SEARCHSORTED, srcs, values.shape, _dtypes.DEFAULT_INDEX, (("side", side),))


def _search_values(func: str, x1: Array, x2) -> Array:
    """x2 as an array; a Python scalar takes x1's dtype (2025.12 allows scalars here)."""
    if isinstance(x2, Array):
        check_dtype_in(func, "x2", x2.dtype, "real numeric")
        if _dtypes.promote(x1.dtype, x2.dtype) is None:
            raise error(
                TypeError, func, f"x1 {x1.dtype.name} and x2 {x2.dtype.name} do not promote"
            )
        return x2
    if isinstance(x2, builtins.bool) or not isinstance(x2, (int, float)):
        raise error(
            TypeError, func, f"x2 must be a lazyinfini array, an int or a float, got {x2!r}"
        )
    check_scalar(func, x2, x1.dtype)
    return record(Op.FULL, (), (), x1.dtype, x2)


def _check_sorter(func: str, x1: Array, sorter) -> Array:
    check_array(func, "sorter", sorter)
    check_dtype_in(func, "sorter", sorter.dtype, "integer")
    if sorter.shape != x1.shape:
        raise error(ValueError, func, f"sorter has shape {sorter.shape}, x1 has {x1.shape}")
    return sorter
