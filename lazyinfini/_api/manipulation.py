"""Manipulation functions recorded as movement nodes (views until a copy is needed).

Spec: https://data-apis.org/array-api/latest/API_specification/manipulation_functions.html
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtypes
from .._array import Array, implicit_value, record
from .._graph import Node, Op, caller_source, quick_node
from .checks import (
    AxisError,
    check_array,
    check_int,
    check_shape,
    check_size,
    error,
    is_int,
    normalize_axis,
)
from .checks import broadcast_shapes as common_shape
from .elementwise import conform
from .placement import constant
from .views import link, reshape_is_view


def permute_dims(x, /, axes) -> Array:
    """x with its axes reordered. https://data-apis.org/array-api/latest/API_specification/generated/array_api.permute_dims.html"""
    check_array("permute_dims", "x", x)
    try:
        axes = tuple(axes)
    except TypeError:
        raise error(
            TypeError, "permute_dims", f"axes must be a tuple of ints, got {axes!r}"
        ) from None
    # NOTE: a Python int is checked by its type alone (check_int's call costs more)
    axes = tuple(a if type(a) is int else check_int("permute_dims", "axes", a) for a in axes)
    # NOTE: x's node read once: a view's node is a property that may replay its steps (20
    # reads of x.ndim and x.shape cost more than the rest of the recording)
    node = x._node
    ndim = len(node.shape)
    normalized = tuple(a % ndim if -ndim <= a < ndim else None for a in axes)
    if None in normalized or sorted(normalized) != list(range(ndim)):
        raise error(ValueError, "permute_dims", f"axes {axes} is not a permutation of {ndim} axes")
    return _permuted(x, node, normalized)


def transposed(x: Array) -> Array:
    """x.T of a matrix (checked by the caller): permute_dims(x, (1, 0)) without its checks of
    the axes (~2 us a call: `X.T @ y` is in most numpy scripts)."""
    return _permuted(x, x._node, (1, 0))


def _permuted(x: Array, node, axes: tuple[int, ...]) -> Array:
    """The view of x (whose node is `node`) with its axes in the checked order `axes`."""
    shape = tuple(node.shape[a] for a in axes)
    # NOTE: the node made without Node's asserts: its shape is x's own dims, reordered
    permuted = quick_node(Op.PERMUTE, (node,), shape, node.dtype, axes, caller_source())
    return link(x, Array(permuted))


def reshape(x, /, shape, *, copy=None) -> Array:
    """x with a new shape (-1 infers one dimension). https://data-apis.org/array-api/latest/API_specification/generated/array_api.reshape.html"""
    check_array("reshape", "x", x)
    if copy is not None and not isinstance(copy, bool):
        raise error(TypeError, "reshape", f"copy must be True, False or None, got {copy!r}")
    target = _resolve_shape(x, shape)
    # Note: a view where numpy's is one (views.py), so writes through it reach x.
    view = copy is not True and reshape_is_view(x, target)
    if copy is False and not view:
        # Note (spec): copy=False raises where a copy is needed (a transposed view, ...).
        raise error(ValueError, "reshape", f"{x.shape} -> {target} needs a copy; copy=False")
    node = x._node
    if target == node.shape:
        result = Array(node)
    else:  # NOTE: without Node's asserts: _resolve_shape made the shape, of x's size
        result = Array(quick_node(Op.RESHAPE, (node,), target, node.dtype, None, caller_source()))
    return link(x, result) if view else result


def _resolve_shape(x: Array, shape) -> tuple[int, ...]:
    # NOTE: a tuple of Python ints (the common call) needs no conversion (~3 us a reshape)
    if type(shape) is not tuple or not all(type(d) is int for d in shape):
        shape = _int_dims(shape)
    size = x._n.size
    if shape.count(-1) > 1 or min(shape, default=0) < -1:
        raise error(ValueError, "reshape", f"invalid shape {shape}")
    if -1 in shape:
        known = -math.prod(shape)
        if known == 0 or size % known:
            raise error(ValueError, "reshape", f"cannot reshape {x.shape} into {shape}")
        at = shape.index(-1)
        shape = (*shape[:at], size // known, *shape[at + 1 :])
    if math.prod(shape) != size:
        raise error(ValueError, "reshape", f"cannot reshape size {size} {x.shape} into {shape}")
    return shape


def _int_dims(shape) -> tuple[int, ...]:
    """A reshape's shape argument as a tuple of Python ints (an int is one dimension)."""
    if is_int(shape):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise error(TypeError, "reshape", f"shape must be a tuple of ints, got {shape!r}")
    return tuple(check_int("reshape", "shape", d) for d in shape)


def broadcast_to(x, /, shape) -> Array:
    """x broadcast to shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.broadcast_to.html"""
    check_array("broadcast_to", "x", x)
    shape = check_shape("broadcast_to", shape)
    if len(shape) < x.ndim or common_shape("broadcast_to", x.shape, shape) != shape:
        raise error(ValueError, "broadcast_to", f"cannot broadcast {x.shape} to {shape}")
    # Note: a read-only view, as numpy's: writing into it raises; writes into x show through it.
    same = shape == x.shape
    result = Array(x._node) if same else record(Op.BROADCAST, (x._node,), shape, x.dtype)
    return link(x, result, readonly=True)


def expand_dims(x, /, axis=0) -> Array:
    """x with a length-1 axis inserted. https://data-apis.org/array-api/latest/API_specification/generated/array_api.expand_dims.html"""
    check_array("expand_dims", "x", x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(axes)
    positions = sorted(normalize_axis("expand_dims", a, ndim) for a in axes)
    if len(set(positions)) != len(positions):
        raise error(AxisError, "expand_dims", f"repeated axis in {axis}")
    dims = iter(x.shape)
    shape = tuple(1 if i in positions else next(dims) for i in range(ndim))
    return link(x, record(Op.RESHAPE, (x._node,), shape, x.dtype))


def _axes(func: str, axis, ndim: int) -> tuple[int, ...]:
    """An int or a tuple of ints as unique non-negative axes, in the order given."""
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    normalized = tuple(normalize_axis(func, a, ndim) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise error(ValueError, func, f"repeated axis in {axis}")
    return normalized


# -- views: movement nodes, strided loads for whatever reads them -----------------------------


def broadcast_shapes(*shapes) -> tuple[int, ...]:
    """The shape that `shapes` broadcast to. https://data-apis.org/array-api/latest/API_specification/generated/array_api.broadcast_shapes.html"""
    return common_shape("broadcast_shapes", *(check_shape("broadcast_shapes", s) for s in shapes))


def broadcast_arrays(*arrays) -> tuple[Array, ...]:
    """The arrays broadcast against each other. https://data-apis.org/array-api/latest/API_specification/generated/array_api.broadcast_arrays.html"""
    for i, a in enumerate(arrays):
        check_array("broadcast_arrays", f"arrays[{i}]", a)
    shape = common_shape("broadcast_arrays", *(a.shape for a in arrays))
    source = caller_source()
    # Note: views of the inputs, as numpy's: one already of the shape writes through to its input;
    # a broadcast one is read-only (numpy warns that it will be).
    return tuple(
        link(a, Array(a._node))
        if a.shape == shape
        else link(a, record(Op.BROADCAST, (a._node,), shape, a.dtype, None, source), True)
        for a in arrays
    )


def flip(x, /, axis=None) -> Array:
    """x reversed along axis (a view with negative steps). https://data-apis.org/array-api/latest/API_specification/generated/array_api.flip.html"""
    check_array("flip", "x", x)
    axes = range(x.ndim) if axis is None else _axes("flip", axis, x.ndim)
    # NOTE: a length-1 axis too: numpy's view steps back along it, and its loops read such
    # memory with other bits (np.abs of a flipped complex64 element runs the scalar hypot)
    arg = tuple((n - 1, -1) if i in axes and n > 0 else (0, 1) for i, n in enumerate(x.shape))
    if all(a == (0, 1) for a in arg):
        return link(x, Array(x._node))
    return link(x, record(Op.SLICE, (x._node,), x.shape, x.dtype, arg))


def moveaxis(x, source, destination, /) -> Array:
    """x with axes moved to new positions (a permute view). https://data-apis.org/array-api/latest/API_specification/generated/array_api.moveaxis.html"""
    check_array("moveaxis", "x", x)
    src = _axes("moveaxis", source, x.ndim)
    dst = _axes("moveaxis", destination, x.ndim)
    if len(src) != len(dst):
        raise error(
            ValueError,
            "moveaxis",
            f"source {source} and destination {destination} differ in length",
        )
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def squeeze(x, /, axis) -> Array:
    """x without the given length-1 axes (a reshape view). https://data-apis.org/array-api/latest/API_specification/generated/array_api.squeeze.html"""
    check_array("squeeze", "x", x)
    axes = _axes("squeeze", axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            raise error(ValueError, "squeeze", f"axis {a} has length {x.shape[a]}, not 1")
    if not axes:
        return link(x, Array(x._node))
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return link(x, record(Op.RESHAPE, (x._node,), shape, x.dtype))


def unstack(x, /, *, axis=0) -> tuple[Array, ...]:
    """x split along axis into a tuple of views. https://data-apis.org/array-api/latest/API_specification/generated/array_api.unstack.html"""
    check_array("unstack", "x", x)
    axis = normalize_axis("unstack", axis, x.ndim)
    source = caller_source()
    return tuple(link(x, _index_along(x, axis, i, source)) for i in range(x.shape[axis]))


def _index_along(x: Array, axis: int, index: int, source: str) -> Array:
    """x[..., index, ...] on `axis` as a SLICE view and a RESHAPE dropping that axis."""
    arg = tuple((index, 1) if a == axis else (0, 1) for a in range(x.ndim))
    one = x.shape[:axis] + (1,) + x.shape[axis + 1 :]
    sliced = Node(Op.SLICE, (x._node,), one, x.dtype, arg, source)
    return record(Op.RESHAPE, (sliced,), one[:axis] + one[axis + 1 :], x.dtype, None, source)


# -- copies: one library call each ------------------------------------------------------------


def _sequence(func: str, arrays) -> list[Array]:
    if not isinstance(arrays, (tuple, list)) or not arrays:
        raise error(TypeError, func, f"arrays must be a non-empty tuple or list, got {arrays!r}")
    return [check_array(func, f"arrays[{i}]", a) for i, a in enumerate(arrays)]


def _common_dtype(func: str, arrays: list[Array]) -> np.dtype:
    dtype = _dtypes.promote(*(a.dtype for a in arrays))
    if dtype is None:
        shown = ", ".join(a.dtype.name for a in arrays)
        raise error(TypeError, func, f"dtypes {shown} have no common type")
    return dtype


def concat(arrays, /, axis=0) -> Array:
    """arrays joined along an existing axis (flattened first when axis is None). https://data-apis.org/array-api/latest/API_specification/generated/array_api.concat.html"""
    arrays = _sequence("concat", arrays)
    source = caller_source()
    dtype = _common_dtype("concat", arrays)
    if axis is None:
        nodes = [
            a._node
            if a.ndim == 1
            else Node(Op.RESHAPE, (a._node,), (a.size,), a.dtype, None, source)
            for a in arrays
        ]
        axis = 0
    else:
        axis = _join_axis("concat", arrays, axis)
        nodes = [a._node for a in arrays]
    shape = list(nodes[0].shape)
    shape[axis] = sum(n.shape[axis] for n in nodes)
    nodes = [conform(n, dtype, n.shape, source) for n in nodes]
    if len(nodes) == 1:
        return Array(nodes[0])
    return record(Op.CONCAT, tuple(nodes), shape, dtype, (("axis", axis),), source)


def _join_axis(func: str, arrays: list[Array], axis) -> int:
    """The concat axis; the arrays must agree in rank and in every other axis."""
    first = arrays[0]
    if first.ndim == 0:
        raise error(ValueError, func, "zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(func, axis, first.ndim)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != first.ndim or any(
            n != m for k, (n, m) in enumerate(zip(a.shape, first.shape, strict=True)) if k != axis
        ):
            raise error(
                ValueError,
                func,
                f"arrays[{i}] has shape {a.shape}, arrays[0] {first.shape}; "
                f"only axis {axis} may differ",
            )
    return axis


def stack(arrays, /, axis=0) -> Array:
    """arrays joined along a new axis. https://data-apis.org/array-api/latest/API_specification/generated/array_api.stack.html"""
    arrays = _sequence("stack", arrays)
    source = caller_source()
    dtype = _common_dtype("stack", arrays)
    first = arrays[0].shape
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != first:
            raise error(ValueError, "stack", f"arrays[{i}] has shape {a.shape}, arrays[0] {first}")
    axis = normalize_axis("stack", axis, len(first) + 1)
    shape = first[:axis] + (len(arrays),) + first[axis:]
    nodes = tuple(conform(a._node, dtype, first, source) for a in arrays)
    return record(Op.STACK, nodes, shape, dtype, (("axis", axis),), source)


def roll(x, /, shift, axis=None) -> Array:
    """x with elements shifted along axis, wrapping around. https://data-apis.org/array-api/latest/API_specification/generated/array_api.roll.html"""
    check_array("roll", "x", x)
    if axis is None:
        if isinstance(shift, (tuple, list)):
            raise error(TypeError, "roll", f"shift {shift} is a tuple, so axis must be one too")
        arg = (("shift", check_int("roll", "shift", shift) % max(x.size, 1)), ("axis", None))
        return _roll(x, arg)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    axes = [normalize_axis("roll", a, x.ndim) for a in axes]
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,) * len(axes)
    if len(shifts) != len(axes) or (
        isinstance(shift, (tuple, list)) and not isinstance(axis, (tuple, list))
    ):
        raise error(ValueError, "roll", f"shift {shift} and axis {axis} differ in length")
    # Note: shifts on a repeated axis add up, as in numpy.
    total = dict.fromkeys(sorted(axes), 0)
    for a, s in zip(axes, shifts, strict=True):
        total[a] = (total[a] + check_int("roll", "shift", s)) % max(x.shape[a], 1)
    total = {a: s for a, s in total.items() if s}
    return _roll(x, (("shift", tuple(total.values())), ("axis", tuple(total))))


def _roll(x: Array, arg: tuple) -> Array:
    if not arg[0][1]:
        return Array(x._node)  # nothing moves
    return record(Op.ROLL, (x._node,), x.shape, x.dtype, arg, caller_source())


def tile(x, repetitions, /) -> Array:
    """x repeated as whole tiles along each axis. https://data-apis.org/array-api/latest/API_specification/generated/array_api.tile.html"""
    check_array("tile", "x", x)
    if not isinstance(repetitions, (tuple, list)):
        raise error(TypeError, "tile", f"repetitions must be a tuple of ints, got {repetitions!r}")
    reps = tuple(check_int("tile", "repetitions", r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise error(ValueError, "tile", f"negative repetitions {reps}")
    ndim = max(x.ndim, len(reps))
    reps = (1,) * (ndim - len(reps)) + reps
    shape = tuple(n * r for n, r in zip((1,) * (ndim - x.ndim) + x.shape, reps, strict=True))
    check_size("tile", shape, x.dtype.itemsize)
    return record(Op.TILE, (x._node,), shape, x.dtype, (("reps", reps),))


def repeat(x, repeats, /, axis=None) -> Array:
    """Each element of x repeated; an array of repeats is computed first (data-dependent shape).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.repeat.html"""
    check_array("repeat", "x", x)
    axis = None if axis is None else normalize_axis("repeat", axis, x.ndim)
    length = x.size if axis is None else x.shape[axis]
    if isinstance(repeats, Array):
        counts = _repeat_counts(repeats, length)
        total = int(counts.sum()) * (length if counts.shape == (1,) else 1)
        srcs = (x._node, constant(counts, x._node, caller_source()))
        arg = (("axis", axis), ("total", total))  # NOTE: the output length, known here
    else:
        count = check_int("repeat", "repeats", repeats, minimum=0)
        count = count if length else 0  # NOTE: nothing to repeat; numpy takes a C long
        total, srcs, arg = count * length, (x._node,), (("repeats", count), ("axis", axis))
    shape = (total,) if axis is None else x.shape[:axis] + (total,) + x.shape[axis + 1 :]
    check_size("repeat", shape, x.dtype.itemsize)
    return record(Op.REPEAT, srcs, shape, x.dtype, arg)


def _repeat_counts(repeats: Array, length: int) -> np.ndarray:
    """The values of an array of repeats (materialized: they decide the output's shape)."""
    if repeats.dtype not in _dtypes.INTEGER:
        raise error(TypeError, "repeat", f"repeats has dtype {repeats.dtype.name}; needs integers")
    if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, length)):
        raise error(
            ValueError, "repeat", f"repeats has shape {repeats.shape}; needs (1,) or ({length},)"
        )
    counts = implicit_value(repeats, "repeat", "repeats").reshape(-1)
    if (counts < 0).any():
        raise error(ValueError, "repeat", "repeats must be non-negative")
    return counts.astype(_dtypes.DEFAULT_INDEX)
