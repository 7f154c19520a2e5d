"""The CPU device (the default): fused elementwise passes over chunks, planned rearranges,
library calls, threads, on host memory.

A table of handlers, one per kernel kind, run by the one run loop (run.py). Outputs come from
the pool (pool.py), so the memory of a dropped value is reused by later kernels and later runs
once nothing views it.
"""

from __future__ import annotations

import dataclasses
import operator
import os
import warnings

import numpy as np

from .._counters import counters
from .._device import Device
from .._graph import Op, fill_value
from .._render import elementwise as c_kernels
from .._render.compile import CompileError, NoCompiler, compiler
from .._schedule.kernels import Kind
from .._schedule.target import Target
from .c_compiling import C_KERNELS
from .compiled import TILED_MIN, address, copied, run_compiled
from .compiled_chain import CHAINS, DONE, WAITING, Waiting, chain_notes, find_chains, run_middle
from .compiled_matvec import plan_of as matvec_plan
from .compiled_matvec import run as run_matvec
from .compiled_rearrange import run_compiled as run_compiled_rearrange
from .compiled_reduction import run_compiled as run_compiled_reduction
from .errstate import CPU_CONTEXT
from .fused import moves_of, view_step
from .library import call_step, kernel_call
from .machine import last_level_cache
from .memo import Memo
from .numpy_loops import missing
from .passes import load_view, numpy_elementwise, pass_of
from .pool import MIN_BYTES, POOL
from .rearrange import SERIAL_BYTES, run_rearrange
from .reduction import in_parts, parts_step
from .reference import source_value, value_of
from .run import direct_runner
from .text import byte_size
from .threads import THREADS

# A C kernel starts in microseconds, not a chunk loop's tens: threads pay from fewer elements
# (1M float32 clip(a - b): 0.39 ms on one thread, 0.28 ms on two).
C_PARALLEL_MIN = 1 << 18


# NOTE: LAZYINFINI_COMPILE_MIN (elements; read once, at import) moves the C path's threshold:
# 0 compiles every elementwise kernel (to test the C path on small arrays).
# Tiles for compiled copies (measured in C, 2 threads: an 8192^2 float32 transpose 33.6 -> 21.3
# ms with 16 aliasing rows; NCHW->NHWC uint8 with the 3 channels as the inner loop 3.4 -> 0.7 ms).
# A compiling target copies a transposing block in line tiles (Target.tile_lines: whole cache
# lines read and written), where the aliasing-rows cap does not apply (2048^2 float32 7.2 ->
# 1.0 ms). These plans run slower in numpy than numpy's own tiles (2048^2 float32 2.5 -> 4.2
# ms): a machine without a compiler plans with numpy's.
def _cpu_target() -> Target:
    """The cpu's Target: tuned for compiled kernels, or numpy's tiles where no compiler is
    found (numpy then runs every kernel; compile_min stays, so explain() says why)."""
    compile_min = int(os.environ.get("LAZYINFINI_COMPILE_MIN", 1 << 16))
    if compiler() is None:
        return Target("cpu", compile_min=compile_min, numpy_orders=True)
    return Target(
        "cpu",
        compile_min=compile_min,
        # NOTE: C sums a prologue's rows in numpy's order (_render/reduction.py); a machine
        # without a compiler keeps the unfused kernels (numpy's sum of a written value).
        reduce_prologues=True,
        numpy_orders=True,
        tile_set_ways=16,
        tile_min_inner=1,
        # NOTE: a compiled tiled copy beats numpy's destination-order walk even where that
        # walk stays in cache (NCHW->NHWC (32,64,56,56) float32: 1.3 ms against 4.4 ms).
        local_walk_rows=0,
        # NOTE: a compiled kernel reads a transposed load in tiles (compiled.py): clip(aT - b)
        # 4096^2 float32 9.8 ms against 27 ms with a rearrange first. Over a short inner dim
        # (NCHW->NHWC with 3 channels) the rearrange's tiles are better.
        tiled_read_min_inner=64,
        tile_lines=True,
        # NOTE: a kernel moving more than the LLC writes with non-temporal stores (no
        # read-for-ownership of its lines), measured against plain stores in one process,
        # medians of 12 alternating rounds while other processes loaded both cores:
        # clip(a - b) float32 16M 0.82x the time, 4M 1.02x; clip(x - mean) (32, 64, 56, 56)
        # 0.85x; either followed by a kernel reading its output 0.86-0.88x.
        stream_min_bytes=last_level_cache(),
    )


TARGET = _cpu_target()


def empty(shape: tuple[int, ...], dtype, settings) -> np.ndarray:
    """An output from the pool, within the run's pool_bytes."""
    return POOL.empty(shape, dtype, settings.pool_bytes)


def elementwise_on(target: Target):
    """The elementwise handler of a host device with `target`."""

    def elementwise(kernel, values, memory) -> list[np.ndarray]:
        return _elementwise(kernel, values, memory, target)

    return elementwise


def _elementwise(kernel, values, memory, target) -> list[np.ndarray]:
    """A fused kernel in C where it can run there (path_of says), else in numpy chunks."""
    chain = CHAINS.get(kernel)
    if chain is not None and type(values.get(chain.first.outputs[0])) is Waiting:
        outs = run_middle(chain, values, memory, _c_bases)
        if outs is not None:
            return outs
    if path_of(kernel, target) != C_PATH:
        work = pass_of(kernel, target.chunk)
        if work.step is not None:  # NOTE: one chunk, read as it is, in the calling thread
            return work.step(values, memory if work.pooled else np.empty)
        if work.pooled:
            outs = [memory(n.shape, n.dtype) for n in kernel.outputs]
        else:  # NOTE: what the pool gives for small outputs, without its bookkeeping (~1 us)
            outs = [np.empty(n.shape, n.dtype) for n in kernel.outputs]
        return numpy_elementwise(kernel, values, outs, work) if work.size else outs
    outs = [memory(n.shape, n.dtype) for n in kernel.outputs]
    if kernel.outputs[0].size == 0:
        return outs
    try:
        held = []  # NOTE: copies made for this run: alive until the kernel returns
        bases = _c_bases(kernel, outs, values, held)
        parallel = kernel.outputs[0].size >= C_PARALLEL_MIN and THREADS > 1
        run_compiled(kernel, bases, parallel)
        return outs
    except CompileError as error:
        _fall_back(error, kernel)
    work = pass_of(kernel, target.chunk)
    return numpy_elementwise(kernel, values, outs, work)


def _c_bases(kernel, outs, values, held: list) -> list[int]:
    """The addresses of a C elementwise kernel's operands: its outputs', then its loads'."""
    bases = [address(out) for out in outs]
    return bases + [_loadaddress(ld, values, copy, held) for ld, copy in _reads_of(kernel)]


def _reads_of(kernel) -> tuple:
    """(load, whether a run passes it as a C-contiguous copy) for each load of a C kernel."""
    found = _READS.get(kernel)
    if found is None:
        found = _READS[kernel] = tuple(zip(kernel.loads, copied(kernel)))
    return found


_READS = Memo()


def _loadaddress(load, values, copy: bool, held: list) -> int:
    """The address of a load's element [0, ..., 0] as the kernel's calls assume it laid out
    (compiled.stand_ins): its base's plus the load's offset, or a copy's."""
    if copy:
        value = np.ascontiguousarray(np.reshape(load_view(load, values), load.shape))
        held.append(value)
        return address(value)
    base = load.base
    if base.op is Op.FULL:
        # NOTE: held: a fill another kernel of this run computed is read as a 0-d array made
        # here, whose memory was free (and reused) before the kernel read it
        value = fill_value(values, base)
        held.append(value)
        return address(value)
    value = values.get(base)
    if value is None:
        value = value_of(values, base)
    # NOTE: C reads nothing of an array but its address: a buffer laid out otherwise than the
    # schedule recorded would be read wrong (the cache keys schedules by buffers' strides)
    if base.op is Op.BUFFER and value.strides != base.layout.strides and value.size > 1:
        raise RuntimeError(f"lazyinfini: internal error: {base} has strides {value.strides}")
    return address(value) + load.offset


C_PATH = "compiled C"
MATVEC_PATH = "compiled C matrix-vector product (its bits depend on the shapes, not the threads)"


def path_of(kernel, target: Target) -> str:
    """How a host device runs an elementwise or rearrange kernel, and why not in C when not."""
    path = _PATHS.get(kernel)
    if path is None:
        path = _path(kernel, target)
        _PATHS[kernel] = path
    return path


_NUMPY_PATHS = {
    Kind.ELEMENTWISE: "numpy chunks",
    Kind.REARRANGE: "numpy copies",
    Kind.REDUCE: "numpy chunks, then numpy's sum",
}


def _path(kernel, target: Target) -> str:
    numpy = _NUMPY_PATHS[kernel.kind]
    least = target.compile_min
    if least is None:
        return f"{numpy} (this device does not compile)"
    if kernel.kind is Kind.REDUCE:
        kernel = kernel.plan.prologue  # NOTE: C runs it, then sums its runs as numpy does
    if kernel.outputs[0].size < least:
        return f"{numpy} (under {least} elements: a compile costs more)"
    if _C_OFF:
        return f"{numpy} (no C compiler)"
    if compiler() is None:  # NOTE: known before a compile fails: explain() says it, warned once
        _fall_back(NoCompiler("no C compiler found ($CC, cc, gcc, clang)"), kernel)
        return f"{numpy} (no C compiler)"
    if kernel.kind is Kind.REARRANGE:
        # NOTE: a direct copy is numpy's own cache-friendly walk; C runs the tiled plans.
        return C_PATH if kernel.method == "tiled" else f"{numpy} (a direct copy)"
    loops = c_kernels.borrowed(kernel)
    why = c_kernels.unsupported(kernel) or missing(loops) or _reversed_for(loops, kernel)
    return C_PATH if why is None else f"{numpy} ({why})"


def _reversed_for(loops: list, kernel) -> str | None:
    """Why a kernel borrowing numpy's loops runs numpy's path: an operand read backwards. numpy
    gives such a call other bits than its contiguous loop, which C runs (np.exp(x[::-1])
    iterates x forwards and writes backwards, another SIMD loop; 2-50% of the values differ in
    the last bit); the numpy path makes numpy's own calls on the same views."""
    if loops and any(s < 0 for load in kernel.loads for s in load.strides):
        return f"{loops[0][0]} of an operand read backwards: numpy's bits depend on its strides"
    return None


_PATHS = Memo()
_C_OFF: list = []  # NOTE: set once no compiler runs: one warning, then numpy for every kernel


def _fall_back(error: CompileError, kernel) -> None:
    """The numpy path from now on: for every kernel when no compiler runs (NoCompiler), else
    for this kernel (its compile or load failed: a compiler bug, a missing numpy loop)."""
    counters.c_fallbacks += 1
    if isinstance(error, NoCompiler):
        if not _C_OFF:
            _C_OFF.append(error)
            _warn(f"compiled kernels unavailable, using numpy ({error})")
        _PATHS.clear()
        return
    reason = str(error).splitlines()[0][:200]
    _PATHS[kernel] = f"{_NUMPY_PATHS[kernel.kind]} ({reason})"
    _warn(f"a kernel's C failed, it runs in numpy ({reason})")


def _warn(message: str) -> None:
    warnings.warn(f"lazyinfini: {message}", RuntimeWarning, stacklevel=4)


def rearrange_on(target: Target):
    """The rearrange handler of a host device with `target`."""

    def rearrange(kernel, values, memory) -> list[np.ndarray]:
        (load,) = kernel.loads
        copy = kernel.outputs[0]
        out, src = memory(copy.shape, copy.dtype), load_view(load, values)
        if path_of(kernel, target) == C_PATH:
            try:
                threads = kernel.plan.nbytes >= SERIAL_BYTES and THREADS > 1
                run_compiled_rearrange(kernel.plan, src, out, threads)
                return [out]
            except CompileError as error:
                _fall_back(error, kernel)
        run_rearrange(kernel.plan, src, out, kernel.method)
        return [out]

    return rearrange


def reduce_on(target: Target, handlers: dict):
    """The REDUCE handler of a host device with `target`: one C pass where the prologue runs
    in C (path_of), else its parts through `handlers` (the elementwise and opaque ones)."""
    parts = in_parts(handlers)

    def reduce(kernel, values, memory) -> list[np.ndarray]:
        if path_of(kernel, target) == C_PATH:
            (total,) = kernel.outputs
            out = memory(total.shape, total.dtype)
            try:
                _reduce_compiled(kernel.plan, values, out)
                return [out]
            except CompileError as error:
                _fall_back(error, kernel)
        return parts(kernel, values, memory)

    return reduce


def _reduce_compiled(plan, values, out: np.ndarray) -> None:
    held = []  # NOTE: copies made for this run: alive until the kernel returns
    bases = [address(out)]
    bases += [_loadaddress(ld, values, copy, held) for ld, copy in _reads_of(plan.prologue)]
    parallel = plan.prologue.outputs[0].size >= C_PARALLEL_MIN and THREADS > 1
    run_compiled_reduction(plan, bases, parallel)


def _view(kernel, values, memory) -> list[np.ndarray]:
    return [load_view(kernel.loads[0], values)]


def _opaque(kernel, values, memory) -> list[np.ndarray]:
    return kernel_call(kernel).run([load_view(ld, values) for ld in kernel.loads])


def _opaque_on(target: Target):
    """The opaque handler of a host device with `target`: large matrix-vector products in C
    where it compiles (compiled_matvec.py), every other call the library's."""
    if target.compile_min is None:
        return _opaque

    def opaque(kernel, values, memory) -> list[np.ndarray]:
        matrix = matvec_plan(kernel, target)
        if matrix is None or _C_OFF:
            return _opaque(kernel, values, memory)
        if DONE.get(kernel) and values.get(kernel.outputs[0]) is not None:
            return [values[kernel.outputs[0]]]  # NOTE: its chain computed it
        x1, x2 = [load_view(ld, values) for ld in kernel.loads]
        if WAITING.get(kernel):  # NOTE: its chain's middle kernel, its one reader, computes it
            return [Waiting(x1, x2)]
        return [run_matvec(matrix, x1, x2, THREADS > 1)]

    return opaque


def _source(kernel, values, memory) -> list[np.ndarray]:
    (node,) = kernel.nodes
    return [source_value(values, node)]


def runner_on(target: Target, handlers: dict):
    """A host device's runner (Device.runner): a schedule of small kernels on the numpy path
    (elementwise kernels of one chunk, library calls, views, sources, and reductions and
    copies into outputs too small for the pool) runs as the list of its steps, without the run
    loop's handler lookups, outputs from malloc (what the pool gives them, without its
    bookkeeping); a schedule with any other kernel (C, chunks, threads, the pool's outputs)
    runs in the loop. A small script's materialization is mostly such kernels."""

    def step_of(kernel):
        kind = kernel.kind
        if kind is Kind.ELEMENTWISE:
            return _whole_step(kernel, target)
        if kind is Kind.OPAQUE and (target.compile_min is None or _numpy_call(kernel, target)):
            return _opaque_step(kernel, handlers)
        if kind is Kind.VIEW and (moves := moves_of(kernel.loads[0])):
            return view_step(kernel.loads[0], moves, load_view)
        if kind in _UNPOOLED:  # NOTE: their outputs are never the pool's
            return _handler_step(handlers[kind], kernel)
        if kind in _COMPILED and path_of(kernel, target) == C_PATH:
            return None
        made = kernel.outputs
        if kind is Kind.REDUCE:  # NOTE: its prologue's values are made too (reduction.in_parts)
            made = (*made, *kernel.plan.prologue.outputs)
        if any(node.nbytes >= MIN_BYTES for node in made):
            return None
        if kind is Kind.REDUCE and (prologue := _whole_step(kernel.plan.prologue, target)):
            return parts_step(kernel, prologue, _opaque_step(kernel.plan.total, handlers))
        return _handler_step(handlers[kind], kernel)

    return direct_runner(step_of, operator.call, CPU_CONTEXT)


def _opaque_step(kernel, handlers: dict):
    """A library call's step: generated for a call of one result, else its handler's."""
    return call_step(kernel, load_view) or _handler_step(handlers[Kind.OPAQUE], kernel)


def _numpy_call(kernel, target: Target) -> bool:
    """Whether an opaque kernel is numpy's call (not a matrix-vector product in C)."""
    return matvec_plan(kernel, target) is None


def _whole_step(kernel, target: Target):
    """An elementwise kernel's step: its register program over one chunk, or None (C, chunks,
    threads, the pool's outputs: the handler's)."""
    if path_of(kernel, target) == C_PATH:
        return None
    work = pass_of(kernel, target.chunk)
    return None if work.pooled else work.step


_UNPOOLED = (Kind.OPAQUE, Kind.VIEW, Kind.SOURCE)  # kinds whose handler allocates nothing


def _handler_step(handler, kernel):
    """A kernel's step through its handler, its outputs from malloc (_fresh)."""
    return lambda values: handler(kernel, values, _fresh)


def _fresh(shape: tuple[int, ...], dtype) -> np.ndarray:
    return np.empty(shape, dtype)


def prepare_on(target: Target):
    """The hook compiling a new schedule's C kernels (elementwise and rearrange) in one
    compiler run, before it runs."""
    # NOTE: marked in the schedule record (a WeakSet's `in` makes a weak reference each time:
    # every materialization asks)
    prepared = Memo()

    def prepare(schedule) -> None:
        if not prepared.first(schedule):
            return
        records = []
        for kernel in schedule.kernels:
            if kernel.kind in _COMPILED and kernel.outputs[0].size:
                if path_of(kernel, target) == C_PATH:
                    records.append(kernel if kernel.kind is Kind.ELEMENTWISE else kernel.plan)
        C_KERNELS.prepare(records)
        if not _C_OFF:
            find_chains(schedule, *_chain_tests(target))

    return prepare


def _together(schedule, target: Target) -> dict:
    """explain()'s line on each chain of `schedule` (compiled_chain.py), by its first kernel."""
    compiling = target.compile_min is not None and not _C_OFF
    return chain_notes(schedule, *_chain_tests(target)) if compiling else {}


def _chain_tests(target: Target) -> tuple:
    """find_chains' questions on `target`: whether an elementwise kernel runs in C, which input
    of an opaque kernel is the matrix of a product C computes."""
    return (lambda kernel: path_of(kernel, target) == C_PATH), (
        lambda kernel: matvec_plan(kernel, target)
    )


_COMPILED = (Kind.ELEMENTWISE, Kind.REARRANGE, Kind.REDUCE)  # kinds with a C path


def _describe(kernel, target: Target) -> str:
    if kernel.kind is Kind.OPAQUE and target.compile_min is not None:
        return MATVEC_PATH if matvec_plan(kernel, target) is not None and not _C_OFF else ""
    if kernel.kind not in _COMPILED:
        return ""
    path = path_of(kernel, target)
    compiled = path == C_PATH
    tiled = kernel.kind is Kind.ELEMENTWISE and kernel.outputs[0].size >= TILED_MIN
    if compiled and tiled and any(load.across_rows for load in kernel.loads):
        path += ", in tiles (a load is read across rows)"
    if compiled and kernel.streams:
        least = byte_size(target.stream_min_bytes)
        path += f", streaming stores (moving {least} or more, its outputs skip the caches)"
    return path


def handlers_on(target: Target) -> dict:
    """A host device's table for `target`: one handler per kind."""
    handlers = {
        Kind.ELEMENTWISE: elementwise_on(target),
        Kind.REARRANGE: rearrange_on(target),
        Kind.VIEW: _view,
        Kind.SOURCE: _source,
        Kind.OPAQUE: _opaque_on(target),
    }
    handlers[Kind.REDUCE] = reduce_on(target, handlers)
    return handlers


_CPU_HANDLERS = handlers_on(TARGET)
CPU = Device(
    "cpu",
    TARGET,
    _CPU_HANDLERS,
    empty,
    value_of,
    to_host=np.asarray,
    from_host=np.asarray,
    context=CPU_CONTEXT,
    finish=lambda settings: POOL.tick(settings.pool_bytes),
    describe=lambda kernel: _describe(kernel, TARGET),
    together=lambda schedule: _together(schedule, TARGET),
    prepare=prepare_on(TARGET),
    runner=runner_on(TARGET, _CPU_HANDLERS),
)

# The same device without compiled kernels: li.options(device="numpy") forces the numpy path
# (to bisect a difference to the C path). It computes the cpu's arrays.
NUMPY_TARGET = Target("numpy", compile_min=None, numpy_orders=True)  # numpy's tiles (8 and 8)


def host_device(name: str, target: Target) -> Device:
    """The cpu device planning for and running with another `target` (it computes the cpu's
    arrays): the numpy device below, the tests' devices compiling every kernel."""
    handlers = handlers_on(target)
    return dataclasses.replace(
        CPU,
        name=name,
        target=target,
        handlers=handlers,
        describe=lambda kernel: _describe(kernel, target),
        together=lambda schedule: _together(schedule, target),
        prepare=prepare_on(target),
        runner=runner_on(target, handlers),
        holds_arrays=False,
    )


NUMPY = host_device("numpy", NUMPY_TARGET)
