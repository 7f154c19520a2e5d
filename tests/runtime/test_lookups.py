"""Histograms of bytes and 16-bit values, and lookups in tables by them (`lut[image]`), run
in C (lookups.py): numpy's results exactly, on any layout of the data, in one piece or on the
threads, and numpy's own loops where the C path does not apply or no compiler runs."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import lazyinfini as li
from lazyinfini._runtime import lookups

INDEXES = [np.uint8, np.uint16]
TABLES = [np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex128, np.bool_]


def _laid_out(a: np.ndarray, how: int) -> np.ndarray:
    """`a` as it is, reversed, or every other element of a wider array (same values)."""
    if a.ndim == 0:
        return a
    if how == 1:
        return np.ascontiguousarray(a[::-1])[::-1]
    if how == 2:
        wide = np.empty((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
        view = wide[..., ::2]
        view[...] = a
        return view
    return a


@st.composite
def indexes(draw, dtype):
    shape = draw(array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=40))
    top = np.iinfo(dtype).max
    high = draw(st.sampled_from([3, 255, top]))
    values = draw(arrays(dtype, shape, elements=st.integers(0, min(high, top))))
    return _laid_out(values, draw(st.integers(0, 2)))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(INDEXES).flatmap(indexes), st.integers(0, 70000))
def test_bincount_is_numpys(x, extra):
    length = (int(x.max()) + 1 if x.size else 0) + extra % 300
    expected = np.bincount(x.ravel(), minlength=length)
    got = np.asarray(np.bincount(li.asarray(x).ravel(), minlength=length))
    assert got.dtype == np.int64 and got.tobytes() == expected.astype(np.int64).tobytes()
    direct = lookups.bincount(x, length)
    assert direct is not None and direct.tobytes() == expected.astype(np.int64).tobytes()


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(INDEXES).flatmap(indexes),
    st.sampled_from([*TABLES, np.float16, ml_dtypes.bfloat16]),
    st.integers(0, 300),
)
def test_a_lookup_is_numpys_fancy_index(index, dtype, extra):
    size = (1 << (8 * index.itemsize)) + extra
    table = (np.arange(size) * 7 % 251 - 100).astype(dtype)
    got = np.asarray(li.asarray(table)[li.asarray(index)])
    expected = table[index]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()
    assert lookups.lookup(table, index) is not None


def test_large_inputs_run_in_pieces_on_the_threads(monkeypatch):
    monkeypatch.setattr(lookups, "THREADS", 2)
    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (3 * lookups.PIECE + 77,), dtype=np.uint8)
    assert len(lookups._pieces(image.size)) == 2
    lut = rng.standard_normal(256)
    assert lookups.lookup(lut, image).tobytes() == lut[image].tobytes()
    assert lookups.bincount(image, 256).tobytes() == np.bincount(image, minlength=256).tobytes()


def test_what_the_c_path_does_not_take_runs_numpys():
    """A table shorter than the index's range (numpy checks bounds and raises), a 2-d table,
    signed indexes: numpy's indexing, its errors included."""
    index = np.array([[3, 200]], np.uint8)
    short = np.arange(10.0)
    assert lookups.lookup(short, index) is None
    with pytest.raises(IndexError):
        np.asarray(li.asarray(short)[li.asarray(index)])
    assert lookups.lookup(np.zeros((256, 2)), index) is None
    assert lookups.lookup(np.zeros(256), index.astype(np.int16)) is None
    assert lookups.bincount(np.array([1, 2], np.int16), 3) is None
    table = np.arange(300.0)
    got = np.asarray(li.asarray(table.reshape(3, 100))[li.asarray(index % 3)])
    np.testing.assert_array_equal(got, table.reshape(3, 100)[index % 3])


def test_without_a_compiler_numpys_loops_run(monkeypatch):
    monkeypatch.setattr(lookups, "_functions", lambda: None)
    x = np.arange(1000, dtype=np.uint16) % 300
    assert lookups.bincount(x, 300) is None and lookups.lookup(np.arange(70000.0), x) is None
    got = np.asarray(np.bincount(li.asarray(x)))
    np.testing.assert_array_equal(got, np.bincount(x))
    table = np.arange(70000.0)
    np.testing.assert_array_equal(np.asarray(li.asarray(table)[li.asarray(x)]), table[x])


@pytest.mark.parametrize("size", [lookups.LEAST - 1, lookups.LEAST])
def test_small_inputs_take_numpys_loops_large_ones_c(monkeypatch, size):
    """Under LEAST elements the C calls' fixed cost exceeds numpy's whole loop: numpy counts
    and looks up; from LEAST on, C does (same bits either way)."""
    calls = []
    for name in ("bincount", "lookup"):
        real = getattr(lookups, name)
        monkeypatch.setattr(
            lookups, name, lambda *a, real=real, name=name: calls.append(name) or real(*a)
        )
    image = np.random.default_rng(5).integers(0, 256, size, dtype=np.uint8)
    lut = np.arange(256.0)[::-1].copy()
    counts = np.asarray(np.bincount(li.asarray(image), minlength=256))
    looked = np.asarray(li.asarray(lut)[li.asarray(image)])
    assert counts.tobytes() == np.bincount(image, minlength=256).tobytes()
    assert looked.tobytes() == lut[image].tobytes()
    assert calls == ([] if size < lookups.LEAST else ["bincount", "lookup"])
