"""numpy's view rules for the movement ops, in one place: the scheduler applies them to phantom
arrays to learn strides before anything runs, and the host devices apply them to real buffers."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .node import Node, late_write
from .ops import Op


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The strides (in units of `itemsize`) of a C-ordered array of `shape`."""
    strides, step = [], itemsize
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides))


def stand_in(shape: tuple[int, ...], strides, dtype=np.uint8) -> np.ndarray:
    """An ndarray of `shape` and byte `strides` over one element, never read: numpy's view rules
    (reshape with copy=False, transpose, slicing) applied to it give a layout without data."""
    return as_strided(np.zeros(1, dtype), shape, strides, writeable=False)


# NOTE: module constants: an Enum member read from its class costs ~120 ns on Python 3.11
_PERMUTE, _BROADCAST, _SLICE, _RESHAPE = Op.PERMUTE, Op.BROADCAST, Op.SLICE, Op.RESHAPE
_REAL, _IMAG = Op.REAL, Op.IMAG


def apply_movement(node: Node, x: np.ndarray, xp=None) -> np.ndarray | None:
    """`node` applied to `x` as a numpy view; None when the view is impossible (a reshape that
    must copy). `xp`: the Array API namespace of another library's `x` (CuPy's, whose views
    follow numpy's rules: the same strides), where the schedule only asks for reshapes that
    are views."""
    op = node.op
    if op is _PERMUTE:
        return x.transpose(node.arg) if xp is None else xp.permute_dims(x, node.arg)
    if op is _BROADCAST:
        return broadcast_view(x, node.shape) if xp is None else xp.broadcast_to(x, node.shape)
    if op is _SLICE:
        if type(node) is Node:  # NOTE: worked out once per node: a cached schedule's loads
            try:  # are sliced again at every run (~1 us)
                return x[node.slice_key]
            except AttributeError:
                key = slice_key(node)
                late_write(node, "slice_key", key)
                return x[key]
        return x[slice_key(node)]  # NOTE: a view's Step (_api/views.py)
    if op is _REAL or op is _IMAG:
        if x.dtype.kind != "c":  # NOTE: a stand-in's bytes: a part keeps its array's strides
            return x
        space = np if xp is None else xp
        return space.real(x) if op is _REAL else space.imag(x)
    if op is _RESHAPE:
        if xp is not None:
            return xp.reshape(x, node.shape)
        try:
            return np.reshape(x, node.shape, copy=False)
        except ValueError:
            return None
    raise AssertionError(f"{op!r} is not a view")


def method_moves(chain) -> tuple | None:
    """A load's `chain` of movements as ndarray method calls, (name, argument) pairs a
    generated step applies to a bound value (`x.reshape(shape)`, `x.transpose(axes)`,
    `x.__getitem__(key)`); None where a movement has no such call (a broadcast: its view is
    broadcast_view's; real, imag). NOTE: a reshape the schedule planned as a view is one on
    the layout it planned (the cache keys buffers by strides); a copy would read the same."""
    moves = []
    for step in chain:
        if step.op is _PERMUTE:
            moves.append(("transpose", step.arg))
        elif step.op is _RESHAPE:
            moves.append(("reshape", step.shape))
        elif step.op is _SLICE:
            moves.append(("__getitem__", slice_key(step)))
        else:
            return None
    return tuple(moves)


def broadcast_view(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """np.broadcast_to(x, shape) (read-only), for a shape the graph checked already: made
    directly over x's memory where x is C-contiguous (~0.9 us; numpy's function builds an
    nditer, ~5 us, and a small kernel reads a broadcast bias or mean every run)."""
    if not x.flags.c_contiguous or type(x) is not np.ndarray:
        return np.broadcast_to(x, shape)
    lead = len(shape) - x.ndim
    strides = [0] * lead
    for n, size, stride in zip(shape[lead:], x.shape, x.strides):
        strides.append(stride if size == n else 0)
    view = np.ndarray(shape, x.dtype, x, 0, tuple(strides))
    view.setflags(write=False)
    return view


def diagonal_length(rows: int, cols: int, offset: int) -> int:
    """The length of the `offset` diagonal of a rows x cols matrix (numpy's view of it)."""
    return max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))


def slice_key(node: Node) -> tuple[slice, ...]:
    """The Python slices of a SLICE node's (start, step) pairs over its output shape."""
    key = []
    for (start, step), length in zip(node.arg, node.shape):
        stop = start + step * length
        key.append(slice(start, stop if stop >= 0 else None, step) if length else slice(0, 0))
    return tuple(key)


def whole_key(shape: tuple[int, ...]) -> tuple:
    """The key of x[...] for an x of `shape`: a full slice per axis, as the runtime reads it."""
    return tuple(("slice", 0, n, 1) for n in shape)


def whole_update(node: Node, srcs: tuple[Node, ...]) -> bool:
    """Whether `node` is x[...] = v, every element of x written, with v of x's shape and
    dtype: its value is v's (numpy's `out[:] = a + b`)."""
    if node.op is not Op.SETITEM or len(srcs) != 2:
        return False
    value = srcs[1]
    if value.shape != node.shape or value.dtype != node.dtype:
        return False
    return dict(node.arg)["key"] == whole_key(node.shape)
