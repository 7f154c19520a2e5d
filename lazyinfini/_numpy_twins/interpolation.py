"""numpy's interp of integer values at the points 0, 1, ..., n - 1: a lookup in fp.

np.interp finds each value's interval by a binary search, then computes slope * (x - xp[j]) +
fp[j]; at a point of xp itself it returns fp[j] as it is (numpy's arr_interp: "avoid potential
non-finite interpolation"), and past the last point fp[-1]. So where every x is an integer
(uint8 or uint16) and xp holds exactly 0, 1, ..., n - 1 (a 256-bin histogram's left edges: the
OpenCV tutorial's equalization, `np.interp(image, bins[:-1], cdf)`), the result is fp[min(x,
n - 1)] as float64: a lookup in fp extended by its last value, recorded lazily and run in C
(`lookups.py`), where numpy searches 8 steps per pixel. No slope is computed, so no contraction
into an FMA can change a bit on any CPU. Which case it is depends on xp's values: they are
computed at the call (an implicit materialization of n values, where numpy's fallback computed
all three arguments; in strict mode, numpy's fallback). Any other call is numpy's.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api.data_types import astype
from .._api.manipulation import broadcast_to, concat
from .._array import implicit_value, known_value
from .._options import current
from .arguments import Fallback, array


def interp(x, xp, fp, left=None, right=None, period=None):
    if left is not None or right is not None or period is not None:
        raise Fallback("interp with left=, right= or period=")
    v, points, values = array(x), array(xp), array(fp)
    levels = _dtypes.LEVELS.get(v.dtype)
    if levels is None:
        raise Fallback(f"interp of {v.dtype.name} values (a lookup needs uint8 or uint16)")
    if points.ndim != 1 or values.shape != points.shape or not points.size:
        raise Fallback("interp with xp and fp not of one length")
    if values.dtype in _dtypes.COMPLEX or points.dtype in _dtypes.COMPLEX:
        raise Fallback("interp of complex points or values")
    if not _counting(points):
        raise Fallback("interp at points other than 0, 1, ..., n - 1")
    table = astype(values, _dtypes.float64)  # NOTE: numpy interpolates float64 values
    n = points.shape[0]
    if n < levels:  # NOTE: a value past the last point gives fp[-1]
        table = concat([table, broadcast_to(table[n - 1 :], (levels - n,))])
    return table[:levels][v]


def _counting(points) -> bool:
    """Whether xp holds exactly 0, 1, ..., n - 1 (as float64, numpy's conversion)."""
    known = known_value(points)
    if known is None:
        if current().strict:
            raise Fallback("interp's xp is not computed yet (strict mode)")
        known = implicit_value(points, "interp", "xp")
    wide = np.asarray(known, dtype=np.float64)
    return bool(np.array_equal(wide, np.arange(wide.shape[0], dtype=np.float64)))
