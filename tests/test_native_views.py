"""A view's link and an array's node reads in C (_realize/native_views.py) against the Python
functions they replace: the same View (storage, steps merged alike, read-only, version seen),
the same members, the same values."""

from __future__ import annotations

import numpy as np
import pytest

import lazyinfini as li
from lazyinfini._api import views
from lazyinfini._realize import native as _native


def _link_pair():
    """(the Python link, its C twin), the extension loaded."""
    np.asarray(li.asarray(np.ones(1)) + 1.0)  # NOTE: realize loaded: its twins registered
    assert _native.wait()
    pairs = {python.__name__: (python, c) for python, c in _native.Native.replaced}
    return pairs["link"]


@pytest.fixture
def python_link():
    """Every module's link is the Python function while the test runs."""
    python, compiled = _link_pair()
    _native._rebind(((compiled, python),))
    try:
        yield python
    finally:
        _native._rebind(((python, compiled),))


# Programs of views (a base, then what they take, write and read): each returns the arrays to
# compare, the last a value computed from the others.
def _slices(a):
    b = a[1:]
    c = b[:, 1:]  # NOTE: a slice of a slice merges into one step
    return [a, b, c]


def _permutes(a):
    t = a.T
    u = np.transpose(t, (1, 0))  # NOTE: a permute of a permute merges
    return [a, t, u, u[None]]


def _reshapes(a):
    r = np.reshape(a, (-1,))
    s = np.reshape(r, (4, 3))  # NOTE: a reshape of a reshape merges
    return [a, r, s, s[..., None]]


def _broadcast(a):
    row = a[0]
    wide = np.broadcast_to(row, (5, 4))  # NOTE: read-only, as numpy's
    return [a, row, wide, wide[1:]]


def _written(a):
    b = a[1:]
    t = b.T
    b[0, 0] = 100.0  # NOTE: t is stale until it replays the write
    stale = t.shape, t.dtype, t.ndim
    return [a, b, t, t[0], stale]


def _viewed_again(a):
    x = a + 1.0  # NOTE: no view yet: adopted as a storage's root by its first link
    views_ = [x[i] for i in range(3)]
    views_[1][0] = -1.0
    return [x, *views_, x.T]


PROGRAMS = [_slices, _permutes, _reshapes, _broadcast, _written, _viewed_again]


def _facts(arrays):
    """What each array is: its class, its View's steps, read-only flag and seen version, its
    storage's live member count, and its values."""
    facts = []
    for x in arrays:
        if not isinstance(x, li.Array):
            facts.append(x)
            continue
        view = x._view
        if view is None:
            facts.append((type(x).__name__, np.asarray(x).tolist()))
            continue
        live = sum(ref() is not None for ref in view.storage.members.values())
        facts.append(
            (type(x).__name__, view.steps, view.readonly, view.seen, live, np.asarray(x).tolist())
        )
    return facts


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_the_c_link_makes_the_views_python_makes(program, python_link):
    base = np.arange(12.0).reshape(3, 4)
    theirs = _facts(program(li.asarray(base)))
    assert views.link is python_link
    _native._rebind(((python_link, _link_pair()[1]),))
    assert views.link is not python_link
    ours = _facts(program(li.asarray(base)))
    assert ours == theirs
    numpy_views = program(base.copy())
    assert [f[-1] for f in ours if isinstance(f, tuple) and f and isinstance(f[0], str)] == [
        v.tolist() for v in numpy_views if isinstance(v, np.ndarray)
    ]


def test_the_c_node_reads_are_the_python_properties():
    _link_pair()
    assert isinstance(li.Array.__dict__["_node"].fget, type(len))  # NOTE: a builtin
    a = li.asarray(np.arange(6.0).reshape(2, 3))
    y = a * 2.0
    v = y.T
    for x in (a, y, v, v[1:]):
        node = x._n if type(x) is li.Array else views.Shared.__dict__["_n"].fget(x)
        assert x.shape == node.shape and x.dtype == node.dtype and x.ndim == len(node.shape)
    pending = y._node
    np.asarray(y)
    assert pending.realized is not None and y._node is pending.realized
    assert y._n is pending.realized  # NOTE: the slot keeps the buffer, as the Python one did


def test_a_failed_link_gives_the_lock_back():
    _, compiled = _link_pair()
    a = li.asarray(np.ones(3))
    with pytest.raises(AssertionError):
        compiled(a, a)
    with pytest.raises(TypeError):
        compiled(a, li.asarray(np.ones(3)), shared=True)
    assert views._LOCK.acquire(blocking=False)  # NOTE: not held by a failed call
    views._LOCK.release()


def test_the_c_transpose_records_what_the_python_property_records():
    _link_pair()
    python = li.Array.__dict__["T"]
    assert isinstance(python.fget, type(len))  # NOTE: the C getter is installed
    from lazyinfini._api import manipulation

    for values in (np.arange(6.0).reshape(2, 3), np.ones((1, 4), np.float32)):
        made = []
        for take in (lambda x: x.T, lambda x: manipulation.transposed(x)):
            x = li.asarray(values) * 1.0
            t = take(x)
            node = t._n
            made.append((node.op, node.shape, node.dtype, node.arg, node.source[-30:],
                          node.srcs[0] is x._n, type(t).__name__, t._view.steps,
                          np.asarray(t).tolist()))  # fmt: skip
        assert made[0] == made[1]
        assert made[0][-1] == values.T.tolist()
    for shape in ((3,), (2, 3, 4), ()):  # NOTE: numpy reverses the axes: the Python getter's
        values = np.arange(float(np.prod(shape))).reshape(shape)
        assert np.asarray(li.asarray(values).T).tolist() == values.T.tolist()
