"""realize()'s common case in C, part of the native extension's source (native.py builds it).

`realize_one(array)` is `realize(array)` where nothing but its work is to be done: one array,
the options' device (its run record known: realize's `_setting`), no debug line, not a view a
direct run takes (direct.py), a cached template (the hit's Job), every buffer the device's own.
It takes the lock, looks the Job up (native_hit.py), runs it as run.run_schedule does (its
device's runner's run where the device has one for the schedule, else that function), swaps the
requested and kept values in (native_recording.py's swap), marks the order evaluated and
counts, as _realize does, without its Python frames (~20 calls, a third of a small cached
materialization). Anything else returns NotImplemented before it changes anything, and the
Python function runs (a miss or another device after the lookup: it looks up again).
"""

# NOTE: C, appended after native_scan.SCAN, native_recording.RECORDING and native_hit.HIT (it
# calls lookup, swap, mark and in_dict)
REALIZE = r"""
/* -- realize's common case: one array, a cached schedule on the options' device ------------- */
static PyObject *R_OPTIONS, *R_VERSION, *R_VIEWS, *R_LOCK, *R_CACHE, *R_RUN, *R_ACCOUNT,
    *R_COUNTERS;
static PyObject *s_node_, *s_setting_, *s_debug, *s_fuse, *s_keeps, *s_target, *s_token,
    *s_name, *s_outputs, *s_acquire, *s_release, *s_materializations, *s_reused, *s_runner,
    *s_finish, *s_totals, *s_kernels, *s_nodes, *s_written, *s_read, *s_direct_runs;

/* setup_realize(options, registry_version, views, lock, cache, run_schedule, account,
   counters): the context variable holding the options and what realize reads and calls */
static PyObject *setup_realize(PyObject *self, PyObject *args) {
    PyObject *o[8];
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7]))
        return NULL;
    if (!PyContextVar_CheckExact(o[0]) || !PyTuple_Check(o[2]))
        return PyErr_Format(PyExc_TypeError, "setup_realize: a ContextVar, a tuple of ops");
    PyObject **names[] = {&s_node_, &s_setting_, &s_debug, &s_fuse, &s_keeps, &s_target,
                          &s_token, &s_name, &s_outputs, &s_acquire, &s_release,
                          &s_materializations, &s_reused, &s_runner, &s_finish, &s_totals,
                          &s_kernels, &s_nodes, &s_written, &s_read, &s_direct_runs};
    const char *texts[] = {"_node", "_setting", "debug", "fuse", "keeps", "target", "token",
                           "name", "outputs", "acquire", "release", "materializations",
                           "schedules_reused", "runner", "finish", "totals", "kernels",
                           "nodes", "bytes_written", "bytes_read", "direct_runs"};
    for (int k = 0; k < 21; k++)
        if ((*names[k] = PyUnicode_InternFromString(texts[k])) == NULL) return NULL;
    PyObject **kept[] = {&R_OPTIONS, &R_VERSION, &R_VIEWS, &R_LOCK, &R_CACHE, &R_RUN,
                         &R_ACCOUNT, &R_COUNTERS};
    for (int k = 0; k < 8; k++) Py_XSETREF(*kept[k], Py_NewRef(o[k]));
    Py_RETURN_NONE;
}

/* counters.<name> += by; 0, or -1: an error */
static int count(PyObject *name, PyObject *by) {
    PyObject *was = PyObject_GetAttr(R_COUNTERS, name);
    PyObject *now = was == NULL ? NULL : PyNumber_Add(was, by);
    int failed = now == NULL || PyObject_SetAttr(R_COUNTERS, name, now) < 0;
    Py_XDECREF(was); Py_XDECREF(now);
    return failed ? -1 : 0;
}

/* swap(node, values[out], holder) for each pair of `nodes` and `outs`; 0, or -1 */
static int swap_each(PyObject *nodes, PyObject *outs, PyObject *values, PyObject *holder) {
    if (!PyTuple_Check(nodes) || !PyTuple_Check(outs) ||
        PyTuple_GET_SIZE(nodes) != PyTuple_GET_SIZE(outs)) {
        PyErr_SetString(PyExc_TypeError, "realize_one: a job's nodes and its outputs");
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(nodes); k++) {
        PyObject *value = PyObject_GetItem(values, PyTuple_GET_ITEM(outs, k));
        if (value == NULL) return -1;
        PyObject *args[3] = {PyTuple_GET_ITEM(nodes, k), value, holder};
        PyObject *done = swap(NULL, args, 3);
        Py_DECREF(value);
        if (done == NULL) return -1;
        Py_DECREF(done);
    }
    return 0;
}

/* What realize_one needs of the options' run record, or 0 where Python decides: `*known`, the
   record (new: another thread's realize may replace it in the options), and in `record` its
   device, the holder's name, the settings and the allocator (borrowed from it); the options'
   fuse (new) */
static int run_record(PyObject *options, PyObject *op, PyObject **known_, PyObject **record,
                      PyObject **fuse) {
    PyObject *known = *known_ = in_dict(options, s_setting_);
    if (known == NULL || !PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 5)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *version = PyObject_CallNoArgs(R_VERSION);
    int same = version == NULL ? -1
        : PyObject_RichCompareBool(version, PyTuple_GET_ITEM(known, 4), Py_EQ);
    Py_XDECREF(version);
    if (same <= 0) return same;
    PyObject *debug = PyObject_GetAttr(options, s_debug);
    int quiet = debug == NULL ? -1 : !PyObject_IsTrue(debug);
    Py_XDECREF(debug);
    if (quiet <= 0) return quiet < 0 ? -1 : 0;
    for (int k = 0; k < 4; k++) record[k] = PyTuple_GET_ITEM(known, k);
    int viewed = PySequence_Contains(R_VIEWS, op);
    if (viewed > 0) viewed = PyObject_RichCompareBool(record[1], CPU, Py_EQ);
    if (viewed != 0) return viewed < 0 ? -1 : 0; /* NOTE: direct.py's, in Python */
    *fuse = PyObject_GetAttr(options, s_fuse);
    return *fuse == NULL ? -1 : 1;
}

/* The cached Job of `node` on `device`, NULL: an error, or None where Python decides (no
   template, another device's data) */
static PyObject *cached_job(PyObject *node, PyObject *device, PyObject *fuse, PyObject *keeps) {
    PyObject *target = PyObject_GetAttr(device, s_target);
    PyObject *token = target == NULL ? NULL : in_dict(target, s_token);
    Py_XDECREF(target);
    if (token == NULL) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    PyObject *pending = PyList_New(1);
    if (pending == NULL) { Py_DECREF(token); return NULL; }
    PyList_SET_ITEM(pending, 0, Py_NewRef(node));
    PyObject *args[5] = {pending, keeps, R_CACHE, token, fuse};
    PyObject *job = lookup(NULL, args, 5), *name = NULL;
    Py_DECREF(pending); Py_DECREF(token);
    if (job == NULL || Py_TYPE(job) != (PyTypeObject *)JOB) {
        if (job == NULL) return NULL;
        Py_SETREF(job, Py_NewRef(Py_None)); /* NOTE: a scan's result: prepare goes on */
        return job;
    }
    PyObject *devices = PyTuple_GET_ITEM(job, 6), *redirect = PyTuple_GET_ITEM(job, 8);
    name = PyObject_GetAttr(device, s_name);
    int own = name == NULL ? -1 : redirect == Py_None && PyAnySet_Check(devices) &&
                                  PySet_GET_SIZE(devices) == 1;
    if (own > 0) own = PySet_Contains(devices, name);
    Py_XDECREF(name);
    if (own <= 0) Py_SETREF(job, own < 0 ? NULL : Py_NewRef(Py_None));
    return job;
}

/* counters' kernels, nodes and bytes of a schedule run (run._account: its totals, summed
   there once); 0, or -1 */
static int account(PyObject *schedule) {
    PyObject *totals = in_dict(schedule, s_totals);
    if (totals == NULL || !PyTuple_Check(totals) || PyTuple_GET_SIZE(totals) != 4) {
        Py_XDECREF(totals);
        PyObject *done = PyErr_Occurred() ? NULL : PyObject_CallOneArg(R_ACCOUNT, schedule);
        Py_XDECREF(done);
        return done == NULL ? -1 : 0;
    }
    PyObject **names[4] = {&s_kernels, &s_nodes, &s_written, &s_read};
    int failed = 0;
    for (int k = 0; !failed && k < 4; k++)
        failed = count(*names[k], PyTuple_GET_ITEM(totals, k)) < 0;
    Py_DECREF(totals);
    return failed ? -1 : 0;
}

/* run.run_schedule(schedule, device, inputs, settings, None, memory): the device's runner's
   run where it has one for the schedule (run_schedule's direct case), else that function */
static PyObject *run_schedule(PyObject *schedule, PyObject *inputs, PyObject **record) {
    PyObject *runner = PyObject_GetAttr(record[0], s_runner), *run = NULL;
    if (runner != NULL && runner != Py_None) run = PyObject_CallOneArg(runner, schedule);
    Py_XDECREF(runner);
    if (run == NULL && PyErr_Occurred()) return NULL;
    if (run == NULL || run == Py_None) {
        Py_XDECREF(run);
        PyObject *args[6] = {schedule, record[0], inputs, record[2], Py_None, record[3]};
        return PyObject_Vectorcall(R_RUN, args, 6, NULL);
    }
    PyObject *values = PyObject_CallOneArg(run, inputs), *finish = NULL, *done = NULL;
    Py_DECREF(run);
    if (values != NULL && account(schedule) == 0 && count(s_direct_runs, ONE) == 0)
        finish = PyObject_GetAttr(record[0], s_finish);
    if (finish != NULL) done = PyObject_CallOneArg(finish, record[2]);
    Py_XDECREF(finish);
    if (done == NULL) Py_CLEAR(values);
    Py_XDECREF(done);
    return values;
}

/* Run `job` on the run record's device, swap its values in (`array` resolved after the
   requested ones, as _swap_all resolves each array), mark and count (the lock held) */
static PyObject *run_job(PyObject *array, PyObject *job, PyObject **record, PyObject *keeps) {
    PyObject *schedule = PyTuple_GET_ITEM(job, 0);
    PyObject *values = run_schedule(schedule, PyTuple_GET_ITEM(job, 1), record);
    if (values == NULL) return NULL;
    PyObject *outputs = PyObject_GetAttr(schedule, s_outputs);
    PyObject *kept = outputs == NULL ? NULL : PyObject_GetAttr(schedule, s_kept);
    int failed = kept == NULL ||
                 swap_each(PyTuple_GET_ITEM(job, 2), outputs, values, record[1]) < 0;
    PyObject *resolved = failed ? NULL : PyObject_GetAttr(array, s_node_);
    failed = resolved == NULL ||
             swap_each(PyTuple_GET_ITEM(job, 3), kept, values, record[1]) < 0;
    Py_XDECREF(resolved);
    Py_DECREF(values); Py_XDECREF(outputs); Py_XDECREF(kept);
    int marks = failed ? -1 : PyObject_IsTrue(keeps);
    if (marks > 0) {
        PyObject *done = mark(NULL, PyTuple_GET_ITEM(job, 4));
        marks = done == NULL ? -1 : 0;
        Py_XDECREF(done);
    }
    if (marks < 0 || count(s_materializations, ONE) < 0 ||
        count(s_reused, PyTuple_GET_ITEM(job, 5)) < 0)
        return NULL;
    return Py_NewRef(schedule);
}

/* realize(array) (see the module): its schedule, None (nothing pending), or NotImplemented */
static PyObject *realize_one(PyObject *self, PyObject *array) {
    if (R_CACHE == NULL) Py_RETURN_NOTIMPLEMENTED;
    PyObject *node = PyObject_GetAttr(array, s_node_), *options = NULL, *fuse = NULL;
    PyObject *keeps = NULL, *job = NULL, *result = NULL, *known = NULL, *record[4];
    if (node == NULL) return NULL;
    PyObject *op = peek(node, F_OP); /* NOTE: NULL for anything but a Node: Python's */
    if (op == NULL || op == BUFFER) {
        Py_DECREF(node);
        if (op == NULL) Py_RETURN_NOTIMPLEMENTED;
        Py_RETURN_NONE;
    }
    int ready = PyContextVar_Get(R_OPTIONS, NULL, &options) < 0 ? -1
        : options == NULL ? 0 : run_record(options, op, &known, record, &fuse);
    if (ready > 0) keeps = PyObject_GetAttr(record[0], s_keeps);
    if (ready > 0 && keeps != NULL) {
        PyObject *held = PyObject_CallMethodNoArgs(R_LOCK, s_acquire);
        if (held != NULL) {
            Py_DECREF(held);
            job = cached_job(node, record[0], fuse, keeps);
            if (job != NULL && job != Py_None) result = run_job(array, job, record, keeps);
            PyObject *error, *kind, *trace;
            PyErr_Fetch(&kind, &error, &trace); /* NOTE: the lock goes back, whatever failed */
            PyObject *released = PyObject_CallMethodNoArgs(R_LOCK, s_release);
            if (released == NULL) Py_CLEAR(result);
            Py_XDECREF(released);
            if (kind != NULL) { PyErr_Restore(kind, error, trace); Py_CLEAR(result); }
        }
    }
    int declined = !PyErr_Occurred() && (ready == 0 || job == Py_None);
    Py_DECREF(node); Py_XDECREF(options); Py_XDECREF(fuse); Py_XDECREF(keeps); Py_XDECREF(job);
    Py_XDECREF(known);
    if (declined) Py_RETURN_NOTIMPLEMENTED;
    return result;
}
"""
