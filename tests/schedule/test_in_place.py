"""Functional updates that write into their input (_schedule/in_place.py): where x of
`x[key] = v` is a buffer the schedule made and reads for the last time, the update takes it;
otherwise it copies. numpy running the same writes is the oracle; the plan says which."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li


def _updates(y) -> list[bool]:
    kernels = li.inspect.schedule(y).kernels
    return [k.in_place for k in kernels if k.nodes[0].op.label == "setitem"]


def test_a_chain_of_writes_into_a_made_buffer_writes_in_place():
    data = np.arange(24.0).reshape(6, 4)
    x, x_np = li.asarray(data), data.copy()
    cleaned, cleaned_np = x * 1.0, x_np * 1.0
    cleaned[cleaned > 20] = 0.0
    cleaned_np[cleaned_np > 20] = 0.0
    row, row_np = cleaned[1], cleaned_np[1]
    row *= 2.0
    row_np *= 2.0
    cleaned.T[0] += 1.0
    cleaned_np.T[0] += 1.0
    last, last_np = cleaned[-1, :], cleaned_np[-1, :]
    last[:] = last[::-1]
    last_np[:] = last_np[::-1]
    # NOTE: the masked fill is a select (a buffer it makes; nothing computes its mask first):
    # every later write goes in place into it
    assert _updates(cleaned) == [True, True, True]
    _assert_sound(cleaned)
    np.testing.assert_array_equal(np.asarray(cleaned), cleaned_np)
    np.testing.assert_array_equal(np.asarray(x), data)  # the user's buffer is untouched


def test_a_users_buffer_is_copied_before_the_write():
    data = np.arange(6.0)
    x = li.asarray(data)
    y = li.asarray(data)
    y[0] = 7.0
    assert _updates(y) == [False]
    assert np.asarray(y)[0] == 7.0
    assert data[0] == 0.0 and float(x[0]) == 0.0


def _assert_sound(y) -> None:
    """An update marked in place reads its buffer for the last time: no later kernel reads it,
    and it is no output of the schedule."""
    sched = li.inspect.schedule(y)
    for i, kernel in enumerate(sched.kernels):
        if kernel.in_place:
            base = kernel.loads[0].base
            assert all(base not in k.reads for k in sched.kernels[i + 1 :]), kernel
            assert base not in sched.outputs and base not in sched.kept, kernel


@pytest.mark.parametrize("first", ["copy", "made"])
def test_a_made_buffer_an_array_holds_is_not_written(first):
    made = li.asarray(np.arange(6.0)) * 2.0  # held by `made`
    copy = li.asarray(made, copy=True)
    copy[0] = 99.0
    _assert_sound(copy)
    order = (copy, made) if first == "copy" else (made, copy)
    for y in order:
        np.asarray(y)
    np.testing.assert_array_equal(np.asarray(made), np.arange(6.0) * 2.0)
    np.testing.assert_array_equal(np.asarray(copy), [99.0, 2, 4, 6, 8, 10])


def test_a_value_other_pending_work_reads_after_the_update():
    made = li.asarray(np.arange(6.0)) + 1.0
    total = li.sum(made)  # reads made's value, whichever kernel runs first
    made[0] = -1.0
    _assert_sound(made)
    result = li.compute(made, total)
    np.testing.assert_array_equal(np.asarray(result[0]), [-1.0, 2, 3, 4, 5, 6])
    assert float(result[1]) == 21.0


def test_half_floats_are_updated_in_a_widened_copy():
    x = li.asarray(np.arange(6, dtype=np.float16)) * 2
    x[0] = 5
    assert _updates(x) == [False]
    np.testing.assert_array_equal(np.asarray(x), np.array([5, 2, 4, 6, 8, 10], np.float16))


def test_explain_says_where_an_update_writes():
    x = li.asarray(np.arange(6.0)) * 2.0
    x[1] = 0.0
    text = li.explain(x)
    assert "in place: writes into multiply#" in text, text


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.booleans()), min_size=1, max_size=6)
)
def test_drawn_write_sequences_match_numpy(writes):
    """Writes into a made buffer through rows, columns and the transposed view, some arrays
    kept and read again in between: each update in place or copied, the same numbers."""
    base = np.arange(25.0).reshape(5, 5)
    x, x_np = li.asarray(base) + 0.5, base + 0.5
    kept = []
    for i, j, through_t in writes:
        if through_t:
            x.T[i, j:] *= -1.0
            x_np.T[i, j:] *= -1.0
        else:
            x[i, :j] += 3.0
            x_np[i, :j] += 3.0
        if i == j:
            kept.append((x + 0.0, x_np + 0.0))
    _assert_sound(x)
    np.testing.assert_array_equal(np.asarray(x), x_np)
    for k, k_np in kept:
        np.testing.assert_array_equal(np.asarray(k), k_np)
