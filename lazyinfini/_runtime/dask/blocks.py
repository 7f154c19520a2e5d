"""What runs on dask's workers: small picklable callables holding one kernel's recipe.

A dask graph pickles its functions once per layer and ships them to every worker, so they hold
only what a block needs: an elementwise kernel's register program (`_schedule/linearize.py`)
with each node reduced to a `Call` (op, shape, dtype, parameters), never a `Node`, whose
inputs would pickle the whole recorded history and its buffers. A block runs the kernel's C
function, the one the cpu device compiles (`compiled.run_arrays` over the block's own shape
and strides), or the cpu's numpy path (`fused.run_chunks`, `library.call_library_outputs`):
either gives the cpu's bits.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..._counters import counters
from ..._graph import Op
from ..._graph.views import c_strides, stand_in
from ..._render.compile import CompileError, NoCompiler
from ..compiled import address, array_calls, run_calls
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


@dataclass(frozen=True)
class Operand:
    """A kernel's output or load node as the C renderer reads it: its dtype."""

    dtype: np.dtype


@dataclass(frozen=True)
class Read:
    """A load as the C renderer reads it: its node's dtype and its recorded strides (all zero:
    one value, whose bounds numpy's clip treats as scalars)."""

    node: Operand
    strides: tuple[int, ...]


@dataclass(frozen=True)
class BlockKernel:
    """An elementwise kernel record reduced to what `compiled.run_arrays` renders from: the
    slim register program, the loads' and outputs' dtypes. What a worker works out for it (its
    loaded functions) stays in its own __dict__ and never travels."""

    program: object
    loads: tuple[Read, ...]
    outputs: tuple[Operand, ...]

    def __reduce__(self):
        return BlockKernel, (self.program, self.loads, self.outputs)


def block_kernel(kernel) -> BlockKernel:
    """`kernel` (an elementwise Kernel record) reduced to a BlockKernel."""
    loads = tuple(Read(Operand(ld.node.dtype), ld.strides) for ld in kernel.loads)
    outputs = tuple(Operand(n.dtype) for n in kernel.outputs)
    return BlockKernel(slim_program(kernel.program), loads, outputs)


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
    then the kernel over it, writing fresh outputs: its C function where `compiled` (and the
    worker compiles), else the register program in cache-sized numpy chunks. Either runs in
    the task's own thread: dask runs one task per core already.

    `places[k]` is (load index, axes): positional block k is that load (None: a shape carrier
    for axes no load spans), its axis i lying on the output's axis axes[i]; a load of
    length 1 on an axis is broadcast there. `constants` are (load index, 0-d value): fills.

    A worker process keeps one instance per recipe (`_revived`): the tasks of a layer arrive
    pickled one by one, and its functions are found once, not once per task. The recipe
    travels as bytes pickled once (`_payload`), unpickled only by the first task of a layer in
    a process: a later task's unpickling is a dict lookup, not the whole program's.

    `memory` is the run's allocator (the device's, over the cpu's pool: warm memory, no page
    faults), used in the process that made the block, whose materializations keep the pool;
    another process (a worker's) allocates plain numpy memory, which it frees at once.
    """

    def __init__(self, kernel, ndim: int, places, constants, note: str, compiled, memory=None):
        self.kernel = kernel
        self.program = kernel.program
        self.ndim = ndim
        self.places = tuple(places)
        self.constants = tuple((i, np.asarray(value)) for i, value in constants)
        self.dtypes = tuple(out.dtype for out in kernel.outputs)
        self.note = note
        self.compiled = bool(compiled)
        self.memory, self.home = memory, os.getpid()
        self.fills = fills_key(self.constants)
        self.token = _recipe_token(self)
        self._sources = _sources(self.places, self.constants, len(kernel.loads))
        self._plans: dict = {}  # the blocks' layout -> (the block's shape, its C calls)
        self._payload: bytes | None = None  # the recipe pickled, made at the first pickling

    def __dask_tokenize__(self):
        return self.token

    def __reduce__(self):
        if self._payload is None:
            # NOTE: no allocator: another process's own
            self._payload = pickle.dumps((type(self), self._recipe()))
        return _revived, (self.token, self._payload)

    def _recipe(self) -> tuple:
        """The arguments making this block function again (in a worker)."""
        return (self.kernel, self.ndim, self.places, self.constants, self.note, self.compiled)

    def __call__(self, *blocks):
        try:
            return self._run([np.asarray(b) for b in blocks])
        except Exception as error:
            _noted(error, self.note)
            raise

    def _run(self, arrays):
        plan = self._compiled(arrays, self._plans, self._planned)
        if plan is not None:
            return self._run_c(arrays, *plan)
        return self._run_numpy(arrays)

    def _compiled(self, arrays, plans: dict, make):
        """What `make(arrays)` works out for blocks laid out as `arrays` are (their C calls),
        kept in `plans` for the blocks of that layout (a layer's blocks share a few: the edges'
        differ); None where the C path does not run (no compiler, a failed compile)."""
        if not self.compiled or _C_OFF:
            return None
        key = tuple([(a.shape, a.strides) for a in arrays])
        plan = plans.get(key)
        if plan is None:
            try:
                plan = make(arrays)
            except CompileError as error:
                self._fall_back(error)
                return None
            if len(plans) >= PLANS_MAX:
                plans.clear()
            plans[key] = plan
        return plan

    def _planned(self, arrays) -> tuple:
        """The block's shape and the C calls computing blocks laid out as `arrays` are."""
        views = self._views(arrays)
        shape = np.broadcast_shapes(*(v.shape for v in views)) if views else ()
        calls = ()
        if math.prod(shape):
            # NOTE: only the outputs' layout counts (C-contiguous, as allocated)
            outs = [stand_in(shape, c_strides(shape, t.itemsize), t) for t in self.dtypes]
            operands = merged_dims([*outs, *self._broadcast(views, shape)])
            calls = array_calls(self.kernel, operands[: len(outs)], operands[len(outs) :])
        return (tuple(shape), calls)

    def _broadcast(self, views, shape) -> list[np.ndarray]:
        """Each load as an array of the block's `shape`: its view, or its fill, broadcast."""
        loads: list = [None] * len(self._sources)
        for (index, _), view in zip(self.places, views):
            if index is not None:
                loads[index] = np.broadcast_to(view, shape)
        for index, value in self.constants:
            loads[index] = np.broadcast_to(value, shape)
        return loads

    def _bases(self, arrays) -> list[int]:
        """The loads' addresses in this block (a fill's is its value's)."""
        return [address(arrays[k]) if k is not None else at for k, at in self._sources]

    def _run_c(self, arrays, shape, calls):
        """The kernel's C calls over the block: each operand's address into its calls."""
        outs = self._outs(shape)
        if calls:
            run_calls(calls, [*(address(out) for out in outs), *self._bases(arrays)])
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _run_numpy(self, arrays):
        """The register program over the block in cache-sized chunks."""
        views = self._views(arrays)
        shape = np.broadcast_shapes(*(v.shape for v in views)) if views else ()
        outs = self._outs(shape)
        if math.prod(shape):
            loads: list = [None] * len(self.program.load_dtypes)
            for (index, axes), view in zip(self.places, views):
                if index is not None:
                    # NOTE: a 0-d load stays 0-d: converted once, read by numpy's scalar loops.
                    loads[index] = view if not axes else np.broadcast_to(view, shape)
            for index, value in self.constants:
                loads[index] = value
            run_chunks(self.program, loads, outs, chunks(tuple(shape), SCRATCH))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _views(self, arrays) -> list[np.ndarray]:
        return [_place(a, axes, self.ndim) for a, (_, axes) in zip(arrays, self.places)]

    def _outs(self, shape) -> list[np.ndarray]:
        if self.memory is not None and self.home == os.getpid():
            return [self.memory(shape, dtype) for dtype in self.dtypes]
        return [np.empty(shape, dtype) for dtype in self.dtypes]

    def _fall_back(self, error: CompileError) -> None:
        """The numpy path from now on: for every block of this worker where it has no compiler,
        else for this kernel's (its compile failed); one warning either way."""
        counters.c_fallbacks += 1
        if isinstance(error, NoCompiler):
            if not _C_OFF:
                _C_OFF.append(error)
                _warn(f"compiled kernels unavailable on this dask worker, using numpy ({error})")
            return
        self.compiled = False
        _warn(f"a kernel's C failed on this dask worker, it runs in numpy ({error})")


_C_OFF: list = []  # NOTE: set once no compiler runs in this process: one warning, then numpy
_LIVE: dict[str, FusedBlock] = {}  # token -> this process's instance (the latest ones)
LIVE_MAX = 256
PLANS_MAX = 64  # block layouts a FusedBlock keeps the calls of


def _recipe_token(block: FusedBlock) -> str:
    """What `block` computes, as a digest (it travels with every task): the program, where
    its loads come from, its fills, dtypes and path; the note too (it names the lines)."""
    steps = tuple(
        (s.node.op.name, repr(s.node.arg), str(s.node.dtype), s.srcs, s.dst, s.slot, s.rounds)
        for s in block.program.steps
    )
    reads = tuple((str(r.node.dtype), any(r.strides)) for r in block.kernel.loads)
    parts = (steps, block.program.outputs, block.places, block.fills, block.dtypes, reads)
    recipe = f"{_token(*parts)}{block.compiled}{block.note}"
    return hashlib.sha256(recipe.encode()).hexdigest()[:32]


def _sources(places, constants, count: int) -> tuple:
    """Where a C call finds each of `count` loads: (its positional block's index, 0), or
    (None, the address of its fill's value)."""
    at = {index: k for k, (index, _) in enumerate(places) if index is not None}
    fixed = {index: address(value) for index, value in constants}
    return tuple((at[i], 0) if i in at else (None, fixed[i]) for i in range(count))


def _revived(token: str, payload: bytes) -> FusedBlock:
    """The block function (a FusedBlock or a subclass) of `token` in this process: the one met
    before, else made now from its pickled recipe."""
    block = _LIVE.get(token)
    if block is None:
        if len(_LIVE) >= LIVE_MAX:
            del _LIVE[next(iter(_LIVE))]
        kind, recipe = pickle.loads(payload)
        block = _LIVE[token] = kind(*recipe)
    return block


def _warn(message: str) -> None:
    warnings.warn(f"lazyinfini: {message}", RuntimeWarning, stacklevel=2)


def merged_dims(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """Arrays of one shape viewed with the adjacent dims that every one walks as one dim
    merged and length-1 dims dropped (at least 1-d): fewer, longer runs for a C function, and
    fewer distinct functions (a block of contiguous arrays is 1-d). No copy."""
    shape = arrays[0].shape
    groups: list[list[int]] = []
    for d in range(len(shape)):
        if shape[d] == 1:
            continue
        last = groups[-1][-1] if groups else None
        if last is not None and all(a.strides[last] == a.strides[d] * shape[d] for a in arrays):
            groups[-1].append(d)
        else:
            groups.append([d])
    merged = tuple(math.prod(shape[d] for d in group) for group in groups) or (1,)
    if merged == shape:
        return arrays
    return [np.reshape(a, merged, copy=False) for a in arrays]


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
