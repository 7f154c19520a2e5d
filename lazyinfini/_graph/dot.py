"""DOT text for a graph, with one cluster per kernel when a schedule is given.

Inputs (BUFFER nodes) are grey and name the line that made them; constants (FULL nodes) show
their value; every kernel is a cluster holding its nodes, including the ones the scheduler
added (a rearrange kernel's COPY node), and edges run from the value a kernel actually reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .node import Node, inputs_of
from .ops import Op

if TYPE_CHECKING:  # NOTE: networkx is imported at first use (~70 ms)
    import networkx as nx

_STYLE = {
    Op.BUFFER: ", style=filled, fillcolor=lightgrey",
    Op.FULL: ", style=dashed",
}


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _label(node: Node) -> str:
    shape = "x".join(map(str, node.shape)) or "scalar"
    if node.op is Op.BUFFER:
        lines = ["input", f"{shape} {node.dtype.name}", f"made at {node.source or '?'}"]
    elif node.op is Op.FULL:
        lines = [f"constant {node.arg!r}", f"{shape} {node.dtype.name}"]
    else:
        lines = [node.op.label, f"{shape} {node.dtype.name}"] + ([node.source] * bool(node.source))
    return "\\n".join(_escape(line) for line in lines)


def _node_line(node: Node, name: str, indent: str = "  ") -> str:
    return f'{indent}{name} [label="{_label(node)}"{_STYLE.get(node.op, "")}];'


def drawn_edges(graph: nx.DiGraph, kernels) -> list[tuple[Node, Node]]:
    """The graph's edges, with a read through a scheduler's copy drawn from that copy, and
    each node the scheduler added drawn from its inputs."""
    edges = dict.fromkeys(graph.edges)

    def reroute(src: Node, dst: Node, new_src: Node) -> None:
        edges.pop((src, dst), None)
        edges[(new_src, dst)] = None

    for kernel in kernels:
        # NOTE: a Load reads `node` as `base` seen through `chain`; the base is a copy when the
        # scheduler made one, and the chain's first view then reads that copy.
        added = {}
        for load in kernel.loads:
            if _added(graph, load) and load.chain:
                reroute(load.base.srcs[0], load.chain[0], load.base)
            elif _added(graph, load):
                added[load.node] = load.base
        for node in kernel.nodes:
            for src in inputs_of(node):
                if node not in graph or src in added:
                    reroute(src, node, added.get(src, src))
    return list(edges)


def _added(graph: nx.DiGraph, load) -> bool:
    """Whether `load` (a Load, or a plain node in a node-by-node schedule) reads a value the
    scheduler added to the graph."""
    base = getattr(load, "base", None)
    return base is not None and base not in graph


def to_dot(graph: nx.DiGraph, kernels=()) -> str:
    """DOT source: nodes labelled op/shape/dtype/source; kernels as labelled clusters."""
    ids = {node: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = ["digraph lazyinfini {", '  rankdir="LR";', "  node [shape=box, fontsize=10];"]
    clustered = set()
    for k, kernel in enumerate(kernels):
        lines.append(f"  subgraph cluster_{k} {{")
        title = _escape(f"kernel {k}: {kernel.kind.value} {kernel.name}")
        lines.append(f'    label="{title}"; style=rounded;')
        for node in kernel.nodes:
            if node not in clustered:
                ids.setdefault(node, f"n{len(ids)}")
                lines.append(_node_line(node, ids[node], "    "))
                clustered.add(node)
        lines.append("  }")
    edges = drawn_edges(graph, kernels)
    for src, _ in edges:
        ids.setdefault(src, f"n{len(ids)}")
    lines += [_node_line(node, name) for node, name in ids.items() if node not in clustered]
    lines += [f"  {ids[src]} -> {ids[dst]};" for src, dst in edges]
    lines.append("}")
    return "\n".join(lines)
