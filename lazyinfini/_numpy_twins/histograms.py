"""numpy's histogram, recorded as a sort and two searchsorted calls, and bincount, one call.

A value v falls in bin i when edges[i] <= v < edges[i + 1] (the last bin is closed): numpy's
rule for every kind of bins, so counts are the differences of where each edge would be
inserted into the sorted values (left side, and right side for the last edge). Uniform edges
are recorded as numpy's linspace computes them, from the lazy min and max when no range is
given. bincount's length depends on the data: its min and max are computed at once (an
implicit materialization, as for the namespace's unique_*).

Note: with no range, numpy raises at the call when the values hold NaN or inf (their range is
not finite); a lazy histogram cannot look, and its edges and counts come out NaN and 0.
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtypes
from .._api import statistics as _statistics
from .._api.creation import arange
from .._api.data_types import astype
from .._api.elementwise import add as _add
from .._api.elementwise import divide, equal, multiply, where
from .._api.elementwise import subtract as _subtract
from .._api.manipulation import concat, reshape, stack
from .._api.searching import searchsorted
from .._api.sorting import sort
from .._api.utility import diff
from .._array import implicit_value, known_value, record
from .._graph import Op
from .arguments import Fallback, array, promoted


def histogram(a, bins=10, range=None, density=None, weights=None):
    if weights is not None or isinstance(bins, str):
        raise Fallback("weights= or a bin estimator name")
    x = reshape(array(a), (-1,))
    if x.dtype == _dtypes.bool or x.dtype in _dtypes.COMPLEX:
        raise Fallback(f"histogram of {x.dtype.name}")
    edges = _uniform_edges(x, bins, range) if np.ndim(bins) == 0 else _given_edges(bins)
    counts = _counts(x, edges)
    if not density:
        return counts, edges
    return _density(counts, edges), edges


def _density(counts, edges):
    """numpy's density: counts / bin widths / total, in float64."""
    widths = astype(diff(edges), _dtypes.float64)
    total = astype(_statistics.sum(counts), _dtypes.float64)
    return divide(divide(astype(counts, _dtypes.float64), widths), total)


def _counts(x, edges):
    """How many of x fall in each bin (numpy's _search_sorted_inclusive, then diff)."""
    values, bounds = promoted(x, edges)
    ordered = sort(values)
    inner = searchsorted(ordered, bounds[:-1], side="left")
    last = searchsorted(ordered, bounds[-1:], side="right")
    return diff(concat([inner, last]))


def _given_edges(bins):
    edges = array(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    known = known_value(edges)
    if known is not None and np.any(known[:-1] > known[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def _uniform_edges(x, bins, range):
    count = operator.index(bins)
    if count < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None or x.size == 0:
        return array(_known_edges(x, count, range))
    low, high = _statistics.min(x), _statistics.max(x)
    if x.dtype in _dtypes.INTEGER:
        low, high = astype(low, _dtypes.float64), astype(high, _dtypes.float64)
    same = equal(low, high)  # numpy widens an empty range by a half on each side
    low, high = where(same, _subtract(low, 0.5), low), where(same, _add(high, 0.5), high)
    return _linspace(low, high, count + 1)


def _known_edges(x, count: int, range) -> np.ndarray:
    """Edges from a given range (or numpy's 0..1 for no values): computed by numpy now."""
    first, last = (0, 1) if range is None else range
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    dtype = np.result_type(first, last, x.dtype)
    if np.issubdtype(dtype, np.integer):
        dtype = np.result_type(dtype, float)
    return np.linspace(first, last, count + 1, endpoint=True, dtype=dtype)


def _linspace(start, stop, num: int):
    """numpy's linspace(start, stop, num) for 0-d arrays of one floating dtype, recorded:
    arange * step + start, arange / div * delta where the step underflows to 0, stop last."""
    div = num - 1
    positions = arange(num, dtype=start.dtype)
    delta = _subtract(stop, start)
    step = divide(delta, div)
    scaled = where(
        equal(step, 0), multiply(divide(positions, div), delta), multiply(positions, step)
    )
    edges = _add(scaled, start)
    return where(equal(positions, div), stop, edges)


def bincount(x, weights=None, minlength=0):
    if weights is not None:
        raise Fallback("bincount with weights")
    v = array(x)
    if v.ndim != 1:
        depth = "of too small depth" if v.ndim == 0 else "too deep"
        raise ValueError(f"object {depth} for desired array")
    if v.dtype not in _dtypes.INTEGER + (_dtypes.bool,) or v.dtype == _dtypes.uint64:
        raise TypeError(
            f"Cannot cast array data from {v.dtype!r} to dtype('int64') "
            "according to the rule 'safe'"
        )
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    v = astype(v, _dtypes.int64) if v.dtype == _dtypes.bool else v  # NOTE: no wide copy
    length = max(_largest(v) + 1, minlength) if v.size else minlength
    # NOTE: one counting pass (library.CUSTOM's bincount), not a sort: 16x numpy's at 16M
    return record(Op.BINCOUNT, (v._node,), (length,), _dtypes.int64, (("minlength", length),))


def _largest(v) -> int:
    """max(v), computed now (bincount's length depends on it); numpy refuses negatives."""
    low, high = implicit_value(stack([_statistics.min(v), _statistics.max(v)]), "bincount", "x")
    if low < 0:
        raise ValueError("'list' argument must have no negative elements")
    return int(high)
