"""numpy's joins, reshapes, axis moves, repeats and takes, recorded as movement nodes.

numpy's conveniences over the standard's functions: axis=None flattens, an int is a shape,
mixed dtypes promote by numpy's rules, and lists of arrays are arrays.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._api import manipulation as _manipulation
from .._api.checks import normalize_axis
from .._api.creation import copied, copy_node
from .._api.elementwise import clip, remainder
from .._api.indexing import check_bounds
from .._api.indexing import take as _take
from .._api.indexing import take_along_axis as _take_along_axis
from .._graph import caller_source
from .arguments import Fallback, array, as_tuple, check_order, converted, promoted
from .layout import forwards, read_backwards, read_in


# -- joining ----------------------------------------------------------------------------------
def _joined(arrays, dtype, casting) -> list:
    """numpy's list of arrays to join, promoted (or cast to `dtype` under `casting`)."""
    if not isinstance(arrays, (list, tuple)):
        raise Fallback("joining the rows of one array")
    if len(arrays) == 1:  # NOTE: numpy's join of one array is new memory, written forwards
        arrays = [forwards(array(arrays[0]))]
    if dtype is None:
        return promoted(*arrays)
    dtype = np.dtype(dtype)
    items = [array(a) for a in arrays]
    for item in items:
        if not np.can_cast(item.dtype, dtype, casting=casting):
            raise TypeError(
                f"Cannot cast array data from {item.dtype!r} to {dtype!r} "
                f"according to the rule {casting!r}"
            )
    return promoted(*items, dtype=dtype)


def concatenate(arrays, axis=0, *, dtype=None, casting="same_kind"):
    return _manipulation.concat(_joined(arrays, dtype, casting), axis=axis)


def stack(arrays, axis=0, *, dtype=None, casting="same_kind"):
    return _manipulation.stack(_joined(arrays, dtype, casting), axis=axis)


def vstack(tup, *, dtype=None, casting="same_kind"):
    items = [atleast_2d(a) for a in _joined(tup, dtype, casting)]
    return _manipulation.concat(items, axis=0)


def hstack(tup, *, dtype=None, casting="same_kind"):
    items = [atleast_1d(a) for a in _joined(tup, dtype, casting)]
    return _manipulation.concat(items, axis=0 if items and items[0].ndim == 1 else 1)


def dstack(tup):
    return _manipulation.concat([atleast_3d(a) for a in _joined(tup, None, None)], axis=2)


def column_stack(tup):
    items = [a if a.ndim >= 2 else reshape(a, (-1, 1)) for a in _joined(tup, None, None)]
    return _manipulation.concat(items, axis=1)


def append(arr, values, axis=None):
    x, v = converted(arr, values)
    if axis is None:
        return _manipulation.concat([ravel(x), ravel(v)], axis=0)
    return _manipulation.concat([x, v], axis=axis)


def split(ary, indices_or_sections, axis=0):
    x = array(ary)
    if isinstance(indices_or_sections, (int, np.integer)):
        length = x.shape[normalize_axis("split", axis, x.ndim)]
        if indices_or_sections <= 0 or length % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(x, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    x = array(ary)
    axis = normalize_axis("array_split", axis, x.ndim)
    length = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        if indices_or_sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(length, int(indices_or_sections))
        sizes = [each + 1] * extra + [each] * (int(indices_or_sections) - extra)
        points = np.cumsum([0, *sizes]).tolist()
    else:
        points = [0, *as_tuple(indices_or_sections), length]
    lead = (slice(None),) * axis
    return [x[(*lead, slice(start, stop))] for start, stop in zip(points, points[1:])]


# -- shapes -----------------------------------------------------------------------------------
def atleast_1d(*arys):
    return _each(arys, lambda x: reshape(x, (1,)) if x.ndim == 0 else x)


def atleast_2d(*arys):
    return _each(arys, lambda x: reshape(x, (1,) * (2 - x.ndim) + x.shape) if x.ndim < 2 else x)


def atleast_3d(*arys):
    def lift(x):
        if x.ndim == 0:
            return reshape(x, (1, 1, 1))
        if x.ndim == 1:
            return reshape(x, (1, x.shape[0], 1))
        return reshape(x, x.shape + (1,)) if x.ndim == 2 else x

    return _each(arys, lift)


def _each(arys, lift):
    """numpy's atleast_*: one array for one argument, else a tuple."""
    results = tuple(lift(array(a)) for a in arys)
    return results[0] if len(results) == 1 else results


def reshape(a, shape, order="C", *, copy=None):
    check_order(order)
    x = array(a)
    if order == "A" and read_in(x, "A", "reshape") is not x:
        raise Fallback("order='A' of a Fortran-contiguous array")  # NOTE: numpy's 'F' reshape
    shape = as_tuple(shape)
    return _manipulation.reshape(_fresh_one(x) if shape != x.shape else x, shape, copy=copy)


def _fresh_one(x):
    """x as numpy's reshape to another shape sees it: one element gets new strides, forwards
    (reshape(-1) of x[::-1][:1] steps +8 where reshape(1), its own shape, keeps -8; np.abs of a
    complex element runs another loop for each)."""
    return forwards(x) if x.size == 1 else x


def ravel(a, order="C"):
    # Note (numpy): "K" reads x as laid out in memory, "A" in Fortran order where x is
    # Fortran-contiguous: the memory numpy's x would have (layout.py)
    check_order(order, "CAK")
    x = read_in(array(a), order, "ravel")
    if read_backwards(x):
        # Note (numpy): ravel views only contiguous memory, so x read backwards is copied, as
        # numpy's, forwards: numpy's loops give other bits over memory read backwards (a
        # later np.tan or complex product of a view would differ from numpy's of its copy)
        x = copy_node(x, "C", caller_source())
    return _manipulation.reshape(_fresh_one(x), (-1,))


def squeeze(a, axis=None):
    x = array(a)
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    return _manipulation.squeeze(x, axis=as_tuple(axis))


def expand_dims(a, axis):
    return _manipulation.expand_dims(array(a), axis=as_tuple(axis))


def broadcast_to(array_, shape, subok=False):
    return _manipulation.broadcast_to(array(array_), as_tuple(shape))


def broadcast_arrays(*args, subok=False):
    return _manipulation.broadcast_arrays(*(array(a) for a in args))


def copy(a, order="K", subok=False):
    # Note (numpy): the copy's memory order is numpy's ("K" keeps x.T's, "C" does not), which a
    # later sum adds in; a pending value's is numpy's order of it either way (docs/numpy.md).
    check_order(order, "KACF")
    return copied(array(a), order)


# -- axes -------------------------------------------------------------------------------------
def transpose(a, axes=None):
    x = array(a)
    order = tuple(reversed(range(x.ndim))) if axes is None else as_tuple(axes)
    return _manipulation.permute_dims(x, order)


def moveaxis(a, source, destination):
    return _manipulation.moveaxis(array(a), as_tuple(source), as_tuple(destination))


def swapaxes(a, axis1, axis2):
    x = array(a)
    order = list(range(x.ndim))
    first, second = (normalize_axis("swapaxes", i, x.ndim) for i in (axis1, axis2))
    order[first], order[second] = second, first
    return _manipulation.permute_dims(x, tuple(order))


def flip(m, axis=None):
    return _manipulation.flip(array(m), axis=None if axis is None else as_tuple(axis))


def roll(a, shift, axis=None):
    x = array(a)
    rolled = _manipulation.roll(x, shift, axis=axis)
    # Note (numpy): a roll moving nothing still writes a new array, forwards in memory
    return forwards(x) if rolled._node is x._node else rolled


# -- repeats and takes ------------------------------------------------------------------------
def tile(A, reps):
    return _manipulation.tile(array(A), as_tuple(reps))


def repeat(a, repeats, axis=None):
    if isinstance(repeats, (float, np.floating)):
        repeats = int(repeats)  # NOTE: numpy takes a float count, truncated (an array raises)
    if not isinstance(repeats, (int, np.integer)):
        repeats = array(repeats)
    return _manipulation.repeat(array(a), repeats, axis=axis)


def take(a, indices, axis=None, mode="raise"):
    if mode not in _TAKE_MODES:
        raise ValueError(f"take: mode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    x = array(a)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis("take", axis, x.ndim)
    index = _take_mode(array(indices), x.shape[axis], axis, mode)
    taken = _take(x, index if index.ndim == 1 else ravel(index), axis=axis)
    shape = x.shape[:axis] + index.shape + x.shape[axis + 1 :]
    return taken if taken.shape == shape else reshape(taken, shape)


_TAKE_MODES = ("raise", "wrap", "clip")


def _take_mode(index, length: int, axis: int, mode: str):
    """numpy's out-of-bounds modes: raise (checked here, before a reshape hides whether the
    indices are known values already), wrap or clip."""
    if index.dtype not in _dtypes.INTEGER:
        return index  # the namespace's take refuses them
    if mode == "raise":
        check_bounds("take", index, length, axis)
        return index
    if length == 0 and index.size:
        raise IndexError("take: cannot take from an empty axis")
    return remainder(index, length) if mode == "wrap" else clip(index, 0, length - 1)


def take_along_axis(arr, indices, axis=-1):
    x = array(arr)
    if axis is None:
        x, axis = ravel(x), 0
    return _take_along_axis(x, array(indices), axis=axis)
