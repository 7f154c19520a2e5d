"""The seam between the cuda device and CuPy: every call into CuPy goes through one `Backend`.

The device (device.py, kernels.py, calls.py) knows arrays only through this object, so it runs
unchanged on another implementation of the seam: `CupyBackend` here (arrays on an NVIDIA GPU),
and the tests' `EmulatedBackend` (tests/cuda/emulator.py: numpy arrays that refuse to be
ndarrays, kernels compiled for the CPU), which is how the device is tested without a GPU.

What the device reads of its arrays besides these methods: `shape`, `dtype`, `strides` (bytes),
basic and integer-array indexing, and `__cuda_array_interface__` (the scheduler reads a
buffer's address from it). CuPy's arrays have all of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..._render import cuda, nvrtc

# A fresh buffer starts on this boundary (the rearrange plans assume 64 bytes; CuPy's pool
# hands out 512-byte blocks): a result starting elsewhere is copied (Backend.contiguous).
ALIGN = 256


class Backend(Protocol):
    """What the cuda device asks of the library holding its arrays and launching its kernels."""

    label: str  # what explain() says runs its library calls: "CuPy 13.3.0 on NVIDIA H100"
    memory: str  # the memory its arrays live in ("cuda"): devices of one memory share arrays
    dlpack: tuple[int, int]  # its DLPack (device type, id): (2, i) for CUDA GPU i
    adopt: Callable | None  # a DLPack producer of that device -> an array sharing its memory
    namespace: Any  # an Array API namespace for its arrays (array_api_compat.cupy)

    def context(self):
        """The context manager a run happens in (the GPU made current)."""
        ...

    def empty(self, shape: tuple[int, ...], dtype: np.dtype):
        """An uninitialized C-contiguous array, aligned (ALIGN)."""
        ...

    def from_host(self, array: np.ndarray):
        """A copy of a host array in its memory."""
        ...

    def to_host(self, array) -> np.ndarray:
        """A copy of one of its arrays in host memory."""
        ...

    def contiguous(self, array, dtype: np.dtype):
        """`array` as a C-contiguous, aligned array of `dtype`: itself when it is one already."""
        ...

    counts: Counts  # what it did so far: launches, copies each way, waits, allocations

    def address(self, array) -> int:
        """The device address of an array's element [0, ..., 0]."""
        ...

    def compile(self, rendered: Sequence) -> Any:
        """One loaded module holding the kernels of `rendered` (cuda.Rendered records),
        compiled as one translation unit (cuda.unit of their sources)."""
        ...

    def function(self, module, call) -> Any:
        """The kernel `call.name` of `module` (a compiling.Call), loaded."""
        ...

    def launch(self, function, launch, packed) -> None:
        """Launch `function` as the cuda.Launch says (grid, block), with the arguments packed
        in `packed` (packed.Packed: cuLaunchKernel's kernelParams)."""
        ...


@dataclass
class Counts:
    """What a backend did so far, for tests and explain(): a cached elementwise program is one
    launch per kernel, nothing copied either way and nothing waited for."""

    launches: int = 0
    to_device: int = 0  # host -> device copies
    to_host: int = 0  # device -> host copies
    waits: int = 0  # synchronizations with the device
    allocations: int = 0

    def snapshot(self) -> Counts:
        return dataclasses.replace(self)


class CupyBackend:
    """The seam implemented with CuPy on GPU `index`. Kernels are compiled by our NVRTC wrapper
    (`_render/nvrtc.py`, with its OPTIONS: no FMA contraction, no flush of float32
    subnormals) into a cubin for the GPU's architecture and loaded as a CuPy module: CuPy's
    own `RawModule(code=...)` would add `-ftz=true`."""

    def __init__(self, cupy, index: int = 0):
        self._cupy = cupy
        self.index = index
        self.counts = Counts()
        self.memory = f"cuda:{index}"  # NOTE: each GPU's own: arrays of two GPUs never mix
        self.dlpack = (2, index)  # kDLCUDA
        self.adopt = cupy.from_dlpack
        self._namespace = None

    @property
    def namespace(self):
        if self._namespace is None:  # NOTE: ~0.1 s of imports, at the first library call
            import array_api_compat.cupy

            self._namespace = array_api_compat.cupy
        return self._namespace

    @property
    def label(self) -> str:
        properties = self._cupy.cuda.runtime.getDeviceProperties(self.index)
        name = properties["name"]
        name = name.decode() if isinstance(name, bytes) else name
        return f"CuPy {self._cupy.__version__} on {name} ({self.arch})"

    @property
    def arch(self) -> str:
        """The GPU's real architecture ("sm_90"): kernels are compiled to a cubin for it (a
        cubin needs no JIT by the driver, which PTX of a newer NVRTC than the driver would)."""
        return f"sm_{self._cupy.cuda.Device(self.index).compute_capability}"

    def context(self):
        return self._cupy.cuda.Device(self.index)

    def empty(self, shape, dtype):
        self.counts.allocations += 1
        # NOTE: on the current GPU (the run's context); cupy.empty is a Python function calling
        # ndarray(shape, dtype, order="C"): a frame less per output of a cached program
        return self._cupy.ndarray(shape, dtype)

    def from_host(self, array):
        self.counts.to_device += 1
        with self.context():
            return self._cupy.asarray(array)

    def to_host(self, array) -> np.ndarray:
        self.counts.to_host += 1
        self.counts.waits += 1  # NOTE: asnumpy waits for the copy
        return self._cupy.asnumpy(array)

    def address(self, array) -> int:
        return array.data.ptr

    def contiguous(self, array, dtype):
        array = self._cupy.asarray(array)
        aligned = array.data.ptr % ALIGN == 0
        if array.flags.c_contiguous and array.dtype == dtype and aligned:
            return array
        return array.astype(dtype, order="C", copy=True)  # NOTE: a fresh (aligned) buffer

    def compile(self, rendered):
        from cupy.cuda import function

        binary = cubin(rendered, self.arch)
        with self.context():
            module = function.Module()
            module.load(binary)  # NOTE: cuModuleLoadData: a cubin, no JIT
        return module

    def function(self, module, call):
        return module.get_function(call.name)

    def launch(self, function, launch, packed) -> None:
        # NOTE: cuLaunchKernel with the kernelParams packed once per kernel (packed.py): no
        # CArray or CScalar made per launch, as CuPy's RawKernel call makes. The launch's
        # shared memory is static (declared in the kernel): no dynamic bytes are asked for.
        self.counts.launches += 1
        (gx, gy, gz), (bx, by, bz) = launch.grid, launch.block
        cuda = self._cupy.cuda
        stream = cuda.get_current_stream().ptr  # NOTE: the caller's current stream, as CuPy's
        cuda.driver.launchKernel(function.ptr, gx, gy, gz, bx, by, bz, 0, stream, packed.address, 0)


def cubin(rendered, arch: str) -> bytes:
    """The cubin of one translation unit holding the `rendered` kernels (cuda.unit of their
    sources), for a real architecture ("sm_90"), compiled with nvrtc.OPTIONS."""
    return nvrtc.compile_cuda(cuda.unit(*(r.source for r in rendered)), arch)
