"""numpy's NaN-ignoring reductions (nansum, nanmean, nanvar, nanmax, ...), recorded as numpy
computes them: x with its NaNs replaced (0 for sums, 1 for products, an infinity for extremes),
then the reduction's twin, counting what was not NaN where numpy divides.

Where numpy warns on computed values (a mean of none, no degrees of freedom left), the lazy
result holds numpy's value (NaN) without the warning: nothing is computed when it is recorded.
nanmax and nanmin are numpy's fmax and fmin reductions (NANMAX and NANMIN nodes): of +0 and
-0 they keep the one numpy's SIMD lanes meet first, which no maximum over the values that are
not NaN would give.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api import sorting as _sorting
from .._api import statistics as _statistics
from .._api import utility as _utility
from .._api.data_types import astype
from .._api.elementwise import (
    divide,
    isnan,
    less_equal,
    logical_not,
    multiply,
    sqrt,
    subtract,
    where,
)
from .._api.manipulation import squeeze
from .._graph import Op
from . import statistics
from .arguments import NOT_GIVEN, Fallback, array, real_only


def _replaced(a, value):
    """x with its NaNs replaced by `value`, and where they were (None: x holds no float)."""
    x = array(a)
    if x.dtype not in _dtypes.REAL_FLOATING + _dtypes.COMPLEX:
        return x, None
    mask = isnan(x)
    return where(mask, value, x), mask


def nansum(a, axis=None, dtype=None, keepdims=False):
    return statistics.sum(_replaced(a, 0)[0], axis, dtype, keepdims)


def nanprod(a, axis=None, dtype=None, keepdims=False):
    return statistics.prod(_replaced(a, 1)[0], axis, dtype, keepdims)


def nancumsum(a, axis=None, dtype=None):
    return statistics.cumsum(_replaced(a, 0)[0], axis, dtype)


def nancumprod(a, axis=None, dtype=None):
    return statistics.cumprod(_replaced(a, 1)[0], axis, dtype)


def nanmax(a, axis=None, keepdims=False):
    return _fmax_reduction("nanmax", Op.NANMAX, a, axis, keepdims)


def nanmin(a, axis=None, keepdims=False):
    return _fmax_reduction("nanmin", Op.NANMIN, a, axis, keepdims)


def _fmax_reduction(func: str, op: Op, a, axis, keepdims):
    x = real_only(func, array(a))
    if x.dtype == _dtypes.bfloat16:
        raise Fallback(f"{func} of bfloat16 (ml_dtypes' fmax)")
    _statistics.check_nonempty(func, x, _statistics.reduction_axes(func, axis, x.ndim))
    return _statistics.record_reduction(func, op, x, axis, keepdims, x.dtype)


def nanargmax(a, axis=None, *, keepdims=False):
    return _nanarg(statistics.argmax, a, -np.inf, axis, keepdims)


def nanargmin(a, axis=None, *, keepdims=False):
    return _nanarg(statistics.argmin, a, np.inf, axis, keepdims)


def _nanarg(arg, a, fill, axis, keepdims):
    """numpy's nanargmax (nanargmin): the argmax of x with its NaNs replaced, once no slice
    is all NaN (numpy's ValueError, raised here when the value is computed)."""
    x, mask = _replaced(a, fill)
    if mask is not None and mask.size:
        every = _utility.all(mask, axis=axis, keepdims=True)
        every = _sorting.checked(every, "false", "All-NaN slice encountered")
        x = where(every, fill, x)  # NOTE: x itself where the check holds: it runs first
    return arg(x, axis, keepdims=keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    x, mask = _replaced(a, 0)
    if mask is None:
        return statistics.mean(x, axis, dtype, keepdims)
    _check_inexact("nanmean", dtype)
    count = statistics.sum(logical_not(mask), axis, np.intp, keepdims)
    return _per_count(statistics.sum(x, axis, dtype, keepdims), count)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=NOT_GIVEN):
    x, mask = _replaced(a, 0)
    ddof = statistics.ddof_of(ddof, correction)
    if mask is None:
        return statistics.var(x, axis, dtype, ddof, keepdims)
    _check_inexact("nanvar", dtype)
    if x.dtype in _dtypes.COMPLEX:
        raise Fallback("nanvar of complex values (numpy squares them in place)")
    # Note (numpy): the mean over what is not NaN, x less it cast back to x's dtype, 0 where
    # x was NaN, the squares summed and divided by the count less ddof (NaN where none is left)
    count = statistics.sum(logical_not(mask), axis, np.intp, True)
    mean = _per_count(statistics.sum(x, axis, dtype, True), count)
    deviations = where(mask, 0, astype(subtract(x, mean), x.dtype))
    squares = multiply(deviations, deviations)
    total = statistics.sum(squares, axis, dtype, keepdims)
    if not keepdims:
        count = squeeze(count, axis=_statistics.reduction_axes("nanvar", axis, x.ndim))
    freedom = subtract(count, ddof)
    return where(less_equal(freedom, 0), np.nan, _per_count(total, freedom))


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False, *, correction=NOT_GIVEN):
    return sqrt(nanvar(a, axis, dtype, ddof, keepdims, correction=correction))


def _per_count(total, count):
    """numpy's _divide_by_count: total / an intp count, divided in their common dtype (float64
    for float32 totals) and cast back to the total's."""
    common = np.result_type(total.dtype, np.intp)
    quotient = divide(astype(total, common), astype(count, common))
    return astype(quotient, total.dtype)


def _check_inexact(func: str, dtype) -> None:
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise TypeError(f"{func}: if a is inexact, then dtype must be inexact")
