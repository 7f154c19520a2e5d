"""The cpu's C path for REDUCE kernels on the compiling skeleton (compiling.py, c_compiling.py):
a Reduction rendered once (_render/reduction.py) from the layouts the scheduler recorded, its
rows split among threads (each row is summed whole by one thread: the bits never depend on the
threads)."""

from __future__ import annotations

import hashlib

from .._render import elementwise, reduction
from .._schedule.kernels import Reduction
from .c_compiling import C_KERNELS, RENDERERS
from .compiled import Layout, inner_kind, run_call, stand_ins
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
    return (Call(source.replace("li_kernel", name), name, layout),)


def run_compiled(plan: Reduction, bases: list[int], parallel: bool) -> None:
    """Sum `plan`'s rows in C: `bases` are the addresses of the sums' output, then of the loads'
    elements [0, ..., 0] laid out as recorded (compiled.stand_ins). Raises CompileError when
    the C path is unavailable (the caller runs the parts instead)."""
    (function,) = C_KERNELS.functions(plan)
    (call,) = C_KERNELS.calls(plan)
    run_call(function, call.layout, bases, parallel)


RENDERERS[Reduction] = _render
