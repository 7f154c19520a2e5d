"""Memo: what a runtime works out once per kernel record, kept in the record itself."""

from __future__ import annotations

import itertools


class Memo:
    """A map from kernel records (frozen dataclasses) to what a runtime worked out for them,
    kept in each record's own __dict__: a lookup is one dict get, where a WeakKeyDictionary
    makes a weak reference at every lookup (~0.4 us, several per run of a small kernel). An
    entry goes with its record; clear() forgets every entry at once (an epoch, not a scan)."""

    _made = itertools.count()

    def __init__(self):
        self._slot = f"_memo{next(Memo._made)}"
        self._epoch = 0

    def get(self, record, default=None):
        held = record.__dict__.get(self._slot)
        return held[1] if held is not None and held[0] == self._epoch else default

    def __setitem__(self, record, value) -> None:
        record.__dict__[self._slot] = (self._epoch, value)

    def setdefault(self, record, value):
        held = self.get(record, self)
        if held is self:
            self[record] = held = value
        return held

    def first(self, record) -> bool:
        """Whether `record` is asked about for the first time (a device preparing a new
        schedule once); it is marked now, in the record itself, so it goes with it."""
        if self.get(record) is not None:
            return False
        self[record] = True
        return True

    def clear(self) -> None:
        self._epoch += 1
