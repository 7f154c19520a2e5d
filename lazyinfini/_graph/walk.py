"""The one walk over pending nodes: every graph view (the cache's signature, the networkx graph,
the pending count of a repr) starts from it."""

from __future__ import annotations

from .node import Node


def walk(outputs: list) -> tuple[list[Node], list[tuple[int, ...]]]:
    """The pending DAG in post-order (every node after its inputs, in input order, stopping at
    buffers), and the positions of each node's inputs."""
    # NOTE: every materialization walks its new nodes (a cached schedule too): one stack of
    # nodes, revisited once their inputs are placed, and no per-node tuples (~2x the speed of
    # a stack of (node, expanded) pairs).
    order: list[Node] = []
    inputs: list[tuple[int, ...]] = []
    position: dict[int, int] = {}
    for output in outputs:
        stack = [output.realized or output]
        while stack:
            node = stack[-1]
            if id(node) in position:
                stack.pop()
                continue
            srcs = node.srcs
            waiting = False
            for src in reversed(srcs):
                src = src.realized or src
                if id(src) not in position:
                    stack.append(src)
                    waiting = True
            if waiting:
                continue
            stack.pop()
            position[id(node)] = len(order)
            order.append(node)
            inputs.append(tuple([position[id(s.realized or s)] for s in srcs]))
    return order, inputs
