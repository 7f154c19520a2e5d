"""Arrays on a device with a memory of its own (as a GPU's): placed there by device=, by the
options' default device and by to_device, computed where they live, and never mixed with
another memory's arrays silently. The device here is the cpu's device with a memory of its own
name (numpy arrays, so it runs anywhere); tests/cuda runs the same paths on the CUDA device."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._device import DEVICES, register_device
from lazyinfini._graph import Op
from lazyinfini._graph.memories import OWN

FAR = "far"


@pytest.fixture(autouse=True)
def far_device(monkeypatch):
    """A device holding its arrays in memory `far`: copies in and out, counted."""
    monkeypatch.setattr("lazyinfini._device.DEVICES", dict(DEVICES))
    copies = {"in": 0, "out": 0}

    def from_host(value):
        copies["in"] += 1
        return np.array(value, copy=True)

    def to_host(value):
        copies["out"] += 1
        return np.array(value, copy=True)

    cpu = DEVICES["cpu"]
    device = dataclasses.replace(
        cpu, name=FAR, memory=FAR, from_host=from_host, to_host=to_host, dlpack=(99, 0)
    )
    register_device(device)
    yield copies
    OWN.pop(FAR, None)  # NOTE: recording stops checking memories (as before the first)


def _on_far(array) -> bool:
    return array._node.arg.device == FAR


def test_device_arguments_place_new_arrays_there(far_device):
    x = li.asarray(np.arange(4.0), device=FAR)
    assert _on_far(x) and x.device.name == FAR and far_device["in"] == 1
    for made in (
        li.zeros(3, device=FAR),
        li.full((2,), 7.0, device=FAR),
        li.arange(5, device=FAR),
        li.eye(2, device=FAR),
        li.linspace(0, 1, 3, device=FAR),
        li.zeros_like(x),  # Note (spec): x's device
        li.asarray(li.asarray(np.ones(2)), device=FAR),
    ):
        assert _on_far(made), made
    np.testing.assert_array_equal(np.asarray(li.full((2,), 7.0, device=FAR)), [7.0, 7.0])
    assert li.zeros_like(x, device="cpu").device == li.CPU


def test_programs_run_where_their_arrays_live_and_come_back_on_request(far_device):
    a_np = np.linspace(-2, 2, 12).reshape(3, 4).astype(np.float32)
    a, b = li.asarray(a_np, device=FAR), li.asarray(a_np.T.copy(), device=FAR)
    y = li.clip(a - li.permute_dims(b, (1, 0)) * 0.5, -1.0, 1.0)
    assert y.device.name == FAR and y.__dlpack_device__() == (99, 0)
    y.compute()
    assert _on_far(y)
    out = far_device["out"]
    np.testing.assert_array_equal(np.asarray(y), np.clip(a_np - a_np * np.float32(0.5), -1, 1))
    assert far_device["out"] == out + 1  # np.asarray copies to the host
    assert float(li.sum(y)) == pytest.approx(float(np.clip(a_np * 0.5, -1, 1).sum()))


def test_to_device_moves_a_value_and_is_identity_on_its_own_device(far_device):
    x_np = np.arange(6.0).reshape(2, 3)
    x = li.asarray(x_np)
    assert x.to_device("cpu") is x and x.to_device(li.CPU) is x
    far = (x + 1).to_device(FAR)  # computed on the cpu, then copied
    assert _on_far(far) and far.to_device(FAR) is far
    back = (far * 2).to_device("cpu")
    assert back.device == li.CPU and back._node.arg.device == "cpu"
    np.testing.assert_array_equal(np.asarray(back), (x_np + 1) * 2)
    assert not np.asarray(back).flags.writeable


def test_the_options_default_device_holds_new_arrays(far_device):
    with li.options(device=FAR):
        assert li.__array_namespace_info__().default_device().name == FAR
        x = li.asarray([1.0, 2.0])
        z = li.zeros(2)
        assert _on_far(x) and _on_far(z)
        np.testing.assert_array_equal(np.asarray(x + z), [1.0, 2.0])
    assert li.asarray([1.0]).device == li.CPU


def test_arrays_of_two_memories_never_meet_silently(far_device):
    near = li.asarray(np.ones(3))
    far = li.asarray(np.ones(3), device=FAR)
    with pytest.raises(ValueError, match=r"^add: arrays in host memory and in far memory meet"):
        near + far  # at the line recording it, as the standard asks
    with pytest.raises(ValueError, match=r"^multiply: .* meet at test_placement.py:\d+"):
        li.sum(far) * (near - 1.0)
    with pytest.raises(ValueError, match=r"meet"):
        li.where(near > 0, far, 0.0)
    np.testing.assert_array_equal(np.asarray(near + far.to_device("cpu")), 2.0)  # moved: fine
    np.testing.assert_array_equal(np.asarray(far * 2.0), 2.0)  # a scalar is of no memory


def test_arrays_made_before_the_first_far_array_are_checked_too(far_device):
    OWN.pop(FAR, None)
    near = li.asarray(np.ones(3)) * 2.0  # recorded before any array lived elsewhere
    far = li.asarray(np.ones(3), device=FAR)
    with pytest.raises(ValueError, match="meet"):
        far - near
    y = far.to_device("cpu") - near
    np.testing.assert_array_equal(np.asarray(y), -1.0)


def test_the_computing_device_refuses_mixed_buffers_made_below_the_api(monkeypatch):
    """Buffers made directly (as devices make them), unseen by recording's check, are refused
    when computed, naming each device and where its array was made."""
    from lazyinfini._array import Array
    from lazyinfini._graph import buffer_node

    OWN.clear()
    far = Array(buffer_node(np.ones(3), "made.py:7", device=FAR))
    y = far + li.asarray(np.ones(3))
    with pytest.raises(ValueError, match=r"^compute: arrays of different devices .*made.py:7"):
        y.compute()


def test_a_cached_schedule_on_the_far_device_is_reused_with_new_buffers(far_device):
    from lazyinfini.inspect import counters

    for i in range(3):
        x = li.asarray(np.full(8, float(i), dtype=np.float32), device=FAR)
        before = counters.schedules_reused
        np.testing.assert_array_equal(np.asarray(li.clip(x - 1.0, 0.0, 1.0)), min(max(i - 1, 0), 1))
        reused = counters.schedules_reused - before
    assert reused == 1


def test_unknown_and_unavailable_devices_are_named(monkeypatch):
    with pytest.raises(ValueError, match="^asarray: unsupported device 'nowhere'"):
        li.asarray([1.0], device="nowhere")

    def missing():
        raise ImportError('CuPy is not installed: pip install "lazyinfini[cuda]"')

    monkeypatch.setitem(li._device.LOADERS, "gone", missing)
    with pytest.raises(ImportError, match=r"^zeros: device 'gone' is unavailable: CuPy"):
        li.zeros(2, device="gone")


def test_devices_lists_a_gpu_device_when_it_loads_and_not_when_it_cannot(monkeypatch):
    from lazyinfini._api import info

    monkeypatch.setattr(info, "_MISSING", set())
    calls = []

    def missing():
        calls.append(1)
        raise ImportError("no CUDA GPU found")

    monkeypatch.setitem(li._device.LOADERS, "cuda:0", missing)
    assert [d.name for d in li.__array_namespace_info__().devices()] == ["cpu", FAR]
    assert len(li.__array_namespace_info__().devices()) == 2 and len(calls) == 1
    info._MISSING.clear()
    gpus = [dataclasses.replace(DEVICES["cpu"], name=f"cuda:{i}", memory=f"g{i}") for i in (0, 1)]
    monkeypatch.setitem(li._device.LOADERS, "cuda:0", lambda: gpus[0])
    monkeypatch.setitem(li._device.LOADERS, "cuda:1", lambda: gpus[1])
    monkeypatch.setitem(li._device.LOADERS, "cuda:2", missing)
    names = [d.name for d in li.__array_namespace_info__().devices()]
    assert names == ["cpu", FAR, "cuda:0", "cuda:1"]


def test_dlpack_exports_a_device_array_where_it_lives_and_copies_only_when_asked(far_device):
    from lazyinfini._array import Array
    from lazyinfini._graph import buffer_node

    class Held:  # a device array: DLPack export is all this test reads of it
        def __init__(self, value):
            self.value, self.shape, self.dtype = value, value.shape, value.dtype

        def __dlpack__(self, **kwargs):
            return ("capsule", self, kwargs)

        def copy(self):
            return Held(self.value.copy())

        def __array__(self, dtype=None, copy=None):
            return self.value

    held = Held(np.arange(3.0))
    x = Array(buffer_node(held, "made.py:1", device=FAR))
    assert x.__dlpack_device__() == (99, 0)
    kind, exported, kwargs = x.__dlpack__(max_version=(1, 0))
    assert exported is held and kwargs == {"stream": None, "max_version": (1, 0)}
    assert x.__dlpack__(copy=True)[1] is not held  # a copy, still on the device
    assert x.__dlpack__(dl_device=(99, 0))[1] is held
    copies = far_device["out"]
    capsule = x.__dlpack__(dl_device=(1, 0), max_version=(1, 0))  # the host asks: a host copy
    assert type(capsule).__name__ == "PyCapsule" and far_device["out"] == copies + 1


def test_asarray_of_an_array_keeps_its_device_and_shares_its_memory(far_device):
    """Note (spec): without device= the result is on the input's device; an array already
    there is returned itself (a pending one too: no copy through the host), so a later
    x[i] = v is seen through it."""
    x = li.asarray(np.arange(3.0), device=FAR)
    pending = li.reshape(x * 2.0, (3,))
    copies = dict(far_device)
    for options in ("cpu", FAR):
        with li.options(device=options):
            for copy in (None, False):
                assert li.asarray(pending, copy=copy) is pending
            assert li.asarray(pending, device=FAR) is pending
    assert far_device == copies
    alias = li.asarray(x, copy=False)
    x[0] = -1.0
    np.testing.assert_array_equal(np.asarray(alias), [-1.0, 1.0, 2.0])
    back = li.asarray(pending, device="cpu")  # Note (spec): device= copies across memories
    assert back.device == li.CPU and back._node.arg.device == "cpu"
    np.testing.assert_array_equal(np.asarray(back), [0.0, 2.0, 4.0])


def test_host_arrays_stay_and_compute_on_the_host_under_a_far_default(far_device):
    """The options' device holds new arrays; arrays already on the host stay there and
    programs reading them run on the host (as torch and JAX run a CPU tensor's ops on the
    CPU whatever the default device), with nothing copied."""
    h_np = np.arange(4.0)
    h = li.asarray(h_np)
    with li.options(device=FAR):
        y = h * 2.0 + 1.0
        assert y.device == li.CPU and li.asarray(y) is y
        assert li.zeros_like(h).device == li.CPU and li.from_dlpack(h_np).device == li.CPU
        np.testing.assert_array_equal(np.asarray(y), h_np * 2 + 1)
        assert y._node.arg.device == "cpu"
        assert _on_far(li.asarray(h_np))  # new arrays go to the default device
    assert far_device["in"] == 1


def test_indexing_and_repeat_keep_their_computed_indices_on_the_arrays_device(far_device):
    """Masks, index lists, repeat counts and a diagonal's positions are values the API
    computes to record the op: they are placed where the array lives (never host arrays
    meeting a far one)."""
    x_np = np.arange(12.0).reshape(3, 4)
    x = li.asarray(x_np, device=FAR)
    picked = x[x > 4.0]
    assert picked.device.name == FAR
    np.testing.assert_array_equal(np.asarray(picked), x_np[x_np > 4])
    np.testing.assert_array_equal(np.asarray(x[[0, 2], np.array([1, 3])]), x_np[[0, 2], [1, 3]])
    counts = li.asarray(np.array([1, 0, 2]), device=FAR)
    np.testing.assert_array_equal(
        np.asarray(li.repeat(x[:, 0], counts)), np.repeat(x_np[:, 0], [1, 0, 2])
    )
    y = li.asarray(x_np, device=FAR)
    y[y > 4.0] = 0.0
    y[np.array([0])] = np.full(4, 7.0)
    expected = np.where(x_np > 4, 0.0, x_np)
    expected[0] = 7.0
    np.testing.assert_array_equal(np.asarray(y), expected)
    assert y.device.name == FAR
    z = li.asarray(x_np, device=FAR)
    li.linalg.diagonal(z)[...] = -1.0  # written into z through the diagonal's positions
    np.testing.assert_array_equal(np.asarray(z), np.where(np.eye(3, 4) == 1, -1.0, x_np))


def test_from_dlpack_of_an_array_of_ours_keeps_it_where_it_lives(far_device):
    """Note (spec): without device=, on x's device; nothing goes through an export."""
    x = li.asarray(np.arange(3.0), device=FAR)
    assert li.from_dlpack(x) is x and li.from_dlpack(x * 2.0).device.name == FAR
    copy = li.from_dlpack(x, copy=True)
    assert copy is not x and copy.device.name == FAR
    np.testing.assert_array_equal(np.asarray(copy), [0.0, 1.0, 2.0])
    assert li.from_dlpack(x, device="cpu").device == li.CPU


def test_data_dependent_calls_give_arrays_of_the_arrays_device(far_device):
    """nonzero and unique_* of a far array (a device without a namespace: computed on the
    host) give far arrays, so x[nonzero(x)] meets no host array; a host array's give host
    arrays under any default device."""
    x_np = np.array([2.0, 0.0, 2.0, 5.0])
    x = li.asarray(x_np, device=FAR)
    for got in (*li.nonzero(x), *li.unique_counts(x), li.unique_values(x)):
        assert got.device.name == FAR
    np.testing.assert_array_equal(np.asarray(x[li.nonzero(x)]), [2.0, 2.0, 5.0])
    with li.options(device=FAR):
        h = li.asarray(x_np, device="cpu")
        assert li.unique_values(h).device == li.CPU and li.nonzero(h)[0].device == li.CPU


def test_fills_and_ranges_are_made_on_the_device_not_copied_there(far_device):
    """zeros(..., device=FAR) and the like are computed by the far device into its memory:
    nothing is computed on the host and copied; an array holding a pending fill stays."""
    made = [
        li.zeros(3, device=FAR),
        li.arange(4, device=FAR),
        li.eye(2, device=FAR),
        li.linspace(0, 1, 3, device=FAR),
        li.full((2,), 7.0, device=FAR),
    ]
    assert far_device["in"] == 0 and all(_on_far(m) for m in made)
    expected = [np.zeros(3), np.arange(4), np.eye(2), np.linspace(0, 1, 3), np.full(2, 7.0)]
    for got, want in zip(made, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(got), want)
    z = li.zeros(3)
    far = z.to_device(FAR)
    assert _on_far(far) and z.device == li.CPU and z._node.op is not Op.BUFFER
    assert far_device["in"] == 0


def test_a_value_computed_in_a_memory_of_its_own_meets_no_host_array_silently(far_device):
    # Note: no array was placed there first (nothing registered its memory): realize() does,
    # so the op joining it with a host array raises at the line recording it.
    x = li.arange(3.0)
    with li.options(device=FAR):
        x.compute()
    assert _on_far(x) and x.device.name == FAR
    with pytest.raises(ValueError, match="meet"):
        x + li.asarray(np.ones(3))  # raised while recording, nothing computed
