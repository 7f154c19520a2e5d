"""One fused elementwise kernel on the CPU: walk the output in cache-sized chunks and evaluate the
whole op list per chunk with numpy ufuncs writing into per-thread scratch (`out=`).

No full-size temporaries: each input is read once and the output written once. Half floats are
loaded into float32, computed, and each op's result is rounded to its dtype in the chunk, as the
unfused and reference executors (and numpy) round it: fusion never changes a result.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from dataclasses import dataclass, replace

import numpy as np

from .. import _dtypes
from .._graph import Node, Op, inputs_of
from .ufuncs import UFUNCS

CHUNK = 1 << 17  # elements per chunk: the best of 8K..128K measured at 1M and 16M float32


@dataclass(frozen=True)
class Step:
    """One node of the program: the node's op over registers `srcs` into register `dst`, which
    lives in scratch `slot` (None: it is computed straight into an output)."""

    node: Node
    srcs: tuple[int, ...]
    dst: int
    dtype: np.dtype  # the register's dtype: the node's compute dtype
    slot: int | None = None
    rounds: bool = False  # a half float result read by later steps: round it to node.dtype


class Program:
    """A kernel's nodes as register steps. Registers 0..n-1 hold the loads."""

    def __init__(self, nodes: tuple[Node, ...], loads: tuple[Node, ...], outputs: tuple[Node, ...]):
        register = {node: i for i, node in enumerate(loads)}
        self.load_dtypes = [_dtypes.compute_dtype(n.dtype) for n in loads]
        steps = []
        for node in nodes:
            srcs = tuple(register[s] for s in inputs_of(node))
            register[node] = len(register)
            steps.append(Step(node, srcs, register[node], _dtypes.compute_dtype(node.dtype)))
        self.registers = len(register)
        self.outputs = [register[n] for n in outputs]
        # A step whose register is an output of the same dtype computes straight into it.
        self.direct = {
            register[n]: j
            for j, n in enumerate(outputs)
            if _dtypes.compute_dtype(n.dtype) == n.dtype
        }
        self.steps = _assign_slots(_rounding(steps), self.outputs, self.direct)

    def evaluate(self, loads: list[np.ndarray], outs: list[np.ndarray], scratch: Scratch) -> None:
        """Compute one chunk: `loads` and `outs` are views of the chunk."""
        regs: list = [None] * self.registers
        for i, (view, dtype) in enumerate(zip(loads, self.load_dtypes)):
            regs[i] = (
                view if view.dtype == dtype else scratch.take(("load", i), view.shape, dtype, view)
            )
        shape = outs[0].shape
        for step in self.steps:
            if step.slot is None:
                target = outs[self.direct[step.dst]]
            else:
                target = scratch.take(step.slot, shape, step.dtype)
            regs[step.dst] = _run_step(step, [regs[s] for s in step.srcs], target, scratch)
            if step.rounds:
                _round(target, step.node.dtype, scratch)
        for j, reg in enumerate(self.outputs):
            if reg not in self.direct:
                np.copyto(outs[j], regs[reg], casting="unsafe")  # the one rounding


def _rounding(steps: list[Step]) -> list[Step]:
    """Mark the half float results that later steps read. numpy (and the unfused executors)
    round every op's result to float16/bfloat16; a float32 register carried on would not be
    rounded until the store, and `(x + 0.1) > 1000` could differ. A result read only by the
    store is rounded there. A cast into a half float rounds itself (_run_step)."""
    read = {src for step in steps for src in step.srcs}
    return [
        replace(
            step,
            rounds=step.node.dtype != step.dtype
            and step.dst in read
            and step.node.op is not Op.ASTYPE,
        )
        for step in steps
    ]


def _round(values: np.ndarray, dtype: np.dtype, scratch) -> None:
    """Round float32 `values` in place to the nearest `dtype` value (through a scratch buffer)."""
    rounded = scratch.take("round", values.shape, dtype)
    np.copyto(rounded, values, casting="unsafe")
    np.copyto(values, rounded)


def _assign_slots(steps: list[Step], outputs: list[int], direct: dict) -> list[Step]:
    """Scratch slots for the registers, reused once a register is dead, so scratch memory is the
    number of values live at once, not the number of nodes. A step never writes into the slot
    of one of its own inputs (some implementations read their inputs after writing)."""
    last = {src: k for k, step in enumerate(steps) for src in step.srcs}
    last.update({reg: len(steps) for reg in outputs})
    free: list[int] = []
    slot_of: dict[int, int | None] = {}
    result = []
    for k, step in enumerate(steps):
        slot = None if step.dst in direct else (free.pop() if free else len(slot_of))
        slot_of[step.dst] = slot
        result.append(replace(step, slot=slot))
        for src in set(step.srcs):
            if last.get(src) == k and slot_of.get(src) is not None:
                free.append(slot_of[src])
    return result


def _run_step(step: Step, inputs: list[np.ndarray], target: np.ndarray, scratch) -> np.ndarray:
    node = step.node
    if node.op is Op.ASTYPE:
        if node.dtype != step.dtype:
            # NOTE: a cast to a half float must round there, as the user asked, even though the
            # value is then carried in float32.
            rounded = scratch.take("round", target.shape, node.dtype)
            np.copyto(rounded, inputs[0], casting="unsafe")
            inputs = [rounded]
        np.copyto(target, inputs[0], casting="unsafe")
        return target
    return UFUNCS[node.op](inputs, node.arg, out=target)


class Scratch:
    """Per-thread buffers of CHUNK elements, one per (register, dtype), reused every chunk."""

    def __init__(self):
        self.buffers: dict[tuple, np.ndarray] = {}
        self.views: dict[tuple, np.ndarray] = {}  # (key, dtype, shape) -> view of its buffer

    def take(self, key, shape, dtype, fill: np.ndarray | None = None) -> np.ndarray:
        view = self.views.get((key, dtype, shape))
        if view is None:
            view = self._view(key, shape, dtype)
        if fill is not None:
            np.copyto(view, fill, casting="unsafe")
        return view

    def _view(self, key, shape, dtype) -> np.ndarray:
        size = math.prod(shape)
        buf = self.buffers.get((key, dtype))
        if buf is None or buf.size < size:
            buf = self.buffers[(key, dtype)] = np.empty(max(size, CHUNK), dtype)
            self.views = {k: v for k, v in self.views.items() if k[:2] != (key, dtype)}
        view = self.views[(key, dtype, shape)] = buf[:size].reshape(shape)
        return view


@functools.lru_cache(maxsize=256)
def chunks(space: tuple[int, ...], target: int = CHUNK) -> tuple[tuple, ...]:
    """Index tuples covering `space` in C order, each about `target` elements or fewer (a tuple:
    the result is cached and shared)."""
    if not space:
        return ((Ellipsis,),)  # NOTE: x[()] of a 0-d array is a scalar; x[...] stays an array
    inner = 1
    axis = len(space)
    while axis > 0 and inner * space[axis - 1] <= target:
        axis -= 1
        inner *= space[axis]
    if axis == 0:
        return ((slice(None),) * len(space),)
    rows = max(1, target // inner)
    split = space[axis - 1]
    tail = (slice(None),) * (len(space) - axis)
    return tuple(
        (*outer, slice(r, min(r + rows, split)), *tail)
        for outer in np.ndindex(*space[: axis - 1])
        for r in range(0, split, rows)
    )


_local = threading.local()


def run_chunks(program: Program, loads, outs, parts, own_errstate=True) -> None:
    """Evaluate `program` over the chunks `parts` (one thread's share). A helper thread sets
    its own error state (numpy's is per thread); the caller's thread has it set already."""
    # NOTE: each thread keeps its scratch between kernels: fresh pages cost page faults.
    scratch = getattr(_local, "scratch", None) or Scratch()
    _local.scratch = scratch
    with np.errstate(all="ignore") if own_errstate else contextlib.nullcontext():
        for index in parts:
            chunk = [v[index] if v.ndim else v for v in loads]  # 0-d: a broadcast scalar
            program.evaluate(chunk, [o[index] for o in outs], scratch)
