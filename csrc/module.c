/* module.c: cured._cured, the CPython extension: its state, CudaError and the registry of versions;
 * the module's functions are in module_*.c (module.h says which does what). They turn Python
 * arguments into a dtype, an accumulator, a version and a host buffer or a device array (interop.c),
 * run the GPU reduction or the CPU sum with the GIL released, and turn CUDA failures into Python
 * exceptions. */
#define CURED_IMPORTS_NUMPY /* this file imports NumPy's C API; the others use it */
#include "module.h"

/* ---- errors ---------------------------------------------------------------------------------- */

PyObject *raise_cuda(PyObject *module, cured_cuda_status status) {
    /* A failed runtime call also leaves its error in this thread's last-error slot, where the
     * cudaGetLastError() after the next launch would find it and report it again: take it out.
     * (Sticky errors, a crashed context, stay: every later call reports them.) */
    (void)cudaGetLastError();
    if (status.code == cudaErrorMemoryAllocation)
        return PyErr_Format(PyExc_MemoryError, "cured: out of GPU memory (%s: %s)", status.call,
                            cudaGetErrorString(status.code));
    PyObject *type = state_of(module)->cuda_error;
    const int no_gpu = status.code == cudaErrorNoDevice || status.code == cudaErrorInsufficientDriver;
    PyObject *error = PyObject_CallFunction(type, "N", PyUnicode_FromFormat("%s%s: %s (in %s)",
        no_gpu ? "no usable CUDA GPU: cured needs an NVIDIA GPU and driver for this; " : "",
        cudaGetErrorName(status.code), cudaGetErrorString(status.code), status.call));
    PyObject *code = PyLong_FromLong((long)status.code);
    if (error != NULL && code != NULL && PyObject_SetAttrString(error, "code", code) == 0)
        PyErr_SetObject(type, error);
    Py_XDECREF(code);
    Py_XDECREF(error);
    return NULL;
}

/* ---- the registry ---------------------------------------------------------------------------- */

static PyObject *py_versions(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    PyObject *rows = PyTuple_New(cured_num_versions);
    if (rows == NULL) return NULL;
    for (int k = 0; k < cured_num_versions; ++k) {
        const cured_version *v = &cured_versions[k];
        static const char *const trees[] = {"interleaved", "sequential", "warps", "exact"};
        const int passes = v->schedule == CURED_PASSES;
        PyObject *row = Py_BuildValue(
            "{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:N,s:N,s:s}", "id", v->id, "name", v->name, "source", v->symbol,
            "summary", v->summary, "schedule", passes ? "passes" : "tiles", "threads", v->threads,
            "per_thread", v->per_thread, "elements_per_thread", passes ? PyLong_FromLong(v->per_thread) : Py_NewRef(Py_None),
            "elements_per_block", passes ? PyLong_FromLongLong(cured_elements_per_block(v)) : Py_NewRef(Py_None),
            "tree", trees[v->tree]);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyTuple_SET_ITEM(rows, k, row);
    }
    return rows;
}

static PyObject *py_shape(PyObject *module, PyObject *args) {
    PyObject *version_obj;
    PyArray_Descr *descr = NULL;
    long long n;
    const cured_version *v;
    (void)module;
    if (!PyArg_ParseTuple(args, "OO&L:shape", &version_obj, PyArray_DescrConverter, &descr, &n)) return NULL;
    const int dtype = dtype_of(descr);
    Py_DECREF(descr);
    if (dtype < 0 || parse_version(version_obj, 0, &v) < 0) return NULL;
    if (n < 0) return PyErr_Format(PyExc_ValueError, "shape: n must be >= 0, not %lld", n);
    if (v->schedule == CURED_TILES) {
        const cured_tiles t = cured_tiles_of(v->threads, v->per_thread, cured_dtype_size((cured_dtype)dtype), n);
        return Py_BuildValue("{s:s,s:i,s:L,s:L,s:L,s:L}", "schedule", "tiles", "vector", t.vector, "step",
                             (long long)t.step, "steps", (long long)t.steps, "tile", (long long)t.tile, "tiles",
                             (long long)t.tiles);
    }
    PyObject *blocks = PyList_New(0);
    for (int64_t count = n; blocks != NULL && count > 0;) {
        count = (count + cured_elements_per_block(v) - 1) / cured_elements_per_block(v);
        PyObject *b = PyLong_FromLongLong(count);
        if (b == NULL || PyList_Append(blocks, b) < 0) Py_CLEAR(blocks);
        Py_XDECREF(b);
        if (count == 1) break;
    }
    return blocks == NULL ? NULL : Py_BuildValue("{s:s,s:N}", "schedule", "passes", "blocks", blocks);
}

/* ---- the module ------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"versions", py_versions, METH_NOARGS,
     "versions()\n--\n\nThe registry of kernel versions: a tuple of dicts, one a version."},
    {"shape", py_shape, METH_VARARGS,
     "shape(version, dtype, n)\n--\n\nHow `version` cuts n elements of `dtype`: for schedule 'passes', the "
     "blocks of each pass; for 'tiles', the vector width, step, steps a tile, tile and tiles."},
    {NULL, NULL, 0, NULL},
};

/* EXACT_ROWS_ACC: each float result dtype's accumulator along axes (cured_exact_rows_acc), the one
 * that sum_axes(exact=True) takes, for numpy_sum.py. */
static int add_exact_rows_accs(PyObject *module) {
    static const cured_dtype results[] = {CURED_FLOAT16, CURED_FLOAT32, CURED_FLOAT64};
    PyObject *accs = PyDict_New();
    if (accs == NULL) return -1;
    for (size_t k = 0; k < sizeof results / sizeof *results; ++k) {
        PyArray_Descr *result = PyArray_DescrFromType(npy_type_of(results[k]));
        PyArray_Descr *acc = PyArray_DescrFromType(npy_type_of(cured_acc_dtype(cured_exact_rows_acc(results[k]))));
        const int added = PyDict_SetItem(accs, (PyObject *)result, (PyObject *)acc);
        Py_DECREF(result);
        Py_DECREF(acc);
        if (added < 0) {
            Py_DECREF(accs);
            return -1;
        }
    }
    const int added = PyModule_AddObjectRef(module, "EXACT_ROWS_ACC", accs);
    Py_DECREF(accs);
    return added;
}

static int module_exec(PyObject *module) {
    if (PyArray_ImportNumPyAPI() < 0 || device_array_init() < 0) return -1;
    module_state *state = state_of(module);
    state->cuda_error = PyErr_NewExceptionWithDoc(
        "cured.CudaError",
        "A CUDA call failed. The message names the CUDA error and the call; .code is CUDA's error number.",
        PyExc_RuntimeError, NULL);
    if (state->cuda_error == NULL) return -1;
    if (PyModule_AddObjectRef(module, "CudaError", state->cuda_error) < 0) return -1;
    if ((state->shape_name = PyUnicode_InternFromString("shape")) == NULL) return -1;
    if ((state->interface_name = PyUnicode_InternFromString("__cuda_array_interface__")) == NULL) return -1;
    /* The exact state's layout, for cured.ExactSum: limbs of 32 bits, limb 0's bit 0 worth 2^EXACT_UNIT_EXP. */
    if (PyModule_AddIntConstant(module, "EXACT_LIMBS", CURED_EXACT_LIMBS) < 0 ||
        PyModule_AddIntConstant(module, "EXACT_UNIT_EXP", CURED_EXACT_UNIT_EXP) < 0)
        return -1;
    /* The host path's ramp bound, for tests of its chunks (_chunk_spans). */
    if (PyModule_AddIntConstant(module, "RAMP_MAX_CHUNKS_A_LANE", CURED_RAMP_MAX_CHUNKS_A_LANE) < 0) return -1;
    PyMethodDef *const functions[] = {module_sum_methods,   module_axes_methods,   module_numpy_sum_methods,
                                      module_exact_methods, module_device_methods, module_hooks_methods};
    for (size_t k = 0; k < sizeof functions / sizeof *functions; ++k)
        if (PyModule_AddFunctions(module, functions[k]) < 0) return -1;
    return add_exact_rows_accs(module);
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
    module_state *state = state_of(module);
    Py_VISIT(state->cuda_error);
    Py_VISIT(state->python_sum);
    Py_VISIT(state->no_value);
    Py_VISIT(state->shape_name);
    Py_VISIT(state->interface_name);
    return 0;
}

static int module_clear(PyObject *module) {
    module_state *state = state_of(module);
    Py_CLEAR(state->cuda_error);
    Py_CLEAR(state->python_sum);
    Py_CLEAR(state->no_value);
    Py_CLEAR(state->shape_name);
    Py_CLEAR(state->interface_name);
    return 0;
}

static void module_free(void *module) { module_clear((PyObject *)module); }

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cured._cured",
    .m_doc = "cured's C and CUDA core: the kernel versions, their CPU order models and the device glue.",
    .m_size = sizeof(module_state),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__cured(void) { return PyModuleDef_Init(&module_def); }
