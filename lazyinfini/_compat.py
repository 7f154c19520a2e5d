"""array_api_compat.numpy, imported at first use: it costs ~90 ms (it imports numpy's submodules
and its own wrappers), which `import lazyinfini` need not pay before a library op runs."""

from __future__ import annotations

import importlib


class _OnFirstUse:
    """A stand-in for a module: the first attribute read imports it; each name read is then
    kept on the stand-in, so later reads cost a plain attribute lookup."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        value = getattr(importlib.import_module(self._name), attribute)
        setattr(self, attribute, value)
        return value


compat = _OnFirstUse("array_api_compat.numpy")
