/* The KeyTable Python type: filled by Python with strings it validated (see keytable.h). */
#include "keytable.h"

static const size_t MAX_ENTRIES = 1u << 20;


static int kt_grow(KeyTable *t) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    Entry *slots = PyMem_Calloc(cap, sizeof(Entry));
    if (!slots) return -1;
    for (size_t i = 0; i < t->cap; i++) {
        Entry *e = &t->slots[i];
        if (!e->key) continue;
        size_t j = (size_t)e->hash & (cap - 1);
        while (slots[j].key) j = (j + 1) & (cap - 1);
        slots[j] = *e;
    }
    PyMem_Free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

static void kt_clear(KeyTable *t) {
    for (size_t i = 0; i < t->cap; i++) PyMem_Free(t->slots[i].key);
    PyMem_Free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

static void KeyTable_dealloc(KeyTable *t) {
    kt_clear(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* add(key: bytes, a, b, c, d): remember key -> (a, b, c, d); silently full at MAX_ENTRIES. */
static PyObject *KeyTable_add(KeyTable *t, PyObject *args) {
    Py_buffer key;
    int a, b, c, d;
    if (!PyArg_ParseTuple(args, "y*iiii", &key, &a, &b, &c, &d)) return NULL;
    uint64_t h = hash_bytes(key.buf, (size_t)key.len, 0xCBF29CE484222325ull);
    if (t->used >= MAX_ENTRIES) goto done;
    if ((t->used + 1) * 2 > t->cap && kt_grow(t) < 0) {
        PyBuffer_Release(&key);
        return PyErr_NoMemory();
    }
    Entry *e = kt_find(t, key.buf, (size_t)key.len, h);
    if (!e->key) {
        e->key = PyMem_Malloc(key.len ? (size_t)key.len : 1);
        if (!e->key) {
            PyBuffer_Release(&key);
            return PyErr_NoMemory();
        }
        memcpy(e->key, key.buf, (size_t)key.len);
        e->len = (size_t)key.len;
        e->hash = h;
        t->used++;
    }
    e->v[0] = a; e->v[1] = b; e->v[2] = c; e->v[3] = d;
done:
    PyBuffer_Release(&key);
    Py_RETURN_NONE;
}

static PyObject *KeyTable_clear(KeyTable *t, PyObject *Py_UNUSED(ignored)) {
    kt_clear(t);
    Py_RETURN_NONE;
}

static Py_ssize_t KeyTable_len(KeyTable *t) { return (Py_ssize_t)t->used; }

static PyMethodDef KeyTable_methods[] = {
    {"add", (PyCFunction)KeyTable_add, METH_VARARGS, "add(key, a, b, c, d)"},
    {"clear", (PyCFunction)KeyTable_clear, METH_NOARGS, "forget every entry"},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods KeyTable_as_seq = {.sq_length = (lenfunc)KeyTable_len};

PyTypeObject TfrKeyTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "reader._native._ingest.KeyTable",
    .tp_basicsize = sizeof(KeyTable),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "byte string -> four ints, filled by the Python ingest with validated strings",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)KeyTable_dealloc,
    .tp_methods = KeyTable_methods,
    .tp_as_sequence = &KeyTable_as_seq,
};
