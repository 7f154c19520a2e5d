"""The numbers rendered CUDA kernels compute, checked on the CPU: each kernel compiled by the
host g++ under the shim (tests/render/shim.py), launched with the grid and block its Launch
gives, against the reference device (or numpy's copy) bit for bit. The ops whose CUDA form is
CUDA's math library (LIBM) run glibc's here and are checked within 4 ulps: the shim checks how
those kernels walk and round, not libdevice's last bit (docs/cuda.md)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._render import cuda
from lazyinfini._runtime.cpu import load_view
from tests.cuda.programs import assert_same_bits
from tests.render import shim
from tests.render.kernels import PLANS, chains, rearranges, rendered
from tests.render.programs import (
    LIBM,
    elementwise_kernel,
    op_programs,
    operands,
    reference,
    values,
)
from tests.runtime.test_compiled import OPS
from tests.runtime.test_rearrange_exec import strided, whole_buffer

pytestmark = pytest.mark.skipif(shim.COMPILER is None, reason="no C++ compiler (g++)")


def run_elementwise(cases) -> list[np.ndarray]:
    """The first output of each (kernel, program, inputs) case, every kernel in one build: by
    the launch a device takes for the operands' addresses, and where the kernel has two (a
    vector walk and its fallback) by the other too where it fits, with the same bits."""
    found = [cuda.render(k) for k, _, _ in cases]
    library = shim.build(found)
    results = []
    for (kernel, _, _), kernel_rendered in zip(cases, found):
        outs, loads = operands(kernel)
        taken = shim.run_chosen(library, kernel_rendered, outs + loads)
        results.append(outs[0].reshape(kernel.outputs[0].shape))
        for other in kernel_rendered.launches:
            if other is not taken and other.fits(shim.addresses(outs + loads)):
                again = [np.zeros_like(out) for out in outs]
                shim.run(library, other, again + loads)
                assert_same_bits(again[0], outs[0])
    return results


def same(got: np.ndarray, want: np.ndarray, ulps: int = 0) -> None:
    """Bit for bit (a NaN is any NaN; signed zeros differ); with `ulps`, finite values within
    that many units in the last place of the result's dtype."""
    assert got.dtype == want.dtype and got.shape == want.shape
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(wide_want) if want.dtype.kind in "fV" or want.dtype == li.bfloat16 else False
    assert np.array_equal(np.isnan(wide_got) if nan is not False else False, nan)
    items = got.dtype.itemsize
    bits = lambda a: np.ascontiguousarray(a).view(f"u{items}")  # noqa: E731
    exact = (bits(got) == bits(want)) | nan
    if ulps:
        eps = float(ml_dtypes.finfo(want.dtype).eps)
        tiny = float(ml_dtypes.finfo(want.dtype).smallest_subnormal)
        near = np.abs(wide_got - wide_want) <= ulps * np.maximum(np.abs(wide_want) * eps, tiny)
        exact |= near & np.isfinite(wide_want)
    bad = np.argwhere(~exact)
    first = tuple(bad[0]) if bad.size else None
    assert not bad.size, f"{len(bad)} differ, first at {first}: {got[first]!r} vs {want[first]!r}"


def in_range(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """`x` with the values a cast to the integer `target` is undefined for (in numpy) replaced:
    the saturating casts are checked on their own below."""
    if np.dtype(target).kind not in "iu" or x.dtype.kind in "biu":
        return x
    info, wide = np.iinfo(target), x.astype(np.float64)
    ok = np.isfinite(wide) & (wide > info.min - 1.0) & (wide < info.max + 1.0)
    return np.where(ok, wide, 3.75).astype(x.dtype)


def test_every_op_and_dtype_matches_the_reference():
    rng = np.random.default_rng(1)
    cases, checks = [], []
    for name, dtype, program, op in op_programs():
        x, y = values(dtype, rng, (6, 5)), values(dtype, rng, (5,))
        if name.startswith("astype_"):
            x = in_range(x, np.dtype(name[len("astype_") :]))
        kernel = elementwise_kernel(program(li.asarray(x), li.asarray(y)))
        if kernel is None or cuda.unsupported(kernel):
            continue
        cases.append((kernel, program, (x, y)))
        checks.append((name, 4 if op in LIBM else 0))
    assert len(cases) > 800
    for got, (_, program, inputs), (name, ulps) in zip(run_elementwise(cases), cases, checks):
        want = reference(program, inputs)
        try:
            same(got, want, ulps)
        except AssertionError as error:
            raise AssertionError(f"{name} {inputs[0].dtype}: {error}") from None


# -- hypothesis: fused chains over drawn shapes, layouts and dtypes --------------------------------

STEPS = {  # the C tests' chain steps, and numpy's floor division and remainder
    **OPS,
    "fdiv": lambda x, y: x // y,
    "rem": lambda x, y: x % y,
}
FLOAT_STEPS = {
    "div": lambda x, y: x / y,
    "sqrt": lambda x, y: li.sqrt(li.abs(x)),
    "round": lambda x, y: li.round(x),
    "to_f64": lambda x, y: li.astype(li.astype(x, li.float64), x.dtype),
    "to_f16": lambda x, y: li.astype(li.astype(x, li.float16), x.dtype),
    "sign": lambda x, y: li.sign(x),
    "signbit": lambda x, y: li.where(li.signbit(x) | li.isnan(x), y, x),
}
DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int8, np.int64, np.uint16]


def layout(x: np.ndarray, how: str) -> np.ndarray:
    """`x` (at least 2-d) viewed in memory another way, same values."""
    if how == "transposed":
        return np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    if how == "reversed":  # negative strides, a gap between elements
        return np.repeat(x, 2, axis=-1)[..., ::-1, ::-2]
    if how == "fortran":
        return np.asfortranarray(x)
    return x


@st.composite
def drawn_chains(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(1, 40), min_size=2, max_size=4)))
    if np.prod(shape) > 4000:
        shape = shape[-2:]
    y_shape = draw(st.sampled_from([shape, shape[-1:], (*shape[:-1], 1), ()]))
    floats = dtype.kind == "f" or dtype == ml_dtypes.bfloat16
    names = sorted(STEPS) + (sorted(FLOAT_STEPS) if floats else [])
    steps = draw(st.lists(st.sampled_from(names), min_size=1, max_size=4))
    how = draw(st.sampled_from(["contiguous", "transposed", "reversed", "fortran"]))
    return dtype, shape, y_shape, steps, how, draw(st.integers(0, 2**16))


def program_of(steps):
    table = {**STEPS, **FLOAT_STEPS}

    def program(x, y):
        for name in steps:
            x = table[name](x, y)
        return x

    return program


@settings(max_examples=6, deadline=None)
@given(st.lists(drawn_chains(), min_size=6, max_size=6))
def test_fused_chains_over_drawn_layouts_match_the_reference(drawn):
    cases = []
    for dtype, shape, y_shape, steps, how, seed in drawn:
        rng = np.random.default_rng(seed)
        x = layout(values(dtype, rng, shape), how)
        y = values(dtype, rng, y_shape)
        program = program_of(steps)
        kernel = elementwise_kernel(program(li.asarray(x), li.asarray(y)))
        if kernel is not None:
            cases.append((kernel, program, (x, y)))
    for got, (_, program, inputs) in zip(run_elementwise(cases), cases):
        same(got, reference(program, inputs))


def test_chains_over_layouts_and_transposed_loads_match_the_reference():
    """kernels.chains: strided, reversed and broadcast loads, and the tiled kernel reading a
    transposed or column-major load through its shared tile."""
    cases, arrays = [], []
    for dtype in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int16, np.uint64):
        for array in chains(dtype):
            cases.append((elementwise_kernel(array), None, None))
            arrays.append(array)
    methods = {cuda.launch(kernel).method for kernel, _, _ in cases}
    assert methods == {"vector", "grid-stride", "tiled"}
    for got, array in zip(run_elementwise(cases), arrays):
        with li.options(device="reference"):
            same(got, np.asarray(array))


# -- the edges: ties, double rounding, saturation, float division ----------------------------------


def test_the_edges_of_casts_ties_and_float_division():
    """float64 -> float16 rounds once; float -> integer saturates (NaN gives 0); clip, maximum
    and minimum break -0.0/+0.0 ties and propagate NaN as numpy does; float floor division
    and remainder over every pair of special values give numpy's bits."""
    specials = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -7.0, 0.5, np.inf, -np.inf, np.nan, 1e-30])
    a, b = (m.ravel() for m in np.meshgrid(specials, specials))
    rounding = np.array([1 + 2**-11 + 2**-40, 1 + 2**-11, 65519.99, 65520.0, 2**-25 + 2**-60])
    programs = [
        (lambda x, y: li.astype(x, li.float16), (rounding, rounding)),
        (lambda x, y: x // y, (a, b)),
        (lambda x, y: x % y, (a, b)),
    ]
    for dtype in (np.float16, ml_dtypes.bfloat16, np.float32, np.float64):
        pair = (a.astype(dtype), b.astype(dtype))
        programs += [(li.maximum, pair), (li.minimum, pair), (lambda x, y: li.clip(x, y, y), pair)]
        programs += [(lambda x, y: li.clip(x, -0.0, 0.0), pair), (lambda x, y: x // y, pair)]
    cases = [(elementwise_kernel(p(*map(li.asarray, xs))), p, xs) for p, xs in programs]
    for got, (_, program, inputs) in zip(run_elementwise(cases), cases):
        same(got, reference(program, inputs))


@pytest.mark.parametrize("source", [np.float16, np.float32, np.float64])
def test_float_to_integer_casts_saturate(source):
    x = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 300.7, -300.7, 2.9, -2.9, -0.5], source)
    targets = [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]
    cases = [(elementwise_kernel(li.astype(li.asarray(x), t)), None, (x,)) for t in targets]
    wide = x.astype(np.float64)
    for got, target in zip(run_elementwise(cases), targets):
        info = np.iinfo(target)
        want = np.zeros(x.shape, target)  # NOTE: NaN gives 0
        want[wide <= info.min], want[wide >= info.max] = info.min, info.max
        inside = (wide > info.min) & (wide < info.max)
        want[inside] = np.trunc(wide[inside]).astype(target)
        np.testing.assert_array_equal(got, want)


# -- launches, and rearranges ------------------------------------------------------------------


def test_launches_follow_the_layouts():
    x = li.asarray(np.ones((300, 500), np.float32))
    rendered = cuda.render(elementwise_kernel(li.clip(x - 1, 0, 5)))
    vector, plain = rendered.launches
    # one 16-byte vector (4 float32) a thread, 128 threads: the grid covers the 150000 once
    assert (vector.method, vector.block, vector.grid) == ("vector", (128, 1, 1), (293, 1, 1))
    assert (vector.aligned, vector.align) == ((0, 1), 16)  # the output and x; fills by value
    assert (plain.method, plain.block, plain.grid) == ("grid-stride", (256, 1, 1), (586, 1, 1))
    assert plain.params == vector.params and plain.name == vector.name + "_f"
    assert all(p.operand is not None for p in vector.params)  # sizes and strides are literals
    # a run takes the vector walk where both sit on 16-byte boundaries, else the fallback
    assert rendered.chosen([256, 4096, 0, 0, 0]) is vector
    assert rendered.chosen([256, 4100, 0, 0, 0]) is plain
    tiled = cuda.launch(elementwise_kernel(li.permute_dims(x, (1, 0)) * 2 + x.T))
    assert tiled.method == "tiled" and tiled.block == (32, 8, 1)
    assert tiled.grid == (16 * 10, 1, 1) and tiled.shared_bytes == 32 * 33 * 4
    args = cuda.arguments(tiled, ["out", "a", np.array(-0.0, np.float32)])  # x.T is one load
    assert args[:2] == ("out", "a")
    # the fill 2 (a Python scalar) is passed by value, bit for bit: -0.0 stays -0.0
    assert [p.by_value for p in tiled.params] == [False, False, True]
    assert isinstance(args[2], np.float32) and np.signbit(args[2])


@pytest.fixture(scope="module")
def rearrange_library():
    """Every rearrange kernel of kernels.rearranges(), in one build."""
    return shim.build([rendered(item) for _, item in rearranges()])


def test_rearranges_copy_the_bytes_of_numpy(rearrange_library):
    """Requested permutes of several shapes and dtypes: direct, interleaved and through the
    shared tile; a kernel with a fallback is run by each launch its addresses fit."""
    methods = set()
    for name, item in rearranges():
        if name.startswith("permute"):
            src = load_view(item.loads[0], {})
            for launch in rendered(item).launches:
                dst = np.zeros(src.shape, src.dtype)
                if launch.fits([dst.ctypes.data, src.ctypes.data]):
                    shim.run(rearrange_library, launch, [dst.ctypes.data, src.ctypes.data])
                    assert dst.tobytes() == np.ascontiguousarray(src).tobytes(), name
                    methods.add(launch.method)
    assert methods == {"direct", "shared tile", "interleave"}


def test_planned_rearranges_with_constraints_and_negative_strides(rearrange_library):
    """The plans of kernels.PLANS (constraints on both sides, a broadcast, negative strides)
    over random bytes (NaN payloads and all) into a buffer with slack: numpy's copy, and not
    a byte written outside the destination."""
    plans = [item for name, item in rearranges() if name.startswith("plan")]
    for case, (plan, (shape, src_strides, dst_strides, itemsize, _)) in enumerate(
        zip(plans, PLANS)
    ):
        raw = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[itemsize]
        src = strided(shape, src_strides, raw, seed=case)
        dst, want = (strided(shape, dst_strides, raw, seed=99, extra=64) for _ in range(2))
        np.copyto(want, src)
        shim.run_chosen(rearrange_library, rendered(plan), [dst.ctypes.data, src.ctypes.data])
        np.testing.assert_array_equal(whole_buffer(dst), whole_buffer(want))
