"""x[mask] = value with a boolean mask of x's whole shape and one value is the select
where(mask, value, x): recorded lazily (nothing computes the mask to find its True positions),
fused with the mask's computation, and numpy's result bit for bit, through views too."""

import ml_dtypes
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import lazyinfini as li
from lazyinfini._schedule import Kind

DTYPES = [np.float64, np.float32, np.float16, np.int32, np.uint8, np.complex64, np.bool_]


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    x = draw(arrays(dtype, shape))
    mask = draw(arrays(np.bool_, shape))
    value = draw(st.sampled_from([0, 1, True, -0.0, 2.5, float("nan")]))
    return x, mask, value


def _fits(value, dtype) -> bool:
    """Whether a Python value may be written into an array of `dtype` (the standard's rule)."""
    kind = np.dtype(dtype).kind
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return kind != "b"
    return kind in "fc"


@settings(max_examples=150, deadline=None)
@given(cases(), st.booleans(), st.booleans())
def test_a_masked_fill_is_numpys_without_computing_the_mask(case, as_numpy, pending_mask):
    x, mask, value = case
    if not _fits(value, x.dtype):
        return
    expected = x.copy()
    expected[mask] = value
    y = li.asarray(x)
    key = mask if as_numpy else li.asarray(mask)
    if pending_mask and not as_numpy:
        key = li.logical_not(li.asarray(~mask))
    before = li.inspect.counters.snapshot()
    y[key] = value
    assert li.inspect.counters.materializations == before["materializations"]
    got = np.asarray(y)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def test_the_fill_fuses_with_the_mask_and_the_copy():
    data = np.linspace(-3, 3, 1 << 17).reshape(256, 512)
    cleaned = li.asarray(data).copy()
    cleaned[li.abs(cleaned) > 2.0] = 0.0
    kernels = li.inspect.schedule(cleaned).kernels
    assert [k.kind for k in kernels] == [Kind.ELEMENTWISE], kernels
    expected = data.copy()
    expected[np.abs(expected) > 2.0] = 0.0
    assert np.asarray(cleaned).tobytes() == expected.tobytes()


def test_through_a_view_the_base_sees_the_fill():
    base = np.arange(12.0).reshape(3, 4) - 5
    x = li.asarray(base.copy())
    rows = x[1:]
    before = li.inspect.counters.materializations
    flags = x > 0
    rows[flags[1:]] = -1.0  # NOTE: a view of another array as the mask: still a select
    assert li.inspect.counters.materializations == before
    expected = base.copy()
    view = expected[1:]
    view[view > 0] = -1.0
    assert np.asarray(x).tobytes() == expected.tobytes()
    assert np.asarray(rows).tobytes() == view.tobytes()


def test_other_masks_and_values_take_the_general_path():
    x = np.arange(6.0).reshape(2, 3)
    y = li.asarray(x)
    y[li.asarray([True, False])] = 9.0  # a mask of the leading axis only
    z = li.asarray(x)
    z[li.asarray(x > 2)] = li.asarray([7.0, 8.0, 9.0])  # one value per True position
    expected_y, expected_z = x.copy(), x.copy()
    expected_y[np.array([True, False])] = 9.0
    expected_z[x > 2] = [7.0, 8.0, 9.0]
    np.testing.assert_array_equal(np.asarray(y), expected_y)
    np.testing.assert_array_equal(np.asarray(z), expected_z)
    w = li.asarray(np.arange(3))
    w[li.asarray(np.array([True, False, True]))] = 2.5  # a float into an int array truncates
    assert np.asarray(w).tolist() == [2, 1, 2]
    half = li.asarray(np.ones(3, ml_dtypes.bfloat16))
    half[li.asarray(np.array([True, False, True]))] = 0.5
    assert np.asarray(half).astype(np.float32).tolist() == [0.5, 1.0, 0.5]
