"""numpy's helpers that arrange arrays or index them by their shapes (block, unstack,
matrix_transpose, diagflat, tril_indices_from, ...), recorded as numpy writes them: joins and
views of the Arrays, and index arrays made from the shapes alone.
"""

from __future__ import annotations

import numpy as np

from .._api.creation import asarray, copy_node
from .._array import Array
from .._graph import caller_source
from . import creation
from .arguments import array

NAMES = ("block", "unstack", "matrix_transpose", "diagflat", "tril_indices_from")
NAMES += ("triu_indices_from", "diag_indices_from")


def block(arrays):
    depth = _depth(arrays)
    leaves = list(_leaves(arrays))
    ndim = max([depth, *(np.ndim(a) for a in leaves)])
    if depth == 0:  # Note (numpy): one array's block is its copy, C-ordered
        return copy_node(array(arrays), "C", caller_source())
    return _blocked(arrays, 0, depth, ndim)


def _depth(arrays, where: str = "arrays") -> int:
    """How deep numpy's nested lists go (every branch as deep: numpy's ValueError if not)."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks.")
    if not isinstance(arrays, list):
        return 0
    if not arrays:
        raise ValueError(f"List at {where} cannot be empty")
    depths = {_depth(item, f"{where}[{i}]") for i, item in enumerate(arrays)}
    if len(depths) != 1:
        raise ValueError("List depths are mismatched")
    return depths.pop() + 1


def _leaves(arrays):
    if isinstance(arrays, list):
        for item in arrays:
            yield from _leaves(item)
    else:
        yield arrays


def _blocked(arrays, level: int, depth: int, ndim: int) -> Array:
    if level < depth:
        parts = [_blocked(item, level + 1, depth, ndim) for item in arrays]
        return np.concatenate(parts, axis=-(depth - level))
    x = array(arrays)
    return x if x.ndim == ndim else np.reshape(x, (1,) * (ndim - x.ndim) + x.shape)


def unstack(x, /, *, axis=0):
    x = array(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    moved = np.moveaxis(x, axis, 0)
    return tuple(moved[i] for i in range(moved.shape[0]))


def matrix_transpose(x, /):
    x = array(x)
    if x.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return np.swapaxes(x, -1, -2)


def diagflat(v, k=0):
    return creation.diag(np.ravel(array(v)), k)


def tril_indices_from(arr, k=0):
    x = _matrix(arr)
    return _constants(np.tril_indices(x.shape[-2], k=k, m=x.shape[-1]))


def triu_indices_from(arr, k=0):
    x = _matrix(arr)
    return _constants(np.triu_indices(x.shape[-2], k=k, m=x.shape[-1]))


def diag_indices_from(arr):
    x = array(arr)
    if x.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(x.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return _constants(np.diag_indices(x.shape[0], x.ndim))


def _matrix(arr) -> Array:
    x = array(arr)
    if x.ndim != 2:
        raise ValueError("input array must be 2-d")
    return x


def _constants(indices) -> tuple:
    """numpy's index arrays, which depend on the shape alone: made now, as constants."""
    return tuple(asarray(i) for i in indices)
