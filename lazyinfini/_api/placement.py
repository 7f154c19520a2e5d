"""Where arrays live: new arrays placed on a device with a memory of its own (a GPU's), arrays
moved between devices, and arrays of such a device taken from DLPack producers.

Host arrays are recorded lazily and computed where the options say. A device whose memory no
other device reads (the `cuda` device: CuPy arrays) holds its arrays itself: `asarray(x,
device="cuda")`, `zeros(..., device="cuda")` and `x.to_device("cuda")` copy the value there now,
and every program reading them runs there (`_device.computing_device`). Under
`li.options(device="cuda")` new arrays go there too (it is the default device then). Arrays of
two such memories never meet silently: computing them together raises, naming both.
"""

from __future__ import annotations

from .. import _device
from .._array import Array
from .._device import LOADERS, Device, check_device, get_device, holder_of, registry_version
from .._graph import Op, buffer_node, caller_source
from .._graph.memories import OWN
from .._options import current
from .checks import error


def placed(func: str, array: Array, device) -> Array:
    """`array` (recorded in host memory) where `device=` says, or where new arrays go under
    the options (see destination)."""
    if device is None and current().device == "cpu":
        return array  # NOTE: the common case: one call (asarray is in every client's loop)
    target = destination(func, device)
    return array if target is None else moved(array, target, array._n.source)


def destination(func: str, device) -> Device | None:
    """The device of another memory than the host's that a `device=` argument names, or (for
    None) the options' device where it cannot read host arrays; None for host memory."""
    if device is None:
        name = current().device
        if name == "cpu":
            return None  # NOTE: the common case looks nothing up, imports no backend
        found = holder_of(get_device(name))
    else:
        found = check_device(func, device)
    reads_host = found.memory == "host" or "host" in found.reads
    return None if reads_host else found


def moved(array: Array, target: Device, source: str) -> Array:
    """`array`'s value in `target`'s memory (computed first where pending), as a new array: a
    copy through host memory, or `array` itself where it lives there already."""
    if array.device.memory == target.memory and array._node.op is Op.BUFFER:
        if array._node.arg.device == target.name:
            return array
    value = array._value()  # NOTE: host memory: _value copies another device's to the host
    if target.memory == "host":
        return Array(buffer_node(_readonly(value.copy()), source, target.name))
    OWN[target.name] = target.memory  # NOTE: from now on recording checks memories
    return Array(buffer_node(target.from_host(value), source, target.name))


def _readonly(value):
    value.flags.writeable = False
    return value


def adopted(func: str, obj) -> Array | None:
    """An array sharing the memory of `obj`, a DLPack producer of a device other than the host
    (a CuPy or torch CUDA tensor): held by the device of that DLPack device, taken as it is.
    None for host objects."""
    where = getattr(obj, "__dlpack_device__", None)
    if where is None or type(obj).__module__ == "numpy":
        return None
    kind, index = where()
    if kind == 1:  # kDLCPU: host memory, read by numpy
        return None
    device = _by_dlpack(func, (kind, index))
    OWN[device.name] = device.memory
    return Array(buffer_node(device.adopt(obj), caller_source(), device.name))


def _by_dlpack(func: str, where: tuple[int, int]) -> Device:
    """The device of DLPack device `where`: a registered one, or the loader's for CUDA."""
    for device in _device.DEVICES.values():  # NOTE: the module's: a test may swap it
        if tuple(device.dlpack) == where and device.adopt is not None:
            return device
    if where[0] == _CUDA and "cuda" in LOADERS:
        found = check_device(func, "cuda")  # NOTE: raises the loader's error (no CuPy, no GPU)
        if tuple(found.dlpack) == where and found.adopt is not None:
            return found
    raise error(ValueError, func, f"no lazyinfini device holds arrays of DLPack device {where}")


_CUDA = 2  # kDLCUDA


def data_device(node) -> Device | None:
    """The device holding the data a pending `node` reads, where that is a device of a memory of
    its own (None for host data: the options decide where host data is computed)."""
    owners = _owners()
    if not owners:
        return None  # NOTE: no such device is loaded: nothing to walk (x.device is common)
    stack, seen = [node], set()
    while stack:
        node = stack.pop()
        if node.op is Op.BUFFER:
            device = owners.get(node.arg.device)
            if device is not None:
                return device
            continue
        for src in node.srcs:
            src = src.realized or src
            if id(src) not in seen:
                seen.add(id(src))
                stack.append(src)
    return None


def _owners() -> dict[str, Device]:
    """The loaded devices with a memory of their own (that reads no other), by name."""
    version = registry_version()
    if _OWNERS[0] != version:
        devices = _device.DEVICES.values()
        owners = {d.name: d for d in devices if d.memory != "host" and not d.reads}
        _OWNERS[:] = [version, owners]
    return _OWNERS[1]


_OWNERS: list = [None, {}]
