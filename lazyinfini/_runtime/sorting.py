"""Sorting-order ops that are not a plain Array API call (see library.CUSTOM).

partition: numpy's (CuPy's) own, the namespace has none.
sort: array_api_compat.numpy sorts descending by reversing an ascending sort, which reverses
ties too (visible for -0.0 and +0.0); the spec wants descending sorts stable as well.
bincount: numpy's (one counting pass) where the namespace has it (numpy, CuPy), else counted
from a sort and a searchsorted of the bin edges, in the namespace alone.
searchsorted: a node's inputs arrive positionally, but numpy's third positional parameter is
`side`, so the optional sorter input must be passed by keyword.
check: a histogram's checks of its data (a finite range, increasing edges), made when its edges
are computed: numpy makes them at the call, a lazy call cannot look sooner.
"""

from __future__ import annotations

import numpy as np

from .._graph import Op
from . import lookups


def sort(xp, x, *, axis: int, descending: bool, stable: bool):
    if not descending:
        return _sorted(xp, x, axis, stable)
    # Sorting the reversed input stably and reversing the result keeps equal elements in
    # their original order.
    flipped = _sorted(xp, xp.flip(x, axis=axis), axis, stable)
    return xp.flip(flipped, axis=axis)


def _sorted(xp, x, axis: int, stable: bool):
    """x sorted along axis. numpy 2.4's unstable sort of float16 (x86-simd-sort's AVX-512
    16-bit kernel, on CPUs without AVX512-FP16) leaves some arrays of 20,000 and more elements
    with many ties unsorted (29 of 60 such arrays here): its order is kept wherever it is
    sorted (numpy's -0.0 and 0.0 order), else the stable sort's is taken."""
    result = xp.sort(x, axis=axis, stable=stable)
    if stable or type(result) is not np.ndarray or result.dtype != np.float16:
        return result
    along = np.moveaxis(result, axis, -1)
    if (along[..., 1:] < along[..., :-1]).any():
        return xp.sort(x, axis=axis, stable=True)
    return result


def partition(xp, x, *, axis: int, kth: tuple):
    return xp.partition(x, list(kth), axis=axis)


def searchsorted(xp, x1, x2, *sorter, side: str):
    return xp.searchsorted(x1, x2, side=side, sorter=sorter[0] if sorter else None)


def bincount(xp, x, *, minlength: int):
    """The count of each value 0 .. minlength - 1 in `x` (non-negative integers below
    minlength, as the recording checked, or floats holding such integers: a histogram's bins,
    computed in a compiled pass where a float-to-integer cast has no C form), as int64."""
    if xp.isdtype(x.dtype, "real floating"):
        x = xp.astype(x, xp.int64)
    if isinstance(x, np.ndarray) and x.size >= lookups.LEAST:  # NOTE: bytes, 16-bit values: C
        counted = lookups.bincount(x, minlength)
        if counted is not None:
            return counted
    count = getattr(xp, "bincount", None)
    if count is not None:
        return xp.astype(count(x, minlength=minlength), xp.int64)
    edges = xp.arange(minlength + 1, dtype=xp.int64)
    bounds = xp.searchsorted(xp.sort(xp.astype(x, xp.int64)), edges, side="left")
    return xp.astype(bounds[1:] - bounds[:-1], xp.int64)


def check(xp, x, *, test: str, message: str):
    """x, once `test` holds of its values ("finite": every value is; "increasing": each value
    is above the one before; "false": every value is False), else ValueError(`message`, the
    first two formatted with x's values): numpy's checks of data, which a lazy call makes when
    its value is computed."""
    if test == "false":
        if bool(xp.any(x)):
            raise ValueError(message)
        return x
    if test == "finite":
        failed = not bool(xp.all(xp.isfinite(x)))
    else:
        failed = bool(xp.any(xp.greater_equal(x[:-1], x[1:])))
    if failed:
        # NOTE: numpy's message shows its scalars of x's dtype (a device's value read one by one)
        scalar = np.dtype(x.dtype).type
        raise ValueError(message.format(*(scalar(float(x[i])) for i in range(x.shape[0]))))
    return x


IMPLEMENTATIONS = {
    Op.SORT: sort,
    Op.PARTITION: partition,
    Op.SEARCHSORTED: searchsorted,
    Op.BINCOUNT: bincount,
    Op.CHECK: check,
}
