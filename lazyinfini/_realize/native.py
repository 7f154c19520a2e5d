"""The schedule cache's scan in C: a CPython extension built by the system compiler at first use.

Every materialization walks its pending graph and builds the cache key (`cache._scan`): a few
microseconds of Python per node, most of what a cached small materialization costs after its
kernel. `scan` here is the same function over the same objects, ~5x faster. It is built once per
machine into the kernel cache (`_render/compile.py`'s directory), in a background thread started
at the first materialization, so no run waits for the compiler; until it is loaded (and wherever
no compiler or no Python headers are found) the cache runs the Python scan. Both give the same
result: `tests/test_native.py` compares them on the fuzz's programs.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading

import numpy as np

from .native_hit import HIT
from .native_indexing import INDEXING
from .native_operators import HOOKS, LOADED, OPERATORS, run_hook
from .native_realize import REALIZE
from .native_recording import RECORDING
from .native_scan import SCAN
from .native_views import ARRAYS, VIEWS

# The extension's C: the scan, recording's functions, the hit, the operators, views' link, an
# array's node reads, basic indexing, realize's common case, then the module's table.
MODULE = r"""
static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, "the cache's scan"},
    {"mark", mark, METH_O, "mark_evaluated"},
    {"lookup", (PyCFunction)(void (*)(void))lookup, METH_FASTCALL, "the cache's hit"},
    {"setup", setup, METH_VARARGS, "the objects scan compares with and calls"},
    {"quick_node", (PyCFunction)(void (*)(void))quick_node, METH_FASTCALL, "_graph.quick_node"},
    {"made", (PyCFunction)(void (*)(void))made, METH_FASTCALL, "_graph.node._made"},
    {"caller_source", (PyCFunction)(void (*)(void))caller_source, METH_FASTCALL,
     "_graph.caller_source"},
    {"buffer_node", (PyCFunction)(void (*)(void))buffer_node, METH_VARARGS | METH_KEYWORDS,
     "_graph.buffer_node"},
    {"swap", (PyCFunction)(void (*)(void))swap, METH_FASTCALL, "_realize._swap"},
    {"setup_recording", setup_recording, METH_VARARGS, "the objects recording makes and reads"},
    {"operator", make_operator, METH_VARARGS, "an Array operator"},
    {"in_place", make_in_place, METH_VARARGS, "an Array in-place operator"},
    {"reduction", make_reduction, METH_VARARGS, "an Array reduction method"},
    {"array_function", make_array_function, METH_VARARGS, "Array.__array_function__"},
    {"array_ufunc", make_array_ufunc, METH_VARARGS, "Array.__array_ufunc__"},
    {"setup_operators", setup_operators, METH_VARARGS, "the objects the operators read"},
    {"getitem", make_getitem, METH_VARARGS, "Array.__getitem__"},
    {"link", (PyCFunction)(void (*)(void))view_link, METH_FASTCALL | METH_KEYWORDS,
     "_api.views.link"},
    {"setup_views", setup_views, METH_VARARGS, "the objects link makes, takes and calls"},
    {"shared_n", shared_n, METH_O, "Shared._n"},
    {"array_node", array_node, METH_O, "Array._node"},
    {"array_shape", array_shape, METH_O, "Array.shape"},
    {"array_dtype", array_dtype, METH_O, "Array.dtype"},
    {"array_ndim", array_ndim, METH_O, "Array.ndim"},
    {"array_t", array_t, METH_O, "Array.T"},
    {"setup_realize", setup_realize, METH_VARARGS, "the objects realize_one reads and calls"},
    {"realize_one", realize_one, METH_O, "realize(array)'s common case"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "lazyinfini_scan", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_lazyinfini_scan(void) {
    PyObject **names[] = {&s_op, &s_srcs, &s_shape, &s_dtype, &s_arg, &s_source, &s_realized,
                          &s_evaluated, &s_holder, &s_part, &s_arg_key, &s_n, &s_strides,
                          &s_siblings};
    const char *texts[] = {"op", "srcs", "shape", "dtype", "arg", "source", "realized",
                           "evaluated", "holder", "part", "arg_key", "_n", "strides",
                           "siblings"};
    for (int k = 0; k < 14; k++)
        if ((*names[k] = PyUnicode_InternFromString(texts[k])) == NULL) return NULL;
    s_memory = PyUnicode_InternFromString("memory");
    s_scan = PyUnicode_InternFromString("scan");
    s_position = PyUnicode_InternFromString("position");
    if (s_scan == NULL || s_position == NULL) return NULL;
    s_device = PyUnicode_InternFromString("device");
    s_data = PyUnicode_InternFromString("data");
    s_known_layout = PyUnicode_InternFromString("known_layout");
    CPU = PyUnicode_InternFromString("cpu");
    if (!s_device || !s_data || !s_known_layout || !CPU) return NULL;
    EMPTY = PyTuple_New(0);
    NOTHING = PyUnicode_FromString("");
    if (s_memory == NULL || EMPTY == NULL || NOTHING == NULL) return NULL;
    if (hit_names() < 0) return NULL;
    return PyModule_Create(&module);
}
"""

SOURCE = SCAN + RECORDING + HIT + OPERATORS + VIEWS + ARRAYS + INDEXING + REALIZE + MODULE
NAME = "lazyinfini_scan"
_FLAGS = ("-O2", "-shared", "-fPIC", "-fno-strict-aliasing")


# (a Python function, the name of its C twin in the module), rebound as _graph's are (twin()):
# realize's swap, registered by realize's _load
TWINS: list = []


class Native:
    """The compiled scan, once loaded (None until then, or where none can be built)."""

    scan = None
    mark = None  # _graph.mark_evaluated
    lookup = None  # ScheduleCache.prepare's common case (native_hit.py)
    replaced: tuple = ()  # (Python function, its C twin) rebound in lazyinfini's modules
    started = False
    done = threading.Event()
    error: str = ""


def start(objects: tuple) -> None:
    """Load the scan now where a build is cached, else build it in a background thread; the
    cache uses it from the materialization after it is loaded. `objects` are what it compares
    with and calls: (BUFFER, FULL, LINKED, buffer_part, arg_key, Job, _bound_fill, np.dtype,
    Node)."""
    if Native.started:
        return
    Native.started = True
    if os.environ.get("LAZYINFINI_NATIVE", "1") == "0":
        return _finish("turned off by LAZYINFINI_NATIVE=0")
    try:
        path = _path()
    except Exception as error:  # NOTE: no compiler, no headers, a cache dir not ours: Python
        return _finish(str(error))
    if os.path.exists(path):
        return _load(path, objects)
    threading.Thread(target=_build_and_load, args=(path, objects), daemon=True).start()


def wait(timeout: float = 60.0) -> bool:
    """Whether the compiled scan is loaded, once its build (if any) has ended."""
    Native.done.wait(timeout)
    return Native.scan is not None


def _path() -> str:
    from .._render.compile import cache_dir, compiler

    found = compiler()
    headers = sysconfig.get_paths()["include"]
    if found is None or not os.path.exists(os.path.join(headers, "Python.h")):
        raise ValueError("no C compiler or no Python headers")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    key = "\0".join((SOURCE, *_FLAGS, found[1], headers, sys.version, suffix))
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return os.path.join(cache_dir(), f"scan-{digest}", NAME + suffix)


def _build_and_load(path: str, objects: tuple) -> None:
    try:
        _build(path)
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        return _finish(f"build failed: {error}")
    _load(path, objects)


def _build(path: str) -> None:
    from .._render.compile import compiler

    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as work:
        source, built = os.path.join(work, "scan.c"), os.path.join(work, "scan.so")
        with open(source, "w") as handle:
            handle.write(SOURCE)
        include = "-I" + sysconfig.get_paths()["include"]
        command = [compiler()[0], *_FLAGS, include, source, "-o", built]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ValueError(done.stderr.strip()[-500:])
        os.replace(built, path)  # NOTE: atomic: another process may be loading it


def _load(path: str, objects: tuple) -> None:
    try:
        loader = importlib.machinery.ExtensionFileLoader(NAME, path)
        spec = importlib.util.spec_from_file_location(NAME, path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        module.setup(*objects)
    except (ImportError, OSError) as error:
        return _finish(f"load failed: {error}")
    Native.scan, Native.mark, Native.lookup = module.scan, module.mark, module.lookup
    _install(module)
    _finish("")


def _install(module) -> None:
    """Recording's most frequent calls in C from now on: quick_node and caller_source (each
    recorded op calls both), the node's making behind Node() (_made), buffer_node and
    realize's swap (TWINS: each computed value is one) are rebound in every loaded
    lazyinfini module that imported them by name; the C functions share the Python ones'
    tables (the lines known)."""
    from .._graph import node

    module.setup_recording(
        node.Node, node._OWN, node.memory_of, node._NAMES, node._LINES, node.name_of,
        node._MAX_LINES, node.Buffer, node.HOST, np.ndarray,
    )  # fmt: skip
    LOADED.append(module)  # NOTE: first: a twin or hook registered from now on installs itself
    Native.replaced = (
        (node.quick_node, module.quick_node),
        (node._made, module.made),
        (node.caller_source, module.caller_source),
        (node.buffer_node, module.buffer_node),
        *((python, getattr(module, name)) for python, name in TWINS),
    )
    for hook in list(HOOKS):  # NOTE: what the layers above install (Array's operators)
        run_hook(hook, module)
    _rebind(Native.replaced)


def twin(python, name: str) -> None:
    """`python` is replaced by the module's function `name` wherever a lazyinfini module
    imported it: from now on if the module is loaded, else once it is."""
    TWINS.append((python, name))
    if LOADED:
        pair = (python, getattr(LOADED[0], name))
        Native.replaced = (*Native.replaced, pair)
        _rebind((pair,))


def _rebind(pairs: tuple) -> None:
    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("lazyinfini"):
            names = vars(loaded)
            for name, value in list(names.items()):
                for python, compiled in pairs:
                    if value is python:
                        names[name] = compiled


def _finish(error: str) -> None:
    Native.error = error
    Native.done.set()
