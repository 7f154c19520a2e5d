"""Checking: a program's outputs on every device against the reference's step by step values,
and numpy as a second oracle for the reference."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from tests.fuzz.numbers import wide
from tests.fuzz.program import Program, Value
from tests.oracle import assert_close


def devices() -> list[tuple[str, bool]]:
    """(device, fuse) pairs a program runs on: the reference, then every other registered
    device fused and unfused."""
    from lazyinfini._device import DEVICES

    others = [name for name in DEVICES if name != "reference"]
    return [("reference", True)] + [(name, fuse) for name in others for fuse in (True, False)]


def check_program(program: Program, runs=None) -> None:
    """Every device's outputs equal the reference's step by step values, bit for bit where
    the program is exact, within its error bound elsewhere."""
    for device, fuse in runs or devices():
        label = f"device={device!r}, fuse={fuse}"
        try:
            outputs = program.run(device, fuse)
            for actual, expected in zip(outputs, program.outputs, strict=True):
                _assert_agrees(actual, expected)
        except Exception as error:
            error.add_note(f"{label}, program:\n{program.source}")
            raise


def _assert_agrees(actual: np.ndarray, expected: Value) -> None:
    where = f"{expected.name}"
    assert actual.shape == expected.shape, (where, actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (where, actual.dtype, expected.dtype)
    if expected.exact:
        assert_close(actual, expected.value, exact=True)
        return
    floor = float(li.finfo(expected.dtype).smallest_normal)
    np.testing.assert_allclose(
        wide(actual),
        wide(expected.value),
        rtol=0,
        atol=2 * expected.err + floor,
        equal_nan=True,
        err_msg=f"{where} (inexact: error bound {expected.err:.3g})",
    )


def agree_with(out: Value, numpy_call, what: str = "") -> None:
    """out equals what numpy computes, where numpy has the call and gives out's dtype."""
    try:
        with np.errstate(all="ignore"):
            expected = np.asarray(numpy_call())
    except TypeError:  # a loop numpy (or ml_dtypes) does not have
        return
    if expected.dtype != out.dtype:
        return
    try:
        _assert_agrees(out.value, Value(out.name, expected, out.err))
    except AssertionError as error:
        error.add_note(f"numpy's {what or out.name} differs")
        raise
