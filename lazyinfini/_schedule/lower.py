"""Lowering: fused groups and views -> kernel records, in an order that respects dependencies.

Walks the graph in topological order. Fills and buffers need no kernel; movement nodes become
loads (strided views) of whatever they view; an elementwise group is emitted at its sink, the one
node it writes; a view that cannot be a view (a reshape of non-contiguous data) or a requested
output that is not contiguous gets a REARRANGE kernel copying it into a fresh buffer. A group
ending in a sum is a REDUCE kernel: its Reduction holds the prologue (an elementwise kernel over
(rows, row length)) and the sum's own kernel.
"""

from __future__ import annotations

import dataclasses
import heapq
import math

from .._graph import Dag, Group, Node, Op, inputs_of
from .._graph.views import apply_movement, c_strides
from .coalesce import coalesce
from .fuse import group_outputs, is_reduction
from .kernels import Kernel, Kind, Reduction
from .layout import Load, phantom, view_load, whole_load
from .linearize import linearize
from .rearrange import copy_method, plan_rearrange
from .target import Target

_BASES = (Op.BUFFER, Op.FULL)


class Lowering:
    """The kernels emitted so far and, for each materialized node, the node holding its value."""

    def __init__(self, graph: Dag, groups, requested: list[Node], target: Target, kept=()):
        self.graph = graph
        self.target = target
        self.kernels: list[Kernel] = []
        self.notes: list[str] = []  # decisions of this pass, for explain()
        self.shared: set[Node] = set()  # opaque nodes already emitted with a sibling
        self.calls: dict[tuple, list[Node]] | None = None  # library call -> nodes taking items
        self.copies: dict[Node, Node] = {}  # view node -> COPY node holding it contiguous
        self.requested = set(requested)
        self.last_of = {group[-1]: group for group in groups}  # emitted at its last node
        # NOTE: plain fused groups also write the small values live arrays hold (KEEP_WRITTEN
        # _BYTES); a group ending in a sum writes its sum alone
        self.kept = frozenset(kept)
        self.written = {n for g in groups for n in group_outputs(graph, g, self._asked(g))}

    def run(self, outputs: list[Node]) -> list[Node]:
        """Emit every kernel; returns the node holding each output's value."""
        for node in self.graph.graph["order"]:
            if node.op.group is Group.SOURCE and node.op not in _BASES:
                self._emit(Kind.SOURCE, (node,), (node,), ())
            elif node in self.last_of and is_reduction(self.last_of[node]):
                self._reduction(self.last_of[node])
            elif node in self.last_of:
                self._elementwise(self.last_of[node])
            elif node.op.group in (Group.REDUCE, Group.OPAQUE) and node not in self.shared:
                siblings = self._call_siblings(node)
                # NOTE: a library call reads its inputs as laid out: numpy's sums add in it
                loads = [self.readable(src, laid_out=True) for src in inputs_of(node)]
                self._emit(Kind.OPAQUE, siblings, siblings, loads)
            elif node.op is Op.COPY and not self.readable(node).contiguous:
                self._copy(node)  # NOTE: a C-ordered copy asked for (x.copy()): a sum adds in it
        held = [self._output(node) for node in outputs]
        self.kernels = order_kernels(self.kernels)
        return held

    def _emit(self, kind, nodes, outputs, loads, **record) -> None:
        kernel = Kernel(kind, tuple(nodes), tuple(outputs), tuple(loads), **record)
        if kind is Kind.ELEMENTWISE and self._streams(kernel):
            kernel = dataclasses.replace(kernel, streams=True)
        self.kernels.append(kernel)

    def _streams(self, kernel: Kernel) -> bool:
        """Whether an elementwise kernel writes its outputs past the caches: it moves at least
        the target's `stream_min_bytes` (read and written)."""
        least = self.target.stream_min_bytes
        return least is not None and kernel.bytes_read + kernel.bytes_written >= least

    def _call_siblings(self, node: Node) -> tuple[Node, ...]:
        """`node` and the pending nodes taking other items of the same library call."""
        if not any(k == "_index" for k, _ in (node.arg or ())):
            return (node,)
        if self.calls is None:  # NOTE: built once: a scan per node would be quadratic
            self.calls = {}
            for n in self.graph.graph["order"]:
                if n.op.group is Group.OPAQUE and any(k == "_index" for k, _ in (n.arg or ())):
                    self.calls.setdefault(_call_key(n), []).append(n)
        siblings = tuple(self.calls[_call_key(node)])
        self.shared.update(siblings)
        return siblings

    def _elementwise(self, group: list[Node]) -> None:
        loads = self._group_loads(group)
        outputs = group_outputs(self.graph, group, self._asked(group))
        shape = outputs[0].shape
        strides = [c_strides(shape, out.dtype.itemsize) for out in outputs]
        strides += [load.strides for load in loads.values()]
        itemsizes = [out.dtype.itemsize for out in outputs]
        itemsizes += [load.node.dtype.itemsize for load in loads.values()]
        space, _ = coalesce(shape, *_in_elements(strides, itemsizes))
        program = linearize(group, tuple(ld.node for ld in loads.values()), outputs)
        self._emit(
            Kind.ELEMENTWISE, group, outputs, loads.values(), space=tuple(space), program=program
        )

    def _asked(self, group: list[Node]) -> set[Node]:
        """The members of `group` it must write besides those read elsewhere."""
        return self.requested if is_reduction(group) else self.requested | self.kept

    def _group_loads(self, group: list[Node]) -> dict[Node, Load]:
        """Each value a group reads from outside it -> its load."""
        inside = set(group)
        loads = {}
        for node in group:
            for src in inputs_of(node):
                if src not in inside and src not in loads:
                    loads[src] = self._untransposed(self.readable(src))
        return loads

    def _reduction(self, group: list[Node]) -> None:
        """A REDUCE kernel: the prologue computes the summed value over (kept dims..., row
        length), the sum's last axes flattened into one row, as numpy's reduction walks a
        contiguous value (the kept dims stay apart: a broadcast load keeps its strides)."""
        *members, total = group
        (summed,) = inputs_of(total)
        loads = self._group_loads(members)
        cut = len(summed.shape) - len(dict(total.arg)["axis"])
        space = (*summed.shape[:cut], math.prod(summed.shape[cut:]))
        program = linearize(members, tuple(ld.node for ld in loads.values()), [summed])
        loaded = tuple(loads.values())
        prologue = Kernel(
            Kind.ELEMENTWISE, tuple(members), (summed,), loaded, space=space, program=program
        )
        parts = Reduction(prologue, Kernel(Kind.OPAQUE, (total,), (total,), (whole_load(summed),)))
        self._emit(Kind.REDUCE, group, (total,), loads.values(), plan=parts)

    def load(self, node: Node, laid_out: bool = False) -> Load | None:
        """How a kernel reads `node` given the copies made so far: a view of a materialized
        base (a pure query); None where numpy cannot view it (a reshape that must copy).
        `laid_out`: the reader sees the layout (a library call's sum adds in it)."""
        base, chain = self._chain(node)
        if base.op is Op.COPY and (chain or laid_out) and base.srcs[0].op is Op.BUFFER:
            # NOTE: a buffer copied for another reader: this one reads the buffer itself where
            # it reads it in rows (a transposed input's permute back, orders.py), or where its
            # layout matters (a copy made for a ravel is C-ordered, numpy's buffer is not)
            own = view_load(node, base.srcs[0], chain)
            if own is not None and (laid_out or not own.across_rows):
                return own
        elif base.op is Op.COPY and laid_out and base.srcs[0].op.is_view:
            # NOTE: likewise a view of a computed value copied for another reader (a ravel's
            # C copy of an F-ordered x + x): a sum adds in the value's own layout, as numpy's
            copied = base.srcs[0]
            root, below = self._chain(copied.srcs[0])
            own = view_load(node, root, (*below, copied, *chain))
            if own is not None:
                return own
        return view_load(node, base, chain)

    def _chain(self, node: Node) -> tuple[Node, tuple[Node, ...]]:
        """The materialized base `node` views (a copy of it where one was made) and the
        movements on the way, in order."""
        chain: list[Node] = []
        base = node
        while base.op.is_movement and base not in self.copies:
            if base.op is not Op.COPY:  # NOTE: a copy asked for, not made: its input C-ordered
                chain.append(base)
            (base,) = inputs_of(base)
        return self.copies.get(base, base), tuple(reversed(chain))

    def readable(self, node: Node, laid_out: bool = False) -> Load:
        """`node`'s load once the views on its way that numpy cannot express as strides are
        copied: each such copy (the longest viewable prefix of the chain, copied C-contiguous
        by a rearrange) makes the rest of the chain a view again."""
        load = self.load(node, laid_out)
        while load is None:
            self._copy(self._first_copy(node))
            load = self.load(node, laid_out)
        return load

    def _first_copy(self, node: Node) -> Node:
        """The node to copy so that the first step numpy cannot view reads a copy."""
        base, chain = self._chain(node)
        split = _first_copying_step(base, chain)
        return chain[split - 1] if split else base

    def _untransposed(self, load: Load) -> Load:
        """A large load read across the output's rows (a permuted input) is copied first by a
        rearrange when the target asks (Target.transposed_copy_min says why)."""
        least = self.target.transposed_copy_min
        if least is None or load.node.size < least or not load.across_rows:
            return load
        inner = self.target.tiled_read_min_inner
        if inner is not None and load.shape and load.shape[-1] >= inner:
            return load  # the kernel reads it itself, in tiles
        self.notes.append(
            f"copied the transposed load {load.node.op.label} at {load.node.source or '?'} "
            "with a rearrange first (strided reads across rows are slower)"
        )
        self._copy(load.node)
        return self.load(load.node)

    def _copy(self, view: Node, source: Load | None = None) -> Node:
        """A REARRANGE kernel writing `view` (a node numpy views: the caller makes sure) into
        a fresh C-contiguous buffer (a COPY node) that later loads read instead. `source`: the
        load to copy from where the caller has one (an output's readable load, which may read
        its own layout where the plain load cannot view it)."""
        source = self.load(view) if source is None else source
        assert source is not None, view
        copy = Node(Op.COPY, (view,), view.shape, view.dtype, None, view.source)
        itemsize = view.dtype.itemsize
        dst = c_strides(view.shape, itemsize)
        plan = plan_rearrange(
            view.shape,
            tuple(s // itemsize for s in source.strides),
            tuple(s // itemsize for s in dst),
            itemsize,
            src_offset=source.offset + _misalignment(source.base),
            block_bytes=self.target.block_bytes,
            set_ways=self.target.tile_set_ways,
            min_inner=self.target.tile_min_inner,
            line_tiles=self.target.tile_lines,
        )
        method = copy_method(plan, view.shape, source.strides, dst, self.target)
        self._emit(Kind.REARRANGE, (copy,), (copy,), (source,), plan=plan, method=method)
        self.copies[view] = copy
        return copy

    def _output(self, node: Node) -> Node:
        """The node whose value answers requested `node`: itself, a view, or a copy."""
        if node.op is not Op.FULL and not node.op.is_movement:
            return node  # a buffer, or an output of a kernel
        # NOTE: numpy's layout of it, where another reader had it copied (a ravel's C copy)
        load = self.readable(node, laid_out=self.target.numpy_orders)
        transposed = self.target.numpy_orders and (_transposed(load) or _unmoved(load))
        if load.contiguous and node.op is not Op.FULL or node.size <= 1 or transposed:
            self._emit(Kind.VIEW, (node,), (node,), (load,))
            return node
        # NOTE: from that load: a reshape of a broadcast of a copied output (li.compute(v,
        # reshape(broadcast_to(v, s), -1))) is viewable only from the copy's own source
        return self._copy(node, load)


def _transposed(load) -> bool:
    """Whether requested `load` is a numpy view whose strides numpy's value has: a permute of
    a value this schedule computes (numpy's transpose of a result is a view of it, and the
    value is the view's alone), or slices and flips of any value (x[:, 1:3],
    x[::-1] of an ndarray: numpy's views, whose strides are what a later sum adds in,
    orders.py). A buffer's permute is the rearrange the user asked for. (A device that does
    not sum in numpy's order copies it into C order, as it always did.)"""
    if not load.chain or load.base.op is Op.FULL or 0 in load.strides:
        return False  # NOTE: a materialized broadcast is contiguous (every element its own)
    permuted = any(step.op is Op.PERMUTE for step in load.chain)
    return not permuted or load.base.op is not Op.BUFFER


def _unmoved(load) -> bool:
    """Whether requested `load` is a buffer seen through permutes that undo each other: the
    orders pass's value computed in a buffer's own order (z[...] = v of a v numpy lays out as
    the buffer is: its permute, a copy the buffer's layout makes needless, the permute back),
    numpy's value being that buffer as laid out (its view, not a C-ordered copy)."""
    if load.base.op is not Op.BUFFER or not load.chain:
        return False
    axes = tuple(range(len(load.base.shape)))
    for step in load.chain:
        if step.op is not Op.PERMUTE:
            return False
        axes = tuple(axes[a] for a in step.arg)
    return axes == tuple(range(len(axes)))


def order_kernels(kernels: list[Kernel]) -> list[Kernel]:
    """Kernels in dependency order, otherwise as emitted. A merged sibling group is emitted at
    its last node, which can come after a consumer of its first output: this puts it first."""
    producer = {out: i for i, k in enumerate(kernels) for out in k.outputs}
    needs = [{producer[r] for r in k.reads if r in producer} - {i} for i, k in enumerate(kernels)]
    users: dict[int, list[int]] = {}
    for i, deps in enumerate(needs):
        for d in deps:
            users.setdefault(d, []).append(i)
    ready = [i for i, deps in enumerate(needs) if not deps]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(kernels[i])
        for user in users.get(i, ()):
            needs[user].discard(i)
            if not needs[user]:
                heapq.heappush(ready, user)
    if len(order) != len(kernels):  # NOTE: not an assert: `python -O` would run a wrong order
        raise RuntimeError("lazyinfini: internal error: kernel dependencies form a cycle")
    return order


def _call_key(node: Node) -> tuple:
    """Opaque nodes with equal keys take items of one library call (eigh's values, vectors)."""
    arg = tuple(kv for kv in node.arg if kv[0] != "_index")
    return (node.op, tuple(id(s) for s in inputs_of(node)), arg)


def _misalignment(base: Node) -> int:
    """Bytes past a 64-byte boundary at which a buffer starts (fresh buffers are aligned)."""
    return base.layout.misalignment if base.op is Op.BUFFER else 0


def _first_copying_step(base: Node, chain: list[Node]) -> int:
    """Index in `chain` of the first movement numpy cannot do as a view."""
    view = phantom(base)
    for i, step in enumerate(chain):
        view = apply_movement(step, view)
        if view is None:
            return i
    raise AssertionError("every step was a view")


def _in_elements(strides, itemsizes):
    # NOTE: coalescing compares strides between dims of one operand, so each operand may use
    # its own unit; element strides keep half floats and their float32 outputs comparable.
    return [tuple(s // size for s in st) for st, size in zip(strides, itemsizes)]
