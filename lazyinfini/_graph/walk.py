"""The one walk over pending nodes: every graph view (the cache's signature, the networkx graph,
the pending count of a repr) starts from it."""

from __future__ import annotations

from .node import Node, inputs_of, resolve


def walk(outputs: list) -> tuple[list[Node], list[tuple[int, ...]]]:
    """The pending DAG in post-order (every node after its inputs, stopping at buffers), and
    the positions of each node's inputs."""
    order: list[Node] = []
    ins: dict[int, tuple[Node, ...]] = {}  # id -> inputs, for nodes expanded
    placed: set[int] = set()
    stack = [(resolve(n), False) for n in reversed(outputs)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if expanded:
            if key not in placed:
                placed.add(key)
                order.append(node)
        elif key not in ins:
            srcs = ins[key] = inputs_of(node)
            stack.append((node, True))
            stack += [(s, False) for s in reversed(srcs) if id(s) not in ins]
    position = {id(n): i for i, n in enumerate(order)}
    return order, [tuple(position[id(s)] for s in ins[id(n)]) for n in order]
