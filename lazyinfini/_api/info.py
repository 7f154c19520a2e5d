"""The inspection API: what this library supports, read through __array_namespace_info__().

Spec: https://data-apis.org/array-api/latest/API_specification/inspection.html
Only the standard's dtypes are listed: float16 and bfloat16 are lazyinfini extensions (usable
everywhere, absent from dtypes() as the spec requires of non-standard types).
"""

from __future__ import annotations

from .. import _dtypes
from .._device import LOADERS, array_devices, check_device
from .checks import error
from .placement import destination

# Note (spec): canonical names, standard dtypes only.
_STANDARD = {
    "bool": _dtypes.bool,
    "int8": _dtypes.int8,
    "int16": _dtypes.int16,
    "int32": _dtypes.int32,
    "int64": _dtypes.int64,
    "uint8": _dtypes.uint8,
    "uint16": _dtypes.uint16,
    "uint32": _dtypes.uint32,
    "uint64": _dtypes.uint64,
    "float32": _dtypes.float32,
    "float64": _dtypes.float64,
    "complex64": _dtypes.complex64,
    "complex128": _dtypes.complex128,
}
_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating")
_KINDS += ("complex floating", "numeric")


def capabilities() -> dict:
    """What this library supports. https://data-apis.org/array-api/latest/API_specification/generated/array_api.info.capabilities.html"""
    # Boolean masks and data-dependent shapes compute only the values deciding the shape.
    return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}


def default_device():
    """The default device. https://data-apis.org/array-api/latest/API_specification/generated/array_api.info.default_device.html"""
    # NOTE: under li.options(device=...) naming a device of its own memory, new arrays go there
    return destination("default_device", None) or check_device("default_device", None)


def default_dtypes(*, device=None) -> dict:
    """The default dtypes. https://data-apis.org/array-api/latest/API_specification/generated/array_api.info.default_dtypes.html"""
    check_device("default_dtypes", device)
    return {
        "real floating": _dtypes.DEFAULT_FLOAT,
        "complex floating": _dtypes.DEFAULT_COMPLEX,
        "integral": _dtypes.DEFAULT_INT,
        "indexing": _dtypes.DEFAULT_INDEX,
    }


def devices() -> tuple:
    """The devices arrays can live on. https://data-apis.org/array-api/latest/API_specification/generated/array_api.info.devices.html"""
    for index in range(_GPUS):  # NOTE: each GPU found ("cuda:0", "cuda:1", ...) loads now
        name = f"cuda:{index}"
        if name not in LOADERS or name in _MISSING:
            break
        try:
            check_device("devices", name)
        except ImportError:
            _MISSING.add(name)  # NOTE: not tried again (an import costs milliseconds)
            break
    return array_devices()


_GPUS = 16  # the GPU devices devices() looks for (the dask device is asked for by name)
_MISSING: set = set()


def dtypes(*, device=None, kind=None) -> dict:
    """The standard dtypes, optionally of some kinds. https://data-apis.org/array-api/latest/API_specification/generated/array_api.info.dtypes.html"""
    check_device("dtypes", device)
    if kind is None:
        return dict(_STANDARD)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if k not in _KINDS:
            raise error(ValueError, "dtypes", f"unknown kind {k!r}; kinds are {', '.join(_KINDS)}")
    wanted = {d for k in kinds for d in _dtypes.CATEGORIES[k]}
    return {name: d for name, d in _STANDARD.items() if d in wanted}


class Info:
    """The object __array_namespace_info__() returns: the inspection functions as methods."""

    capabilities = staticmethod(capabilities)
    default_device = staticmethod(default_device)
    default_dtypes = staticmethod(default_dtypes)
    devices = staticmethod(devices)
    dtypes = staticmethod(dtypes)

    def __repr__(self) -> str:
        return "lazyinfini.__array_namespace_info__()"


def __array_namespace_info__() -> Info:
    """Namespace inspection utilities. https://data-apis.org/array-api/latest/API_specification/generated/array_api.__array_namespace_info__.html"""
    return Info()
