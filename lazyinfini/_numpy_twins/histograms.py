"""numpy's histogram, recorded as numpy computes it, and bincount, one call.

A value v falls in bin i when edges[i] <= v < edges[i + 1] (the last bin is closed): numpy's
rule for every kind of bins. Equal bins over a given range are counted as numpy counts them
(each value's bin from its offset, corrected an ulp off an edge, then one bincount); other
bins by the differences of where each edge would be inserted into the sorted values (left
side, and right side for the last edge). Uniform edges
are recorded as numpy's linspace computes them, from the lazy min and max when no range is
given. bincount's length depends on the data: its min and max are computed at once (an
implicit materialization, as for the namespace's unique_*).

With no range, numpy raises ValueError at the call when the values hold NaN or inf (their range
is not finite) or when the edges do not increase (too many bins for a narrow range of half
floats): a lazy histogram raises the same error when its value is computed (Op.CHECK).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import _dtypes
from .._api import statistics as _statistics
from .._api.creation import arange
from .._api.data_types import astype
from .._api.elementwise import add as _add
from .._api.elementwise import (
    divide,
    equal,
    greater_equal,
    less,
    less_equal,
    logical_and,
    multiply,
    trunc,
    where,
)
from .._api.elementwise import subtract as _subtract
from .._api.indexing import take
from .._api.manipulation import concat, reshape, stack
from .._api.searching import searchsorted
from .._api.sorting import checked, sort
from .._api.utility import diff
from .._array import implicit_value, known_value, record
from .._graph import Op
from .arguments import Fallback, array, promoted


def histogram(a, bins=10, range=None, density=None, weights=None):
    if weights is not None or isinstance(bins, str):
        raise Fallback("weights= or a bin estimator name")
    x = reshape(array(a), (-1,))
    # NOTE: numpy's linspace computes bfloat16 edges in bfloat16 (ml_dtypes' arithmetic)
    if x.dtype in (_dtypes.bool, _dtypes.bfloat16) or x.dtype in _dtypes.COMPLEX:
        raise Fallback(f"histogram of {x.dtype.name}")
    edges = _uniform_edges(x, bins, range) if np.ndim(bins) == 0 else _given_edges(bins)
    if np.ndim(bins) == 0 and _countable(x, range):
        counts = _uniform_counts(x, edges, *_outer_edges(range))
    else:
        counts = _counts(x, edges)
    if not density:
        return counts, edges
    return _density(counts, edges), edges


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    if weights is not None or isinstance(bins, str):
        raise Fallback("weights= or a bin estimator name")
    x = reshape(array(a), (-1,))
    if x.dtype in (_dtypes.bool, _dtypes.bfloat16) or x.dtype in _dtypes.COMPLEX:
        raise Fallback(f"histogram_bin_edges of {x.dtype.name}")
    return _uniform_edges(x, bins, range) if np.ndim(bins) == 0 else _given_edges(bins)


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


def _countable(x, range) -> bool:
    """Whether numpy's counting of equal bins is recorded (see _uniform_counts): a range of
    Python numbers (numpy's arithmetic with other scalars takes their dtype), values the
    edges' float dtype holds exactly (int64's do not: those are sorted, as numpy compares them
    with the edges exactly)."""
    known = range is not None and all(type(bound) in (int, float) for bound in range)
    return known and x.dtype in _COUNTED


def _uniform_counts(x, edges, first, last):
    """numpy's counting of equal bins between the outer edges `first` and `last`, recorded:
    each value's bin from its offset (corrected where that is an ulp off an edge, as numpy
    corrects it), then one counting pass (bincount) with the values outside the range (and
    NaN) in an extra bin that is dropped: passes over the data where a sort costs ~20x more."""
    count = edges.shape[0] - 1
    if first == 0 and last == count == _dtypes.LEVELS.get(x.dtype):
        # NOTE: the OpenCV tutorial's np.histogram(image, 256, (0, 256)): edges 0, 1, ..., 256
        # (exact), every value v inside and in bin v: numpy's counts are the bincount of x
        return bincount(x, minlength=count)
    values = astype(x, edges.dtype)
    keep = logical_and(greater_equal(values, first), less_equal(values, last))
    offset, span = _subtract(values, first), _span(first, last)
    wide = np.result_type(offset.dtype, span.dtype)
    scaled = multiply(divide(astype(offset, wide), array(span.astype(wide))), count)
    # NOTE: bins as whole floats (numpy's intp cast of scaled values in [0, count] is trunc):
    # the pass stays compiled, where a float-to-integer cast has none; bincount casts them
    index = astype(trunc(where(keep, scaled, 0)), _dtypes.float64)
    index = where(equal(index, count), count - 1, index)
    known = known_value(edges)  # NOTE: None in a GPU's memory: the edges are gathered there
    edge = (known is not None and _edge_formula(first, last, known)) or (
        lambda i: take(edges, astype(i, _dtypes.int64))
    )
    index = where(less(values, edge(index)), _subtract(index, 1), index)
    above = logical_and(greater_equal(values, edge(_add(index, 1))), index != count - 1)
    index = where(keep, where(above, _add(index, 1), index), count)
    extra = (("minlength", count + 1),)
    counted = record(Op.BINCOUNT, (index._node,), (count + 1,), _dtypes.int64, extra)
    return counted[:count]


def _edge_formula(first, last, known: np.ndarray):
    """edges[i] as numpy's linspace computes it (i * step + first in float64, the last edge
    exactly `last`, cast to the edges' dtype), as a function of lazy integer positions, where
    it gives every known edge bit for bit (else None): the corrections then fuse into the pass
    computing the bins instead of gathering edges twice."""
    div = known.size - 1
    delta = np.subtract(np.asarray(last, np.float64), np.asarray(first, np.float64))
    step = delta / div
    if div < 1 or step == 0:
        return None

    def edge(i, xp):
        found = xp.astype(i, np.float64) * float(step) + float(first)
        return xp.astype(xp.where(i == div, float(last), found), known.dtype)

    if not np.array_equal(edge(np.arange(div + 1), _NUMPY), known):
        return None
    return lambda i: edge(i, _LAZY)


class _NUMPY:
    astype, where = staticmethod(lambda x, dtype: x.astype(dtype)), staticmethod(np.where)


class _LAZY:
    astype, where = staticmethod(astype), staticmethod(where)


def _span(first, last) -> np.ndarray:
    """last - first as numpy's histogram divides by it: a signed integer difference as its
    unsigned type (numpy's _unsigned_subtract)."""
    dtype = np.result_type(first, last)
    if dtype.kind == "i":
        signed = (np.asarray(last, dtype), np.asarray(first, dtype))
        return np.subtract(*signed, casting="unsafe", dtype=f"u{dtype.itemsize}")
    return np.subtract(last, first, dtype=dtype)


# The dtypes whose values the edges' float dtype holds exactly (int64's do not: their bins are
# found by sorting, as numpy compares them with the edges exactly).
_COUNTED = (
    _dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.uint8, _dtypes.uint16, _dtypes.uint32,
    _dtypes.float32, _dtypes.float64,
)  # fmt: skip


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
    else:
        message = "autodetected range of [{}, {}] is not finite"
        bounds = checked(stack([low, high]), "finite", message)
        low, high = bounds[0], bounds[1]
    same = equal(low, high)  # numpy widens an empty range by a half on each side
    low, high = where(same, _subtract(low, 0.5), low), where(same, _add(high, 0.5), high)
    message = f"Too many bins for data range. Cannot create {count} finite-sized bins."
    return checked(_linspace(low, high, count + 1), "increasing", message)


def _known_edges(x, count: int, range) -> np.ndarray:
    """Edges from a given range (or numpy's 0..1 for no values): computed by numpy now."""
    first, last = _outer_edges(range)
    dtype = np.result_type(first, last, x.dtype)
    if np.issubdtype(dtype, np.integer):
        dtype = np.result_type(dtype, float)
    edges = np.linspace(first, last, count + 1, endpoint=True, dtype=dtype)
    if np.any(edges[:-1] >= edges[1:]):  # NOTE: numpy's check, where bins underflow
        raise ValueError(f"Too many bins for data range. Cannot create {count} finite-sized bins.")
    return edges


def _outer_edges(range) -> tuple:
    """The first and last edge from a given range (numpy's 0..1 for none), checked; an empty
    one widened by a half on each side."""
    first, last = (0, 1) if range is None else range
    if first > last:
        raise ValueError("max must be larger than min in range parameter.")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


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
    if minlength >= _dtypes.LEVELS.get(v.dtype, math.inf):
        length = minlength  # NOTE: every value is below it: nothing to compute (an image's)
    else:
        length = max(_largest(v) + 1, minlength) if v.size else minlength
    # NOTE: one counting pass (library.CUSTOM's bincount), not a sort: 16x numpy's at 16M
    return record(Op.BINCOUNT, (v._node,), (length,), _dtypes.int64, (("minlength", length),))


def _largest(v) -> int:
    """max(v), computed now (bincount's length depends on it); numpy refuses negatives."""
    low, high = implicit_value(stack([_statistics.min(v), _statistics.max(v)]), "bincount", "x")
    if low < 0:
        raise ValueError("'list' argument must have no negative elements")
    return int(high)
