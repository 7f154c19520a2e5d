"""The cuda device's seam (lazyinfini/_runtime/cuda/backend.py) emulated on the CPU: arrays are
numpy arrays held in `DeviceArray`, which is not an ndarray and refuses to become one (as CuPy's
arrays do: numpy's implicit conversion raises TypeError), kernels are the rendered CUDA compiled
by the host g++ under the shim (tests/render/shim.py) and launched with their grid and block on
CPU threads, and the namespace is array_api_compat.numpy applied to the unwrapped arrays, except
where CuPy's numbers are not numpy's: integer-array indexing wraps an index out of bounds
around, a 0-d value copied in (from_host, asarray) loses -0.0's sign, and complex functions at
special values use the plain formulas and negation keeps a NaN's sign (cupy_math.py).

So the device's code runs as written, and code that takes a device array for numpy's fails
here as it would on a GPU. What this does not check: CUDA's math library (the shim runs
glibc's), the GPU's memory model, speed.
"""

from __future__ import annotations

import contextlib
import functools
import types

import array_api_compat.numpy as compat
import numpy as np

from lazyinfini._runtime.cuda.backend import ALIGN, Counts
from tests.cuda import cupy_math
from tests.render import shim

# numpy's implicit conversion of a CuPy array raises this (CuPy's own words)
REFUSAL = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)


WAITS = [0]  # reads of a device array as a Python scalar: each a wait for the GPU on CuPy


def _part(name: str) -> property:
    """A complex array's part `name` as CuPy has it: a view of the held array, settable."""

    def get(self) -> DeviceArray:
        return DeviceArray(getattr(self.held, name))

    def put(self, value) -> None:
        setattr(self.held, name, unwrap(value))

    return property(get, put)


class DeviceArray:
    """An array in the emulated device's memory: what CuPy's ndarray offers the device (shape,
    dtype, strides, indexing, `T`, `view`, `real` and `imag`, `__cuda_array_interface__`), and
    no way into numpy."""

    __slots__ = ("held",)  # NOTE: not CuPy's `data` (a device pointer): a numpy array

    def __init__(self, data: np.ndarray):
        assert isinstance(data, np.ndarray), type(data)
        self.held = data

    shape = property(lambda self: self.held.shape)
    dtype = property(lambda self: self.held.dtype)
    strides = property(lambda self: self.held.strides)
    ndim = property(lambda self: self.held.ndim)
    size = property(lambda self: self.held.size)
    nbytes = property(lambda self: self.held.nbytes)

    @property
    def __cuda_array_interface__(self) -> dict:
        interface = self.held.__array_interface__
        return {
            "shape": self.held.shape,
            "typestr": interface["typestr"],
            "data": interface["data"],
            "strides": None if self.held.flags.c_contiguous else self.held.strides,
            "version": 3,
        }

    @property
    def T(self) -> DeviceArray:
        return DeviceArray(self.held.T)

    def view(self, dtype=None) -> DeviceArray:
        return DeviceArray(self.held.view() if dtype is None else self.held.view(dtype))

    # NOTE: CuPy's parts: views, and settable (the cuda device composes a complex value so)
    real = _part("real")
    imag = _part("imag")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(REFUSAL)

    # NOTE: CuPy reads a one-element array as a Python scalar (waiting for the GPU): counted
    def __bool__(self) -> bool:
        WAITS[0] += 1
        return bool(self.held)

    def __int__(self) -> int:
        WAITS[0] += 1
        return int(self.held)

    def __float__(self) -> float:
        WAITS[0] += 1
        return float(self.held)

    def __getitem__(self, key) -> DeviceArray:
        return wrap(self.held[around(unwrap(key), self.shape)])

    def __setitem__(self, key, value) -> None:
        self.held[around(unwrap(key), self.shape)] = unwrap(value)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype.name})"


def around(key, shape: tuple[int, ...]):
    """`key` with its integer index arrays wrapped around their axes' lengths, as CuPy indexes
    (its documented difference from numpy, which raises): an index out of bounds gives a wrong
    element, not an IndexError, unless the device checks it first."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(item, np.ndarray) for item in items):
        return key
    out, axis = [], 0
    for item in items:
        if isinstance(item, np.ndarray) and item.dtype.kind in "iu" and shape[axis]:
            item = np.mod(item, shape[axis])
        out.append(item)
        axis += item is not None
    return tuple(out)


def _taken_around(function):
    """take and take_along_axis wrapping their indices around, as CuPy's do."""

    @functools.wraps(function)
    def call(x, indices, *, axis):
        size = unwrap(x).shape[axis]
        return function(x, np.mod(unwrap(indices), size) if size else indices, axis=axis)

    return call


def unwrap(value):
    """Device arrays (in tuples, lists, dicts) as the numpy arrays they hold."""
    if isinstance(value, DeviceArray):
        return value.held
    if isinstance(value, (tuple, list)):
        return type(value)(unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    return value


def wrap(value):
    """numpy results as device arrays (a numpy scalar as a 0-d one; tuples item by item)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return DeviceArray(np.asarray(value))
    if isinstance(value, tuple):
        items = [wrap(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


class Namespace:
    """array_api_compat.numpy (or its linalg, fft) over device arrays: arguments unwrapped,
    results wrapped; dtypes and constants as they are."""

    def __init__(self, module=compat):
        self._module = module

    def __getattr__(self, name: str):
        found = getattr(self._module, name)
        if isinstance(found, types.ModuleType):  # NOTE: linalg, fft (not fft.fft, a function)
            found = Namespace(found)
        elif callable(found) and not isinstance(found, type) and not isinstance(found, np.dtype):
            if self._module is compat and name in cupy_math.PLAIN:
                found = cupy_math.plain(name, found)  # NOTE: CuPy's complex math
            elif self._module is compat and name == "negative":
                found = cupy_math.negative(found)
            elif self._module is compat and name == "partition":
                found = _sorting_partition(found)
            elif self._module is compat and name == "asarray":
                found = _filling(found)
            found = _wrapped(found)
            if self._module is compat and name == "repeat":
                found = _repeating(found)  # NOTE: sees the device arrays
            if name in ("take", "take_along_axis"):
                found = _taken_around(found)
        setattr(self, name, found)
        return found


def _sorting_partition(partition):
    """partition as a GPU's may be: each kth element where a sort puts it, the others in an
    order of its own (a sort's here, where numpy's introselect leaves them otherwise), so a
    test reading more than the kth positions fails here as on a GPU."""

    @functools.wraps(partition)
    def call(a, kth, axis=-1):
        partition(a, kth, axis=axis)  # NOTE: numpy's checks of kth
        return np.sort(a, axis=axis, kind="stable")

    return call


def _repeating(repeat):
    """repeat as CuPy's: repeats may be an int or a host sequence, never a device array."""

    @functools.wraps(repeat)
    def call(x, repeats, /, *args, **kwargs):
        if isinstance(repeats, DeviceArray):
            raise ValueError("cupy.ndaray cannot be specified as `repeats` argument.")
        return repeat(x, repeats, *args, **kwargs)

    return call


def _filling(asarray):
    """asarray as CuPy's: a 0-d host value (a Python scalar) is filled in, losing -0.0's sign."""

    @functools.wraps(asarray)
    def call(obj, /, *args, **kwargs):
        if isinstance(obj, (bool, int, float, complex, np.generic)) or (
            isinstance(obj, np.ndarray) and obj.ndim == 0
        ):
            obj = cupy_math.filled(np.asarray(obj, dtype=kwargs.get("dtype")))
        return asarray(obj, *args, **kwargs)

    return call


def _wrapped(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        return wrap(function(*unwrap(args), **unwrap(kwargs)))

    return call


def aligned(shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialized C-contiguous numpy array starting on an ALIGN-byte boundary, as
    CuPy's pool allocates (the rearrange plans assume fresh buffers are aligned)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    nbytes = max(size, 1) * dtype.itemsize  # NOTE: an empty array still views one element
    raw = np.empty(nbytes + ALIGN, np.uint8)
    skip = -raw.__array_interface__["data"][0] % ALIGN
    return raw[skip : skip + nbytes].view(dtype)[:size].reshape(shape)


class EmulatedBackend:
    """The cuda device's Backend on the CPU (see the module's docstring)."""

    label = "the CPU emulating a GPU (tests/cuda/emulator.py)"
    memory = "cuda-emulated"  # NOTE: its own: its arrays are no real GPU's
    # Its arrays export host DLPack (Array.__dlpack__ exports a host copy): nothing adopts.
    dlpack = (1, 0)
    adopt = None

    def __init__(self):
        self.counts = Counts()
        self.namespace = Namespace()
        self.units: list[tuple] = []  # the Rendered records of each unit compiled, in order
        self.launches: list = []  # (kernel name, method) of every launch, in order

    def context(self):
        # NOTE: numpy (under the namespace) warns on IEEE special values; CuPy does not
        return np.errstate(all="ignore")

    def empty(self, shape, dtype) -> DeviceArray:
        self.counts.allocations += 1
        return DeviceArray(aligned(tuple(shape), dtype))

    def from_host(self, array: np.ndarray) -> DeviceArray:
        assert isinstance(array, np.ndarray), type(array)
        self.counts.to_device += 1
        out = aligned(array.shape, array.dtype)
        out[...] = cupy_math.filled(array)  # NOTE: CuPy fills a 0-d value in: -0.0 -> +0.0
        return DeviceArray(out)

    def to_host(self, array: DeviceArray) -> np.ndarray:
        assert isinstance(array, DeviceArray), type(array)
        self.counts.to_host += 1
        self.counts.waits += 1  # NOTE: CuPy's asnumpy waits for the copy
        return np.array(array.held, order="C", copy=True)

    def contiguous(self, array, dtype) -> DeviceArray:
        data = unwrap(array)
        address = data.__array_interface__["data"][0]
        if data.flags.c_contiguous and data.dtype == dtype and address % ALIGN == 0:
            return array if isinstance(array, DeviceArray) else DeviceArray(data)
        out = aligned(data.shape, dtype)
        out[...] = data.astype(dtype, copy=False)
        return DeviceArray(out)

    @property
    def compiles(self) -> int:
        return len(self.units)

    def compile(self, rendered):
        self.units.append(tuple(rendered))
        return shim.build(list(rendered))

    def function(self, module, call):
        return module  # NOTE: the shim's library: a launch names its kernel

    def address(self, array) -> int:
        assert isinstance(array, DeviceArray), type(array)  # NOTE: never a host array's
        return array.held.__array_interface__["data"][0]

    def launch(self, function, launch, packed) -> None:
        self.counts.launches += 1
        self.launches.append((launch.name, launch.method))
        shim.launch_packed(function, launch, packed)


_NO_CONTEXT = contextlib.nullcontext()


class NullBackend(EmulatedBackend):
    """The emulated backend whose kernels do nothing: no compiler runs, a launch only counts.
    What a cached materialization costs on it is lazyinfini's own host path (recording, the
    schedule cache, the run loop, binding the prepared launches); a GPU adds CuPy's allocation
    and cuLaunchKernel (~7 us a kernel on an H100: ../shared/notes/gpu-measured.md)."""

    label = "a backend whose kernels do nothing (host path only)"

    def empty(self, shape, dtype) -> DeviceArray:
        self.counts.allocations += 1
        return DeviceArray(np.empty(shape, dtype))  # NOTE: as cheap as a pool's block

    def address(self, array) -> int:
        return id(array)  # NOTE: never read: a launch does nothing (CuPy's data.ptr is cheap)

    def context(self):
        # NOTE: no kernel computes: no numpy error state to set (the emulator's context), as
        # CuPy's context sets none (it makes the GPU current: a runtime call or two)
        return _NO_CONTEXT

    def compile(self, rendered):
        self.units.append(tuple(rendered))
        return None

    def launch(self, function, launch, packed) -> None:
        self.counts.launches += 1


@contextlib.contextmanager
def registered(backend: EmulatedBackend, name: str = "cuda-emulated"):
    """The cuda device on `backend`, registered as `name` while the block runs."""
    from lazyinfini._device import DEVICES, register_device
    from lazyinfini._graph.memories import OWN
    from lazyinfini._runtime.cuda.device import make_device

    device = make_device(backend, name)
    register_device(device)
    try:
        yield device
    finally:
        DEVICES.pop(name, None)
        OWN.pop(name, None)  # NOTE: recording stops checking memories for it
