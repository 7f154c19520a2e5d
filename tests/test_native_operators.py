"""Array's operators, numpy's commonest reductions and numpy's ufuncs on Arrays, recorded in C
(lazyinfini/_realize/native_operators.py), record what the Python methods they wrap record:
the same nodes (ops, shapes, dtypes, parameters, sources, inputs), the same errors, and the
C path is the one taken where it applies.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._realize import native as _native

pytestmark = pytest.mark.skipif(
    not _native.wait(), reason=f"no compiled extension here: {_native.Native.error}"
)


# -- Array's operators in C -------------------------------------------------------------------
def _structure(node, before: set):
    """A recorded node as comparable values: new nodes by their fields and inputs, nodes that
    existed before the call by identity."""
    if id(node) in before:
        return ("existing", id(node))
    fields = (node.op, node.shape, node.dtype, repr(node.arg), node.source)
    return (*fields, tuple(_structure(s, before) for s in node.srcs))


def _operands():
    f32 = li.asarray(np.arange(60, dtype=np.float32).reshape(10, 6)) * 1
    row = li.asarray(np.arange(6, dtype=np.float32)) - 1
    column = li.asarray(np.ones((10, 1), np.float32)) + 0
    ints = li.asarray(np.arange(6, dtype=np.int64)) * 1
    small = li.asarray(np.arange(6, dtype=np.uint8)) * 1
    flags = li.asarray(np.array([True, False, True])) == True  # noqa: E712
    one = li.asarray(np.array([1 + 2j], np.complex64)) * 1
    buffer = li.asarray(np.ones(6, np.float32))
    stale = li.asarray(np.ones(6, np.float32)) * 1
    computed = type(stale)(stale._n)  # NOTE: the last array made to hold it: it gets the buffer
    np.asarray(computed)  # NOTE: stale still holds the computed node, its `realized` link set
    large = li.asarray(np.ones(70_000, np.float32)) * 1  # 280 KB: numpy elides its temporaries
    based = li.asarray(np.ones((10, 6), np.float32)) * 1
    view = based[1:]  # a view of based's memory: its node may replay (and based's)
    matrix = li.asarray(np.arange(12.0).reshape(4, 3)) * 1
    vector, rows = li.asarray(np.ones(3)) * 1, li.asarray(np.ones((3, 5))) * 1
    batch = li.asarray(np.ones((2, 3, 3))) * 1
    quick = [  # (operator, x, y): the quick path's cases
        ("__add__", f32, f32), ("__sub__", f32, row), ("__mul__", column, row),
        ("__truediv__", f32, 2.0), ("__rmul__", f32, 2.0), ("__rsub__", row, 1),
        ("__add__", ints, 3), ("__lt__", f32, row), ("__ge__", ints, ints), ("__eq__", one, one),
        ("__ne__", row, 0.5), ("__add__", flags, flags), ("__radd__", large, 1.5),
        ("__mul__", small, 255), ("__le__", f32, 3), ("__add__", f32, buffer),
        ("__sub__", buffer, row), ("__mul__", computed, 2.0),
        ("__matmul__", matrix, vector), ("__matmul__", vector, rows), ("__matmul__", matrix, rows),
        ("__matmul__", vector, vector), ("__matmul__", computed, buffer),
        ("__sub__", view, row), ("__mul__", view, 2.0), ("__rsub__", view, 1.0),
        ("__matmul__", based.T, f32[:, 0]), ("__matmul__", view, view[0]), ("__lt__", row, view),
    ]  # fmt: skip
    python = [  # (operator, x, y): what the Python method records
        ("__add__", small, 300), ("__lt__", small, 300), ("__add__", ints, 2.5),
        ("__mul__", one, one), ("__add__", f32, stale), ("__add__", stale, row),
        ("__sub__", view, based), ("__sub__", view, row[:4]), ("__add__", large, large),
        ("__add__", row, np.float64(2)), ("__mul__", row, [1, 2, 3, 4, 5, 6]),
        ("__eq__", row, None), ("__truediv__", ints, 2), ("__rtruediv__", row, np.ones(6)),
        ("__add__", f32, li.asarray(np.ones(4, np.float32)) * 1),
        ("__matmul__", matrix, matrix), ("__matmul__", batch, vector), ("__matmul__", f32, vector),
        ("__matmul__", matrix, li.asarray(np.ones(())) * 1),
        ("__matmul__", matrix, [1.0, 2.0, 3.0]),
    ]  # fmt: skip
    return quick, python


def _outcome(operator, x, y):
    try:
        return operator(x, y)
    except (TypeError, ValueError) as error:  # NOTE: the namespace's errors are both
        return error


def test_the_operators_in_c_record_what_the_python_methods_record(monkeypatch):
    from lazyinfini._api import linear_algebra
    from lazyinfini._api import quick as quick_paths
    from lazyinfini._array import Array

    quick, python = _operands()
    for name, x, y in quick + python:
        operator = vars(Array)[name]
        assert type(operator).__name__ == "Operator", name
        before = {id(n) for a in (x, y) if isinstance(a, li.Array) for n in li.graph(a).nodes}
        made = [_outcome(operator, x, y), _outcome(operator.__wrapped__, x, y)]
        if isinstance(made[0], Exception):
            assert repr(made[0]) == repr(made[1]), (name, x, y)
            continue
        shapes = [_structure(m._n, before) for m in made]
        assert shapes[0] == shapes[1], (name, x, y)
        assert type(made[0]) is type(made[1]) and made[0]._n.holder() is made[0]
        np.testing.assert_array_equal(np.asarray(made[0]), np.asarray(made[1]))

    def python_path(*args):
        raise AssertionError("the Python path ran")

    quick, python = _operands()  # NOTE: pending again (the values above computed them)
    monkeypatch.setattr(quick_paths, "binary", python_path)
    monkeypatch.setattr(linear_algebra, "_matmul_shape", python_path)
    for name, x, y in quick:  # NOTE: recorded without any Python frame of ours
        getattr(Array, name)(x, y)
    for name, x, y in python:
        if name != "__eq__":  # NOTE: x == None is the Python method's, before any path
            with pytest.raises((AssertionError, TypeError, ValueError)):
                getattr(Array, name)(x, y)


def test_an_operator_in_c_is_the_method_it_wraps_to_its_callers():
    from lazyinfini._array import Array

    x = li.asarray(np.ones(3))
    assert Array.__add__.__name__ == "add" and Array.__add__.__wrapped__.__name__ == "add"
    bound = x.__add__
    assert bound.__self__ is x and np.asarray(bound(1.0)).tolist() == [2.0, 2.0, 2.0]
    assert x.__add__("text") is NotImplemented  # NOTE: Python then asks the other side
    with pytest.raises(TypeError):
        x + "text"
    with pytest.raises(ValueError, match="broadcast"):
        x + li.asarray(np.ones(4))
    assert np.asarray(3.0 - x).tolist() == [2.0, 2.0, 2.0]


# -- numpy's commonest reductions in C ----------------------------------------------------------
def _reductions():
    """(call, x, its arguments, keywords): C's cases first, then the Python path's."""
    x = li.asarray(np.arange(24.0).reshape(2, 3, 4)) * 1
    f32 = li.asarray(np.ones((5, 6), np.float32)) - 1
    computed = li.asarray(np.ones(7)) * 1
    np.asarray(computed)
    tall, vector = li.asarray(np.ones((6, 4), np.float32)) * 2, li.asarray(np.ones(6, np.float32))
    c = [
        ("sum", x, (), {}), ("sum", x, (0,), {}), ("mean", x, (), {"axis": -1}),
        ("max", x, ((0, 2),), {"keepdims": True}), ("min", f32, (), {"axis": (-1, 0)}),
        ("mean", f32, (1,), {"keepdims": False}), ("sum", computed, (), {}),
        (np.sum, x, (1,), {}), (np.mean, f32, (), {"keepdims": True}), (np.amax, x, (), {}),
        (np.min, x, (), {"axis": ()}), (np.max, f32, (-2,), {}),
        ("argmax", x, (), {}), ("argmin", x, (1,), {}), ("argmax", f32, (), {"axis": -1}),
        ("argmin", x, (), {"axis": 0, "keepdims": True}), (np.argmax, f32, (0,), {}),
        (np.argmin, x, (), {"axis": -2}), (np.argmax, computed, (), {"keepdims": True}),
        ("dot", f32, (tall,), {}), (np.dot, computed, (computed,), {}),
        (np.dot, vector, (tall,), {}), ("dot", computed, (computed,), {}),
    ]  # fmt: skip
    half, empty = li.asarray(np.ones(4, np.float16)) * 1, li.asarray(np.ones((2, 0))) * 1
    row, ints = (li.asarray(np.ones((2, 3))) * 1)[0], li.asarray(np.arange(6)) * 1
    scalar = li.asarray(np.ones(())) * 1
    python = [
        ("sum", x, (), {"axis": (0, 0)}), ("sum", x, (3,), {}), ("max", x, (1.0,), {}),
        ("mean", x, (), {"keepdims": 1}), ("sum", x, (0,), {"axis": 1}),
        ("sum", x, (), {"dtype": np.float32}), ("sum", half, (), {}), ("max", empty, (1,), {}),
        ("sum", row, (), {}), ("mean", ints, (), {}), ("sum", scalar, (), {}),
        (np.sum, x, (), {"dtype": None}), (np.mean, x, (0, None), {}),
        (np.max, x, (), {"out": None}),
        ("argmax", x, ((0, 1),), {}), ("argmin", x, (3,), {}), ("argmax", empty, (1,), {}),
        ("argmin", ints, (), {}), ("argmax", x, (), {"out": None}), (np.argmin, scalar, (), {}),
        (np.argmax, x, (1.0,), {}), (np.argmin, x, (), {"keepdims": 0}),
        ("dot", x, (vector * 1.0,), {}), (np.dot, f32, (2.0,), {}), (np.dot, f32, (f32,), {}),
        ("dot", ints, (ints * 1.0,), {}), (np.dot, tall, (x,), {}), ("dot", f32, (f32,), {}),
    ]  # fmt: skip
    return c, python


def _call(call, x, args, kwargs):
    function = getattr(x, call) if isinstance(call, str) else functools.partial(call, x)
    try:
        return function(*args, **kwargs)
    except (TypeError, ValueError, IndexError) as error:
        return error


def test_the_reductions_in_c_record_what_python_records(monkeypatch):
    from lazyinfini._array import Array
    from lazyinfini._numpy_twins import quick as quick_paths

    names = ("sum", "mean", "max", "min", "argmax", "argmin", "dot", "__array_function__")
    assert all(type(vars(Array)[n]).__name__ == "Operator" for n in names)
    compiled = {n: vars(Array)[n] for n in names}
    for case in sum(_reductions(), []):
        made = [_call(*case)]
        for name in names:
            monkeypatch.setattr(Array, name, compiled[name].__wrapped__)
        made.append(_call(*case))
        for name in names:
            monkeypatch.setattr(Array, name, compiled[name])
        if isinstance(made[0], Exception):
            assert repr(made[0]) == repr(made[1]), case
            continue
        before = {id(n) for n in li.graph(case[1]).nodes}
        assert _structure(made[0]._n, before) == _structure(made[1]._n, before), case
        np.testing.assert_array_equal(np.asarray(made[0]), np.asarray(made[1]))

    calls = []
    record, arg = quick_paths.record_reduction, quick_paths.arg_extreme
    monkeypatch.setattr(quick_paths, "record_reduction", lambda *a: calls.append(a) or record(*a))
    monkeypatch.setattr(quick_paths, "arg_extreme", lambda *a: calls.append(a) or arg(*a))
    monkeypatch.setattr(quick_paths, "matmul", lambda *a: calls.append(a) or li.matmul(*a))
    quick, python = _reductions()  # NOTE: pending again
    for case in quick:  # NOTE: recorded in C: Python's quick path never ran
        assert isinstance(_call(*case), li.Array) and not calls, case
    assert isinstance(vars(Array)["sum"].__wrapped__(quick[0][1]), li.Array) and calls


# -- numpy's ufuncs on Arrays in C --------------------------------------------------------------
def _ufunc_calls():
    """(ufunc, inputs, keywords) of np.<ufunc>(*inputs, **keywords): C's cases, Python's."""
    x = li.asarray(np.linspace(-2, 2, 12).reshape(3, 4)) * 1
    f16 = li.asarray(np.ones(5, np.float16)) + 0
    z = li.asarray(np.array([1 + 1j, -2j], np.complex64)) * 1
    ints = li.asarray(np.arange(1, 7)) * 1
    based = li.asarray(np.ones((2, 3))) * 1
    computed = li.asarray(np.ones(4)) * 1
    stale = type(computed)(computed._n)  # NOTE: holds the node computed below, its link set
    np.asarray(computed)
    c = [
        (np.exp, (x,), {}), (np.tanh, (f16,), {}), (np.sqrt, (x,), {}), (np.abs, (z,), {}),
        (np.maximum, (x, 0.0), {}), (np.add, (x, x), {}), (np.multiply, (2.0, x), {}),
        (np.less, (ints, 3), {}), (np.negative, (ints,), {}), (np.exp, (computed,), {}),
    ]  # fmt: skip
    python = [
        (np.exp, (z,), {}), (np.sqrt, (z,), {}), (np.reciprocal, (ints,), {}),
        (np.positive, (x,), {}), (np.exp, (based[0],), {}), (np.exp, (stale,), {}),
        (np.add, (x, np.ones(4)), {}), (np.exp, (x,), {"dtype": np.float64}),
        (np.floor_divide, (x, 2.0), {}), (np.add, (ints, 2.5), {}), (np.add, (x, [1, 2, 3, 4]), {}),
        (np.fmax, (x, 0.0), {}),
    ]  # fmt: skip
    return c, python


def _called(ufunc, inputs, kwargs):
    return ufunc(*inputs, **kwargs)  # NOTE: one line: the nodes' source


def test_the_ufuncs_in_c_record_what_python_records(monkeypatch):
    from lazyinfini import _numpy_ufuncs
    from lazyinfini._array import Array

    compiled = vars(Array)["__array_ufunc__"]
    assert type(compiled).__name__ == "Operator"
    for ufunc, inputs, kwargs in sum(_ufunc_calls(), []):
        made = [_called(ufunc, inputs, kwargs)]
        monkeypatch.setattr(Array, "__array_ufunc__", compiled.__wrapped__)
        made.append(_called(ufunc, inputs, kwargs))
        monkeypatch.setattr(Array, "__array_ufunc__", compiled)
        arrays = [v for v in inputs if isinstance(v, li.Array)]
        before = {id(n) for a in arrays for n in li.graph(a).nodes}
        shapes = [_structure(m._n, before) for m in made]
        assert shapes[0] == shapes[1], (ufunc, inputs, kwargs)
        np.testing.assert_array_equal(np.asarray(made[0]), np.asarray(made[1]))

    def python_path(*args, **kwargs):
        raise AssertionError("the Python path ran")

    quick, python = _ufunc_calls()  # NOTE: pending again
    for ufunc in {call[0] for call in quick + python if call[0] in _numpy_ufuncs.TWINS}:
        monkeypatch.setitem(_numpy_ufuncs.TWINS, ufunc, python_path)
    for ufunc, inputs, kwargs in quick:  # NOTE: recorded in C: no twin ran
        assert isinstance(ufunc(*inputs, **kwargs), li.Array), ufunc
    with pytest.raises(AssertionError, match="Python path"):
        np.exp(python[0][1][0])  # NOTE: a complex exp: numpy's values, the twin's


def _in_place_cases():
    """(operator, make x, y): x made fresh for each path (an in-place write rebinds it)."""
    vector = lambda: li.asarray(np.arange(6.0)) * 1  # noqa: E731
    return [
        ("__isub__", vector, li.asarray(np.ones(6)) * 2),  # C's cases
        ("__iadd__", vector, 0.5),
        ("__imul__", lambda: li.asarray(np.ones((6, 1), np.float32)) * 1, 3.0),
        ("__itruediv__", lambda: li.asarray(np.float64(3.0)) * 1, 2.0),
        ("__isub__", lambda: li.asarray(np.ones((1, 4))) * 1, li.asarray(np.ones(4)) * 1),
        ("__iadd__", lambda: li.asarray(np.ones((2, 3))) * 1, 1.0),  # the Python path's
        ("__itruediv__", lambda: li.asarray(np.arange(3)) * 1, 2),
        ("__iadd__", lambda: li.asarray(np.ones(3, np.float32)) * 1, li.asarray(np.ones(3)) * 1),
        ("__isub__", vector, li.asarray(np.ones((2, 6))) * 1),
        ("__imul__", lambda: li.asarray(np.array([1 + 1j])) * 1, li.asarray(np.array([2j])) * 1),
        ("__iadd__", lambda: (li.asarray(np.ones((2, 3))) * 1)[0], 1.0),
        ("__iadd__", vector, np.ones(6)),
    ]


def _in_place(operator, x, y):
    try:
        return operator(x, y)  # NOTE: one line: the nodes' source
    except (TypeError, ValueError) as error:
        return error


def test_in_place_operators_in_c_write_what_python_writes():
    from lazyinfini._array import Array

    for name, make, y in _in_place_cases():
        operator = vars(Array)[name]
        assert type(operator).__name__ == "Operator", name
        xs = [make(), make()]
        before = [{id(n) for a in (x, y) if isinstance(a, li.Array) for n in li.graph(a).nodes}
                  for x in xs]  # fmt: skip
        made = [_in_place(operator, xs[0], y), _in_place(operator.__wrapped__, xs[1], y)]
        if isinstance(made[0], Exception):
            assert repr(made[0]) == repr(made[1]), name
            continue
        assert (made[0] is xs[0]) == (made[1] is xs[1]), name  # NOTE: a 0-d x is replaced
        shapes = [_structure(m._n, b) for m, b in zip(made, before)]
        assert shapes[0][:4] == shapes[1][:4], name  # NOTE: their own x's nodes differ
        np.testing.assert_array_equal(np.asarray(made[0]), np.asarray(made[1]))
        np.testing.assert_array_equal(np.asarray(xs[0]), np.asarray(xs[1]))
        assert made[0]._n.holder() is made[0]


def test_in_place_operators_take_the_c_path_where_it_applies(monkeypatch):
    from lazyinfini._api import elementwise
    from lazyinfini._array import _FUNCTIONS

    def python_path(*args):
        raise AssertionError("the Python path ran")

    cases = [(name, make(), y) for name, make, y in _in_place_cases()[:5]]
    python_x = li.asarray(np.ones((2, 3))) * 1
    for name in ("subtract", "add", "multiply", "divide"):
        monkeypatch.setitem(_FUNCTIONS, name, python_path)
    monkeypatch.setattr(elementwise, "subtract", python_path)
    for name, x, y in cases:
        result = getattr(type(x), name)(x, y)
        assert isinstance(result, li.Array) and (result is x or x.ndim == 0), name
    with pytest.raises(AssertionError, match="Python path"):
        python_x += 1.0  # NOTE: two long axes: written_into may record an update


def test_a_failing_install_leaves_its_calls_in_python_and_warns(monkeypatch):
    from lazyinfini._realize import native_operators

    def broken(module):
        raise RuntimeError("an install that fails")

    monkeypatch.setattr(native_operators, "HOOKS", list(native_operators.HOOKS))
    with pytest.warns(RuntimeWarning, match="broken failed, its calls stay in Python"):
        native_operators.when_loaded(broken)  # NOTE: loaded already: it runs now
    x = li.asarray(np.arange(3.0)) * 2.0  # NOTE: recording and computing go on
    np.testing.assert_array_equal(np.asarray(x + 1.0), [1.0, 3.0, 5.0])
