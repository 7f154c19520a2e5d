"""Indexing with integer arrays: gather (x[key]), the functional update (x[key] = value), take
and take_along_axis.

The key travels in the node's arg as a tuple of items, one per position of the user's key after
its ellipsis was expanded: ("slice", start, stop, step), ("int", i), ("none",) or ("array", k),
the k-th index array among the node's inputs.

Each function takes the device's Array API namespace `xp` first (library.CUSTOM): indexing is
its arrays' own, and the copy is the namespace's. numpy raises IndexError for an index out of
bounds; CuPy wraps it around (its documented difference), which would be a wrong number: index
arrays of any other namespace than numpy's are checked first (one reduction each, and a wait
for its answer).
"""

from __future__ import annotations

import numpy as np

from .._graph import Op
from . import lookups

_TABLE = (("array", 0),)  # the key of a lookup: x[index], one index array


def _key(items: tuple, arrays: tuple) -> tuple:
    key = []
    for item in items:
        kind = item[0]
        if kind == "slice":
            key.append(slice(*item[1:]))
        elif kind == "int":
            key.append(item[1])
        elif kind == "none":
            key.append(None)
        else:
            key.append(arrays[item[1]])
    return tuple(key)


def _checked_key(func: str, xp, x, items: tuple, arrays: tuple) -> tuple:
    """The key, its index arrays checked against the axes of x they index (see the module)."""
    if arrays and not isinstance(x, np.ndarray):
        axis = 0
        for item in items:
            if item[0] == "array":
                _check_bounds(func, xp, arrays[item[1]], axis, x.shape[axis])
            axis += item[0] != "none"
    return _key(items, arrays)


def _check_bounds(func: str, xp, index, axis: int, size: int) -> None:
    # NOTE: compared as int64: a Python int beyond a narrow or unsigned index dtype (-3 for
    # uint8, 300 for int8) is an OverflowError under NEP 50's rules in some namespaces
    index = xp.astype(index, xp.int64, copy=False)
    outside = xp.logical_or(xp.less(index, -size), xp.greater_equal(index, size))
    if bool(xp.any(outside)):
        bad = int(index[outside][0])
        raise IndexError(f"{func}: index {bad} is out of bounds for axis {axis} with size {size}")


def gather(xp, x, *indices, key: tuple):
    if key == _TABLE and isinstance(x, np.ndarray) and indices[0].size >= lookups.LEAST:
        found = lookups.lookup(x, indices[0])  # NOTE: lut[image] of bytes, in C
        if found is not None:
            return found
    key = _checked_key("__getitem__", xp, x, key, indices)
    try:
        return x[key]
    except IndexError as exc:
        # Note (spec): out-of-bounds integer indices are unspecified; we raise when computing.
        raise IndexError(f"__getitem__: {exc}") from None


def setitem(xp, x, value, *indices, key: tuple, in_place: bool = False):
    """x with x[key] = value: a copy of x, or x itself where the schedule gave the update x's
    buffer (`in_place`: a buffer it made, read for the last time, _schedule/in_place.py)."""
    key = _checked_key("__setitem__", xp, x, key, indices)
    out = x if in_place else xp.asarray(x, copy=True)
    try:
        out[key] = value
    except IndexError as exc:
        raise IndexError(f"__setitem__: {exc}") from None
    return out


def take(xp, x, indices, *, axis: int):
    if not isinstance(x, np.ndarray):
        _check_bounds("take", xp, indices, axis, x.shape[axis])
    return xp.take(x, indices, axis=axis)


def take_along_axis(xp, x, indices, *, axis: int):
    if not isinstance(x, np.ndarray):
        _check_bounds("take_along_axis", xp, indices, axis, x.shape[axis])
    return xp.take_along_axis(x, indices, axis=axis)


IMPLEMENTATIONS = {
    Op.GATHER: gather,
    Op.SETITEM: setitem,
    Op.TAKE: take,
    Op.TAKE_ALONG_AXIS: take_along_axis,
}
