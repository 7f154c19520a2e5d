"""Bad input raises at the call that recorded it, names the function, and records nothing."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from tests.oracle import track_new_nodes


@pytest.fixture
def new_nodes(monkeypatch):
    """Weak references to every Node created while the test runs."""
    return track_new_nodes(monkeypatch)


@pytest.fixture
def arrays():
    rng = np.random.default_rng(0)
    return {
        "f32": li.asarray(rng.standard_normal((3, 4)).astype(np.float32)),
        "f32_pending": li.asarray(rng.standard_normal((3, 4)).astype(np.float32)) - 1,
        "bool": li.asarray(np.array([True, False])),
        "c64": li.asarray(np.array([1 + 1j, 2], dtype=np.complex64)),
        "i8": li.asarray(np.array([1, 2], dtype=np.int8)),
        "u64": li.asarray(np.array([1, 2], dtype=np.uint64)),
        "v3": li.asarray(np.ones(3, np.float32)),
        "v4": li.asarray(np.ones(4, np.float32)),
    }


# (id, call, exception, function name in the message)
CASES = [
    ("clip bool", lambda a: li.clip(a["bool"], 0, 1), TypeError, "clip"),
    ("clip complex", lambda a: li.clip(a["c64"], 0, 1), TypeError, "clip"),
    ("clip bound kind", lambda a: li.clip(a["i8"], a["f32"][0, :2]), TypeError, "clip"),
    ("clip float bound on int", lambda a: li.clip(a["i8"], 0.5), TypeError, "clip"),
    ("clip string bound", lambda a: li.clip(a["f32"], "0"), TypeError, "clip"),
    ("clip bounds do not broadcast", lambda a: li.clip(a["f32"], a["v3"]), ValueError, "clip"),
    ("clip not an array", lambda a: li.clip([1.0, 2.0], 0, 1), TypeError, "clip"),
    ("subtract bool", lambda a: li.subtract(a["bool"], a["bool"]), TypeError, "subtract"),
    ("bool - bool operator", lambda a: a["bool"] - a["bool"], TypeError, "subtract"),
    ("subtract shapes", lambda a: li.subtract(a["f32"], a["v3"]), ValueError, "subtract"),
    ("subtract operator shapes", lambda a: a["f32_pending"] - a["v3"], ValueError, "subtract"),
    ("subtract numpy shapes", lambda a: a["f32"] - np.ones(5, np.float32), ValueError, "subtract"),
    ("subtract uint64 int8", lambda a: a["u64"] - a["i8"], TypeError, "subtract"),
    ("subtract overflow", lambda a: a["i8"] - 1000, OverflowError, "subtract"),
    ("subtract two scalars", lambda a: li.subtract(1, 2), TypeError, "subtract"),
    ("subtract a string", lambda a: li.subtract(a["f32"], "1"), TypeError, "subtract"),
    ("where shapes", lambda a: li.where(a["bool"], a["f32"], 0.0), ValueError, "where"),
    ("permute repeated", lambda a: li.permute_dims(a["f32"], (0, 0)), ValueError, "permute_dims"),
    ("permute short", lambda a: li.permute_dims(a["f32"], (1,)), ValueError, "permute_dims"),
    ("permute long", lambda a: li.permute_dims(a["f32"], (0, 1, 2)), ValueError, "permute_dims"),
    (
        "permute out of range",
        lambda a: li.permute_dims(a["f32"], (0, 2)),
        ValueError,
        "permute_dims",
    ),
    (
        "permute not ints",
        lambda a: li.permute_dims(a["f32"], (0.0, 1.0)),
        TypeError,
        "permute_dims",
    ),
    (
        "matrix_transpose 1-d",
        lambda a: li.matrix_transpose(a["v3"]),
        ValueError,
        "matrix_transpose",
    ),
    ("reshape size", lambda a: li.reshape(a["f32"], (5, 2)), ValueError, "reshape"),
    ("reshape -1 size", lambda a: li.reshape(a["f32"], (-1, 5)), ValueError, "reshape"),
    ("reshape two -1", lambda a: li.reshape(a["f32"], (-1, -1)), ValueError, "reshape"),
    ("reshape negative", lambda a: li.reshape(a["f32"], (-2, -6)), ValueError, "reshape"),
    ("reshape pending", lambda a: li.reshape(a["f32_pending"], (13,)), ValueError, "reshape"),
    ("broadcast_to", lambda a: li.broadcast_to(a["f32"], (3, 5)), ValueError, "broadcast_to"),
    (
        "broadcast_to fewer dims",
        lambda a: li.broadcast_to(a["f32"], (4,)),
        ValueError,
        "broadcast_to",
    ),
    ("expand_dims axis", lambda a: li.expand_dims(a["f32"], axis=4), IndexError, "expand_dims"),
    ("astype str", lambda a: li.astype(a["f32"], "float16"), TypeError, "astype"),
    ("astype int", lambda a: li.astype(a["f32"], 3), TypeError, "astype"),
    ("astype None", lambda a: li.astype(a["f32"], None), TypeError, "astype"),
    ("astype object", lambda a: li.astype(a["f32"], object), TypeError, "astype"),
    ("astype complex to real", lambda a: li.astype(a["c64"], li.float32), TypeError, "astype"),
    ("index out of bounds", lambda a: a["f32"][3], IndexError, "__getitem__"),
    ("negative index out of bounds", lambda a: a["f32"][:, -5], IndexError, "__getitem__"),
    ("index pending out of bounds", lambda a: a["f32_pending"][0, 4], IndexError, "__getitem__"),
    (
        "index array out of bounds",
        lambda a: a["f32"][:, li.asarray(np.array([0, 4]))],
        IndexError,
        "__getitem__",
    ),
    (
        "index array negative out of bounds",
        lambda a: a["f32"][li.asarray(np.array([-4])), 0],
        IndexError,
        "__getitem__",
    ),
    ("index list out of bounds", lambda a: a["v3"][[0, 3]], IndexError, "__getitem__"),
    (
        "setitem index array out of bounds",
        lambda a: a["v4"].__setitem__(li.asarray(np.array([4])), 0.0),
        IndexError,
        "__setitem__",
    ),
    (
        "take out of bounds",
        lambda a: li.take(a["v3"], li.asarray(np.array([3]))),
        IndexError,
        "take",
    ),
    (
        "take_along_axis out of bounds",
        lambda a: li.take_along_axis(a["f32"], li.asarray(np.array([[4]])), axis=1),
        IndexError,
        "take_along_axis",
    ),
    ("slice step 0", lambda a: a["f32"][::0], ValueError, "__getitem__"),
    ("slice step 0 inner", lambda a: a["f32"][:, 1:3:0], ValueError, "__getitem__"),
    ("too many indices", lambda a: a["f32"][0, 0, 0], IndexError, "__getitem__"),
    ("too many with None", lambda a: a["f32"][None, 0, :, 1, None, 2], IndexError, "__getitem__"),
    ("two ellipses", lambda a: a["f32"][..., 0, ...], IndexError, "__getitem__"),
    ("float index", lambda a: a["f32"][1.0], IndexError, "__getitem__"),
    ("string index", lambda a: a["f32"]["0"], IndexError, "__getitem__"),
    ("zeros dtype", lambda a: li.zeros(3, dtype="int8"), TypeError, "zeros"),
    ("zeros shape", lambda a: li.zeros((2, -3)), ValueError, "zeros"),
    ("ones shape type", lambda a: li.ones((2, 1.5)), TypeError, "ones"),
    ("full_like not array", lambda a: li.full_like(np.ones(2), 1), TypeError, "full_like"),
    ("result_type nothing", lambda a: li.result_type(), ValueError, "result_type"),
    ("result_type not a dtype", lambda a: li.result_type("float32"), TypeError, "result_type"),
    ("asarray device", lambda a: li.asarray([1], device="tpu"), ValueError, "asarray"),
    ("in-place changes dtype", lambda a: a["i8"].__isub__(a["f32"][0, :2]), TypeError, "__isub__"),
    ("in-place changes shape", lambda a: a["v4"].__isub__(a["f32"]), TypeError, "__isub__"),
]


@pytest.mark.parametrize("call, exc, func", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_naming_the_function_and_records_nothing(
    arrays, new_nodes, call, exc, func
):
    before_nodes = {k: a._n for k, a in arrays.items()}
    counters = li.inspect.counters.snapshot()
    new_nodes.clear()
    with pytest.raises(exc) as info:
        call(arrays)
    assert str(info.value).startswith(f"{func}: "), str(info.value)
    del info
    # Nothing ran, nothing changed, and no node made on the way outlives the failed call.
    assert li.inspect.counters.snapshot() == counters
    assert {k: a._n for k, a in arrays.items()} == before_nodes
    assert [r() for r in new_nodes if r() is not None] == []


def test_in_place_operator_failure_leaves_the_array_as_it_was():
    x = li.asarray(np.array([1, 2], dtype=np.int8))
    node = x._n
    with pytest.raises(TypeError, match="__isub__"):
        x -= li.asarray(np.array([0.5, 0.5], dtype=np.float32))
    assert x._n is node and x.dtype == li.int8
    np.testing.assert_array_equal(np.asarray(x), [1, 2])
    x -= 1  # a valid in-place op rebinds
    np.testing.assert_array_equal(np.asarray(x), [0, 1])


def test_unknown_option_and_executor():
    with pytest.raises(TypeError, match="options"):
        with li.options(fusion=False):
            pass
    with pytest.raises(ValueError, match="options"):
        with li.options(executor="no-such-executor"):
            pass


def test_errors_name_the_values():
    x = li.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        x - li.asarray(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"\(0, 0\)"):
        li.permute_dims(x, (0, 0))
    with pytest.raises(IndexError, match="index 7.*size 3"):
        x[:, 7]
    with pytest.raises(TypeError, match="bool"):
        li.clip(li.asarray([True]), 0, 1)
