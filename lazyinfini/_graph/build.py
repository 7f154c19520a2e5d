"""Nodes -> networkx.DiGraph: the pending ancestors of the requested outputs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .node import Node, resolve
from .ops import Op
from .walk import walk

if TYPE_CHECKING:  # NOTE: networkx is imported at first use (~70 ms)
    import networkx as nx


def build_graph(outputs: list[Node]) -> nx.DiGraph:
    """The DAG of `outputs` and their unrealized ancestors; it stops at realized buffers.

    Edges run input -> consumer; an edge's `slots` lists the operand positions it feeds (x - x
    gives one edge with slots [0, 1]). Node attributes: op, shape, dtype, params, source.
    """
    import networkx as nx  # NOTE: imported at first use (see the module's imports)

    graph = nx.DiGraph()
    order, srcs = walk(outputs)
    for node, inputs in zip(order, srcs):
        _add_node(graph, node)
        for slot, i in enumerate(inputs):
            src = order[i]
            if graph.has_edge(src, node):
                graph.edges[src, node]["slots"].append(slot)
            else:
                graph.add_edge(src, node, slots=[slot])
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
