"""What this machine can do: its last-level cache (the cpu streams larger outputs), and its memory
bandwidth, measured once as STREAM measures it, for GB/s figures."""

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
    """Bytes of the last-level cache this process can count on: sysconf's L3 size, else
    sysfs' ("32768K"), else FALLBACK_LLC; at most PER_CPU_MAX per CPU it may run on."""
    return min(_reported_llc(), PER_CPU_MAX * _cpus())


# NOTE: a VM is told its host's whole L3: this 2-vCPU VM reads 300 MiB, where numpy's X @ w
# reads a 49 MiB matrix at 47 GB/s and a 98 MiB one at 23 GB/s (memory's speed). Sized by the
# reported cache, a kernel took the in-cache path for data in memory: a gradient step over a
# (200000, 64) matrix kept two BLAS products (median 0.99-1.38x numpy's step in three runs),
# where the matrix-vector chain reads it once (0.81-0.99x). Few CPUs sold have more than
# 32 MiB of L3 a core, so a real cache is seldom cut.
PER_CPU_MAX = 32 << 20


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # NOTE: macOS has no affinity
        return os.cpu_count() or 1


def _reported_llc() -> int:
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


# STREAM's copy (c = a) and add (c = a + b) as C functions of a kernel's signature over a byte
# range [start, stop) (add: of float32 elements), writing with non-temporal stores (c.STREAMING).
_STREAM_SOURCE = """
void li_stream_copy(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
                    const int64_t *strides, void *const *ext) {
    (void)shape, (void)strides, (void)ext;
    li_stream(ptrs[0] + start, ptrs[1] + start, stop - start);
    li_stream_fence();
}
void li_stream_add(int64_t start, int64_t stop, const int64_t *shape, char *const *ptrs,
                   const int64_t *strides, void *const *ext) {
    (void)shape, (void)strides, (void)ext;
    const float *a = (const float *)(ptrs[1] + start), *b = (const float *)(ptrs[2] + start);
    char *c = ptrs[0] + start;
    float block[LI_BLOCK];
    for (int64_t j0 = 0, m = 0; j0 < (stop - start) / 4; j0 += m) {
        m = li_stream_count(c + 4 * j0, (stop - start) / 4 - j0, 4);
        for (int64_t j = 0; j < m; j++) block[j] = a[j0 + j] + b[j0 + j];
        li_stream(c + 4 * j0, (const char *)block, 4 * m);
    }
    li_stream_fence();
}
"""
ROUNDS = 5  # runs of each kernel; the best counts, as STREAM reports


def copy_bandwidth() -> float:
    """Bytes per second (read + written, each once) that memory moves: the best of
    `stream_bandwidth()`'s kernels. Every GB/s figure lazyinfini prints is relative to this, so
    no kernel reads above it."""
    return max(stream_bandwidth().values())


@functools.cache
def stream_bandwidth() -> dict[str, float]:
    """Bytes per second (read + written, each once) of STREAM's copy and add kernels, measured
    the way STREAM does: all threads, non-temporal stores, arrays of 4x the last-level cache
    (64 to 128 MiB each), the best of ROUNDS runs (compiled C on the C pool); without a
    compiler, {"numpy copy": ...} over Python threads (plain stores)."""
    nbytes = min(max(1 << 26, 4 * last_level_cache()), 1 << 27) // 64 * 64
    a, b = np.ones(nbytes // 4, np.float32), np.ones(nbytes // 4, np.float32)
    c = np.zeros_like(a)
    measured = _stream_kernels(a, b, c)
    if measured is None:
        measured = {"numpy copy": (2 * nbytes, _best(lambda: _numpy_copy(a, c)))}
    return {name: moved / seconds for name, (moved, seconds) in measured.items()}


def _stream_kernels(a, b, c) -> dict[str, tuple[int, float]] | None:
    """(bytes moved, best seconds) of STREAM's copy and add in C, run as a compiled kernel's
    call is (compiled.run_call: parts of whole cache lines on the C pool, else Python's
    threads); None where nothing compiles."""
    from .._render import c as dialect
    from .._render.compile import CompileError, load_function
    from .compiled import CALL_ARGTYPES, Layout, address, run_call

    views = [x.view(np.uint8) for x in (c, a, b)]  # NOTE: a call walks bytes here
    layout = Layout.of(views, None, (0, 0, 0), align=64)
    bases = [address(x) for x in views]
    source, found = dialect.PRELUDE + _STREAM_SOURCE, {}
    for name, arrays in (("copy", 2), ("add", 3)):
        try:
            function = load_function(source, f"li_stream_{name}", CALL_ARGTYPES)
        except CompileError:
            return None
        run = functools.partial(run_call, function, layout, bases, True)
        found[name] = (arrays * c.nbytes, _best(run))
    return found


def _numpy_copy(src: np.ndarray, dst: np.ndarray) -> None:
    step = -(-src.size // THREADS)
    spans = [(start, min(start + step, src.size)) for start in range(0, src.size, step)]
    run_parallel(lambda span: np.copyto(dst[span[0] : span[1]], src[span[0] : span[1]]), spans)


def _best(run) -> float:
    """The least seconds of ROUNDS runs of `run` (one more first: pages touched, threads up)."""
    run()
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best
