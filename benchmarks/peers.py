"""The peers of benchmarks/run.py: what a numexpr, torch, jax or numba user writes instead.

Each workload's builder takes the installed peers (`optional_peers()`) and the workload's numpy
inputs and returns {peer name: a function of no arguments}; a peer that is not installed, or has
no version of that workload, is left out. Every function returns its result (torch and jax
arrays convert with np.asarray), so `agreeing` can check it once against numpy before timing.
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

# NOTE: 64x64 float32 tiles: a tile of the input and one of the output (32 KiB together) stay
# in L1 while the inner loop reads one of them across rows.
TILE = 64


def optional_peers() -> dict:
    peers = {}
    try:
        import numexpr

        peers["numexpr"] = numexpr
    except ImportError:
        pass
    try:
        import torch

        peers["torch"] = torch
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        peers["jax"] = jnp
        peers["jax.jit"] = jax.jit
    except ImportError:
        pass
    try:
        import numba

        peers["numba"] = numba
    except ImportError:
        pass
    return peers


def agreeing(fns: dict, dtype=None) -> dict:
    """`fns` less the peers whose result differs from numpy's (in dtype, shape or values), or that
    raise: one call each, outside the timed loop, so a wrong kernel is reported, not timed.
    `dtype` is the one a peer must return, where numpy's own differs (bfloat16 clips to float32)."""
    expected = np.asarray(fns["numpy"]())
    dtype = np.dtype(dtype or expected.dtype)
    kept = {}
    for name, fn in fns.items():
        if name in ("numpy", "lazyinfini"):
            kept[name] = fn
            continue
        try:
            got = np.asarray(fn())
            assert got.dtype == dtype, f"dtype {got.dtype}, expected {dtype}"
            _assert_close(got, expected, dtype)
        except AssertionError as error:
            print(f"  left out {name}: it disagrees with numpy: {_one_line(error)}")
            continue
        except Exception as error:  # NOTE: a peer's bug or missing feature must not stop the run
            print(f"  left out {name}: it raised {type(error).__name__}: {_one_line(error)}")
            continue
        kept[name] = fn
    return kept


def _assert_close(got: np.ndarray, expected: np.ndarray, dtype: np.dtype) -> None:
    try:
        eps = float(ml_dtypes.finfo(dtype).eps)  # NOTE: np.finfo does not know bfloat16
    except ValueError:  # not a float: a copy or permute must be exact
        np.testing.assert_array_equal(got, expected)
        return
    # NOTE: float64, as assert_allclose cannot compare bfloat16; a few ulps for a fused kernel
    np.testing.assert_allclose(
        np.asarray(got, np.float64), np.asarray(expected, np.float64), rtol=4 * eps, atol=0
    )


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())[:160]


def _clip_expr(x: str) -> str:
    # NOTE: numexpr has no clip. The bounds are float32 scalars passed in as `lo` and `hi`: a
    # literal like 0.5 is a double and would make the whole result float64.
    return f"where({x} < lo, lo, where({x} > hi, hi, {x}))"


def clip_sub(peers: dict, a: np.ndarray, b: np.ndarray) -> dict:
    """clip(a - b, -0.5, 0.5) of two 1-d arrays of one dtype."""
    dtype, fns = a.dtype.type, {}
    lo, hi = dtype(-0.5), dtype(0.5)
    if "numexpr" in peers and dtype in (np.float32, np.float64):
        ne, expr = peers["numexpr"], _clip_expr("(a - b)")
        # NOTE: numexpr looks names up in its caller's frame, which inside a lambda has no `a`.
        fns["numexpr"] = lambda: ne.evaluate(expr, local_dict={"a": a, "b": b, "lo": lo, "hi": hi})
    if "torch" in peers and dtype is not ml_dtypes.bfloat16:
        torch = peers["torch"]
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: torch.clamp(ta - tb, -0.5, 0.5)
    if "jax" in peers and dtype is not ml_dtypes.bfloat16:
        jnp = peers["jax"]
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        fns["jax"] = lambda: jnp.clip(ja - jb, -0.5, 0.5).block_until_ready()
        jitted = peers["jax.jit"](lambda x, y: jnp.clip(x - y, -0.5, 0.5))
        fns["jax.jit"] = lambda: jitted(ja, jb).block_until_ready()
    if "numba" in peers and dtype in (np.float32, np.float64):
        kernel = numba_clip_sub(peers["numba"])
        fns["numba"] = lambda: kernel(a, b, lo, hi, np.empty_like(a))
    return fns


def channel_sub_clip(peers: dict, x: np.ndarray, m: np.ndarray) -> dict:
    """clip(x - m, 0, 1): x is (N, C, H, W), m is (1, C, 1, 1), both float32."""
    fns, lo, hi = {}, np.float32(0), np.float32(1)
    if "numexpr" in peers:
        ne, expr = peers["numexpr"], _clip_expr("(x - m)")
        fns["numexpr"] = lambda: ne.evaluate(expr, local_dict={"x": x, "m": m, "lo": lo, "hi": hi})
    if "torch" in peers:
        torch = peers["torch"]
        tx, tm = torch.from_numpy(x), torch.from_numpy(m)
        fns["torch"] = lambda: torch.clamp(tx - tm, 0, 1)
    if "jax.jit" in peers:
        jnp = peers["jax"]
        jx, jm = jnp.asarray(x), jnp.asarray(m)
        jitted = peers["jax.jit"](lambda v, w: jnp.clip(v - w, 0, 1))
        fns["jax.jit"] = lambda: jitted(jx, jm).block_until_ready()
    if "numba" in peers:
        kernel = numba_channel_sub_clip(peers["numba"])
        # NOTE: one row per (n, c) plane, so the kernel's loop is over N*C planes of H*W each
        planes, means = x.reshape(x.shape[0] * x.shape[1], -1), m.reshape(-1)
        fns["numba"] = lambda: kernel(planes, means, lo, hi, np.empty_like(planes)).reshape(x.shape)
    return fns


def clip_transposed_sub(peers: dict, a: np.ndarray, b: np.ndarray) -> dict:
    """clip(a.T - b, -0.5, 0.5) of two square float32 matrices."""
    fns, lo, hi = {}, np.float32(-0.5), np.float32(0.5)
    if "numexpr" in peers:
        ne, expr, at = peers["numexpr"], _clip_expr("(a - b)"), a.T
        fns["numexpr"] = lambda: ne.evaluate(expr, local_dict={"a": at, "b": b, "lo": lo, "hi": hi})
    if "torch" in peers:
        torch = peers["torch"]
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        fns["torch"] = lambda: torch.clamp(ta.T - tb, -0.5, 0.5)
    if "jax.jit" in peers:
        jnp = peers["jax"]
        ja, jb = jnp.asarray(a), jnp.asarray(b)
        jitted = peers["jax.jit"](lambda x, y: jnp.clip(x.T - y, -0.5, 0.5))
        fns["jax.jit"] = lambda: jitted(ja, jb).block_until_ready()
    if "numba" in peers:
        kernel = numba_clip_transposed_sub(peers["numba"])
        fns["numba"] = lambda: kernel(a, b, lo, hi, np.empty_like(b))
    return fns


def permute(peers: dict, x: np.ndarray, axes: tuple) -> dict:
    """A contiguous copy of np.transpose(x, axes)."""
    fns = {}
    if "torch" in peers:
        tx = peers["torch"].from_numpy(x)
        fns["torch"] = lambda: tx.permute(axes).contiguous()
    if "jax.jit" in peers:
        jnp = peers["jax"]
        jx = jnp.asarray(x)
        jitted = peers["jax.jit"](lambda v: jnp.transpose(v, axes))
        fns["jax.jit"] = lambda: jitted(jx).block_until_ready()
    # NOTE: numba has no generic kernel here: only the two layouts the benchmark times.
    if "numba" in peers and tuple(axes) == (1, 0):
        kernel = numba_transpose(peers["numba"])
        out_shape = (x.shape[1], x.shape[0])
        fns["numba"] = lambda: kernel(x, np.empty(out_shape, x.dtype))
    elif "numba" in peers and tuple(axes) == (0, 2, 3, 1):
        kernel = numba_nchw_to_nhwc(peers["numba"])
        n, c, h, w = x.shape
        fns["numba"] = lambda: kernel(x, np.empty((n, h, w, c), x.dtype))
    return fns


# The numba kernels. Each builder is cached: a fresh njit function would compile again (seconds)
# for every workload that uses it. Each kernel returns `out`, so its result can be checked.


@functools.cache
def numba_clip_sub(numba):
    """A parallel fused loop: what a numba user writes for clip(a - b)."""

    @numba.njit(parallel=True, fastmath=False)
    def kernel(a, b, lo, hi, out):
        for i in numba.prange(a.size):
            d = a[i] - b[i]
            out[i] = lo if d < lo else (hi if d > hi else d)
        return out

    return kernel


@functools.cache
def numba_channel_sub_clip(numba):
    """clip(x - m) over (N*C, H*W) planes, in parallel over the planes: each plane subtracts one
    mean, which stays in a register for the plane's contiguous inner loop."""

    @numba.njit(parallel=True, fastmath=False)
    def kernel(planes, means, lo, hi, out):
        channels = means.size
        for p in numba.prange(planes.shape[0]):
            mean = means[p % channels]
            for j in range(planes.shape[1]):
                d = planes[p, j] - mean
                out[p, j] = lo if d < lo else (hi if d > hi else d)
        return out

    return kernel


@functools.cache
def numba_clip_transposed_sub(numba):
    """clip(a.T - b) in TILE x TILE tiles, in parallel over rows of tiles: within a tile the
    strided reads of `a` hit lines that the tile's other rows read next."""

    @numba.njit(parallel=True, fastmath=False)
    def kernel(a, b, lo, hi, out):
        rows, cols = out.shape
        for t in numba.prange((rows + TILE - 1) // TILE):
            i0 = t * TILE
            for j0 in range(0, cols, TILE):
                for i in range(i0, min(i0 + TILE, rows)):
                    for j in range(j0, min(j0 + TILE, cols)):
                        d = a[j, i] - b[i, j]
                        out[i, j] = lo if d < lo else (hi if d > hi else d)
        return out

    return kernel


@functools.cache
def numba_transpose(numba):
    """A 2-d transpose in TILE x TILE tiles, in parallel over rows of tiles (as above)."""

    @numba.njit(parallel=True)
    def kernel(x, out):
        rows, cols = out.shape
        for t in numba.prange((rows + TILE - 1) // TILE):
            i0 = t * TILE
            for j0 in range(0, cols, TILE):
                for i in range(i0, min(i0 + TILE, rows)):
                    for j in range(j0, min(j0 + TILE, cols)):
                        out[i, j] = x[j, i]
        return out

    return kernel


@functools.cache
def numba_nchw_to_nhwc(numba):
    """NCHW -> NHWC, in parallel over the N*H output rows of W*C elements: each row is written
    in order while its reads walk C input rows of W, one cache line of each serving many w."""

    @numba.njit(parallel=True)
    def kernel(x, out):
        n, c, h, w = x.shape
        for r in numba.prange(n * h):
            b, y = r // h, r % h
            for k in range(w):
                for ch in range(c):
                    out[b, y, k, ch] = x[b, ch, y, k]
        return out

    return kernel
