"""Ties of maximum, minimum and clip (-0.0 against 0.0) break as numpy breaks them, on every
device and path: numpy's float16 loops keep the first operand (x); its float32/float64 loops and
ml_dtypes' bfloat16 take the second (the bound), except clip between two bounds that are each
one value (0-d or fully broadcast), which keeps x. The sign of a zero is a number:
1 / clip(-0.0, 0.0, 5) is -inf in numpy; and ml_dtypes' bfloat16 sign(-0.0) is -0.0, where
numpy's float loops give +0.0."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import lazyinfini as li

DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def _signs(value) -> str:
    values = np.asarray(value).astype(np.float32)
    return "".join(
        "-" if s else ("n" if v != v else "+")
        for s, v in zip(np.signbit(values).ravel(), values.ravel())
    )


def _cases(dtype):
    """(name, program over a namespace, operands): each a tie of -0.0 with 0.0 somewhere."""
    neg, pos = -np.zeros(3, dtype), np.zeros(3, dtype)
    grid = -np.zeros((3, 4), dtype)
    return [
        ("maximum(-0, 0)", lambda xp, a, b: xp.maximum(a, b), (neg, pos)),
        ("maximum(0, -0)", lambda xp, a, b: xp.maximum(a, b), (pos, neg)),
        ("minimum(-0, 0)", lambda xp, a, b: xp.minimum(a, b), (neg, pos)),
        ("minimum(0, -0)", lambda xp, a, b: xp.minimum(a, b), (pos, neg)),
        ("clip(-0, array 0, _)", lambda xp, x, lo: xp.clip(x, lo, None), (neg, pos)),
        ("clip(0, _, array -0)", lambda xp, x, hi: xp.clip(x, None, hi), (pos, neg)),
        ("clip(-0, array 0, array 5)", lambda xp, x, lo: xp.clip(x, lo, lo + 5), (neg, pos)),
        ("clip(-0, 0.0, _)", lambda xp, x: xp.clip(x, 0.0, None), (neg,)),
        ("clip(0, _, -0.0)", lambda xp, x: xp.clip(x, None, -0.0), (pos,)),
        ("clip(-0, 0.0, 5.0)", lambda xp, x: xp.clip(x, 0.0, 5.0), (neg,)),
        ("clip(0, -5.0, -0.0)", lambda xp, x: xp.clip(x, -5.0, -0.0), (pos,)),
        ("clip(-0, 0.0, array 5)", lambda xp, x, hi: xp.clip(x, 0.0, hi), (neg, pos + 5)),
        ("2-d, (3, 1) bounds", lambda xp, x, lo: xp.clip(x, lo, lo + 5), (grid, pos[:, None])),
        ("2-d, (1, 4) bounds", lambda xp, x, lo: xp.clip(x, lo, lo + 5), (grid, pos[None, :1])),
        ("2-d, (1, 1) bounds", lambda xp, x, lo: xp.clip(x, lo, lo + 5), (grid, pos[:1, None])),
        # NOTE: ml_dtypes' bfloat16 sign keeps the zero (-0.0), numpy's float loops give +0.0
        ("sign(-0)", lambda xp, x: xp.sign(x), (neg,)),
        ("sign(-(0))", lambda xp, x: xp.sign(-x), (pos,)),
    ]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("device", ["cpu", "compiled", "reference"])
def test_ties_break_as_numpy_breaks_them(dtype, device, compiled_device):
    name = compiled_device if device == "compiled" else device
    wrong = []
    for case, program, operands in _cases(dtype):
        want = _signs(program(np, *operands))
        with li.options(device=name):
            got = _signs(program(li, *(li.asarray(o) for o in operands)))
        if got != want:
            wrong.append(f"{case}: numpy {want}, lazyinfini {got}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_ties_break_as_numpy_breaks_them_in_a_fused_chain(dtype, compiled_device):
    """The tie inside a fused kernel, after a negation that makes the -0.0."""
    x = np.zeros(5, dtype)
    lo = np.zeros(5, dtype)
    want = _signs(np.clip(-x, lo, None))
    for name in ("cpu", compiled_device, "reference"):
        with li.options(device=name):
            assert _signs(li.clip(-li.asarray(x), li.asarray(lo), None)) == want, name
