"""Simplification before planning: folded chains, dropped identities, merged repeats."""

import numpy as np

import lazyinfini as li
from lazyinfini._graph import Op
from tests.oracle import check_schedule


def x3():
    return li.asarray(np.arange(24, dtype=np.float32).reshape(2, 3, 4))


def test_permute_chain_folds_into_one_permute():
    x = x3()
    y = li.permute_dims(li.permute_dims(x, (1, 0, 2)), (2, 0, 1))
    plan = check_schedule(y, kernels=1)
    (load,) = plan.kernels[0].loads
    assert [n.op for n in load.chain] == [Op.PERMUTE]
    assert load.chain[0].arg == (2, 1, 0)
    assert any("folded a chain of permutes" in r for r in plan.rewrites)
    np.testing.assert_array_equal(np.asarray(y), np.transpose(np.asarray(x), (2, 1, 0)))


def test_inverse_permutes_cancel_to_the_buffer():
    x = x3()
    y = li.permute_dims(li.permute_dims(x, (2, 0, 1)), (1, 2, 0))
    plan = li.inspect.schedule(y)
    assert plan.kernels == () and plan.outputs[0] is x._node
    assert np.asarray(y) is not None and np.array_equal(np.asarray(y), np.asarray(x))


def test_identity_ops_are_dropped():
    x = x3()
    y = li.permute_dims(li.astype(x, li.float32), (0, 1, 2))[...] - 1
    plan = check_schedule(y, kernels=1)
    assert any("identity" in r for r in plan.rewrites)
    assert plan.kernels[0].loads[0].chain == ()


def test_reshape_chain_folds():
    x = x3()
    y = li.reshape(li.reshape(x, (6, 4)), (4, 6)) * 2
    plan = check_schedule(y, kernels=1)
    chain = [ld for ld in plan.kernels[0].loads if ld.base is x._node][0].chain
    assert [n.op for n in chain] == [Op.RESHAPE]
    np.testing.assert_array_equal(np.asarray(y), np.asarray(x).reshape(4, 6) * 2)


def test_common_subexpressions_are_computed_once():
    x = x3()
    y = (x - 1) * (x - 1)
    plan = check_schedule(y, kernels=1)
    labels = [n.op.label for n in plan.kernels[0].nodes]
    assert labels.count("subtract") == 1, labels
    assert any("merged a repeated subtract" in r for r in plan.rewrites)
    np.testing.assert_array_equal(np.asarray(y), (np.asarray(x) - 1) ** 2)


def test_fills_merge_by_their_bits_not_by_equality():
    x = li.asarray(np.array([-0.0, 0.0, 1.0], dtype=np.float32))
    y = (x - 0.0) * (x - 0.0) + (x - (-0.0))
    labels = [n.op.label for n in li.inspect.schedule(y).kernels[0].nodes]
    assert labels.count("subtract") == 2, labels  # the two x - 0.0 are one; -0.0 is not
    expected = (np.asarray(x) - np.float32(0.0)) ** 2 + (np.asarray(x) - np.float32(-0.0))
    np.testing.assert_array_equal(np.signbit(np.asarray(y)), np.signbit(expected))
