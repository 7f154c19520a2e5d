"""HOW it will run: the graph of pending nodes -> an ordered schedule of kernels.

Passes, in order: `unfused` (one kernel per node, in topological order) -> `with_lifetimes`
(when each value can be freed).
"""

from __future__ import annotations

import networkx as nx

from .._graph import Node, Op, inputs_of
from .kernels import FusionDecision, Kernel, Kind, Schedule

_KIND_OF_GROUP = {"source": Kind.SOURCE, "elementwise": Kind.ELEMENTWISE, "movement": Kind.VIEW}


def schedule(graph: nx.DiGraph, *, fuse: bool = True) -> Schedule:
    outputs = tuple(dict.fromkeys(graph.graph["outputs"]))
    kernels = unfused(graph)
    return with_lifetimes(kernels, outputs)


def unfused(graph: nx.DiGraph) -> list[Kernel]:
    """One kernel per pending node, in a deterministic topological order."""
    order = nx.topological_sort(graph)
    kernels = []
    for node in order:
        if node.op is Op.BUFFER:
            continue
        kind = _KIND_OF_GROUP.get(node.op.group.value, Kind.OPAQUE)
        kernels.append(Kernel(kind, (node,), (node,), tuple(dict.fromkeys(inputs_of(node)))))
    return kernels


def with_lifetimes(kernels: list[Kernel], outputs: tuple[Node, ...]) -> Schedule:
    """Attach to each kernel the values whose last reader it is (outputs are never freed)."""
    last_use: dict[Node, int] = {}
    for i, kernel in enumerate(kernels):
        for node in kernel.loads:
            last_use[node] = i
    frees: list[list[Node]] = [[] for _ in kernels]
    kept = set(outputs)
    for node, i in last_use.items():
        if node not in kept and node.op is not Op.BUFFER:
            frees[i].append(node)
    return Schedule(tuple(kernels), outputs, tuple(tuple(f) for f in frees))


__all__ = ["FusionDecision", "Kernel", "Kind", "Schedule", "schedule"]
