"""diff with prepend/append: not a plain array_api_compat.numpy call (see library.CUSTOM).

numpy takes prepend and append only by keyword, while a node's inputs arrive positionally; and
with n=0 numpy returns x without the edges, while the spec's size is M + N1 + N2 - n for every n.
Joining the edges first, then differencing, gives the spec's answer.
"""

from __future__ import annotations

import numpy as np

from .._compat import compat
from .._graph import Op


def diff(x: np.ndarray, *edge_values: np.ndarray, axis: int, n: int, edges: tuple) -> np.ndarray:
    """`edges` names the extra inputs in order: ("prepend",), ("append",) or both."""
    named = dict(zip(edges, edge_values, strict=True))
    parts = [named.get("prepend"), x, named.get("append")]
    joined = np.concatenate([p for p in parts if p is not None], axis=axis) if named else x
    return compat.diff(joined, axis=axis, n=n)


IMPLEMENTATIONS = {Op.DIFF: diff}
