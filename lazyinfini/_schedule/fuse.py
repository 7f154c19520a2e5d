"""Fusion: group elementwise nodes into kernels, and say why each edge fused or not.

A producer joins its consumers' kernel when every consumer is an elementwise node of that one
kernel and the producer is not a requested output. Movement nodes and fills feeding a kernel are
strided loads, not separate kernels.
"""

from __future__ import annotations

import networkx as nx

from .._graph import Node, Op
from .kernels import FusionDecision


def fuse(
    graph: nx.DiGraph, outputs: list[Node], enabled: bool = True
) -> tuple[list[list[Node]], list[FusionDecision]]:
    """Groups of elementwise nodes (each in topological order) and the decision log."""
    order = graph.graph["order"]
    requested = set(outputs)
    group_of: dict[Node, int] = {}
    groups: list[list[Node]] = []
    decisions: list[FusionDecision] = []
    for node in reversed(order):
        if not node.op.is_elementwise:
            continue
        consumers = list(graph.successors(node))
        reason = _reason_to_split(node, consumers, group_of, requested, enabled)
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
    if enabled:
        groups = merge_siblings(graph, groups, decisions, requested)
    return groups, decisions


def merge_siblings(graph: nx.DiGraph, groups, decisions, requested: set) -> list[list[Node]]:
    """Merge kernels of one shape that read a common input and do not depend on each other, so
    `li.compute(y1, y2)` reads the shared input once, in one pass writing both outputs."""
    order = graph.graph["order"]
    position = {node: i for i, node in enumerate(order)}
    readers: dict[Node, list[int]] = {}
    for index, group in enumerate(groups):
        inside = set(group)
        for src in dict.fromkeys(
            s for n in group for s in graph.predecessors(n) if s not in inside
        ):
            readers.setdefault(src, []).append(index)
    below = None  # descendants of each node, as bits over `order`; built only when needed
    for indices in readers.values():
        live = [i for i in indices if groups[i]]
        for i in live[1:]:
            first = live[0]
            one = group_outputs(graph, groups[first], requested)
            other = group_outputs(graph, groups[i], requested)
            if one[0].shape != other[0].shape:
                continue
            below = below or descendants(graph, order, position)
            if _connected(one, other, below, position):
                continue
            groups[first] = sorted(groups[first] + groups[i], key=position.__getitem__)
            groups[i] = []
            reason = "siblings: same shape, a shared input, one pass writes both"
            decisions.append(FusionDecision(one[0], other[0], True, reason))
    return [g for g in groups if g]


def descendants(graph: nx.DiGraph, order: list[Node], position: dict) -> dict[Node, int]:
    """For each node, the set of nodes it reaches, as an int with one bit per position."""
    below: dict[Node, int] = {}
    for node in reversed(order):
        bits = 0
        for consumer in graph.successors(node):
            bits |= below[consumer] | (1 << position[consumer])
        below[node] = bits
    return below


def group_outputs(graph: nx.DiGraph, group: list[Node], requested: set) -> list[Node]:
    """The members a kernel writes out: requested ones and those read outside the kernel."""
    inside = set(group)
    return [n for n in group if n in requested or any(c not in inside for c in graph.successors(n))]


def _connected(one: list[Node], other: list[Node], below: dict, position: dict) -> bool:
    """Whether an output of one group reaches an output of the other, either way."""
    return any(
        below[a] >> position[b] & 1 or below[b] >> position[a] & 1 for a in one for b in other
    )


def _reason_to_split(
    node: Node, consumers: list[Node], group_of: dict, requested: set, enabled: bool
) -> str | None:
    if not consumers:
        return "output requested"
    if not enabled:
        return "fusion is off (li.options(fuse=False))"
    if node in requested:
        return "output requested"
    for consumer in consumers:
        if not consumer.op.is_elementwise:
            if consumer.op is Op.BROADCAST:
                return f"shapes differ: {node.shape} -> {consumer.shape} ({consumer.op.label})"
            return f"consumer is a {consumer.op.group.value} op ({consumer.op.label})"
    if len({group_of[c] for c in consumers}) > 1:
        return f"producer has {len(consumers)} consumers in different kernels"
    return None
