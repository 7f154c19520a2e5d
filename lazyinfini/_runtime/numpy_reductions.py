"""The host's reductions as the ufunc calls numpy's functions make (library.NUMPY's custom ops).

np.sum, np.max, np.any, ... are Python wrappers (dispatch, keyword filtering, a method lookup)
around one `ufunc.reduce` call: np.max over an axis of a 40x6 array costs 31k instructions, its
reduce 22k, and a small script runs dozens of them. On an ndarray they call that reduce with
the same arguments, so calling it directly gives numpy's bits by construction (np.mean is left
to numpy: its division is more than one call). Anything else (no ndarray, keywords these do not
take) calls numpy's function.
"""

from __future__ import annotations

import numpy as np

from .._graph import Op


def _reduce(ufunc, function, dtype=None):
    """`function` (np.sum, np.max, ...) on an ndarray: `ufunc`'s reduce, over `dtype` (the
    node's where given: sum and prod accumulate in theirs; any and all in bool)."""

    def run(xp, x, axis=None, keepdims=False, **kwargs):
        if type(x) is not np.ndarray or not _DTYPE_ONLY.issuperset(kwargs):
            return function(x, axis=axis, keepdims=keepdims, **kwargs)
        return ufunc.reduce(x, axis, kwargs.get("dtype", dtype), None, keepdims=keepdims)

    return run


_DTYPE_ONLY = frozenset({"dtype"})


REDUCTIONS = {
    Op.SUM: _reduce(np.add, np.sum),
    Op.PROD: _reduce(np.multiply, np.prod),
    Op.MAX: _reduce(np.maximum, np.max),
    Op.MIN: _reduce(np.minimum, np.min),
    Op.NANMAX: _reduce(np.fmax, np.nanmax),
    Op.NANMIN: _reduce(np.fmin, np.nanmin),
    Op.ANY: _reduce(np.logical_or, np.any, bool),
    Op.ALL: _reduce(np.logical_and, np.all, bool),
}
