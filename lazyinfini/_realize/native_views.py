"""A view's link to its base's memory and an array's node reads in C, part of the native
extension's source (native.py builds it).

VIEWS: `link(x, view, readonly=False)` is _api/views.py's `link` over the same objects. Every
view a script takes (`x[:, None]`, `X.T`, `s[window:]`) links once: as Python, the link took
seven calls (the steps read back, each array's node, the storage's member added), ~3 us, most
of a view's recording. Both make the same View and the same member.

ARRAYS: the properties every recording reads (`Array._node`, `.shape`, `.dtype`, `.ndim`,
`Shared._n`; a stale view's replay stays Python's) and a matrix's `x.T` (its PERMUTE node,
linked). tests/test_native_views.py compares both paths.
"""

# NOTE: C, appended after native_scan.SCAN (it reads field and peek)
VIEWS = r"""
/* -- views: link (_api/views.py's), a new view made a member of its base's storage ----------- */
static PyObject *V_ARRAY, *V_SHARED, *V_VIEW, *V_STEP, *V_LOCK, *V_ADOPT, *V_EXTEND, *V_MERGED;
static PyObject *s_view_slot, *s_n_slot, *s_version, *s_members, *s_prune_at, *s_add,
    *s_acquire_, *s_release_;

static PyObject *V_STALE; /* Shared._n's Python getter: the replay of a stale view */
static PyObject *V_PERMUTE, *V_TRANSPOSED; /* the PERMUTE op; Array.T's Python getter */
static Py_ssize_t N_AT, VIEW_AT; /* Array's slots _n and _view, their offsets */
#define ARRAY_SLOT(array, at) (*(PyObject **)((char *)(array) + (at)))

/* The offset of slot `name` of `type`; -1 (an error) where it is no object slot */
static Py_ssize_t slot_offset(PyObject *type, const char *name) {
    PyObject *slot = PyDict_GetItemString(((PyTypeObject *)type)->tp_dict, name);
    if (slot == NULL || !Py_IS_TYPE(slot, &PyMemberDescr_Type) ||
        ((PyMemberDescrObject *)slot)->d_member->type != T_OBJECT_EX)
        return PyErr_Format(PyExc_TypeError, "setup_views: Array.%s is no slot", name), -1;
    return ((PyMemberDescrObject *)slot)->d_member->offset;
}

/* setup_views(Array, Shared, View, Step, lock, adopt, extend, merged ops, stale, PERMUTE,
   transposed): what link makes, takes and calls, what the node reads call where a view is
   stale, and what x.T records (else calls) */
static PyObject *setup_views(PyObject *self, PyObject *args) {
    PyObject *o[11];
    if (!PyArg_ParseTuple(args, "O!O!O!O!OOOOOOO", &PyType_Type, &o[0], &PyType_Type, &o[1],
                          &PyType_Type, &o[2], &PyType_Type, &o[3], &o[4], &o[5], &o[6], &o[7],
                          &o[8], &o[9], &o[10]))
        return NULL;
    Py_XSETREF(V_PERMUTE, Py_NewRef(o[9]));
    Py_XSETREF(V_TRANSPOSED, Py_NewRef(o[10]));
    if (!PyTuple_Check(o[7])) return PyErr_Format(PyExc_TypeError, "setup_views: a tuple of ops");
    if (NODE_TYPE == NULL) return PyErr_Format(PyExc_TypeError, "setup_views: setup() first");
    if ((N_AT = slot_offset(o[0], "_n")) < 0 || (VIEW_AT = slot_offset(o[0], "_view")) < 0)
        return NULL;
    Py_XSETREF(V_STALE, Py_NewRef(o[8]));
    PyObject **names[] = {&s_view_slot, &s_n_slot, &s_version, &s_members, &s_prune_at, &s_add,
                          &s_acquire_, &s_release_};
    const char *texts[] = {"_view", "_n", "version", "members", "_prune_at", "add", "acquire",
                           "release"};
    for (int k = 0; k < 8; k++)
        if ((*names[k] = PyUnicode_InternFromString(texts[k])) == NULL) return NULL;
    PyObject **kept[] = {&V_ARRAY, &V_SHARED, &V_VIEW, &V_STEP, &V_LOCK, &V_ADOPT, &V_EXTEND,
                         &V_MERGED};
    for (int k = 0; k < 8; k++) Py_XSETREF(*kept[k], Py_NewRef(o[k]));
    Py_RETURN_NONE;
}

/* A record of a NamedTuple `type` of `n` items (tuple.__new__(type, items)), stealing none */
static PyObject *record_of(PyObject *type, PyObject **items, Py_ssize_t n) {
    PyObject *values = PyTuple_New(n);
    for (Py_ssize_t k = 0; values != NULL && k < n; k++)
        PyTuple_SET_ITEM(values, k, Py_NewRef(items[k]));
    PyObject *args = values == NULL ? NULL : PyTuple_Pack(1, values);
    PyObject *made = args == NULL ? NULL : PyTuple_Type.tp_new((PyTypeObject *)type, args, NULL);
    Py_XDECREF(values); Py_XDECREF(args);
    return made;
}

/* views._recorded_steps(node, base): the Steps from base to node, first first (a list) */
static PyObject *recorded_steps(PyObject *node, PyObject *base) {
    PyObject *found = PyList_New(0);
    Py_XINCREF(node);
    while (found != NULL && node != base) {
        PyObject *realized = field(node, F_REALIZED), *srcs = NULL, *step = NULL;
        int done = realized == NULL ? -1 : realized == base; /* NOTE: x computed since */
        Py_XDECREF(realized);
        if (done != 0) { if (done < 0) Py_CLEAR(found); break; }
        srcs = field(node, F_SRCS);
        if (srcs != NULL && (!PyTuple_Check(srcs) || PyTuple_GET_SIZE(srcs) < 1)) {
            PyErr_SetString(PyExc_AssertionError, "link: a view's node without an input");
            Py_CLEAR(srcs);
        }
        PyObject *items[3] = {peek(node, F_OP), peek(node, F_SHAPE), peek(node, F_ARG)};
        if (srcs != NULL && items[0] && items[1] && items[2])
            step = record_of(V_STEP, items, 3);
        else if (srcs != NULL)
            PyErr_SetString(PyExc_TypeError, "link: a view's node is no Node");
        if (step == NULL || PyList_Append(found, step) < 0) {
            Py_XDECREF(step); Py_XDECREF(srcs); Py_CLEAR(found);
            break;
        }
        Py_DECREF(step);
        Py_SETREF(node, Py_NewRef(PyTuple_GET_ITEM(srcs, 0)));
        Py_DECREF(srcs);
    }
    Py_XDECREF(node);
    if (found != NULL && PyList_Reverse(found) < 0) Py_CLEAR(found);
    return found;
}

/* views.extend(steps, step): a new tuple; views.extend itself where the last step merges */
static PyObject *extended(PyObject *steps, PyObject *step) {
    Py_ssize_t n = PyTuple_GET_SIZE(steps);
    PyObject *op = PyTuple_GET_ITEM(step, 0);
    if (n > 0 && PyTuple_GET_ITEM(PyTuple_GET_ITEM(steps, n - 1), 0) == op) {
        int merges = PySequence_Contains(V_MERGED, op);
        if (merges != 0)
            return merges < 0 ? NULL : PyObject_CallFunctionObjArgs(V_EXTEND, steps, step, NULL);
    }
    PyObject *longer = PyTuple_New(n + 1);
    for (Py_ssize_t k = 0; longer != NULL && k < n; k++)
        PyTuple_SET_ITEM(longer, k, Py_NewRef(PyTuple_GET_ITEM(steps, k)));
    if (longer != NULL) PyTuple_SET_ITEM(longer, n, Py_NewRef(step));
    return longer;
}

/* Storage.add(view): a weak member by id; the Python method where the members are due a
   pruning of the dead (0, or -1) */
static int add_member(PyObject *storage, PyObject *view) {
    PyObject *members = PyObject_GetAttr(storage, s_members);
    PyObject *prune_at = members == NULL ? NULL : PyObject_GetAttr(storage, s_prune_at);
    Py_ssize_t due = prune_at == NULL ? -1 : PyLong_AsSsize_t(prune_at);
    int failed = due < 0 || !PyDict_CheckExact(members);
    if (!failed && PyDict_GET_SIZE(members) + 1 >= due) {
        PyObject *done = PyObject_CallMethodOneArg(storage, s_add, view);
        failed = done == NULL;
        Py_XDECREF(done);
    } else if (!failed) {
        PyObject *key = PyLong_FromVoidPtr(view), *ref = PyWeakref_NewRef(view, NULL);
        failed = key == NULL || ref == NULL || PyDict_SetItem(members, key, ref) < 0;
        Py_XDECREF(key); Py_XDECREF(ref);
    }
    if (due < 0 && !PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "link: a Storage");
    Py_XDECREF(members); Py_XDECREF(prune_at);
    return failed ? -1 : 0;
}

/* view becomes a Shared (view.__class__ = Shared; its layout is Array's); 0, or -1 */
static int become_shared(PyObject *view) {
    if (Py_TYPE(view) != (PyTypeObject *)V_ARRAY ||
        ((PyTypeObject *)V_SHARED)->tp_basicsize != ((PyTypeObject *)V_ARRAY)->tp_basicsize)
        return PyObject_SetAttrString(view, "__class__", V_SHARED);
    Py_INCREF(V_SHARED); /* NOTE: object_set_class's own steps, after its checks */
    Py_SET_TYPE(view, (PyTypeObject *)V_SHARED);
    Py_DECREF(V_ARRAY);
    return 0;
}

/* link's body, the lock held: view's View from x's (adopted where x has none) */
static int linked(PyObject *x, PyObject *view, int readonly) {
    PyObject *base = PyObject_GetAttr(x, s_view_slot), *steps = NULL, *found = NULL;
    if (base == Py_None) Py_SETREF(base, PyObject_CallOneArg(V_ADOPT, x));
    if (base != NULL && (!PyTuple_Check(base) || PyTuple_GET_SIZE(base) < 3)) {
        PyErr_SetString(PyExc_TypeError, "link: a View");
        Py_CLEAR(base);
    }
    PyObject *node = base == NULL ? NULL : PyObject_GetAttr(view, s_n_slot);
    PyObject *stop = node == NULL ? NULL : PyObject_GetAttr(x, s_n_slot);
    if (stop != NULL) found = recorded_steps(node, stop);
    if (found != NULL) steps = Py_NewRef(PyTuple_GET_ITEM(base, 1));
    for (Py_ssize_t k = 0; steps != NULL && k < PyList_GET_SIZE(found); k++)
        Py_SETREF(steps, extended(steps, PyList_GET_ITEM(found, k)));
    PyObject *storage = base == NULL ? NULL : PyTuple_GET_ITEM(base, 0);
    PyObject *version = steps == NULL ? NULL : PyObject_GetAttr(storage, s_version);
    int refused = version == NULL ? -1 : PyObject_IsTrue(PyTuple_GET_ITEM(base, 2));
    PyObject *record = NULL;
    if (refused >= 0) {
        PyObject *items[4] = {storage, steps, refused || readonly ? Py_True : Py_False, version};
        record = record_of(V_VIEW, items, 4);
    }
    int failed = record == NULL || PyObject_SetAttr(view, s_view_slot, record) < 0 ||
                 become_shared(view) < 0 || add_member(storage, view) < 0;
    Py_XDECREF(base); Py_XDECREF(node); Py_XDECREF(stop); Py_XDECREF(found);
    Py_XDECREF(steps); Py_XDECREF(version); Py_XDECREF(record);
    return failed ? -1 : 0;
}

/* link(x, view, readonly=False): view (a new reference), a member of x's storage */
static PyObject *view_link(PyObject *self, PyObject *const *args, size_t nargsf,
                           PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t named = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    int keyword = named == 1 && PyUnicode_Check(PyTuple_GET_ITEM(kwnames, 0)) &&
                  PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "readonly") == 0;
    if (V_LOCK == NULL || nargs < 2 || nargs + named > 3 || (named && !keyword))
        return PyErr_Format(PyExc_TypeError, "link(x, view, readonly=False), set up");
    int readonly = nargs + named == 3 ? PyObject_IsTrue(args[2]) : 0;
    if (readonly < 0) return NULL;
    if (args[0] == args[1]) return PyErr_Format(PyExc_AssertionError, "link: view is x");
    PyObject *held = PyObject_CallMethodNoArgs(V_LOCK, s_acquire_);
    if (held == NULL) return NULL;
    Py_DECREF(held);
    int failed = linked(args[0], args[1], readonly) < 0;
    PyObject *kind, *error, *trace;
    PyErr_Fetch(&kind, &error, &trace); /* NOTE: the lock goes back, whatever failed */
    PyObject *released = PyObject_CallMethodNoArgs(V_LOCK, s_release_);
    Py_XDECREF(released);
    if (kind != NULL) PyErr_Restore(kind, error, trace);
    else if (released == NULL) failed = 1;
    return failed ? NULL : Py_NewRef(args[1]);
}
"""

ARRAYS = r"""
/* -- an Array's node and its facts: the properties every recording reads -------------------- */

/* Whether the view `array` has seen every write into its storage (-1: an error) */
static int current(PyObject *array) {
    PyObject *view = ARRAY_SLOT(array, VIEW_AT);
    if (view == NULL || !PyTuple_Check(view) || PyTuple_GET_SIZE(view) != 4) return 0;
    PyObject *version = PyObject_GetAttr(PyTuple_GET_ITEM(view, 0), s_version);
    if (version == NULL) return -1;
    int same = version == PyTuple_GET_ITEM(view, 3) ? 1
        : PyObject_RichCompareBool(version, PyTuple_GET_ITEM(view, 3), Py_EQ);
    Py_DECREF(version);
    return same;
}

/* Shared._n: the node held, where no write since made it stale; else the Python getter's
   (it replays the view's steps on the storage's root) */
static PyObject *shared_n(PyObject *self, PyObject *array) {
    if (!PyObject_TypeCheck(array, (PyTypeObject *)V_SHARED))
        return PyErr_Format(PyExc_TypeError, "shared_n: a Shared");
    int same = current(array);
    PyObject *node = ARRAY_SLOT(array, N_AT);
    if (same > 0 && node != NULL) return Py_NewRef(node);
    return same < 0 ? NULL : PyObject_CallOneArg(V_STALE, array);
}

/* The node in an Array's _n slot (borrowed), without a stale view's replay; NULL (an error)
   for anything else */
static PyObject *slot_node(PyObject *array) {
    PyObject *node = PyObject_TypeCheck(array, (PyTypeObject *)V_ARRAY) ? ARRAY_SLOT(array, N_AT)
                                                                         : NULL;
    if (node == NULL) PyErr_Format(PyExc_AttributeError, "an Array without a node");
    return node;
}

/* x._n of an Array: its slot, or a Shared's property (new reference) */
static PyObject *held_of(PyObject *array) {
    if (Py_TYPE(array) == (PyTypeObject *)V_SHARED) return shared_n(NULL, array);
    PyObject *node = slot_node(array);
    return node == NULL ? NULL : Py_NewRef(node);
}

/* Array._node: the node held, resolved to its buffer where computed (the slot keeps it) */
static PyObject *array_node(PyObject *self, PyObject *array) {
    PyObject *node = held_of(array);
    PyObject *op = node == NULL ? NULL : peek(node, F_OP);
    if (op == NULL || op == BUFFER) return node;
    PyObject *realized = peek(node, F_REALIZED);
    if (realized != NULL && realized != Py_None) {
        Py_SETREF(node, Py_NewRef(realized));
        Py_XSETREF(ARRAY_SLOT(array, N_AT), Py_NewRef(realized));
    }
    return node;
}

/* Array.shape, .dtype, .ndim: the held node's (never stale: a write changes values only) */
static PyObject *held_field(PyObject *array, int f) {
    PyObject *node = slot_node(array);
    return node == NULL ? NULL : field(node, f);
}

static PyObject *array_shape(PyObject *self, PyObject *array) {
    return held_field(array, F_SHAPE);
}

static PyObject *array_dtype(PyObject *self, PyObject *array) {
    return held_field(array, F_DTYPE);
}

/* Array.T: a matrix's transpose, its PERMUTE node linked as a view of x (manipulation's
   transposed); the Python getter for any other x (numpy reverses an n-d array's axes) */
static PyObject *array_t(PyObject *self, PyObject *array) {
    PyObject *node = ARRAY == NULL ? NULL : array_node(NULL, array);
    PyObject *shape = node == NULL ? NULL : peek(node, F_SHAPE);
    if (shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 2) {
        Py_XDECREF(node);
        return PyErr_Occurred() ? NULL : PyObject_CallOneArg(V_TRANSPOSED, array);
    }
    PyObject *swapped = PyTuple_Pack(2, PyTuple_GET_ITEM(shape, 1), PyTuple_GET_ITEM(shape, 0));
    PyObject *axes = swapped == NULL ? NULL : Py_BuildValue("(ii)", 1, 0);
    PyObject *source = axes == NULL ? NULL : caller_source(NULL, NULL, 0);
    PyObject *srcs = source == NULL ? NULL : PyTuple_Pack(1, node), *made = NULL, *view = NULL;
    PyObject *args[6] = {V_PERMUTE, srcs, swapped, peek(node, F_DTYPE), axes, source};
    PyObject *permuted = srcs == NULL ? NULL : quick_node(NULL, args, 6);
    if (permuted != NULL) view = new_array(permuted);
    if (view != NULL) {
        PyObject *pair[2] = {array, view};
        made = view_link(NULL, pair, 2, NULL);
    }
    Py_DECREF(node); Py_XDECREF(swapped); Py_XDECREF(axes); Py_XDECREF(source);
    Py_XDECREF(srcs); Py_XDECREF(permuted); Py_XDECREF(view);
    return made;
}

static PyObject *array_ndim(PyObject *self, PyObject *array) {
    PyObject *shape = held_field(array, F_SHAPE);
    Py_ssize_t n = shape == NULL ? -1 : PyObject_Length(shape);
    Py_XDECREF(shape);
    return n < 0 ? NULL : PyLong_FromSsize_t(n);
}
"""
