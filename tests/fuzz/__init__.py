"""Random lazyinfini programs for the differential fuzz (tests/test_fuzz.py).

A program is Python source: numpy inputs in many layouts (C, F, transposed, sliced with gaps and
negative steps, broadcast, unaligned), then one lazyinfini step a line (elementwise ops by
function, operator, in-place operator and numpy ufunc; views; reductions; cumulative ops;
sorting and sets; fancy and boolean indexing; setitem; copies; li.compute mid-program, sometimes
under other options), then its outputs read through __array__ or DLPack, together (li.compute)
or one by one. The source is also the reproducer a failure prints.

A program is drawn step by step on the reference device, which computes every intermediate,
so each step knows its operands' values. It keeps its operands valid (index bounds, integer
casts) and records how far another device may differ from the reference: 0, bit for bit, where
every op on the way rounds exactly once (IEEE arithmetic, comparisons, movement, sums that are
exact in any order), else an absolute bound grown op by op (transcendental functions, sums that
round). A step whose result would depend on such a difference (comparing, rounding or indexing
with an inexact value; an overflow at the edge) is not taken. Where numpy's semantics are the
standard's (one dtype, numpy's result dtype), each elementwise function, sort and integer
reduction is also checked against numpy while drawing: a second oracle for the reference.

The modules, from the bottom up: dtypes and numbers (dtype groups, promotion, exactness),
program (Value, Program, the Builder that records steps), errors (the error rules), check
(running a program on every device; numpy as second oracle), inputs, one module of steps per
kind (elementwise, movement, reductions, sorting, indexing, memory, creation), and themes (which
steps a program draws, how often; draw_program).
"""

from tests.fuzz.check import agree_with, check_program, devices
from tests.fuzz.numbers import exactly_summable
from tests.fuzz.program import Program, Value, program_from_source
from tests.fuzz.themes import draw_program

__all__ = [
    "Program",
    "Value",
    "agree_with",
    "check_program",
    "devices",
    "draw_program",
    "exactly_summable",
    "program_from_source",
]
