"""eye, linspace, meshgrid, tril, triu against numpy: sources recorded lazily, meshgrid as
broadcast views, triangles as one opaque kernel."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from tests.oracle import assert_close, assert_matches_reference, check_schedule

DTYPES = (
    li.float32,
    li.float64,
    li.int32,
    li.uint8,
    li.bool,
    li.complex64,
    li.float16,
    li.bfloat16,
)


def on_every_executor(make):
    """make() computed on every executor, fused and unfused; the values must agree."""
    return assert_matches_reference(lambda: make(), exact=True)


@given(
    st.integers(0, 6), st.none() | st.integers(0, 6), st.integers(-7, 7), st.sampled_from(DTYPES)
)
def test_eye_matches_numpy(rows, cols, k, dtype):
    got = on_every_executor(lambda: li.eye(rows, cols, k=k, dtype=dtype))
    expected = np.eye(rows, cols, k=k).astype(dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)


def test_eye_defaults_and_fuses():
    assert li.eye(3).dtype == li.float64 and li.eye(3).shape == (3, 3)
    check_schedule(li.eye(4) * 2 + 1, kernels=2)  # the source, then one fused elementwise pass


@given(
    st.floats(-1e3, 1e3) | st.integers(-100, 100),
    st.floats(-1e3, 1e3) | st.integers(-100, 100),
    st.integers(0, 20),
    st.booleans(),
    st.sampled_from((None, li.float32, li.float64)),
)
def test_linspace_real_matches_numpy(start, stop, num, endpoint, dtype):
    got = on_every_executor(lambda: li.linspace(start, stop, num, dtype=dtype, endpoint=endpoint))
    expected = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype or np.float64)
    assert_close(got, expected, np.dtype(dtype or np.float64))


def test_linspace_complex_and_integer():
    got = np.asarray(li.linspace(1 + 2j, 3, 5, endpoint=False))
    assert got.dtype == li.complex128
    assert_close(got, np.linspace(1 + 2j, 3, 5, endpoint=False))
    assert np.asarray(li.linspace(0, 1j, 3, dtype=li.complex64)).dtype == li.complex64
    # Note (spec): integer outputs are implementation-defined; we round down like numpy 2.
    np.testing.assert_array_equal(
        np.asarray(li.linspace(-5, 5, 4, dtype=li.int64)), np.linspace(-5, 5, 4, dtype=np.int64)
    )


@given(st.lists(st.integers(0, 4), max_size=4), st.sampled_from(("xy", "ij")))
def test_meshgrid_matches_numpy(lengths, indexing):
    inputs = [np.arange(n, dtype=np.int32) * (i + 1) for i, n in enumerate(lengths)]
    got = li.meshgrid(*(li.asarray(a) for a in inputs), indexing=indexing)
    assert isinstance(got, tuple) and len(got) == len(inputs)
    for g, e in zip(got, np.meshgrid(*inputs, indexing=indexing), strict=True):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_array_equal(np.asarray(g), e)


def test_meshgrid_outputs_are_views():
    x, y = li.meshgrid(li.asarray(np.arange(3.0)), li.asarray(np.arange(4.0)))
    plan = check_schedule(x - y, kernels=1)
    assert all(load.broadcast for load in plan.kernels[0].loads)


@given(st.data())
def test_tril_triu_match_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=5), "shape")
    k = data.draw(st.integers(-6, 6), "k")
    dtype = data.draw(st.sampled_from((np.float32, np.int8, np.bool_, np.complex64)), "dtype")
    x = (np.random.default_rng(0).standard_normal(shape) * 4).astype(dtype)
    np.testing.assert_array_equal(
        assert_matches_reference(lambda a: li.tril(a, k=k), x), np.tril(x, k)
    )
    np.testing.assert_array_equal(
        assert_matches_reference(lambda a: li.triu(a, k=k), x), np.triu(x, k)
    )


def test_recording_runs_nothing():
    before = li.inspect.counters.kernels
    arrays = [
        li.eye(3),
        li.linspace(0, 1, 5),
        li.tril(li.ones((3, 3))),
        li.triu(li.ones((3, 3))),
        *li.meshgrid(li.arange(3), li.arange(2)),
    ]
    assert li.inspect.counters.kernels == before
    assert all(a._node.op.label != "buffer" for a in arrays)


def test_errors_name_the_function():
    with pytest.raises(ValueError, match="^eye: "):
        li.eye(-1)
    with pytest.raises(TypeError, match="^eye: "):
        li.eye(2.5)
    with pytest.raises(TypeError, match="^eye: "):
        li.eye(2, k=1.0)
    with pytest.raises(ValueError, match="^linspace: "):
        li.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="^linspace: "):
        li.linspace(0, 1j, 3, dtype=li.float64)
    with pytest.raises(TypeError, match="^linspace: "):
        li.linspace("a", 1, 3)
    with pytest.raises(ValueError, match="^meshgrid: "):
        li.meshgrid(li.ones((2, 2)))
    with pytest.raises(ValueError, match="^meshgrid: "):
        li.meshgrid(li.ones(2), indexing="yx")
    with pytest.raises(TypeError, match="^meshgrid: "):
        li.meshgrid(li.ones(2), li.ones(2, dtype=li.float32))
    with pytest.raises(ValueError, match="^tril: "):
        li.tril(li.ones(3))
    with pytest.raises(TypeError, match="^triu: "):
        li.triu(li.ones((2, 2)), k=0.5)
