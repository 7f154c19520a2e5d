"""A REDUCE kernel's Reduction -> one C function summing rows [start, stop) of its space.

Each row is summed in numpy's pairwise order (numpy's `pairwise_sum`: a run of at most 128
values in 8 accumulators, a longer one split in two at half its length rounded down to a
multiple of 8, the halves summed apart and added), half floats accumulating in float32, and
the total added to a zero (a mean's then divided by the row length, as numpy's is): the
unfused schedule's numpy call gives these bits. The prologue is the elementwise kernel's own
function (elementwise.py), called on each run of at most 128 values of a row as the recursion
reaches it, into a buffer of the summed value's dtype, so a row is read once and no value of
the prologue reaches memory.
"""

from __future__ import annotations

from .._graph import Op
from . import c, elementwise

LEAF = 128  # numpy's PW_BLOCKSIZE: the longest run summed in 8 accumulators
# A single row is summed on the threads as the 2**SPLIT_DEPTH subtrees of its recursion at that
# depth (`name_split`), joined in the recursion's order (`name_join`), where it is SPLIT_MIN
# values or more: every node above the subtrees is then longer than a LEAF (it splits), so the
# bits are the whole row's.
SPLIT_DEPTH = 3
SPLIT_MIN = 1 << 16


def render(reduction, name: str, kinds: tuple[str, ...], ndim: int) -> str:
    """C source of `name(start, stop, shape, ptrs, strides, ext)` summing rows [start, stop) of
    the `ndim`-d `shape` (the kept dims, then the row length), rows in C order: `ptrs` are the
    sums' output, then the prologue's loads; `strides` are the prologue's operands' (its
    output's first, unread: the run buffer's); `kinds` say how each operand walks a row; `ext`
    holds numpy's loops for borrowed steps. Beside it, for a single row: `name_split` over
    pieces [start, stop) of 2**SPLIT_DEPTH, `ptrs[0]` their sums (the accumulator's type), and
    `name_join(0, 1, ...)` with `ptrs` the output and those sums."""
    prologue = reduction.prologue
    (summed,) = prologue.outputs
    (total,) = reduction.total.outputs
    accumulator = c.ctype(summed.dtype)
    widened = c.widened(summed.dtype, "b[i]")
    return _SOURCE.format(
        prologue=elementwise.render(prologue, f"{name}_prologue", kinds, ndim=2),
        name=name,
        leaf=LEAF,
        count=len(kinds),
        ndim=ndim,
        acc=accumulator,
        mem=c.memory_type(summed.dtype),
        widen=widened,
        widen_k=widened.replace("b[i]", "b[i + k]"),
        widen_0=widened.replace("b[i]", "b[k]"),
        out=c.memory_type(total.dtype),
        stored=c.narrowed(total.dtype, _total(total, accumulator)),
        depth=SPLIT_DEPTH,
    )


def _total(total, accumulator: str) -> str:
    """A row's result from its pairwise `sum` (added to a zero, as numpy's reduction starts):
    a mean divides it by the row length in double, as numpy's divides by an intp, then rounds
    to the register type (float32, then a half float: lazyinfini's mean of a half float is
    float32's, rounded)."""
    added = f"({accumulator})0 + sum"
    if total.op is Op.MEAN:
        return f"({c.ctype(total.dtype)})((double)({added}) / (double)n)"
    return added


# NOTE: the prologue walks a (rows, m) space: `inner` holds each operand's strides for it (along
# the last kept dim, along the row; the buffer's are contiguous), `row` each load's address at a
# row's start. A row longer than one run is summed alone, a run at a time as the recursion
# reaches it; shorter rows are computed LI_GROUP values at a time (whole rows of one last kept
# dim), then summed one by one: a row of a few values costs no call of its own.
_SOURCE = """{prologue}
#undef LI_GROUP
#define LI_GROUP 1024
static {acc} {name}_leaf(const {mem} *b, int64_t n) {{
    if (n < 8) {{
        {acc} res = -0.0;
        for (int64_t i = 0; i < n; i++) res += {widen};
        return res;
    }}
    {acc} r[8];
    for (int k = 0; k < 8; k++) r[k] = {widen_0};
    int64_t i = 8;
    for (; i < n - n % 8; i += 8)
        for (int k = 0; k < 8; k++) r[k] += {widen_k};
    {acc} res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += {widen};
    return res;
}}
static {acc} {name}_pairwise(int64_t a, int64_t n, char *const *row, const int64_t *inner,
                             void *const *ext, {mem} *buf) {{
    if (n <= {leaf}) {{
        char *q[{count}];
        q[0] = (char *)buf;
        for (int k = 1; k < {count}; k++) q[k] = row[k] + a * inner[k * 2 + 1];
        const int64_t shape[2] = {{1, n}};
        {name}_prologue(0, n, shape, q, inner, ext);
        return {name}_leaf(buf, n);
    }}
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    {acc} left = {name}_pairwise(a, n2, row, inner, ext, buf);
    return left + {name}_pairwise(a + n2, n - n2, row, inner, ext, buf);
}}
/* Each operand's strides for the prologue's (rows, m) walk: the last kept dim's, a row's. */
static void {name}_inner(const int64_t *strides, int64_t *inner) {{
    for (int k = 0; k < {count}; k++) {{
        inner[2 * k] = {ndim} > 1 ? strides[k * {ndim} + {ndim} - 2] : 0;
        inner[2 * k + 1] = strides[k * {ndim} + {ndim} - 1];
    }}
}}
void {name}(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
            const int64_t *strides, void *const *ext) {{
    {mem} buf[LI_GROUP];
    const int64_t n = shape[{ndim} - 1];
    const int64_t last = {ndim} > 1 ? shape[{ndim} - 2] : 1;
    int64_t inner[2 * {count}];
    {name}_inner(strides, inner);
    for (int64_t r = start; r < stop;) {{
        char *row[{count}];
        row[0] = 0;
        for (int k = 1; k < {count}; k++) row[k] = ptrs[k];
        for (int64_t d = {ndim} - 2, rem = r; d >= 0; d--) {{
            int64_t i = rem % shape[d];
            rem /= shape[d];
            for (int k = 1; k < {count}; k++) row[k] += i * strides[k * {ndim} + d];
        }}
        {out} *out = ({out} *)ptrs[0] + r;
        if (n > {leaf}) {{
            {acc} sum = {name}_pairwise(0, n, row, inner, ext, buf);
            out[0] = {stored};
            r++;
            continue;
        }}
        int64_t g = n ? LI_GROUP / n : LI_GROUP;
        if (g > last - r % last) g = last - r % last;
        if (g > stop - r) g = stop - r;
        if (n) {{  /* NOTE: an empty row calls no prologue: its walk divides by n */
            char *q[{count}];
            q[0] = (char *)buf;
            for (int k = 1; k < {count}; k++) q[k] = row[k];
            const int64_t rows[2] = {{g, n}};
            {name}_prologue(0, g * n, rows, q, inner, ext);
        }}
        for (int64_t i = 0; i < g; i++) {{
            {acc} sum = {name}_leaf(buf + i * n, n);
            out[i] = {stored};
        }}
        r += g;
    }}
}}
/* A single long row on several threads: piece p of 2**LI_DEPTH is the subtree p (left to right)
   of the row's recursion at depth LI_DEPTH, summed into parts[p] (ptrs[0]); the join adds the
   parts pairwise as the recursion would. The row is long enough that every node above the
   pieces splits (SPLIT_MIN), so the bits are the whole row's. */
#undef LI_DEPTH
#define LI_DEPTH {depth}
void {name}_split(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
                  const int64_t *strides, void *const *ext) {{
    {mem} buf[LI_GROUP];
    int64_t inner[2 * {count}];
    {name}_inner(strides, inner);
    char *row[{count}];
    row[0] = 0;
    for (int k = 1; k < {count}; k++) row[k] = ptrs[k];
    {acc} *parts = ({acc} *)ptrs[0];
    for (int64_t p = start; p < stop; p++) {{
        int64_t a = 0, n = shape[{ndim} - 1];
        for (int d = LI_DEPTH - 1; d >= 0; d--) {{
            int64_t n2 = n / 2;
            n2 -= n2 % 8;
            if ((p >> d) & 1) {{
                a += n2;
                n -= n2;
            }} else {{
                n = n2;
            }}
        }}
        parts[p] = {name}_pairwise(a, n, row, inner, ext, buf);
    }}
}}
void {name}_join(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
                 const int64_t *strides, void *const *ext) {{
    (void)start, (void)stop, (void)strides, (void)ext;
    const int64_t n = shape[{ndim} - 1];
    {acc} level[1 << LI_DEPTH];
    for (int i = 0; i < (1 << LI_DEPTH); i++) level[i] = (({acc} *)ptrs[1])[i];
    for (int width = (1 << LI_DEPTH) / 2; width >= 1; width /= 2)
        for (int i = 0; i < width; i++) level[i] = level[2 * i] + level[2 * i + 1];
    {acc} sum = level[0];
    (({out} *)ptrs[0])[0] = {stored};
}}
"""
