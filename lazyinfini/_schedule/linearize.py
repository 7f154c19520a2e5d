"""Linearize: an elementwise kernel's nodes -> a register program, the same for every backend.

Registers 0..n-1 hold the kernel's loads; each step applies one node's op to registers and
writes one register, held in a scratch slot (slots are reused once a value is dead) or written
straight into an output of the same dtype. Half floats are carried in float32 and each step
whose result later steps read rounds it to its dtype, as numpy and the unfused executors do:
fusion never changes a result. The numpy chunk loop runs this program; a C or CUDA renderer
reads the same records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import _dtypes
from .._graph import Node, Op, inputs_of


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


@dataclass(frozen=True, eq=False)
class Program:
    steps: tuple[Step, ...]
    load_dtypes: tuple[np.dtype, ...]  # the compute dtype each load is read into
    registers: int
    outputs: tuple[int, ...]  # the register of each kernel output
    direct: dict[int, int]  # register -> the output it is computed straight into

    def __repr__(self) -> str:
        body = "; ".join(
            f"r{s.dst} = {s.node.op.label}({', '.join(f'r{r}' for r in s.srcs)})"
            for s in self.steps
        )
        return f"Program({body} -> {', '.join(f'r{r}' for r in self.outputs)})"


def linearize(nodes, loads, outputs) -> Program:
    """The register program computing `outputs` from `loads` through `nodes` (in order)."""
    register = {node: i for i, node in enumerate(loads)}
    steps = []
    for node in nodes:
        srcs = tuple(register[s] for s in inputs_of(node))
        register[node] = len(register)
        steps.append(Step(node, srcs, register[node], _dtypes.compute_dtype(node.dtype)))
    outs = tuple(register[n] for n in outputs)
    # A step whose register is an output of the same dtype computes straight into it.
    direct = {
        register[n]: j for j, n in enumerate(outputs) if _dtypes.compute_dtype(n.dtype) == n.dtype
    }
    return Program(
        tuple(_assign_slots(_rounding(steps), outs, direct)),
        tuple(_dtypes.compute_dtype(n.dtype) for n in loads),
        len(register),
        outs,
        direct,
    )


# How far a half float register is from numpy's value of it (numpy rounds every op's result):
EXACT = 0  # a value of its dtype: a load, a rounded result, a selection of such
SUM = 1  # a float32 sum or difference of exact values (or an ordering of such), not yet rounded
ANY = 2  # any other float32 result not yet rounded
# Rounding commutes with these, so they may read unrounded values and round once later, bit for
# bit as numpy's op-by-op rounding gives: rounding is monotone and keeps every value of the
# dtype, so it commutes with orderings (clip, maximum, minimum) of values it never turns from
# nonzero into zero; a sum of two values of the dtype is 0 or at least the smallest subnormal,
# so it never does. Sign ops and selections commute with rounding of any value.
_SUMS = frozenset({Op.ADD, Op.SUBTRACT})
_ORDERS = frozenset({Op.CLIP, Op.MAXIMUM, Op.MINIMUM})
_SIGNS = frozenset({Op.NEGATIVE, Op.ABS})


def _rounding(steps: list[Step]) -> list[Step]:
    """Mark the half float results that must be rounded where they are computed: those a later
    step reads that does not commute with rounding (a comparison, a product, a function...). A
    float32 register carried on unrounded into `(x + 0.1) > 1000` would differ from numpy for
    float16 x = 1000. Others are rounded once, at the store: clip(a - b) rounds once."""
    state: dict[int, int] = {}  # register -> EXACT/SUM/ANY; loads and full dtypes are exact
    rounded: set[int] = set()

    def exact(registers) -> None:
        for reg in registers:
            if state.get(reg, EXACT) != EXACT:
                rounded.add(reg)
                state[reg] = EXACT

    for step in steps:
        op, srcs = step.node.op, step.srcs
        if step.node.dtype == step.dtype or op is Op.ASTYPE:  # NOTE: a cast rounds itself
            exact(srcs)
        elif op in _SIGNS:
            state[step.dst] = state.get(srcs[0], EXACT)
        elif op is Op.WHERE:
            state[step.dst] = max(state.get(r, EXACT) for r in srcs[1:])
        elif op in _ORDERS:
            exact(r for r in srcs if state.get(r, EXACT) == ANY)
            state[step.dst] = max(state.get(r, EXACT) for r in srcs)
        else:
            exact(srcs)
            state[step.dst] = SUM if op in _SUMS else ANY
    return [replace(step, rounds=step.dst in rounded) for step in steps]


def _assign_slots(steps: list[Step], outputs: tuple[int, ...], direct: dict) -> list[Step]:
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
