"""lazyinfini against numpy and, where installed, numexpr, numba, torch and jax, in one run.

    python benchmarks/run.py            # the full table (a few minutes on 2 cores)
    python benchmarks/run.py --quick    # smaller sizes, for a smoke test
    python benchmarks/run.py --only clip channel   # only the rows named so (--help lists them)

Each figure is the median of several runs, measured side by side in this process. lazyinfini's
time includes recording the graph and scheduling it. GB/s counts bytes read + written once; the
percentage is of this machine's memory bandwidth, measured here as STREAM measures it (all threads,
non-temporal stores, the best of its copy and add kernels; same units): a row reads above 100 %
only where its arrays sit in cache. The peers' code is
in peers.py; each peer's result is checked once against numpy's, and a peer that disagrees is
left out of the row (with a line saying why).
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

import ml_dtypes
import numpy as np

# NOTE: run as a script, so benchmarks/ is on sys.path: the peers' versions of each workload
import peers as peer_fns

import lazyinfini as li
from lazyinfini._runtime.machine import copy_bandwidth, stream_bandwidth


def median_times(fns: dict, repeat: int, rounds: int = 2) -> dict[str, float]:
    """Median seconds of each function. Each runs its repeats back to back, after one warm-up
    run (a peer's thread pool left spinning by its last call slows whatever runs next: torch's
    and numba's did, measured here), and the functions take turns in `rounds` rounds, so that
    all see the same machine state: caches, the allocator's free lists, other load."""
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            fn()  # warm up: page in, caches, thread pool
            for _ in range(repeat):
                started = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) for name, t in times.items()}


class Table:
    def __init__(self, bandwidth: float):
        self.bandwidth = bandwidth
        self.rows = []

    def add(self, name: str, nbytes: int, times: dict[str, float]):
        self.rows.append((name, nbytes, times))
        base, ours = times["numpy"], times["lazyinfini"]
        rate = nbytes / ours
        others = {k: v for k, v in times.items() if k not in ("numpy", "lazyinfini")}
        peers = "  ".join(f"{k} {v * 1e3:.2f} ms" for k, v in others.items())
        best = min(others.items(), key=lambda kv: kv[1], default=("numpy", base))
        best = best if best[1] < base else ("numpy", base)
        print(
            f"{name:<42} numpy {base * 1e3:9.2f} ms  lazyinfini {ours * 1e3:9.2f} ms  "
            f"x{base / ours:5.2f}  {rate / 1e9:6.2f} GB/s ({100 * rate / self.bandwidth:3.0f}%)"
            f"  best peer {best[0]}: lazyinfini/peer {ours / best[1]:4.2f}  {peers}",
            flush=True,
        )


def clip_sub(table, n: int, dtype, repeat: int, peers) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32).astype(dtype)
    b = rng.standard_normal(n, dtype=np.float32).astype(dtype)
    la, lb = li.asarray(a), li.asarray(b)
    out = np.empty_like(a)
    fns = {
        "numpy": lambda: np.clip(a - b, -0.5, 0.5),
        "lazyinfini": lambda: np.asarray(li.clip(la - lb, -0.5, 0.5)),
        # numpy's best case: no allocation at all (what the output pool gives lazyinfini)
        "numpy out=": lambda: np.clip(np.subtract(a, b, out=out), -0.5, 0.5, out=out),
    }
    fns.update(peer_fns.clip_sub(peers, a, b))
    times = median_times(peer_fns.agreeing(fns, dtype), repeat)
    name = f"clip(a - b) {np.dtype(dtype).name} {n / 2**20:.0f}M"
    table.add(name, 3 * a.nbytes, times)


def channel_sub_clip(table, repeat: int, peers, shape=(32, 64, 56, 56)) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape, dtype=np.float32)
    m = rng.standard_normal((1, shape[1], 1, 1), dtype=np.float32)
    lx, lm = li.asarray(x), li.asarray(m)
    fns = {
        "numpy": lambda: np.clip(x - m, 0, 1),
        "lazyinfini": lambda: np.asarray(li.clip(lx - lm, 0, 1)),
    }
    fns.update(peer_fns.channel_sub_clip(peers, x, m))
    times = median_times(peer_fns.agreeing(fns), repeat)
    table.add(f"clip(x - mean) {shape} - (1,C,1,1) f32", 2 * x.nbytes, times)


def clip_transposed_sub(table, side: int, repeat: int, peers) -> None:
    """clip(aᵀ - b): an elementwise op that reads one operand across its rows, so the fused
    kernel has to tile like a transpose does."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((side, side), dtype=np.float32)
    b = rng.standard_normal((side, side), dtype=np.float32)
    la, lb = li.asarray(a), li.asarray(b)
    fns = {
        "numpy": lambda: np.clip(a.T - b, -0.5, 0.5),
        "lazyinfini": lambda: np.asarray(li.clip(li.permute_dims(la, (1, 0)) - lb, -0.5, 0.5)),
    }
    fns.update(peer_fns.clip_transposed_sub(peers, a, b))
    times = median_times(peer_fns.agreeing(fns), repeat)
    table.add(f"clip(aᵀ - b) f32 {side}x{side}", 3 * a.nbytes, times)


def _unfused_sums() -> str:
    """The cpu device planning no REDUCE kernel (an elementwise kernel writes the summed value,
    then numpy's sum reads it): how lazyinfini ran these rows before prologues joined sums."""
    import dataclasses

    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._runtime import cpu

    name = "cpu-unfused-sums"
    if name not in DEVICES:
        target = dataclasses.replace(DEVICES["cpu"].target, name=name, reduce_prologues=False)
        register_device(cpu.host_device(name, target))
    return name


def row_sums(table, side: int, repeat: int) -> None:
    """Sums over the last axis of an elementwise value: one REDUCE kernel (the value is never
    written) against the unfused schedule, in the column "li unfused" (its ratio to it is the
    "best peer" figure)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((side, side), dtype=np.float32)
    m = x.max(axis=1, keepdims=True)
    lx, lm = li.asarray(x), li.asarray(m)
    rows = {
        "(x**2).sum(axis=1)": (lambda: (x**2).sum(axis=1), lambda: (lx**2).sum(axis=1)),
        "(x*x).sum(axis=1)": (lambda: (x * x).sum(axis=1), lambda: (lx * lx).sum(axis=1)),
        "exp(x - m).sum(axis=1)": (
            lambda: np.exp(x - m).sum(axis=1),
            lambda: np.exp(lx - lm).sum(axis=1),
        ),
    }
    unfused = _unfused_sums()
    for name, (numpy_fn, lazy_fn) in rows.items():

        def before(lazy_fn=lazy_fn):
            with li.options(device=unfused):
                return np.asarray(lazy_fn())

        fns = {
            "numpy": numpy_fn,
            "lazyinfini": lambda lazy_fn=lazy_fn: np.asarray(lazy_fn()),
            "li unfused": before,
        }
        times = median_times(fns, repeat)
        table.add(f"{name} f32 {side}x{side}", x.nbytes + side * 4, times)


def permute(table, shape, axes, dtype, repeat: int, name: str, peers) -> None:
    rng = np.random.default_rng(2)
    x = (rng.random(shape, dtype=np.float32) * 100).astype(dtype)
    lx = li.asarray(x)
    fns = {
        "numpy": lambda: np.ascontiguousarray(np.transpose(x, axes)),
        "lazyinfini": lambda: np.asarray(li.permute_dims(lx, axes)),
    }
    fns.update(peer_fns.permute(peers, x, axes))
    times = median_times(peer_fns.agreeing(fns), repeat)
    table.add(name, 2 * x.nbytes, times)


def peak_memory(n: int) -> None:
    li.inspect.release_memory()  # NOTE: a pooled output would not count as a new allocation
    a = np.ones(n, np.float32)
    b = np.ones(n, np.float32)
    la, lb = li.asarray(a), li.asarray(b)
    for label, fn in (
        ("numpy", lambda: np.clip(a - b, -0.5, 0.5)),
        ("lazyinfini", lambda: np.asarray(li.clip(la - lb, -0.5, 0.5))),
    ):
        tracemalloc.start()
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        extra = peak - out.nbytes
        print(
            f"peak memory clip(a - b) {n / 2**20:.0f}M f32, {label:<10}: output "
            f"{out.nbytes / 2**20:.0f} MiB + {extra / 2**20:.1f} MiB beyond inputs and output"
        )
        del out


def recording_overhead(count: int = 20000) -> None:
    a = li.ones((8, 8), dtype=li.float32)
    started = time.perf_counter()
    y = a
    for _ in range(count):
        y = a - a
    per_sub = (time.perf_counter() - started) / count
    started = time.perf_counter()
    for _ in range(count):
        y = li.clip(a, 0.0, 1.0)
    per_clip = (time.perf_counter() - started) / count
    small = np.ones((8, 8), np.float32)
    started = time.perf_counter()
    for _ in range(count):
        z = small - small
    per_numpy = (time.perf_counter() - started) / count
    del y, z
    print(
        f"recording overhead: subtract {per_sub * 1e6:.2f} us/op, clip with scalars "
        f"{per_clip * 1e6:.2f} us/op (numpy eager 8x8 subtract {per_numpy * 1e6:.2f} us)"
    )


def small_arrays(repeat: int = 2000) -> None:
    """The fixed cost of one materialization, where numpy's eager call is almost free."""
    a = np.ones(1024, np.float32)
    la = li.asarray(a)
    times = median_times(
        {
            "numpy": lambda: np.clip(a - a, -0.5, 0.5),
            "lazyinfini": lambda: np.asarray(li.clip(la - la, -0.5, 0.5)),
        },
        repeat,
    )
    print(
        f"fixed cost, clip(a - b) of 1K float32: numpy {times['numpy'] * 1e6:.1f} us, "
        f"lazyinfini {times['lazyinfini'] * 1e6:.1f} us (recording, a cached schedule, one kernel)"
    )


ROWS = ("clip", "half", "channel", "transposed", "sums", "permute", "fixed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--only", nargs="+", choices=ROWS, default=ROWS, help="rows to run")
    args = parser.parse_args()
    quick, only = args.quick, set(args.only)
    repeat = 3 if quick else 9
    bandwidth = copy_bandwidth()
    rates = ", ".join(f"{name} {rate / 1e9:.1f}" for name, rate in stream_bandwidth().items())
    print(f"memory bandwidth (STREAM: all threads, non-temporal stores; GB/s): {rates}\n")
    peers = peer_fns.optional_peers()
    table = Table(bandwidth)
    if "clip" in only:
        for n in (1 << 20, 1 << 22) if quick else (1 << 20, 1 << 24, 1 << 26):
            clip_sub(table, n, np.float32, repeat, peers)
    if "half" in only:
        half = 1 << (20 if quick else 24)
        clip_sub(table, half, np.float16, repeat, peers)
        clip_sub(table, half, ml_dtypes.bfloat16, repeat, peers)
    if "channel" in only:
        channel_sub_clip(table, repeat, peers, (4, 64, 56, 56) if quick else (32, 64, 56, 56))
    if "transposed" in only:
        clip_transposed_sub(table, 1024 if quick else 4096, repeat, peers)
    if "sums" in only:
        row_sums(table, 1024 if quick else 4096, repeat)
    if "permute" in only:
        permutes(table, quick, repeat, peers)
    if "fixed" in only:
        print()
        peak_memory(1 << (22 if quick else 24))
        recording_overhead(2000 if quick else 20000)
        small_arrays(200 if quick else 2000)
        print("fixed costs against torch, jax, scikit-learn: python benchmarks/fixed_costs.py")


def permutes(table, quick: bool, repeat: int, peers) -> None:
    side = 2048 if quick else 8192
    permute(table, (side, side), (1, 0), np.float32, repeat, f"transpose {side}x{side} f32", peers)
    nchw = (4, 64, 56, 56) if quick else (32, 64, 56, 56)
    permute(table, nchw, (0, 2, 3, 1), np.float32, repeat, f"NCHW->NHWC {nchw} f32", peers)
    img = (2, 3, 512, 512) if quick else (8, 3, 1024, 1024)
    permute(table, img, (0, 2, 3, 1), np.float32, repeat, f"NCHW->NHWC {img} f32", peers)
    permute(table, img, (0, 2, 3, 1), np.uint8, repeat, f"NCHW->NHWC {img} uint8", peers)


if __name__ == "__main__":
    main()
