"""numpy scripts, unchanged, on lazyinfini arrays against the same scripts on ndarrays (#23).

    python benchmarks/scripts.py            # every script at a small and a large size
    python benchmarks/scripts.py --quick    # fewer repeats, small sizes only (a smoke test)
    python benchmarks/scripts.py --jax      # JAX's numpy (jax.numpy on jax arrays) too

Every script of examples/numpy_scripts/ runs as a data scientist runs it: numpy's functions,
ndarray methods and operators, on ndarrays and on `li.asarray` of the same ndarrays, every output
materialized (`np.asarray` of each result) inside the timed call. Best of 5 after a warm-up (the
warm-up compiles and caches: a script's loop pays that once), measured side by side in this
process. Prints li / numpy per script and size, and the geometric means (the issue's targets:
at most 3x numpy at small sizes, geometric mean at most 2x; below 1x at large sizes, geometric
mean at most 0.6).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))  # NOTE: examples/

import lazyinfini as li  # noqa: E402
from examples import numpy_scripts as scripts  # noqa: E402


def _blobs(rng, n: int, scale: float = 0.5) -> np.ndarray:
    centres = np.array([[0.0, 0.0], [3.0, 3.0], [0.0, 4.0]])
    return np.concatenate([c + scale * rng.standard_normal((n, 2)) for c in centres])


def _mlp(rng, n: int, sizes) -> tuple:
    params = {}
    for i, (d_in, d_out) in enumerate(sizes, 1):
        params[f"w{i}"] = (rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)).astype(np.float32)
        params[f"b{i}"] = (rng.standard_normal(d_out) * 0.1).astype(np.float32)
    return rng.standard_normal((n, sizes[0][0])).astype(np.float32), params


def cases(size: str) -> list[tuple]:
    """(name, script, args) at `size`: "small" (the tests' inputs) or "large" (realistic)."""
    rng = np.random.default_rng(0)
    small = size == "small"
    n_img = (4, 3, 8, 8) if small else (64, 3, 224, 224)
    logits_n, classes = (8, 5) if small else (8192, 1000)
    series_t = 40 if small else 2_000_000
    blob_n = 20 if small else 20_000
    refs, queries = (30, 6) if small else (3000, 2000)
    image = (16, 16) if small else (2048, 2048)
    rows, cols = (40, 6) if small else (200_000, 64)
    mlp_sizes = [(6, 16), (16, 8), (8, 4)] if small else [(256, 512), (512, 256), (256, 10)]
    x, params = _mlp(rng, 10 if small else 8192, mlp_sizes)
    points = _blobs(rng, blob_n)
    return [
        ("normalize_images", scripts.normalize_images,
         ((rng.standard_normal(n_img) * 2 + 1).astype(np.float32),)),
        ("softmax_cross_entropy", scripts.softmax_cross_entropy,
         ((rng.standard_normal((logits_n, classes)) * 3).astype(np.float32),
          rng.integers(0, classes, logits_n))),
        ("mlp_forward", scripts.mlp_forward, (x, params)),
        ("rolling_zscore", scripts.rolling_zscore,
         (rng.standard_normal((series_t, 3)).cumsum(axis=0), 5 if small else 50)),
        ("nearest_neighbours", scripts.nearest_neighbours,
         (rng.standard_normal((queries, 2)), rng.standard_normal((refs, 2)),
          rng.integers(0, 3, refs))),
        ("kmeans", scripts.kmeans, (points, points[[0, blob_n, 2 * blob_n]] + 0.3)),
        ("kmeans_onehot", scripts.kmeans_onehot, (points, points[[0, blob_n, 2 * blob_n]] + 0.3)),
        ("equalize_histogram", scripts.equalize_histogram,
         (np.clip(rng.normal(100, 20, image), 0, 255).astype(np.uint8),)),
        ("equalize_histogram_interp", scripts.equalize_histogram_interp,
         (np.clip(rng.normal(100, 20, image), 0, 255).astype(np.uint8),)),
        ("in_place_updates", scripts.in_place_updates, (rng.standard_normal((rows, cols)),)),
        ("shrunk_covariance", scripts.shrunk_covariance, (rng.standard_normal((rows, cols)),)),
        ("pca", scripts.pca, (rng.standard_normal((rows, cols)),)),
        ("linear_regression", scripts.fit_linear_regression,
         (rng.standard_normal((rows, cols)), rng.standard_normal(rows))),
        ("moving_average", scripts.moving_average, (rng.standard_normal(series_t),)),
    ]  # fmt: skip


def _lazy(value):
    if isinstance(value, np.ndarray):
        return li.asarray(value)
    if isinstance(value, dict):
        return {k: _lazy(v) for k, v in value.items()}
    return value


def _materialized(results) -> None:
    for r in results if isinstance(results, tuple) else (results,):
        if isinstance(r, li.Array):
            np.asarray(r)


def best(fn, repeat: int) -> float:
    fn()  # NOTE: the warm-up (compiles, caches schedules)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def run(size: str, repeat: int, jax) -> list[float]:
    ratios = []
    print(f"\n{size} inputs: best of {repeat}, every output materialized")
    jax_head = "jax/numpy" if jax else ""
    print(f"{'script':<28}{'numpy':>12}{'lazyinfini':>12}{'li/numpy':>10}  {jax_head}")
    for name, script, args in cases(size):
        lazy_args = [_lazy(a) for a in args]
        numpy_s = best(lambda s=script, a=args: s(*a), repeat)
        ours_s = best(lambda s=script, a=lazy_args: _materialized(s(*a)), repeat)
        ratio = ours_s / numpy_s
        ratios.append(ratio)
        extra = ""
        if jax is not None:
            extra = f"{_jax_ratio(jax, script, args, repeat, numpy_s):>10}"
        print(f"{name:<28}{_ms(numpy_s):>12}{_ms(ours_s):>12}{ratio:>9.2f}x  {extra}", flush=True)
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    worst = max(ratios)
    print(f"geometric mean li/numpy {geomean:.2f}x; worst {worst:.2f}x")
    return ratios


def _jax_ratio(jax, script, args, repeat: int, numpy_s: float) -> str:
    """The script through jax.numpy on jax arrays (its numpy functions are not jnp's: only
    scripts whose calls jax arrays answer run), as a ratio to numpy's, or why not."""
    try:
        jax_args = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        seconds = best(lambda: jax.block_until_ready(script(*jax_args)), repeat)
        return f"{seconds / numpy_s:.2f}x"
    except Exception as error:  # noqa: BLE001 (any failure: the script is not JAX's)
        return f"- ({type(error).__name__})"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 repeats")
    parser.add_argument("--jax", action="store_true", help="JAX's numpy too, where installed")
    args = parser.parse_args()
    jax = None
    if args.jax:
        try:
            import jax
        except ImportError:
            print("jax is not installed: its column is left out")
    warnings.simplefilter("ignore", li.NumpyFallbackWarning)
    print(f"lazyinfini on {os.cpu_count()} cores; numpy {np.__version__}")
    run("small", 2 if args.quick else 5, jax)
    if not args.quick:
        run("large", 5, jax)


if __name__ == "__main__":
    main()
