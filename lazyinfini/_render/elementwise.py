"""An elementwise kernel record -> one C function over a range of its space (the C dialect's
tables are in c.py).

The function walks [start, stop) of the space in C order, one inner run at a time. A plain
kernel computes its whole program per element. A kernel with borrowed steps (numpy's own inner
loops, c.BORROWED) or contiguous float16 operands runs each inner run in blocks of LI_BLOCK
elements: the program is cut at each borrowed step into *segments*, element loops that keep
the registers a later segment or a borrowed call reads in block buffers (`li_b<r>`), and the
borrowed call runs numpy's loop over a whole block buffer at once. A kernel that `streams` (its
record says so: it moves more than the last-level cache holds) runs in blocks too: each contiguous
output is computed into a block buffer (`li_o<k>`), then written with non-temporal stores
(c.STREAMING), its blocks aligned to cache lines; the function fences before it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import c
from .c import BROADCAST, CONTIGUOUS


def unsupported(kernel, dialect: c.Dialect = c.C) -> str | None:
    """Why `kernel` cannot run in `dialect` (None when it can): the first dtype or op without a
    form."""
    if kernel.program is None:
        return "no register program"
    for node in (*(ld.node for ld in kernel.loads), *kernel.outputs):
        if c.memory_type(node.dtype, dialect) is None:
            return f"dtype {node.dtype.name} has no {dialect.name} form"
    dtypes = c.register_dtypes(kernel)
    for step in kernel.program.steps:
        if dialect.borrows and c.borrowed(step, dtypes):
            continue
        try:
            srcs = [f"r{r}" for r in step.srcs]
            c.expression(step, [dtypes[r] for r in step.srcs], srcs, dialect=dialect)
        except KeyError:
            names = ", ".join(dtypes[r].name for r in step.srcs)
            return f"{step.node.op.label}({names}) has no {dialect.name} form"
    return None


def scalar_bounds(kernel, step) -> bool:
    """Whether every operand of `step` after the first is a load of one value (every stride
    0): numpy's clip breaks a tie with such bounds differently from array bounds (a (3, 1)
    bound of a (3, 4) clip is an array bound to numpy, though its inner stride is 0)."""
    loads = kernel.loads
    return all(r < len(loads) and not any(loads[r].strides) for r in step.srcs[1:])


def computed(kernel, step, dtypes, dialect: c.Dialect = c.C) -> list[str]:
    """The statements computing one step into its register `r<dst>`, rounded where the
    program rounds it (half floats, `step.rounds`)."""
    srcs = [f"r{r}" for r in step.srcs]
    scalar = scalar_bounds(kernel, step)
    expr = c.expression(step, [dtypes[r] for r in step.srcs], srcs, scalar, dialect)
    lines = [f"{c.ctype(step.node.dtype)} r{step.dst} = {expr};"]
    if step.rounds:
        lines.append(f"r{step.dst} = {c.rounded(step.node.dtype, f'r{step.dst}', dialect)};")
    return lines


def borrowed(kernel) -> list[tuple[str, np.dtype]]:
    """The numpy loops `kernel`'s C function calls, in the order of its `ext` argument:
    (ufunc name, register dtype) each."""
    dtypes = c.register_dtypes(kernel)
    found = []
    for step in kernel.program.steps:
        name = c.borrowed(step, dtypes)
        if name is not None:
            found.append((name, c.loop_dtype(step)))
    return found


def render(kernel, name: str, kinds: tuple[str, ...], ndim: int | None = None) -> str:
    """C source of one function `name(start, stop, shape, ptrs, strides, ext)` computing
    elements [start, stop) of `kernel`'s space (C order). Operands are the outputs, then the
    loads; `kinds` says how each walks the innermost dim (CONTIGUOUS, BROADCAST or STRIDED);
    `ext` holds a (loop, data) pointer pair per borrowed step (`borrowed(kernel)`). `ndim`:
    the rank of the space the caller walks (default the kernel's)."""
    hoist, loop = _body(kernel, kinds)
    return _FUNCTION.format(
        name=name,
        ndim=ndim or max(1, len(kernel.space)),
        count=len(kinds),
        hoist=hoist,
        loop=loop,
        fence=_fence(kernel, kinds),
    )


def render_tiled(kernel, name: str, kinds, ndim: int, side: tuple[int, int], gathered) -> str:
    """Like `render`, over a space whose last two dims are one square tile of `side` (the
    caller's view: (..., tile rows, tile cols, side, side)), [start, stop) whole tiles. The
    operands in `gathered` (read across the tile's rows) are first copied into a tile buffer,
    reading whole source rows, then every row of the tile runs the plain loop with those
    operands contiguous in the buffer; `kinds` are the kinds inside that loop."""
    hoist, loop = _body(kernel, kinds)
    operands = [*kernel.outputs, *(ld.node for ld in kernel.loads)]
    return _TILED.format(
        name=name,
        ndim=ndim,
        count=len(kinds),
        rows_side=side[0],
        cols_side=side[1],
        pitch=side[1] + _PAD,
        buffers="\n    ".join(
            f"{c.memory_type(operands[k].dtype)} li_tile{k}[{side[0] * (side[1] + _PAD)}];"
            for k in gathered
        ),
        gather="\n        ".join(
            _GATHER.format(k=k, t=c.memory_type(operands[k].dtype), ndim=ndim) for k in gathered
        ),
        rows="\n            ".join(
            f"q[{k}] = (char *)(li_tile{k} + i * LI_PITCH);" for k in gathered
        ),
        hoist=hoist.replace("\n", "\n    "),
        loop=loop.replace("\n", "\n    "),
        fence=_fence(kernel, kinds),
    )


def _body(kernel, kinds) -> tuple[str, str]:
    """The statements reading the broadcast loads once, and the loop over one inner run of `n`
    elements from the operand pointers `q` (and inner strides `s`)."""
    walk = _Walk.of(kernel, kinds)
    hoist = [
        f"const {c.ctype(walk.operands[i].dtype)} r{i - walk.n_out} = "
        f"{c.load(i, walk.operands[i], kinds, 0)};"
        for i in sorted(walk.hoisted)
    ]
    segments = _segments(walk)
    if len(segments) == 1 and not walk.staged and not walk.streamed:
        body = walk.element(segments[0], ready=set(), buffered=set(), final=True)
        loop = _LOOP.format("\n            ".join(body))
    else:
        loop = _blocked_loop(walk, segments)
    return "\n        ".join(hoist), loop


@dataclass
class _Walk:
    """What the statements of one kernel's element loop are made from."""

    kernel: object
    kinds: tuple[str, ...]
    operands: list
    n_out: int
    dtypes: dict
    hoisted: set[int]  # broadcast loads (operand indexes): read once, before the loop
    staged: set[int]  # contiguous float16 operands, converted a block at a time
    streamed: set[int]  # contiguous outputs written a block at a time with non-temporal stores

    @classmethod
    def of(cls, kernel, kinds):
        operands = [*kernel.outputs, *(ld.node for ld in kernel.loads)]
        n_out = len(kernel.outputs)
        return cls(
            kernel,
            kinds,
            operands,
            n_out,
            c.register_dtypes(kernel),
            {i for i, k in enumerate(kinds) if k == BROADCAST and i >= n_out},
            {i for i, k in enumerate(kinds) if k == CONTIGUOUS and operands[i].dtype == np.float16},
            _streamed(kernel, kinds),
        )

    def read(self, reg: int, ready: set[int]) -> str | None:
        """The statement giving register `reg` its value in an element loop (None: a hoisted
        load, already in scope)."""
        ctype = c.ctype(self.dtypes[reg])
        if reg in ready:
            return f"{ctype} r{reg} = li_b{reg}[jb];"
        k = self.n_out + reg
        if k in self.hoisted:
            return None
        if k in self.staged:
            return f"float r{reg} = li_buf{k}[jb];"
        return f"{ctype} r{reg} = {c.load(k, self.operands[k], self.kinds)};"

    def element(self, steps, ready: set[int], buffered: set[int], final: bool) -> list[str]:
        """One element's statements: read the registers `steps` need (from the block buffers
        for those in `ready`), compute `steps`, keep the `buffered` ones, store when `final`."""
        program = self.kernel.program
        defined = {step.dst for step in steps}
        needed = [r for step in steps for r in step.srcs]
        needed += list(program.outputs) if final else []
        needed += sorted(r for r in buffered if r < len(self.kernel.loads) and r not in ready)
        body = [self.read(r, ready) for r in dict.fromkeys(needed) if r not in defined]
        for step in steps:
            body += computed(self.kernel, step, self.dtypes)
        kept = sorted(r for r in buffered if r in defined or r in dict.fromkeys(needed))
        body += [f"li_b{r}[jb] = r{r};" for r in kept if r not in ready]
        if final:
            body += [self.write(j, f"r{reg}") for j, reg in enumerate(program.outputs)]
        return [line for line in body if line is not None]

    def write(self, j: int, value: str) -> str:
        """The statement storing output `j`'s register `value` (element jb of a block)."""
        if j in self.staged:
            return f"li_buf{j}[jb] = {value};"
        if j in self.streamed:
            return f"li_o{j}[jb] = {c.narrowed(self.operands[j].dtype, value)};"
        return c.store(j, self.operands[j], value, self.kinds)


def _streamed(kernel, kinds) -> set[int]:
    """The outputs written with non-temporal stores: every contiguous one where the kernel
    record `streams` (a record without the field, as a dask block's may be, never does)."""
    if not getattr(kernel, "streams", False):
        return set()
    return {j for j in range(len(kernel.outputs)) if kinds[j] == CONTIGUOUS}


def _fence(kernel, kinds) -> str:
    """The statement ending a function whose stores stream (they are weakly ordered)."""
    return "li_stream_fence();" if _streamed(kernel, kinds) else ""


def _segments(walk: _Walk) -> list:
    """The program cut at its borrowed steps: element-step lists and borrowed steps, alternating,
    starting and ending with a (possibly empty) list."""
    segments: list = [[]]
    for step in walk.kernel.program.steps:
        if c.borrowed(step, walk.dtypes):
            segments += [step, []]
        else:
            segments[-1].append(step)
    return segments


def _blocked_loop(walk: _Walk, segments: list) -> str:
    """The inner run in blocks of at most LI_BLOCK elements (`m`): staged float16 operands
    converted with the CPU's vector conversions (F16C, which gcc does not emit for a _Float16
    loop), element segments, numpy's loop called on whole block buffers for each borrowed step,
    and the streamed outputs' blocks written past the caches."""
    inner = "\n".join(_block(walk, segments)).replace("\n", "\n            ")
    count = "n - j0 < LI_BLOCK ? n - j0 : LI_BLOCK"
    if walk.streamed:  # NOTE: blocks of the first streamed output start on cache lines
        first = min(walk.streamed)
        size = np.dtype(walk.operands[first].dtype).itemsize
        count = f"li_stream_count(q[{first}] + j0 * {size}, n - j0, {size})"
    return (
        "for (int64_t j0 = 0, m = 0; j0 < n; j0 += m) {\n"
        f"            m = {count};\n"
        f"            {inner}\n"
        "        }"
    )


def _block(walk: _Walk, segments: list) -> list[str]:
    """The statements computing one block `[j0, j0 + m)` of the inner run."""
    buffered = _buffered(walk, segments)
    lines = [f"float li_buf{i}[LI_BLOCK];" for i in sorted(walk.staged)]
    lines += [f"{c.ctype(walk.dtypes[r])} li_b{r}[LI_BLOCK];" for r in sorted(buffered)]
    lines += [
        f"{c.memory_type(walk.operands[i].dtype)} li_o{i}[LI_BLOCK];" for i in sorted(walk.streamed)
    ]
    lines += [
        f"li_f16_to_f32((const _Float16 *)q[{i}] + j0, li_buf{i}, m);"
        for i in sorted(walk.staged)
        if i >= walk.n_out
    ]
    ready: set[int] = set()
    for k, segment in enumerate(segments):
        if k % 2:
            lines += _call(walk, segment, k // 2)
            ready.add(segment.dst)
            continue
        final = k == len(segments) - 1
        body = walk.element(segment, ready, buffered, final)
        if body:
            inner = "\n    ".join(["int64_t j = j0 + jb;", *body])
            lines.append(f"for (int64_t jb = 0; jb < m; jb++) {{\n    {inner}\n}}")
        ready |= buffered & ({s.dst for s in segment} | set(range(len(walk.kernel.loads))))
    return lines + _written(walk)


def _written(walk: _Walk) -> list[str]:
    """The block's staged float16 outputs converted to memory, and its streamed outputs
    written with non-temporal stores."""
    lines = []
    for i in sorted(walk.staged):
        if i < walk.n_out:
            dst = f"li_o{i}" if i in walk.streamed else f"(_Float16 *)q[{i}] + j0"
            lines.append(f"li_f32_to_f16(li_buf{i}, {dst}, m);")
    for i in sorted(walk.streamed):
        size = np.dtype(walk.operands[i].dtype).itemsize
        lines.append(f"li_stream(q[{i}] + j0 * {size}, (const char *)li_o{i}, m * {size});")
    return lines


def _buffered(walk: _Walk, segments: list) -> set[int]:
    """Registers kept in block buffers: each borrowed step's operands and result, and every
    register read in a later segment than the one computing it."""
    home = {}
    for k, segment in enumerate(segments):
        for step in [segment] if k % 2 else segment:
            home[step.dst] = k
    buffered = set()
    for k, segment in enumerate(segments):
        if k % 2:
            buffered |= {*segment.srcs, segment.dst}
            continue
        reads = [r for step in segment for r in step.srcs]
        reads += list(walk.kernel.program.outputs) if k == len(segments) - 1 else []
        buffered |= {r for r in reads if r in home and home[r] != k}
    return buffered


def _call(walk: _Walk, step, index: int) -> list[str]:
    """numpy's loop over the block buffers of one borrowed step, then its rounding to a half
    float and the numpy path's fix-up, where there are."""
    regs = [*step.srcs, step.dst]
    half = c.loop_dtype(step) != step.dtype  # NOTE: float16's own loop, over half copies
    names = [f"li_h{k}" if half else f"li_b{r}" for k, r in enumerate(regs)]
    size = np.dtype(c.loop_dtype(step)).itemsize
    lines = ["{"]
    if half:  # NOTE: the registers hold float16 values (a function's operand is rounded): exact
        lines += [f"    _Float16 {name}[LI_BLOCK];" for name in names]
        lines += [f"    li_f32_to_f16(li_b{r}, {n}, m);" for r, n in zip(step.srcs, names)]
    lines += [
        f"    char *args[{len(regs)}] = {{{', '.join(f'(char *){n}' for n in names)}}};",
        f"    int64_t steps[{len(regs)}] = {{{', '.join([str(size)] * len(regs))}}};",
        f"    ((li_loop)ext[{2 * index}])(args, &m, steps, ext[{2 * index + 1}]);",
    ]
    if half:
        lines.append(f"    li_f16_to_f32({names[-1]}, li_b{step.dst}, m);")
    lines.append("}")
    value = f"li_b{step.dst}[jb]"
    fixed = c.after_borrowed(step, [f"li_b{r}[jb]" for r in step.srcs], value)
    if step.rounds:
        fixed = c.rounded(step.node.dtype, fixed or value)
    if fixed is not None:
        lines.append(f"for (int64_t jb = 0; jb < m; jb++) {value} = {fixed};")
    return lines


_LOOP = """for (int64_t j = 0; j < n; j++) {{
            {}
        }}"""

_FUNCTION = """
void {name}(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
            const int64_t *strides, void *const *ext) {{
    (void)ext;
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
    {fence}
}}
"""

# NOTE: the source of a gathered tile is contiguous along the tile's rows (dim -2): each source
# row is read whole, so source rows that alias in the cache sets (power-of-two strides) do not
# evict each other before they are used.
_PAD = 16  # elements after each tile buffer row, so that its rows do not alias in the cache
_GATHER = """{{
            const char *src = base[{k}];
            const int64_t rs = strides[{k} * {ndim} + {ndim} - 2];
            const int64_t cs = strides[{k} * {ndim} + {ndim} - 1];
            for (int64_t jj = 0; jj < LI_COLS; jj++)
                for (int64_t ii = 0; ii < LI_ROWS; ii++)
                    li_tile{k}[ii * LI_PITCH + jj] = *(const {t} *)(src + ii * rs + jj * cs);
        }}"""

_TILED = """
#undef LI_ROWS
#undef LI_COLS
#undef LI_PITCH
#define LI_ROWS {rows_side}
#define LI_COLS {cols_side}
#define LI_PITCH {pitch}
void {name}(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
            const int64_t *strides, void *const *ext) {{
    (void)ext;
    {buffers}
    for (int64_t tile = start / (LI_ROWS * LI_COLS); tile < stop / (LI_ROWS * LI_COLS); tile++) {{
        int64_t idx[{ndim}], rem = tile;
        for (int d = {ndim} - 3; d >= 0; d--) {{ idx[d] = rem % shape[d]; rem /= shape[d]; }}
        char *base[{count}];
        for (int k = 0; k < {count}; k++) {{
            base[k] = ptrs[k];
            for (int d = 0; d < {ndim} - 2; d++) base[k] += idx[d] * strides[k * {ndim} + d];
        }}
        {gather}
        for (int64_t i = 0; i < LI_ROWS; i++) {{
            char *q[{count}];
            int64_t s[{count}];
            for (int k = 0; k < {count}; k++) {{
                q[k] = base[k] + i * strides[k * {ndim} + {ndim} - 2];
                s[k] = strides[k * {ndim} + {ndim} - 1];
            }}
            {rows}
            int64_t n = LI_COLS;
            {hoist}
            {loop}
        }}
    }}
    {fence}
}}
"""
