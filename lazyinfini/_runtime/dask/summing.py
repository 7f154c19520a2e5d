"""A REDUCE kernel's blocks on dask: each task sums the rows of its block in C, the prologue
computed as the sum reaches it (the cpu's REDUCE function, `compiled_reduction.array_call`),
and writes the block's partial sums, length 1 on the summed axes. dask's tree then sums the
partials as it sums the blocks of an unfused prologue's value.

The bits are the unfused schedule's: dask's sum starts with numpy's sum of each block over the
summed axes (`keepdims`), which over a C-contiguous block (a block function's output) sums each
row of its trailing axes pairwise, as the C function does; and numpy's sum of a partial alone
on those axes is that partial. Where a load cannot be viewed on the (kept dims, row length)
space of a block (a load broadcast along some summed axes and not others), or no compiler
runs, the block runs the prologue and numpy's sum of it: the unfused chunk step, in one task.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ..._graph.views import c_strides, stand_in
from ..compiled import address, run_call
from ..compiled_reduction import array_call
from .blocks import BlockKernel, Call, FusedBlock


@dataclass(frozen=True)
class Total:
    """The sum as the C renderer reads it: its output's op and dtype."""

    outputs: tuple[Call, ...]


@dataclass(frozen=True)
class BlockReduction:
    """A Reduction reduced to what `compiled_reduction.array_call` renders from."""

    prologue: BlockKernel
    total: Total


_PARTS = object()  # NOTE: a layout whose blocks run the prologue, then numpy's sum


class SumBlock(FusedBlock):
    """One block of a REDUCE kernel: its partial sums over its last `summed` axes (the block's
    shape with length 1 there). `kernel` is the prologue's BlockKernel; `total` the sum's Call.
    Made, pickled and revived in the workers as a FusedBlock is."""

    def __init__(self, kernel, ndim, places, constants, note, compiled, total, summed, memory=None):
        super().__init__(kernel, ndim, places, constants, note, compiled, memory)
        self.total, self.summed = total, summed
        self.plan = BlockReduction(kernel, Total((total,)))
        recipe = f"{self.token}{total.op.name}{total.dtype}{summed}"
        self.token = hashlib.sha256(recipe.encode()).hexdigest()[:32]
        self._sums: dict = {}  # the blocks' layout -> (partials' shape, C call) or _PARTS

    def _recipe(self) -> tuple:
        return (*super()._recipe(), self.total, self.summed)

    def _run(self, arrays):
        found = self._compiled(arrays, self._sums, self._summing)
        if found is not None and found is not _PARTS:
            return self._run_sums(arrays, *found)
        return self._partials(super()._run(arrays))

    def _summing(self, arrays):
        """The partials' shape and the C call summing blocks laid out as `arrays`, or _PARTS."""
        views = self._views(arrays)
        shape = np.broadcast_shapes(*(v.shape for v in views)) if views else ()
        cut = len(shape) - self.summed
        space = (*shape[:cut], math.prod(shape[cut:]))
        if not math.prod(shape):
            return _PARTS
        try:
            loads = [np.reshape(a, space, copy=False) for a in self._broadcast(views, shape)]
        except ValueError:
            return _PARTS
        dtype = self.dtypes[0]
        buffer = stand_in(space, c_strides(space, dtype.itemsize), dtype)
        return ((*shape[:cut], *(1,) * self.summed), array_call(self.plan, buffer, loads))

    def _run_sums(self, arrays, shape, call):
        out = np.empty(shape, self.total.dtype)
        function, layout = call
        run_call(function, layout, [address(out), *self._bases(arrays)], parallel=False)
        return out

    def _partials(self, value: np.ndarray) -> np.ndarray:
        """dask's chunk step of the sum over a block of the prologue's value."""
        axes = tuple(range(value.ndim - self.summed, value.ndim))
        return np.sum(value, axis=axes, dtype=self.total.dtype, keepdims=True)
