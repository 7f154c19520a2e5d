"""Devices: where arrays live and kernels run, found by name in one registry.

A device is a table, not a class hierarchy: the Target its schedules are made for, an
allocator, how data leaves and enters host memory, and one handler per kernel kind. Backends
register theirs (`_runtime/__init__.py`); nothing imports a backend to find it, so options,
the API and the cache depend on this registry only. `li.CPU` is the host CPU's.

NOTE: the registry imports the built-in backends (`_runtime/`: cpu, numpy, reference) when it is
first read (~30 ms with the C compiler's modules), not `import lazyinfini`: recording an array
needs no device, and a `device=None` argument looks nothing up.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any


def _nothing(settings) -> None:
    return None


def as_computed(results: dict) -> dict:
    """A device's `gather` where its results are values already (every eager device)."""
    return results


@dataclass(frozen=True, eq=False)
class Device:
    name: str
    target: Any  # the _schedule.Target its schedules are planned for
    handlers: Mapping  # Kind -> handler(kernel, values, memory) -> list of the kernel's outputs
    empty: Callable  # (shape, dtype, settings) -> an uninitialized array in its memory
    value_of: Callable  # (values, node) -> the value a node holds (a buffer's, a fill's)
    to_host: Callable = field(default=lambda data: data)  # an array of its -> a numpy array
    from_host: Callable = field(default=lambda data: data)  # a numpy array -> an array of its
    context: Callable = contextlib.nullcontext  # () -> what a run happens inside (error state)
    finish: Callable = _nothing  # (settings) -> None: after each run (a pool's bookkeeping)
    prepare: Callable = _nothing  # (schedule) -> None: before each run (compile its kernels)
    # (schedule) -> a run of it that only binds and launches ((values) -> the outputs' and
    # kept nodes' values), made once per schedule; None: the run loop's handlers run it
    runner: Callable | None = None
    describe: Callable = lambda kernel: ""  # how it runs a kernel, for explain(): "compiled C"
    # (schedule) -> {kernel: how it runs with others of the schedule}, for explain()
    together: Callable = lambda schedule: {}
    memory: str = "host"  # devices of one memory read each other's buffers
    # Other memories whose buffers it reads too: the dask device chunks host arrays itself.
    reads: tuple[str, ...] = ()
    # (results) -> results: every requested value at once, after the run. The dask device's
    # handlers build a dask graph; this is its one dask.compute.
    gather: Callable = as_computed
    # False: values it computes that were not asked for are not kept for later reads (the
    # dask device's would be gathered to the client); a later read computes them again.
    keeps: bool = True
    # False for a device that only runs arrays held by another of its memory: the reference
    # device computes host arrays node by node, and they stay li.CPU's.
    holds_arrays: bool = True
    # Its DLPack (device type, id): kDLCPU is 1, kDLCUDA 2. An object reporting another than
    # the host's is taken by the device of that DLPack device, sharing its memory (`adopt`).
    dlpack: tuple[int, int] = (1, 0)
    adopt: Callable | None = None  # (a DLPack producer of its device) -> an array of its own
    # () -> the Array API namespace of its arrays, for a device of a memory of its own: the
    # calls whose output shape depends on the data (nonzero, unique_*) run there, in it. None:
    # they run on the host (its arrays are copied there).
    namespace: Callable | None = None

    # NOTE: equal by name, as the standard's `x.device == y.device` expects of device objects.
    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("lazyinfini.Device", self.name))

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __str__(self) -> str:
        return self.name


class Registry(MutableMapping):
    """name -> a value registered by the built-in backends (a Device, or a loader of one); the
    first read imports `backends`, which register theirs. Writes import nothing."""

    def __init__(self, backends: str):
        self._devices: dict[str, Any] = {}
        self._backends = backends
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            # NOTE: import's module lock makes another thread wait for every registration;
            # a read while the backends import (their own thread) finds the ones so far.
            importlib.import_module(self._backends)
            self._loaded = True

    def __getitem__(self, name: str):
        self._load()
        return self._devices[name]

    def __setitem__(self, name: str, device: Device) -> None:
        self._devices[name] = device
        _CHANGES[0] += 1

    def __delitem__(self, name: str) -> None:
        del self._devices[name]
        _CHANGES[0] += 1

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(self._devices)

    def __len__(self) -> int:
        self._load()
        return len(self._devices)

    def __repr__(self) -> str:
        return f"Registry({self._devices!r})"


DEVICES: MutableMapping[str, Device] = Registry("lazyinfini._runtime")
# Devices whose backend is imported when first asked for: name -> () -> Device. The dask one
# needs dask, which `import lazyinfini` must not import; its loader raises an ImportError
# naming the extra to install. A registry too: `device="cuda"` as the first call of a process
# finds the loader the built-in backends register.
LOADERS: MutableMapping[str, Callable[[], Device]] = Registry("lazyinfini._runtime")
# Other names of a device: "cuda" is GPU 0's, "cuda:0" (one GPU, one Device, as torch's tensors
# report cuda:0 for "cuda").
ALIASES: MutableMapping[str, str] = Registry("lazyinfini._runtime")


def register_device(device: Device) -> None:
    """Make `device` selectable by name: li.options(device=...), device= arguments."""
    DEVICES[device.name] = device
    _CHANGES[0] += 1  # NOTE: DEVICES may be another mapping (a test's copy)


def registry_version() -> tuple[int, int]:
    """The registry's changes so far and which mapping it is (a test may swap in a copy):
    realize() keeps the device an Options record names until this changes."""
    return _CHANGES[0], id(DEVICES)


_CHANGES = [0]


def register_loader(name: str, load: Callable[[], Device]) -> None:
    """Make `name` selectable before its backend is imported: `load()` returns the Device
    the first time it is asked for."""
    LOADERS[name] = load


def register_alias(alias: str, name: str) -> None:
    """Make `alias` another name of the device called `name`."""
    ALIASES[alias] = name


def get_device(name) -> Device:
    """The registered device called `name` (a Device is returned as registered now); one
    whose backend loads on first use is loaded now (its ImportError says what is missing)."""
    key = name.name if isinstance(name, Device) else name
    key = ALIASES.get(key, key) if isinstance(key, str) else key
    try:
        return DEVICES[key]
    except (KeyError, TypeError):
        if isinstance(key, str) and key in LOADERS:
            register_device(LOADERS[key]())
            return DEVICES[key]
        known = sorted({*DEVICES, *LOADERS, *ALIASES})
        raise ValueError(f"options: unknown device {name!r}; known: {known}") from None


def holder_of(device: Device) -> Device:
    """The device whose arrays `device` computes: itself, or the one holding arrays in its
    memory (the reference device computes li.CPU's arrays)."""
    return device if device.holds_arrays else holder_in(device.memory)


def holder_in(memory: str) -> Device:
    """The device holding the arrays of `memory`."""
    return next(d for d in DEVICES.values() if d.holds_arrays and d.memory == memory)


def readable(device: Device, names) -> bool:
    """Whether `device` reads the arrays of every device in `names` (its memory's, or one it
    `reads`). NOTE: realize() tests the common case (one name, the device's) before calling."""
    return {DEVICES[name].memory for name in names} <= {device.memory, *device.reads}


def computing_device(device: Device, names, sources: dict) -> Device:
    """The device computing a program that reads arrays of the devices `names`: `device` (the
    options') where it reads them all; else the data's: the device holding arrays of one of
    their memories that reads all the others (a GPU's arrays are computed where they live, a
    program of dask and host arrays on the dask device, which reads host arrays too), or the
    host's (li.CPU) for host arrays. Otherwise ValueError: a device never copies another's
    arrays silently (the standard asks for an error); `sources` (device name -> a line that
    made one of its arrays) says where each came from."""
    if readable(device, names):
        return device
    memories = {DEVICES[name].memory: name for name in sorted(names)}
    for memory in sorted(memories, key=lambda m: m == "host"):  # NOTE: the host's last
        holder = holder_in(memory)
        if readable(holder, names):
            return holder
    where = ", ".join(f"{n} (made at {sources.get(n) or '?'})" for n in memories.values())
    raise ValueError(
        f"compute: arrays of different devices meet in one computation: {where}; "
        "move them to one device with x.to_device(...) first"
    )


def array_devices() -> tuple[Device, ...]:
    """The devices arrays can live on (the standard's `devices()`)."""
    return tuple(d for d in DEVICES.values() if d.holds_arrays)


def check_device_arg(func: str, device) -> None:
    """Raise unless a `device=` argument is None (the host CPU) or names a device arrays live
    on. NOTE: None looks nothing up, so recording never imports a backend."""
    if device is not None:
        check_device(func, device)


def check_device(func: str, device) -> Device:
    """The Device for a `device=` argument: None (the host CPU), a name, or a Device. A device
    whose backend is loaded on first use is loaded now; one that cannot load raises its
    ImportError, naming what is missing (CuPy, a GPU)."""
    if device is None:
        return DEVICES["cpu"]
    asked = str(device) if isinstance(device, (str, Device)) else None
    name = ALIASES.get(asked, asked)
    if name in LOADERS and name not in DEVICES:
        try:
            get_device(name)
        except ImportError as exc:
            raise ImportError(f"{func}: device {asked!r} is unavailable: {exc}") from None
    found = DEVICES.get(name) if name is not None else None
    if found is None or not found.holds_arrays:
        known = [d.name for d in array_devices()]
        raise ValueError(f"{func}: unsupported device {device!r}; arrays live on {known}")
    return found
