"""Fusion: kernel counts and the decision log (nothing runs in these tests)."""

import numpy as np
import pytest

import lazyinfini as li
from tests.oracle import check_schedule


def arrays(*shapes, dtype=np.float32):
    rng = np.random.default_rng(0)
    return [li.asarray(rng.standard_normal(s).astype(dtype)) for s in shapes]


def test_clip_of_subtract_is_one_kernel():
    a, b = arrays((64, 32), (64, 32))
    plan = check_schedule(li.clip(a - b, 0, 1), kernels=1)
    assert [n.op.label for n in plan.kernels[0].nodes] == ["subtract", "clip"]


def test_permuted_input_is_a_strided_load_not_a_kernel():
    a, b = arrays((32, 64), (64, 32))
    plan = check_schedule(li.clip(li.permute_dims(a, (1, 0)) - b, 0, 1), kernels=1)
    (kernel,) = plan.kernels
    strided = [ld for ld in kernel.loads if ld.chain and ld.chain[0].op.label == "permute_dims"]
    assert len(strided) == 1 and strided[0].strides == (4, 256)


def test_broadcast_and_sliced_inputs_are_loads():
    a, m = arrays((8, 16, 10), (16, 1))
    y = li.clip(a[:, ::-1, 2:] - m, -1, 1)
    plan = check_schedule(y, kernels=1)
    broadcast = [ld for ld in plan.kernels[0].loads if ld.broadcast]
    assert any(ld.node.shape == (8, 16, 8) and ld.strides[0] == 0 for ld in broadcast)


def test_diamond_is_one_kernel():
    a, b = arrays((16, 16), (16, 16))
    t = a - b
    y = li.clip(t, 0, 1) + t
    plan = check_schedule(y, kernels=1)
    assert all(d.fused for d in plan.decisions)


def test_a_requested_intermediate_is_written_by_its_consumers_kernel():
    """t and clip(t) asked together: one pass writes both (a moving average and its residual
    are one kernel), t's edge fused like any other."""
    a, b = arrays((16, 16), (16, 16))
    t = a - b
    y = li.clip(t, 0, 1)
    plan = check_schedule(t, y, kernels=1)
    assert all(d.fused for d in plan.decisions)
    assert {n.op.label for n in plan.kernels[0].outputs} == {"subtract", "clip"}
    np.testing.assert_array_equal(np.asarray(y), np.clip(np.asarray(t), 0, 1))
    np.testing.assert_array_equal(np.asarray(t), np.asarray(a) - np.asarray(b))


def test_a_requested_intermediate_feeding_a_sum_is_written_apart():
    """A kernel ending in a sum writes the sum alone: an intermediate asked for too (here, one
    an earlier run evaluated and an array holds: recomputed and kept) stays its own kernel."""
    x_np = np.array([1.5, -2.0, 3.0], np.float16)
    x = li.asarray(x_np)
    t = li.sum(x + x, keepdims=True) * 2
    first = li.sum(t)
    second = li.sum(t + np.float16(0.5))
    np.testing.assert_array_equal(np.asarray(first), np.sum(np.sum(x_np + x_np, keepdims=True) * 2))
    expected = np.sum(np.sum(x_np + x_np, keepdims=True) * 2 + np.float16(0.5))
    np.testing.assert_array_equal(np.asarray(second), expected)
    np.testing.assert_array_equal(np.asarray(t), np.sum(x_np + x_np, keepdims=True) * 2)


def test_fuse_false_gives_one_kernel_per_elementwise_node():
    a, b = arrays((16, 16), (16, 16))
    with li.options(fuse=False):
        plan = check_schedule(li.clip(a - b, 0, 1) * 2, kernels=3)
    assert all(not d.fused and "fusion is off" in d.reason for d in plan.decisions)


def test_movement_consumer_splits_and_says_why():
    a, b = arrays((16, 8), (16, 8))
    t = a - b
    y = li.permute_dims(t, (1, 0)) * 2
    plan = check_schedule(y, kernels=2)
    (split,) = [d for d in plan.decisions if not d.fused]
    assert "movement" in split.reason and "permute_dims" in split.reason


def test_broadcast_consumer_reports_shapes_differ():
    a, b = arrays((16, 1), (16, 1))
    t = a - b
    y = li.broadcast_to(t, (16, 8)) * 2
    plan = check_schedule(y, kernels=2)
    (split,) = [d for d in plan.decisions if not d.fused]
    assert split.reason.startswith("shapes differ")


def test_producer_with_consumers_in_two_kernels_splits():
    a, b = arrays((8, 8), (8, 8))
    t = a - b
    u = li.permute_dims(t * 2, (1, 0)) + t  # t feeds two different kernels
    plan = li.inspect.schedule(u)
    reasons = {d.reason for d in plan.decisions if d.producer.op.label == "subtract"}
    assert any("consumers in different kernels" in r for r in reasons), reasons


def test_nothing_runs_while_planning():
    a, b = arrays((8, 8), (8, 8))
    before = li.inspect.counters.snapshot()
    li.explain(li.clip(a - b, 0, 1))
    li.to_dot(li.clip(a - b, 0, 1))
    assert li.inspect.counters.snapshot() == before


@pytest.mark.parametrize("executor", ["cpu", "reference"])
def test_output_of_compute_many_shares_one_materialization(executor):
    a, b = arrays((8, 8), (8, 8))
    with li.options(executor=executor):
        before = li.inspect.counters.materializations
        y1, y2 = li.compute(a - b, li.clip(a - b, 0, 1))
        assert li.inspect.counters.materializations == before + 1
    np.testing.assert_array_equal(np.asarray(y2), np.clip(np.asarray(y1), 0, 1))


def test_siblings_sharing_an_input_run_in_one_pass():
    a, b, c = arrays((32, 16), (32, 16), (32, 16))
    y1 = li.clip(a - b, 0, 1)
    y2 = (a * c) + 1
    plan = check_schedule(y1, y2, kernels=1)
    (kernel,) = plan.kernels
    assert len(kernel.outputs) == 2
    assert sum(1 for ld in kernel.loads if ld.base is a._node) == 1  # `a` is read once
    assert any(d.fused and d.reason.startswith("siblings") for d in plan.decisions)
    before = li.inspect.counters.kernels
    li.compute(y1, y2)
    assert li.inspect.counters.kernels == before + 1
    na, nb, nc = (np.asarray(v) for v in (a, b, c))
    np.testing.assert_array_equal(np.asarray(y1), np.clip(na - nb, 0, 1))
    np.testing.assert_array_equal(np.asarray(y2), na * nc + 1)


def test_dependent_or_differently_shaped_siblings_stay_apart():
    a, b = arrays((8, 8), (8, 8))
    y1 = a - b
    y2 = li.permute_dims(y1, (1, 0)) * a  # reads y1 through a permute: depends on it
    check_schedule(y1, y2, kernels=2)
    z = li.reshape(a, (64,)) + 1  # another shape
    check_schedule(a * 2, z, kernels=2)


def test_merged_siblings_run_before_every_consumer_of_their_outputs():
    # The shape the official suite's vecdot test found: sibling groups merged at the later
    # group's position, while a reduction of the earlier group's output sat in between.
    x = li.asarray(np.arange(4, dtype=np.uint8))
    y = li.asarray(np.arange(4, dtype=np.uint16))
    first = li.multiply(li.astype(li.conj(x), li.uint16), y)
    total = li.sum(first, dtype=li.uint16)
    later = li.vecdot(li.astype(x, li.uint16), y)
    result = li.all(later == total)
    plan = li.inspect.schedule(result)
    position = {out: i for i, k in enumerate(plan.kernels) for out in k.outputs}
    for i, kernel in enumerate(plan.kernels):
        assert all(position.get(r, -1) < i for r in kernel.reads), li.explain(result)
    assert bool(result)
