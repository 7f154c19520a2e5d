"""REDUCE kernels: a float sum (or mean) over the last axes with its elementwise prologue, one
pass. The cpu's C pass sums each row in numpy's pairwise order, so it gives numpy's bits and the
unfused schedule's (an elementwise kernel writing the value, then numpy's sum) for every row
length."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._runtime import cpu
from lazyinfini._schedule import Kind
from tests.conftest import cpu_variant

FLOATS = [np.float16, np.float32, np.float64]
HALVES_TOO = [*FLOATS, ml_dtypes.bfloat16]


@pytest.fixture(scope="module")
def unfused_sums():
    """The cpu device compiling every kernel but planning no REDUCE kernel: the schedule
    before prologues joined their sums (an elementwise kernel, then numpy's sum)."""
    yield from cpu_variant("cpu-unfused-sums", compile_min=0, reduce_prologues=False)


def _rows(dtype, lengths, rows=2, seed=0, scale=3.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((rows, n)) * scale).astype(dtype) for n in lengths]


def _prologue(a):
    return a * a - a


def _on(device: str, fn, arrays) -> list[np.ndarray]:
    with li.options(device=device):
        values = [fn(li.asarray(x)) for x in arrays]
        kinds = {k.kind for k in li.inspect.schedule(*values).kernels}
        li.compute(*values)  # NOTE: one schedule for them all
        return [np.asarray(v) for v in values], kinds


@pytest.mark.parametrize("dtype", HALVES_TOO, ids=lambda d: np.dtype(d).name)
def test_row_sums_are_numpys_bits_for_every_row_length_to_2000(
    dtype, compiled_device, unfused_sums
):
    arrays = _rows(dtype, range(1, 2001))
    fused, kinds = _on(compiled_device, lambda a: li.sum(_prologue(a), axis=-1), arrays)
    assert kinds == {Kind.REDUCE}
    unfused, kinds = _on(unfused_sums, lambda a: li.sum(_prologue(a), axis=-1), arrays)
    assert Kind.REDUCE not in kinds
    for x, got, before in zip(arrays, fused, unfused):
        assert got.tobytes() == before.tobytes(), x.shape
        if dtype is not ml_dtypes.bfloat16:  # NOTE: numpy sums bfloat16 in bfloat16
            assert got.tobytes() == np.sum(_prologue(x), axis=-1).tobytes(), x.shape


@pytest.mark.parametrize("dtype", HALVES_TOO, ids=lambda d: np.dtype(d).name)
def test_means_are_the_unfused_bits(dtype, compiled_device, unfused_sums):
    """A mean is its pairwise sum divided by the row length in float64 (numpy divides by an
    intp), rounded to float32 first for half floats (lazyinfini's mean of a half float)."""
    arrays = _rows(dtype, [*range(0, 300), 4097, 100_000], rows=3)

    def means(a):
        return li.mean(a * a - a, axis=-1)

    fused, kinds = _on(compiled_device, means, arrays)
    assert kinds == {Kind.REDUCE}
    unfused, _ = _on(unfused_sums, means, arrays)
    for x, got, before in zip(arrays, fused, unfused):
        assert got.tobytes() == before.tobytes(), x.shape
        if dtype in (np.float32, np.float64) and x.size:
            assert got.tobytes() == np.mean(_prologue(x), axis=-1).tobytes(), x.shape


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("length", [4097, 8192, 8193, 100_000])
def test_long_rows_and_whole_arrays_are_numpys_bits(dtype, length, compiled_device):
    (x,) = _rows(dtype, [length], rows=3, seed=length, scale=30 / length)  # NOTE: finite sums
    expected = [np.sum(_prologue(x), axis=-1), np.sum(_prologue(x)), np.sum(_prologue(x[0]))]
    with li.options(device=compiled_device):
        a = li.asarray(x)
        got = [li.sum(_prologue(a), axis=-1), li.sum(_prologue(a)), li.sum(_prologue(a[0]))]
        assert all(len(li.inspect.schedule(y).kernels) == 1 for y in got)
        li.compute(*got)
        for y, want in zip(got, expected):
            assert np.asarray(y).tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_borrowed_prologue_ops_give_numpys_bits(dtype, compiled_device, unfused_sums):
    """exp runs numpy's own loop on each run of a row, as the elementwise kernel does."""
    lengths = [1, 7, 8, 127, 128, 129, 300, 1000, 1025, 5000]
    arrays = _rows(dtype, lengths, rows=3)

    def softmax_denominator(a):
        return li.sum(li.exp(a - li.max(a, axis=-1, keepdims=True)), axis=-1)

    fused, kinds = _on(compiled_device, softmax_denominator, arrays)
    assert Kind.REDUCE in kinds
    unfused, _ = _on(unfused_sums, softmax_denominator, arrays)
    for x, got, before in zip(arrays, fused, unfused):
        expected = np.sum(np.exp(x - x.max(axis=-1, keepdims=True)), axis=-1)
        assert got.tobytes() == before.tobytes() == expected.tobytes(), x.shape


def test_empty_rows_sum_to_zero(compiled_device):
    x = np.ones((3, 0), np.float32)
    with li.options(device=compiled_device):
        y = li.sum(li.asarray(x) * 2, axis=-1)
        assert [k.kind for k in li.inspect.schedule(y).kernels] == [Kind.REDUCE]
        assert np.asarray(y).tobytes() == np.zeros(3, np.float32).tobytes()


def test_trailing_axes_are_one_row(compiled_device):
    x = np.random.default_rng(3).standard_normal((5, 7, 129)).astype(np.float32)
    with li.options(device=compiled_device):
        y = li.sum(li.abs(li.asarray(x) - 0.25), axis=(1, 2), keepdims=True)
        (kernel,) = li.inspect.schedule(y).kernels
        assert kernel.kind is Kind.REDUCE and kernel.plan.prologue.space == (5, 7 * 129)
        got = np.asarray(y)
    assert got.tobytes() == np.sum(np.abs(x - 0.25), axis=(1, 2), keepdims=True).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dims", [1, 2, 3, 130])
def test_broadcast_differences_keep_their_strides(dtype, dims, compiled_device, unfused_sums):
    """Pairwise distances: short rows of a broadcast difference, computed a group of rows at
    a time (one row at a time past 128), the kept dims walked by the loads' own strides."""
    rng = np.random.default_rng(dims)
    queries = rng.standard_normal((37, dims)).astype(dtype)
    references = rng.standard_normal((53, dims)).astype(dtype)

    def squared_distances(q, r):
        return li.sum((q[:, None] - r[None]) ** 2, axis=-1)

    got = []
    for device in (compiled_device, unfused_sums):
        with li.options(device=device):
            y = squared_distances(li.asarray(queries), li.asarray(references))
            kinds = {k.kind for k in li.inspect.schedule(y).kernels}
            assert (Kind.REDUCE in kinds) == (device == compiled_device)
            got.append(np.asarray(y))
    expected = np.sum((queries[:, None] - references[None]) ** 2, axis=-1)
    assert got[0].tobytes() == got[1].tobytes() == expected.tobytes()


def test_rows_split_among_threads_give_the_same_bits():
    x = np.random.default_rng(4).standard_normal((600, 1000)).astype(np.float32)
    y = li.sum(li.asarray(x) * 2.5, axis=1)  # NOTE: the cpu device: 600K elements, threads
    assert "path compiled C" in li.explain(y)
    assert np.asarray(y).tobytes() == np.sum(x * np.float32(2.5), axis=1).tobytes()


def test_a_strided_or_broadcast_load_is_read_in_place(compiled_device):
    x = np.random.default_rng(5).standard_normal((40, 300)).astype(np.float32)
    with li.options(device=compiled_device):
        a = li.asarray(x)
        y = li.sum(a[::2, ::-3] * li.asarray(x[:1, ::-3]), axis=-1)
        assert [k.kind for k in li.inspect.schedule(y).kernels] == [Kind.REDUCE]
        got = np.asarray(y)
    assert got.tobytes() == np.sum(x[::2, ::-3] * x[:1, ::-3], axis=-1).tobytes()


def _kinds(y) -> list[str]:
    return [k.kind.value for k in li.inspect.schedule(y).kernels]


def test_only_float_sums_over_the_last_axes_take_their_prologue():
    x = li.asarray(np.ones((64, 32, 16), np.float32))
    assert _kinds(li.sum(x * x, axis=-1)) == ["reduce"]
    assert _kinds(li.sum(x * x, axis=(1, 2))) == ["reduce"]
    assert _kinds(li.sum(x * x)) == ["reduce"]
    assert _kinds(li.mean(x * x, axis=-1)) == ["reduce"]
    assert _kinds(li.mean(x * x, axis=0)) == ["elementwise", "opaque"]
    assert _kinds(li.sum(li.exp(x - li.max(x, axis=-1, keepdims=True)), axis=-1)) == [
        "opaque",
        "reduce",
    ]
    assert _kinds(li.sum(x * x, axis=1)) == ["elementwise", "opaque"]
    assert _kinds(li.sum(x * x, axis=(0, 2))) == ["elementwise", "opaque"]
    assert _kinds(li.sum(x * x, axis=-1, dtype=li.float64)) == ["elementwise", "opaque"]
    assert _kinds(li.sum(li.astype(x, li.int32) * 2, axis=-1)) == ["elementwise", "opaque"]
    assert _kinds(li.max(x * x, axis=-1)) == ["elementwise", "opaque"]
    assert _kinds(li.sum(x, axis=-1)) == ["opaque"]  # no prologue: numpy's sum as it is


def test_a_large_load_read_across_rows_keeps_the_sum_apart():
    """An elementwise kernel reads a transposed operand in tiles; a REDUCE kernel row by row.
    (The other operand is C-ordered: numpy's value is then C-ordered too, see orders.py.)"""
    big = li.asarray(np.ones((512, 256), np.float32))
    other = li.asarray(np.ones((256, 512), np.float32))
    y = li.sum(li.permute_dims(big, (1, 0)) * other, axis=1)
    assert _kinds(y) == ["elementwise", "opaque"]
    assert "its prologue reads a load across rows" in li.explain(y)
    small = li.asarray(np.ones((64, 32), np.float32))
    other = li.asarray(np.ones((32, 64), np.float32))
    assert _kinds(li.sum(li.permute_dims(small, (1, 0)) * other, axis=1)) == ["reduce"]
    assert np.asarray(y).tobytes() == np.full(256, 512, np.float32).tobytes()


def test_a_sum_of_a_transposed_value_adds_in_numpys_order_not_pairwise():
    # NOTE: numpy writes x.T * 2 F-ordered and adds each row a value at a time: no REDUCE
    # kernel (it sums rows pairwise), the value computed in numpy's order and summed apart
    a = np.random.default_rng(7).standard_normal((64, 32)).astype(np.float32)
    y = li.sum(li.permute_dims(li.asarray(a), (1, 0)) * 2, axis=1)
    assert _kinds(y) == ["elementwise", "opaque"]
    assert np.asarray(y).tobytes() == (a.T * 2).sum(axis=1).tobytes()


def test_a_requested_summed_value_is_written_and_a_held_one_is_not_forced_out():
    x = li.asarray(np.ones((8, 16), np.float32))
    plan = li.inspect.schedule(li.exp(x * 2), li.sum(li.exp(x * 2), axis=-1))
    assert [k.kind.value for k in plan.kernels] == ["elementwise", "opaque"]
    t = li.exp(x)  # NOTE: as an elementwise kernel's intermediate: fused, not kept
    total = li.sum(t, axis=-1)
    assert _kinds(total) == ["reduce"]
    expected = np.sum(np.exp(np.ones((8, 16), np.float32)), axis=-1)
    assert np.asarray(total).tobytes() == expected.tobytes()
    assert t._node.op.label != "buffer"


def test_explain_shows_one_reduce_kernel_and_why():
    x = li.asarray(np.ones((300, 1000), np.float32))
    text = li.explain(li.sum(li.exp(x - 1), axis=1))
    assert text.startswith("1 kernel(s)")
    assert "kernel 0: reduce subtract_exp_sum -> (300,) float32" in text
    assert "plan Reduction(subtract_exp -> sum, 300 rows of 1000)" in text
    assert "path compiled C" in text
    assert "summed in numpy's pairwise order in one pass" in text
    split = li.explain(li.sum(li.exp(x - 1), axis=0))
    assert "axes (0,) are not the last axes of 2" in split


def test_a_small_reduce_kernel_runs_its_parts():
    x = np.linspace(-3, 3, 120, dtype=np.float32).reshape(4, 30)
    y = li.sum(li.asarray(x) * 3, axis=-1)
    assert "path numpy chunks, then numpy's sum (under 65536 elements" in li.explain(y)
    assert np.asarray(y).tobytes() == np.sum(x * np.float32(3), axis=-1).tobytes()


def test_a_failed_compile_runs_the_parts(monkeypatch, compiled_device):
    from lazyinfini._render.compile import CompileError
    from lazyinfini._runtime import c_compiling

    def fail(source):
        raise CompileError("cc failed: internal compiler error (injected)")

    monkeypatch.setattr(c_compiling, "load", fail)
    monkeypatch.setattr(c_compiling.C_KERNELS, "modules", {})
    monkeypatch.setattr(cpu, "_PATHS", type(cpu._PATHS)())
    x = np.random.default_rng(6).standard_normal((3, 500)).astype(np.float32)
    with li.options(device=compiled_device):
        y = li.sum(li.asarray(x) - 0.5, axis=-1)
        with pytest.warns(RuntimeWarning, match="a kernel's C failed"):
            got = np.asarray(y)
    assert got.tobytes() == np.sum(x - np.float32(0.5), axis=-1).tobytes()
    assert not cpu._C_OFF


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(HALVES_TOO),
    shape=st.lists(st.integers(0, 40), min_size=1, max_size=3).map(tuple),
    last=st.integers(1, 3),
    keepdims=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_fused_sums_equal_unfused_ones(
    dtype, shape, last, keepdims, seed, compiled_device, unfused_sums
):
    axes = tuple(range(max(0, len(shape) - last), len(shape)))
    x = (np.random.default_rng(seed).standard_normal(shape) * 4).astype(dtype)

    def total(a):
        return li.sum(li.abs(a * 0.75 - 1), axis=axes, keepdims=keepdims)

    (fused,), kinds = _on(compiled_device, total, [x])
    assert kinds == {Kind.REDUCE}
    (before,), _ = _on(unfused_sums, total, [x])
    assert fused.tobytes() == before.tobytes()
    if dtype is not ml_dtypes.bfloat16:
        expected = np.sum(np.abs(x * dtype(0.75) - dtype(1)), axis=axes, keepdims=keepdims)
        assert fused.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", HALVES_TOO, ids=lambda d: np.dtype(d).name)
def test_a_long_single_row_is_summed_in_pieces_with_the_whole_rows_bits(
    dtype, compiled_device, unfused_sums, monkeypatch
):
    """A whole-array sum (one row) of SPLIT_MIN values or more runs as the subtrees of its
    recursion on the threads, joined in its order: numpy's bits, and the unfused schedule's,
    at lengths where the recursion's halves are rounded to multiples of 8 in every way."""
    from lazyinfini._render.reduction import SPLIT_MIN

    monkeypatch.setattr(cpu, "C_PARALLEL_MIN", 0)
    monkeypatch.setattr(cpu, "THREADS", 2)  # NOTE: the pieces run on one core all the same
    odd = [SPLIT_MIN + 24, SPLIT_MIN + 109, 3 * SPLIT_MIN + 203, (1 << 20) + 91]
    arrays = _rows(dtype, [SPLIT_MIN - 1, SPLIT_MIN, SPLIT_MIN + 1, *odd], rows=1)

    def total(a):
        return li.sum(_prologue(a), axis=-1, keepdims=True), li.mean(_prologue(a[0]))

    before = li.inspect.counters.split_sums
    with li.options(device=compiled_device):
        fused = [[np.asarray(y) for y in total(li.asarray(x))] for x in arrays]
    assert li.inspect.counters.split_sums - before == 2 * (len(arrays) - 1)
    with li.options(device=unfused_sums):
        unfused = [[np.asarray(y) for y in total(li.asarray(x))] for x in arrays]
    for x, got, plain in zip(arrays, fused, unfused):
        assert [g.tobytes() for g in got] == [p.tobytes() for p in plain], x.shape
        if dtype is not ml_dtypes.bfloat16:  # NOTE: numpy sums bfloat16 in bfloat16
            assert got[0].tobytes() == np.sum(_prologue(x), -1, keepdims=True).tobytes()
