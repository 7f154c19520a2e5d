"""Utility functions: all and any as REDUCE nodes, diff as subtractions of neighbouring slices.

Spec: https://data-apis.org/array-api/latest/API_specification/utility_functions.html
"""

from __future__ import annotations

from .. import _dtypes
from .._array import Array
from .._graph import Op
from .checks import check_array, check_dtype_in, check_int, error, normalize_axis
from .data_types import astype
from .elementwise import subtract
from .manipulation import concat
from .statistics import record_reduction


def all(x, /, axis=None, *, keepdims=False) -> Array:
    """Whether every element over `axis` is true (True when empty).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.all.html"""
    check_array("all", "x", x)
    return record_reduction("all", Op.ALL, x, axis, keepdims, _dtypes.bool)


def any(x, /, axis=None, *, keepdims=False) -> Array:
    """Whether some element over `axis` is true (False when empty).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.any.html"""
    check_array("any", "x", x)
    return record_reduction("any", Op.ANY, x, axis, keepdims, _dtypes.bool)


def diff(x, /, n=1, axis=-1, prepend=None, append=None) -> Array:
    """The n-th forward difference along `axis`, after joining prepend and append.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.diff.html"""
    check_array("diff", "x", x)
    check_dtype_in("diff", "x", x.dtype, "numeric")
    axis = normalize_axis("diff", axis, x.ndim)
    n = check_int("diff", "n", n, minimum=0)
    edges = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    for name, edge in edges.items():
        _check_edge(name, edge, x, axis)
    # Note (spec): mixed dtypes are implementation-defined; we promote, as arithmetic does.
    dtype = _dtypes.promote(x.dtype, *(e.dtype for e in edges.values()))
    if dtype is None:
        shown = ", ".join(a.dtype.name for a in (x, *edges.values()))
        raise error(TypeError, "diff", f"dtypes {shown} have no common type")
    edges = {k: e if e.dtype == dtype else astype(e, dtype) for k, e in edges.items()}
    x = x if x.dtype == dtype else astype(x, dtype)
    return joined_differences(x, n, axis, edges, subtract)


def joined_differences(x: Array, n: int, axis: int, edges: dict, op) -> Array:
    """x with its `edges` (prepend, append: of x's dtype) joined along axis, then its n-th
    differences by `op` (subtract; numpy's not_equal for bool)."""
    parts = [p for p in (edges.get("prepend"), x, edges.get("append")) if p is not None]
    return differences(concat(parts, axis=axis) if edges else x, n, axis, op)


def differences(x: Array, n: int, axis: int, op) -> Array:
    """The n-th differences of x along axis by `op` (subtract; numpy's not_equal for bool).
    Each difference is an elementwise node rounded to the dtype, as numpy's diff rounds each
    step (a half float differenced in float32 and rounded once differs)."""
    if n >= x.shape[axis]:  # NOTE: past the length the result is empty; numpy would loop n times
        return x[along(axis, slice(0, 0))]
    while n:
        step = min(n, _FUSED_STEPS)
        x, n = _window_differences(x, step, axis, op), n - step
    return x


# Steps differenced in one kernel: a step's result is not sliced (the fuser would split there)
# but recomputed per window, which costs (steps + 1) * steps / 2 nodes.
_FUSED_STEPS = 8


def _window_differences(x: Array, n: int, axis: int, op) -> Array:
    """x's n-th differences as nodes over n + 1 windows of x alone, each of the final length:
    step k at offset o is step k-1 at o + 1 minus step k-1 at o, the same arithmetic per
    element as differencing n times, in one fused kernel."""
    length = x.shape[axis] - n
    level = [x[along(axis, slice(o, o + length))] for o in range(n + 1)]
    for _ in range(n):
        level = [op(later, earlier) for earlier, later in zip(level, level[1:])]
    (result,) = level
    return result


def along(axis: int, item) -> tuple:
    """The key taking `item` (a slice or an int) along `axis` (from 0) and all of the axes
    before it."""
    return (slice(None),) * axis + (item,)


def _check_edge(name: str, edge, x: Array, axis: int) -> None:
    check_array("diff", name, edge)
    check_dtype_in("diff", name, edge.dtype, "numeric")
    if edge.ndim != x.ndim or _without(edge.shape, axis) != _without(x.shape, axis):
        raise error(
            ValueError,
            "diff",
            f"{name} has shape {edge.shape}; it must match x's {x.shape} except on axis {axis}",
        )


def _without(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + shape[axis + 1 :]
