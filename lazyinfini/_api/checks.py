"""Validation at the edge: every user-facing error is built here and names the function."""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import _dtypes


class AxisError(np.exceptions.AxisError):
    """An axis out of range: numpy's AxisError (both a ValueError and an IndexError), so
    `except np.exceptions.AxisError` catches it as it catches numpy's."""


class OutOfRangeError(OverflowError, ValueError):
    """A value too large for its dtype or a size too large for memory: numpy raises
    OverflowError for these, and the standard's callers expect a ValueError, so it is both."""


# NOTE: numpy cannot allocate more elements (or bytes) than an intp counts.
MAX_SIZE = int(np.iinfo(np.intp).max)


def error(exc: type[Exception], func: str, message: str) -> Exception:
    """The one message format: 'subtract: <rule and values>'."""
    return exc(f"{func}: {message}")


def check_array(func: str, name: str, x):
    if not isinstance(x, _array.Array):
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


def is_int(value) -> bool:
    """Whether `value` is an int to the standard: anything with __index__ (a Python or numpy
    integer) but a bool. Never computes: a lazyinfini array is not one here (in an index key it
    is an index array; check_int reads a 0-d one)."""
    if isinstance(value, (bool, np.bool_, _array.Array)):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def check_int(func: str, name: str, value, minimum: int | None = None) -> int:
    """An int argument (an axis, a size, an offset, a power), as Python reads one: through
    __index__, so a numpy integer is one and a bool is not. A 0-d integer lazyinfini array
    is read by its __index__ too (an implicit materialization, see _array.implicit_value)."""
    if isinstance(value, (bool, np.bool_)):
        raise error(TypeError, func, f"{name} must be an int, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise error(TypeError, func, f"{name} must be an int, got {value!r}") from None
    if minimum is not None and value < minimum:
        raise error(ValueError, func, f"{name} must be at least {minimum}, got {value}")
    return value


def check_shape(func: str, shape) -> tuple[int, ...]:
    """A shape argument: an int or a sequence of non-negative ints (bools are not sizes)."""
    if is_int(shape):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(is_int(d) for d in shape):
        raise error(TypeError, func, f"shape must be a tuple of ints, got {shape!r}")
    dims = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in dims):
        raise error(ValueError, func, f"negative dimension in shape {dims}")
    check_size(func, dims)
    return dims


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
    first = shapes[0] if shapes else ()
    if all(s == first for s in shapes):  # NOTE: the common call, shapes that agree: no walk
        return tuple(first)
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
    """An axis of an ndim-d array, counted from 0 (a negative one from the end)."""
    index = check_int(func, "axis", axis)
    if not -ndim <= index < ndim:
        raise error(AxisError, func, f"axis {index} is out of bounds for {ndim}-d array")
    return index % ndim if ndim else 0


# NOTE: imported last (_array imports this module); at module level, not in each check: an
# import statement costs ~0.9 us, and the checks run at every recorded op
from .. import _array  # noqa: E402
