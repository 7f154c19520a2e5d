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
    return groups, decisions


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
            group = consumer.op.group.value
            if consumer.op is Op.BROADCAST:
                return f"shapes differ: {node.shape} -> {consumer.shape} ({consumer.op.label})"
            return f"consumer is a {group} op ({consumer.op.label})"
    if len({group_of[c] for c in consumers}) > 1:
        return f"producer has {len(consumers)} consumers in different kernels"
    return None
