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


def _rounding(steps: list[Step]) -> list[Step]:
    """Mark the half float results that later steps read. A float32 register carried on
    unrounded would make `(x + 0.1) > 1000` differ from numpy's for float16 x = 1000. A result
    read only by the store is rounded there; a cast into a half float rounds itself."""
    read = {src for step in steps for src in step.srcs}
    return [
        replace(
            step,
            rounds=step.node.dtype != step.dtype
            and step.dst in read
            and step.node.op is not Op.ASTYPE,
        )
        for step in steps
    ]


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
