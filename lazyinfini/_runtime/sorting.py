"""Sorting-order ops that are not a plain Array API call (see library.CUSTOM).

sort: array_api_compat.numpy sorts descending by reversing an ascending sort, which reverses
ties too (visible for -0.0 and +0.0); the spec wants descending sorts stable as well.
bincount: numpy's (one counting pass) where the namespace has it (numpy, CuPy), else counted
from a sort and a searchsorted of the bin edges, in the namespace alone.
searchsorted: a node's inputs arrive positionally, but numpy's third positional parameter is
`side`, so the optional sorter input must be passed by keyword.
"""

from __future__ import annotations

import numpy as np

from .._graph import Op
from . import lookups


def sort(xp, x, *, axis: int, descending: bool, stable: bool):
    if not descending:
        return xp.sort(x, axis=axis, stable=stable)
    # Sorting the reversed input stably and reversing the result keeps equal elements in
    # their original order.
    flipped = xp.sort(xp.flip(x, axis=axis), axis=axis, stable=stable)
    return xp.flip(flipped, axis=axis)


def searchsorted(xp, x1, x2, *sorter, side: str):
    return xp.searchsorted(x1, x2, side=side, sorter=sorter[0] if sorter else None)


def bincount(xp, x, *, minlength: int):
    """The count of each value 0 .. minlength - 1 in `x` (non-negative integers below
    minlength, as the recording checked, or floats holding such integers: a histogram's bins,
    computed in a compiled pass where a float-to-integer cast has no C form), as int64."""
    if xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.int64)
    if isinstance(x, np.ndarray):  # NOTE: bytes and 16-bit values are counted in C
        counted = lookups.bincount(x, minlength)
        if counted is not None:
            return counted
    count = getattr(xp, "bincount", None)
    if count is not None:
        return xp.astype(count(x, minlength=minlength), xp.int64)
    edges = xp.arange(minlength + 1, dtype=xp.int64)
    bounds = xp.searchsorted(xp.sort(xp.astype(x, xp.int64)), edges, side="left")
    return xp.astype(bounds[1:] - bounds[:-1], xp.int64)


IMPLEMENTATIONS = {Op.SORT: sort, Op.SEARCHSORTED: searchsorted, Op.BINCOUNT: bincount}
