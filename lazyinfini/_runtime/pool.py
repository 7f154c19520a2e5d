"""Output memory reused between materializations: a small caching allocator.

The first write to a fresh large numpy array takes a page fault per 4 KiB page; on this class of
machine that costs as much time as the fused pass that fills it (DESIGN.md §9). The pool keeps the
buffers the CPU executor allocates and lends one again once nothing outside the pool references
it (its reference count says so), so a loop that materializes, reads and drops arrays of the same
sizes writes into warm memory, as numpy's own temporaries do below malloc's mmap threshold.

Bounded: the memory the pool watches, in use or idle, is at most `li.options(pool_bytes=...)`
(default 1 GiB; 0 turns the pool off), so idle memory stays under it at every moment, also when
arrays are dropped between materializations (the pool hears of no drop; it bounds what could
become idle instead). Beyond the bound the oldest buffers in use are no longer watched: they are
freed as plain numpy memory when their arrays go. A buffer idle for IDLE_RUNS materializations
is freed; at most TRACKED buffers are watched.
`li.inspect.memory_pool()` reports it; `li.inspect.release_memory()` frees the idle buffers.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import threading

import numpy as np

MIN_BYTES = 1 << 18  # smaller buffers come back from malloc's free lists without page faults
TRACKED = 64  # buffers watched at once; the oldest in use stop being watched beyond this
IDLE_RUNS = 32  # materializations an idle buffer waits to be reused before it is freed


def _calibrate() -> int:
    """The reference count `sys.getrefcount(bases[i])` reads when only the pool holds it."""
    probe = [np.empty(1, np.uint8)]
    return sys.getrefcount(probe[0])


_IDLE_REFS = _calibrate()


@dataclasses.dataclass
class PoolStats:
    tracked: int  # buffers the pool watches
    in_use_bytes: int  # of those, referenced by arrays
    idle_bytes: int  # kept for reuse
    reused: int  # allocations served from idle buffers since the start
    allocated: int  # allocations that took fresh memory


class Pool:
    def __init__(self):
        self._bases: list[np.ndarray] = []  # uint8 owners, least recently lent first
        self._lent_at: list[int] = []  # the materialization each was last lent in
        self._bytes = 0  # of all the buffers watched (<= the limit): idle memory cannot be more
        self._runs = 0
        self._lock = threading.Lock()
        self.reused = 0
        self.allocated = 0

    def empty(self, shape: tuple[int, ...], dtype, limit: int) -> np.ndarray:
        """An uninitialized array; from an idle buffer of the same size when there is one."""
        dtype = np.dtype(dtype)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > limit or nbytes < MIN_BYTES:
            return np.empty(shape, dtype)
        with self._lock:
            base = self._reuse(nbytes)
            if base is None:
                self._trim(limit - nbytes)
                base = np.empty(nbytes, np.uint8)
                self.allocated += 1
                self._bytes += nbytes
            self._bases.append(base)
            self._lent_at.append(self._runs)
        return base.view(dtype).reshape(shape)

    def tick(self, limit: int) -> None:
        """One materialization ended: keep idle memory within `limit` (arrays dropped since the
        last run count now), and free buffers idle for IDLE_RUNS runs."""
        # NOTE: no lock to count (realize() runs one materialization at a time), nor in the
        # common case, every run: the lock only for a trim or a sweep
        self._runs += 1
        if self._bytes <= limit and self._runs % IDLE_RUNS:
            return
        with self._lock:
            if self._bytes > limit:
                self._trim(limit)
            if self._runs % IDLE_RUNS == 0:  # NOTE: a sweep every IDLE_RUNS runs, not each run
                self._drop(lambda i: self._runs - self._lent_at[i] >= IDLE_RUNS)

    def release(self) -> int:
        """Free every idle buffer; returns the bytes freed."""
        with self._lock:
            return self._drop(lambda i: True)

    def stats(self) -> PoolStats:
        with self._lock:
            idle = [self._idle(i) for i in range(len(self._bases))]
            sizes = [b.nbytes for b in self._bases]
            return PoolStats(
                tracked=len(sizes),
                in_use_bytes=sum(s for s, free in zip(sizes, idle) if not free),
                idle_bytes=sum(s for s, free in zip(sizes, idle) if free),
                reused=self.reused,
                allocated=self.allocated,
            )

    def _idle(self, i: int) -> bool:
        return sys.getrefcount(self._bases[i]) == _IDLE_REFS

    def _reuse(self, nbytes: int) -> np.ndarray | None:
        for i in range(len(self._bases) - 1, -1, -1):  # the most recently used first: warm
            if self._bases[i].nbytes == nbytes and self._idle(i):
                self.reused += 1
                del self._lent_at[i]
                return self._bases.pop(i)
        return None

    def _trim(self, room: int) -> None:
        """Keep the bytes watched within `room` and the buffers watched under TRACKED: idle
        buffers are freed first, least recently lent first; then the oldest in use are simply no
        longer watched."""
        idle = [i for i in range(len(self._bases)) if self._idle(i)]
        busy = sorted(set(range(len(self._bases))) - set(idle))
        total, count = self._bytes, len(self._bases)
        drop = set()
        for i in idle + busy:
            if total <= room and count < TRACKED:
                break
            drop.add(i)
            total -= self._bases[i].nbytes
            count -= 1
        if drop:
            self._keep(lambda i: i not in drop)

    def _drop(self, condition) -> int:
        freed = [i for i in range(len(self._bases)) if self._idle(i) and condition(i)]
        nbytes = sum(self._bases[i].nbytes for i in freed)
        gone = set(freed)
        self._keep(lambda i: i not in gone)
        return nbytes

    def _keep(self, condition) -> None:
        kept = [i for i in range(len(self._bases)) if condition(i)]
        self._bases = [self._bases[i] for i in kept]
        self._lent_at = [self._lent_at[i] for i in kept]
        self._bytes = sum(b.nbytes for b in self._bases)


POOL = Pool()
