"""Fusion: group elementwise nodes into kernels, and say why each edge fused or not.

A producer joins its consumers' kernel when every consumer is an elementwise node of that one
kernel (a requested one too: the kernel writes it as one more output, unless the kernel ends in a
sum, which writes the sum alone). Movement nodes and fills feeding a kernel are
strided loads, not separate kernels. Where the target asks (`reduce_prologues`), an elementwise
node whose one consumer is a float sum (or mean) over the last axes starts a group ending in that
reduction: the group's last node is then the sum (a REDUCE kernel).
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._graph import Dag, Node, Op, inputs_of
from .kernels import FusionDecision
from .layout import view_load

_SUMMED = frozenset(
    {*(np.dtype(t) for t in (np.float16, np.float32, np.float64)), _dtypes.bfloat16}
)
PROLOGUE = "the reduction's rows are its last axes, summed in numpy's pairwise order in one pass"
# numpy's mean is its sum divided by the count (in float64 for float32: numpy divides by an intp)
REDUCTIONS = frozenset({Op.SUM, Op.MEAN})


def fuse(
    graph: Dag,
    outputs: list[Node],
    enabled: bool = True,
    reductions: bool = False,
    transposed_min: int | None = None,
) -> tuple[list[list[Node]], list[FusionDecision]]:
    """Groups of elementwise nodes (each in topological order; a group feeding a sum, where
    `reductions`, ends with the sum unless it reads a load of `transposed_min` elements or more
    across its rows) and the decision log."""
    order = graph.graph["order"]
    requested = set(outputs)
    group_of: dict[Node, int] = {}
    groups: list[list[Node]] = []
    decisions: list[FusionDecision] = []
    for node in reversed(order):
        if not node.op.is_elementwise:
            continue
        consumers = list(graph.successors(node))
        if enabled and reductions and node not in requested and _one_sum(consumers):
            reason = _not_prologue(node, consumers[0])
            if reason is None:
                group_of[node] = group_of[consumers[0]] = len(groups)
                groups.append([consumers[0], node])
                decisions.append(FusionDecision(node, consumers[0], True, PROLOGUE))
                continue
        else:
            reason = _reason_to_split(node, consumers, groups, group_of, requested, enabled)
        if reason is None:
            index = group_of[consumers[0]]
            verdict = "every consumer is in this elementwise kernel"
        else:
            index = len(groups)
            groups.append([])
            verdict = reason
        groups[index].append(node)
        group_of[node] = index
        decisions.extend(FusionDecision(node, c, reason is None, verdict) for c in consumers)
    for group in groups:
        group.reverse()
    decisions.reverse()
    if transposed_min is not None:
        _split_transposed(graph, groups, decisions, transposed_min)
    if enabled:
        groups = merge_siblings(graph, groups, decisions, requested)
    return groups, decisions


def merge_siblings(graph: Dag, groups, decisions, requested: set) -> list[list[Node]]:
    """Merge kernels of one shape that read a common input, so `li.compute(y1, y2)` reads the
    shared input once, in one pass writing both outputs.

    Only kernels at the same depth merge. The depth of a kernel is one more than the deepest
    kernel it reads from (views and fills add nothing), so every dependency between kernels goes
    from a smaller depth to a larger one: two kernels of one depth never depend on each other,
    directly or through other kernels, and a merged kernel keeps the rule (its inputs are
    shallower, its readers deeper). So merging never makes a cycle, however many merges came
    before, and the cost is near-linear in the graph (a union-find, no pairwise path checks).
    """
    order = graph.graph["order"]
    depth = kernel_depths(graph, order, groups)
    sink = [group[-1] for group in groups]  # NOTE: a group's only output before merging
    parent = list(range(len(groups)))
    for indices in _readers(graph, groups).values():
        first: dict[tuple, int] = {}
        for i in (i for i in indices if not is_reduction(groups[i])):
            key = (depth[sink[i]], sink[i].shape)
            if key not in first:
                first[key] = i
            elif _union(parent, first[key], i):
                reason = "siblings: same shape, a shared input, one pass writes both"
                decisions.append(FusionDecision(sink[first[key]], sink[i], True, reason))
        _log_depth_splits(first, sink, decisions)
    return _components(parent, groups, order)


def kernel_depths(graph: Dag, order: list[Node], groups) -> dict[Node, int]:
    """For each node, the depth of the kernel computing it (buffers, fills and the views of
    them are 0; a view has its input's depth; members of one group share the sink's depth)."""
    group_of = {n: i for i, group in enumerate(groups) for n in group}
    depth: dict[Node, int] = {}
    for node in order:
        inputs = list(graph.predecessors(node))
        if node.op in (Op.BUFFER, Op.FULL) or node.op.is_movement:
            depth[node] = max((depth[p] for p in inputs), default=0)
            continue
        own = group_of.get(node)
        inside = [p for p in inputs if own is not None and group_of.get(p) == own]
        outside = [p for p in inputs if p not in inside]
        depth[node] = max([depth[p] + 1 for p in outside] + [depth[p] for p in inside] + [1])
    for group in groups:  # NOTE: the sink is last and reached from every member
        for node in group:
            depth[node] = depth[group[-1]]
    return depth


def _readers(graph: Dag, groups) -> dict[Node, list[int]]:
    """Each value read from outside a group -> the groups reading it, in group order."""
    readers: dict[Node, list[int]] = {}
    for index, group in enumerate(groups):
        inside = set(group)
        for src in dict.fromkeys(s for n in group for s in graph.predecessors(n)):
            if src not in inside:
                readers.setdefault(src, []).append(index)
    return readers


def _log_depth_splits(first: dict, sink: list, decisions: list) -> None:
    """Say why siblings of one shape that share an input stayed apart."""
    by_shape: dict[tuple, int] = {}
    for (_, shape), i in first.items():
        if shape in by_shape:
            reason = "siblings at different kernel depths: one pass could wait on itself"
            decisions.append(FusionDecision(sink[by_shape[shape]], sink[i], False, reason))
        else:
            by_shape[shape] = i


def _union(parent: list[int], a: int, b: int) -> bool:
    """Join the sets of a and b (the smaller index leads); False if already one set."""
    a, b = _find(parent, a), _find(parent, b)
    if a == b:
        return False
    parent[max(a, b)] = min(a, b)
    return True


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _components(parent: list[int], groups, order: list[Node]) -> list[list[Node]]:
    """The merged groups, each in topological order, in the order of their leading group."""
    merged: dict[int, list[Node]] = {}
    for i, group in enumerate(groups):
        merged.setdefault(_find(parent, i), []).extend(group)
    position = {node: i for i, node in enumerate(order)}
    return [
        members if len(members) == len(groups[lead]) else sorted(members, key=position.get)
        for lead, members in merged.items()
    ]


def _one_sum(consumers: list[Node]) -> bool:
    return len(consumers) == 1 and consumers[0].op in REDUCTIONS


def _not_prologue(node: Node, total: Node) -> str | None:
    """Why `node` does not join the sum or mean `total` it feeds (None: it does). It joins one
    in its own float dtype (half floats accumulating in float32) over its last axes: rows numpy
    sums pairwise as one run (numpy merges contiguous trailing axes), so the bits stay numpy's."""
    arg = dict(total.arg)
    axes, ndim = arg["axis"], len(node.shape)
    name = total.op.label
    if node.dtype not in _SUMMED or total.dtype != node.dtype:
        return f"a {name} of {node.dtype.name} into {total.dtype.name} is not summed pairwise in C"
    if total.op is Op.SUM and arg.get("dtype") != _dtypes.compute_dtype(node.dtype):
        return f"it accumulates in {arg.get('dtype')}"
    if not axes or axes != tuple(range(ndim - len(axes), ndim)):
        return f"axes {axes} are not the last axes of {ndim}: numpy sums them in another order"
    return None


def _split_transposed(graph: Dag, groups, decisions: list, least: int) -> None:
    """Keep a sum apart from a prologue that reads a large load across its rows: the REDUCE
    kernel reads rows one by one, where an elementwise kernel reads such a load in tiles
    (sum(aT * 2, axis=1) of 4096^2 float32: 180 ms fused, 41 apart; 56 with a copy first)."""
    for group in groups:
        if not is_reduction(group):
            continue
        inside = set(group)
        reads = {s for n in group[:-1] for s in graph.predecessors(n) if s not in inside}
        if any(_read_across_rows(src, least) for src in reads):
            total = group.pop()
            (summed,) = inputs_of(total)
            i = next(i for i, d in enumerate(decisions) if d.consumer is total)
            reason = "its prologue reads a load across rows, which an elementwise kernel tiles"
            decisions[i] = FusionDecision(summed, total, False, reason)


def _read_across_rows(node: Node, least: int) -> bool:
    """Whether `node`, a view of a materialized value, has `least` elements or more and is
    read across its rows (its chain is strides: a chain that must copy reads a copy)."""
    chain, base = [], node
    while base.op.is_view:  # NOTE: a copy is C-ordered memory
        chain.append(base)
        (base,) = inputs_of(base)
    load = view_load(node, base, tuple(reversed(chain)))
    return load is not None and node.size >= least and load.across_rows


def is_reduction(group: list[Node]) -> bool:
    """Whether a group ends with the sum or mean it feeds (a REDUCE kernel)."""
    return group[-1].op in REDUCTIONS


def group_outputs(graph: Dag, group: list[Node], requested: set) -> list[Node]:
    """The members a kernel writes out: requested ones and those read outside the kernel."""
    inside = set(group)
    return [n for n in group if n in requested or any(c not in inside for c in graph.successors(n))]


def _reason_to_split(
    node: Node, consumers: list[Node], groups: list, group_of: dict, requested: set, enabled: bool
) -> str | None:
    if not consumers:
        return "output requested"
    if not enabled:
        return "fusion is off (li.options(fuse=False))"
    for consumer in consumers:
        if not consumer.op.is_elementwise:
            if consumer.op is Op.BROADCAST:
                return f"shapes differ: {node.shape} -> {consumer.shape} ({consumer.op.label})"
            group = consumer.op.group.value
            article = "an" if group[0] in "aeiou" else "a"
            return f"consumer is {article} {group} op ({consumer.op.label})"
    if len({group_of[c] for c in consumers}) > 1:
        return f"producer has {len(consumers)} consumers in different kernels"
    # NOTE: groups are built from their last node (reversed at the end): a sum is first here
    if node in requested and groups[group_of[consumers[0]]][0].op in REDUCTIONS:
        return "output requested (a kernel ending in a sum writes the sum alone)"
    return None
