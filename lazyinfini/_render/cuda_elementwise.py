"""An elementwise kernel record -> CUDA C (the dialect and launch records are in cuda.py).

Three walks of the kernel's space, each computing the register program per element:

- `vector`: each thread takes `per_thread` consecutive elements (8, or 16 when an operand has
  1-byte elements) and moves every contiguous operand as 16-byte vectors (`li_unit16`: one
  LDG.128 / STG.128 each), computes them from registers, and stores its outputs as vectors; a
  thread whose elements pass the end takes them one by one (the tail). 128 threads a block and
  a grid covering the data once, no grid-stride loop. This is PyTorch's contiguous launch
  (`aten/src/ATen/native/cuda/CUDALoops.cuh` `launch_vectorized_kernel`: `16 / sizeof` elements
  a vector, 8 elements a thread, 16 for 1-byte types, 128 threads, no grid stride) and what
  Triton's coalescing pass gives a 1-D kernel (`sizePerThread` up to 128 bits, Inductor's
  XBLOCK=1024 with 4 warps); an H100 probe of this design ran clip(a - b) at 2.94 TB/s in
  float32 and 2.84 TB/s in float16 (../shared/notes/gpu-measured.md). Half floats are loaded 8
  to a vector and widened, computed and rounded element by element exactly as the scalar walk
  does, so the bits are the same. Loads that are not contiguous may still join: a broadcast or
  a load stepping one element along the last dim (a bias row) is read element by element at
  its split index (literal divisors: multiplies and shifts).
- `grid-stride`: one element a thread per step of a grid-stride loop, 256 threads a block. The
  vector walk's fallback, launched instead where a run finds an operand it vectorizes off a
  16-byte boundary (a view: Launch.fits), and the walk of kernels gathering their loads.
- `tiled`: when a load is read across the output's rows (a transposed operand), a block of
  32x8 threads takes one 32x32 tile of those two dims (its origin from blockIdx: the grid
  covers the tiles once), reading each such load's tile along its own rows into shared memory
  first, padded so that a row is an odd number of 4-byte words (no bank conflicts); 4 rows a
  thread, as NVIDIA's transpose (developer.nvidia.com/blog/efficient-matrix-transpose-cuda-cc).

Index math is 32-bit below 2**31 elements and bytes reached, 64-bit otherwise; sizes and
strides are literals.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .._graph import Op
from .._graph.views import c_strides, stand_in
from . import c
from .cuda_dialect import (
    CUDA,
    VECTOR_BYTES,
    Param,
    Rendered,
    indent,
    index_types,
    literal,
    named,
    signature,
    split_index,
)
from .elementwise import computed

THREADS = 256  # per block of the grid-stride walk
MAX_BLOCKS = 8192  # a grid-stride loop needs no more blocks than a GPU keeps busy
VECTOR_THREADS = 128  # per block of the vector walk: 4 warps, as PyTorch's and Inductor's
TILE = 32  # a shared tile is TILE x (TILE + pad) elements; a block is TILE x ROWS threads
ROWS = 8
SHARED_MAX = 48 * 1024  # static shared memory a block may declare
MAX_GRID = 2**31 - 1  # blocks in gridDim.x


def render_elementwise(kernel) -> Rendered:
    """The CUDA kernel of an elementwise kernel record with a CUDA form (cuda.render)."""
    walk = Walk.of(kernel)
    if walk.rows is not None:
        tiled = _tiled(walk)
        if tiled is not None:
            return tiled
        walk = dataclasses.replace(walk, rows=None)  # NOTE: tiles past the shared memory
    if not walk.vectors:
        return named(*_plain(walk, "LI_NAME"))
    vector, launch = _vector(walk)
    plain, fallback = _plain(walk, "LI_NAME_f")
    return named(vector + plain, launch, fallback)


@dataclass(frozen=True, eq=False)
class Walk:
    """An elementwise kernel's operands (outputs, then loads) in its space: byte strides, how
    each is read, the index types, and for a tiled walk the dim of the tile's rows."""

    kernel: object
    space: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    # "contiguous", "strided", "scalar" (every stride 0) or "fill" (a scalar passed by value);
    # "row" in a vector walk's loop: a load constant along a row, read before it (_per_row)
    kinds: tuple[str, ...]
    types: tuple[str, str]  # (index type, offset type)
    rows: int | None  # the tiled walk's row dim (a transposed load's fastest), else None

    @classmethod
    def of(cls, kernel):
        space = tuple(kernel.space) or (1,)
        nodes = [*kernel.outputs, *(ld.node for ld in kernel.loads)]
        strides = [c_strides(space, n.dtype.itemsize) for n in kernel.outputs]
        strides += [_strides_in(ld, space) for ld in kernel.loads]
        kinds = tuple(_kind(s, space, n.dtype.itemsize) for s, n in zip(strides, nodes))
        n_out = len(kernel.outputs)
        fills = [n_out + i for i, ld in enumerate(kernel.loads) if ld.base.op is Op.FULL]
        kinds = tuple("fill" if k in fills else kind for k, kind in enumerate(kinds))
        reach = max(_reach(s, space, n.dtype.itemsize) for s, n in zip(strides, nodes))
        types = index_types(math.prod(space), reach)
        rows = _rows_dim(strides[len(kernel.outputs) :], space)
        return cls(kernel, space, tuple(strides), kinds, types, rows)

    @property
    def operands(self) -> list:
        return [*self.kernel.outputs, *(ld.node for ld in self.kernel.loads)]

    @property
    def size(self) -> int:
        """The elements of the space."""
        return math.prod(self.space)

    def pointers(self) -> list[Param]:
        """The kernel's parameters: a pointer per operand, a fill's value by value."""
        n_out, nodes = len(self.kernel.outputs), self.operands
        return [
            Param(f"v{k}", c.memory_type(nodes[k].dtype, CUDA), operand=k, by_value=True)
            if kind == "fill"
            else Param(f"p{k}", "char *" if k < n_out else "const char *", operand=k)
            for k, kind in enumerate(self.kinds)
        ]

    def lengths(self, dims) -> list[str]:
        """The lengths of `dims` as index literals."""
        return [literal(self.space[j], self.types[0]) for j in dims]

    def address(self, k: int, dims, base: str = "p") -> str:
        """The byte address of operand `k` from `{base}{k}` at the index variables `i<j>` of
        `dims`."""
        off = self.types[1]
        terms = [
            f"({off})i{j} * {literal(self.strides[k][j], off)}" for j in dims if self.strides[k][j]
        ]
        return f"{base}{k} + ({' + '.join(terms)})" if terms else f"{base}{k}"

    def hoisted(self) -> list[str]:
        """Each load of one value, read once per thread: a fill's parameter, a scalar's
        element."""
        raw = {"fill": lambda k, node: f"v{k}", "scalar": lambda k, node: _at(f"p{k}", node.dtype)}
        return [
            f"const {c.ctype(node.dtype)} r{k - len(self.kernel.outputs)} = "
            f"{c.widened(node.dtype, raw[self.kinds[k]](k, node), CUDA)};"
            for k, node in enumerate(self.operands)
            if self.kinds[k] in _ONE_VALUE
        ]

    def element(self, read) -> list[str]:
        """One element's statements: `read(k)` gives the raw memory element of load operand
        `k`, the steps compute, the outputs are stored through `read(k)` too."""
        n_out, nodes = len(self.kernel.outputs), self.operands
        lines = [
            f"const {c.ctype(nodes[k].dtype)} r{k - n_out} = "
            f"{c.widened(nodes[k].dtype, read(k), CUDA)};"
            for k in range(n_out, len(nodes))
            if self.kinds[k] not in (*_ONE_VALUE, "row")  # NOTE: "row": read once (_per_row)
        ]
        dtypes = c.register_dtypes(self.kernel)
        for step in self.kernel.program.steps:
            lines += computed(self.kernel, step, dtypes, CUDA)
        for j, reg in enumerate(self.kernel.program.outputs):
            lines.append(f"{read(j)} = {c.narrowed(nodes[j].dtype, f'r{reg}', CUDA)};")
        return lines

    @property
    def wide(self) -> list[int]:
        """The operands the vector walk moves as vectors: the outputs and contiguous loads."""
        n_out = len(self.kernel.outputs)
        return [k for k, kind in enumerate(self.kinds) if k < n_out or kind == "contiguous"]

    @property
    def vectors(self) -> bool:
        """Whether the vector walk applies: no tiled walk, and every strided load steps at most
        one element along the space's last dim (a broadcast, a bias row): a thread's elements
        are then neighbours in memory or one value, where a wider step would gather."""
        if self.rows is not None:
            return False
        return all(
            abs(_last_step(self.strides[k], self.space)) <= self.operands[k].dtype.itemsize
            for k, kind in enumerate(self.kinds)
            if kind == "strided"
        )

    @property
    def per_thread(self) -> int:
        """Elements a thread of the vector walk takes: one 16-byte vector of its widest
        operand (a narrower operand moves one narrower vector: a float32 -> bool comparison
        loads 16 bytes and stores 4), as PyTorch's vector size is the one all operands take."""
        return VECTOR_BYTES // max(self.operands[k].dtype.itemsize for k in self.wide)


_ONE_VALUE = ("scalar", "fill")  # loads read once per thread


def _strides_in(load, space) -> tuple[int, ...]:
    """A load's byte strides in the kernel's space: its view reshaped there, or C-contiguous
    where numpy cannot view it so (the device copies it first, as the cpu's reshape does)."""
    view = stand_in(load.shape, load.strides, load.node.dtype)
    try:
        return np.reshape(view, space, copy=False).strides
    except ValueError:
        return c_strides(space, load.node.dtype.itemsize)


def _kind(strides, space, itemsize: int) -> str:
    if not any(strides):
        return "scalar"
    real = [(s, want) for s, want, d in zip(strides, c_strides(space, itemsize), space) if d > 1]
    return "contiguous" if all(s == want for s, want in real) else "strided"


def _reach(strides, space, itemsize: int) -> int:
    """The bytes an operand spans around its element [0..0]."""
    return sum(abs(s) * (d - 1) for s, d in zip(strides, space)) + itemsize


def _last_step(strides, space) -> int:
    """The byte stride along the innermost dim longer than 1 (0: none)."""
    return next((s for s, d in zip(reversed(strides), reversed(space)) if d > 1), 0)


def _rows_dim(load_strides, space) -> int | None:
    """The fastest dim of the first load read across the output's rows (it moves along the
    space's last dim, but faster along another), or None: no load is. A load broadcast along
    the last dim is not: a warp reads one element of it."""
    if len(space) < 2 or space[-1] < 2:
        return None
    for strides in load_strides:
        dims = [j for j, (s, d) in enumerate(zip(strides, space)) if s and d > 1]
        fast = min(dims, key=lambda j: abs(strides[j]), default=len(space) - 1)
        if fast != len(space) - 1 and strides[-1]:
            return fast
    return None


def _at(pointer: str, dtype, writable: bool = False) -> str:
    """The memory element of `dtype` at the byte address `pointer`."""
    return f"*({'' if writable else 'const '}{c.memory_type(dtype, CUDA)} *)({pointer})"


# -- the grid-stride walk ----------------------------------------------------------------------


def _plain(walk: Walk, name: str) -> tuple[str, dict]:
    """The grid-stride kernel `name`: element i of the flattened space per step of the loop."""
    idx, dims = walk.types[0], range(len(walk.space))
    split = _split(walk, dims)
    body = walk.element(lambda k: _element(walk, k, dims))
    size = literal(walk.size, idx)
    source = [
        signature(walk.pointers(), name),
        "{",
        *indent(walk.hoisted(), 1),
        "    #pragma unroll 1",
        f"    for ({idx} li_i = ({idx})blockIdx.x * {THREADS} + threadIdx.x; li_i < {size};",
        f"         li_i += ({idx})gridDim.x * {THREADS}) {{",
        *indent(split + body, 2),
        "    }",
        "}",
        "",
    ]
    blocks = min(-(-walk.size // THREADS), MAX_BLOCKS)
    launch = {"method": "grid-stride", "grid": (blocks, 1, 1), "block": (THREADS, 1, 1)}
    return "\n".join(source), {**launch, "shared_bytes": 0, "params": tuple(walk.pointers())}


def _split(walk: Walk, dims) -> list[str]:
    """`li_i` split into the indices `i<j>`, where a strided load needs them."""
    if "strided" not in walk.kinds:
        return []
    return split_index("li_i", "i", walk.lengths(dims), walk.types[0])


def _element(walk: Walk, k: int, dims) -> str:
    node = walk.operands[k]
    mtype = c.memory_type(node.dtype, CUDA)
    const = "const " if k >= len(walk.kernel.outputs) else ""
    if walk.kinds[k] == "contiguous":
        return f"(({const}{mtype} *)p{k})[li_i]"
    return f"*({const}{mtype} *)({walk.address(k, dims)})"


# -- the vector walk ---------------------------------------------------------------------------


def _vector(walk: Walk) -> tuple[str, dict]:
    """The vector kernel: `per_thread` consecutive elements a thread, its wide operands moved
    through registers as vectors; the thread holding the space's end takes its elements one by
    one (the tail), threads past it nothing."""
    idx, dims, per = walk.types[0], range(len(walk.space)), walk.per_thread
    wide, n_out = walk.wide, len(walk.kernel.outputs)
    size, split = literal(walk.size, idx), _split(walk, dims)

    def read(k: int) -> str:
        return f"li_a{k}[li_e]" if k in wide else _element(walk, k, dims)

    rowed = _per_row(walk, per)
    if rowed is not None:  # NOTE: a thread's elements share a row: split once, rows' loads once
        once, inner, each = rowed
    else:
        once, inner = [], walk
        each = [f"const {idx} li_i = li_first + li_e;", *split] if split else []
    body = [
        *(_registers(walk, k, per) for k in wide),
        *(line for k in wide if k >= n_out for line in _moved(walk, k, per, store=False)),
        *once,
        "#pragma unroll",
        f"for (unsigned int li_e = 0; li_e < {per}; ++li_e) {{",
        *indent(each, 1),
        *indent(inner.element(read), 1),
        "}",
        *(line for k in wide if k < n_out for line in _moved(walk, k, per, store=True)),
    ]
    tail = [
        "#pragma unroll 1",  # NOTE: one thread of the grid: unrolled, it would only take compiling
        f"for ({idx} li_i = li_first; li_i < {size}; ++li_i) {{",
        *indent(split + walk.element(lambda k: _element(walk, k, dims)), 1),
        "}",
    ]
    source = [
        signature(walk.pointers()),
        "{",
        *indent(walk.hoisted(), 1),
        f"    const {idx} li_t = ({idx})blockIdx.x * {VECTOR_THREADS} + threadIdx.x;",
        f"    const {idx} li_first = li_t * {per};",
        f"    if (li_first + {per} <= {size}) {{",
        *indent(body, 2),
        "    } else {",
        *indent(tail, 2),
        "    }",
        "}",
        "",
    ]
    blocks = -(-walk.size // (VECTOR_THREADS * per))
    assert blocks <= MAX_GRID, walk.space
    launch = {"method": "vector", "grid": (blocks, 1, 1), "block": (VECTOR_THREADS, 1, 1)}
    params = tuple(walk.pointers())
    vectored = {"aligned": tuple(wide), "align": VECTOR_BYTES}
    return "\n".join(source), {**launch, "shared_bytes": 0, "params": params, **vectored}


def _per_row(walk: Walk, per: int) -> tuple[list[str], Walk, list[str]] | None:
    """Where rows are a whole number of a thread's elements and a strided load is read (a
    channel's bias, a bias row): the statements before the thread's loop (its first element's
    indices, split once; each load constant along a row, read once), the walk its loop runs
    (those loads read already) and the loop's own index: where the walk split each element's
    index (a division and a modulo a dim) and read the broadcast value each time. The channel
    clip (32,64,56,56) - (1,64,1,1) took 2.2x torch eager's time on an H100 that way (its
    other elementwise rows ~1.0x). None where rows are shorter or a thread's elements may
    cross one."""
    last = len(walk.space) - 1
    if "strided" not in walk.kinds or walk.space[last] % per:
        return None
    idx, n_out = walk.types[0], len(walk.kernel.outputs)
    names = [*range(last), "_row"]
    once = split_index("li_first", "i", walk.lengths(range(last + 1)), idx, names)
    constant = [
        k for k, kind in enumerate(walk.kinds) if kind == "strided" and not walk.strides[k][last]
    ]
    for k in constant:
        node = walk.operands[k]
        value = c.widened(node.dtype, _element(walk, k, range(last)), CUDA)
        once.append(f"const {c.ctype(node.dtype)} r{k - n_out} = {value};")
    kinds = tuple("row" if k in constant else kind for k, kind in enumerate(walk.kinds))
    each = [f"const {idx} i{last} = i_row + li_e;"]
    return once, dataclasses.replace(walk, kinds=kinds), each


def _registers(walk: Walk, k: int, per: int) -> str:
    """The thread's elements of operand `k`, in registers (a local array NVRTC keeps there:
    every index is a constant once the loops are unrolled)."""
    mtype = c.memory_type(walk.operands[k].dtype, CUDA)
    return f"alignas({VECTOR_BYTES}) {mtype} li_a{k}[{per}];"


def _moved(walk: Walk, k: int, per: int, store: bool) -> list[str]:
    """Operand `k`'s registers loaded from, or stored to, its memory as one vector."""
    vector = _VECTORS[per * walk.operands[k].dtype.itemsize]
    memory = f"(({'' if store else 'const '}{vector} *)p{k})[li_t]"
    registers = f"*(({'const ' if store else ''}{vector} *)li_a{k})"
    return [f"{memory} = {registers};" if store else f"{registers} = {memory};"]


# the type of a vector of each size (bytes): one load or store
_VECTORS = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t", 16: "li_unit16"}


# -- the tiled walk ----------------------------------------------------------------------------


def tile_pad(itemsize: int) -> int:
    """Elements past a shared tile's row: a row of an odd number of 4-byte words puts the 32
    elements of a column on 32 banks (1-byte elements: 4, 2-byte: 2, else 1)."""
    return max(1, 4 // itemsize)


def _tiled(walk: Walk) -> Rendered | None:
    """One 32x32 tile of (the rows dim, the last dim) per block: each gathered load's tile is
    read along its own rows into shared memory, then every operand is walked along the
    output's rows, the gathered ones from the tile. None: the tiles pass the shared memory."""
    space, rows = walk.space, walk.rows
    gathered = _gathered(walk)
    sizes = {k: walk.operands[k].dtype.itemsize for k in gathered}
    tile_bytes = sum(TILE * (TILE + tile_pad(size)) * size for size in sizes.values())
    if tile_bytes > SHARED_MAX:  # NOTE: six float64 tiles or more
        return None
    tiles = [
        f"    __shared__ {c.memory_type(walk.operands[k].dtype, CUDA)} "
        f"li_tile{k}[{TILE}][{TILE + tile_pad(size)}];"
        for k, size in sizes.items()
    ]
    source = "\n".join(
        [signature(walk.pointers()), "{", *tiles, *indent(_tile(walk, gathered), 1), "}", ""]
    )
    outer = math.prod(d for j, d in enumerate(space) if j not in (rows, len(space) - 1))
    blocks = -(-space[rows] // TILE) * -(-space[-1] // TILE) * outer
    assert blocks <= MAX_GRID, space
    launch = {"method": "tiled", "grid": (blocks, 1, 1), "block": (TILE, ROWS, 1)}
    return named(source, {**launch, "shared_bytes": tile_bytes, "params": tuple(walk.pointers())})


def _gathered(walk: Walk) -> list[int]:
    """The loads read through a tile: those stepping less along the tile's rows than along
    its columns (a broadcast along the columns is read directly)."""
    rows, cols = walk.rows, len(walk.space) - 1
    return [
        k
        for k in range(len(walk.kernel.outputs), len(walk.kinds))
        if walk.kinds[k] not in _ONE_VALUE
        and 0 < abs(walk.strides[k][rows]) < abs(walk.strides[k][cols])
    ]


def _tile(walk: Walk, gathered: list[int]) -> list[str]:
    """The block's tile: its corner and base pointers from blockIdx (outer dims split from
    the tile index), the gathering pass, a barrier, the computing pass."""
    idx, n_out = walk.types[0], len(walk.kernel.outputs)
    rows, cols = walk.rows, len(walk.space) - 1
    outer = [j for j in range(len(walk.space)) if j not in (rows, cols)]
    here = (rows, cols)
    bases = [
        f"{'const ' if k >= n_out else ''}char *b{k} = {walk.address(k, outer)};"
        for k, kind in enumerate(walk.kinds)
        if kind not in _ONE_VALUE
    ]
    gather = [
        f"li_tile{k}[li_y][threadIdx.x] = "
        f"{_at(walk.address(k, here, 'b'), walk.operands[k].dtype)};"
        for k in gathered
    ]

    def read(k: int) -> str:
        if k in gathered:
            return f"li_tile{k}[threadIdx.x][li_y]"
        return _at(walk.address(k, here, "b"), walk.operands[k].dtype, k < n_out)

    across, down = (literal(-(-walk.space[j] // TILE), idx) for j in (cols, rows))
    corner = [
        f"{idx} li_rem = blockIdx.x;",
        f"const {idx} li_c0 = li_rem % {across} * {TILE}; li_rem /= {across};",
        f"const {idx} li_r0 = li_rem % {down} * {TILE}; li_rem /= {down};",
        *split_index("li_rem", "i", walk.lengths(outer), idx, outer, False),
    ]
    return [
        *walk.hoisted(),
        *corner,
        *bases,
        *_rows_loop(walk, "threadIdx.x", "li_y", gather),
        "__syncthreads();",
        *_rows_loop(walk, "li_y", "threadIdx.x", walk.element(read)),
    ]


def _rows_loop(walk: Walk, row: str, col: str, body: list[str]) -> list[str]:
    """One pass of a block over its tile: thread (x, y) takes the tile's row `row` and column
    `col` for li_y = y, y + ROWS, ... (TILE / ROWS of them), inside the space."""
    idx, rows, cols = walk.types[0], walk.rows, len(walk.space) - 1
    whole = walk.space[rows] % TILE == 0 and walk.space[cols] % TILE == 0
    inside = f"i{rows} < {walk.lengths([rows])[0]} && i{cols} < {walk.lengths([cols])[0]}"
    return [
        "#pragma unroll",
        f"for (unsigned int li_k = 0; li_k < {TILE // ROWS}; ++li_k) {{",
        f"    const {idx} li_y = threadIdx.y + li_k * {ROWS};",
        f"    const {idx} i{rows} = li_r0 + {row}, i{cols} = li_c0 + {col};",
        *(indent(body, 1) if whole else [f"    if ({inside}) {{", *indent(body, 2), "    }"]),
        "}",
    ]
