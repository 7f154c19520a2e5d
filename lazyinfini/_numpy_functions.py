"""numpy's functions on Arrays (NEP 18, `__array_function__`): lazy twins, else numpy itself.

`np.mean(x)`, `np.concatenate([x, y])`, `np.clip(x, 0, 1)` ... called with lazyinfini arrays
reach `array_function`, and the ndarray methods that are numpy functions (`x.clip(0, 1)`) reach
`call` (_methods.py), which passes:

1. **bind**: numpy's own signature binds the call (numpy's TypeError for a wrong call) and
   takes `out=` aside; a call passing what the twin takes by the same positions and names
   goes to it directly (`_DIRECT`, without binding twice);
2. **twin**: the function's lazy twin (`_numpy_twins.TWINS`) records it with the namespace
   functions; a twin that lacks a parameter the call gives, or meets a case it cannot record,
   hands the call to step 3;
3. **fallback**: otherwise the Array arguments are computed and numpy's implementation runs on
   their values; ndarray results come back as Arrays. The first fallback of each function warns
   (`NumpyFallbackWarning`); every fallback counts in `li.inspect.counters.numpy_fallbacks`;
4. **out**: an Array `out` is rebound to the result, an ndarray `out` receives its value.

Spec: https://numpy.org/neps/nep-0018-array-function-protocol.html
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings

import numpy as np

from . import _dtypes, _realize
from ._api.creation import asarray
from ._api.data_types import astype
from ._api.implicit import host_view
from ._api.placement import owner_among
from ._array import Array
from ._counters import counters
from ._numpy_twins import OUT_CASTING, TWINS
from ._numpy_twins.arguments import Fallback
from ._numpy_twins.quick import QUICK
from ._options import current, options


class NumpyFallbackWarning(UserWarning):
    """A numpy function had no lazy form for a call: its Array inputs were computed and numpy
    ran it. Warned once per function; counted in li.inspect.counters.numpy_fallbacks."""


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_WARNED: set[str] = set()  # the functions that warned already (warn once per function)
_SIGNATURES: dict = {}


def array_function(func, types, args: tuple, kwargs: dict):
    """Array.__array_function__: the twin's lazy result, or numpy's on computed values."""
    # Note (NEP 18): a type we do not know may implement the function itself; let numpy ask it.
    for kind in types:  # NOTE: a loop, not a generator: every numpy function call asks
        if kind is not Array and not issubclass(kind, (Array, np.ndarray)):
            return NotImplemented
    return call(func, args, kwargs)


def call(func, args: tuple, kwargs: dict):
    """numpy's `func(*args, **kwargs)` on Arrays: its twin's lazy result, or numpy's on
    computed values. ndarray's methods call this too (`x.clip(0, 1)` is `np.clip(x, 0, 1)`).
    Where the Arrays live on a device of a memory of its own (a GPU), what the call converts
    (lists, scalars, ndarrays) and numpy's results go there too: numpy's functions take any
    array-like, and the computation follows the data."""
    quick = QUICK.get(func)  # NOTE: np.sum(x, axis=1) of a float array: its node, directly
    if quick is not None and (result := quick(args, kwargs)) is not None:
        return result  # NOTE: on any device: the node records no value (no fill, no list)
    owner = owner_among((*args, *kwargs.values()) if kwargs else args)
    if owner is not None and owner.name != current().device:
        with options(device=owner.name):
            return _call(func, args, kwargs)
    return _call(func, args, kwargs)


def _call(func, args: tuple, kwargs: dict):
    twin = TWINS.get(func)
    if twin is None:
        return fallback(func, args, kwargs, "no lazy form")
    try:
        direct = _DIRECT.get(func)
        if direct is None:
            direct = _DIRECT[func] = _direct_calls(func, twin)
        positions, names = direct
        if len(args) <= positions and names.issuperset(kwargs):
            return twin(*args, **kwargs)
        return _call_twin(func, twin, args, kwargs)
    except Fallback as reason:
        return fallback(func, args, kwargs, str(reason))


# NOTE: binding numpy's signature and then the twin's costs ~15 us a call; most calls (np.sum(x,
# axis=0), x.clip(0, 1)) pass what the twin takes by the same positions and names, and go to it
# directly. func -> (how many leading positions both share, the keywords both take alike).
_DIRECT: dict = {}
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _direct_calls(func, twin) -> tuple[int, frozenset]:
    """What a call may pass for the twin to take it as numpy's function would: the leading
    positional parameters both have by the same name, and the keywords both accept."""
    numpys, twins = _signature(func), _signature(twin)
    if numpys is None or twins is None:
        return 0, frozenset()
    theirs, ours = list(numpys.parameters.values()), list(twins.parameters.values())
    positions = 0
    for mine, numpys_param in zip(ours, theirs):
        if mine.name != numpys_param.name or not (
            mine.kind in _POSITIONAL and numpys_param.kind in _POSITIONAL
        ):
            break
        positions += 1
    rest = (ours[positions : positions + 1], theirs[positions : positions + 1])
    if all(p and p[0].kind is inspect.Parameter.VAR_POSITIONAL for p in rest):
        positions = sys.maxsize  # NOTE: both take any further positionals alike (*operands)
    return positions, frozenset((_keywords(ours) & _keywords(theirs)) - {"out"})


def _keywords(params) -> set[str]:
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _call_twin(func, twin, args: tuple, kwargs: dict):
    bound = _bind(func, args, kwargs)
    if bound is None:
        return twin(*args, **kwargs)
    out = bound.arguments.pop("out", None)
    try:
        call = _signature(twin).bind(*bound.args, **bound.kwargs)
    except TypeError:
        extra = sorted(set(bound.arguments) - set(_signature(twin).parameters))
        raise Fallback(f"{', '.join(extra) or 'this call'} has no lazy form") from None
    return deliver(func, twin(*call.args, **call.kwargs), out)


def _bind(func, args: tuple, kwargs: dict) -> inspect.BoundArguments | None:
    """numpy's signature bound to the call (numpy's TypeError when it does not bind); None
    where numpy's function shows no signature."""
    signature = _signature(func)
    return None if signature is None else signature.bind(*args, **kwargs)


def _signature(fn) -> inspect.Signature | None:
    if fn not in _SIGNATURES:
        try:
            _SIGNATURES[fn] = inspect.signature(fn)
        except (TypeError, ValueError):
            _SIGNATURES[fn] = None
    return _SIGNATURES[fn]


def function_name(func) -> str:
    """`numpy.mean`, `numpy.linalg.norm`: the name messages and warnings show."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, np.ufunc):  # NOTE: a ufunc's method: numpy.add.at
        return f"numpy.{owner.__name__}.{func.__name__}"
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__name__', repr(func))}"


# -- out= -------------------------------------------------------------------------------------
def deliver(func, result, out):
    """`result`, or `out` holding it: an Array out is rebound to it (lazily), an ndarray out
    receives its computed value. numpy's rules: the result's shape, and func's casting."""
    if out is None:
        return result
    name, casting = function_name(func), OUT_CASTING.get(func, "same_kind")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not isinstance(result, Array):
        raise TypeError(f"{name}: out= takes an array result, and this result is {result!r}")
    if not isinstance(out, (Array, np.ndarray)):
        raise TypeError(f"{name}: out must be an array, got {type(out).__name__}")
    _check_out(name, result, out, casting)
    if isinstance(out, Array):
        out._write((result if result.dtype == out.dtype else astype(result, out.dtype))._n, name)
        return out
    np.copyto(out, result._value(), casting=casting)
    return out


def _check_out(name: str, result: Array, out, casting: str) -> None:
    if out.shape != result.shape:
        raise ValueError(f"{name}: out has shape {out.shape}, the result {result.shape}")
    if not np.can_cast(result.dtype, out.dtype, casting=casting):
        raise TypeError(
            f"{name}: cannot cast the result's {result.dtype} to out's {out.dtype} "
            f"with casting rule {casting!r}"
        )


# -- the fallback -----------------------------------------------------------------------------
def fallback(func, args: tuple, kwargs: dict, reason: str):
    """numpy's implementation run on the computed values of the Array arguments."""
    name = function_name(func)
    _warn_once(name, reason)
    counters.numpy_fallbacks += 1
    args, kwargs, out = _take_array_out(func, args, kwargs)
    arrays = [a for a in _leaves((args, kwargs)) if isinstance(a, Array)]
    implementation = getattr(func, "_implementation", func)
    if _mutates(func) and args and isinstance(args[0], Array):
        _realize.realize(*arrays)
        return _in_place(implementation, args, kwargs)
    values = functools.partial(numpy_values, views=numpys_views(arrays))
    if func in _READS_COPIED:
        result = implementation(*map(_writeable, values(args)), **values(kwargs))
    else:
        result = implementation(*values(args), **values(kwargs))
    if out is not None:
        return deliver(func, _wrap(result, ()), out)
    return _wrap(result, [v for v in _leaves((args, kwargs)) if isinstance(v, np.ndarray)])


# numpy functions that write into their first argument: an Array there is a value, so numpy
# writes into a copy of it and the Array (and its views) is written from that copy.
_MUTATING = frozenset(
    getattr(np, name)
    for name in ("fill_diagonal", "put", "putmask", "place", "copyto", "put_along_axis")
    if hasattr(np, name)
)


def _mutates(func) -> bool:
    """Whether numpy's `func` writes into its first argument: the functions of _MUTATING and a
    ufunc's unbuffered `at` (np.add.at(x, indices, values), a scatter-add)."""
    if func in _MUTATING:
        return True
    return func.__name__ == "at" and isinstance(getattr(func, "__self__", None), np.ufunc)


# numpy functions that copy a read-only input before reading it (multiarray.correlate asks for
# a writeable array), as every computed value is: np.convolve of 2M float64 9.8 -> 2.5 ms given
# a writeable view. They never write into their inputs.
_READS_COPIED = frozenset(getattr(np, name) for name in ("convolve", "correlate"))


def numpys_views(arrays: list) -> dict:
    """id of each Array of `arrays` that views ndarray memory (X.T, X[:, 1:]) -> numpy's view,
    its strides numpy's (a sum adds in them: np.nanmean(X.T, axis=0)), not a copy computed in
    C order; every other Array is computed (one materialization for all)."""
    views = {id(a): v for a in arrays if (v := host_view(a)) is not None}
    _realize.realize(*(a for a in arrays if id(a) not in views))
    return views


def _writeable(value):
    """A writeable view of a read-only ndarray whose memory allows it, else `value`."""
    if not isinstance(value, np.ndarray) or value.flags.writeable:
        return value
    view = value.view()
    try:
        view.flags.writeable = True
    except ValueError:  # NOTE: memory nobody may write (a read-only user array): read as is
        return value
    return view


def _in_place(implementation, args: tuple, kwargs: dict):
    target = args[0]
    written = np.array(target._value())  # NOTE: a writable copy (computed values are read-only)
    result = implementation(written, *numpy_values(args[1:]), **numpy_values(kwargs))
    target[...] = asarray(written)
    return result


def _warn_once(name: str, reason: str) -> None:
    if name in _WARNED:
        return
    _WARNED.add(name)
    message = (
        f"{name} ({reason}): its lazyinfini arguments are computed and numpy runs it; the "
        "result comes back as an array (warned once per function)"
    )
    warnings.warn(message, NumpyFallbackWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The stacklevel naming the first frame outside this package (the user's call)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _take_array_out(func, args: tuple, kwargs: dict):
    """numpy cannot write into an Array (it is a value): an Array `out` is set aside and
    rebound to the result afterwards."""
    bound = _bind(func, args, kwargs) if _has_out(func) else None
    if bound is None or not isinstance(bound.arguments.get("out"), (Array, tuple)):
        return args, kwargs, None
    out = bound.arguments["out"]
    if isinstance(out, tuple) and not any(isinstance(o, Array) for o in out):
        return args, kwargs, None
    del bound.arguments["out"]
    return bound.args, bound.kwargs, out


def _has_out(func) -> bool:
    signature = _signature(func)
    return signature is not None and "out" in signature.parameters


def _leaves(value):
    """The values inside nested tuples, lists and dicts (numpy takes arrays inside them)."""
    if isinstance(value, (tuple, list)):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    else:
        yield value


def numpy_values(value, views=None):
    """`value` with every Array replaced by its (computed) ndarray, or its numpy view where
    `views` (id of the Array -> view) has one, nesting kept."""
    if isinstance(value, Array):
        view = views.get(id(value)) if views else None
        return value._value() if view is None else view
    if isinstance(value, dict):
        return {k: numpy_values(v, views) for k, v in value.items()}
    if isinstance(value, list):
        return [numpy_values(v, views) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(numpy_values(v, views) for v in value)
    return value


def _wrap(result, given: list):
    """ndarrays numpy returns become Arrays, inside tuples and lists too; an ndarray the caller
    gave (numpy wrote into it) comes back as itself; scalars, bools and the rest as they are."""
    if isinstance(result, np.ndarray):
        if any(result is g for g in given):
            return result
        return asarray(result) if _dtypes.is_supported(result.dtype) else result
    if isinstance(result, list):
        return [_wrap(r, given) for r in result]
    if isinstance(result, tuple):
        items = [_wrap(r, given) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    return result
