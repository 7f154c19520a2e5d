"""lazyinfini's dask device against hand-written dask, in one run (threads scheduler).

    python benchmarks/dask_run.py            # 64M float32 elements in 8M-element chunks
    python benchmarks/dask_run.py --quick    # 4M elements, for a smoke test

Rows: clip(a - b, 0, 1) on chunks already in memory, as lazyinfini on the dask device (one
blockwise layer running its fused program), as a hand-written `da.map_blocks` of the same fused
numpy function, and as dask's own `da.clip(x - y, 0, 1)`; then the fixed cost of materializing
a small program on the dask device. Each figure is the median of several runs, each function's
runs back to back.
"""

from __future__ import annotations

import argparse
import statistics
import time

import dask
import dask.array as da
import numpy as np

import lazyinfini as li


def median_ms(fn, repeat: int) -> float:
    fn()  # warm up: the threads, the schedule cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def fused_clip_sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """What a dask user writes by hand: one fused pass per chunk, no temporaries beyond one."""
    out = np.subtract(a, b)
    return np.clip(out, 0, 1, out=out)


def clip_rows(n: int, chunk: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    x = da.from_array(rng.standard_normal(n, dtype=np.float32), chunks=chunk).persist()
    y = da.from_array(rng.standard_normal(n, dtype=np.float32), chunks=chunk).persist()
    lx, ly = li.from_dask(x), li.from_dask(y)
    with li.options(device="dask"):
        ours = median_ms(lambda: np.asarray(li.clip(lx - ly, 0, 1)), repeat)
    by_hand = median_ms(lambda: da.map_blocks(fused_clip_sub, x, y).compute(), repeat)
    dasks = median_ms(lambda: da.clip(x - y, 0, 1).compute(), repeat)
    chunks = len(x.chunks[0])
    print(f"clip(a - b, 0, 1) float32 {n / 2**20:.0f}M in {chunks} chunks:")
    print(f"  lazyinfini (dask device) {ours:8.2f} ms")
    print(f"  da.map_blocks, fused     {by_hand:8.2f} ms   lazyinfini/this {ours / by_hand:.2f}")
    print(f"  da.clip(x - y, 0, 1)     {dasks:8.2f} ms   lazyinfini/this {ours / dasks:.2f}")


def fixed_cost(repeat: int) -> None:
    x = da.from_array(np.ones(1024, np.float32), chunks=512).persist()
    lx = li.from_dask(x)
    with li.options(device="dask"):
        ours = median_ms(lambda: np.asarray(li.clip(lx - 1, 0, 1)), repeat)
    plain = median_ms(lambda: da.clip(x - 1, 0, 1).compute(), repeat)
    print(f"fixed cost, 1K float32 in 2 chunks: lazyinfini {ours:.2f} ms, dask {plain:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    quick = parser.parse_args().quick
    with dask.config.set(scheduler="threads"):
        clip_rows(1 << (22 if quick else 26), 1 << (20 if quick else 23), 3 if quick else 9)
        fixed_cost(20 if quick else 200)


if __name__ == "__main__":
    main()
