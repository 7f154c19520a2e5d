"""Simplify before planning: fold permute and reshape chains, drop identities, merge duplicates.

Nodes are frozen, so a rewrite makes new nodes; `simplify` returns the new outputs (one per
requested output, in order) and a log of what it did, for explain().
"""

from __future__ import annotations

from .._graph import Dag, FillPart, Node, Op, arg_key, inputs_of
from .._graph.views import whole_update


def simplify(
    graph: Dag, copies: bool = True
) -> tuple[Dag, list[Node], list[str], dict[Node, Node]]:
    """The simplified graph, its outputs (parallel to graph.graph['outputs']), a log, and the
    node each original became (a rewrite of its inputs makes a new node: a held node is kept
    under its new name). `copies`: keep the copies asked for (x.copy(): numpy's C order, where
    the orders pass kept them); else each is its value (a device computing every value in C
    order)."""
    new_of: dict[Node, Node] = {}
    seen: dict[tuple, Node] = {}
    log: list[str] = []
    for node in graph.graph["order"]:
        srcs = tuple(new_of.get(s, s) for s in inputs_of(node))
        if node.op is Op.COPY and not copies:
            new_of[node] = srcs[0]
            log.append(f"dropped a copy (every value C-ordered) at {node.source or '?'}")
            continue
        new_of[node] = _rewrite(node, srcs, seen, log)
    outputs = [new_of.get(n, n) for n in graph.graph["outputs"]]
    if all(new is old for old, new in new_of.items()):
        return graph, outputs, log, new_of
    return Dag(outputs), outputs, log, new_of


def _rewrite(node: Node, srcs: tuple[Node, ...], seen: dict, log: list[str]) -> Node:
    if node.op is Op.BUFFER:
        return node
    folded = _fold(node, srcs)
    if folded is not None:
        result, what = folded
        log.append(f"{what} at {node.source or '?'}")
        # NOTE: a cancelled pair of permutes gives its inner input, simplified already
        if result in srcs or result.op is Op.BUFFER or result in srcs[0].srcs:
            return result
        node, srcs = result, inputs_of(result)
    key = _key(node, srcs)
    if key is not None and key in seen:
        log.append(f"merged a repeated {node.op.label} at {node.source or '?'}")
        return seen[key]
    if srcs != inputs_of(node):
        node = Node(node.op, srcs, node.shape, node.dtype, node.arg, node.source)
    if key is not None:
        seen[key] = node
    return node


def _fold(node: Node, srcs: tuple[Node, ...]) -> tuple[Node, str] | None:
    """A simpler equivalent of `node` over `srcs`, and what was done; None if there is none."""
    op, src = node.op, srcs[0] if srcs else None
    if op in (Op.PERMUTE, Op.RESHAPE, Op.BROADCAST, Op.SLICE, Op.ASTYPE) and _identity(node, src):
        return src, f"dropped an identity {op.label}"
    if op is Op.PERMUTE and src.op is Op.PERMUTE:
        axes = tuple(src.arg[a] for a in node.arg)
        inner = src.srcs[0]
        if axes == tuple(range(len(axes))):
            return inner, "cancelled a pair of permutes"
        return Node(Op.PERMUTE, (inner,), node.shape, node.dtype, axes, node.source), (
            "folded a chain of permutes"
        )
    if op is Op.REAL or op is Op.IMAG:
        base = src
        while base.op.is_view and base.op is not Op.REAL and base.op is not Op.IMAG:
            base = inputs_of(base)[0]
        if base.op is Op.FULL:  # NOTE: devices read a fill's one value, not a view of it
            part = FillPart(op, base)
            return Node(Op.FULL, (), node.shape, node.dtype, part, node.source), (
                f"took the {op.label} part of a fill"
            )
    if op is Op.SETITEM and whole_update(node, srcs):
        return srcs[1], "dropped an update of every element (its value)"
    if op is Op.RESHAPE and src.op is Op.RESHAPE:
        inner = src.srcs[0]
        if inner.shape == node.shape:
            return inner, "cancelled a pair of reshapes"
        return Node(Op.RESHAPE, (inner,), node.shape, node.dtype, None, node.source), (
            "folded a chain of reshapes"
        )
    return None


def _identity(node: Node, src: Node) -> bool:
    if node.shape != src.shape or node.dtype != src.dtype:
        return False
    if node.op is Op.PERMUTE:
        return node.arg == tuple(range(len(node.shape)))
    if node.op is Op.SLICE:
        return all(a == (0, 1) for a in node.arg)
    return True  # a reshape, broadcast or cast to the same shape and dtype


def _key(node: Node, srcs: tuple[Node, ...]) -> tuple | None:
    """What makes two nodes compute the same value; None for unhashable parameters."""
    # NOTE: parameters merge when their keys do (-0.0 and 0.0 do not); for fills this is also
    # what lets the schedule cache bind them as parameters (_cache.py): a schedule that merged
    # two fills is reused only where their values are equal again.
    arg = arg_key(node)
    key = (node.op, tuple(id(s) for s in srcs), node.shape, node.dtype, arg)
    try:
        hash(key)
    except TypeError:
        return None
    return key
