"""Indexing with integer arrays: gather (x[key]) and the functional update (x[key] = value).

The key travels in the node's arg as a tuple of items, one per position of the user's key after
its ellipsis was expanded: ("slice", start, stop, step), ("int", i), ("none",) or ("array", k),
the k-th index array among the node's inputs.

Each function takes the device's Array API namespace `xp` first (library.CUSTOM): indexing is
its arrays' own, and the copy is the namespace's.
"""

from __future__ import annotations

from .._graph import Op


def _key(items: tuple, arrays: tuple) -> tuple:
    key = []
    for item in items:
        kind = item[0]
        if kind == "slice":
            key.append(slice(*item[1:]))
        elif kind == "int":
            key.append(item[1])
        elif kind == "none":
            key.append(None)
        else:
            key.append(arrays[item[1]])
    return tuple(key)


def gather(xp, x, *indices, key: tuple):
    try:
        return x[_key(key, indices)]
    except IndexError as exc:
        # Note (spec): out-of-bounds integer indices are unspecified; we raise when computing.
        raise IndexError(f"__getitem__: {exc}") from None


def setitem(xp, x, value, *indices, key: tuple):
    out = xp.asarray(x, copy=True)
    try:
        out[_key(key, indices)] = value
    except IndexError as exc:
        raise IndexError(f"__setitem__: {exc}") from None
    return out


IMPLEMENTATIONS = {Op.GATHER: gather, Op.SETITEM: setitem}
