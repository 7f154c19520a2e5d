"""DOT text for a graph, with one cluster per kernel when a schedule is given."""

from __future__ import annotations

import networkx as nx


def _label(node) -> str:
    shape = "x".join(map(str, node.shape)) or "scalar"
    where = f"\\n{node.source}" if node.source else ""
    return f"{node.op.label}\\n{shape} {node.dtype.name}{where}"


def to_dot(graph: nx.DiGraph, kernels=()) -> str:
    """DOT source: nodes labelled op/shape/dtype/source; kernels as labelled clusters."""
    ids = {node: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = ["digraph lazyinfini {", '  rankdir="LR";', "  node [shape=box, fontsize=10];"]
    clustered = set()
    for k, kernel in enumerate(kernels):
        lines.append(f"  subgraph cluster_{k} {{")
        lines.append(f'    label="kernel {k}: {kernel.kind.value} {kernel.name}"; style=rounded;')
        for node in kernel.nodes:
            if node in ids:
                lines.append(f'    {ids[node]} [label="{_label(node)}"];')
                clustered.add(node)
        lines.append("  }")
    for node, name in ids.items():
        if node not in clustered:
            style = ", style=filled, fillcolor=lightgrey" if node.op.label == "buffer" else ""
            lines.append(f'  {name} [label="{_label(node)}"{style}];')
    for src, dst in graph.edges:
        lines.append(f"  {ids[src]} -> {ids[dst]};")
    lines.append("}")
    return "\n".join(lines)
