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

A plan with a line tile (``LineTile``: a transposing block, planned for a device whose kernels
move tiles) walks its block in square tiles of one cache line a side instead: a tile loads its
source lines as vectors, transposes them with shuffles (integer lanes: bits move unchanged) and
stores whole destination lines, so no line has to stay cached between two visits. Unit by unit,
gcc vectorised short inner loops into scattered stores and rows that alias in the cache sets
evicted each other (2048^2 float32: 5.5 ms in 512x16 blocks; 0.9 ms in line tiles).

The CUDA kernels of a plan are cuda_rearrange.py's: they walk the copy the plan describes
with the GPU's own partition, not the plan's cache-sized blocks.
"""

from __future__ import annotations

import math

from .._schedule.rearrange import RearrangePlan

__all__ = [
    "block_bounds",
    "cell_count",
    "cell_offsets",
    "dot",
    "render_rearrange",
]

_PRELUDE = "#include <stdint.h>\n"
_LINE = 64  # bytes: a tile row is one cache line, one 512-bit vector
# Rows one shuffle network transposes: 16 vectors and 16 temporaries fill AVX-512's registers.
# A line of 1- or 2-byte units is 64 or 32 units long: its tile takes 4 or 2 networks, then a
# second network over their 16-unit lanes, so destination lines are still written whole.
_NETWORK_ROWS = 16
_ELEMENTS = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}


def cell_count(plan: RearrangePlan) -> int:
    """How many grid cells (blocks) the plan walks: the kernel's [start, stop) range is in these."""
    return math.prod(plan.grid_len)


def render_rearrange(plan: RearrangePlan, name: str) -> str:
    """C source defining ``void name(const char *src, char *dst, int64_t start, int64_t stop)``,
    which copies grid cells [start, stop) (the grid flattened in C order) of ``plan``."""
    loops = _tile_loops(plan, name) if plan.tile else _block_loops(plan)
    body = [*cell_offsets(plan), *block_bounds(plan), *loops]
    tile = "\n".join(_tile_function(plan, name)) + "\n\n" if plan.tile else ""
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
    return f"{_PRELUDE}\n{tile}{cell}\n\n{kernel}\n"


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
        lines.append(f"src += {dot('g', plan.src_grid_strides)};")
        lines.append(f"dst += {dot('g', plan.dst_grid_strides)};")
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
    src = f"src + {dot('b', plan.src_block_strides)}" if plan.block_len else "src"
    dst = f"dst + {dot('b', plan.dst_block_strides)}" if plan.block_len else "dst"
    copy = f"__builtin_memcpy({dst}, {src}, {plan.unit});"
    lines.append("    " * len(plan.block_len) + copy)
    return lines


# -- line tiles ------------------------------------------------------------------------------------


def _tile_loops(plan: RearrangePlan, name: str) -> list[str]:
    """The block's other dims, outer first, around its tiles; a tile that would pass the end of
    a dim steps back to end there (it copies some units twice, the same bytes both times)."""
    tile, unit, side = plan.tile, plan.unit, plan.tile.side
    rows, cols = f"n{tile.src_rows}", f"n{tile.dst_rows}"
    src_step, dst_step = (
        plan.src_block_strides[tile.src_rows],
        plan.dst_block_strides[tile.dst_rows],
    )
    others = [k for k in range(len(plan.block_len)) if k not in (tile.src_rows, tile.dst_rows)]
    lines = []
    if any(c.block_idx in (tile.src_rows, tile.dst_rows) for c in plan.constraints):
        # NOTE: only a constraint's tail block can be shorter than a tile: it goes unit by unit.
        lines += [f"if ({rows} < {side} || {cols} < {side}) {{"]
        lines += ["    " + line for line in _block_loops(plan)] + ["    return;", "}"]
    for depth, k in enumerate(others):
        lines.append("    " * depth + f"for (int64_t b{k} = 0; b{k} < n{k}; ++b{k})")
    src = f"src + {dot('b', plan.src_block_strides, others)}"
    dst = f"dst + {dot('b', plan.dst_block_strides, others)}"
    pad = "    " * len(others)
    return lines + [
        f"{pad}for (int64_t tj = 0; tj < {cols}; tj += {side})",
        f"{pad}    for (int64_t ti = 0; ti < {rows}; ti += {side}) {{",
        f"{pad}        const int64_t j = tj < {cols} - {side} ? tj : {cols} - {side};",
        f"{pad}        const int64_t i = ti < {rows} - {side} ? ti : {rows} - {side};",
        f"{pad}        {name}_tile({src} + i * ({src_step}LL) + j * {unit}, {src_step}LL,",
        f"{pad}            {dst} + i * {unit} + j * ({dst_step}LL), {dst_step}LL);",
        f"{pad}    }}",
    ]


def _tile_function(plan: RearrangePlan, name: str) -> list[str]:
    """``name_tile(src, src row stride, dst, dst row stride)``: one tile, ``side`` source lines
    in and ``side`` destination lines out. A network of ``_NETWORK_ROWS`` rows transposes
    within lanes of that many units; for longer lines a second network then transposes the
    lanes of the groups, so each destination line is still stored whole."""
    unit, side = plan.unit, plan.tile.side
    rows = min(side, _NETWORK_ROWS)
    groups = side // rows  # networks per tile, and lanes per vector
    elem = min(unit, 8)  # the vector's element: a unit of 16 or 32 bytes is 2 or 4 of them
    first = _shuffles(unit, rows, side, elem)
    second = _shuffles(rows * unit, groups, groups, elem)
    return [
        f"typedef {_ELEMENTS[elem]} {name}_v __attribute__((vector_size({_LINE})));",
        # NOTE: gcc has __builtin_shufflevector only from 12; __builtin_shuffle from 4.7.
        "#if defined(__clang__)",
        f"#define {name}_shuffle(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)",
        "#else",
        f"#define {name}_shuffle(a, b, ...) __builtin_shuffle(a, b, ({name}_v){{__VA_ARGS__}})",
        "#endif",
        f"static inline void {name}_tile(const char *src, int64_t ss, char *dst, int64_t ds)",
        "{",
        f"    {name}_v t[{groups}][{rows}];",
        f"    for (int h = 0; h < {groups}; ++h) {{",
        f"        {name}_v a[{rows}], b[{rows}];",
        f"        for (int r = 0; r < {rows}; ++r)",
        f"            __builtin_memcpy(&a[r], src + (h * {rows} + r) * ss, {_LINE});",
        *_network(f"{name}_shuffle", rows, first, "t[h][r]"),
        "    }",
        f"    for (int r = 0; r < {rows}; ++r) {{",
        f"        {name}_v a[{groups}], b[{groups}];",
        f"        for (int h = 0; h < {groups}; ++h)",
        "            a[h] = t[h][r];",
        *_network(f"{name}_shuffle", groups, second, None),
        f"        for (int l = 0; l < {groups}; ++l)",
        f"            __builtin_memcpy(dst + (l * {rows} + r) * ds, &{_last(groups)}[l], {_LINE});",
        "    }",
        "}",
    ]


def _network(shuffle: str, rows: int, shuffles: tuple[str, str], keep: str | None) -> list[str]:
    """log2(rows) perfect-shuffle stages over vectors ``a`` (``b`` the scratch): each stage
    interleaves row p with row p + rows/2 into rows 2p and 2p + 1, which rotates a unit's
    (row, column) index bits by one, so after log2(rows) stages row and column have swapped.
    ``keep``: where to copy the result row ``r`` (else it stays in ``_last(rows)``)."""
    lo, hi = shuffles
    half, lines, x, y = rows // 2, [], "a", "b"
    for _ in range(rows.bit_length() - 1):
        lines += [
            f"for (int p = 0; p < {half}; ++p) {{",
            f"    {y}[2 * p] = {shuffle}({x}[p], {x}[p + {half}], {lo});",
            f"    {y}[2 * p + 1] = {shuffle}({x}[p], {x}[p + {half}], {hi});",
            "}",
        ]
        x, y = y, x
    if keep is not None:
        lines += [f"for (int r = 0; r < {rows}; ++r)", f"    {keep} = {x}[r];"]
    return ["        " + line for line in lines]


def _last(rows: int) -> str:
    """The array holding a network's result: stages alternate between ``a`` and ``b``."""
    return "ab"[(rows.bit_length() - 1) % 2]


def _shuffles(unit: int, lane: int, width: int, elem: int) -> tuple[str, str]:
    """Index lists of one stage's two shuffles over vectors of ``width`` units of ``unit``
    bytes, in lanes of ``lane`` units: each lane's low halves of both vectors interleaved, then
    its high halves. Indices count ``elem``-byte elements; the second vector's follow the
    first's."""
    lo, hi = [], []
    for start in range(0, width, lane):
        for q in range(start, start + lane // 2):
            lo += [q, width + q]
            hi += [q + lane // 2, width + q + lane // 2]
    return _elements(lo, unit // elem), _elements(hi, unit // elem)


def _elements(units: list[int], per: int) -> str:
    return ", ".join(str(u * per + e) for u in units for e in range(per))


def dot(index: str, strides: tuple[int, ...], dims=None) -> str:
    """``i0 * s0 + i1 * s1 ...`` with int64 literals (byte strides may pass 2^31, or be < 0),
    over every dim or only over ``dims`` (a line tile's loops move the other two)."""
    dims = range(len(strides)) if dims is None else dims
    return " + ".join(f"{index}{k} * ({strides[k]}LL)" for k in dims) or "0"
