"""The commonest recording calls in C, part of the native extension's source (native.py builds
it).

`x + y`, `x - 1.0`, `x < y`, `2 * x`, `x @ w`, `x -= y` ... of arrays of one dtype (broadcast),
or of an array and a Python number that keeps its dtype, record one node (and a fill or
broadcasts): the quick path of _api/quick.py (`binary`). As Python methods each such op passes
two or three Python calls around that path (~3 us of a small script's ~5 us per op). So do
numpy's commonest reductions (`x.sum(axis)`, `np.mean(x)`: _numpy_twins/quick.py) and ufuncs
(`np.exp(x)`: _numpy_ufuncs.py). Each installed here is an `Operator`: a method descriptor of
Array, the quick path in C (views of another's memory too: their node read as the Python
paths read it), else the Python method it replaces (another dtype, an ndarray operand,
keywords, an in-place update of a view, a result large enough for numpy's temporary
elision: the Python method decides all of those). Both record the same nodes
(tests/test_native_operators.py compares them).
"""

import warnings

# Functions of the loaded extension module, each called once it is loaded (native._install):
# the layers above _realize install their part of it so (_api/quick.py: Array's operators)
HOOKS: list = []
LOADED: list = []  # the extension module, once loaded


def when_loaded(hook) -> None:
    """hook(module) once the extension module is loaded: now, if it is."""
    HOOKS.append(hook)
    if LOADED:
        run_hook(hook, LOADED[0])


def run_hook(hook, module) -> None:
    """hook(module); where it fails, what it installs stays in Python, with a warning: the C
    paths are a speed-up, and a materialization must not fail for one."""
    try:
        hook(module)
    except Exception as error:  # NOTE: any: a bug of ours, an extension built otherwise
        message = f"lazyinfini: {hook.__name__} failed, its calls stay in Python ({error!r})"
        warnings.warn(message, RuntimeWarning, stacklevel=2)


# NOTE: C, appended after native_recording.RECORDING and native_hit.HIT (it calls quick_node,
# caller_source, hold_node and field)
OPERATORS = r"""
#include <structmember.h>

/* -- the operators: Array.__add__ and its kin, the quick path in C --------------------------- */
static PyObject *ARRAY, *SHARED, *BROADCAST_OP, *FILLED, *RANGES, *s_itemsize, *s_axis, *s_keepdims,
    *s_call, *INDEX_DTYPE;
static Py_ssize_t ELIDE_BYTES;

enum { BINARY, MATMUL, REDUCTION, ARRAY_FUNCTION, ARRAY_UFUNC, IN_PLACE, GETITEM }; /* its path */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *table, *python; /* the node's op; BINARY's dtype -> result dtype table,
                                      a REDUCTION's dtypes (a tuple), ARRAY_FUNCTION's numpy
                                      function -> (op, how, dtypes), ARRAY_UFUNC's ufunc
                                      -> (op, table, unary), GETITEM's (RESHAPE, link);
                                      the Python method */
    int reflected;                 /* x.__radd__(y) records y + x; a REDUCTION's: how it
                                      records (quick_reduce's PLAIN, SUMMED, INDEXED) */
    int kind;
} Operator;

/* An Array holding `node` (a new reference), as Array(node) makes it. */
static PyObject *new_array(PyObject *node) {
    PyObject *array = ((PyTypeObject *)ARRAY)->tp_alloc((PyTypeObject *)ARRAY, 0);
    if (array != NULL && (PyObject_SetAttr(array, s_view_of, Py_None) < 0 ||
                          hold_node(array, node) < 0))
        Py_CLEAR(array);
    return array;
}

/* Whether x is an Array the quick paths take: exact, or a view of another's memory (a Shared:
   its node read through its _n property, which replays writes as the Python paths read it) */
static int is_array(PyObject *x) {
    return Py_TYPE(x) == (PyTypeObject *)ARRAY || Py_TYPE(x) == (PyTypeObject *)SHARED;
}

/* The node an Array holds (a new reference); NULL (no error) for anything else. A computed
   node: its buffer where `resolve` (x._node), else NULL (the paths that read x._n, which the
   Python ones record from a buffer). */
static PyObject *node_of(PyObject *x, int resolve) {
    if (!is_array(x)) return NULL;
    PyObject *node = PyObject_GetAttr(x, s_n);
    PyObject *realized = node == NULL ? NULL : field(node, F_REALIZED);
    if (realized != NULL && realized != Py_None) {
        Py_SETREF(node, resolve ? realized : NULL);
        if (resolve) return node;
    }
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
    PyObject *own = field(node, F_SHAPE);
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

/* quick.binary(op, table, x1, x2) where x1 and x2 are Arrays or Python numbers: the new
   Array, or NULL (with an error, or without one where the Python method must record it) */
static PyObject *quick_binary(Operator *o, PyObject *x1, PyObject *x2) {
    PyObject *node = node_of(x1, 0), *other = x2, *fill = NULL, *made = NULL, *source = NULL;
    if (node == NULL && !PyErr_Occurred()) {
        node = node_of(x2, 0);
        other = x1;
    }
    if (node == NULL) return NULL;
    PyObject *dtype = field(node, F_DTYPE), *shape = field(node, F_SHAPE);
    PyObject *result = dtype == NULL ? NULL : PyDict_GetItemWithError(o->table, dtype);
    if (result == NULL || shape == NULL) goto done;
    if (is_array(other)) {
        PyObject *second = node_of(other, 0), *theirs = NULL, *wide = NULL;
        if (second != NULL) theirs = field(second, F_DTYPE);
        int same = theirs == NULL ? -1 : PyObject_RichCompareBool(theirs, dtype, Py_EQ);
        Py_XDECREF(theirs);
        PyObject *others = same > 0 ? field(second, F_SHAPE) : NULL;
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

/* x -= y and its kin (Array._rebind) where x shares no memory with a view and has at most one
   axis longer than 1 (written_into's result is then the new node itself): x holds binary's
   node of x and y where it keeps x's dtype and shape, a 0-d x is replaced by it (as numpy's
   scalars are); x (or the new 0-d Array), or NULL as quick_binary */
static PyObject *quick_in_place(Operator *o, PyObject *x, PyObject *y) {
    if (Py_TYPE(x) != (PyTypeObject *)ARRAY) return NULL;
    PyObject *view = PyObject_GetAttr(x, s_view_of), *held = NULL, *made = NULL, *node = NULL;
    if (view == Py_None) held = PyObject_GetAttr(x, s_n);
    PyObject *shape = held == NULL ? NULL : field(held, F_SHAPE);
    PyObject *dtype = shape == NULL ? NULL : field(held, F_DTYPE);
    Py_ssize_t long_axes = 0;
    for (Py_ssize_t i = 0; dtype != NULL && i < PyTuple_GET_SIZE(shape); i++)
        long_axes += PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) > 1;
    if (dtype != NULL && long_axes <= 1) made = quick_binary(o, x, y);
    if (made != NULL) node = PyObject_GetAttr(made, s_n);
    PyObject *theirs = node == NULL ? NULL : field(node, F_DTYPE);
    PyObject *their_shape = theirs == NULL ? NULL : field(node, F_SHAPE);
    int same = their_shape == NULL ? -1 : PyObject_RichCompareBool(theirs, dtype, Py_EQ);
    if (same > 0) same = PyObject_RichCompareBool(their_shape, shape, Py_EQ);
    PyObject *done = NULL;
    if (same > 0 && PyTuple_GET_SIZE(shape) == 0) done = Py_NewRef(made); /* NOTE: replaced */
    else if (same > 0 && hold_node(x, node) == 0) done = Py_NewRef(x);
    Py_XDECREF(view); Py_XDECREF(held); Py_XDECREF(shape); Py_XDECREF(dtype); Py_XDECREF(made);
    Py_XDECREF(node); Py_XDECREF(theirs); Py_XDECREF(their_shape);
    return done;
}

/* linear_algebra.matmul's quick path (operands of one dtype) for 1-d and 2-d operands whose
   contracted sizes agree: the new Array, or NULL as quick_binary */
static PyObject *quick_matmul(Operator *o, PyObject *x1, PyObject *x2) {
    PyObject *a = node_of(x1, 1), *b = a == NULL ? NULL : node_of(x2, 1), *made = NULL;
    PyObject *dtype = NULL, *theirs = NULL, *s1 = NULL, *s2 = NULL, *shape = NULL;
    if (b != NULL) {
        dtype = field(a, F_DTYPE), theirs = field(b, F_DTYPE);
        s1 = field(a, F_SHAPE), s2 = field(b, F_SHAPE);
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

/* x's axes `axis` names (None, an int, a tuple of ints; each in range, none twice), sorted,
   as a tuple, with `flags` set for them; NULL (no error) for anything else: numpy's errors */
static PyObject *axes_of(PyObject *axis, Py_ssize_t ndim, char *flags) {
    Py_ssize_t count = axis == Py_None ? ndim : PyTuple_CheckExact(axis) ? PyTuple_GET_SIZE(axis)
                       : PyLong_CheckExact(axis) ? 1 : -1;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (axis == Py_None) { flags[k] = 1; continue; }
        PyObject *item = PyTuple_CheckExact(axis) ? PyTuple_GET_ITEM(axis, k) : axis;
        long a = PyLong_CheckExact(item) ? PyLong_AsLong(item) : LONG_MIN;
        if (a == -1 && PyErr_Occurred()) { PyErr_Clear(); a = LONG_MIN; }
        if (a < -ndim || a >= ndim || flags[a < 0 ? a + ndim : a]) return NULL;
        flags[a < 0 ? a + ndim : a] = 1;
    }
    PyObject *axes = count < 0 ? NULL : PyList_New(0);
    for (Py_ssize_t i = 0; axes != NULL && i < ndim; i++) {
        PyObject *at = flags[i] ? PyLong_FromSsize_t(i) : NULL;
        if (flags[i] && (at == NULL || PyList_Append(axes, at) < 0)) Py_CLEAR(axes);
        Py_XDECREF(at);
    }
    if (axes != NULL) Py_SETREF(axes, PyList_AsTuple(axes));
    return axes;
}

/* How a quick reduction records (_numpy_twins/quick.py's spec): in x's dtype; a sum, which
   names its dtype too; an index (argmax, argmin: one axis or None, the default index dtype) */
enum { PLAIN, SUMMED, INDEXED, PRODUCT }; /* PRODUCT: np.dot's, not a reduction (matmul's) */

/* numpy's sum, mean, max, min, argmax or argmin of a float32 or float64 array of no empty axis
   over `axis` (_numpy_twins/quick.py's paths): the REDUCE node record_reduction (arg_extreme)
   records, in a new Array; NULL (no error) where the Python method must record it */
static PyObject *quick_reduce(Operator *o, int how, PyObject *x, PyObject *axis,
                              PyObject *keepdims) {
    if (keepdims != Py_True && keepdims != Py_False) return NULL;
    if (how == INDEXED && axis != Py_None && !PyLong_CheckExact(axis)) return NULL;
    PyObject *node = node_of(x, 1), *made = NULL;
    PyObject *dtype = node == NULL ? NULL : field(node, F_DTYPE);
    PyObject *shape = dtype == NULL ? NULL : field(node, F_SHAPE), *axes = NULL;
    int floats = shape == NULL ? -1 : PySequence_Contains(o->table, dtype);
    Py_ssize_t ndim = shape == NULL ? 0 : PyTuple_GET_SIZE(shape);
    char flags[64] = {0};
    for (Py_ssize_t i = 0; floats > 0 && i < ndim; i++)
        if (PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) == 0) floats = 0; /* NOTE: the twin's */
    if (floats > 0 && ndim > 0 && ndim <= 64) axes = axes_of(axis, ndim, flags);
    PyObject *reduced = axes == NULL ? NULL : PyList_New(0);
    for (Py_ssize_t i = 0; reduced != NULL && i < ndim; i++) {
        PyObject *item = !flags[i] ? PyTuple_GET_ITEM(shape, i) : keepdims == Py_True ? ONE : NULL;
        if (item != NULL && PyList_Append(reduced, item) < 0) Py_CLEAR(reduced);
    }
    if (reduced != NULL) Py_SETREF(reduced, PyList_AsTuple(reduced));
    PyObject *arg = NULL, *source = NULL, *srcs = NULL;
    PyObject *along = how != INDEXED ? axes : axis == Py_None ? Py_None
                      : reduced == NULL ? NULL : PyTuple_GET_ITEM(axes, 0);
    if (reduced != NULL)
        arg = how == SUMMED ? Py_BuildValue("((OO)(OO)(OO))", s_axis, axes, s_keepdims,
                                               keepdims, s_dtype, dtype)
                               : Py_BuildValue("((OO)(OO))", s_axis, along, s_keepdims, keepdims);
    if (arg != NULL) source = caller_source(NULL, NULL, 0);
    if (source != NULL) srcs = PyTuple_Pack(1, node);
    PyObject *args[6] = {o->op, srcs, reduced, how == INDEXED ? INDEX_DTYPE : dtype, arg,
                         source};
    PyObject *recorded = srcs == NULL ? NULL : quick_node(NULL, args, 6);
    made = recorded == NULL ? NULL : new_array(recorded);
    Py_XDECREF(node); Py_XDECREF(dtype); Py_XDECREF(shape); Py_XDECREF(axes);
    Py_XDECREF(reduced); Py_XDECREF(arg); Py_XDECREF(source); Py_XDECREF(srcs);
    Py_XDECREF(recorded);
    return made;
}

/* x.sum(axis, keepdims=...) and its kin: (x[, axis]) and the keywords axis and keepdims */
static PyObject *method_reduce(Operator *o, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    PyObject *axis = nargs == 2 ? args[1] : Py_None, *keepdims = Py_False;
    Py_ssize_t named = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    if (nargs < 1 || nargs > 2) return NULL;
    for (Py_ssize_t k = 0; k < named; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        if (name == s_axis && nargs == 1) axis = args[nargs + k];
        else if (name == s_keepdims) keepdims = args[nargs + k];
        else return NULL; /* NOTE: other keywords, or axis twice: numpy's */
    }
    return quick_reduce(o, o->reflected, args[0], axis, keepdims);
}

/* __array_function__(x, func, types, args, kwargs) of np.sum(x, axis, keepdims=...) and its
   kin, and np.dot(x, y), where x (an Array, its only type) is the first argument */
static PyObject *function_reduce(Operator *o, PyObject *const *args) {
    PyObject *spec = PyDict_GetItemWithError(o->table, args[1]), *types = args[2];
    PyObject *given = args[3], *kwargs = args[4], *key, *value;
    if (spec == NULL || !PyTuple_CheckExact(types) || PyTuple_GET_SIZE(types) != 1 ||
        PyTuple_GET_ITEM(types, 0) != ARRAY || !PyTuple_CheckExact(given) ||
        PyTuple_GET_SIZE(given) < 1 || PyTuple_GET_SIZE(given) > 2 || !PyDict_CheckExact(kwargs))
        return NULL;
    PyObject *axis = PyTuple_GET_SIZE(given) == 2 ? PyTuple_GET_ITEM(given, 1) : Py_None;
    PyObject *keepdims = Py_False;
    Py_ssize_t at = 0;
    while (PyDict_Next(kwargs, &at, &key, &value)) {
        int is_axis = PyUnicode_Check(key) && PyUnicode_Compare(key, s_axis) == 0;
        if (is_axis && PyTuple_GET_SIZE(given) == 1) axis = value;
        else if (PyUnicode_Check(key) && PyUnicode_Compare(key, s_keepdims) == 0) keepdims = value;
        else return NULL;
    }
    Operator reduction = *o; /* NOTE: its op and dtypes, for quick_reduce */
    reduction.op = PyTuple_GET_ITEM(spec, 0);
    reduction.table = PyTuple_GET_ITEM(spec, 2);
    int how = PyLong_AsLong(PyTuple_GET_ITEM(spec, 1));
    if (how == PRODUCT) /* NOTE: np.dot(a, b) of matrices and vectors: a @ b, nothing named */
        return PyTuple_GET_SIZE(given) == 2 && PyDict_GET_SIZE(kwargs) == 0
            ? quick_matmul(&reduction, PyTuple_GET_ITEM(given, 0), PyTuple_GET_ITEM(given, 1))
            : NULL;
    return how == -1 && PyErr_Occurred() ? NULL
        : quick_reduce(&reduction, how, PyTuple_GET_ITEM(given, 0), axis, keepdims);
}

/* elementwise._unary's quick path: op of a pending Array whose dtype `table` maps */
static PyObject *quick_unary(PyObject *op, PyObject *table, PyObject *x) {
    PyObject *node = node_of(x, 0), *made = NULL, *source = NULL, *srcs = NULL;
    PyObject *dtype = node == NULL ? NULL : field(node, F_DTYPE);
    PyObject *shape = dtype == NULL ? NULL : field(node, F_SHAPE);
    PyObject *result = shape == NULL ? NULL : PyDict_GetItemWithError(table, dtype);
    if (result != NULL) source = caller_source(NULL, NULL, 0);
    if (source != NULL) srcs = PyTuple_Pack(1, node);
    PyObject *args[6] = {op, srcs, shape, result, Py_None, source};
    PyObject *recorded = srcs == NULL ? NULL : quick_node(NULL, args, 6);
    made = recorded == NULL ? NULL : new_array(recorded);
    Py_XDECREF(node); Py_XDECREF(dtype); Py_XDECREF(shape); Py_XDECREF(source);
    Py_XDECREF(srcs); Py_XDECREF(recorded);
    return made;
}

/* __array_ufunc__(x, ufunc, "__call__", *inputs) of a ufunc whose twin is a namespace
   function with a quick path (np.exp(x), np.maximum(x, 0.0), ndarray's operators' ufuncs) */
static PyObject *ufunc_call(Operator *o, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *spec = nargs < 4 ? NULL : PyDict_GetItemWithError(o->table, args[1]);
    if (spec == NULL || !PyUnicode_Check(args[2]) || PyUnicode_Compare(args[2], s_call) != 0)
        return NULL;
    Operator binary = *o; /* NOTE: the ufunc's op and table, for quick_binary */
    binary.op = PyTuple_GET_ITEM(spec, 0);
    binary.table = PyTuple_GET_ITEM(spec, 1);
    int unary = PyTuple_GET_ITEM(spec, 2) == Py_True;
    if (unary && nargs == 4) return quick_unary(binary.op, binary.table, args[3]);
    return !unary && nargs == 5 ? quick_binary(&binary, args[3], args[4]) : NULL;
}

static PyObject *quick_getitem(Operator *o, PyObject *x, PyObject *key); /* native_indexing */

static PyObject *operator_call(PyObject *callable, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    Operator *o = (Operator *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *made = NULL;
    if (ARRAY != NULL && (o->kind == BINARY || o->kind == MATMUL) && nargs == 2 && !kwnames) {
        PyObject *x1 = args[o->reflected], *x2 = args[!o->reflected];
        made = o->kind == MATMUL ? quick_matmul(o, x1, x2) : quick_binary(o, x1, x2);
    } else if (ARRAY != NULL && o->kind == IN_PLACE && nargs == 2 && kwnames == NULL)
        made = quick_in_place(o, args[0], args[1]);
    else if (ARRAY != NULL && o->kind == REDUCTION)
        made = method_reduce(o, args, nargs, kwnames);
    else if (ARRAY != NULL && o->kind == ARRAY_FUNCTION && nargs == 5 && kwnames == NULL)
        made = function_reduce(o, args);
    else if (ARRAY != NULL && o->kind == ARRAY_UFUNC && kwnames == NULL)
        made = ufunc_call(o, args, nargs);
    else if (ARRAY != NULL && o->kind == GETITEM && nargs == 2 && kwnames == NULL)
        made = quick_getitem(o, args[0], args[1]);
    if (made != NULL || PyErr_Occurred()) return made;
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

static PyObject *new_operator(int kind, PyObject *op, PyObject *table, PyObject *python,
                              int reflected) {
    if (PyType_Ready(&OperatorType) < 0) return NULL;
    Operator *o = PyObject_New(Operator, &OperatorType);
    if (o == NULL) return NULL;
    Py_INCREF(op); Py_INCREF(table); Py_INCREF(python);
    o->op = op; o->table = table; o->python = python; o->reflected = reflected;
    o->kind = kind;
    o->vectorcall = operator_call;
    return (PyObject *)o;
}

/* operator(op, table, python, reflected): an Operator (table None: matmul's) */
static PyObject *make_operator(PyObject *self, PyObject *args) {
    PyObject *op, *table, *python;
    int reflected;
    if (!PyArg_ParseTuple(args, "OOOp", &op, &table, &python, &reflected)) return NULL;
    if (!PyDict_Check(table) && table != Py_None)
        return PyErr_Format(PyExc_TypeError, "operator: a table of dtypes, or None (matmul)");
    return new_operator(table == Py_None ? MATMUL : BINARY, op, table, python, reflected);
}

/* in_place(op, table, python): the Operator of an in-place operator (x -= y, ...) */
static PyObject *make_in_place(PyObject *self, PyObject *args) {
    PyObject *op, *python;
    PyObject *table;
    if (!PyArg_ParseTuple(args, "OO!O", &op, &PyDict_Type, &table, &python)) return NULL;
    return new_operator(IN_PLACE, op, table, python, 0);
}

/* reduction(op, how, dtypes, python): the Operator of an ndarray method (x.sum, x.mean,
   x.argmax, ...) recording its quick path for arrays of `dtypes` (`how`: PLAIN, SUMMED or
   INDEXED, as quick_reduce records) */
static PyObject *make_reduction(PyObject *self, PyObject *args) {
    PyObject *op, *dtypes, *python;
    int how;
    if (!PyArg_ParseTuple(args, "OiO!O", &op, &how, &PyTuple_Type, &dtypes, &python))
        return NULL;
    if (how < PLAIN || how > INDEXED)
        return PyErr_Format(PyExc_ValueError, "reduction: how %d", how);
    return new_operator(REDUCTION, op, dtypes, python, how);
}

/* array_function(table, python): Array.__array_function__ as an Operator, `table` mapping
   numpy's reductions to (op, how, dtypes); array_ufunc(table, python): Array.__array_ufunc__,
   `table` mapping ufuncs to (op, dtype table, unary) */
static PyObject *make_array_function(PyObject *self, PyObject *args) {
    PyObject *table, *python;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &table, &python)) return NULL;
    return new_operator(ARRAY_FUNCTION, Py_None, table, python, 0);
}

static PyObject *make_array_ufunc(PyObject *self, PyObject *args) {
    PyObject *table, *python;
    if (!PyArg_ParseTuple(args, "O!O", &PyDict_Type, &table, &python)) return NULL;
    return new_operator(ARRAY_UFUNC, Py_None, table, python, 0);
}

/* What the operators make and read: Array, Shared (an Array viewing another's memory), the
   BROADCAST op, the dtypes a Python number fills (a set), each integer dtype's range, numpy's
   elision threshold in bytes, the default index dtype (argmax's) */
static PyObject *setup_operators(PyObject *self, PyObject *args) {
    PyObject *array, *shared, *broadcast, *filled, *ranges, *index;
    Py_ssize_t elide;
    if (!PyArg_ParseTuple(args, "O!O!OO!O!nO", &PyType_Type, &array, &PyType_Type, &shared,
                          &broadcast, &PyFrozenSet_Type, &filled, &PyDict_Type, &ranges, &elide,
                          &index))
        return NULL;
    Py_XSETREF(INDEX_DTYPE, Py_NewRef(index));
    if (NDARRAY == NULL) return PyErr_Format(PyExc_TypeError, "setup_recording() first");
    s_itemsize = PyUnicode_InternFromString("itemsize");
    s_axis = PyUnicode_InternFromString("axis");
    s_keepdims = PyUnicode_InternFromString("keepdims");
    s_call = PyUnicode_InternFromString("__call__");
    if (!s_itemsize || !s_axis || !s_keepdims || !s_call) return NULL;
    Py_INCREF(broadcast); Py_INCREF(filled); Py_INCREF(ranges); Py_INCREF(array);
    Py_XSETREF(SHARED, Py_NewRef(shared));
    BROADCAST_OP = broadcast; FILLED = filled; RANGES = ranges; ELIDE_BYTES = elide;
    ARRAY = array; /* NOTE: last: operator_call checks it */
    Py_RETURN_NONE;
}
"""
