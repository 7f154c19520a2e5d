"""Errors raised by a deferred kernel name the user's lines that recorded it.

A kernel runs lines (or files) after the call that recorded its op: numpy's traceback alone
points into the library. The note says which recorded op failed and where it was written.
"""

from __future__ import annotations

MAX_LINES = 4  # source lines named in one note; a fused kernel may span many


def note_kernel(error: BaseException, kernel) -> None:
    """Add to `error` a note naming `kernel`'s ops and the user's lines that recorded them."""
    lines = list(dict.fromkeys(n.source for n in kernel.nodes if n.source))
    where = ", ".join(lines[:MAX_LINES]) + (", ..." if len(lines) > MAX_LINES else "")
    note = f"lazyinfini: raised while computing {kernel.name}, recorded at {where or '?'}"
    if hasattr(error, "add_note"):  # NOTE: Python 3.11+; 3.10 keeps numpy's message alone
        error.add_note(note)
