"""Kernel records -> CUDA C: the CUDA dialect, its kernels and how each one is launched.

The dialect (`CUDA`) is a row of C's table (c.py): the op expressions, casts, clip and rounding
are C's; CUDA changes the memory type of half floats (16 bits, converted by PTX instructions:
bare NVRTC has no include path, so no cuda_fp16.h), gives CUDA's own math functions to the ops
C borrows from numpy, and casts floats to integers by saturation. Half floats compute in float32
and round where the register program says (`Step.rounds`), as in C: fused == unfused.

Three kernels, each a pure function of a kernel record:

- elementwise: the register program per element, a grid-stride loop over the flattened space,
  32-bit index math below 2**31 elements (and bytes reached), shapes and strides as arguments
  (a broadcast dim's zero stride is left out; a contiguous operand is indexed by the flat index);
- elementwise, tiled, when a load is read across the output's rows (a transposed operand): a
  block walks 32x32 tiles of the space's last dim and that load's fastest dim, copying the load's
  tile into shared memory with reads along its rows first (32x33: the pad keeps the transposed
  reads off one bank);
- rearrange (seed 002): one block per grid cell of the RearrangePlan; thread 0 computes the
  cell's base offsets once into shared memory, then the threads copy its units, through a 32x33
  shared tile of units when the block's source- and destination-contiguous dims differ.

`render(kernel)` gives the source (without the prelude: `unit(...)` joins sources into one
translation unit) and its `Launch`: grid, block, shared memory and the parameter list, the one
description a CUDA device and the tests launch from. Nothing here needs a GPU or NVRTC.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass

import numpy as np

from .. import _dtypes
from .._graph import Op
from .._graph.views import c_strides, stand_in
from .._schedule.kernels import Kind
from . import c
from .elementwise import computed
from .elementwise import unsupported as _unsupported
from .rearrange import CUDA_TILE, cuda_pair, render_cuda, split_index

THREADS = 256  # per block of the elementwise and direct rearrange kernels (not measured yet)
MAX_BLOCKS = 8192  # a grid-stride loop needs no more blocks than a GPU keeps busy
TILE = CUDA_TILE  # a shared tile is TILE x (TILE + 1) elements; a block is TILE x ROWS threads
ROWS = 8
SHARED_MAX = 48 * 1024  # static shared memory a block may declare
_FN = "static __device__ __forceinline__"

_TYPES = """typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
"""
# NOTE: the only PTX: cvt rounds to nearest even (.rn), one rounding from float64 too. The tests'
# host shim (LI_HOST) gives these three functions exact C++ twins.
_FLOAT16 = f"""{_FN} float li_f16_load(uint16_t h) {{
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}}
{_FN} uint16_t li_f16_store(float f) {{
    uint16_t h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}}
{_FN} uint16_t li_f16_store_double(double d) {{
    uint16_t h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h;
}}
"""
# bfloat16 by its bits, as the C dialect: a NaN stays a NaN (quieted), any arch compiles it.
_BFLOAT16 = f"""{_FN} float li_bf16_load(uint16_t h) {{
    return __uint_as_float((uint32_t)h << 16);
}}
{_FN} uint16_t li_bf16_store(float f) {{
    uint32_t u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}}
"""
# numpy's float floor division and remainder (Python's divmod: fmod is exact, the quotient is
# snapped to an integer; b == 0 gives a / b and fmod's NaN) and numpy's logaddexp.
_NUMPY_MATH = """{fn} {t} li_divmod{f}({t} a, {t} b, {t} *mod) {{
    {t} m = fmod{f}(a, b);
    if (b == 0) {{ *mod = m; return a / b; }}
    {t} q = (a - m) / b;
    if (m != 0) {{
        if ((b < 0) != (m < 0)) {{ m += b; q -= 1; }}
    }} else {{
        m = copysign{f}(({t})0, b);
    }}
    {t} r;
    if (q != 0) {{ r = floor{f}(q); if (q - r > ({t})0.5) r += 1; }}
    else r = copysign{f}(({t})0, a / b);
    *mod = m;
    return r;
}}
{fn} {t} li_floor_divide{f}({t} a, {t} b) {{ {t} m; return li_divmod{f}(a, b, &m); }}
{fn} {t} li_remainder{f}({t} a, {t} b) {{ {t} m; li_divmod{f}(a, b, &m); return m; }}
{fn} {t} li_logaddexp{f}({t} x, {t} y) {{
    if (x == y) return x + ({t})0.693147180559945309417232121458176568; /* equal infinities */
    const {t} d = x - y;
    if (d > 0) return x + log1p{f}(exp{f}(-d));
    if (d <= 0) return y + log1p{f}(exp{f}(d));
    return d; /* a NaN */
}}
"""
_UNITS = """struct alignas(16) li_unit16 { uint64_t a, b; };
struct alignas(32) li_unit32 { uint64_t a, b, c, d; };
"""

PRELUDE = (
    "/* lazyinfini's CUDA prelude (bare NVRTC: no include path, no stdint.h, no cuda_fp16.h) */\n"
    "#ifdef __CUDACC_RTC__\n"
    + _TYPES
    + "#else\n#include <stdint.h>\n#endif\n#ifndef LI_HOST\n"
    + _FLOAT16
    + "#endif\n"
    + _BFLOAT16
    + c.ORDERINGS.replace("static inline", _FN)
    + "".join(_NUMPY_MATH.format(fn=_FN, t=t, f=f) for t, f in (("float", "f"), ("double", "")))
    + _UNITS
)

# CUDA's math functions for the ops C borrows from numpy's loops: libdevice's results, within
# CUDA's documented ulp bounds of the true value (docs/cuda.md), not numpy's bits.
_ROWS = {
    Op.EXP: "exp{f}({0})",
    Op.EXPM1: "expm1{f}({0})",
    Op.LOG: "log{f}({0})",
    Op.LOG1P: "log1p{f}({0})",
    Op.LOG2: "log2{f}({0})",
    Op.LOG10: "log10{f}({0})",
    Op.SIN: "sin{f}({0})",
    Op.COS: "cos{f}({0})",
    Op.TAN: "tan{f}({0})",
    Op.ASIN: "asin{f}({0})",
    Op.ACOS: "acos{f}({0})",
    Op.ATAN: "atan{f}({0})",
    Op.SINH: "sinh{f}({0})",
    Op.COSH: "cosh{f}({0})",
    Op.TANH: "tanh{f}({0})",
    Op.ASINH: "asinh{f}({0})",
    Op.ACOSH: "acosh{f}({0})",
    Op.ATANH: "atanh{f}({0})",
    Op.ATAN2: "atan2{f}({0}, {1})",
    Op.HYPOT: "hypot{f}({0}, {1})",
    Op.LOGADDEXP: "li_logaddexp{f}({0}, {1})",
    Op.POW: "pow{f}({0}, {1})",
    Op.FLOOR_DIVIDE: "li_floor_divide{f}({0}, {1})",
    Op.REMAINDER: "li_remainder{f}({0}, {1})",
    Op.NEXTAFTER: "nextafter{f}({0}, {1})",
    # NOTE: not C's copysign(1, x): CUDA declares copysign(float, double) too, and an int 1
    # makes the double call ambiguous.
    Op.SIGNBIT: "(signbit({0}) != 0)",
}
_HALF = (np.dtype(np.float16), _dtypes.bfloat16)
CUDA = c.Dialect(
    name="CUDA",
    prelude=PRELUDE,
    memory={**dict.fromkeys(_HALF, "uint16_t"), np.dtype(np.bool_): "uint8_t"},
    widen={_HALF[0]: "li_f16_load({})", _HALF[1]: "li_bf16_load({})"},
    narrow={_HALF[0]: "li_f16_store({})", _HALF[1]: "li_bf16_store({})"},
    narrow_double="li_f16_store_double({})",
    rows=_ROWS,
    saturates=True,
)
# (index type, offset type): 32-bit when the space and every operand's reach fit in an int.
_NARROW, _WIDE = ("unsigned int", "int"), ("unsigned long long", "long long")
NUMPY_TYPES = {
    "unsigned int": np.uint32,
    "int": np.int32,
    "unsigned long long": np.uint64,
    "long long": np.int64,
}


@dataclass(frozen=True)
class Param:
    """A kernel parameter: a pointer to operand `operand` (outputs, then loads), the value of
    operand `operand` itself (`by_value`: a fill, a Python scalar, passed at launch as numpy,
    CuPy, torch and Triton pass scalars: no device buffer, no upload), or a `value`."""

    name: str
    ctype: str
    value: int | None = None
    operand: int | None = None
    by_value: bool = False

    @property
    def pointer(self) -> bool:
        return self.operand is not None and not self.by_value


@dataclass(frozen=True)
class Launch:
    """How a rendered kernel is launched: `name` in its module, the grid and block of threads,
    the static shared memory a block declares (no dynamic shared memory is passed), and its
    parameters in order. `barrier`: threads of a block wait for each other (__syncthreads)."""

    name: str
    method: str  # "grid-stride", "tiled", "direct" or "shared tile"
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    params: tuple[Param, ...]

    @property
    def barrier(self) -> bool:
        return self.method != "grid-stride"

    def __repr__(self) -> str:
        return (
            f"Launch({self.name} {self.method}: grid={self.grid} block={self.block} "
            f"shared={self.shared_bytes}B, {len(self.params)} params)"
        )


@dataclass(frozen=True)
class Rendered:
    """A kernel's CUDA C (compile it after PRELUDE: `unit`) and its launch."""

    source: str
    launch: Launch


def render(kernel) -> Rendered:
    """The CUDA kernel of an elementwise or rearrange kernel record, and its launch."""
    if kernel.kind is Kind.REARRANGE:
        return render_rearrange(kernel.plan)
    assert kernel.kind is Kind.ELEMENTWISE, kernel
    why = unsupported(kernel)
    if why is not None:
        raise KeyError(why)
    walk = _Walk.of(kernel)
    return _tiled(walk) if walk.rows is not None else _plain(walk)


def launch(kernel) -> Launch:
    """The launch configuration of `kernel`'s CUDA kernel (a pure function of the record)."""
    return render(kernel).launch


def unsupported(kernel) -> str | None:
    """Why `kernel` has no CUDA kernel (None when it has): complex dtypes, nextafter of half
    floats, ops without a form."""
    return _unsupported(kernel, CUDA)


def layout(kernel) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The space an elementwise kernel walks (at least 1-d) and the byte strides it assumes for
    each operand there (outputs C-contiguous, then loads): a device passes each load as its
    view reshaped to the space, or a C-contiguous copy where numpy's reshape would copy."""
    walk = _Walk.of(kernel)
    return walk.space, walk.strides


def unit(*sources: str) -> str:
    """One translation unit: the prelude, then the kernels' sources."""
    return PRELUDE + "".join(dict.fromkeys(sources))


def arguments(launch: Launch, operands) -> tuple:
    """The arguments of a launch in order: `operands[operand]` (a device's buffers or addresses)
    for the pointer parameters, the numpy scalar of a by-value operand's value (a host array
    of its dtype: a fill's), numpy scalars of each parameter's type for the others."""
    return tuple(
        operands[p.operand]
        if p.pointer
        else by_value(p, operands[p.operand])
        if p.by_value
        else NUMPY_TYPES[p.ctype](p.value)
        for p in launch.params
    )


def by_value(param: Param, value) -> np.generic:
    """A by-value parameter's argument: `value`'s element (a host array: a fill's 0-d value)
    as a numpy scalar of the parameter's memory type, bit for bit (a half float's 16 bits,
    -0.0's sign)."""
    return np.asarray(value).reshape(-1)[:1].view(MEMORY_TYPES[param.ctype])[0]


MEMORY_TYPES = {"float": np.float32, "double": np.float64}  # memory type -> numpy's
MEMORY_TYPES |= {
    f"{sign}int{bits}_t": np.dtype(f"{sign}int{bits}")
    for sign in ("", "u")
    for bits in (8, 16, 32, 64)
}


def _named(source: str, launch: dict) -> Rendered:
    """The source with its kernel named after its text, and its Launch."""
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    return Rendered(source.replace("LI_NAME", name), Launch(name=name, **launch))


# -- elementwise ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Walk:
    """An elementwise kernel's operands (outputs, then loads) in its space: byte strides, how
    each is read, the index types, and for a tiled walk the dim of the tile's rows."""

    kernel: object
    space: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    # "contiguous", "strided", "scalar" (every stride 0) or "fill" (a scalar passed by value)
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
        types = _NARROW if max(math.prod(space), reach) < 2**31 else _WIDE
        rows = _rows_dim(strides[len(kernel.outputs) :], space)
        return cls(kernel, space, tuple(strides), kinds, types, rows)

    @property
    def operands(self) -> list:
        return [*self.kernel.outputs, *(ld.node for ld in self.kernel.loads)]

    def pointers(self) -> list[Param]:
        """The operands' parameters: a pointer each, a fill's value by value."""
        n_out, nodes = len(self.kernel.outputs), self.operands
        return [
            Param(f"v{k}", c.memory_type(nodes[k].dtype, CUDA), operand=k, by_value=True)
            if kind == "fill"
            else Param(f"p{k}", "char *" if k < n_out else "const char *", operand=k)
            for k, kind in enumerate(self.kinds)
        ]

    def strides_params(self, dims) -> list[Param]:
        """The byte strides of the strided operands over `dims`, zeros left out."""
        return [
            Param(f"s{k}_{j}", self.types[1], self.strides[k][j])
            for k, kind in enumerate(self.kinds)
            if kind == "strided" or (self.rows is not None and kind not in _ONE_VALUE)
            for j in dims
            if self.strides[k][j]
        ]

    def address(self, k: int, dims, base: str = "p") -> str:
        """The byte address of operand `k` from `{base}{k}` at the index variables `i<j>` of
        `dims`."""
        off = self.types[1]
        terms = [f"({off})i{j} * s{k}_{j}" for j in dims if self.strides[k][j]]
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
            if self.kinds[k] not in _ONE_VALUE
        ]
        dtypes = c.register_dtypes(self.kernel)
        for step in self.kernel.program.steps:
            lines += computed(self.kernel, step, dtypes, CUDA)
        for j, reg in enumerate(self.kernel.program.outputs):
            lines.append(f"{read(j)} = {c.narrowed(nodes[j].dtype, f'r{reg}', CUDA)};")
        return lines


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


def _grid(blocks: int) -> tuple[int, int, int]:
    return (min(blocks, MAX_BLOCKS), 1, 1)


def _plain(walk: _Walk) -> Rendered:
    """The grid-stride kernel: element i of the flattened space per step of the loop."""
    idx, space = walk.types[0], walk.space
    dims = range(len(space))
    strided = "strided" in walk.kinds
    params = [*walk.pointers(), Param("n", idx, math.prod(space))]
    params += [Param(f"d{j}", idx, d) for j, d in enumerate(space)] if strided else []
    params += walk.strides_params(dims)
    split = split_index("li_i", "i", [f"d{j}" for j in dims], idx) if strided else []
    body = walk.element(lambda k: _element(walk, k, dims))
    source = "\n".join(
        [
            _signature(params),
            "{",
            *_indent(walk.hoisted(), 1),
            f"    for ({idx} li_i = ({idx})blockIdx.x * blockDim.x + threadIdx.x; li_i < n;",
            f"         li_i += ({idx})gridDim.x * blockDim.x) {{",
            *_indent(split + body, 2),
            "    }",
            "}",
            "",
        ]
    )
    blocks = -(-math.prod(space) // THREADS)
    shape = {"grid": _grid(blocks), "block": (THREADS, 1, 1), "shared_bytes": 0}
    return _named(source, {"method": "grid-stride", "params": tuple(params), **shape})


def _element(walk: _Walk, k: int, dims) -> str:
    node = walk.operands[k]
    mtype = c.memory_type(node.dtype, CUDA)
    const = "const " if k >= len(walk.kernel.outputs) else ""
    if walk.kinds[k] == "contiguous":
        return f"(({const}{mtype} *)p{k})[li_i]"
    return f"*({const}{mtype} *)({walk.address(k, dims)})"


def _signature(params: list[Param]) -> str:
    """The kernel's first line: pointers __restrict__ (outputs are fresh buffers), values
    const."""
    text = [
        f"{p.ctype}__restrict__ {p.name}" if p.pointer else f"const {p.ctype} {p.name}"
        for p in params
    ]
    return f'extern "C" __global__ void LI_NAME({", ".join(text)})'


def _indent(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]


def _tiled(walk: _Walk) -> Rendered:
    """Whole 32x32 tiles of (the rows dim, the last dim) per block, a grid-stride loop over the
    tiles: each gathered load's tile is read along its own rows into shared memory, then every
    operand is walked along the output's rows, the gathered ones from the tile."""
    space, idx, rows = walk.space, walk.types[0], walk.rows
    gathered = _gathered(walk)
    tile_bytes = TILE * (TILE + 1) * sum(walk.operands[k].dtype.itemsize for k in gathered)
    if tile_bytes > SHARED_MAX:  # NOTE: six float64 tiles or more: the plain walk instead
        return _plain(dataclasses.replace(walk, rows=None))
    params = [*walk.pointers(), *(Param(f"d{j}", idx, d) for j, d in enumerate(space))]
    params += walk.strides_params(range(len(space)))
    tiles = [
        f"    __shared__ {c.memory_type(walk.operands[k].dtype, CUDA)} "
        f"li_tile{k}[{TILE}][{TILE + 1}];"
        for k in gathered
    ]
    source = "\n".join(
        [_signature(params), "{", *tiles, *_indent(_tile_loop(walk, gathered), 1), "}", ""]
    )
    outer = math.prod(d for j, d in enumerate(space) if j not in (rows, len(space) - 1))
    blocks = -(-space[rows] // TILE) * -(-space[-1] // TILE) * outer
    shape = {"grid": _grid(blocks), "block": (TILE, ROWS, 1), "shared_bytes": tile_bytes}
    return _named(source, {"method": "tiled", "params": tuple(params), **shape})


def _gathered(walk: _Walk) -> list[int]:
    """The loads read through a tile: those stepping less along the tile's rows than along
    its columns (a broadcast along the columns is read directly)."""
    rows, cols = walk.rows, len(walk.space) - 1
    return [
        k
        for k in range(len(walk.kernel.outputs), len(walk.kinds))
        if walk.kinds[k] not in _ONE_VALUE
        and 0 < abs(walk.strides[k][rows]) < abs(walk.strides[k][cols])
    ]


def _tile_loop(walk: _Walk, gathered: list[int]) -> list[str]:
    """The loop over tiles: the tile's corner and base pointers once per tile (outer dims
    split from the tile index), the gathering pass, a barrier, the computing pass."""
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

    tiles = " * ".join(["li_tr", "li_tc", *(f"d{j}" for j in outer)])
    corner = [
        f"{idx} li_rem = li_t;",
        f"const {idx} li_c0 = li_rem % li_tc * {TILE}; li_rem /= li_tc;",
        f"const {idx} li_r0 = li_rem % li_tr * {TILE}; li_rem /= li_tr;",
        *split_index("li_rem", "i", [f"d{j}" for j in outer], idx, outer, False),
    ]
    return [
        *walk.hoisted(),
        f"const {idx} li_tr = (d{rows} + {TILE - 1}) / {TILE};",
        f"const {idx} li_tc = (d{cols} + {TILE - 1}) / {TILE};",
        f"for ({idx} li_t = blockIdx.x; li_t < {tiles}; li_t += gridDim.x) {{",
        *_indent(corner + bases, 1),
        *_indent(_rows_loop(walk, "threadIdx.x", "li_y", gather), 1),
        "    __syncthreads();",
        *_indent(_rows_loop(walk, "li_y", "threadIdx.x", walk.element(read)), 1),
        "    __syncthreads();",
        "}",
    ]


def _rows_loop(walk: _Walk, row: str, col: str, body: list[str]) -> list[str]:
    """One pass of a block over its tile: thread (x, y) takes the tile's row `row` and column
    `col` for li_y = y, y + ROWS, ..., inside the space."""
    idx, rows, cols = walk.types[0], walk.rows, len(walk.space) - 1
    return [
        f"for ({idx} li_y = threadIdx.y; li_y < {TILE}; li_y += blockDim.y) {{",
        f"    const {idx} i{rows} = li_r0 + {row}, i{cols} = li_c0 + {col};",
        f"    if (i{rows} < d{rows} && i{cols} < d{cols}) {{",
        *_indent(body, 2),
        "    }",
        "}",
    ]


# -- rearrange -----------------------------------------------------------------------------------


def render_rearrange(plan) -> Rendered:
    """Seed 002's kernel for a RearrangePlan (rearrange.render_cuda): a block per grid cell;
    32x8 threads moving 32x32 tiles of units through shared memory when the block's source-
    and destination-contiguous dims differ, else up to THREADS threads copying units directly."""
    pair = cuda_pair(plan)
    cells, units = math.prod(plan.grid_len), math.prod(plan.block_len)
    constrained = bool(plan.constraints)
    params = (Param("src_base", "const char *", operand=1), Param("dst_base", "char *", operand=0))
    launch = {
        "method": "shared tile" if pair else "direct",
        "grid": (min(cells, 2**31 - 1), 1, 1),
        "block": (TILE, ROWS, 1) if pair else (min(THREADS, -(-units // 32) * 32), 1, 1),
        # the two base pointers, the bounds a constraint shortens, the tile
        "shared_bytes": 16
        + 4 * len(plan.block_len) * constrained
        + (TILE * (TILE + 1) * plan.unit if pair else 0),
        "params": params,
    }
    return _named(render_cuda(plan, "LI_NAME"), launch)
