"""Regressions of issue 8 ("never a wrong number"): layouts of library results, sibling merges
that cannot cycle, one copy per transposed input, half floats rounded per op when fused, the
pool's bound, read-only DLPack, and errors and debug lines that name the user's line."""

import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import lazyinfini as li
from lazyinfini._device import DEVICES
from lazyinfini._schedule import Kind
from tests.oracle import assert_close


def reference(program, *inputs):
    """`program` on fresh arrays under the reference executor (lazy arrays cache values)."""
    with li.options(executor="reference"):
        return np.asarray(program(*[li.asarray(x) for x in inputs]))


def kinds(*arrays) -> list[str]:
    return [k.kind.value for k in li.inspect.schedule(*arrays).kernels]


# -- library results keep numpy's layout; plans assumed C order ------------------------------

LAYOUT_PROGRAMS = {
    "take_then_permute": lambda x: li.permute_dims(x[:, li.asarray(np.arange(5))], (2, 0, 1)) + 1,
    "cumsum_of_transpose": lambda x: (
        li.broadcast_to(li.reshape(li.cumulative_sum(x.mT, axis=0), (-1,)), (2, 48)) * 2
    ),
    "sum_of_transpose": lambda x: li.reshape(li.sum(li.permute_dims(x, (2, 1, 0)), axis=2), (-1,)),
    "sort_of_transpose": lambda x: li.reshape(li.sort(x.mT, axis=-1), (-1,)) - 1,
    "max_then_slice": lambda x: li.max(x.mT, axis=1)[:, ::-1] * 3,
    "mean_then_transpose": lambda x: li.permute_dims(li.mean(x.mT, axis=0), (1, 0)) + x[0],
}


@pytest.mark.parametrize("name", sorted(LAYOUT_PROGRAMS))
def test_views_of_library_results_are_right(name):
    program = LAYOUT_PROGRAMS[name]
    x = np.arange(2 * 6 * 4, dtype=np.float32).reshape(2, 6, 4) % 7
    x = np.asfortranarray(x) if name != "take_then_permute" else x
    expected = reference(program, x)
    assert_close(program(li.asarray(x)), expected, exact=True)


def test_the_issue_reproducers():
    x = np.random.default_rng(0).random((4, 3000, 8), dtype=np.float32)
    y = li.permute_dims(li.asarray(x)[:, li.asarray(np.arange(2500))], (2, 0, 1)) + 1
    np.testing.assert_array_equal(np.asarray(y), np.transpose(x[:, :2500], (2, 0, 1)) + 1)
    ones = li.asarray(np.ones((3, 4)).T)
    y = li.broadcast_to(li.reshape(li.cumulative_sum(ones, axis=0), (12,)), (2, 12)) * 2
    np.testing.assert_array_equal(np.asarray(y)[0], np.repeat([2.0, 4, 6, 8], 3))
    y = li.reshape(li.sum(li.asarray(np.ones((2, 3, 4)).T), axis=2), (-1,))
    np.testing.assert_array_equal(np.asarray(y), np.full(12, 2.0))


# -- sibling merging never makes a cycle, and stays near-linear -------------------------------


def test_merging_siblings_through_other_kernels_makes_no_cycle():
    x = li.asarray(np.ones((4, 3)))
    c = li.asarray(np.arange(3.0)) + 0
    y = li.sum(x * li.exp(c)) + li.sum(li.sin(c) - li.sum(li.sqrt(x), axis=0))
    expected = 4 * np.exp(np.arange(3.0)).sum() + (np.sin(np.arange(3.0)) - 4).sum()
    assert float(y) == pytest.approx(expected)


@given(st.integers(0, 2**32 - 1))
def test_random_sibling_webs_compute_like_the_reference(seed):
    """Many outputs sharing inputs through reductions: merges across them must stay acyclic."""
    rng = np.random.default_rng(seed)
    data = [rng.random((3, 4)), rng.random(4)]

    def program(x, c):
        values = [x, c, x + 0, c * 1]
        for _ in range(8):
            a, b = (values[i] for i in rng.integers(len(values), size=2))
            pick = rng.integers(4)
            if pick == 0:
                values.append(li.sum(a, axis=0) if a.ndim == 2 else li.exp(a))
            elif pick == 1:
                values.append(a - b if a.shape == b.shape or b.ndim == 1 else a * 2)
            elif pick == 2:
                values.append(li.sin(a))
            else:
                values.append(a * li.sum(b))
        return values[4:]

    state = rng.bit_generator.state
    outputs = li.compute(*program(*[li.asarray(d) for d in data]))
    rng.bit_generator.state = state
    with li.options(executor="reference"):
        expected = li.compute(*program(*[li.asarray(d) for d in data]))
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


def test_siblings_of_one_depth_still_share_one_pass():
    x = li.asarray(np.ones((64, 64), np.float32))
    assert kinds(li.clip(x - 1, 0, 1), x * 2, li.exp(x)) == ["elementwise"]


def test_many_outputs_merge_into_one_pass():
    x = li.asarray(np.arange(8.0))
    ys = [x + i for i in range(2000)]
    plan = li.inspect.schedule(*ys)
    assert [k.kind for k in plan.kernels] == [Kind.ELEMENTWISE]
    li.compute(*ys)
    np.testing.assert_array_equal(np.asarray(ys[1999]), np.arange(8.0) + 1999)


# -- a transposed input read by two kernels is copied once -----------------------------------


def test_a_transposed_input_read_twice_is_copied_once():
    a = np.random.default_rng(1).random((300, 400))
    x = li.asarray(a.T)
    y1, y2 = li.reshape(x, (-1,)) * 2, x + 1
    plan = li.inspect.schedule(y1, y2)
    copies = [k for k in plan.kernels if k.kind is Kind.REARRANGE]
    assert len(copies) == 1
    for kernel in plan.kernels:
        for load in kernel.loads:
            if load.base.op.label == "copy":
                assert load.base.shape == (400, 300)
                assert load.strides in ((300 * 8, 8), (8,))  # the copy's C strides
    li.compute(y1, y2)
    np.testing.assert_array_equal(np.asarray(y1), a.T.reshape(-1) * 2)
    np.testing.assert_array_equal(np.asarray(y2), a.T + 1)


# -- half floats: fused == unfused == reference == numpy -------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@given(st.lists(st.floats(-2000, 2000, width=16), min_size=1, max_size=40))
def test_fused_half_chains_round_like_numpy(dtype, values):
    x = np.array(values, np.float32).astype(dtype)
    c = dtype(0.1)

    def program(v):
        return li.clip((v + 0.1) * 3 - v, -1000.0, 1000.0) > 999.0

    fused = np.asarray(program(li.asarray(x)))
    with li.options(fuse=False):
        unfused = np.asarray(program(li.asarray(x)))
    expected = np.clip((x + c) * dtype(3) - x, dtype(-1000), dtype(1000)) > dtype(999)
    np.testing.assert_array_equal(fused, expected)
    np.testing.assert_array_equal(unfused, expected)
    np.testing.assert_array_equal(reference(program, x), expected)


# -- the pool's bound holds when results are dropped between runs ----------------------------


def test_idle_memory_stays_under_the_bound_without_another_run():
    li.inspect.release_memory()
    nbytes = 1 << 20  # a 1 MiB result: pooled
    x = li.asarray(np.ones(nbytes // 4, np.float32))
    with li.options(pool_bytes=3 * nbytes):
        results = li.compute(*[x * i + 1 for i in range(8)])
        assert li.inspect.memory_pool().in_use_bytes <= 3 * nbytes
        del results
        stats = li.inspect.memory_pool()
        assert 0 < stats.idle_bytes <= 3 * nbytes
    li.inspect.release_memory()


def test_a_result_larger_than_the_bound_is_not_pooled():
    li.inspect.release_memory()
    x = li.asarray(np.ones(1 << 19, np.float32))
    with li.options(pool_bytes=1 << 20):
        y = (x * 2).compute()  # 2 MiB
        assert li.inspect.memory_pool().tracked == 0
        np.testing.assert_array_equal(np.asarray(y), 2)


# -- DLPack: a versioned capsule is marked read-only ------------------------------------------


def test_a_versioned_dlpack_export_is_read_only():
    y = li.asarray(np.arange(4.0)) * 2
    exported = np.from_dlpack(y)  # numpy asks for a DLPack 1.0 capsule
    assert not exported.flags.writeable
    with pytest.raises(ValueError):
        exported[0] = 9
    legacy = np.from_dlpack(_Legacy(y))
    # DLPack before 1.0 has no read-only flag: such a consumer gets a copy it may write.
    assert not np.shares_memory(legacy, np.asarray(y))
    np.testing.assert_array_equal(legacy, np.arange(4.0) * 2)


class _Legacy:
    """A producer seen through a consumer that only knows DLPack before 1.0."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        kwargs.pop("max_version", None)
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


# -- errors and debug lines name the user's line ----------------------------------------------


@pytest.mark.parametrize("executor", ["cpu", "reference"])
def test_an_error_in_a_deferred_kernel_names_the_recording_line(executor):
    with li.options(executor=executor):
        inverse = li.linalg.inv(li.asarray(np.zeros((3, 3))))
        line = sys._getframe().f_lineno - 1
        y = inverse + 1
        with pytest.raises(np.linalg.LinAlgError) as caught:
            np.asarray(y)
    notes = getattr(caught.value, "__notes__", [])
    assert any(f"test_reliability.py:{line}" in n and "linalg.inv" in n for n in notes)
    assert y._node.op.label != "buffer"  # a failed materialization loses nothing


def test_the_debug_line_names_the_trigger_and_marks_implicit_ones(capsys):
    y = li.sum(li.asarray(np.ones(4)) * 2)
    with li.options(debug=1):
        assert float(y) == 8.0
        line = sys._getframe().f_lineno - 1
    err = capsys.readouterr().err
    assert f"at test_reliability.py:{line} (implicit: float()): 1 kernel on" in err  # one REDUCE


# -- found by the differential fuzz and the scale benchmark -----------------------------------


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float64, np.complex64])
def test_round_of_a_broadcast_computed_scalar(dtype):
    def program(x):
        return li.round(li.broadcast_to(x + 1, (3,)))

    x = np.array(1.5, dtype=dtype)
    assert_close(program(li.asarray(x)), reference(program, x), exact=True)


def test_copies_of_a_long_chain_are_cheap_and_independent():
    import copy
    import pickle

    y = li.asarray(np.ones(3))
    for _ in range(5000):
        y = y + 1
    z = copy.deepcopy(y)
    z[0] = 0  # rebinds z only
    np.testing.assert_array_equal(np.asarray(y), 5001)
    np.testing.assert_array_equal(np.asarray(z), [0, 5001, 5001])
    np.testing.assert_array_equal(np.asarray(pickle.loads(pickle.dumps(y))), 5001)


HALF_OPS = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "clip": lambda a, b: li.clip(a, -2.0, 3.5),
    "clip_by": lambda a, b: li.clip(a, b, None),
    "maximum": li.maximum,
    "minimum": li.minimum,
    "negative": lambda a, b: -a,
    "abs": lambda a, b: li.abs(a),
    "where": lambda a, b: li.where(a > b, a, b),
    "exp": lambda a, b: li.exp(a),
    "tiny": lambda a, b: a * 1e-4,
}


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
@given(
    bits=st.lists(st.integers(0, 0xFFFF), min_size=3, max_size=3),
    steps=st.lists(st.tuples(st.sampled_from(sorted(HALF_OPS)), st.integers(0, 9)), max_size=6),
)
def test_fused_half_programs_are_bit_exact_on_every_bit_pattern(dtype, bits, steps):
    """Every half bit pattern (NaN payloads, subnormals, signed zeros, infinities) through
    random chains: fused rounds only where rounding does not commute with the next op, and
    still matches the reference's op-by-op rounding bit for bit."""
    data = np.array(bits, np.uint16).view(dtype)

    def program(x):
        values = [x, x[::-1], x[1:2] * 1]
        for name, pick in steps:
            a, b = values[-1], values[pick % len(values)]
            values.append(HALF_OPS[name](a, b))
        return values[-1] if steps else x + 0

    fused = np.asarray(program(li.asarray(data)))
    expected = np.ascontiguousarray(reference(program, data))
    # NOTE: bit for bit, signed zeros included; a NaN is any NaN (when two NaNs meet in clip,
    # numpy's scalar and vector loops keep different ones: no result of the math differs).
    nan = np.isnan(fused.astype(np.float32))
    assert np.array_equal(nan, np.isnan(expected.astype(np.float32)))
    assert fused[~nan].tobytes() == expected[~nan].tobytes()


def test_a_half_clip_of_a_difference_rounds_once_and_a_comparison_rounds_first():
    a = li.asarray(np.ones(8, np.float16))
    (kernel,) = li.inspect.schedule(li.clip(a * 3 - 1, 0, 1)).kernels
    rounding = [s.node.op.label for s in kernel.program.steps if s.rounds]
    assert rounding == ["multiply"]  # a * 3 feeds a subtraction; the rest rounds at the store
    (kernel,) = li.inspect.schedule((a + 0.1) > 1000.0).kernels
    assert [s.node.op.label for s in kernel.program.steps if s.rounds] == ["add"]


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_nextafter_of_half_floats_steps_in_their_own_dtype(dtype):
    x = np.array([1.0, 0.0, -2.0], dtype)
    expected = np.nextafter(x, dtype(3))
    for device in sorted(DEVICES):
        with li.options(device=device):
            fused = np.asarray(li.nextafter(li.asarray(x) * 1, 3.0) + 0)
        assert fused.tobytes() == expected.tobytes(), device
