"""How the host's numpy path runs an elementwise kernel: its pass (chunks, threads, how each
load is read), worked out once per kernel and kept in its record, and, for a kernel of one
chunk, its step (fused.whole_step) reading what the run bound directly.

A load is read as its 0-d value (a fill, a fully broadcast load: converted once, numpy's
scalar loops), as its view, or as the value bound to its node; a kernel of one chunk reads a
view of a bound value as numpy's own view of it (views.method_moves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._graph import FillPart, Op, fill_value
from .._graph.views import apply_movement
from .fused import chunks, moves_of, run_chunks, whole_step
from .memo import Memo
from .pool import MIN_BYTES
from .reference import value_of
from .threads import THREADS, run_parallel

PARALLEL_MIN = 1 << 21  # elements: below this, threads cost more than they save (measured)


def load_view(load, values, chain=None) -> np.ndarray:
    """A load's value: its base seen through its `chain` (its movements, or the first of
    them)."""
    view = value_of(values, load.base)
    for step in load.chain if chain is None else chain:
        view = apply_movement(step, view)
    return view


def numpy_elementwise(kernel, values, outs, work) -> list[np.ndarray]:
    """The numpy path: the register program over the pass's chunks, into `outs`."""
    loads = [_operand(how, ld, values, work.space) for how, ld in work.reads]
    flat = [np.reshape(out, work.space) for out in outs]
    if work.parallel:
        run_parallel(lambda part: run_chunks(work.program, loads, flat, [part]), work.parts)
    else:
        run_chunks(work.program, loads, flat, work.parts, own_errstate=False)
    return outs


def _operand(how: int, load, values, space=None) -> np.ndarray:
    """A load of an elementwise kernel: a fill or a fully broadcast load as its 0-d value (so
    it is converted (half floats) once, not once per chunk, and numpy uses its scalar loops),
    else its view, reshaped to the iteration `space` when the kernel runs in chunks (a kernel
    of one chunk reads it as it is)."""
    if how is _FILL:
        return fill_value(values, load.base)
    if how is _UNBROADCAST:
        return load_view(load, values, load.chain[:-1])
    view = load_view(load, values)
    if how is _SCALAR:
        return np.asarray(view[(0,) * view.ndim])
    return view if space is None else np.reshape(view, space)


_FILL, _SCALAR, _VIEW, _BASE = 0, 1, 2, 3  # how _operand reads a load (_BASE: no movement)
_UNBROADCAST = 4  # a kernel of one chunk's load ending in a broadcast: read without it


def _whole_how(how: int, load) -> int:
    """How a kernel of one chunk reads `load`: a view whose last movement is a broadcast is
    read as the view before it, and numpy's ufuncs broadcast it against the outputs they
    write, as the explicit view would (making that view costs ~3 us, more than a small op). A
    0-d value broadcast or reshaped (a bias, a mean) is read as it is: the 0-d value a scalar
    load reads, without its view, its index and its copy."""
    if how is _VIEW and load.chain and load.chain[-1].op is Op.BROADCAST:
        return _UNBROADCAST
    if how is _SCALAR and not load.base.shape and all(s.op in _SPREAD for s in load.chain):
        return _BASE
    return how


_SPREAD = (Op.BROADCAST, Op.RESHAPE)  # NOTE: movements keeping a 0-d value's one element


def _whole_read(how: int, load) -> tuple:
    """(how, load, own, moves) of a load of a kernel of one chunk (fused.whole_step): a fill's
    own value; the movements a view of a bound value makes as ndarray calls, () for the value
    as it is (a view's movement functions cost ~1 us each, a small op's ufunc ~0.5)."""
    how = _whole_how(how, load)
    if how is _FILL:
        return how, load, _own_fill(load), None
    if how is _BASE:
        return how, load, None, ()
    chain = load.chain[:-1] if how is _UNBROADCAST else load.chain
    return how, load, None, None if how is _SCALAR else moves_of(load, chain)


def _own_fill(load):
    """The value of a fill load where the run binds none to its node: the node's own, made
    once; None for a part of another fill (its value follows that fill's binding)."""
    node = load.base
    return None if type(node.arg) is FillPart else fill_value({}, node)


@dataclass(frozen=True)
class _Pass:
    """What running an elementwise kernel needs besides its buffers, worked out once per kernel
    (a cached schedule runs the same kernels again)."""

    program: object  # the kernel record's register program (_schedule/linearize.py)
    space: tuple[int, ...]
    parts: tuple[tuple, ...]  # the chunks
    # (how, load) for each load: a fill (bound anew each run) or another fully broadcast load
    # is read as its 0-d value, any other as its view
    reads: tuple[tuple[int, object], ...]
    parallel: bool
    size: int  # elements of each output
    pooled: bool  # an output is large enough for the pool to keep (pool.MIN_BYTES)
    # a non-empty kernel of one chunk: its run as one function of (values, the outputs'
    # allocator: np.empty by default), its loads read as they are (no reshape to the
    # iteration space, no slicing), in the calling thread (fused.whole_step)
    step: object


PASSES = Memo()


def pass_of(kernel, chunk: int) -> _Pass:
    """The kernel's pass, worked out at its first run (with `chunk`, its target's) and kept."""
    return PASSES.get(kernel) or prepare_pass(kernel, chunk)


def prepare_pass(kernel, chunk: int) -> _Pass:
    parts = chunks(kernel.space, chunk)
    size = kernel.outputs[0].size
    reads = tuple((_how(ld), ld) for ld in kernel.loads)
    step = None
    if len(parts) == 1 and size:
        outputs = tuple((node.shape, node.dtype) for node in kernel.outputs)
        whole = tuple(_whole_read(how, load) for how, load in reads)
        step = whole_step(kernel.program, whole, outputs, _operand)
    work = _Pass(
        kernel.program,
        kernel.space,
        parts,
        reads,
        size >= PARALLEL_MIN and THREADS > 1 and len(parts) > 1,
        size,
        any(n.nbytes >= MIN_BYTES for n in kernel.outputs),
        step,
    )
    PASSES[kernel] = work
    return work


def _how(load) -> int:
    if any(load.strides):
        return _VIEW if load.chain or load.base.op is Op.FULL else _BASE
    return _FILL if load.base.op is Op.FULL else _SCALAR
