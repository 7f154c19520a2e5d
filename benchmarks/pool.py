"""Mid-size parallel C kernels on either thread pool (issue 23): clip(a - b, 0, 1) in float32.

    python benchmarks/pool.py            # 256K, 1M and 4M elements
    python benchmarks/pool.py --quick    # fewer repeats

lazyinfini runs each kernel on its C thread pool (`_runtime/c_threads.py`) and on Python's
(`_runtime/threads.py`, the pool before it), switched in this process by `c_threads.use_native`,
so both see the same machine; numpy and, where installed, numba's parallel loop run beside
them. Each figure is the median of the timed runs (run.median_times: the functions take turns).
A row also times the C kernel alone (no recording, no scheduling, no allocation) on each pool
and on one thread, which is where the pools differ.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

# NOTE: run as a script, so benchmarks/ is on sys.path
import peers as peer_fns
from run import median_times

import lazyinfini as li
from lazyinfini._runtime import c_threads, compiled


def on_pool(native: bool, fn):
    """fn run with parallel C kernels on the C pool (native) or on Python's."""

    def run():
        before = c_threads.use_native(native)
        try:
            return fn()
        finally:
            c_threads.use_native(before)

    return run


def programs(n: int, peers: dict) -> tuple[dict, np.ndarray]:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n), dtype=np.float32)
    la, lb = li.asarray(a), li.asarray(b)
    lazy = lambda: np.asarray(li.clip(la - lb, 0, 1))  # noqa: E731
    fns = {
        "numpy": lambda: np.clip(a - b, 0, 1),
        "lazyinfini C pool": on_pool(True, lazy),
        "lazyinfini Python pool": on_pool(False, lazy),
    }
    if "numba" in peers:
        kernel = peer_fns.numba_clip_sub(peers["numba"])
        lo, hi = np.float32(0), np.float32(1)
        fns["numba"] = lambda: kernel(a, b, lo, hi, np.empty_like(a))
    expected = np.clip(a - b, 0, 1)
    for name, fn in fns.items():  # NOTE: checked once, outside the timed loop
        assert np.array_equal(np.asarray(fn()), expected), name
    return fns, expected


def kernel_alone(n: int, repeat: int) -> dict[str, float]:
    """The C kernel of clip(a - b, 0, 1) called directly, on each pool and on one thread."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, n), dtype=np.float32)
    out, lo, hi = np.empty_like(a), np.zeros(1, np.float32), np.ones(1, np.float32)
    (kernel,) = li.inspect.schedule(li.clip(li.asarray(a) - li.asarray(b), 0, 1)).kernels
    bases = [x.ctypes.data for x in (out, a, b, lo, hi)]  # outputs, then loads in their order
    fns = {
        "C pool": on_pool(True, lambda: compiled.run_compiled(kernel, bases, True)),
        "Python pool": on_pool(False, lambda: compiled.run_compiled(kernel, bases, True)),
        "one thread": lambda: compiled.run_compiled(kernel, bases, False),
    }
    times = median_times(fns, repeat)
    assert np.array_equal(out, np.clip(a - b, 0, 1))
    return times


def report(n: int, times: dict[str, float], alone: dict[str, float]) -> None:
    ours, old = times["lazyinfini C pool"], times["lazyinfini Python pool"]
    row = "  ".join(f"{k} {v * 1e6:8.1f} us" for k, v in times.items())
    peer = f"  C pool/numba {ours / times['numba']:4.2f}" if "numba" in times else ""
    print(f"clip(a - b, 0, 1) f32 {n >> 10:>5}K: {row}  Python/C pool x{old / ours:4.2f}{peer}")
    kernel = "  ".join(f"{k} {v * 1e6:8.1f} us" for k, v in alone.items())
    ratio = alone["Python pool"] / alone["C pool"]
    print(f"{'':>29}kernel alone: {kernel}  Python/C pool x{ratio:4.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    peers = {k: v for k, v in peer_fns.optional_peers().items() if k == "numba"}
    if not peers:
        print("numba is not installed: no numba column")
    started = time.perf_counter()
    for n in (1 << 18, 1 << 20, 1 << 22):
        repeat = (20 if args.quick else 100) if n < 1 << 22 else (10 if args.quick else 40)
        fns, _ = programs(n, peers)
        report(n, median_times(fns, repeat, rounds=3), kernel_alone(n, repeat))
    print(f"C pool counters: {c_threads.stats()}  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
