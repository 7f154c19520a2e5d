"""A RearrangePlan -> C source: one kernel copying a range of the plan's grid cells.

The walk is seed 002's: a grid cell's two base offsets (source and destination, bytes from
element [0..0]) are computed once from the cell's index, then the block's units are copied.
The plan's lengths and strides are baked in as literals (a rearrange kernel is specialised per
plan), so gcc turns the index arithmetic into shifts and multiplies and the unit copy into one
plain load and store: units are bytes (``__builtin_memcpy`` of a constant size), never floats,
so NaN payloads and signed zeros survive.

A constraint (a split dim whose length the block does not divide) is honoured as the numpy
executor honours it: unit ``(g, b)`` exists iff ``g[grid_idx] * grid_div_block + b[block_idx] <
total_len``, i.e. the constrained block dim runs ``min(block_len, total_len - g * div)`` times.

The pieces are separate so a CUDA dialect can reuse them: ``cell_offsets`` (cell index -> base
pointers), ``block_bounds`` (the constrained loop bounds) are plain C statements valid in CUDA C;
the C dialect adds the nested block loops and a kernel looping over cells [start, stop).
"""

from __future__ import annotations

import math

from .._schedule.rearrange import RearrangePlan

__all__ = ["cell_count", "render_rearrange"]

_PRELUDE = "#include <stdint.h>\n"


def cell_count(plan: RearrangePlan) -> int:
    """How many grid cells (blocks) the plan walks: the kernel's [start, stop) range is in these."""
    return math.prod(plan.grid_len)


def render_rearrange(plan: RearrangePlan, name: str) -> str:
    """C source defining ``void name(const char *src, char *dst, int64_t start, int64_t stop)``,
    which copies grid cells [start, stop) (the grid flattened in C order) of ``plan``."""
    body = [*cell_offsets(plan), *block_bounds(plan), *_block_loops(plan)]
    cell = "\n".join(
        [
            f"static inline void {name}_cell(const char *src, char *dst, int64_t cell)",
            "{",
            *("    " + line for line in body),
            "}",
        ]
    )
    kernel = "\n".join(
        [
            f"void {name}(const char *src, char *dst, int64_t start, int64_t stop)",
            "{",
            "    for (int64_t cell = start; cell < stop; ++cell)",
            f"        {name}_cell(src, dst, cell);",
            "}",
        ]
    )
    return f"{_PRELUDE}\n{cell}\n\n{kernel}\n"


def cell_offsets(plan: RearrangePlan) -> list[str]:
    """Statements splitting ``cell`` into grid indices ``g0..`` (C order) and moving ``src`` and
    ``dst`` to the cell's block base."""
    n = len(plan.grid_len)
    lines = []
    for k in reversed(range(n)):  # innermost grid dim first: it is the cell index's remainder
        if k == 0:
            lines.append("const int64_t g0 = cell;")
        else:
            length = plan.grid_len[k]
            lines.append(f"const int64_t g{k} = cell % {length}; cell /= {length};")
    if n:
        lines.append(f"src += {_dot('g', plan.src_grid_strides)};")
        lines.append(f"dst += {_dot('g', plan.dst_grid_strides)};")
    else:
        lines.append("(void)cell;")  # one cell: the 0-d grid
    return lines


def block_bounds(plan: RearrangePlan) -> list[str]:
    """Statements defining ``n0..``, each block dim's trip count in this cell (the constraints
    shorten the tail block of a split dim)."""
    lines = [f"int64_t n{k} = {length};" for k, length in enumerate(plan.block_len)]
    for c in plan.constraints:
        left = f"{c.total_len} - g{c.grid_idx} * {c.grid_div_block}"
        b = c.block_idx
        lines.append(f"if ({left} < n{b}) n{b} = {left};")
    return lines


def _block_loops(plan: RearrangePlan) -> list[str]:
    """The block's nested loops, outer first, around one unit copy."""
    lines = []
    for k in range(len(plan.block_len)):
        lines.append("    " * k + f"for (int64_t b{k} = 0; b{k} < n{k}; ++b{k})")
    src = f"src + {_dot('b', plan.src_block_strides)}" if plan.block_len else "src"
    dst = f"dst + {_dot('b', plan.dst_block_strides)}" if plan.block_len else "dst"
    copy = f"__builtin_memcpy({dst}, {src}, {plan.unit});"
    lines.append("    " * len(plan.block_len) + copy)
    return lines


def _dot(index: str, strides: tuple[int, ...]) -> str:
    """``i0 * s0 + i1 * s1 ...`` with int64 literals (byte strides may pass 2^31, or be < 0)."""
    return " + ".join(f"{index}{k} * ({s}LL)" for k, s in enumerate(strides)) or "0"
