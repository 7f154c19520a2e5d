"""C source of the host's matrix-vector products: y = A v and y = A^T v, A laid out by rows
(each row contiguous, rows `strides[0]` bytes apart), v contiguous.

Both are read-bound: a product moves the matrix once and does two flops per element, so what
counts is reading A at the memory's speed on every core, in an order whose bits do not depend
on how the threads split it:
- rows (A v): each thread takes whole rows; a row's dot product runs in 8 lanes (the lanes
  vectorize without reassociating anything), joined in one fixed order, then its tail.
- pieces (A^T v): the rows are cut into pieces of PIECE_ROWS; a piece's weighted sum of its rows
  (an axpy per row into a row of `parts`, which stays in L1) is one unit the threads share;
  `join` then adds the pieces' rows in order. (BLAS's gemv_t splits by threads, so its bits
  change with their number; a parallel gemv_t of OpenBLAS read 7-10 GB/s here, where one read
  of the matrix moves 10-12.)
- chain: the three calls of a gradient step's `A^T f(A v)` (compiled_chain.py), piece by piece.
The functions have the C path's signature (compiled.py's calls): (start, stop, shape, pointers,
strides, numpy's loops), shape = (rows, columns) of A.
"""

from __future__ import annotations

PIECE_ROWS = 512  # rows a piece of A^T v sums: its parts row stays in L1 for up to ~4K columns

_SOURCE = """
typedef {ctype} li_t;

/* 8 lanes of li_t, read from any address aligned for li_t */
typedef li_t li_lanes __attribute__((vector_size(8 * sizeof(li_t)), aligned(sizeof(li_t))));

static inline li_t li_joined(li_lanes lane) {{
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
           ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}}

/* y[i] = A[i] . v for the rows i in [start, stop): each row's dot product in 8 lanes (lane l
   sums the elements k = l mod 8 in order), joined in one fixed order, then its tail; four rows
   at a time, each summed in the order it has alone (their chains of adds interleave) */
void li_matvec_rows(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                    const int64_t *strides, void *const *ext) {{
    int64_t cols = shape[1], step = strides[0] / (int64_t)sizeof(li_t), i = start;
    li_t *y = (li_t *)p[0];
    const li_t *a = (const li_t *)p[1], *v = (const li_t *)p[2];
    for (; i + 4 <= stop; i += 4) {{
        const li_t *r0 = a + i * step, *r1 = r0 + step, *r2 = r1 + step, *r3 = r2 + step;
        li_lanes l0 = {{0}}, l1 = {{0}}, l2 = {{0}}, l3 = {{0}};
        int64_t k = 0;
        for (; k + 8 <= cols; k += 8) {{
            li_lanes w = *(const li_lanes *)(v + k);
            l0 += *(const li_lanes *)(r0 + k) * w;
            l1 += *(const li_lanes *)(r1 + k) * w;
            l2 += *(const li_lanes *)(r2 + k) * w;
            l3 += *(const li_lanes *)(r3 + k) * w;
        }}
        li_t s0 = li_joined(l0), s1 = li_joined(l1), s2 = li_joined(l2), s3 = li_joined(l3);
        for (; k < cols; k++) {{
            s0 += r0[k] * v[k];
            s1 += r1[k] * v[k];
            s2 += r2[k] * v[k];
            s3 += r3[k] * v[k];
        }}
        y[i] = s0, y[i + 1] = s1, y[i + 2] = s2, y[i + 3] = s3;
    }}
    for (; i < stop; i++) {{
        const li_t *row = a + i * step;
        li_lanes lane = {{0}};
        int64_t k = 0;
        for (; k + 8 <= cols; k += 8)
            lane += *(const li_lanes *)(row + k) * *(const li_lanes *)(v + k);
        li_t sum = li_joined(lane);
        for (; k < cols; k++) sum += row[k] * v[k];
        y[i] = sum;
    }}
}}

/* parts[q] = sum over the rows i of piece q of A[i] * v[i], in order, for the pieces in
   [start, stop); four rows per pass over the piece's row of parts (each sum[j] adds them in
   the same order as one at a time) */
void li_matvec_pieces(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                      const int64_t *strides, void *const *ext) {{
    int64_t rows = shape[0], cols = shape[1], step = strides[0] / (int64_t)sizeof(li_t);
    li_t *parts = (li_t *)p[0];
    const li_t *a = (const li_t *)p[1], *v = (const li_t *)p[2];
    for (int64_t q = start; q < stop; q++) {{
        li_t *restrict sum = parts + q * cols;
        for (int64_t j = 0; j < cols; j++) sum[j] = 0;
        int64_t i = q * {piece}, end = (q + 1) * {piece} < rows ? (q + 1) * {piece} : rows;
        for (; i + 4 <= end; i += 4) {{
            const li_t *r0 = a + i * step, *r1 = r0 + step, *r2 = r1 + step, *r3 = r2 + step;
            li_t w0 = v[i], w1 = v[i + 1], w2 = v[i + 2], w3 = v[i + 3];
            for (int64_t j = 0; j < cols; j++)
                sum[j] = (((sum[j] + r0[j] * w0) + r1[j] * w1) + r2[j] * w2) + r3[j] * w3;
        }}
        for (; i < end; i++) {{
            const li_t *row = a + i * step;
            li_t weight = v[i];
            for (int64_t j = 0; j < cols; j++) sum[j] += row[j] * weight;
        }}
    }}
}}

/* y[j] = sum of parts[q][j] over the pieces q in order, for the columns j in [start, stop) */
void li_matvec_join(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                    const int64_t *strides, void *const *ext) {{
    int64_t pieces = shape[0], cols = shape[1];
    li_t *y = (li_t *)p[0];
    const li_t *parts = (const li_t *)p[1];
    for (int64_t j = start; j < stop; j++) y[j] = 0;
    for (int64_t q = 0; q < pieces; q++)
        for (int64_t j = start; j < stop; j++) y[j] += parts[q * cols + j];
}}

typedef void (*li_call_t)(int64_t, int64_t, const int64_t *, char *const *, const int64_t *,
                          void *const *);

/* One pass of y = A v, then e = f(y, ...) (an elementwise kernel's call over the rows' range of
   its 1-D walk), then the pieces of A^T e, piece by piece while its rows are in cache: for the
   pieces in [start, stop), each call of `ext` (5 entries each: the function, then its shape,
   pointers, strides and ext) over the piece's rows (the third over the piece itself). Each
   call computes what it computes alone, so the bits are the three kernels'. */
void li_matvec_chain(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                     const int64_t *strides, void *const *ext) {{
    int64_t rows = shape[0];
    for (int64_t q = start; q < stop; q++) {{
        int64_t first = q * {piece}, end = first + {piece} < rows ? first + {piece} : rows;
        for (int c = 0; c < 3; c++) {{
            void *const *call = ext + 5 * c;
            ((li_call_t)call[0])(c == 2 ? q : first, c == 2 ? q + 1 : end,
                                 (const int64_t *)call[1], (char *const *)call[2],
                                 (const int64_t *)call[3], (void *const *)call[4]);
        }}
    }}
}}
"""

CTYPES = {"float32": "float", "float64": "double"}
FUNCTIONS = ("li_matvec_rows", "li_matvec_pieces", "li_matvec_join", "li_matvec_chain")


def render(dtype_name: str) -> str:
    """The functions for `dtype_name` ("float32" or "float64")."""
    return _SOURCE.format(ctype=CTYPES[dtype_name], piece=PIECE_ROWS)
