"""The dask device against the reference device, on tiny uneven chunks (every axis of length 3
or more in two or more chunks, the last one shorter) with dask's synchronous scheduler: the
elementwise and movement programs of tests/runtime/test_cpu_differential.py bit for bit, each
block in numpy and in C (the "dask-compiled" device compiles every kernel), fused and unfused,
and library calls (reductions, scans, sorts, products, linalg, fft) within each dtype's
tolerance."""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import array_shapes, arrays  # noqa: E402

import lazyinfini as li  # noqa: E402
from tests.runtime.test_cpu_differential import OPS, programs  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


def uneven_chunks(shape) -> tuple[int, ...]:
    """Two or more chunks on every axis of length 3+, the last one shorter (3 -> 2+1,
    4 -> 3+1, 5 -> 3+2); shorter axes in one chunk."""
    return tuple(n // 2 + 1 if n >= 3 else max(n, 1) for n in shape)


def source(data: np.ndarray, how: str):
    """The program's input: a dask array in uneven chunks, or numpy (chunked in 2s)."""
    if how == "dask":
        return li.from_dask(da.from_array(data, chunks=uneven_chunks(data.shape)))
    return li.asarray(data)


def run(fn, data, device: str, how: str = "numpy") -> np.ndarray:
    with li.options(device=device):
        return np.asarray(fn(source(data, how)))


def steps_of(steps):
    def fn(v):
        for name, seed in steps:
            v = OPS[name](v, seed)
        return v

    return fn


def test_uneven_chunks_split_every_long_axis():
    for n in range(3, 12):
        (chunks,) = da.core.normalize_chunks(uneven_chunks((n,)), (n,))
        assert len(chunks) >= 2 and chunks[-1] < chunks[0], (n, chunks)


def test_a_slice_of_length_one_broadcasts_against_a_longer_axis():
    # NOTE: dask's x[1:2:2] of blocks of 2 is blocks (1, 0): the empty block beside the value made
    # blockwise refuse to broadcast it ("Chunks do not add up to same value"; the li fuzz's find).
    data = np.arange(7, dtype=np.int32)
    for how in ("numpy", "dask"):
        with li.options(device="dask"):
            v = source(data, how)
            y = li.minimum(v[1:2:2, None], v[None, 6:3:-2]) - v[6:3:-2]
            np.testing.assert_array_equal(np.asarray(y), [[-5, -3]])


def test_a_stepped_slice_with_an_empty_block_reshapes():
    # NOTE: x[1:-1:2] of blocks (2, 2) is blocks (1, 0), on which dask's reshape raised an
    # IndexError (the dask fuzz's find: v7[1:-1:2, 0, 0] of a computed value)
    data = np.arange(36, dtype=np.float32).reshape(4, 3, 3)
    for how in ("numpy", "dask"):
        with li.options(device="dask"):
            v = source(data, how) * 2
            got = [np.asarray(v[1:-1:2, 0, 0]), np.asarray(li.reshape(v[1:-1:2, :2], (-1,)))]
        np.testing.assert_array_equal(got[0], data[1:-1:2, 0, 0] * 2)
        np.testing.assert_array_equal(got[1], (data[1:-1:2, :2] * 2).reshape(-1))


@given(programs(), st.sampled_from(["dask", "numpy"]))
def test_elementwise_and_movement_match_reference_bit_for_bit(program, how):
    data, steps = program
    expected = run(steps_of(steps), data, "reference")
    actual = run(steps_of(steps), data, "dask", how)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == np.ascontiguousarray(expected).tobytes()


@given(programs(), st.sampled_from(["dask", "numpy"]), st.booleans())
def test_compiled_blocks_match_reference_bit_for_bit(compiled_dask, program, how, fuse):
    """Every block in C (fused == unfused == reference), over the same uneven chunks."""
    data, steps = program
    expected = run(steps_of(steps), data, "reference")
    with li.options(fuse=fuse):
        actual = run(steps_of(steps), data, compiled_dask, how)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == np.ascontiguousarray(expected).tobytes()


def _matrix(v, axis):
    return li.matmul(v, li.matrix_transpose(v)) if v.ndim >= 2 else li.vecdot(v, v)


# name -> (fn(v, axis), the dtypes it takes: None for all)
CALLS = {
    "sum": (lambda v, a: li.sum(v, axis=a), None),
    "sum_all": (lambda v, a: li.sum(v), None),
    "prod": (lambda v, a: li.prod(v, axis=a, keepdims=True), None),
    "mean": (lambda v, a: li.mean(v, axis=a), None),
    "max": (lambda v, a: li.max(v, axis=a), None),
    "min_all": (lambda v, a: li.min(v), None),
    "std": (lambda v, a: li.std(v, axis=a, correction=1), "float"),
    "var": (lambda v, a: li.var(v, axis=a), "float"),
    "any": (lambda v, a: li.any(v > 2, axis=a), None),
    "all": (lambda v, a: li.all(v > -5, axis=a), None),
    "argmax": (lambda v, a: li.argmax(v, axis=a), None),
    "argmin_flat": (lambda v, a: li.argmin(v, keepdims=True), None),
    "count_nonzero": (lambda v, a: li.count_nonzero(v, axis=a), None),
    "cumulative_sum": (lambda v, a: li.cumulative_sum(v, axis=a), None),
    "cumulative_prod0": (lambda v, a: li.cumulative_prod(v, axis=a, include_initial=True), None),
    "sort": (lambda v, a: li.sort(v, axis=a, descending=True), None),
    "argsort": (lambda v, a: li.argsort(v, axis=a), None),
    "matmul": (_matrix, None),
    "tensordot": (lambda v, a: li.tensordot(v, v, axes=v.ndim), None),
    "concat": (lambda v, a: li.concat([v, v * 2], axis=a), None),
    "stack": (lambda v, a: li.stack([v, -v], axis=a), None),
    "roll": (lambda v, a: li.roll(v, 2, axis=a), None),
    "flip": (lambda v, a: li.flip(v, axis=a), None),
    "tril": (lambda v, a: li.tril(v, k=-1) if v.ndim >= 2 else v, None),
    "take": (lambda v, a: li.take(v, li.asarray([2, 0, 0]), axis=a), None),
    "qr_r": (lambda v, a: li.linalg.qr(v).R if v.ndim >= 2 else v, "float"),
    "rfft": (lambda v, a: li.fft.rfft(v, axis=a), "float"),
    "correlate": (lambda v, a: np.correlate(li.reshape(v, (-1,)), li.reshape(v, (-1,))[:3]), None),
}
DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64]


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(CALLS)))
    floats = CALLS[name][1] == "float"
    dtype = draw(st.sampled_from([np.float32, np.float64] if floats else DTYPES))
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=3, max_side=6))
    data = draw(arrays(np.int8, shape, elements=st.integers(-4, 4))).astype(dtype)
    axis = draw(st.integers(0, len(shape) - 1))
    return name, data, axis


@given(calls(), st.sampled_from(["dask", "numpy"]))
def test_library_calls_match_reference(call, how):
    name, data, axis = call
    fn = CALLS[name][0]
    program = lambda v: fn(v * 2 - 1, axis)  # noqa: E731 (an input computed on the device)
    expected = run(program, data, "reference")
    actual = run(program, data, "dask", how)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:  # NOTE: blocked algorithms add in another order (a tree, a scan across chunks)
        tol = BLOCKED_TOLERANCE[np.dtype(actual.dtype.char.lower())]
        wide = np.complex128 if actual.dtype.kind == "c" else np.float64
        a, e = actual.astype(wide), expected.astype(wide)
        np.testing.assert_allclose(a, e, rtol=tol, atol=tol, equal_nan=True)


def test_a_flat_argmin_or_argmax_takes_the_first_of_ties_across_blocks():
    """dask's flat arg reductions break ties between blocks in block order: of the minima at
    (2, 0, 4) (block (1, 0, 1)) and (2, 2, 0) (block (1, 0, 0)) dask picks flat index 60, numpy
    the first, 52. The device reduces the flattened array instead."""
    data = np.zeros((3, 4, 6), np.float16)
    data[2, 0, 4] = data[2, 2, 0] = -1
    assert uneven_chunks(data.shape) == (2, 3, 4)
    for fn, sign in ((li.argmin, 1), (li.argmax, -1)):
        for keepdims in (False, True):
            program = lambda v: fn(v * sign, keepdims=keepdims)  # noqa: E731, B023
            expected = np.argmin(data, keepdims=keepdims)
            np.testing.assert_array_equal(run(program, data, "dask", "dask"), expected)


BLOCKED_TOLERANCE = {np.dtype(k): v for k, v in {"e": 4e-3, "f": 2e-6, "d": 1e-13}.items()}


def test_a_cached_schedule_binds_new_scalars_on_dask_too():
    """Fills are parameters of a cached schedule (_cache.py): each run's block functions take
    this run's values, equal scalars merged only where they are equal again."""
    x_np = np.linspace(-2.0, 2.0, 9)
    x = li.asarray(x_np)
    before = li.inspect.counters.schedules_reused
    with li.options(device="dask"):
        for a, b in ((1.0, 1.0), (1.0, 2.0), (-0.0, 0.5), (2.0, 2.0)):
            got = np.asarray(li.clip(x * a, -b, b) + a)
            np.testing.assert_array_equal(got, np.clip(x_np * a, -b, b) + a)
            assert np.array_equal(np.signbit(got), np.signbit(np.clip(x_np * a, -b, b) + a))
    assert li.inspect.counters.schedules_reused - before >= 2
