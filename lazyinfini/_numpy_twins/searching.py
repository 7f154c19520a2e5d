"""numpy's where, nonzero, searchsorted, sort, argsort, unique and isin.

where, searchsorted, sort, argsort and isin record lazily; nonzero, argwhere, flatnonzero and
unique have shapes that depend on the data, so, like the namespace's nonzero and unique_*, they
compute their input at once (counted in counters.implicit_materializations).
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api import elementwise as _elementwise
from .._api import quick
from .._api import searching as _searching
from .._api import sets as _sets
from .._api import sorting as _sorting
from .._api.creation import asarray
from .._api.data_types import astype
from .._api.manipulation import permute_dims, reshape, stack
from .._array import Array, implicit_value, known_value
from .arguments import Fallback, array, converted, promoted, real_only


def where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    if not (isinstance(x, Array) and x.dtype == _dtypes.bfloat16):
        # NOTE: a bool Array between arrays of one dtype, or an array and a Python number
        # keeping its dtype: numpy's promotion is the namespace's (~10 us less a call). Not an
        # ml_dtypes bfloat16, which numpy's where widens next to a Python float.
        recorded = quick.where(condition, x, y)
        if recorded is not None and recorded.dtype != _dtypes.bfloat16:
            return recorded
    cond = array(condition)
    if cond.dtype != _dtypes.bool:
        cond = astype(cond, _dtypes.bool)  # numpy's truth of any dtype
    return _elementwise.where(cond, *promoted(x, y))


def nonzero(a):
    return _searching.nonzero(array(a))


def argwhere(a):
    x = array(a)
    if x.ndim == 0:
        raise Fallback("argwhere of a 0-d array")
    # NOTE: numpy's is the transpose of the stacked indices: F-ordered (a later sum adds so)
    return permute_dims(stack(nonzero(x), axis=0), (1, 0))


def flatnonzero(a):
    return nonzero(reshape(array(a), (-1,)))[0]


def searchsorted(a, v, side="left", sorter=None):
    x1, x2 = (real_only("searchsorted", x) for x in converted(a, v))
    if x1.dtype == _dtypes.bool or x2.dtype == _dtypes.bool:  # NOTE: numpy orders False < True
        x1, x2 = (astype(x, _dtypes.uint8) if x.dtype == _dtypes.bool else x for x in (x1, x2))
    sorter = None if sorter is None else array(sorter)
    return _searching.searchsorted(x1, x2, side=side, sorter=sorter)


# -- sorting ----------------------------------------------------------------------------------
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    x = array(a)
    sortable, axis = _sortable("sort", x, axis, kind, order)
    result = _sorting.sort(sortable, axis=axis, stable=_stable("sort", kind, stable))
    return astype(result, _dtypes.bool) if x.dtype == _dtypes.bool else result


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    sortable, axis = _sortable("argsort", array(a), axis, kind, order)
    return _sorting.argsort(sortable, axis=axis, stable=_stable("argsort", kind, stable))


def _stable(func: str, kind, stable) -> bool:
    """Whether numpy's call sorts stably: `stable=True`, or kind "stable" or "mergesort". Else
    the sort is numpy's default (its quicksort: ties in numpy's own order, and 3x faster than
    a stable argsort of float64 here); a heapsort is that quicksort too (ties may differ)."""
    if stable is not None and kind is not None:
        raise ValueError(f"{func}: kind and stable cannot be given together")
    if stable is not None:
        return bool(stable)
    return kind is not None and kind[:1].lower() in "ms"


def _sortable(func: str, x, axis, kind, order):
    """x as the namespace sorts it (bools as 0 and 1), and the axis (None flattens), after
    numpy's checks of kind and order."""
    if kind is not None and not (isinstance(kind, str) and kind[:1].lower() in "qmhs" and kind):
        raise ValueError(f"{func}: kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if order is not None:
        raise ValueError(f"{func}: order= sorts structured arrays, which lazyinfini lacks")
    x = real_only(func, x)
    if x.dtype == _dtypes.bool:
        x = astype(x, _dtypes.uint8)
    if axis is None:
        return reshape(x, (-1,)), -1
    return x, axis


# -- sets -------------------------------------------------------------------------------------
def unique(
    ar,
    return_index=False,
    return_inverse=False,
    return_counts=False,
    axis=None,
    *,
    equal_nan=True,
    sorted=True,
):
    if axis is not None or not sorted:
        raise Fallback("axis= or sorted=False")
    x = array(ar)
    flags = (return_index, return_inverse, return_counts)
    if not any(flags):
        values = _sets.unique_values(x)
        _check_nans(values, equal_nan)
        return _numpys_zero(values, x, "sort")
    found = _sets.unique_all(x)
    _check_nans(found.values, equal_nan)
    chosen = (found.indices, found.inverse_indices, found.counts)
    # NOTE: numpy's unique sorts stably for return_index (the first zero met: ours), with its
    # quicksort argsort for return_inverse, in place for counts alone
    how = "first" if return_index else "argsort" if return_inverse else "sort"
    values = _numpys_zero(found.values, x, how)
    return (values, *(a for a, flag in zip(chosen, flags, strict=True) if flag))


def _numpys_zero(values: Array, x: Array, how: str) -> Array:
    """`values` (unique, computed) with its zero of the sign numpy's unique keeps where x holds
    both zeros: the first in the order numpy's sort (`how`) puts x in, whose unstable sorts
    may put -0.0 or 0.0 first (the namespace's keeps the first x holds)."""
    found = known_value(values)
    if how == "first" or found is None or values.dtype not in _dtypes.REAL_FLOATING:
        return values
    at = np.flatnonzero(found == 0)
    if not at.size:
        return values
    data = np.ravel(implicit_value(x, "unique"))
    signs = np.signbit(data[data == 0])
    if signs.all() or not signs.any():
        return values
    ordered = np.sort(data) if how == "sort" else data[np.argsort(data, kind="quicksort")]
    zero = ordered[np.searchsorted(ordered, 0)]  # NOTE: the first zero (-0.0 == 0.0)
    if np.signbit(zero) == np.signbit(found[at[0]]):
        return values
    fixed = found.copy()
    fixed[at[0]] = zero
    return asarray(fixed, device=values.device)


def _check_nans(values, equal_nan: bool) -> None:
    """numpy's unique folds NaNs into one (equal_nan); the standard keeps each NaN apart. The
    values are computed already (unique's shape depends on them), so this reads them free in
    host memory; a device's (a GPU's) are copied to the host."""
    if not equal_nan or values.dtype not in _dtypes.REAL_FLOATING + _dtypes.COMPLEX:
        return
    value = known_value(values)
    if value is None:
        value = implicit_value(values, "unique")
    if np.count_nonzero(np.isnan(value)) > 1:
        raise Fallback("unique with several NaNs (numpy folds them into one)")


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    # Note: assume_unique and kind are numpy's speed hints; the result does not depend on them.
    x1, x2 = converted(element, test_elements)
    return _sets.isin(x1, x2, invert=invert)


def sort_complex(a):
    x = array(a)
    if x.dtype in _dtypes.COMPLEX:
        raise Fallback("sort_complex of complex values (numpy orders them by both parts)")
    ordered = np.sort(x)
    # Note (numpy): small integers become complex64, everything else complex128
    small = x.dtype in (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16))
    small = small or x.dtype == np.dtype(np.uint16)
    return ordered.astype(np.complex64 if small else np.complex128)


# numpy 2's standard names: its unique's results (equal_nan=False), in numpy's named tuples
def unique_counts(x):
    return _RESULTS["counts"](*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x):
    return _RESULTS["inverse"](*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x):
    found = unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    return _RESULTS["all"](*found)


_RESULTS = {
    name: type(getattr(np, f"unique_{name}")(np.zeros(1)))
    for name in ("counts", "inverse", "all")
    if hasattr(np, f"unique_{name}")
}
STANDARD_UNIQUES = tuple(f"unique_{name}" for name in _RESULTS)
