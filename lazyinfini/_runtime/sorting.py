"""Sorting-order ops that are not a plain array_api_compat.numpy call (see library.CUSTOM).

sort: array_api_compat.numpy sorts descending by reversing an ascending sort, which reverses
ties too (visible for -0.0 and +0.0); the spec wants descending sorts stable as well.
searchsorted: a node's inputs arrive positionally, but numpy's third positional parameter is
`side`, so the optional sorter input must be passed by keyword.
"""

from __future__ import annotations

import numpy as np

from .._compat import compat
from .._graph import Op


def sort(x: np.ndarray, *, axis: int, descending: bool, stable: bool) -> np.ndarray:
    if not descending:
        return compat.sort(x, axis=axis, stable=stable)
    # Sorting the reversed input stably and reversing the result keeps equal elements in
    # their original order.
    kind = "stable" if stable else None
    return np.flip(np.sort(np.flip(x, axis=axis), axis=axis, kind=kind), axis=axis)


def searchsorted(x1: np.ndarray, x2: np.ndarray, *sorter: np.ndarray, side: str) -> np.ndarray:
    return compat.searchsorted(x1, x2, side=side, sorter=sorter[0] if sorter else None)


IMPLEMENTATIONS = {Op.SORT: sort, Op.SEARCHSORTED: searchsorted}
