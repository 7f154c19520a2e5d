"""Conformance carried into CI (which cannot fetch the official suite): every name of the
standard with its signature, and hypothesis properties of each function group against
array_api_strict, the reference implementation, on arrays drawn by hypothesis' Array API
strategies for lazyinfini."""

import inspect
import math

import array_api_strict as xs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import lazyinfini as li
from tests import spec_signatures as spec
from tests.oracle import assert_within_sum_bound

xps = make_strategies_namespace(li)
KINDS = {
    "P": inspect.Parameter.POSITIONAL_ONLY,
    "N": inspect.Parameter.POSITIONAL_OR_KEYWORD,
    "K": inspect.Parameter.KEYWORD_ONLY,
    "V": inspect.Parameter.VAR_POSITIONAL,
}


# Extension (numpy): where the standard makes a parameter keyword-only and numpy takes it by
# position (np.diff(x, 2), np.sum(x, 0)), lazyinfini accepts both: positional-or-keyword passes
# for the standard's keyword-only. tests/api/test_numpy_positional.py checks that every such
# position is numpy's, so `li.f(x, a)` means what `np.f(x, a)` does.
WIDENED = {KINDS["K"]: (KINDS["K"], KINDS["N"])}


def check_signature(fn, expected) -> None:
    params = inspect.signature(fn).parameters
    for name, kind, has_default in expected:
        name = name.lstrip("*")
        assert name in params, f"{fn.__name__}: no parameter {name!r}"
        param = params[name]
        accepted = WIDENED.get(KINDS[kind], (KINDS[kind],))
        assert param.kind in accepted, f"{fn.__name__}({name}): {param.kind} is not {kind}"
        if has_default:  # (a default the standard does not give is a harmless extension)
            assert param.default is not param.empty, f"{fn.__name__}({name}) needs a default"
    named = {e[0].lstrip("*") for e in expected} | {"self"}
    extra = [p for n, p in params.items() if n not in named]
    assert all(p.default is not p.empty for p in extra if p.kind != p.VAR_KEYWORD), extra


@pytest.mark.parametrize(
    "namespace, name",
    [(None, n) for n in spec.MAIN]
    + [("linalg", n) for n in spec.LINALG]
    + [("fft", n) for n in spec.FFT],
)
def test_every_function_exists_with_the_standard_signature(namespace, name):
    module = li if namespace is None else getattr(li, namespace)
    fn = getattr(module, name)
    check_signature(fn, {None: spec.MAIN, "linalg": spec.LINALG, "fft": spec.FFT}[namespace][name])


@pytest.mark.parametrize("name", sorted(spec.ARRAY))
def test_every_array_attribute_exists(name):
    expected = spec.ARRAY[name]
    if expected == "property":
        assert isinstance(getattr(li.Array, name), property), name
    else:
        check_signature(getattr(li.Array, name), expected)


def test_constants_dtypes_and_info():
    for name in spec.CONSTANTS:
        assert hasattr(li, name), name
    assert li.newaxis is None and li.e == math.e and math.isnan(li.nan)
    info = li.__array_namespace_info__()
    for name in spec.INFO_FUNCTIONS[1:]:
        assert callable(getattr(info, name)), name
    assert li.__array_api_version__ == "2025.12"
    assert set(info.dtypes()) >= {"bool", "int8", "uint64", "float32", "complex128"}


# -- properties against array_api_strict ------------------------------------------------------


def strict(x):
    return xs.asarray(np.asarray(x))


def assert_same(ours, theirs):
    ours, theirs = li.asarray(ours), np.asarray(theirs)
    assert np.dtype(ours.dtype) == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
    got = np.asarray(ours)
    if theirs.dtype.kind in "biu":
        np.testing.assert_array_equal(got, theirs)
    else:
        rtol = 1e-5 if theirs.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, theirs, rtol=rtol, atol=rtol, equal_nan=True)


def assert_same_sums(ours, theirs, magnitude, terms: int):
    ours, theirs = li.asarray(ours), np.asarray(theirs)
    assert np.dtype(ours.dtype) == theirs.dtype, (ours.dtype, theirs.dtype)
    assert_within_sum_bound(np.asarray(ours), theirs, np.asarray(magnitude), terms)


def run_both(name, *arrays, namespace=None, **kwargs):
    """`name` on lazyinfini and on array_api_strict; the strict result, or None if it refused."""
    ours_ns = li if namespace is None else getattr(li, namespace)
    theirs_ns = xs if namespace is None else getattr(xs, namespace)
    try:
        theirs = getattr(theirs_ns, name)(*[strict(a) for a in arrays], **kwargs)
    except (TypeError, ValueError, IndexError):
        return None, None  # outside the standard's domain; our extensions may accept it
    return getattr(ours_ns, name)(*arrays, **kwargs), theirs


UNARY = sorted(
    n
    for n, s in spec.MAIN.items()
    if [p[0] for p in s] == ["x"] and n not in ("nonzero",) and not n.startswith("unique")
)
BINARY = sorted(n for n, s in spec.MAIN.items() if [p[0] for p in s] == ["x1", "x2"])
SMALL = xps.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)


@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_unary_functions_match_the_reference(name, data):
    dtype = data.draw(xps.scalar_dtypes())
    # Note (spec): at complex infinities and NaNs, expm1 and tanh follow the standard's special
    # cases and the reference numpy's (tests/api/test_special_cases.py checks them); sign(z) =
    # z/|z| is NaN-ish there. Compare moderate finite z for those.
    if name in ("sign", "expm1", "tanh") and dtype in (li.complex64, li.complex128):
        width = 64 if dtype == li.complex64 else 128
        moderate = st.complex_numbers(max_magnitude=1e10, allow_nan=False, width=width)
        # NOTE: the reference's z / |z| overflows to inf + nan j at subnormal |z|; ours does not
        moderate = moderate.filter(lambda z: z == 0 or abs(z) > 1e-30)
        x = data.draw(xps.arrays(dtype, SMALL, elements=moderate), label="x")
    else:
        x = data.draw(xps.arrays(dtype, SMALL), label="x")
    ours, theirs = run_both(name, x)
    if theirs is not None:  # else outside the standard's domain: extensions may accept it
        assert_same(ours, theirs)


@pytest.mark.parametrize("name", BINARY)
@given(data=st.data())
def test_binary_functions_match_the_reference(name, data):
    shapes = data.draw(xps.mutually_broadcastable_shapes(2, max_dims=3, max_side=4))
    dtype = data.draw(xps.scalar_dtypes())
    # Note (spec): with infinities, floor_divide follows the standard and the reference follows
    # numpy (tests/api/test_special_cases.py checks those); compare finite operands here.
    floating = dtype in (li.float32, li.float64, li.complex64, li.complex128)
    finite = {"allow_infinity": False} if name == "floor_divide" and floating else None
    x1 = data.draw(xps.arrays(dtype, shapes.input_shapes[0], elements=finite), label="x1")
    x2 = data.draw(xps.arrays(dtype, shapes.input_shapes[1], elements=finite), label="x2")
    if name in ("bitwise_left_shift", "bitwise_right_shift", "pow") and dtype in xps_ints():
        x2 = li.abs(x2) % 8  # negative shifts/exponents of integers are undefined
    ours, theirs = run_both(name, x1, x2)
    if theirs is not None:
        assert_same(ours, theirs)


def xps_ints():
    return (li.int8, li.int16, li.int32, li.int64, li.uint8, li.uint16, li.uint32, li.uint64)


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "std", "var", "all", "any", "argmax", "argmin"]


@pytest.mark.parametrize("name", REDUCTIONS + ["count_nonzero", "cumulative_sum", "sort"])
@given(data=st.data())
def test_reductions_scans_and_sorts_match_the_reference(name, data):
    x = data.draw(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=1, max_dims=3)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    ours, theirs = run_both(name, x, axis=axis)
    if theirs is not None:
        assert_same(ours, theirs)


MANIPULATIONS = {
    "flip": lambda x, d: {"axis": d.draw(st.integers(-x.ndim, x.ndim - 1))},
    "roll": lambda x, d: {"shift": d.draw(st.integers(-5, 5)), "axis": x.ndim - 1},
    "expand_dims": lambda x, d: {"axis": d.draw(st.integers(-x.ndim - 1, x.ndim))},
    "squeeze": lambda x, d: {"axis": tuple(i for i, n in enumerate(x.shape) if n == 1)},
    "permute_dims": lambda x, d: {"axes": tuple(d.draw(st.permutations(range(x.ndim))))},
    "reshape": lambda x, d: {"shape": (-1,)},
    "tile": lambda x, d: {"repetitions": (2,) * x.ndim},
    "repeat": lambda x, d: {"repeats": 2, "axis": 0},
    "moveaxis": lambda x, d: {"source": 0, "destination": x.ndim - 1},
}


@pytest.mark.parametrize("name", sorted(MANIPULATIONS))
@given(data=st.data())
def test_manipulation_functions_match_the_reference(name, data):
    x = data.draw(xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=1, max_dims=3)))
    kwargs = MANIPULATIONS[name](x, data)
    ours, theirs = run_both(name, x, **kwargs)
    if theirs is not None:
        assert_same(ours, theirs)


@given(data=st.data())
def test_joining_and_linear_algebra_match_the_reference(data):
    dtype = data.draw(xps.floating_dtypes() | xps.integer_dtypes())
    n, m, k = (data.draw(st.integers(1, 4)) for _ in range(3))
    a = data.draw(xps.arrays(dtype, (n, m)))
    b = data.draw(xps.arrays(dtype, (m, k)))
    c = data.draw(xps.arrays(dtype, (n, m)))
    for name, args, kwargs in [
        ("matmul", (a, b), {}),
        ("tensordot", (a, b), {"axes": 1}),
        ("vecdot", (a, c), {}),
    ]:
        ours, theirs = run_both(name, *args, **kwargs)
        if theirs is not None:
            # Note: the reference's sums run in its BLAS's order, which depends on the CPU:
            # compared within the bound of a sum of m products, not bit for bit.
            magnitude = getattr(xs, name)(*(xs.abs(strict(x)) for x in args), **kwargs)
            assert_same_sums(ours, theirs, magnitude, m)
    ours = li.concat((a, c), axis=0)
    assert_same(ours, xs.concat((strict(a), strict(c)), axis=0))
    assert_same(li.stack((a, c), axis=-1), xs.stack((strict(a), strict(c)), axis=-1))


@given(
    start=st.integers(-20, 20),
    stop=st.integers(-20, 20),
    step=st.integers(1, 5) | st.integers(-5, -1),
    n=st.integers(0, 6),
    k=st.integers(-3, 3),
)
def test_creation_functions_match_the_reference(start, stop, step, n, k):
    assert_same(li.arange(start, stop, step), xs.arange(start, stop, step))
    assert_same(li.linspace(start, stop, n), xs.linspace(start, stop, n))
    assert_same(li.eye(n, n + 1, k=k), xs.eye(n, n + 1, k=k))
    square = li.reshape(li.arange(n * n), (n, n))
    assert_same(li.tril(square, k=k), xs.tril(strict(square), k=k))
    assert_same(li.triu(square, k=k), xs.triu(strict(square), k=k))
    assert_same(li.full((n, 2), start), xs.full((n, 2), start))


@given(data=st.data())
def test_data_dependent_functions_match_the_reference(data):
    x = data.draw(xps.arrays(xps.integer_dtypes(), xps.array_shapes(min_dims=1, max_dims=2)))
    assert_same(li.unique_values(x), xs.unique_values(strict(x)))
    for ours, theirs in zip(li.nonzero(x), xs.nonzero(strict(x))):
        assert_same(ours, theirs)
    mask = x > 0
    assert_same(x[mask], strict(x)[strict(mask)])
    assert_same(
        li.where(mask, x, li.zeros_like(x)),
        xs.where(strict(mask), strict(x), xs.zeros_like(strict(x))),
    )
