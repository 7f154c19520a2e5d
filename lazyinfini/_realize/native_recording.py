"""Recording's most frequent calls in C, part of the native extension's source (native.py builds
it): `_graph.quick_node` and `_graph.caller_source` (every recorded op calls both),
`_graph.buffer_node` (every computed value is one) and `_realize._swap` (which makes that buffer
node and puts it in the array holding the value), the same functions over the same objects
(tests/test_native.py compares each pair).
"""

# NOTE: C, appended to native_scan.SCAN (it reads the names and objects declared there)
RECORDING = r"""
/* -- recording: _graph.quick_node and _graph.caller_source, the same functions in C ---------- */

static PyObject *OWN, *MEMORY_OF, *NAMES, *LINES, *NAME_OF, *EMPTY, *NOTHING;
static PyObject *BUFFER_TYPE, *HOST, *CPU;
static Py_ssize_t MAX_LINES;

/* A Node made as _graph.node._made makes one: its six fields (op, srcs, shape, dtype, arg,
   source) set, realized and holder None, evaluated False; NULL on failure. */
static PyObject *new_node(PyObject *const *values) {
    PyObject *node = NODE_TYPE->tp_alloc(NODE_TYPE, 0); /* NOTE: every slot NULL */
    if (node == NULL) return NULL;
    for (int f = F_OP; f <= F_SOURCE; f++) SLOT(node, f) = Py_NewRef(values[f - F_OP]);
    SLOT(node, F_REALIZED) = Py_NewRef(Py_None);
    SLOT(node, F_HOLDER) = Py_NewRef(Py_None);
    SLOT(node, F_EVALUATED) = Py_NewRef(Py_False);
    return node;
}

/* memory_of's common case (memories.py), set in the new `node`: every input's memory known,
   at most one memory among them. 1: set; 0: not that case (memory_of decides); -1: an
   error. */
static int inline_memory(PyObject *srcs, PyObject *node) {
    if (!PyTuple_CheckExact(srcs)) return 0;
    PyObject *found = Py_None;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(srcs); i++) {
        PyObject *src = PyTuple_GET_ITEM(srcs, i);
        PyObject *realized = peek(src, F_REALIZED);
        if (realized != NULL && realized != Py_None) src = realized; /* src.realized or src */
        /* borrowed: the node (alive: an input of the new node) holds it */
        PyObject *memory = peek(src, F_MEMORY);
        if (memory == NULL) return 0;
        if (found != Py_None && memory != Py_None && memory != found) {
            int differ = PyObject_RichCompareBool(memory, found, Py_NE);
            if (differ != 0) return differ < 0 ? -1 : 0;
        }
        if (found == Py_None) found = memory;
    }
    return set_field(node, F_MEMORY, found) < 0 ? -1 : 1;
}

/* _graph.node._made(op, srcs, shape, dtype, arg, source): a Node's fields set where Python
   sets them through a writable subclass's __setattr__ (~2 us: a wrapper call per field) */
static PyObject *made(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || NODE_TYPE == NULL) {
        PyErr_SetString(PyExc_TypeError, "made(op, srcs, shape, dtype, arg, source), set up");
        return NULL;
    }
    return new_node(args);
}

static PyObject *quick_node(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || OWN == NULL) {
        PyErr_SetString(PyExc_TypeError, "quick_node(op, srcs, shape, dtype, arg, source)");
        return NULL;
    }
    PyObject *node = new_node(args);
    int failed = node == NULL;
    if (!failed && PyDict_GET_SIZE(OWN) > 0) { /* memories of their own: as Node.__new__ */
        int inputs = PyObject_IsTrue(args[1]);
        int known = inputs > 0 && args[0] != BUFFER ? inline_memory(args[1], node) : 0;
        if (inputs > 0 && known == 0) {
            PyObject *memory = PyObject_CallOneArg(MEMORY_OF, node);
            failed = memory == NULL;
            Py_XDECREF(memory);
        } else if (inputs == 0) failed = set_field(node, F_MEMORY, Py_None) < 0;
        else failed = inputs < 0 || known < 0;
    }
    if (failed) { Py_XDECREF(node); return NULL; }
    return node;
}

/* A BUFFER node holding `value`, an array of `device` (_graph.buffer_node): its Buffer made as
   object.__new__(Buffer) is, its three fields in its dict (the dataclass's __init__ stores). */
static PyObject *make_buffer(PyObject *value, PyObject *source, PyObject *device);

static PyObject *buffer_node(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"value", "source", "device", NULL};
    PyObject *value, *source = NOTHING, *device = CPU;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", keywords, &value, &source, &device))
        return NULL;
    if (BUFFER_TYPE == NULL) {
        PyErr_SetString(PyExc_TypeError, "buffer_node before setup_recording()");
        return NULL;
    }
    return make_buffer(value, source, device);
}

static PyObject *make_buffer(PyObject *value, PyObject *source, PyObject *device) {
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
    PyObject *values[6] = {BUFFER, EMPTY, shape, dtype, buffer, source};
    PyObject *node = failed ? NULL : new_node(values);
    failed = node == NULL;
    if (!failed && PyDict_GET_SIZE(OWN) > 0) { /* memory_of's answer for a buffer */
        PyObject *memory = PyDict_GetItemWithError(OWN, device);
        failed = (memory == NULL && PyErr_Occurred()) ||
                 set_field(node, F_MEMORY, memory == NULL ? HOST : memory) < 0;
    }
    Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(buffer);
    if (failed) { Py_XDECREF(node); return NULL; }
    return node;
}

static PyObject *NDARRAY, *s_view, *s_setflags, *s_hold, *s_view_of, *WRITE;

/* `array` holds `node` (Array._hold for an array sharing no memory with a view): its _n, and
   the node's weak reference to it. 0, or -1: an error. */
static int hold_node(PyObject *array, PyObject *node) {
    PyObject *ref = PyWeakref_NewRef(array, NULL);
    int failed = ref == NULL || PyObject_SetAttr(array, s_n, node) < 0 ||
                 set_field(node, F_HOLDER, ref) < 0;
    Py_XDECREF(ref);
    return failed ? -1 : 0;
}

/* held_by(node)._hold(buffer) where an array still holds `node`; _hold's work inline for an
   array that shares no memory with a view (most). 0, or -1: an error. */
static int hold(PyObject *node, PyObject *buffer) {
    PyObject *ref = peek(node, F_HOLDER); /* borrowed */
    if (ref == NULL || ref == Py_None) return 0;
    PyObject *array = PyWeakref_GetObject(ref);
    if (array == NULL || array == Py_None) return array == NULL ? -1 : 0;
    Py_INCREF(array);
    PyObject *held = PyObject_GetAttr(array, s_n), *view = NULL;
    int failed = held == NULL;
    if (held == node) view = PyObject_GetAttr(array, s_view_of);
    if (held == node && view == NULL) failed = 1;
    else if (view == Py_None) failed = hold_node(array, buffer) < 0;
    else if (view != NULL) {
        PyObject *done = PyObject_CallMethodOneArg(array, s_hold, buffer);
        failed = done == NULL;
        Py_XDECREF(done);
    }
    Py_XDECREF(view); Py_XDECREF(held); Py_DECREF(array);
    return failed ? -1 : 0;
}

/* _realize._swap(node, value, device): computed `node` is replaced by a BUFFER node of
   `value` (a read-only view of it, for an ndarray), in the array holding it too. */
static PyObject *swap(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || NDARRAY == NULL) {
        PyErr_SetString(PyExc_TypeError, "swap(node, value, device) after setup_recording()");
        return NULL;
    }
    PyObject *node = args[0], *value = args[1];
    Py_INCREF(value);
    if (PyObject_TypeCheck(value, (PyTypeObject *)NDARRAY)) {
        Py_SETREF(value, PyObject_CallMethodNoArgs(value, s_view));
        PyObject *call[2] = {value, Py_False}; /* value.setflags(write=False) */
        PyObject *done = value == NULL ? NULL
            : PyObject_VectorcallMethod(s_setflags, call, 1, WRITE);
        if (done == NULL) { Py_XDECREF(value); return NULL; }
        Py_DECREF(done);
    }
    PyObject *source = field(node, F_SOURCE);
    PyObject *buffer = source == NULL ? NULL : make_buffer(value, source, args[2]);
    Py_XDECREF(source); Py_DECREF(value);
    int failed = buffer == NULL;
    if (!failed && buffer != node) /* mark_realized */
        failed = set_field(node, F_REALIZED, buffer) < 0 || set_field(node, F_SRCS, EMPTY) < 0;
    if (!failed) failed = hold(node, buffer) < 0;
    Py_XDECREF(buffer);
    if (failed) return NULL;
    Py_RETURN_NONE;
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
    PyObject *ndarray, *node;
    if (!PyArg_ParseTuple(args, "OO!OO!O!OnOOO!", &node, &PyDict_Type, &OWN, &MEMORY_OF,
                          &PyDict_Type, &NAMES, &PyDict_Type, &LINES, &NAME_OF, &MAX_LINES,
                          &BUFFER_TYPE, &HOST, &PyType_Type, &ndarray))
        return NULL;
    if (node != (PyObject *)NODE_TYPE) { /* NOTE: the scan's setup() took its fields' offsets */
        OWN = NULL;
        return PyErr_Format(PyExc_TypeError, "setup_recording: the Node setup() was given");
    }
    Py_INCREF(OWN); Py_INCREF(MEMORY_OF); Py_INCREF(NAMES); Py_INCREF(LINES);
    Py_INCREF(NAME_OF); Py_INCREF(BUFFER_TYPE); Py_INCREF(HOST);
    s_view = PyUnicode_InternFromString("view");
    s_setflags = PyUnicode_InternFromString("setflags");
    s_hold = PyUnicode_InternFromString("_hold");
    s_view_of = PyUnicode_InternFromString("_view");
    WRITE = Py_BuildValue("(s)", "write");
    if (!s_view || !s_setflags || !s_hold || !s_view_of || !WRITE) return NULL;
    Py_INCREF(ndarray);
    NDARRAY = ndarray; /* NOTE: last: swap() checks it to know the setup is done */
    Py_RETURN_NONE;
}

"""
