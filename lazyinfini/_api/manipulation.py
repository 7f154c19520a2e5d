"""Manipulation functions recorded as movement nodes (views until a copy is needed).

Spec: https://data-apis.org/array-api/latest/API_specification/manipulation_functions.html
"""

from __future__ import annotations

import math
import operator

from .._array import Array, record
from .._graph import Op
from .checks import broadcast_shapes, check_array, check_shape, error, normalize_axis


def permute_dims(x, /, axes) -> Array:
    """x with its axes reordered. https://data-apis.org/array-api/latest/API_specification/generated/array_api.permute_dims.html"""
    check_array("permute_dims", "x", x)
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise error(TypeError, "permute_dims", f"axes must be a tuple of ints, got {axes!r}") from None
    normalized = tuple(a % x.ndim if -x.ndim <= a < x.ndim else None for a in axes)
    if None in normalized or sorted(normalized) != list(range(x.ndim)):
        raise error(
            ValueError, "permute_dims", f"axes {axes} is not a permutation of {x.ndim} axes"
        )
    shape = tuple(x.shape[a] for a in normalized)
    return record(Op.PERMUTE, (x._node,), shape, x.dtype, normalized)


def reshape(x, /, shape, *, copy=None) -> Array:
    """x with a new shape (-1 infers one dimension). https://data-apis.org/array-api/latest/API_specification/generated/array_api.reshape.html"""
    check_array("reshape", "x", x)
    target = _resolve_shape(x, shape)
    if target == x.shape:
        return Array(x._node)
    return record(Op.RESHAPE, (x._node,), target, x.dtype)


def _resolve_shape(x: Array, shape) -> tuple[int, ...]:
    if isinstance(shape, int):
        shape = (shape,)
    try:
        dims = [operator.index(d) for d in shape]
    except TypeError:
        raise error(TypeError, "reshape", f"shape must be a tuple of ints, got {shape!r}") from None
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise error(ValueError, "reshape", f"invalid shape {tuple(dims)}")
    known = math.prod(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or x.size % known:
            raise error(ValueError, "reshape", f"cannot reshape {x.shape} into {tuple(dims)}")
        dims[dims.index(-1)] = x.size // known
    if math.prod(dims) != x.size:
        raise error(
            ValueError, "reshape", f"cannot reshape size {x.size} {x.shape} into {tuple(dims)}"
        )
    return tuple(dims)


def broadcast_to(x, /, shape) -> Array:
    """x broadcast to shape. https://data-apis.org/array-api/latest/API_specification/generated/array_api.broadcast_to.html"""
    check_array("broadcast_to", "x", x)
    shape = check_shape("broadcast_to", shape)
    if len(shape) < x.ndim or broadcast_shapes("broadcast_to", x.shape, shape) != shape:
        raise error(ValueError, "broadcast_to", f"cannot broadcast {x.shape} to {shape}")
    if shape == x.shape:
        return Array(x._node)
    return record(Op.BROADCAST, (x._node,), shape, x.dtype)


def expand_dims(x, /, axis=0) -> Array:
    """x with a length-1 axis inserted. https://data-apis.org/array-api/latest/API_specification/generated/array_api.expand_dims.html"""
    check_array("expand_dims", "x", x)
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(axes)
    positions = sorted(normalize_axis("expand_dims", a, ndim) for a in axes)
    if len(set(positions)) != len(positions):
        raise error(ValueError, "expand_dims", f"repeated axis in {axis}")
    dims = iter(x.shape)
    shape = tuple(1 if i in positions else next(dims) for i in range(ndim))
    return record(Op.RESHAPE, (x._node,), shape, x.dtype)
