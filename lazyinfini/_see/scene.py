"""What a drawing of a schedule shows: one box per node, the edges, the kernel of each box.

The nodes are those `li.to_dot` draws: the graph the schedule was planned from (after
simplify), with the nodes the scheduler added (a rearrange kernel's `copy`), and each edge from
the value a kernel actually reads (`_graph.dot`'s rule, shared). A box says what its node is
(op, shape and dtype, the user's line that recorded it); its hover text says everything.
"""

from __future__ import annotations

import functools
import linecache
from dataclasses import dataclass, field

from .._graph import Node, Op, build_graph
from .._graph.dot import drawn_edges
from .._graph.node import source_files
from .._schedule.kernels import op_name

LINE = 28  # characters a box's line shows; the hover text has the rest


@dataclass(frozen=True)
class Box:
    """One box: the lines it shows, its hover text, its kernel (-1: none, as for an input or
    a view a kernel reads as a load), its kind (input, constant, view, op; or hidden: a run of
    `count` nodes drawn as one), and the node it draws (None for a hidden run)."""

    lines: tuple[str, ...]
    hover: str
    kernel: int
    kind: str
    node: Node | None
    count: int = 1


@dataclass(frozen=True)
class Scene:
    """Boxes in topological order, links (a, b) between box indices (a above b), the kernel
    titles, and for each link that a fusion decision is about, that decision's index."""

    boxes: tuple[Box, ...]
    links: tuple[tuple[int, int], ...]
    titles: tuple[str, ...]
    decisions: tuple = ()  # the schedule's FusionDecisions
    decision_of: dict = field(default_factory=dict)  # (a, b) -> index in `decisions`
    hidden: int = 0  # nodes drawn only as part of a hidden box (see collapse.py)


def scene_of(sched) -> Scene:
    """The scene of a Schedule: every node its kernels read or compute, once."""
    graph = build_graph(list(sched.outputs))
    kernel_of: dict[Node, int] = {}
    for k, kernel in enumerate(sched.kernels):
        for node in kernel.nodes:
            kernel_of.setdefault(node, k)
    edges = drawn_edges(graph, sched.kernels)
    nodes = dict.fromkeys(graph.graph["order"])
    nodes.update(dict.fromkeys(kernel_of))
    nodes.update(dict.fromkeys(n for edge in edges for n in edge))
    index = {node: i for i, node in enumerate(nodes)}
    boxes = tuple(box_of(node, kernel_of.get(node, -1)) for node in nodes)
    links = tuple(dict.fromkeys((index[a], index[b]) for a, b in edges))
    decided = {(d.producer, d.consumer): i for i, d in enumerate(sched.decisions)}
    decision_of = {}
    for a, b in links:
        found = decided.get((boxes[a].node, boxes[b].node))
        if found is not None:
            decision_of[(a, b)] = found
    titles = tuple(kernel_title(k, kernel) for k, kernel in enumerate(sched.kernels))
    return Scene(boxes, links, titles, sched.decisions, decision_of)


def box_of(node: Node, kernel: int) -> Box:
    shape = "x".join(map(str, node.shape)) or "scalar"
    kind = _kind(node, kernel)
    head = {"input": "input", "constant": f"constant {_short(node.arg, 16)}"}.get(kind)
    lines = [head or op_name(node), f"{shape} {dtype_name(node.dtype)}"]
    if node.source:
        lines.append(node.source)
    hover = [node_text(node)]
    if node.arg is not None and node.op is not Op.BUFFER:
        hover.append(f"params {_short(node.arg, 200)}")
    hover.append(f"recorded at {node.source or '?'}")
    code = source_code(node.source)
    if code:
        hover.append(code)
    clipped = tuple(line if len(line) <= LINE else line[: LINE - 1] + "…" for line in lines)
    return Box(clipped, "\n".join(hover), kernel, kind, node)


def _kind(node: Node, kernel: int) -> str:
    if node.op is Op.BUFFER:
        return "input"
    if node.op is Op.FULL:
        return "constant"
    return "view" if node.op.is_movement and kernel < 0 else "op"


@functools.cache
def dtype_name(dtype) -> str:
    """`dtype.name`, remembered: numpy works it out on every call (~15 us)."""
    return dtype.name


def node_text(node: Node) -> str:
    """'subtract 64x128 float32'."""
    shape = "x".join(map(str, node.shape)) or "scalar"
    return f"{op_name(node)} {shape} {dtype_name(node.dtype)}"


def kernel_title(k: int, kernel) -> str:
    return f"kernel {k}: {kernel.kind.value} {kernel.name}"


def _short(arg, limit: int) -> str:
    text = repr(arg)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@functools.lru_cache(maxsize=4096)
def source_code(source: str) -> str:
    """The text of the user's line `source` ("file.py:12") names, where the file is known."""
    name, _, line = source.rpartition(":")
    if not name or not line.isdigit():
        return ""
    # NOTE: a source names a file by its base name; caller_source remembers each full name.
    paths = source_files(name)
    if len(paths) != 1:
        return ""
    return linecache.getline(paths[0], int(line)).strip()
