"""Sorting-order ops that are not a plain Array API call (see library.CUSTOM).

sort: array_api_compat.numpy sorts descending by reversing an ascending sort, which reverses
ties too (visible for -0.0 and +0.0); the spec wants descending sorts stable as well.
searchsorted: a node's inputs arrive positionally, but numpy's third positional parameter is
`side`, so the optional sorter input must be passed by keyword.
"""

from __future__ import annotations

from .._graph import Op


def sort(xp, x, *, axis: int, descending: bool, stable: bool):
    if not descending:
        return xp.sort(x, axis=axis, stable=stable)
    # Sorting the reversed input stably and reversing the result keeps equal elements in
    # their original order.
    flipped = xp.sort(xp.flip(x, axis=axis), axis=axis, stable=stable)
    return xp.flip(flipped, axis=axis)


def searchsorted(xp, x1, x2, *sorter, side: str):
    return xp.searchsorted(x1, x2, side=side, sorter=sorter[0] if sorter else None)


IMPLEMENTATIONS = {Op.SORT: sort, Op.SEARCHSORTED: searchsorted}
