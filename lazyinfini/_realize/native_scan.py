"""The schedule cache's scan in C, part of the native extension's source (native.py builds it):
`scan` is cache._scan over the same objects, `mark` is _graph.mark_evaluated.
"""

# The function's contract is cache._scan's: (order, srcs, parts, fills, held, evaluated, calls).
SCAN = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyObject *BUFFER, *FULL, *LINKED, *BUFFER_PART, *ARG_KEY, *DTYPE;
static PyObject *s_op, *s_srcs, *s_shape, *s_dtype, *s_arg, *s_source, *s_realized,
    *s_evaluated, *s_holder, *s_part, *s_arg_key, *s_n, *s_strides, *s_siblings, *s_memory,
    *s_scan, *s_position;
static PyObject *s_device, *s_data, *s_known_layout; /* recording's too */

/* A _graph.Node's fields are slots: read and written at their offsets in the object, which
   setup() takes from the type's member descriptors (a dict lookup each, before: ~250 of them
   in a cached lookup of a 38-node step). A field not set yet (the facts worked out once) is
   NULL there. */
enum { F_OP, F_SRCS, F_SHAPE, F_DTYPE, F_ARG, F_SOURCE, F_REALIZED, F_HOLDER, F_EVALUATED,
       F_MEMORY, F_ARG_KEY, F_PART, F_SIBLINGS, F_SCAN, F_POSITION, FIELDS };
static PyObject **FIELD_NAMES[FIELDS] = {&s_op, &s_srcs, &s_shape, &s_dtype, &s_arg, &s_source,
    &s_realized, &s_holder, &s_evaluated, &s_memory, &s_arg_key, &s_part, &s_siblings, &s_scan,
    &s_position};
static PyTypeObject *NODE_TYPE;
static Py_ssize_t OFFSET[FIELDS];
#define SLOT(node, f) (*(PyObject **)((char *)(node) + OFFSET[f]))

/* node's field f (borrowed), NULL where not set (no error): a Node's slot; NULL for any other
   object (none is) */
static PyObject *peek(PyObject *node, int f) {
    return Py_TYPE(node) == NODE_TYPE ? SLOT(node, f) : NULL;
}

/* node's field f (a new reference); AttributeError where not set */
static PyObject *field(PyObject *node, int f) {
    PyObject *value = peek(node, f);
    if (value != NULL) return Py_NewRef(value);
    return PyObject_GetAttr(node, *FIELD_NAMES[f]);
}

/* A Node's late write (Node.__setattr__ refuses every assignment); 0, or -1: an error */
static int set_field(PyObject *node, int f, PyObject *value) {
    if (Py_TYPE(node) != NODE_TYPE)
        return PyObject_GenericSetAttr(node, *FIELD_NAMES[f], value);
    Py_XSETREF(SLOT(node, f), Py_NewRef(value));
    return 0;
}

/* The offsets of Node's fields, from its member descriptors; 0, or -1: an error */
static int node_offsets(PyObject *type) {
    if (!PyType_Check(type)) return PyErr_Format(PyExc_TypeError, "setup: Node"), -1;
    for (int f = 0; f < FIELDS; f++) {
        PyObject *slot = PyDict_GetItemWithError(((PyTypeObject *)type)->tp_dict,
                                                 *FIELD_NAMES[f]);
        if (slot == NULL || !Py_IS_TYPE(slot, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)slot)->d_member->type != T_OBJECT_EX) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "setup: Node.%U is no slot", *FIELD_NAMES[f]);
            return -1;
        }
        OFFSET[f] = ((PyMemberDescrObject *)slot)->d_member->offset;
    }
    Py_INCREF(type);
    NODE_TYPE = (PyTypeObject *)type;
    return 0;
}

/* node.realized or node (new reference) */
static PyObject *resolved(PyObject *node) {
    PyObject *link = field(node, F_REALIZED);
    if (link == Py_None) Py_SETREF(link, Py_NewRef(node));
    return link;
}

/* _graph.held_by(node) is not None */
static int is_held(PyObject *node) {
    PyObject *ref = peek(node, F_HOLDER);
    if (ref == NULL || ref == Py_None) return 0;
    PyObject *array = PyWeakref_GetObject(ref);
    if (array == NULL) return -1;
    if (array == Py_None) return 0;
    PyObject *held = PyObject_GetAttr(array, s_n);
    if (held == NULL) return -1;
    Py_DECREF(held);
    return held == node;
}

/* A scan's state. A node's position in its order is kept in the node's own slots (the scan's
   token, an object made per scan, and the position), where a dict took a lookup per read (~4
   per node: a third of a scan); any other object, in `others`. The walk runs under realize's
   lock: one scan at a time marks nodes. */
typedef struct {
    PyObject *order, *srcs, *parts, *token, *others, *firsts, *fills, *held;
    int evaluated, calls, keeps;
} Scan;

/* node's position in s's order (borrowed), NULL where it is not placed yet (no error, but
   a dict's for another object) */
static PyObject *position_in(Scan *s, PyObject *node) {
    if (Py_TYPE(node) == NODE_TYPE)
        return SLOT(node, F_SCAN) == s->token ? SLOT(node, F_POSITION) : NULL;
    return s->others == NULL ? NULL : PyDict_GetItemWithError(s->others, node);
}

/* node is at position `at` of s's order; 0, or -1 */
static int set_position(Scan *s, PyObject *node, PyObject *at) {
    if (Py_TYPE(node) == NODE_TYPE) {
        Py_XSETREF(SLOT(node, F_SCAN), Py_NewRef(s->token));
        Py_XSETREF(SLOT(node, F_POSITION), Py_NewRef(at));
        return 0;
    }
    if (s->others == NULL && (s->others = PyDict_New()) == NULL) return -1;
    return PyDict_SetItem(s->others, node, at);
}

/* Push node's unplaced inputs (after node itself) or collect its input positions. */
static int inputs_of(Scan *s, PyObject *stack, PyObject *node, PyObject **out) {
    PyObject *srcs = field(node, F_SRCS);
    if (srcs == NULL) return -1;
    PyObject *inputs = PyTuple_New(PyTuple_GET_SIZE(srcs)); /* NOTE: unfilled where waiting */
    int waiting = 0, failed = inputs == NULL;
    for (Py_ssize_t k = 0; !failed && k < PyTuple_GET_SIZE(srcs); k++) {
        PyObject *src = resolved(PyTuple_GET_ITEM(srcs, k));
        if (src == NULL) { failed = 1; break; }
        PyObject *j = position_in(s, src);
        if (j == NULL && PyErr_Occurred()) failed = 1;
        else if (j == NULL) {
            if (!waiting && PyList_Append(stack, node) < 0) failed = 1;
            waiting = 1;
            if (!failed && PyList_Append(stack, src) < 0) failed = 1;
        } else if (!waiting) {
            Py_INCREF(j);
            PyTuple_SET_ITEM(inputs, k, j);
        }
        Py_DECREF(src);
    }
    Py_DECREF(srcs);
    if (failed || waiting) { Py_XDECREF(inputs); *out = NULL; return failed ? -1 : 0; }
    *out = inputs;
    return 0;
}

/* A tuple of ints, bools, strings, None, dtypes and such tuples: _graph.frozen keys it as an
   equal tuple (clip's (has_min, has_max), a reduction's (("axis", (0,)), ("keepdims", False),
   ("dtype", dtype('float64')))). */
static int plain(PyObject *tuple) {
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple); k++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, k);
        if (PyTuple_CheckExact(item)) {
            if (!plain(item)) return 0;
        } else if (!(PyLong_CheckExact(item) || PyBool_Check(item) ||
                     PyUnicode_CheckExact(item) || item == Py_None ||
                     PyObject_TypeCheck(item, (PyTypeObject *)DTYPE)))
            return 0;
    }
    return 1;
}

/* _graph.arg_key(node): kept in the node once worked out (a new reference). A Python float
   (every scalar operand) is keyed here as _graph.frozen keys it: (float, its bits). */
static PyObject *arg_key(PyObject *node, PyObject *arg) {
    PyObject *key = peek(node, F_ARG_KEY);
    if (key != NULL) return Py_NewRef(key);
    if (PyTuple_CheckExact(arg) ? plain(arg) : PyLong_CheckExact(arg) ||
        PyUnicode_CheckExact(arg) || PyBool_Check(arg)) {
        Py_INCREF(arg); /* NOTE: _graph.frozen keeps these as they are */
        return arg;
    }
    if (!PyFloat_CheckExact(arg)) return PyObject_CallOneArg(ARG_KEY, node);
    char bits[8];
    if (PyFloat_Pack8(PyFloat_AS_DOUBLE(arg), bits, 1) < 0) return NULL;
    PyObject *packed = PyBytes_FromStringAndSize(bits, 8);
    key = packed == NULL ? NULL : PyTuple_Pack(2, (PyObject *)&PyFloat_Type, packed);
    Py_XDECREF(packed);
    if (key != NULL && set_field(node, F_ARG_KEY, key) < 0) Py_CLEAR(key);
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
static PyObject *part_of(Scan *s, PyObject *node, PyObject *op, PyObject *at,
                         PyObject *inputs) {
    PyObject *arg = field(node, F_ARG), *key;
    if (arg == NULL) return NULL;
    if (arg == Py_None && op != FULL) key = arg;
    else {
        key = arg_key(node, arg);
        Py_DECREF(arg);
        if (key == NULL) return NULL;
    }
    PyObject *shape = field(node, F_SHAPE), *dtype = field(node, F_DTYPE);
    PyObject *source = field(node, F_SOURCE), *part = NULL;
    if (shape && dtype && source)
        part = op == FULL ? fill_part(s, key, at, shape, dtype, source)
                          : PyTuple_Pack(6, op, shape, dtype, key, inputs, source);
    Py_DECREF(key); Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(source);
    return part;
}

/* cache._buffer_part: (BUFFER, shape, dtype, strides, device, source), kept on the node. The
   strides are Buffer.strides's: its stand-in layout's, else its data's. */
static PyObject *buffer_part(PyObject *node) {
    PyObject *arg = field(node, F_ARG), *fields = NULL, *strides = NULL, *part = NULL;
    if (arg != NULL && Py_TYPE(arg)->tp_dictoffset != 0)
        fields = PyObject_GenericGetDict(arg, NULL);
    if (fields == NULL) { /* NOTE: not the Buffer this expects: the Python function knows */
        PyErr_Clear();
        Py_XDECREF(arg);
        return PyObject_CallOneArg(BUFFER_PART, node);
    }
    PyObject *known = PyDict_GetItemWithError(fields, s_known_layout);
    PyObject *device = PyDict_GetItemWithError(fields, s_device);
    PyObject *data = PyDict_GetItemWithError(fields, s_data);
    if (device != NULL && (known != NULL || data != NULL)) {
        if (known != NULL && known != Py_None) strides = PyObject_GetAttr(known, s_strides);
        else if (data != NULL) {
            PyObject *found = PyObject_GetAttr(data, s_strides);
            strides = found == NULL ? NULL : PySequence_Tuple(found);
            Py_XDECREF(found);
        }
    }
    PyObject *shape = field(node, F_SHAPE), *dtype = field(node, F_DTYPE);
    PyObject *source = field(node, F_SOURCE);
    if (strides && shape && dtype && source)
        part = PyTuple_Pack(6, BUFFER, shape, dtype, strides, device, source);
    else { /* NOTE: data without strides (a dask array's stand-in): the Python function's */
        PyErr_Clear();
        part = PyObject_CallOneArg(BUFFER_PART, node);
    }
    if (part != NULL && set_field(node, F_PART, part) < 0) Py_CLEAR(part);
    Py_XDECREF(strides); Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(source);
    Py_DECREF(fields); Py_DECREF(arg);
    return part;
}

/* Place node at the end of the order; its facts and its key part. */
static int place(Scan *s, PyObject *node, PyObject *inputs) {
    Py_ssize_t i = PyList_GET_SIZE(s->order);
    PyObject *at = PyLong_FromSsize_t(i);
    if (at == NULL || set_position(s, node, at) < 0) { Py_XDECREF(at); return -1; }
    if (PyList_Append(s->order, node) < 0 || PyList_Append(s->srcs, inputs) < 0) {
        Py_DECREF(at); return -1;
    }
    PyObject *op = field(node, F_OP), *part = NULL;
    if (op == NULL) { Py_DECREF(at); return -1; }
    if (op == BUFFER) {
        part = peek(node, F_PART);
        part = part != NULL ? Py_NewRef(part) : buffer_part(node);
    } else {
        PyObject *ev = field(node, F_EVALUATED);
        int truth = ev == NULL ? -1 : PyObject_IsTrue(ev);
        Py_XDECREF(ev);
        int held = truth < 0 ? -1 : s->keeps ? is_held(node) : 0;
        int linked = held < 0 || s->calls ? 0 : PySet_Contains(LINKED, op);
        if (truth >= 0 && held >= 0 && linked >= 0) {
            s->evaluated |= truth;
            s->calls |= linked;
            if (!held || PyList_Append(s->held, at) == 0)
                part = part_of(s, node, op, at, inputs);
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
        Py_SET_SIZE((PyVarObject *)stack, last); /* NOTE: list.pop's way: its reference is ours */
        int placed = position_in(s, node) != NULL, failed = !placed && PyErr_Occurred();
        if (!failed && !placed) failed = inputs_of(s, stack, node, &inputs) < 0;
        if (!failed && inputs != NULL) failed = place(s, node, inputs) < 0;
        Py_XDECREF(inputs); Py_DECREF(node);
        if (failed) return -1;
    }
    return 0;
}

/* Walk the `pending` nodes (a list) into s (its fields are cleared by scan_clear); 0 or -1. */
static int scan_into(Scan *s, PyObject *pending, PyObject *keeps) {
    s->order = PyList_New(0); s->srcs = PyList_New(0); s->parts = PyList_New(0);
    s->token = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
    s->others = NULL; s->firsts = PyDict_New(); s->fills = PyDict_New();
    s->held = PyList_New(0);
    s->evaluated = s->calls = 0;
    s->keeps = PyObject_IsTrue(keeps);
    PyObject *stack = PyList_New(0);
    int failed = !s->order || !s->srcs || !s->parts || !s->token || !s->firsts || !s->fills ||
                 !s->held || !stack || s->keeps < 0;
    for (Py_ssize_t k = PyList_GET_SIZE(pending) - 1; !failed && k >= 0; k--) {
        PyObject *node = resolved(PyList_GET_ITEM(pending, k));
        failed = node == NULL || PyList_Append(stack, node) < 0;
        Py_XDECREF(node);
    }
    if (!failed) failed = walk(s, stack) < 0;
    Py_XDECREF(stack);
    return failed ? -1 : 0;
}

static void scan_clear(Scan *s) {
    Py_CLEAR(s->order); Py_CLEAR(s->srcs); Py_CLEAR(s->parts); Py_CLEAR(s->token);
    Py_CLEAR(s->others);
    Py_CLEAR(s->firsts); Py_CLEAR(s->fills); Py_CLEAR(s->held);
}

/* cache._scan's result: (order, srcs, parts, fills, held, evaluated, calls) */
static PyObject *scanned(Scan *s) {
    PyObject *held = PyList_AsTuple(s->held);
    if (held == NULL) return NULL;
    return Py_BuildValue("(OOOONOO)", s->order, s->srcs, s->parts, s->fills, held,
                         s->evaluated ? Py_True : Py_False, s->calls ? Py_True : Py_False);
}

static PyObject *scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_Check(args[0]) || BUFFER == NULL) {
        PyErr_SetString(PyExc_TypeError, "scan(pending: list, keeps: bool) after setup()");
        return NULL;
    }
    Scan s = {NULL};
    PyObject *result = scan_into(&s, args[0], args[1]) == 0 ? scanned(&s) : NULL;
    scan_clear(&s);
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
        PyObject *op = field(node, F_OP);
        int failed = op == NULL;
        if (!failed && op != BUFFER) failed = set_field(node, F_EVALUATED, Py_True) < 0;
        Py_XDECREF(op);
        if (failed) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *JOB, *BOUND_FILL; /* cache.Job, cache._bound_fill: the hit's (native_hit.py) */

static PyObject *setup(PyObject *self, PyObject *args) {
    PyObject *node;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &BUFFER, &FULL, &LINKED, &BUFFER_PART, &ARG_KEY,
                          &JOB, &BOUND_FILL, &DTYPE, &node))
        return NULL;
    if (!PyType_Check(DTYPE) || node_offsets(node) < 0) {
        BUFFER = NULL; /* NOTE: not set up: scan and lookup refuse to run */
        return PyType_Check(DTYPE) ? NULL : PyErr_Format(PyExc_TypeError, "setup: numpy.dtype");
    }
    Py_INCREF(BUFFER); Py_INCREF(FULL); Py_INCREF(LINKED); Py_INCREF(BUFFER_PART);
    Py_INCREF(ARG_KEY); Py_INCREF(JOB); Py_INCREF(BOUND_FILL); Py_INCREF(DTYPE);
    Py_RETURN_NONE;
}


"""
