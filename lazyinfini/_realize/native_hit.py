"""The schedule cache's hit in C, part of the native extension's source (native.py builds it).

`lookup(pending, keeps, cache, token, fuse)` is ScheduleCache.prepare's common case in one
call: the scan, the live items of a linked library call asked for too (cache._live_siblings,
then a second scan), the recomputed frontier (nodes an earlier run evaluated: a fit loop's
every step has them), the key, the template's lookup, its recency stamp and the Job binding
this run's nodes and buffers (cache._job). Wherever prepare has more to do (a template not
cached, a key that is no key, a plan assuming an alignment) it returns the first scan's
result and the Python function goes on from there; both make the same Job
(tests/test_native.py compares them).
"""

# NOTE: C, appended after native_scan.SCAN and native_recording.RECORDING (it reads their names)
HIT = r"""
/* -- the cache's hit: ScheduleCache.prepare's common case in one call ------------------------ */
static PyObject *s_templates, *s_tick, *s_used, *s_schedule, *s_buffers, *s_fills,
    *s_requested, *s_kept, *s_aligned, *s_devices, *s_redirect, *ONE;

static int hit_names(void) {
    PyObject **names[] = {&s_templates, &s_tick, &s_used, &s_schedule, &s_buffers, &s_fills,
                          &s_requested, &s_kept, &s_aligned, &s_devices, &s_redirect};
    const char *texts[] = {"_templates", "_tick", "used", "schedule", "buffers", "fills",
                           "requested", "kept", "aligned", "devices", "redirect"};
    for (int k = 0; k < 11; k++)
        if ((*names[k] = PyUnicode_InternFromString(texts[k])) == NULL) return -1;
    ONE = PyLong_FromLong(1);
    return ONE == NULL ? -1 : 0;
}

/* obj.__dict__[name] (a new reference), NULL where obj has no dict or it holds no `name` (no
   error), or on an error */
static PyObject *in_dict(PyObject *obj, PyObject *name) {
    PyObject *fields = Py_TYPE(obj)->tp_dictoffset ? PyObject_GenericGetDict(obj, NULL) : NULL;
    PyObject *value = fields == NULL ? NULL : PyDict_GetItemWithError(fields, name);
    Py_XINCREF(value);
    Py_XDECREF(fields);
    return value;
}

/* obj.name (a new reference): from obj's own dict where it holds it (a dataclass's fields),
   which skips the type's lookup of a descriptor that PyObject_GetAttr makes first */
static PyObject *own_attr(PyObject *obj, PyObject *name) {
    PyObject *value = in_dict(obj, name);
    if (value != NULL || PyErr_Occurred()) return value;
    return PyObject_GetAttr(obj, name);
}

/* (order[i] for i in positions), a tuple; positions come from a template of the same key */
static PyObject *picked(PyObject *order, PyObject *positions) {
    if (positions == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(positions);
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t k = 0; out != NULL && k < n; k++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, k));
        if (i < 0 || i >= PyList_GET_SIZE(order)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "template position");
            Py_CLEAR(out);
            break;
        }
        PyObject *node = PyList_GET_ITEM(order, i);
        Py_INCREF(node);
        PyTuple_SET_ITEM(out, k, node);
    }
    Py_DECREF(positions);
    return out;
}

/* cache._bindings: each buffer stand-in's data, each fill's value where it differs from the
   template's */
static int bind(PyObject *inputs, PyObject *template, PyObject *order, PyObject *fills) {
    PyObject *buffers = own_attr(template, s_buffers);
    PyObject *stand_ins = buffers == NULL ? NULL : own_attr(template, s_fills);
    int failed = stand_ins == NULL;
    for (Py_ssize_t k = 0; !failed && k < PyTuple_GET_SIZE(buffers); k++) {
        PyObject *pair = PyTuple_GET_ITEM(buffers, k);
        PyObject *node = PyObject_GetItem(order, PyTuple_GET_ITEM(pair, 0));
        PyObject *arg = node == NULL ? NULL : field(node, F_ARG);
        PyObject *data = arg == NULL ? NULL : own_attr(arg, s_data);
        failed = data == NULL || PyDict_SetItem(inputs, PyTuple_GET_ITEM(pair, 1), data) < 0;
        Py_XDECREF(node); Py_XDECREF(arg); Py_XDECREF(data);
    }
    for (Py_ssize_t k = 0; !failed && k < PyTuple_GET_SIZE(stand_ins); k++) {
        PyObject *fill = PyTuple_GET_ITEM(stand_ins, k), *at = PyTuple_GET_ITEM(fill, 0);
        PyObject *now = PyObject_GetItem(fills, at);
        PyObject *was = PyTuple_GET_ITEM(fill, 2);
        int differ = now == NULL ? -1 : PyObject_RichCompareBool(now, was, Py_NE);
        Py_XDECREF(now);
        if (differ <= 0) { failed = differ < 0; continue; }
        PyObject *node = PyObject_GetItem(order, at);
        PyObject *value = node == NULL ? NULL
            : PyObject_CallFunctionObjArgs(BOUND_FILL, node, PyTuple_GET_ITEM(fill, 1), NULL);
        failed = value == NULL || PyDict_SetItem(inputs, PyTuple_GET_ITEM(fill, 1), value) < 0;
        Py_XDECREF(node); Py_XDECREF(value);
    }
    Py_XDECREF(buffers); Py_XDECREF(stand_ins);
    return failed ? -1 : 0;
}

/* cache._job(template, order, fills, True, key) */
static PyObject *job_of(PyObject *template, Scan *s, PyObject *key) {
    PyObject *schedule = own_attr(template, s_schedule), *inputs = PyDict_New();
    PyObject *asked = picked(s->order, own_attr(template, s_requested));
    PyObject *kept = picked(s->order, own_attr(template, s_kept));
    PyObject *devices = own_attr(template, s_devices);
    PyObject *redirect = own_attr(template, s_redirect), *items = NULL, *job = NULL;
    if (schedule && inputs && asked && kept && devices && redirect &&
        bind(inputs, template, s->order, s->fills) == 0)
        items = Py_BuildValue("((OOOOOOOOO))", schedule, inputs, asked, kept, s->order, Py_True,
                              devices, key, redirect);
    if (items != NULL) job = PyTuple_Type.tp_new((PyTypeObject *)JOB, items, NULL);
    Py_XDECREF(schedule); Py_XDECREF(inputs); Py_XDECREF(asked); Py_XDECREF(kept);
    Py_XDECREF(devices); Py_XDECREF(redirect); Py_XDECREF(items);
    return job;
}

/* The template's recency stamp: cache._tick += 1; template.used = it (ScheduleCache._get) */
static int stamp(PyObject *cache, PyObject *template) {
    PyObject *tick = PyObject_GetAttr(cache, s_tick);
    PyObject *next = tick == NULL ? NULL : PyNumber_Add(tick, ONE);
    PyObject *fields = next == NULL ? NULL : PyObject_GenericGetDict(template, NULL);
    int failed = fields == NULL || PyObject_SetAttr(cache, s_tick, next) < 0 ||
                 PyDict_SetItem(fields, s_used, next) < 0;
    Py_XDECREF(tick); Py_XDECREF(next); Py_XDECREF(fields);
    return failed ? -1 : 0;
}

/* The pending nodes' positions in the scan's order (a tuple; cache._positions) */
static PyObject *positions_of(Scan *s, PyObject *pending) {
    Py_ssize_t n = PyList_GET_SIZE(pending);
    PyObject *positions = PyTuple_New(n);
    for (Py_ssize_t k = 0; positions != NULL && k < n; k++) {
        PyObject *node = resolved(PyList_GET_ITEM(pending, k));
        PyObject *at = node == NULL ? NULL : position_in(s, node);
        Py_XDECREF(node);
        if (at == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "a pending node");
            Py_CLEAR(positions);
            break;
        }
        Py_INCREF(at);
        PyTuple_SET_ITEM(positions, k, at);
    }
    return positions;
}

/* cache._recomputed_frontier: the positions of nodes an earlier run evaluated that feed a node
   evaluated for the first time, or that an array holds, and that were not `asked` for (the
   pending nodes' positions); a tuple */
static PyObject *frontier(Scan *s, PyObject *asked) {
    Py_ssize_t n = PyList_GET_SIZE(s->order);
    char *flags = PyMem_Calloc(n ? n : 1, 3); /* done, feeds new work, kept or asked */
    PyObject *out = flags == NULL ? PyErr_NoMemory() : PyList_New(0);
    char *done = flags, *feeds = flags + n, *skip = flags + 2 * n;
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *ev = field(PyList_GET_ITEM(s->order, i), F_EVALUATED);
        int truth = ev == NULL ? -1 : PyObject_IsTrue(ev);
        Py_XDECREF(ev);
        if (truth < 0) Py_CLEAR(out);
        else done[i] = (char)truth;
    }
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        if (done[i]) continue;
        PyObject *inputs = PyList_GET_ITEM(s->srcs, i);
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(inputs); k++)
            feeds[PyLong_AsSsize_t(PyTuple_GET_ITEM(inputs, k))] = 1;
    }
    for (Py_ssize_t k = 0; out != NULL && k < PyList_GET_SIZE(s->held); k++)
        skip[PyLong_AsSsize_t(PyList_GET_ITEM(s->held, k))] |= 1; /* held: kept if done */
    for (Py_ssize_t k = 0; out != NULL && k < PyTuple_GET_SIZE(asked); k++)
        skip[PyLong_AsSsize_t(PyTuple_GET_ITEM(asked, k))] |= 2; /* never the frontier */
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        if (!done[i] || skip[i] & 2 || !(skip[i] & 1 || feeds[i])) continue;
        PyObject *at = PyLong_FromSsize_t(i);
        if (at == NULL || PyList_Append(out, at) < 0) Py_CLEAR(out);
        Py_XDECREF(at);
    }
    PyMem_Free(flags);
    if (out == NULL) return NULL;
    PyObject *again = PyList_AsTuple(out);
    Py_DECREF(out);
    return again;
}

/* prepare's key: (*parts, token, fuse, outputs, held, keeps), `outputs` the pending nodes'
   positions and then the recomputed frontier's */
static PyObject *key_of(Scan *s, PyObject *const *args, PyObject *outputs) {
    Py_ssize_t count = PyList_GET_SIZE(s->parts);
    PyObject *held = PyList_AsTuple(s->held);
    PyObject *key = held == NULL ? NULL : PyTuple_New(count + 5);
    for (Py_ssize_t k = 0; key != NULL && k < count; k++) {
        PyObject *part = PyList_GET_ITEM(s->parts, k);
        Py_INCREF(part);
        PyTuple_SET_ITEM(key, k, part);
    }
    if (key != NULL) {
        PyObject *tail[5] = {args[3], args[4], outputs, held, args[1]};
        for (int k = 0; k < 5; k++) {
            Py_INCREF(tail[k]);
            PyTuple_SET_ITEM(key, count + k, tail[k]);
        }
    }
    Py_XDECREF(held);
    return key;
}

/* The outputs of prepare's key: the pending nodes' positions, then the recomputed frontier's
   where an earlier run evaluated some node */
static PyObject *outputs_of(Scan *s, PyObject *pending) {
    PyObject *asked = positions_of(s, pending);
    if (asked == NULL || !s->evaluated) return asked;
    PyObject *again = frontier(s, asked);
    PyObject *outputs = again == NULL ? NULL : PySequence_Concat(asked, again);
    Py_DECREF(asked); Py_XDECREF(again);
    return outputs;
}

/* The Job of a cached template, or NULL: with an error, or without one where the Python path
   decides (no template, a key that is no key, a plan assuming an alignment). Nodes evaluated
   before are part of the key (the recomputed frontier, computed here as prepare does). */
static PyObject *hit(Scan *s, PyObject *const *args) {
    PyObject *outputs = outputs_of(s, args[0]);
    PyObject *key = outputs == NULL ? NULL : key_of(s, args, outputs);
    PyObject *templates = NULL, *template = NULL, *job = NULL;
    Py_XDECREF(outputs);
    templates = key == NULL ? NULL : PyObject_GetAttr(args[2], s_templates);
    if (templates != NULL) template = PyDict_GetItemWithError(templates, key);
    if (template == NULL && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_TypeError))
        PyErr_Clear(); /* a parameter that cannot be a key: prepare schedules it */
    Py_XINCREF(template);
    PyObject *aligned = template == NULL ? NULL : own_attr(template, s_aligned);
    int assumes = aligned == NULL ? -1 : PyObject_IsTrue(aligned);
    if (assumes == 0 && stamp(args[2], template) == 0) job = job_of(template, s, key);
    Py_XDECREF(key); Py_XDECREF(templates); Py_XDECREF(template); Py_XDECREF(aligned);
    return job;
}

/* Whether `item` of a linked call is to be asked for too: not placed, not computed */
static int unasked(PyObject *item, PyObject *placed) {
    PyObject *realized = field(item, F_REALIZED);
    if (realized == NULL) return -1;
    int done = realized != Py_None;
    Py_DECREF(realized);
    if (done) return 0;
    int found = PySet_Contains(placed, item);
    return found < 0 ? -1 : !found;
}

/* cache._live_siblings: the pending list with the items of the linked calls in the scan's
   order that nobody asked for and are alive (each call's node, then its live siblings), or
   NULL with an error; `pending` itself (a new reference) where there are none */
static PyObject *with_siblings(Scan *s, PyObject *pending) {
    PyObject *placed = PySet_New(NULL), *out = PySequence_List(pending);
    int failed = placed == NULL || out == NULL;
    for (Py_ssize_t k = 0; !failed && k < PyList_GET_SIZE(pending); k++) {
        PyObject *node = resolved(PyList_GET_ITEM(pending, k));
        failed = node == NULL || PySet_Add(placed, node) < 0;
        Py_XDECREF(node);
    }
    for (Py_ssize_t i = 0; !failed && i < PyList_GET_SIZE(s->order); i++) {
        PyObject *node = PyList_GET_ITEM(s->order, i);
        PyObject *op = field(node, F_OP);
        int linked = op == NULL ? -1 : PySet_Contains(LINKED, op);
        /* NOTE: a node's "siblings" (weak references) are set where it links any */
        PyObject *refs = linked == 1 ? peek(node, F_SIBLINGS) : NULL;
        PyObject *items = refs != NULL ? PySequence_Tuple(refs)
                          : linked == 1 ? PyTuple_New(0) : NULL;
        Py_XDECREF(op);
        if (linked < 0 || PyErr_Occurred()) { Py_XDECREF(items); failed = 1; break; }
        if (!linked) continue;
        failed = items == NULL;
        for (Py_ssize_t k = -1; !failed && k < PyTuple_GET_SIZE(items); k++) {
            PyObject *item = node;
            if (k >= 0) {
                item = PyWeakref_GetObject(PyTuple_GET_ITEM(items, k));
                if (item == NULL) { failed = 1; break; }
                if (item == Py_None || item == node) continue;
            }
            int ask = unasked(item, placed);
            failed = ask < 0;
            if (ask > 0) failed = PySet_Add(placed, item) < 0 || PyList_Append(out, item) < 0;
        }
        Py_XDECREF(items);
    }
    Py_XDECREF(placed);
    if (failed) Py_CLEAR(out);
    return out;
}

static PyObject *lookup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyList_Check(args[0]) || JOB == NULL) {
        PyErr_SetString(PyExc_TypeError, "lookup(pending, keeps, cache, token, fuse), set up");
        return NULL;
    }
    Scan s = {NULL};
    PyObject *result = NULL, *pending = args[0], *asked[5];
    int failed = scan_into(&s, pending, args[1]) < 0;
    if (!failed && s.calls && s.keeps) {
        /* NOTE: prepare's linked calls: their live items are asked for too, in a second scan */
        pending = with_siblings(&s, args[0]);
        failed = pending == NULL;
        if (!failed && PyList_GET_SIZE(pending) > PyList_GET_SIZE(args[0])) {
            scan_clear(&s);
            failed = scan_into(&s, pending, args[1]) < 0;
        }
    } else Py_INCREF(pending);
    if (!failed) {
        for (int k = 0; k < 5; k++) asked[k] = args[k];
        asked[0] = pending;
        result = hit(&s, asked);
        /* NOTE: no Job: prepare goes on from the first scan (it asks for the siblings again) */
        if (result == NULL && !PyErr_Occurred()) {
            scan_clear(&s);
            if (scan_into(&s, args[0], args[1]) == 0) result = scanned(&s);
        }
    }
    Py_XDECREF(pending);
    scan_clear(&s);
    return result;
}

"""
