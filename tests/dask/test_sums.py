"""REDUCE kernels on dask: a float sum over the last axes of an elementwise value is one
blockwise layer whose tasks sum their block's rows in C as the prologue computes them, then
dask's tree over the partials; bit for bit the unfused schedule (the prologue's layer, then
dask's sum), on uneven chunks of every rank, with broadcast and transposed loads."""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
import dask.array as da  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import array_shapes  # noqa: E402

import lazyinfini as li  # noqa: E402
from lazyinfini._runtime.dask import summing  # noqa: E402
from lazyinfini._schedule import Kind  # noqa: E402

pytestmark = pytest.mark.usefixtures("synchronous")


@pytest.fixture(scope="module")
def unfused_dask():
    """The dask device compiling every kernel, planning no REDUCE kernel."""
    import dataclasses

    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._runtime.dask.device import TARGET, dask_device

    target = dataclasses.replace(TARGET, name="dask-unfused", compile_min=0, reduce_prologues=False)
    register_device(dask_device("dask-unfused", target))
    yield "dask-unfused"
    DEVICES.pop("dask-unfused", None)


@pytest.fixture
def summed(monkeypatch):
    """A record of the blocks summed in C (summing.run_call spied on)."""
    runs = []
    real = summing.run_call

    def spy(function, layout, bases, parallel):
        runs.append(layout.total)
        return real(function, layout, bases, parallel)

    monkeypatch.setattr(summing, "run_call", spy)
    return runs


def _program(x, y, broadcast=False):
    """A prologue of two operands and fills; `broadcast` adds a load broadcast along the last
    axis (no row walk views its blocks where two axes or more are summed)."""
    value = (x - y) * (x - y) + 0.5
    return value + li.clip(y, -1, 1)[..., :1] if broadcast else value


def _sums(device, a, b, chunks, axis, broadcast=False):
    with li.options(device=device):
        x = li.from_dask(da.from_array(a, chunks=chunks))
        y = li.from_dask(da.from_array(b, chunks=chunks))
        total = li.sum(_program(x, y, broadcast), axis=axis)
        kernels, note = li.inspect.schedule(total).kernels, li.explain(total)
        return np.asarray(total), kernels, note


@st.composite
def cases(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=9))
    dtype = draw(st.sampled_from([np.float32, np.float64, np.float16]))
    chunks = tuple(draw(st.integers(1, n)) for n in shape)
    summed = draw(st.integers(1, len(shape)))
    axis = tuple(range(len(shape) - summed, len(shape)))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    a, b = ((rng.standard_normal(shape) * 4).astype(dtype) for _ in range(2))
    return a, b, chunks, axis, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(cases())
def test_fused_sums_are_the_unfused_bits_on_any_chunks(compiled_dask, unfused_dask, case):
    a, b, chunks, axis, broadcast = case
    fused, kernels, note = _sums(compiled_dask, a, b, chunks, axis, broadcast)
    unfused, parts, _ = _sums(unfused_dask, a, b, chunks, axis, broadcast)
    assert kernels[-1].kind is Kind.REDUCE
    assert Kind.REDUCE not in {k.kind for k in parts}
    assert fused.dtype == unfused.dtype and fused.tobytes() == unfused.tobytes()
    own = a.dtype != np.float16  # NOTE: dask sums half floats widened: they run the parts
    assert ("each block's rows summed as computed" in note) == own, note
    x, y = a.astype(np.float64), b.astype(np.float64)
    expected = (x - y) * (x - y) + 0.5 + (np.clip(y, -1, 1)[..., :1] if broadcast else 0)
    expected = np.sum(expected, axis=axis)
    fits = np.abs(expected) < np.finfo(a.dtype).max / 2  # NOTE: float16 sums may overflow
    rtol = 1e-5 if own else 1e-2
    np.testing.assert_allclose(fused[fits], expected[fits], rtol=rtol, atol=1e-2)


@pytest.mark.parametrize(
    "chunks, axis, grid",
    [((25, 50), None, "3 chunks (3x1)"), ((25, 20), 1, "9 chunks (3x3)")],
)
def test_each_block_is_summed_in_c_without_writing_the_prologue(
    compiled_dask, summed, chunks, axis, grid
):
    """Blocks whose summed axes are one run (whole rows of a C array), or a last-axis sum of
    any block: each block's C function sums its rows, one call per block."""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 60, 50))
    fused, _, note = _sums(compiled_dask, a, b, chunks, axis)
    assert f"one layer of {grid}, the fused program (3 ops) per task as compiled C" in note
    assert "each block's rows summed as computed" in note, note
    assert len(summed) == int(grid.split()[0])
    with li.options(device="cpu"):
        x, y = li.asarray(a), li.asarray(b)
        np.testing.assert_allclose(fused, np.asarray(li.sum(_program(x, y), axis=axis)))


def test_blocks_a_row_walk_cannot_view_run_the_prologue_then_numpy_s_sum(
    compiled_dask, unfused_dask, summed
):
    """A load broadcast along one summed axis and not the next, or a block of a wider array
    summed over two axes: no (rows, row length) view of their blocks; they compute the
    prologue and numpy's sum, the unfused chunk step."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 1, 5)).astype(np.float32)
    b = rng.standard_normal((6, 4, 5)).astype(np.float32)

    def total(device):
        with li.options(device=device):
            x = li.from_dask(da.from_array(a, chunks=(3, 1, 3)))
            y = li.from_dask(da.from_array(b, chunks=(3, 2, 3)))
            return np.asarray(li.sum(li.exp(x) * y, axis=(1, 2)))

    fused = total(compiled_dask)
    assert summed == []
    assert fused.tobytes() == total(unfused_dask).tobytes()
    np.testing.assert_allclose(fused, np.sum(np.exp(a) * b, axis=(1, 2)), rtol=1e-5)
    whole, _, _ = _sums(compiled_dask, b[0], b[1], (3, 2), axis=None)  # 3x3 blocks of 4x5
    assert len(summed) == 4  # NOTE: the 3x2 blocks are no run; the others one row or column
    assert whole.tobytes() == _sums(unfused_dask, b[0], b[1], (3, 2), axis=None)[0].tobytes()
