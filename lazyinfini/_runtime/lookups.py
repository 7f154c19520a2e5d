"""Two loops over 8- and 16-bit unsigned integers that numpy runs slowly, in C: their histogram
(np.bincount casts the data to intp, a copy eight times its size, then counts) and a lookup in a
1-D table by them (`lut[image]`: numpy's fancy indexing casts and bounds-checks every index).
A uint8 or uint16 index is within a table of 256 or 65536 entries or more, so neither checks.

Both give numpy's result exactly (counts; copies of the table's bytes) and run on the threads
in pieces (counts added after, as integers). Where no compiler runs, the callers run numpy's.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from .._dtypes import LEVELS
from .._render.compile import CompileError, load
from .compiled import address
from .threads import THREADS, run_parallel

SOURCE = r"""
#include <stdint.h>
#include <string.h>

/* Four partial histograms: a run of equal bytes does not wait on one counter's increments. */
void li_count_u8(const uint8_t *x, int64_t n, int64_t *counts) {
    int64_t part[4][256];
    memset(part, 0, sizeof part);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        part[0][x[i]]++;
        part[1][x[i + 1]]++;
        part[2][x[i + 2]]++;
        part[3][x[i + 3]]++;
    }
    for (; i < n; i++) part[0][x[i]]++;
    for (int v = 0; v < 256; v++) counts[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
}

void li_count_u16(const uint16_t *x, int64_t n, int64_t *counts) {
    for (int64_t i = 0; i < n; i++) counts[x[i]]++;
}

#define LI_LOOKUP(NAME, INDEX)                                                              \
void NAME(const INDEX *index, int64_t n, const char *table, int64_t size, char *out) {     \
    switch (size) {                                                                        \
    case 1:                                                                                \
        for (int64_t i = 0; i < n; i++) out[i] = table[index[i]];                         \
        break;                                                                             \
    case 2:                                                                                \
        for (int64_t i = 0; i < n; i++)                                                    \
            ((uint16_t *)out)[i] = ((const uint16_t *)table)[index[i]];                   \
        break;                                                                             \
    case 4:                                                                                \
        for (int64_t i = 0; i < n; i++)                                                    \
            ((uint32_t *)out)[i] = ((const uint32_t *)table)[index[i]];                   \
        break;                                                                             \
    case 8:                                                                                \
        for (int64_t i = 0; i < n; i++)                                                    \
            ((uint64_t *)out)[i] = ((const uint64_t *)table)[index[i]];                   \
        break;                                                                             \
    default:                                                                               \
        for (int64_t i = 0; i < n; i++)                                                    \
            memcpy(out + i * size, table + (int64_t)index[i] * size, (size_t)size);        \
    }                                                                                      \
}
LI_LOOKUP(li_lookup_u8, uint8_t)
LI_LOOKUP(li_lookup_u16, uint16_t)
"""

INDEXES = {np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16"}
PIECE = 1 << 18  # elements a thread takes at least: fewer cost more to start than they save
# NOTE: the C calls' fixed cost (~15 us: the partial counts, ctypes, addresses) exceeds numpy's
# whole loop below ~8K elements (a 16x16 image: 19 us against numpy's 2.5); the callers ask
LEAST = 1 << 13


@functools.cache
def _functions() -> dict | None:
    """The compiled functions, or None where no compiler runs (numpy's loops then)."""
    try:
        library = load(SOURCE)
    except CompileError:
        return None
    found = {}
    for suffix in INDEXES.values():
        count = getattr(library, f"li_count_{suffix}")
        count.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p]
        lookup = getattr(library, f"li_lookup_{suffix}")
        lookup.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_void_p,
            ctypes.c_int64,
            ctypes.c_void_p,
        ]
        count.restype = lookup.restype = None
        found[suffix] = (count, lookup)
    return found


def _pieces(n: int) -> list[tuple[int, int]]:
    """[start, stop) of each thread's piece of n elements (one, (0, 0), when n is 0)."""
    parts = max(1, min(THREADS, n // PIECE))
    step = max(1, -(-n // parts))
    return [(start, min(start + step, n)) for start in range(0, n, step)] or [(0, 0)]


def _run(run, count: int) -> None:
    """run(k) for each piece k, on the threads where there are several."""
    if count > 1:
        run_parallel(run, range(count))
    else:
        run(0)


def bincount(x: np.ndarray, length: int) -> np.ndarray | None:
    """numpy's bincount of uint8/uint16 `x` into `length` bins (every value below it, as the
    recording checked), or None where this does not apply (then numpy's)."""
    suffix = INDEXES.get(x.dtype)
    functions = _functions() if suffix is not None else None
    if functions is None:
        return None
    x = np.ascontiguousarray(x).reshape(-1)
    count = functions[suffix][0]
    pieces = _pieces(x.size)
    parts = np.zeros((len(pieces), LEVELS[x.dtype]), np.int64)
    base, itemsize = address(x), x.itemsize

    def run(k: int) -> None:
        start, stop = pieces[k]
        count(base + start * itemsize, stop - start, address(parts[k]))

    _run(run, len(pieces))
    counts = parts.sum(axis=0)
    if counts[length:].any():
        raise RuntimeError("lazyinfini: internal error: bincount of values past its length")
    out = np.zeros(length, np.int64)
    out[: min(length, counts.size)] = counts[:length]
    return out


def lookup(table: np.ndarray, index: np.ndarray) -> np.ndarray | None:
    """numpy's `table[index]` of a 1-D contiguous `table` of 256 (uint8 index) or 65536
    (uint16) entries or more, or None where this does not apply (then numpy's)."""
    suffix = INDEXES.get(index.dtype)
    if suffix is None or table.ndim != 1 or not table.flags.c_contiguous:
        return None
    if table.shape[0] < LEVELS[index.dtype] or not table.flags.aligned:
        return None
    functions = _functions()
    if functions is None:
        return None
    if not index.flags.c_contiguous:
        index = index.copy(order="C")  # NOTE: not ascontiguousarray, which makes a 0-d 1-d
    out = np.empty(index.shape, table.dtype)
    lookup_in = functions[suffix][1]
    pieces = _pieces(index.size)
    size, at, where, to = table.itemsize, address(table), address(index), address(out)

    def run(k: int) -> None:
        start, stop = pieces[k]
        lookup_in(where + start * index.itemsize, stop - start, at, size, to + start * size)

    if index.size:
        _run(run, len(pieces))
    return out
