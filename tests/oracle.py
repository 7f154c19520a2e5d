"""The test oracle: run a lazyinfini program and compare with numpy and the reference executor."""

from __future__ import annotations

import warnings
import weakref

import numpy as np

import lazyinfini as li

# Tolerances of the seed suites (InfiniCore): half formats round once from float32.
TOLERANCE = {
    li.float16: 1e-3,
    li.bfloat16: 1e-2,
    li.float32: 1e-7,
    li.float64: 1e-15,
    li.complex64: 1e-6,
    li.complex128: 1e-14,
}


def assert_close(actual, expected, dtype=None, exact=False):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if dtype is not None:
        assert actual.dtype == dtype, (actual.dtype, dtype)
    if exact or actual.dtype.kind in "biu":
        # NOTE: numpy's NaN-aware equality does not know bfloat16; float32 holds it exactly.
        if actual.dtype == li.bfloat16:
            actual, expected = actual.astype(np.float32), expected.astype(np.float32)
        np.testing.assert_array_equal(actual, expected)
        return
    tol = TOLERANCE.get(actual.dtype, 1e-7)
    # NOTE: complex values compare as complex128: a float64 cast would drop the imaginary part.
    wide = np.complex128 if actual.dtype.kind == "c" or expected.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(
        actual.astype(wide), expected.astype(wide), rtol=tol, atol=tol, equal_nan=True
    )


def track_new_nodes(monkeypatch) -> list:
    """Weak references to every Node created from now on (until the test ends)."""
    from lazyinfini._graph import Node

    created = []
    new = Node.__dict__["__new__"]  # NOTE: Node(...) makes its node in __new__ (slots, frozen)

    def tracking(cls, *args, **kwargs):
        node = new(cls, *args, **kwargs)
        created.append(weakref.ref(node))
        return node

    monkeypatch.setattr(Node, "__new__", tracking)
    # NOTE: the elementwise quick paths make their nodes without __init__ (_graph.quick_node)
    from lazyinfini._api import elementwise, quick, views

    for module in (elementwise, quick, views):
        if hasattr(module, "quick_node"):
            monkeypatch.setattr(module, "quick_node", _tracking(module.quick_node, created))
    # NOTE: and the operators in C (_realize/native_operators.py) record through Python again
    from lazyinfini._array import Array

    for name, method in list(vars(Array).items()):
        if hasattr(method, "__wrapped__") and type(method).__name__ == "Operator":
            monkeypatch.setattr(Array, name, method.__wrapped__)
    return created


def _tracking(make, created: list):
    def tracking(*args):
        node = make(*args)
        created.append(weakref.ref(node))
        return node

    return tracking


def on_executor(fn, inputs, executor: str, fuse: bool = True):
    """fn applied to fresh lazyinfini arrays made from `inputs`, computed on `executor`."""
    with li.options(executor=executor, fuse=fuse):
        out = fn(*[li.asarray(x) for x in inputs])
        return np.asarray(out)


def assert_matches_reference(fn, *inputs, exact=False):
    """Every registered executor, fused and unfused, agrees with the reference executor."""
    from lazyinfini._device import DEVICES

    expected = on_executor(fn, inputs, "reference", fuse=False)
    for name in DEVICES:
        for fuse in (True, False):
            actual = on_executor(fn, inputs, name, fuse=fuse)
            assert_close(actual, expected, expected.dtype, exact=exact)
    return expected


def run_twice(statement: str, names_of) -> tuple[dict, dict]:
    """`statement` run on ndarrays, then on lazyinfini arrays: `names_of(wrap)` makes the names
    it sees (np besides) with np.array or li.asarray. The names after each run."""
    runs = []
    for wrap in (np.array, li.asarray):
        names = {"np": np, **names_of(wrap)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NOTE: numpy's fallbacks warn (once a function)
            exec(statement, names)  # noqa: S102 (a test's own table)
        runs.append(names)
    return runs[0], runs[1]


def check_schedule(*arrays, kernels: int):
    """The schedule computing `arrays` now has exactly `kernels` kernels (excluding none)."""
    plan = li.inspect.schedule(*arrays)
    assert len(plan.kernels) == kernels, li.explain(*arrays)
    return plan


# -- results of a BLAS or LAPACK call ----------------------------------------------------------
# numpy's own value of dot, matmul, tensordot, vdot, inner, einsum and linalg depends on the
# kernel its BLAS picks for the CPU (its summation order): a lazy lowering of the same call can
# differ in the last bits on one machine and not on another. These compare within the error
# bound of the computation instead of bit for bit.


def assert_within_sum_bound(actual, expected, magnitude, terms: int) -> None:
    """`actual` and `expected` are sums of `terms` products computed in two orders: each is
    within terms * u * magnitude of the exact sum (Higham's bound for a sum of products, u the
    unit roundoff), where `magnitude` is the same sums of the products' absolute values (the
    function on |inputs|). Where the magnitude overflows, the order decides (nothing is
    compared there)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, (actual, expected)
    if actual.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
        return
    info = np.finfo(actual.dtype)
    bound = 2 * (terms + 1) * info.eps * np.abs(np.asarray(magnitude, np.float64)) + info.tiny
    known = np.isfinite(bound)  # NOTE: a NaN input makes the magnitude NaN too
    wide = np.complex128 if actual.dtype.kind == "c" else np.float64
    error = np.abs(actual.astype(wide) - expected.astype(wide))
    bad = known & ~(error <= bound)  # NOTE: a NaN where the bound is known is past it
    assert not bad.any(), f"{error[bad]} past the bound {bound[bad]} (of {actual}, {expected})"


def assert_within_normwise_bound(actual, expected, size: int, condition: float = 1.0) -> None:
    """`actual` and `expected` are results of one backward-stable LAPACK computation on an
    n x n problem (`size` n) run twice: within c * n * u * condition of the largest value."""
    if isinstance(expected, (tuple, list)):
        for one, other in zip(actual, expected, strict=True):
            assert_within_normwise_bound(one, other, size, condition)
        return
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, (actual, expected)
    scale = float(np.max(np.abs(expected), initial=0.0))
    tol = 16 * size * np.finfo(actual.dtype).eps * condition * max(scale, 1.0)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=tol)
