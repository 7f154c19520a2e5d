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

# The function's contract is cache._scan's: (order, srcs, parts, fills, held, evaluated, calls).
SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *BUFFER, *FULL, *LINKED, *BUFFER_PART, *ARG_KEY;
static PyObject *s_op, *s_srcs, *s_shape, *s_dtype, *s_arg, *s_source, *s_realized,
    *s_evaluated, *s_holder, *s_part, *s_arg_key, *s_n;

/* A field of a node: from its own dict, else the class default (Node's late links). */
static PyObject *field(PyObject *dict, PyObject *node, PyObject *name) {
    PyObject *value = PyDict_GetItemWithError(dict, name);
    if (value != NULL) { Py_INCREF(value); return value; }
    if (PyErr_Occurred()) return NULL;
    return PyObject_GetAttr(node, name);
}

/* node.realized or node (new reference) */
static PyObject *resolved(PyObject *node) {
    PyObject *dict = PyObject_GenericGetDict(node, NULL);
    if (dict == NULL) return NULL;
    PyObject *link = PyDict_GetItemWithError(dict, s_realized);
    Py_DECREF(dict);
    if (link == NULL && PyErr_Occurred()) return NULL;
    if (link == NULL || link == Py_None) link = node;
    Py_INCREF(link);
    return link;
}

/* _graph.held_by(node) is not None */
static int is_held(PyObject *dict, PyObject *node) {
    PyObject *ref = PyDict_GetItemWithError(dict, s_holder);
    if (ref == NULL) return PyErr_Occurred() ? -1 : 0;
    if (ref == Py_None) return 0;
    PyObject *array = PyWeakref_GetObject(ref);
    if (array == NULL) return -1;
    if (array == Py_None) return 0;
    PyObject *held = PyObject_GetAttr(array, s_n);
    if (held == NULL) return -1;
    Py_DECREF(held);
    return held == node;
}

typedef struct {
    PyObject *order, *srcs, *parts, *position, *firsts, *fills, *held;
    int evaluated, calls, keeps;
} Scan;

/* Push node's unplaced inputs (after node itself) or collect its input positions. */
static int inputs_of(Scan *s, PyObject *stack, PyObject *node, PyObject *dict, PyObject **out) {
    PyObject *srcs = field(dict, node, s_srcs);
    if (srcs == NULL) return -1;
    PyObject *inputs = PyList_New(0);
    int waiting = 0, failed = inputs == NULL;
    for (Py_ssize_t k = 0; !failed && k < PyTuple_GET_SIZE(srcs); k++) {
        PyObject *src = resolved(PyTuple_GET_ITEM(srcs, k));
        if (src == NULL) { failed = 1; break; }
        PyObject *j = PyDict_GetItemWithError(s->position, src);
        if (j == NULL && PyErr_Occurred()) failed = 1;
        else if (j == NULL) {
            if (!waiting && PyList_Append(stack, node) < 0) failed = 1;
            waiting = 1;
            if (!failed && PyList_Append(stack, src) < 0) failed = 1;
        } else if (PyList_Append(inputs, j) < 0) failed = 1;
        Py_DECREF(src);
    }
    Py_DECREF(srcs);
    if (failed) { Py_XDECREF(inputs); return -1; }
    if (waiting) { Py_DECREF(inputs); *out = NULL; return 0; }
    *out = PyList_AsTuple(inputs);
    Py_DECREF(inputs);
    return *out == NULL ? -1 : 0;
}

/* A tuple of ints, bools, strings and None: _graph.frozen keys it as an equal tuple (clip's
   (has_min, has_max), an axis tuple). */
static int plain(PyObject *tuple) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); k++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, k);
        if (!(PyLong_CheckExact(item) || PyBool_Check(item) || PyUnicode_CheckExact(item) ||
              item == Py_None))
            return 0;
    }
    return 1;
}

/* _graph.arg_key(node): kept in the node's dict once worked out (a new reference). A Python
   float (every scalar operand) is keyed here as _graph.frozen keys it: (float, its bits). */
static PyObject *arg_key(PyObject *node, PyObject *dict, PyObject *arg) {
    PyObject *key = PyDict_GetItemWithError(dict, s_arg_key);
    if (key != NULL) { Py_INCREF(key); return key; }
    if (PyErr_Occurred()) return NULL;
    if (PyTuple_CheckExact(arg) && plain(arg)) { Py_INCREF(arg); return arg; }
    if (!PyFloat_CheckExact(arg)) return PyObject_CallOneArg(ARG_KEY, node);
    char bits[8];
    if (PyFloat_Pack8(PyFloat_AS_DOUBLE(arg), bits, 1) < 0) return NULL;
    PyObject *packed = PyBytes_FromStringAndSize(bits, 8);
    key = packed == NULL ? NULL : PyTuple_Pack(2, (PyObject *)&PyFloat_Type, packed);
    Py_XDECREF(packed);
    if (key != NULL && PyDict_SetItem(dict, s_arg_key, key) < 0) Py_CLEAR(key);
    return key;
}

/* _cache._fill_part: a fill's place among equal fills, its value key kept in fills. */
static PyObject *fill_part(Scan *s, PyObject *key, PyObject *at,
                           PyObject *shape, PyObject *dtype, PyObject *source) {
    if (PyDict_SetItem(s->fills, at, key) < 0) return NULL;
    PyObject *same = PyTuple_Pack(3, shape, dtype, key);
    if (same == NULL) return NULL;
    PyObject *first = PyDict_SetDefault(s->firsts, same, at);
    Py_DECREF(same);
    if (first == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
        PyErr_Clear(); /* a value that is no key merges with no other fill */
        first = at;
    }
    return PyTuple_Pack(5, FULL, shape, dtype, first, source);
}

/* The key part of a node that is not a buffer (a new reference). */
static PyObject *part_of(Scan *s, PyObject *node, PyObject *dict, PyObject *op, PyObject *at,
                         PyObject *inputs) {
    PyObject *arg = field(dict, node, s_arg), *key;
    if (arg == NULL) return NULL;
    if (arg == Py_None && op != FULL) key = arg;
    else {
        key = arg_key(node, dict, arg);
        Py_DECREF(arg);
        if (key == NULL) return NULL;
    }
    PyObject *shape = field(dict, node, s_shape), *dtype = field(dict, node, s_dtype);
    PyObject *source = field(dict, node, s_source), *part = NULL;
    if (shape && dtype && source)
        part = op == FULL ? fill_part(s, key, at, shape, dtype, source)
                          : PyTuple_Pack(6, op, shape, dtype, key, inputs, source);
    Py_DECREF(key); Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(source);
    return part;
}

/* Place node at the end of the order; its facts and its key part. */
static int place(Scan *s, PyObject *node, PyObject *dict, PyObject *inputs) {
    Py_ssize_t i = PyList_GET_SIZE(s->order);
    PyObject *at = PyLong_FromSsize_t(i);
    if (at == NULL || PyDict_SetItem(s->position, node, at) < 0) { Py_XDECREF(at); return -1; }
    if (PyList_Append(s->order, node) < 0 || PyList_Append(s->srcs, inputs) < 0) {
        Py_DECREF(at); return -1;
    }
    PyObject *op = field(dict, node, s_op), *part = NULL;
    if (op == NULL) { Py_DECREF(at); return -1; }
    if (op == BUFFER) {
        part = PyDict_GetItemWithError(dict, s_part);
        if (part != NULL) Py_INCREF(part);
        else if (!PyErr_Occurred()) part = PyObject_CallOneArg(BUFFER_PART, node);
    } else {
        PyObject *ev = field(dict, node, s_evaluated);
        int truth = ev == NULL ? -1 : PyObject_IsTrue(ev);
        Py_XDECREF(ev);
        int held = truth < 0 ? -1 : s->keeps ? is_held(dict, node) : 0;
        int linked = held < 0 || s->calls ? 0 : PySet_Contains(LINKED, op);
        if (truth >= 0 && held >= 0 && linked >= 0) {
            s->evaluated |= truth;
            s->calls |= linked;
            if (!held || PyList_Append(s->held, at) == 0)
                part = part_of(s, node, dict, op, at, inputs);
        }
    }
    Py_DECREF(op); Py_DECREF(at);
    if (part == NULL) return -1;
    int failed = PyList_Append(s->parts, part);
    Py_DECREF(part);
    return failed;
}

static int walk(Scan *s, PyObject *stack) {
    while (PyList_GET_SIZE(stack) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *node = PyList_GET_ITEM(stack, last), *inputs = NULL;
        Py_INCREF(node);
        if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) { Py_DECREF(node); return -1; }
        int placed = PyDict_Contains(s->position, node);
        PyObject *dict = placed ? NULL : PyObject_GenericGetDict(node, NULL);
        int failed = placed < 0 || (!placed && dict == NULL);
        if (!failed && !placed) failed = inputs_of(s, stack, node, dict, &inputs) < 0;
        if (!failed && inputs != NULL) failed = place(s, node, dict, inputs) < 0;
        Py_XDECREF(inputs); Py_XDECREF(dict); Py_DECREF(node);
        if (failed) return -1;
    }
    return 0;
}

static PyObject *scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0]) || BUFFER == NULL) {
        PyErr_SetString(PyExc_TypeError, "scan(pending: list, keeps: bool) after setup()");
        return NULL;
    }
    Scan s = {PyList_New(0), PyList_New(0), PyList_New(0), PyDict_New(), PyDict_New(),
              PyDict_New(), PyList_New(0), 0, 0, PyObject_IsTrue(args[1])};
    PyObject *stack = PyList_New(0), *result = NULL;
    int failed = !s.order || !s.srcs || !s.parts || !s.position || !s.firsts || !s.fills ||
                 !s.held || !stack || s.keeps < 0;
    for (Py_ssize_t k = PyList_GET_SIZE(args[0]) - 1; !failed && k >= 0; k--) {
        PyObject *node = resolved(PyList_GET_ITEM(args[0], k));
        failed = node == NULL || PyList_Append(stack, node) < 0;
        Py_XDECREF(node);
    }
    if (!failed && walk(&s, stack) == 0) {
        PyObject *held = PyList_AsTuple(s.held);
        if (held != NULL)
            result = Py_BuildValue("(OOOONOO)", s.order, s.srcs, s.parts, s.fills, held,
                                   s.evaluated ? Py_True : Py_False, s.calls ? Py_True : Py_False);
    }
    Py_XDECREF(stack); Py_XDECREF(s.order); Py_XDECREF(s.srcs); Py_XDECREF(s.parts);
    Py_XDECREF(s.position); Py_XDECREF(s.firsts); Py_XDECREF(s.fills); Py_XDECREF(s.held);
    return result;
}

/* _graph.mark_evaluated(order): every node but the buffers was computed. */
static PyObject *mark(PyObject *self, PyObject *order) {
    if (!PyList_Check(order) || BUFFER == NULL) {
        PyErr_SetString(PyExc_TypeError, "mark(order: list) after setup()");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(order); k++) {
        PyObject *node = PyList_GET_ITEM(order, k);
        PyObject *dict = PyObject_GenericGetDict(node, NULL);
        PyObject *op = dict == NULL ? NULL : field(dict, node, s_op);
        int failed = op == NULL;
        if (!failed && op != BUFFER) failed = PyDict_SetItem(dict, s_evaluated, Py_True) < 0;
        Py_XDECREF(op); Py_XDECREF(dict);
        if (failed) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *setup(PyObject *self, PyObject *args) {
    if (!PyArg_ParseTuple(args, "OOOOO", &BUFFER, &FULL, &LINKED, &BUFFER_PART, &ARG_KEY))
        return NULL;
    Py_INCREF(BUFFER); Py_INCREF(FULL); Py_INCREF(LINKED); Py_INCREF(BUFFER_PART);
    Py_INCREF(ARG_KEY);
    Py_RETURN_NONE;
}


/* -- recording: _graph.quick_node and _graph.caller_source, the same functions in C ---------- */

static PyObject *NODE, *OWN, *MEMORY_OF, *NAMES, *LINES, *NAME_OF, *EMPTY, *NOTHING, *s_memory;
static PyObject *BUFFER_TYPE, *HOST, *CPU, *s_device, *s_data, *s_known_layout;
static Py_ssize_t MAX_LINES;

/* A Node made as object.__new__(Node) is, its six fields (op, srcs, shape, dtype, arg, source)
   stored in its dict, which *dict receives (no __init__); NULL on failure. */
static PyObject *new_node(PyObject *const *values, PyObject **dict) {
    PyObject *node = PyBaseObject_Type.tp_new((PyTypeObject *)NODE, EMPTY, NULL);
    PyObject *fields[6] = {s_op, s_srcs, s_shape, s_dtype, s_arg, s_source};
    *dict = node == NULL ? NULL : PyObject_GenericGetDict(node, NULL);
    int failed = *dict == NULL;
    for (int k = 0; !failed && k < 6; k++) failed = PyDict_SetItem(*dict, fields[k], values[k]) < 0;
    if (failed) { Py_XDECREF(node); Py_CLEAR(*dict); }
    return failed ? NULL : node;
}

/* memory_of's common case (memories.py), stored in the new node's `dict`: every input's memory
   known, at most one memory among them. 1: stored; 0: not that case (memory_of decides); -1:
   an error. */
static int inline_memory(PyObject *srcs, PyObject *dict) {
    if (!PyTuple_CheckExact(srcs)) return 0;
    PyObject *found = Py_None;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(srcs); i++) {
        PyObject *src = PyTuple_GET_ITEM(srcs, i);
        PyObject *fields = PyObject_GenericGetDict(src, NULL);
        PyObject *realized = fields == NULL ? NULL : PyDict_GetItemWithError(fields, s_realized);
        if (realized != NULL && realized != Py_None)  /* src.realized or src */
            Py_SETREF(fields, PyObject_GenericGetDict(realized, NULL));
        if (fields == NULL || PyErr_Occurred()) { Py_XDECREF(fields); return -1; }
        /* borrowed: the node (alive: an input of the new node) holds its dict */
        PyObject *memory = PyDict_GetItemWithError(fields, s_memory);
        Py_DECREF(fields);
        if (memory == NULL) return PyErr_Occurred() ? -1 : 0;
        if (found != Py_None && memory != Py_None && memory != found) {
            int differ = PyObject_RichCompareBool(memory, found, Py_NE);
            if (differ != 0) return differ < 0 ? -1 : 0;
        }
        if (found == Py_None) found = memory;
    }
    return PyDict_SetItem(dict, s_memory, found) < 0 ? -1 : 1;
}

static PyObject *quick_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || NODE == NULL) {
        PyErr_SetString(PyExc_TypeError, "quick_node(op, srcs, shape, dtype, arg, source)");
        return NULL;
    }
    PyObject *dict, *node = new_node(args, &dict);
    int failed = node == NULL;
    if (!failed && PyDict_GET_SIZE(OWN) > 0) { /* memories of their own: as Node.__init__ */
        int inputs = PyObject_IsTrue(args[1]);
        int known = inputs > 0 && args[0] != BUFFER ? inline_memory(args[1], dict) : 0;
        if (inputs > 0 && known == 0) {
            PyObject *memory = PyObject_CallOneArg(MEMORY_OF, node);
            failed = memory == NULL;
            Py_XDECREF(memory);
        } else if (inputs == 0) failed = PyDict_SetItem(dict, s_memory, Py_None) < 0;
        else failed = inputs < 0 || known < 0;
    }
    Py_XDECREF(dict);
    if (failed) { Py_XDECREF(node); return NULL; }
    return node;
}

/* A BUFFER node holding `value`, an array of `device` (_graph.buffer_node): its Buffer made as
   object.__new__(Buffer) is, its three fields in its dict (the dataclass's __init__ stores). */
static PyObject *buffer_node(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"value", "source", "device", NULL};
    PyObject *value, *source = NOTHING, *device = CPU;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", keywords, &value, &source, &device))
        return NULL;
    if (BUFFER_TYPE == NULL) {
        PyErr_SetString(PyExc_TypeError, "buffer_node before setup_recording()");
        return NULL;
    }
    PyObject *shape = PyObject_GetAttr(value, s_shape), *dtype = NULL;
    if (shape != NULL && !PyTuple_CheckExact(shape)) Py_SETREF(shape, PySequence_Tuple(shape));
    if (shape != NULL) dtype = PyObject_GetAttr(value, s_dtype);
    PyObject *buffer = dtype == NULL ? NULL
        : PyBaseObject_Type.tp_new((PyTypeObject *)BUFFER_TYPE, EMPTY, NULL);
    PyObject *fields = buffer == NULL ? NULL : PyObject_GenericGetDict(buffer, NULL);
    int failed = fields == NULL || PyDict_SetItem(fields, s_device, device) < 0 ||
                 PyDict_SetItem(fields, s_data, value) < 0 ||
                 PyDict_SetItem(fields, s_known_layout, Py_None) < 0;
    Py_XDECREF(fields);
    PyObject *values[6] = {BUFFER, EMPTY, shape, dtype, buffer, source}, *dict = NULL;
    PyObject *node = failed ? NULL : new_node(values, &dict);
    failed = node == NULL;
    if (!failed && PyDict_GET_SIZE(OWN) > 0) { /* memory_of's answer for a buffer */
        PyObject *memory = PyDict_GetItemWithError(OWN, device);
        failed = (memory == NULL && PyErr_Occurred()) ||
                 PyDict_SetItem(dict, s_memory, memory == NULL ? HOST : memory) < 0;
    }
    Py_XDECREF(dict); Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(buffer);
    if (failed) { Py_XDECREF(node); return NULL; }
    return node;
}

/* "name:line" of a frame, kept per (id(code), instruction) in the Python function's table. */
static PyObject *line_of(PyObject *code, PyFrameObject *frame, PyObject *name) {
    PyObject *key = Py_BuildValue("(Ni)", PyLong_FromVoidPtr(code), PyFrame_GetLasti(frame));
    if (key == NULL) return NULL;
    PyObject *known = PyDict_GetItemWithError(LINES, key), *source = NULL, *entry = NULL;
    if (known != NULL && PyTuple_GET_ITEM(known, 0) == code) {
        source = PyTuple_GET_ITEM(known, 1);
        Py_INCREF(source);
    } else if (!PyErr_Occurred()) {
        if (PyDict_GET_SIZE(LINES) >= MAX_LINES) PyDict_Clear(LINES);
        int line = PyFrame_GetLineNumber(frame);
        source = line < 0 ? PyUnicode_FromFormat("%U:None", name)
                          : PyUnicode_FromFormat("%U:%d", name, line);
        entry = source == NULL ? NULL : PyTuple_Pack(2, code, source);
        if (entry == NULL || PyDict_SetItem(LINES, key, entry) < 0) Py_CLEAR(source);
        Py_XDECREF(entry);
    }
    Py_DECREF(key);
    return source;
}

/* The user's line: the first frame, `depth` up from the caller's (1), outside the package. */
static PyObject *caller_source(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    long depth = nargs == 1 ? PyLong_AsLong(args[0]) : 1;
    if (nargs > 1 || NAMES == NULL) {
        PyErr_SetString(PyExc_TypeError, "caller_source(depth=1)");
        return NULL;
    }
    if (depth == -1 && PyErr_Occurred()) return NULL;
    PyFrameObject *frame = PyEval_GetFrame(), *back;
    Py_XINCREF(frame);
    for (long k = 1; frame != NULL && k < depth; k++) {
        back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    while (frame != NULL) {
        PyObject *code = (PyObject *)PyFrame_GetCode(frame), *result = NULL;
        PyObject *file = ((PyCodeObject *)code)->co_filename;
        PyObject *name = PyDict_GetItemWithError(NAMES, file);
        if (name != NULL) Py_INCREF(name);
        else if (!PyErr_Occurred()) name = PyObject_CallOneArg(NAME_OF, file);
        if (name != NULL && PyUnicode_GET_LENGTH(name) > 0) result = line_of(code, frame, name);
        int done = name == NULL || result != NULL || PyErr_Occurred();
        Py_XDECREF(name);
        Py_DECREF(code);
        if (done) { Py_DECREF(frame); return result; }
        back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_INCREF(NOTHING);
    return NOTHING;
}

/* The objects the recording functions make and read (_graph.node's). */
static PyObject *setup_recording(PyObject *self, PyObject *args) {
    if (!PyArg_ParseTuple(args, "OO!OO!O!OnOO", &NODE, &PyDict_Type, &OWN, &MEMORY_OF,
                          &PyDict_Type, &NAMES, &PyDict_Type, &LINES, &NAME_OF, &MAX_LINES,
                          &BUFFER_TYPE, &HOST))
        return NULL;
    Py_INCREF(NODE); Py_INCREF(OWN); Py_INCREF(MEMORY_OF); Py_INCREF(NAMES); Py_INCREF(LINES);
    Py_INCREF(NAME_OF); Py_INCREF(BUFFER_TYPE); Py_INCREF(HOST);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_FASTCALL, "the cache's scan"},
    {"mark", mark, METH_O, "mark_evaluated"},
    {"setup", setup, METH_VARARGS, "the objects scan compares with and calls"},
    {"quick_node", (PyCFunction)(void (*)(void))quick_node, METH_FASTCALL, "_graph.quick_node"},
    {"caller_source", (PyCFunction)(void (*)(void))caller_source, METH_FASTCALL,
     "_graph.caller_source"},
    {"buffer_node", (PyCFunction)(void (*)(void))buffer_node, METH_VARARGS | METH_KEYWORDS,
     "_graph.buffer_node"},
    {"setup_recording", setup_recording, METH_VARARGS, "the objects recording makes and reads"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "lazyinfini_scan", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_lazyinfini_scan(void) {
    PyObject **names[] = {&s_op, &s_srcs, &s_shape, &s_dtype, &s_arg, &s_source, &s_realized,
                          &s_evaluated, &s_holder, &s_part, &s_arg_key, &s_n};
    const char *texts[] = {"op", "srcs", "shape", "dtype", "arg", "source", "realized",
                           "evaluated", "holder", "part", "arg_key", "_n"};
    for (int k = 0; k < 12; k++)
        if ((*names[k] = PyUnicode_InternFromString(texts[k])) == NULL) return NULL;
    s_memory = PyUnicode_InternFromString("memory");
    s_device = PyUnicode_InternFromString("device");
    s_data = PyUnicode_InternFromString("data");
    s_known_layout = PyUnicode_InternFromString("known_layout");
    CPU = PyUnicode_InternFromString("cpu");
    if (!s_device || !s_data || !s_known_layout || !CPU) return NULL;
    EMPTY = PyTuple_New(0);
    NOTHING = PyUnicode_FromString("");
    if (s_memory == NULL || EMPTY == NULL || NOTHING == NULL) return NULL;
    return PyModule_Create(&module);
}
"""

NAME = "lazyinfini_scan"
_FLAGS = ("-O2", "-shared", "-fPIC", "-fno-strict-aliasing")


class Native:
    """The compiled scan, once loaded (None until then, or where none can be built)."""

    scan = None
    mark = None  # _graph.mark_evaluated
    replaced: tuple = ()  # (Python function, its C twin) rebound in lazyinfini's modules
    started = False
    done = threading.Event()
    error: str = ""


def start(objects: tuple) -> None:
    """Load the scan now where a build is cached, else build it in a background thread; the
    cache uses it from the materialization after it is loaded. `objects` are what it compares
    with and calls: (BUFFER, FULL, LINKED, buffer_part, arg_key)."""
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
    Native.scan, Native.mark = module.scan, module.mark
    _install(module)
    _finish("")


def _install(module) -> None:
    """Recording's most frequent calls in C from now on: quick_node and caller_source (each
    recorded op calls both) and buffer_node (each computed value is one) are rebound in _graph
    and in every loaded lazyinfini module that imported them by name; the C functions share
    the Python ones' tables (the lines known)."""
    from .._graph import node

    module.setup_recording(
        node.Node, node._OWN, node.memory_of, node._NAMES, node._LINES, node.name_of,
        node._MAX_LINES, node.Buffer, node.HOST,
    )  # fmt: skip
    Native.replaced = (
        (node.quick_node, module.quick_node),
        (node.caller_source, module.caller_source),
        (node.buffer_node, module.buffer_node),
    )
    for loaded in list(sys.modules.values()):
        if getattr(loaded, "__name__", "").startswith("lazyinfini"):
            names = vars(loaded)
            for name, value in list(names.items()):
                for python, compiled in Native.replaced:
                    if value is python:
                        names[name] = compiled


def _finish(error: str) -> None:
    Native.error = error
    Native.done.set()
