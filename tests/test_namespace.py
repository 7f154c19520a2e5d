"""The namespaces hold the standard's names plus the extensions listed here, and nothing else:
`li.__all__`, `li.linalg.__all__` and `li.fft.__all__` are compared with the standard's names
(tests/spec_signatures.py, cross-checked with array_api_strict), so a missing or a stray name
fails. A new public name is added to the namespace and to EXTENSIONS, with what it is for."""

import array_api_strict as xs
import pytest

import lazyinfini as li
from tests import spec_signatures as spec

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
DTYPES += ("float32", "float64", "complex64", "complex128")

# The standard's names: its functions, constants and dtypes, the inspection function and the
# two extension modules.
STANDARD = {*spec.MAIN, *spec.CONSTANTS, *DTYPES, "__array_namespace_info__", "linalg", "fft"}
STANDARD_LINALG = set(spec.LINALG)
STANDARD_FFT = set(spec.FFT)

# lazyinfini's names beyond the standard, and why each is public.
EXTENSIONS = {
    "Array": "the array type (the standard names no class; isinstance checks need one)",
    "Device": "the device type: a Target, an allocator and a kernel-kind table",
    "CPU": "the default device (li.__array_namespace_info__().devices() lists it)",
    "NumpyFallbackWarning": "warned when a numpy function on Arrays has no lazy form (NEP 18)",
    "bfloat16": "a half-precision dtype (ml_dtypes'), computed in float32",
    "float16": "a half-precision dtype, computed in float32",
    "compute": "compute several arrays in one materialization",
    "explain": "print the schedule computing arrays would run",
    "graph": "the recorded graph as a networkx.DiGraph",
    "to_dot": "the recorded graph in Graphviz's dot language",
    "visualize": "draw the recorded graph",
    "report": "write the explain page (graph, kernels, fusion reasons, timings) to an HTML file",
    "inspect": "the inspection module: schedules, counters, the memory pool",
    "options": "run-time options in a with block (device, fuse, strict, debug, pool_bytes)",
    "set_options": "the same options, set until changed",
    "from_dask": "a dask array as a lazy array of the dask device (nothing computes)",
    "from_zarr": "a zarr array read chunk by chunk on the dask device (needs zarr)",
    "to_dask": "a pending program handed back as a dask array (nothing computes)",
    "persist": "compute on the dask device and keep the values on the workers",
    "einsum": "numpy's Einstein summation, lowered to diagonals, sums and matmul",
    "rearrange": "einops' axis patterns, lowered to one reshape -> permute -> reshape chain",
    # numpy's names for namespace functions, so numpy scripts run unchanged (_numpy_names.py)
    "absolute": "numpy's name for abs",
    "amax": "numpy's name for max (axis positional too)",
    "amin": "numpy's name for min (axis positional too)",
    "arccos": "numpy's name for acos",
    "arccosh": "numpy's name for acosh",
    "arcsin": "numpy's name for asin",
    "arcsinh": "numpy's name for asinh",
    "arctan": "numpy's name for atan",
    "arctan2": "numpy's name for atan2",
    "arctanh": "numpy's name for atanh",
    "concatenate": "numpy's name for concat (axis positional too)",
    "invert": "numpy's name for bitwise_invert",
    "left_shift": "numpy's name for bitwise_left_shift",
    "power": "numpy's name for pow",
    "right_shift": "numpy's name for bitwise_right_shift",
    "transpose": "numpy's transpose: permute_dims, reversing the axes by default",
}
EXTENSIONS_LINALG: dict[str, str] = {}
EXTENSIONS_FFT: dict[str, str] = {}

# array_api_strict's own names, which are not the standard's.
STRICT_OWN = {"ArrayAPIStrictFlags", "Device", "__array_api_version__", "__version__"}
STRICT_OWN |= {"get_array_api_strict_flags", "set_array_api_strict_flags"}
STRICT_OWN |= {"reset_array_api_strict_flags"}


@pytest.mark.parametrize(
    "module, standard, extensions",
    [
        (li, STANDARD, EXTENSIONS),
        (li.linalg, STANDARD_LINALG, EXTENSIONS_LINALG),
        (li.fft, STANDARD_FFT, EXTENSIONS_FFT),
    ],
    ids=["li", "linalg", "fft"],
)
def test_all_is_the_standard_plus_the_listed_extensions(module, standard, extensions):
    names = module.__all__
    assert len(names) == len(set(names)), "a name is listed twice"
    assert not standard & set(extensions), "an extension is a standard name"
    assert sorted(standard - set(names)) == [], "standard names missing"
    assert sorted(set(names) - standard - set(extensions)) == [], "stray names"
    assert sorted(set(extensions) - set(names)) == [], "listed extensions missing"
    assert all(hasattr(module, name) for name in names)


@pytest.mark.skipif(
    xs.__array_api_version__ != li.__array_api_version__,
    reason=f"array_api_strict implements {xs.__array_api_version__}, not lazyinfini's version",
)
def test_the_standard_names_agree_with_array_api_strict():
    # Strict may lag behind the standard (a name it lacks is fine), never know one we do not.
    assert sorted(set(xs.__all__) - STRICT_OWN - STANDARD) == []
    assert sorted(set(xs.linalg.__all__) - STANDARD_LINALG) == []
    assert sorted(set(xs.fft.__all__) - STANDARD_FFT) == []


def test_a_stray_or_missing_name_fails(monkeypatch):
    check = test_all_is_the_standard_plus_the_listed_extensions
    names = list(li.fft.__all__)
    monkeypatch.setattr(li.fft, "__all__", [*names, "helper"])
    with pytest.raises(AssertionError, match="stray names"):
        check(li.fft, STANDARD_FFT, EXTENSIONS_FFT)
    monkeypatch.setattr(li.fft, "__all__", [n for n in names if n != "fft"])
    with pytest.raises(AssertionError, match="standard names missing"):
        check(li.fft, STANDARD_FFT, EXTENSIONS_FFT)
