"""Joining several arrays into one: the ops whose inputs are a variable-length list of arrays.

The namespace's concat and stack take the arrays as one sequence argument, while a node's
inputs arrive one by one, so these are not plain library calls (see library.CUSTOM).
"""

from __future__ import annotations

from .._graph import Op


def concat(xp, *arrays, axis: int):
    return xp.concat(list(arrays), axis=axis)


def stack(xp, *arrays, axis: int):
    return xp.stack(list(arrays), axis=axis)


IMPLEMENTATIONS = {Op.CONCAT: concat, Op.STACK: stack}
