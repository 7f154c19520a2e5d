"""Utility functions: all and any as REDUCE nodes, diff as one OPAQUE node.

Spec: https://data-apis.org/array-api/latest/API_specification/utility_functions.html
"""

from __future__ import annotations

from .. import _dtypes
from .._array import Array, record
from .._graph import Op
from .checks import check_array, check_dtype_in, check_int, error, normalize_axis
from .data_types import astype
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
    inputs = [a if a.dtype == dtype else astype(a, dtype) for a in (x, *edges.values())]
    length = sum(a.shape[axis] for a in inputs)
    n = min(n, length)  # NOTE: past the length the result is empty; numpy would loop n times
    shape = tuple(length - n if i == axis else s for i, s in enumerate(x.shape))
    arg = (("axis", axis), ("n", n), ("edges", tuple(edges)))
    return record(Op.DIFF, tuple(a._node for a in inputs), shape, dtype, arg)


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
