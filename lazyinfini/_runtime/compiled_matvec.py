"""The cpu's C path for large matrix-vector products: an opaque MATMUL kernel of a 2-D and a 1-D
operand, float32 or float64, whose matrix is laid out by rows or by columns (`X @ w`,
`X.T @ e`, `e @ X`), of at least MIN_BYTES with rows of at most MAX_COLS values. Anything else
calls numpy's matmul.

The source is _render/matvec.py's, one library per dtype, compiled at first use (the disk
cache keeps it). Its bits depend on the shapes alone, never on the threads: y = A v sums each row
whole on one thread, y = A^T v sums fixed pieces of rows, then joins them in order. They differ
from BLAS's in the last bits, as one BLAS's differ from another's (tests compare products within
a tolerance derived from the sizes).
"""

from __future__ import annotations

import ctypes
import functools
import math

import numpy as np

from .._counters import counters
from .._graph import Op
from .._render import c, matvec
from .._render.compile import CompileError, load, typed
from .._schedule.target import Target
from .compiled import CALL_ARGTYPES, Layout, address, run_call
from .machine import last_level_cache
from .memo import Memo

# Where the C path runs: a matrix larger than the last-level cache whose contiguous rows hold at
# most MAX_COLS elements (a data matrix: many samples, few features). Measured against numpy's
# call (OpenBLAS, 2 threads) in separate processes on this 2-core VM, float64 A v and A^T e:
# (200000, 64) 10.2 and 14.0 ms -> 6.8 and 7.6; (500000, 16) 6.1 and 7.8 -> 5.0 and 4.7;
# (100000, 256) 16.3 and 20.1 -> 12.2 and 12.5; float32 (400000, 128) 22.0 and 28.9 -> 14.6
# and 14.0. BLAS stays ahead on wide rows ((16384, 1024): 7.8 -> 8.4 and 9.8 ms) and on
# matrices in cache ((4096, 256): 0.17 -> 0.36 ms), where it reads at cache speed.
MIN_BYTES = last_level_cache()
MAX_COLS = 256
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def plan_of(kernel, target: Target) -> int | None:
    """Which input of an opaque kernel is the matrix of a matrix-vector product C computes (0:
    `x1 @ v`, 1: `v @ x2`), or None (the library's matmul runs it), worked out once per
    kernel. A target compiling every kernel (compile_min 0: CI's second run) computes every
    product of a float matrix and vector in C."""
    found = _PLANS.get(kernel, _UNSET)
    if found is _UNSET:
        found = _PLANS[kernel] = _plan(kernel, target.compile_min == 0)
    return found


_PLANS = Memo()
_UNSET = object()


def _plan(kernel, every: bool) -> int | None:
    (node,) = kernel.nodes if len(kernel.nodes) == 1 else (None,)
    if node is None or node.op is not Op.MATMUL or len(kernel.loads) != 2:
        return None
    x1, x2 = kernel.loads
    if node.dtype not in _DTYPES or x1.node.dtype != node.dtype or x2.node.dtype != node.dtype:
        return None
    shapes = (len(x1.shape), len(x2.shape))
    if shapes not in ((2, 1), (1, 2)):
        return None
    matrix = 0 if shapes == (2, 1) else 1
    load = kernel.loads[matrix]
    by_rows = rows_of(load.shape, load.strides, node.dtype.itemsize)
    if by_rows is None:
        return None
    if every:
        return matrix
    small = math.prod(load.shape) * node.dtype.itemsize < MIN_BYTES
    return None if small or load.shape[1 if by_rows else 0] > MAX_COLS else matrix


def rows_of(shape, strides, itemsize: int) -> bool | None:
    """True where a 2-D layout's rows are contiguous, False where its columns are (it is the
    transpose of such a matrix), None otherwise (negative or overlapping strides)."""
    if strides[1] == itemsize and strides[0] >= shape[1] * itemsize:
        return True
    if strides[0] == itemsize and strides[1] >= shape[0] * itemsize:
        return False
    return None


def run(matrix_at: int, x1: np.ndarray, x2: np.ndarray, parallel: bool) -> np.ndarray:
    """x1 @ x2, where input `matrix_at` is the matrix (plan_of) and the other the vector: the
    product reads the rows of A (y = A v) or weighs them (y = A^T v), A being the matrix or
    its transpose, whichever has contiguous rows."""
    matrix, vector = (x1, x2) if matrix_at == 0 else (x2, x1)
    rows_first = rows_of(matrix.shape, matrix.strides, matrix.itemsize)
    if rows_first is None:  # NOTE: another layout than the one planned: numpy's call
        return np.matmul(x1, x2)
    # x1 @ v reads the rows of A = x1; v @ x2 weighs the rows of A = x2
    transposed = rows_first == (matrix_at == 1)
    a = matrix if rows_first else matrix.T
    functions = matvec_functions(a.dtype)
    if functions is None:  # NOTE: no compiler, or its build failed: numpy's call
        counters.c_fallbacks += 1
        return np.matmul(x1, x2)
    vector = np.ascontiguousarray(vector)  # NOTE: a strided column (X[:, 0]) is one copy
    out = np.empty(a.shape[1] if transposed else a.shape[0], a.dtype)
    counters.c_matvecs += 1
    if not out.size:
        return out
    if not a.shape[1]:  # NOTE: empty rows: every dot product is 0
        out[...] = 0
        return out
    if not transposed:
        layout = call_layout(a.shape, a.strides[0], a.shape[0])
        run_call(functions[0], layout, [address(out), address(a), address(vector)], parallel)
        return out
    pieces = -(-a.shape[0] // matvec.PIECE_ROWS)
    parts = np.empty((pieces, a.shape[1]), a.dtype)
    layout = call_layout(a.shape, a.strides[0], pieces)
    run_call(functions[1], layout, [address(parts), address(a), address(vector)], parallel)
    joined = call_layout(parts.shape, parts.strides[0], a.shape[1])
    run_call(functions[2], joined, [address(out), address(parts)], False)
    return out


def call_layout(shape: tuple[int, int], row_stride: int, total: int) -> Layout:
    return Layout(
        (ctypes.c_int64 * 2)(*shape),
        (ctypes.c_int64 * 2)(row_stride, 0),
        _NO_LOOPS,
        (0, 0, 0),
        total,
        1,
    )


_NO_LOOPS = (ctypes.c_void_p * 1)()


@functools.cache
def matvec_functions(dtype: np.dtype) -> tuple | None:
    """The three loaded functions for `dtype` (rows, pieces, join), compiled at first use; None
    where no compiler runs or the build failed (kept: numpy's call from then on)."""
    try:
        library = load(c.PRELUDE + matvec.render(dtype.name))
        return tuple(typed(library, name, CALL_ARGTYPES) for name in matvec.FUNCTIONS)
    except CompileError:
        return None
