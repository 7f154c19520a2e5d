"""Set functions: isin as a lazy OPAQUE node; the unique_* functions, whose shapes depend on the
data, compute their input at once and return buffer-backed arrays.

Spec: https://data-apis.org/array-api/latest/API_specification/set_functions.html
"""

from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

from .. import _dtypes
from .._array import Array, record
from .._graph import Op
from .checks import check_array, check_flag, check_scalar, error
from .placement import data_dependent


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique(func: str, x, outputs: int) -> tuple[Array, ...]:
    """The namespace's `func` of x's value, computed now: values keep x's dtype, the other
    `outputs - 1` arrays (indices, counts) have the index dtype."""
    check_array(func, "x", x)
    # Note (spec): NaNs stay distinct and -0.0 and +0.0 are one value, as array_api_compat does.
    return data_dependent(func, x, (None,) + (_dtypes.DEFAULT_INDEX,) * (outputs - 1))


def unique_all(x, /) -> UniqueAllResult:
    """Unique values of flattened x, first indices, inverse indices and counts.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.unique_all.html"""
    return UniqueAllResult(*_unique("unique_all", x, len(UniqueAllResult._fields)))


def unique_counts(x, /) -> UniqueCountsResult:
    """Unique values of flattened x and how often each occurs.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.unique_counts.html"""
    return UniqueCountsResult(*_unique("unique_counts", x, len(UniqueCountsResult._fields)))


def unique_inverse(x, /) -> UniqueInverseResult:
    """Unique values of flattened x and the indices into them that rebuild x.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.unique_inverse.html"""
    return UniqueInverseResult(*_unique("unique_inverse", x, len(UniqueInverseResult._fields)))


def unique_values(x, /) -> Array:
    """Unique values of flattened x, as a 1-d array.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.unique_values.html"""
    (values,) = _unique("unique_values", x, 1)
    return values


def isin(x1, x2, /, *, invert=False) -> Array:
    """Element-wise: is x1's element in x2 (or not in it, with invert=True)?
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.isin.html"""
    func = "isin"
    arrays = [v for v in (x1, x2) if isinstance(v, Array)]
    if not arrays:
        raise error(TypeError, func, "at least one of x1 and x2 must be an array")
    if len(arrays) == 2 and _dtypes.promote(x1.dtype, x2.dtype) is None:
        raise error(TypeError, func, f"x1 {x1.dtype.name} and x2 {x2.dtype.name} do not promote")
    like = arrays[0].dtype
    nodes = tuple(_operand(func, name, v, like)._node for name, v in (("x1", x1), ("x2", x2)))
    arg = (("invert", check_flag(func, "invert", invert)),)
    return record(Op.ISIN, nodes, nodes[0].shape, _dtypes.bool, arg)


def _operand(func: str, name: str, value, like: np.dtype) -> Array:
    """An array stays; a Python int (2025.12) becomes a 0-d array of the other one's dtype."""
    if isinstance(value, Array):
        return check_array(func, name, value)
    if isinstance(value, builtins.bool) or not isinstance(value, int):
        raise error(TypeError, func, f"{name} must be a lazyinfini array or an int, got {value!r}")
    check_scalar(func, value, like)
    return record(Op.FULL, (), (), like, value)
