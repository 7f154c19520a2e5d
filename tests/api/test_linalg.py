"""matmul, tensordot, vecdot (and @) and the linalg extension against array_api_compat.numpy:
shapes and dtypes known at record time, one LINALG node per result, errors naming the function."""

from __future__ import annotations

import inspect

import array_api_compat.numpy as xp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from tests.oracle import assert_close, assert_matches_reference

NUMERIC = (np.float32, np.float64, np.int16, np.uint8, np.complex64, np.complex128)


def rand(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(got, expected, tol=1e-6):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


# -- matmul, tensordot, vecdot -------------------------------------------------------------------
@st.composite
def matmul_shapes(draw):
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    b1 = batch[draw(st.integers(0, len(batch))) :]
    b2 = tuple(1 if draw(st.booleans()) else d for d in batch)
    s1 = (k,) if draw(st.booleans()) else b1 + (m, k)
    s2 = (k,) if draw(st.booleans()) else b2 + (k, n)
    return s1, s2


@given(matmul_shapes(), st.sampled_from(NUMERIC), st.sampled_from(NUMERIC))
def test_matmul_matches_numpy(shapes, d1, d2):
    a, b = rand(shapes[0], d1, 1), rand(shapes[1], d2, 2)
    dtype = li.result_type(d1, d2)
    got = assert_matches_reference(lambda x, y: x @ y, a, b)
    assert got.dtype == dtype
    assert_close(got, np.matmul(a.astype(dtype), b.astype(dtype)), dtype)
    check(li.matmul(li.asarray(a), li.asarray(b)), got)
    check(li.linalg.matmul(li.asarray(a), li.asarray(b)), got)


def test_a_matmul_of_one_dtype_records_one_node_on_the_users_line():
    """Operands of one dtype (views included) record one MATMUL node over their own nodes, with
    the caller's line, and compute numpy's product; mixed dtypes still cast first."""
    a, b = rand((5, 4), np.float32), rand((5, 3), np.float32)
    x, y = li.asarray(a), li.asarray(b)
    product = x.T @ y
    line = f"test_linalg.py:{inspect.currentframe().f_lineno - 1}"  # the line above
    graph = li.graph(product)
    ops = sorted(data["op"] for _, data in graph.nodes(data=True))
    assert ops == ["buffer", "buffer", "matmul", "permute_dims"], ops
    matmul = [data for _, data in graph.nodes(data=True) if data["op"] == "matmul"]
    assert matmul[0]["source"].endswith(line)
    check(product, a.T @ b)
    mixed = li.graph(x.T @ li.asarray(b.astype(np.float64)))
    assert "astype" in {data["op"] for _, data in mixed.nodes(data=True)}


def test_matmul_operators():
    a, b = rand((3, 4)), rand((4, 4))
    x = li.asarray(a)
    check(b @ x.T, b @ a.T)  # a numpy array on the left defers to __rmatmul__
    x @= li.asarray(b)
    check(x, a @ b)
    with pytest.raises(TypeError, match="^__imatmul__: "):
        y = li.asarray(a)
        y @= li.asarray(rand((4, 2)))


def test_matmul_errors():
    with pytest.raises(ValueError, match="^matmul: "):
        li.matmul(li.asarray(1.0), li.ones(3))
    with pytest.raises(ValueError, match="^matmul: "):
        li.matmul(li.ones((2, 3)), li.ones((4, 2)))
    with pytest.raises(ValueError, match="^matmul: "):
        li.matmul(li.ones((2, 2, 3)), li.ones((3, 3, 2)))
    with pytest.raises(TypeError, match="^matmul: dtypes uint64 and int8 have no common type"):
        li.matmul(li.ones(3, dtype=li.uint64), li.ones(3, dtype=li.int8))
    with pytest.raises(TypeError, match="^matmul: "):
        li.matmul(li.ones(3), 2.0)
    # Extension (numpy): bools multiply as numpy's do (tests/api/test_bool_arithmetic.py)
    assert li.matmul(li.ones(3, dtype=li.bool), li.ones(3, dtype=li.bool)).dtype == li.bool


@settings(max_examples=30)
@given(st.data())
def test_tensordot_matches_numpy(data):
    s1 = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3), "s1")
    n = data.draw(st.integers(0, len(s1)), "n")
    tail = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3), "tail")
    order = data.draw(st.permutations(range(n + len(tail))), "order")
    contracted = s1[len(s1) - n :]
    s2_natural = contracted + tail
    s2 = tuple(s2_natural[i] for i in order)
    a, b = rand(s1, np.float32, 1), rand(s2, np.float64, 2)
    axes1 = list(range(len(s1) - n, len(s1)))
    axes2 = [order.index(i) - len(s2) for i in range(n)]  # negative axes too
    got = assert_matches_reference(lambda x, y: li.tensordot(x, y, axes=(axes1, axes2)), a, b)
    check(got, np.tensordot(a.astype(np.float64), b, axes=(axes1, axes2)))
    if order == sorted(order):
        check(li.tensordot(li.asarray(a), li.asarray(b), axes=n), got)


def test_tensordot_errors():
    x = li.ones((2, 3))
    with pytest.raises(ValueError, match="^tensordot: "):
        li.tensordot(x, x, axes=3)
    with pytest.raises(ValueError, match="^tensordot: "):
        li.tensordot(x, x, axes=([0], [1]))
    with pytest.raises(ValueError, match="^tensordot: "):
        li.tensordot(x, x, axes=([0, 0], [0, 0]))


@given(st.data())
def test_vecdot_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3), "shape")
    axis = data.draw(st.integers(-len(shape), -1), "axis")
    keep = len(shape) + axis  # the contracted axis is never broadcast
    other = tuple(1 if data.draw(st.booleans()) and i != keep else d for i, d in enumerate(shape))
    other = other[data.draw(st.integers(0, keep), "drop") :]
    dtype = data.draw(st.sampled_from((np.float32, np.complex128, np.int32)), "dtype")
    a, b = rand(shape, dtype, 1), rand(other, dtype, 2)
    got = assert_matches_reference(lambda x, y: li.vecdot(x, y, axis=axis), a, b)
    # Note (spec): x1 is conjugated.
    expected = np.sum(np.conj(a) * b, axis=axis).astype(dtype)
    check(got, expected, 1e-4 if dtype == np.float32 else 1e-9)


def test_vecdot_errors():
    with pytest.raises(ValueError, match="^vecdot: "):
        li.vecdot(li.ones((2, 3)), li.ones((2, 4)))
    with pytest.raises(IndexError, match="^vecdot: "):
        li.vecdot(li.ones((2, 3)), li.ones(3), axis=-2)


# -- the linalg extension ------------------------------------------------------------------------
def spd(shape, dtype=np.float64):
    a = rand(shape, dtype)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1], dtype=dtype)


SQUARE = rand((2, 3, 3))
WIDE = rand((2, 3, 5))
TALL = rand((4, 2))

ONE_OUT = [
    ("cholesky", spd((2, 3, 3)), {}),
    ("cholesky", spd((3, 3), np.complex128), {"upper": True}),
    ("det", SQUARE, {}),
    ("diagonal", WIDE, {"offset": 2}),
    ("diagonal", WIDE, {"offset": -1}),
    ("eigvalsh", spd((3, 3)), {}),
    ("eigvals", SQUARE, {}),
    ("inv", SQUARE, {}),
    ("inv", SQUARE.astype(np.float32), {}),
    ("matrix_norm", WIDE, {}),
    ("matrix_norm", WIDE, {"ord": -np.inf, "keepdims": True}),
    ("matrix_norm", SQUARE.astype(np.complex64), {"ord": "nuc"}),
    ("matrix_power", SQUARE, {"n": 3}),
    ("matrix_power", SQUARE, {"n": -1}),
    ("matrix_rank", WIDE, {}),
    ("matrix_rank", TALL, {"rtol": 0.5}),
    ("pinv", WIDE, {}),
    ("svdvals", WIDE, {}),
    ("trace", WIDE, {"offset": 1}),
    ("trace", np.ones((3, 3), np.int8), {}),
    ("trace", np.ones((3, 3), np.uint16), {}),
    ("trace", np.ones((3, 3), np.int8), {"dtype": li.int8}),
    ("vector_norm", WIDE, {}),
    ("vector_norm", WIDE, {"axis": (0, -1), "ord": 1, "keepdims": True}),
    ("vector_norm", WIDE.astype(np.complex128), {"axis": 1, "ord": np.inf}),
    ("vector_norm", WIDE, {"axis": -1, "ord": 0.5}),
]


@pytest.mark.parametrize(
    "name, x, kwargs", ONE_OUT, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ONE_OUT)]
)
def test_one_output_functions_match_array_api_compat(name, x, kwargs):
    args = dict(kwargs)
    n = args.pop("n", None)
    extra = () if n is None else (n,)
    got = assert_matches_reference(lambda a: getattr(li.linalg, name)(a, *extra, **args), x)
    expected = getattr(xp.linalg, name)(x, *extra, **args)
    if name == "eigvals":  # Note (spec): complex results even for real eigenvalues
        expected = expected.astype(np.complex128)
    if name == "trace" and x.dtype == np.uint16:
        assert got.dtype == np.uint64  # Note (spec): the unsigned default-width integer
        expected = expected.astype(np.uint64)
    check(got, expected, 1e-4 if x.dtype in (np.float32, np.complex64) else 1e-8)


def test_multi_output_functions_are_namedtuples():
    a, h = SQUARE, spd((2, 3, 3), np.complex128)
    x = li.asarray(a)
    w, v = li.linalg.eigh(li.asarray(h))
    assert w.dtype == li.float64 and v.dtype == li.complex128
    check(w, xp.linalg.eigh(h).eigenvalues)
    check(li.linalg.eigh(li.asarray(h)).eigenvectors, xp.linalg.eigh(h).eigenvectors)
    eig = li.linalg.eig(x)
    assert eig._fields == ("eigenvalues", "eigenvectors") and eig.eigenvalues.dtype == li.complex128
    check(eig.eigenvalues, np.linalg.eig(a).eigenvalues.astype(np.complex128))
    for mode in ("reduced", "complete"):
        q, r = li.linalg.qr(li.asarray(WIDE), mode=mode)
        expected = xp.linalg.qr(WIDE, mode=mode)
        check(q, expected.Q)
        check(r, expected.R)
    sign, logabsdet = li.linalg.slogdet(li.asarray(h))
    assert sign.dtype == li.complex128 and logabsdet.dtype == li.float64
    check(logabsdet, xp.linalg.slogdet(h).logabsdet)
    for full in (True, False):
        res = li.linalg.svd(li.asarray(TALL), full_matrices=full)
        assert res._fields == ("U", "S", "Vh")
        for got, expected in zip(res, xp.linalg.svd(TALL, full_matrices=full), strict=True):
            check(got, expected)


def test_two_input_functions():
    a, b = SQUARE, rand((3,), np.float32, 1)
    got = assert_matches_reference(li.linalg.solve, a, b)
    check(got, np.linalg.solve(a, b.astype(np.float64)))
    c = rand((2, 3, 2), seed=3)
    check(li.linalg.solve(li.asarray(a), li.asarray(c)), np.linalg.solve(a, c))
    check(assert_matches_reference(li.linalg.outer, b, a[0, 0]), np.outer(b, a[0, 0]))
    u, v = rand((4, 3), seed=4), rand((3,), seed=5)
    check(assert_matches_reference(li.linalg.cross, u, v), np.cross(u, v))
    check(li.linalg.cross(li.asarray(u.T), li.asarray(u.T), axis=-2), np.cross(u.T, u.T, axis=0))
    check(li.linalg.tensordot(li.asarray(u), li.asarray(v), axes=1), u @ v)
    check(li.linalg.vecdot(li.asarray(u), li.asarray(v)), u @ v)
    check(li.linalg.matrix_transpose(li.asarray(u)), u.T)


@pytest.mark.parametrize("dtype", [np.float16, li.bfloat16, np.float32, np.int8])
def test_cross_rounds_each_product_as_numpy_does(dtype):
    # numpy's cross is a1 * b2 - a2 * b1 in the dtype, each product rounded: a half float's
    # in float32 and rounded once differs in the last bit (a third of 300 float16 vectors)
    rng = np.random.default_rng(6)
    u, v = (rng.standard_normal((300, 3)) * 4).astype(dtype), rng.standard_normal(3).astype(dtype)
    got = assert_matches_reference(li.linalg.cross, u, v, exact=True)
    assert_close(got, np.cross(u, v), np.dtype(dtype), exact=True)


def test_matrix_rank_with_an_array_rtol():
    rtol = li.asarray(np.array([0.5, 1e-9]))
    check(
        li.linalg.matrix_rank(li.asarray(WIDE), rtol=rtol),
        xp.linalg.matrix_rank(WIDE, rtol=np.array([0.5, 1e-9])),
    )


def test_half_floats_compute_in_float32():
    a = SQUARE[0].astype(li.float16)
    got = np.asarray(li.linalg.inv(li.asarray(a)))
    assert got.dtype == li.float16
    assert_close(got, np.linalg.inv(a.astype(np.float32)).astype(np.float16))


def test_recording_runs_nothing():
    x = li.asarray(WIDE)
    before = li.inspect.counters.kernels
    results = [
        li.linalg.svd(x),
        li.linalg.qr(x),
        li.linalg.matrix_norm(x),
        li.linalg.vector_norm(x),
        li.linalg.pinv(x),
        li.matmul(x, li.linalg.matrix_transpose(x)),
        li.linalg.eigh(li.asarray(SQUARE)),
        li.linalg.slogdet(li.asarray(SQUARE)),
    ]
    assert li.inspect.counters.kernels == before
    nodes = [r._node for res in results for r in (res if isinstance(res, tuple) else (res,))]
    assert all(n.op.label in ("linalg", "matmul") for n in nodes)
    assert li.linalg.svd(x).S._node.arg == (
        ("_function", "svd"),
        ("full_matrices", True),
        ("_index", 1),
    )


def test_linalg_errors_name_the_function():
    x = li.asarray(WIDE)
    for name in ("cholesky", "det", "inv", "eigh", "eigvalsh", "slogdet", "eig", "eigvals"):
        with pytest.raises(ValueError, match=f"^{name}: "):
            getattr(li.linalg, name)(x)
    with pytest.raises(TypeError, match="^inv: "):
        li.linalg.inv(li.ones((2, 2), dtype=li.int32))
    with pytest.raises(ValueError, match="^det: "):
        li.linalg.det(li.ones(3))
    with pytest.raises(ValueError, match="^matrix_norm: "):
        li.linalg.matrix_norm(x, ord=3)
    with pytest.raises(ValueError, match="^qr: "):
        li.linalg.qr(x, mode="r")
    with pytest.raises(ValueError, match="^solve: "):
        li.linalg.solve(li.asarray(SQUARE), li.ones(4))
    with pytest.raises(ValueError, match="^outer: "):
        li.linalg.outer(x, x)
    with pytest.raises(ValueError, match="^cross: "):
        li.linalg.cross(li.ones((2, 4)), li.ones((2, 4)))
    with pytest.raises(TypeError, match="^matrix_power: "):
        li.linalg.matrix_power(li.asarray(SQUARE), 1.5)
    with pytest.raises(ValueError, match="^vector_norm: "):
        li.linalg.vector_norm(x, axis=(0, 0))


@pytest.mark.parametrize("name", ["svd", "qr", "eigh", "slogdet"])
def test_one_item_of_a_call_computes_the_items_arrays_still_hold_in_the_same_call(name):
    """scikit-learn's LDA reads S (a bool() of rank) and Vh later: one library call, not two."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 4)) if name in ("svd", "qr") else rng.standard_normal((4, 4))
    a = a @ a.T if name == "eigh" else a
    expected = getattr(np.linalg, name)(a)
    first, *rest = getattr(li.linalg, name)(li.asarray(a))
    assert np.isfinite(float(li.sum(li.abs(first))))  # computes the first item
    kernels = li.inspect.counters.kernels
    for got, want in zip(rest, expected[1:]):
        assert got._node.op.label == "buffer"  # computed by the same call
        np.testing.assert_allclose(np.abs(np.asarray(got)), np.abs(want), atol=1e-10)
    assert li.inspect.counters.kernels == kernels


def test_an_item_no_array_holds_is_not_computed_for_its_siblings():
    x = li.asarray(np.random.default_rng(1).standard_normal((8, 3)))
    u, s, vh = li.linalg.svd(x, full_matrices=False)
    del u  # nobody holds U (8 x 3 float64: 192 bytes)
    written = li.inspect.counters.bytes_written
    assert float(li.max(s)) > 0
    assert vh._node.op.label == "buffer"
    assert li.inspect.counters.bytes_written - written == (3 + 9 + 1) * 8  # S, Vh, the max


def test_an_item_pending_work_reads_is_computed_with_its_siblings():
    """pca's pattern: no array holds Vh, but a pending in-place update of it is returned; the
    first materialization's svd computes it too, so the later one runs no second svd."""
    x = np.random.default_rng(2).standard_normal((9, 4))
    u, s, vh = li.linalg.svd(li.asarray(x), full_matrices=False)
    vh *= li.sign(u[0, :])[:, None]
    projected, components = u[:, :2] * s[:2], vh[:2]
    del u, s, vh
    np.asarray(projected)
    later = [repr(k) for k in li.inspect.schedule(components).kernels]
    assert not any("svd" in label for label in later), later
    u_np, s_np, vh_np = np.linalg.svd(x, full_matrices=False)
    want = vh_np * np.sign(u_np[0, :])[:, None]
    np.testing.assert_allclose(np.asarray(components), want[:2], atol=1e-12)


def test_a_matmul_reads_a_lazy_fill_as_a_dense_array(monkeypatch):
    """`w = np.zeros_like(X[0])` is a fill here, computed as a stride-0 view, where numpy's
    is an array: numpy multiplies a stride-0 operand in its own loop, not BLAS's (7x slower
    on a (200000, 64) X: the large linear-regression script's first step). The host's matmul
    reads it dense."""
    seen, real = [], np.matmul

    def spy(x1, x2, **kwargs):
        seen.append(x1.strides + x2.strides)
        return real(x1, x2, **kwargs)

    a = np.random.default_rng(0).standard_normal((50, 8))
    x = li.asarray(a)
    monkeypatch.setattr(np, "matmul", spy)
    for w, expected in (
        (np.zeros_like(x[0]), np.zeros(50)),
        (li.full((8,), 0.5), a @ np.full(8, 0.5)),
    ):
        np.testing.assert_allclose(np.asarray(x @ w), expected, rtol=1e-12)
    assert seen and all(0 not in strides for strides in seen), seen
