/* ptkit._fast: Timing.start and Timing.stop without ctypes, and a
 * section's with block whose __enter__ and __exit__ are C.
 *
 * A ctypes call converts its arguments through Python objects, releases
 * and retakes the GIL and builds its result: several times the cost of
 * the C pair it calls. A Pair is bound to one timing and calls libptkit's
 * pt_start_with and pt_stop_with through the addresses the package's
 * ctypes handle found (so the one library ctypes loaded serves both, and
 * nothing here links it), for the common case: one str title and
 * metrics given as int or float. Anything else (bytes, a title ptkit
 * must refuse, an unknown keyword, a metric of another type) goes
 * to the Python method, which says what is wrong; so does any call that
 * failed or left a message, so errors read the same either way. The GIL
 * stays held: a pair takes tens of nanoseconds. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include <string.h>

typedef int (*pair_fn)(void *t, const char *title, const void *metrics);

typedef struct {
    PyObject_HEAD
    void *t;            /* the pt_timing; NULL once the timing is closed */
    pair_fn start, stop;
    PyObject *msgs;     /* the timing's list of messages from libptkit */
    PyObject *check;    /* Timing._check(rc, what) */
    PyObject *slow_start, *slow_stop; /* the Python methods */
} Pair;

static int pair_traverse(Pair *p, visitproc visit, void *arg)
{
    Py_VISIT(p->msgs);
    Py_VISIT(p->check);
    Py_VISIT(p->slow_start);
    Py_VISIT(p->slow_stop);
    return 0;
}

static int pair_clear(Pair *p)
{
    p->t = NULL;
    Py_CLEAR(p->msgs);
    Py_CLEAR(p->check);
    Py_CLEAR(p->slow_start);
    Py_CLEAR(p->slow_stop);
    return 0;
}

static void pair_dealloc(Pair *p)
{
    PyObject_GC_UnTrack(p);
    pair_clear(p);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static int pair_init(Pair *p, PyObject *args, PyObject *kw)
{
    unsigned long long t, start, stop;
    PyObject *msgs, *check, *slow_start, *slow_stop;
    static char *names[] = { "timing", "start", "stop", "msgs", "check", "slow_start",
                             "slow_stop", NULL };

    if (!PyArg_ParseTupleAndKeywords(args, kw, "KKKO!OOO", names, &t, &start, &stop,
                                     &PyList_Type, &msgs, &check, &slow_start, &slow_stop))
        return -1;
    if (!t || !start || !stop) {
        PyErr_SetString(PyExc_ValueError, "ptkit._fast.Pair: a NULL timing or function");
        return -1;
    }
    pair_clear(p);
    p->t = (void *)(uintptr_t)t;
    p->start = (pair_fn)(uintptr_t)start;
    p->stop = (pair_fn)(uintptr_t)stop;
    Py_INCREF(msgs);
    p->msgs = msgs;
    Py_INCREF(check);
    p->check = check;
    Py_INCREF(slow_start);
    p->slow_start = slow_start;
    Py_INCREF(slow_stop);
    p->slow_stop = slow_stop;
    return 0;
}

/* pt_metrics, as pt.h lays it out. */
typedef struct {
    int tag;
    double read, written, flops;
} metrics;

/* The keyword arguments as metrics: 1 when each is read, written or
 * flops with an int or float value; 0 for anything else, which the
 * Python method then explains. */
static int plain_metrics(PyObject *const *values, PyObject *kwnames, metrics *m)
{
    Py_ssize_t n = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = values[i];
        double d, *to;
        if (PyUnicode_CompareWithASCIIString(k, "read") == 0)
            to = &m->read;
        else if (PyUnicode_CompareWithASCIIString(k, "written") == 0)
            to = &m->written;
        else if (PyUnicode_CompareWithASCIIString(k, "flops") == 0)
            to = &m->flops;
        else
            return 0;
        if (PyFloat_CheckExact(v)) {
            d = PyFloat_AS_DOUBLE(v);
        } else if (PyLong_CheckExact(v)) {
            d = PyLong_AsDouble(v);
            if (d == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        } else {
            return 0;
        }
        /* Negative, NaN or infinite: the Python method refuses it, the
         * section closed all the same. */
        if (!(d >= 0) || isinf(d))
            return 0;
        *to = d;
    }
    return 1;
}

/* The title's UTF-8 when the call is the common case, else NULL. */
static const char *plain_title(PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t n;
    const char *s;

    if (nargs != 1 || !PyUnicode_CheckExact(args[0]))
        return NULL;
    s = PyUnicode_AsUTF8AndSize(args[0], &n); /* cached in the str after the first call */
    if (!s) {
        PyErr_Clear(); /* a lone surrogate: the Python method encodes it */
        return NULL;
    }
    return strlen(s) == (size_t)n ? s : NULL; /* a NUL inside: the Python method refuses it */
}

static PyObject *call(Pair *p, pair_fn fn, PyObject *slow, const char *what,
                      PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    metrics m = { 0, 0, 0, 0 };
    const char *title;
    int rc;

    if (!p->t || !(title = plain_title(args, nargs)) || !plain_metrics(args + nargs, kwnames, &m))
        return PyObject_Vectorcall(slow, args, nargsf, kwnames);
    rc = fn(p->t, title, kwnames && PyTuple_GET_SIZE(kwnames) ? &m : NULL);
    if (rc != 0 || PyList_GET_SIZE(p->msgs) > 0)
        return PyObject_CallFunction(p->check, "is", rc, what);
    Py_RETURN_NONE;
}

static PyObject *pair_start(Pair *p, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return call(p, p->start, p->slow_start, "start", args, nargsf, kwnames);
}

static PyObject *pair_stop(Pair *p, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    return call(p, p->stop, p->slow_stop, "stop", args, nargsf, kwnames);
}

/* The timing is closed: later calls go to the Python methods (no-ops). */
static PyObject *pair_close(Pair *p, PyObject *unused)
{
    (void)unused;
    p->t = NULL;
    Py_RETURN_NONE;
}

static PyMethodDef pair_methods[] = {
    { "start", (PyCFunction)(void (*)(void))pair_start, METH_FASTCALL | METH_KEYWORDS,
      "start(title, **metrics): Timing.start" },
    { "stop", (PyCFunction)(void (*)(void))pair_stop, METH_FASTCALL | METH_KEYWORDS,
      "stop(title, **metrics): Timing.stop" },
    { "close", (PyCFunction)pair_close, METH_NOARGS, "the timing is gone" },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject PairType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ptkit._fast.Pair",
    .tp_basicsize = sizeof(Pair),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Timing.start and Timing.stop of one timing, called without ctypes",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)pair_init,
    .tp_dealloc = (destructor)pair_dealloc,
    .tp_traverse = (traverseproc)pair_traverse,
    .tp_clear = (inquiry)pair_clear,
    .tp_methods = pair_methods,
};

/* A section's `with` block in C: __enter__ calls start(title), __exit__
 * stop(title), through the callables it was given (a Pair's methods, or
 * the Python ones of a Timing subclass). Python's Section (the plain
 * case of Timing.section()) derives from it for its other methods; a
 * stop that raises ptkit.Error after the body raised is dropped, as
 * Section.__exit__ does, since the body's exception says more. */
typedef struct {
    PyObject_HEAD
    PyObject *title, *start, *stop, *error;
} Scope;

static int scope_traverse(Scope *s, visitproc visit, void *arg)
{
    Py_VISIT(s->title);
    Py_VISIT(s->start);
    Py_VISIT(s->stop);
    Py_VISIT(s->error);
    return 0;
}

static int scope_clear(Scope *s)
{
    Py_CLEAR(s->title);
    Py_CLEAR(s->start);
    Py_CLEAR(s->stop);
    Py_CLEAR(s->error);
    return 0;
}

static void scope_dealloc(Scope *s)
{
    PyObject_GC_UnTrack(s);
    scope_clear(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* Scope._bind(title, start, stop, error): what __enter__ and __exit__ call. */
static PyObject *scope_bind(Scope *s, PyObject *args)
{
    PyObject *title, *start, *stop, *error;

    if (!PyArg_ParseTuple(args, "OOOO", &title, &start, &stop, &error))
        return NULL;
    scope_clear(s);
    Py_INCREF(title);
    s->title = title;
    Py_INCREF(start);
    s->start = start;
    Py_INCREF(stop);
    s->stop = stop;
    Py_INCREF(error);
    s->error = error;
    Py_RETURN_NONE;
}

static PyObject *scope_enter(Scope *s, PyObject *unused)
{
    PyObject *r;

    (void)unused;
    if (!s->start) {
        PyErr_SetString(PyExc_TypeError, "ptkit._fast.Scope: not bound to a timing");
        return NULL;
    }
    r = PyObject_Vectorcall(s->start, &s->title, 1, NULL);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_INCREF(s);
    return (PyObject *)s;
}

static PyObject *scope_exit(Scope *s, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *r;

    if (!s->stop) {
        PyErr_SetString(PyExc_TypeError, "ptkit._fast.Scope: not bound to a timing");
        return NULL;
    }
    r = PyObject_Vectorcall(s->stop, &s->title, 1, NULL);
    if (!r) {
        if (nargs > 0 && args[0] != Py_None && PyErr_ExceptionMatches(s->error))
            PyErr_Clear();
        else
            return NULL;
    } else {
        Py_DECREF(r);
    }
    Py_RETURN_FALSE;
}

static PyMethodDef scope_methods[] = {
    { "_bind", (PyCFunction)scope_bind, METH_VARARGS, "_bind(title, start, stop, error)" },
    { "__enter__", (PyCFunction)scope_enter, METH_NOARGS, "start(title)" },
    { "__exit__", (PyCFunction)(void (*)(void))scope_exit, METH_FASTCALL, "stop(title)" },
    { NULL, NULL, 0, NULL },
};

static PyTypeObject ScopeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ptkit._fast.Scope",
    .tp_basicsize = sizeof(Scope),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "a section's with block, its start and stop called from C",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)scope_dealloc,
    .tp_traverse = (traverseproc)scope_traverse,
    .tp_clear = (inquiry)scope_clear,
    .tp_methods = scope_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "ptkit._fast", "Timing.start/stop and with blocks without ctypes", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fast(void)
{
    PyObject *m;

    if (PyType_Ready(&PairType) < 0 || PyType_Ready(&ScopeType) < 0)
        return NULL;
    m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&PairType);
    if (PyModule_AddObject(m, "Pair", (PyObject *)&PairType) < 0) {
        Py_DECREF(&PairType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&ScopeType);
    if (PyModule_AddObject(m, "Scope", (PyObject *)&ScopeType) < 0) {
        Py_DECREF(&ScopeType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
