"""The fft extension against array_api_compat.numpy: shapes, dtypes (complex64 for float32, real
outputs for irfft/hfft), norms, frequencies and shifts; one FFT node per transform."""

from __future__ import annotations

import array_api_compat.numpy as xp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import lazyinfini as li
from tests.oracle import assert_matches_reference, check_schedule

NORMS = st.sampled_from(("backward", "ortho", "forward"))
COMPLEX_OF = {np.float32: np.complex64, np.float64: np.complex128}
REAL_OF = {np.complex64: np.float32, np.complex128: np.float64}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def check(got, expected, dtype):
    got = np.asarray(got)
    assert got.shape == expected.shape and got.dtype == dtype, (
        got.shape,
        got.dtype,
        expected.shape,
    )
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(got, expected.astype(dtype), rtol=tol, atol=tol * max(1, got.size))


ONE_AXIS = {  # name: (input kind, output kind, n default from M)
    "fft": ("complex", "complex"),
    "ifft": ("complex", "complex"),
    "rfft": ("real", "complex"),
    "irfft": ("complex", "real"),
    "hfft": ("complex", "real"),
    "ihfft": ("real", "complex"),
}


@settings(max_examples=40)
@given(st.data())
def test_one_axis_transforms_match_array_api_compat(data):
    name = data.draw(st.sampled_from(sorted(ONE_AXIS)), "name")
    kind_in, kind_out = ONE_AXIS[name]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=5), "shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    n = data.draw(st.none() | st.integers(1, 7), "n")
    norm = data.draw(NORMS, "norm")
    real = data.draw(st.sampled_from((np.float32, np.float64)), "precision")
    dtype = real if kind_in == "real" else COMPLEX_OF[real]
    x = rand(shape, dtype)
    got = assert_matches_reference(lambda a: getattr(li.fft, name)(a, n=n, axis=axis, norm=norm), x)
    expected = getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)
    check(got, expected, real if kind_out == "real" else COMPLEX_OF[real])


@settings(max_examples=40)
@given(st.data())
def test_n_axes_transforms_match_array_api_compat(data):
    name = data.draw(st.sampled_from(("fftn", "ifftn", "rfftn", "irfftn")), "name")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4), "shape")
    axes = data.draw(
        st.none()
        | st.permutations(range(len(shape))).flatmap(
            lambda p: st.integers(1, len(p)).map(lambda k: tuple(p[:k]))
        ),
        "axes",
    )
    s = None
    if axes is not None and data.draw(st.booleans(), "with s"):
        s = tuple(data.draw(st.integers(2, 5), f"s{i}") for i in range(len(axes)))
    norm = data.draw(NORMS, "norm")
    real = data.draw(st.sampled_from((np.float32, np.float64)), "precision")
    dtype = real if name == "rfftn" else COMPLEX_OF[real]
    x = rand(shape, dtype)
    got = assert_matches_reference(lambda a: getattr(li.fft, name)(a, s=s, axes=axes, norm=norm), x)
    expected = getattr(xp.fft, name)(x, s=s, axes=axes, norm=norm)
    check(got, expected, real if name == "irfftn" else COMPLEX_OF[real])


def test_minus_one_in_s_keeps_the_input_size():
    x = rand((3, 4), np.complex128)
    check(
        li.fft.fftn(li.asarray(x), s=(-1, 6), axes=(0, 1)), np.fft.fftn(x, s=(3, 6)), np.complex128
    )


@pytest.mark.parametrize("real", (np.float32, np.float64))
def test_real_input_to_a_complex_transform_is_cast(real):
    x = rand((5,), real)
    got = li.fft.fft(li.asarray(x))
    assert got.dtype == COMPLEX_OF[real]  # Note (spec): complex64 for float32 input
    check(got, np.fft.fft(x), COMPLEX_OF[real])
    back = li.fft.irfft(li.fft.rfft(li.asarray(x)), n=5)
    check(back, x, real)


@given(st.integers(1, 12), st.floats(0.01, 10), st.sampled_from((None, li.float32, li.float64)))
def test_frequencies_match_numpy(n, d, dtype):
    expected_dtype = dtype or li.float64
    got = assert_matches_reference(lambda: li.fft.fftfreq(n, d=d, dtype=dtype))
    check(got, np.fft.fftfreq(n, d=d), expected_dtype)
    got = assert_matches_reference(lambda: li.fft.rfftfreq(n, d=d, dtype=dtype))
    check(got, np.fft.rfftfreq(n, d=d), expected_dtype)


def test_frequencies_are_one_source_and_one_fused_kernel():
    check_schedule(li.fft.fftfreq(8), kernels=2)


@given(st.data())
def test_shifts_match_numpy(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), "shape")
    axes = data.draw(
        st.none()
        | st.integers(-len(shape), len(shape) - 1)
        | st.permutations(range(len(shape))).map(tuple),
        "axes",
    )
    x = rand(shape, np.float64)
    got = assert_matches_reference(lambda a: li.fft.fftshift(a, axes=axes), x)
    np.testing.assert_array_equal(got, np.fft.fftshift(x, axes=axes))
    got = assert_matches_reference(lambda a: li.fft.ifftshift(a, axes=axes), x)
    np.testing.assert_array_equal(got, np.fft.ifftshift(x, axes=axes))


def test_recording_runs_nothing():
    x = li.asarray(rand((4, 6), np.complex64))
    before = li.inspect.counters.kernels
    ys = [
        li.fft.fft(x),
        li.fft.ifftn(x),
        li.fft.irfft(x),
        li.fft.hfft(x),
        li.fft.fftshift(x),
        li.fft.rfft(li.fft.irfft(x)),
        li.fft.fftfreq(5),
        li.fft.rfftfreq(5),
    ]
    assert li.inspect.counters.kernels == before
    assert all(y._node.op.label != "buffer" for y in ys)
    assert ys[0]._node.arg == (("_function", "fft"), ("axis", 1), ("n", 6), ("norm", "backward"))


def test_fft_errors_name_the_function():
    x = li.asarray(rand((4,), np.float64))
    z = li.asarray(rand((4,), np.complex128))
    with pytest.raises(TypeError, match="^rfft: "):
        li.fft.rfft(z)
    with pytest.raises(TypeError, match="^fft: "):
        li.fft.fft(li.ones(3, dtype=li.int32))
    with pytest.raises(ValueError, match="^fft: "):
        li.fft.fft(x, norm="none")
    with pytest.raises(ValueError, match="^ifft: "):
        li.fft.ifft(x, n=0)
    with pytest.raises(IndexError, match="^hfft: "):
        li.fft.hfft(x, axis=1)
    with pytest.raises(ValueError, match="^irfft: "):
        li.fft.irfft(li.asarray(rand((1,), np.complex128)))  # default n = 2*(1-1) = 0
    with pytest.raises(ValueError, match="^fftn: "):
        li.fft.fftn(z, s=(2, 2), axes=(0,))
    with pytest.raises(TypeError, match="^fftfreq: "):
        li.fft.fftfreq(4, dtype=li.int32)
    with pytest.raises(ValueError, match="^rfftfreq: "):
        li.fft.rfftfreq(0)
