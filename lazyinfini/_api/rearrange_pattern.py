"""`rearrange`: einops-style axis patterns, lowered to reshape -> permute_dims -> reshape.

Extension (not the standard's). Semantics follow einops' `rearrange`
(https://einops.rocks/api/rearrange/): `"b c (h p) w -> b h (p w c)"` names the input's axes on
the left, splitting composite `( )` axes whose lengths are given as keywords (one length per
group may be inferred), and the output's on the right; `...` stands for the axes not named,
`()` and `1` for a length-1 axis. Every axis appears once on each side.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .._array import Array
from .checks import check_array, check_int, error
from .manipulation import permute_dims, reshape

# NOTE: the ellipsis is one token inside a parsed side; its axes get the names "...0", "...1",
# which no identifier can clash with.
ELLIPSIS = "..."
_TOKEN = re.compile(r"\.\.\.|\(|\)|\w+|\S")


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: each side a tuple of groups, a group a tuple of axis names (or the
    ellipsis); a bare axis is a group of one, `()` and `1` an empty group."""

    text: str
    left: tuple[tuple[str, ...], ...]
    right: tuple[tuple[str, ...], ...]

    def __repr__(self) -> str:
        return f"Pattern({self.text!r})"


@dataclass(frozen=True)
class PatternSteps:
    """The lowering: reshape to `split` (the left's axes, one by one), permute by `axes` (into
    the right's order), reshape to `shape` (the right's groups)."""

    split: tuple[int, ...]
    axes: tuple[int, ...]
    shape: tuple[int, ...]

    def __repr__(self) -> str:
        return f"PatternSteps(split={self.split}, axes={self.axes}, shape={self.shape})"


def rearrange(x, pattern, /, **axis_lengths) -> Array:
    """x with its axes split, reordered and merged as `pattern` says (an extension: einops').
    https://einops.rocks/api/rearrange/"""
    check_array("rearrange", "x", x)
    parsed = parse_pattern(pattern)
    steps = plan_pattern(parsed, x.shape, axis_lengths)
    y = reshape(x, steps.split)
    if steps.axes != tuple(range(len(steps.axes))):
        y = permute_dims(y, steps.axes)
    return reshape(y, steps.shape)


# -- parsing -----------------------------------------------------------------------------------


def _fail(pattern: str, message: str, exc: type[Exception] = ValueError) -> Exception:
    return error(exc, "rearrange", f"pattern {pattern!r}: {message}")


def parse_pattern(pattern) -> Pattern:
    """`pattern` checked and split into its two sides' groups."""
    if not isinstance(pattern, str):
        raise error(TypeError, "rearrange", f"pattern must be a str, got {type(pattern).__name__}")
    if pattern.count("->") != 1:
        raise _fail(pattern, "needs exactly one '->' between the input's and the output's axes")
    left, right = (_parse_side(pattern, side) for side in pattern.split("->"))
    if any(isinstance(g, tuple) and ELLIPSIS in g for g in left):
        raise _fail(pattern, "the ellipsis cannot be inside parentheses on the left")
    _check_axes(pattern, left, right)
    return Pattern(pattern, left, right)


def _parse_side(pattern: str, side: str) -> tuple[tuple[str, ...] | str, ...]:
    """One side's groups; `1` inside a group is dropped (it multiplies by one)."""
    groups: list[tuple[str, ...] | str] = []
    group: list[str] | None = None
    for token in _TOKEN.findall(side):
        if token == "(":
            if group is not None:
                raise _fail(pattern, "parentheses cannot nest")
            group = []
        elif token == ")":
            if group is None:
                raise _fail(pattern, "unbalanced parentheses")
            groups.append(tuple(group))
            group = None
        elif group is not None:
            group.extend(_axis_name(pattern, token))
        else:
            # NOTE: a bare ellipsis stays a str (its axes stay separate); in a group, a name.
            groups.append(ELLIPSIS if token == ELLIPSIS else tuple(_axis_name(pattern, token)))
    if group is not None:
        raise _fail(pattern, "unbalanced parentheses")
    return tuple(groups)


def _axis_name(pattern: str, token: str) -> tuple[str, ...]:
    """A token as the names it contributes: `1` none, else a name (or the ellipsis)."""
    if token == "1":
        return ()
    if token.isdigit():
        raise _fail(pattern, f"axis {token}: only 1 may be an unnamed axis")
    if token != ELLIPSIS and not token.isidentifier():
        raise _fail(pattern, f"unexpected {token!r}")
    return (token,)


def _flat(groups) -> list[str]:
    return [a for group in groups for a in ((group,) if isinstance(group, str) else group)]


def _check_axes(pattern: str, left, right) -> None:
    """Each axis (and the ellipsis) once per side and on both sides."""
    names = []
    for groups in (left, right):
        flat = _flat(groups)
        repeated = sorted({a for a in flat if flat.count(a) > 1})
        if repeated:
            raise _fail(pattern, f"axis {', '.join(repeated)} appears twice on one side")
        names.append(set(flat))
    sides = (("left", names[0] - names[1]), ("right", names[1] - names[0]))
    one_side = [
        f"axis {', '.join(sorted(only))} only on the {side}" for side, only in sides if only
    ]
    if one_side:
        raise _fail(pattern, f"every axis must be on both sides: {'; '.join(one_side)}")


# -- lowering ----------------------------------------------------------------------------------


def plan_pattern(pattern: Pattern, shape: tuple[int, ...], axis_lengths: dict) -> PatternSteps:
    """The reshape -> permute -> reshape computing `pattern` on an array of `shape`."""
    lengths = _given_lengths(pattern, axis_lengths)
    left, right = _expand(pattern, pattern.left, shape), _expand(pattern, pattern.right, shape)
    for group, size in zip(left, shape, strict=True):
        lengths.update(_group_lengths(pattern, group, size, lengths))
    order = _flat(left)
    split = tuple(lengths[a] for a in order)
    axes = tuple(order.index(a) for a in _flat(right))
    out = tuple(math.prod(lengths[a] for a in group) for group in right)
    return PatternSteps(split, axes, out)


def _given_lengths(pattern: Pattern, axis_lengths: dict) -> dict[str, int]:
    """The keyword lengths, each a non-negative int of an axis the pattern names."""
    names = set(_flat(pattern.left))
    lengths = {}
    for name, value in axis_lengths.items():
        if name not in names:
            raise _fail(pattern.text, f"axis {name} is given a length but is not in the pattern")
        lengths[name] = check_int("rearrange", f"length of axis {name}", value, minimum=0)
    return lengths


def _expand(pattern: Pattern, groups, shape: tuple[int, ...]) -> list[tuple[str, ...]]:
    """The groups with the ellipsis replaced by the axes it stands for, "...0", "...1", ..."""
    fixed = sum(1 for g in pattern.left if g != ELLIPSIS)
    count = len(shape) - fixed
    if count < 0 or (count and ELLIPSIS not in pattern.left):
        axes = f"{fixed} or more" if ELLIPSIS in pattern.left else str(fixed)
        raise _fail(pattern.text, f"names {axes} axes, x has {len(shape)}: shape {shape}")
    hidden = tuple(f"{ELLIPSIS}{i}" for i in range(count))
    expanded: list[tuple[str, ...]] = []
    for group in groups:
        if group == ELLIPSIS:
            expanded.extend((a,) for a in hidden)
        else:
            expanded.append(tuple(b for a in group for b in (hidden if a == ELLIPSIS else (a,))))
    return expanded


def _group_lengths(pattern: Pattern, group, size: int, known: dict) -> dict[str, int]:
    """The lengths of one left group's axes, an input axis of `size` (one may be inferred)."""
    unknown = [a for a in group if a not in known]
    product = math.prod(known[a] for a in group if a in known)
    shown = f"({' '.join(group)})" if len(group) != 1 else group[0]
    if len(unknown) > 1:
        missing = ", ".join(unknown)
        raise _fail(pattern.text, f"axes {missing} of {shown} need lengths (one may be inferred)")
    if unknown and product and size % product == 0:
        return {unknown[0]: size // product}
    if unknown:
        message = f"length {size} of axis {shown} is not divisible by {_lengths_text(group, known)}"
    elif product != size:
        message = f"axis {shown} has length {size}, not {_lengths_text(group, known)}"
    else:
        return {}
    raise _fail(pattern.text, message)


def _lengths_text(group, known: dict) -> str:
    """`h=4 * w=2`: the lengths given for a group's axes (an empty group's is 1)."""
    return " * ".join(f"{a}={known[a]}" for a in group if a in known) or "1"
