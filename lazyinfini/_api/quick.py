"""The quick paths of element-wise recording: calls that need no promotion, cast or check.

NOTE (DESIGN.md: recording must stay cheap): most recorded ops are over arrays of one dtype and
shape, over floats and a Python number, or over integers and a Python int in their range (and
where() over such operands), or over integers and a Python float (`counts * 255.0`), or two
integer arrays of one dtype computing in a float (`counts / total`). Those need none of
operands()' promotion, casts, broadcasts or checks: they record one node (and a fill, a cast)
directly, ~1 us instead of ~4 (~12 for an integer array and an int or a float, ~18 for where).
A call these cannot take returns None, and the general path (_api/elementwise.py) records it.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._array import Array
from .._graph import Node, Op, caller_source, quick_node
from .._realize.native_operators import when_loaded
from . import creation

# complex -> the real dtype of its precision (abs, real, imag)
REAL_OF = {_dtypes.complex64: _dtypes.float32, _dtypes.complex128: _dtypes.float64}
FILLED = frozenset(_dtypes.CATEGORIES["floating"])  # a Python float or int keeps their dtype
# an integer dtype -> its range: a Python int in it keeps the dtype (one past it: an error)
RANGES = _dtypes.RANGES


def result_dtypes(category: str, result: str, on_bool) -> dict:
    """dtype -> the result's dtype, for the operands' dtypes whose op is one node as it is."""
    table = {}
    for dtype in _dtypes.CATEGORIES[category]:
        if dtype == _dtypes.bool and on_bool is not None:
            continue
        if result in ("floating", "quotient") and dtype not in FILLED:
            continue
        table[dtype] = {"bool": _dtypes.bool, "real": REAL_OF.get(dtype, dtype)}.get(result, dtype)
    return table


def promoted_pairs(category: str, table: dict) -> dict:
    """(dtype, other dtype) -> the dtype two arrays of them compute in, for the pairs of
    `category`'s dtypes that promote into `table` (int64 / float64: float64): each cast
    there and broadcast, one node, as operands() records them, without its checks (~45 us
    there, for a mean's division by integer counts)."""
    pairs = {}
    for first in _dtypes.CATEGORIES[category]:
        for second in _dtypes.CATEGORIES[category]:
            dtype = _dtypes.promote(first, second) if first != second else None
            if dtype is not None and dtype in table:
                pairs[first, second] = dtype
    return pairs


def binary(op: Op, table: dict, x1, x2, pairs: dict, floats=None) -> Array | None:
    """`op` over x1 and x2 as one node (and broadcasts) where nothing needs checking: arrays
    of one dtype, or of two that `pairs` (promoted_pairs) promotes, cast first; an array and
    a Python number that keeps its dtype; two integer arrays of one dtype where `floats` (bool
    or integer dtype -> the float the op computes in) has it. None where the general path must
    run."""
    if isinstance(x1, Array):  # NOTE: a view (views.Shared) too: its _n replays
        node, other = x1._n, x2
    elif isinstance(x2, Array):
        node, other = x2._n, x1
    else:
        return None
    if type(other) is float and node.dtype not in FILLED:  # NOTE: `counts / 2.0`
        return _float_filled(op, table, node, other, other is x2, pairs)
    dtype = table.get(node.dtype)
    if dtype is None and floats and isinstance(other, Array):  # NOTE: `counts / total`
        return _floated(op, table, node, other._n, other is x2, floats)
    if dtype is None or node.realized is not None:
        return None
    if type(other) is np.ndarray:  # NOTE: `labels[:, None] == np.arange(k)`
        key = (node.dtype, other.dtype) if other is x2 else (other.dtype, node.dtype)
        if key[0] != key[1] and key not in pairs:
            return None
        converted = creation.operand(other)  # NOTE: its values now, as operands() takes it
        x1, x2 = (x1, converted) if other is x2 else (converted, x2)
        other = converted
    if isinstance(other, Array):
        fill = other._n
        if fill.realized is not None:
            return None
        if fill.dtype != node.dtype:
            return _mixed(op, table, node, fill, other is x2, pairs)
        source = caller_source(3)  # NOTE: binary, the op's function: ours
        if fill.shape != node.shape:
            shape = _broadcast(node.shape, fill.shape)
            if shape is None:
                return None  # NOTE: the general path raises the error
            node, fill = _widened(node, shape, source), _widened(fill, shape, source)
    elif type(other) in (float, int) and node.dtype in FILLED:
        source = caller_source(3)  # NOTE: binary, the op's function: ours
        fill = quick_node(_FULL, (), node.shape, node.dtype, other, source)
    elif _keeps(other, node.dtype):  # NOTE: a Python int in an integer dtype's range
        source = caller_source(3)  # NOTE: binary, the op's function: ours
        fill = quick_node(_FULL, (), node.shape, node.dtype, other, source)
    else:
        return None  # NOTE: the general path raises an error where there is one
    srcs = (node, fill) if other is x2 else (fill, node)
    return Array(quick_node(op, srcs, node.shape, dtype, None, source))


def _mixed(op: Op, table: dict, node: Node, other: Node, second: bool, pairs) -> Array | None:
    """binary's arrays of two dtypes `pairs` promotes: each cast and broadcast (x1's nodes
    first, as operands() records them); None where it does not."""
    first, last = (node, other) if second else (other, node)
    dtype = pairs.get((first.dtype, last.dtype))
    if dtype is None:
        return None
    shape = _broadcast(first.shape, last.shape)
    if shape is None:
        return None  # NOTE: the general path raises the error
    source = caller_source(4)  # NOTE: _mixed, binary, the op's function: ours
    srcs = []
    for x in (first, last):
        if x.dtype != dtype:
            x = quick_node(_ASTYPE, (x,), x.shape, dtype, None, source)
        srcs.append(_widened(x, shape, source))
    return Array(quick_node(op, tuple(srcs), shape, table[dtype], None, source))


def _floated(op: Op, table: dict, node: Node, other: Node, second: bool, floats: dict):
    """binary's two arrays of one bool or integer dtype computing in a float (`counts /
    total`): each broadcast, then each cast to that float, as operands() and elementwise()
    record them; None for arrays of two dtypes (the general path's)."""
    dtype = floats.get(node.dtype)
    if dtype is None or other.dtype != node.dtype:
        return None
    first, last = (node.realized or node, other.realized or other)[:: 1 if second else -1]
    shape = _broadcast(first.shape, last.shape)
    if shape is None:
        return None  # NOTE: the general path raises the error
    source = caller_source(4)  # NOTE: _floated, binary, the op's function: ours
    wide = (_widened(first, shape, source), _widened(last, shape, source))
    srcs = tuple(quick_node(_ASTYPE, (x,), shape, dtype, None, source) for x in wide)
    return Array(quick_node(op, srcs, shape, table[dtype], None, source))


def _float_filled(op: Op, table: dict, node: Node, value: float, second: bool, pairs):
    """binary's integer (or bool) array and Python float (`counts * 255.0`): the array cast to
    the float the two promote to (the default float) and the value's fill, in operands()'s
    order; None where `pairs` does not promote them (the general path's error)."""
    dtype = _dtypes.scalar_dtype(value, node.dtype)
    dtype = pairs.get((node.dtype, dtype) if second else (dtype, node.dtype))
    if dtype is None:
        return None
    node = node.realized or node  # NOTE: a computed array's buffer, as operands() reads it
    source = caller_source(4)  # NOTE: _float_filled, binary, the op's function: ours
    cast = quick_node(_ASTYPE, (node,), node.shape, dtype, None, source)
    fill = quick_node(_FULL, (), node.shape, dtype, value, source)
    srcs = (cast, fill) if second else (fill, cast)
    return Array(quick_node(op, srcs, node.shape, table[dtype], None, source))


def where(condition, x1, x2) -> Array | None:
    """where(condition, x1, x2) as one node (and broadcasts and a fill) where the condition is
    bool and x1 and x2 are arrays of one dtype, or one of them a Python number that keeps the
    other's dtype (see binary); None where the general path must run."""
    if not isinstance(condition, Array):
        return None
    cond = condition._n
    arrays = [x._n for x in (x1, x2) if isinstance(x, Array)]
    if cond.dtype != _dtypes.bool or not arrays or cond.realized is not None:
        return None
    dtype = arrays[0].dtype
    if any(n.dtype != dtype or n.realized is not None for n in arrays):
        return None
    if len(arrays) == 1 and not _keeps(x2 if isinstance(x1, Array) else x1, dtype):
        return None
    shape = cond.shape
    for node in arrays:
        shape = _broadcast(shape, node.shape)
        if shape is None:
            return None  # NOTE: the general path raises the error
    source = caller_source(2)  # NOTE: where, ours
    srcs = [_widened(cond, shape, source)]
    for x in (x1, x2):
        if isinstance(x, Array):
            srcs.append(_widened(x._n, shape, source))
        else:
            srcs.append(quick_node(_FULL, (), shape, dtype, x, source))
    return Array(quick_node(_WHERE, tuple(srcs), shape, dtype, None, source))


def _keeps(value, dtype) -> bool:
    """Whether Python number `value` next to an array of `dtype` keeps that dtype."""
    if type(value) is float:
        return dtype in FILLED
    if type(value) is int:
        if dtype in FILLED:
            return True
        low, high = RANGES.get(dtype, (1, 0))
        return low <= value <= high
    return False


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    """The broadcast of shapes `a` and `b`; None where they do not broadcast."""
    if len(a) < len(b):
        a, b = b, a
    shape, offset = list(a), len(a) - len(b)
    for axis, n in enumerate(b, offset):
        if n != shape[axis]:
            if shape[axis] == 1:
                shape[axis] = n
            elif n != 1:
                return None
    return tuple(shape)


def _widened(node: Node, shape: tuple, source: str) -> Node:
    """`node` broadcast to `shape` (conform() without its cast)."""
    if node.shape == shape:
        return node
    return quick_node(_BROADCAST, (node,), shape, node.dtype, None, source)


def clip(node: Node, low, high) -> Array | None:
    """clip of floats between Python numbers (or None) as one node over fills; None where the
    general path must run (see binary)."""
    if (type(low), type(high)) not in _QUICK_BOUNDS or node.dtype not in _REAL_FILLED:
        return None
    if node.realized is not None:
        return None
    source, shape, dtype = caller_source(3), node.shape, node.dtype
    if low is None or high is None:
        fill = quick_node(_FULL, (), shape, dtype, high if low is None else low, source)
        srcs = (node, fill)
    else:
        low = quick_node(_FULL, (), shape, dtype, low, source)
        srcs = (node, low, quick_node(_FULL, (), shape, dtype, high, source))
    has = (low is not None, high is not None)
    return Array(quick_node(_CLIP, srcs, shape, dtype, has, source))


# NOTE: an Enum member's lookup costs ~60 ns, four per clip
_FULL, _CLIP, _BROADCAST, _WHERE = Op.FULL, Op.CLIP, Op.BROADCAST, Op.WHERE
_ASTYPE = Op.ASTYPE
_REAL_FILLED = frozenset(_dtypes.REAL_FLOATING)
_QUICK_BOUNDS = {(a, b) for a in (float, int, type(None)) for b in (float, int, type(None))} - {
    (type(None), type(None))
}


def install_operators(module) -> None:
    """Array's operators whose namespace function has this module's `binary` path (x + y,
    x < 1.0, 2 * x, x -= y, ...) become the native module's Operators: that path in C, else
    the Python method each wraps (_realize/native_operators.py)."""
    from .. import _array
    from . import elision
    from .views import Shared

    _array_type = _array.Array
    module.setup_operators(
        _array_type, Shared, _BROADCAST, FILLED, RANGES, elision.MIN_BYTES, _dtypes.DEFAULT_INDEX
    )
    for dunder, method in list(vars(_array_type).items()):
        name, reflected = getattr(method, "quick_operator", (None, False))
        found = getattr(_array._FUNCTIONS.get(name), "quick", None)
        if found is not None and reflected is None:  # NOTE: in place (x -= y)
            if found[1] is not None:  # NOTE: matmul's in place is numpy's error, in Python
                setattr(_array_type, dunder, module.in_place(*found, method))
        elif found is not None:
            setattr(_array_type, dunder, module.operator(*found, method, reflected))


when_loaded(install_operators)
