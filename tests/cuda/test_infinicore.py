"""The InfiniCore operator matrices for sub and clip on the cuda device: each strided or
broadcast input of the matrix (tests/api/test_infinicore_matrix.py) is made on the device from a
base buffer by lazy views, so the kernel reads it strided as InfiniCore's operator does, and the
results must be the reference device's, bit for bit. Each dtype's cases run as one schedule (one
compile), on the emulated device and on a real GPU where CuPy finds one (the `cuda` fixture,
marker gpu)."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from tests.api.test_infinicore_matrix import CLIP_BOUNDS, CLIP_SHAPES, clip_inputs
from tests.cuda.programs import HALF_AND_FLOATS, assert_same_bits, put, values

# (name, shape, a: (base shape, view), b: (base shape, view)): InfiniCore's sub cases, strides
# in elements as its matrix writes them, made by views of a base.
WHOLE = None


def _rows(n):
    return lambda x: x[:, :n]


SUB_CASES = [
    ("13x4", (13, 4), ((13, 4), WHOLE), ((13, 4), WHOLE)),
    ("13x4 (10,1)", (13, 4), ((13, 10), _rows(4)), ((13, 10), _rows(4))),
    ("13x4 (0,1) a", (13, 4), ((4,), lambda x: li.broadcast_to(x, (13, 4))), ((13, 4), WHOLE)),
    ("13x4 (0,1) b", (13, 4), ((13, 4), WHOLE), ((4,), lambda x: li.broadcast_to(x, (13, 4)))),
    ("13x4x4", (13, 4, 4), ((13, 4, 4), WHOLE), ((13, 4, 4), WHOLE)),
    (
        "13x4x4 (20,4,1)",
        (13, 4, 4),
        ((13, 20), lambda x: li.reshape(x[:, :16], (13, 4, 4))),
        ((13, 20), lambda x: li.reshape(x[:, :16], (13, 4, 4))),
    ),
    (
        "13x4x4 (4,0,1) (0,4,1)",
        (13, 4, 4),
        ((13, 4), lambda x: li.broadcast_to(x[:, None, :], (13, 4, 4))),
        ((4, 4), lambda x: li.broadcast_to(x[None], (13, 4, 4))),
    ),
    ("16x5632", (16, 5632), ((16, 5632), WHOLE), ((16, 5632), WHOLE)),
    ("16x5632 (13312,1)", (16, 5632), ((16, 13312), _rows(5632)), ((16, 13312), _rows(5632))),
    ("4x4x5632", (4, 4, 5632), ((4, 4, 5632), WHOLE), ((4, 4, 5632), WHOLE)),
    (
        "4x4x5632 (45056,5632,1)",
        (4, 4, 5632),
        ((4, 8, 5632), lambda x: x[:, :4]),
        ((4, 8, 5632), lambda x: x[:, :4]),
    ),
]


def _operand(base: li.Array, view):
    return base if view is None else view(base)


def _subs(bases, make):
    return [
        _operand(make(a), av) - _operand(make(b), bv)
        for (a, b), (_, _, (_, av), (_, bv)) in zip(bases, SUB_CASES)
    ]


@pytest.mark.parametrize("dtype", [np.float16, HALF_AND_FLOATS[1], np.float32], ids=str)
def test_the_sub_matrix_matches_the_reference(cuda, dtype):
    bases = [(values(dtype, a[0]), values(dtype, b[0])) for _, _, a, b in SUB_CASES]
    with li.options(device=cuda.name):
        outs = _subs(bases, lambda x: put(cuda, x))
        assert all(out.device.name == cuda.name for out in outs)
        li.compute(*outs)
    with li.options(device="reference"):
        wants = [np.asarray(w) for w in _subs(bases, li.asarray)]
    for (name, shape, _, _), out, want in zip(SUB_CASES, outs, wants):
        assert out.shape == shape, name
        assert_same_bits(np.asarray(out), want)


@pytest.mark.parametrize("dtype", HALF_AND_FLOATS, ids=lambda d: np.dtype(d).name)
def test_the_clip_matrix_matches_the_reference(cuda, dtype):
    rng = np.random.default_rng(7)
    cases = [(s, b, clip_inputs(rng, s, *b, dtype)) for s in CLIP_SHAPES for b in CLIP_BOUNDS[:3]]
    with li.options(device=cuda.name):
        outs = [li.clip(put(cuda, x), lo, hi) for _, (lo, hi), x in cases]
        # InfiniCore passes the bounds as tensors, which broadcast
        bounds = [(put(cuda, low), put(cuda, high)) for low, high in _bounds(cases, dtype)]
        outs += [li.clip(put(cuda, x), *b) for (_, _, x), b in zip(cases, bounds)]
        li.compute(*outs)
    with li.options(device="reference"):
        wants = [np.asarray(li.clip(li.asarray(x), lo, hi)) for _, (lo, hi), x in cases]
        bounds = [(li.asarray(low), li.asarray(high)) for low, high in _bounds(cases, dtype)]
        wants += [np.asarray(li.clip(li.asarray(x), *b)) for (_, _, x), b in zip(cases, bounds)]
    for out, want in zip(outs, wants):
        assert_same_bits(np.asarray(out), want)


def _bounds(cases, dtype) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each case's bounds as arrays: min of shape (1, ..., 1), max of shape (n,)."""
    return [
        (np.full((1,) * len(shape), lo, dtype=dtype), np.full(shape[-1:], hi, dtype=dtype))
        for shape, (lo, hi), _ in cases
    ]
