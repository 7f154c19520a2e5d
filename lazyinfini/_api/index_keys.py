"""An index key's items read one by one (ints, slices, index arrays' bounds), and the quick
plan of keys made of ints, slices and integer index arrays.

NOTE (DESIGN.md: recording must stay cheap): numpy scripts index with integer arrays as often
as with slices (`grad[np.arange(n), labels] -= 1`, `lut[image]`, `u[rows, range(k)]`). The
general path (indexing.py: _convert, expand_ellipsis, _plan) costs ~35 us a key; such keys
plan here in ~10, into the very key, inputs and shape (tests/api/test_index_keys.py).
"""

from __future__ import annotations

import operator

import numpy as np

from .. import _dtypes
from .._array import Array, implicit_value, known_value
from .._graph import Node
from . import creation  # NOTE: read at call time: its names would cycle
from .checks import broadcast_shapes, error, is_int
from .placement import device_arg


def axis_index(func: str, item, size: int, axis: int) -> int:
    """An integer index of an axis of `size`, counted from its start."""
    index = operator.index(item)
    if not -size <= index < size:
        raise error(
            IndexError, func, f"index {index} is out of bounds for axis {axis} of size {size}"
        )
    return index % size


def _is_bound(part) -> bool:
    """A slice bound: None, an int, or a 0-d integer array (its value is read, as numpy does)."""
    if isinstance(part, Array):
        return part.ndim == 0 and part.dtype in _dtypes.INTEGER
    return part is None or is_int(part)


def _bound(func: str, part) -> int | None:
    if isinstance(part, Array):
        return int(implicit_value(part, func, "a slice bound"))
    return None if part is None else operator.index(part)


def slice_bounds(func: str, item: slice, size: int) -> tuple[int, int, int]:
    """(start, step, length) of a slice of an axis of `size`; an empty one starts at 0."""
    parts = start, stop, step = item.start, item.stop, item.step
    if start is None and stop is None and step is None:
        return 0, 1, size  # NOTE: `:`, the most common item, checked fast
    if not all(part is None or type(part) is int for part in parts):
        if not all(_is_bound(part) for part in parts):
            raise error(IndexError, func, f"slice {item} has a bound that is not an int")
        start, stop, step = (_bound(func, part) for part in parts)
    if step == 0:
        raise error(ValueError, func, "slice step cannot be zero")
    return _slice_range(slice(start, stop, step), size)


def _slice_range(item: slice, size: int) -> tuple[int, int, int]:
    """(start, step, length) of a slice of ints or None, step not 0 (an empty one starts at 0)."""
    start, stop, step = item.indices(size)
    length = len(range(start, stop, step))
    return (start if length else 0), step, length


def slice_spec(start: int, step: int, length: int) -> tuple:
    """A slice as the runtime's key reads it (a stop past the start of the axis is None)."""
    stop = start + step * length
    return ("slice", start, stop if stop >= 0 else None, step)


def check_bounds(func: str, indices: Array, size: int, axis: int) -> None:
    """Out-of-bounds indices raise here, at the recording line, when their values are known
    already (a concrete array); pending ones raise when they are computed."""
    low, high = _known_bounds(indices)
    if high >= size or low < -size:
        bad = high if high >= size else low
        raise error(
            IndexError, func, f"index {bad} is out of bounds for axis {axis} with size {size}"
        )


def gathered_shape(func: str, dims: list, advanced: list, shapes: list) -> tuple[int, ...]:
    """The shape x[key] has: `dims` (position, length) of the sliced axes and new ones, the
    positions of the `advanced` items and their index `shapes` (numpy's rule: the broadcast
    index shape replaces adjacent advanced items, else leads)."""
    try:
        index_shape = broadcast_shapes(func, *shapes)
    except ValueError as exc:
        raise IndexError(str(exc)) from None
    if not advanced:
        return tuple(d for _, d in dims)
    if advanced == list(range(advanced[0], advanced[-1] + 1)):
        before = tuple(d for p, d in dims if p < advanced[0])
        return before + index_shape + tuple(d for p, d in dims if p > advanced[-1])
    return index_shape + tuple(d for _, d in dims)


def quick_plan(func: str, x: Array, key: tuple) -> tuple[tuple, list[Node], tuple] | None:
    """indexing._plan's (key as the runtime reads it, index nodes, shape of x[key]) for a key
    of ints, slices and at least one integer index array (an Array, an ndarray or a range),
    with every index in bounds; None for any other key, which the general path plans (or
    rejects: every error is the general path's)."""
    shape = x.shape
    if len(key) > len(shape):
        return None
    spec, nodes, dims, advanced, shapes = [], [], [], [], []
    for axis, item in enumerate(key):
        size = shape[axis]
        if type(item) is slice:
            bounds = _plain_slice(item, size)
            if bounds is None:
                return None
            spec.append(slice_spec(*bounds))
            dims.append((axis, bounds[2]))
            continue
        if type(item) is int:
            if not -size <= item < size:
                return None
            spec.append(("int", item % size))
            shapes.append(())
        else:
            node = _index_node(x, item, size)
            if node is None:
                return None
            nodes.append(node)
            spec.append(("array", len(nodes) - 1))
            shapes.append(node.shape)
        advanced.append(axis)
    if not nodes:
        return None
    for axis in range(len(key), len(shape)):
        spec.append(slice_spec(0, 1, shape[axis]))
        dims.append((axis, shape[axis]))
    try:
        return tuple(spec), nodes, gathered_shape(func, dims, advanced, shapes)
    except IndexError:  # NOTE: index shapes that do not broadcast: the general path raises
        return None


def _plain_slice(item: slice, size: int) -> tuple[int, int, int] | None:
    """slice_bounds of a slice whose bounds are ints or None and whose step is not 0."""
    parts = item.start, item.stop, item.step
    if item.step == 0 or not all(part is None or type(part) is int for part in parts):
        return None
    return _slice_range(item, size)


def _index_node(x: Array, item, size: int) -> Node | None:
    """The node of an integer index array as the general path records it (an ndarray or a
    range: its values now, on x's device), where its known values are in bounds; else None."""
    if isinstance(item, Array):
        if item.dtype not in _dtypes.INTEGER:
            return None  # NOTE: a boolean mask: its True positions are computed
        index = item
    elif (type(item) is np.ndarray and item.dtype.kind in "iu") or type(item) is range:
        value = np.asarray(item)  # NOTE: a range's values as numpy makes them (int64)
        if value.dtype.kind not in "iu" or not _dtypes.is_supported(value.dtype):
            return None  # NOTE: an empty range is float64 to numpy: the general path casts
        # NOTE: an ndarray is the caller's (a snapshot, in one step where it is small: given
        # None); a range's values are new
        given = None if value is item else item
        index = creation.operand(value, device=device_arg(x), given=given)
    else:
        return None
    low, high = _known_bounds(index)
    return index._node if -size <= low and high < size else None


def _known_bounds(indices: Array) -> tuple[int, int]:
    """The smallest and largest of `indices` where its values are known and it is not empty,
    else (0, -1): no index to check."""
    value = known_value(indices)
    if value is None or value.size == 0:
        return 0, -1
    if value.size <= _LISTED:  # NOTE: Python's min and max of a few (~0.7 us; reduces: ~2.2)
        items = value.ravel().tolist()
        return min(items), max(items)
    # NOTE: the ufuncs' reduce, not value.min(): no Python wrapper (~1 us each)
    return int(_MIN(value, None)), int(_MAX(value, None))


_MIN, _MAX = np.minimum.reduce, np.maximum.reduce
_LISTED = 32
