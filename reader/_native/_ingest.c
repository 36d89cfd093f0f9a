/* The compiled core of the reader's hot loops: TFRecord framing, CRC-32C, and a strict parse
 * of the two record kinds that come by the million (graph traces and executions).
 *
 * Why it can be exact: it only ever accepts records whose bytes are in the one canonical
 * protobuf layout (fields once each, in field order, with the wire types TensorFlow writes)
 * and whose strings the Python code has already validated and interned. Such a record has one
 * meaning under the protobuf wire format, which this file decodes. Everything else - a new
 * string, a damaged frame, a failing CRC, an unusual layout, a non-canonical tensor - makes it
 * stop and hand that one record back to the Python code (reader/index/ingest.py), which stays
 * the single definition of what a record means and of every warning.
 *
 * Output: rows in the same packed layouts the Python loops build (see ingest.py), appended to
 * bytearrays owned by the caller.
 *
 * The module is built from: this file (the module: configuration, CRC, entry points),
 * scan_traces.c and scan_executions.c (the index loops, sharing scan.h), keytable.c/.h (the
 * table of known kinds and names), readback.c (summaries read back by offset), and
 * wire.c/wire.h (framing, fields, CRC-32C, the mode rules and a summary's health).
 */
#include "scan.h"


/* ------------------------------------------------------------------ module */

/* crc32c(buffer, crc=0): CRC-32C (unmasked) of what `crc` covered followed by the buffer,
 * as the `crc32c` package's function (which it replaces when this module is built). */
static PyObject *py_crc32c(PyObject *self, PyObject *args) {
    Py_buffer view;
    unsigned long crc = 0;
    if (!PyArg_ParseTuple(args, "y*|k", &view, &crc)) return NULL;
    uint32_t c;
    if (view.len < (1 << 16)) { /* a record's header or payload: the GIL hand-off would cost more */
        c = tfr_crc32c_update((uint32_t)crc, view.buf, (size_t)view.len);
    } else {
        Py_BEGIN_ALLOW_THREADS
        c = tfr_crc32c_update((uint32_t)crc, view.buf, (size_t)view.len);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(c);
}

/* configure({mode: (vector length, rule, columns, tensor id first)}): the fixed-layout modes
 * and how `bad` follows from their summary (reader.index.batches.VECTOR_RULES). */
static PyObject *configure(PyObject *self, PyObject *arg) {
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "configure() takes a dict");
        return NULL;
    }
    ModeRule table[16];
    memset(table, 0, sizeof table);
    PyObject *k, *v;
    Py_ssize_t i = 0;
    while (PyDict_Next(arg, &i, &k, &v)) {
        long mode = PyLong_AsLong(k);
        int len, rule, has_tid;
        PyObject *cols, *maxes;
        if (PyErr_Occurred()) return NULL;
        if (!PyArg_ParseTuple(v, "iiO!pO!", &len, &rule, &PyTuple_Type, &cols, &has_tid,
                              &PyTuple_Type, &maxes))
            return NULL;
        Py_ssize_t ncols = PyTuple_GET_SIZE(cols);
        if (mode < 0 || mode >= 16 || len <= 0 || len > 15 || rule < 0 || rule > 3 ||
            ncols > 4 || (rule != RULE_NONE && ncols == 0) || PyTuple_GET_SIZE(maxes) != len) {
            PyErr_SetString(PyExc_ValueError, "bad mode rule");
            return NULL;
        }
        ModeRule *r = &table[mode];
        r->len = len;
        r->rule = rule;
        r->ncols = (int)ncols;
        r->has_tid = has_tid;
        for (Py_ssize_t c = 0; c < ncols; c++) {
            long col = PyLong_AsLong(PyTuple_GET_ITEM(cols, c));
            if (PyErr_Occurred()) return NULL;
            if (col < 0 || col >= len) {
                PyErr_SetString(PyExc_ValueError, "rule column out of the vector");
                return NULL;
            }
            r->cols[c] = (int)col;
        }
        for (int e = 0; e < len; e++) {
            r->max[e] = PyFloat_AsDouble(PyTuple_GET_ITEM(maxes, e));
            if (PyErr_Occurred()) return NULL;
        }
    }
    memcpy(tfr_rules, table, sizeof table);
    Py_RETURN_NONE;
}

/* configure_digests({mode: (lo, hi)}): the summary elements each mode's digest covers
 * (reader.index.health.COMPARED); after `configure`, whose vector lengths bound them. Modes
 * not named get no digest. */
static PyObject *configure_digests(PyObject *self, PyObject *arg) {
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "configure_digests() takes a dict");
        return NULL;
    }
    int table[16][2];
    memset(table, 0, sizeof table);
    PyObject *k, *v;
    Py_ssize_t i = 0;
    while (PyDict_Next(arg, &i, &k, &v)) {
        long mode = PyLong_AsLong(k);
        int lo, hi;
        if (PyErr_Occurred()) return NULL;
        if (!PyArg_ParseTuple(v, "ii", &lo, &hi)) return NULL;
        if (mode < 0 || mode >= 16 || lo < 0 || hi <= lo || hi > tfr_rules[mode].len) {
            PyErr_SetString(PyExc_ValueError, "bad digest range");
            return NULL;
        }
        table[mode][0] = lo;
        table[mode][1] = hi;
    }
    memcpy(tfr_digest_range, table, sizeof table);
    Py_RETURN_NONE;
}

/* summary_digest(mode, vector bytes) -> int: the digest the index loops give a canonical,
 * sane summary (0: none); None when the loops would not take it (for tests against
 * reader.index.health.summary_digests). */
static PyObject *py_summary_digest(PyObject *self, PyObject *args) {
    int mode;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "iy*", &mode, &view)) return NULL;
    int8_t bad = -1;
    int64_t tid = -1;
    int ok = mode >= 0 && mode < 16 && tfr_rules[mode].len &&
             view.len == 8 * (Py_ssize_t)tfr_rules[mode].len &&
             vector_health(mode, view.buf, &bad, &tid);
    uint64_t d = ok ? summary_digest(mode, view.buf) : 0;
    PyBuffer_Release(&view);
    if (!ok) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(d);
}

/* vector_health(mode, vector bytes) -> (bad, tensor id) or None: what the loops compute for
 * one canonical summary (for tests against reader.index.health.fill_from_vectors). */
static PyObject *py_vector_health(PyObject *self, PyObject *args) {
    int mode;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "iy*", &mode, &view)) return NULL;
    int8_t bad = -1;
    int64_t tid = -1;
    int ok = mode >= 0 && mode < 16 && tfr_rules[mode].len &&
             view.len == 8 * (Py_ssize_t)tfr_rules[mode].len &&
             vector_health(mode, view.buf, &bad, &tid);
    PyBuffer_Release(&view);
    if (!ok) Py_RETURN_NONE;
    return Py_BuildValue("(iL)", (int)bad, (long long)tid);
}

static PyMethodDef methods[] = {
    {"scan_traces", tfr_scan_traces, METH_VARARGS, "index canonical graph-trace records"},
    {"scan_executions", tfr_scan_executions, METH_VARARGS, "index canonical execution records"},
    {"crc32c", py_crc32c, METH_VARARGS, "CRC-32C (unmasked) of a buffer, continuing crc"},
    {"configure", configure, METH_O, "set the summary layout and rules of each mode"},
    {"vector_health", py_vector_health, METH_VARARGS, "bad and tensor id of one summary"},
    {"configure_digests", configure_digests, METH_O, "set the elements each mode's digest covers"},
    {"summary_digest", py_summary_digest, METH_VARARGS, "the digest of one summary"},
    {"read_summaries", tfr_read_summaries, METH_VARARGS, "summaries of records, by offset"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_ingest",
    .m_doc = "Compiled hot loops of the reader (framing, CRC-32C, canonical record parse).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__ingest(void) {
    const uint16_t one = 1;
    if (*(const uint8_t *)&one != 1) {
        PyErr_SetString(PyExc_ImportError, "big-endian hosts use the pure-Python reader");
        return NULL;
    }
    tfr_crc_setup();
    if (PyType_Ready(&TfrKeyTableType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&TfrKeyTableType);
    if (PyModule_AddObject(m, "KeyTable", (PyObject *)&TfrKeyTableType) < 0) {
        Py_DECREF(&TfrKeyTableType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "END", ST_END);
    PyModule_AddIntConstant(m, "PUNT", ST_PUNT);
    PyModule_AddIntConstant(m, "HARDWARE_CRC", tfr_crc_is_hardware());
    return m;
}

