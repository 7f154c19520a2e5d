"""Run-time options: device, fusion, strict scalars, debug level, memory pool (environment,
`with`).

The environment is read once, at import: LAZYINFINI_DEVICE (a name; LAZYINFINI_EXECUTOR is its
older alias), LAZYINFINI_FUSE and
LAZYINFINI_STRICT (1/0, true/false, yes/no, on/off), LAZYINFINI_DEBUG (0-3, or a flag word: yes
is 1) and LAZYINFINI_POOL_BYTES (a size: 1073741824, 512MiB, 1GB). A value that cannot be read
stops the import with a ValueError naming the variable: a setting silently ignored is worse.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import os
import re


@dataclasses.dataclass(frozen=True)
class Options:
    device: str = "cpu"  # the device that computes: a name in the registry (lazyinfini._device)
    fuse: bool = True  # False: one kernel per node, to bisect a numerical difference to fusion
    strict: bool = False  # True: an implicit materialization of a pending array raises ValueError
    debug: int = 0  # 1: a line per materialization; 2: a line per kernel; 3: the whole schedule
    pool_bytes: int = 1 << 30  # idle output memory kept for reuse (_runtime/pool.py); 0: none


# -- reading the environment ------------------------------------------------------------------

_FLAGS = {"1": True, "true": True, "yes": True, "on": True}
_FLAGS |= {"0": False, "false": False, "no": False, "off": False}

# Note: SI prefixes are decimal and IEC ones binary, as their standards say: 1GB is 10**9
# bytes, 1GiB 2**30. A bare number is bytes.
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}
_UNITS |= {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)")


def parse_flag(variable: str, text: str) -> bool:
    """'1'/'0', 'true'/'false', 'yes'/'no', 'on'/'off' (any case)."""
    flag = _FLAGS.get(text.strip().lower())
    if flag is None:
        raise ValueError(
            f"{variable}: cannot read {text!r} as a flag (use 1/0, true/false, yes/no, on/off)"
        )
    return flag


def parse_debug(variable: str, text: str) -> int:
    """A level 0-3 (higher levels print as 3 does), or a flag word (yes is 1, no is 0)."""
    word = text.strip()
    if word.isdigit():
        return int(word)
    try:
        return int(parse_flag(variable, word))
    except ValueError:
        raise ValueError(
            f"{variable}: cannot read {text!r} as a debug level (use 0, 1, 2, 3, or yes/no)"
        ) from None


def parse_size(variable: str, text: str) -> int:
    """A byte count: '1073741824', '512MiB', '1GiB', '1.5GB', '64KB' (KB/MB/GB decimal,
    KiB/MiB/GiB binary; units in any case)."""
    match = _SIZE.fullmatch(text.strip().lower())
    if match is None or match.group(2) not in _UNITS:
        raise ValueError(
            f"{variable}: cannot read {text!r} as a size (examples: 1GiB, 512MiB, 1GB, 1048576)"
        )
    number, unit = match.groups()
    return int(float(number) * _UNITS[unit]) if "." in number else int(number) * _UNITS[unit]


def _read(variable: str, parse, default):
    text = os.environ.get(variable, "")
    return default if not text.strip() else parse(variable, text)


def _device_name() -> str:
    return (
        os.environ.get("LAZYINFINI_DEVICE", "").strip()
        or os.environ.get("LAZYINFINI_EXECUTOR", "").strip()
    )


def from_environment() -> Options:
    """The options the LAZYINFINI_* variables ask for (defaults where unset or empty)."""
    return Options(
        device=_device_name() or Options.device,
        fuse=_read("LAZYINFINI_FUSE", parse_flag, Options.fuse),
        strict=_read("LAZYINFINI_STRICT", parse_flag, Options.strict),
        debug=_read("LAZYINFINI_DEBUG", parse_debug, Options.debug),
        pool_bytes=_read("LAZYINFINI_POOL_BYTES", parse_size, Options.pool_bytes),
    )


_current: contextvars.ContextVar[Options] = contextvars.ContextVar(
    "lazyinfini_options",
    default=from_environment(),  # noqa: B039 (Options is a frozen dataclass)
)


def current() -> Options:
    return _current.get()


# -- changing options in code -----------------------------------------------------------------


def _check_changes(func: str, changes: dict) -> None:
    """Names and value types of `options(**changes)`: TypeError/ValueError naming `func`."""
    known = {f.name for f in dataclasses.fields(Options)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise TypeError(f"{func}: unknown option(s) {unknown}; known: {sorted(known)}")
    for name in ("fuse", "strict"):
        if name in changes and not isinstance(changes[name], bool):
            raise TypeError(f"{func}: {name} must be True or False, got {changes[name]!r}")
    debug = changes.get("debug", 0)  # NOTE: True is level 1, as LAZYINFINI_DEBUG=yes is
    if not isinstance(debug, int) or debug < 0:
        raise ValueError(f"{func}: debug must be a level 0-3, got {debug!r}")
    pool = changes.get("pool_bytes", 0)
    if not isinstance(pool, int) or isinstance(pool, bool) or pool < 0:
        raise ValueError(f"{func}: pool_bytes must be a non-negative int, got {pool!r}")
    if "device" in changes:
        from ._device import get_device  # NOTE: the registry, not a backend

        # NOTE: raises ValueError naming the known devices; kept by its name ("cuda" is
        # "cuda:0"), which realize() and the placement's common cases compare
        changes["device"] = get_device(changes["device"]).name


@contextlib.contextmanager
def options(**changes):
    """Change options inside a `with` block: ``with li.options(fuse=False): ...``."""
    changes = _aliased("options", changes)
    _check_changes("options", changes)
    token = _current.set(dataclasses.replace(_current.get(), **changes))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def set_options(**changes) -> None:
    """Change options for the rest of the program (or of the calling context, in a thread or
    task that copied it)."""
    changes = _aliased("set_options", changes)
    _check_changes("set_options", changes)
    # NOTE: set, not a dropped `with` block: a generator's cleanup would undo it at once.
    _current.set(dataclasses.replace(_current.get(), **changes))


def _aliased(func: str, changes: dict) -> dict:
    """`executor=` is the older name of `device=` (`executor="reference"` picks the reference
    device); giving both is an error."""
    if "executor" not in changes:
        return changes
    if "device" in changes:
        raise TypeError(f"{func}: give device= or its alias executor=, not both")
    changes = dict(changes)
    changes["device"] = changes.pop("executor")
    return changes
