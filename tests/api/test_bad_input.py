"""The bad-input catalogue: every public function x wrong kinds of argument.

Each function has one valid call; each of its parameters is swapped, one at a time, for values of
the wrong kind (type, dtype, shape, axis, None, ragged lists, negative and huge sizes). A value
that is wrong for every function ("must") has to raise, at the call, a TypeError, ValueError or
IndexError whose message starts with the function's name, and nothing may be computed on the way.
A value that some functions accept ("may": another dtype, a 0-d or empty array) either raises the
same way or is accepted for good: computing the result must then succeed, so no bad input is
recorded now to fail lines later.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import lazyinfini as li

# NOTE: data-dependent NaNs and empty reductions warn inside numpy; they are results here.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ALLOWED = (TypeError, ValueError, IndexError)
HUGE = 10**20  # more elements than any machine's intp counts

# -- the arguments of the valid calls (numpy values: each call gets fresh arrays) ------------

_rng = np.random.default_rng(0)
_R = _rng.standard_normal((3, 3))
DATA = {
    "M": _R @ _R.T + 3 * np.eye(3),  # symmetric positive definite: every linalg call works
    "X": _rng.uniform(0.5, 1.0, (3, 4)),
    "V": np.array([0.5, 1.0, 1.5, 2.0]),  # sorted, for searchsorted
    "V3": np.array([1.0, 2.0, 3.0]),
    "B": np.array([[True, False, True, False]] * 3),
    "I": np.arange(1, 13, dtype=np.int64).reshape(3, 4) % 5 + 1,
    "IDX": np.array([0, 1]),
    "IDX2": np.array([[0], [1], [2]]),
    "ROW": np.ones((1, 4)),
}


class D:
    """A placeholder for DATA[name], made a fresh lazyinfini array at each call."""

    def __init__(self, name: str):
        self.name = name


def _build(value):
    if isinstance(value, D):
        return li.asarray(DATA[value.name].copy())
    if type(value) in (list, tuple):
        return type(value)(_build(v) for v in value)
    return value


M, X, V, V3, B, I, IDX, IDX2, ROW = (D(k) for k in DATA)  # noqa: E741

# Valid calls: name -> (args, kwargs). Element-wise functions are added below.
VALID = {
    "arange": ((5,), {}),
    "argmax": ((X,), {"axis": 0}),
    "argmin": ((X,), {"axis": 0}),
    "argsort": ((X,), {"axis": 0}),
    "all": ((X,), {"axis": 0}),
    "amax": ((X, 0), {}),
    "amin": ((X, 0), {}),
    "any": ((X,), {"axis": 0}),
    "asarray": (([1.0, 2.0],), {}),
    "astype": ((X, li.float32), {}),
    "broadcast_arrays": ((X, ROW), {}),
    "broadcast_shapes": (((3, 1), (1, 4)), {}),
    "broadcast_to": ((V, (3, 4)), {}),
    "can_cast": ((li.int8, li.float32), {}),
    "clip": ((X,), {"min": 0.6, "max": 0.9}),
    "compute": ((X,), {}),
    "concat": (([X, X],), {"axis": 0}),
    "concatenate": (([X, X], 1), {}),
    "count_nonzero": ((X,), {"axis": 0}),
    "cumulative_prod": ((X,), {"axis": 1}),
    "cumulative_sum": ((X,), {"axis": 1}),
    "diff": ((X,), {"axis": 1}),
    "einsum": (("ij,jk->ik", M, M), {}),
    "empty": (((2, 3),), {}),
    "empty_like": ((X,), {}),
    "expand_dims": ((X,), {"axis": 0}),
    "explain": ((X,), {}),
    "eye": ((3,), {}),
    "finfo": ((li.float32,), {}),
    "flip": ((X,), {"axis": 0}),
    "from_dlpack": ((np.ones(3),), {}),
    "full": (((2, 3), 1.0), {}),
    "full_like": ((X, 1.0), {}),
    "graph": ((X,), {}),
    "iinfo": ((li.int8,), {}),
    "isdtype": ((li.float32, "real floating"), {}),
    "isin": ((X, X), {}),
    "linspace": ((0.0, 1.0, 5), {}),
    "matmul": ((M, M), {}),
    "matrix_transpose": ((X,), {}),
    "max": ((X,), {"axis": 0}),
    "mean": ((X,), {"axis": 0}),
    "meshgrid": ((V, V3), {}),
    "min": ((X,), {"axis": 0}),
    "moveaxis": ((X, 0, 1), {}),
    "nonzero": ((X,), {}),
    "ones": (((2, 3),), {}),
    "ones_like": ((X,), {}),
    "permute_dims": ((X, (1, 0)), {}),
    "prod": ((X,), {"axis": 0}),
    "rearrange": ((X, "h (w p) -> p w h"), {"p": 2}),
    "repeat": ((X, 2), {"axis": 0}),
    "reshape": ((X, (4, 3)), {}),
    "result_type": ((X, li.float32), {}),
    "roll": ((X, 1), {"axis": 0}),
    "searchsorted": ((V, X), {}),
    "sort": ((X,), {"axis": 0}),
    "squeeze": ((ROW,), {"axis": 0}),
    "stack": (([X, X],), {"axis": 0}),
    "std": ((X,), {"axis": 0}),
    "sum": ((X,), {"axis": 0}),
    "take": ((X, IDX), {"axis": 0}),
    "take_along_axis": ((X, IDX2), {"axis": 1}),
    "tensordot": ((M, M), {"axes": 1}),
    "tile": ((X, (2, 1)), {}),
    "to_dot": ((X,), {}),
    "transpose": ((X, (1, 0)), {}),
    "tril": ((X,), {}),
    "triu": ((X,), {}),
    "unique_all": ((X,), {}),
    "unique_counts": ((X,), {}),
    "unique_inverse": ((X,), {}),
    "unique_values": ((X,), {}),
    "unstack": ((X,), {"axis": 0}),
    "var": ((X,), {"axis": 0}),
    "vecdot": ((X, X), {}),
    "where": ((B, X, X), {}),
    "zeros": (((2, 3),), {}),
    "zeros_like": ((X,), {}),
    # li.linalg
    "linalg.cholesky": ((M,), {}),
    "linalg.cross": ((V3, V3), {}),
    "linalg.det": ((M,), {}),
    "linalg.diagonal": ((X,), {}),
    "linalg.eig": ((M,), {}),
    "linalg.eigh": ((M,), {}),
    "linalg.eigvals": ((M,), {}),
    "linalg.eigvalsh": ((M,), {}),
    "linalg.inv": ((M,), {}),
    "linalg.matrix_norm": ((X,), {}),
    "linalg.matrix_power": ((M, 2), {}),
    "linalg.matrix_rank": ((X,), {}),
    "linalg.outer": ((V, V3), {}),
    "linalg.pinv": ((X,), {}),
    "linalg.qr": ((X,), {}),
    "linalg.slogdet": ((M,), {}),
    "linalg.solve": ((M, M), {}),
    "linalg.svd": ((X,), {}),
    "linalg.svdvals": ((X,), {}),
    "linalg.trace": ((X,), {}),
    "linalg.vector_norm": ((X,), {}),
    # li.fft
    "fft.fftfreq": ((8,), {}),
    "fft.rfftfreq": ((8,), {}),
}
for _name in li.linalg.__all__:
    VALID.setdefault(f"linalg.{_name}", VALID.get(_name))
for _name in li.fft.__all__:
    VALID.setdefault(f"fft.{_name}", ((X,), {}))

_INTEGER_ONLY = {"bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_or"}
_INTEGER_ONLY |= {"bitwise_xor", "bitwise_invert", "invert", "left_shift", "right_shift"}
_BOOL_ONLY = {"logical_and", "logical_or", "logical_xor", "logical_not"}
# Not array functions, or tested on their own below (the dask ones in tests/dask: they need dask).
_SKIPPED = {"visualize", "report", "options", "set_options", "__array_namespace_info__"}
_SKIPPED |= {"from_dask", "from_zarr", "to_dask", "persist"}


def _function(name: str):
    module, _, short = name.rpartition(".")
    return getattr(getattr(li, module) if module else li, short)


def _elementwise(name: str, fn):
    """The valid call of an element-wise function: X floats, I integers or B bools."""
    data = I if name in _INTEGER_ONLY else B if name in _BOOL_ONLY else X
    arity = len(inspect.signature(fn).parameters)
    return ((data,) * arity, {})


for _name in li.__all__:
    _fn = getattr(li, _name)
    if _name in VALID or _name in _SKIPPED or not inspect.isfunction(_fn):
        continue
    VALID[_name] = _elementwise(_name, _fn)


# -- wrong values, by the role a parameter plays ---------------------------------------------
# Each role maps (the parameter, its valid value) to [(bad value, must it raise?)].

_NOT_VALUES = ["a", {"a": 1}, object(), [[1, 2], [3]]]  # a str, a dict, an object, ragged
_OTHER_DTYPES = [li.bool, li.int8, li.uint64, li.float16, li.bfloat16, li.float32, li.complex64]


def _none(param) -> list:
    """None must raise unless None is the parameter's default."""
    return [(None, param.default is not None)]


def _array_variants(valid) -> list:
    """Arrays of other dtypes and shapes than `valid` (may be fine for some functions)."""
    if not isinstance(valid, D):
        return []
    value = DATA[valid.name]
    out = [(li.asarray(value.astype(dtype)), False) for dtype in _OTHER_DTYPES]
    shapes = [value.reshape(-1)[0], value.reshape(-1)[:2], np.stack([value, value]), value[:0]]
    return out + [(li.asarray(s), False) for s in shapes]


def _array(param, valid) -> list:
    bad = [(v, True) for v in _NOT_VALUES] + _none(param) + _array_variants(valid)
    return bad + [(v, False) for v in (1, 1.5, True, 1j, 2**70, [1.0, 2.0], np.ones(3))]


def _axis(param, valid) -> list:
    must = [10, -10, 1.5, "a", [[0]], {"a": 1}, HUGE]
    return [(v, True) for v in must] + [(v, False) for v in (None, 0, -1, (0, 1), (0, 0), True)]


def _axes(param, valid) -> list:
    must = [(0, 10), (-10,), 1.5, "ab", (1.5,), {"a": 1}, (HUGE,)]
    may = [(0,), (0, 0), (1, 0), 0, -1, ()]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in may]


def _shape(param, valid) -> list:
    must = [-1, (2, -3), (True, 2), "ab", 2.5, {"a": 1}, (2.0, 3), (HUGE,), (10**10, 10**10)]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in ((), 0, (0, 3), 7)]


def _sizes(param, valid) -> list:
    """A tuple of sizes that is not a shape (tile's repetitions, fftn's s)."""
    must = [(-2,), "ab", 1.5, (1.5,), {"a": 1}, (HUGE,), (True,)]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in ((), (2,), 3)]


def _count(param, valid) -> list:
    """A number of elements or samples: n, num, n_rows."""
    must = [-1, 1.5, "a", True, [3], HUGE]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in (0, 1, 2)]


def _int(param, valid) -> list:
    """An int of any sign and size (an offset, a shift, a power)."""
    must = [1.5, "a", True, [1], {"a": 1}]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in (-1, 0, HUGE, -HUGE)]


def _dtype(param, valid) -> list:
    must = ["float32", object, 3, [li.float32], {"a": 1}, np.ones(2)]
    may = [li.bool, li.int8, li.uint64, li.float16, li.complex64, np.float32]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in may]


def _device(param, valid) -> list:
    return [("gpu", True), (3, True), ("tpu:0", True), (None, False), ("cpu", False)]


def _flag(param, valid) -> list:
    must = ["yes", 2, [True], {"a": 1}, 1.0]
    return [(v, True) for v in must] + _none(param) + [(np.True_, False), (False, False)]


def _number(param, valid) -> list:
    must = ["a", [1.0], {"a": 1}, object()]
    may = [math.inf, -math.inf, math.nan, -1, 0, HUGE, 1j, True, np.float32(2)]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in may]


def _choice(param, valid) -> list:
    return [(v, True) for v in ("bogus", 3, ["left"], {"a": 1})] + _none(param)


def _ord(param, valid) -> list:
    must = ["bogus", ["fro"], {"a": 1}]
    may = [3, 0, -1, math.inf, -math.inf, 1.5, "nuc", True]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in may]


def _arrays(param, valid) -> list:
    """A sequence of arrays (concat, stack)."""
    must = ["a", [], (), [X, "a"], [X, None], {"a": 1}, X, [[1, 2], [3]]]
    may = [[X, I], [X, V], [X, ROW], [X], [B, X]]
    return [(_build(v), True) for v in must] + _none(param) + [(_build(v), False) for v in may]


def _dtype_or_array(param, valid) -> list:
    must = ["float32", None, 3, {"a": 1}, object]
    return [(v, True) for v in must] + [(v, False) for v in (li.float16, _build(X), li.bool)]


def _promotable(param, valid) -> list:
    """result_type's arguments: arrays, dtypes, and (with at least one of those) scalars."""
    must = ["float32", None, {"a": 1}, object, [1]]
    may = [li.float16, _build(X), li.bool, 3, 1.5, 1j, True, 2**70]
    return [(v, True) for v in must] + [(v, False) for v in may]


def _rtol(param, valid) -> list:
    must = ["a", [1.0], {"a": 1}]
    may = [-1.0, 0.0, math.inf, math.nan, 1, _build(V3), _build(X)]
    return [(v, True) for v in must] + _none(param) + [(v, False) for v in may]


def _subscripts(param, valid) -> list:
    """einsum's subscripts for two 3x3 operands."""
    must = [3, None, b"ij,jk", "i,j", "ij,jk->ikl", "ij,jk->ii", "i.j,jk", "ij,jk,kl", "ij->"]
    may = ["ij,jk", "ij,jk->ki", "...,...", "ii,jj->ij", "ij,jk->"]
    return [(v, True) for v in must] + [(v, False) for v in may]


def _pattern(param, valid) -> list:
    """rearrange's pattern for a 3x4 array with p=2."""
    must = [3, None, b"h w -> w h", "h w", "h w -> w", "h h -> h", "(h w -> w h", "h w c -> c"]
    must += ["h (w p) -> p w q", "h (w p) -> p 2 w h", "(h ...) w -> h w"]
    may = ["h (w p) -> (p w h)", "... (w p) -> p ... w", "h (w p) -> h () w 1 p", "h w -> w h"]
    return [(v, True) for v in must] + [(v, False) for v in may]


def _axis_lengths(param, valid) -> list:
    """rearrange's keyword lengths for "h (w p) -> p w h" on a 3x4 array."""
    must = [{"p": -2}, {"p": 3}, {"p": 1.5}, {"p": "a"}, {"p": None}, {"p": True}, {"p": HUGE}]
    must += [{}, {"p": 2, "q": 1}, {"p": 2, "w": 3}, {"p": 2, "h": 4}]
    may = [{"p": 4}, {"p": 1}, {"p": 2, "w": 2}, {"w": 1}, {"p": 0}]
    return [(v, True) for v in must] + [(v, False) for v in may]


def _fill(param, valid) -> list:
    must = ["a", [1.0], {"a": 1}, object(), None, np.ones(2)]
    may = [math.inf, math.nan, -1, HUGE, 1j, True, np.float32(2), _build(X)]
    return [(v, True) for v in must] + [(v, False) for v in may]


ROLES = {
    "x": _array,
    "x1": _array,
    "x2": _array,
    "condition": _array,
    "indices": _array,
    "obj": _array,
    "prepend": _array,
    "append": _array,
    "sorter": _array,
    "min": _number,
    "max": _number,
    "axis": _axis,
    "source": _axis,
    "destination": _axis,
    "axes": _axes,
    "shape": _shape,
    "shapes": _shape,
    "repetitions": _sizes,
    "s": _sizes,
    "n": _count,
    "num": _count,
    "n_rows": _count,
    "n_cols": _count,
    "repeats": _count,
    "k": _int,
    "offset": _int,
    "shift": _int,
    "dtype": _dtype,
    "to": _dtype,
    "type": _dtype_or_array,
    "from_": _dtype_or_array,
    "arrays_and_dtypes": _promotable,
    "device": _device,
    "copy": _flag,
    "keepdims": _flag,
    "descending": _flag,
    "stable": _flag,
    "include_initial": _flag,
    "endpoint": _flag,
    "invert": _flag,
    "upper": _flag,
    "full_matrices": _flag,
    "analyze": _flag,
    "start": _number,
    "stop": _number,
    "step": _number,
    "correction": _number,
    "d": _number,
    "fill_value": _fill,
    "rtol": _rtol,
    "side": _choice,
    "indexing": _choice,
    "norm": _choice,
    "mode": _choice,
    "kind": _choice,
    "ord": _ord,
    "arrays": _arrays,
    "operands": _array,
    "subscripts": _subscripts,
    "pattern": _pattern,
    "axis_lengths": _axis_lengths,
}
# Parameters whose name means something else in one function.
ROLE_OF = {
    ("diff", "n"): _int,
    ("linalg.matrix_power", "n"): _int,
    ("permute_dims", "axes"): _sizes,
    ("tensordot", "axes"): _int,
    ("linalg.tensordot", "axes"): _int,
    ("reshape", "shape"): _sizes,
    ("broadcast_arrays", "arrays"): _array,
    ("meshgrid", "arrays"): _array,
    ("compute", "arrays"): _array,
    ("explain", "arrays"): _array,
    ("explain", "format"): _choice,
    ("graph", "arrays"): _array,
    ("to_dot", "arrays"): _array,
    ("isdtype", "dtype"): _dtype_or_array,
    ("linalg.matrix_norm", "ord"): _choice,
}


# -- running one bad call -----------------------------------------------------------------------


def _cases(name: str):
    """(parameter, bad value, must raise, args, kwargs) for every bad value of every parameter."""
    fn = _function(name)
    signature = inspect.signature(fn)
    args, kwargs = VALID[name]
    for param in signature.parameters.values():
        role = ROLE_OF.get((name, param.name), ROLES.get(param.name))
        assert role is not None, f"{name}: no role for parameter {param.name!r}"
        bound = signature.bind(*args, **kwargs)
        valid = bound.arguments.get(param.name)
        if param.kind is param.VAR_POSITIONAL:
            valid = valid[0] if valid else None
        for value, must in role(param, valid):
            yield param, value, must, bound


def _call(name: str, param, value, bound):
    arguments = {k: _build(v) for k, v in bound.arguments.items()}
    if param.kind is param.VAR_POSITIONAL:
        arguments[param.name] = (value, *arguments.get(param.name, ())[1:])
    else:
        arguments[param.name] = value
    bound = inspect.BoundArguments(bound.signature, arguments)
    return _function(name)(*bound.args, **bound.kwargs)


def _arrays_in(result) -> list:
    if isinstance(result, li.Array):
        return [result]
    if isinstance(result, tuple):
        return [a for item in result for a in _arrays_in(item)]
    return []


def _check(name: str, param, value, must: bool, bound) -> str | None:
    """What is wrong with calling `name` with `value` for `param`; None if nothing."""
    short = name.rpartition(".")[2]
    what = f"{name}({param.name}={value!r:.40})"
    before = (li.inspect.counters.materializations, li.inspect.counters.implicit_materializations)
    try:
        result = _call(name, param, value, bound)
    except ALLOWED as exc:
        after = (
            li.inspect.counters.materializations,
            li.inspect.counters.implicit_materializations,
        )
        if after != before:
            return f"{what}: computed something before raising {exc!r}"
        if not str(exc).startswith(f"{short}: "):
            return f"{what}: message does not start with '{short}: ': {exc!r}"
        return None
    except Exception as exc:  # noqa: BLE001 (the catalogue reports every other kind)
        return f"{what}: raised {type(exc).__name__} ({exc})"
    if must:
        return f"{what}: accepted"
    try:
        li.compute(*_arrays_in(result))
    except Exception as exc:  # noqa: BLE001
        return f"{what}: accepted, then computing it raised {type(exc).__name__} ({exc})"
    return None


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_call_works(name):
    args, kwargs = VALID[name]
    result = _function(name)(*_build(args), **{k: _build(v) for k, v in kwargs.items()})
    li.compute(*_arrays_in(result))


def _problems(name: str, params) -> list[str]:
    with np.errstate(all="ignore"):
        found = [_check(name, *case) for case in _cases(name) if case[0].name in params]
    return [p for p in found if p is not None]


@pytest.mark.parametrize("name", sorted(VALID))
def test_bad_arguments_raise_at_the_call_naming_the_function(name):
    params = inspect.signature(_function(name)).parameters
    problems = _problems(name, set(params))
    assert not problems, "\n".join(problems)


def test_the_catalogue_covers_every_public_function():
    public = {n for n in li.__all__ if inspect.isfunction(getattr(li, n))}
    public |= {f"linalg.{n}" for n in li.linalg.__all__}
    public |= {f"fft.{n}" for n in li.fft.__all__}
    assert sorted(public - set(VALID) - _SKIPPED) == []


# -- what issue 8 found, and the calls the catalogue above does not make ---------------------


def _setitem(key, value):
    y = li.asarray(np.zeros(3))
    y[key] = value


_x = li.asarray(np.ones((2, 3)))
_info = li.__array_namespace_info__()
# (id, call, exception, the function its message starts with)
CALLS = [
    ("ragged asarray", lambda: li.asarray([[1, 2], [3]]), ValueError, "asarray"),
    ("ones_like of a str", lambda: li.ones_like("a"), TypeError, "ones_like"),
    ("arange to inf", lambda: li.arange(0, float("inf")), ValueError, "arange"),
    ("arange of nan", lambda: li.arange(float("nan")), ValueError, "arange"),
    ("arange too long", lambda: li.arange(0, HUGE), ValueError, "arange"),
    ("setitem out of bounds", lambda: _setitem(5, 1.0), IndexError, "__setitem__"),
    ("setitem float slice", lambda: _setitem(slice(0.5, None), 1.0), IndexError, "__setitem__"),
    ("setitem str key", lambda: _setitem("a", 1.0), IndexError, "__setitem__"),
    ("setitem ragged key", lambda: _setitem([[0, 1], [2]], 1.0), IndexError, "__setitem__"),
    ("setitem str value", lambda: _setitem(0, "a"), TypeError, "__setitem__"),
    ("setitem None value", lambda: _setitem(0, None), TypeError, "__setitem__"),
    ("setitem step 0", lambda: _setitem(slice(None, None, 0), 1.0), ValueError, "__setitem__"),
    ("bool in a shape", lambda: li.zeros((True, 2)), TypeError, "zeros"),
    ("bool in a reshape", lambda: li.reshape(_x, (True, 6)), TypeError, "reshape"),
    ("array as dtype", lambda: li.zeros(3, dtype=np.ones(2)), TypeError, "zeros"),
    ("getitem float slice", lambda: _x[1.5:], IndexError, "__getitem__"),
    ("getitem ragged list", lambda: _x[[[0, 1], [1]]], IndexError, "__getitem__"),
    ("getitem float list", lambda: _x[[0.5]], IndexError, "__getitem__"),
    ("complex scalar in atan2", lambda: li.atan2(_x, 1j), TypeError, "atan2"),
    (
        "float scalar in bitwise",
        lambda: li.bitwise_and(li.asarray([1]), 1.5),
        TypeError,
        "bitwise_and",
    ),
    ("to_device", lambda: _x.to_device("gpu"), ValueError, "to_device"),
    (
        "api_version",
        lambda: _x.__array_namespace__(api_version="1999.1"),
        ValueError,
        "__array_namespace__",
    ),
    ("options flag", lambda: li.options(fuse="yes").__enter__(), TypeError, "options"),
    ("options level", lambda: li.options(debug=-1).__enter__(), ValueError, "options"),
    ("set_options size", lambda: li.set_options(pool_bytes="1GB"), ValueError, "set_options"),
    ("set_options name", lambda: li.set_options(fusion=False), TypeError, "set_options"),
    ("info kind", lambda: _info.dtypes(kind="bogus"), ValueError, "dtypes"),
    ("info device", lambda: _info.default_dtypes(device="gpu"), ValueError, "default_dtypes"),
    ("visualize nothing", lambda: li.visualize("g.svg"), TypeError, "visualize"),
    ("visualize a str", lambda: li.visualize(_x, filename=3), TypeError, "visualize"),
    (
        "visualize two names",
        lambda: li.visualize(_x, "a.svg", filename="b.svg"),
        TypeError,
        "visualize",
    ),
    ("explain a list", lambda: li.explain([1.0]), TypeError, "explain"),
    ("explain as svg", lambda: li.explain(_x, format="svg"), ValueError, "explain"),
    ("report nothing", lambda: li.report("r.html"), TypeError, "report"),
    ("report a list", lambda: li.report([1.0], "r.html"), TypeError, "report"),
    ("report two names", lambda: li.report(_x, "a.html", path="b.html"), TypeError, "report"),
]


@pytest.mark.parametrize("call, exc, func", [c[1:] for c in CALLS], ids=[c[0] for c in CALLS])
def test_bad_call_raises_at_the_call_naming_the_function(call, exc, func):
    before = li.inspect.counters.snapshot()
    with pytest.raises(exc) as info:
        call()
    assert str(info.value).startswith(f"{func}: "), str(info.value)
    assert li.inspect.counters.snapshot() == before
