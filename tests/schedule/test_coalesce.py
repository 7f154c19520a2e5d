"""coalesce: merged dims visit exactly the elements the original dims visit, in the same order."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lazyinfini._schedule.coalesce import coalesce


def offsets(shape, strides):
    """Element offsets in C order, by brute force."""
    return [int(np.dot(i, strides)) for i in itertools.product(*map(range, shape))]


def contiguous(shape):
    return tuple(int(s) for s in np.cumprod((1, *shape[:0:-1]))[::-1]) if shape else ()


def broadcast_strides(shape, full_shape):
    """Strides of a contiguous `shape` array broadcast (right-aligned) to `full_shape`."""
    own = (1,) * (len(full_shape) - len(shape)) + tuple(shape)
    return tuple(0 if n == 1 else s for n, s in zip(own, contiguous(own), strict=True))


@st.composite
def operands(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=6)))
    count = draw(st.integers(1, 3))
    kinds = st.sampled_from(["contiguous", "broadcast", "random"])
    strides = []
    for _ in range(count):
        kind = draw(kinds)
        if kind == "contiguous":
            strides.append(contiguous(shape))
        elif kind == "broadcast":  # keep each dim or make it length 1 (stride 0)
            own = tuple(n if draw(st.booleans()) else 1 for n in shape)
            strides.append(broadcast_strides(own, shape))
        else:
            strides.append(tuple(draw(st.integers(-20, 20)) for _ in shape))
    return shape, strides


@settings(max_examples=400, deadline=None)
@given(operands())
def test_coalesced_dims_visit_the_same_offsets(case):
    shape, strides = case
    new_shape, new_strides = coalesce(shape, *strides)
    assert len(new_strides) == len(strides)
    assert 1 not in new_shape
    for old, new in zip(strides, new_strides, strict=True):
        assert len(new) == len(new_shape)
        assert offsets(new_shape, new) == offsets(shape, old)


@settings(max_examples=200, deadline=None)
@given(operands())
def test_nothing_mergeable_is_left(case):
    new_shape, new_strides = coalesce(*case[:1], *case[1])
    for i in range(len(new_shape) - 1):
        merge = all(s[i] == s[i + 1] * new_shape[i + 1] for s in new_strides)
        assert not merge, (new_shape, new_strides)
    assert coalesce(new_shape, *new_strides) == (new_shape, new_strides)


def test_per_channel_broadcast_runs_as_three_dims():
    shape = (8, 16, 5, 7)
    out = contiguous(shape)
    bias = broadcast_strides((1, 16, 1, 1), shape)
    assert coalesce(shape, out, out, bias) == ((8, 16, 35), ((560, 35, 1),) * 2 + ((0, 1, 0),))


def test_contiguous_chain_becomes_flat():
    shape = (2, 3, 4, 5)
    assert coalesce(shape, contiguous(shape), contiguous(shape)) == ((120,), ((1,), (1,)))


def test_scalar_broadcast_merges_with_anything_contiguous():
    shape = (6, 7)
    assert coalesce(shape, contiguous(shape), (0, 0)) == ((42,), ((1,), (0,)))


def test_broadcast_in_one_operand_only_keeps_the_dims_apart():
    shape = (6, 7)
    new_shape, _ = coalesce(shape, contiguous(shape), broadcast_strides((6, 1), shape))
    assert new_shape == (6, 7)


def test_ones_empty_and_zero_d():
    assert coalesce((1, 1), (3, 1)) == ((), ((),))
    assert coalesce((), ()) == ((), ((),))
    assert coalesce((2, 0, 3), (3, 3, 1)) == ((0,), ((0,),))
