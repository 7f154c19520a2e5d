"""Arithmetic on bool arrays (an extension, docs/dtypes.md) against numpy 2 on ndarrays: every
arithmetic op as an operator, a namespace function and a numpy ufunc, over bool x {bool, int8,
uint8, int64, float32, float64, complex64, Python int/float/bool}, in both orders, on the cpu,
numpy and reference devices and in compiled C; the products; and the TypeErrors numpy raises."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._device import DEVICES
from lazyinfini._runtime import cpu
from lazyinfini._schedule import Kind

MASK = np.array(
    [[True, False, True, False], [True, True, False, False], [False, False, True, True]]
)
# The other operands broadcast against MASK (3, 4). No infinity: numpy floor-divides inf by 1
# into NaN, the standard (and lazyinfini) into inf. Integers are not negative: numpy raises
# for an integer to a negative integer power, a value error no lazy library can raise when it
# records.
OTHERS = {
    "bool": np.array([True, False, False, True]),
    "int8": np.array([0, 1, 2, 127], np.int8),
    "uint8": np.array([0, 1, 2, 255], np.uint8),
    "int64": np.array([0, 1, 2, 3], np.int64),
    "float32": np.array([-1.5, 0.0, 0.5, 3.0], np.float32),
    "float64": np.array([-1.5, -0.0, 0.5, np.nan], np.float64),
    "complex64": np.array([1 + 1j, 0, -2j, 0.5], np.complex64),
    "int": 2,
    "float": 2.5,
    "True": True,
}

# name: (li function, operator or None, numpy ufunc)
BINARY = {
    "add": (li.add, operator.add, np.add),
    "subtract": (li.subtract, operator.sub, np.subtract),
    "multiply": (li.multiply, operator.mul, np.multiply),
    "divide": (li.divide, operator.truediv, np.divide),
    "floor_divide": (li.floor_divide, operator.floordiv, np.floor_divide),
    "remainder": (li.remainder, operator.mod, np.remainder),
    "pow": (li.pow, operator.pow, np.power),
    "maximum": (li.maximum, None, np.maximum),
    "minimum": (li.minimum, None, np.minimum),
    "less": (li.less, operator.lt, np.less),
    "less_equal": (li.less_equal, operator.le, np.less_equal),
    "greater": (li.greater, operator.gt, np.greater),
    "greater_equal": (li.greater_equal, operator.ge, np.greater_equal),
}
UNARY = {
    "negative": (li.negative, operator.neg, np.negative),
    "positive": (li.positive, operator.pos, np.positive),
    "abs": (li.abs, operator.abs, np.absolute),
    "square": (li.square, None, np.square),
}
# Note (spec): these take real numbers only (numpy also orders complex numbers): with a complex
# operand they raise where numpy gives a value. Not a bool rule: complex64 alone raises too.
# NOTE: the orderings (less, maximum, ...) order complex numbers as numpy's (elementwise.py)
REAL_ONLY = {"floor_divide", "remainder"}
DEVICE_NAMES = ["cpu", "numpy", "reference"]


def _numpy(fn, *operands):
    """numpy's answer, or the TypeError it raises."""
    with np.errstate(all="ignore"):
        try:
            return np.asarray(fn(*operands))
        except TypeError as error:
            return error


def _lazy(value):
    return li.asarray(value) if isinstance(value, np.ndarray) else value


_FORMS = ("function", "operator", "ufunc")


def _form(name: str, table: dict, form: str):
    return dict(zip(_FORMS, table[name]))[form]


def _forms(table: dict) -> list:
    """(op, form) for each way an op is called (maximum has no operator)."""
    pairs = [(n, f) for n in sorted(table) for f in _FORMS if _form(n, table, f) is not None]
    return [pytest.param(n, f, id=f"{n}-{f}") for n, f in pairs]


def _binary_cases(name: str):
    """(id, x1, x2) over the other operands in both orders."""
    for key, other in OTHERS.items():
        yield f"bool-{key}", MASK, other
        yield f"{key}-bool", other, MASK


def _record(fn, cases, oracle, raises=lambda case: False):
    """Each case's numpy answer (from `oracle`) and lazyinfini result (recorded, not computed);
    the cases where numpy raises TypeError, or `raises` says lazyinfini does, raise it when
    recording."""
    recorded = []
    for case, *operands in cases:
        want = _numpy(oracle, *operands)
        if isinstance(want, TypeError) or raises(case):
            with pytest.raises(TypeError):
                fn(*(_lazy(v) for v in operands))
            continue
        recorded.append((case, want, fn(*(_lazy(v) for v in operands))))
    return recorded


def _compare(recorded) -> None:
    got = li.compute(*(y for _, _, y in recorded))
    got = got if len(recorded) > 1 else (got,)
    for (case, want, _), value in zip(recorded, got):
        np.testing.assert_array_equal(np.asarray(value), want, strict=True, err_msg=case)


def _complex_real_only(name: str, form: str):
    """The namespace's function and the operator take no complex numbers where the standard
    orders them; numpy's ufunc (np.maximum) orders them as numpy does (numpy's oracle)."""
    return lambda case: form != "ufunc" and name in REAL_ONLY and "complex" in case


@pytest.mark.parametrize("device", DEVICE_NAMES)
@pytest.mark.parametrize("name, form", _forms(BINARY))
def test_binary_ops_on_bool_match_numpy(name, form, device):
    fn = _form(name, BINARY, form)
    # NOTE: an operator's oracle is ndarray's operator: numpy's m ** 2 is a square (int8)
    oracle = fn if form == "operator" else BINARY[name][2]
    with li.options(device=device):
        recorded = _record(fn, _binary_cases(name), oracle, _complex_real_only(name, form))
        _compare(recorded)
    assert len(recorded) >= 14, [case for case, _, _ in recorded]


@pytest.mark.parametrize("device", DEVICE_NAMES)
@pytest.mark.parametrize("name, form", _forms(UNARY))
def test_unary_ops_on_bool_match_numpy(name, form, device):
    fn = _form(name, UNARY, form)
    with li.options(device=device):
        recorded = _record(fn, [("bool", MASK)], UNARY[name][2])
        _compare(recorded)


# What the table above checks against numpy, written out (numpy 2.4 gives exactly these).
@pytest.mark.parametrize(
    "call, dtype",
    [
        (lambda m, f: m + m, li.bool),  # logical or
        (lambda m, f: m * m, li.bool),  # logical and
        (lambda m, f: li.maximum(m, m), li.bool),
        (lambda m, f: m / m, li.float64),
        (lambda m, f: m // m, li.int8),  # numpy's first loop bool casts to
        (lambda m, f: m % m, li.int8),
        (lambda m, f: m**m, li.int8),
        (lambda m, f: li.square(m), li.int8),
        (lambda m, f: abs(m), li.bool),
        (lambda m, f: m * 2, li.int64),  # a Python int with bool: the default int (NEP 50)
        (lambda m, f: m * 2.0, li.float64),
        (lambda m, f: m * True, li.bool),
        (lambda m, f: m * f, li.float32),
        (lambda m, f: m - 1, li.int64),
        (lambda m, f: m < m, li.bool),
    ],
)
def test_the_bool_rules(call, dtype):
    m = li.asarray(np.array([True, False]))
    f = li.asarray(np.array([1.5, 2.5], np.float32))
    assert call(m, f).dtype == dtype
    assert np.asarray(call(m, f)).dtype == dtype


@pytest.mark.parametrize(
    "call, advice",
    [
        (lambda m: m - m, r"`\^`.*logical_xor"),
        (lambda m: li.subtract(m, True), r"`\^`.*logical_xor"),
        (lambda m: np.subtract(True, m), r"`\^`.*logical_xor"),
        (lambda m: -m, "`~`.*logical_not"),
        (lambda m: np.negative(m), "`~`.*logical_not"),
    ],
)
def test_bool_subtract_and_negative_raise_numpy_s_type_error(call, advice):
    m = li.asarray(np.array([True, False]))
    with pytest.raises(TypeError, match=advice) as caught:
        call(m)
    assert str(caught.value).startswith(("subtract: x1 and x2 are bool", "negative: x is bool"))


def test_positive_of_bool_raises_as_in_numpy():
    with pytest.raises(TypeError):
        np.positive(MASK)
    with pytest.raises(TypeError, match="positive: x has dtype bool"):
        +li.asarray(MASK)


def test_a_python_int_too_large_for_the_default_int_raises():
    with pytest.raises(OverflowError):
        MASK * 2**63
    with pytest.raises(OverflowError, match="multiply"):
        li.asarray(MASK) * 2**63


# -- in place -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "target, op",
    [
        ("float64", operator.iadd),
        ("int8", operator.imul),
        ("bool", operator.iadd),
        ("bool", operator.imul),
        ("bool", operator.isub),
        ("bool", operator.ifloordiv),  # int8 does not fit back into bool
        ("uint8", operator.ipow),
    ],
)
def test_in_place_ops_with_a_bool_operand_match_numpy(target, op):
    start = np.broadcast_to(OTHERS[target], MASK.shape).copy()
    want = start.copy()
    with np.errstate(all="ignore"):
        try:
            want = op(want, MASK)
        except TypeError:
            want = None
    x = li.asarray(start)
    if want is None:
        with pytest.raises(TypeError):
            op(x, li.asarray(MASK))
        return
    x = op(x, li.asarray(MASK))
    np.testing.assert_array_equal(np.asarray(x), want, strict=True)


# -- products -----------------------------------------------------------------------------------
PRODUCTS = {
    "operator": lambda a, b: a @ b,
    "matmul": li.matmul,
    "np.matmul": np.matmul,
    "np.dot": np.dot,
    "method dot": lambda a, b: a.dot(b),
    "tensordot": lambda a, b: li.tensordot(a, b, axes=1),
    "np.tensordot": lambda a, b: np.tensordot(a, b, axes=1),
}
VECTOR_PRODUCTS = {
    "vecdot": li.vecdot,
    "np.vecdot": np.vecdot,
    "np.vdot": np.vdot,
    "np.inner": np.inner,
    "np.outer": np.outer,
    "linalg.outer": li.linalg.outer,
}
ARRAY_OTHERS = [k for k, v in OTHERS.items() if isinstance(v, np.ndarray)]


def _matrix(key: str, shape) -> np.ndarray:
    rng = np.random.default_rng(len(key))
    values = rng.integers(0, 3, shape)
    return values.astype(bool) if key == "bool" else (values - 0.5 * (key[0] in "fc")).astype(key)


@pytest.mark.parametrize("device", DEVICE_NAMES)
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products_with_bool_match_numpy(name, device):
    fn = PRODUCTS[name]
    cases = []
    for key in ARRAY_OTHERS:
        cases.append((f"bool @ {key}", MASK, _matrix(key, (4, 2))))
        cases.append((f"{key} @ bool", _matrix(key, (2, 3)), MASK))
        cases.append((f"bool @ {key} vector", MASK, _matrix(key, (4,))))
    cases.append(("bool @ bool square", MASK[:, :3], MASK[:, :3].T))
    with li.options(device=device):
        recorded = _record(fn, cases, fn if name.startswith("np") else _numpy_product(name))
        _compare(recorded)
    assert len(recorded) == len(cases)


def _numpy_product(name: str):
    if name == "tensordot":
        return lambda a, b: np.tensordot(a, b, axes=1)
    return np.matmul


@pytest.mark.parametrize("device", DEVICE_NAMES)
@pytest.mark.parametrize("name", sorted(VECTOR_PRODUCTS))
def test_vector_products_with_bool_match_numpy(name, device):
    fn = VECTOR_PRODUCTS[name]
    oracle = fn if name.startswith("np") else {"vecdot": np.vecdot, "linalg.outer": np.outer}[name]
    cases = []
    for key in ARRAY_OTHERS:
        cases.append((f"bool.{key}", MASK[0], _matrix(key, (4,))))
        cases.append((f"{key}.bool", _matrix(key, (4,)), MASK[1]))
    with li.options(device=device):
        recorded = _record(fn, cases, oracle)
        _compare(recorded)
    assert len(recorded) == len(cases)


def test_np_dot_of_bools_records_lazily():
    # it used to fall back to numpy (computing its inputs)
    m = li.asarray(MASK) & True  # pending
    before = li.inspect.counters.numpy_fallbacks, li.inspect.counters.materializations
    y = np.dot(m, m.T)
    assert (li.inspect.counters.numpy_fallbacks, li.inspect.counters.materializations) == before
    np.testing.assert_array_equal(np.asarray(y), np.dot(MASK, MASK.T), strict=True)


# -- compiled C ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BINARY) + sorted(UNARY))
def test_compiled_bool_kernels_match_numpy(name, compiled_device):
    """Each op over every operand: the whole table runs in one schedule, its kernels in C."""
    table = BINARY if name in BINARY else UNARY
    fn, _, ufunc = table[name]
    cases = list(_binary_cases(name)) if name in BINARY else [("bool", MASK)]
    with li.options(device=compiled_device):
        recorded = _record(fn, cases, ufunc, _complex_real_only(name, "function"))
        if not recorded:
            return
        target = DEVICES[compiled_device].target
        kernels = li.inspect.schedule(*(y for _, _, y in recorded)).kernels
        paths = [cpu.path_of(k, target) for k in kernels if k.kind is Kind.ELEMENTWISE]
        _compare(recorded)
    # NOTE: numpy computes complex numbers and integer powers; every other kernel is C.
    numpy = [p for p in paths if p != cpu.C_PATH]
    assert all("complex" in p or p.startswith("numpy chunks (pow(") for p in numpy), numpy
    assert cpu.C_PATH in paths, paths


def test_bool_ops_render_as_numpy_s_bool_loops_in_c(compiled_device):
    m1, m2 = MASK, MASK[::-1]
    with li.options(device=compiled_device):
        a, b = li.asarray(m1), li.asarray(m2)
        outputs = (a + b, a * b, li.maximum(a, b), li.minimum(a, b), abs(a), a < b, a >= b)
        (kernel,) = li.inspect.schedule(*outputs).kernels
        assert cpu.path_of(kernel, DEVICES[compiled_device].target) == cpu.C_PATH
        got = [np.asarray(y) for y in li.compute(*outputs)]
    want = [m1 | m2, m1 & m2, m1 | m2, m1 & m2, m1, m1 < m2, m1 >= m2]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w, strict=True)


_ANSWERED = ["isnan", "isinf", "isfinite", "signbit", "floor", "ceil", "trunc"]


@pytest.mark.parametrize("name", _ANSWERED)
def test_the_tests_and_roundings_of_bool_are_numpys(name):
    """numpy answers them for a bool array (isnan False, isfinite True, floor the array)."""
    fn = getattr(np, name)
    want = fn(MASK)
    for call in (fn, getattr(li, name)):
        got = np.asarray(call(li.asarray(MASK)))
        assert got.dtype == want.dtype and np.array_equal(got, want)
