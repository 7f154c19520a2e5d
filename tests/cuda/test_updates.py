"""Functional updates on the cuda device: a chain of writes into a buffer the schedule made
writes in place there too (Kernel.in_place: the library call updates the device buffer it is
given), and a masked fill `x[mask] = v` of x's whole shape is a select, one elementwise kernel
whose value is a kernel parameter (a −0.0 keeps its sign: a 0-d value copied to the device
would lose it, on CuPy and on the emulator). Bit for bit the reference's, on the emulated
device and on a GPU where present."""

from __future__ import annotations

import numpy as np

import lazyinfini as li
from lazyinfini._schedule import Kind
from tests.cuda.programs import assert_same_bits, put, values


def _writes(x):
    """numpy code writing through views: a row scaled, a column through the transpose, the
    last row reversed in place."""
    cleaned = x * 1.0
    row = cleaned[1]
    row *= 2.0
    cleaned.T[0] += 1.0
    last = cleaned[-1, :]
    last[:] = last[::-1]
    return cleaned


def test_writes_into_a_made_buffer_go_in_place_on_the_device(cuda):
    x_np = values(np.float32, (6, 4))
    with li.options(device="reference"):
        expected = np.asarray(_writes(li.asarray(x_np)))
    x = put(cuda, x_np)
    with li.options(device=cuda.name):
        got = _writes(x)
        updates = [k for k in li.inspect.schedule(got).kernels if k.kind is Kind.OPAQUE]
        assert updates and all(k.in_place for k in updates), updates
        assert_same_bits(np.asarray(got), expected)
    assert_same_bits(np.asarray(x), x_np)  # NOTE: the input's device buffer is untouched


def test_a_masked_fill_is_one_kernel_keeping_a_negative_zero(cuda, emulator):
    x_np = values(np.float32, (5, 7))
    expected = x_np.copy()
    expected[expected > 0] = -0.0
    x = put(cuda, x_np)
    with li.options(device=cuda.name):
        before = li.inspect.counters.materializations
        x[x > 0] = -0.0
        assert li.inspect.counters.materializations == before  # NOTE: the mask stays pending
        kernels = li.inspect.schedule(x).kernels
        assert [k.kind for k in kernels] == [Kind.ELEMENTWISE], kernels
        sent = emulator.counts.to_device if emulator else None
        got = np.asarray(x)
    if emulator:
        assert emulator.counts.to_device == sent  # NOTE: the value went by value, not copied
    assert_same_bits(got, expected)
    assert np.signbit(got[x_np > 0]).all()


def _through_parts(z):
    """numpy code writing through a complex array's parts (views of it)."""
    z = z * 1.0
    z.real[z.imag > 0] = -0.0
    imag = z.imag
    imag *= 2.0
    return z, z[::-1].imag


def test_writes_through_complex_parts_compose_the_value_on_the_device(cuda):
    z_np = (values(np.float32, (5, 4)) + 1j * values(np.float32, (5, 4))).astype(np.complex64)
    with li.options(device=cuda.name):
        got = _through_parts(put(cuda, z_np))
        kinds = {k.kind for k in li.inspect.schedule(*got).kernels}
        li.compute(*got)
    assert Kind.ELEMENTWISE in kinds
    with np.errstate(invalid="ignore"):
        want = _through_parts(z_np)
    for mine, numpys in zip(got, want, strict=True):
        assert_same_bits(np.asarray(mine), numpys)
