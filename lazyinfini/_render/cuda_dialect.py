"""The CUDA dialect and launch records (cuda.py renders with them; docs/cuda.md).

The dialect (`CUDA`) is a row of C's table (c.py): the op expressions, casts, clip and rounding
are C's; CUDA changes the memory type of half floats (16 bits, converted by PTX instructions:
bare NVRTC has no include path, so no cuda_fp16.h), gives CUDA's own math functions to the ops
C borrows from numpy, and casts floats to integers by saturation. Here too: the prelude of a
translation unit, `Param`/`Launch`/`Rendered` (what a device launches from), how arguments are
packed, and the source-writing helpers the walks (cuda_elementwise.py, cuda_rearrange.py) share.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .. import _dtypes
from .._graph import Op
from . import c
from .elementwise import unsupported as _unsupported

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
NARROW, WIDE = ("unsigned int", "int"), ("unsigned long long", "long long")
NUMPY_TYPES = {
    "unsigned int": np.uint32,
    "int": np.int32,
    "unsigned long long": np.uint64,
    "long long": np.int64,
}
_SUFFIXES = {"unsigned int": "u", "int": "", "unsigned long long": "ull", "long long": "ll"}
VECTOR_BYTES = 16  # one vector access: an LDG.128 / STG.128 (li_unit16)


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


# The kernels whose threads meet at __syncthreads (a shared tile): the shim runs their threads
# side by side, the others one after another.
BARRIERS = ("tiled", "shared tile")


@dataclass(frozen=True)
class Launch:
    """How a rendered kernel is launched: `name` in its module, the grid and block of threads,
    the static shared memory a block declares (no dynamic shared memory is passed), and its
    parameters in order. `aligned`: the operands (outputs, then loads) whose address must be a
    multiple of `align` bytes for this launch (its vector accesses)."""

    name: str
    # "vector", "grid-stride", "tiled", "direct", "shared tile", "interleave", "deinterleave"
    method: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    params: tuple[Param, ...]
    aligned: tuple[int, ...] = ()
    align: int = 1

    @property
    def barrier(self) -> bool:
        return self.method in BARRIERS

    def fits(self, addresses) -> bool:
        """Whether operands at `addresses` (outputs, then loads) meet this launch's alignment."""
        return not any(addresses[k] % self.align for k in self.aligned)

    def __repr__(self) -> str:
        return (
            f"Launch({self.name} {self.method}: grid={self.grid} block={self.block} "
            f"shared={self.shared_bytes}B, {len(self.params)} params)"
        )


@dataclass(frozen=True)
class Rendered:
    """A kernel's CUDA C (compile it after PRELUDE: `unit`) and its launch; `fallback`, with the
    same parameters, where the launch does not fit a run's addresses (Launch.fits)."""

    source: str
    launch: Launch
    fallback: Launch | None = None

    @property
    def launches(self) -> tuple[Launch, ...]:
        return (self.launch,) if self.fallback is None else (self.launch, self.fallback)

    def chosen(self, addresses) -> Launch:
        """The launch a run with operands at `addresses` takes."""
        if self.fallback is None or self.launch.fits(addresses):
            return self.launch
        return self.fallback


def described(launch: Launch, fallback: Launch | None = None) -> str:
    """A kernel's launches as explain() prints them: `li_...: vector, grid (...), block (...)`,
    then its fallback's and when a run takes it."""
    text = _described(launch)
    if fallback is not None:
        text += f"; with an operand off a {launch.align}-byte boundary {_described(fallback)}"
    return text


def _described(launch: Launch) -> str:
    shared = f", {launch.shared_bytes} B shared" if launch.shared_bytes else ""
    return f"{launch.name}: {launch.method}, grid {launch.grid}, block {launch.block}{shared}"


def unsupported(kernel) -> str | None:
    """Why `kernel` has no CUDA kernel (None when it has): complex dtypes, nextafter of half
    floats, ops without a form."""
    return _unsupported(kernel, CUDA)


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


# -- what the kernels' sources share -------------------------------------------------------------


def named(source: str, launch: dict, fallback: dict | None = None) -> Rendered:
    """The source with its kernel named after its text (`LI_NAME`; the fallback's function is
    `LI_NAME_f`), and its Launches."""
    name = "li_" + hashlib.sha256(source.encode()).hexdigest()[:16]
    second = Launch(name=f"{name}_f", **fallback) if fallback is not None else None
    if second is not None:
        assert second.params == launch["params"], "a fallback takes the launch's arguments"
    return Rendered(source.replace("LI_NAME", name), Launch(name=name, **launch), second)


def signature(params, name: str = "LI_NAME") -> str:
    """The kernel's first line: pointers __restrict__ (outputs are fresh buffers), values
    const."""
    text = [
        f"{p.ctype}__restrict__ {p.name}" if p.pointer else f"const {p.ctype} {p.name}"
        for p in params
    ]
    return f'extern "C" __global__ void {name}({", ".join(text)})'


def literal(value: int, ctype: str) -> str:
    """`value` as a C literal of an index or offset type (parenthesized when negative)."""
    text = f"{value}{_SUFFIXES[ctype]}"
    return f"({text})" if value < 0 else text


def index_types(count: int, reach: int) -> tuple[str, str]:
    """(index type, offset type) for `count` indices reaching `reach` bytes: 32-bit below 2**31
    (an unsigned index has room for a last block's overshoot), else 64-bit."""
    return NARROW if max(count, reach) < 2**31 else WIDE


def split_index(flat: str, index: str, lengths: list[str], idx: str, names=None, declare=True):
    """Statements splitting `flat` into `{index}<name>` over `lengths` (C order; names 0, 1, ...
    unless given). `declare`: into a new li_rem (else `flat` is a variable to divide)."""
    names = list(range(len(lengths))) if names is None else list(names)
    if not names:
        return []
    if declare and len(names) == 1:
        return [f"const {idx} {index}{names[0]} = {flat};"]
    lines, rem = ([f"{idx} li_rem = {flat};"], "li_rem") if declare else ([], flat)
    for j in reversed(range(1, len(names))):
        n = lengths[j]
        lines.append(f"const {idx} {index}{names[j]} = {rem} % {n}; {rem} /= {n};")
    return lines + [f"const {idx} {index}{names[0]} = {rem};"]


def indent(lines: list[str], depth: int) -> list[str]:
    return ["    " * depth + line for line in lines]
