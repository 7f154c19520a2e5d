"""Indexing: basic indexing (ints, slices, ellipsis, None) recorded as SLICE + RESHAPE views.

Spec: https://data-apis.org/array-api/latest/API_specification/indexing.html
"""

from __future__ import annotations

import operator

from .._array import Array, record
from .._graph import Op, caller_source
from .checks import error


def getitem(x: Array, key) -> Array:
    """x[key]: a SLICE node (start, step per axis) and a RESHAPE for dropped/inserted axes."""
    source = caller_source()
    items = _expand(x, key if isinstance(key, tuple) else (key,))
    per_axis, out_shape, axis = [], [], 0
    for item in items:
        if item is None:
            out_shape.append(1)
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            start, step, length = _slice(item, size)
            out_shape.append(length)
        else:
            start, step, length = _integer(item, size, axis), 1, 1
        per_axis.append((start, step, length))
        axis += 1
    node = x._node
    if any(p != (0, 1, size) for p, size in zip(per_axis, x.shape)):
        arg = tuple((start, step) for start, step, _ in per_axis)
        shape = tuple(length for _, _, length in per_axis)
        node = record(Op.SLICE, (node,), shape, x.dtype, arg, source)._n
    if tuple(out_shape) != node.shape:
        node = record(Op.RESHAPE, (node,), out_shape, x.dtype, None, source)._n
    return Array(node)


def _expand(x: Array, key: tuple) -> list:
    """The key with its ellipsis replaced by full slices, one item per axis (plus Nones)."""
    for item in key:
        if not (item is None or item is Ellipsis or isinstance(item, slice) or _is_int(item)):
            raise error(
                IndexError,
                "__getitem__",
                f"index {item!r} ({type(item).__name__}); basic indexing takes ints, slices, "
                "..., None",
            )
    if sum(item is Ellipsis for item in key) > 1:
        raise error(IndexError, "__getitem__", "an index can only have one ellipsis")
    indexed = sum(item is not None and item is not Ellipsis for item in key)
    if indexed > x.ndim:
        raise error(IndexError, "__getitem__", f"{indexed} indices for a {x.ndim}-d array")
    fill = [slice(None)] * (x.ndim - indexed)
    if Ellipsis not in key:
        return list(key) + fill
    at = key.index(Ellipsis)
    return list(key[:at]) + fill + list(key[at + 1 :])


def _is_int(item) -> bool:
    if isinstance(item, bool) or isinstance(item, Array):
        return False
    try:
        operator.index(item)
    except TypeError:
        return False
    return True


def _integer(item, size: int, axis: int) -> int:
    index = operator.index(item)
    if not -size <= index < size:
        raise error(
            IndexError, "__getitem__", f"index {index} is out of bounds for axis {axis} of size {size}"
        )
    return index % size


def _slice(item: slice, size: int) -> tuple[int, int, int]:
    if item.step is not None and operator.index(item.step) == 0:
        raise error(ValueError, "__getitem__", "slice step cannot be zero")
    start, stop, step = item.indices(size)
    length = len(range(start, stop, step))
    return (start if length else 0), step, length
