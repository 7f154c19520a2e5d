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
    "any": ALL,
}

# Half-precision floats are loaded into float32, computed, and rounded once at the store.
HALF = (float16, bfloat16)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype arithmetic on `dtype` runs in: float32 for the half-precision floats."""
    return float32 if dtype in HALF else dtype


def is_supported(dtype) -> builtins.bool:
    return isinstance(dtype, np.dtype) and dtype in ALL


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


def _promote_pair(a: np.dtype, b: np.dtype) -> np.dtype | None:
    """The promotion lattice; None where the two cannot be promoted."""
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka == kb:
        if ka == "float" and {a, b} == {float16, bfloat16}:
            return float32  # neither half format holds the other
        return a if a.itemsize > b.itemsize else b
    if {ka, kb} == {"int", "uint"}:
        s, u = (a, b) if ka == "int" else (b, a)
        if u == uint64:
            return None  # Note (spec): no signed type holds uint64; numpy's float64 is a surprise
        return s if s.itemsize > u.itemsize else np.dtype(f"int{2 * 8 * u.itemsize}")
    if "complex" in (ka, kb) and "float" in (ka, kb):
        c, f = (a, b) if ka == "complex" else (b, a)
        return complex128 if (c == complex128 or f == float64) else complex64
    # Mixed kinds the spec leaves undefined (bool with numbers, integers with floats): like JAX,
    # the result is the "higher" kind's dtype, so numpy-style scripts keep working.
    rank = {"bool": 0, "int": 1, "uint": 1, "float": 2, "complex": 3}
    return a if rank[ka] > rank[kb] else b


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
    info = np.iinfo(dtype)
    return info.min <= value <= info.max
