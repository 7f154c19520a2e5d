"""numpy's memory order for the values a host device writes, so sums add as numpy's.

numpy adds a reduction's values in the order of its input's memory: a row of a C-ordered array
pairwise, a row of an F-ordered one a value at a time. And numpy writes a ufunc's result in the
order of its operands' memory (order="K": the iterator's best axis ordering, C order where the
operands disagree), a reduction's in its input's order over the kept axes, a concatenate's in
its inputs' common order. So numpy sums `(x.T ** 2).sum(axis=1)` a value at a time where a
C-ordered square would be summed pairwise: other bits, in the last place. A device whose
reductions give numpy's bits (the cpu's, the reference's) asks for numpy's orders
(Target.numpy_orders): every such value whose numpy order is not C's, and that a reduction, a
view, a library call or the user may see (_chosen), is computed over its inputs permuted into
that order (a C-ordered result: numpy's memory) and seen back through the inverse permute
(numpy's strides). The permutes over buffers are strided loads; a chain of values in one order
cancels its permutes (simplify).
"""

from __future__ import annotations

import numpy as np

from .._graph import Dag, Node, Op, inputs_of
from .._graph.views import apply_movement, diagonal_length, stand_in, whole_update
from .layout import base_strides


def numpy_orders(graph: Dag, keep) -> tuple[Dag, dict[Node, Node], list[str]]:
    """`graph` with its seen values in numpy's memory order, the node each
    rewritten one became, and a line per rewrite for explain() (the same graph, {} and []
    where every value is in C order already)."""
    nodes = graph.graph["order"]
    copies = [node for node in nodes if node.op is Op.COPY]
    if not copies and not any(_reorders(node) for node in nodes):
        return graph, {}, []
    orders, strides = _layouts(nodes)
    seen = set(graph.graph["outputs"]) | set(keep)
    chosen = _chosen(graph, orders, seen)
    # NOTE: a copy asked for (x.copy()) of a value numpy lays out so already is that value,
    # and so is a copy of a fill no one sees laid out (its order is read above)
    dropped = {
        node
        for node in copies
        if _laid_out(node, strides) or _needless_fill_copy(graph, node, strides, seen)
    }
    if not chosen and not dropped:
        return graph, {}, []
    new_of: dict[Node, Node] = {}
    log = []
    for node in nodes:
        srcs = tuple(new_of.get(s, s) for s in inputs_of(node))
        if node in dropped:
            new_of[node] = srcs[0]
            log.append(f"dropped a copy of a value laid out so already at {node.source or '?'}")
        elif node in chosen:
            reorder = _REORDERED.get(node.op, _reordered_reduction)
            new_of[node] = reorder(node, srcs, orders[node])
            log.append(
                f"computed {node.op.label} in numpy's memory order (axes {orders[node]}, "
                f"slowest first) at {node.source or '?'}"
            )
        elif srcs != inputs_of(node):
            new_of[node] = Node(node.op, srcs, node.shape, node.dtype, node.arg, node.source)
    outputs = [new_of.get(n, n) for n in graph.graph["outputs"]]
    return Dag(outputs), new_of, log


def _laid_out(copy: Node, strides: dict) -> bool:
    """Whether the value `copy` copies is laid out as the copy would be, numpy's value being
    contiguous in its order (strides in elements, or in bytes for a buffer)."""
    (src,) = inputs_of(copy)  # NOTE: a computed input is its buffer now (not copy.srcs[0])
    return _laid_out_in(src, strides[src], _copy_order(copy, src, strides) or ())


def _needless_fill_copy(graph: Dag, copy: Node, strides: dict, seen: set) -> bool:
    """Whether `copy` lays a fill out (creation.in_c_order's C copy, a *_like function's in
    its prototype's order) where no one sees its memory: a fill reads the same in every order
    and a sum of it adds as numpy's, so only a view of it (x.T of a C-ordered fill is
    F-ordered), or the copy itself asked for in another order than C, needs its memory."""
    (src,) = inputs_of(copy)
    fill = src.op is Op.COPY and inputs_of(src)[0].op is Op.FULL  # NOTE: a C fill's copy
    if not (fill or src.op is Op.FULL) or any(u.op.is_view for u in graph.successors(copy)):
        return False
    order = _copy_order(copy, src, strides)
    return order is None or order == tuple(range(len(src.shape))) or copy not in seen


def _copy_order(copy: Node, src: Node, strides: dict) -> tuple[int, ...] | None:
    """numpy's axis order of a copy in order `copy.arg` (None: C order, as a scheduler's copy):
    "K" keeps its input's, "A" is F where its input is F-contiguous."""
    order = copy.arg
    if type(order) is tuple:  # NOTE: an axis order (_numpy_twins' *_like: numpy's new array)
        return order
    if order == "K":
        return axis_order(src.shape, [strides[src]])
    reversed_ = tuple(reversed(range(len(src.shape))))
    if order == "F" or order == "A" and _laid_out_in(src, strides[src], reversed_):
        return reversed_
    return None


def _laid_out_in(node: Node, found: tuple, order: tuple[int, ...]) -> bool:
    compact = _strides_in(node.shape, order)
    return tuple(found) in (compact, tuple(s * node.dtype.itemsize for s in compact))


def _reorders(node: Node) -> bool:
    """Whether `node` may give a value another memory order than C's: a permute, a gather, or
    a buffer whose strides are not C's (an F-ordered or transposed array)."""
    if node.op is Op.PERMUTE or node.op is Op.GATHER:
        return True  # NOTE: numpy writes x[:, cols] with the index's dims slowest
    if node.op is not Op.BUFFER:
        return False
    return not _c_order(axis_order(node.shape, [base_strides(node)]), node.shape)


def numpy_strides(nodes) -> tuple:
    """The strides numpy's value of the last of `nodes` (a pending graph in post-order) would
    have: a buffer's own and views' of it in bytes, a computed value's and views' of it in
    elements (only their order and signs compare)."""
    return _layouts(nodes)[1][nodes[-1]]


def _layouts(nodes) -> tuple[dict[Node, tuple[int, ...]], dict[Node, tuple]]:
    """numpy's axis order (slowest first) of each value that is not laid out as C order would,
    and the strides of every value: numpy's values' (a buffer's own, a view's from its base's,
    a computed value's from its order)."""
    strides: dict[Node, tuple] = {}
    orders: dict[Node, tuple[int, ...]] = {}
    for node in nodes:
        srcs = inputs_of(node)
        order = _order_of(node, srcs, strides)
        if order is None:
            view = node.op.is_view  # NOTE: a copy is C-ordered
            strides[node] = _view_strides(node, srcs[0], strides) if view else base_strides(node)
            continue
        # NOTE: numpy casts inside its loop: a scalar or a broadcast vector cast has no say in
        # the order (an astype's own result is in its input's order anyway)
        cast = node.op is Op.ASTYPE
        strides[node] = strides[srcs[0]] if cast else _strides_in(node.shape, order)
        if not _c_order(order, node.shape):
            orders[node] = order
    return orders, strides


def _order_of(node: Node, srcs: tuple, strides: dict) -> tuple[int, ...] | None:
    """numpy's axis order of `node`'s value (None: not one numpy orders by its inputs)."""
    if node.op.is_elementwise and srcs and all(s.shape == node.shape for s in srcs):
        return axis_order(node.shape, [strides[s] for s in srcs])
    if node.op in (Op.CONCAT, Op.STACK):
        return _joined_order(node, srcs, [strides[s] for s in srcs])
    if node.op in _KEEPS_ORDER or node.op is Op.LINALG and _is_norm(node):
        return _reduced_order(node, srcs[0], strides[srcs[0]])
    if node.op is Op.LINALG and _is_diagonal(node):
        # NOTE: numpy's diagonal is a view: the leading axes' strides, then both last axes'
        # at once (a batch of diagonals of a C-ordered x is F-ordered: its sums add row to row)
        found = strides[srcs[0]]
        return axis_order(node.shape, [(*found[:-2], found[-2] + found[-1])])
    if node.op is Op.LINALG and _is_trace(node):
        return _trace_order(node, srcs[0], strides[srcs[0]])
    if node.op in _ALONG_AN_AXIS and dict(node.arg)["axis"] is not None:
        return axis_order(srcs[0].shape, [strides[srcs[0]]])
    if node.op is Op.GATHER:
        return _gathered_order(node, srcs, strides)
    if node.op is Op.TAKE_ALONG_AXIS:
        # NOTE: numpy's is x[ranges..., indices]: written in the indices' order (the ranges
        # over the other axes step along one axis each: no say)
        return axis_order(node.shape, [strides[srcs[1]]])
    if node.op is Op.COPY:
        return _copy_order(node, srcs[0], strides)
    if node.op in (Op.TRIL, Op.TRIU):
        # NOTE: numpy's triu is where(mask, 0, x) with a C-ordered (rows, cols) mask broadcast
        mask = (0,) * (len(node.shape) - 2) + (node.shape[-1], 1)
        return axis_order(node.shape, [strides[srcs[0]], mask])
    if node.op is Op.SETITEM and _is_update(node, srcs):
        # NOTE: numpy writes x[key] = v into x's memory: the result keeps x's order
        return axis_order(node.shape, [strides[srcs[0]]])
    return None


def _is_update(node: Node, srcs: tuple) -> bool:
    """Whether `node` is x[key] = v with v of the selection's shape and no new axis in the key
    (what numpy's scripts write: z[0] *= 2, z[idx] = v, z[:, cols] = 0)."""
    key = dict(node.arg)["key"]
    if not _entry_per_axis(key, node.shape):
        return False
    dims, sizes = _selection(node.shape, srcs[2:], key)
    return srcs[1].shape == tuple(sizes[d] for d in dims)


def _entry_per_axis(key: tuple, shape: tuple) -> bool:
    """Whether `key` has an int, a slice or an index array per axis (no new axis)."""
    return len(key) == len(shape) and all(entry[0] != "none" for entry in key)


def _selection(shape: tuple, indices: tuple, key: tuple) -> tuple[list, dict]:
    """The dims of the selection x[key], each named by where it comes from: ("s", axis) for a
    slice, ("b", k) for the k-th dim of the index arrays' broadcast block, placed where numpy's
    advanced indexing puts it (at its entries when they are next to each other, else first);
    and their sizes."""
    sliced = [axis for axis, entry in enumerate(key) if entry[0] == "slice"]
    sizes = {("s", a): len(range(shape[a])[slice(*key[a][1:])]) for a in sliced}
    dims = [("s", a) for a in sliced]
    arrays = [indices[entry[1]].shape for entry in key if entry[0] == "array"]
    if arrays:  # NOTE: with index arrays, ints are advanced indices too (0-d ones)
        block = np.broadcast_shapes(*arrays)
        sizes |= {("b", k): n for k, n in enumerate(block)}
        advanced = [a for a, entry in enumerate(key) if entry[0] != "slice"]
        together = advanced == list(range(advanced[0], advanced[-1] + 1))
        at = sum(a < advanced[0] for a in sliced) if together else 0
        dims[at:at] = [("b", k) for k in range(len(block))]
    return dims, sizes


def _gathered_order(node: Node, srcs: tuple, strides: dict) -> tuple[int, ...] | None:
    """numpy's axis order of x[key] with index arrays: the index arrays' dims slowest, then
    the sliced axes in x's memory order (numpy's subspace: x[:, cols] of a C-ordered x is
    F-ordered). None for a key with a new axis."""
    x, *indices = srcs
    key = dict(node.arg)["key"]
    if not _entry_per_axis(key, x.shape):
        return None
    dims = _selection(x.shape, tuple(indices), key)[0]
    blocks = [d for d in dims if d[0] == "b"]
    source = axis_order(x.shape, [strides[x]])
    numpys = blocks + [("s", a) for a in source if key[a][0] == "slice"]
    return tuple(dims.index(d) for d in numpys)


def _reordered_gather(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """The gather x[key] with its result in numpy's order: the gather of x with its indexed
    axes moved first and its sliced axes after them in x's memory order (the key alike), whose
    C-ordered result is numpy's memory, seen back through the inverse permute."""
    x, *indices = srcs
    key = dict(node.arg)["key"]
    dims = _selection(x.shape, tuple(indices), key)[0]
    sliced = [dims[i][1] for i in order if dims[i][0] == "s"]
    moves = (*(a for a in range(len(key)) if key[a][0] != "slice"), *sliced)
    moved = Node(Op.PERMUTE, (x,), tuple(x.shape[a] for a in moves), x.dtype, moves, node.source)
    arg = tuple((k, tuple(key[a] for a in moves) if k == "key" else v) for k, v in node.arg)
    shape = tuple(node.shape[a] for a in order)
    inner = Node(node.op, (moved, *indices), shape, node.dtype, arg, node.source)
    return _seen_back(inner, node, order)


def _reordered_update(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """The update x[key] = v with its result in axis `order`: the update of x permuted into it,
    with the key's entries and v's dims permuted alike, seen back through the inverse permute."""
    x, value, *indices = srcs
    if whole_update(node, srcs):
        # NOTE: x[...] = v is v (simplify drops the update): v computed in x's order, or
        # copied into it (a fill, z.fill(3): numpy writes it into z's memory)
        if value.op.is_elementwise:
            return _reordered(value, inputs_of(value), order)
        return _copied_into(node, srcs, order)
    key = dict(node.arg)["key"]
    moved_key = tuple(key[a] for a in order)
    shape = tuple(node.shape[a] for a in order)
    dims = _selection(node.shape, indices, key)[0]
    # NOTE: a slice's dim is named by its axis of x: renamed to its axis in the moved x
    moved_dims = [
        d if d[0] == "b" else ("s", order[d[1]]) for d in _selection(shape, indices, moved_key)[0]
    ]
    value_axes = tuple(dims.index(d) for d in moved_dims)
    moved = Node(Op.PERMUTE, (x,), shape, x.dtype, order, node.source)
    v = Node(Op.PERMUTE, (value,), tuple(value.shape[a] for a in value_axes), value.dtype,
             value_axes, node.source)  # fmt: skip
    arg = tuple((k, moved_key if k == "key" else v) for k, v in node.arg)
    update = Node(node.op, (moved, v, *indices), shape, node.dtype, arg, node.source)
    return _seen_back(update, node, order)


# Reductions whose result numpy writes in its input's memory order (its iterator's, over the
# kept axes): a ufunc's reduce, and mean, var, std built on add.reduce. (argmax and argmin
# index the logical order: left alone.)
_KEEPS_ORDER = frozenset(
    {Op.SUM, Op.PROD, Op.MEAN, Op.VAR, Op.STD, Op.MAX, Op.MIN, Op.ALL, Op.ANY, Op.COUNT_NONZERO}
    | {Op.NANMAX, Op.NANMIN}
)


# Ops along axes whose result numpy writes in its input's memory order: an accumulate
# (np.cumsum, np.cumprod), np.sort and np.partition (a copy in order "K", sorted in place) and
# np.roll with an axis (into empty_like; without one it rolls a C-ordered ravel)
_ALONG_AN_AXIS = frozenset({Op.CUMULATIVE_SUM, Op.CUMULATIVE_PROD, Op.SORT, Op.PARTITION, Op.ROLL})


def _reordered_along(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """The op along an axis `node` with its result in axis `order`: the same op of its inputs
    (take_along_axis's two) permuted into that order, along the axis where it moved, seen
    back."""
    moved = tuple(
        Node(Op.PERMUTE, (s,), tuple(s.shape[a] for a in order), s.dtype, order, node.source)
        for s in srcs
    )
    arg = tuple((k, _moved_axis(order, v) if k == "axis" else v) for k, v in node.arg)
    shape = tuple(node.shape[a] for a in order)
    return _seen_back(Node(node.op, moved, shape, node.dtype, arg, node.source), node, order)


def _moved_axis(order: tuple[int, ...], axis):
    """Where `axis` (an axis or a tuple of them: a roll's) is in the input permuted by `order`."""
    return order.index(axis) if isinstance(axis, int) else tuple(order.index(a) for a in axis)


def _is_norm(node: Node) -> bool:
    """A vector norm over axes: numpy's is a sum (or max) of |x| ** ord over them."""
    arg = dict(node.arg)
    return arg.get("_function") == "vector_norm" and arg.get("axis") is not None


def _is_diagonal(node: Node) -> bool:
    """A diagonal (np.diagonal, np.trace's): numpy's is a view of its input."""
    return _function(node) == "diagonal"


def _is_trace(node: Node) -> bool:
    return _function(node) == "trace"


def _function(node: Node) -> str | None:
    """The library function a LINALG node calls."""
    return dict(node.arg).get("_function")


def _trace_order(node: Node, src: Node, found: tuple) -> tuple[int, ...]:
    """numpy's trace sums its diagonal (a view, as above) over the diagonal's axis: its result
    is in the order of the diagonal's leading axes (a batch of traces of a C-ordered x is
    F-ordered)."""
    length = diagonal_length(*src.shape[-2:], dict(node.arg)["offset"])
    order = axis_order((*node.shape, length), [(*found[:-2], found[-2] + found[-1])])
    return tuple(a for a in order if a != len(node.shape))


def _reduced_order(node: Node, src: Node, strides: tuple) -> tuple[int, ...]:
    """numpy's axis order of the reduction `node`'s result: its input's, over the kept axes
    (renumbered where they are dropped)."""
    order = axis_order(src.shape, [strides])
    axes, keepdims = _reduced_axes(node)
    if keepdims:
        return order
    kept = [a for a in range(len(src.shape)) if a not in axes]
    return tuple(kept.index(a) for a in order if a not in axes)


def _joined_order(node: Node, srcs, strides: list[tuple]) -> tuple[int, ...]:
    """numpy's axis order of a concatenate's result (a stack's: of its inputs with the new
    axis, length 1, inserted): its stride permutation common to the inputs (shape.c,
    PyArray_CreateMultiSortedStridePerm: the iterator's rules, sorted from the slowest axis)."""
    shapes = [s.shape for s in srcs]
    if node.op is Op.STACK:
        new = dict(node.arg)["axis"]
        shapes = [(*shape[:new], 1, *shape[new:]) for shape in shapes]
        strides = [(*st[:new], 0, *st[new:]) for st in strides]

    def slower(axis: int, other: int) -> bool | None:
        steps = [(_step(sh, st, axis), _step(sh, st, other)) for sh, st in zip(shapes, strides)]
        known = [(a, b) for a, b in steps if a is not None and b is not None]
        return None if not known else not any(a <= b for a, b in known)

    return _insertion_sorted(list(range(len(node.shape))), slower)


def _step(shape: tuple, strides: tuple, axis: int) -> int | None:
    """An input's stride along `axis` by size, None where its length is 1 (it has no say)."""
    return None if shape[axis] == 1 else abs(strides[axis])


def _reordered_join(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """The concatenate (stack) `node` of `srcs` with its result in axis `order`: the same join
    of the inputs permuted into that order, seen back through the inverse permute."""
    axis = dict(node.arg)["axis"]
    moved_axes = order
    if node.op is Op.STACK:  # NOTE: the inputs lack the new axis: the order without it
        moved_axes = tuple(a - (a > axis) for a in order if a != axis)
    moved = tuple(
        Node(Op.PERMUTE, (s,), tuple(s.shape[a] for a in moved_axes), s.dtype, moved_axes,
             node.source)
        for s in srcs
    )  # fmt: skip
    arg = tuple((k, order.index(axis) if k == "axis" else v) for k, v in node.arg)
    shape = tuple(node.shape[a] for a in order)
    return _seen_back(Node(node.op, moved, shape, node.dtype, arg, node.source), node, order)


def _reduced_axes(node: Node) -> tuple[tuple[int, ...], bool]:
    arg = dict(node.arg)
    return arg["axis"], arg["keepdims"]


def _view_strides(node: Node, src: Node, strides: dict) -> tuple:
    """numpy's strides of the movement `node` over `src` (its view rules on a stand-in with
    `src`'s strides; C's where the view must copy, as numpy's reshape does)."""
    view = apply_movement(node, stand_in(src.shape, strides[src]))
    return tuple(view.strides) if view is not None else _strides_in(node.shape, ())


def _chosen(graph: Dag, orders: dict, seen: set) -> set[Node]:
    """The nodes to compute in numpy's order: those out of C order that are `seen` (asked for,
    kept) or read by a node that sees their order (_seen_by), and those feeding a chosen node
    in the same order (their permutes then cancel and the chain stays one kernel). Consumers
    first: a reverse walk of the order."""
    chosen: set[Node] = set()
    for node in reversed(graph.graph["order"]):
        order = orders.get(node)
        if order is None:
            continue
        users = list(graph.successors(node))
        if node in seen or any(_seen_by(user) for user in users):
            chosen.add(node)
        elif any(user in chosen and orders[user] == order for user in users):
            chosen.add(node)
    return chosen


def _seen_by(user: Node) -> bool:
    """Whether `user` sees its input's memory order: all but an elementwise op (which reads
    values, in whatever order) do: a reduction adds in it, a view keeps it."""
    return not user.op.is_elementwise


def _reordered(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """`node` over `srcs` computed in axis `order`: the op over the operands permuted into it
    (a C-ordered value), seen back through the inverse permute."""
    shape = tuple(node.shape[a] for a in order)
    moved = tuple(Node(Op.PERMUTE, (s,), shape, s.dtype, order, node.source) for s in srcs)
    return _seen_back(Node(node.op, moved, shape, node.dtype, node.arg, node.source), node, order)


def _copied_into(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """`node` over `srcs` computed as it is (C-ordered: an op whose axes mean something, as
    triu's last two), then copied into axis `order` and seen back."""
    inner = Node(node.op, srcs, node.shape, node.dtype, node.arg, node.source)
    shape = tuple(node.shape[a] for a in order)
    moved = Node(Op.PERMUTE, (inner,), shape, node.dtype, order, node.source)
    copy = Node(Op.COPY, (moved,), shape, node.dtype, None, node.source)
    return _seen_back(copy, node, order)


def _reordered_copy(copy: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """A copy in another order (x.copy(order="F")): a C-ordered copy (the scheduler's) of its
    input permuted into that order, seen back."""
    c_ordered = Node(Op.COPY, srcs, copy.shape, copy.dtype, None, copy.source)
    return _reordered(c_ordered, srcs, order)


def _seen_back(inner: Node, node: Node, order: tuple[int, ...]) -> Node:
    """`inner`, `node`'s value computed in axis `order`, through the inverse permute."""
    back = tuple(sorted(range(len(order)), key=order.__getitem__))
    return Node(Op.PERMUTE, (inner,), node.shape, node.dtype, back, node.source)


def _reordered_linalg(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """A diagonal computed as it is, then copied into numpy's order; a trace of its input's
    matrices in that order; a norm as a reduction."""
    if _is_diagonal(node):
        return _copied_into(node, srcs, order)
    if _is_trace(node):
        (x,) = srcs  # NOTE: the traces of x's matrices taken in that order
        full = (*order, len(order), len(order) + 1)
        moved = Node(Op.PERMUTE, (x,), tuple(x.shape[a] for a in full), x.dtype, full, node.source)
        shape = tuple(node.shape[a] for a in order)
        inner = Node(node.op, (moved,), shape, node.dtype, node.arg, node.source)
        return _seen_back(inner, node, order)
    return _reordered_reduction(node, srcs, order)


def _reordered_reduction(node: Node, srcs: tuple, order: tuple[int, ...]) -> Node:
    """The reduction `node` of `srcs[0]` with its result in axis `order`: the same reduction
    of its input with the kept axes permuted into that order (the reduced ones last: numpy
    adds in the input's memory order whatever the axes' numbering), seen back through the
    inverse permute."""
    (x,) = srcs
    axes, keepdims = _reduced_axes(node)
    if keepdims:
        full, reduced = order, tuple(order.index(a) for a in axes)
    else:
        kept = [a for a in range(len(x.shape)) if a not in axes]
        full = (*(kept[i] for i in order), *axes)
        reduced = tuple(range(len(kept), len(full)))
    moved = Node(Op.PERMUTE, (x,), tuple(x.shape[a] for a in full), x.dtype, full, node.source)
    arg = tuple((k, reduced if k == "axis" else v) for k, v in node.arg)
    shape = tuple(node.shape[a] for a in order)
    return _seen_back(Node(node.op, (moved,), shape, node.dtype, arg, node.source), node, order)


def axis_order(shape: tuple, operands: list[tuple]) -> tuple[int, ...]:
    """numpy's iterator's best axis ordering (nditer_constr.c, find_bestaxis_ordering), axes
    slowest first: sorted from the fastest axis on, an axis moving faster than another when
    some operand steps less along it and none steps more (strides compared by size; length-1
    axes and broadcast operands, stride 0, have no say; where operands disagree C order wins)."""
    ndim = len(shape)
    steps = [[0 if shape[axis] == 1 else abs(s[axis]) for s in operands] for axis in range(ndim)]

    def faster(axis: int, other: int) -> bool | None:
        return _faster(steps[axis], steps[other])

    return tuple(reversed(_insertion_sorted(list(range(ndim - 1, -1, -1)), faster)))


def _insertion_sorted(axes: list[int], before) -> tuple[int, ...]:
    """numpy's stable insertion sort of `axes`: each axis moves ahead of the earlier ones that
    `before(axis, other)` says it goes before, past those it cannot tell apart (None), and
    stops at the first it does not go before."""
    for i in range(1, len(axes)):
        axis, place = axes[i], i
        for j in range(i - 1, -1, -1):
            vote = before(axis, axes[j])
            if vote is None:
                continue  # NOTE: no operand tells these two apart: look further
            if not vote:
                break
            place = j
        axes.insert(place, axes.pop(i))
    return tuple(axes)


def _faster(steps: list[int], other: list[int]) -> bool | None:
    """Whether an axis stepping `steps` (per operand) goes faster than one stepping `other`:
    None where no operand steps along both, False where any operand steps no less along
    `other` (C order wins ties and disagreements)."""
    vote = None
    for mine, theirs in zip(steps, other):
        if mine and theirs:
            if theirs <= mine:
                return False
            vote = True
    return vote


def _c_order(order: tuple[int, ...], shape: tuple) -> bool:
    """Whether axis `order` lays out `shape` as C order does (length-1 axes go anywhere)."""
    longer = [a for a in order if shape[a] > 1]
    return longer == sorted(longer)


def _strides_in(shape: tuple, order: tuple[int, ...]) -> tuple[int, ...]:
    """The strides (in elements) of a contiguous array of `shape` laid out in axis `order`
    (slowest first; () for C order)."""
    order = order or tuple(range(len(shape)))
    strides, step = [0] * len(shape), 1
    for axis in reversed(order):
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


# How a node is computed in numpy's order, by op (a reduction's otherwise)
_REORDERED = {op: _reordered for op in Op if op.is_elementwise}
_REORDERED |= {Op.CONCAT: _reordered_join, Op.STACK: _reordered_join}
_REORDERED[Op.SETITEM] = _reordered_update
_REORDERED[Op.GATHER] = _reordered_gather
_REORDERED[Op.TAKE_ALONG_AXIS] = _reordered_along
_REORDERED[Op.COPY] = _reordered_copy
_REORDERED |= {Op.TRIL: _copied_into, Op.TRIU: _copied_into, Op.LINALG: _reordered_linalg}
_REORDERED |= {op: _reordered_along for op in _ALONG_AN_AXIS}
