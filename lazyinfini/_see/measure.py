"""What a run cost, measured for the explain page: each kernel, the compiler, the host around.

Nothing here slows a run that is not measured. The run loop already times each kernel when
given a list to append to (`realize(timings=...)`); the list given here also notes the clock
at each append, which is when that kernel ended, so the kernels' starts and the host time
between them are known. Compiling is seen where it happens: while measuring, the two functions
that run a compiler (the C compiler's `_render.compile._build`, NVRTC's `_render.nvrtc._compile`;
each new kernel source goes through one of them once, then it is cached) are wrapped to note
when each compile started and ended, and are put back after.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
from dataclasses import dataclass

_clock = time.perf_counter
# (module, function): the functions that run a compiler, one call per new kernel source
COMPILERS = (("lazyinfini._render.compile", "_build"), ("lazyinfini._render.nvrtc", "_compile"))


class _Stopwatch(list):
    """Seconds per kernel, as the run loop appends them; `ends` notes when each came."""

    def __init__(self):
        super().__init__()
        self.ends: list[float] = []

    def append(self, seconds: float) -> None:
        # NOTE: the run loop appends right after a kernel returns (_runtime/run.py's _report)
        self.ends.append(_clock())
        super().append(seconds)


@dataclass(frozen=True)
class Measured:
    """One measured run: the schedule that ran; each kernel's start (from the run's start) and
    time; the compiler's runs (start, end) in it; the run's whole time; and the machine's
    copy bandwidth (bytes/s)."""

    schedule: object
    starts: tuple[float, ...]
    seconds: tuple[float, ...]
    compiles: tuple[tuple[float, float], ...]
    wall: float
    bandwidth: float
    reused: bool  # the run found its schedule in the cache

    @property
    def kernel_time(self) -> float:
        return sum(self.seconds)

    @property
    def host_time(self) -> float:
        """The run's time outside kernels: finding the schedule, the loop, handing back."""
        return max(self.wall - self.kernel_time, 0.0)

    @property
    def compile_time(self) -> float:
        return sum(end - start for start, end in self.compiles)

    @property
    def before(self) -> float:
        """From the call to the first kernel: the schedule (from the cache, or planned), and
        compiling a new schedule's kernels ahead."""
        return self.starts[0] if self.starts else self.wall

    @property
    def after(self) -> float:
        """From the last kernel's end to the run's: the values handed to the arrays."""
        if not self.starts:
            return 0.0
        return max(self.wall - self.starts[-1] - self.seconds[-1], 0.0)

    def compiling(self, start: float, end: float) -> float:
        """The compiler's time between `start` and `end` (seconds from the run's start)."""
        return sum(max(min(b, end) - max(a, start), 0.0) for a, b in self.compiles)

    def running(self, k: int) -> float:
        """Kernel k's time less the compiling it waited for (its first run's compile)."""
        start = self.starts[k]
        return max(self.seconds[k] - self.compiling(start, start + self.seconds[k]), 0.0)

    def rate(self, k: int) -> float:
        """Kernel k's bytes moved (read + written) per second of running."""
        kernel, seconds = self.schedule.kernels[k], self.running(k)
        moved = kernel.bytes_read + kernel.bytes_written
        return moved / seconds if seconds > 0 else 0.0


def measure(arrays) -> Measured | None:
    """Compute `arrays`, measuring the run; None if nothing was pending."""
    from .._counters import counters
    from .._realize import realize
    from .._runtime.machine import copy_bandwidth

    bandwidth = copy_bandwidth()  # NOTE: first: measured once per process, outside the clocks
    reused = counters.schedules_reused
    watch, compiles = _Stopwatch(), []
    with _watching_compilers(compiles):
        started = _clock()
        sched = realize(*arrays, timings=watch)
        wall = _clock() - started
    if sched is None:
        return None
    starts = tuple(end - seconds - started for end, seconds in zip(watch.ends, watch))
    spans = tuple((a - started, b - started) for a, b in compiles)
    reused = counters.schedules_reused > reused
    return Measured(sched, starts, tuple(watch), spans, wall, bandwidth, reused)


@contextlib.contextmanager
def _watching_compilers(spans: list):
    """Note (start, end) in `spans` of every compiler run inside the block.

    NOTE: the wrappers replace module attributes for the block's length: a compile by another
    thread meanwhile is counted too (one materialization runs at a time; compiles are rare).
    """
    real = []
    for module_name, name in COMPILERS:
        module = sys.modules.get(module_name)
        if module is None and module_name.endswith(".compile"):
            module = importlib.import_module(module_name)  # NOTE: loaded with the runtime
        if module is not None:
            real.append((module, name, getattr(module, name)))
            setattr(module, name, _timed(getattr(module, name), spans))
    try:
        yield spans
    finally:
        for module, name, function in real:
            setattr(module, name, function)


def _timed(function, spans: list):
    def timed(*args, **kwargs):
        started = _clock()
        try:
            return function(*args, **kwargs)
        finally:
            spans.append((started, _clock()))

    return timed
