"""A rearrange plan as a small picture: its grid of blocks, and one block's units.

The grid (left) is drawn as rows x columns of blocks (its outer dims folded into the rows),
the block the copy starts with filled; the block (right) as rows x columns of units, with
arrows along the dims that are contiguous in the source and in the destination (both along
one dim: a straight copy; across: a transposing one), and the line tile a compiled copy moves
it in, if any. Past 8 blocks or 16 units a side the picture shows the first ones and says so.
"""

from __future__ import annotations

import math
from html import escape

CELL = 9  # px a side of a drawn cell
CHAR = 6.1  # px a character of the labels (10 px monospace)
SHOWN = {"grid": 8, "block": 16}  # cells drawn a side, at most


def draw_plan(plan) -> str:
    """The SVG of `plan` (a RearrangePlan)."""
    grid = _rows_cols(plan.grid_len)
    block = _rows_cols(plan.block_len)
    labels = [
        f"grid {_dims(plan.grid_len)} = {plan.n_blocks} blocks",
        f"block {_dims(plan.block_len)} units of {plan.unit} B",
    ]
    parts = []
    left = _cells(0, grid, SHOWN["grid"], "#cfe3f7")
    block_x = round(max(left["width"], len(labels[0]) * CHAR)) + 30
    right = _cells(block_x, block, SHOWN["block"], "#f7e0c4")
    parts += left["parts"] + right["parts"]
    parts += _arrows(plan, block_x, right)
    if plan.tile is not None:
        side = min(plan.tile.side, SHOWN["block"]) * CELL
        parts.append(
            f'<rect x="{block_x}" y="16" width="{side}" height="{side}" fill="none" '
            'stroke="#b03a2e" stroke-width="2"><title>a line tile</title></rect>'
        )
    height = max(left["height"], right["height"]) + 16
    for x, text in zip((0, block_x), labels):
        parts.append(f'<text x="{x}" y="11">{escape(text)}</text>')
    width = round(max(block_x + right["width"], block_x + len(labels[1]) * CHAR)) + 60
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plan" width="{width}" '
        f'height="{height + 22}" font-family="monospace" font-size="10">'
        + "".join(parts)
        + "</svg>"
    )


def _rows_cols(lengths) -> tuple[int, int]:
    """Dims outer first as (rows, columns): the last dim across, the others folded down."""
    if not lengths:
        return 1, 1
    return math.prod(lengths[:-1]), lengths[-1]


def _dims(lengths) -> str:
    return "x".join(map(str, lengths)) or "1"


def _cells(x0: int, shape: tuple[int, int], most: int, fill: str) -> dict:
    rows, cols = min(shape[0], most), min(shape[1], most)
    parts = []
    for r in range(rows):
        for c in range(cols):
            colour = fill if (r, c) == (0, 0) else "#fff"
            parts.append(
                f'<rect x="{x0 + c * CELL}" y="{16 + r * CELL}" width="{CELL}" '
                f'height="{CELL}" fill="{colour}" stroke="#999" stroke-width="0.5"/>'
            )
    width, height = cols * CELL, rows * CELL + 16
    if shape[1] > cols:
        parts.append(f'<text x="{x0 + width + 2}" y="{16 + CELL}">…{shape[1]}</text>')
    if shape[0] > rows:
        parts.append(f'<text x="{x0}" y="{height + 10}">⋮ {shape[0]} rows</text>')
    return {"parts": parts, "width": width + 24, "height": height + 12}


def _arrows(plan, x0: int, drawn: dict) -> list[str]:
    """Arrows along the block's dims that are contiguous (a unit apart) in the source and in
    the destination: across for its last dim, down for the one before."""
    parts = []
    for name, strides, colour, offset in (
        ("src", plan.src_block_strides, "#1f618d", 0),
        ("dst", plan.dst_block_strides, "#b9770e", 12),
    ):
        if not strides:
            continue
        if strides[-1] == plan.unit:
            y = drawn["height"] + 8 + offset
            parts.append(_arrow(x0, y, x0 + 60, y, colour, f"{name} contiguous"))
        elif len(strides) > 1 and strides[-2] == plan.unit:
            x = x0 - 8 - offset
            parts.append(_arrow(x, 16, x, 76, colour, f"{name} contiguous"))
    return parts


def _arrow(x1, y1, x2, y2, colour: str, title: str) -> str:
    """A line from (x1, y1) to (x2, y2), across or down, with its head and its name."""
    across = y1 == y2
    head = (
        f"{x2},{y2} {x2 - 5},{y2 - 3} {x2 - 5},{y2 + 3}"
        if across
        else f"{x2},{y2} {x2 - 3},{y2 - 5} {x2 + 3},{y2 - 5}"
    )
    label_x, label_y = (x2 + 4, y2 + 3) if across else (x2 - 10, y2 + 12)
    return (
        f'<g stroke="{colour}" fill="{colour}"><title>{escape(title)}</title>'
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/><polygon points="{head}"/>'
        f'<text x="{label_x}" y="{label_y}" stroke="none">{escape(title.split()[0])}</text></g>'
    )
