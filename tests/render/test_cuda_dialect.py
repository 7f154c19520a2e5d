"""The CUDA dialect's table, and NVRTC's absence: pure checks, no compiler needed."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._graph import Op
from lazyinfini._render import c, cuda, nvrtc
from lazyinfini._render.elementwise import unsupported as c_unsupported
from tests.render.programs import COMPLEX_ONLY, elementwise_kernel, op_programs


def test_every_op_has_a_cuda_kernel_where_c_has_one():
    """Every elementwise op reaches CUDA with some dtype, and a kernel the C dialect renders
    the CUDA dialect renders too (CUDA adds saturating float -> integer casts)."""
    covered = {op for _, _, _, op in op_programs()}
    assert covered == {o for o in Op if o.group.value == "elementwise"} - COMPLEX_ONLY
    for name, dtype, program, _ in op_programs():
        x = li.asarray(np.zeros((3,), dtype))
        kernel = elementwise_kernel(program(x, x))
        if kernel is not None and c_unsupported(kernel) is None:
            assert cuda.unsupported(kernel) is None, (name, dtype)


def test_the_ops_c_borrows_from_numpy_have_cuda_rows():
    assert set(c.BORROWED) <= set(cuda.CUDA.rows)


def test_missing_nvrtc_raises_an_import_error_naming_the_wheel(monkeypatch):
    monkeypatch.setattr(nvrtc, "_wheel_folders", lambda: [])
    monkeypatch.setattr(nvrtc.ctypes.util, "find_library", lambda name: None)
    nvrtc.library.cache_clear()
    try:
        with pytest.raises(ImportError, match="nvidia-cuda-nvrtc-cu12"):
            nvrtc.compile_cuda('extern "C" __global__ void k() {}')
        assert not nvrtc.available()
    finally:
        nvrtc.library.cache_clear()
        nvrtc.version.cache_clear()


def test_a_complex_kernel_has_no_cuda_form_and_says_why():
    z = li.asarray(np.ones((3,), np.complex64))
    (kernel,) = li.inspect.schedule(z * z).kernels
    assert "complex64" in cuda.unsupported(kernel)
    with pytest.raises(KeyError, match="complex64"):
        cuda.render(kernel)
