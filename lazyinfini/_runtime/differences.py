"""diff with prepend/append: not a plain Array API call (see library.CUSTOM).

numpy takes prepend and append only by keyword, while a node's inputs arrive positionally; and
with n=0 numpy returns x without the edges, while the spec's size is M + N1 + N2 - n for every n.
Joining the edges first, then differencing, gives the spec's answer.
"""

from __future__ import annotations

from .._graph import Op


def diff(xp, x, *edge_values, axis: int, n: int, edges: tuple):
    """`edges` names the extra inputs in order: ("prepend",), ("append",) or both."""
    named = dict(zip(edges, edge_values, strict=True))
    parts = [p for p in (named.get("prepend"), x, named.get("append")) if p is not None]
    joined = xp.concat(parts, axis=axis) if named else x
    return xp.diff(joined, axis=axis, n=n)


IMPLEMENTATIONS = {Op.DIFF: diff}
