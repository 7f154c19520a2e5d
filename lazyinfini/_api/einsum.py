"""`einsum`: numpy's Einstein summation, lowered to the lazy namespace functions.

Extension (not the standard's), numpy's semantics
(https://numpy.org/doc/stable/reference/generated/numpy.einsum.html): explicit (`ij,jk->ik`) and
implicit (`ij,jk`) outputs, `...` broadcasting, a label repeated in one operand (a diagonal),
labels summed away, any number of operands. Nothing is computed here: each operand's diagonals
are `linalg.diagonal`, labels no one else needs are `sum`med away at once, and operands are
contracted two at a time (the pair with the smallest result first) with `matmul`, or with
`multiply` where the pair shares no summed label.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _dtypes
from .._array import Array
from . import statistics
from .checks import error
from .data_types import astype
from .elementwise import multiply, not_equal
from .linear_algebra import matmul
from .manipulation import permute_dims, reshape

# NOTE: the axes `...` stands for get the labels "...0", "...1" (right-aligned across
# operands, as broadcasting aligns them); no letter clashes with them.
ELLIPSIS = "..."


@dataclass(frozen=True)
class Subscripts:
    """Parsed subscripts: one label per axis of each operand, and the output's labels."""

    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]

    def __repr__(self) -> str:
        terms = ",".join(" ".join(t) for t in self.inputs)
        return f"Subscripts({terms} -> {' '.join(self.output)})"


@dataclass(frozen=True)
class Term:
    """An operand on its way: the array and the label of each of its axes."""

    array: Array
    labels: tuple[str, ...]


def einsum(subscripts, /, *operands) -> Array:
    """The Einstein summation of `operands` as `subscripts` say (an extension: numpy's einsum).
    https://numpy.org/doc/stable/reference/generated/numpy.einsum.html"""
    arrays = [_operand(i, x) for i, x in enumerate(operands)]
    dtype = _result_dtype(arrays)
    parsed = parse_subscripts(subscripts, [x.ndim for x in arrays])
    sizes = label_sizes(parsed, [x.shape for x in arrays])
    # Note: numpy sums booleans with `or` and multiplies them with `and`: a count of the true
    # products, then whether it is nonzero, gives the same.
    work = _dtypes.int64 if dtype == _dtypes.bool else dtype
    terms = [_prepare(Term(x, labels), work, sizes) for x, labels in zip(arrays, parsed.inputs)]
    result = _contract_all(terms, parsed.output, sizes)
    return not_equal(result, 0) if dtype == _dtypes.bool else result


def _operand(index: int, x) -> Array:
    """An operand; numpy arrays are accepted as constants (as matmul does)."""
    if isinstance(x, np.ndarray):
        from .creation import operand

        return operand(x)
    if not isinstance(x, Array):
        message = f"operand {index} must be a lazyinfini array, got {type(x).__name__}"
        raise error(TypeError, "einsum", message)
    return x


def _result_dtype(arrays: list[Array]) -> np.dtype:
    if not arrays:
        raise error(ValueError, "einsum", "needs at least one operand")
    dtype = _dtypes.promote(*(x.dtype for x in arrays))
    if dtype is None:
        names = ", ".join(x.dtype.name for x in arrays)
        raise error(TypeError, "einsum", f"operands of dtypes {names} have no common dtype")
    return dtype


# -- parsing -----------------------------------------------------------------------------------


def _fail(subscripts: str, message: str) -> Exception:
    return error(ValueError, "einsum", f"subscripts {subscripts!r}: {message}")


def parse_subscripts(subscripts, ndims: list[int]) -> Subscripts:
    """`subscripts` checked against operands of `ndims` axes, the ellipsis made labels; worked
    out once per (subscripts, ndims): a script's loop calls one einsum again (~20 us)."""
    key = (subscripts, tuple(ndims)) if type(subscripts) is str else None
    parsed = _PARSED.get(key) if key is not None else None
    if parsed is None:
        parsed = _parsed(subscripts, ndims)
        if key is not None:
            if len(_PARSED) >= 1024:
                _PARSED.clear()
            _PARSED[key] = parsed
    return parsed


_PARSED: dict = {}


def _parsed(subscripts, ndims: list[int]) -> Subscripts:
    if not isinstance(subscripts, str):
        raise error(TypeError, "einsum", f"subscripts must be a str, got {subscripts!r}")
    text = "".join(subscripts.split())
    if text.count("->") > 1:
        raise _fail(subscripts, "has more than one '->'")
    left, arrow, right = text.partition("->")
    terms = left.split(",")
    if len(terms) != len(ndims):
        raise _fail(subscripts, f"names {len(terms)} operands, got {len(ndims)}")
    letters = [_letters(subscripts, term, f"operand {i}") for i, term in enumerate(terms)]
    counts = [_ellipsis_count(subscripts, i, t, n) for i, (t, n) in enumerate(zip(letters, ndims))]
    hidden = tuple(f"{ELLIPSIS}{i}" for i in range(max(counts, default=0)))
    inputs = tuple(
        _with_ellipsis(term, hidden[len(hidden) - count :]) for term, count in zip(letters, counts)
    )
    if arrow:
        output = _explicit_output(subscripts, right, inputs, hidden)
    else:
        once = [a for a in {*_flat(letters)} - {ELLIPSIS} if _flat(letters).count(a) == 1]
        output = hidden + tuple(sorted(once))
    return Subscripts(inputs, output)


def _flat(terms) -> list[str]:
    return [label for term in terms for label in term]


def _letters(subscripts: str, term: str, where: str) -> list[str]:
    """A term's labels, `...` one item; anything but letters and one ellipsis fails."""
    parts = term.split(ELLIPSIS)
    if len(parts) > 2:
        raise _fail(subscripts, f"{where} has more than one '...'")
    for char in "".join(parts):
        if not (char.isascii() and char.isalpha()):
            raise _fail(subscripts, f"{where} has {char!r}; labels are letters a-z, A-Z")
    return [*parts[0]] + ([ELLIPSIS, *parts[1]] if len(parts) == 2 else [])


def _ellipsis_count(subscripts: str, index: int, term: list[str], ndim: int) -> int:
    """How many axes the term's ellipsis stands for (none without one)."""
    named = len(term) - term.count(ELLIPSIS)
    if named > ndim or (named < ndim and ELLIPSIS not in term):
        shown = f"{named} or fewer" if ELLIPSIS in term else str(named)
        raise _fail(subscripts, f"operand {index} has {ndim} axes, its subscripts name {shown}")
    return ndim - named


def _with_ellipsis(term: list[str], hidden: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(b for a in term for b in (hidden if a == ELLIPSIS else (a,)))


def _explicit_output(subscripts: str, right: str, inputs, hidden) -> tuple[str, ...]:
    """The output after '->': labels of the inputs, each once; `...` where hidden axes exist."""
    term = _letters(subscripts, right, "the output")
    seen = set(_flat(inputs))
    for label in term:
        if term.count(label) > 1:
            raise _fail(subscripts, f"output label {label} appears more than once")
        if label != ELLIPSIS and label not in seen:
            raise _fail(subscripts, f"output label {label} is in no operand")
    if hidden and ELLIPSIS not in term:
        raise _fail(subscripts, "the operands' '...' axes need a '...' in the output")
    return _with_ellipsis(term, hidden)


def label_sizes(parsed: Subscripts, shapes) -> dict[str, int]:
    """Each label's length: equal within an operand, equal or 1 (broadcast) across operands."""
    sizes: dict[str, int] = {}
    for index, (labels, shape) in enumerate(zip(parsed.inputs, shapes)):
        own: dict[str, int] = {}
        for label, size in zip(labels, shape):
            if own.setdefault(label, size) != size:
                message = f"operand {index} has lengths {own[label]} and {size} for label {label}"
                raise error(ValueError, "einsum", message)
        for label, size in own.items():
            known = sizes.setdefault(label, size)
            if size != known and 1 not in (size, known):
                message = f"label {label} has lengths {known} and {size}, which do not broadcast"
                raise error(ValueError, "einsum", message)
            sizes[label] = size if known == 1 else known
    return sizes


# -- lowering ----------------------------------------------------------------------------------


def _prepare(term: Term, dtype: np.dtype, sizes: dict[str, int]) -> Term:
    """The operand cast, its repeated labels made diagonals, its broadcast axes dropped."""
    array = term.array if term.array.dtype == dtype else astype(term.array, dtype)
    term = Term(array, term.labels)
    while len(set(term.labels)) < len(term.labels):
        term = _diagonal(term)
    # NOTE: an axis of length 1 broadcast against a longer one holds one value along it: the
    # operand without that axis is the same operand for every later step.
    keep = [i for i, label in enumerate(term.labels) if term.array.shape[i] == sizes[label]]
    if len(keep) < len(term.labels):
        shape = tuple(term.array.shape[i] for i in keep)
        term = Term(reshape(term.array, shape), tuple(term.labels[i] for i in keep))
    return term


def _diagonal(term: Term) -> Term:
    """The term with the first repeated label's first two axes made their diagonal (last)."""
    from ..linalg import diagonal  # NOTE: imported at first use (li.linalg loads on first use)

    label = next(a for a in term.labels if term.labels.count(a) > 1)
    first = term.labels.index(label)
    second = term.labels.index(label, first + 1)
    rest = [i for i in range(len(term.labels)) if i not in (first, second)]
    moved = _permuted(term.array, (*rest, first, second))
    return Term(diagonal(moved), tuple(term.labels[i] for i in rest) + (label,))


def _permuted(x: Array, axes) -> Array:
    axes = tuple(axes)
    return x if axes == tuple(range(x.ndim)) else permute_dims(x, axes)


def _lengths(term: Term, labels) -> tuple[int, ...]:
    return tuple(term.array.shape[term.labels.index(a)] for a in labels)


def _arranged(term: Term, labels) -> Array:
    """The term's array with its axes in the order of `labels` (which it must all have)."""
    return _permuted(term.array, (term.labels.index(a) for a in labels))


def _summed(term: Term, needed: set[str]) -> Term:
    """The term with the labels not in `needed` summed away."""
    axes = tuple(i for i, a in enumerate(term.labels) if a not in needed)
    if not axes:
        return term
    array = statistics.sum(term.array, axis=axes, dtype=term.array.dtype)
    return Term(array, tuple(a for a in term.labels if a in needed))


def _contract_all(terms: list[Term], output: tuple[str, ...], sizes: dict[str, int]) -> Array:
    """The terms contracted two at a time, then summed and ordered as the output."""
    while len(terms) > 1:
        i, j = _cheapest_pair(terms, output, sizes)
        others = [t for k, t in enumerate(terms) if k not in (i, j)]
        needed = {*output, *_flat(t.labels for t in others)}
        pair = _summed(terms[i], needed | set(terms[j].labels))
        pair_other = _summed(terms[j], needed | set(pair.labels))
        terms = [*others[:i], _contract(pair, pair_other, needed), *others[i:]]
    last = _summed(terms[0], set(output))
    return _arranged(last, output)


def _cheapest_pair(terms: list[Term], output, sizes: dict[str, int]) -> tuple[int, int]:
    """The pair whose product is smallest (the first such pair, reading left to right)."""

    def cost(pair: tuple[int, int]) -> int:
        others = [t for k, t in enumerate(terms) if k not in pair]
        needed = {*output, *_flat(t.labels for t in others)}
        kept = {a for k in pair for a in terms[k].labels if a in needed}
        return math.prod(sizes[a] for a in kept)

    pairs = [(i, j) for i in range(len(terms)) for j in range(i + 1, len(terms))]
    return min(pairs, key=cost)


def _contract(a: Term, b: Term, needed: set[str]) -> Term:
    """a and b multiplied, their shared labels not in `needed` summed: (batch, a's, b's)."""
    shared = [x for x in a.labels if x in b.labels]
    batch = [x for x in shared if x in needed]
    summed = [x for x in shared if x not in needed]
    own_a = [x for x in a.labels if x not in shared]
    own_b = [x for x in b.labels if x not in shared]
    labels = (*batch, *own_a, *own_b)
    if not summed:
        # A broadcasting product: a as (batch, a's, 1...), b as (batch, 1..., b's).
        outer = _lengths(a, batch)
        left = reshape(
            _arranged(a, (*batch, *own_a)), (*outer, *_lengths(a, own_a), *[1] * len(own_b))
        )
        right = reshape(
            _arranged(b, (*batch, *own_b)), (*outer, *[1] * len(own_a), *_lengths(b, own_b))
        )
        return Term(multiply(left, right), labels)
    return Term(_matmul(a, b, batch, summed, own_a, own_b), labels)


def _matmul(a: Term, b: Term, batch, summed, own_a, own_b) -> Array:
    """The contraction as one batched matrix product: (batch, M, K) @ (batch, K, N)."""
    outer, rows, cols = _lengths(a, batch), _lengths(a, own_a), _lengths(b, own_b)
    inner = math.prod(_lengths(a, summed))
    left = reshape(_arranged(a, (*batch, *own_a, *summed)), (*outer, math.prod(rows), inner))
    right = reshape(_arranged(b, (*batch, *summed, *own_b)), (*outer, inner, math.prod(cols)))
    return reshape(matmul(left, right), (*outer, *rows, *cols))
