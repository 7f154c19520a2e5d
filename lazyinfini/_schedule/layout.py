"""Layouts of views, worked out before anything runs.

A movement chain (permute, slice, broadcast, reshape) over a materialized base is a strided view.
Its strides are found by applying the same numpy view functions the executors apply to a
*phantom*: an ndarray with the base's shape and strides over one real element, never read. So the
scheduler and the executors share one source of truth (numpy's view rules) for strides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._graph import Node, Op
from .._graph.views import apply_movement, c_strides, stand_in


@dataclass(frozen=True, eq=False)
class Load:
    """A value a kernel reads: `node` is `base` seen through the movement `chain` (in order).

    `strides` and `offset` are in bytes, from `base`'s element [0, ..., 0].
    """

    node: Node
    base: Node
    chain: tuple[Node, ...]
    strides: tuple[int, ...]
    offset: int

    @property
    def shape(self) -> tuple[int, ...]:
        return self.node.shape

    @property
    def broadcast(self) -> bool:
        return any(s == 0 and d > 1 for s, d in zip(self.strides, self.shape))

    @property
    def contiguous(self) -> bool:
        return self.strides == c_strides(self.shape, self.node.dtype.itemsize)

    @property
    def across_rows(self) -> bool:
        """Whether its fastest-moving dim is not its last one (it is read transposed)."""
        dims = [
            (abs(s), i) for i, (n, s) in enumerate(zip(self.shape, self.strides)) if n > 1 and s
        ]
        if not dims:
            return False
        last = max(i for _, i in dims)
        return min(dims)[1] != last and min(dims)[0] < max(abs(s) for s, i in dims if i == last)

    def __repr__(self) -> str:
        how = "contiguous" if self.contiguous else ("broadcast" if self.broadcast else "strided")
        via = "".join(f"{m.op.label}>" for m in self.chain)
        return (
            f"load {via}{self.base.op.label} {self.shape} {self.node.dtype.name} "
            f"strides={self.strides} {how}"
        )


def base_strides(node: Node) -> tuple[int, ...]:
    """Strides of a materialized value: a buffer's own, zeros for a fill, C order otherwise."""
    if node.op is Op.BUFFER:
        return node.layout.strides
    if node.op is Op.FULL:
        return (0,) * len(node.shape)
    return c_strides(node.shape, node.dtype.itemsize)


def phantom(node: Node) -> np.ndarray:
    """An ndarray with `node`'s materialized layout, over one element that is never read."""
    return stand_in(node.shape, base_strides(node), node.dtype)


def whole_load(node: Node) -> Load:
    """A materialized value read as it is (a node-by-node schedule's loads)."""
    return Load(node, node, (), base_strides(node), 0)


def view_load(node: Node, base: Node, chain: tuple[Node, ...]) -> Load | None:
    """The Load of `node` = `base` through `chain`; None if some step of the chain must copy."""
    strides, offset = base_strides(base), 0
    if any(step.op is Op.RESHAPE for step in chain):
        return _phantom_load(node, base, chain)
    shape = base.shape
    for step in chain:
        strides, offset = _step_strides(step, shape, strides, offset)
        shape = step.shape
    return Load(node, base, chain, strides, offset)


def _step_strides(step: Node, shape, strides, offset):
    """numpy's view rules for permute, broadcast and slice, without making an array."""
    if step.op is Op.PERMUTE:
        return tuple(strides[a] for a in step.arg), offset
    if step.op is Op.SLICE:
        offset += sum(start * s for (start, _), s in zip(step.arg, strides))
        return tuple(s * step_ for (_, step_), s in zip(step.arg, strides)), offset
    if step.op is Op.REAL or step.op is Op.IMAG:  # NOTE: a part's bytes: the same strides
        return strides, offset + (step.dtype.itemsize if step.op is Op.IMAG else 0)
    assert step.op is Op.BROADCAST, step
    pad = len(step.shape) - len(shape)
    # NOTE: numpy gives every length-1 input dim stride 0, broadcast or not; so do we.
    return (0,) * pad + tuple(0 if old == 1 else s for old, s in zip(shape, strides)), offset


def _phantom_load(node: Node, base: Node, chain: tuple[Node, ...]) -> Load | None:
    root = phantom(base)
    view = root
    for step in chain:
        view = apply_movement(step, view)
        if view is None:
            return None
    offset = view.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return Load(node, base, chain, tuple(view.strides), offset)
