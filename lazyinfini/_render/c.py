"""An elementwise kernel record -> C source: its register program over a strided N-d space.

Pure functions of the kernel record (its `program`, its loads' and outputs' dtypes) and of the
inner-stride kind of each operand (contiguous, broadcast or strided); shapes and outer strides
are arguments, so a new batch size does not recompile. A dialect is a table: C types, one
expression per op, load/store/round forms. CUDA C (the next dialect) changes a few rows.

Only ops whose C form gives numpy's bits are rendered: arithmetic, comparisons, logic, bit ops
and shifts, integer floor division and remainder, clip/maximum/minimum with numpy's NaN
propagation, sqrt, rounding, casts between floats, from integers and bools, to bools. Everything
else (transcendentals, whose libm and numpy's SIMD versions differ in the last bit; float floor
division; float-to-int casts, undefined in C out of range; complex) keeps the kernel on the numpy
path, and `unsupported` says why.
"""

from __future__ import annotations

import numpy as np

from .. import _dtypes
from .._graph import Op

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
    # (-0.0 against +0.0) the second operand wins, as in numpy's float32/float64 loops.
    Op.MAXIMUM: "(({0} > {1} || {0} != {0}) ? {0} : {1})",
    Op.MINIMUM: "(({0} < {1} || {0} != {0}) ? {0} : {1})",
}
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
}
_UNSIGNED_OPS = {
    Op.FLOOR_DIVIDE: "({1} == 0 ? ({T})0 : ({T})({0} / {1}))",
    Op.REMAINDER: "({1} == 0 ? ({T})0 : ({T})({0} % {1}))",
    Op.BITWISE_LEFT_SHIFT: "({1} >= {bits} ? ({T})0 : ({T})(({U}){0} << {1}))",
    Op.BITWISE_RIGHT_SHIFT: "({1} >= {bits} ? ({T})0 : ({T})({0} >> {1}))",
}
_BOOL_OPS = {
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

PRELUDE = """#include <stdint.h>
#include <string.h>
#include <math.h>
static inline float li_bf16_load(uint16_t h) {
    uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f;
}
#define LI_BLOCK 512
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
static inline uint16_t li_bf16_store(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
"""


def unsupported(kernel) -> str | None:
    """Why `kernel` cannot run as C (None when it can): the first dtype or op without a form."""
    if kernel.program is None:
        return "no register program"
    for node in (*(ld.node for ld in kernel.loads), *kernel.outputs):
        if _memory_type(node.dtype) is None:
            return f"dtype {node.dtype.name} has no C form"
    dtypes = _register_dtypes(kernel)
    for step in kernel.program.steps:
        try:
            _expression(step, [dtypes[r] for r in step.srcs], [f"r{r}" for r in step.srcs])
        except KeyError:
            names = ", ".join(dtypes[r].name for r in step.srcs)
            return f"{step.node.op.label}({names}) has no C form"
    return None


def render(kernel, name: str, kinds: tuple[str, ...]) -> str:
    """C source of one function `name(start, stop, shape, ptrs, strides)` computing elements
    [start, stop) of `kernel`'s space (C order). Operands are the outputs, then the loads;
    `kinds` says how each walks the innermost dim (CONTIGUOUS, BROADCAST or STRIDED)."""
    program = kernel.program
    ndim = max(1, len(kernel.space))
    operands = [*kernel.outputs, *(ld.node for ld in kernel.loads)]
    dtypes = _register_dtypes(kernel)
    n_out = len(kernel.outputs)
    hoisted = [i for i, k in enumerate(kinds) if k == BROADCAST and i >= n_out]
    staged = [i for i, k in enumerate(kinds) if k == CONTIGUOUS and operands[i].dtype == np.float16]
    body = []
    for i, load in enumerate(kernel.loads):
        k = n_out + i
        if k in staged:
            body.append(f"float r{i} = li_buf{k}[jb];")
        elif k not in hoisted:
            body.append(f"{ctype(load.node.dtype)} r{i} = {_load(k, load.node, kinds)};")
    for step in program.steps:
        expr = _expression(step, [dtypes[r] for r in step.srcs], [f"r{r}" for r in step.srcs])
        body.append(f"{ctype(step.node.dtype)} r{step.dst} = {expr};")
        if step.rounds:
            body.append(f"r{step.dst} = {_round(step.node.dtype, f'r{step.dst}')};")
    for j, reg in enumerate(program.outputs):
        stage = f"li_buf{j}[jb] = r{reg};" if j in staged else None
        body.append(stage or _store(j, operands[j], f"r{reg}", kinds))
    hoist = [
        f"const {ctype(operands[i].dtype)} r{i - n_out} = {_load(i, operands[i], kinds, 0)};"
        for i in hoisted
    ]
    return _FUNCTION.format(
        name=name,
        ndim=ndim,
        count=len(operands),
        hoist="\n        ".join(hoist),
        loop=_staged_loop(body, staged, n_out)
        if staged
        else _LOOP.format("\n            ".join(body)),
    )


_LOOP = """for (int64_t j = 0; j < n; j++) {{
            {}
        }}"""


def _plain_loop(body: list[str]) -> str:
    return _LOOP.format("\n            ".join(body))


def _staged_loop(body: list[str], staged: list[int], n_out: int) -> str:
    """The inner loop in blocks: contiguous float16 operands are converted a block at a time
    with the CPU's vector conversions (F16C), which gcc does not emit for a _Float16 loop."""
    before = [f"float li_buf{i}[LI_BLOCK];" for i in staged]
    before += [
        f"li_f16_to_f32((const _Float16 *)q[{i}] + j0, li_buf{i}, m);" for i in staged if i >= n_out
    ]
    after = [f"li_f32_to_f16(li_buf{i}, (_Float16 *)q[{i}] + j0, m);" for i in staged if i < n_out]
    inner = "\n                ".join(["int64_t j = j0 + jb;", *body])
    return (
        "for (int64_t j0 = 0; j0 < n; j0 += LI_BLOCK) {\n"
        "            int64_t m = n - j0 < LI_BLOCK ? n - j0 : LI_BLOCK;\n"
        + "".join(f"            {line}\n" for line in before)
        + "            for (int64_t jb = 0; jb < m; jb++) {\n"
        + f"                {inner}\n"
        + "            }\n"
        + "".join(f"            {line}\n" for line in after)
        + "        }"
    )


_FUNCTION = """
void {name}(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
            const int64_t *strides) {{
    int64_t idx[{ndim}], rem = start;
    for (int d = {ndim} - 1; d >= 0; d--) {{ idx[d] = rem % shape[d]; rem /= shape[d]; }}
    while (start < stop) {{
        int64_t n = shape[{ndim} - 1] - idx[{ndim} - 1];
        if (n > stop - start) n = stop - start;
        char *q[{count}];
        int64_t s[{count}];
        for (int k = 0; k < {count}; k++) {{
            q[k] = ptrs[k];
            for (int d = 0; d < {ndim}; d++) q[k] += idx[d] * strides[k * {ndim} + d];
            s[k] = strides[k * {ndim} + {ndim} - 1];
        }}
        {hoist}
        {loop}
        start += n;
        idx[{ndim} - 1] += n;
        for (int d = {ndim} - 1; d > 0 && idx[d] >= shape[d]; d--) {{ idx[d] = 0; idx[d - 1]++; }}
    }}
}}
"""


def ctype(dtype: np.dtype) -> str | None:
    """The C type of a register holding a value of `dtype` (half floats: float)."""
    dtype = _dtypes.compute_dtype(np.dtype(dtype))
    if dtype in _FLOATS:
        return _FLOATS[dtype][0]
    if dtype == np.bool_:
        return "int"
    return _INTS.get(dtype)


def _memory_type(dtype: np.dtype) -> str | None:
    """The C type of an element in memory."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return "_Float16"
    if dtype == _dtypes.bfloat16:
        return "uint16_t"
    if dtype == np.bool_:
        return "uint8_t"
    if dtype in _FLOATS:
        return _FLOATS[dtype][0]
    return _INTS.get(dtype)


def _register_dtypes(kernel) -> dict[int, np.dtype]:
    dtypes = {i: ld.node.dtype for i, ld in enumerate(kernel.loads)}
    dtypes.update({step.dst: step.node.dtype for step in kernel.program.steps})
    return dtypes


def _element(i: int, dtype, kinds, index) -> str:
    """The memory element of operand `i` at inner position `index`."""
    mtype = _memory_type(dtype)
    if kinds[i] == CONTIGUOUS or index == 0:
        return f"((const {mtype} *)q[{i}])[{index}]"
    return f"*(const {mtype} *)(q[{i}] + {index} * s[{i}])"


def _load(i: int, node, kinds, index="j") -> str:
    raw = _element(i, node.dtype, kinds, index)
    if node.dtype == _dtypes.bfloat16:
        return f"li_bf16_load({raw})"
    if node.dtype == np.bool_:
        return f"({raw} != 0)"
    return f"({ctype(node.dtype)}){raw}"


def _store(i: int, node, value: str, kinds) -> str:
    mtype = _memory_type(node.dtype)
    if node.dtype == _dtypes.bfloat16:
        value = f"li_bf16_store({value})"
    elif node.dtype == np.bool_:
        value = f"(uint8_t)({value} != 0)"
    else:
        value = f"({mtype})({value})"
    if kinds[i] == CONTIGUOUS:
        return f"(({mtype} *)q[{i}])[j] = {value};"
    return f"*({mtype} *)(q[{i}] + j * s[{i}]) = {value};"


def _round(dtype, value: str) -> str:
    """`value` (a float) rounded to the half float `dtype` and back."""
    if dtype == _dtypes.bfloat16:
        return f"li_bf16_load(li_bf16_store({value}))"
    return f"(float)(_Float16)({value})"


def _expression(step, src_dtypes, operands) -> str:
    """The C expression of one step; KeyError when the op has no C form for these dtypes."""
    op, out = step.node.op, step.node.dtype
    if op is Op.ASTYPE:
        return _cast(src_dtypes[0], out, operands[0])
    if op is Op.WHERE:
        return "({} ? {} : {})".format(*operands)
    if op is Op.CLIP:
        return _clip(step.node.arg, src_dtypes[0], operands)
    compute = _dtypes.compute_dtype(np.dtype(src_dtypes[0]))
    if op in _COMPARISONS and (compute in _FLOATS or compute in _INTS or compute == np.bool_):
        return _COMPARISONS[op].format(*operands)
    if compute in _FLOATS:
        return _FLOAT_OPS[op].format(*operands, f=_FLOATS[compute][1])
    if compute == np.bool_:
        return _BOOL_OPS[op].format(*operands)
    # NOTE: unsigned int at least: uint8/uint16 operands would be promoted to (signed) int.
    wide = "uint64_t" if compute.itemsize == 8 else "uint32_t"
    table = {**_INT_OPS, **(_UNSIGNED_OPS if compute.kind == "u" else _SIGNED_OPS)}
    return table[op].format(*operands, T=_INTS[compute], U=wide, bits=8 * compute.itemsize)


def _cast(src, out, value: str) -> str:
    """Casts C does as numpy does: to bool, from bool and integers, between floats. A float to
    an integer is undefined in C out of range: KeyError (the numpy path)."""
    src, out = np.dtype(src), np.dtype(out)
    if out == np.bool_:
        return f"({value} != 0)"
    target = ctype(out)
    if target is None or ctype(src) is None:
        raise KeyError(out)
    if _dtypes.compute_dtype(src) in _FLOATS and _dtypes.compute_dtype(out) not in _FLOATS:
        raise KeyError(out)
    if out == np.float16:
        # NOTE: one rounding from the source type (a float64 via float32 would round twice).
        return f"(float)(_Float16)({value})"
    if out == _dtypes.bfloat16:  # NOTE: ml_dtypes casts through float32: so do we
        return _round(out, f"(float)({value})")
    return f"({target})({value})"


def _clip(arg, dtype, operands) -> str:
    """numpy's clip: NaN from x or from either bound propagates."""
    has_min, has_max = arg
    x, *bounds = operands
    floats = _dtypes.compute_dtype(np.dtype(dtype)) in _FLOATS
    if floats:
        low = "(({x} > {b} || {x} != {x}) ? {x} : {b})"
        high = "(({x} < {b} || {x} != {x}) ? {x} : {b})"
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
