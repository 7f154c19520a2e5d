"""Linear algebra functions.

Spec: https://data-apis.org/array-api/latest/API_specification/linear_algebra_functions.html
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._array import Array, record
from .._graph import Op, caller_source, quick_node
from . import creation  # NOTE: read at call time: its names would cycle
from .checks import (
    AxisError,
    check_array,
    check_dtype_in,
    check_int,
    error,
    is_int,
    normalize_axis,
)
from .checks import broadcast_shapes as common_shape
from .elementwise import conform
from .manipulation import permute_dims


def matrix_transpose(x, /) -> Array:
    """The last two axes swapped. https://data-apis.org/array-api/latest/API_specification/generated/array_api.matrix_transpose.html"""
    check_array("matrix_transpose", "x", x)
    if x.ndim < 2:
        raise error(ValueError, "matrix_transpose", f"x must be at least 2-d, got {x.ndim}-d")
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return permute_dims(x, axes)


def _operand(func: str, name: str, x) -> Array:
    """An array argument; numpy arrays are accepted as constants (as operators do)."""
    if isinstance(x, np.ndarray):
        return creation.operand(x)
    return check_array(func, name, x)


# Extension (numpy): products take bool as numpy's do: bool with a number promotes; bool with
# bool is a bool product (an or of ands), as np.matmul and np.dot give it.
def _promoted(func: str, x1, x2, category: str = "numeric or boolean"):
    """Both operands checked and their promoted dtype: (x1, x2, dtype)."""
    x1, x2 = _operand(func, "x1", x1), _operand(func, "x2", x2)
    check_dtype_in(func, "x1", x1.dtype, category)
    check_dtype_in(func, "x2", x2.dtype, category)
    dtype = _dtypes.promote(x1.dtype, x2.dtype)
    if dtype is None:
        raise error(
            TypeError, func, f"dtypes {x1.dtype.name} and {x2.dtype.name} have no common type"
        )
    return x1, x2, dtype


def _cast(x: Array, dtype, shape=None, source: str = ""):
    return conform(x._node, dtype, x.shape if shape is None else shape, source)


def matmul(x1, x2, /) -> Array:
    """The matrix product, with numpy's (PEP 465) rules for 1-d operands.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.matmul.html"""
    source = caller_source()
    if isinstance(x1, Array) and isinstance(x2, Array):  # NOTE: views (views.Shared) too
        node1, node2 = x1._node, x2._node
        if node1.dtype is node2.dtype:  # NOTE: every dtype multiplies (bools as numpy's)
            # NOTE: the common call, one dtype: no promotion or cast to record (a quick node,
            # its shape made of the operands' checked ints)
            shape = _matmul_shape(node1.shape, node2.shape)
            return Array(quick_node(Op.MATMUL, (node1, node2), shape, node1.dtype, None, source))
    x1, x2, dtype = _promoted("matmul", x1, x2)
    shape = _matmul_shape(x1.shape, x2.shape)
    nodes = (_cast(x1, dtype, source=source), _cast(x2, dtype, source=source))
    return record(Op.MATMUL, nodes, shape, dtype, None, source)


matmul.quick = (Op.MATMUL, None)  # NOTE: x @ y's quick path in C too (native_operators.py)


def _matmul_shape(s1: tuple[int, ...], s2: tuple[int, ...]) -> tuple[int, ...]:
    if not s1 or not s2:
        raise error(
            ValueError, "matmul", f"operands must be at least 1-d, got shapes {s1} and {s2}"
        )
    # Note (spec): a 1-d x1 is a row (1, K), a 1-d x2 a column (K, 1); those axes are dropped.
    a = (1,) + s1 if len(s1) == 1 else s1
    b = s2 + (1,) if len(s2) == 1 else s2
    if a[-1] != b[-2]:
        raise error(
            ValueError, "matmul", f"shapes {s1} and {s2}: contracted sizes {a[-1]} != {b[-2]}"
        )
    batch = common_shape("matmul", a[:-2], b[:-2])
    return batch + a[-2:-1] * (len(s1) > 1) + b[-1:] * (len(s2) > 1)


def tensordot(x1, x2, /, axes=2) -> Array:
    """Contraction of x1 and x2 over the given axes.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.tensordot.html"""
    source = caller_source()
    x1, x2, dtype = _promoted("tensordot", x1, x2)
    axes1, axes2 = _contracted(x1, x2, axes)
    for a, b in zip(axes1, axes2, strict=True):
        if x1.shape[a] != x2.shape[b]:
            raise error(
                ValueError,
                "tensordot",
                f"axis {a} of x1 has size {x1.shape[a]}, axis {b} of x2 {x2.shape[b]}",
            )
    shape = tuple(n for i, n in enumerate(x1.shape) if i not in axes1)
    shape += tuple(n for i, n in enumerate(x2.shape) if i not in axes2)
    nodes = (_cast(x1, dtype, source=source), _cast(x2, dtype, source=source))
    return record(Op.TENSORDOT, nodes, shape, dtype, (("axes", (axes1, axes2)),), source)


def _contracted(x1: Array, x2: Array, axes) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """tensordot's axes as two tuples of non-negative axes."""
    if is_int(axes):
        axes = check_int("tensordot", "axes", axes)
        if not 0 <= axes <= min(x1.ndim, x2.ndim):
            raise error(
                ValueError, "tensordot", f"axes={axes} for arrays of {x1.ndim} and {x2.ndim} dims"
            )
        return tuple(range(x1.ndim - axes, x1.ndim)), tuple(range(axes))
    if not (isinstance(axes, (tuple, list)) and len(axes) == 2):
        raise error(TypeError, "tensordot", f"axes must be an int or two sequences, got {axes!r}")
    first = tuple(normalize_axis("tensordot", a, x1.ndim) for a in axes[0])
    second = tuple(normalize_axis("tensordot", a, x2.ndim) for a in axes[1])
    if (
        len(first) != len(second)
        or len(set(first)) != len(first)
        or len(set(second)) != len(second)
    ):
        raise error(
            ValueError,
            "tensordot",
            f"axes {axes} must be two sequences of unique axes of one length",
        )
    return first, second


def vecdot(x1, x2, /, *, axis=-1) -> Array:
    """Dot products of vectors along axis (x1 conjugated).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.vecdot.html"""
    source = caller_source()
    x1, x2, dtype = _promoted("vecdot", x1, x2)
    axis = _vector_axis("vecdot", x1, x2, axis)
    if x1.shape[axis] != x2.shape[axis]:
        raise error(
            ValueError,
            "vecdot",
            f"axis {axis} has size {x1.shape[axis]} in x1 and {x2.shape[axis]} in x2",
        )
    full = common_shape("vecdot", x1.shape, x2.shape)
    nodes = (_cast(x1, dtype, full, source), _cast(x2, dtype, full, source))
    shape = full[:axis] + full[axis:][1:]
    return record(Op.VECDOT, nodes, shape, dtype, (("axis", axis),), source)


def _vector_axis(func: str, x1: Array, x2: Array, axis) -> int:
    """A negative axis counted from the end of both operands (the spec's rule)."""
    ndim = min(x1.ndim, x2.ndim)
    axis = check_int(func, "axis", axis)
    # Note (spec): axis counts from the end; a non-negative axis is only unambiguous when both
    # operands have the same rank, so only then is it accepted (numpy-style).
    if 0 <= axis < ndim and x1.ndim == x2.ndim:
        axis -= ndim
    if not -ndim <= axis <= -1:
        raise error(AxisError, func, f"axis {axis} must be in [-{ndim}, -1] for these operands")
    return axis
