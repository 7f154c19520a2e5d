"""What runs on dask's workers: small picklable callables holding one kernel's recipe.

A dask graph pickles its functions once per layer and ships them to every worker, so they hold
only what a block needs: an elementwise kernel's register program (`_schedule/linearize.py`)
with each node reduced to a `Call` (op, shape, dtype, parameters), never a `Node`, whose
inputs would pickle the whole recorded history and its buffers. The numpy code that runs a
block is the cpu device's own (`fused.run_chunks`, `library.call_library_outputs`), so a block
computes the same bits as the cpu's numpy path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..._graph import Op
from ..fused import SCRATCH, chunks, run_chunks
from ..library import call_library_outputs


@dataclass(frozen=True)
class Call:
    """A node as the code running it reads it, without its inputs."""

    op: Op
    shape: tuple[int, ...]
    dtype: np.dtype
    arg: object = None
    source: str = ""


def call_of(node) -> Call:
    return Call(node.op, node.shape, node.dtype, node.arg, node.source)


def slim_program(program):
    """`program` with each step's node reduced to a Call (what `fused.evaluate` reads)."""
    steps = tuple(replace(step, node=call_of(step.node)) for step in program.steps)
    return replace(program, steps=steps)


def failure_note(name: str, calls) -> str:
    """The note an error raised in a block carries (failures.note_kernel's, for workers)."""
    lines = list(dict.fromkeys(c.source for c in calls if c.source))
    return f"lazyinfini: raised while computing {name}, recorded at {', '.join(lines) or '?'}"


def _noted(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):  # NOTE: Python 3.11+
        error.add_note(note)


def _token(*parts) -> str:
    """A stable text key for dask's tokenize: what a block computes, not where it lives."""
    return repr(parts)


def fills_key(constants) -> tuple:
    """What a block's fills are, by their bits (a cached schedule binds new ones each run)."""
    return tuple((i, str(c.dtype), c.tobytes()) for i, c in constants)


class FusedBlock:
    """One block of an elementwise kernel: each argument block placed on the output's axes,
    then the register program over it in cache-sized chunks, writing fresh outputs.

    `places[k]` is (load index, axes): positional block k is that load (None: a shape carrier
    for axes no load spans), its axis i lying on the output's axis axes[i]; a load of
    length 1 on an axis is broadcast there. `constants` are (load index, 0-d value): fills.
    """

    def __init__(self, program, ndim: int, places, constants, dtypes, note: str):
        self.program = slim_program(program)
        self.ndim = ndim
        self.places = tuple(places)
        self.constants = tuple(constants)
        self.dtypes = tuple(dtypes)
        self.note = note
        steps = tuple(
            (s.node.op.name, repr(s.node.arg), str(s.node.dtype), s.srcs, s.dst, s.slot, s.rounds)
            for s in self.program.steps
        )
        self.fills = fills_key(self.constants)
        self.token = _token(steps, self.program.outputs, self.places, self.fills, self.dtypes)

    def __dask_tokenize__(self):
        return self.token

    def __call__(self, *blocks):
        try:
            return self._run(blocks)
        except Exception as error:
            _noted(error, self.note)
            raise

    def _run(self, blocks):
        views = [
            _place(np.asarray(b), axes, self.ndim) for b, (_, axes) in zip(blocks, self.places)
        ]
        shape = np.broadcast_shapes(*(v.shape for v in views)) if views else ()
        loads: list = [None] * len(self.program.load_dtypes)
        for (index, axes), view in zip(self.places, views):
            if index is not None:
                # NOTE: a 0-d load stays 0-d: converted once, read by numpy's scalar loops.
                loads[index] = view if not axes else np.broadcast_to(view, shape)
        for index, value in self.constants:
            loads[index] = value
        outs = [np.empty(shape, dtype) for dtype in self.dtypes]
        if math.prod(shape):
            run_chunks(self.program, loads, outs, chunks(tuple(shape), SCRATCH))
        return outs[0] if len(outs) == 1 else tuple(outs)


def _place(block: np.ndarray, axes: tuple[int, ...], ndim: int) -> np.ndarray:
    """`block` as a view on the output's `ndim` axes: transposed into their order, with length
    1 where it has no axis (then broadcast by the caller). No copy."""
    if not axes:
        return block
    order = sorted(range(len(axes)), key=axes.__getitem__)
    view = block.transpose(order)
    shape = [1] * ndim
    for i, axis in enumerate(sorted(axes)):
        shape[axis] = view.shape[i]
    return view.reshape(shape)


class LibraryBlock:
    """A library call on one block that holds whole every axis the call needs (a sort's axis,
    an fft's, a stack of matrices' last two). `shape[j]` is the output's length on axis j, or
    None where it is the input block's own (an axis the call maps element by element)."""

    def __init__(self, call: Call, shape: tuple, note: str):
        self.call = call
        self.shape = shape
        self.note = note
        self.token = _token(call.op.name, repr(call.arg), str(call.dtype), shape)

    def __dask_tokenize__(self):
        return self.token

    def __call__(self, block):
        block = np.asarray(block)
        shape = tuple(block.shape[j] if n is None else n for j, n in enumerate(self.shape))
        try:
            with np.errstate(all="ignore"):  # Note (spec): IEEE special values are results
                (out,) = call_library_outputs((replace(self.call, shape=shape),), [block])
        except Exception as error:
            _noted(error, self.note)
            raise
        return out


class WholeCall:
    """A library call on whole arrays, in one task: the items of every call in `calls` (qr's Q
    and R are two items of one call)."""

    def __init__(self, calls: tuple[Call, ...], note: str):
        self.calls = calls
        self.note = note
        self.token = _token(tuple((c.op.name, repr(c.arg), str(c.dtype), c.shape) for c in calls))

    def __dask_tokenize__(self):
        return self.token

    def __call__(self, *arrays):
        try:
            with np.errstate(all="ignore"):
                return call_library_outputs(self.calls, [np.asarray(a) for a in arrays])
        except Exception as error:
            _noted(error, self.note)
            raise
