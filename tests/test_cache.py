"""The schedule cache: a program of the same shape reuses its schedule, anything that changes the
schedule or the values misses, and no cached template keeps a user's data alive."""

from __future__ import annotations

import gc
import weakref

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._realize.cache import CACHE

counters = li.inspect.counters


@pytest.fixture(autouse=True)
def empty_cache():
    CACHE.clear()


def reused(fn) -> int:
    """How many of the materializations `fn` makes reuse a cached schedule."""
    before = counters.schedules_reused
    fn()
    return counters.schedules_reused - before


def clip_sub(a, b, lo=-0.5, hi=0.5):
    return np.asarray(li.clip(li.asarray(a) - li.asarray(b), lo, hi))


def test_the_same_program_on_new_buffers_reuses_the_schedule_and_is_right():
    rng = np.random.default_rng(0)
    for i in range(4):
        a = rng.standard_normal((64, 33)).astype(np.float32)
        b = rng.standard_normal((64, 33)).astype(np.float32)
        hits = reused(
            lambda a=a, b=b: np.testing.assert_array_equal(
                clip_sub(a, b), np.clip(a - b, -0.5, 0.5)
            )
        )
        assert hits == (0 if i == 0 else 1)


@pytest.mark.parametrize(
    "change",
    [
        lambda a, b: (a.astype(np.float64), b.astype(np.float64)),  # dtype
        lambda a, b: (a[:, :32], b[:, :32]),  # shape
        lambda a, b: (np.asfortranarray(a), b),  # strides
        lambda a, b: (np.repeat(a, 2, axis=1)[:, ::2], b),  # strides (a gap), the same values
    ],
)
def test_a_different_dtype_shape_or_layout_plans_again(change):
    a = np.arange(64 * 33, dtype=np.float32).reshape(64, 33) / 100
    b = np.ones((64, 33), np.float32)
    clip_sub(a, b)
    a2, b2 = change(a, b)
    assert (
        reused(lambda: np.testing.assert_array_equal(clip_sub(a2, b2), np.clip(a2 - b2, -0.5, 0.5)))
        == 0
    )


def test_fill_values_are_part_of_the_key_down_to_the_sign_of_zero():
    x = li.asarray(np.array([-1.0, 0.0, 1.0], np.float32))
    results = []
    for value in (0.0, -0.0, 0.0, 2.0):
        results.append(np.asarray(li.multiply(x, value)))
    np.testing.assert_array_equal(np.signbit(results[0]), [True, False, False])
    np.testing.assert_array_equal(np.signbit(results[1]), [False, True, True])
    np.testing.assert_array_equal(np.signbit(results[2]), np.signbit(results[0]))
    np.testing.assert_array_equal(results[3], [-2.0, 0.0, 2.0])


def test_integer_and_float_parameters_are_told_apart():
    x = li.asarray(np.arange(6, dtype=np.float64))
    for value, expected in ((1, [1, 2, 3, 4, 5, 6]), (1.5, [1.5, 2.5, 3.5, 4.5, 5.5, 6.5])):
        np.testing.assert_array_equal(np.asarray(x + value), expected)


def test_a_cached_template_keeps_no_user_data_alive():
    a = np.ones((256, 256), np.float32)
    b = np.ones((256, 256), np.float32)
    clip_sub(a, b)
    clip_sub(a, b)  # a hit, too
    probe = weakref.ref(a)
    del a
    gc.collect()
    assert probe() is None


def test_held_intermediates_change_the_key_and_are_kept():
    a_np = np.arange(8, dtype=np.float32)
    results = []
    for hold in (False, True, False, True):
        a = li.asarray(a_np)
        t = a * 2
        y = li.clip(t - 3, 0, 5)
        y.compute()
        results.append((np.asarray(y), np.asarray(t) if hold else None))
        del t
    np.testing.assert_array_equal(results[3][0], np.clip(a_np * 2 - 3, 0, 5))
    np.testing.assert_array_equal(results[3][1], a_np * 2)


def test_several_outputs_of_one_materialization():
    a_np = np.linspace(-2, 2, 50, dtype=np.float32)
    for _ in range(3):
        a = li.asarray(a_np)
        y1, y2 = li.compute(li.abs(a), li.clip(a, -1, 1))
        np.testing.assert_array_equal(np.asarray(y1), np.abs(a_np))
        np.testing.assert_array_equal(np.asarray(y2), np.clip(a_np, -1, 1))


def test_the_reference_executor_runs_cached_templates_too():
    a = np.linspace(-1, 1, 10, dtype=np.float32)
    with li.options(executor="reference"):
        first = clip_sub(a, a[::-1].copy())
        assert reused(lambda: np.testing.assert_array_equal(clip_sub(a, a[::-1].copy()), first))


def test_an_unhashable_parameter_is_planned_every_time():
    before = len(CACHE)
    from lazyinfini._graph import Node, Op, buffer_node

    x = li.asarray(np.ones(3, np.float32))
    node = Node(Op.ADD, (x._node, buffer_node(np.ones(3, np.float32))), (3,), x.dtype, arg=[1])
    from lazyinfini._array import Array

    y = Array(node)
    np.testing.assert_array_equal(np.asarray(y), [2, 2, 2])
    assert len(CACHE) == before


def program(a_np, b_np, transpose: bool):
    a = li.asarray(a_np)
    if transpose:
        a = li.permute_dims(a, tuple(reversed(range(a.ndim))))
    return li.clip(a - li.asarray(b_np), -0.5, 0.5)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple),
    dtype=st.sampled_from([np.float16, ml_dtypes.bfloat16, np.float32, np.float64]),
    transpose=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_reused_schedules_match_the_reference(shape, dtype, transpose, seed):
    rng = np.random.default_rng(seed)
    last = shape[0] if transpose else shape[-1]
    for _ in range(2):  # the second run reuses the first one's schedule
        a_np = rng.standard_normal(shape).astype(dtype)
        b_np = rng.standard_normal((last,)).astype(dtype)
        got = np.asarray(program(a_np, b_np, transpose))
        with li.options(executor="reference"):
            expected = np.asarray(program(a_np, b_np, transpose))
        np.testing.assert_array_equal(got, expected)


def test_a_rearrange_plan_is_reused_only_for_the_alignment_it_assumed():
    memory = np.arange(16 * 40 + 16, dtype=np.float32)
    hits = []
    for offset in (0, 0, 1, 1):  # float32 elements past the start: 0 or 4 bytes
        x_np = memory[offset : offset + 16 * 40].reshape(16, 40)
        hits.append(
            reused(
                lambda x_np=x_np: np.testing.assert_array_equal(
                    np.asarray(li.permute_dims(li.asarray(x_np), (1, 0))), x_np.T
                )
            )
        )
    assert hits == [0, 1, 0, 1]


def test_schedules_are_kept_per_target(monkeypatch):
    """A device registered again with other tiles plans anew; the same target reuses."""
    import dataclasses

    from lazyinfini._device import DEVICES, register_device

    monkeypatch.setattr("lazyinfini._device.DEVICES", dict(DEVICES))
    a = np.linspace(-1, 1, 10, dtype=np.float32)
    clip_sub(a, a)
    assert reused(lambda: clip_sub(a, a)) == 1
    cpu = DEVICES["cpu"]
    register_device(dataclasses.replace(cpu, target=dataclasses.replace(cpu.target, chunk=4096)))
    assert reused(lambda: clip_sub(a, a)) == 0
    assert reused(lambda: clip_sub(a, a)) == 1


# -- scalars are parameters of a cached schedule ----------------------------------------------


def test_a_loop_over_a_changing_python_scalar_reuses_its_schedule_and_recomputes_nothing():
    x_np = np.linspace(-3, 3, 100)
    x = li.asarray(x_np)
    y = li.clip(x, -1.0, 1.0).compute()  # a computed value every run reads
    for i in range(10):
        t = 0.5 * i - 1.0
        kernels = counters.kernels
        hits = reused(
            lambda t=t: np.testing.assert_array_equal(
                np.asarray(x * t - y), x_np * t - np.clip(x_np, -1, 1)
            )
        )
        assert hits == (0 if i == 0 else 1), i
        assert counters.kernels - kernels == 1, i  # one fused kernel; y is not computed again


_SCALARS = [0.0, -0.0, 1.0, -1.5, 2.0, 0.1, np.inf, -np.inf, np.nan, -np.nan, 65504.0, 1e-8]


def _scalar_program(x, s):
    """One line per op, the same lines every call: only the scalars change."""
    y = (x - s[0]) * s[1]
    y = li.clip(y, s[2], s[3])
    return li.copysign(y + s[0], y - s[2])


def _numpy_program(x, s, dtype):
    c = [dtype.type(v) for v in s]
    with np.errstate(all="ignore"):
        y = (x - c[0]) * c[1]
        y = np.clip(y, c[2], c[3])
        return np.copysign(y + c[0], y - c[2])


@settings(max_examples=25)
@given(
    data=st.data(),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    device=st.sampled_from(["cpu", "compiled", "reference"]),
)
def test_programs_differing_only_in_scalars_share_a_schedule_and_are_right(
    data, dtype, device, compiled_device
):
    """Equal scalars (which simplify() merges into one fill), -0.0 next to 0.0 and NaNs of
    either sign, drawn anew each run of the same lines: every run equals numpy bit for bit
    (NaN for NaN), whichever schedule the cache hands out."""
    dtype = np.dtype(dtype)
    x_np = np.array([-2.0, -0.0, 0.0, 0.5, 3.0, np.nan, np.inf], dtype)
    name = compiled_device if device == "compiled" else device
    with li.options(device=name):
        for _ in range(4):
            s = data.draw(st.lists(st.sampled_from(_SCALARS), min_size=4, max_size=4))
            got = np.asarray(_scalar_program(li.asarray(x_np), s))
            want = _numpy_program(x_np, s, dtype)
            np.testing.assert_array_equal(got, want, err_msg=f"{s} {dtype} {device}")
            numbers = ~np.isnan(want)
            np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def test_two_fills_merged_for_equal_scalars_are_not_reused_for_unequal_ones():
    x = li.asarray(np.arange(4, dtype=np.float32))
    got = [np.asarray((x - a) * (x - b)) for a, b in ((1.0, 1.0), (1.0, 2.0), (2.0, 2.0))]
    x_np = np.arange(4, dtype=np.float32)
    for (a, b), value in zip(((1.0, 1.0), (1.0, 2.0), (2.0, 2.0)), got):
        np.testing.assert_array_equal(value, (x_np - a) * (x_np - b))


def test_a_computed_fill_shares_no_memory_with_the_cached_schedule():
    """A fill's value is made once per template (read by every run), but an output that is a
    fill gets its own memory: a DLPack consumer that cannot be told it is read-only may write
    it (found by the official suite's test_dunder_dlpack)."""
    results = []
    for _ in range(3):
        y = li.full((4,), 2.5)
        y.compute()
        y.__dlpack__(copy=False)  # a pre-1.0 consumer: shared memory, writable
        alias = np.asarray(y)
        assert not any(np.shares_memory(alias, r) for r in results)
        results.append(alias)
    np.testing.assert_array_equal(results[-1], [2.5] * 4)


def test_a_fill_computed_as_a_kernel_of_its_own_takes_this_runs_value():
    """A target that does not fuse runs a requested fill as a source kernel: it must read the
    value bound for this run, not the one the cached template was recorded with."""
    import dataclasses

    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._runtime import cpu

    target = dataclasses.replace(DEVICES["cpu"].target, name="cpu-unfused", fuse=False)
    register_device(cpu.host_device("cpu-unfused", target))
    try:
        with li.options(device="cpu-unfused"):
            for value in (1.0, 2.0, -0.0):
                got = np.asarray(li.full((3,), value))
                assert got.tobytes() == np.full(3, value).tobytes(), value
    finally:
        DEVICES.pop("cpu-unfused")


def test_small_programs_run_without_the_run_loop_with_the_same_bits():
    """The cpu's runner: a program of small numpy-path kernels (elementwise ones of one chunk,
    library calls, views, copies) runs as the list of their steps (counters.direct_runs), new
    schedule or cached, with the bits the run loop's handlers give (numpy's); a program holding
    a kernel whose output the pool keeps runs in the loop."""
    x = np.linspace(-2, 2, 1000, dtype=np.float32)
    y = np.linspace(3, -1, 1000, dtype=np.float32)
    a, b = li.asarray(x), li.asarray(y)
    want = np.clip(x - y, np.float32(-1.0), np.float32(0.5)) * np.float32(2.0)
    before = counters.direct_runs
    got = [np.asarray(li.clip(a - b, -1.0, 0.5) * 2.0) for _ in range(3)]
    assert counters.direct_runs == before + 3
    for value in got:
        np.testing.assert_array_equal(value.view(np.uint32), want.view(np.uint32))
    before = counters.direct_runs
    for _ in range(2):  # NOTE: new schedules, then cached ones
        total = float(li.sum(a * 2.0) / 3.0)  # a library call between elementwise kernels
        copied = np.asarray(li.permute_dims(li.reshape(a * 2.0, (40, 25)), (1, 0)) + 1.0)
        product = np.asarray(li.reshape(a, (40, 25))[::2, 1:] @ li.reshape(b, (25, 40))[1:])
        assert total == float(np.sum(x * np.float32(2.0)) / np.float32(3.0))
        np.testing.assert_array_equal(copied, (x * np.float32(2.0)).reshape(40, 25).T + 1)
        np.testing.assert_array_equal(
            product, x.reshape(40, 25)[::2, 1:] @ y.reshape(25, 40)[1:]
        )  # NOTE: the same BLAS call on the same views: its bits
    assert counters.direct_runs == before + 6
    big = li.asarray(np.ones(1 << 18, np.float32))
    mid = li.asarray(np.ones(40_000))  # NOTE: under compile_min, its values over MIN_BYTES
    before = counters.direct_runs
    assert float(li.sum(big * 2.0)) == float(1 << 19)  # NOTE: a pooled output: the loop's
    assert float(li.sum(mid * 2.0)) == 80_000.0  # NOTE: a pooled prologue: the loop's too
    assert counters.direct_runs == before


@pytest.mark.parametrize(
    "view",
    [
        lambda m: m.reshape(-1),
        lambda m: m[:, 1],
        lambda m: m[::-1, ::2],
        lambda m: m[1:, None][..., 1:],
        lambda m: m[:1].squeeze(axis=0),
        lambda m: m[:, ::2].reshape(-1),  # NOTE: numpy's view (uniform strides)
        lambda m: m[0, 0],
    ],
)
def test_a_view_of_a_computed_buffer_is_taken_without_a_schedule(view):
    """Slices and reshapes of a computed host buffer are numpy's view of it, taken directly
    (_realize/direct.py): one kernel counted, no schedule made or looked up, the value numpy's
    view (its memory and strides), read-only."""
    data = np.arange(24.0).reshape(4, 6)
    m = li.asarray(data) * 2.0
    computed = np.asarray(m)
    y = view(m)
    before = counters.snapshot()
    got = np.asarray(y)
    after = counters.snapshot()
    assert len(CACHE) == 1  # NOTE: m's schedule only
    assert after["kernels"] - before["kernels"] == 1
    assert after["materializations"] - before["materializations"] == 1
    want = view(computed)
    np.testing.assert_array_equal(got, want)
    assert got.shape == want.shape and np.shares_memory(got, computed)
    for n, ours, numpys in zip(got.shape, got.strides, want.strides):
        assert n == 1 or ours == numpys  # NOTE: a length-1 axis's stride is never stepped
    assert not got.flags.writeable


@pytest.mark.parametrize(
    "view, want",
    [
        (lambda m: m[:, :2].reshape(-1), lambda c: c[:, :2].reshape(-1)),  # NOTE: a copy
        (lambda m: li.broadcast_to(m[:1], (3, 6)), lambda c: np.broadcast_to(c[:1], (3, 6))),
        (lambda m: li.permute_dims(m, (1, 0)), lambda c: c.T),  # NOTE: a rearrange
    ],
)
def test_a_view_that_is_a_copy_is_scheduled(view, want):
    """A view the schedule copies (a reshape numpy copies, a broadcast, a buffer's permute)
    takes the schedule's path."""
    m = li.asarray(np.arange(24.0).reshape(4, 6)) * 2.0
    computed = np.asarray(m)
    got = np.asarray(view(m))
    assert len(CACHE) == 2
    np.testing.assert_array_equal(got, want(computed))
    assert not np.shares_memory(got, computed)


def test_a_view_taken_directly_resolves_an_array_sharing_its_node():
    """Two arrays holding one view node (li.squeeze with no axes keeps the node): the one
    asked for reads the buffer too, though the node's holder is the other (the views fuzz
    found it: the direct view swapped the holder only)."""
    m = li.asarray(np.arange(6.0)) * 2.0
    np.asarray(m)
    first = m.reshape(1, 6)[0]
    second = li.squeeze(first, axis=())
    assert second._n is first._n
    np.testing.assert_array_equal(np.asarray(first), np.arange(6.0) * 2)
    np.testing.assert_array_equal(np.asarray(second), np.arange(6.0) * 2)
