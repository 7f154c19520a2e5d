"""The cuda device: arrays on an NVIDIA GPU (CuPy's), fused kernels rendered as CUDA C.

Registered by name only (`_runtime/__init__.py`): `import lazyinfini` never imports CuPy, and
`device="cuda"` loads it here the first time. Modules:

- `backend.py`: the seam, `Backend`: every call into CuPy goes through one object
  (`CupyBackend`); the tests run the same device on an emulated one (tests/cuda/emulator.py).
- `device.py`: the Device record, its Target, fills and explain's lines (`make_device`).
- `kernels.py`: elementwise and rearrange kernels rendered by `_render/cuda.py`, compiled by
  NVRTC once per translation unit, launched as their Launch says.
- `calls.py`: views, sources, library calls and the kernels without a CUDA form, through the
  backend's Array API namespace (array_api_compat.cupy).
"""

from __future__ import annotations

EXTRA = 'pip install "lazyinfini[cuda]"'


def load_device(name: str = "cuda:0"):
    """The cuda Device called `name`, "cuda:<i>" (GPU i; "cuda" is an alias of "cuda:0",
    `_runtime/__init__.py`); an ImportError naming what is missing: CuPy (the extra to
    install) or the GPU (or its driver)."""
    try:
        import cupy
    except ImportError as error:
        raise ImportError(f"the cuda device needs CuPy, which is not installed: {EXTRA}") from error
    from .backend import CupyBackend
    from .device import make_device

    index = int(name.split(":", 1)[1])
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # NOTE: CuPy's CUDARuntimeError: no driver, no device
        raise ImportError(f"no CUDA GPU was found (CuPy: {error})") from error
    if count < 1:
        raise ImportError("no CUDA GPU was found (CuPy counts 0 devices)")
    if index >= count:
        raise ImportError(f"there is no GPU {index}: CuPy counts {count}")
    backend = _BACKENDS.get(index) or _BACKENDS.setdefault(index, CupyBackend(cupy, index))
    return make_device(backend, name)


_BACKENDS: dict = {}  # GPU index -> its CupyBackend
GPUS = 16  # the "cuda:<i>" names registered to load (_runtime/__init__.py)
