"""Indexing: basic indexing (ints, slices, ellipsis, None) recorded as SLICE + RESHAPE views.

Spec: https://data-apis.org/array-api/latest/API_specification/indexing.html
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import _dtypes
from .._array import Array, implicit_value, record
from .._graph import Node, Op, caller_source, quick_node
from .._graph.views import whole_key, whole_update
from .._realize.native_operators import when_loaded
from . import creation, elementwise  # NOTE: modules read at call time: names would cycle
from .checks import (
    OutOfRangeError,
    broadcast_shapes,
    check_array,
    check_scalar,
    error,
    is_int,
    normalize_axis,
)
from .index_keys import (
    axis_index,
    check_bounds,
    gathered_shape,
    quick_plan,
    slice_bounds,
    slice_spec,
)
from .placement import data_dependent, device_arg
from .views import link


def getitem(x: Array, key) -> Array:
    """x[key]: a view of x (views.py) for basic keys, a GATHER copy for arrays in the key."""
    source = caller_source()
    if isinstance(key, Array) and key.dtype is _BOOL:
        picked = _rows_of(x, key, source)
        if picked is not None:
            return picked
    key = key if isinstance(key, tuple) else (key,)
    if is_special(key):
        planned = quick_plan("__getitem__", x, key)
        if planned is None:
            return _special_getitem(x, key, source)
        spec, nodes, shape = planned
        return record(Op.GATHER, (x._node, *nodes), shape, x.dtype, (("key", spec),), source)
    view = basic_getitem(x, key, source)
    # NOTE: 0-d from a key without an ellipsis: an integer per axis (x[...] of a 0-d x is a view)
    if not view._n.shape and Ellipsis not in key:
        return view  # Note: numpy gives a scalar here, a copy: writing into it leaves x alone
    return link(x, view)


def _rows_of(x: Array, mask: Array, source: str) -> Array | None:
    """x[mask] of a 1-d mask as long as x's first axis (`points[labels == k]`): the rows at
    its True positions (computed now), as _special_getitem records them, without its general
    key's planning (~25k instructions of a k-means step's mask); None for any other mask."""
    shape = x.shape
    if len(mask.shape) != 1 or not shape or mask.shape[0] != shape[0]:
        return None
    index = (_dtypes.DEFAULT_INDEX,)
    (positions,) = data_dependent("__getitem__", mask, index, "nonzero", "a boolean index")
    spec = [("array", 0)]
    for n in shape[1:]:  # NOTE: a loop, not a generator: its frame costs more than the rows
        spec.append(slice_spec(0, 1, n))
    spec = tuple(spec)
    picked = (positions.shape[0], *shape[1:])
    return record(Op.GATHER, (x._node, positions._node), picked, x.dtype, (("key", spec),), source)


_BOOL = _dtypes.bool


def basic_getitem(x: Array, key: tuple, source: str) -> Array:
    """x[key] for a basic key: a SLICE node (start, step per axis) and a RESHAPE for
    dropped/inserted axes; not linked to x's memory."""
    # NOTE: x's node read once: a view's node is a property (it may replay its steps)
    node = x._node
    x_shape = node.shape
    items = expand_ellipsis("__getitem__", list(key), len(x_shape))
    starts, shape, out_shape, axis = [], [], [], 0
    for item in items:
        if item is None:
            out_shape.append(1)
            continue
        size = x_shape[axis]
        if isinstance(item, slice):
            start, step, length = slice_bounds("__getitem__", item, size)
            out_shape.append(length)
        else:
            start, step, length = axis_index("__getitem__", item, size, axis), 1, 1
        starts.append((start, step))
        shape.append(length)
        axis += 1
    shape, out_shape, dtype = tuple(shape), tuple(out_shape), node.dtype
    # NOTE: quick nodes: the shapes are ints from slice_bounds and axis_index, checked already
    if shape != x_shape or starts.count((0, 1)) != len(starts):
        node = quick_node(Op.SLICE, (node,), shape, dtype, tuple(starts), source)
    if out_shape != shape:
        node = quick_node(Op.RESHAPE, (node,), out_shape, dtype, None, source)
    return Array(node)


@dataclasses.dataclass(frozen=True, eq=False)
class IndexArray:
    """An integer index array in a converted key; `mask_size` is the size of the axis the
    boolean mask it came from covers (None when the user gave integers)."""

    array: Array
    mask_size: int | None = None


def expand_ellipsis(func: str, items: list, ndim: int) -> list:
    """The key with its ellipsis replaced by full slices: one item per axis (plus Nones).

    Items are ints, slices, None, one ellipsis, and (after _convert) IndexArrays."""
    for item in items:  # NOTE: the common key, checked fast (a loop: no generator to make)
        if type(item) not in _INT_SLICE_OR_NONE:
            break
    else:
        indexed = len(items) - items.count(None)  # NOTE: an int or a slice is never None
        if indexed > ndim:
            raise error(IndexError, func, f"{indexed} indices for a {ndim}-d array")
        return items + [_ALL] * (ndim - indexed)
    for item in items:
        if not _is_item(item):
            raise error(
                IndexError,
                func,
                f"index {item!r} ({type(item).__name__}); an index takes ints, slices, ..., "
                "None, and integer or boolean arrays",
            )
    ellipses = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise error(IndexError, func, "an index can only have one ellipsis")
    indexed = sum(item is not None and item is not Ellipsis for item in items)
    if indexed > ndim:
        raise error(IndexError, func, f"{indexed} indices for a {ndim}-d array")
    fill = [slice(None)] * (ndim - indexed)
    if not ellipses:
        return items + fill
    return items[: ellipses[0]] + fill + items[ellipses[0] + 1 :]


_INT_SLICE_OR_NONE = frozenset((int, slice, type(None)))  # NOTE: by type: a bool is no int
_ALL = slice(None)


def _is_item(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, (slice, IndexArray)) or is_int(item)


# -- integer arrays, boolean masks and boolean scalars ----------------------------------------
# Integer-array keys follow numpy's rules where the spec leaves them open (mixing with slices):
# the broadcast index shape replaces the indexed axes where they are adjacent, else leads.


def is_special(key: tuple) -> bool:
    """Keys basic indexing cannot take: arrays (integer or boolean) and boolean scalars."""
    for item in key:  # NOTE: the common key, checked fast (a loop: no generator to make)
        if type(item) not in _BASIC:
            break
    else:
        return False
    return any(isinstance(item, (Array, np.ndarray, list, range, bool, np.bool_)) for item in key)


_BASIC = frozenset((int, slice, type(None), type(Ellipsis)))


def _convert(func: str, x: Array, key: tuple) -> list:
    """The key of x[key] with arrays as IndexArray items and boolean scalars as bools.

    A boolean mask becomes the integer arrays of its True positions, one per axis it covers:
    only the mask is computed (its values decide the result's shape), never x. Index arrays
    given as numpy arrays or lists are placed on x's device (as CuPy and torch take them).
    """
    items = []
    for item in key:
        if isinstance(item, (np.ndarray, list, range)):  # NOTE: numpy takes a range as a list
            item = _index_array(func, item, device_arg(x))
        if isinstance(item, (bool, np.bool_)):
            items.append(bool(item))
        elif not isinstance(item, Array):
            items.append(item)
        elif item.dtype == _dtypes.bool:
            items.extend(_mask(func, item))
        elif item.dtype in _dtypes.INTEGER:
            items.append(IndexArray(item))
        else:
            raise error(
                IndexError, func, f"index arrays must be integer or bool, got {item.dtype.name}"
            )
    return items


def _index_array(func: str, item, device) -> Array:
    """A numpy array or a (nested) list of ints or bools used as an index."""
    from .creation import operand

    try:
        value = np.asarray(item)
    except ValueError:
        raise error(IndexError, func, f"index {item!r} is a ragged sequence") from None
    if value.dtype.kind not in "biu" and value.size:
        raise error(IndexError, func, f"index arrays must be integer or bool, got {item!r}")
    value = value.astype(np.int64) if value.dtype.kind not in "biu" else value
    return operand(value, device=device, given=item)  # NOTE: a user's memory: its values now


def _mask(func: str, mask: Array) -> list:
    """A 0-d mask as its bool; else one IndexArray of True positions per axis it covers."""
    if mask.ndim == 0:
        return [bool(implicit_value(mask, func, "a boolean index"))]
    # NOTE: computed where the mask lives (a GPU's: its nonzero, nothing through the host)
    index = (_dtypes.DEFAULT_INDEX,) * mask.ndim
    positions = data_dependent(func, mask, index, "nonzero", "a boolean index")
    return [IndexArray(p, n) for p, n in zip(positions, mask.shape, strict=True)]


def _plan(func: str, x: Array, items: list) -> tuple[tuple, list[Array], tuple[int, ...]]:
    """The key as the runtime reads it, the index arrays, and the shape x[key] has."""
    if not any(type(item) is IndexArray for item in items):
        spec, shape = _basic_plan(func, x.shape, items)
        return spec, [], shape
    spec, arrays, dims, advanced, shapes = [], [], [], [], []
    axis = 0
    for pos, item in enumerate(items):
        if item is None:
            spec.append(_NEW_AXIS)
            dims.append((pos, 1))
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            start, step, length = slice_bounds(func, item, size)
            spec.append(slice_spec(start, step, length))
            dims.append((pos, length))
        else:
            spec.append(_advanced_item(func, item, size, axis, arrays))
            advanced.append(pos)
            shapes.append(item.array.shape if isinstance(item, IndexArray) else ())
        axis += 1
    return tuple(spec), arrays, gathered_shape(func, dims, advanced, shapes)


def _basic_plan(func: str, shape: tuple[int, ...], items: list) -> tuple[tuple, tuple[int, ...]]:
    """_plan's key and shape for items without index arrays: ints, slices and Nones (numpy's
    basic indexing: ints drop their axes, the rest keep their order)."""
    spec, dims, axis = [], [], 0
    for item in items:
        if item is None:
            spec.append(_NEW_AXIS)
            dims.append(1)
            continue
        if isinstance(item, slice):
            start, step, length = slice_bounds(func, item, shape[axis])
            spec.append(slice_spec(start, step, length))
            dims.append(length)
        else:
            spec.append(("int", axis_index(func, item, shape[axis], axis)))
        axis += 1
    return tuple(spec), tuple(dims)


_NEW_AXIS = ("none",)


def _advanced_item(func: str, item, size: int, axis: int, arrays: list) -> tuple:
    if not isinstance(item, IndexArray):
        return ("int", axis_index(func, item, size, axis))
    array, mask_size = item.array, item.mask_size
    # NOTE: an empty mask selects nothing along any axis (the official suite expects this).
    if mask_size is not None and mask_size not in (size, 0):
        raise error(IndexError, func, f"boolean index has size {mask_size}, axis {axis} {size}")
    if mask_size is None:
        check_bounds(func, array, size, axis)
    arrays.append(array)
    return ("array", len(arrays) - 1)


def _special_getitem(x: Array, key: tuple, source: str) -> Array:
    """x[key] for keys with arrays (a GATHER node) or one boolean scalar (movement nodes);
    copies in numpy's terms, so never linked to x's memory."""
    items = _convert("__getitem__", x, key)
    flags = [i for i, item in enumerate(items) if isinstance(item, bool)]
    if flags:
        return _flag_getitem(x, items, flags)
    block = _leading_block(items, x.ndim)
    items = expand_ellipsis("__getitem__", items, x.ndim)
    spec, arrays, shape = _plan("__getitem__", x, items)
    srcs = (x._node, *(a._node for a in arrays))
    gathered = record(Op.GATHER, srcs, shape, x.dtype, (("key", spec),), source)
    return gathered if block is None else _moved(gathered, block, leading=True)


def _leading_block(items: list, ndim: int) -> tuple[int, int] | None:
    """numpy's advanced indices (arrays, and ints with them) lead the result where an ellipsis
    that stands for no axis separates them (x[:, [0, 1], 0, ..., 1] of a 4-d x: (2, 1)), as a
    slice or None between them does; the plan, after the ellipsis is gone, keeps them where
    they are. (where the plan puts the index dims, how many) in that case, else None."""
    for item in items:  # NOTE: a loop, not a generator: every index with arrays asks
        if item is Ellipsis:
            break
    else:
        return None
    advanced = [i for i, item in enumerate(items) if type(item) is IndexArray or is_int(item)]
    at = items.index(Ellipsis)
    if len(advanced) < 2 or not advanced[0] < at < advanced[-1]:
        return None
    if sum(item is not None and item is not Ellipsis for item in items) != ndim:
        return None  # NOTE: the ellipsis stands for axes: a slice between, which the plan sees
    between = items[advanced[0] : advanced[-1] + 1]
    if any(item is None or isinstance(item, slice) for item in between):
        return None  # NOTE: separated anyway: the plan leads with them already
    shapes = [item.array.shape for item in items if type(item) is IndexArray]
    count = len(np.broadcast_shapes(*shapes)) if shapes else 0  # NOTE: ints alone are basic
    return (advanced[0], count) if count and advanced[0] else None


def _moved(a: Array, block: tuple[int, int], leading: bool) -> Array:
    """a with the index dims of `block` moved from where the plan has them to the front
    (leading), or back."""
    from .manipulation import moveaxis

    where, count = block
    planned, first = tuple(range(where, where + count)), tuple(range(count))
    return moveaxis(a, planned, first) if leading else moveaxis(a, first, planned)


def _flag_getitem(x: Array, items: list, flags: list[int]) -> Array:
    """x[..., True, ...] adds a length-1 axis, False a length-0 one (spec: a 0-d bool index).

    Movement nodes only. Like numpy, the flag is an advanced index: with integers not next to
    it, the new axis leads."""
    if len(flags) > 1 or any(isinstance(item, IndexArray) for item in items):
        raise error(
            IndexError, "__getitem__", "a boolean scalar index combines only with basic indices"
        )
    (at,) = flags
    value, items[at] = items[at], None
    view = basic_getitem(x, tuple(items), caller_source())
    expanded = expand_ellipsis("__getitem__", items, x.ndim)
    nones_before = sum(item is None for item in items[:at])
    position = [i for i, item in enumerate(expanded) if item is None][nones_before]
    where = sum(not is_int(item) for item in expanded[:position])
    advanced = sorted([i for i, item in enumerate(expanded) if is_int(item)] + [position])
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    if not value:
        view = basic_getitem(view, (slice(None),) * where + (slice(0, 0),), caller_source())
    if not adjacent and where:
        from .manipulation import moveaxis

        view = moveaxis(view, where, 0)
    return Array(view._n)  # Note: an advanced index in numpy, so a copy: not linked to x


def setitem(x: Array, key, value) -> Array:
    """x with x[key] = value, as a new SETITEM node (Array.__setitem__ rebinds x to it).
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.array.__setitem__.html"""
    source = caller_source()
    filled = _masked_fill(x, key, value, source)
    if filled is not None:
        return filled
    key = key if isinstance(key, tuple) else (key,)
    planned = quick_plan("__setitem__", x, key)
    if planned is not None:
        spec, nodes, target = planned
        node = _value_node(x, value, target, source)
        return record(
            Op.SETITEM, (x._node, node, *nodes), x.shape, x.dtype, (("key", spec),), source
        )
    items = _convert("__setitem__", x, key)
    flags = [i for i, item in enumerate(items) if isinstance(item, bool)]
    if len(flags) > 1:
        raise error(IndexError, "__setitem__", "at most one boolean scalar in an index")
    if flags and not items[flags[0]]:
        # x[..., False, ...] = value selects nothing, but value must still broadcast to that
        # empty selection (numpy and array_api_strict accept a shape-(0,) value for a 0-d x).
        _value_node(x, value, _flag_getitem(x, list(items), flags).shape, source)
        return Array(x._node)
    if flags:
        items[flags[0]] = None
    block = _leading_block(items, x.ndim)
    spec, arrays, target = _plan("__setitem__", x, expand_ellipsis("__setitem__", items, x.ndim))
    if block is None:
        node = _value_node(x, value, target, source)
    else:  # NOTE: the value fits numpy's selection (index dims first), moved to the plan's
        where, count = block
        numpys = target[where : where + count] + target[:where] + target[where + count :]
        node = _moved(Array(_value_node(x, value, numpys, source)), block, leading=False)._node
    srcs = (x._node, node, *(a._node for a in arrays))
    return record(Op.SETITEM, srcs, x.shape, x.dtype, (("key", spec),), source)


def _masked_fill(x: Array, key, value, source: str) -> Array | None:
    """x[mask] = v for a boolean mask of x's whole shape and a single value v, as the select
    where(mask, v, x): one elementwise node that fuses (the mask's computation and x's copy
    too), where the general path computes the mask to find its True positions (a
    materialization) and scatters into a copy. The same value: every element is x's or v,
    cast to x's dtype as setitem casts it. None for any other key or value."""
    mask = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    if isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
        from .creation import operand

        mask = operand(mask, device=device_arg(x))
    if not isinstance(mask, Array) or mask.dtype != _dtypes.bool or mask.shape != x.shape:
        return None
    single = isinstance(value, (bool, int, float, complex, np.generic))
    if not x.ndim or not (single or (isinstance(value, Array) and not value.ndim)):
        return None
    from .elementwise import where

    filled = where(mask, Array(_value_node(x, value, (), source)), x)
    return Array(written_into(x._node, filled._node, source))


def written_into(x: Node, node: Node, source: str) -> Node:
    """`node`, x's new value written into x's memory (an in-place operation, a masked fill), as
    the update of every element of x where x may be laid out otherwise than C order (a buffer
    so laid out, a pending value of two or more dims): numpy writes there, so its result keeps
    x's order whatever its operands' (x += w of a C-ordered w: orders.py), and a later sum adds
    in it. `node` itself elsewhere (simplify drops such an update)."""
    if node.shape != x.shape or node.dtype != x.dtype:
        return node
    memory = x
    while whole_update(memory, memory.srcs):  # NOTE: written into before: its memory
        memory = memory.srcs[0]
    if memory.op is Op.BUFFER:
        steps = [abs(s) for s, n in zip(memory.arg.strides, x.shape) if n > 1 and s]
        if steps == sorted(steps, reverse=True):
            return node
    elif sum(n > 1 for n in x.shape) < 2 or memory.op is Op.FULL or _is_fill(memory):
        return node  # NOTE: one order only, or C-ordered memory (a fill's) as a ufunc's rule
    key = whole_key(x.shape)
    return Node(Op.SETITEM, (x, node), x.shape, x.dtype, (("key", key),), source)


def _is_fill(node: Node) -> bool:
    """A fill laid out in C order (creation.in_c_order's copy)."""
    return node.op is Op.COPY and node.srcs[0].op is Op.FULL and node.arg == "C"


def basic_setitem_parts(x: Array, key: tuple, value, source: str) -> tuple[tuple, Node]:
    """For x[key] = value with a basic key (no arrays, no boolean scalars): the key as the
    runtime reads it and the value conformed to the selection; raises as setitem does."""
    spec, _, target = _plan("__setitem__", x, expand_ellipsis("__setitem__", list(key), x.ndim))
    return spec, _value_node(x, value, target, source)


def _value_node(x: Array, value, target: tuple[int, ...], source: str) -> Node:
    """`value` cast to x's dtype and broadcast to the selected shape `target`."""
    if type(value) is Array:
        node = value._node
        if node.shape == target and node.dtype == x.dtype:
            return node  # NOTE: conformed already (x[i] = y[j] of x's dtype): nothing to check
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(
        value, (bool, int, float, complex)
    ):
        value = creation.operand(value, device=device_arg(x))
    if isinstance(value, Array):
        # Extension (numpy): a value of another dtype is cast to x's as numpy's assignment casts
        # (unsafe: float into int truncates), where the standard (2025.12) asks for a value
        # that promotes to x's dtype. A complex value into a real x still errs (its imaginary
        # part would be lost; numpy warns).
        if value.dtype in _dtypes.COMPLEX and x.dtype not in _dtypes.COMPLEX:
            raise error(
                TypeError, "__setitem__", f"value has dtype {value.dtype.name}; x is {x.dtype.name}"
            )
        node = value._node
        while len(node.shape) > len(target) and node.shape[0] == 1:
            node = Node(Op.RESHAPE, (node,), node.shape[1:], node.dtype, None, source)
        if (
            len(node.shape) > len(target)
            or broadcast_shapes("__setitem__", node.shape, target) != target
        ):
            raise error(
                ValueError, "__setitem__", f"value of shape {value.shape} does not fit {target}"
            )
        return elementwise.conform(node, x.dtype, target, source)
    if not isinstance(value, (bool, int, float, complex)):
        raise error(
            TypeError, "__setitem__", f"value must be an array or a Python scalar, got {value!r}"
        )
    value = _as_item(value, x.dtype)
    check_scalar("__setitem__", value, x.dtype)
    return quick_node(Op.FULL, (), target, x.dtype, value, source)  # NOTE: target is checked


def _as_item(value, dtype: np.dtype):
    """Extension (numpy): a Python number written into an array of `dtype` as numpy's
    assignment converts it: a float into integers truncates (NaN is a ValueError, infinity an
    OverflowError, as int() raises), any real number into bools is its truth."""
    if dtype in _dtypes.INTEGER and isinstance(value, float):
        try:
            return int(value)
        except ValueError as err:
            raise error(ValueError, "__setitem__", f"cannot write {value!r} into integers") from err
        except OverflowError as err:
            raise error(
                OutOfRangeError, "__setitem__", f"{value!r} does not fit {dtype.name}"
            ) from err
    if dtype == _dtypes.bool and isinstance(value, (int, float)):
        return bool(value)
    return value


# -- take, take_along_axis --------------------------------------------------------------------


def take(x, indices, /, axis=None) -> Array:
    """Elements of x at `indices` along axis.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.take.html"""
    _check_take("take", x, indices)
    if axis is None:
        if x.ndim != 1:
            raise error(ValueError, "take", f"axis is required for a {x.ndim}-d x")
        axis = 0
    axis = normalize_axis("take", axis, x.ndim)
    check_bounds("take", indices, x.shape[axis], axis)
    shape = x.shape[:axis] + indices.shape + x.shape[axis + 1 :]
    return record(Op.TAKE, (x._node, indices._node), shape, x.dtype, (("axis", axis),))


def _check_take(func: str, x, indices) -> None:
    check_array(func, "x", x)
    check_array(func, "indices", indices)
    if indices.dtype not in _dtypes.INTEGER:
        raise error(TypeError, func, f"indices has dtype {indices.dtype.name}; needs integers")
    if x.ndim == 0:
        raise error(ValueError, func, "x must have at least one axis")


def take_along_axis(x, indices, /, axis=-1) -> Array:
    """Elements of x at the per-position `indices` along axis.
    https://data-apis.org/array-api/latest/API_specification/generated/array_api.take_along_axis.html"""
    source = caller_source()
    _check_take("take_along_axis", x, indices)
    if indices.ndim != x.ndim:
        raise error(
            ValueError, "take_along_axis", f"indices is {indices.ndim}-d, x {x.ndim}-d; must match"
        )
    axis = normalize_axis("take_along_axis", axis, x.ndim)
    check_bounds("take_along_axis", indices, x.shape[axis], axis)
    rest = broadcast_shapes(
        "take_along_axis", _without(x.shape, axis), _without(indices.shape, axis)
    )
    shape = rest[:axis] + (indices.shape[axis],) + rest[axis + 1 :]
    conform = elementwise.conform
    x_node = conform(x._node, x.dtype, rest[:axis] + (x.shape[axis],) + rest[axis + 1 :], source)
    index_node = conform(indices._node, indices.dtype, shape, source)
    return record(
        Op.TAKE_ALONG_AXIS, (x_node, index_node), shape, x.dtype, (("axis", axis),), source
    )


def _without(shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    return shape[:axis] + (1,) + shape[axis + 1 :]


def install_getitem(module) -> None:
    """Array.__getitem__ becomes the native module's Operator: a basic key's view recorded in C
    (_realize/native_indexing.py), linked to x's memory by `link`; any other key, the Python
    method."""
    python = Array.__dict__["__getitem__"]
    Array.__getitem__ = module.getitem(Op.SLICE, (Op.RESHAPE, link), python)


when_loaded(install_getitem)
