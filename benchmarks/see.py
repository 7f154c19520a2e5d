"""How fast the explain page of a big program opens in a browser (issue #25: under 2 s for
10,000 nodes), and what making it costs in Python.

    python benchmarks/see.py                 # a program of ~10,000 nodes, 3 openings
    python benchmarks/see.py --nodes 2000    # another size

Needs headless Chromium (`apt-get install chromium`) and playwright (`pip install playwright`).
Opening = from the request of the file to the first frame painted after its load event (two
animation frames), in a fresh tab each time; the median of the openings is the figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import lazyinfini as li

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
NODES_PER_STEP = 12.3  # what one step of program() records, measured


def program(steps: int):
    """A loop whose every step transposes, subtracts, clips, reduces and broadcasts."""
    rng = np.random.default_rng(0)
    x = li.asarray(rng.standard_normal((64, 64)).astype(np.float32))
    w = li.asarray(rng.standard_normal((64, 64)).astype(np.float32))
    for i in range(steps):
        y = li.clip(li.permute_dims(x, (1, 0)) - w, -1, 1) * 0.5
        x = x + li.sum(y, axis=0) / 64
        if i % 10 == 0:
            x = li.exp(-x * x)
    return x


def make_page(nodes: int, folder: str) -> str:
    started = time.perf_counter()
    x = program(round(nodes / NODES_PER_STEP))
    recorded = time.perf_counter()
    sched = li.inspect.schedule(x)
    planned = time.perf_counter()
    path = li.report(x, os.path.join(folder, "big.html"))
    written = time.perf_counter()
    print(
        f"program: {len(li.graph(x)):,} nodes recorded in {recorded - started:.2f} s; "
        f"{len(sched.kernels):,} kernels planned in {planned - recorded:.2f} s"
    )
    size = os.path.getsize(path) / 2**20
    print(f"page: {size:.1f} MiB written in {written - planned:.2f} s (li.report)")
    return path


def open_times(path: str, repeats: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    times = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=_chromium(), args=ARGS)
        for _ in range(repeats):
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            errors = []
            tab.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            started = time.perf_counter()
            tab.goto("file://" + path, wait_until="load")
            tab.evaluate(PAINTED)
            times.append(time.perf_counter() - started)
            assert not errors, errors
            drawn = tab.locator("#li-dag g.node").count()
            tab.close()
        browser.close()
    print(f"boxes attached at opening: {drawn:,} (the rest arrive as the pane scrolls)")
    return times


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise SystemExit("no chromium: apt-get install chromium")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = make_page(args.nodes, folder)
        times = open_times(path, args.repeats)
    median = statistics.median(times)
    listed = ", ".join(f"{t:.2f}" for t in times)
    verdict = "under" if median < 2.0 else "OVER"
    print(f"opening in headless Chromium: median {median:.2f} s ({listed}); {verdict} 2 s")


if __name__ == "__main__":
    main()
