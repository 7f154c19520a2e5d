"""Statistical functions: reductions recorded as REDUCE nodes, cumulative ones as OPAQUE nodes.

Spec: https://data-apis.org/array-api/latest/API_specification/statistical_functions.html
A node's `arg` holds the keywords of the one array_api_compat.numpy call that computes it (see
_runtime/library.py); this module checks dtypes and axes and works out the result's shape.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtypes
from .._array import Array, record
from .._graph import Op, caller_source, quick_node
from .checks import (
    check_array,
    check_dtype_arg,
    check_dtype_in,
    check_flag,
    error,
    normalize_axis,
)
from .data_types import astype


# -- shared by every reduction (searching.py and utility.py record theirs through these) ------
def reduction_axes(func: str, axis, ndim: int) -> tuple[int, ...]:
    """axis=None, an int or a tuple of ints -> the sorted, distinct, non-negative axes."""
    plain = type(axis) is int or axis is None  # NOTE: by type: a bool is no axis
    if plain:  # NOTE: the common calls (sum(), max(axis=1)) answered from a table (~0.2 us)
        known = _AXES.get((axis, ndim))
        if known is not None:
            return known
    if axis is None:
        axes = tuple(range(ndim))
    else:
        items = axis if isinstance(axis, tuple) else (axis,)
        axes = tuple(normalize_axis(func, a, ndim) for a in items)
        if len(set(axes)) != len(axes):
            raise error(ValueError, func, f"repeated axis in {axis!r}")
        axes = tuple(sorted(axes))
    if plain and len(_AXES) < 4096:
        _AXES[axis, ndim] = axes
    return axes


_AXES: dict[tuple, tuple[int, ...]] = {}  # (int or None, ndim) -> its axes, once valid


def reduced_shape(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool):
    key = (shape, axes, keepdims)
    known = _REDUCED.get(key)  # NOTE: a loop reduces the same shapes (~0.5 us a call)
    if known is None:
        if keepdims:
            known = tuple(1 if i in axes else n for i, n in enumerate(shape))
        else:
            known = tuple(n for i, n in enumerate(shape) if i not in axes)
        if len(_REDUCED) >= 4096:
            _REDUCED.clear()
        _REDUCED[key] = known
    return known


_REDUCED: dict[tuple, tuple[int, ...]] = {}  # (shape, axes, keepdims) -> the reduced shape


def record_reduction(func: str, op: Op, x: Array, axis, keepdims, dtype, *options) -> Array:
    """One REDUCE node of x over `axis`; `options` are more (keyword, value) pairs for the call."""
    node = x._node  # NOTE: read once: a view's node is a property
    axes = reduction_axes(func, axis, len(node.shape))
    if keepdims is not False and keepdims is not True:
        keepdims = check_flag(func, "keepdims", keepdims)
    shape = reduced_shape(node.shape, axes, keepdims)
    arg = (("axis", axes), ("keepdims", keepdims), *options)
    # NOTE: a quick node: its shape is made of x's, checked ints
    return Array(quick_node(op, (node,), shape, dtype, arg, caller_source()))


def check_nonempty(func: str, x: Array, axes: tuple[int, ...]) -> None:
    # Note (spec): an empty max/min/argmax is implementation-defined; numpy raises when it runs,
    # so a lazy library raises here, on the line that asked for it.
    shape = x.shape
    if 0 in shape and builtins.any(shape[a] == 0 for a in axes):
        raise error(ValueError, func, f"zero-size reduction over axes {axes} of shape {x.shape}")


def accumulator_dtype(func: str, x: Array, dtype) -> np.dtype:
    """The result dtype of sum/prod/cumulative_*: `dtype`, or x's widened as the spec says."""
    if dtype is not None:
        dtype = check_dtype_arg(func, dtype)
        check_dtype_in(func, "dtype", dtype, "numeric")
        if x.dtype in _dtypes.COMPLEX and dtype not in _dtypes.COMPLEX:
            raise error(TypeError, func, f"dtype {dtype.name} would drop x's imaginary part")
        return dtype
    # Note (spec): small integers widen to the default integer of the same signedness. Extension
    # (numpy's): bools count, in the default integer dtype.
    if x.dtype in _dtypes.SIGNED or x.dtype == _dtypes.bool:
        return _dtypes.DEFAULT_INT
    if x.dtype in _dtypes.UNSIGNED:
        return _dtypes.uint64
    return x.dtype


def _numeric_input(func: str, x, category: str) -> Array:
    check_array(func, "x", x)
    check_dtype_in(func, "x", x.dtype, category)
    return x


def _float_input(func: str, x, category: str) -> Array:
    """x for mean/std/var. Extension (numpy's): bool and integer input is cast to the default
    float dtype first, as numpy computes it (the standard asks for floating input)."""
    check_array(func, "x", x)
    if x.dtype in _dtypes.CATEGORIES["integer or boolean"]:
        return astype(x, _dtypes.DEFAULT_FLOAT)
    if x.dtype not in _dtypes.CATEGORIES[category]:
        needs = f"{func} needs a {category}, integer or bool dtype"
        raise error(TypeError, func, f"x has dtype {x.dtype.name}; {needs}")
    return x


# -- reductions -----------------------------------------------------------------------------
def sum(x, /, axis=None, dtype=None, *, keepdims=False) -> Array:
    """Sum of x's elements over `axis` (extension, numpy's: bool x sums in the default integer).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.sum.html"""
    _numeric_input("sum", x, "any")
    out = accumulator_dtype("sum", x, dtype)
    # NOTE: half floats accumulate in float32 (the library call rounds the result once).
    accumulate = ("dtype", _dtypes.compute_dtype(out))
    return record_reduction("sum", Op.SUM, x, axis, keepdims, out, accumulate)


def prod(x, /, axis=None, dtype=None, *, keepdims=False) -> Array:
    """Product of x's elements over `axis` (extension, numpy's: bool x in the default integer).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.prod.html"""
    _numeric_input("prod", x, "any")
    out = accumulator_dtype("prod", x, dtype)
    accumulate = ("dtype", _dtypes.compute_dtype(out))
    return record_reduction("prod", Op.PROD, x, axis, keepdims, out, accumulate)


def max(x, /, axis=None, *, keepdims=False) -> Array:
    """Largest element over `axis` (NaN propagates).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.max.html"""
    _numeric_input("max", x, "real numeric")
    check_nonempty("max", x, reduction_axes("max", axis, x.ndim))
    return record_reduction("max", Op.MAX, x, axis, keepdims, x.dtype)


def min(x, /, axis=None, *, keepdims=False) -> Array:
    """Smallest element over `axis` (NaN propagates).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.min.html"""
    _numeric_input("min", x, "real numeric")
    check_nonempty("min", x, reduction_axes("min", axis, x.ndim))
    return record_reduction("min", Op.MIN, x, axis, keepdims, x.dtype)


def mean(x, /, axis=None, *, keepdims=False) -> Array:
    """Arithmetic mean over `axis` (NaN when empty); extension (numpy's): bool and integer x
    give the default float dtype.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.mean.html"""
    x = _float_input("mean", x, "floating")
    return record_reduction("mean", Op.MEAN, x, axis, keepdims, x.dtype)


def _check_correction(func: str, correction) -> float | int:
    if isinstance(correction, builtins.bool) or not isinstance(correction, (int, float)):
        raise error(TypeError, func, f"correction must be a real number, got {correction!r}")
    if isinstance(correction, int) and not _dtypes.in_range(correction, _dtypes.int64):
        return float(correction)  # NOTE: numpy takes ddof as a C long or a float
    return correction


def std(x, /, axis=None, *, correction=0.0, keepdims=False) -> Array:
    """Standard deviation over `axis`, divisor M - correction; extension (numpy's): bool and
    integer x give the default float dtype.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.std.html"""
    x = _float_input("std", x, "real floating")
    options = ("correction", _check_correction("std", correction))
    return record_reduction("std", Op.STD, x, axis, keepdims, x.dtype, options)


def var(x, /, axis=None, *, correction=0.0, keepdims=False) -> Array:
    """Variance over `axis`, divisor M - correction; extension (numpy's): bool and integer x
    give the default float dtype.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.var.html"""
    x = _float_input("var", x, "real floating")
    options = ("correction", _check_correction("var", correction))
    return record_reduction("var", Op.VAR, x, axis, keepdims, x.dtype, options)


# -- cumulative -----------------------------------------------------------------------------
def record_cumulative(func: str, op: Op, x, axis, dtype, include_initial, stepwise=False) -> Array:
    """`stepwise`: a half float's partial results each rounded to it, as numpy's cumsum and
    cumprod round them (else they accumulate in float32 and round once, the closer result)."""
    # Extension (numpy's): bool x accumulates in the default integer dtype.
    _numeric_input(func, x, "any")
    if x.ndim == 0:
        # Note (spec): 0-d input is unspecified; we refuse it rather than guess a shape.
        raise error(ValueError, func, "x must have at least one dimension")
    if axis is None:
        if x.ndim > 1:
            raise error(ValueError, func, f"axis is required for a {x.ndim}-d array")
        axis = 0
    axis = normalize_axis(func, axis, x.ndim)
    initial = check_flag(func, "include_initial", include_initial)
    out = accumulator_dtype(func, x, dtype)
    shape = tuple(n + initial if i == axis else n for i, n in enumerate(x.shape))
    accumulator = out if stepwise else _dtypes.compute_dtype(out)
    arg = (("axis", axis), ("dtype", accumulator), ("include_initial", initial))
    return record(op, (x._node,), shape, out, arg)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False) -> Array:
    """Running sums along `axis` (extension, numpy's: bool x in the default integer).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.cumulative_sum.html"""
    return record_cumulative("cumulative_sum", Op.CUMULATIVE_SUM, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False) -> Array:
    """Running products along `axis` (extension, numpy's: bool x in the default integer).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.cumulative_prod.html"""
    return record_cumulative("cumulative_prod", Op.CUMULATIVE_PROD, x, axis, dtype, include_initial)
