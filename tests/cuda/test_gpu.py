"""The cuda device on a real GPU (CuPy), against the reference device: the emulated device's
checks (test_emulated.py), now with the GPU's own bits. Bit for bit where the kernel's
arithmetic is exact (sums, clips, casts, copies: correctly rounded on any IEEE machine); within
the oracle's tolerance where the namespace sums in another order (reductions, matmul, linalg)
or runs CUDA's math functions (complex exp). Skipped without CuPy and a GPU (`-m gpu` selects
these tests on a machine with one)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

import lazyinfini as li
from lazyinfini._schedule import Kind
from tests.cuda.programs import (
    HALF_AND_FLOATS,
    LIBRARY,
    REARRANGES,
    assert_same_bits,
    clip_sub,
    computed_together,
    expected_path,
    laid_out,
    layout_cases,
    on_device,
    on_reference,
    put,
    random_bytes,
    values,
)
from tests.oracle import assert_close
from tests.runtime.test_cpu_differential import OPS, programs


def _missing() -> str | None:
    """Why these tests cannot run here (None: a GPU and CuPy are present)."""
    try:
        import cupy
    except ImportError:
        return 'CuPy is not installed (pip install "lazyinfini[cuda]")'
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # NOTE: CuPy's CUDARuntimeError: no driver
        return f"no CUDA GPU ({error})"
    return None if count else "no CUDA GPU"


MISSING = _missing()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]
# Library calls whose result depends on the order of a sum (CuPy's reductions, cuBLAS)
REORDERED = {"sum", "mean_f16", "matmul", "qr"}


@pytest.fixture(scope="module")
def device():
    from lazyinfini._device import get_device

    return get_device("cuda")


def _bfloat16_arrays() -> bool:
    """Whether CuPy holds bfloat16 arrays (CuPy 14 with ml_dtypes; earlier ones cannot)."""
    import cupy

    try:
        cupy.empty(1, ml_dtypes.bfloat16)
    except Exception:
        return False
    return True


@pytest.mark.parametrize("dtype", HALF_AND_FLOATS, ids=lambda d: np.dtype(d).name)
def test_clip_of_a_difference_matches_the_reference_bit_for_bit(device, dtype):
    if dtype == ml_dtypes.bfloat16 and not _bfloat16_arrays():
        pytest.skip("this CuPy has no bfloat16 arrays")
    cases = layout_cases(dtype)
    for fuse in (True, False):
        for got, inputs in zip(computed_together(clip_sub, cases, device, fuse), cases):
            assert_same_bits(got, on_reference(clip_sub, inputs))


@settings(max_examples=40, deadline=None)
@given(programs())
def test_drawn_programs_match_the_reference_bit_for_bit(device, program):
    data, steps = program
    if data.dtype == ml_dtypes.bfloat16 and not _bfloat16_arrays():
        return  # NOTE: not an assumption's reject: hypothesis would call the strategy unhealthy

    def run(v):
        for name, seed in steps:
            v = OPS[name](v, seed)
        return v

    data = laid_out(data)
    assert_same_bits(on_device(run, [data], device), on_reference(run, [data]))


def test_a_transposed_operand_is_read_through_the_shared_tile(device):
    a, b = values(np.float32, (1000, 700)), values(np.float32, (700, 1000))
    with li.options(device=device.name):
        y = clip_sub(put(device, a), li.permute_dims(put(device, b), (1, 0)))
        (kernel,) = li.inspect.schedule(y).kernels
        assert "tiled" in li.explain(y)
        got = np.asarray(y)
    assert kernel.kind is Kind.ELEMENTWISE
    assert_same_bits(got, on_reference(clip_sub, [a, b.T]))


def test_rearranges_copy_every_layout_exactly(device):
    inputs = [random_bytes(shape, dtype) for shape, dtype, _ in REARRANGES]
    with li.options(device=device.name):
        outs = [view(put(device, x)) for x, (_, _, view) in zip(inputs, REARRANGES)]
        assert {k.kind for k in li.inspect.schedule(*outs).kernels} == {Kind.REARRANGE}
        li.compute(*outs)
    for out, x, (_, _, view) in zip(outs, inputs, REARRANGES):
        with li.options(device="reference"):
            want = np.asarray(view(li.asarray(x)))
        assert_same_bits(np.asarray(out), want)


def test_requested_views_are_views_of_the_gpus_arrays(device):
    import cupy

    x = values(np.float32, (6, 8))
    with li.options(device=device.name):
        base = put(device, x)
        outs = [base[2:], li.reshape(base, (4, 12)), base[1]]
        li.compute(*outs)
    for out, want in zip(outs, [x[2:], x.reshape(4, 12), x[1]]):
        assert isinstance(out._node.arg.data, cupy.ndarray)
        assert_same_bits(np.asarray(out), want)


@pytest.mark.parametrize("name, fn, inputs", LIBRARY, ids=[c[0] for c in LIBRARY])
def test_library_calls_run_in_cupys_namespace(device, name, fn, inputs):
    got, want = on_device(fn, inputs, device), on_reference(fn, inputs)
    if name in REORDERED:
        assert_close(got, want, want.dtype)
    else:
        assert_same_bits(got, want)


def test_sources_are_made_on_the_gpu(device):
    x = values(np.float32, (3, 4))

    def program(x):
        ranges = li.reshape(li.arange(1.5, 13.5, 1.0, dtype=li.float32), (3, 4))
        return ranges * x + li.eye(3, 4, k=1) + li.linspace(0, 1, 4, dtype=li.float32)

    y = program(put(device, x))  # NOTE: recorded with the host's options: sources stay lazy
    # NOTE: CuPy's linspace need not round as numpy's does: within float32's tolerance
    assert_close(np.asarray(y), on_reference(program, [x]), np.float32)


def test_a_cached_schedule_runs_again_with_new_buffers_and_scalars(device):
    def step(x, t):
        return li.clip(x - t, -2.0, 3.0)

    cases = [(values(np.float32, (500, 70)), t) for t in (1.25, -0.75, 2.0)]
    wants = [on_reference(step, [x, np.float32(t)]) for x, t in cases]
    with li.options(device=device.name):
        np.asarray(step(put(device, values(np.float32, (500, 70))), 0.5))
        reused = li.inspect.counters.schedules_reused
        gots = [np.asarray(step(put(device, x), t)) for x, t in cases]
    assert li.inspect.counters.schedules_reused - reused == 3
    for got, want in zip(gots, wants):
        assert_same_bits(got, want)


def test_explain_prints_each_kernels_launch(device):
    a, b = put(device, values(np.float32, (30, 50))), put(device, values(np.float32, (50, 30)))
    z = put(device, np.ones(3, np.complex64))
    label = device.describe(li.inspect.schedule(li.sum(a)).kernels[0])
    with li.options(device=device.name):
        for y in [clip_sub(a, b.T), clip_sub(a, a), li.permute_dims(b, (1, 0)), z * 2, li.sum(a)]:
            (kernel,) = [k for k in li.inspect.schedule(y).kernels if k.kind is not Kind.SOURCE]
            path = expected_path(kernel, label.removeprefix("the array namespace on "))
            assert f"    path {path}" in li.explain(y).splitlines()


def test_kernels_without_a_cuda_form_run_in_cupys_namespace(device):
    z = values(np.float32, (4, 5)) + 1j * values(np.float32, (4, 5))

    def program(z):
        return li.exp(z * 2 - 1) + li.real(z)

    assert_close(on_device(program, [z], device), on_reference(program, [z]), np.complex64)


def test_float32_subnormals_are_kept_and_products_never_fused(device):
    tiny = np.array([1e-40, -3e-39, 2e-45], np.float32)  # subnormal float32 values
    assert_same_bits(on_device(lambda x: x * 1.0 + 0.0, [tiny], device), tiny)
    # (1 + 2**-23)**2 - (1 + 2**-22) is 0 rounded twice, 2**-46 in one fused multiply-add
    one_ulp = np.array([1 + 2**-23], np.float32)
    fused = on_device(lambda a, c: a * a - c, [one_ulp, np.float32([1 + 2**-22])], device)
    assert fused.tolist() == [0.0]


def test_arrays_come_from_and_go_to_dlpack_producers(device):
    import cupy

    data = cupy.arange(6, dtype=cupy.float32)
    x = li.asarray(data)  # NOTE: taken as it is, no copy
    assert x.device == device and x._node.arg.data.data.ptr == data.data.ptr
    np.testing.assert_array_equal(np.asarray(x + 1), np.arange(1, 7, dtype=np.float32))
