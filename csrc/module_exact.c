/* module_exact.c: V10's exact state rounded (cured.ExactSum's merge), and a host array's exact
 * row sums on the CPU (V10 along axes of host arrays). */
#include "module.h"

#include <string.h>

static PyObject *py_exact_round(PyObject *module, PyObject *args) {
    (void)module;
    Py_buffer bytes;
    PyArray_Descr *to = NULL;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "y*O&:exact_round", &bytes, PyArray_DescrConverter, &to)) return NULL;
    cured_exact_state state;
    const int dtype = dtype_of(to);
    if (dtype < 0) goto done;
    if (bytes.len != (Py_ssize_t)sizeof state) {
        PyErr_Format(PyExc_ValueError, "exact_round: a state is %zu bytes, not %zd", sizeof state, bytes.len);
        goto done;
    }
    if (!cured_dtype_is_float((cured_dtype)dtype)) {
        PyErr_Format(PyExc_TypeError, "exact_round: rounds to float16, float32 or float64, not %S", to);
        goto done;
    }
    memcpy(&state, bytes.buf, sizeof state);
    cured_exact_normalize(state.limb, 0, CURED_EXACT_LIMBS - 1);
    const double value = cured_exact_round(state.limb, 0, CURED_EXACT_LIMBS - 1, state.flags, (cured_dtype)dtype);
    PyArray_Descr *f64 = PyArray_DescrFromType(NPY_DOUBLE);
    result = PyArray_Scalar((void *)&value, f64, NULL);
    Py_DECREF(f64);
    if (result != NULL && dtype != CURED_FLOAT64)
        Py_SETREF(result, PyObject_CallMethod(result, "astype", "O", (PyObject *)to)); /* exact: value has its precision */
done:
    Py_XDECREF(to);
    PyBuffer_Release(&bytes);
    return result;
}

/* exact_rows(a, dtype, device='cpu'): each row of the C-contiguous 2-D array a summed exactly
 * (exact_cpu.c) and rounded once into float16, float32 or float64; returned as float64 (which holds
 * each rounded value exactly), for the caller to cast. V10 along axes of host arrays, on the CPU
 * for device 'cpu' and 'auto' (which, as everywhere, needs a GPU). */
static PyObject *py_exact_rows(PyObject *module, PyObject *args) {
    PyArrayObject *rows = NULL;
    PyArray_Descr *to = NULL;
    const char *device = "cpu";
    if (!PyArg_ParseTuple(args, "O!O&|s:exact_rows", &PyArray_Type, &rows, PyArray_DescrConverter, &to, &device))
        return NULL;
    PyObject *result = NULL;
    const int where = parse_place(device);
    if (where < 0) goto done;
    if (where == PLACE_GPU) {
        PyErr_SetString(PyExc_ValueError, "exact_rows: sums on the CPU; device must be 'cpu' or 'auto'");
        goto done;
    }
    if (where == PLACE_AUTO && check_a_gpu(module) < 0) goto done;
    const int in = dtype_of(PyArray_DESCR(rows));
    const int round_to = in < 0 ? -1 : dtype_of(to);
    if (round_to < 0) goto done;
    if (!cured_dtype_is_float((cured_dtype)round_to)) {
        PyErr_Format(PyExc_TypeError, "exact_rows: rounds to float16, float32 or float64, not %S", to);
        goto done;
    }
    if (PyArray_NDIM(rows) != 2 || !PyArray_IS_C_CONTIGUOUS(rows) || !PyArray_ISNOTSWAPPED(rows)) {
        PyErr_SetString(PyExc_ValueError, "exact_rows: takes a C-contiguous 2-D array in native byte order");
        goto done;
    }
    const npy_intp count = PyArray_DIM(rows, 0), length = PyArray_DIM(rows, 1);
    result = PyArray_SimpleNew(1, (npy_intp[]){count}, NPY_DOUBLE);
    if (result == NULL) goto done;
    double *sums = (double *)PyArray_DATA((PyArrayObject *)result);
    Py_BEGIN_ALLOW_THREADS
    cured_exact_rows_cpu((cured_dtype)in, PyArray_DATA(rows), (int64_t)count, (int64_t)length, (cured_dtype)round_to,
                         sums);
    Py_END_ALLOW_THREADS
done:
    Py_XDECREF(to);
    return result;
}

PyMethodDef module_exact_methods[] = {
    {"exact_round", py_exact_round, METH_VARARGS,
     "exact_round(state, dtype)\n--\n\nThe sum an exact state (bytes, as sum(..., state=True) returns them) "
     "holds, rounded once to nearest, ties to even, into float `dtype`. cured.ExactSum is the documented entry "
     "point."},
    {"exact_rows", py_exact_rows, METH_VARARGS,
     "exact_rows(a, dtype, device='cpu')\n--\n\nEach row of the C-contiguous 2-D array `a`, summed exactly on the CPU and rounded "
     "once into `dtype` (float16, float32 or float64), as a float64 array that holds each rounded value exactly."},
    {NULL, NULL, 0, NULL},
};
