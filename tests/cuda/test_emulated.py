"""The cuda device against the reference device, bit for bit where the kernel's arithmetic is
exact (sums, clips, casts, copies: correctly rounded on any IEEE machine). Each check runs on the
emulated backend (emulator.py: its kernels compiled by g++ under the shim and run on CPU threads
as the Launch says; numpy underneath the namespace) and on a real GPU (CuPy) where present: the
`cuda` fixture (conftest.py). The emulated run also counts compiles and launches; a GPU's
namespace may sum in another order (reductions, matmul, linalg) or run CUDA's math functions
(complex exp): those results are within the oracle's tolerance there. The checks that only the
emulator can make come last; those only a GPU can make are in test_gpu.py.

The programs use no CUDA math function (exp, sin, ...: the shim would run glibc's) where they
compare bits, so every bit is the rendered kernel's or numpy's own. Kept small: a GPU thread
costs a CPU function call on the emulator, and each new schedule one g++ run."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

import lazyinfini as li
from lazyinfini._array import Array
from lazyinfini._graph import Op, buffer_node
from lazyinfini._graph.memories import own
from lazyinfini._render import nvrtc
from lazyinfini._runtime import run
from lazyinfini._runtime.cuda.backend import cubin
from lazyinfini._runtime.cuda.device import TARGET
from lazyinfini._runtime.cuda.kernels import _copies
from lazyinfini._schedule import Kind
from tests.cuda.emulator import REFUSAL, WAITS, DeviceArray, EmulatedBackend, registered
from tests.cuda.programs import (
    HALF_AND_FLOATS,
    LIBRARY,
    REARRANGES,
    REORDERED,
    assert_same_bits,
    clip_sub,
    computed_together,
    expected_path,
    laid_out,
    layout_cases,
    layouts,
    on_device,
    on_reference,
    put,
    random_bytes,
    values,
)
from tests.cuda.test_gpu import bfloat16_arrays
from tests.oracle import assert_close
from tests.render import shim
from tests.runtime.test_cpu_differential import OPS, programs


def _held(dtype, emulator) -> bool:
    """Whether the device holds arrays of `dtype`: CuPy before 14 holds no bfloat16."""
    return emulator is not None or dtype != ml_dtypes.bfloat16 or bfloat16_arrays()


def _assert_computed(got: np.ndarray, want: np.ndarray, exact: bool) -> None:
    """The same bits where `exact`, else within the oracle's tolerance."""
    if exact:
        assert_same_bits(got, want)
    else:
        assert_close(got, want, want.dtype)


def _device_arrays(emulator) -> type:
    """The type of the device's arrays: the emulator's DeviceArray, or CuPy's ndarray."""
    if emulator is not None:
        return DeviceArray
    import cupy

    return cupy.ndarray


@pytest.mark.parametrize("dtype", HALF_AND_FLOATS, ids=lambda d: np.dtype(d).name)
def test_clip_of_a_difference_matches_the_reference_bit_for_bit(cuda, emulator, dtype):
    if not _held(dtype, emulator):
        pytest.skip("this CuPy has no bfloat16 arrays")
    cases = layout_cases(dtype)
    for fuse in (True, False):  # NOTE: unfused kernels round every op as the reference does
        compiles = emulator.compiles if emulator else None
        for got, inputs in zip(computed_together(clip_sub, cases, cuda, fuse), cases):
            assert_same_bits(got, on_reference(clip_sub, inputs))
        if emulator:
            assert emulator.compiles == compiles + 1  # NOTE: one translation unit a schedule


def test_drawn_programs_match_the_reference_bit_for_bit(cuda, emulator):
    @settings(max_examples=8 if emulator else 40, deadline=None)  # NOTE: a g++ run a program
    @given(programs())
    def check(program):
        data, steps = program
        if not _held(data.dtype, emulator):
            return  # NOTE: not an assumption's reject: hypothesis would call the strategy unhealthy

        def run(v):
            for name, seed in steps:
                v = OPS[name](v, seed)
            return v

        data = laid_out(data)
        assert_same_bits(on_device(run, [data], cuda), on_reference(run, [data]))

    check()


def test_a_transposed_operand_is_read_through_the_shared_tile(cuda, emulator):
    shape = (300, 260) if emulator else (1000, 700)  # NOTE: the emulator runs a thread a call
    a, b = values(np.float32, shape), values(np.float32, shape[::-1])
    with li.options(device=cuda.name):
        y = clip_sub(put(cuda, a), li.permute_dims(put(cuda, b), (1, 0)))
        (kernel,) = li.inspect.schedule(y).kernels  # NOTE: no rearrange first (the Target)
        assert kernel.kind is Kind.ELEMENTWISE
        assert "tiled" in li.explain(y)
        got = np.asarray(y)
    if emulator:
        assert emulator.launches[-1][1] == "tiled"
    assert_same_bits(got, on_reference(clip_sub, [a, b.T]))


def test_rearranges_copy_every_layout_exactly(cuda, emulator):
    inputs = [random_bytes(shape, dtype) for shape, dtype, _ in REARRANGES]
    with li.options(device=cuda.name):
        outs = [view(put(cuda, x)) for x, (_, _, view) in zip(inputs, REARRANGES)]
        kernels = li.inspect.schedule(*outs).kernels
        if emulator:
            compiles, launched = emulator.compiles, len(emulator.launches)
        li.compute(*outs)
    assert {k.kind for k in kernels} == {Kind.REARRANGE}
    assert any(k.plan.constraints for k in kernels)
    if emulator:
        assert emulator.compiles == compiles + 1
        methods = [method for _, method in emulator.launches[launched:]]
        # NCHW -> NHWC interleaves; the 32-byte units' 7x6 transpose is too small for a tile
        assert methods.count("shared tile") == 5 and methods.count("direct") == 2
        assert methods.count("interleave") == 1
    for out, x, (_, _, view) in zip(outs, inputs, REARRANGES):
        with li.options(device="reference"):
            want = np.asarray(view(li.asarray(x)))
        assert_same_bits(np.asarray(out), want)


def test_requested_views_are_views_of_the_device_arrays(cuda, emulator):
    x = values(np.float32, (6, 8))
    with li.options(device=cuda.name):
        base = put(cuda, x)
        outs = [base[2:], li.reshape(base, (4, 12)), base[1]]
        assert all(k.kind is Kind.VIEW for k in li.inspect.schedule(*outs).kernels)
        li.compute(*outs)
    for out, want in zip(outs, [x[2:], x.reshape(4, 12), x[1]]):
        assert isinstance(out._node.arg.data, _device_arrays(emulator))
        assert_same_bits(np.asarray(out), want)


@pytest.mark.parametrize("name, fn, inputs", LIBRARY, ids=[c[0] for c in LIBRARY])
def test_library_calls_run_in_the_namespace(cuda, emulator, name, fn, inputs):
    with li.options(device=cuda.name):
        kinds = {k.kind for k in li.inspect.schedule(fn(*[put(cuda, x) for x in inputs])).kernels}
    assert Kind.OPAQUE in kinds
    exact = emulator is not None or name not in REORDERED
    _assert_computed(on_device(fn, inputs, cuda), on_reference(fn, inputs), exact)


def test_data_dependent_calls_run_where_the_data_lives(cuda, emulator):
    """nonzero and unique_* (their output's shape depends on the data) run in the device's
    namespace on its arrays, never through the host, and give arrays of the device."""
    x_np = np.array([[3.0, -0.0, 3.0], [np.nan, 0.0, 1.0]], np.float32)
    x = put(cuda, x_np)
    calls = (li.nonzero, li.unique_all, li.unique_counts, li.unique_inverse)
    results = [*(a for call in calls for a in call(x)), li.unique_values(x)]
    for got in results:
        assert got.device == x.device and isinstance(got._n.arg.data, _device_arrays(emulator))
    with li.options(device="reference"):
        h = li.asarray(x_np)
        expected = [*(a for call in calls for a in call(h)), li.unique_values(h)]
    for got, want in zip(results, expected, strict=True):
        assert_same_bits(np.asarray(got), np.asarray(want))
    picked = x[li.nonzero(x)]  # the indices live with x: no memories meet
    assert_same_bits(np.asarray(picked), x_np[np.nonzero(x_np)])


def test_a_copy_of_a_device_buffer_is_made_on_the_device_now(cuda, emulator):
    """asarray(x, copy=True) of a buffer someone else may write into (a torch tensor taken by
    DLPack) copies it on the device at once; later writes into the original are not seen."""
    x_np = values(np.float32, (4, 5))
    x = put(cuda, x_np)
    copy = li.asarray(x, copy=True)
    assert copy._n.op is Op.BUFFER and isinstance(copy._n.arg.data, _device_arrays(emulator))
    x._n.arg.data[...] = 0  # NOTE: written in place, as the tensor's owner may
    assert_same_bits(np.asarray(copy), x_np)
    assert copy.device == x.device


@pytest.mark.parametrize(
    "name, size, call",
    [
        ("__getitem__", 3, lambda x, i: x[i, 1:]),
        ("__getitem__", 4, lambda x, i: x[:, None, i]),
        ("__setitem__", 4, lambda x, i: _set(x, (slice(None), i), 0.0)),
        ("take", 4, lambda x, i: li.take(x, i, axis=1)),
        ("take_along_axis", 3, lambda x, i: li.take_along_axis(x, li.reshape(i, (2, 1)), axis=0)),
    ],
    ids=["gather", "gather-after-none", "setitem", "take", "take_along_axis"],
)
def test_index_arrays_out_of_bounds_raise_on_the_device(cuda, emulator, name, size, call):
    """numpy raises for an index out of bounds; CuPy (and so the emulator) wraps it around,
    which would be a wrong number: the device checks its index arrays first."""
    x_np = values(np.float32, (3, 4))
    x = put(cuda, x_np)
    inside = put(cuda, np.array([-3, 2]))
    assert np.asarray(call(x, inside)).size  # NOTE: negative indices in bounds are fine
    for dtype in (np.int64, np.uint8, np.int8):  # NOTE: narrow and unsigned index dtypes too
        with pytest.raises(IndexError, match=rf"^{name}: index {size} is out of bounds for ax"):
            np.asarray(call(x, put(cuda, np.array([0, size], dtype))))


def _set(x, key, value):
    x[key] = value
    return x


def test_sources_are_made_on_the_device(cuda, emulator):
    x = values(np.float32, (3, 4))

    def program(x):  # NOTE: ranges recorded lazily, computed where x lives
        ranges = li.reshape(li.arange(1.5, 13.5, 1.0, dtype=li.float32), (3, 4))
        ints = li.astype(li.reshape(li.arange(-6, 6, dtype=li.int16), (3, 4)), li.float32)
        return ranges * x + ints + li.eye(3, 4, k=1) + li.linspace(0, 1, 4, dtype=li.float32)

    y = program(put(cuda, x))  # NOTE: recorded with the host's options: sources stay lazy
    with li.options(device=cuda.name):
        assert sum(k.kind is Kind.SOURCE for k in li.inspect.schedule(y).kernels) == 4
    # NOTE: CuPy's linspace need not round as numpy's does: within float32's tolerance
    _assert_computed(np.asarray(y), on_reference(program, [x]), exact=emulator is not None)
    if _held(li.bfloat16, emulator):
        with li.options(device=cuda.name):
            filled = li.full((2, 3), -2.5, dtype=li.bfloat16)
            assert_same_bits(np.asarray(filled), np.full((2, 3), -2.5, li.bfloat16))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NOTE: float16(70000) is inf, as numpy's
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_float_arange_made_on_the_device_has_numpys_values(cuda, dtype):
    """numpy's arange formula on the device's namespace: the stored ends (an infinite float16
    one) are chosen by namespace calls alone (the emulator's arrays have no operators)."""
    for start, stop, step in [(-3.3, 7.9, 0.7), (0, 1, 0.1), (0, 140000, 70000)]:
        with li.options(device=cuda.name):
            got = np.asarray(li.arange(start, stop, step, dtype=np.dtype(dtype)))
        want = np.arange(start, stop, step, dtype=dtype)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_cached_schedule_runs_again_with_new_buffers_and_scalars(cuda, emulator):
    def step(x, t):
        return li.clip(x - t, -2.0, 3.0)

    cases = [(values(np.float32, (500, 70)), t) for t in (1.25, -0.75, 2.0)]
    wants = [on_reference(step, [x, np.float32(t)]) for x, t in cases]
    with li.options(device=cuda.name):
        np.asarray(step(put(cuda, values(np.float32, (500, 70))), 0.5))
        compiles = emulator.compiles if emulator else None
        reused = li.inspect.counters.schedules_reused
        gots = [np.asarray(step(put(cuda, x), t)) for x, t in cases]
    if emulator:
        assert emulator.compiles == compiles  # NOTE: the kernel met again is not compiled again
    assert li.inspect.counters.schedules_reused - reused == 3
    for got, want in zip(gots, wants):
        assert_same_bits(got, want)


def test_kernels_without_a_cuda_form_run_node_by_node(cuda, emulator):
    z = values(np.float32, (4, 5)) + 1j * values(np.float32, (4, 5))
    w = values(np.float32, (5,)).astype(np.complex64)

    def program(z, w):
        return li.exp(z * w - 1) + li.real(z)

    launched = len(emulator.launches) if emulator else None
    # NOTE: within complex64's tolerance on either device: CUDA's exp on a GPU, and on the
    # emulator CuPy's plain formula e^a cis b where a part is zero (cupy_math.py), whose float32
    # exp is numpy's SIMD one, an ulp or two from numpy's complex exp on some CPUs (AVX-512)
    got, want = on_device(program, [z, w], cuda), on_reference(program, [z, w])
    _assert_computed(got, want, exact=False)
    if emulator:
        assert len(emulator.launches) == launched  # NOTE: no kernel of ours ran


def test_explain_prints_each_kernels_launch(cuda, emulator):
    a, b = put(cuda, values(np.float32, (30, 50))), put(cuda, values(np.float32, (50, 30)))
    z = put(cuda, np.ones(3, np.complex64))
    label = cuda.describe(li.inspect.schedule(li.sum(a)).kernels[0])
    label = label.removeprefix("the array namespace on ")
    if emulator:
        assert label == EmulatedBackend.label
    with li.options(device=cuda.name):
        for y in [clip_sub(a, b.T), clip_sub(a, a), li.permute_dims(b, (1, 0)), z * 2, li.sum(a)]:
            (kernel,) = [k for k in li.inspect.schedule(y).kernels if k.kind is not Kind.SOURCE]
            assert f"    path {expected_path(kernel, label)}" in li.explain(y).splitlines()
            # NOTE: the host's copy method is no line here: the kernel copies by the plan
            assert "    method " not in li.explain(y)
    assert "    method " in li.explain(li.permute_dims(li.asarray(np.ones((3, 4))), (1, 0)))


# The checks only the emulator can make


def test_a_load_the_space_cannot_view_is_passed_as_a_contiguous_copy(device, backend):
    """The layout (cuda.layout) assumes a C-contiguous copy of a load numpy cannot reshape to
    the kernel's space; coalesced spaces never ask for one, so a record is made to ask."""
    a, b = values(np.float32, (9, 40)), layouts(values(np.float32, (9, 40)))["transposed"]
    with li.options(device=device.name):
        y = put(device, a) - put(device, b)
        (kernel,) = li.inspect.schedule(y).kernels
    flat = dataclasses.replace(kernel, space=(360,))  # NOTE: no view of the transposed load
    assert _copies(flat) == (False, True)
    memory = run.allocator(device, run.Settings())
    with device.context():
        (got,) = device.handlers[Kind.ELEMENTWISE](flat, {}, memory)
    assert backend.launches[-1][1] == "vector"  # NOTE: the copy is a fresh, aligned buffer
    assert_same_bits(device.to_host(got), on_reference(lambda x, z: x - z, [a, b]))


@pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++) for the shim")
@pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (nvidia-cuda-nvrtc-cu12) is not installed")
def test_the_units_the_device_compiles_are_cubins_for_a_gpu():
    """What CupyBackend.compile hands NVRTC: each unit the device compiled (here for the shim)
    compiles to a cubin for an A100 and an H100, the shared tiles and half floats included."""
    backend = EmulatedBackend()  # NOTE: a device of its own: every kernel is compiled anew
    with registered(backend, "cuda-emulated-units") as device:
        cases = layout_cases(np.float16)
        computed_together(clip_sub, cases[:3], device)  # NOTE: the last b is transposed: tiled
        computed_together(clip_sub, cases[3:4], device)
        with li.options(device=device.name):
            li.compute(*[view(put(device, random_bytes(s, d))) for s, d, view in REARRANGES[:3]])
    methods = {r.launch.method for unit in backend.units for r in unit}
    assert methods == {"vector", "tiled", "shared tile", "interleave"}
    for unit in backend.units:
        for arch in ("sm_80", "sm_90"):
            assert cubin(unit, arch).startswith(b"\x7fELF")


def test_device_arrays_never_become_numpy_arrays(device):
    a = put(device, values(np.float32, (3, 4)))
    with pytest.raises(TypeError, match=REFUSAL[:40]):
        np.asarray(a._node.arg.data)
    y = (a - 1).compute()
    assert isinstance(y._node.arg.data, DeviceArray) and y.device == device


def test_host_and_device_arrays_never_meet(device):
    with pytest.raises(ValueError, match="different devices|memory"):
        (put(device, np.ones(3, np.float32)) + li.asarray(np.ones(3, np.float32))).compute()


def test_empty_arrays_launch_nothing(device, backend):
    x = np.ones((0, 3), np.float32)
    launched = len(backend.launches)
    assert on_device(clip_sub, [x, x], device).shape == (0, 3)
    assert on_device(lambda v: li.permute_dims(v, (1, 0)), [x], device).shape == (3, 0)
    assert len(backend.launches) == launched


def test_the_target_fuses_and_renders_every_elementwise_kernel():
    assert TARGET.fuse and TARGET.compile_min == 0 and TARGET.transposed_copy_min is None
    assert not TARGET.tile_lines


def test_the_public_api_places_and_computes_arrays_on_the_device(device):
    """What a user writes: asarray(device=), creation with device=, arithmetic that runs where
    the arrays live (whatever the options say), to_device, np.asarray back, no silent mixing."""
    name = device.name
    a_np = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    a = li.asarray(a_np, device=name)
    b = li.ones((6,), dtype=li.float32, device=name)
    assert a.device.name == b.device.name == name
    y = li.clip(a - b * 0.5, -1.0, 1.0)
    assert y.device.name == name and "kernel(s)" in li.explain(y)
    got = np.asarray(y)  # computed on the device, copied back
    assert isinstance(y._n.arg.data, DeviceArray) and y._n.arg.device == name
    np.testing.assert_array_equal(got, np.clip(a_np - np.float32(0.5), -1, 1))
    back = y.to_device("cpu")
    assert back.device == li.CPU and np.array_equal(np.asarray(back), got)
    with pytest.raises(ValueError, match="meet"):
        y + back
    with li.options(device=name):
        z = li.arange(5, dtype=li.float32) * 2.0  # the default device holds new arrays
    assert z.device.name == name
    np.testing.assert_array_equal(np.asarray(z), np.arange(5, dtype=np.float32) * 2)


def test_two_gpus_are_two_memories_that_never_mix(device):
    """A second emulated GPU (its own memory, as "cuda:1" is CuPy's GPU 1): arrays move between
    the two only by to_device; an op joining them raises at its line."""
    other = EmulatedBackend()
    other.memory = "cuda-emulated:1"
    with registered(other, "cuda-emulated-1") as second:
        a = li.asarray(np.arange(6.0).reshape(2, 3), device=device.name)
        b = li.asarray(np.ones((2, 3)), device=second.name)
        with pytest.raises(ValueError, match=r"^add: arrays in cuda-emulated memory and in"):
            a + b
        moved = a.to_device(second.name)
        assert moved.device.name == second.name
        np.testing.assert_array_equal(np.asarray(moved + b), np.arange(6.0).reshape(2, 3) + 1)


def test_a_cached_program_is_one_launch_a_kernel_and_nothing_else(device, backend):
    """The host path of a cached program: each kernel one launch of its prepared launch (its
    fills by value), an allocation per output, no copy either way, no wait; reading the
    result is one copy to the host."""
    a, b = values(np.float32, (40, 24)), values(np.float32, (40, 24))
    x, y = put(device, a), put(device, b)

    def program():  # an elementwise kernel and a rearrange (the transposed output's copy)
        return li.permute_dims(li.clip(x - y, 0.25, 0.75) * 2.0 - y, (1, 0))

    with li.options(device=device.name):
        kinds = [k.kind for k in li.inspect.schedule(program()).kernels]
        assert kinds == [Kind.ELEMENTWISE, Kind.REARRANGE]
        program().compute()  # compiles and caches the schedule
        before, waits = backend.counts.snapshot(), WAITS[0]
        lists = li.inspect.counters.direct_runs
        z = program().compute()
        after = backend.counts.snapshot()
    assert li.inspect.counters.direct_runs == lists + 1  # NOTE: bound and launched, no handler
    assert after.launches - before.launches == 2
    assert after.allocations - before.allocations == 2  # the kernel's output, the copy's
    assert (after.to_device, after.to_host, after.waits) == (
        before.to_device,
        before.to_host,
        before.waits,
    )
    assert WAITS[0] == waits
    got = np.asarray(z)
    assert backend.counts.to_host == before.to_host + 1
    want = np.transpose(np.clip(a - b, np.float32(0.25), np.float32(0.75)) * 2 - b)
    assert_same_bits(got, want)


def test_a_launch_list_takes_the_fallback_for_a_view_off_the_vector_boundary(device, backend):
    """A cached vector kernel run again on buffers one element off a 16-byte boundary launches
    its grid-stride fallback (a GPU faults on a misaligned vector access; the shim asserts
    it), with the same bits; a new scalar is bound by value, -0.0 kept."""
    a, b = values(np.float32, (1025,)), values(np.float32, (1025,))
    whole_a, whole_b = device.from_host(a), device.from_host(b)

    own(device.name, device.memory, device.reads)  # NOTE: as the API places arrays there

    def run(start: int, low: float):
        views = [whole[start : start + 1024] for whole in (whole_a, whole_b)]
        x, y = (Array(buffer_node(view, "tests/cuda", device.name)) for view in views)
        return np.asarray(li.maximum(x - y, low)), backend.launches[-1][1]

    with li.options(device=device.name):
        lists = li.inspect.counters.direct_runs
        runs = [run(0, 0.5), run(1, 0.5), run(1, -0.0), run(0, -0.0)]
    assert li.inspect.counters.direct_runs == lists + 4
    assert [method for _, method in runs] == ["vector", "grid-stride", "grid-stride", "vector"]
    for (got, _), start, low in zip(runs, (0, 1, 1, 0), (0.5, 0.5, -0.0, -0.0)):
        x, y = a[start : start + 1024], b[start : start + 1024]
        assert_same_bits(got, np.maximum(x - y, np.float32(low)))
