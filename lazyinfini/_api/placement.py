"""Where arrays live: new arrays placed on a device with a memory of its own (a GPU's), arrays
moved between devices, arrays of such a device taken from DLPack producers, the values the API
computes to record an op placed with its array, and the calls whose output shape depends on
the data run where it lives.

Host arrays are recorded lazily and computed where the options say. A device whose memory no
other device reads (the `cuda` device: CuPy arrays) holds its arrays itself: `asarray(x,
device="cuda")` and `x.to_device("cuda")` copy the value there now, `zeros(..., device="cuda")`
makes it there now, and every program reading them runs there (`_device.computing_device`).
Under `li.options(device="cuda")` new arrays go there too (it is the default device then);
arrays already on the host stay there. Arrays of two such memories never meet silently:
computing them together raises, naming both.
"""

from __future__ import annotations

import numpy as np

from .. import _device, _dtypes
from .._array import Array, implicit_data
from .._compat import compat
from .._device import (
    LOADERS,
    Device,
    check_device,
    computing_device,
    get_device,
    holder_of,
    readable,
    registry_version,
)
from .._graph import Node, Op, buffer_node, caller_source
from .._graph.memories import OWN, own
from .._options import current, options
from .checks import error


def placed(func: str, array: Array, device) -> Array:
    """`array` where `device=` says (a copy there unless it is there already), or for None
    where new arrays go under the options (see destination)."""
    if device is None:
        if current().device == "cpu":
            return array  # NOTE: the common case: one call (asarray is in every client's loop)
        target = destination(func, None)
        return array if target is None else moved(array, target, array._n.source)
    target = check_device(func, device)
    return array if _stays(array, target) else moved(array, target, array._n.source)


def _stays(array: Array, target: Device) -> bool:
    """Whether device=`target` leaves `array` as it is, for a device of host memory (another
    device's, moved(), keeps it where it is there already): host data stays lazy (the
    options' device computes it); a fill stays lazy too unless the options would compute it
    in another memory (it is made on the host now, as asked)."""
    if target.memory != "host":
        return False
    if not _owners():
        return True  # NOTE: no device of a memory of its own loaded: every array is readable
    return _reads(target, array._node) and array.device.memory == "host"


def _reads_host(device: Device) -> bool:
    return device.memory == "host" or "host" in device.reads


def device_arg(x: Array):
    """x's device as a `device=` argument for an array made to go with x: None where new
    arrays go there anyway (the common case looks nothing more up)."""
    node, name = x._node, current().device
    # NOTE: device_of's answers without its lookups (x.device: ~3 us an index array): x's
    # buffer is there, or x is pending host data, which the cpu computes
    if node.op is Op.BUFFER:
        if node.arg.device == name:
            return None
    elif name == "cpu" and not OWN and not _owners():
        return None
    device = device_of(node)
    return None if device.name == name else device


def _reads(device: Device, node) -> bool:
    """Whether `device` reads the data `node` holds or reads (a fill's: none)."""
    if node.op is Op.BUFFER:
        return readable(device, (node.arg.device,))
    owner, names = _data(node)
    return readable(device, names if owner is None else (owner.name,))


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
    return None if _reads_host(found) else found


def moved(array: Array, target: Device, source: str) -> Array:
    """`array`'s value in `target`'s memory (computed first where pending), as a new array: a
    copy through host memory, or `array` itself where it lives there already (a buffer of
    `target`'s, or pending on data `target` computes)."""
    node = array._node
    if node.op is Op.BUFFER:
        if node.arg.device == target.name:
            return array
    else:
        owner, names = _data(node)
        if owner is target or (owner is None and names and _computed_by(target, names)):
            return array
        if node.op in _SOURCES and target.memory != "host":
            return _made_on(target, node, source)
    value = array._value()  # NOTE: host memory: _value copies another device's to the host
    if target.memory == "host":
        return Array(buffer_node(_readonly(value.copy()), source, target.name))
    own(target.name, target.memory, target.reads)  # NOTE: from now on recording checks memories
    return Array(buffer_node(target.from_host(value), source, target.name))


def _computed_by(target: Device, names) -> bool:
    """Whether a program reading arrays of the devices `names` is computed by `target`."""
    try:
        return computing_device(holder_of(get_device(current().device)), names, {}) == target
    except ValueError:
        return False  # NOTE: arrays that cannot meet: computing it says so


# Ops of no inputs a device makes itself (a fill, a range): made there, not copied there
_SOURCES = frozenset({Op.FULL, Op.ARANGE, Op.EYE, Op.LINSPACE})


def _made_on(target: Device, node, source: str) -> Array:
    """A source `node`'s value computed on `target` (zeros(n, device="cuda") writes the GPU's
    memory; nothing is computed on the host and copied), as a new array: the node is recorded
    again, so arrays holding `node` stay where they are."""
    made = Array(Node(node.op, (), node.shape, node.dtype, node.arg, source))
    own(target.name, target.memory, target.reads)
    with options(device=target.name):
        made.compute()
    return made


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
    own(device.name, device.memory, device.reads)
    return Array(buffer_node(device.adopt(obj), caller_source(), device.name))


def _by_dlpack(func: str, where: tuple[int, int]) -> Device:
    """The device of DLPack device `where`: a registered one, or the loader's for CUDA."""
    for device in _device.DEVICES.values():  # NOTE: the module's: a test may swap it
        if tuple(device.dlpack) == where and device.adopt is not None:
            return device
    if where[0] == _CUDA and f"cuda:{where[1]}" in LOADERS:
        # NOTE: raises the loader's error (no CuPy, no GPU)
        found = check_device(func, f"cuda:{where[1]}")
        if tuple(found.dlpack) == where and found.adopt is not None:
            return found
    raise error(ValueError, func, f"no lazyinfini device holds arrays of DLPack device {where}")


_CUDA = 2  # kDLCUDA


def device_of(node) -> Device:
    """The device holding `node`'s value (x.device): its buffer's; for a pending node, the
    device that would compute it now (see _device.computing_device): the one holding the data
    it reads where that is a device of a memory of its own, else the options' device where it
    reads that data (the host's, li.CPU, for host data it cannot read: a GPU's)."""
    if node.op is Op.BUFFER:
        return get_device(node.arg.device)
    owner, names = _data(node)
    if owner is not None:
        return owner
    device = holder_of(get_device(current().device))
    if not names or readable(device, names):
        return device
    try:
        return computing_device(device, names, {})
    except ValueError:
        return device  # NOTE: computing it raises, naming the devices; asking where does not


def owner_among(values) -> Device | None:
    """The device of a memory of its own (a GPU's) holding an Array among `values` (one level
    of lists and tuples looked into), or None: where numpy's functions and operators put the
    values they convert (lists, scalars, ndarrays) and the results numpy computes, so that
    they meet the data where it lives. Looks nothing up while no such device is loaded."""
    if not _owners() and not OWN:
        return None
    for value in values:
        if isinstance(value, (list, tuple)):
            found = owner_among(v for v in value if not isinstance(v, (list, tuple)))
        else:
            found = _data(value._node)[0] if isinstance(value, Array) else None
        if found is not None:
            return found
    return None


def _data(node) -> tuple[Device | None, set]:
    """The device of a memory of its own holding data `node` reads (None if none does), and
    the names of the other devices whose buffers it reads (none when it finds such a device)."""
    owners = _owners()
    if not owners and not OWN:
        # NOTE: no device of a memory of its own is loaded and no array lives outside host
        # memory (a dask array): nothing to walk (x.device is common)
        return None, set()
    stack, seen, names = [node], set(), set()
    while stack:
        node = stack.pop()
        if node.op is Op.BUFFER:
            device = owners.get(node.arg.device)
            if device is not None:
                return device, set()
            names.add(node.arg.device)
            continue
        for src in node.srcs:
            src = src.realized or src
            if id(src) not in seen:
                seen.add(id(src))
                stack.append(src)
    return None, names


def constant(value: np.ndarray, like: Node, source: str) -> Node:
    """A read-only buffer of `value`, values the API computed to record `like`'s op (a mask's
    positions, a repeat's counts), where `like` is: host memory, or a copy on the device of a
    memory of its own (a GPU) holding it."""
    return _host_value_on(device_of(like), value, source)


def _host_value_on(device: Device, value: np.ndarray, source: str) -> Node:
    """A read-only buffer of host array `value` (ours), on `device`: in host memory where it
    reads that, else copied to it."""
    value.flags.writeable = False
    if _reads_host(device):
        return buffer_node(value, source)
    return buffer_node(device.from_host(value), source, device.name)


def _owners() -> dict[str, Device]:
    """The loaded devices with a memory of their own (that reads no other), by name."""
    version = registry_version()
    if _OWNERS[0] != version:
        devices = _device.DEVICES.values()
        owners = {d.name: d for d in devices if d.memory != "host" and not d.reads}
        _OWNERS[:] = [version, owners]
    return _OWNERS[1]


_OWNERS: list = [None, {}]


# -- calls whose output's shape depends on the data ------------------------------------------


def data_dependent(
    func: str, x: Array, dtypes: tuple, call: str = "", what: str = "x"
) -> tuple[Array, ...]:
    """The arrays the namespace's `call` (nonzero, unique_*; `func` by default) gives for x's
    value, computed now for `func` (an implicit materialization: the output's shape depends
    on it; `what` names x in messages), of `dtypes` (None: x's).
    It runs where x lives: on the host in array_api_compat.numpy, or on a device of a memory of
    its own in that device's namespace (CuPy's: nothing goes through the host), and the
    results are arrays of that device. Half floats compute in float32."""
    device, data = implicit_data(x, func, what)
    dtype = _dtypes.compute_dtype(x.dtype)
    if device.namespace is not None:
        xp = device.namespace()
        data = xp.astype(data, dtype, copy=False)
    else:  # NOTE: the host's (a dask array computed); numpy's method costs less than compat's
        xp, data = compat, device.to_host(data).astype(dtype, copy=False)
    found = getattr(xp, call or func)(data)
    found = found if isinstance(found, tuple) else (found,)
    source = caller_source()
    results = []
    for r, dtype in zip(found, dtypes, strict=True):  # NOTE: a loop: a generator costs more
        results.append(_result(xp, r, x.dtype if dtype is None else dtype, device, source))
    return tuple(results)


def _result(xp, value, dtype, device, source: str) -> Array:
    """A result of the call, of `dtype`, as an array on `device` (x's): a device's array as
    it is, a host one placed there (a device without a namespace: copied to it)."""
    if isinstance(value, np.ndarray):
        return Array(_host_value_on(device, value.astype(dtype, copy=False), source))
    return Array(buffer_node(xp.astype(value, dtype, copy=False), source, device.name))
