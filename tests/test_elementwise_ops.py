"""An element-wise op is declared once (_api/elementwise.py) and reaches every table it needs.

For every elementwise `Op`: one namespace function declares it; the C dialect computes it for
some dtype (a row of _render/c.py, or numpy's own loop borrowed) and so does the CUDA dialect,
or the op is listed below with the reason it has neither; numpy's function for it (`np.exp(x)`,
`np.clip(x, ...)`, `np.astype(x, ...)`) records it lazily on Arrays, without computing or
warning. A row forgotten in any table fails here. (Every op's row in _runtime/ufuncs.py, which
every host device runs, is tests/test_architecture.py's.)
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini import _numpy_ufuncs
from lazyinfini._api.elementwise import DECLARED
from lazyinfini._graph import Op
from lazyinfini._render import c, cuda
from lazyinfini._render.elementwise import unsupported as c_unsupported
from tests.render.programs import elementwise_kernel, op_programs

ELEMENTWISE = [op for op in Op if op.is_elementwise]
# Ops with no C and no CUDA form, and why: the numpy path (cpu) and CuPy (cuda) compute them.
NO_COMPILED_FORM = {
    Op.CONJ: "complex input only, and the C dialects have no complex dtype",
    Op.COMPLEX: "complex result only, and the C dialects have no complex dtype",
}


def _written_through_real(z: li.Array) -> li.Array:
    z.real[...] = 2.0
    return z


# Ops no namespace function declares, and how a program records each.
INTERNAL = {Op.COMPLEX: _written_through_real}  # NOTE: a write through numpy's z.real view
# numpy's function computing an op that is not the ufunc of the declared function's name.
NUMPY_CALLS = {
    Op.ASTYPE: lambda x: np.astype(x, np.float32),
    Op.CLIP: lambda x: np.clip(x, 0, 1),
    Op.WHERE: lambda x: np.where(x > 0, x, x),
    Op.ROUND: np.round,
    **INTERNAL,
}


@functools.cache
def compiled_forms() -> dict[Op, tuple[bool, bool]]:
    """op -> (whether C renders some kernel of it, whether CUDA does), over every dtype."""
    forms = {}
    for _, dtype, program, op in op_programs():
        x = li.asarray(np.zeros((3,), dtype))
        kernel = elementwise_kernel(program(x, x))
        has_c, has_cuda = forms.get(op, (False, False))
        if kernel is not None:
            has_c = has_c or c_unsupported(kernel) is None
            has_cuda = has_cuda or cuda.unsupported(kernel) is None
        forms[op] = (has_c, has_cuda)
    return forms


def test_every_elementwise_op_is_declared_once():
    ops = [d.op for d in DECLARED.values() if d.op is not None]
    assert len(ops) == len(set(ops)), "an op declared twice"
    # NOTE: li.astype (_api/data_types.py) records the cast, of any dtype to any other.
    assert set(ELEMENTWISE) - set(ops) == {Op.ASTYPE, *INTERNAL}
    assert all(d.function.__name__ == name for name, d in DECLARED.items())


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.label)
def test_every_elementwise_op_has_a_c_and_a_cuda_form(op):
    if op in NO_COMPILED_FORM:
        z = li.asarray(np.ones((3,), np.complex64))
        recorded = INTERNAL[op](z) if op in INTERNAL else getattr(li, op.label)(z)
        (kernel,) = li.inspect.schedule(recorded + 0).kernels
        assert "complex64" in c_unsupported(kernel) and "complex64" in cuda.unsupported(kernel)
        return
    has_c, has_cuda = compiled_forms()[op]
    assert has_c, f"{op.label}: no C row (c.py's tables), not borrowed (c.BORROWED), no reason"
    assert has_cuda, f"{op.label}: no CUDA row (cuda.py's CUDA.rows or c.py's tables)"


def test_the_ops_c_borrows_are_numpys_ufuncs():
    for op, name in c.BORROWED.items():
        assert isinstance(getattr(np, name), np.ufunc), (op, name)


def _inputs(op: Op) -> list[li.Array]:
    """Pending arrays (so laziness shows) of the first dtype the op takes."""
    if op in NO_COMPILED_FORM:
        dtype = np.dtype(np.complex64)
    else:
        dtype = next(d for _, d, _, o in op_programs() if o is op)
    value = np.ones((2, 3), dtype)
    arity = 1 if op in NUMPY_CALLS else op.arity
    return [li.asarray(value) * li.asarray(value) for _ in range(arity)]


def _numpy_call(op: Op):
    if op in NUMPY_CALLS:
        return NUMPY_CALLS[op]
    (name,) = [n for n, d in DECLARED.items() if d.op is op]
    return getattr(np, name)


@pytest.mark.parametrize("op", ELEMENTWISE, ids=lambda op: op.label)
def test_numpys_function_for_every_op_records_it_lazily(op):
    inputs = _inputs(op)
    before = li.inspect.counters.snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("error", li.NumpyFallbackWarning)
        result = _numpy_call(op)(*inputs)
    assert li.inspect.counters.snapshot() == before, "computed"
    assert isinstance(result, li.Array), type(result)
    assert result._node.op is op


def test_every_namespace_function_that_is_a_numpy_ufunc_is_its_twin():
    """np.<name>(x) records li.<name> for every name both have as a ufunc and a function (the
    table is read from the declarations: nothing to forget)."""
    for name in li.__all__:
        ufunc = getattr(np, name, None)
        function = getattr(li, name)
        if isinstance(ufunc, np.ufunc) and callable(function):
            function = getattr(function, "__wrapped__", function)  # numpy's names: li.absolute
            # np.floor_divide's twin gives numpy's special values: it wraps li.floor_divide
            assert inspect.unwrap(_numpy_ufuncs.TWINS.get(ufunc)) is function, name
