"""One pass over a matrix for the two products of a gradient step: y = A v, e = f(y, ...), then
g = A^T e (`X.T @ (X @ w + b - t)`: linear regression's), where both products take the C path
(compiled_matvec.py) and f is a 1-D elementwise kernel in C. Run one after another, the kernels
read A twice (as numpy's BLAS calls do); chained, the rows of A are cut into pieces
(matvec.PIECE_ROWS), and each piece's rows are read for y, its elements of e computed and its
part of A^T e summed while they are in cache (li_matvec_chain). Each call computes what it
computes alone, over the same ranges, so the bits are the three kernels' on any number of
threads: chaining changes the time, never a value.

The cpu finds the chains of a schedule once (its prepare hook). The first product's kernel then
waits (its value is bound as its inputs, Waiting: the middle kernel is its one reader, and the
inputs' memory stays held), and the middle kernel runs the chain, binding the three kernels'
outputs in the run's values; the last kernel returns its own from there.
"""

from __future__ import annotations

import ctypes
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._counters import counters
from .._graph import Node
from .._render.compile import CompileError
from .._render.matvec import PIECE_ROWS
from .._schedule.kernels import Kernel, Kind
from .c_compiling import C_KERNELS
from .compiled import Layout, address, run_call
from .compiled_matvec import call_layout, matvec_functions, rows_of
from .compiled_matvec import run as run_matvec
from .memo import Memo
from .threads import THREADS


@dataclass(frozen=True, eq=False)
class Chain:
    first: Kernel  # y = A v: the rows of A, each a dot product
    middle: Kernel  # e = f(y, ...): a 1-D elementwise kernel in C over A's rows
    last: Kernel  # g = A^T e: A's rows weighted by e, in pieces
    matrix: tuple  # A as (base node, byte offset, shape, strides), rows contiguous
    first_at: int  # which input of the first kernel is the matrix
    vector: Node  # e: the middle kernel's output the last one weighs A's rows by

    def describe(self, index_of) -> str:
        rows, cols = self.matrix[2]
        return (
            f"kernels {index_of[self.first]}, {index_of[self.middle]} and "
            f"{index_of[self.last]} run as one pass over the ({rows}, {cols}) matrix, "
            f"{PIECE_ROWS} rows at a time (the three kernels' bits)"
        )


class Waiting(NamedTuple):
    """The value of a chain's first kernel until its middle kernel runs: its inputs."""

    x1: np.ndarray
    x2: np.ndarray


CHAINS = Memo()  # the middle kernel of a chain -> its Chain
WAITING = Memo()  # the first kernel of a chain -> True: the middle one computes its value
DONE = Memo()  # the last kernel of a chain -> True: the middle one computes its value


def find_chains(schedule, in_c, matrix_of) -> dict[Kernel, Chain]:
    """The chains of `schedule` by their first kernel, marked for its runs: `in_c(kernel)`
    says whether an elementwise kernel runs in C, `matrix_of(kernel)` which input of an
    opaque kernel is the matrix of a product C computes (compiled_matvec.plan_of)."""
    readers = defaultdict(list)
    for kernel in schedule.kernels:
        for node in dict.fromkeys(kernel.reads):
            readers[node].append(kernel)
    found = {}
    for first in schedule.kernels:
        matrix = _product(first, matrix_of, transposed=False)
        y = first.outputs[0]
        if matrix is None or len(readers[y]) != 1:
            continue
        (middle,) = readers[y]  # NOTE: y's one reader: the first kernel can wait for it
        if not _elementwise_over(middle, y, matrix[2][0], in_c):
            continue
        for last in (k for e in middle.outputs for k in readers[e]):
            vector = _vector_of(last, matrix_of, matrix)
            if vector in middle.outputs:
                found[first] = Chain(first, middle, last, matrix, matrix_of(first), vector)
                break
    for chain in found.values():
        CHAINS[chain.middle], WAITING[chain.first], DONE[chain.last] = chain, True, True
    return found


def _product(kernel, matrix_of, transposed: bool):
    """A C matrix-vector product's matrix as its rows-first view, where the kernel computes
    A^T v (`transposed`) or A v (else); None otherwise."""
    if kernel.kind is not Kind.OPAQUE:
        return None
    at = matrix_of(kernel)
    if at is None:
        return None
    load = kernel.loads[at]
    rows_first = rows_of(load.shape, load.strides, load.node.dtype.itemsize)
    if rows_first is None or (rows_first == (at == 1)) != transposed:
        return None
    shape, strides = load.shape, load.strides
    if not rows_first:
        shape, strides = shape[::-1], strides[::-1]
    return None if 0 in shape else (load.base, load.offset, shape, strides)


def _elementwise_over(kernel, y, rows: int, in_c) -> bool:
    """Whether `kernel` is a 1-D elementwise kernel in C over `rows`, reading y whole."""
    if kernel.kind is not Kind.ELEMENTWISE or kernel.in_place:
        return False
    if kernel.space != (rows,) and not (rows == 1 and kernel.space == ()):  # NOTE: 1 is ()
        return False
    if kernel.streams or not in_c(kernel):
        return False
    return any(ld.base is y and ld.contiguous and ld.offset == 0 for ld in kernel.loads)


def _vector_of(kernel, matrix_of, matrix):
    """The vector e of `kernel` where it computes A^T e of the same A, reading e whole."""
    if _product(kernel, matrix_of, transposed=True) != matrix:
        return None
    (vector,) = (ld for i, ld in enumerate(kernel.loads) if i != matrix_of(kernel))
    whole = vector.contiguous and vector.offset == 0 and vector.node is vector.base
    return vector.base if whole else None


def chain_notes(schedule, in_c, matrix_of) -> dict:
    """explain()'s line on each chain of `schedule`, by its first kernel."""
    index_of = {kernel: i for i, kernel in enumerate(schedule.kernels)}
    chains = find_chains(schedule, in_c, matrix_of)
    return {first: chain.describe(index_of) for first, chain in chains.items()}


def run_middle(chain: Chain, values: dict, memory, bases_of) -> list | None:
    """The middle kernel's outputs, the three kernels run as one pass; where they cannot
    (None), the first kernel's product, which waited for this kernel, is made now."""
    inputs = values[chain.first.outputs[0]]
    outs = run_chain(chain, inputs, values, memory, bases_of)
    if outs is None:
        values[chain.first.outputs[0]] = run_matvec(chain.first_at, *inputs, THREADS > 1)
    return outs


def run_chain(chain: Chain, inputs: Waiting, values: dict, memory, bases_of) -> list | None:
    """Run `chain` as one pass from its first kernel's `inputs`: binds the first and last
    kernels' outputs in `values`, returns the middle's; None where it cannot run so.
    `bases_of(kernel, outs, values, held)`: the addresses of a C elementwise kernel's
    operands."""
    matrix, v = inputs if chain.first_at == 0 else inputs[::-1]
    a = matrix if chain.first_at == 0 else matrix.T
    functions = matvec_functions(a.dtype)
    try:
        calls, (middle,) = C_KERNELS.calls(chain.middle), C_KERNELS.functions(chain.middle)
    except (CompileError, ValueError):  # NOTE: no build, or more calls than one: apart
        return None
    if functions is None or rows_of(a.shape, a.strides, a.itemsize) is not True:
        return None
    y = values[chain.first.outputs[0]] = np.empty(a.shape[0], a.dtype)
    outs = [memory(n.shape, n.dtype) for n in chain.middle.outputs]
    held = []  # NOTE: copies made for this run: alive until the chain returns
    operands = bases_of(chain.middle, outs, values, held)
    e = outs[chain.middle.outputs.index(chain.vector)]
    (call,) = calls
    elementwise = (middle, call.layout, [b + o for b, o in zip(operands, call.layout.offsets)])
    values[chain.last.outputs[0]] = _one_pass(
        functions, a, np.ascontiguousarray(v), y, e, elementwise
    )
    counters.c_matvecs += 2
    counters.c_chains += 1
    del held
    return outs


def _one_pass(functions, a, v, y, e, elementwise) -> np.ndarray:
    """A^T e, with y = A v and e = f(y, ...) (the `elementwise` call's) made on the way."""
    (rows, cols), dtype = a.shape, a.dtype
    pieces = -(-rows // PIECE_ROWS)
    parts = np.empty((pieces, cols), dtype)
    steps = (
        (functions[0], call_layout(a.shape, a.strides[0], rows), (y, a, v)),
        elementwise,
        (functions[1], call_layout(a.shape, a.strides[0], pieces), (parts, a, e)),
    )
    ext, kept = _ext(steps)
    whole = Layout((ctypes.c_int64 * 2)(rows, cols), (ctypes.c_int64 * 2)(), ext, (), pieces, 1)
    run_call(functions[3], whole, [], THREADS > 1)
    g = np.empty(cols, dtype)
    joined = call_layout(parts.shape, parts.strides[0], cols)
    run_call(functions[2], joined, [address(g), address(parts)], False)
    del kept  # NOTE: the pointer arrays lived until the pass ended
    return g


def _ext(steps) -> tuple:
    """li_matvec_chain's ext: each step's function, shape, pointers, strides and ext; with the
    pointer arrays (alive while the chain runs)."""
    entries, kept = [], []
    for function, layout, operands in steps:
        pointers = [o if isinstance(o, int) else address(o) for o in operands]
        array = (ctypes.c_void_p * len(pointers))(*pointers)
        kept.append(array)
        entries += [
            ctypes.cast(function, ctypes.c_void_p).value,
            ctypes.addressof(layout.shape),
            ctypes.addressof(array),
            ctypes.addressof(layout.strides),
            ctypes.addressof(layout.ext),
        ]
    return (ctypes.c_void_p * len(entries))(*entries), kept
