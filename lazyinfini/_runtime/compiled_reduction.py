"""The cpu's C path for REDUCE kernels on the compiling skeleton (compiling.py, c_compiling.py):
a Reduction rendered once (_render/reduction.py) from the layouts the scheduler recorded, its
rows split among threads (each row is summed whole by one thread, and a single long row as the
subtrees of its recursion joined in its order: the bits never depend on the threads)."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np

from .._counters import counters
from .._dtypes import compute_dtype
from .._render import elementwise, reduction
from .._schedule.kernels import Reduction
from .c_compiling import C_KERNELS, RENDERERS
from .compiled import Layout, address, inner_kind, loaded, run_call, stand_ins
from .compiling import Call
from .numpy_loops import pointers


def _render(plan: Reduction) -> tuple[Call, ...]:
    """The one call summing the rows of `plan`: its prologue's operands (the run buffer, then
    the loads) laid out over its space (kept dims, row length) as the scheduler recorded
    them. Raises CompileError where a borrowed numpy loop is missing (before it compiles)."""
    prologue = plan.prologue
    ext = pointers(elementwise.borrowed(prologue))
    operands = stand_ins(prologue)
    kinds = tuple(inner_kind(a) for a in operands)
    source = reduction.render(plan, "li_kernel", kinds, len(prologue.space))
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    layout = Layout.of(operands, ext, (0,) * len(operands), total=plan.rows)
    source = source.replace("li_kernel", name)
    pieces = dataclasses.replace(layout, total=1 << reduction.SPLIT_DEPTH)
    joined = dataclasses.replace(layout, offsets=(0, 0), total=1)
    return (
        Call(source, name, layout),
        Call(source, f"{name}_split", pieces),
        Call(source, f"{name}_join", joined),
    )


def run_compiled(plan: Reduction, bases: list[int], parallel: bool) -> None:
    """Sum `plan`'s rows in C: `bases` are the addresses of the sums' output, then of the loads'
    elements [0, ..., 0] laid out as recorded (compiled.stand_ins). One long row is summed in
    pieces on the threads, then joined (same bits). Raises CompileError when the C path is
    unavailable (the caller runs the parts instead)."""
    rows, split, join = C_KERNELS.functions(plan)
    calls = C_KERNELS.calls(plan)
    if parallel and plan.rows == 1 and plan.prologue.space[-1] >= reduction.SPLIT_MIN:
        (summed,) = plan.prologue.outputs
        parts = np.empty(1 << reduction.SPLIT_DEPTH, compute_dtype(summed.dtype))
        run_call(split, calls[1].layout, [address(parts), *bases[1:]], parallel)
        run_call(join, calls[2].layout, [bases[0], address(parts)], False)
        counters.split_sums += 1
        return
    run_call(rows, calls[0].layout, bases, parallel)


def array_call(plan, buffer, loads: list) -> tuple:
    """(loaded function, Layout) summing the rows of `plan` over arrays laid out as these are
    (a dask block's): `buffer` a stand-in of the prologue's value over the space (kept dims,
    row length), C-contiguous; `loads` views of that shape. A run passes the sums' address,
    then the loads'. `plan` is any record the renderer reads (a prologue's program, loads and
    outputs, a total's output op and dtype)."""
    operands = [buffer, *loads]
    kinds = tuple(inner_kind(a) for a in operands)
    function = loaded(reduction.render(plan, "li_kernel", kinds, buffer.ndim))
    ext = pointers(elementwise.borrowed(plan.prologue))
    rows = math.prod(buffer.shape[:-1])
    return function, Layout.of(operands, ext, (0,) * len(operands), total=rows)


RENDERERS[Reduction] = _render
