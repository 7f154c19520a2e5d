"""The inspection API (2025.12) and the constants."""

from __future__ import annotations

import math

import pytest

import lazyinfini as li

KINDS = {
    "bool": {"bool"},
    "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64"},
    "complex floating": {"complex64", "complex128"},
}
KINDS["integral"] = KINDS["signed integer"] | KINDS["unsigned integer"]
KINDS["numeric"] = KINDS["integral"] | KINDS["real floating"] | KINDS["complex floating"]


def test_capabilities_has_the_spec_keys():
    info = li.__array_namespace_info__()
    assert info.capabilities() == {
        "boolean indexing": True,
        "data-dependent shapes": True,
        "max dimensions": 64,
    }


def test_devices_and_defaults():
    info = li.__array_namespace_info__()
    assert info.devices() == (li.CPU,)  # Note (spec, 2025.12): a tuple
    assert info.default_device() == li.CPU
    assert info.default_dtypes() == {
        "real floating": li.float64,
        "complex floating": li.complex128,
        "integral": li.int64,
        "indexing": li.int64,
    }
    assert info.default_dtypes(device="cpu") == info.default_dtypes(device=li.CPU)
    assert li.asarray(1.0).dtype == info.default_dtypes()["real floating"]
    with pytest.raises(ValueError, match="^default_dtypes: "):
        info.default_dtypes(device="gpu")


def test_dtypes_lists_only_standard_dtypes():
    dtypes = li.__array_namespace_info__().dtypes()
    assert set(dtypes) == KINDS["numeric"] | {"bool"}
    assert "float16" not in dtypes and "bfloat16" not in dtypes  # extensions, not spec dtypes
    for name, dtype in dtypes.items():
        assert getattr(li, name) == dtype


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_dtypes_by_kind(kind):
    info = li.__array_namespace_info__()
    assert set(info.dtypes(kind=kind)) == KINDS[kind]
    assert all(li.isdtype(d, kind) for d in info.dtypes(kind=kind).values())


def test_dtypes_by_a_tuple_of_kinds_is_the_union():
    got = li.__array_namespace_info__().dtypes(kind=("bool", "complex floating"))
    assert set(got) == {"bool", "complex64", "complex128"}
    with pytest.raises(ValueError, match="^dtypes: "):
        li.__array_namespace_info__().dtypes(kind="floating point")


def test_constants():
    assert li.e == math.e and li.pi == math.pi and li.inf == math.inf
    assert math.isnan(li.nan)
    assert li.newaxis is None
    assert li.ones((2, 3))[:, li.newaxis].shape == (2, 1, 3)


def test_the_extensions_are_submodules():
    assert li.linalg.__name__ == "lazyinfini.linalg" and li.fft.__name__ == "lazyinfini.fft"
    for module in (li.linalg, li.fft):
        assert all(callable(getattr(module, name)) for name in module.__all__)


def test_the_namespace_holds_only_public_names():
    # Every name of li without a leading underscore is in __all__: no import is left behind
    # (the `annotations` of `from __future__ import annotations` once leaked as li.annotations).
    extra = [n for n in dir(li) if not n.startswith("_") and n not in li.__all__]
    assert extra == []
    assert all(hasattr(li, name) for name in li.__all__)
