"""Nodes -> networkx.DiGraph: the pending ancestors of the requested outputs."""

from __future__ import annotations

import networkx as nx

from .node import Node, inputs_of, resolve
from .ops import Op


def build_graph(outputs: list[Node]) -> nx.DiGraph:
    """The DAG of `outputs` and their unrealized ancestors; it stops at realized buffers.

    Edges run input -> consumer; an edge's `slots` lists the operand positions it feeds (x - x
    gives one edge with slots [0, 1]). Node attributes: op, shape, dtype, params, source.
    """
    graph = nx.DiGraph()
    order: list[Node] = []  # post-order of the walk: every node after its inputs
    done: set[int] = set()
    stack = [(resolve(n), False) for n in reversed(outputs)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if expanded:
            done.add(id(node))
            order.append(node)
            continue
        _add_node(graph, node)
        stack.append((node, True))
        for slot, src in enumerate(inputs_of(node)):
            _add_node(graph, src)
            if graph.has_edge(src, node):
                graph.edges[src, node]["slots"].append(slot)
            else:
                graph.add_edge(src, node, slots=[slot])
            if id(src) not in done:
                stack.append((src, False))
    graph.graph["outputs"] = [resolve(n) for n in outputs]
    graph.graph["order"] = order
    return graph


def _add_node(graph: nx.DiGraph, node: Node) -> None:
    if node in graph:
        return
    params = None if node.op is Op.BUFFER else node.arg
    graph.add_node(
        node,
        op=node.op.label,
        shape=node.shape,
        dtype=node.dtype,
        params=params,
        source=node.source,
    )
