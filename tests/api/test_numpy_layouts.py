"""The memory order of numpy's result of each function lazyinfini records (the twins' table and
the numpy-programs fuzz's calls), on inputs of several layouts, is the one lazyinfini gives its
value (what a later sum adds in, orders.py): checked on the recorded graph, nothing computed.

A layout is compared by its axis order, as numpy's iterator reads it (a later ufunc's order
and a reduction's additions follow it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._numpy_twins import TWINS
from lazyinfini._numpy_twins.layout import strides_of
from lazyinfini._schedule.orders import axis_order
from tests import test_numpy_programs as programs

_BASE = (np.random.default_rng(0).standard_normal((5, 6, 7)) * 3).astype(np.float32)
INPUTS = {
    "C": _BASE,
    "F": np.asfortranarray(_BASE),
    "transposed": _BASE.transpose(2, 0, 1),
    "reversed": _BASE[::-1],
    "permuted": _BASE.transpose(1, 0, 2),
    "F 2-d": np.asfortranarray(_BASE[0]),
    "transposed 2-d": _BASE[0].T,
    "strided": _BASE[:, ::2],
    "int64 F": np.asfortranarray((_BASE * 3).astype(np.int64)),
    "float16 transposed": _BASE.astype(np.float16).transpose(2, 1, 0),
    "bool F": np.asfortranarray(_BASE > 0),
}


def _twin_calls():
    """(name, call) for each twin with the arguments most calls take: the array alone, twice,
    with an axis (and keepdims), with a scalar."""
    for f in TWINS:
        name = getattr(f, "__name__", str(f))
        yield name, lambda a, f=f: f(a)
        yield f"{name}(a, a)", lambda a, f=f: f(a, a)
        yield f"{name}(a, 2)", lambda a, f=f: f(a, 2)
        yield f"{name}(a, 0.5)", lambda a, f=f: f(a, 0.5)
        for axis in (0, 1, -1):
            yield f"{name}(axis={axis})", lambda a, f=f, axis=axis: f(a, axis=axis)
            yield (
                f"{name}(axis={axis}, keepdims)",
                lambda a, f=f, axis=axis: f(a, axis=axis, keepdims=True),
            )


def _program_calls():
    for name, f in programs.UNARY.items():
        for axis in (0, 1):
            yield f"{name}(axis={axis})", lambda a, f=f, axis=axis: f(a, axis)
    for name, f in programs.BINARY.items():
        yield name, lambda a, f=f: f(a, a * 1 if a.dtype != bool else a)
    for name, f in programs.REDUCE.items():
        for axis in (0, 1, None):
            for keep in (False, True):
                yield (
                    f"{name}({axis}, {keep})",
                    lambda a, f=f, axis=axis, keep=keep: f(a, axis, keep),
                )


def _differing(a: np.ndarray, calls, made=lambda x: x) -> tuple[int, list]:
    """How many calls on `made(a)` gave an array of 2+ dims on both sides, and those whose
    axis orders differ: (name, numpy's strides, numpy's order, lazyinfini's)."""
    checked, differing = 0, []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name, call in calls:
            try:
                expected = call(made(a))
                got = call(made(li.asarray(a)))
            except Exception:  # NOTE: a call these arguments do not fit (either side)
                continue
            if not isinstance(expected, np.ndarray) or expected.ndim < 2 or expected.size < 2:
                continue
            if not isinstance(got, li.Array) or got.shape != expected.shape:
                continue
            checked += 1
            want = axis_order(expected.shape, [expected.strides])
            ours = axis_order(got.shape, [strides_of(got)])
            if want != ours:
                differing.append((name, expected.strides, want, ours))
    return checked, differing


@pytest.mark.parametrize("layout", sorted(INPUTS))
def test_each_twins_result_is_laid_out_as_numpys(layout):
    checked, differing = _differing(INPUTS[layout], list(_twin_calls()))
    assert checked > 100
    assert not differing, differing


@pytest.mark.parametrize("layout", sorted(INPUTS))
def test_each_fuzzed_calls_result_is_laid_out_as_numpys(layout):
    checked, differing = _differing(INPUTS[layout], list(_program_calls()))
    assert checked > 50
    assert not differing, differing


_PAIRED = {
    "C": _BASE,
    "F": np.asfortranarray(_BASE),
    "transposed": np.ascontiguousarray(_BASE.transpose(2, 0, 1)).transpose(1, 2, 0),
    "broadcast": np.broadcast_to(_BASE[:1], _BASE.shape),
    "int32 F": np.asfortranarray(_BASE.astype(np.int32)),
}


def _paired_calls(b: np.ndarray):
    """Each twin on a and `b` (two arrays of one shape, other layouts): as its two operands,
    as a list, as where's and clip's three."""
    for f in TWINS:
        name = getattr(f, "__name__", str(f))
        yield name, lambda a, f=f: f(a, b)
        yield f"{name}([a, b])", lambda a, f=f: f([a, b])
        yield f"{name}([a, b], axis=1)", lambda a, f=f: f([a, b], axis=1)
        yield f"{name}(a > 0, a, b)", lambda a, f=f: f(a > 0, a, b)
        yield f"{name}(a, b, b)", lambda a, f=f: f(a, b, b)


@pytest.mark.parametrize("layout", sorted(_PAIRED))
def test_each_twins_result_of_two_layouts_is_laid_out_as_numpys(layout):
    # NOTE: b is an ndarray on both sides here: an ndarray operand's layout is its own
    checked = 0
    for name, other in _PAIRED.items():
        count, differing = _differing(_PAIRED[layout], list(_paired_calls(other)))
        checked += count
        assert not differing, (name, differing)
    assert checked > 50


def test_take_along_axis_with_f_ordered_indices_sums_as_numpys():
    # numpy's take_along_axis is x[ranges..., indices]: written in the indices' order
    rng = np.random.default_rng(0)
    x = rng.standard_normal((37, 29)).astype(np.float32)
    indices = np.asfortranarray(rng.integers(0, 29, (37, 29)))
    for axis in (0, 1):
        expected = np.sum(np.take_along_axis(x, indices, axis=1), axis=axis)
        for device, fuse in (("cpu", True), ("cpu", False), ("reference", True)):
            with li.options(device=device, fuse=fuse):
                taken = np.take_along_axis(li.asarray(x), li.asarray(indices), axis=1)
                got = np.asarray(np.sum(taken, axis=axis))
            np.testing.assert_array_equal(got, expected, err_msg=f"{device} {fuse} {axis}")


_VIEWED = {
    "computed": lambda a: a * 1 if a.dtype != bool else a & True,
    "computed, sliced": lambda a: (a * 1 if a.dtype != bool else a & True)[::2],
    "computed, transposed": lambda a: (a * 1 if a.dtype != bool else a & True).T,
    "transposed, computed": lambda a: a.T * 1 if a.dtype != bool else a.T & True,
    "cumsum": lambda a: np.cumsum(a, axis=1),
}


@pytest.mark.parametrize("made", sorted(_VIEWED))
def test_each_call_on_computed_values_and_their_views_is_laid_out_as_numpys(made):
    # NOTE: order="A" reads F-contiguity off a view's strides (np.imag of (x * 1).T is F)
    calls = [*_twin_calls(), *_program_calls()]
    checked = 0
    for layout in ("C", "F", "reversed", "int64 F"):
        a = INPUTS[layout]
        count, differing = _differing(a, calls, _VIEWED[made])
        checked += count
        assert not differing, (layout, differing)
    assert checked > 100
