"""numpy's positional forms of the standard's keyword-only parameters (an extension).

The standard makes `axis`, `dtype`, `n`, `k`, ... keyword-only; numpy, CuPy, torch and
array-api-compat's namespaces take them by position too, and libraries written against those
call them so (scikit-learn's roc_curve calls `xp.diff(fps, 2)`). Every public function of
li, li.linalg and li.fft is compared with numpy's: each parameter numpy takes by position, in
numpy's order, is one lazyinfini takes by position (derived from the signatures, so a new
narrowing fails here), and each position lazyinfini accepts beyond the standard is numpy's.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import lazyinfini as li
from tests import spec_signatures as spec

P = inspect.Parameter
POSITIONAL = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
MODULES = [("", li, np, spec.MAIN), ("linalg.", li.linalg, np.linalg, spec.LINALG)]
MODULES += [("fft.", li.fft, np.fft, spec.FFT)]


def _signature(fn) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _pairs():
    """(name, lazyinfini function, numpy's function) for every public function both have."""
    for prefix, module, numpy_module, _ in MODULES:
        for name in sorted(module.__all__):
            ours, theirs = getattr(module, name), getattr(numpy_module, name, None)
            if callable(ours) and not isinstance(ours, type) and callable(theirs):
                if _signature(ours) is not None and _signature(theirs) is not None:
                    yield f"{prefix}{name}", ours, theirs


PAIRS = list(_pairs())


def numpy_positional_only_by_keyword(ours, theirs) -> list[str]:
    """The parameters numpy takes by position that `ours` takes only by keyword: numpy's
    positional parameters after the ones `ours` takes by position, in order, while `ours` has
    them (by the same name); the first one it lacks (`out`, `order`, `kind`) ends the run."""
    mine = inspect.signature(ours).parameters
    taken = sum(p.kind in POSITIONAL for p in mine.values())
    numpys = [p for p in inspect.signature(theirs).parameters.values() if p.kind in POSITIONAL]
    narrowed = []
    for param in numpys[taken:]:
        if param.name not in mine:
            break
        narrowed.append(param.name)
    return narrowed


def test_the_comparison_covers_the_namespace():
    names = {name for name, _, _ in PAIRS}
    assert len(names) > 150
    assert {"diff", "sum", "take", "fft.fft", "linalg.svd", "zeros", "where"} <= names


@pytest.mark.parametrize("name, ours, theirs", PAIRS, ids=[p[0] for p in PAIRS])
def test_what_numpy_takes_by_position_is_taken_by_position(name, ours, theirs):
    assert numpy_positional_only_by_keyword(ours, theirs) == [], name


def test_the_check_finds_a_narrowed_signature():
    def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):  # the standard's
        raise AssertionError

    assert numpy_positional_only_by_keyword(diff, np.diff) == ["n", "axis", "prepend", "append"]


def _widened():
    """(name, parameter, its position) for each parameter the standard makes keyword-only
    and lazyinfini takes by position."""
    for prefix, module, _, table in MODULES:
        for name, params in sorted(table.items()):
            mine = list(inspect.signature(getattr(module, name)).parameters.values())
            for position, param in enumerate(mine):
                kinds = dict((n.lstrip("*"), k) for n, k, _ in params)
                if kinds.get(param.name) == "K" and param.kind is P.POSITIONAL_OR_KEYWORD:
                    yield f"{prefix}{name}", param.name, position


WIDENED = list(_widened())


def test_each_position_beyond_the_standard_is_numpys():
    """li.f(x, a) means np.f(x, a): every widened parameter sits at numpy's position."""
    assert len(WIDENED) >= 50
    numpy_modules = {prefix: numpy_module for prefix, _, numpy_module, _ in MODULES}
    for qualified, param, position in WIDENED:
        prefix, _, name = qualified.rpartition(".")
        # NOTE: li.linalg.tensordot is li.tensordot: numpy's np.tensordot counts for it.
        theirs = [
            getattr(numpy_modules[prefix + "." if prefix else ""], name),
            getattr(np, name, None),
        ]
        assert any(_numpys_at(f, position) == param for f in theirs if f), (qualified, param)


def _numpys_at(fn, position: int) -> str | None:
    numpys = [p for p in inspect.signature(fn).parameters.values() if p.kind in POSITIONAL]
    return numpys[position].name if position < len(numpys) else None


# -- the positional forms compute what the keyword forms do, and what numpy does -------------
A = np.arange(24.0).reshape(2, 3, 4) % 7 - 3
V = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0])
INDICES = np.array([[2, 0], [1, 1], [3, 0]])
CALLS = [
    ("diff", (V, 2), {"n": 2}),
    ("diff", (A, 1, 1), {"n": 1, "axis": 1}),
    ("diff", (V, 1, -1, np.zeros(1)), {"prepend": np.zeros(1)}),
    ("sum", (A, 1), {"axis": 1}),
    ("sum", (A.astype(np.int8), 0, np.int64), {"axis": 0, "dtype": np.int64}),
    ("prod", (A, (0, 2)), {"axis": (0, 2)}),
    ("mean", (A, -1), {"axis": -1}),
    ("std", (A, 0), {"axis": 0}),
    ("var", (A, 2), {"axis": 2}),
    ("max", (A, 1), {"axis": 1}),
    ("min", (A, 0), {"axis": 0}),
    ("argmax", (A, 2), {"axis": 2}),
    ("argmin", (A, 1), {"axis": 1}),
    ("all", (A, 1), {"axis": 1}),
    ("any", (A, 0), {"axis": 0}),
    ("count_nonzero", (A, 2), {"axis": 2}),
    ("sort", (V, 0), {"axis": 0}),
    ("argsort", (np.array([3.0, 1.0, 2.0]), 0), {"axis": 0}),
    ("flip", (A, 1), {"axis": 1}),
    ("roll", (A, 2, 1), {"axis": 1}),
    ("repeat", (V, 2, 0), {"axis": 0}),
    ("take", (A, np.array([2, 0]), 1), {"axis": 1}),
    ("take_along_axis", (A[0], INDICES, 1), {"axis": 1}),
    ("tensordot", (A, np.ones((3, 4, 2)), 2), {"axes": 2}),
    ("tril", (A[0], 1), {"k": 1}),
    ("triu", (A[0], -1), {"k": -1}),
    ("searchsorted", (np.sort(V), V, "right"), {"side": "right"}),
]
JOINS = [("concat", "concatenate", 1), ("stack", "stack", 2)]
CREATIONS = [
    ("zeros", ((2, 3), np.int16), {"dtype": np.int16}),
    ("ones", ((2,), np.float32), {"dtype": np.float32}),
    ("full", ((2, 2), 7, np.int8), {"dtype": np.int8}),
    ("eye", (3, 4, 1, np.float32), {"k": 1, "dtype": np.float32}),
    ("linspace", (0.0, 1.0, 5, False), {"endpoint": False}),
    ("asarray", ([1, 2], np.float32), {"dtype": np.float32}),
]
LIKES = [("zeros_like", ()), ("ones_like", ()), ("full_like", (4,))]


def _lazy(value):
    return li.asarray(value) if isinstance(value, np.ndarray) else value


def _same(got, expected) -> None:
    assert isinstance(got, li.Array), type(got)
    expected = np.asarray(expected)
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype), (got, expected.dtype)
    np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("name, args, kwargs", CALLS, ids=[c[0] for c in CALLS])
def test_positional_calls_match_numpy_and_the_keyword_form(name, args, kwargs):
    fn = getattr(li, name)
    positional = fn(*(_lazy(a) for a in args))
    lazy_kwargs = {k: _lazy(v) for k, v in kwargs.items()}
    by_keyword = fn(*(_lazy(a) for a in args[: len(args) - len(kwargs)]), **lazy_kwargs)
    _same(positional, np.asarray(by_keyword))
    _same(positional, getattr(np, name)(*args))


@pytest.mark.parametrize("name, numpy_name, axis", JOINS)
def test_joins_take_axis_by_position(name, numpy_name, axis):
    arrays = [A, A + 1]
    got = getattr(li, name)([li.asarray(a) for a in arrays], axis)
    _same(got, getattr(np, numpy_name)(arrays, axis))


@pytest.mark.parametrize("name, args, kwargs", CREATIONS, ids=[c[0] for c in CREATIONS])
def test_creation_takes_dtype_by_position(name, args, kwargs):
    positional = getattr(li, name)(*args)
    _same(positional, getattr(np, name)(*args))
    by_keyword = getattr(li, name)(*args[: len(args) - len(kwargs)], **kwargs)
    _same(positional, np.asarray(by_keyword))


@pytest.mark.parametrize("name, fill", LIKES)
def test_like_functions_take_dtype_by_position(name, fill):
    got = getattr(li, name)(li.asarray(A), *fill, np.int32)
    _same(got, getattr(np, name)(A, *fill, np.int32))


def test_extensions_take_numpys_positions():
    x = li.asarray(V)
    _same(li.fft.fft(x, 4, 0), np.fft.fft(V, 4, 0))
    _same(li.fft.rfftn(li.asarray(A), (2, 2, 4), (0, 1, 2)), np.fft.rfftn(A, (2, 2, 4), (0, 1, 2)))
    _same(li.fft.fftfreq(8, 0.5), np.fft.fftfreq(8, 0.5))
    _same(li.fft.fftshift(x, 0), np.fft.fftshift(V, 0))
    q, r = li.linalg.qr(li.asarray(A[0].T), "complete")
    expected_q, expected_r = np.linalg.qr(A[0].T, "complete")
    assert q.shape == expected_q.shape and r.shape == expected_r.shape
    s = li.linalg.svd(li.asarray(A[0]), False).S
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(A[0], False).S)


def test_a_wrong_position_still_errs_under_the_function_name():
    with pytest.raises(TypeError, match="^diff: "):
        li.diff(li.asarray(V), 1.5)
    with pytest.raises(TypeError):
        li.mean(li.asarray(V), 0, np.float64)  # numpy's dtype: not lazyinfini's mean's


# -- numpy's other widened forms scikit-learn's roc_curve calls --------------------------------
def test_where_of_a_condition_alone_is_nonzero():
    cond = li.asarray(np.array([[True, False], [False, True]]))
    got = li.where(cond)
    expected = np.where(np.asarray(cond))
    assert len(got) == 2
    for g, e in zip(got, expected, strict=True):
        _same(g, e)
    with pytest.raises(ValueError, match="^where: "):
        li.where(cond, li.asarray(1.0))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_functions_take_numbers_by_their_truth(name):
    a = np.array([0.0, -0.0, 2.5, np.nan, 0.0, 1.0])
    b = np.array([0, 3, 0, 0, -1, 1], np.int8)
    _same(getattr(li, name)(li.asarray(a), li.asarray(b)), getattr(np, name)(a, b))
    _same(getattr(li, name)(li.asarray(a), 2), getattr(np, name)(a, 2))
    _same(li.logical_not(li.asarray(a)), np.logical_not(a))
