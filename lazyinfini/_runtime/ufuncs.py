"""numpy implementations of the elementwise ops, shared by every executor.

Each takes the inputs (already in the compute dtype: float32 for half floats), the node's `arg`
and an optional `out` array, and writes the result there when given (no temporaries).
"""

from __future__ import annotations

import numpy as np

from .._graph import Op


def _ufunc(fn):
    return lambda inputs, arg, out=None: fn(*inputs, out=out)


def _clip(inputs, arg, out=None):
    x, *bounds = inputs
    has_min, has_max = arg
    lo = bounds.pop(0) if has_min else None
    hi = bounds.pop(0) if has_max else None
    # Note (spec): maximum/minimum propagate NaN from x and from either bound, as clip must;
    # np.clip is also slower than this pair (DESIGN.md §9).
    if lo is not None:
        out = np.maximum(x, lo, out=out)
        x = out
    if hi is not None:
        out = np.minimum(x, hi, out=out)
    return out


def _where(inputs, arg, out=None):
    condition, x1, x2 = inputs
    if out is None:
        return np.where(condition, x1, x2)
    np.copyto(out, x2)
    np.copyto(out, x1, where=condition)
    return out


def _astype(inputs, arg, out=None):
    (x,) = inputs
    if out is None:
        return x.astype(arg)
    np.copyto(out, x, casting="unsafe")
    return out


UFUNCS = {
    Op.SUBTRACT: _ufunc(np.subtract),
    Op.CLIP: _clip,
    Op.ADD: _ufunc(np.add),
    Op.MULTIPLY: _ufunc(np.multiply),
    Op.DIVIDE: _ufunc(np.divide),
    Op.NEGATIVE: _ufunc(np.negative),
    Op.ABS: _ufunc(np.abs),
    Op.MAXIMUM: _ufunc(np.maximum),
    Op.MINIMUM: _ufunc(np.minimum),
    Op.EQUAL: _ufunc(np.equal),
    Op.NOT_EQUAL: _ufunc(np.not_equal),
    Op.LESS: _ufunc(np.less),
    Op.LESS_EQUAL: _ufunc(np.less_equal),
    Op.GREATER: _ufunc(np.greater),
    Op.GREATER_EQUAL: _ufunc(np.greater_equal),
    Op.WHERE: _where,
}
# NOTE: ASTYPE is evaluated by each executor directly (its target dtype is the node's dtype).
CASTS = {Op.ASTYPE: _astype}
