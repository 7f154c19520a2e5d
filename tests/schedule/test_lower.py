"""Lowering: which values need a copy, rearrange plans on copies, coalesced iteration spaces."""

import numpy as np

import lazyinfini as li
from lazyinfini._schedule import Kind
from tests.oracle import check_schedule


def test_requested_permute_is_one_rearrange_with_a_plan():
    x = li.asarray(np.arange(64 * 32, dtype=np.float32).reshape(64, 32))
    y = li.permute_dims(x, (1, 0))
    plan = check_schedule(y, kernels=1)
    (kernel,) = plan.kernels
    assert kernel.kind is Kind.REARRANGE
    assert kernel.plan.unit == 4 and kernel.plan.nbytes == 64 * 32 * 4
    out = np.asarray(y)
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, np.asarray(x).T)


def test_contiguous_view_output_needs_no_copy():
    x = li.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    y = li.reshape(x[1:], (3, 4))
    (kernel,) = li.inspect.schedule(y).kernels
    assert kernel.kind is Kind.VIEW
    np.testing.assert_array_equal(np.asarray(y), np.arange(12, 24).reshape(3, 4))


def test_reshape_of_permuted_view_copies_first():
    x = li.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    y = li.reshape(li.permute_dims(x, (0, 2, 1)), (2, 12)) - 1
    plan = check_schedule(y, kernels=2)
    assert [k.kind for k in plan.kernels] == [Kind.REARRANGE, Kind.ELEMENTWISE]
    expected = np.transpose(np.asarray(x), (0, 2, 1)).reshape(2, 12) - 1
    np.testing.assert_array_equal(np.asarray(y), expected)


def test_channel_broadcast_coalesces_to_three_dims():
    x = li.asarray(np.ones((8, 16, 7, 7), np.float32))
    m = li.asarray(np.ones((1, 16, 1, 1), np.float32))
    plan = check_schedule(li.clip(x - m, 0, 1), kernels=1)
    assert plan.kernels[0].space == (8, 16, 49)


def test_contiguous_chain_runs_flat():
    x = li.asarray(np.ones((8, 16, 7), np.float32))
    plan = check_schedule(li.clip(x - x * 2, 0, 1), kernels=1)
    assert plan.kernels[0].space == (8 * 16 * 7,)


def test_requested_fill_and_broadcast_are_materialized_contiguous():
    y = li.full((3, 4), 2.5, dtype=li.float32)
    z = li.broadcast_to(li.asarray(np.arange(4.0)), (3, 4))
    for arr, expected in ((y, np.full((3, 4), 2.5)), (z, np.broadcast_to(np.arange(4.0), (3, 4)))):
        (kernel,) = li.inspect.schedule(arr).kernels
        assert kernel.kind is Kind.REARRANGE
        out = np.asarray(arr)
        assert out.flags.c_contiguous and 0 not in out.strides
        np.testing.assert_array_equal(out, expected)


def test_empty_and_zero_d_outputs():
    e = li.asarray(np.zeros((0, 5), np.float32))
    assert np.asarray(li.permute_dims(e, (1, 0)) - 1).shape == (5, 0)
    s = li.asarray(np.float32(2.0))
    assert float(li.clip(s - 3, 0, 1)) == 0.0


def test_freed_intermediate_memory_is_not_reused_under_an_output_view():
    a = li.asarray(np.arange(1 << 16, dtype=np.float32))
    t = a - 1  # an intermediate kernel output, read only by a view
    y = li.reshape(t, (256, 256))
    z = li.clip(a * 3, 0, 10) + 0  # later kernels allocate after t is dead
    y, z = li.compute(y, z)
    np.testing.assert_array_equal(np.asarray(y).ravel(), np.arange(1 << 16) - 1)


def test_load_strides_agree_with_numpy_views():
    """The scheduler's stride rules for permute/slice/broadcast are numpy's (the executors use
    numpy to make the views, and rearrange plans are built from these strides)."""
    from lazyinfini._runtime.cpu import load_view

    base = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)[:, ::-1, 1:, ::2]
    x = li.asarray(base)
    y = li.broadcast_to(
        li.permute_dims(x[1:, ::2, ::-1], (2, 0, 1, 3))[:, :, None], (3, 1, 4, 2, 3)
    )
    plan = li.inspect.schedule(y * 2)
    (load,) = [ld for ld in plan.kernels[0].loads if ld.base is x._node]
    view = load_view(load, {})
    assert tuple(view.strides) == load.strides
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert start == load.offset


def test_symbolic_strides_without_reshape_agree_with_numpy():
    from lazyinfini._runtime.cpu import load_view

    base = np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4)[:, ::-1]
    x = li.asarray(base)
    y = li.broadcast_to(li.permute_dims(x[1:, ::2, ::-3], (2, 0, 1)), (5, 2, 1, 2))
    (load,) = [ld for ld in li.inspect.schedule(y + 1).kernels[0].loads if ld.base is x._node]
    view = load_view(load, {})
    assert tuple(view.strides) == load.strides
    assert view.__array_interface__["data"][0] - base.__array_interface__["data"][0] == load.offset


def test_large_transposed_load_is_copied_by_a_rearrange_first_where_the_target_asks():
    a = li.asarray(np.ones((512, 256), np.float32))
    b = li.asarray(np.ones((256, 512), np.float32))
    with li.options(device="numpy"):  # numpy's chunks read across rows slowly: copied first
        plan = check_schedule(li.permute_dims(a, (1, 0)) - b, kernels=2)
    assert [k.kind for k in plan.kernels] == [Kind.REARRANGE, Kind.ELEMENTWISE]
    assert any("transposed load" in note for note in plan.rewrites)
    check_schedule(li.permute_dims(a, (1, 0)) - b, kernels=1)  # the cpu's C kernel tiles it
    images = li.asarray(np.ones((4, 3, 128, 128), np.float32))  # rows of 3: copied first
    nhwc = li.asarray(np.ones((4, 128, 128, 3), np.float32))  # NOTE: C order: numpy's result's
    check_schedule(li.permute_dims(images, (0, 2, 3, 1)) - nhwc, kernels=2)
    small = li.asarray(np.ones((16, 8), np.float32))
    other = li.asarray(np.ones((8, 16), np.float32))
    check_schedule(li.permute_dims(small, (1, 0)) - other, kernels=1)  # small: read in place


def test_a_transposed_programs_result_is_a_view_in_numpys_memory_order():
    # NOTE: numpy writes transpose(x) - 1 in x's memory order: the result is transposed (its
    # strides are what a later sum adds in); a rearrange into C order would be wasted work
    images = li.asarray(np.ones((4, 3, 128, 128), np.float32))
    plan = check_schedule(li.permute_dims(images, (0, 2, 3, 1)) - 1, kernels=2)
    assert [k.kind for k in plan.kernels] == [Kind.ELEMENTWISE, Kind.VIEW]
    value = np.asarray(li.permute_dims(images, (0, 2, 3, 1)) - 1)
    assert (
        value.strides == np.transpose(np.ones((4, 3, 128, 128), np.float32), (0, 2, 3, 1)).strides
    )


def test_items_of_one_library_call_share_one_kernel():
    a = li.asarray(np.random.default_rng(0).standard_normal((6, 6)))
    q, r = li.linalg.qr(a)
    (kernel,) = li.inspect.schedule(q, r).kernels
    assert kernel.kind is Kind.OPAQUE and kernel.name == "linalg.qr" and len(kernel.outputs) == 2
    before = li.inspect.counters.kernels
    q, r = li.compute(q, r)
    assert li.inspect.counters.kernels == before + 1
    np.testing.assert_allclose(np.asarray(q) @ np.asarray(r), np.asarray(a), atol=1e-12)


def test_an_output_copied_then_reshaped_broadcast_is_copied_from_its_own_view():
    """Two outputs, v and reshape(broadcast_to(v, s), -1), where v (a flipped view of a fill
    or of a buffer) is copied first: the second is no view of v's copy (a reshape of a
    broadcast), but it is a view of v's source, which its copy reads (the fuzz found
    li.compute of both failing an assert, and li.explain)."""

    def program(xp, x):
        v = xp.reshape(xp.flip(xp.expand_dims(x, axis=1)), (-1,))
        return v, xp.reshape(xp.broadcast_to(v, (2, 3)), (-1,))

    for make in (lambda xp: xp.full((3,), 0.5, dtype=xp.float16), lambda xp: xp.arange(3.0)):
        expected = program(np, make(np))
        for _ in range(2):  # NOTE: the second run reuses the schedule
            got = program(li, make(li))
            assert Kind.REARRANGE in [k.kind for k in li.inspect.schedule(*got).kernels]
            assert "rearrange" in li.explain(*got)
            li.compute(*got)
            for g, want in zip(got, expected, strict=True):
                value = np.asarray(g)
                assert value.dtype == want.dtype and value.tobytes() == want.tobytes()
