"""Plan a strided layout copy (a rearrange) as unit-sized blocks laid out on a grid.

The plan follows InfiniCore's ``RearrangeMeta`` + ``prepareRearrangeParams`` (seed 002) and runs
nothing: it reads shapes and strides and returns a frozen :class:`RearrangePlan`.

Conventions used throughout this module:

- ``plan_rearrange`` takes strides in ELEMENTS (numpy strides // itemsize) and offsets in BYTES;
  every stride stored in the plan is in BYTES.
- Dims are listed outer first, innermost (fastest) last, as in a C-order shape. Grid dims and
  block dims follow the destination order (largest dst stride first), except that the last
  block dim is the one the inner loop should run along (see ``_inner_last``).
- Byte offsets in the plan are relative to element ``[0, ..., 0]`` of each array: the copy of unit
  ``(g, b)`` reads ``src0 + sum(g*src_grid_strides) + sum(b*src_block_strides)`` and writes the
  same expression over the dst strides, for every grid index ``g`` and block index ``b`` that
  satisfies all constraints.
- A plan for a device whose kernels move line tiles (``line_tiles``) records, for a block that
  transposes, the two block dims a ``LineTile`` crosses; the copy is the same either way.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BLOCK_BYTES",
    "MAX_BLOCK_DIMS",
    "MAX_CONSTRAINTS",
    "UNIT_SIZES",
    "Constraint",
    "LineTile",
    "RearrangePlan",
    "copy_method",
    "plan_rearrange",
]

# Largest first: distributeUnit keeps the first size that fits (seed 002).
UNIT_SIZES = (32, 16, 8, 4, 2, 1)
# A 64x64 float32 tile: DESIGN §9 measured 64x64 tiles beating 128+ on a 2-core machine,
# and 16 KiB of source plus 16 KiB of destination lines still fit in L1/L2 together.
DEFAULT_BLOCK_BYTES = 32 * 1024
# The seed's kernels are specialised for at most 5 block dims and 2 constraints; we keep those
# limits so a plan stays printable and portable. The seed's 5-grid-dim limit is lifted: on the CPU
# grid dims are numpy view dims (numpy allows 64), and gapped high-rank layouts need more than 5.
MAX_BLOCK_DIMS = 5
MAX_CONSTRAINTS = 2
# Rows whose stride is a multiple of this many bytes land in the same L1 sets (4 KiB is one
# way of a 32-64 KiB, 8-12-way L1), so a tile may span only _SET_WAYS of them before they evict
# each other: an 8192x8192 float32 transpose ran 2x faster with 8-row than with 64-row tiles.
_SET_BYTES = 4096
_SET_WAYS = 8  # numpy's best; the default of plan_rearrange's set_ways
# The block dim copied by the inner loop: a ufunc inner loop shorter than this is mostly call
# overhead, so a shorter dst-contiguous dim (NCHW -> NHWC with 3 channels) yields it.
_MIN_INNER = 8  # numpy's; the default of plan_rearrange's min_inner
_LINE_BYTES = 64


@dataclass(frozen=True)
class Constraint:
    """A dim split into (grid part, block part) that does not divide its length.

    A unit is copied iff ``g[grid_idx] * grid_div_block + b[block_idx] < total_len``.
    """

    grid_idx: int
    block_idx: int
    grid_div_block: int
    total_len: int

    def __repr__(self) -> str:
        return (
            f"Constraint(g{self.grid_idx}*{self.grid_div_block}+b{self.block_idx}<{self.total_len})"
        )

    def holds(self, grid_index: int, block_index: int) -> bool:
        return grid_index * self.grid_div_block + block_index < self.total_len


@dataclass(frozen=True)
class LineTile:
    """A transposing block moved in square tiles of ``side`` units, one cache line a side.

    Block dim ``src_rows`` is contiguous in the destination (its steps are source rows), block
    dim ``dst_rows`` contiguous in the source: a tile reads ``side`` whole source lines and
    writes ``side`` whole destination lines, transposing them in registers in between.
    """

    src_rows: int
    dst_rows: int
    side: int

    def __repr__(self) -> str:
        side, src, dst = self.side, self.src_rows, self.dst_rows
        return f"LineTile({side}x{side}: b{src} src rows, b{dst} dst rows)"


@dataclass(frozen=True)
class RearrangePlan:
    """A rearrange as units (bytes) copied per block, blocks walked over a grid.

    All lengths are outer first (innermost last); all strides are in bytes. An empty copy has
    ``grid_len == (0,)``; a single unit (0-d) has empty block and grid tuples.
    """

    unit: int
    block_len: tuple[int, ...]
    src_block_strides: tuple[int, ...]
    dst_block_strides: tuple[int, ...]
    grid_len: tuple[int, ...]
    src_grid_strides: tuple[int, ...]
    dst_grid_strides: tuple[int, ...]
    constraints: tuple[Constraint, ...]
    itemsize: int
    nbytes: int
    tile: LineTile | None = None  # how a compiled kernel moves each block (None: unit by unit)

    @property
    def block_units(self) -> int:
        return math.prod(self.block_len)

    @property
    def n_blocks(self) -> int:
        return math.prod(self.grid_len)

    def __repr__(self) -> str:
        def dims(lens, src, dst):
            shape = "x".join(map(str, lens)) or "()"
            return f"{shape} src{tuple(src)} dst{tuple(dst)}"

        block = dims(self.block_len, self.src_block_strides, self.dst_block_strides)
        grid = dims(self.grid_len, self.src_grid_strides, self.dst_grid_strides)
        tile = f", {self.tile}" if self.tile else ""
        return (
            f"RearrangePlan(unit={self.unit}B, block={block}, grid={grid}, "
            f"constraints={list(self.constraints)}{tile}, {self.nbytes} bytes)"
        )


@dataclass(frozen=True)
class _Dim:
    """One dim of the copy while planning: its length and byte strides."""

    length: int
    src: int
    dst: int


def plan_rearrange(
    shape,
    src_strides,
    dst_strides,
    itemsize: int,
    src_offset: int = 0,
    dst_offset: int = 0,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
    set_ways: int = 8,
    min_inner: int = 8,
    line_tiles: bool = False,
) -> RearrangePlan:
    """Plan copying a ``shape`` array from one strided layout into another.

    ``src_strides``/``dst_strides`` are in elements and may be negative or zero for the source;
    the destination must not overlap itself. ``src_offset``/``dst_offset`` are the byte offsets
    of element ``[0, ..., 0]`` from an aligned base; they only limit the unit size.
    ``set_ways`` and ``min_inner`` shape the tile for the device that runs it (see _SET_WAYS and
    _MIN_INNER: numpy's defaults; compiled loops want taller tiles and any inner length).
    ``line_tiles``: the device's kernels move a transposing block in line tiles (LineTile).
    """
    return _plan(
        tuple(int(n) for n in shape),
        tuple(int(s) for s in src_strides),
        tuple(int(d) for d in dst_strides),
        int(itemsize),
        int(src_offset),
        int(dst_offset),
        int(block_bytes),
        int(set_ways),
        int(min_inner),
        bool(line_tiles),
    )


# A plan is a pure function of its arguments, and a program realizes the same layouts again and
# again: caching makes a repeated plan cost ~1 us instead of ~20 us.
@functools.lru_cache(maxsize=1024)
def _plan(shape, src_strides, dst_strides, itemsize, src_offset, dst_offset, block_bytes, *tiling):
    _check_args(shape, src_strides, dst_strides, itemsize)
    if 0 in shape:
        return _empty_plan(itemsize, (src_offset, dst_offset))
    dims = _meta_dims(shape, src_strides, dst_strides, itemsize)
    run, dims = _fold_unit(dims, itemsize)
    unit, dims = _distribute_unit(run, dims, (src_offset, dst_offset))
    budget = max(1, block_bytes // unit)
    set_ways, min_inner, line_tiles = tiling
    pair = _transposed_pair(dims, unit) if line_tiles else None
    # NOTE: a line tile reads and writes whole lines, so no row must stay cached while its block
    # is walked: the aliasing cap would only stretch the block (2048^2 float32 with line tiles:
    # 1.6 ms in 512x16 blocks, 0.9 ms in 64x128 ones; 8192^2: 29.6 against 16.7 ms).
    steps = dict.fromkeys(pair, _LINE_BYTES // unit) if pair else None
    take = _choose_block(dims, budget, None if pair else set_ways, steps)
    nbytes = math.prod(shape) * itemsize
    return _assemble(dims, take, unit, itemsize, nbytes, min_inner, pair)


def _check_args(shape, src_strides, dst_strides, itemsize) -> None:
    assert len(src_strides) == len(shape) == len(dst_strides), (shape, src_strides, dst_strides)
    assert itemsize > 0 and all(n >= 0 for n in shape), (shape, itemsize)
    if 0 in shape:  # nothing is written, so no layout is wrong
        return
    # NOTE: only the cheap overlap (a repeated dst dim) is caught; the caller owns the rest.
    if any(n > 1 and d == 0 for n, d in zip(shape, dst_strides, strict=True)):
        raise ValueError(f"plan_rearrange: destination strides {dst_strides} repeat elements")


def _empty_plan(itemsize: int, offsets) -> RearrangePlan:
    unit, _ = _distribute_unit(itemsize, [], offsets)  # copies nothing, but keeps the rules
    return RearrangePlan(unit, (), (), (), (0,), (0,), (0,), (), itemsize, 0)


def _meta_dims(shape, src_strides, dst_strides, itemsize) -> list[_Dim]:
    """RearrangeMeta: drop length-1 dims, byte strides, sort, merge dims contiguous in both."""
    dims = [
        _Dim(n, s * itemsize, d * itemsize)
        for n, s, d in zip(shape, src_strides, dst_strides, strict=True)
        if n != 1
    ]
    # Sort by dst stride (the seed sorts by src): the destination never overlaps, so its strides
    # give a total order even when the source broadcasts (zero strides carry no order), and the
    # innermost dim becomes the dst-contiguous one, which is the run the unit may absorb.
    dims.sort(key=lambda dim: abs(dim.dst), reverse=True)
    return _merge_adjacent(dims)


def _merge_adjacent(dims: list[_Dim]) -> list[_Dim]:
    """Merge an outer dim into the inner neighbour when both arrays step over it contiguously."""
    merged: list[_Dim] = []
    for dim in reversed(dims):  # innermost first, so each new dim meets its inner neighbour
        if merged and _continues(dim, merged[-1]):
            inner = merged.pop()
            dim = _Dim(dim.length * inner.length, inner.src, inner.dst)
        merged.append(dim)
    merged.reverse()
    return merged


def _continues(outer: _Dim, inner: _Dim) -> bool:
    return outer.src == inner.src * inner.length and outer.dst == inner.dst * inner.length


def _fold_unit(dims: list[_Dim], itemsize: int) -> tuple[int, list[_Dim]]:
    """Fold the innermost dim into the unit when it is contiguous in src and dst alike."""
    # NOTE: after merging, at most one such dim is left and it is the innermost one.
    if dims and dims[-1].src == itemsize and dims[-1].dst == itemsize:
        return itemsize * dims[-1].length, dims[:-1]
    return itemsize, dims


def _distribute_unit(run: int, dims: list[_Dim], offsets) -> tuple[int, list[_Dim]]:
    """distributeUnit: the largest unit dividing the run, every stride and both offsets."""
    # Note (seed 002): InfiniCore checks only the outermost stride, so an inner stride that the
    # unit does not divide gives misaligned units; we check them all.
    values = [run, *offsets, *(dim.src for dim in dims), *(dim.dst for dim in dims)]
    unit = next(u for u in UNIT_SIZES if all(v % u == 0 for v in values))
    if run > unit:  # the rest of the contiguous run becomes the innermost dim
        dims = [*dims, _Dim(run // unit, unit, unit)]
    return unit, dims


def _choose_block(dims: list[_Dim], budget: int, set_ways: int | None = 8, steps=None) -> dict:
    """Pick block dims (dim index -> block length) for a tile of about ``budget`` units.

    Two cursors walk the dims from the dst-contiguous and from the src-contiguous end. The side
    that has covered fewer units goes next; while the other side still wants a different dim it
    may take only the square root of the room left (at most ``set_ways`` rows when they alias,
    ``_balanced``; None: no cap), so a transpose gets a square tile and both the reads and the
    writes stay within a few cache lines per row. A side stops at a dim it splits; a dim both
    sides want next takes all room. ``steps``: dim index -> the multiple its split should be.
    """
    steps = steps or {}
    orders = (_inner_first(dims, "dst"), _inner_first(dims, "src"))
    pos, extent, open_ = [0, 0], [1, 1], [True, True]
    take: dict[int, int] = {}
    room = budget
    while room > 1 and any(open_) and len(take) < MAX_BLOCK_DIMS:
        side = 0 if open_[0] and (not open_[1] or extent[0] <= extent[1]) else 1
        k = _next_dim(orders[side], pos, side, take, dims, extent)
        if k is None or k in take:  # exhausted, or the other side split this dim
            open_[side] = False
            continue
        other = 1 - side
        shared = open_[other] and _peek(orders[other], pos[other], take, dims) == k
        allowance = room if shared or not open_[other] else _balanced(dims[k], side, room, set_ways)
        allowance = max(allowance, min(room, steps.get(k, 1)))  # room for one line tile
        length = dims[k].length
        part = length if length <= allowance else _block_part(length, allowance, steps.get(k, 1))
        if part > 1:  # a block part of 1 would only add a dim to the block
            take[k] = part
            room //= part
        if part == length:
            extent[side] *= length
            pos[side] += 1
        else:
            open_[side] = False
            open_[other] = open_[other] and not shared
    return take


def _balanced(dim: _Dim, side: int, room: int, set_ways: int | None) -> int:
    """Room for one side of a tile whose other side is still to come: the square root."""
    across = dim.src if side == 0 else dim.dst  # stride between this tile's rows
    if set_ways is not None and across and abs(across) % _SET_BYTES == 0:
        return min(math.isqrt(room), set_ways)
    return math.isqrt(room)


def _transposed_pair(dims: list[_Dim], unit: int) -> tuple[int, int] | None:
    """(dim contiguous in dst, dim contiguous in src) when they differ and each holds at least
    a line of units: the block can then be moved in line tiles."""
    side = _LINE_BYTES // unit
    dst_inner = [k for k, dim in enumerate(dims) if dim.dst == unit and dim.length >= side]
    src_inner = [k for k, dim in enumerate(dims) if dim.src == unit and dim.length >= side]
    if dst_inner and src_inner and dst_inner[0] != src_inner[0]:
        return dst_inner[0], src_inner[0]
    return None


def _inner_first(dims: list[_Dim], which: str) -> list[int]:
    """Dim indices, smallest |stride| first; zero (broadcast) source dims are left out."""
    keyed = [(abs(getattr(dim, which)), k) for k, dim in enumerate(dims)]
    return [k for stride, k in sorted(keyed) if stride != 0]


def _next_dim(order, pos, side, take, dims, extent):
    """Advance a side past dims already fully in the block; return its next dim or None."""
    while pos[side] < len(order):
        k = order[pos[side]]
        if take.get(k) != dims[k].length:
            return k
        extent[side] *= dims[k].length
        pos[side] += 1
    return None


def _peek(order, at, take, dims):
    while at < len(order) and take.get(order[at]) == dims[order[at]].length:
        at += 1
    return order[at] if at < len(order) else None


def _block_part(length: int, allowance: int, step: int = 1) -> int:
    """Block length for a dim too long for the tile: prefer one that divides the dim; a dim
    that line tiles cross takes the multiple of ``step`` (their side) nearest to that."""
    part = _dividing_part(length, allowance)
    if step == 1 or allowance < step:
        return part
    # NOTE: a tile that would pass the block's end steps back and copies some units twice: 50
    # rows took 4 float32 tiles of 16 (60x500x500 permuted 4.2 ms; 48 rows: 3.3 ms).
    return max(1, min(allowance // step, round(part / step))) * step


def _dividing_part(length: int, allowance: int) -> int:
    pow2 = 1 << (allowance.bit_length() - 1)  # largest power of two <= allowance
    if length % pow2 == 0:  # whole cache lines per tile row when the dim allows it
        return pow2
    pieces = -(-length // allowance)  # the fewest pieces that fit
    for more in range(pieces, min(2 * pieces, pieces + 64)):
        if length % more == 0 and 2 * (length // more) >= allowance:
            return length // more  # a divisor near the allowance: no constraint
    # Even pieces: the tail block (the constraint) is at most one unit per piece shorter.
    return -(-length // pieces)


def _inner_last(block: list[int], take: dict[int, int], min_inner: int) -> list[int]:
    """Order block dims outer first; the last is the inner loop (see ``_MIN_INNER``)."""
    if block and take[block[-1]] < min_inner:
        longest = max(block, key=lambda k: take[k])
        block = [k for k in block if k != longest] + [longest]
    return block


def _assemble(dims, take, unit, itemsize, nbytes, min_inner, pair=None) -> RearrangePlan:
    """Lay the chosen dims out as block and grid tuples, outer first, and add constraints."""
    block = _inner_last([k for k in range(len(dims)) if k in take], take, min_inner)
    grid: list[tuple[int, int, int]] = []
    constraints = []
    for k, dim in enumerate(dims):
        b = take.get(k, 1)
        if b == dim.length:
            continue
        if b > 1 and dim.length % b:
            constraints.append(Constraint(len(grid), block.index(k), b, dim.length))
        grid.append((-(-dim.length // b), dim.src * b, dim.dst * b))
    assert len(constraints) <= MAX_CONSTRAINTS and len(block) <= MAX_BLOCK_DIMS, (dims, take)
    return RearrangePlan(
        unit=unit,
        block_len=tuple(take[k] for k in block),
        src_block_strides=tuple(dims[k].src for k in block),
        dst_block_strides=tuple(dims[k].dst for k in block),
        grid_len=tuple(g[0] for g in grid),
        src_grid_strides=tuple(g[1] for g in grid),
        dst_grid_strides=tuple(g[2] for g in grid),
        constraints=tuple(constraints),
        itemsize=itemsize,
        nbytes=nbytes,
        tile=_line_tile(block, take, pair, unit),
    )


def _line_tile(block: list[int], take: dict[int, int], pair, unit: int) -> LineTile | None:
    """The block's line tile: both dims of ``pair`` in the block, each at least a line long."""
    side = _LINE_BYTES // unit
    if pair is None or any(take.get(k, 1) < side for k in pair):
        return None
    return LineTile(block.index(pair[0]), block.index(pair[1]), side)


# -- how a device runs the plan ----------------------------------------------------------------


def copy_method(plan: RearrangePlan, shape, src_strides, dst_strides, target) -> str:
    """ "direct" (one copy in destination order) or "tiled" (the plan's blocks), decided once at
    plan time from the layouts (byte strides) and the device's `target`, stored in the kernel
    record, run as written and printed by explain()."""
    small = plan.nbytes < target.direct_copy_bytes
    local = _walk_is_local(shape, src_strides, dst_strides, target.local_walk_rows)
    return "direct" if small or local else "tiled"


def _walk_is_local(shape, src_strides, dst_strides, max_rows: int) -> bool:
    """Whether a destination-order copy keeps its source reads in cache: the source advances
    within a cache line, or the source rows one destination row touches are few and do not
    alias in the L1 sets (a stride that is a multiple of 4 KiB)."""
    dims = [(n, s, d) for n, s, d in zip(shape, src_strides, dst_strides, strict=True) if n > 1]
    if not dims:
        return True
    rows, src_stride, _ = min(dims, key=lambda dim: abs(dim[2]))  # the dst-contiguous dim
    if abs(src_stride) <= _LINE_BYTES:
        return True
    return abs(src_stride) % _SET_BYTES != 0 and rows <= max_rows
