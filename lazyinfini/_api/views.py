"""Views that share memory, as numpy's do: a write through a view changes its base, and a write
into the base is seen through its views.

A basic index (ints, slices, ..., None; not an integer index on every axis, a scalar in numpy),
permute_dims and the transposes, a reshape numpy would not copy, expand_dims, squeeze, flip,
unstack and linalg.diagonal make views; broadcast_to (and broadcast_arrays where it broadcasts)
makes read-only ones. Everything else copies, as in numpy.

Arrays are values (one node each), so memory is a *storage*: the current value of the base (its
`root` node) and the live arrays seeing it, each with the movement `steps` from the root to its
value. An in-place write through a member scatters the member's new value into the root, and
every other live member is rebound to its steps replayed on the new root: lazily, as nodes. A
storage is made when an array's first view is taken, so arrays without views pay nothing.

Most views (slices, ints, length-1 reshapes) are a basic index of their root, their *place*:
a write through one is one SETITEM into the root at the place (`view[key] = v` at the place
composed with key), not a write of the view then a setitem per step undone.

Note (spec): the standard leaves writes through views unspecified
(https://data-apis.org/array-api/latest/design_topics/copies_views_and_mutation.html); numpy's
behaviour is followed, except that linalg.diagonal is writable (numpy's is read-only).
"""

from __future__ import annotations

import threading
import weakref
from typing import NamedTuple

import numpy as np

from .._array import Array
from .._graph import Node, Op, caller_source, late_write, quick_node, resolve
from .._graph.views import apply_movement, c_strides, stand_in
from .._realize.native import twin
from .._realize.native_operators import when_loaded
from .checks import error
from .placement import constant
from .quick import REAL_OF


class Step(NamedTuple):
    """One movement from a view's parent to the view: a node's recipe without its input (an
    input would keep old values alive)."""

    op: Op
    shape: tuple[int, ...]
    arg: object


class View(NamedTuple):
    """What an array sharing memory knows: the storage, its steps from the root, whether
    writing into it is refused (a broadcast view, as numpy's), and the storage's version its
    value was derived at (a write through another member since makes it stale)."""

    storage: Storage
    steps: tuple[Step, ...]
    readonly: bool
    seen: int = 0


class Storage:
    """The memory a base and its views share: its current value (`root`), the root's layout in
    elements (None: C order), the live arrays sharing it (weakly: a dropped view costs
    nothing), and its `version`, counting the writes: a member whose value was derived at an
    older version replays its steps on the root when next read (`Shared`), so a write costs
    the same whatever the number of live views (numpy's O(1), not O(views))."""

    __slots__ = ("root", "strides", "members", "_prune_at", "version", "source")

    def __init__(self, root: Node):
        self.root = root
        self.strides = None
        self.members: dict[int, weakref.ref] = {}  # NOTE: by id: arrays are not hashable
        self._prune_at = 8
        self.version = 0
        self.source = ""  # the line of the last write: the replayed nodes' source

    def wrote(self, root: Node, source: str) -> None:
        """The memory now holds `root`: every member but the writer is stale."""
        self.root, self.source = root, source
        self.version += 1  # NOTE: after the root: a reader never sees a new version, old root

    def add(self, array: Array) -> None:
        self.members[id(array)] = weakref.ref(array)
        if len(self.members) >= self._prune_at:  # dead views go, amortized O(1) per view
            self.members = {k: r for k, r in self.members.items() if r() is not None}
            self._prune_at = max(8, 2 * len(self.members))

    def others(self, array: Array) -> bool:
        """Whether a member besides `array` is alive."""
        for ref in self.members.values():
            member = ref()
            if member is not None and member is not array:
                return True
        return False


# NOTE: writes through views of one storage from two threads must not lose an update.
_LOCK = threading.Lock()
# NOTE: a record made without its class's Python __new__ (~0.2 us less; every view makes two)
_NEW = tuple.__new__


def link(x: Array, view: Array, readonly: bool = False) -> Array:
    """`view`, just recorded from x by movement nodes, shares x's memory; returns it."""
    assert view is not x
    with _LOCK:
        base = x._view or _adopt(x)
        steps = base.steps
        for step in _recorded_steps(view._n, x._n):
            steps = extend(steps, step)
        storage = base.storage
        view._view = _NEW(View, (storage, steps, base.readonly or readonly, storage.version))
        view.__class__ = Shared
        base.storage.add(view)
    return view


def install_views(module) -> None:
    """link in C from now on (_realize/native_views.py), in every module that imported it,
    the node reads of Array and Shared (each recording reads several) and a matrix's x.T."""
    stale, transposed = Shared.__dict__["_n"], Array.__dict__["T"].fget
    merged = tuple(_MERGE)
    module.setup_views(
        Array, Shared, View, Step, _LOCK, _adopt, extend, merged, stale.fget, Op.PERMUTE, transposed
    )
    twin(link, "link")
    Array.T = property(module.array_t)
    Shared._n = property(module.shared_n, stale.fset)
    for name, getter in (("shape", module.array_shape), ("dtype", module.array_dtype)):
        for kind in (Array, Shared):
            setattr(kind, name, property(getter, kind.__dict__[name].fset))
    Array._node = property(module.array_node)
    Array.ndim = Shared.ndim = property(module.array_ndim)


def _adopt(x: Array) -> View:
    """x becomes the root of a new storage (it had no views until now)."""
    storage = Storage(x._n)
    x._view = View(storage, (), False)
    x.__class__ = Shared
    storage.add(x)
    return x._view


_HELD = Array.__dict__["_n"]  # NOTE: the slot itself, which Shared's property reads and writes


class Shared(Array):
    """An array sharing memory with others (a storage's member). Reading its node replays its
    steps on the storage's root first when another member wrote since it last looked: writes
    rebind nothing, so writing each of n live views costs O(n), not O(n^2)."""

    __slots__ = ()

    @property
    def _n(self) -> Node:
        node = _HELD.__get__(self, Array)
        view = self._view
        storage = view.storage
        if view.seen != storage.version:
            # NOTE: no lock: the root is written before the version (Storage.wrote), so a
            # race replays a newer root at worst, and is seen stale again
            version = storage.version
            node = replay(view.steps, resolve(storage.root), storage.source)
            _HELD.__set__(self, node)
            late_write(node, "holder", weakref.ref(self))
            self._view = _NEW(View, (storage, view.steps, view.readonly, version))
        return node

    @_n.setter
    def _n(self, node: Node) -> None:
        _HELD.__set__(self, node)

    # NOTE: a write into the storage changes a member's value, never its shape or dtype: these
    # read the node held, without the replay check (~0.3 us each; einsum reads them 16 times)
    @property
    def shape(self) -> tuple[int, ...]:
        return _HELD.__get__(self, Array).shape

    @property
    def dtype(self):
        return _HELD.__get__(self, Array).dtype

    @property
    def ndim(self) -> int:
        return len(_HELD.__get__(self, Array).shape)


def _recorded_steps(node: Node, base: Node) -> list[Step]:
    """The steps from `base` to `node`, read back from the nodes the API recorded."""
    found = []
    while node is not base and node.realized is not base:  # NOTE: x may be computed since
        assert len(node.srcs) >= 1, node
        found.append(_NEW(Step, (node.op, node.shape, node.arg)))
        node = node.srcs[0]
    return found[::-1]


def extend(steps: tuple[Step, ...], step: Step) -> tuple[Step, ...]:
    """`steps` then `step`, merging a slice of a slice, a reshape of a reshape and a permute of a
    permute into one step (so scatters stay one per view, and chains stay short)."""
    last = steps[-1] if steps else None
    if last is None or last.op is not step.op or step.op not in _MERGE:
        return (*steps, step)
    return (*steps[:-1], _MERGE[step.op](last, step))


def _merge_slices(first: Step, second: Step) -> Step:
    arg = tuple(
        (s1 + t1 * s2 if n else 0, t1 * t2)
        for (s1, t1), (s2, t2), n in zip(first.arg, second.arg, second.shape, strict=True)
    )
    return Step(Op.SLICE, second.shape, arg)


def _merge_permutes(first: Step, second: Step) -> Step:
    return Step(Op.PERMUTE, second.shape, tuple(first.arg[a] for a in second.arg))


_MERGE = {
    Op.SLICE: _merge_slices,
    Op.RESHAPE: lambda first, second: second,
    Op.PERMUTE: _merge_permutes,
}
when_loaded(install_views)


# -- writing ---------------------------------------------------------------------------------


def check_writable(x: Array, func: str) -> None:
    view = x._view
    if view is not None and view.readonly:
        raise error(
            ValueError, func, "x is a broadcast view, read-only as in numpy; write into a copy"
        )


def write(x: Array, new: Node, func: str) -> None:
    """x (a member of a storage) takes the value `new` in place: the root takes the new elements
    and every other live member is rebound to its value derived from the new root."""
    check_writable(x, func)
    assert new.shape == x.shape and new.dtype == x.dtype, (new, x.shape, x.dtype)
    if new is x._n:
        return  # nothing written (x[..., False] = v)
    with _LOCK:
        view = x._view
        storage = view.storage
        if storage.others(x):
            source = caller_source()
            root = resolve(storage.root)
            place = place_of(view.steps, root.shape) if view.steps else None
            if place is None:
                root = scatter(root, view.steps, new, source)
            else:  # NOTE: one SETITEM at the view's place, as scatter's chain of undone steps
                root = _put(root, place.items, place.axes, new, source)
            storage.wrote(root, source)
        else:
            _reroot(x, new)
        x._hold(new)
        view = x._view  # NOTE: the writer is current
        x._view = _NEW(View, (view.storage, view.steps, view.readonly, storage.version))


def setitem(x: Array, key, value) -> None:
    """x[key] = value on a member of a storage, written through."""
    check_writable(x, "__setitem__")
    if _writes_itself(x, key, value):
        return
    key = key if isinstance(key, tuple) else (key,)
    if indexing.is_special(key):
        write(x, indexing.setitem(x, key, value)._n, "__setitem__")
        return
    source = caller_source()
    spec, part = indexing.basic_setitem_parts(x, key, value, source)
    if not _write_into_root(x, spec, part, source):
        new = _setitem(x._node, part, (), spec, source)
        write(x, new, "__setitem__")


def _write_into_root(x: Array, spec: tuple, part: Node, source: str) -> bool:
    """x[spec] = part written straight into the root at x's place composed with spec, every live
    member (x too) rebound to its steps replayed: one SETITEM of the selected elements, where
    write() would record two (x's new value, then that scattered into the root). False where x's
    place is no basic index of the root (a permute, a diagonal, a reshape that is no view of
    unit axes), the selection is empty, or x has no live views (write() reroots then)."""
    if 0 in part.shape:
        return False
    with _LOCK:
        view = x._view
        storage = view.storage
        root = resolve(storage.root)
        place = place_of(view.steps, root.shape) if storage.others(x) else None
        if place is None:
            return False
        root = _put(root, *compose(place, spec), part, source)
        storage.wrote(root, source)  # NOTE: x too reads its value from the new root
    return True


def _writes_itself(x: Array, key, value) -> bool:
    """Whether value is the live view x[key] of the same memory, so the write changes nothing:
    `x[i] += 1` runs `v = x[i]; v += 1` (which writes through v already), then `x[i] = v`."""
    theirs = value._view if isinstance(value, Array) else None
    if theirs is None or theirs.storage is not x._view.storage:
        return False
    key = key if isinstance(key, tuple) else (key,)
    if indexing.is_special(key):
        return False
    try:
        view = indexing.basic_getitem(x, key, "")
    except (IndexError, TypeError, ValueError):
        return False  # indexing.setitem raises it, as __setitem__
    steps = x._view.steps
    for step in _recorded_steps(view._n, x._n):
        steps = extend(steps, step)
    return steps == theirs.steps


def _reroot(x: Array, new: Node) -> None:
    """x, the storage's last live member, becomes its root: the old root nobody can see is let
    go (a view written in a loop after its base was dropped keeps no history). Its layout is
    kept: a later reshape copies where numpy's would."""
    view = x._view
    storage = view.storage
    if view.steps:
        storage.strides = phantom(view).strides
        x._view = View(storage, (), view.readonly, view.seen)
    storage.root = new


def replay(steps: tuple[Step, ...], root: Node, source: str) -> Node:
    """The value `steps` see in `root`: one movement node per step."""
    node = root
    for step in steps:  # NOTE: quick nodes: each step was a node once, checked then
        dtype = REAL_OF[node.dtype] if step.op in _PARTS else node.dtype
        node = quick_node(step.op, (node,), step.shape, dtype, step.arg, source)
    return node


# a complex array's parts (numpy's z.real and z.imag views: np.real and np.imag link them)
_PARTS = (Op.REAL, Op.IMAG)


def scatter(root: Node, steps: tuple[Step, ...], new: Node, source: str) -> Node:
    """`root` with the elements `steps` see replaced by `new`: each step undone from the view
    back to the root (a slice by a setitem into its parent, a permute by its inverse, ...)."""
    if not steps:
        return new
    parents = [root]
    for step in steps[:-1]:
        parents.append(replay((step,), parents[-1], source))
    for step, parent in zip(reversed(steps), reversed(parents), strict=True):
        new = _UNDO[step.op](step, parent, new, source)
    return new


def _undo_slice(step: Step, parent: Node, new: Node, source: str) -> Node:
    key = tuple(_slice_item(start, by, n) for (start, by), n in zip(step.arg, step.shape))
    return _setitem(parent, new, (), key, source)


def _slice_item(start: int, by: int, length: int) -> tuple:
    stop = start + by * length
    return ("slice", start, stop if stop >= 0 else None, by)


def _undo_reshape(step: Step, parent: Node, new: Node, source: str) -> Node:
    return Node(Op.RESHAPE, (new,), parent.shape, parent.dtype, None, source)


def _undo_permute(step: Step, parent: Node, new: Node, source: str) -> Node:
    inverse = tuple(sorted(range(len(step.arg)), key=step.arg.__getitem__))
    return Node(Op.PERMUTE, (new,), parent.shape, parent.dtype, inverse, source)


def _undo_diagonal(step: Step, parent: Node, new: Node, source: str) -> Node:
    """parent[..., rows, cols] = new: the diagonal's positions as two constant index arrays."""
    arg = dict(step.arg)
    assert arg["_function"] == "diagonal", arg
    offset = arg["offset"]
    positions = np.arange(step.shape[-1], dtype=np.int64)
    rows, cols = positions + max(-offset, 0), positions + max(offset, 0)
    batch = tuple(_slice_item(0, 1, n) for n in parent.shape[:-2])
    key = (*batch, ("array", 0), ("array", 1))
    arrays = (constant(rows, parent, source), constant(cols, parent, source))
    return _setitem(parent, new, arrays, key, source)


def _undo_part(step: Step, parent: Node, new: Node, source: str) -> Node:
    """complex `parent` with the part `step` took replaced by `new` (its other part kept)."""
    other = Op.IMAG if step.op is Op.REAL else Op.REAL
    kept = quick_node(other, (parent,), parent.shape, new.dtype, None, source)
    parts = (new, kept) if step.op is Op.REAL else (kept, new)
    return quick_node(Op.COMPLEX, parts, parent.shape, parent.dtype, None, source)


def _setitem(parent: Node, new: Node, arrays: tuple, key: tuple, source: str) -> Node:
    srcs = (parent, new, *arrays)
    return quick_node(Op.SETITEM, srcs, parent.shape, parent.dtype, (("key", key),), source)


_UNDO = {
    Op.SLICE: _undo_slice,
    Op.RESHAPE: _undo_reshape,
    Op.PERMUTE: _undo_permute,
    Op.LINALG: _undo_diagonal,  # NOTE: linalg.diagonal is the one LINALG call that links
    Op.REAL: _undo_part,
    Op.IMAG: _undo_part,
}


# -- places: a view as a basic index of its root -------------------------------------------


class Place(NamedTuple):
    """Where a view's elements sit in its root, as a basic index: per root axis a fixed index
    (an int) or a run (start, step, length); per view axis the root axis it walks, None for a
    length-1 axis the root lacks. root[key] holds the view's elements with the view's axes in
    the root's order (a permuted view, `x.T[0]`, walks them in another)."""

    items: tuple
    axes: tuple


def place_of(steps: tuple[Step, ...], shape: tuple[int, ...]) -> Place | None:
    """The place of the view `steps` make of a root of `shape`; None where it is no basic
    index of the root's axes in some order (a diagonal, a reshape other than adding or dropping
    length-1 axes) or holds no element. Remembered: a loop writes through one view many
    times."""
    key = (steps, shape)
    place = _PLACES.get(key, _UNKNOWN)
    if place is _UNKNOWN:
        if len(_PLACES) >= 512:
            _PLACES.clear()
        place = _PLACES[key] = _place_of(steps, shape)
    return place


_PLACES: dict = {}  # NOTE: steps and shapes only: no node, no data
_UNKNOWN = object()


def _place_of(steps: tuple[Step, ...], shape: tuple[int, ...]) -> Place | None:
    items, axes = [(0, 1, n) for n in shape], list(range(len(shape)))
    for step in steps:
        if 0 in step.shape:
            return None
        if step.op is Op.SLICE:
            _place_slice(items, axes, step)
        elif step.op is Op.RESHAPE and _units_only(shape, step.shape):
            axes = _place_reshape(items, axes, shape, step.shape)
        elif step.op is Op.PERMUTE:
            axes = [axes[i] for i in step.arg]
        else:
            return None
        shape = step.shape
    return Place(tuple(items), tuple(axes))


def _place_slice(items: list, axes: list, step: Step) -> None:
    for root_axis, (start, by), length in zip(axes, step.arg, step.shape, strict=True):
        if root_axis is not None:  # NOTE: a length-1 axis the root lacks: a slice keeps it
            first, stride, _ = items[root_axis]
            items[root_axis] = (first + stride * start, stride * by, length)


def _units_only(before: tuple[int, ...], after: tuple[int, ...]) -> bool:
    """Whether a reshape only adds or drops length-1 axes (so it keeps the order of elements)."""
    return [n for n in before if n != 1] == [n for n in after if n != 1]


def _place_reshape(items: list, axes: list, before: tuple, after: tuple) -> list:
    """The view axes after a reshape of length-1 axes; a dropped one fixes its root axis."""
    for root_axis, n in zip(axes, before, strict=True):
        if n == 1 and root_axis is not None:
            items[root_axis] = items[root_axis][0]
    walked = iter([a for a, n in zip(axes, before, strict=True) if n != 1])
    return [None if n == 1 else next(walked) for n in after]


def compose(place: Place, spec: tuple) -> tuple[tuple, tuple]:
    """The root's items that `spec` (a basic key of the view, as indexing plans it: "int",
    "slice" and "none" items, one per view axis but the Nones) selects, and the root axis of
    each axis the selection keeps, in the view's order."""
    items, axes, kept = list(place.items), iter(place.axes), []
    for item in spec:
        if item[0] == "none":
            continue
        root_axis = next(axes)
        if root_axis is None:
            continue  # NOTE: a length-1 axis the root lacks: its index 0 or a length-1 slice
        first, stride, _ = items[root_axis]
        if item[0] == "int":
            items[root_axis] = first + stride * item[1]
        else:
            _, start, stop, by = item
            length = len(range(start, -1 if stop is None else stop, by))
            items[root_axis] = (first + stride * start, stride * by, length)
            kept.append(root_axis)
    return tuple(items), tuple(kept)


def _put(root: Node, items: tuple, axes: tuple, part: Node, source: str) -> Node:
    """`root` with the elements at `items` (a Place's) replaced by `part`, whose axes walk the
    root `axes` in that order (None: a length-1 axis the root lacks); it has their shape but for
    length-1 axes."""
    key = tuple(_slice_item(*item) if type(item) is tuple else ("int", item) for item in items)
    walked = [a for a in axes if a is not None and type(items[a]) is tuple]
    shape = tuple(items[a][2] for a in walked)
    if part.shape != shape:
        part = quick_node(Op.RESHAPE, (part,), shape, part.dtype, None, source)
    if walked != sorted(walked):  # NOTE: a permuted view: its axes put in the root's order
        order = tuple(sorted(range(len(walked)), key=walked.__getitem__))
        shape = tuple(shape[i] for i in order)
        part = quick_node(Op.PERMUTE, (part,), shape, part.dtype, order, source)
    return _setitem(root, part, (), key, source)


# -- layouts: which reshapes are views -------------------------------------------------------


def reshape_is_view(x: Array, shape: tuple[int, ...]) -> bool:
    """Whether numpy would reshape x without a copy: always for an array that is not a view (its
    value is C-ordered), else as its layout allows."""
    view = x._view
    if view is None or (not view.steps and view.storage.strides is None):
        return True
    try:
        np.reshape(phantom(view), shape, copy=False)
    except ValueError:
        return False
    return True


_ROOTS: dict[tuple, np.ndarray] = {}  # (shape, strides) -> its read-only stand-in


def phantom(view: View) -> np.ndarray:
    """An ndarray with the view's layout (strides in elements) over one byte, never read."""
    storage = view.storage
    shape = resolve(storage.root).shape
    strides = storage.strides if storage.strides is not None else c_strides(shape, 1)
    array = _ROOTS.get((shape, strides))
    if array is None:  # NOTE: kept: numpy's as_strided costs ~4 us, twice a write via a view
        if len(_ROOTS) >= 256:
            _ROOTS.clear()
        array = _ROOTS[shape, strides] = stand_in(shape, strides)
    for step in view.steps:
        if step.op is Op.LINALG:
            array = np.diagonal(array, dict(step.arg)["offset"], -2, -1)
        elif step.op in _PARTS:  # NOTE: a part's strides count its own, half-size, elements
            array = stand_in(array.shape, tuple(2 * s for s in array.strides))
        else:
            array = apply_movement(step, array)
    return array


# NOTE: imported last: indexing imports link from this module
from . import indexing  # noqa: E402
