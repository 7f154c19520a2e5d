"""What this machine can do: its copy bandwidth, measured once, for GB/s figures."""

from __future__ import annotations

import functools
import time

import numpy as np

from .threads import THREADS, run_parallel


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
