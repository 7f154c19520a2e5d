"""The error state every host run happens in: numpy's floating-point errors ignored (IEEE
special values are results, not warnings), entered cheaply (every materialization enters it)."""

from __future__ import annotations

import numpy as np


def _errors_are_values():
    # Note (spec): IEEE special values are results, not warnings.
    return np.errstate(all="ignore")


class _IgnoreErrors:
    """np.errstate(all="ignore") made cheaply: numpy 2 keeps its error state in a context
    variable, and setting it to a state made once per base state costs ~0.2 us where an errstate
    costs ~1.2 (every materialization enters one)."""

    __slots__ = ("token",)
    made: tuple = (None, None)  # (the state it was made from, the ignoring state)

    def __enter__(self):
        base = _STATE.get()
        made = _IgnoreErrors.made
        if made[0] is not base:
            with np.errstate(all="ignore"):
                made = _IgnoreErrors.made = (base, _STATE.get())
        self.token = _STATE.set(made[1])

    def __exit__(self, *exc):
        _STATE.reset(self.token)


# NOTE: numpy's own variable (numpy >= 2); without it, np.errstate
_STATE = getattr(
    getattr(getattr(np, "_core", None), "_ufunc_config", None), "_extobj_contextvar", None
)
# NOTE: the class itself where numpy keeps its state in a context variable (a call less)
CPU_CONTEXT = _IgnoreErrors if _STATE is not None else _errors_are_values
