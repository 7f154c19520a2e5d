"""The fixed costs of lazyinfini against numpy, torch and jax, in one run (issue #12).

    python benchmarks/fixed_costs.py            # the full table (under a minute on 2 cores)
    python benchmarks/fixed_costs.py --quick    # fewer repeats, for a smoke test

Prints a markdown table of medians, measured side by side in this process (imports and first
runs in fresh subprocesses): recording one op, a cached materialization of a small program,
import time, the first materialization in a fresh process, a loop over a changing Python scalar,
and scikit-learn fits under array API dispatch. "best peer" is the fastest of the row's other
columns (torch, jax, numpy with out=, array_api_strict), named in the notes with all their times.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import traceback

import numpy as np

# NOTE: run as a script, so benchmarks/ is on sys.path
import peers as peer_fns
from run import median_times

import lazyinfini as li

SMALL = 1024  # elements: small enough that the fixed cost is all there is to measure
WANTED = ("torch", "jax")  # the peers each in-process row names, or says are not installed
LDA_ATTRS, GMM_ATTRS = ("coef_", "means_"), ("means_", "weights_")  # compared with numpy's


class Table:
    """Rows of medians in seconds, printed as one markdown table at the end."""

    def __init__(self):
        self.rows = []

    def add(self, name: str, times: dict, note: str = "", missing: tuple = ()):
        ours, base = times.get("lazyinfini"), times.get("numpy")
        others = {k: v for k, v in times.items() if k not in ("lazyinfini", "numpy")}
        best = min(others.items(), key=lambda kv: kv[1], default=None)
        notes = [f"{k} {_fmt(v)}" for k, v in others.items()]
        notes += [f"{p} not installed" for p in missing] + ([note] if note else [])
        self.rows.append(
            (
                name,
                _fmt(ours),
                _fmt(base),
                f"{best[0]} {_fmt(best[1])}" if best else "-",
                _ratio(ours, base),
                _ratio(ours, best[1] if best else None),
                "; ".join(notes),
            )
        )

    def print(self):
        header = ("workload", "lazyinfini", "numpy", "best peer", "li/numpy", "li/peer", "notes")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in self.rows:
            print("| " + " | ".join(row) + " |")


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _ratio(ours: float | None, other: float | None) -> str:
    return f"{ours / other:.2f}" if ours and other else "-"


def _missing(peers: dict) -> tuple:
    return tuple(p for p in WANTED if p not in peers)


def _inputs(n: int = SMALL) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


def record_sub(table: Table, peers: dict, repeat: int) -> None:
    a, b = _inputs()
    la, lb = li.asarray(a), li.asarray(b)
    fns = {"lazyinfini": lambda: la - lb, "numpy": lambda: a - b}
    if "torch" in peers:
        ta, tb = peers["torch"].from_numpy(a), peers["torch"].from_numpy(b)
        fns["torch"] = lambda: ta - tb
    if "jax" in peers:
        ja, jb = peers["jax"].asarray(a), peers["jax"].asarray(b)
        fns["jax"] = lambda: ja - jb  # NOTE: no block_until_ready: jax's dispatch cost only
    times = median_times(peer_fns.agreeing(fns), repeat)
    note = "lazyinfini records only; jax is dispatch only (async)"
    table.add("record `a - b` f32 1K", times, note, _missing(peers))


def record_clip(table: Table, peers: dict, repeat: int) -> None:
    x = _inputs()[0]
    lx = li.asarray(x)
    fns = {"lazyinfini": lambda: li.clip(lx, 0.0, 1.0), "numpy": lambda: np.clip(x, 0.0, 1.0)}
    if "torch" in peers:
        torch = peers["torch"]
        tx = torch.from_numpy(x)
        fns["torch"] = lambda: torch.clamp(tx, 0.0, 1.0)
    if "jax" in peers:
        jnp = peers["jax"]
        jx = jnp.asarray(x)
        fns["jax"] = lambda: jnp.clip(jx, 0.0, 1.0)  # NOTE: dispatch only, as above
    times = median_times(peer_fns.agreeing(fns), repeat)
    note = "lazyinfini records only; jax is dispatch only (async)"
    table.add("record `clip(x, 0, 1)` f32 1K", times, note, _missing(peers))


def materialize_small(table: Table, peers: dict, repeat: int) -> None:
    """End to end: record, find the cached schedule, run one kernel, hand back numpy."""
    a, b = _inputs()
    la, lb = li.asarray(a), li.asarray(b)
    out = np.empty_like(a)
    fns = {
        "lazyinfini": lambda: np.asarray(li.clip(la - lb, 0.0, 1.0)),
        "numpy": lambda: np.clip(a - b, 0.0, 1.0),
        # numpy's best case: no allocation at all
        "numpy out=": lambda: np.clip(np.subtract(a, b, out=out), 0.0, 1.0, out=out),
    }
    if "torch" in peers:
        torch = peers["torch"]
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: torch.clamp(ta - tb, 0.0, 1.0)
    if "jax.jit" in peers:
        jnp = peers["jax"]
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        jitted = peers["jax.jit"](lambda x, y: jnp.clip(x - y, 0.0, 1.0))
        fns["jax.jit"] = lambda: jitted(ja, jb).block_until_ready()
    times = median_times(peer_fns.agreeing(fns), repeat)
    table.add("`asarray(clip(a - b, 0, 1))` f32 1K", times, "cached schedule", _missing(peers))


def import_times(table: Table, runs: int) -> None:
    """`import X` in fresh interpreters, timed inside them (interpreter start-up is the same for
    all), after one discarded run so the page cache and .pyc files are warm."""
    code = "import time; t = time.perf_counter(); import {}; print(time.perf_counter() - t)"
    times, missing = {}, []
    for label, module in (("lazyinfini", "lazyinfini"), ("numpy", "numpy"), *zip(WANTED, WANTED)):
        if importlib.util.find_spec(module) is None:
            missing.append(label)
            continue
        command = [sys.executable, "-c", code.format(module)]
        subprocess.run(command, check=True, capture_output=True)
        found = [float(_output(command)) for _ in range(runs)]
        times[label] = statistics.median(found)
    table.add(f"`import X`, fresh process (median of {runs})", times, _bytecode(), tuple(missing))


def _bytecode() -> str:
    # NOTE: with it set, modules that shipped no .pyc (an editable lazyinfini, here networkx,
    # which lazyinfini imports at its first materialization) compile from source in every process
    return "PYTHONDONTWRITEBYTECODE is set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""


def _output(command: list, env: dict | None = None) -> str:
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip().splitlines()[-1]


# One library's clip(a - b, 0, 1) in a fresh process: its first call, then the median of 10.
# The inputs are made before the clock starts; the import is not timed (see import_times).
FIRST_RUN = """
import statistics, sys, time
import numpy as np
rng = np.random.default_rng(0)
a = rng.standard_normal((4096, 4096), dtype=np.float32)
b = rng.standard_normal((4096, 4096), dtype=np.float32)
lib = sys.argv[1]
if lib == "lazyinfini":
    import lazyinfini as li
    la, lb = li.asarray(a), li.asarray(b)
    fn = lambda: np.asarray(li.clip(la - lb, 0.0, 1.0))
elif lib == "numpy":
    fn = lambda: np.clip(a - b, 0.0, 1.0)
elif lib == "torch":
    import torch
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    fn = lambda: torch.clamp(ta - tb, 0.0, 1.0)
else:
    import jax, jax.numpy as jnp
    ja, jb = jnp.asarray(a), jnp.asarray(b)
    jitted = jax.jit(lambda x, y: jnp.clip(x - y, 0.0, 1.0))
    fn = lambda: jitted(ja, jb).block_until_ready()
t = time.perf_counter(); fn(); first = time.perf_counter() - t
steady = []
for _ in range(10):
    t = time.perf_counter(); fn(); steady.append(time.perf_counter() - t)
print(first, statistics.median(steady))
"""


def first_materialization(table: Table, runs: int) -> None:
    """The first clip(a - b) of 4096² float32 in a fresh process against the steady state; the
    medians of `runs` processes. lazyinfini's kernel cache on disk is warm (one discarded run
    first); a last row times it with an empty cache, so the C compiler runs."""
    libraries = ("lazyinfini", "numpy", "torch", "jax.jit")
    found = {lib: [] for lib in libraries if importlib.util.find_spec(lib.split(".")[0])}
    _first_run("lazyinfini")
    for _ in range(runs):
        for lib in found:
            found[lib].append(_first_run(lib))
    first = {lib: statistics.median(r[0] for r in rs) for lib, rs in found.items()}
    steady = {lib: statistics.median(r[1] for r in rs) for lib, rs in found.items()}
    missing = tuple(lib for lib in libraries if lib not in found)
    table.add("first `clip(a - b)` 4096² f32, fresh process", first, _bytecode(), missing)
    table.add("same, steady state (median of next 10)", steady, "", missing)
    with tempfile.TemporaryDirectory() as empty:
        cold = _first_run("lazyinfini", dict(os.environ, LAZYINFINI_CACHE_DIR=empty))[0]
    table.add("same, first with an empty kernel cache", {"lazyinfini": cold}, "compiles C")


def _first_run(lib: str, env: dict | None = None) -> tuple[float, float]:
    first, steady = _output([sys.executable, "-c", FIRST_RUN, lib], env).split()
    return float(first), float(steady)


def scalar_loop(table: Table, peers: dict, repeat: int) -> None:
    """10 iterations of asarray(x * t), t a Python float never seen before: a schedule cache
    that keyed on the scalar's value would schedule every iteration again."""
    x = _inputs()[0]
    lx = li.asarray(x)
    values = itertools.count()

    def loop(step):
        def run():
            for _ in range(10):
                step(1.0 + next(values) * 1e-3)

        return run

    fns = {"lazyinfini": loop(lambda t: np.asarray(lx * t)), "numpy": loop(lambda t: x * t)}
    if "torch" in peers:
        tx = peers["torch"].from_numpy(x)
        fns["torch"] = loop(lambda t: tx * t)
    if "jax.jit" in peers:
        jx = peers["jax"].asarray(x)
        jitted = peers["jax.jit"](lambda v, t: v * t)  # NOTE: t is traced: no compile per value
        fns["jax.jit"] = loop(lambda t: jitted(jx, t).block_until_ready())
    fns["lazyinfini"]()  # warm up: the first iteration ever schedules; the count is of the next 10
    before = li.inspect.counters.schedules_reused
    fns["lazyinfini"]()
    reused = li.inspect.counters.schedules_reused - before
    # NOTE: no `agreeing` check: every call multiplies by a different t
    times = {k: v / 10 for k, v in median_times(fns, repeat).items()}
    table.add("`asarray(x * t)` f32 1K, per iteration", times, f"reused {reused}/10")


def sklearn_fits(table: Table, repeat: int) -> None:
    """LDA and a Gaussian mixture on (2000, 20) float64: lazyinfini and array_api_strict under
    array API dispatch, plain numpy without it."""
    try:
        import array_api_strict  # noqa: F401
        from sklearn.datasets import make_blobs, make_classification
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        from sklearn.mixture import GaussianMixture
        from threadpoolctl import threadpool_limits
    except ImportError as error:
        table.add("scikit-learn fits", {}, f"skipped: {error}")
        return
    X, y = make_classification(2000, 20, n_informative=10, n_classes=3, random_state=0)
    blobs, _ = make_blobs(2000, 20, centers=3, random_state=0)
    # NOTE: under dispatch y must be in X's namespace: a numpy y fails in unique_counts.
    lda = lambda *d: LinearDiscriminantAnalysis().fit(*d)
    # NOTE: under dispatch GaussianMixture only allows init_params "random"/"random_from_data"
    # (its k-means init is numpy only); all three use the same one, so all fit the same model.
    gmm = dict(n_components=3, random_state=0, init_params="random_from_data")
    mixture = lambda d: GaussianMixture(**gmm).fit(d)
    # NOTE: one BLAS thread: on 2 cores OpenBLAS's spinning threads, against torch's OpenMP pool
    # or any other load, made the same numpy fit vary 100x (10 ms to 1.8 s) between runs here.
    with threadpool_limits(limits=1, user_api="blas"):
        fit_row(table, "LDA fit (2000, 20) f64", lda, (X, y), LDA_ATTRS, repeat)
        fit_row(table, "GaussianMixture fit (2000, 20) f64", mixture, (blobs,), GMM_ATTRS, repeat)


def fit_row(table: Table, name: str, fit, data: tuple, attrs: tuple, repeat: int) -> None:
    import array_api_strict
    import sklearn

    convert = {"lazyinfini": li.asarray, "array_api_strict": array_api_strict.asarray}
    fns = {"numpy": _fitter(sklearn, fit, data, attrs, dispatch=False)}
    for ns, to_ns in convert.items():
        fns[ns] = _fitter(sklearn, fit, tuple(to_ns(d) for d in data), attrs, dispatch=True)
    expected, notes = fns["numpy"](), []
    for ns in convert:
        try:
            got = fns[ns]()
            for attr, g, e in zip(attrs, got, expected):
                if not np.allclose(g, e, rtol=1e-4, atol=1e-8):
                    off = np.abs(g - e).max()
                    notes.append(f"WARNING {ns} {attr} differs from numpy's by {off:.3g}")
        except Exception as error:  # NOTE: a missing feature must not stop the run: report it
            tail = traceback.format_exc().strip().splitlines()[-6:]
            print(f"{name} on {ns} raised {type(error).__name__}:\n  " + "\n  ".join(tail))
            notes.append(f"{ns} FAILED: {type(error).__name__}: {error}")
            del fns[ns]
    table.add(name, median_times(fns, repeat), "; ".join(notes) or "results agree")


def _fitter(sklearn, fit, data: tuple, attrs: tuple, dispatch: bool):
    """A fit, end to end: the fitted attributes come back as numpy arrays, so a lazy result
    that was left pending is computed inside the timed call, as an eager one was."""

    def run():
        with sklearn.config_context(array_api_dispatch=dispatch):
            model = fit(*data)
        return [np.asarray(getattr(model, attr)) for attr in attrs]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and processes")
    quick = parser.parse_args().quick
    # NOTE: scikit-learn refuses array API dispatch unless scipy was imported with this set,
    # and jax imports scipy: so before optional_peers() and every subprocess.
    os.environ["SCIPY_ARRAY_API"] = "1"
    peers = peer_fns.optional_peers()
    table = Table()
    micro = 200 if quick else 2000
    record_sub(table, peers, micro)
    record_clip(table, peers, micro)
    materialize_small(table, peers, micro)
    import_times(table, 3 if quick else 7)
    first_materialization(table, 1 if quick else 3)
    scalar_loop(table, peers, micro // 10)
    sklearn_fits(table, 2 if quick else 5)
    print()
    table.print()


if __name__ == "__main__":
    main()
