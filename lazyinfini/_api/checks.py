"""Validation at the edge: every user-facing error is built here and names the function."""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import _dtypes


class AxisError(ValueError, IndexError):
    """An axis out of range (both a ValueError and an IndexError, as in numpy)."""


class OutOfRangeError(OverflowError, ValueError):
    """A value too large for its dtype or a size too large for memory: numpy raises
    OverflowError for these, and the standard's callers expect a ValueError, so it is both."""


# NOTE: numpy cannot allocate more elements (or bytes) than an intp counts.
MAX_SIZE = int(np.iinfo(np.intp).max)


def error(exc: type[Exception], func: str, message: str) -> Exception:
    """The one message format: 'subtract: <rule and values>'."""
    return exc(f"{func}: {message}")


def check_array(func: str, name: str, x):
    from .._array import Array

    if not isinstance(x, Array):
        raise error(TypeError, func, f"{name} must be a lazyinfini array, got {type(x).__name__}")
    return x


def check_flag(func: str, name: str, value) -> bool:
    """A bool keyword (keepdims, copy, endpoint, ...): Python or numpy bool only."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(TypeError, func, f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_dtype_in(func: str, name: str, dtype: np.dtype, category: str) -> None:
    if dtype not in _dtypes.CATEGORIES[category]:
        raise error(
            TypeError, func, f"{name} has dtype {dtype.name}; {func} needs a {category} dtype"
        )


def check_dtype_arg(func: str, dtype) -> np.dtype:
    """A `dtype=` argument: one of the namespace's dtypes."""
    if isinstance(dtype, np.dtype) and _dtypes.is_supported(dtype):
        return dtype
    try:
        as_numpy = np.dtype(dtype) if isinstance(dtype, type) else None
    except TypeError:
        as_numpy = None
    if as_numpy is not None and _dtypes.is_supported(as_numpy):
        return as_numpy
    raise error(TypeError, func, f"{dtype!r} is not a lazyinfini dtype (li.float32, li.int64, ...)")


def check_shape(func: str, shape) -> tuple[int, ...]:
    """A shape argument: an int or a sequence of non-negative ints (bools are not sizes)."""
    if _is_index(shape):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(_is_index(d) for d in shape):
        raise error(TypeError, func, f"shape must be a tuple of ints, got {shape!r}")
    dims = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in dims):
        raise error(ValueError, func, f"negative dimension in shape {dims}")
    check_size(func, dims)
    return dims


def _is_index(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_size(func: str, shape: tuple[int, ...], itemsize: int = 1) -> None:
    """A shape numpy could allocate: its byte count fits an intp (a lazy array of 10**20
    elements would otherwise fail only when computed, lines later)."""
    if math.prod(shape) * itemsize > MAX_SIZE:
        shown = tuple(d if d < 10**12 else float(f"{d:.3g}") for d in shape)
        raise error(OutOfRangeError, func, f"shape {shown} is too large to allocate")


def check_scalar(func: str, value, dtype: np.dtype) -> None:
    """A weak Python scalar next to an array of `dtype`: its kind must fit and an int its range."""
    if dtype in _dtypes.INTEGER:
        if isinstance(value, (float, complex)):
            raise error(TypeError, func, f"cannot combine {value!r} with an integer array")
        if not _dtypes.in_range(int(value), dtype):
            raise error(OutOfRangeError, func, f"{value!r} is out of range for {dtype.name}")
    if dtype == _dtypes.bool and not isinstance(value, bool):
        raise error(TypeError, func, f"cannot combine {value!r} with a bool array")
    if dtype not in _dtypes.COMPLEX and isinstance(value, complex):
        raise error(TypeError, func, f"cannot combine {value!r} with a {dtype.name} array")


def broadcast_shapes(func: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The spec's broadcasting rule; ValueError naming the shapes when they do not broadcast."""
    ndim = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            shown = " and ".join(str(tuple(s)) for s in shapes)
            raise error(ValueError, func, f"shapes {shown} do not broadcast (axis {axis})")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def normalize_axis(func: str, axis, ndim: int) -> int:
    try:
        index = operator.index(axis)
    except TypeError:
        raise error(TypeError, func, f"axis must be an int, got {axis!r}") from None
    if not -ndim <= index < ndim:
        raise error(AxisError, func, f"axis {index} is out of bounds for {ndim}-d array")
    return index % ndim if ndim else 0
