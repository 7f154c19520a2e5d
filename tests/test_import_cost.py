"""`import lazyinfini` loads only what recording needs (issue #12, fixed costs): the scheduler,
the cache, the runtime and numpy's function protocol load at first use, networkx at the first
graph. In a fresh interpreter, as the modules an import loads are the point."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import lazyinfini as li

DEFERRED = (
    "networkx",
    "lazyinfini._realize.cache",
    "lazyinfini._numpy_functions",
    "lazyinfini._numpy_twins",
    "lazyinfini._render",
    "lazyinfini._runtime",
    "lazyinfini._schedule",
    "lazyinfini._see",
)

PROGRAM = f"""
import sys

def loaded():
    return [name for name in {DEFERRED!r} if name in sys.modules]

import lazyinfini as li

assert loaded() == [], ("import", loaded())
x = li.asarray([1.0, 2.0])
y = x - 1
assert loaded() == [], ("record", loaded())
li.graph(y)
assert "networkx" in sys.modules
assert "lazyinfini._runtime" not in sys.modules, "graph runs nothing"
assert float(y[0]) == 0.0
assert "lazyinfini._runtime" in sys.modules and "lazyinfini._schedule" in sys.modules
print("ok")
"""


def _run(program: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_and_recording_load_no_scheduler_runtime_or_networkx():
    assert _run(PROGRAM).strip() == "ok"


def test_names_loaded_at_first_use_are_listed_and_work():
    program = """
    import lazyinfini as li
    from lazyinfini import CPU, NumpyFallbackWarning, einsum, explain, fft, inspect, linalg
    from lazyinfini import rearrange, to_dot, visualize
    from lazyinfini import *  # noqa: F403

    assert set(li.__all__) <= set(dir(li)), set(li.__all__) - set(dir(li))
    assert CPU is li.CPU and CPU.name == "cpu" and fft is li.fft and linalg is li.linalg
    assert issubclass(NumpyFallbackWarning, Warning) and inspect.graph is li.graph
    y = einsum("ij->j", li.ones((2, 3)))
    assert rearrange(y, "j -> j").shape == (3,)
    assert "kernel" in explain(y) and to_dot(y).startswith("digraph")
    assert float(li.fft.fft(li.ones(4))[0].real) == 4.0
    print("ok")
    """
    assert _run(program).strip() == "ok"


def test_public_names_match_all():
    public = {name for name in dir(li) if not name.startswith("_")}
    assert public == {name for name in li.__all__ if not name.startswith("_")}
    for name in li.__all__:
        assert hasattr(li, name), name


def test_unknown_names_still_raise_with_a_hint():
    try:
        li.hstack  # noqa: B018
    except AttributeError as e:
        assert "concat" in str(e)
    else:
        raise AssertionError("li.hstack should not exist")
