"""The cpu device's C path for elementwise kernels: the rendered C against the reference device
over ops x dtypes x layouts (special values included), the per-kernel fallback, and explain()."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._device import DEVICES
from lazyinfini._render import compile as compiling
from lazyinfini._runtime import cpu
from lazyinfini._runtime.c_compiling import C_KERNELS
from lazyinfini._schedule import Kind

SPECIAL = [0.0, -0.0, 1.0, -1.5, 2.5, 1e-40, -1e-45, 3e38, np.inf, -np.inf, np.nan, 7.0, 0.5]
DTYPES = [
    np.float32,
    np.float64,
    np.float16,
    ml_dtypes.bfloat16,
    np.int8,
    np.int32,
    np.uint16,
    np.int64,
]

OPS = {
    "sub": lambda x, y: x - y,
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "clip": lambda x, y: li.clip(x, 0, 5),
    "clip_by": lambda x, y: li.clip(x, y, None),
    "max": li.maximum,
    "min": li.minimum,
    "neg": lambda x, y: -x,
    "abs": lambda x, y: li.abs(x),
    "where": lambda x, y: li.where(x > y, x, y),
    "compare": lambda x, y: li.astype(x <= y, x.dtype),
    "square": lambda x, y: x * x,
}
INT_OPS = {
    "fdiv": lambda x, y: x // y,
    "rem": lambda x, y: x % y,
    "lshift": lambda x, y: li.bitwise_left_shift(x, y),
    "rshift": lambda x, y: li.bitwise_right_shift(x, y),
}
FLOAT_OPS = {
    "div": lambda x, y: x / y,
    "sqrt": lambda x, y: li.sqrt(li.abs(x)),
    "floor": lambda x, y: li.floor(x),
    "round": lambda x, y: li.round(x),
    "to_f64": lambda x, y: li.astype(li.astype(x, li.float64), x.dtype),
    # borrowed (BORROWED below): numpy's own loops called from the C kernel
    "exp": lambda x, y: li.exp(x),
    "log": lambda x, y: li.log(x),
    "sin": lambda x, y: li.sin(x),
    "tanh": lambda x, y: li.tanh(x),
    "expm1": lambda x, y: li.expm1(x),
    "atan2": li.atan2,
    "pow": li.pow,
    "fdiv_f": lambda x, y: x // y,
    "rem_f": lambda x, y: x % y,
    "logaddexp": li.logaddexp,
    "hypot": li.hypot,
    # C expressions of the predicates and sign
    "sign": lambda x, y: li.sign(x),
    "recip": lambda x, y: li.reciprocal(x),
    "isnan": lambda x, y: li.where(li.isnan(x) | li.isinf(y) | li.signbit(x), y, x),
    "isfinite": lambda x, y: li.astype(li.isfinite(x), x.dtype),
}
# numpy's own results for these depend on the layout (its SIMD loops run on contiguous data, its
# scalar loops, a last bit apart, on strided data); the C path calls the contiguous ones on block
# buffers, so the exact comparison below draws them over contiguous inputs only.
BORROWED = {"exp", "log", "sin", "tanh", "expm1", "atan2", "pow", "fdiv_f", "rem_f"}
BORROWED |= {"logaddexp", "hypot"}
# ml_dtypes' bfloat16 loops of these are its own code, which the numpy path runs (HALF_MATH)
HALF_MATH = BORROWED - {"fdiv_f", "rem_f"}


def drawn_program(steps: list[str], dtype, how: str):
    """The drawn `steps` that apply to `dtype` chained into a program of x and y (numpy's
    borrowed loops only over contiguous operands, which the C path reads in blocks)."""
    floats = np.dtype(dtype).kind not in "iu"
    allowed = {**OPS, **(FLOAT_OPS if floats else INT_OPS)}
    if how != "contiguous":
        allowed = {k: v for k, v in allowed.items() if k not in BORROWED}
    if dtype == ml_dtypes.bfloat16:
        allowed = {k: v for k, v in allowed.items() if k not in HALF_MATH}
    steps = [s for s in steps if s in allowed] or ["sub"]

    def program(a, b):
        for name in steps:
            a = allowed[name](a, b)
        return a

    return program


def values(dtype, rng, shape):
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 0, 1, -1 if info.min else 2], dtype=np.int64)
        pool = np.concatenate([edges, rng.integers(-100, 100, 20)]).astype(dtype)
    else:
        pool = np.array(SPECIAL + list(rng.standard_normal(10)), np.float64).astype(dtype)
    return rng.choice(pool, size=shape)


def layout(x: np.ndarray, how: str) -> np.ndarray:
    if how == "transposed":
        return np.ascontiguousarray(x.T).T
    if how == "reversed":  # negative strides, a gap between elements
        return np.repeat(x, 2, axis=1)[::-1, ::-2]
    return x


def same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit, except: any NaN is a NaN (numpy keeps different ones when two meet), and
    +0 equals -0 (numpy's scalar and vector loops of maximum/clip break that tie differently)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    wide_got, wide_want = got.astype(np.float64), want.astype(np.float64)
    if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16:
        nan = np.isnan(wide_got)
        assert np.array_equal(nan, np.isnan(wide_want))
        assert np.array_equal(wide_got[~nan], wide_want[~nan])
    else:
        assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@settings(max_examples=150)
@given(
    dtype=st.sampled_from(DTYPES),
    steps=st.lists(
        st.sampled_from(sorted(OPS) + sorted(FLOAT_OPS) + sorted(INT_OPS)), min_size=1, max_size=4
    ),
    how=st.sampled_from(["contiguous", "transposed", "reversed"]),
    broadcast=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_compiled_kernels_match_the_reference(compiled_device, dtype, steps, how, broadcast, seed):
    rng = np.random.default_rng(seed)
    x = layout(values(dtype, rng, (6, 5)), how)
    y = values(dtype, rng, (5,) if broadcast else (6, 5))
    program = drawn_program(steps, dtype, how)
    with li.options(device="reference"):
        want = np.asarray(program(li.asarray(x), li.asarray(y)))
    with li.options(device=compiled_device):
        got_array = program(li.asarray(x), li.asarray(y))
        paths = [
            cpu.path_of(k, DEVICES[compiled_device].target)
            for k in li.inspect.schedule(got_array).kernels
            if k.kind is Kind.ELEMENTWISE
        ]
        got = np.asarray(got_array)
    assert all(p == cpu.C_PATH for p in paths), paths  # NOTE: none when the casts cancel
    same(got, want)


def test_a_large_kernel_runs_in_c_on_threads_and_explain_says_so():
    a = np.random.default_rng(0).standard_normal(1 << 21).astype(np.float32)
    x = li.asarray(a)
    y = li.clip(x - 0.5, -1, 1)
    assert "path compiled C" in li.explain(y)
    np.testing.assert_array_equal(np.asarray(y), np.clip(a - np.float32(0.5), -1, 1))
    small = li.asarray(a[:100]) * 2
    least = DEVICES["cpu"].target.compile_min  # NOTE: LAZYINFINI_COMPILE_MIN=0 compiles it too
    assert f"path numpy chunks (under {least} elements" in li.explain(small) or least <= 100
    half = li.asarray(a.astype(np.float16))
    assert "path compiled C" in li.explain(li.clip(half - 0.5, -1, 1))
    np.testing.assert_array_equal(
        np.asarray(li.clip(half - 0.5, -1, 1)),
        np.clip(a.astype(np.float16) - np.float16(0.5), np.float16(-1), np.float16(1)),
    )


def test_without_a_compiler_the_numpy_path_runs_with_one_warning(monkeypatch, compiled_device):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    compiling.compiler.cache_clear()
    monkeypatch.setattr(compiling, "_LOADED", {})
    monkeypatch.setattr(cpu, "_C_OFF", [])
    monkeypatch.setattr(C_KERNELS, "modules", {})  # NOTE: nothing compiled yet
    monkeypatch.setattr(C_KERNELS, "_functions", type(cpu._PATHS)())
    before = li.inspect.counters.c_fallbacks
    a = np.arange(12.0).reshape(3, 4)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with li.options(device=compiled_device):
                explained = li.explain(li.clip(li.asarray(a) - 3.25, 0, 5))
                first = np.asarray(li.clip(li.asarray(a) - 3.25, 0, 5))
                second = np.asarray(li.asarray(a) * 3.5 + 1)
    finally:
        compiling.compiler.cache_clear()
        cpu._PATHS.clear()
    np.testing.assert_array_equal(first, np.clip(a - 3.25, 0, 5))
    np.testing.assert_array_equal(second, a * 3.5 + 1)
    assert "numpy chunks (no C compiler)" in explained  # known before any compile is tried
    assert len([w for w in caught if "compiled kernels unavailable" in str(w.message)]) == 1
    assert li.inspect.counters.c_fallbacks == before + 1


def test_a_float64_to_float16_cast_rounds_once_in_c(compiled_device):
    # Just above a float16 tie: through float32 it would land on the tie and round to even.
    x = np.array([1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40), 65520.0, 1e-8])
    with li.options(device=compiled_device):
        got = np.asarray(li.astype(li.asarray(x) * 1, li.float16))
    assert got.tobytes() == x.astype(np.float16).tobytes()


@pytest.mark.parametrize("shape", [(1,), (1, 1), (4,)])
def test_a_fill_another_kernel_computed_is_read_while_the_kernel_runs(compiled_device, shape):
    # NOTE: z, a fill asked for too, is computed at its shape; the C kernel reading it took the
    # address of a 0-d array made from it and dropped at once: its memory was reused before
    # the kernel read it (the numpy-programs fuzz's np.round(z, 2) of a filled (1,) z gave 100)
    with li.options(device=compiled_device):
        for value in (3.0, -0.0, 2.5):
            z = li.full(shape, value)
            y = z * 100.0 + 1.0
            u = li.round(z * 100.0) / 100.0
            li.compute(z, y, u)
            assert np.asarray(y).tobytes() == np.full(shape, value * 100.0 + 1.0).tobytes()
            assert (
                np.asarray(u).tobytes() == (np.round(np.full(shape, value) * 100) / 100).tobytes()
            )


@pytest.mark.parametrize("shape", [(), (0, 5), (7,), (2, 1, 3, 1, 2, 2), (3, 2, 2, 2, 2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16])
def test_compiled_kernels_of_any_rank_and_size(compiled_device, shape, dtype):
    rng = np.random.default_rng(len(shape))
    x = values(dtype, rng, shape)
    y = values(dtype, rng, shape[1:] if shape else ())

    def program(a, b):
        return li.where(a > b, li.clip(a - b, 0, 5), -a)

    with li.options(device="reference"):
        want = np.asarray(program(li.asarray(x), li.asarray(y)))
    with li.options(device=compiled_device):
        got = np.asarray(program(li.asarray(x), li.asarray(y)))
    same(got, want)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.uint64])
def test_integer_division_and_shifts_follow_numpy_in_c(compiled_device, dtype):
    info = np.iinfo(dtype)
    edges = [info.min, info.max, 0, 1, 7, 3, 2, info.max - 1]
    edges += [-1, -7, -3, -2] if info.min else [9, 64, 200 % (info.max + 1), 255]
    x = np.array(edges, dtype)
    grid_x, grid_y = np.meshgrid(x, x)
    with np.errstate(all="ignore"):
        expected = [
            np.floor_divide(grid_x, grid_y),
            np.remainder(grid_x, grid_y),
            np.left_shift(grid_x, grid_y),
            np.right_shift(grid_x, grid_y),
        ]
    with li.options(device=compiled_device):
        a, b = li.asarray(grid_x), li.asarray(grid_y)
        outputs = (a // b, a % b, li.bitwise_left_shift(a, b), li.bitwise_right_shift(a, b))
        (kernel,) = li.inspect.schedule(*outputs).kernels
        assert cpu.path_of(kernel, DEVICES[compiled_device].target) == cpu.C_PATH
        got = li.compute(*outputs)
    for g, e in zip(got, expected):
        assert np.asarray(g).tobytes() == e.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "call",
    [
        lambda x: np.exp(x.ravel()[::-1]),
        lambda x: np.log10(x[::-1, ::-1]),
        lambda x: np.arctan2(x.ravel(), x.ravel()[::-1]),
        lambda x: np.arcsin(x.ravel()[::-3]) * 2,
        lambda x: np.tan(x.ravel()[::-1]).sum(),  # NOTE: a sum's prologue
    ],
    ids=["exp", "log10", "arctan2", "arcsin", "sum of tan"],
)
def test_a_large_operand_read_backwards_gets_numpys_bits(call, dtype):
    # NOTE: numpy's exp of x[::-1] iterates x forwards and writes backwards: another SIMD loop
    # than the contiguous one C borrows, 2-50% of the values a last bit apart (2**18 elements)
    x = np.random.default_rng(8).random((512, 512)).astype(dtype) * 0.9
    got = call(li.asarray(x))
    assert np.asarray(got).tobytes() == np.asarray(call(x)).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_borrowed_numpy_loops_give_numpy_bits_in_large_threaded_kernels(dtype):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((512, 600)) * 4).astype(dtype)
    b = (rng.standard_normal((512, 600)) * 4).astype(dtype)

    def program(x, y):
        return (
            li.exp(x - y) * li.sin(y) + li.atan2(x, y),
            li.floor_divide(x, y * 0.5) + li.remainder(x, y),
            li.log1p(li.abs(y)) - li.tanh(x) ** y,
        )

    with li.options(device="reference"):
        want = li.compute(*program(li.asarray(a), li.asarray(b)))
    outputs = program(li.asarray(a), li.asarray(b))
    schedule = li.inspect.schedule(*outputs)
    assert (
        all(
            cpu.path_of(k, DEVICES["cpu"].target) == cpu.C_PATH
            for k in schedule.kernels
            if k.kind is Kind.ELEMENTWISE
        )
        or DEVICES["cpu"].target.compile_min > a.size
        or dtype == ml_dtypes.bfloat16  # NOTE: ml_dtypes' own loops run in numpy (HALF_MATH)
    )
    for got, expected in zip(li.compute(*outputs), want):
        same(np.asarray(got), np.asarray(expected))


def test_nextafter_of_half_floats_stays_in_numpy_and_says_why(compiled_device):
    x = np.array([1.0, -2.0, 0.0, np.inf], np.float16)
    with li.options(device=compiled_device):
        y = li.nextafter(li.asarray(x) * 1, li.asarray(x) + 1)
        assert "numpy chunks (nextafter(float16, float16) has no C form)" in li.explain(y)
        np.testing.assert_array_equal(np.asarray(y), np.nextafter(x, x + np.float16(1)))
        wide = li.nextafter(li.asarray(x.astype(np.float32)) * 1, li.asarray(x) + 1)
        assert "path compiled C" in li.explain(wide)


def test_a_missing_numpy_loop_keeps_the_kernel_in_numpy(monkeypatch, compiled_device):
    from lazyinfini._runtime import numpy_loops

    monkeypatch.setattr(numpy_loops, "loop", lambda name, dtype: None)
    monkeypatch.setattr(cpu, "_PATHS", type(cpu._PATHS)())
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    with li.options(device=compiled_device):
        y = li.exp(li.asarray(x) * 2)
        assert "numpy chunks (numpy's loop for exp(float32) is not found)" in li.explain(y)
        np.testing.assert_array_equal(np.asarray(y), np.exp(x * np.float32(2)))


def test_numpy_loops_are_found_by_signature_and_checked():
    from lazyinfini._runtime import numpy_loops

    assert numpy_loops.loop("exp", np.dtype(np.float32)) is not None
    assert numpy_loops.loop("arctan2", np.dtype(np.float64)) is not None
    assert numpy_loops.loop("exp", np.dtype(np.int64)) is None  # no such loop: numpy casts


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int8]),
    shape=st.lists(st.integers(1, 40), min_size=2, max_size=4),
    data=st.data(),
)
def test_transposed_loads_read_in_tiles_match_the_reference(compiled_device, dtype, shape, data):
    with pytest.MonkeyPatch.context() as patch:
        _check_tiles(patch, compiled_device, dtype, shape, data)


def _check_tiles(patch, compiled_device, dtype, shape, data):
    from lazyinfini._runtime import compiled

    patch.setattr(compiled, "TILED_MIN", 0)  # NOTE: tiles for small spaces too
    patch.setattr(compiled, "TILE_COLS", data.draw(st.sampled_from([8, 24, 4096])))
    tiled = []
    patch.setattr(compiled, "_tiles", lambda *a, _t=compiled._tiles: tiled.append(1) or _t(*a))
    # NOTE: kernels render their calls once: a schedule cached by an earlier example renders
    # again under this example's tiles
    patch.setattr(C_KERNELS, "_calls", type(cpu._PATHS)())
    patch.setattr(C_KERNELS, "_functions", type(cpu._PATHS)())
    rng = np.random.default_rng(len(shape))
    axes = data.draw(st.permutations(range(len(shape))))
    x = values(dtype, rng, tuple(shape[a] for a in np.argsort(axes)))
    y = values(dtype, rng, tuple(shape))
    names = ["sub", "clip", "where", "sqrt"] if dtype != np.int8 else ["sub"]
    step = data.draw(st.sampled_from(names))

    def program(a, b):
        t = li.permute_dims(a, tuple(axes))
        value = {**OPS, **FLOAT_OPS}[step](t, b)
        # NOTE: b (C-ordered) read too: numpy's result is then C-ordered (orders.py) and the
        # permuted load stays one, read across rows
        return li.where(b == b, value, value)

    with li.options(device="reference"):
        want = np.asarray(program(li.asarray(x), li.asarray(y)))
    with li.options(device=compiled_device):
        lazy = program(li.asarray(x), li.asarray(y))
        copied = any(k.kind is Kind.REARRANGE for k in li.inspect.schedule(lazy).kernels)
        got = np.asarray(lazy)
    same(got, want)
    across = tuple(axes)[-1] != len(shape) - 1 and shape[-1] > 1
    if across and x.shape[-1] * x.itemsize > 64 and not copied:
        assert tiled  # a load read across rows is tiled


def test_a_large_transposed_load_is_not_copied_first_on_the_cpu():
    a = np.arange(512 * 300, dtype=np.float32).reshape(300, 512)
    b = np.ones((512, 300), np.float32)
    y = li.clip(li.permute_dims(li.asarray(a), (1, 0)) - li.asarray(b), 0, 1000)
    kinds = [k.kind for k in li.inspect.schedule(y).kernels]
    assert kinds == [Kind.ELEMENTWISE]
    np.testing.assert_array_equal(np.asarray(y), np.clip(a.T - b, 0, 1000))
    with li.options(device="numpy"):  # numpy's path copies it with a rearrange first
        z = li.clip(li.permute_dims(li.asarray(a), (1, 0)) - li.asarray(b), 0, 1000)
        kinds = [k.kind for k in li.inspect.schedule(z).kernels]
        assert kinds == [Kind.REARRANGE, Kind.ELEMENTWISE]


@pytest.mark.parametrize("name", sorted(BORROWED))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_borrowed_ops_over_strided_loads_are_within_ulps_of_numpy(compiled_device, name, dtype):
    rng = np.random.default_rng(5)
    x = layout((rng.standard_normal((40, 30)) * 3).astype(dtype), "reversed")
    y = layout((rng.standard_normal((40, 30)) * 3).astype(dtype), "transposed")
    with li.options(device="reference"):
        want = np.asarray(FLOAT_OPS[name](li.asarray(x), li.asarray(y)))
    with li.options(device=compiled_device):
        got = np.asarray(FLOAT_OPS[name](li.asarray(x), li.asarray(y)))
    finite = np.isfinite(want)
    assert np.array_equal(finite, np.isfinite(got))
    # NOTE: numpy's own two loops of atan2 float32 differ by 2 ULP here
    np.testing.assert_array_max_ulp(got[finite], want[finite], maxulp=4)


def test_a_failed_compile_sends_only_that_kernel_to_numpy(monkeypatch, compiled_device):
    from lazyinfini._render.compile import CompileError
    from lazyinfini._runtime import c_compiling

    def fail(source):
        raise CompileError("cc failed: internal compiler error (injected)")

    monkeypatch.setattr(c_compiling, "load", fail)
    monkeypatch.setattr(c_compiling.C_KERNELS, "modules", {})  # NOTE: nothing compiled yet
    monkeypatch.setattr(cpu, "_PATHS", type(cpu._PATHS)())
    before = li.inspect.counters.c_fallbacks
    x = np.linspace(-2, 2, 30, dtype=np.float32)
    with li.options(device=compiled_device):
        with pytest.warns(RuntimeWarning, match="a kernel's C failed"):
            got = np.asarray(li.asarray(x) * 3 - 1)
        again = li.explain(li.asarray(x) * 3 - 1, analyze=True)  # the same schedule, run again
        assert "path numpy chunks (cc failed: internal compiler error (injected))" in again
        monkeypatch.undo()
        z = li.asarray(x) * 4 - 1  # another kernel still compiles
        assert "path compiled C" in li.explain(z)
        np.testing.assert_array_equal(np.asarray(z), x * np.float32(4) - 1)
    np.testing.assert_array_equal(got, x * np.float32(3) - 1)
    assert li.inspect.counters.c_fallbacks > before
    assert not cpu._C_OFF


def test_a_new_schedules_kernels_compile_in_one_compiler_run(monkeypatch, tmp_path):
    monkeypatch.setenv("LAZYINFINI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiling, "_LOADED", {})
    monkeypatch.setattr(C_KERNELS, "modules", {})
    builds = []
    build = compiling._build
    monkeypatch.setattr(compiling, "_build", lambda *args: builds.append(args) or build(*args))
    a = np.random.default_rng(7).standard_normal((257, 263)).astype(np.float32)

    def program(x):
        return li.clip(x * 3 - 2, -1, 1), li.exp(li.permute_dims(x, (1, 0))) - 1

    y1, y2 = li.compute(*program(li.asarray(a)))
    assert len(builds) == 1  # two kernels, three functions (a tiled walk and its strips)
    np.testing.assert_array_equal(np.asarray(y1), np.clip(a * 3 - 2, -1, 1))
    np.testing.assert_array_equal(np.asarray(y2), np.exp(a.T) - np.float32(1))
    li.compute(*program(li.asarray(a)))
    assert len(builds) == 1  # compiled once, for good


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("bounds", ["scalars", "arrays"])
def test_clip_breaks_a_signed_zero_tie_as_numpy(compiled_device, dtype, bounds):
    # numpy's clip with scalar (stride-0) bounds keeps x on a tie (clip(-0.0, 0.0, 5) is -0.0);
    # with array bounds the bound wins, as maximum's second operand does. A reciprocal makes the
    # sign of that zero an infinity's (found by hypothesis).
    x = np.array([-0.0, 0.0, -0.0, 0.0, np.nan, 3.0] * 3, dtype)
    cases = [(0.0, 5.0), (-0.0, 5.0), (-5.0, 0.0), (-5.0, -0.0), (0.0, 5.0), (np.nan, 5.0)]
    for low, high in cases:
        lo, hi = np.array(low, dtype), np.array(high, dtype)
        if bounds == "arrays":
            lo, hi = np.full(x.shape, lo), np.full(x.shape, hi)
        with li.options(device=compiled_device):
            got = np.asarray(1 / li.clip(li.asarray(x), li.asarray(lo), li.asarray(hi)))
        with li.options(device="reference"):
            want = np.asarray(1 / li.clip(li.asarray(x), li.asarray(lo), li.asarray(hi)))
        assert np.array_equal(np.signbit(got), np.signbit(want)), (low, high)
        assert np.array_equal(got, want, equal_nan=True), (low, high)
