"""Scale: recording and materializing a 100k-node chain, and computing thousands of outputs.

    python benchmarks/scale.py            # li.compute of 1k and 10k outputs; a 100k-node chain
    python benchmarks/scale.py --quick    # 1k outputs only; a 10k-node chain

Arrays are tiny (16 float32), so the figures are the library's own cost per node and per output:
recording, scheduling and the per-op calls of the executor. A cost that grows linearly shows a
10k/1k ratio near 10x; a quadratic one near 100x. It prints; it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np

import lazyinfini as li

SIZE = 16


def chain(length: int) -> None:
    """y = x + 1 + 1 + ...: one pending chain of `length` elementwise nodes, materialized twice
    (the second time the same program shape reuses the cached schedule)."""
    x = li.asarray(np.ones(SIZE, np.float32))
    for _ in range(2):
        gc.collect()  # NOTE: not the collection of the previous case's garbage
        reused = li.inspect.counters.schedules_reused
        started = time.perf_counter()
        y = x
        for _ in range(length):
            y = y + 1
        recorded = time.perf_counter()
        value = np.asarray(y)
        done = time.perf_counter()
        assert value[0] == 1 + length, value[0]
        how = "reused" if li.inspect.counters.schedules_reused > reused else "new"
        record, run = recorded - started, done - recorded
        print(
            f"chain of {length} adds: record {record:7.3f} s ({record / length * 1e6:5.1f} us/node)"
            f", materialize {run:7.3f} s ({run / length * 1e6:5.1f} us/node; {how} schedule)"
        )


def shifted(x, width: int) -> list:
    """x + i for each i: `width` independent outputs reading one input."""
    return [x + i for i in range(width)]


def summed_pairs(x, width: int) -> list:
    """p_i = x * i, then p_i + p_(i+1): each product read by two outputs."""
    products = [x * i for i in range(width)]
    return [products[i] + products[(i + 1) % width] for i in range(width)]


def wide(build, width: int) -> float:
    """Seconds to li.compute `width` outputs made by `build`; prints the breakdown."""
    x = li.asarray(np.ones(SIZE, np.float32))
    gc.collect()
    started = time.perf_counter()
    outputs = build(x, width)
    recorded = time.perf_counter()
    li.compute(*outputs)
    done = time.perf_counter()
    first, last = float(outputs[0][0]), float(outputs[-1][0])  # computed: no new work
    assert (first, last) == EXPECTED[build.__name__](width), (first, last)
    record, run = recorded - started, done - recorded
    print(
        f"li.compute of {width:>6} outputs, {build.__name__:<12}: record {record:7.3f} s, "
        f"compute {run:7.3f} s ({run / width * 1e6:6.1f} us/output)"
    )
    return run


EXPECTED = {  # the first and the last output's value, with x = 1
    "shifted": lambda width: (1.0, float(width)),
    "summed_pairs": lambda width: (1.0, width - 1.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a 10k chain and 1k outputs only")
    args = parser.parse_args()
    widths = (1_000,) if args.quick else (1_000, 10_000)
    for build in (shifted, summed_pairs):
        times = [wide(build, w) for w in widths]
        if len(times) == 2:
            print(f"  {build.__name__}: 10k/1k time ratio {times[1] / times[0]:.1f}x")
    # NOTE: last: the big chain's cached schedule would be freed inside a later case's timing
    chain(10_000 if args.quick else 100_000)


if __name__ == "__main__":
    main()
