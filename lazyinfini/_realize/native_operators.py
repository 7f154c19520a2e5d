"""The commonest operators in C, part of the native extension's source (native.py builds it).

`x + y`, `x - 1.0`, `x < y`, `2 * x` ... of arrays of one dtype (broadcast), or of an array and
a Python number that keeps its dtype, record one node (and a fill or broadcasts): the quick path
of _api/quick.py (`binary`). As Python methods each such op passes three Python calls around
that path (~3 us of a small script's ~5 us per op). Each operator installed here is an
`Operator`: a method descriptor of Array, the quick path in C, else the Python method it
replaces (a view, another dtype, an ndarray operand, a result large enough for numpy's
temporary elision: the Python method decides all of those). Both record the same nodes
(tests/test_native.py compares them).
"""

# Functions of the loaded extension module, each called once it is loaded (native._install):
# the layers above _realize install their part of it so (_api/quick.py: Array's operators)
HOOKS: list = []

# NOTE: C, appended after native_recording.RECORDING (it calls quick_node and caller_source)
OPERATORS = r"""
#include <structmember.h>

/* -- the operators: Array.__add__ and its kin, the quick path in C --------------------------- */
static PyObject *ARRAY, *BROADCAST_OP, *FILLED, *RANGES, *s_itemsize;
static Py_ssize_t ELIDE_BYTES;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *table, *python; /* the node's op, dtype -> result dtype (None: matmul's
                                      path), the Python method */
    int reflected;                 /* x.__radd__(y) records y + x */
} Operator;

/* An Array holding `node` (a new reference), as Array(node) makes it. */
static PyObject *new_array(PyObject *node) {
    PyObject *array = ((PyTypeObject *)ARRAY)->tp_alloc((PyTypeObject *)ARRAY, 0);
    PyObject *ref = array == NULL ? NULL : PyWeakref_NewRef(array, NULL);
    PyObject *fields = ref == NULL ? NULL : PyObject_GenericGetDict(node, NULL);
    int failed = fields == NULL || PyObject_SetAttr(array, s_view_of, Py_None) < 0 ||
                 PyObject_SetAttr(array, s_n, node) < 0 ||
                 PyDict_SetItem(fields, s_holder, ref) < 0;
    Py_XDECREF(ref); Py_XDECREF(fields);
    if (failed) Py_CLEAR(array);
    return array;
}

/* A node's field (a new reference), or NULL without an error where its dict lacks it */
static PyObject *own_field(PyObject *node, PyObject *name) {
    PyObject *fields = PyObject_GenericGetDict(node, NULL);
    PyObject *value = fields == NULL ? NULL : PyDict_GetItemWithError(fields, name);
    Py_XINCREF(value);
    Py_XDECREF(fields);
    return value;
}

/* The pending node an exact Array holds (a new reference); NULL (no error) for anything else:
   a view (its node may replay), a computed node (the Python path reads its buffer). */
static PyObject *pending_node(PyObject *x) {
    if (Py_TYPE(x) != (PyTypeObject *)ARRAY) return NULL;
    PyObject *node = PyObject_GetAttr(x, s_n);
    PyObject *realized = node == NULL ? NULL : own_field(node, s_realized);
    if (realized != NULL && realized != Py_None) Py_CLEAR(node);
    Py_XDECREF(realized);
    return node;
}

/* quick._broadcast: the broadcast of shapes a and b, NULL (no error) where they do not */
static PyObject *broadcast_shape(PyObject *a, PyObject *b) {
    if (PyTuple_GET_SIZE(a) < PyTuple_GET_SIZE(b)) { PyObject *t = a; a = b; b = t; }
    Py_ssize_t n = PyTuple_GET_SIZE(a), offset = n - PyTuple_GET_SIZE(b);
    PyObject *shape = PyTuple_New(n);
    for (Py_ssize_t i = 0; shape != NULL && i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(a, i);
        if (i >= offset) {
            PyObject *other = PyTuple_GET_ITEM(b, i - offset);
            Py_ssize_t m = PyLong_AsSsize_t(item), k = PyLong_AsSsize_t(other);
            if (m != k && m == 1) item = other;
            else if (m != k && k != 1) { Py_CLEAR(shape); break; }
        }
        Py_INCREF(item);
        PyTuple_SET_ITEM(shape, i, item);
    }
    return shape;
}

/* quick._widened: `node` broadcast to `shape` (a new reference) */
static PyObject *widened(PyObject *node, PyObject *shape, PyObject *dtype, PyObject *source) {
    PyObject *own = own_field(node, s_shape);
    int same = own == NULL ? -1 : PyObject_RichCompareBool(own, shape, Py_EQ);
    Py_XDECREF(own);
    if (same != 0) {
        if (same < 0) return NULL;
        Py_INCREF(node);
        return node;
    }
    PyObject *srcs = PyTuple_Pack(1, node);
    PyObject *args[6] = {BROADCAST_OP, srcs, shape, dtype, Py_None, source};
    PyObject *made = srcs == NULL ? NULL : quick_node(NULL, args, 6);
    Py_XDECREF(srcs);
    return made;
}

/* quick._keeps: whether Python number `value` next to an array of `dtype` keeps that dtype
   (1, 0, or -1: an error) */
static int keeps(PyObject *value, PyObject *dtype) {
    if (PyFloat_CheckExact(value)) return PySet_Contains(FILLED, dtype);
    if (!PyLong_CheckExact(value)) return 0;
    int filled = PySet_Contains(FILLED, dtype);
    if (filled != 0) return filled;
    PyObject *span = PyDict_GetItemWithError(RANGES, dtype);
    if (span == NULL) return PyErr_Occurred() ? -1 : 0;
    int low = PyObject_RichCompareBool(PyTuple_GET_ITEM(span, 0), value, Py_LE);
    return low <= 0 ? low : PyObject_RichCompareBool(value, PyTuple_GET_ITEM(span, 1), Py_LE);
}

/* Whether a result of `shape` and `dtype` is large enough for numpy's temporary elision
   (1, 0, or -1: an error): the Python method decides whether to elide */
static int elidable(PyObject *shape, PyObject *dtype) {
    PyObject *size = PyObject_GetAttr(dtype, s_itemsize);
    Py_ssize_t bytes = size == NULL ? -1 : PyLong_AsSsize_t(size);
    Py_XDECREF(size);
    for (Py_ssize_t i = 0; bytes > 0 && i < PyTuple_GET_SIZE(shape); i++)
        bytes *= PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
    if (bytes < 0 && PyErr_Occurred()) return -1;
    return bytes >= ELIDE_BYTES;
}

/* quick.binary(op, table, x1, x2) where x1 and x2 are exact Arrays or Python numbers: the new
   Array, or NULL (with an error, or without one where the Python method must record it) */
static PyObject *quick_binary(Operator *o, PyObject *x1, PyObject *x2) {
    PyObject *node = pending_node(x1), *other = x2, *fill = NULL, *made = NULL, *source = NULL;
    if (node == NULL && !PyErr_Occurred()) {
        node = pending_node(x2);
        other = x1;
    }
    if (node == NULL) return NULL;
    PyObject *dtype = own_field(node, s_dtype), *shape = own_field(node, s_shape);
    PyObject *result = dtype == NULL ? NULL : PyDict_GetItemWithError(o->table, dtype);
    if (result == NULL || shape == NULL) goto done;
    if (Py_TYPE(other) == (PyTypeObject *)ARRAY) {
        PyObject *second = pending_node(other), *theirs = NULL, *wide = NULL;
        if (second != NULL) theirs = own_field(second, s_dtype);
        int same = theirs == NULL ? -1 : PyObject_RichCompareBool(theirs, dtype, Py_EQ);
        Py_XDECREF(theirs);
        PyObject *others = same > 0 ? own_field(second, s_shape) : NULL;
        if (others != NULL) wide = broadcast_shape(shape, others);
        Py_XDECREF(others);
        int large = wide == NULL ? -1 : elidable(wide, result);
        if (large == 0) source = caller_source(NULL, NULL, 0);
        if (source != NULL) {
            Py_SETREF(node, widened(node, wide, dtype, source));
            fill = node == NULL ? NULL : widened(second, wide, dtype, source);
            Py_SETREF(shape, wide);
            wide = NULL;
        }
        Py_XDECREF(second); Py_XDECREF(wide);
    } else {
        int kept = keeps(other, dtype);
        if (kept > 0) source = caller_source(NULL, NULL, 0);
        PyObject *args[6] = {FULL, EMPTY, shape, dtype, other, source};
        if (source != NULL) fill = quick_node(NULL, args, 6);
    }
    if (fill != NULL) {
        PyObject *srcs = other == x2 ? PyTuple_Pack(2, node, fill) : PyTuple_Pack(2, fill, node);
        PyObject *args[6] = {o->op, srcs, shape, result, Py_None, source};
        PyObject *recorded = srcs == NULL ? NULL : quick_node(NULL, args, 6);
        made = recorded == NULL ? NULL : new_array(recorded);
        Py_XDECREF(srcs); Py_XDECREF(recorded);
    }
done:
    Py_XDECREF(node); Py_XDECREF(fill); Py_XDECREF(source); Py_XDECREF(dtype);
    Py_XDECREF(shape);
    return made;
}

/* The node an exact Array holds, its buffer where it was computed (x._node; a new
   reference); NULL (no error) for anything else */
static PyObject *resolved_node(PyObject *x) {
    if (Py_TYPE(x) != (PyTypeObject *)ARRAY) return NULL;
    PyObject *node = PyObject_GetAttr(x, s_n);
    PyObject *realized = node == NULL ? NULL : own_field(node, s_realized);
    if (realized != NULL && realized != Py_None) Py_SETREF(node, realized);
    else Py_XDECREF(realized);
    return node;
}

/* linear_algebra.matmul's quick path (operands of one dtype) for 1-d and 2-d operands whose
   contracted sizes agree: the new Array, or NULL as quick_binary */
static PyObject *quick_matmul(Operator *o, PyObject *x1, PyObject *x2) {
    PyObject *a = resolved_node(x1), *b = a == NULL ? NULL : resolved_node(x2), *made = NULL;
    PyObject *dtype = NULL, *theirs = NULL, *s1 = NULL, *s2 = NULL, *shape = NULL;
    if (b != NULL) {
        dtype = own_field(a, s_dtype), theirs = own_field(b, s_dtype);
        s1 = own_field(a, s_shape), s2 = own_field(b, s_shape);
    }
    Py_ssize_t n1 = s1 == NULL ? 0 : PyTuple_GET_SIZE(s1);
    Py_ssize_t n2 = s2 == NULL ? 0 : PyTuple_GET_SIZE(s2);
    int plain = dtype != NULL && dtype == theirs && n1 >= 1 && n1 <= 2 && n2 >= 1 && n2 <= 2;
    if (plain) /* NOTE: sizes that disagree: the Python function's error */
        plain = PyLong_AsSsize_t(PyTuple_GET_ITEM(s1, n1 - 1)) ==
                PyLong_AsSsize_t(PyTuple_GET_ITEM(s2, 0));
    if (plain && !PyErr_Occurred()) {
        shape = PyTuple_New((n1 == 2) + (n2 == 2));
        PyObject *kept[2] = {n1 == 2 ? PyTuple_GET_ITEM(s1, 0) : NULL,
                             n2 == 2 ? PyTuple_GET_ITEM(s2, 1) : NULL};
        for (int k = 0, at = 0; shape != NULL && k < 2; k++)
            if (kept[k] != NULL) { Py_INCREF(kept[k]); PyTuple_SET_ITEM(shape, at++, kept[k]); }
    }
    int large = shape == NULL ? -1 : elidable(shape, dtype);
    PyObject *source = large == 0 ? caller_source(NULL, NULL, 0) : NULL;
    PyObject *srcs = source == NULL ? NULL : PyTuple_Pack(2, a, b);
    PyObject *args[6] = {o->op, srcs, shape, dtype, Py_None, source};
    PyObject *recorded = srcs == NULL ? NULL : quick_node(NULL, args, 6);
    made = recorded == NULL ? NULL : new_array(recorded);
    Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(dtype); Py_XDECREF(theirs); Py_XDECREF(s1);
    Py_XDECREF(s2); Py_XDECREF(shape); Py_XDECREF(source); Py_XDECREF(srcs);
    Py_XDECREF(recorded);
    return made;
}

static PyObject *operator_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    Operator *o = (Operator *)callable;
    if (PyVectorcall_NARGS(nargsf) == 2 && kwnames == NULL && ARRAY != NULL) {
        PyObject *x1 = args[o->reflected], *x2 = args[!o->reflected];
        PyObject *made = o->table == Py_None ? quick_matmul(o, x1, x2)
                                             : quick_binary(o, x1, x2);
        if (made != NULL || PyErr_Occurred()) return made;
    }
    return PyObject_Vectorcall(o->python, args, nargsf, kwnames);
}

/* x.__add__: bound as a method is (what a call through the instance or help() sees) */
static PyObject *operator_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) { Py_INCREF(self); return self; }
    return PyMethod_New(self, obj);
}

/* The Python method's attributes (__name__, __doc__, ...) read through the operator */
static PyObject *operator_getattr(PyObject *self, PyObject *name) {
    PyObject *found = PyObject_GenericGetAttr(self, name);
    if (found != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) return found;
    PyErr_Clear();
    return PyObject_GetAttr(((Operator *)self)->python, name);
}

static void operator_dealloc(PyObject *self) {
    Operator *o = (Operator *)self;
    Py_XDECREF(o->op); Py_XDECREF(o->table); Py_XDECREF(o->python);
    Py_TYPE(self)->tp_free(self);
}

static PyMemberDef operator_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(Operator, python), READONLY, "the Python method"},
    {NULL},
};

static PyTypeObject OperatorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "lazyinfini_scan.Operator",
    .tp_basicsize = sizeof(Operator),
    .tp_dealloc = operator_dealloc,
    .tp_vectorcall_offset = offsetof(Operator, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = operator_getattr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "an Array operator: the quick path in C, else the Python method",
    .tp_members = operator_members,
    .tp_descr_get = operator_get,
};

/* operator(op, table, python, reflected): an Operator (table None: matmul's) */
static PyObject *make_operator(PyObject *self, PyObject *args) {
    PyObject *op, *table, *python;
    int reflected;
    if (!PyArg_ParseTuple(args, "OOOp", &op, &table, &python, &reflected)) return NULL;
    if (!PyDict_Check(table) && table != Py_None)
        return PyErr_Format(PyExc_TypeError, "operator: a table of dtypes, or None (matmul)");
    if (PyType_Ready(&OperatorType) < 0) return NULL;
    Operator *o = PyObject_New(Operator, &OperatorType);
    if (o == NULL) return NULL;
    Py_INCREF(op); Py_INCREF(table); Py_INCREF(python);
    o->op = op; o->table = table; o->python = python; o->reflected = reflected;
    o->vectorcall = operator_call;
    return (PyObject *)o;
}

/* What the operators make and read: Array, the BROADCAST op, the dtypes a Python number
   fills (a set), each integer dtype's range, numpy's elision threshold in bytes */
static PyObject *setup_operators(PyObject *self, PyObject *args) {
    PyObject *array, *broadcast, *filled, *ranges;
    Py_ssize_t elide;
    if (!PyArg_ParseTuple(args, "O!OO!O!n", &PyType_Type, &array, &broadcast, &PyFrozenSet_Type,
                          &filled, &PyDict_Type, &ranges, &elide))
        return NULL;
    if (NDARRAY == NULL) return PyErr_Format(PyExc_TypeError, "setup_recording() first");
    s_itemsize = PyUnicode_InternFromString("itemsize");
    if (s_itemsize == NULL) return NULL;
    Py_INCREF(broadcast); Py_INCREF(filled); Py_INCREF(ranges); Py_INCREF(array);
    BROADCAST_OP = broadcast; FILLED = filled; RANGES = ranges; ELIDE_BYTES = elide;
    ARRAY = array; /* NOTE: last: operator_call checks it */
    Py_RETURN_NONE;
}
"""
