"""The rest of the manipulation functions against numpy: views (flip, moveaxis, squeeze, unstack,
broadcast_arrays) stay views; copies (concat, stack, roll, tile, repeat) are one opaque kernel,
promote like the spec says, and only repeat with an array of repeats computes anything early."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from tests.layouts import INTS, float_dtypes, layouts
from tests.oracle import assert_matches_reference, check_schedule

small_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4)
nonempty_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4)
any_dtype = st.sampled_from(
    (np.dtype("float32"), np.dtype("int16"), np.dtype("bool"), np.dtype("complex64"))
)


def exact(fn, *inputs):
    return assert_matches_reference(fn, *inputs, exact=True)


def axes_subset(ndim):
    return st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim)


def values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 5).astype(dtype)


# -- views ---------------------------------------------------------------------------------------
@settings(max_examples=30)
@given(st.data())
def test_flip_is_a_view_matching_numpy(data):
    shape = data.draw(small_shapes, "shape")
    x = data.draw(layouts(shape, data.draw(float_dtypes, "dtype"), "bytes"), "x")
    axis = data.draw(
        st.none() | st.integers(-len(shape), len(shape) - 1) | axes_subset(len(shape)).map(tuple)
    )
    got = exact(lambda a: li.flip(a, axis=axis), x)
    expected = np.ascontiguousarray(np.flip(x, axis=axis))
    assert got.shape == expected.shape and np.ascontiguousarray(got).tobytes() == expected.tobytes()


@settings(max_examples=30)
@given(st.data())
def test_moveaxis_matches_numpy(data):
    shape = data.draw(small_shapes, "shape")
    x = values(shape, np.float32)
    source = data.draw(axes_subset(len(shape)), "source")
    dest = data.draw(st.permutations(range(len(shape))).map(lambda p: p[: len(source)]), "dest")
    got = exact(lambda a: li.moveaxis(a, tuple(source), tuple(dest)), x)
    np.testing.assert_array_equal(got, np.moveaxis(x, source, dest))


@settings(max_examples=30)
@given(st.data())
def test_squeeze_and_expand_dims_round_trip(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), "shape")
    x = values(shape, np.int32)
    count = data.draw(st.integers(1, 3), "count")
    out = len(shape) + count
    axes = tuple(
        data.draw(
            st.lists(
                st.integers(-out, out - 1),
                min_size=count,
                max_size=count,
                unique_by=lambda a: a % out,
            ),
            "axes",
        )
    )
    expanded = exact(lambda a: li.expand_dims(a, axis=axes), x)
    np.testing.assert_array_equal(expanded, np.expand_dims(x, axes))
    back = exact(lambda a: li.squeeze(li.expand_dims(a, axis=axes), axis=axes), x)
    np.testing.assert_array_equal(back, x)


def test_permute_dims_takes_negative_axes():
    x = values((2, 3, 4), np.float64)
    np.testing.assert_array_equal(
        exact(lambda a: li.permute_dims(a, (-1, 0, -2)), x), x.transpose(2, 0, 1)
    )
    with pytest.raises(ValueError, match="^permute_dims: "):
        li.permute_dims(li.asarray(x), (0, -3, 1))


@given(st.data())
def test_unstack_gives_every_slice(data):
    shape = data.draw(nonempty_shapes, "shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    x = values(shape, np.float32)
    parts = li.unstack(li.asarray(x), axis=axis)
    assert isinstance(parts, tuple) and len(parts) == shape[axis]
    for i, part in enumerate(parts):
        np.testing.assert_array_equal(np.asarray(part), np.take(x, i, axis=axis))


@given(
    st.lists(
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3), min_size=1, max_size=3
    )
)
def test_broadcast_shapes_and_arrays_match_numpy(shapes):
    try:
        expected = np.broadcast_shapes(*shapes)
    except ValueError:
        with pytest.raises(ValueError, match="^broadcast_shapes: "):
            li.broadcast_shapes(*shapes)
        return
    assert li.broadcast_shapes(*shapes) == expected
    inputs = [values(s, np.float32, i) for i, s in enumerate(shapes)]
    got = li.broadcast_arrays(*(li.asarray(a) for a in inputs))
    assert isinstance(got, tuple)
    for g, e in zip(got, np.broadcast_arrays(*inputs), strict=True):
        np.testing.assert_array_equal(np.asarray(g), e)


def test_broadcast_shapes_of_nothing_is_empty():
    assert li.broadcast_shapes() == ()


def test_views_fuse_into_one_elementwise_kernel():
    x = li.asarray(values((3, 1, 4), np.float32))
    for view in (li.flip(x), li.flip(x, axis=-1), li.squeeze(x, axis=1)):
        plan = check_schedule(view - 1, kernels=1)
        assert plan.kernels[0].kind.value == "elementwise"
    # NOTE: numpy writes moveaxis(x) - 1 in x's memory order: computed so, then viewed moved
    plan = check_schedule(li.moveaxis(x, 0, -1) - 1, kernels=2)
    assert [k.kind.value for k in plan.kernels] == ["elementwise", "view"]
    a, b = li.broadcast_arrays(x, li.asarray(values((5, 1), np.float32)))
    check_schedule(a - b, kernels=1)


def test_broadcast_arrays_returns_views_as_numpy():
    x, x_np = li.asarray(np.ones(3)), np.ones(3)
    (y,), (y_np,) = li.broadcast_arrays(x), np.broadcast_arrays(x_np)
    y += 1  # numpy returns x itself here: the write reaches x
    y_np += 1
    np.testing.assert_array_equal(np.asarray(x), x_np)
    assert y is not x  # a view, a new array (its in-place ops still rebind x through it)
    _, wide = li.broadcast_arrays(li.ones((2, 1)), x)
    with pytest.raises(ValueError, match="read-only"):
        wide += 1  # broadcast: read-only (numpy warns it will be)


# -- concat, stack: promotion -------------------------------------------------------------------
@given(st.data())
def test_concat_matches_numpy_and_promotes(data):
    shape = data.draw(small_shapes, "shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    count = data.draw(st.integers(1, 3), "count")
    dtypes = data.draw(st.lists(any_dtype, min_size=count, max_size=count), "dtypes")
    inputs = []
    for i, dtype in enumerate(dtypes):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3), f"length {i}")
        inputs.append(values(tuple(s), dtype, i))
    got = exact(lambda *a: li.concat(list(a), axis=axis), *inputs)
    assert got.dtype == li.result_type(*dtypes)
    np.testing.assert_array_equal(got, np.concatenate(inputs, axis=axis).astype(got.dtype))


def test_concat_axis_none_flattens():
    a, b = values((2, 3), np.int8), values((4,), np.int32)
    got = exact(lambda x, y: li.concat((x, y), axis=None), a, b)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.concatenate([a.ravel(), b]))


@given(st.data())
def test_stack_matches_numpy_and_promotes(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), "shape")
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), "axis")
    dtypes = data.draw(st.lists(any_dtype, min_size=1, max_size=3), "dtypes")
    inputs = [values(shape, d, i) for i, d in enumerate(dtypes)]
    got = exact(lambda *a: li.stack(a, axis=axis), *inputs)
    assert got.dtype == li.result_type(*dtypes)
    np.testing.assert_array_equal(got, np.stack(inputs, axis=axis).astype(got.dtype))


def test_concat_and_stack_errors_name_the_function():
    x, y = li.asarray(np.ones((2, 3))), li.asarray(np.ones((3, 3)))
    with pytest.raises(ValueError, match="^concat: "):
        li.concat([x, y], axis=1)
    with pytest.raises(ValueError, match="^concat: "):
        li.concat([li.asarray(1.0), li.asarray(2.0)])
    with pytest.raises(TypeError, match="^concat: "):
        li.concat([])
    with pytest.raises(TypeError, match="^concat: "):
        li.concat([li.asarray(np.ones(2, np.int64)), li.asarray(np.ones(2, np.uint64))])
    with pytest.raises(ValueError, match="^stack: "):
        li.stack([x, y])
    with pytest.raises(IndexError, match="^stack: "):
        li.stack([x, x], axis=3)


# -- roll, tile, repeat --------------------------------------------------------------------------
@given(st.data())
def test_roll_matches_numpy(data):
    shape = data.draw(small_shapes, "shape")
    x = values(shape, np.float32)
    ndim = len(shape)
    axis = data.draw(
        st.none()
        | st.integers(-ndim, ndim - 1)
        | st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=3).map(tuple)
    )
    if isinstance(axis, tuple):
        shift = data.draw(
            st.integers(-9, 9)
            | st.lists(st.integers(-9, 9), min_size=len(axis), max_size=len(axis)).map(tuple)
        )
    else:
        shift = data.draw(st.integers(-9, 9))
    got = exact(lambda a: li.roll(a, shift, axis=axis), x)
    np.testing.assert_array_equal(got, np.roll(x, shift, axis=axis))


@given(st.data())
def test_tile_matches_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), "shape")
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=4), "reps"))
    x = values(shape, np.int16)
    got = exact(lambda a: li.tile(a, reps), x)
    np.testing.assert_array_equal(got, np.tile(x, reps))


@given(st.data())
def test_repeat_with_an_int_matches_numpy(data):
    shape = data.draw(small_shapes, "shape")
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1), "axis")
    count = data.draw(st.integers(0, 3), "repeats")
    x = values(shape, np.float64)
    got = exact(lambda a: li.repeat(a, count, axis=axis), x)
    np.testing.assert_array_equal(got, np.repeat(x, count, axis=axis))


@pytest.mark.parametrize("dtype", INTS[:4])
def test_repeat_with_an_array_computes_only_the_repeats(dtype):
    data = values((3, 4), np.float32)
    counts = np.array([2, 0, 1, 3], dtype=dtype)
    x = li.asarray(data) * 2  # pending
    repeats = li.asarray(counts) + 0  # pending too: its values decide the shape
    y = li.repeat(x, repeats, axis=1)
    assert y.shape == (3, 6)
    assert repeats._node.op.label == "buffer"  # computed
    assert x._node.op.label != "buffer"  # still lazy
    np.testing.assert_array_equal(np.asarray(y), np.repeat(data * 2, counts, axis=1))
    one = li.repeat(li.asarray(data), li.asarray(np.array([2], dtype=dtype)))
    np.testing.assert_array_equal(np.asarray(one), np.repeat(data, 2))


def test_repeat_tile_roll_errors_name_the_function():
    x = li.asarray(np.ones((2, 3)))
    with pytest.raises(ValueError, match="^repeat: "):
        li.repeat(x, -1)
    with pytest.raises(TypeError, match="^repeat: "):
        li.repeat(x, li.asarray(np.ones(3)), axis=1)
    with pytest.raises(ValueError, match="^repeat: "):
        li.repeat(x, li.asarray(np.ones(2, np.int64)), axis=1)
    with pytest.raises(ValueError, match="^tile: "):
        li.tile(x, (-1,))
    with pytest.raises(ValueError, match="^roll: "):
        li.roll(x, (1, 2), axis=(0,))
    with pytest.raises(IndexError, match="^flip: "):
        li.flip(x, axis=2)
    with pytest.raises(ValueError, match="^squeeze: "):
        li.squeeze(x, axis=0)
    with pytest.raises(ValueError, match="^moveaxis: "):
        li.moveaxis(x, (0, 1), 0)


# -- laziness ------------------------------------------------------------------------------------
def test_recording_runs_nothing():
    x = li.asarray(values((3, 4), np.float32))
    before = li.inspect.counters.kernels
    ys = [
        li.flip(x),
        li.moveaxis(x, 0, 1),
        li.squeeze(li.expand_dims(x, axis=0), axis=0),
        li.concat([x, x]),
        li.stack([x, x]),
        li.roll(x, 1),
        li.tile(x, (2,)),
        li.repeat(x, 2),
        *li.unstack(x),
        *li.broadcast_arrays(x, li.asarray(np.ones(4))),
    ]
    assert li.inspect.counters.kernels == before
    assert all(y._node.op.label != "buffer" for y in ys[:8])
