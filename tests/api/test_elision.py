"""numpy's temporary elision (_api/elision.py): `np.exp(x.T) + z` is computed into the
temporary's memory, so it is laid out as the temporary (F-ordered), not by a ufunc's rule (C
order where operands disagree), and its sums add so. Every expression is compared with numpy's
own, on this machine: where numpy elides nothing, neither does lazyinfini."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li

RNG = np.random.default_rng(23)
A = RNG.standard_normal((300, 400))  # NOTE: 937.5 KiB a value: past numpy's 256 KiB
Z = RNG.standard_normal((400, 300))
ZI = RNG.integers(1, 5, (400, 300))
SMALL = RNG.standard_normal((40, 30))

EXPRESSIONS = [
    "np.exp(a.T) + z",
    "z + np.exp(a.T)",
    "np.exp(a.T) - z",
    "z - np.exp(a.T)",
    "np.exp(a.T) * z",
    "z * np.exp(a.T)",
    "np.exp(a.T) / z",
    "z / np.exp(a.T)",
    "np.exp(a.T) // z",
    "np.exp(a.T) % z",
    "np.exp(a.T) ** 2 + z",
    "(a.T * 2) + zi",
    "(a.T > 0) & (z > 0)",
    "(a.T > 0) | (z > 0)",
    "(zi.T.T * 3).T.T << zi",
    "np.copy(np.exp(a.T)) + z",
    "np.exp(a.T)[...] + z",
    "np.exp(a.T).reshape(400, 300) + z",
    "a.T + z",
    "(a.T * 1).astype(np.float32) + z",
    "np.exp(a[:100].T) + z[:, :100]",
    "np.exp(small.T) + small.T.copy()",
]


def _evaluated(expression: str, xp_arrays: dict):
    return eval(expression, {"np": np}, xp_arrays)  # noqa: S307 (the expressions above)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_an_operators_temporary_is_laid_out_as_numpys(expression):
    arrays = {"a": A, "z": Z, "zi": ZI, "small": SMALL}
    expected = _evaluated(expression, arrays)
    lazy = {name: li.asarray(value) for name, value in arrays.items()}
    for device, fuse in (("cpu", True), ("cpu", False), ("reference", True)):
        with li.options(device=device, fuse=fuse):
            got = _evaluated(expression, lazy)
            for axis in (0, 1):
                np.testing.assert_array_equal(
                    np.asarray(np.sum(got, axis=axis)),
                    np.sum(expected, axis=axis),
                    err_msg=f"{device} fuse={fuse} axis={axis}",
                )


def test_a_named_array_is_no_temporary():
    t = np.exp(A.T)
    expected = t + Z  # NOTE: C-ordered: t is referenced by its name
    lazy_t = np.exp(li.asarray(A).T)
    got = lazy_t + li.asarray(Z)
    for axis in (0, 1):
        np.testing.assert_array_equal(
            np.asarray(np.sum(got, axis=axis)), np.sum(expected, axis=axis)
        )


def test_the_fuzzed_program_of_seed_20315():
    # the numpy-programs fuzz at 512K elements: ones_like(a, order="F") + a is computed into
    # the F-ordered ones (numpy's elision), and a mean over axis 0 adds down its columns
    a = np.random.default_rng(5).standard_normal((17480, 6, 5))

    def program(x):
        y = np.ones_like(x, order="F") + x
        return y - y.mean(axis=0)

    got = np.asarray(program(li.asarray(a)))
    np.testing.assert_array_equal(got, program(a))
