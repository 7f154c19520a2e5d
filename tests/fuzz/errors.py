"""Error rules: how far another device may differ from the reference after each op (0: bit for
bit), grown op by op; a step whose bound would not hold raises Reject."""

from __future__ import annotations

import numpy as np

from tests.fuzz.dtypes import FLOATS, compute_dtype
from tests.fuzz.numbers import all_finite, eps, magnitude, near_overflow
from tests.fuzz.program import Reject, err_of, value_of


def _rounding(out) -> float:
    """What one more rounding of an inexact value to out's dtype may add."""
    return eps(np.asarray(out).dtype) * magnitude(out)


def approximate(out, bound: float) -> float:
    """An inexact result: kept only away from overflow, where the bound holds."""
    if near_overflow(out):
        raise Reject("near overflow")
    return bound + _rounding(out)


def _libm(out) -> float:
    """A transcendental function of exact inputs: a few ulps in its compute dtype."""
    out = np.asarray(out)
    if out.dtype not in FLOATS:
        return 0.0
    return approximate(out, 8 * eps(compute_dtype(out.dtype)) * magnitude(out))


def propagate(operands, bound):
    """The error rule of an exactly rounded op: 0 for exact operands; for inexact (all finite)
    ones `bound(errs, mags)` plus a rounding."""
    errs = [err_of(o) for o in operands]
    if not any(errs):
        return 0.0
    if bound is None or not all(all_finite(value_of(o)) for o in operands):
        raise Reject("inexact operand")
    mags = [magnitude(value_of(o)) for o in operands]

    def rule(out):
        if not all_finite(out):
            raise Reject("inexact overflow")
        try:
            return approximate(out, bound(errs, mags))
        except OverflowError:  # NOTE: a bound past float64 (e ** 2 of a huge error) bounds nothing
            raise Reject("inexact overflow") from None

    return rule


def structural(operands):
    """Moving, selecting and sorting values: the largest operand error, non-finite values too."""
    return max([err_of(o) for o in operands], default=0.0)


def require_exact(*operands) -> None:
    if any(err_of(o) for o in operands):
        raise Reject("needs exact operands")


LIPSCHITZ = {
    "sum": lambda e, m: sum(e),
    "max": lambda e, m: max(e),
    "mul": lambda e, m: e[0] * m[1] + e[1] * m[0] + e[0] * e[1],
    "square": lambda e, m: 2 * e[0] * m[0] + e[0] ** 2,
}


def elementwise_err(kind: str, lipschitz, operands):
    if kind == "libm":
        require_exact(*operands)
        return _libm
    if kind == "discrete":
        require_exact(*operands)
        return 0.0
    if kind == "nan test":  # NaN and inf sit where the reference has them (no overflow edge)
        return 0.0
    return propagate(operands, LIPSCHITZ.get(lipschitz))
