"""lazyinfini's dask device against hand-written dask and dask's own expressions, side by side.

    python benchmarks/dask_run.py                      # every section (~7 minutes here, loaded)
    python benchmarks/dask_run.py --sections threads   # one: threads, processes, chunks, ooc
    python benchmarks/dask_run.py --quick              # small sizes, for a smoke test
    python benchmarks/dask_run.py --fresh-cache        # workers compile into an empty kernel cache
    python benchmarks/dask_run.py --sections chunks --counts 100,10000

Each figure is the median of several runs after one warm-up run. The clip rows' six functions
run in turn, one run of each repeated (on this shared VM a burst of load lands on every column
alike); the other rows' back to back. The columns of a row run in the same process, on the same
cluster.

- threads: clip(a - b, 0, 1) on 64M float32 in 8 chunks already in memory (dask's threads):
  gathered to numpy, and summed to a scalar; as lazyinfini on the dask device (one blockwise
  layer running the kernel's compiled C per block), a hand-written `da.map_blocks` of numpy's
  subtract and clip(out=), and dask's own `da.clip(x - y, 0, 1)`; then the fixed cost of a
  small program.
- processes: the same rows on a distributed.LocalCluster of 2 worker processes (one thread
  each), the inputs persisted on the workers. The first lazyinfini run on the fresh workers
  compiles the kernel (or finds it in the kernel cache): printed apart. So is the map_blocks
  gather with distributed's direct gather of its finalized array (`dask.compute(...,
  direct=True)`), beside lazyinfini's, which gathers each block straight from its worker.
- chunks: sum(clip(exp(x) - 2y, 0, 1) + 1) float64 in 100 and in 10,000 chunks of 1,000.
- ooc: sum(clip(x - y, 0, 1)) over two inputs of 1 GiB each (--quick: 128 MiB), made on the
  workers, through 2 worker processes of 512 MiB each: out of core (the client holds no data;
  ~1.8 GiB of the VM's memory in use at the peak here). Making the inputs (da.linspace) and
  moving chunks between workers take most of it: sum(x + y) alone is printed beside.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time

import dask
import dask.array as da
import numpy as np

import lazyinfini as li


def median_ms(fn, repeat: int) -> float:
    fn()  # warm up: the threads, the schedule cache, the workers' kernels
    return statistics.median(_times(fn, repeat)) * 1e3


def _times(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def side_by_side(fns: dict, repeat: int) -> dict[str, float]:
    """Each function's median in ms, their runs taken in turn (one of each, `repeat` times)
    after one warm-up run each: a burst of load on the machine lands on every column alike."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            times[name] += _times(fn, 1)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def fused_clip_sub(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """What a dask user writes by hand: one fused pass per chunk, no temporaries beyond one."""
    out = np.subtract(a, b)
    return np.clip(out, 0, 1, out=out)


def fused_exp_program(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """clip(exp(a) - 2b, 0, 1) + 1 by hand, in place after the first temporary."""
    out = np.exp(a)
    out -= 2 * b
    np.clip(out, 0, 1, out=out)
    out += 1
    return out


def _row(title: str, ours: float, by_hand: float, own: float | None) -> None:
    line = f"  {title:24s} lazyinfini {ours:9.1f} ms   map_blocks {by_hand:9.1f} ms"
    line += f" ({ours / by_hand:.2f}x)"
    if own is not None:
        line += f"   dask's own {own:9.1f} ms ({ours / own:.2f}x)"
    print(line)


def clip_rows(x: da.Array, y: da.Array, repeat: int) -> dict[str, float]:
    """The gather and sum rows over inputs already persisted where the scheduler runs."""
    lx, ly = li.from_dask(x), li.from_dask(y)

    def ours(total: bool):
        with li.options(device="dask"):
            z = li.clip(lx - ly, 0, 1)
            return float(li.sum(z)) if total else np.asarray(z)

    ms = side_by_side(
        {
            "gather": lambda: ours(False),
            "by_hand": lambda: da.map_blocks(fused_clip_sub, x, y).compute(),
            "own": lambda: da.clip(x - y, 0, 1).compute(),
            "total": lambda: ours(True),
            "by_hand_total": lambda: float(da.map_blocks(fused_clip_sub, x, y).sum()),
            "own_total": lambda: float(da.clip(x - y, 0, 1).sum()),
        },
        repeat,
    )
    print(f"clip(a - b, 0, 1) float32 {x.size / 2**20:.0f}M in {x.npartitions} chunks:")
    _row("gather to numpy", ms["gather"], ms["by_hand"], ms["own"])
    _row("sum to a scalar", ms["total"], ms["by_hand_total"], ms["own_total"])
    return ms


def threads(n: int, chunk: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    with dask.config.set(scheduler="threads"):
        x = da.from_array(rng.standard_normal(n, dtype=np.float32), chunks=chunk).persist()
        y = da.from_array(rng.standard_normal(n, dtype=np.float32), chunks=chunk).persist()
        print("== dask's threads scheduler")
        clip_rows(x, y, repeat)
        fixed_cost(repeat * 10)


def fixed_cost(repeat: int) -> None:
    x = da.from_array(np.ones(1024, np.float32), chunks=512).persist()
    lx = li.from_dask(x)
    with li.options(device="dask"):
        ours = median_ms(lambda: np.asarray(li.clip(lx - 1, 0, 1)), repeat)
    plain = median_ms(lambda: da.clip(x - 1, 0, 1).compute(), repeat)
    print(f"fixed cost, 1K float32 in 2 chunks: lazyinfini {ours:.2f} ms, dask {plain:.2f} ms")


def cluster(**kwargs):
    import distributed

    return distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
        **kwargs,
    )


def processes(n: int, chunk: int, repeat: int) -> None:
    import distributed

    with cluster() as local, distributed.Client(local):
        rng = da.random.default_rng(0)
        x = (rng.random(n, chunks=chunk, dtype=np.float32) * 2 - 1).persist()
        y = (rng.random(n, chunks=chunk, dtype=np.float32) * 2 - 1).persist()
        distributed.wait([x, y])
        print("== a distributed.LocalCluster of 2 worker processes, one thread each")
        lx, ly = li.from_dask(x), li.from_dask(y)
        with li.options(device="dask"):
            # NOTE: each worker imports lazyinfini and compiles (or loads) the kernel
            (first,) = _times(lambda: np.asarray(li.clip(lx - ly, 0, 1)), 1)
        ms = clip_rows(x, y, repeat)
        print(f"  the first lazyinfini gather on the fresh workers: {first * 1e3:.1f} ms")
        direct_rows(x, y, repeat, ms["gather"])


def direct_rows(x: da.Array, y: da.Array, repeat: int, ours: float) -> None:
    """For the record: the map_blocks gather with distributed's direct gather of its one
    finalized array (a user's `dask.compute(..., direct=True)`), timed apart from the table."""
    lx, ly = li.from_dask(x), li.from_dask(y)

    def gathered():
        with li.options(device="dask"):
            return np.asarray(li.clip(lx - ly, 0, 1))

    ms = side_by_side(
        {
            "ours": gathered,
            "direct": lambda: dask.compute(da.map_blocks(fused_clip_sub, x, y), direct=True),
        },
        repeat,
    )
    line = f"  map_blocks with dask.compute(..., direct=True): {ms['direct']:.1f} ms"
    print(f"{line}, lazyinfini beside it {ms['ours']:.1f} ms ({ms['ours'] / ms['direct']:.2f}x)")


def chunks(counts: tuple[int, ...], repeat: int) -> None:
    print("== sum(clip(exp(x) - 2y, 0, 1) + 1) float64 in chunks of 1,000 (threads)")
    with dask.config.set(scheduler="threads"):
        for count in counts:
            chunk_row(count, max(1, repeat if count <= 1000 else repeat // 5))


def chunk_row(count: int, repeat: int) -> None:
    rng = np.random.default_rng(0)
    x = da.from_array(rng.standard_normal(count * 1000), chunks=1000).persist()
    y = da.from_array(rng.standard_normal(count * 1000), chunks=1000).persist()
    lx, ly = li.from_dask(x), li.from_dask(y)
    with li.options(device="dask"):
        ours = median_ms(lambda: float(li.sum(li.clip(li.exp(lx) - 2 * ly, 0, 1) + 1)), repeat)
    by_hand = median_ms(lambda: float(da.map_blocks(fused_exp_program, x, y).sum()), repeat)
    own = median_ms(lambda: float((da.clip(da.exp(x) - 2 * y, 0, 1) + 1).sum()), repeat)
    _row(f"{count:,} chunks", ours, by_hand, own)


def out_of_core(n: int, chunk: int, repeat: int) -> None:
    import distributed

    with cluster(memory_limit="512MiB") as local, distributed.Client(local):
        x = da.linspace(-1, 1, n, chunks=chunk)  # made on the workers, chunk by chunk
        y = da.linspace(1, -1, n, chunks=chunk)
        gib = n * 8 / 2**30
        print(f"== out of core: 2 inputs of {gib:.2f} GiB through 2 workers of 512 MiB")
        lx, ly = li.from_dask(x), li.from_dask(y)

        def ours() -> float:
            with li.options(device="dask"):
                return float(li.sum(li.clip(lx - ly, 0, 1)))

        ms = side_by_side(
            {
                "ours": ours,
                "by_hand": lambda: float(da.map_blocks(fused_clip_sub, x, y).sum()),
                "own": lambda: float(da.clip(x - y, 0, 1).sum()),
                "inputs": lambda: float((x + y).sum()),  # what making the inputs costs
            },
            repeat,
        )
        _row("sum(clip(x - y, 0, 1))", ms["ours"], ms["by_hand"], ms["own"])
        print(f"  making and reading the inputs alone, sum(x + y): {ms['inputs']:.1f} ms")


SECTIONS = ("threads", "processes", "chunks", "ooc")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated")
    parser.add_argument("--fresh-cache", action="store_true", help="an empty kernel cache")
    parser.add_argument("--counts", default="100,10000", help="the chunks section's counts")
    args = parser.parse_args()
    if args.fresh_cache:  # NOTE: before any worker starts: they read it at their first kernel
        os.environ["LAZYINFINI_CACHE_DIR"] = tempfile.mkdtemp(prefix="lazyinfini-kernels-")
    quick = args.quick
    n, chunk, repeat = (1 << 22, 1 << 19, 3) if quick else (1 << 26, 1 << 23, 5)
    sections = args.sections.split(",")
    if "threads" in sections:
        threads(n, chunk, repeat)
    if "processes" in sections:
        processes(n, chunk, repeat)
    if "chunks" in sections:
        chunks((100, 1000) if quick else tuple(int(c) for c in args.counts.split(",")), repeat)
    if "ooc" in sections:
        out_of_core(1 << (24 if quick else 27), 1 << (20 if quick else 22), 1 if quick else 3)


if __name__ == "__main__":
    main()
