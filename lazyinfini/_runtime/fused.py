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
from typing import NamedTuple

import numpy as np

from .._graph import Op
from .._graph.views import method_moves
from .ufuncs import UFUNCS, own_dtype

SCRATCH = 1 << 17  # elements a scratch buffer holds at least (the CPU target's chunk)


def evaluate(program, loads: list[np.ndarray], outs: list[np.ndarray], scratch: Scratch) -> None:
    """Compute one chunk of a kernel's register program: `loads` and `outs` are views of it."""
    run = program.__dict__.get("python") or _python(program)
    run(loads, outs, scratch)


def _python(program):
    """The program's plan (_plan) as one Python function of (loads, outs, scratch), made once
    per program and kept in it: the plan's calls in its order, with its registers as locals.
    NOTE: generated, not a loop over the plan: the loop's lookups, lists and wrappers cost
    ~2.5 us a step, most of a small kernel's run (clip(a - b) of 1K: ~1.5 us of ufuncs)."""
    env = {"run_step": _run_step, "round_": _round, "copyto": np.copyto, "table": UFUNCS}
    lines = ["def run(loads, outs, s):"]
    lines += _program_lines(program, env, lambda i: f"loads[{i}]", lambda j: f"outs[{j}]", None)
    exec(compile("\n".join(lines), "<lazyinfini register program>", "exec"), env)
    program.__dict__["python"] = env["run"]
    return env["run"]


def _program_lines(program, env: dict, load, out, shape) -> list[str]:
    """The body of a run of `program`: load i is the expression `load(i)`, output j `out(j)`.
    `shape` None: its registers are the scratch `s`'s, at the first output's shape (a chunk's);
    else fresh arrays of `shape`, and `s` is read from the thread only where a step rounds or
    casts (a kernel of one chunk: a fresh small array costs less than the scratch's lookup)."""
    plan = program.__dict__.get("plan") or _plan(program)
    env["scratch"], env["np_empty"], lines = _thread_scratch, np.empty, []
    rare = "s" if shape is None else "scratch()"
    for i, dtype in plan.load_dtypes:
        env[f"D{i}"] = dtype
        lines += [
            f"    r{i} = {load(i)}",
            f"    if r{i}.dtype is not D{i} and r{i}.dtype != D{i}:",
            f"        r{i} = {rare}.take(('load', {i}), r{i}.shape, D{i}, r{i})",
        ]
    if shape is None:
        lines.append(f"    shape = {out(0)}.shape")
    elif any(op is None for op, *_ in plan.steps):
        lines.append("    s = scratch()")
    env["SHAPE"] = shape
    for k, (op, srcs, dst, written, step) in enumerate(plan.steps):
        # NOTE: what a step reads of its record bound as constants: no lookups at each run
        env[f"S{k}"], env[f"A{k}"], env[f"L{k}"] = step, step.node.arg, step.slot
        env[f"T{k}"], env[f"N{k}"] = step.dtype, step.node.dtype
        if written is not None:
            lines.append(f"    t = {out(written)}")
        else:
            fresh = "s.take(L{k}, shape, T{k})" if shape is None else "np_empty(SHAPE, T{k})"
            lines.append(f"    t = {fresh.format(k=k)}")
        lines.append(_step_line(k, op, srcs, dst, step, env))
        if op is None and step.rounds:
            lines.append(f"    round_(t, N{k}, s)")
    lines += [f"    copyto({out(j)}, r{r}, casting='unsafe')" for j, r in plan.copies]
    return lines


def whole_step(program, reads: tuple, outputs: tuple, operand):
    """A kernel of one chunk as one Python function of (the run's `values`, the outputs'
    allocator, np.empty by default), returning its outputs: its loads (`reads`: (how, load,
    own, moves) each; `moves` not None: the value bound to the load's base seen through
    those ndarray calls (views.method_moves; () as it is); `own` not None: a fill's own
    value, read where the run binds its node nothing (else the 0-d value it binds); else, or
    where nothing is bound: `operand(how, load, values)`), its outputs of `outputs` ((shape,
    dtype) pairs), and the program's body inline, run in the calling thread, whose error
    state the run set. NOTE: generated, as _python is: the calls around a small kernel's
    program (its step, loads, outputs, scratch) cost as much as its ufuncs."""
    env = {"run_step": _run_step, "round_": _round, "copyto": np.copyto, "table": UFUNCS}
    env["operand"], lines = operand, ["def step(values, empty=np_empty):"]
    for i, (how, load, own, moves) in enumerate(reads):
        env[f"LH{i}"], env[f"LL{i}"] = how, load
        fallback = f"operand(LH{i}, LL{i}, values)"
        if moves is not None:  # NOTE: a buffer or another kernel's output, bound for the run
            lines += bound_lines(f"l{i}", load, moves, env, fallback)
        elif own is not None:  # NOTE: fill_value's answers: the fill's own, or its 0-d binding
            env[f"LF{i}"], env[f"LB{i}"] = own, load.base
            lines += [f"    l{i} = values.get(LB{i})", f"    if l{i} is None:"]
            lines += [f"        l{i} = LF{i}", f"    elif l{i}.ndim or not l{i}.size:"]
            lines.append(f"        l{i} = {fallback}")
        else:
            lines.append(f"    l{i} = {fallback}")
    for j, (shape, dtype) in enumerate(outputs):
        env[f"OS{j}"], env[f"OD{j}"] = shape, dtype
        lines.append(f"    o{j} = empty(OS{j}, OD{j})")
    body = _program_lines(program, env, lambda i: f"l{i}", lambda j: f"o{j}", outputs[0][0])
    outs = ", ".join(f"o{j}" for j in range(len(outputs)))
    lines += [*body, f"    return [{outs}]"]
    exec(compile("\n".join(lines), "<lazyinfini kernel step>", "exec"), env)
    return env["step"]


def moves_of(load, chain=None) -> tuple | None:
    """The movements of `load` (or `chain`) as ndarray calls on its base's bound value; None
    for a fill's, or where a movement has none (views.method_moves)."""
    if load.base.op is Op.FULL:
        return None
    return method_moves(load.chain if chain is None else chain)


def bound_lines(name: str, load, moves: tuple, env: dict, fallback: str) -> list[str]:
    """A generated step's lines binding local `name` to `load`'s value: the value the run
    bound to its base, seen through `moves` (views.method_moves: numpy's own views, without
    a movement function's calls, ~1 us each), or the expression `fallback` where the run
    binds the base nothing (a buffer read from its array)."""
    env[f"B_{name}"] = load.base
    lines = [f"    {name} = values.get(B_{name})", f"    if {name} is None:"]
    lines.append(f"        {name} = {fallback}")
    if moves:
        calls = []
        for k, (method, arg) in enumerate(moves):
            env[f"M_{name}_{k}"] = arg
            calls.append(
                f"[M_{name}_{k}]" if method == "__getitem__" else f".{method}(M_{name}_{k})"
            )
        lines += ["    else:", f"        {name} = {name}{''.join(calls)}"]
    return lines


def view_step(load, moves: tuple, read):
    """A VIEW kernel's step (a run's function of its values, its one output in a list): the
    value of `load` (see bound_lines), else `read(load, values)`."""
    env, lines = {"read": read, "LOAD": load}, ["def step(values):"]
    lines += [*bound_lines("view", load, moves, env, "read(LOAD, values)"), "    return [view]"]
    exec(compile("\n".join(lines), "<lazyinfini view step>", "exec"), env)
    return env["step"]


def _step_line(k: int, op, srcs: tuple, dst: int, step, env: dict) -> str:
    """One step's call, writing register `dst` (`t` its target, `s` the scratch, A{k} its
    node's arg). UFUNCS stays the authority, read at each run as evaluate read it (a test
    breaks an op there): a step calls the ufunc itself only while UFUNCS holds the wrapper it
    was resolved from."""
    args = ", ".join(f"r{r}" for r in srcs)
    if op is None:  # NOTE: a cast, a rounding, an op in its own dtype: _run_step's
        return f"    r{dst} = run_step(S{k}, [{args}], t, s)"
    env[f"O{k}"], wrapper = op, UFUNCS[op]
    call = f"table[O{k}]([{args}], A{k}, out=t)"
    ufunc_for = getattr(wrapper, "ufunc_for", None)
    ufunc = None if ufunc_for is None else ufunc_for(step.node.arg, step.dtype)
    if ufunc is None:
        return f"    r{dst} = {call}"
    env[f"W{k}"], env[f"F{k}"] = wrapper, ufunc
    # NOTE: a ufunc's output by position where it takes one: numpy parses a keyword out= at
    # each call (a small op's call: 0.43 us by position, 0.77 by keyword). numpy 2.4 deprecates
    # a third positional argument of maximum and minimum: theirs stays a keyword
    plain = isinstance(ufunc, np.ufunc) and ufunc.nout == 1 and ufunc.nin == len(srcs)
    plain = plain and ufunc not in _KEYWORD_OUT
    out = "t" if plain else "out=t"
    return f"    r{dst} = F{k}({args}, {out}) if table[O{k}] is W{k} else {call}"


_KEYWORD_OUT = (np.maximum, np.minimum)


class _Plan(NamedTuple):
    """A register program as evaluate() runs it, worked out once per program (a cached
    schedule runs the same programs again; a small kernel's run is mostly this bookkeeping)."""

    load_dtypes: tuple[tuple[int, np.dtype], ...]  # (load, the dtype it is computed in)
    steps: tuple[tuple, ...]  # (op or None: see _run_step, srcs, dst, output or None, step)
    copies: tuple[tuple[int, int], ...]  # (output, register) written after the steps


def _plan(program) -> _Plan:
    steps = []
    for step in program.steps:
        node = step.node
        plain = node.op is not Op.ASTYPE and not step.rounds
        plain = plain and not (node.dtype != step.dtype and own_dtype(node))
        out = program.direct[step.dst] if step.slot is None else None
        steps.append((node.op if plain else None, step.srcs, step.dst, out, step))
    copies = tuple((j, r) for j, r in enumerate(program.outputs) if r not in program.direct)
    plan = _Plan(
        tuple(enumerate(program.load_dtypes)),
        tuple(steps),
        copies,
    )
    # NOTE: kept in the program record itself (a plan is a function of the program alone)
    program.__dict__["plan"] = plan
    return plan


def _round(values: np.ndarray, dtype: np.dtype, scratch) -> None:
    """Round float32 `values` in place to the nearest `dtype` value (through a scratch buffer)."""
    rounded = scratch.take("round", values.shape, dtype)
    np.copyto(rounded, values, casting="unsafe")
    np.copyto(values, rounded)


def _run_step(step, inputs: list[np.ndarray], target: np.ndarray, scratch) -> np.ndarray:
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
    if node.dtype != step.dtype and own_dtype(node):
        # NOTE: a 0-d input (a fill) stays 0-d: numpy's clip breaks ties by its bounds' strides
        own = [
            scratch.take(("own", i), x.shape if x.ndim == 0 else target.shape, node.dtype, x)
            for i, x in enumerate(inputs)
        ]
        result = scratch.take("round", target.shape, node.dtype)
        UFUNCS[node.op](own, node.arg, out=result)
        np.copyto(target, result)
        return target
    return UFUNCS[node.op](inputs, node.arg, out=target)


class Scratch:
    """Per-thread buffers of SCRATCH elements, one per (register, dtype), reused every chunk."""

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
            buf = self.buffers[(key, dtype)] = np.empty(max(size, SCRATCH), dtype)
            self.views = {k: v for k, v in self.views.items() if k[:2] != (key, dtype)}
        view = self.views[(key, dtype, shape)] = buf[:size].reshape(shape)
        return view


@functools.lru_cache(maxsize=256)
def chunks(space: tuple[int, ...], target: int) -> tuple[tuple, ...]:
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


def run_chunks(program, loads, outs, parts, own_errstate=True) -> None:
    """Evaluate `program` over the chunks `parts` (one thread's share). A helper thread sets
    its own error state (numpy's is per thread); the caller's thread has it set already."""
    scratch = _thread_scratch()
    with np.errstate(all="ignore") if own_errstate else contextlib.nullcontext():
        for index in parts:
            chunk = [v[index] if v.ndim else v for v in loads]  # 0-d: a broadcast scalar
            evaluate(program, chunk, [o[index] for o in outs], scratch)


def _thread_scratch() -> Scratch:
    # NOTE: each thread keeps its scratch between kernels: fresh pages cost page faults.
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = Scratch()
    return scratch
