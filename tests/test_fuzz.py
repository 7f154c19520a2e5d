"""The differential fuzz: random lazyinfini programs (tests/fuzz/) run on every device
(the CPU fused and unfused) and on the reference device, each from fresh inputs, must give the
numbers the reference computed step by step: bit for bit where every op rounds exactly once,
within a bound derived op by op elsewhere (transcendental functions, sums that round); numpy
checks the reference's elementwise functions, sorts and integer reductions while drawing, and
the cpu device's sums over the last axes of elementwise values (one REDUCE kernel each, summing
rows in numpy's order) must equal its unfused ones bit for bit, checked while drawing too.

Programs mix elementwise ops, views, reductions, cumulative ops, sorting, fancy and boolean
indexing, setitem, copies and multi-output li.compute over bool, integer and float dtypes
(float16 and bfloat16 too) and input layouts (C, F, transposed, sliced with negative steps,
broadcast, unaligned). A failure prints the program as Python source: its own reproducer.

500 programs by default plus 50 with 65k+ element inputs (derandomized under CI, see
conftest.py); LAZYINFINI_FUZZ_LONG=1 runs 5000 (+500), LAZYINFINI_FUZZ_EXAMPLES=n runs n.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from tests.fuzz import (
    Program,
    Value,
    agree_with,
    check_program,
    devices,
    draw_program,
    exactly_summable,
    program_from_source,
)
from tests.oracle import assert_close


def _examples() -> int:
    if os.environ.get("LAZYINFINI_FUZZ_EXAMPLES"):
        return int(os.environ["LAZYINFINI_FUZZ_EXAMPLES"])
    return 5000 if os.environ.get("LAZYINFINI_FUZZ_LONG") else 500


EXAMPLES = _examples()


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_random_programs_agree_on_every_device(data):
    check_program(draw_program(data))


@settings(max_examples=max(EXAMPLES // 10, 5))
@given(st.data())
def test_large_programs_agree_on_every_device(data):
    """Inputs of 65k+ elements take the paths small ones never do: tiled rearrange copies of
    transposed loads, threaded copies, pooled outputs."""
    check_program(draw_program(data, big=True))


# -- reproducers the fuzz found, kept as fixed cases ---------------------------------------
FOUND = {
    "round_of_a_broadcast_computed_scalar": """
x0 = np.array(1, dtype=np.int32)
v0 = li.asarray(x0)
v1 = li.round(li.broadcast_to(v0 + 1, (3,)))
outputs = [np.asarray(v) for v in (v1,)]
""",
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_found_programs_agree_on_every_device(name):
    check_program(program_from_source(FOUND[name]))


@pytest.mark.parametrize("dtype", [li.float16, li.bfloat16], ids=["float16", "bfloat16"])
def test_found_nextafter_steps_to_the_next_value_of_the_dtype(dtype):
    """Found by the fuzz's numpy cross-check (every device agreed with the reference): half
    floats computed in float32 and rounded back stepped to themselves."""
    x = np.array([1.0, 0.0, -2.0], dtype=dtype)
    expected = np.nextafter(x, np.array(3.0, dtype))  # bfloat16: ml_dtypes' loop
    for device, fuse in devices():
        with li.options(device=device, fuse=fuse):
            assert_close(li.nextafter(li.asarray(x), 3.0), expected, dtype, exact=True)


# -- the check can fail ----------------------------------------------------------------------
SOURCE = """
x0 = (rng(1).standard_normal((3, 4)) * 4).astype(li.float16).T
v0 = li.asarray(x0)
v1 = li.sum(v0 * 0.1, axis=0)
v2 = li.sin(v0)
outputs = [np.asarray(v) for v in (v1, v2)]
"""


def _with_outputs(program: Program, outputs) -> Program:
    return Program(program.source, program.inputs, tuple(outputs))


def test_the_check_sees_one_ulp_where_the_program_is_exact():
    program = program_from_source(SOURCE, exact=True)
    exact = program.outputs[0]
    bumped = exact.value.copy()
    bumped[0] = np.nextafter(bumped[0], np.float16(np.inf))
    with pytest.raises(AssertionError, match="not equal"):
        check_program(_with_outputs(program, [Value("v1", bumped, 0.0), program.outputs[1]]))


def test_the_check_sees_a_difference_past_the_error_bound():
    program = program_from_source(SOURCE, exact=False)
    inexact = program.outputs[1]
    assert inexact.err > 0
    shifted = (inexact.value.astype(np.float64) + 3 * inexact.err + 1e-3).astype(inexact.dtype)
    with pytest.raises(AssertionError, match="error bound"):
        check_program(
            _with_outputs(program, [program.outputs[0], Value("v2", shifted, inexact.err)])
        )


def test_the_check_sees_a_wrong_dtype_and_shape():
    program = program_from_source(SOURCE, exact=True)
    first = program.outputs[0]
    for wrong in (first.value.astype(np.float32), first.value[:-1]):
        with pytest.raises(AssertionError):
            check_program(_with_outputs(program, [Value("v1", wrong, 0.0), program.outputs[1]]))


def test_the_check_sees_an_input_written_to():
    program = program_from_source(SOURCE + "x0[...] = 0\n", exact=True)
    with pytest.raises(AssertionError, match="x0 was changed"):
        check_program(program)


def test_exact_sums_are_recognized():
    """Sums of halves are exact in any order; sums of tenths, or past the mantissa, are not."""
    x = (np.random.default_rng(1).integers(-12, 13, (50, 7)) / 2).astype(np.float32)
    assert exactly_summable(x, (0,))
    assert not exactly_summable((x * np.float32(0.1)).astype(np.float32), (0,))
    assert exactly_summable(np.array([2.0**30, 1.0], np.float64), (0,))
    assert not exactly_summable(np.array([2.0**30, 1.0], np.float32), (0,))
    assert exactly_summable(np.array([2.0**8, 1.0], li.bfloat16), (0,))  # in float32: exact


def test_the_numpy_check_sees_a_difference():
    out = Value("v1", np.array([1.0, 2.0], np.float16), 0.0)
    agree_with(out, lambda: np.array([1.0, 2.0], np.float16))
    agree_with(out, lambda: np.array([1.0, 2.0], np.float32))  # another dtype: not comparable
    with pytest.raises(AssertionError, match="numpy's"):
        agree_with(out, lambda: np.array([1.0, 2.001], np.float16))
