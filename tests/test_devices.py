"""The device seam as users see it: where arrays live, which device computes, and the error a
program mixing memories gets instead of a silent copy."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._array import Array
from lazyinfini._device import DEVICES, register_device
from lazyinfini._graph import buffer_node


def test_arrays_live_on_the_cpu_and_the_reference_device_computes_them():
    info = li.__array_namespace_info__()
    assert info.devices() == (li.CPU,) and info.default_device() == li.CPU
    x = li.asarray(np.arange(3.0))
    y = x * 2
    assert x.device == y.device == li.CPU
    with li.options(device="reference"):
        assert y.device == li.CPU  # the reference device computes the cpu's arrays
        y.compute()
    assert y.device == li.CPU and y._node.arg.device == "cpu"
    with pytest.raises(ValueError, match="^asarray: unsupported device 'reference'"):
        li.asarray([1.0], device="reference")
    assert li.asarray([1.0], device=li.CPU).device == li.CPU


def test_buffers_of_another_memory_are_refused_not_copied(monkeypatch):
    monkeypatch.setattr("lazyinfini._device.DEVICES", dict(DEVICES))
    register_device(dataclasses.replace(DEVICES["cpu"], name="elsewhere", memory="elsewhere"))
    far = Array(buffer_node(np.ones(3), "far.py:1", device="elsewhere"))
    assert far.device.name == "elsewhere"
    y = far + li.asarray(np.ones(3))
    with pytest.raises(ValueError, match=r"different devices meet .*elsewhere \(made at far.py:1"):
        y.compute()
    with li.options(device="elsewhere"):  # its own device computes it
        np.testing.assert_array_equal(np.asarray(far * 2), 2)
    np.testing.assert_array_equal(np.asarray(far * 3), 3)  # and so it does under the cpu's
