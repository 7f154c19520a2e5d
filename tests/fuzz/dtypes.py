"""The dtypes programs draw, and what combines with what: promotion and broadcasting."""

from __future__ import annotations

import math

import numpy as np

import lazyinfini as li

BOOL = np.dtype(bool)
FLOATS = (li.float16, li.bfloat16, li.float32, li.float64)
SIGNED = (li.int8, li.int16, li.int32, li.int64)
UNSIGNED = (li.uint8, li.uint16, li.uint32, li.uint64)
# Floats (half floats above all: they compute in float32) are drawn more often.
DTYPES = (li.float16, li.bfloat16) * 4 + (li.float32,) * 3 + (li.float64,) * 2
DTYPES += (BOOL, BOOL, *SIGNED, li.int32, li.int64, *UNSIGNED)
# The mantissa bits: integers up to 2**P are exact.
MANTISSA = {li.float16: 11, li.bfloat16: 8, li.float32: 24, li.float64: 53}

NUMERIC = (*FLOATS, *SIGNED, *UNSIGNED)
REAL = NUMERIC
INTEGER = (*SIGNED, *UNSIGNED)
INT_OR_BOOL = (BOOL, *INTEGER)
ANY = (BOOL, *NUMERIC)


def compute_dtype(dtype):
    """The dtype lazyinfini computes `dtype` in: float32 for half floats."""
    return li.float32 if dtype in (li.float16, li.bfloat16) else dtype


def reduce_dtype(dtype):
    """The dtype a sum, product or variance of `dtype` may round its partial results to: numpy's
    float16 loops round each step along an axis they do not make their inner loop (float16
    stays float16), other dtypes accumulate in their compute dtype."""
    return dtype if dtype == li.float16 else compute_dtype(dtype)


def dtype_text(dtype) -> str:
    return f"li.{np.dtype(dtype).name}"


# Elements a broadcast operand pair may make: a (70000,) against a (70000, 1) would be 36 GiB
# (the fuzz drew it: every step runs as it is drawn).
MAX_BROADCAST = 1 << 22


def broadcasts(a, b) -> bool:
    """Whether shapes `a` and `b` broadcast, to at most MAX_BROADCAST elements."""
    try:
        shape = np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return math.prod(shape) <= MAX_BROADCAST


def promote(a, b):
    try:
        return li.result_type(a, b)
    except TypeError:
        return None


def promotes_into(a, b, dtypes) -> bool:
    # NOTE: never `None in dtypes`: numpy reads None as float64 in dtype comparisons.
    common = promote(a, b)
    return common is not None and common in dtypes
