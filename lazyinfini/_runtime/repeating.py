"""repeat with an array of repeats: not a plain library call everywhere (see library.CUSTOM).

numpy takes the counts as an array; CuPy refuses a device array of repeats ("cupy.ndarray
cannot be specified as `repeats` argument") and would need them on the host. Written with the
standard's functions instead, on the counts where they live: output position p along the axis
takes the element i whose run of repeats holds p, the first i with cumsum(counts)[i] > p.
"""

from __future__ import annotations

import numpy as np

from .._graph import Op


def repeat(xp, x, *counts, repeats=None, axis=None, total: int = 0):
    """x's elements repeated: `repeats` times each, or counts[0][i] times element i (one
    count for every element when counts has one), `total` elements along the axis."""
    if not counts:
        return xp.repeat(x, repeats, axis=axis)
    (counts,) = counts
    if type(counts) is np.ndarray:  # NOTE: numpy takes them as they are (the host's path)
        return xp.repeat(x, counts, axis=axis)
    if axis is None:
        x, axis = xp.reshape(x, (-1,)), 0
    if counts.shape[0] == 1:
        counts = xp.broadcast_to(counts, (x.shape[axis],))
    ends = xp.cumulative_sum(xp.astype(counts, xp.int64))
    where = xp.searchsorted(ends, xp.arange(total, dtype=xp.int64), side="right")
    return xp.take(x, where, axis=axis)


IMPLEMENTATIONS = {Op.REPEAT: repeat}
