"""Seeing what a program became: the graph, the kernels, counters. Public: li.graph, li.explain."""

from __future__ import annotations

import shutil
import subprocess

import networkx as nx

from ._array import Array
from ._counters import counters
from ._graph import Op, build_graph
from ._graph.dot import to_dot as _dot_text
from ._options import current
from ._runtime import get_executor
from ._schedule import Schedule

__all__ = ["counters", "explain", "graph", "plan", "to_dot", "visualize"]


def _nodes(arrays) -> list:
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError(f"expected lazyinfini arrays, got {type(a).__name__}")
    return [a._node for a in arrays]


def graph(*arrays: Array) -> nx.DiGraph:
    """The pending DAG of `arrays` as a networkx.DiGraph (edges input -> consumer)."""
    return build_graph(_nodes(arrays))


def plan(*arrays: Array) -> Schedule:
    """The schedule that computing `arrays` now would run (nothing runs)."""
    options = current()
    return get_executor(options.executor).plan(graph(*arrays), fuse=options.fuse)


def explain(*arrays: Array) -> str:
    """The schedule as text: kernels in order, the nodes each runs with the user's lines."""
    sched = plan(*arrays)
    lines = [f"{len(sched.kernels)} kernel(s) for {len(sched.outputs)} output(s)"]
    for i, kernel in enumerate(sched.kernels):
        lines.append(f"kernel {i}: {kernel!r}")
        for node in kernel.nodes:
            params = "" if node.arg is None or node.op is Op.BUFFER else f" {node.arg}"
            lines.append(f"    {node!r}{params}  at {node.source or '?'}")
        for load in kernel.loads:
            lines.append(f"    load {load!r}")
    for decision in sched.decisions:
        lines.append(f"  {decision!r}")
    return "\n".join(lines)


def to_dot(*arrays: Array) -> str:
    """DOT source of the pending graph, one cluster per kernel."""
    return _dot_text(graph(*arrays), plan(*arrays).kernels)


def visualize(*arrays: Array, filename: str = "graph.svg") -> str:
    """Render the graph with graphviz's `dot` program into `filename`; returns the filename."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "visualize: graphviz's `dot` program is not installed (apt-get install graphviz); "
            "li.to_dot() gives the DOT text without it"
        )
    fmt = filename.rsplit(".", 1)[-1] if "." in filename else "svg"
    subprocess.run([dot, f"-T{fmt}", "-o", filename], input=to_dot(*arrays), text=True, check=True)
    return filename
