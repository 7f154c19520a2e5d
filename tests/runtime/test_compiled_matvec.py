"""Matrix-vector products in C (compiled_matvec.py): within the error bound of numpy's over
shapes, layouts (rows or columns contiguous, strided vectors) and float dtypes; the same bits
on any number of threads; chosen only for large, narrow matrices on a compiling device, and
said so by explain()."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._counters import counters
from lazyinfini._render import matvec
from lazyinfini._render.compile import NoCompiler, compiler
from lazyinfini._runtime import compiled_matvec
from lazyinfini._runtime.cpu import MATVEC_PATH, TARGET
from tests.oracle import assert_within_sum_bound

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


@pytest.fixture
def every_product(monkeypatch):
    """The C path for matrices of any size and width (the plans of earlier kernels forgotten)."""
    monkeypatch.setattr(compiled_matvec, "MIN_BYTES", 0)
    monkeypatch.setattr(compiled_matvec, "MAX_COLS", 1 << 62)
    compiled_matvec._PLANS.clear()
    yield
    compiled_matvec._PLANS.clear()


def _operands(rows, cols, dtype, matrix_at, by_columns, step, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((cols, rows) if by_columns else (rows, cols)).astype(dtype)
    a = a.T if by_columns else a
    length = rows if matrix_at == 1 else cols
    v = rng.standard_normal(length * step).astype(dtype)[::step]
    return (a, v) if matrix_at == 0 else (v, a)


# NOTE: the fixture only sets module constants: the same for every example
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(0, 3 * matvec.PIECE_ROWS + 5),
    st.integers(0, 40),
    st.sampled_from([np.float32, np.float64]),
    st.integers(0, 1),
    st.booleans(),
    st.sampled_from([1, 3]),
)
def test_products_are_within_the_sum_bound_of_numpys(
    every_product, rows, cols, dtype, matrix_at, by_columns, step
):
    x1, x2 = _operands(rows, cols, dtype, matrix_at, by_columns, step)
    before = counters.c_matvecs
    got = np.asarray(li.asarray(x1) @ li.asarray(x2))
    if x1.size and x2.size:  # NOTE: an empty operand may be planned as a fill, not a product
        assert counters.c_matvecs == before + 1
    terms = cols if matrix_at == 0 else rows
    assert_within_sum_bound(got, x1 @ x2, np.abs(x1) @ np.abs(x2), terms)


@pytest.mark.parametrize("matrix_at", [0, 1])
@pytest.mark.parametrize("by_columns", [False, True])
def test_the_bits_do_not_depend_on_the_threads(matrix_at, by_columns):
    x1, x2 = _operands(5 * matvec.PIECE_ROWS + 7, 33, np.float64, matrix_at, by_columns, 1)
    parallel = compiled_matvec.run(matrix_at, x1, x2, parallel=True)
    serial = compiled_matvec.run(matrix_at, x1, x2, parallel=False)
    np.testing.assert_array_equal(parallel, serial)
    assert_within_sum_bound(parallel, x1 @ x2, np.abs(x1) @ np.abs(x2), x1.shape[-1])


def test_a_fit_loops_products_run_in_c_and_explain_says_so(every_product):
    """linear regression's step: X @ w and X.T @ e, each one C product; the numpy device
    (which compiles nothing) calls numpy's matmul."""
    rng = np.random.default_rng(1)
    x, w, t = rng.standard_normal((700, 5)), rng.standard_normal(5), rng.standard_normal(700)
    lx = li.asarray(x)
    error = lx @ li.asarray(w) - li.asarray(t)
    grad = lx.T @ error
    assert li.explain(grad).count(MATVEC_PATH) == 2
    before = counters.c_matvecs
    got = np.asarray(grad)
    assert counters.c_matvecs == before + 2
    e = np.asarray(error)  # NOTE: the error as computed (its last bits are ours, not BLAS's)
    assert_within_sum_bound(error, x @ w - t, np.abs(x) @ np.abs(w) + np.abs(t), 6)
    assert_within_sum_bound(got, x.T @ e, np.abs(x.T) @ np.abs(e), 700)
    before = counters.c_matvecs
    with li.options(device="numpy"):
        on_numpy = li.asarray(x) @ li.asarray(w)
        assert MATVEC_PATH not in li.explain(on_numpy)
        np.testing.assert_array_equal(np.asarray(on_numpy), x @ w)
    assert counters.c_matvecs == before


def test_small_or_wide_matrices_call_numpys_matmul():
    """By default only matrices past the last-level cache with narrow rows run in C: a small
    product is BLAS's call, bit for bit."""
    if TARGET.compile_min == 0:
        pytest.skip("LAZYINFINI_COMPILE_MIN=0: this run computes every product in C")
    compiled_matvec._PLANS.clear()
    rng = np.random.default_rng(2)
    x, v = rng.standard_normal((40, 6)), rng.standard_normal(6)
    before = counters.c_matvecs
    y = li.asarray(x) @ li.asarray(v)
    assert MATVEC_PATH not in li.explain(y)
    np.testing.assert_array_equal(np.asarray(y), x @ v)
    assert counters.c_matvecs == before


@pytest.mark.parametrize(
    "x1, x2",
    [
        (np.ones((8, 4), np.int64), np.ones(4, np.int64)),  # not a float
        (np.ones((8, 4)), np.ones((4, 2))),  # a matrix product
        (np.ones((2, 8, 4)), np.ones(4)),  # a stack of matrices
        (np.ones((8, 4), np.float32), np.ones(4)),  # two dtypes: cast first, then float64
    ],
)
def test_other_products_are_numpys(every_product, x1, x2):
    before = counters.c_matvecs
    y = li.asarray(x1) @ li.asarray(x2)
    expect_c = x1.dtype != x2.dtype  # NOTE: the cast makes both float64: a C product
    assert (MATVEC_PATH in li.explain(y)) == expect_c
    np.testing.assert_array_equal(np.asarray(y), x1 @ x2)
    assert counters.c_matvecs == before + expect_c


def test_without_a_compiler_numpys_matmul_computes_it(every_product, monkeypatch, request):
    def no_compiler(source):
        raise NoCompiler("none here")

    monkeypatch.setattr(compiled_matvec, "load", no_compiler)
    compiled_matvec.matvec_functions.cache_clear()  # NOTE: and again after: the real ones reload
    request.addfinalizer(compiled_matvec.matvec_functions.cache_clear)
    x, v = np.arange(12.0).reshape(4, 3), np.array([1.0, -2.0, 0.5])
    before = counters.c_fallbacks
    np.testing.assert_array_equal(np.asarray(li.asarray(x) @ li.asarray(v)), x @ v)
    assert counters.c_fallbacks == before + 1
