"""Basic indexing in C, part of the native extension's source (native.py builds it).

`x[:, None]`, `x[1:]`, `x[-1, :]`, `x[i]`, `x[..., ::2]`: a key of ints, slices of ints or
None, None and one ellipsis records its SLICE and RESHAPE nodes here, as _api/indexing.py's
basic_getitem records them, and links the view to x's memory (native_views.py's `link`, else
_api/views.py's). In Python such a key passed getitem, basic_getitem, expand_ellipsis and a
slice_bounds per slice: ~9 us a call, where numpy's view costs ~0.2. Anything else (an array
or a list in the key, a numpy integer, a bool, an index out of bounds, too many indices: the
Python method raises its error) is the Python method's. tests/test_native_indexing.py compares
the nodes both record.
"""

# NOTE: C, appended after native_operators.OPERATORS and native_views.VIEWS (it reads Operator,
# new_array, field, quick_node, caller_source and link)
INDEXING = r"""
/* -- basic indexing: Array.__getitem__'s quick path in C ------------------------------------ */
static PyObject *s_node;   /* "_node": an Array's resolved node (a Shared's may replay) */

/* One item of a basic key on an axis of `size`: (start, step, length), or 0 where the Python
   method decides (not an int or a slice of ints, an index out of bounds, a zero step). */
static int axis_part(PyObject *item, Py_ssize_t size, Py_ssize_t *start, Py_ssize_t *step,
                     Py_ssize_t *length) {
    if (PyLong_CheckExact(item)) {
        Py_ssize_t index = PyLong_AsSsize_t(item);
        if (index == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        if (index < -size || index >= size) return 0;
        *start = index < 0 ? index + size : index, *step = 1, *length = 1;
        return 1;
    }
    if (!PySlice_Check(item)) return 0;
    PySliceObject *s = (PySliceObject *)item;
    PyObject *parts[3] = {s->start, s->stop, s->step};
    for (int k = 0; k < 3; k++)
        if (parts[k] != Py_None && !PyLong_CheckExact(parts[k])) return 0;
    Py_ssize_t stop;
    if (PySlice_Unpack(item, start, &stop, step) < 0) { PyErr_Clear(); return 0; }
    if (*step == 0) return 0;
    *length = PySlice_AdjustIndices(size, start, &stop, *step);
    if (*length == 0) *start = 0; /* NOTE: slice_bounds' empty slice starts at 0 */
    return 1;
}

/* The SLICE arg, shape and output shape of `items` (a tuple) on `shape`: 1, or 0 where the
   Python method decides; *slice and *out are new tuples where 1. */
static int planned(PyObject *items, PyObject *shape, PyObject **arg, PyObject **sliced,
                   PyObject **out, int *whole) {
    Py_ssize_t n = PyTuple_GET_SIZE(items), ndim = PyTuple_GET_SIZE(shape), indexed = 0;
    Py_ssize_t ellipsis = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyTuple_GET_ITEM(items, k);
        if (item == Py_Ellipsis) {
            if (ellipsis >= 0) return 0;
            ellipsis = k;
        } else if (item != Py_None) indexed++;
    }
    if (indexed > ndim) return 0;
    PyObject *starts = PyTuple_New(ndim), *lengths = PyTuple_New(ndim), *outs = PyList_New(0);
    int ok = starts != NULL && lengths != NULL && outs != NULL;
    Py_ssize_t axis = 0;
    *whole = 1;
    /* NOTE: the ellipsis (or the key's end) stands for the axes no item names */
    for (Py_ssize_t k = 0; ok && k <= n; k++) {
        PyObject *item = k < n ? PyTuple_GET_ITEM(items, k) : NULL;
        Py_ssize_t fill = (k == ellipsis || (k == n && ellipsis < 0)) ? ndim - indexed : 0;
        for (Py_ssize_t f = 0; ok && f <= fill; f++) {
            PyObject *part = f < fill ? Py_None : item; /* a full slice, then the item */
            if (part == NULL || part == Py_Ellipsis) break;
            if (f == fill && part == Py_None) { /* a new axis */
                ok = PyList_Append(outs, ONE) == 0;
                break;
            }
            Py_ssize_t size = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, axis)), start, step, len;
            if (f < fill) start = 0, step = 1, len = size;
            else ok = axis_part(part, size, &start, &step, &len);
            PyObject *pair = ok ? Py_BuildValue("(nn)", start, step) : NULL;
            PyObject *length = pair == NULL ? NULL : PyLong_FromSsize_t(len);
            ok = length != NULL;
            if (ok) {
                PyTuple_SET_ITEM(starts, axis, pair);
                PyTuple_SET_ITEM(lengths, axis, length);
                *whole &= start == 0 && step == 1 && len == size;
                if (f < fill || PySlice_Check(part)) ok = PyList_Append(outs, length) == 0;
            } else Py_XDECREF(pair);
            axis++;
        }
    }
    if (ok) *out = PyList_AsTuple(outs);
    if (ok && *out != NULL) { *arg = starts; *sliced = lengths; }
    else { Py_XDECREF(starts); Py_XDECREF(lengths); ok = 0; }
    Py_XDECREF(outs);
    if (PyErr_Occurred()) PyErr_Clear(); /* NOTE: the Python method meets it again, and says */
    return ok;
}

/* x[key] for a basic key (basic_getitem, then getitem's link): the new Array, or NULL (with
   an error, or without one where the Python method records it) */
static PyObject *quick_getitem(Operator *o, PyObject *x, PyObject *key) {
    if (!is_array(x)) return NULL;
    PyObject *items = PyTuple_CheckExact(key) ? Py_NewRef(key) : PyTuple_Pack(1, key);
    PyObject *node = items == NULL ? NULL : PyObject_GetAttr(x, s_node);
    PyObject *shape = node == NULL ? NULL : field(node, F_SHAPE);
    PyObject *dtype = shape == NULL ? NULL : field(node, F_DTYPE);
    PyObject *arg = NULL, *sliced = NULL, *out = NULL, *source = NULL, *made = NULL;
    int whole = 0, ok = dtype != NULL && planned(items, shape, &arg, &sliced, &out, &whole);
    if (ok) source = caller_source(NULL, NULL, 0);
    if (source != NULL && !whole) { /* NOTE: quick nodes: the shapes are ints, checked */
        PyObject *srcs = PyTuple_Pack(1, node);
        PyObject *args[6] = {o->op, srcs, sliced, dtype, arg, source};
        Py_SETREF(node, srcs == NULL ? NULL : quick_node(NULL, args, 6));
        Py_XDECREF(srcs);
    }
    int same = node == NULL || source == NULL ? -1 : PyObject_RichCompareBool(out, sliced, Py_EQ);
    if (same == 0) {
        PyObject *srcs = PyTuple_Pack(1, node);
        PyObject *args[6] = {PyTuple_GET_ITEM(o->table, 0), srcs, out, dtype, Py_None, source};
        Py_SETREF(node, srcs == NULL ? NULL : quick_node(NULL, args, 6));
        Py_XDECREF(srcs);
    }
    PyObject *view = same < 0 || node == NULL ? NULL : new_array(node);
    /* NOTE: 0-d from a key without an ellipsis: an integer per axis (numpy's scalar, a copy) */
    int linked = view == NULL ? 0 : PyTuple_GET_SIZE(out) > 0 || PySequence_Contains(items,
                                                                               Py_Ellipsis);
    if (view != NULL && linked == 0) made = Py_NewRef(view);
    else if (linked > 0 && V_LOCK != NULL) { /* NOTE: native_views.py's, once set up */
        PyObject *pair[2] = {x, view};
        made = view_link(NULL, pair, 2, NULL);
    } else if (linked > 0)
        made = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(o->table, 1), x, view, NULL);
    Py_XDECREF(items); Py_XDECREF(node); Py_XDECREF(shape); Py_XDECREF(dtype);
    Py_XDECREF(arg); Py_XDECREF(sliced); Py_XDECREF(out); Py_XDECREF(source);
    Py_XDECREF(view);
    return made;
}

/* getitem(slice_op, (reshape_op, link), python): Array.__getitem__ as an Operator */
static PyObject *make_getitem(PyObject *self, PyObject *args) {
    PyObject *op, *table, *python;
    if (!PyArg_ParseTuple(args, "OO!O", &op, &PyTuple_Type, &table, &python)) return NULL;
    if (PyTuple_GET_SIZE(table) != 2)
        return PyErr_Format(PyExc_TypeError, "getitem: (reshape_op, link)");
    if (s_node == NULL && (s_node = PyUnicode_InternFromString("_node")) == NULL) return NULL;
    return new_operator(GETITEM, op, table, python, 0);
}
"""
