"""Random programs of elementwise and movement ops: the fused CPU executor against the reference
executor, bit for bit: the fused kernel rounds every half float result as the reference does."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import lazyinfini as li
from tests.conftest import cpu_variant

DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.int32]


def _permute(v, seed):
    axes = tuple(np.random.default_rng(seed).permutation(v.ndim))
    return li.permute_dims(v, axes)


def _diamond(v, seed):
    t = v * 2
    return li.clip(t, -3, 3) + t


OPS = {
    "sub_broadcast": lambda v, s: v - v[..., :1] if v.ndim and v.shape[-1] else v,
    "add_scalar": lambda v, s: v + 2,
    "mul": lambda v, s: v * v,
    "clip": lambda v, s: li.clip(v, -1, 1),
    "neg": lambda v, s: -v,
    "max": lambda v, s: li.maximum(v, li.zeros_like(v)),
    "permute": _permute,
    "flip0": lambda v, s: v[::-1] if v.ndim else v,
    "step": lambda v, s: v[..., ::2] if v.ndim else v,
    "flatten": lambda v, s: li.reshape(v, (-1,)),
    "broadcast": lambda v, s: li.broadcast_to(v[None], (2, *v.shape)) if v.ndim < 5 else v,
    "to_f32": lambda v, s: li.astype(v, li.float32),
    "diamond": _diamond,
}


@st.composite
def programs(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    values = draw(arrays(np.int8, shape, elements=st.integers(-6, 6)))
    data = values.astype(dtype)
    if data.ndim and draw(st.booleans()):  # a strided input: every other row of a bigger buffer
        big = np.repeat(data, 2, axis=0)
        data = big[::2]
    steps = draw(st.lists(st.tuples(st.sampled_from(sorted(OPS)), st.integers(0, 99)), max_size=7))
    return data, steps


def run(data, steps, executor):
    with li.options(executor=executor):
        v = li.asarray(data)
        for name, seed in steps:
            v = OPS[name](v, seed)
        return np.asarray(v)


@given(programs())
def test_fused_cpu_matches_reference(program):
    data, steps = program
    expected = run(data, steps, "reference")
    actual = run(data, steps, "cpu")
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == np.ascontiguousarray(expected).tobytes()


@given(programs())
def test_unfused_cpu_matches_reference_exactly(program):
    data, steps = program
    expected = run(data, steps, "reference")
    with li.options(fuse=False):
        actual = run(data, steps, "cpu")
    # One kernel per node rounds after every op, as the reference does: equal bits.
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == np.ascontiguousarray(expected).tobytes()


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_precision_rounds_every_op_as_numpy_does(dtype):
    x = np.array([1, 1000, 2.0], dtype=dtype)
    v = li.asarray(x)
    fused = np.asarray((v * 3) - (v * 2))
    with li.options(fuse=False):
        stepwise = np.asarray((v * 3) - (v * 2))
    assert fused.tobytes() == stepwise.tobytes() == ((x * 3) - (x * 2)).tobytes()
    # float16(1000) + 0.1 rounds back to 1000 in numpy: a float32 register would not.
    above = (li.asarray(x) + 0.1) > 1000.0
    assert li.inspect.schedule(above).kernels[-1].kind.value == "elementwise"
    np.testing.assert_array_equal(np.asarray(above), (x + dtype(0.1)) > 1000.0)


def test_fully_broadcast_loads_are_read_as_one_value():
    """A fill, a 0-d array and a computed scalar feed the pass as 0-d values (converted once,
    numpy's scalar loops), not as zero-stride views; the results match the reference."""
    from lazyinfini._runtime import cpu, passes

    x_np = np.linspace(-2, 2, 1000, dtype=np.float16)
    x = li.asarray(x_np)
    y = (x - li.mean(x)) * li.asarray(np.float16(3)) + 1
    plan = li.inspect.schedule(y)
    (kernel,) = [k for k in plan.kernels if k.kind.value == "elementwise"]
    work = passes.prepare_pass(kernel, cpu.TARGET.chunk)
    broadcast = {i for i, ld in enumerate(kernel.loads) if not any(ld.strides)}
    read_whole = {
        i for i, (how, _) in enumerate(work.reads) if how in (passes._FILL, passes._SCALAR)
    }
    assert len(broadcast) == 3 and read_whole == broadcast
    with li.options(executor="reference"):
        expected = np.asarray((li.asarray(x_np) - li.mean(li.asarray(x_np))) * np.float16(3) + 1)
    assert np.asarray(y).tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.int16])
def test_a_small_kernels_broadcast_loads_are_read_unbroadcast(dtype):
    """A kernel of one chunk reads a load ending in a broadcast as the view before it (numpy's
    ufuncs broadcast it against their outputs): the same bits as the reference, for a row,
    a column, a prepended axis and a broadcast behind a transpose, through clip and where."""
    from lazyinfini._runtime import cpu, passes

    rng = np.random.default_rng(5)
    x_np = (rng.standard_normal((6, 5)) * 4).astype(dtype)
    row, col = x_np[:1] * 0, x_np[:, :1]
    grid = (rng.standard_normal((5, 6)) * 4).astype(dtype)

    def program(xp, x, r, c, g):
        t = xp.clip(x, r - 1, c + 1) + xp.permute_dims(xp.broadcast_to(g[:, :1], (5, 6)), (1, 0))
        u = xp.where(x > c, t, x * r) - xp.permute_dims(g, (1, 0))[0]
        return u + x[3:4] * x[:, 2:3]  # NOTE: slices, then broadcasts

    arrays = [li.asarray(a) for a in (x_np, row, col, grid)]
    y = program(li, *arrays)
    plan = li.inspect.schedule(y)
    kernels = [k for k in plan.kernels if k.kind.value == "elementwise"]
    reads = [how for k in kernels for how, _ in passes.prepare_pass(k, cpu.TARGET.chunk).reads]
    wholes = [passes._whole_how(how, ld) for k in kernels for how, ld in zip(reads, k.loads)]
    assert passes._UNBROADCAST in wholes
    with li.options(executor="reference"):
        expected = np.asarray(program(li, *[li.asarray(a) for a in (x_np, row, col, grid)]))
    got = np.asarray(y)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_register_program_runs_as_python_made_once(dtype):
    """A fused kernel's register program runs as one generated Python function, made at its
    first run and kept (a kernel of one chunk: its whole step, the program inline): steps
    calling a ufunc (one-bound clips, maximum), a wrapped op (where) and _run_step's (casts,
    rounded half float registers) give the reference's bits, on a new schedule and a cached
    one."""
    x_np = np.linspace(-3, 3, 101, dtype=dtype)

    def program(x):
        t = li.where(x > 0, x * 3, -x)  # NOTE: read twice: a half float register rounds
        return li.astype(li.clip(t, None, 2) + li.clip(t, 0.5, None) - t, li.float64)

    with li.options(executor="reference"):
        expected = np.asarray(program(li.asarray(x_np)))
    from lazyinfini._realize import realize
    from lazyinfini._runtime.passes import PASSES

    x = li.asarray(x_np)
    made = []
    for _ in range(2):  # NOTE: the numpy device: the cpu's numpy path, whatever compiles
        y = program(x)
        with li.options(executor="numpy"):
            (kernel,) = realize(y).kernels  # NOTE: the schedule that ran (cached the second time)
        assert np.asarray(y).tobytes() == expected.tobytes()
        made.append(PASSES.get(kernel).step)
    assert made[0] is made[1] and made[0].__code__.co_filename == "<lazyinfini kernel step>"
    assert {step.node.op.label for step in kernel.program.steps} >= {"where", "clip", "astype"}


def test_register_programs_call_every_binary_ufunc_as_numpy_2_4_still_takes_it():
    # A program passes a ufunc's output by position (faster than out=), but numpy 2.4
    # deprecates a third positional argument of maximum and minimum: no call may warn
    import warnings

    from lazyinfini._api import elementwise

    x, y = np.linspace(-2.0, 2.0, 12), np.linspace(1.0, 3.0, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("maximum", "minimum", "add", "subtract", "multiply", "divide", "hypot",
                     "atan2", "copysign", "logaddexp", "less", "equal"):  # fmt: skip
            got = getattr(elementwise, name)(li.asarray(x) * 1, li.asarray(y) + 0)
            want = getattr(np, name.replace("atan2", "arctan2"))(x * 1, y + 0)
            np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128])
def test_functions_with_special_values_call_the_ufunc_only_for_real_results(dtype, monkeypatch):
    """A register program calls numpy's exp and log themselves for float32 and float64
    registers, and their wrappers (which correct the standard's complex special values) for
    complex ones: all give the reference's bits, at infinities, NaNs and signed zeros too
    (float16 results round: those steps run through _run_step, as before)."""
    from lazyinfini._graph import Op
    from lazyinfini._runtime import ufuncs

    parts = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5, -2.0])
    if np.dtype(dtype).kind == "c":
        x_np = (parts[:, None] + 1j * parts[None, :]).astype(dtype).reshape(-1)
    else:
        x_np = parts.astype(dtype)

    def program(x):
        return li.log(li.exp(x - 0.25) + 1)

    with li.options(executor="reference"):
        expected = np.asarray(program(li.asarray(x_np)))
    calls = []
    for op in (Op.EXP, Op.LOG):
        wrapper = ufuncs.UFUNCS[op]

        def counted(inputs, arg, out=None, wrapper=wrapper):
            calls.append(arg)
            return wrapper(inputs, arg, out=out)

        counted.ufunc_for = wrapper.ufunc_for
        monkeypatch.setitem(ufuncs.UFUNCS, op, counted)
    x = li.asarray(x_np)
    with li.options(executor="numpy"), np.errstate(all="ignore"):
        y = np.asarray(program(x))
    assert y.tobytes() == expected.tobytes()
    # NOTE: the generated program checks UFUNCS at each run and finds the patched wrappers:
    # complex registers call them (once per op), real ones never come here
    if dtype in (np.float32, np.float64):
        assert calls == []
    elif dtype == np.complex128:
        assert len(calls) >= 2


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(6.0),  # contiguous
        lambda: np.arange(12.0).reshape(2, 6)[:, ::2][0],  # strided
        lambda: np.array(3.5),  # 0-d
        lambda: np.arange(3, dtype=np.float16)[:, None],  # a length-1 axis broadcast
        lambda: np.zeros((0, 1)),  # empty
    ],
)
def test_broadcast_views_are_numpys(make):
    """views.broadcast_view (made directly over a C-contiguous buffer) gives numpy's
    broadcast_to: the same values, strides and a read-only view, whatever the source."""
    from lazyinfini._graph.views import broadcast_view

    x = make()
    shape = (4, *x.shape[:-1], 3 if x.ndim and x.shape[-1] == 1 else (x.shape[-1] if x.ndim else 5))
    shape = shape if x.ndim else (2, 5)
    got, want = broadcast_view(x, shape), np.broadcast_to(x, shape)
    assert got.shape == want.shape and got.strides == want.strides and got.dtype == want.dtype
    assert np.array_equal(got, want) and not got.flags.writeable
    assert np.shares_memory(got, x) or x.size == 0


def test_a_sum_over_a_transposed_results_nans_keeps_numpys_nan():
    # NOTE: numpy's ufuncs keep their input's memory order (K order) and its sum then adds in
    # that order, meeting the other of two NaNs first: so does the cpu now (orders.py)
    nan = np.float16(np.nan)
    t = np.array([[1, -nan], [nan, 1]], dtype=np.float16).T
    expected = np.sum(np.sqrt(t + t))
    got = np.asarray(li.sum(li.sqrt(li.asarray(t) + li.asarray(t))))
    assert np.signbit(got) == np.signbit(expected)


def _counted_reads(monkeypatch) -> list:
    """The calls of the numpy path's load readers (_operand, load_view), listed from now on."""
    from lazyinfini._runtime import cpu, passes

    calls = []
    for module, name in ((passes, "_operand"), (passes, "load_view"), (cpu, "load_view")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, real=real: calls.append(a) or real(*a))
    return calls


def test_small_kernels_read_fills_scalars_and_transposes_without_operand_calls(monkeypatch):
    """A cached small schedule's steps read a fill the run binds nothing to as its own value,
    a 0-d value broadcast (a mean subtracted) as it is, and a transposed buffer of a library
    call as numpy's transpose: no _operand or load_view call (each ~1-3 us), numpy's bits."""
    calls = _counted_reads(monkeypatch)
    x_np = np.arange(35.0).reshape(7, 5) / 7
    e_np = np.linspace(-1.0, 1.0, 7)

    def program(x, e):
        centred = (x - x.mean()) * 0.5 + 1.25  # NOTE: a 0-d mean spread, two fills
        return x.T @ (e * 3.0), centred

    expected = program(x_np, e_np)
    for run in range(3):  # NOTE: new shapes for this test's steps: made with the counters
        x, e = li.asarray(x_np), li.asarray(e_np)
        calls.clear()
        with li.options(executor="numpy"):  # NOTE: the numpy path, whatever compiles (CI's)
            got = [np.asarray(a) for a in program(x, e)]
        for g, want in zip(got, expected, strict=True):
            assert g.tobytes() == want.tobytes()
        if run:
            assert calls == []


@pytest.fixture(scope="module")
def uncompiled_device():
    """The cpu device planning as it does (reductions with prologues) and compiling nothing."""
    yield from cpu_variant("cpu-uncompiled", compile_min=None)


def test_small_reductions_and_views_run_their_steps_without_operand_calls(
    monkeypatch, uncompiled_device
):
    """A cached small schedule's reduction with an elementwise prologue runs as its parts'
    steps (not through the handlers, which read every load with load_view), and loads seen
    through a reshape, a slice or a transpose of a bound value are numpy's own views of it:
    no _operand or load_view call, numpy's bits."""
    calls = _counted_reads(monkeypatch)
    rng = np.random.default_rng(4)
    p_np, c_np = rng.standard_normal((9, 6)), rng.standard_normal((4, 5))

    def program(p, c):
        d2 = ((p[:, None, ::2] - c[None, :, 1:4]) ** 2).sum(axis=-1)  # NOTE: a REDUCE kernel
        return d2, np.argmin(p.T[1:, 2:], axis=1), p.T[::2] * 0.5 + 1.0

    expected = program(p_np, c_np)
    for run in range(3):  # NOTE: new shapes for this test's steps: made with the counters
        p, c = li.asarray(p_np), li.asarray(c_np)
        calls.clear()
        with li.options(device=uncompiled_device):  # NOTE: the numpy path, whatever CI compiles
            kinds = {k.kind.name for k in li.inspect.schedule(*program(p, c)).kernels}
            got = [np.asarray(a) for a in program(p, c)]
        assert "REDUCE" in kinds
        for g, want in zip(got, expected, strict=True):
            assert g.dtype == want.dtype and g.tobytes() == want.tobytes()
        if run:
            assert calls == []
