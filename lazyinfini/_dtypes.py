"""Data types: the dtype objects, their categories and the promotion table.

Dtypes are plain ``numpy.dtype`` objects (bfloat16 comes from ml_dtypes), so they pass through
numpy, DLPack and array-api-compat unchanged.
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

bool = np.dtype("bool")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float16 = np.dtype("float16")
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
# How many values the 8- and 16-bit unsigned dtypes take: such values index a table of that
# many entries, or count into that many bins, with no bounds to check (an image's levels)
LEVELS = {uint8: 1 << 8, uint16: 1 << 16}
NUMERIC = INTEGER + REAL_FLOATING + COMPLEX
ALL = (bool,) + NUMERIC

DEFAULT_INT = int64
DEFAULT_FLOAT = float64
DEFAULT_COMPLEX = complex128
DEFAULT_INDEX = int64

# Category names accepted by op declarations and by isdtype(); the spec's kinds plus the
# combinations the op table needs.
CATEGORIES: dict[str, tuple[np.dtype, ...]] = {
    "bool": (bool,),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "integer": INTEGER,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX,
    "floating": REAL_FLOATING + COMPLEX,
    "numeric": NUMERIC,
    "real numeric": INTEGER + REAL_FLOATING,
    "integer or boolean": (bool,) + INTEGER,
    # Extension (numpy): the arithmetic functions also take bool (docs/dtypes.md); what an op
    # does when all its operands are bool is its declaration's (_api/elementwise.py).
    "numeric or boolean": ALL,
    "real numeric or boolean": (bool,) + INTEGER + REAL_FLOATING,
    "any": ALL,
}

# Extension (numpy): a float function (exp, sqrt, atan2, ...) of bools or integers computes in
# the smallest float that holds each of their values, as numpy's loops do (int8: float16);
# true division is float64's (numpy's divide resolves any integers to it).
_FLOAT_HOLDING = {bool: float16, int8: float16, uint8: float16, int16: float32, uint16: float32}


def float_holding(dtype: np.dtype) -> np.dtype:
    return _FLOAT_HOLDING.get(dtype, DEFAULT_FLOAT)


# Half-precision floats are loaded into float32, computed, and rounded once at the store.
HALF = (float16, bfloat16)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic on `dtype` runs in: float32 for the half-precision floats."""
    return float32 if dtype in HALF else dtype


def is_supported(dtype) -> builtins.bool:
    return isinstance(dtype, np.dtype) and dtype in _SUPPORTED


# NOTE: a set: a tuple's `in` compares a float32 with each dtype before it (~0.3 us a call)
_SUPPORTED = frozenset(ALL)


def kind(dtype: np.dtype) -> str:
    """One of 'bool', 'int', 'uint', 'float', 'complex'."""
    if dtype == bool:
        return "bool"
    if dtype in SIGNED:
        return "int"
    if dtype in UNSIGNED:
        return "uint"
    if dtype in COMPLEX:
        return "complex"
    return "float"


# The standard's type promotion table (2025.12), literally: each pair once, the result after it.
# https://data-apis.org/array-api/latest/API_specification/type_promotion.html
# fmt: off
SPEC_PROMOTIONS: dict[tuple[np.dtype, np.dtype], np.dtype] = {
    (bool, bool): bool,
    # signed integers
    (int8, int8): int8,     (int8, int16): int16,   (int8, int32): int32,   (int8, int64): int64,
    (int16, int16): int16,  (int16, int32): int32,  (int16, int64): int64,
    (int32, int32): int32,  (int32, int64): int64,
    (int64, int64): int64,
    # unsigned integers
    (uint8, uint8): uint8,     (uint8, uint16): uint16,   (uint8, uint32): uint32,
    (uint8, uint64): uint64,
    (uint16, uint16): uint16,  (uint16, uint32): uint32,  (uint16, uint64): uint64,
    (uint32, uint32): uint32,  (uint32, uint64): uint64,
    (uint64, uint64): uint64,
    # mixed signed and unsigned integers (no pair with uint64)
    (int8, uint8): int16,   (int8, uint16): int32,   (int8, uint32): int64,
    (int16, uint8): int16,  (int16, uint16): int32,  (int16, uint32): int64,
    (int32, uint8): int32,  (int32, uint16): int32,  (int32, uint32): int64,
    (int64, uint8): int64,  (int64, uint16): int64,  (int64, uint32): int64,
    # real and complex floating-point
    (float32, float32): float32,      (float32, float64): float64,
    (float32, complex64): complex64,  (float32, complex128): complex128,
    (float64, float64): float64,      (float64, complex64): complex128,
    (float64, complex128): complex128,
    (complex64, complex64): complex64,    (complex64, complex128): complex128,
    (complex128, complex128): complex128,
}
# fmt: on

# Extension (not the standard's), one rule for every pair the table leaves out, which are the
# half floats (float16, bfloat16), bool with numbers, integers with floats, and uint64 with a
# signed integer. Such a pair promotes to:
#   - nothing (a TypeError), for integers of mixed signedness (only uint64 with a signed integer
#     gets here): no integer dtype holds both, and numpy's float64 would be a surprise;
#   - the wider of two real floats (a half float with a float), and float32 for float16 with
#     bfloat16, as neither holds the other;
#   - an integer (or bool) with a float or complex dtype: numpy's, the float that holds both the
#     integer's values (float_holding: int8 float16, int16 float32, int32 float64) and the
#     other's: int32 with float32 is float64, int16 with float16 float32, int64 with
#     complex64 complex128; an 8-bit integer or bool with a half float is that half float
#     (numpy's and ml_dtypes'). A script mixing kinds gets numpy's dtype, so numpy's numbers.
#   - else the dtype of the higher kind as it is (float16 with complex64 is complex64).
_KIND_RANK = {"bool": 0, "int": 1, "uint": 1, "float": 2, "complex": 3}


def _extension(a: np.dtype, b: np.dtype) -> np.dtype | None:
    """The extension rule above, for a pair not in SPEC_PROMOTIONS."""
    ka, kb = kind(a), kind(b)
    if {ka, kb} == {"int", "uint"}:
        return None
    if ka == kb:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if _KIND_RANK[ka] > _KIND_RANK[kb]:
        a, b, ka, kb = b, a, kb, ka
    if _KIND_RANK[ka] < 2 <= _KIND_RANK[kb]:
        holding = float_holding(a)
        return b if holding == float16 and b in HALF else _promote_pair(holding, b)
    return b


def _promote_pair(a: np.dtype, b: np.dtype) -> np.dtype | None:
    """The table's result for a pair (in either order), else the extension rule's."""
    # NOTE: looked up by `in`, not `or`: a numpy dtype is falsy (its len() counts fields).
    if (a, b) in SPEC_PROMOTIONS:
        return SPEC_PROMOTIONS[a, b]
    if (b, a) in SPEC_PROMOTIONS:
        return SPEC_PROMOTIONS[b, a]
    return _extension(a, b)


def promote(*dtypes: np.dtype) -> np.dtype | None:
    result = dtypes[0]
    for d in dtypes[1:]:
        result = _promote_pair(result, d)
        if result is None:
            return None
    return result


def scalar_dtype(value, like: np.dtype | None) -> np.dtype:
    """The dtype a Python scalar takes next to an array of dtype `like` (scalars are weak)."""
    if isinstance(value, builtins.bool):
        return like if like is not None else bool
    if isinstance(value, int):
        return like if like is not None and like != bool else DEFAULT_INT
    if isinstance(value, float):
        return like if like is not None and kind(like) in ("float", "complex") else DEFAULT_FLOAT
    if isinstance(value, complex):
        if like is not None and kind(like) == "complex":
            return like
        return complex128 if like == float64 or like is None or kind(like) != "float" else complex64
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def in_range(value: int, dtype: np.dtype) -> builtins.bool:
    low, high = RANGES.get(dtype) or _range(dtype)
    return low <= value <= high


def _range(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)  # NOTE: ~1 us a call: the integer dtypes' ranges are kept (RANGES)
    return int(info.min), int(info.max)


# an integer dtype -> (its least, its greatest value)
RANGES = {np.dtype(d): _range(np.dtype(d)) for d in INTEGER}
