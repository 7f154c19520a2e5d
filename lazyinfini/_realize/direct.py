"""Materializations that take no schedule: a view of a computed host buffer.

A small script returns `mean.reshape(-1)` of a computed mean, or `np.squeeze(std)`: a chain of
slices and reshapes of a buffer that its schedule answers with one VIEW kernel
(`_schedule/lower.py`'s `_output`: numpy's view, no broadcast, no reshape that copies), where
the cache lookup, the run and the swap cost ~25 us around numpy's ~0.5. It is taken here as
that view, counted as that kernel. Anything else (another device, a held link between, a view
the schedule copies) is the schedule's.
"""

from __future__ import annotations

import numpy as np

from .._counters import counters
from .._graph import Op, held_by
from .._graph.views import apply_movement


def viewed(array, device) -> bool:
    """Whether pending `array`, slices and reshapes of a host buffer, was taken here as the
    numpy view its schedule would be (see the module)."""
    node = array._node
    chain = [node]
    while True:
        if node.op is not _SLICE and node.op is not _RESHAPE:
            return False
        node = node.srcs[0]
        node = node.realized or node
        if node.op is _BUFFER:
            break
        if held_by(node) is not None:  # NOTE: the schedule would keep its value too
            return False
        chain.append(node)
    value = _host_data(node, device)
    for step in reversed(chain):
        value = None if value is None else apply_movement(step, value)
    if value is None or 0 in value.strides and value.size > 1:
        return False  # NOTE: a reshape numpy must copy; a broadcast the schedule copies
    _swapped(array, chain, value)
    return True


def bind(swap, mark) -> None:
    """What a step here runs, once the runtime is loaded (realize's _load): realize's swap and
    the evaluated mark (C or Python)."""
    global _SWAP, _MARK
    _SWAP, _MARK = swap, mark


_SWAP = _MARK = None


def _host_data(buffer, device):
    """A buffer node's ndarray where it lives on the host device computing (else None)."""
    data = buffer.arg
    if device.name != "cpu" or data.device != "cpu" or type(data.data) is not np.ndarray:
        return None
    return data.data


def _swapped(array, chain: list, value) -> None:
    """`value` becomes the buffer of `chain[0]` (array's node), as a one-kernel run's would."""
    _SWAP(chain[0], value, "cpu")
    _ = array._node  # NOTE: resolved, where another array was made to hold its node since
    _MARK(chain)
    counters.materializations += 1
    counters.kernels += 1
    counters.nodes += 1
    counters.direct_runs += 1


_BUFFER, _SLICE, _RESHAPE = Op.BUFFER, Op.SLICE, Op.RESHAPE
