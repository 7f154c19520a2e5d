"""numpy's memory orders (_schedule/orders.py): elementwise values a sum or a view sees are
computed in the order numpy's memory would have, so the sums add in numpy's order: the cpu's
results equal numpy's and the reference device's bit for bit, fused or not."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from lazyinfini._schedule.orders import _strides_in, axis_order
from tests.layouts import layouts

F32, F64 = np.dtype("float32"), np.dtype("float64")
small_shapes = hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4)


def _same_layout(ours: tuple, numpys: tuple, shape: tuple) -> bool:
    """Strides equal wherever they matter (a length-1 axis has none)."""
    return all(a == b for a, b, n in zip(ours, numpys, shape, strict=True) if n > 1)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), shape=small_shapes, count=st.integers(1, 3))
def test_axis_order_is_the_order_of_numpys_ufunc_results(data, shape, count):
    operands = [data.draw(layouts(shape, F64)) for _ in range(count)]
    ufunc = {1: np.negative, 2: np.add, 3: np.clip}[count]
    result = ufunc(*operands)
    order = axis_order(shape, [a.strides for a in operands])
    assert sorted(order) == list(range(len(shape)))
    ours = tuple(s * 8 for s in _strides_in(shape, order))
    assert _same_layout(ours, result.strides, shape), (order, result.strides, operands)


def _differential(program, *arrays):
    """`program` on the ndarrays and on lazyinfini arrays of them: the cpu fused and unfused
    and the reference device all give numpy's bits."""
    expected = np.asarray(program(np, *arrays))
    for device, fuse in (("cpu", True), ("cpu", False), ("reference", True)):
        with li.options(device=device, fuse=fuse):
            got = np.asarray(program(li, *(li.asarray(a) for a in arrays)))
        assert got.dtype == expected.dtype, (device, fuse)
        np.testing.assert_array_equal(got, expected, err_msg=f"{device} fuse={fuse}")


def _sum(xp, x, axis):
    return xp.sum(x, axis=axis)


def _mean(xp, x, axis):
    return xp.mean(x, axis=axis)


def _var(xp, x, axis):
    return xp.var(x, axis=axis)


@pytest.mark.parametrize("reduce", [_sum, _mean, _var])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_a_sum_of_a_transposed_programs_value_adds_in_numpys_order(reduce, axis):
    # NOTE: numpy writes x.T ** 2 F-ordered and adds its rows a value at a time; a C-ordered
    # square would be added pairwise (172 of 200 sums differed in the last bit)
    x = np.random.default_rng(0).standard_normal((300, 200))
    w = np.random.default_rng(1).standard_normal(300)
    _differential(lambda xp, x: reduce(xp, x.T**2, axis), x)
    _differential(lambda xp, x, w: reduce(xp, x.T * w - 1.0, axis), x, w)
    _differential(lambda xp, x: reduce(xp, xp.exp(x.T).astype(xp.float32), axis), x)


def test_a_fortran_ordered_input_sums_as_numpys():
    x = np.asfortranarray(np.random.default_rng(2).standard_normal((517, 129)).astype(F32))
    y = np.asfortranarray(np.random.default_rng(3).standard_normal((517, 129)).astype(F32))
    for axis in (0, 1, None):
        _differential(lambda xp, x, y, axis=axis: xp.sum(x * y + 1.0, axis=axis), x, y)


def test_a_materialized_transposed_value_keeps_numpys_strides():
    # NOTE: a value read back before it is summed: the sum then reads the buffer it became
    x = np.random.default_rng(4).standard_normal((300, 200))
    y = li.asarray(x).T * 2
    value = np.asarray(y)
    assert value.strides == (x.T * 2).strides
    np.testing.assert_array_equal(np.asarray(li.sum(y, axis=1)), (x.T * 2).sum(axis=1))


def test_a_chain_in_one_order_is_one_kernel_and_its_sum_another():
    x = li.asarray(np.random.default_rng(5).standard_normal((300, 200)))
    y = li.sum(li.exp(x.T * 2) - 1.0, axis=1)
    kinds = [k.kind.name for k in li.inspect.schedule(y).kernels]
    assert kinds == ["ELEMENTWISE", "OPAQUE"], li.explain(y)
    assert "computed exp in numpy's memory order (axes (1, 0)" in li.explain(y)


def test_c_ordered_programs_are_not_rewritten():
    x = li.asarray(np.random.default_rng(6).standard_normal((300, 200)))
    text = li.explain(li.sum(x * 2 - 1.0, axis=1))
    assert "numpy's memory order" not in text, text


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=small_shapes, dtype=st.sampled_from([F32, F64]))
def test_sums_of_elementwise_values_of_any_layout_equal_numpys(data, shape, dtype):
    a = data.draw(layouts(shape, dtype))
    b = data.draw(layouts(shape, dtype))
    axes = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    axis = tuple(axes) if axes else None
    _differential(lambda xp, a, b: xp.sum(a * b - a, axis=axis), a, b)
    _differential(lambda xp, a, b: xp.mean(xp.abs(a) + b, axis=axis), a, b)


@pytest.mark.parametrize(
    "program",
    [
        lambda xp, x: x.T.copy().sum(axis=1),  # ndarray.copy: C order
        lambda xp, x: x.T.copy(order="K").sum(axis=1),
        lambda xp, x: np.copy(x.T).sum(axis=1),  # np.copy: K order
        lambda xp, x: np.copy(x.T, order="C").sum(axis=1),
    ],
)
def test_a_copy_of_a_transposed_input_has_numpys_memory_order(program):
    # NOTE: a later sum adds in the copy's memory order (184 of 200 sums differed)
    x = np.random.default_rng(8).standard_normal((300, 200))
    want = program(np, x)
    got = np.asarray(program(li, li.asarray(x)))
    assert got.tobytes() == want.tobytes()


class _NumpyNames:
    """numpy under the namespace's names the programs below use."""

    sum, mean, var, max = map(staticmethod, (np.sum, np.mean, np.var, np.max))
    permute_dims = staticmethod(np.transpose)


@pytest.mark.parametrize(
    "program",
    [
        lambda xp, x: xp.sum(xp.sum(xp.permute_dims(x, (2, 1, 0)), axis=1) * 2, axis=1),
        lambda xp, x: xp.sum(xp.sum(xp.permute_dims(x, (2, 1, 0)), axis=1, keepdims=True), axis=2),
        lambda xp, x: xp.var(xp.mean(xp.permute_dims(x, (2, 0, 1)), axis=2), axis=1),
        lambda xp, x: xp.sum(xp.max(xp.permute_dims(x, (2, 1, 0)), axis=0), axis=1),
        lambda xp, x: xp.sum(xp.permute_dims(x, (2, 1, 0)), axis=1),  # its strides, asked for
    ],
)
def test_a_reductions_result_keeps_its_inputs_memory_order(program):
    # NOTE: numpy writes a reduction's result in its input's memory order, and a second sum
    # adds in that order (25 of 50 sums differed in the last bit)
    x = np.random.default_rng(9).standard_normal((30, 40, 50))
    want = np.asarray(program(_NumpyNames, x))
    got = np.asarray(program(li, li.asarray(x)))
    assert got.strides == want.strides
    np.testing.assert_array_equal(got, want)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=4))
def test_sums_of_reductions_of_any_layout_equal_numpys(data, shape):
    a = data.draw(layouts(shape, F64))
    first = data.draw(st.integers(0, len(shape) - 1))
    keepdims = data.draw(st.booleans())
    _differential(
        lambda xp, a: xp.sum(xp.mean(a * 2, axis=first, keepdims=keepdims) - 1.0, axis=0), a
    )


@pytest.mark.parametrize(
    "program",
    [
        lambda xp, i, x, d: (i.T / 3).sum(axis=1),
        lambda xp, i, x, d: np.hypot(i.T, 3).sum(axis=0),
        lambda xp, i, x, d: ((x.T > 0) / 3).sum(axis=1),
        lambda xp, i, x, d: (i.T / d).sum(axis=1),
    ],
)
def test_a_cast_scalar_or_vector_has_no_say_in_the_order(program):
    # NOTE: numpy casts a scalar (or a vector) before broadcasting it; recorded as a cast of a
    # broadcast fill, it took C strides and outvoted the transposed operand (237 of 262 differed)
    rng = np.random.default_rng(10)
    i, x = rng.integers(-50, 50, (300, 262)), rng.standard_normal((300, 262))
    d = rng.integers(1, 9, 300)
    want = program(np, i, x, d)
    got = np.asarray(program(li, *(li.asarray(a) for a in (i, x, d))))
    assert got.tobytes() == want.tobytes()


def test_the_reference_device_sums_a_cast_scalars_program_as_numpy():
    # NOTE: the reference runs numpy's orders too (one kernel a node, values in numpy's order)
    i = np.random.default_rng(11).integers(-50, 50, (300, 262))
    x = np.random.default_rng(12).standard_normal((30, 40, 2))
    with li.options(device="reference"):
        got = np.asarray(li.sum(li.permute_dims(li.asarray(i), (1, 0)) / 3, axis=1))
        twice = np.asarray(li.sum(li.sum(li.permute_dims(li.asarray(x), (2, 1, 0)) * 2, axis=2), 1))
    assert got.tobytes() == (i.T / 3).sum(axis=1).tobytes()
    assert twice.tobytes() == (x.T * 2).sum(axis=2).sum(axis=1).tobytes()


@settings(max_examples=100, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=2, max_dims=4, min_side=1, max_side=4))
def test_concatenated_and_stacked_layouts_sum_as_numpys(data, shape):
    # NOTE: numpy writes a concatenate (a stack) in its inputs' common memory order
    # (np.concatenate([x.T, x.T]).sum(axis=1): 470 of 524 sums differed in the last bit)
    a = data.draw(layouts(shape, F64, allow_broadcast=False))
    b = data.draw(layouts(shape, F64, allow_broadcast=False))
    axis = data.draw(st.integers(0, len(shape) - 1))
    ax = data.draw(st.integers(0, len(shape) - 1))
    _differential(lambda xp, a, b: xp.sum(np.concatenate([a, b], axis=axis), axis=ax), a, b)
    _differential(lambda xp, a, b: xp.sum(np.stack([a, b * 2], axis=axis), axis=ax), a, b)


def test_a_concatenate_of_transposed_arrays_has_numpys_strides():
    x = np.random.default_rng(13).standard_normal((300, 262))
    want = np.concatenate([x.T, x.T * 2], axis=1)
    got = np.asarray(np.concatenate([li.asarray(x).T, li.asarray(x).T * 2], axis=1))
    assert got.strides == want.strides
    np.testing.assert_array_equal(got, want)


def _updated_value(z):
    y = z.T * 2
    y[0] *= 2
    return np.sum(y, axis=1)


def _updated_through_a_view(z):
    z.T[0] *= 2
    return np.sum(z, axis=0)


def _updated_in_slices(z):
    z[1:3, ::2] = 7.0
    z[:, 5] += 1
    z[::-1, -3] = 1.5
    return np.concatenate([np.sum(z, axis=1), np.sum(z, axis=0)])


@pytest.mark.parametrize("program", [_updated_value, _updated_through_a_view, _updated_in_slices])
@pytest.mark.parametrize("layout", ["C", "F", "T"])
def test_an_update_keeps_the_memory_order_numpy_writes_it_in(program, layout):
    # NOTE: numpy writes z[key] = v into z's memory: a later sum adds in z's order (235 of
    # 262 sums differed where the update was written C-ordered)
    x = np.random.default_rng(14).standard_normal((300, 262))
    base = {"C": x, "F": np.asfortranarray(x), "T": x.T.copy().T}[layout]
    want = program(base.copy(order="K"))
    got = np.asarray(program(li.asarray(base.copy(order="K"))))
    assert got.tobytes() == want.tobytes()


def test_a_copy_node_is_c_ordered_and_the_pass_reads_its_strides_so():
    from lazyinfini._graph import Dag, Node, Op, buffer_node
    from lazyinfini._schedule.orders import numpy_orders

    x = buffer_node(np.ones((3, 4)))
    moved = Node(Op.PERMUTE, (x,), (4, 3), x.dtype, (1, 0))
    copy = Node(Op.COPY, (moved,), (4, 3), x.dtype)
    total = Node(Op.SUM, (Node(Op.NEGATIVE, (copy,), (4, 3), x.dtype),), (4,), x.dtype,
                 (("axis", (1,)), ("keepdims", False)))  # fmt: skip
    graph, new_of, log = numpy_orders(Dag([total]), ())
    assert not new_of and not log  # NOTE: the negative of a C-ordered copy stays C-ordered
    moved_only = Node(Op.SUM, (Node(Op.NEGATIVE, (moved,), (4, 3), x.dtype),), (4,), x.dtype,
                      (("axis", (1,)), ("keepdims", False)))  # fmt: skip
    assert numpy_orders(Dag([moved_only]), ())[1]  # NOTE: without the copy: F, rewritten


@st.composite
def _update_keys(draw, shape):
    """A key of an int, a slice or an index array per axis (index arrays of one shape, so
    they broadcast; next to each other or apart: numpy puts their dims at them, or first)."""
    length = draw(st.integers(1, 3))
    key = []
    for n in shape:
        kind = draw(st.sampled_from(["int", "slice", "array"]))
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start, step = draw(st.integers(0, n - 1)), draw(st.sampled_from([1, 2, -1]))
            key.append(slice(start, None, step))
        else:
            key.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=length,
                                              max_size=length))))  # fmt: skip
    return tuple(key)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=12))
def test_an_update_with_index_arrays_keeps_numpys_memory_order(data, shape):
    # NOTE: numpy writes z[idx] = v into z's memory: a sum of an F-ordered z updated with an
    # index array added pairwise here (255 of 300 row sums differed in the last bit)
    base = data.draw(layouts(shape, F64, allow_broadcast=False))
    key = data.draw(_update_keys(shape))
    value = np.random.default_rng(0).standard_normal(base[key].shape)
    axis = data.draw(st.integers(0, len(shape) - 1))

    def program(xp, z):
        z[key] = value if xp is np else li.asarray(value)
        return xp.sum(z * 1.5, axis=axis)

    _differential(program, base.copy(order="K"))


def test_an_index_array_update_of_a_fortran_array_sums_as_numpys():
    x = np.asfortranarray(np.random.default_rng(15).standard_normal((300, 200)))
    rows, cols = np.array([1, 5, 7]), np.array([0, 3])
    want, z = x.copy(order="K"), li.asarray(x.copy(order="K"))
    want[rows] = 0.5
    want[:, cols] = want[:, cols] * 2
    z[rows] = 0.5
    z[:, cols] = z[:, cols] * 2
    got = np.asarray(np.sum(z, axis=1))
    assert got.tobytes() == np.sum(want, axis=1).tobytes()


def _masked(z, w):
    z[w > 0] = 0.0
    return np.sum(z * 1.5, axis=1)


def _added(z, w):
    z += w
    return np.sum(z, axis=1)


def _multiplied_out(z, w):
    np.multiply(z, w, out=z)
    return np.sum(z, axis=0)


def _subtracted(z, w):
    z -= w * 2
    return np.mean(z, axis=1)


def _written_twice(z, w):
    z[w > 0] = 0.0
    z *= w
    z += w * 2
    return np.sum(z, axis=1)


@pytest.mark.parametrize("program", [_masked, _added, _multiplied_out, _subtracted, _written_twice])
@pytest.mark.parametrize("layout", ["F", "T"])
def test_a_value_written_into_an_arrays_memory_keeps_its_order(program, layout):
    # NOTE: numpy writes z += w, z[mask] = 0 and out=z into z's memory whatever w's order:
    # a C-ordered w made the result C-ordered here, and 179-276 of 300 sums differed
    rng = np.random.default_rng(16)
    x, w = rng.standard_normal((300, 262)), rng.standard_normal((300, 262))
    base = {"F": np.asfortranarray(x), "T": x.T.copy().T}[layout]
    want = program(base.copy(order="K"), w)
    got = np.asarray(program(li.asarray(base.copy(order="K")), li.asarray(w)))
    assert got.tobytes() == want.tobytes()


@pytest.mark.filterwarnings("ignore::UserWarning")  # NOTE: the putmask and nansum fallbacks
@pytest.mark.parametrize("layout", ["F", "T"])
def test_a_value_numpy_writes_in_place_keeps_the_arrays_memory_order(layout):
    # NOTE: np.putmask(z, ...) writes z's value (numpy's, on a copy) back as z[...] = value,
    # a buffer laid out as z is: the orders pass's permute, copy and permute back undid each
    # other over it and the requested value was copied into C order, so a nansum's fallback
    # (numpy's own, on our value) added its rows pairwise where numpy adds an F-ordered z's a
    # value at a time (found by the numpy-programs fuzz at 512K elements)
    rng = np.random.default_rng(17)
    x = (rng.standard_normal((300, 262)) * 100).astype(np.float32)
    base = {"F": np.asfortranarray(x), "T": x.T.copy().T}[layout]

    def program(a):
        z = np.copy(a)
        np.putmask(z, z > 0, 2)
        return z, np.nansum(z, axis=1, keepdims=True)

    want = program(base)
    got = [np.asarray(v) for v in program(li.asarray(base))]
    assert _same_layout(got[0].strides, want[0].strides, want[0].shape)
    assert got[1].tobytes() == want[1].tobytes()


def test_an_update_of_every_element_is_its_value():
    # NOTE: numpy's `out[:] = a + b`: no update kernel, the value fuses with its consumers
    a = li.asarray(np.arange(12.0).reshape(3, 4))
    out = li.zeros((3, 4))
    out[:] = a + 1
    out[...] = out * 2
    plan = li.inspect.schedule(out)
    assert [k.kind.name for k in plan.kernels] == ["ELEMENTWISE"]
    assert "dropped an update of every element" in li.explain(out)
    np.testing.assert_array_equal(np.asarray(out), (np.arange(12.0).reshape(3, 4) + 1) * 2)


@pytest.mark.parametrize(
    "view",
    [lambda v: v[::-1], lambda v: v[:, 1:200:2], lambda v: v[::-2, 3:], lambda v: v[5]],
)
@pytest.mark.parametrize("computed", [False, True])
def test_a_materialized_slice_is_numpys_view_and_later_sums_add_as_numpys(view, computed):
    # NOTE: a slice or flip of an ndarray or of a computed value was copied C-ordered when
    # materialized alone: a later var over it added in another order than numpy's view
    a = np.asfortranarray(np.random.default_rng(17).standard_normal((300, 262)))
    x = li.asarray(a)
    want = view(a * 2 if computed else a)
    got = view(x * 2 if computed else x)
    value = np.asarray(got)
    assert value.strides == want.strides
    np.testing.assert_array_equal(value, want)
    for axis in range(want.ndim):
        assert np.asarray(np.var(got, axis=axis)).tobytes() == np.var(want, axis=axis).tobytes()


@pytest.mark.parametrize(
    "program",
    [
        lambda xp, v: xp.std(np.cumsum(v, axis=1) / (np.abs(v) + 1), axis=0),
        lambda xp, v: np.sum(np.cumprod(v * 0.01 + 1, axis=0), axis=1),
        lambda xp, v: np.mean(np.sort(v * 2, axis=1), axis=0),
        lambda xp, v: np.nanmean((v.T + 1)[1:], axis=0),
        lambda xp, v: np.average((v.T * 2)[::-1], axis=1),
        lambda xp, v: np.var(np.roll(v, 3, axis=0), axis=1),
        lambda xp, v: np.sum(np.roll(v, (3, -2), axis=(1, 0)), axis=0),
        lambda xp, v: np.sum(np.roll(v, 5), axis=1),
    ],
)
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_ops_along_an_axis_keep_their_inputs_order(program, dtype):
    # NOTE: numpy writes np.cumsum's, np.cumprod's, np.sort's and np.roll's (with an axis)
    # result in its input's memory order: the std of a cumsum of an F-ordered array added in
    # another order here
    a = np.asfortranarray(np.random.default_rng(18).standard_normal((300, 262))).astype(dtype)
    _differential(program, a)


@pytest.mark.parametrize(
    "select",
    [
        lambda v: v[:, [0, 2, 3, 5, 7, 11, 13, 1, 2, 4]],
        lambda v: v[[3, 1, 4, 1, 5]],
        lambda v: v[:, np.array([[0, 1], [2, 3]])],
        lambda v: v[np.array([0, 2]), 5:],
    ],
)
@pytest.mark.parametrize("layout", ["C", "F"])
def test_a_gather_has_numpys_memory_order(select, layout):
    # NOTE: numpy writes x[:, cols] with the index's dims slowest (F-ordered for a C-ordered
    # x): x[:, cols].sum(axis=1) adds a value at a time there, pairwise here before
    x = np.random.default_rng(20).standard_normal((300, 40))
    a = {"C": x, "F": np.asfortranarray(x)}[layout]
    want = select(a)
    got = select(li.asarray(a))
    assert np.asarray(got).strides == want.strides
    for axis in range(want.ndim):
        assert np.asarray(np.sum(got, axis=axis)).tobytes() == want.sum(axis=axis).tobytes()
    assert np.asarray(np.mean(select(li.asarray(a)) * 2)).tobytes() == np.mean(want * 2).tobytes()


def test_a_library_call_reads_a_buffer_as_laid_out_where_another_reader_copied_it():
    # NOTE: a ravel copied an F-ordered buffer into C order; the mean of the same buffer read
    # that copy and added in C order, numpy's in the buffer's
    a = np.asfortranarray(np.random.default_rng(21).standard_normal((7, 10, 8)).astype(np.float32))
    x = li.asarray(a)
    order, mean = li.compute(np.argsort(x, axis=None), np.mean(x, keepdims=True))
    assert np.asarray(mean).tobytes() == np.mean(a, keepdims=True).tobytes()
    np.testing.assert_array_equal(np.asarray(order), np.argsort(a, axis=None, stable=True))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("flat", [np.ravel, lambda c: np.argsort(c, axis=None, stable=True)])
def test_a_library_call_reads_a_computed_value_as_laid_out_where_another_reader_copied_it(
    flat, dtype
):
    # NOTE: likewise a computed value in numpy's F order (x + x of an F-ordered x): the C copy
    # the flattening made of it was what np.mean(c) added up
    a = np.asfortranarray(np.random.default_rng(23).standard_normal((8, 6, 30)).astype(dtype))
    for axis in (None, 0, 1, 2):
        c = li.asarray(a) + li.asarray(a)
        flattened, mean = li.compute(flat(c), np.mean(c, axis=axis, keepdims=True))
        assert np.asarray(mean).tobytes() == np.mean(a + a, axis=axis, keepdims=True).tobytes()
        np.testing.assert_array_equal(np.asarray(flattened), flat(a + a))


def test_a_requested_value_another_reader_copied_keeps_numpys_strides():
    # NOTE: np.cumsum(s) ravels s into a C copy; s itself came back as that copy (C-ordered
    # where numpy's s - s of an F-ordered s is F), and a later sum of it added in C order
    a = np.asfortranarray(np.random.default_rng(25).standard_normal((80, 90)).astype(np.float32))
    s = li.asarray(a) - li.asarray(a) * 2
    value, flat = li.compute(s, np.cumsum(s))
    want = a - a * 2
    assert np.asarray(value).strides == want.strides
    assert np.asarray(np.sum(s, axis=1)).tobytes() == want.sum(axis=1).tobytes()
    np.testing.assert_array_equal(np.asarray(flat), np.cumsum(want))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_a_norm_over_an_axis_keeps_its_inputs_order(axis):
    # NOTE: numpy's norm over an axis is a sum: its result in its input's order over the kept
    # axes (a later sum over a norm of an F-ordered array added in C order here)
    a = np.asfortranarray(np.random.default_rng(22).standard_normal((9, 11, 60)))
    want = np.linalg.norm(a, axis=axis)
    got = np.linalg.norm(li.asarray(a), axis=axis)
    assert np.asarray(got).strides == want.strides
    assert np.asarray(np.sum(got, axis=0)).tobytes() == want.sum(axis=0).tobytes()


@pytest.mark.parametrize("device", ["cpu", "reference"])
@pytest.mark.parametrize(
    "copy",
    [
        lambda v: v.copy(),
        lambda v: v.copy(order="F"),
        lambda v: np.copy(v, order="C"),
        lambda v: np.copy(v),
    ],
)
@pytest.mark.parametrize(
    "make",
    [lambda v: v.T * 2, lambda v: v * 2, lambda v: (v.T + 1)[::2], lambda v: np.cumsum(v.T, 0)],
)
def test_a_copy_of_a_pending_value_is_laid_out_as_numpys(make, copy, device):
    # NOTE: ndarray.copy() is C-ordered: (x.T * 2).copy() kept x.T * 2's F order, and 184 of 300
    # later row sums differed in the last bit
    a = np.random.default_rng(24).standard_normal((300, 200))
    want = copy(make(a))
    with li.options(device=device):
        got = copy(make(li.asarray(a)))
        assert np.asarray(got).strides == want.strides
        for axis in (0, 1):
            assert np.asarray(np.sum(got, axis=axis)).tobytes() == want.sum(axis=axis).tobytes()


def test_explain_reads_a_copy_of_a_value_computed_since_it_was_recorded():
    # NOTE: the copy's input was computed (held, kept) by a later materialization: explain's
    # orders pass read the copy's recorded input, no longer in the graph (KeyError; li fuzz)
    x = np.random.default_rng(27).standard_normal((7, 7)).astype(np.float32)
    v0 = li.asarray(x)
    v1 = li.where(v0 > 1000.0, v0, v0)
    v4 = li.where(v0 > 0.001, v0, v1)
    v5 = li.floor(v4)
    v1.T[...] += v5
    copied = li.astype(v4, li.float32)
    v1.compute()
    assert "dropped a copy" in li.explain(copied)
    assert np.asarray(copied).tobytes() == x.tobytes()


def test_a_copy_of_a_value_numpy_lays_out_in_c_order_is_that_value():
    x = li.asarray(np.ones((30, 20)))
    kernels = li.inspect.schedule((x * 2).copy() + 1).kernels
    assert [k.kind.value for k in kernels] == ["elementwise"]


@pytest.mark.parametrize("layout", ["F", "T", "reversed"])
@pytest.mark.parametrize("shape", [(12, 11, 11), (9, 7), (3, 5, 6, 4)])
def test_triu_and_tril_have_numpys_memory_order(shape, layout):
    # NOTE: numpy's triu is where(mask, 0, x): its result in the iterator's order of x and the
    # broadcast (rows, cols) mask; here it was C-ordered, and a later std over an axis of a
    # maximum of it differed in the last bit (found by the numpy-programs fuzz)
    a = np.random.default_rng(26).standard_normal(shape).astype(np.float32)
    a = {"F": np.asfortranarray, "T": lambda v: v.T.copy().T, "reversed": lambda v: v[::-1]}[
        layout
    ](a)
    for triangle in (np.triu, np.tril, lambda m: np.triu(m * 2, 1)):
        want = triangle(a)
        assert np.asarray(triangle(li.asarray(a))).strides == want.strides
        for axis in range(len(shape)):
            got = np.sum(triangle(li.asarray(a)), axis=axis)
            assert np.asarray(got).tobytes() == want.sum(axis=axis).tobytes()


@pytest.mark.parametrize("before", [lambda z: None, lambda z: z.__imul__(2)])
def test_a_fill_keeps_the_arrays_memory_order(before):
    # NOTE: numpy's z.fill(v) writes into z's memory; a filled F-ordered z came back C-ordered,
    # and a later sum of z * a added in C order (found by the numpy-programs fuzz)
    a = np.asfortranarray(np.random.default_rng(27).standard_normal((300, 200)))
    results = []
    for z in (np.copy(a), li.asarray(np.copy(a))):
        before(z)
        z.fill(0.1)
        results.append((np.asarray(z).strides, np.asarray(np.sum(z * a, axis=1)).tobytes()))
    assert results[0] == results[1]


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=6),
    dtype=st.sampled_from([np.float16, F32, F64]),
)
def test_sums_of_a_batch_of_diagonals_and_traces_of_any_layout_equal_numpys(data, shape, dtype):
    """numpy's diagonal is a view, the leading axes' strides then both diagonal axes' at once:
    a batch of diagonals of a C-ordered array is F-ordered, and its sums add row to row. It
    was computed C-ordered and summed pairwise (the numpy-programs fuzz at 512K elements: a
    var of a diagonal; 89 of 1,050 sums, means and traces of diagonals differed)."""
    a = data.draw(layouts(shape, dtype))
    axis1, axis2 = data.draw(st.permutations(range(len(shape))))[:2]
    offset = data.draw(st.integers(-2, 2))
    axis = data.draw(st.integers(-1, len(shape) - 3))

    def diagonals(xp, x):
        return np.diagonal(x, offset, axis1, axis2)

    if diagonals(np, a).size:
        _differential(lambda xp, x: xp.sum(diagonals(xp, x), axis=axis), a)
        _differential(lambda xp, x: xp.mean(diagonals(xp, x) * 2, axis=axis), a)
    _differential(lambda xp, x: np.trace(x, offset, axis1, axis2), a)
    # NOTE: numpy's trace is a sum of that view over its last axis: in the leading axes' order
    # (it was C-ordered: a later prod of complex traces differed, the complex fuzz's seed 27690)
    want = np.trace(a, offset, axis1, axis2)
    got = np.asarray(np.trace(li.asarray(a), offset, axis1, axis2))
    assert _same_layout(got.strides, want.strides, want.shape), (got.strides, want.strides)


@settings(max_examples=100, deadline=None)
@given(
    data=st.data(),
    shape=hnp.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=9),
    dtype=st.sampled_from([F32, F64]),
)
def test_a_rounding_to_decimals_sums_in_numpys_order(data, shape, dtype):
    """np.round(x, 3) writes into a new array in order "A" (F where x is F-contiguous, else
    C: numpy's PyArray_Round), not a ufunc's order "K": a rounding of a reversed or rotated
    array (np.rot90) is C-ordered in numpy and its sums add so (the numpy-programs fuzz,
    seed 82725: 304 of 1,000 means of rounded rotations differed)."""
    a = data.draw(layouts(shape, dtype))
    decimals = data.draw(st.sampled_from([-1, 1, 3]))
    _differential(lambda xp, x: np.round(x, decimals).sum(axis=0), a)
    _differential(lambda xp, x: np.round(np.rot90(x), decimals).mean(), a)
