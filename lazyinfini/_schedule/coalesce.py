"""Dimension coalescing for elementwise kernels (seed 003).

Before an elementwise kernel runs, adjacent dims that every operand walks the same way are merged,
so that ``(N, C, H, W) - (1, C, 1, 1)`` runs as a 3-d loop ``(N, C, H*W)`` and a fully contiguous
chain runs as one flat loop. Strides may be in elements or in bytes (the rule is the same); the
element visited at each C-order position is unchanged.
"""

from __future__ import annotations

__all__ = ["coalesce"]


def coalesce(shape, *strides) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Merge adjacent dims walked contiguously by every operand; drop length-1 dims.

    Returns ``(new_shape, (new_strides_of_operand_0, ...))``. An empty shape comes back as
    ``(0,)`` with zero strides; a shape of only length-1 dims comes back 0-d.
    """
    shape = tuple(int(n) for n in shape)
    assert all(len(s) == len(shape) for s in strides), (shape, strides)
    if 0 in shape:  # NOTE: nothing is visited, so any strides do; zeros keep them harmless
        return (0,), tuple((0,) for _ in strides)
    # Columns: one (length, per-operand strides) per kept dim, innermost last.
    dims = [(n, tuple(int(s[i]) for s in strides)) for i, n in enumerate(shape) if n != 1]
    merged: list[tuple[int, tuple[int, ...]]] = []
    for n, dim_strides in reversed(dims):
        if merged and _walks_on(dim_strides, merged[-1]):
            inner_n, inner_strides = merged.pop()
            n, dim_strides = n * inner_n, inner_strides
        merged.append((n, dim_strides))
    merged.reverse()
    new_shape = tuple(n for n, _ in merged)
    new_strides = tuple(tuple(s[op] for _, s in merged) for op in range(len(strides)))
    return new_shape, new_strides


def _walks_on(outer_strides, inner) -> bool:
    """True when, for every operand, one step of the outer dim = a full sweep of the inner."""
    # NOTE: a dim broadcast in both (stride 0 in both) satisfies this for that operand, and a dim
    # broadcast in only one of them does not, so broadcast patterns never get mixed.
    inner_n, inner_strides = inner
    return all(o == i * inner_n for o, i in zip(outer_strides, inner_strides, strict=True))
