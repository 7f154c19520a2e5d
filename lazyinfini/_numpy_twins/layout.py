"""The memory layout numpy's value of an Array would have, where numpy's result depends on it:
ravel, flatten and reshape reading in order "K" (as laid out in memory) or "A" (Fortran order
when the array is Fortran-contiguous). An array made from an ndarray has the ndarray's layout,
views of it numpy's view rules'; a computed value numpy writes in its operands' memory order
(_schedule/orders.py)."""

from __future__ import annotations

from typing import NamedTuple

from .._api.creation import copy_node, view_value
from .._api.manipulation import permute_dims
from .._array import Array
from .._graph import Op, caller_source, walk
from .._schedule.orders import _strides_in, axis_order, numpy_strides


class Layout(NamedTuple):
    axes: tuple[int, ...]  # slowest in memory first (strides by size: a reversed axis too)
    fortran: bool  # Fortran-contiguous and not C-contiguous


def strides_of(x: Array) -> tuple:
    """The strides of numpy's value of x: an ndarray's (bytes) where x is one or a view of
    one, else those the orders pass gives a computed value (elements: only their order and
    signs compare)."""
    value = view_value(x._node)
    return value.strides if value is not None else numpy_strides(walk([x._node])[0])


def layout_of(x: Array) -> Layout:
    node = x._node
    value = view_value(node)
    if value is not None:
        fortran = value.flags.f_contiguous and not value.flags.c_contiguous
        return _layout(value.strides, value.shape, fortran)
    strides = numpy_strides(walk([node])[0])
    # NOTE: a computed value numpy writes contiguous in its order; a view of one may not be
    # (its strides, in elements, say: numpy's flags ignore length-1 axes)
    layout = _layout(strides, node.shape, None)
    if node.op.is_movement or node.op is Op.BUFFER:
        reverse = tuple(reversed(range(len(node.shape))))
        size = node.dtype.itemsize
        fortran = _compact(strides, node.shape, reverse, size)
        return layout._replace(fortran=fortran and not _compact(strides, node.shape, (), size))
    longer = [a for a in layout.axes if node.shape[a] > 1]
    return layout._replace(fortran=longer == sorted(longer, reverse=True) and len(longer) > 1)


def _compact(strides, shape, order, itemsize: int) -> bool:
    """Whether `strides` (in elements, or in bytes: a buffer's) are a contiguous array's in
    axis `order` (() for C)."""
    expected = _strides_in(shape, order)
    return any(
        all(s == e * unit for s, e, n in zip(strides, expected, shape, strict=True) if n > 1)
        for unit in (1, itemsize)
    )


def _layout(strides, shape, fortran) -> Layout:
    # NOTE: numpy's ravel copies such an x with its iterator in order "K": the iterator's axis
    # ordering (a broadcast axis has no say, C order wins ties and disagreements)
    return Layout(axis_order(shape, [strides]), fortran)


def read_backwards(x: Array, shortest: int = 2) -> bool:
    """Whether numpy's x (a user's array, a view) reads some axis of `shortest` or more
    elements backwards in memory (numpy's ravel views a reversed axis of one element: it is
    contiguous; its new arrays step forwards along every axis)."""
    op = x._node.op
    if not (op.is_view or op is Op.BUFFER):  # NOTE: numpy's computed values run forwards
        return False
    return any(s < 0 for s, n in zip(strides_of(x), x.shape, strict=True) if n >= shortest)


def forwards(x: Array) -> Array:
    """x as the new array numpy writes where a function returns one holding x's values
    (np.concatenate([x]), np.positive(x)): x itself, or a copy in order "K" where x reads
    memory backwards (numpy's loops read such memory with other bits)."""
    if not read_backwards(x, shortest=1):
        return x
    return copy_node(x, "K", caller_source())


def read_in(x: Array, order: str, func: str) -> Array:
    """x laid out so that reading it in C order reads numpy's x in `order` ("C", "K" or "A")."""
    if order == "C" or x.ndim < 2 and order == "A":
        return x
    layout = layout_of(x)
    if order == "A":
        return permute_dims(x, tuple(reversed(range(x.ndim)))) if layout.fortran else x
    # NOTE: numpy's ravel reads a reversed axis as it is (not backwards, as its docs say)
    return x if layout.axes == tuple(range(x.ndim)) else permute_dims(x, layout.axes)
