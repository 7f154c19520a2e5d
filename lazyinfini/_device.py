"""The devices arrays live on. One for now: the host CPU (executed by numpy)."""

from __future__ import annotations


class Device:
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("lazyinfini.Device", self.name))

    def __repr__(self) -> str:
        return f"Device({self.name!r})"

    def __str__(self) -> str:
        return self.name


CPU = Device("cpu")


def check_device(func: str, device) -> Device:
    """The Device for a `device=` argument: None, "cpu" or a Device."""
    if device is None or device == CPU or device == "cpu":
        return CPU
    raise ValueError(f"{func}: unsupported device {device!r}; lazyinfini has {CPU!r}")
