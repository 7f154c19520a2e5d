"""A gradient step's two products in one pass over the matrix (compiled_chain.py): y = A v, an
elementwise e = f(y, ...), g = A^T e. Chained, the values are the three kernels' bit for bit
(the unfused schedule's, which cannot chain), on any number of threads, within the error bound
of numpy's; explain() says so; a program that does not have the chain's form runs its
kernels one by one."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._counters import counters
from lazyinfini._render import matvec
from lazyinfini._render.compile import compiler
from lazyinfini._runtime import compiled_chain
from tests.oracle import assert_within_sum_bound

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")

STEPS = {
    "X @ w + b - t": lambda y, t: y + 0.5 - t,
    "maximum(X @ w, 0) * t": lambda y, t: np.maximum(y, 0) * t,
    "(X @ w - t) / 3": lambda y, t: (y - t) / 3,
}


def _operands(rows, cols, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols)).astype(dtype)
    return x, rng.standard_normal(cols).astype(dtype), rng.standard_normal(rows).astype(dtype)


def _step(x, w, t, f, transposed_view: bool):
    """g = X.T @ f(X @ w, t) (or f(...) @ X), and f's value."""
    error = f(x @ w, t)
    return (x.T @ error if transposed_view else error @ x), error


def _chained(device, x, w, t, f, transposed_view=True, fuse=True):
    with li.options(device=device, fuse=fuse):
        lx, lw, lt = li.asarray(x), li.asarray(w), li.asarray(t)
        g, error = _step(lx, lw, lt, f, transposed_view)
        text, before = li.explain(g, error), counters.c_chains
        got = li.compute(g, error)
        return [np.asarray(v) for v in got], counters.c_chains - before, text


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 3 * matvec.PIECE_ROWS + 5),
    st.integers(1, 40),
    st.sampled_from([np.float32, np.float64]),
    st.sampled_from(list(STEPS)),
    st.booleans(),
)
def test_a_chain_gives_the_unfused_kernels_bits(
    compiled_device, rows, cols, dtype, step, transposed_view
):
    x, w, t = _operands(rows, cols, dtype)
    f = STEPS[step]
    (g, error), chains, _ = _chained(compiled_device, x, w, t, f, transposed_view)
    assert chains == 1 or x.size == 1  # NOTE: a 1 x 1 matrix's transpose reads by rows too
    (g_apart, error_apart), none, _ = _chained(
        compiled_device, x, w, t, f, transposed_view, fuse=False
    )
    assert none == 0  # NOTE: unfused, no elementwise kernel reads y and is read by A^T e
    np.testing.assert_array_equal(g, g_apart)
    np.testing.assert_array_equal(error, error_apart)
    want_error = f(x @ w, t)
    assert_within_sum_bound(error, want_error, np.abs(x) @ np.abs(w) + np.abs(t), cols + 2)
    assert_within_sum_bound(g, x.T @ error, np.abs(x.T) @ np.abs(error), rows)


def test_the_bits_do_not_depend_on_the_threads(compiled_device, monkeypatch):
    x, w, t = _operands(4 * matvec.PIECE_ROWS + 3, 24, np.float64, seed=1)
    (threaded, _), chains, _ = _chained(compiled_device, x, w, t, STEPS["X @ w + b - t"])
    monkeypatch.setattr(compiled_chain, "THREADS", 1)
    (alone, _), again, _ = _chained(compiled_device, x, w, t, STEPS["X @ w + b - t"])
    assert chains == again == 1
    np.testing.assert_array_equal(threaded, alone)


def test_explain_says_which_kernels_run_together(compiled_device):
    x, w, t = _operands(700, 5, np.float64)
    _, _, text = _chained(compiled_device, x, w, t, STEPS["X @ w + b - t"])
    assert "together kernels 0, 1 and 2 run as one pass over the (700, 5) matrix" in text


def test_a_fit_loop_chains_every_step_and_keeps_the_unfused_bits(compiled_device):
    # NOTE: each step's schedule makes w (the last step's update) and the bias before the
    # chain's middle kernel: the first product waits for it, holding w's memory
    rng = np.random.default_rng(2)
    x, t = rng.standard_normal((1500, 7)), rng.standard_normal(1500)

    def fit(fuse: bool):
        with li.options(device=compiled_device, fuse=fuse):
            lx, lt = li.asarray(x), li.asarray(t)
            w, b = np.zeros_like(lx[0]), 0.0
            for _ in range(4):
                error = lx @ w + b - lt
                grad = lx.T @ error / 1500
                b -= 0.1 * error.mean()
                w -= 0.1 * grad
                assert bool(np.abs(grad).max() >= 0)
            return np.asarray(w), np.asarray(b)

    before = counters.c_chains
    chained = fit(True)
    assert counters.c_chains - before == 4
    apart = fit(False)
    np.testing.assert_array_equal(chained[0], apart[0])
    np.testing.assert_array_equal(chained[1], apart[1])


@pytest.mark.parametrize(
    "program",
    [
        "y read twice",  # a second reader of X @ w: the first product cannot wait for one
        "another matrix",  # A^T e of another matrix than the one A v read
        "a column of e",  # A^T of a strided e: not the middle kernel's output read whole
    ],
)
def test_other_forms_run_their_kernels_one_by_one(compiled_device, program):
    x, w, t = _operands(600, 6, np.float64)
    other = x[::-1].copy()
    with li.options(device=compiled_device):
        lx, lw, lt = li.asarray(x), li.asarray(w), li.asarray(t)
        y = lx @ lw
        if program == "y read twice":
            g, want = lx.T @ (y - lt) + li.sum(y), x.T @ (x @ w - t) + np.sum(x @ w)
        elif program == "another matrix":
            g, want = li.asarray(other).T @ (y - lt), other.T @ (x @ w - t)
        else:
            e = li.stack([y - lt, y + lt])
            g, want = lx.T @ e[0], x.T @ (x @ w - t)
        before = counters.c_chains
        got = np.asarray(g)
        assert counters.c_chains == before
        assert "together" not in li.explain(g)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


def test_without_the_matvec_library_the_kernels_run_apart(compiled_device, monkeypatch):
    x, w, t = _operands(900, 9, np.float64)
    monkeypatch.setattr(compiled_chain, "matvec_functions", lambda dtype: None)
    (g, error), chains, _ = _chained(compiled_device, x, w, t, STEPS["X @ w + b - t"])
    assert chains == 0
    assert_within_sum_bound(error, x @ w + 0.5 - t, np.abs(x) @ np.abs(w) + np.abs(t) + 1, 11)
    assert_within_sum_bound(g, x.T @ error, np.abs(x.T) @ np.abs(error), 900)
