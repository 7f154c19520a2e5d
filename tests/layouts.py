"""Hypothesis strategies for differential tests: dtypes, shapes, and numpy inputs whose memory
layout is contiguous, sliced (gaps, offsets, negative steps), permuted or broadcast (stride 0).

Values come from a numpy generator seeded by hypothesis, so a failing example replays exactly
while hypothesis still shrinks the shape, the layout and the dtype.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

F16, BF16, F32, F64 = (np.dtype(d) for d in ("float16", ml_dtypes.bfloat16, "float32", "float64"))
FLOATS = (F16, BF16, F32, F64)
HALF = (F16, BF16)
INTS = tuple(np.dtype(d) for d in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"))

float_dtypes = st.sampled_from(FLOATS)
# 0-d, empty (a 0 side) and up to 6-d; sides stay small so a 6-d base with gaps is cheap.
shapes = hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=4)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """numpy's stand-in for lazyinfini's rule: half floats compute in float32, round once."""
    return F32 if dtype in HALF else dtype


def values(rng: np.random.Generator, shape, dtype: np.dtype, kind: str = "normal") -> np.ndarray:
    """A fresh contiguous array. kind: 'normal', 'special' (with NaN, +-inf, +-0) or 'bytes'
    (random bit patterns: NaN payloads, subnormals; for bit-exact movement tests)."""
    dtype = np.dtype(dtype)
    if kind == "bytes":
        raw = rng.integers(0, 256, size=math.prod(shape) * dtype.itemsize, dtype=np.uint8)
        return raw.view(dtype).reshape(shape)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    if dtype == np.bool_:
        return np.asarray(rng.random(shape) < 0.5)
    x = np.asarray(rng.standard_normal(shape) * 4).astype(dtype)
    if kind == "special" and x.size:
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float64).astype(dtype)
        where = rng.random(shape) < 0.2
        x[where] = rng.choice(specials, size=int(where.sum()))
    return x


@st.composite
def layouts(draw, shape, dtype, kind: str = "normal", allow_broadcast: bool = True):
    """A numpy array of `shape` and `dtype` that is a view of a larger buffer: some dims sliced
    with a gap, an offset or a negative step, the axes permuted, some dims broadcast (stride 0).
    Every combination, including plain contiguous, is drawn."""
    shape = tuple(shape)
    ndim = len(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # Dims that broadcast: the source holds 1 there (stride 0 after broadcast_to).
    if allow_broadcast and ndim:
        flags = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
    else:
        flags = [False] * ndim
    source = tuple(1 if b else n for b, n in zip(flags, shape, strict=True))
    # The source is a permutation of a base array's axes...
    axes = tuple(draw(st.permutations(range(ndim)))) if ndim else ()
    base_shape = [0] * ndim
    for i, a in enumerate(axes):
        base_shape[a] = source[i]
    # ... and the base a slice of a bigger buffer.
    steps = draw(st.lists(st.sampled_from([1, 1, 2, 3, -1, -2]), min_size=ndim, max_size=ndim))
    offsets = draw(st.lists(st.integers(0, 1), min_size=ndim, max_size=ndim))
    buffer_shape = tuple(o + n * abs(s) for n, s, o in zip(base_shape, steps, offsets, strict=True))
    buffer = values(rng, buffer_shape, dtype, kind)
    key = tuple(
        slice(o, o + n * s, s) if s > 0 else slice(o + n * -s - 1, o - 1 if o else None, s)
        for n, s, o in zip(base_shape, steps, offsets, strict=True)
    )
    view = buffer[key].transpose(axes)
    assert view.shape == source, (view.shape, source)
    return np.broadcast_to(view, shape)


@st.composite
def broadcastable_shapes(draw, shape):
    """A shape that broadcasts to `shape`: some leading dims dropped, some dims set to 1."""
    drop = draw(st.integers(0, len(shape)))
    kept = shape[drop:]
    ones = draw(st.lists(st.booleans(), min_size=len(kept), max_size=len(kept)))
    return tuple(1 if b else n for b, n in zip(ones, kept, strict=True))
