"""A RearrangePlan -> CUDA C: one kernel copying the whole plan, its launch covering it once.

The plan's grid and block are the CPU's partition of the copy (blocks sized to a core's cache);
a GPU kernel wants its own. So the kernel starts from the copy itself: the plan's dims joined
back (`copy_dims`: a split dim and its constraint made one dim again, dims contiguous in both
arrays merged), outer first in destination order, and picks one of four walks:

- `interleave` (a short channel dim, 2 to 4 units of 1 or 2 bytes, innermost in the
  destination and planes apart in the source: uint8 NCHW -> NHWC) and `deinterleave` (the
  mirror, NHWC -> NCHW): each thread moves one 32-bit word per plane, 4 bytes of pixels, and
  builds the other side's words in registers with `__byte_perm` (PRMT): C 32-bit loads and C
  32-bit stores, each warp's accesses contiguous on both sides. An H100 probe of this design
  moved the (8, 3, 1024, 1024) uint8 case in 25 us against torch's 55 and our tiled 420
  (../shared/notes/gpu-measured.md); DALI's transpose picks a "deinterleave" method for the
  same shape (`dali/kernels/transpose/transpose_gpu.cu`), and OneFlow's permute moves the
  widest word the layout allows (`oneflow/core/ep/cuda/primitive/permute.cu`). Words need
  every plane, pixel group and outer step on a 4-byte boundary: the plan's strides are checked
  when rendered, the run's two addresses when launched (Launch.fits), else the fallback runs.
- `shared tile`: the dim contiguous in the destination and the one contiguous in the source
  differ and both are long (a transpose): a block of 32x8 threads takes one 32x32 tile of them
  (its origin from blockIdx, no thread computing offsets for the others), reading along the
  source's rows into shared memory and writing along the destination's, 4 rows a thread, the
  tile padded to an odd number of 4-byte words a row (no bank conflicts for any unit): NVIDIA's
  transpose (developer.nvidia.com/blog/efficient-matrix-transpose-cuda-cc, its `tile[32][33]`
  and 32x8 threads), CUTLASS's `device_nchw_to_nhwc.h`, OneFlow's batch transpose.
- `direct`: every other copy, a thread per unit in destination order (each warp's writes
  contiguous), 4 units a thread a block-width apart, 128 threads a block: PyTorch's copy of a
  non-contiguous tensor (`launch_legacy_kernel<128, 4>` with an offset calculator,
  `aten/src/ATen/native/cuda/CUDALoops.cuh`), which an H100 ran at 0.92 TB/s on the uint8 case.

Units move as raw bytes (1 to 32: NaN payloads survive); lengths and strides are literals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._schedule.rearrange import RearrangePlan
from .cuda_dialect import Param, Rendered, indent, index_types, literal, named, split_index
from .cuda_elementwise import tile_pad

THREADS = 128  # per block of the direct walk
UNROLL = 4  # units a thread of the direct walk moves
WEAVE_THREADS = 256  # per block of the interleave walks
TILE, ROWS = 32, 8  # a tile's side and a tile block's rows of threads
TILE_MIN = 16  # both tiled dims at least this long, else a warp would idle in the tile
WORD = 4  # bytes the interleave walks move per access
MAX_GRID = 2**31 - 1
_UNIT_TYPES = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}
_UNIT_TYPES |= {16: "li_unit16", 32: "li_unit32"}
# src_base is the load (operand 1), dst_base the output (operand 0)
_SIDES = ("src", "dst")
_PARAMS = (Param("src_base", "const char *", operand=1), Param("dst_base", "char *", operand=0))


@dataclass(frozen=True)
class Dim:
    """One dim of a copy: its length and byte strides in the source and the destination."""

    length: int
    src: int
    dst: int


def render_copy(plan: RearrangePlan) -> Rendered:
    """The CUDA kernel of `plan` (cuda.render_rearrange) and its launch."""
    dims, unit = copy_dims(plan), plan.unit
    count = math.prod(d.length for d in dims) if plan.nbytes else 0
    pair = _pair(dims, unit)
    woven = _weave(dims, unit) if count else None
    name = "LI_NAME" if woven is None else "LI_NAME_f"
    base = _tiled(dims, unit, pair, name) if pair else _direct(dims, unit, count, name)
    if woven is None:
        return named(*base)
    source, launch = _woven(dims, unit, *woven)
    return named(source + base[0], launch, base[1])


def copy_dims(plan: RearrangePlan) -> list[Dim]:
    """The plan's dims as one copy: each grid dim joined with the block dim it was split from
    (a constraint's total length), dims contiguous in both arrays merged, length-1 dims left
    out; outer first by destination stride."""
    block = [Dim(*d) for d in zip(plan.block_len, plan.src_block_strides, plan.dst_block_strides)]
    grid = [Dim(*d) for d in zip(plan.grid_len, plan.src_grid_strides, plan.dst_grid_strides)]
    totals = {con.grid_idx: (con.block_idx, con.total_len) for con in plan.constraints}
    joined, used = [], set()
    for g, dim in enumerate(grid):
        if g in totals:
            b, total = totals[g]
            used.add(b)
            joined.append(Dim(total, block[b].src, block[b].dst))
            continue
        b = next((b for b, part in enumerate(block) if b not in used and _splits(dim, part)), None)
        if b is None:
            joined.append(dim)
        else:
            used.add(b)
            joined.append(Dim(dim.length * block[b].length, block[b].src, block[b].dst))
    joined += [part for b, part in enumerate(block) if b not in used]
    joined.sort(key=lambda d: abs(d.dst), reverse=True)
    merged: list[Dim] = []
    for dim in reversed(joined):  # innermost first: each dim meets its inner neighbour
        if merged and _splits(dim, merged[-1]):
            inner = merged.pop()
            dim = Dim(dim.length * inner.length, inner.src, inner.dst)
        merged.append(dim)
    return [d for d in reversed(merged) if d.length != 1]


def _splits(outer: Dim, inner: Dim) -> bool:
    """Whether `outer` steps over whole runs of `inner` in both arrays (one dim, split)."""
    return outer.src == inner.src * inner.length and outer.dst == inner.dst * inner.length


def _types(dims: list[Dim], unit: int, count: int) -> tuple[str, str]:
    """The index and offset types of a walk over `count` units of `dims`."""
    reaches = [sum(abs(getattr(d, side)) * (d.length - 1) for d in dims) for side in _SIDES]
    return index_types(count, max(reaches) + unit)


def _offset(index: str, dims: list[Dim], names, side: str, off: str) -> str:
    """The byte offset `sum(index<j> * stride)` of the `side` ("src" or "dst") over `names`."""
    return _terms([(f"{index}{j}", getattr(dims[j], side)) for j in names], off)


def _terms(terms: list[tuple[str, int]], off: str) -> str:
    """`sum(variable * stride)` over (variable, byte stride) pairs, in the offset type."""
    text = [f"({off}){name} * {literal(stride, off)}" for name, stride in terms if stride]
    return " + ".join(text) or "0"


def _signature(name: str) -> str:
    return (
        f'extern "C" __global__ void {name}(const char *__restrict__ src_base, '
        "char *__restrict__ dst_base)"
    )


# -- direct ----------------------------------------------------------------------------------


def _direct(dims: list[Dim], unit: int, count: int, name: str) -> tuple[str, dict]:
    """A thread per unit, in destination order, UNROLL units a thread THREADS apart."""
    idx, off = _types(dims, unit, count)
    ut = _UNIT_TYPES[unit]
    names = range(len(dims))
    lengths = [literal(d.length, idx) for d in dims]
    copy = [
        *split_index("li_u", "i", lengths, idx),
        f"*({ut} *)(dst_base + {_offset('i', dims, names, 'dst', off)}) = "
        f"*(const {ut} *)(src_base + {_offset('i', dims, names, 'src', off)});",
    ]
    whole = count % (THREADS * UNROLL) == 0
    walk = [
        f"const {idx} li_first = ({idx})blockIdx.x * {THREADS * UNROLL} + threadIdx.x;",
        "#pragma unroll",
        f"for (unsigned int li_k = 0; li_k < {UNROLL}; ++li_k) {{",
        f"    const {idx} li_u = li_first + li_k * {THREADS};",
        *(indent(copy, 1) if whole else [f"    if (li_u < {literal(count, idx)}) {{"]),
        *([] if whole else [*indent(copy, 2), "    }"]),
        "}",
    ]
    source = [_signature(name), "{", *indent(walk if count else [], 1), "}", ""]
    blocks = -(-count // (THREADS * UNROLL))
    assert blocks <= MAX_GRID, dims
    launch = {"method": "direct", "grid": (blocks, 1, 1), "block": (THREADS, 1, 1)}
    return "\n".join(source), {**launch, "shared_bytes": 0, "params": _PARAMS}


# -- shared tile -----------------------------------------------------------------------------


def _pair(dims: list[Dim], unit: int) -> tuple[int, int] | None:
    """(the dim contiguous in the destination, the dim contiguous in the source) when they
    differ and both are at least TILE_MIN long: the copy is a transpose of tiles."""
    dst = [j for j, d in enumerate(dims) if abs(d.dst) == unit and d.length >= TILE_MIN]
    src = [j for j, d in enumerate(dims) if abs(d.src) == unit and d.length >= TILE_MIN]
    return (dst[0], src[0]) if dst and src and dst[0] != src[0] else None


def _tiled(dims: list[Dim], unit: int, pair: tuple[int, int], name: str) -> tuple[str, dict]:
    """One 32x32 tile of the pair's dims a block (and one index of each other dim): a warp
    reads 32 units along the source's contiguous dim into the tile, a barrier, then writes 32
    units along the destination's from the tile's other axis."""
    count = math.prod(d.length for d in dims)
    idx, off = _types(dims, unit, count)
    a, b = pair
    others = [j for j in range(len(dims)) if j not in pair]
    ut, pad = _UNIT_TYPES[unit], tile_pad(unit)
    across, down = -(-dims[b].length // TILE), -(-dims[a].length // TILE)
    corner = [
        f"{idx} li_rem = blockIdx.x;",
        f"const {idx} li_b0 = li_rem % {literal(across, idx)} * {TILE}; li_rem /= {across};",
        f"const {idx} li_a0 = li_rem % {literal(down, idx)} * {TILE}; li_rem /= {down};",
        *split_index(
            "li_rem", "i", [literal(dims[j].length, idx) for j in others], idx, others, False
        ),
        f"const char *li_s = src_base + {_offset('i', dims, others, 'src', off)};",
        f"char *li_d = dst_base + {_offset('i', dims, others, 'dst', off)};",
    ]
    src = "li_s + " + _terms([("li_ia", dims[a].src), ("li_ib", dims[b].src)], off)
    dst = "li_d + " + _terms([("li_ia", dims[a].dst), ("li_ib", dims[b].dst)], off)
    inside = None
    if dims[a].length % TILE or dims[b].length % TILE:
        inside = f"li_ia < {literal(dims[a].length, idx)} && li_ib < {literal(dims[b].length, idx)}"
    body = [
        f"__shared__ {ut} li_tile[{TILE}][{TILE + pad}];",
        *corner,
        *_tile_pass(
            idx,
            ("li_y", "threadIdx.x"),
            f"li_tile[li_y][threadIdx.x] = *(const {ut} *)({src});",
            inside,
        ),
        "__syncthreads();",
        *_tile_pass(
            idx, ("threadIdx.x", "li_y"), f"*({ut} *)({dst}) = li_tile[threadIdx.x][li_y];", inside
        ),
    ]
    source = [_signature(name), "{", *indent(body, 1), "}", ""]
    blocks = across * down * math.prod(dims[j].length for j in others)
    assert blocks <= MAX_GRID, dims
    launch = {"method": "shared tile", "grid": (blocks, 1, 1), "block": (TILE, ROWS, 1)}
    shared = TILE * (TILE + pad) * unit
    return "\n".join(source), {**launch, "shared_bytes": shared, "params": _PARAMS}


def _tile_pass(idx: str, at: tuple[str, str], copy: str, inside: str | None) -> list[str]:
    """One pass over the tile: thread (x, y) at tile offsets `at` (of the pair's a and b dims)
    for li_y = y, y + ROWS, ..."""
    return [
        "#pragma unroll",
        f"for (unsigned int li_k = 0; li_k < {TILE // ROWS}; ++li_k) {{",
        f"    const {idx} li_y = threadIdx.y + li_k * {ROWS};",
        f"    const {idx} li_ia = li_a0 + {at[0]}, li_ib = li_b0 + {at[1]};",
        f"    {copy}" if inside is None else f"    if ({inside}) {copy}",
        "}",
    ]


# -- interleave, deinterleave ------------------------------------------------------------------


def _weave(dims: list[Dim], unit: int) -> tuple[str, int, int] | None:
    """(method, channels, plane stride) when the copy interleaves (or deinterleaves) 2 to 4
    planes of 1- or 2-byte units and every word it moves lies on a 4-byte boundary."""
    if unit > 2 or len(dims) < 2:
        return None
    inner, outer = dims[-1], dims[-2]
    if inner.dst != unit or outer.src != unit:
        return None
    # interleave: [..., (pixels, unit, channels * unit), (channels, plane, unit)]
    # deinterleave: [..., (channels, unit, plane), (pixels, channels * unit, unit)]
    shapes = [
        ("interleave", inner.length, outer.length, inner.src, outer.dst),
        ("deinterleave", outer.length, inner.length, outer.dst, inner.src),
    ]
    steps = [s for d in dims[:-2] for s in (d.src, d.dst)]
    for method, channels, pixels, plane, step in shapes:
        if step != channels * unit or not 2 <= channels <= 4 or pixels % (WORD // unit):
            continue
        if all(s % WORD == 0 for s in [plane, *steps]):
            return method, channels, plane
    return None


def _woven(dims: list[Dim], unit: int, method: str, channels: int, plane: int):
    """The interleave (or deinterleave) kernel: a thread per WORD bytes of pixels, one word
    of each plane, `channels` words of pixels on the other side, rearranged by __byte_perm."""
    per = WORD // unit  # pixels a word holds
    pixels = dims[-1].length if method == "deinterleave" else dims[-2].length
    outer = list(range(len(dims) - 2))
    groups = pixels // per * math.prod(dims[j].length for j in outer)
    idx, off = _types(dims, unit, groups * per * channels)
    interleave = method == "interleave"
    src_step, dst_step = (WORD, WORD * channels) if interleave else (WORD * channels, WORD)
    lengths = [literal(dims[j].length, idx) for j in outer]

    def at(side: str, step: int) -> list[tuple[str, int]]:  # the thread's first word
        return [(f"i{j}", getattr(dims[j], side)) for j in outer] + [("li_g", step)]

    body = [
        f"{idx} li_rem = li_t;",
        f"const {idx} li_g = li_rem % {literal(pixels // per, idx)}; li_rem /= {pixels // per};",
        *split_index("li_rem", "i", lengths, idx, outer, False),
        f"const char *li_s = src_base + {_terms(at('src', src_step), off)};",
        f"char *li_d = dst_base + {_terms(at('dst', dst_step), off)};",
        *_words(unit, channels, plane, interleave),
    ]
    whole = groups % WEAVE_THREADS == 0
    source = [
        _signature("LI_NAME"),
        "{",
        f"    const {idx} li_t = ({idx})blockIdx.x * {WEAVE_THREADS} + threadIdx.x;",
        *(
            indent(body, 1)
            if whole
            else [f"    if (li_t < {literal(groups, idx)}) {{", *indent(body, 2), "    }"]
        ),
        "}",
        "",
    ]
    blocks = -(-groups // WEAVE_THREADS)
    assert blocks <= MAX_GRID, dims
    launch = {"method": method, "grid": (blocks, 1, 1), "block": (WEAVE_THREADS, 1, 1)}
    words = {"shared_bytes": 0, "params": _PARAMS, "aligned": (0, 1), "align": WORD}
    return "\n".join(source), {**launch, **words}


def _words(unit: int, channels: int, plane: int, interleave: bool) -> list[str]:
    """The loads of a thread's words, and the stores of the words built from them."""
    if interleave:  # a word of each plane in, `channels` words of whole pixels out
        loads = [f"li_s + {literal(c * plane, 'long long')}" for c in range(channels)]
        stores = [f"li_d + {WORD * j}" for j in range(channels)]
    else:
        loads = [f"li_s + {WORD * j}" for j in range(channels)]
        stores = [f"li_d + {literal(c * plane, 'long long')}" for c in range(channels)]
    lines = [f"const uint32_t li_w{j} = *(const uint32_t *)({at});" for j, at in enumerate(loads)]
    for j, at in enumerate(stores):
        picks = [_source_byte(WORD * j + n, unit, channels, interleave) for n in range(WORD)]
        lines.append(f"*(uint32_t *)({at}) = {byte_perm(picks)};")
    return lines


def _source_byte(byte: int, unit: int, channels: int, interleave: bool) -> tuple[str, int]:
    """(the loaded word, its byte) that byte `byte` of a thread's stores takes: in interleave
    order the stores are whole pixels (channel fastest), in deinterleave order planes."""
    if interleave:
        pixel, channel, part = byte // (channels * unit), byte // unit % channels, byte % unit
        return f"li_w{channel}", pixel * unit + part
    channel, n = divmod(byte, WORD)
    at = n // unit * channels * unit + channel * unit + n % unit
    return f"li_w{at // WORD}", at % WORD


def byte_perm(picks: list[tuple[str, int]]) -> str:
    """A 32-bit word whose byte n is byte `picks[n][1]` of word `picks[n][0]`: a chain of
    `__byte_perm(x, y, s)` (byte n of the result is byte s's nibble n of y:x), one per word
    after the first."""
    words = list(dict.fromkeys(word for word, _ in picks))
    expr, held = words[0], {n: byte for n, (word, byte) in enumerate(picks) if word == words[0]}
    if len(words) == 1:
        selector = _selector([held[n] for n in range(WORD)])
        return expr if selector == 0x3210 else f"__byte_perm({expr}, 0u, 0x{selector:04x}u)"
    for word in words[1:]:
        nibbles = [
            WORD + byte if source == word else held.get(n, 0)
            for n, (source, byte) in enumerate(picks)
        ]
        expr = f"__byte_perm({expr}, {word}, 0x{_selector(nibbles):04x}u)"
        held = {n: n for n, (source, _) in enumerate(picks) if n in held or source == word}
    return expr


def _selector(nibbles: list[int]) -> int:
    return sum(nibble << (4 * n) for n, nibble in enumerate(nibbles))
