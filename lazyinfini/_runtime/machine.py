"""What this machine can do: its last-level cache (the cpu streams larger outputs), and its copy
bandwidth, measured once, for GB/s figures."""

from __future__ import annotations

import functools
import os
import time

import numpy as np

from .threads import THREADS, run_parallel

FALLBACK_LLC = 32 << 20  # bytes: where neither sysconf nor sysfs says (a large server's L3)
_SYSFS_LLC = "/sys/devices/system/cpu/cpu0/cache/index3/size"


@functools.cache
def last_level_cache() -> int:
    """Bytes of the last-level cache: sysconf's L3 size, else sysfs' ("32768K"), else
    FALLBACK_LLC."""
    try:
        size = os.sysconf("SC_LEVEL3_CACHE_SIZE")
        if size > 0:
            return size
    except (ValueError, OSError):
        pass
    try:
        with open(_SYSFS_LLC) as text:
            value = text.read().strip()
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)
    except (OSError, ValueError, IndexError):
        return FALLBACK_LLC


@functools.cache
def copy_bandwidth() -> float:
    """Bytes per second that a large copy moves (read + write), with all threads: the best of a
    few runs of a 64 MiB copy. Every GB/s figure lazyinfini prints is relative to this."""
    n = 1 << 24  # float32 elements: 64 MiB, far beyond any cache
    src, dst = np.ones(n, np.float32), np.zeros(n, np.float32)
    parts = np.array_split(np.arange(n), THREADS)
    spans = [(int(p[0]), int(p[-1]) + 1) for p in parts if len(p)]

    def copy_part(span):
        np.copyto(dst[span[0] : span[1]], src[span[0] : span[1]])

    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        run_parallel(copy_part, spans)
        best = min(best, time.perf_counter() - started)
    return 2 * src.nbytes / best
