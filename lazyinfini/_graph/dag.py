"""Nodes -> Dag: the pending DAG as the scheduler reads it, without networkx.

The scheduler asks a graph for its nodes in order, the requested outputs, and each node's
distinct inputs and consumers. networkx (~70 ms to import, more without cached bytecode) builds
the same view for users (li.graph, to_dot: build.py); a first materialization need not pay for
it.
"""

from __future__ import annotations

from .node import Node, resolve
from .walk import walk


class Dag:
    """The DAG of some outputs and their unrealized ancestors, stopping at realized buffers.

    `graph` holds "order" (post-order: every node after its inputs) and "outputs" (the
    requested nodes, resolved), as a networkx graph's `graph` dict does; predecessors and
    successors come in the order networkx's DiGraph gives them (by operand, then by consumer).
    """

    def __init__(self, outputs: list[Node]):
        order, srcs = walk(outputs)
        self.graph = {"outputs": [resolve(n) for n in outputs], "order": order}
        self._inputs: dict[Node, list[Node]] = {}
        self._consumers: dict[Node, list[Node]] = {node: [] for node in order}
        for node, positions in zip(order, srcs):
            inputs = self._inputs[node] = list(dict.fromkeys(order[i] for i in positions))
            for src in inputs:
                self._consumers[src].append(node)

    def predecessors(self, node: Node):
        return iter(self._inputs[node])

    def successors(self, node: Node):
        return iter(self._consumers[node])

    def __contains__(self, node) -> bool:
        return node in self._consumers

    def __iter__(self):
        return iter(self.graph["order"])

    def __len__(self) -> int:
        return len(self.graph["order"])
