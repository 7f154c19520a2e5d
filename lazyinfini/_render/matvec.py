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
The functions have the C path's signature (compiled.py's calls): (start, stop, shape, pointers,
strides, numpy's loops), shape = (rows, columns) of A.
"""

from __future__ import annotations

PIECE_ROWS = 512  # rows a piece of A^T v sums: its parts row stays in L1 for up to ~4K columns

_SOURCE = """
typedef {ctype} li_t;

/* y[i] = A[i] . v for the rows i in [start, stop) */
void li_matvec_rows(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                    const int64_t *strides, void *const *ext) {{
    int64_t cols = shape[1], row_stride = strides[0] / (int64_t)sizeof(li_t);
    li_t *y = (li_t *)p[0];
    const li_t *a = (const li_t *)p[1], *v = (const li_t *)p[2];
    for (int64_t i = start; i < stop; i++) {{
        const li_t *row = a + i * row_stride;
        li_t lane[8] = {{0, 0, 0, 0, 0, 0, 0, 0}};
        int64_t k = 0;
        for (; k + 8 <= cols; k += 8)
            for (int l = 0; l < 8; l++) lane[l] += row[k + l] * v[k + l];
        li_t sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
                   ((lane[4] + lane[5]) + (lane[6] + lane[7]));
        for (; k < cols; k++) sum += row[k] * v[k];
        y[i] = sum;
    }}
}}

/* parts[q] = sum over the rows i of piece q of A[i] * v[i], for the pieces in [start, stop) */
void li_matvec_pieces(int64_t start, int64_t stop, const int64_t *shape, char *const *p,
                      const int64_t *strides, void *const *ext) {{
    int64_t rows = shape[0], cols = shape[1], row_stride = strides[0] / (int64_t)sizeof(li_t);
    li_t *parts = (li_t *)p[0];
    const li_t *a = (const li_t *)p[1], *v = (const li_t *)p[2];
    for (int64_t q = start; q < stop; q++) {{
        li_t *sum = parts + q * cols;
        for (int64_t j = 0; j < cols; j++) sum[j] = 0;
        int64_t end = (q + 1) * {piece} < rows ? (q + 1) * {piece} : rows;
        for (int64_t i = q * {piece}; i < end; i++) {{
            const li_t *row = a + i * row_stride;
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
"""

CTYPES = {"float32": "float", "float64": "double"}
FUNCTIONS = ("li_matvec_rows", "li_matvec_pieces", "li_matvec_join")


def render(dtype_name: str) -> str:
    """The three functions for `dtype_name` ("float32" or "float64")."""
    return _SOURCE.format(ctype=CTYPES[dtype_name], piece=PIECE_ROWS)
