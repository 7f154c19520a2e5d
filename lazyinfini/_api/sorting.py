"""Sorting functions: sort and argsort, each recorded as one OPAQUE node.

Spec: https://data-apis.org/array-api/latest/API_specification/sorting_functions.html
"""

from __future__ import annotations

from .. import _dtypes
from .._array import Array, record
from .._graph import Op
from .checks import check_array, check_dtype_in, check_flag, normalize_axis


def _sort_node(func: str, op: Op, x, axis, descending, stable, dtype=None) -> Array:
    check_array(func, "x", x)
    check_dtype_in(func, "x", x.dtype, "real numeric")
    # Note (spec): a 0-d array has no axis to sort along; -1 and 0 are out of range for it.
    axis = normalize_axis(func, axis, x.ndim)
    arg = (
        ("axis", axis),
        ("descending", check_flag(func, "descending", descending)),
        ("stable", check_flag(func, "stable", stable)),
    )
    return record(op, (x._node,), x.shape, dtype or x.dtype, arg)


def sort(x, /, axis=-1, *, descending=False, stable=True) -> Array:
    """A sorted copy of x along `axis` (descending sorts keep ties in order too).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.sort.html"""
    return _sort_node("sort", Op.SORT, x, axis, descending, stable)


def argsort(x, /, axis=-1, *, descending=False, stable=True) -> Array:
    """Indices that sort x along `axis` (descending sorts keep ties in order too).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.argsort.html"""
    return _sort_node("argsort", Op.ARGSORT, x, axis, descending, stable, _dtypes.DEFAULT_INDEX)


def partition(x: Array, kth: tuple[int, ...], axis: int) -> Array:
    """numpy's partition of x along `axis` (normalized) at the positions `kth` (checked by the
    caller): a lazyinfini extension, numpy's twins' (np.partition, np.median, np.quantile)."""
    return record(Op.PARTITION, (x._node,), x.shape, x.dtype, (("axis", axis), ("kth", kth)))


def checked(x: Array, test: str, message: str) -> Array:
    """x, raising ValueError(`message`) when it is computed unless `test` holds of its values
    (a CHECK node: numpy's checks of data, made by a lazy call when its value is)."""
    return record(Op.CHECK, (x._node,), x.shape, x.dtype, (("test", test), ("message", message)))
