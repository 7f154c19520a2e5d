"""An elementwise kernel record -> C source: its register program over a strided N-d space.

Pure functions of the kernel record (its `program`, its loads' and outputs' dtypes) and of the
inner-stride kind of each operand (contiguous, broadcast or strided); shapes and outer strides
are arguments, so a new batch size does not recompile. A dialect is a table (`Dialect`): the
op tables below are every dialect's, and a dialect names its memory types, its half float load,
store and round forms, and the few rows it writes otherwise. `C` is this one; CUDA C's is in
cuda.py.

Every op gives numpy's bits. Arithmetic, comparisons, logic, bit ops and shifts, integer floor
division and remainder, clip/maximum/minimum with numpy's NaN propagation, sqrt, rounding and
casts between floats, from integers and bools, to bools are C expressions. The ops numpy computes
with its own SIMD code (exp, log, the trigonometric and hyperbolic functions, power, float floor
division and remainder, ...) are *borrowed*: the kernel runs in blocks and calls numpy's own
inner loop on a block of registers (libm's last bit differs from numpy's). Casts from a float to
an integer (undefined in C out of range), complex dtypes and nextafter on half floats keep the
kernel on the numpy path, and `unsupported` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _dtypes
from .._graph import Op
from .._graph.ops import HALF_MATH, NUMPY_VALUES

CONTIGUOUS, BROADCAST, STRIDED = "contiguous", "broadcast", "strided"

_FLOATS = {np.dtype(np.float32): ("float", "f"), np.dtype(np.float64): ("double", "")}
_INTS = {
    np.dtype(t): f"{'u' if np.dtype(t).kind == 'u' else ''}int{8 * np.dtype(t).itemsize}_t"
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}

# Expressions over operands {0}, {1}, {2} (already in the step's compute type).
_FLOAT_OPS = {
    Op.ADD: "({0} + {1})",
    Op.SUBTRACT: "({0} - {1})",
    Op.MULTIPLY: "({0} * {1})",
    Op.DIVIDE: "({0} / {1})",
    Op.NEGATIVE: "(-{0})",
    Op.SQUARE: "({0} * {0})",
    Op.ABS: "fabs{f}({0})",
    Op.SQRT: "sqrt{f}({0})",
    Op.FLOOR: "floor{f}({0})",
    Op.CEIL: "ceil{f}({0})",
    Op.TRUNC: "trunc{f}({0})",
    Op.ROUND: "nearbyint{f}({0})",
    Op.COPYSIGN: "copysign{f}({0}, {1})",
    # Note (spec): NaN from either operand propagates, as numpy's maximum/minimum do; on a tie
    # (-0.0 against +0.0) the second operand wins, as in numpy's float32/float64 loops (PRELUDE).
    Op.MAXIMUM: "li_max{f}({0}, {1})",
    Op.MINIMUM: "li_min{f}({0}, {1})",
    Op.RECIPROCAL: "(1 / {0})",
    Op.SIGN: "({0} > 0 ? 1 : {0} < 0 ? -1 : {0} == 0 ? 0 : {0})",  # NaN stays, -0.0 gives +0.0
    Op.ISNAN: "({0} != {0})",
    Op.ISINF: "(isinf({0}) != 0)",
    Op.ISFINITE: "(isfinite({0}) != 0)",
    # NOTE: not signbit(): gcc 12 -march=native crashes vectorising it after a bfloat16 load
    Op.SIGNBIT: "(copysign{f}(1, {0}) < 0)",
}
# Ops computed by numpy's own inner loop (its ufunc's name), float32/float64 registers only.
BORROWED = {
    Op.EXP: "exp",
    Op.EXPM1: "expm1",
    Op.LOG: "log",
    Op.LOG1P: "log1p",
    Op.LOG2: "log2",
    Op.LOG10: "log10",
    Op.SIN: "sin",
    Op.COS: "cos",
    Op.TAN: "tan",
    Op.ASIN: "arcsin",
    Op.ACOS: "arccos",
    Op.ATAN: "arctan",
    Op.SINH: "sinh",
    Op.COSH: "cosh",
    Op.TANH: "tanh",
    Op.ASINH: "arcsinh",
    Op.ACOSH: "arccosh",
    Op.ATANH: "arctanh",
    Op.ATAN2: "arctan2",
    Op.HYPOT: "hypot",
    Op.LOGADDEXP: "logaddexp",
    Op.POW: "power",
    Op.FLOOR_DIVIDE: "floor_divide",
    Op.REMAINDER: "remainder",
    Op.NEXTAFTER: "nextafter",
}
# What the numpy path does after numpy's loop (ufuncs.py), as an expression over the loop's
# result {r} and the operands: the standard's x // ±inf and ±inf // x.
_BORROWED_AFTER = {
    Op.FLOOR_DIVIDE: "(((isinf({0}) && isfinite({1}) && {1} != 0) || (isfinite({0}) && "
    "isinf({1}))) ? {0} / {1} : {r})",
}
# Ops whose result depends on the spacing of their own dtype: not borrowed for half floats,
# which the numpy path runs in their own dtype (ufuncs.OWN_DTYPE).
_OWN_DTYPE = frozenset({Op.NEXTAFTER})
_INT_OPS = {
    # NOTE: through the unsigned type: signed overflow is undefined in C and wraps in numpy.
    Op.ADD: "({T})(({U}){0} + ({U}){1})",
    Op.SUBTRACT: "({T})(({U}){0} - ({U}){1})",
    Op.MULTIPLY: "({T})(({U}){0} * ({U}){1})",
    Op.NEGATIVE: "({T})(-({U}){0})",
    Op.SQUARE: "({T})(({U}){0} * ({U}){0})",
    Op.ABS: "({0} < 0 ? ({T})(-({U}){0}) : {0})",
    Op.MAXIMUM: "({0} >= {1} ? {0} : {1})",
    Op.MINIMUM: "({0} <= {1} ? {0} : {1})",
    Op.BITWISE_AND: "({T})({0} & {1})",
    Op.BITWISE_OR: "({T})({0} | {1})",
    Op.BITWISE_XOR: "({T})({0} ^ {1})",
    Op.BITWISE_INVERT: "({T})(~{0})",
    Op.FLOOR: "{0}",
    Op.CEIL: "{0}",
    Op.TRUNC: "{0}",
    Op.ROUND: "{0}",
}
# numpy's integer division: floor semantics, x // 0 == x % 0 == 0, MIN // -1 wraps (C's is a
# trap); shifts by the width or more give 0 (or -1 for a negative right shift), as numpy's do.
_SIGNED_OPS = {
    Op.FLOOR_DIVIDE: "({1} == 0 ? ({T})0 : {1} == -1 ? ({T})(-({U}){0}) : "
    "({T})({0} / {1} - (({0} % {1} != 0) & (({0} < 0) != ({1} < 0)))))",
    Op.REMAINDER: "({1} == 0 || {1} == -1 ? ({T})0 : "
    "({T})({0} % {1} + ((({0} % {1}) != 0) & ((({0} % {1}) < 0) != ({1} < 0))) * {1}))",
    Op.BITWISE_LEFT_SHIFT: "({1} < 0 || {1} >= {bits} ? ({T})0 : ({T})(({U}){0} << {1}))",
    Op.BITWISE_RIGHT_SHIFT: "({1} < 0 || {1} >= {bits} ? ({T})({0} < 0 ? -1 : 0) : "
    "({T})({0} >> {1}))",
    Op.SIGN: "({T})(({0} > 0) - ({0} < 0))",
}
_UNSIGNED_OPS = {
    Op.FLOOR_DIVIDE: "({1} == 0 ? ({T})0 : ({T})({0} / {1}))",
    Op.REMAINDER: "({1} == 0 ? ({T})0 : ({T})({0} % {1}))",
    Op.BITWISE_LEFT_SHIFT: "({1} >= {bits} ? ({T})0 : ({T})(({U}){0} << {1}))",
    Op.BITWISE_RIGHT_SHIFT: "({1} >= {bits} ? ({T})0 : ({T})({0} >> {1}))",
    Op.SIGN: "({T})({0} > 0)",
}
_BOOL_OPS = {
    # Extension (numpy): bool arithmetic as numpy's bool loops compute it (docs/dtypes.md).
    Op.ADD: "({0} || {1})",
    Op.MULTIPLY: "({0} && {1})",
    Op.ABS: "{0}",
    Op.LOGICAL_AND: "({0} && {1})",
    Op.LOGICAL_OR: "({0} || {1})",
    Op.LOGICAL_XOR: "(!{0} != !{1})",
    Op.LOGICAL_NOT: "(!{0})",
    Op.BITWISE_AND: "({0} & {1})",
    Op.BITWISE_OR: "({0} | {1})",
    Op.BITWISE_XOR: "({0} ^ {1})",
    Op.BITWISE_INVERT: "(!{0})",
    Op.MAXIMUM: "({0} | {1})",
    Op.MINIMUM: "({0} & {1})",
}
_COMPARISONS = {
    Op.EQUAL: "({0} == {1})",
    Op.NOT_EQUAL: "({0} != {1})",
    Op.LESS: "({0} < {1})",
    Op.LESS_EQUAL: "({0} <= {1})",
    Op.GREATER: "({0} > {1})",
    Op.GREATER_EQUAL: "({0} >= {1})",
}

ORDERINGS = """\
/* numpy's maximum/minimum: NaN from either operand; on a -0.0/+0.0 tie the second operand.
   Functions, not nested expressions: gcc vectorises a clip of two nested conditionals 2.5x
   slower than two calls (measured: 1M float32 clip(a - b), 0.33 against 0.13 ms). */
static inline float li_maxf(float x, float b) { return (x > b || x != x) ? x : b; }
static inline float li_minf(float x, float b) { return (x < b || x != x) ? x : b; }
static inline double li_max(double x, double b) { return (x > b || x != x) ? x : b; }
static inline double li_min(double x, double b) { return (x < b || x != x) ? x : b; }
/* The same where x wins a tie (max_keep(-0.0, 0.0) is -0.0), a NaN on either side still winning:
   numpy's float16 maximum/minimum/clip, and its float32/64 clip between two scalar bounds. */
static inline float li_max_keepf(float x, float b) { return (x < b || b != b) ? b : x; }
static inline float li_min_keepf(float x, float b) { return (x > b || b != b) ? b : x; }
static inline double li_max_keep(double x, double b) { return (x < b || b != b) ? b : x; }
static inline double li_min_keep(double x, double b) { return (x > b || b != b) ? b : x; }
"""

# Non-temporal stores of a block of output bytes (elementwise.py, a kernel record's `streams`):
# whole 32-byte (16 without AVX) aligned pieces go past the caches, so a large output is written
# without the read-for-ownership of its lines; the unaligned head and tail are plain stores.
# gcc has no __builtin_nontemporal_store: on x86 its movnt builtins (immintrin.h would cost ~250
# ms a compile); clang's builtin works on every target; elsewhere (gcc on ARM) plain stores.
# The fence orders a thread's streamed stores before whatever the pool does after the call.
STREAMING = """\
#if defined(__clang__)
typedef long long li_vnt __attribute__((vector_size(16), aligned(16)));
#define LI_NT(p, v) __builtin_nontemporal_store((v), (li_vnt *)(p))
#elif defined(__AVX__)
typedef long long li_vnt __attribute__((vector_size(32)));
#define LI_NT(p, v) __builtin_ia32_movntdq256((li_vnt *)(p), (v))
#elif defined(__SSE2__)
typedef long long li_vnt __attribute__((vector_size(16)));
#define LI_NT(p, v) __builtin_ia32_movntdq((li_vnt *)(p), (v))
#endif
#if defined(__SSE2__)
#define li_stream_fence() __builtin_ia32_sfence()
#else
#define li_stream_fence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
/* Elements of the block of a streamed output at p: to the end of a LI_BLOCK-element block
   aligned to a cache line, at most `left` (only the first block of a run is short). */
static inline int64_t li_stream_count(const char *p, int64_t left, int64_t size) {
    int64_t m = LI_BLOCK - (int64_t)((uintptr_t)p % 64) / size;
    return m < left ? m : left;
}
static inline void li_stream(char *dst, const char *src, int64_t bytes) {
#ifdef LI_NT
    const int64_t width = (int64_t)sizeof(li_vnt);
    int64_t head = (int64_t)(-(uintptr_t)dst & (uintptr_t)(width - 1));
    if (head > bytes) head = bytes;
    memcpy(dst, src, (size_t)head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= width; bytes -= width, dst += width, src += width) {
        li_vnt v; memcpy(&v, src, sizeof v); LI_NT(dst, v);
    }
#endif
    memcpy(dst, src, (size_t)bytes);
}
"""

PRELUDE = (
    """#include <stdint.h>
#include <string.h>
#include <math.h>
static inline float li_bf16_load(uint16_t h) {
    uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f;
}
#define LI_BLOCK 512
typedef void (*li_loop)(char **, const int64_t *, const int64_t *, void *);
#if defined(__F16C__) && defined(__AVX__)
typedef float li_v8f __attribute__((vector_size(32)));
typedef short li_v8h __attribute__((vector_size(16)));
#endif
static inline void li_f16_to_f32(const _Float16 *src, float *dst, int64_t n) {
    int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
    for (; i + 8 <= n; i += 8) {
        li_v8h h; memcpy(&h, src + i, 16);
        li_v8f f = __builtin_ia32_vcvtph2ps256(h); memcpy(dst + i, &f, 32);
    }
#endif
    for (; i < n; i++) dst[i] = (float)src[i];
}
static inline void li_f32_to_f16(const float *src, _Float16 *dst, int64_t n) {
    int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
    for (; i + 8 <= n; i += 8) {  /* rounding immediate 0: to nearest even */
        li_v8f f; memcpy(&f, src + i, 32);
        li_v8h h = __builtin_ia32_vcvtps2ph256(f, 0); memcpy(dst + i, &h, 16);
    }
#endif
    for (; i < n; i++) dst[i] = (_Float16)src[i];
}
"""
    + ORDERINGS
    + STREAMING
    + """static inline uint16_t li_bf16_store(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
"""
)


@dataclass(frozen=True, eq=False)
class Dialect:
    """What one C-like language writes its own way; the op tables above are every dialect's.

    Forms are format strings over ``{}``, a value. Half floats load into float registers
    (`widen`), store from them (`narrow`), and round through both."""

    name: str
    prelude: str
    memory: dict  # dtype -> the type of its elements in memory, where not its register's
    widen: dict  # half float dtype -> its memory value {} read as a float
    narrow: dict  # half float dtype -> the float {} as its memory value, rounded to nearest even
    narrow_double: str  # a double {} as a float16 memory value, rounded once
    borrows: bool = False  # ops without a row run numpy's own loop (BORROWED): C only
    rows: dict = field(default_factory=dict)  # Op -> a float row replacing _FLOAT_OPS', or
    # adding one for an op C borrows (over {0}, {1} and the libm suffix {f})
    saturates: bool = False  # float -> integer casts have a form (else: the numpy path)


C = Dialect(
    name="C",
    prelude=PRELUDE,
    memory={
        np.dtype(np.float16): "_Float16",
        _dtypes.bfloat16: "uint16_t",
        np.dtype(np.bool_): "uint8_t",
    },
    widen={np.dtype(np.float16): "(float){}", _dtypes.bfloat16: "li_bf16_load({})"},
    narrow={np.dtype(np.float16): "(_Float16)({})", _dtypes.bfloat16: "li_bf16_store({})"},
    narrow_double="(_Float16)({})",
    borrows=True,
)


def ctype(dtype: np.dtype) -> str | None:
    """The C type of a register holding a value of `dtype` (half floats: float)."""
    dtype = _dtypes.compute_dtype(np.dtype(dtype))
    if dtype in _FLOATS:
        return _FLOATS[dtype][0]
    if dtype == np.bool_:
        return "int"
    return _INTS.get(dtype)


def memory_type(dtype: np.dtype, dialect: Dialect = C) -> str | None:
    """The C type of an element in memory."""
    dtype = np.dtype(dtype)
    if dtype in dialect.memory:
        return dialect.memory[dtype]
    if dtype in _FLOATS:
        return _FLOATS[dtype][0]
    return _INTS.get(dtype)


def register_dtypes(kernel) -> dict[int, np.dtype]:
    dtypes = {i: ld.node.dtype for i, ld in enumerate(kernel.loads)}
    dtypes.update({step.dst: step.node.dtype for step in kernel.program.steps})
    return dtypes


def _element(i: int, dtype, kinds, index) -> str:
    """The memory element of operand `i` at inner position `index`."""
    mtype = memory_type(dtype)
    if kinds[i] == CONTIGUOUS or index == 0:
        return f"((const {mtype} *)q[{i}])[{index}]"
    return f"*(const {mtype} *)(q[{i}] + {index} * s[{i}])"


def load(i: int, node, kinds, index="j") -> str:
    return widened(node.dtype, _element(i, node.dtype, kinds, index))


def widened(dtype, raw: str, dialect: Dialect = C) -> str:
    """The register value of the memory element `raw` of `dtype`."""
    dtype = np.dtype(dtype)
    if dtype in dialect.widen:
        return dialect.widen[dtype].format(raw)
    if dtype == np.bool_:
        return f"({raw} != 0)"
    return f"({ctype(dtype)}){raw}"


def store(i: int, node, value: str, kinds) -> str:
    mtype = memory_type(node.dtype)
    value = narrowed(node.dtype, value)
    if kinds[i] == CONTIGUOUS:
        return f"(({mtype} *)q[{i}])[j] = {value};"
    return f"*({mtype} *)(q[{i}] + j * s[{i}]) = {value};"


def narrowed(dtype, value: str, dialect: Dialect = C) -> str:
    """The memory element of `dtype` holding the register value `value`."""
    dtype = np.dtype(dtype)
    if dtype in dialect.narrow:
        return dialect.narrow[dtype].format(value)
    if dtype == np.bool_:
        return f"(uint8_t)({value} != 0)"
    return f"({memory_type(dtype, dialect)})({value})"


def rounded(dtype, value: str, dialect: Dialect = C) -> str:
    """`value` (a float) rounded to the half float `dtype` and back."""
    dtype = np.dtype(dtype)
    return dialect.widen[dtype].format(dialect.narrow[dtype].format(value))


def expression(step, src_dtypes, operands, scalar_bounds: bool = True, dialect: Dialect = C) -> str:
    """The C expression of one step; KeyError when the op has no C form for these dtypes."""
    op, out = step.node.op, step.node.dtype
    if op is Op.ASTYPE:
        return _cast(src_dtypes[0], out, operands[0], dialect)
    if op is Op.WHERE:
        return "({} ? {} : {})".format(*operands)
    if op is Op.CLIP:
        return _clip(step.node.arg, src_dtypes[0], operands, scalar_bounds)
    compute = _dtypes.compute_dtype(np.dtype(src_dtypes[0]))
    if op in _COMPARISONS and (compute in _FLOATS or compute in _INTS or compute == np.bool_):
        return _COMPARISONS[op].format(*operands)
    if compute in _FLOATS:
        if op in _KEEPING and out == np.float16:
            return _KEEPING[op].format(*operands, f=_FLOATS[compute][1])
        if op is Op.SIGN and out == _dtypes.bfloat16:  # NOTE: ml_dtypes' sign keeps -0.0
            return "({0} > 0 ? 1 : {0} < 0 ? -1 : {0})".format(*operands)
        return _float_row(op, out, compute, dialect).format(*operands, f=_FLOATS[compute][1])
    if compute == np.bool_:
        return _BOOL_OPS[op].format(*operands)
    # NOTE: unsigned int at least: uint8/uint16 operands would be promoted to (signed) int.
    wide = "uint64_t" if compute.itemsize == 8 else "uint32_t"
    table = {**_INT_OPS, **(_UNSIGNED_OPS if compute.kind == "u" else _SIGNED_OPS)}
    return table[op].format(*operands, T=_INTS[compute], U=wide, bits=8 * compute.itemsize)


def _float_row(op, out, compute, dialect: Dialect) -> str:
    """The form of a float op in `dialect`; KeyError where it has none (C: a borrowed op)."""
    if op in dialect.rows:
        if op in _OWN_DTYPE and np.dtype(out) != compute:
            raise KeyError(op)  # NOTE: a half float's own spacing: float32's is another
        after = _BORROWED_AFTER.get(op)  # the numpy path's fix-up, as after a borrowed loop
        return dialect.rows[op] if after is None else after.replace("{r}", dialect.rows[op])
    return _FLOAT_OPS[op]


def _cast(src, out, value: str, dialect: Dialect = C) -> str:
    """Casts C does as numpy does: to bool, from bool and integers, between floats. A float to
    an integer is undefined in C out of range: KeyError (the numpy path), unless the dialect
    `saturates` (NaN gives 0, out of range the nearest end)."""
    src, out = np.dtype(src), np.dtype(out)
    if out == np.bool_:
        return f"({value} != 0)"
    target = ctype(out)
    if target is None or ctype(src) is None:
        raise KeyError(out)
    if _dtypes.compute_dtype(src) in _FLOATS and _dtypes.compute_dtype(out) not in _FLOATS:
        if not dialect.saturates:
            raise KeyError(out)
        return _saturated(out, value)
    if out == np.float16:
        # NOTE: one rounding from the source type (a float64 via float32 would round twice).
        narrow = dialect.narrow_double if src == np.float64 else dialect.narrow[out]
        return dialect.widen[out].format(narrow.format(value))
    if out == _dtypes.bfloat16:  # NOTE: ml_dtypes casts through float32: so do we
        return rounded(out, f"(float)({value})", dialect)
    return f"({target})({value})"


def _saturated(out: np.dtype, value: str) -> str:
    """A float `value` as the integer `out`: truncated (numpy's result in range), NaN as 0, out
    of range as the nearest end. The bounds are powers of two, exact in every float type."""
    bits = 8 * out.itemsize
    if out.kind == "u":
        low, high, least, most = "-1.0", f"{2.0**bits:.1f}", "0", f"{2**bits - 1}ULL"
    else:
        low, high = f"{-(2.0 ** (bits - 1)):.1f}", f"{2.0 ** (bits - 1):.1f}"
        least, most = f"(-{2 ** (bits - 1) - 1}LL - 1)", f"{2 ** (bits - 1) - 1}LL"
    t = _INTS[out]
    return (
        f"({value} != {value} ? ({t})0 : {value} <= {low} ? ({t}){least} : "
        f"{value} >= {high} ? ({t}){most} : ({t})({value}))"
    )


# numpy's float16 loops keep the first operand of maximum/minimum on a tie (-0.0 against 0.0);
# its float32/64 loops (and ml_dtypes' bfloat16) take the second.
_KEEPING = {Op.MAXIMUM: "li_max_keep{f}({0}, {1})", Op.MINIMUM: "li_min_keep{f}({0}, {1})"}


def _clip(arg, dtype, operands, scalar_bounds: bool) -> str:
    """numpy's clip: NaN from x or from either bound propagates. On a tie (-0.0 against 0.0):
    float16 keeps x; otherwise numpy's clip between two scalar bounds (stride 0:
    `scalar_bounds`) keeps x, and with an array bound, or one bound (np.clip is then maximum or
    minimum), it takes the bound. All are followed."""
    has_min, has_max = arg
    x, *bounds = operands
    floats = _dtypes.compute_dtype(np.dtype(dtype)) in _FLOATS
    if floats:
        suffix = _FLOATS[_dtypes.compute_dtype(np.dtype(dtype))][1]
        keep = np.dtype(dtype) == np.float16 or (has_min and has_max and scalar_bounds)
        low, high = ("li_max_keep", "li_min_keep") if keep else ("li_max", "li_min")
        low, high = f"{low}{suffix}({{x}}, {{b}})", f"{high}{suffix}({{x}}, {{b}})"
    else:
        low, high = "({x} > {b} ? {x} : {b})", "({x} < {b} ? {x} : {b})"
    if not floats and ctype(dtype) not in _INTS.values():
        raise KeyError(dtype)
    value = x
    if has_min:
        value = low.format(x=value, b=bounds.pop(0))
    if has_max:
        value = high.format(x=value, b=bounds.pop(0))
    return value


def borrowed(step, dtypes) -> str | None:
    """The numpy ufunc whose inner loop computes `step` (None: a C expression does), given the
    registers' dtypes."""
    name = BORROWED.get(step.node.op)
    if name is None or step.dtype not in _FLOATS:
        return None
    if any(_dtypes.compute_dtype(dtypes[r]) != step.dtype for r in step.srcs):
        return None
    if step.node.op in _OWN_DTYPE and step.node.dtype != step.dtype:
        return None
    if step.node.op in HALF_MATH and step.node.dtype not in (step.dtype, _FLOAT16):
        return None  # NOTE: bfloat16's are ml_dtypes' loops, not in numpy's table: numpy runs it
    return name


def loop_dtype(step) -> np.dtype:
    """The dtype of the numpy loop a borrowed `step` calls: float16's own for a math function
    (numpy's half loop is its own code, ops.HALF_MATH), else its registers'."""
    half = step.node.op in HALF_MATH and step.node.dtype == _FLOAT16
    return _FLOAT16 if half else step.dtype


_FLOAT16 = np.dtype(np.float16)


def after_borrowed(step, operands, result: str) -> str | None:
    """The expression fixing numpy's loop result where the numpy path fixes it (None: none; a
    node numpy's ufunc recorded keeps numpy's values)."""
    form = _BORROWED_AFTER.get(step.node.op)
    if form is None or step.node.arg == NUMPY_VALUES:
        return None
    return form.format(*operands, r=result)
