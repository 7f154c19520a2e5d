"""numpy's correlate of a signal with a short kernel, summed as numpy sums it, written for any
Array API namespace: the CORRELATE op of a short signal runs it on the device's library (see
library.CUSTOM), and np.correlate's twin records it with lazyinfini's namespace for a long one
(one elementwise kernel). One formula, so the two give the same bits.

For each output numpy computes `s = 0; s += x[i + j] * k[j]` for j in order: its
small_correlate (a float kernel of at most 11 values), its integer dot loop, and its half dot
(float16 summed in float32 and rounded once: the caller widens first). 'same' and 'full' pad
integers with zeros.
"""

from __future__ import annotations

from .._graph import Op


def sliding_sum(xp, x, kernel, *, left: int = 0, right: int = 0):
    """Each output's sum of x[i + j] * kernel[j], j in order, after `left` and `right` zeros
    are joined to x. `kernel` is an array or a list of Python numbers (exact in x's dtype:
    scalars, not loads, in a fused kernel). `xp` is any Array API namespace."""
    if left or right:
        zeros = [xp.zeros((left,), dtype=x.dtype), x, xp.zeros((right,), dtype=x.dtype)]
        x = xp.concat(zeros)
    taps = len(kernel) if isinstance(kernel, list) else kernel.shape[0]
    length = x.shape[0] - taps + 1
    # NOTE: numpy's sum starts at 0 (0 + -0.0 is +0.0); an integer sum needs no start
    total = xp.zeros((), dtype=x.dtype) if xp.isdtype(x.dtype, "real floating") else None
    for j in range(taps):
        term = xp.multiply(x[j : j + length], kernel[j])
        total = term if total is None else xp.add(total, term)
    return total


# NOTE: the node's inputs are x and its kernel; its arg, the padding
IMPLEMENTATIONS = {Op.CORRELATE: sliding_sum}
