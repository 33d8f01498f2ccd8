/* module_numpy_sum.c: _cured.numpy_sum, cured.sum with numpy.sum's signature. The common calls (a
 * sum of every element; a NumPy, CuPy or PyTorch array's sum along axes with keepdims=, dtype=,
 * initial= or a NumPy out=) are made here, in C; the others go to cured/numpy_sum.py's Python path. */
#include "module.h"

#include <string.h>

/* NumPy's scalar of `dtype` from `value`, as numpy.<dtype>(value) makes it. A new reference, or NULL
 * with an exception set (NumPy's: OverflowError for an integer out of range). */
static PyObject *numpy_scalar(cured_dtype dtype, PyObject *value) {
    PyArray_Descr *const descr = PyArray_DescrFromType(npy_type_of(dtype));
    PyObject *const scalar = PyObject_CallOneArg((PyObject *)descr->typeobj, value);
    Py_DECREF(descr);
    return scalar;
}

/* numpy_sum's route for the common calls along axes, made without cured/numpy_sum.py's frames: a
 * NumPy array (not a subclass) of a dtype cured sums, of one dimension or more; axis= None, an int or
 * a tuple of ints, each in range and none twice; the default version; keepdims= a bool; a dtype=
 * that casts no element (float32 or float64, float16 for float16 input, an integer for integer or
 * bool input); initial= an int or a float (NULL: none), which NumPy converts to the result's dtype
 * (Python raises its errors); out= None or a writeable NumPy array of the result's dtype and shape.
 * Axes that name every dimension make it a sum of every element (sum_call, as axis=None); the
 * others are summed by sum_axes_run into the accumulator, which is the result's dtype but for
 * float16 (float32 sums, each rounded once into float16, as the Python path's astype) and integers
 * of 1 to 4 bytes (64-bit sums wrapped into them, as NumPy's sum in them), initial= added there, the
 * results shaped as the kept axes (with keepdims, ones in the summed axes'), written into out=
 * where it takes them directly, else copied there. Wall time on the H100's 16-CPU host, 2026-11-27
 * 17:35 UTC (scripts/probes/axis_call_cost.py, in turns): (8, 8) along 0 1.1 us against 4.4 through
 * Python (numpy.sum 2.3), (1000,) along 0 1.1 to 1.3 against 4.4 to 4.8 (2.1 to 3.0), (64, 64)
 * with keepdims=True, dtype=float64 or an out= 2.5 to 6.4 against 7.0 to 12.6 (5.1 to 10.3).
 * Returns 1 with *result set (NULL with an exception set where the sum failed), or 0
 * where the call is not this route's: Python takes it, and raises NumPy's errors for a bad axis or
 * out=. */
static int axes_route(PyObject *module, PyObject *input, PyArray_Descr *descr, int ndim, const npy_intp *extents,
                      PyObject *axis, PyArray_Descr *requested, PyObject *out, int keepdims, PyObject *initial,
                      PyObject *version, const char *place, PyObject **result) {
    const char kind = descr->kind;
    const int size = (int)PyDataType_ELSIZE(descr);
    if (!PyDataType_ISNOTSWAPPED(descr) || !(kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f') || size > 8 ||
        ndim < 1 || ndim > CURED_MAX_DIMS)
        return 0;
    if (!PyLong_CheckExact(version) || PyLong_AsLong(version) != state_of(module)->default_version) {
        PyErr_Clear(); /* a version beyond a long: Python's error */
        return 0;
    }
    /* dtype_of cannot fail on the kinds taken above (float128 is 16 bytes). */
    const cured_dtype in_dtype = (cured_dtype)dtype_of(descr);
    if (requested != NULL) {
        const char want = requested->kind;
        const int bytes = (int)PyDataType_ELSIZE(requested);
        const int no_cast = (want == 'f' && (bytes == 4 || bytes == 8 || (bytes == 2 && in_dtype == CURED_FLOAT16))) ||
                            ((want == 'i' || want == 'u') && !cured_dtype_is_float(in_dtype));
        if (!PyDataType_ISNOTSWAPPED(requested) || !no_cast) return 0;
    }
    cured_acc acc;
    cured_dtype acc_result, result_dtype; /* the accumulator's result; the call's (a narrower integer) */
    if (resolve_acc(in_dtype, requested, &acc, &acc_result, &result_dtype) < 0) {
        PyErr_Clear();
        return 0;
    }
    axes_arg axes;
    axes.ndim = ndim;
    int reduced = 0;
    for (int d = 0; d < ndim; ++d) {
        axes.shape[d] = (int64_t)extents[d];
        axes.reduce[d] = axis == Py_None;
    }
    const int listed = PyTuple_CheckExact(axis);
    const Py_ssize_t count = axis == Py_None ? 0 : listed ? PyTuple_GET_SIZE(axis) : 1;
    for (Py_ssize_t i = 0; i < count; ++i) {
        PyObject *const named = listed ? PyTuple_GET_ITEM(axis, i) : axis;
        if (!PyLong_CheckExact(named)) return 0; /* bools, NumPy integers: Python's rules */
        int overflow = 0;
        long k = PyLong_AsLongAndOverflow(named, &overflow);
        if (overflow || k < -ndim || k >= ndim) return 0;
        if (k < 0) k += ndim;
        if (axes.reduce[k]) return 0;
        axes.reduce[k] = 1;
        ++reduced;
    }
    if (axis == Py_None) reduced = ndim;
    if (reduced == 0) return 0;
    npy_intp dims[CURED_MAX_DIMS];
    int result_ndim = 0;
    for (int d = 0; d < ndim; ++d)
        if (!axes.reduce[d] || keepdims) dims[result_ndim++] = axes.reduce[d] ? 1 : (npy_intp)axes.shape[d];
    if (out != Py_None) {
        PyArrayObject *const into = (PyArrayObject *)out;
        if (PyArray_DESCR(into)->type_num != npy_type_of(result_dtype) || !PyDataType_ISNOTSWAPPED(PyArray_DESCR(into)) ||
            !PyArray_ISWRITEABLE(into) || PyArray_NDIM(into) != result_ndim)
            return 0;
        for (int d = 0; d < result_ndim; ++d)
            if (PyArray_DIM(into, d) != dims[d]) return 0;
    }
    /* initial= as the Python path takes it, acc.type(result.type(initial)), added to each sum in the
     * accumulator after its elements; a value NumPy refuses goes to Python, which raises its error. */
    PyObject *start = NULL;
    if (initial != NULL) {
        if (!PyLong_CheckExact(initial) && !PyFloat_CheckExact(initial)) return 0;
        PyObject *const in_result = numpy_scalar(result_dtype, initial);
        start = in_result == NULL ? NULL : numpy_scalar(cured_acc_dtype(acc), in_result);
        Py_XDECREF(in_result);
        if (start == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    PyArray_Descr *const acc_descr = PyArray_DescrFromType(npy_type_of(cured_acc_dtype(acc)));
    PyObject *summed;
    if (reduced == ndim) {
        summed = sum_call(module, input, version, start != NULL ? acc_descr : requested, place, 0, Py_None, 0, Py_None);
        if (summed != NULL && start != NULL) {
            Py_SETREF(summed, PyNumber_Add(summed, start));
            if (summed != NULL && result_dtype != cured_acc_dtype(acc))
                Py_SETREF(summed, PyObject_CallMethod(summed, "astype", "s", cured_dtype_name(result_dtype)));
        }
        if (summed != NULL && (keepdims || out != Py_None)) Py_SETREF(summed, PyArray_FromScalar(summed, NULL));
    } else {
        PyObject *const into = out != Py_None && result_dtype == cured_acc_dtype(acc) ? out : Py_None;
        summed = sum_axes_run(module, input, &axes, acc_descr, place, Py_None, NULL, Py_None, 0, 0, 0, into);
        if (summed != NULL && start != NULL) Py_SETREF(summed, PyNumber_InPlaceAdd(summed, start));
        if (summed != NULL && result_dtype != cured_acc_dtype(acc)) /* float16's rounding; an integer's wrap */
            Py_SETREF(summed, PyArray_CastToType((PyArrayObject *)summed, PyArray_DescrFromType(npy_type_of(result_dtype)),
                                                 0));
    }
    Py_DECREF(acc_descr);
    Py_XDECREF(start);
    if (summed != NULL && summed == out) { /* written there, in place */
        *result = summed;
        return 1;
    }
    if (summed != NULL && PyArray_Check(summed)) {
        PyArray_Dims shape = {dims, result_ndim};
        Py_SETREF(summed, PyArray_Newshape((PyArrayObject *)summed, &shape, NPY_CORDER));
    }
    if (summed != NULL && out != Py_None) {
        const int copied = PyArray_CopyInto((PyArrayObject *)out, (PyArrayObject *)summed);
        Py_SETREF(summed, copied < 0 ? NULL : Py_NewRef(out));
    }
    *result = summed;
    return 1;
}

/* axes_route for a device array whose dtype its interface gives before any CUDA call (the CUDA Array
 * Interface; PyTorch's and CuPy's arrays, read from their attributes), its extents from its `shape`
 * attribute, or from its interface's where it has none (an object that only exposes one);
 * DLPack-only arrays and device="cpu" (ValueError) go to Python. The sums run on the array's GPU
 * (sum_axes_run) into a NumPy result or out=, as the Python path's. */
static int device_axes_route(PyObject *module, PyObject *input, PyObject *axis, PyArray_Descr *requested,
                             PyObject *out, int keepdims, PyObject *initial, PyObject *version, const char *place,
                             PyObject **result) {
    device_array array;
    npy_intp extents[CURED_MAX_DIMS];
    memset(&array, 0, sizeof array);
    const int found = device_array_find(input, &array);
    int routed = 0;
    if (found <= 0 || array.is_dlpack || array.descr == NULL || strcmp(place, "cpu") == 0) goto done;
    PyObject *shape = PyObject_GetAttr(input, state_of(module)->shape_name);
    if (shape == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) { /* a bare interface: its "shape" */
        PyErr_Clear();
        PyObject *const interface = PyObject_GetAttr(input, state_of(module)->interface_name);
        shape = interface != NULL && PyDict_Check(interface) ? PyDict_GetItemWithError(interface, state_of(module)->shape_name)
                                                             : NULL;
        Py_XINCREF(shape);
        Py_XDECREF(interface);
    }
    if (shape == NULL || !PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > CURED_MAX_DIMS) { /* torch.Size: a tuple */
        Py_XDECREF(shape);
        goto done;
    }
    const int ndim = (int)PyTuple_GET_SIZE(shape);
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) {
        extents[d] = (npy_intp)PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
        n *= (int64_t)extents[d];
    }
    Py_DECREF(shape);
    if (PyErr_Occurred() || n != array.n) goto done; /* a shape that is not its elements': Python's */
    routed = axes_route(module, input, array.descr, ndim, extents, axis, requested, out, keepdims, initial, version,
                        place, result);
done:
    if (!routed) PyErr_Clear(); /* Python's path raises the errors, the same ones */
    device_array_release(&array);
    return routed;
}

/* cured.sum(a, axis, dtype, out, keepdims, initial, where, version, device, timing): NumPy's
 * signature, every argument given, as cured/numpy_sum.py's sum passes it on. The common calls, a
 * sum of every element into a NumPy scalar or a device element (out=), and a NumPy array's (or a
 * CuPy array's or PyTorch tensor's: device_axes_route) sum along axes, with keepdims=, dtype=,
 * initial= or a NumPy out= (axes_route), are made here, without Python's frames (issue 12: they
 * cost 0.75 us a call on an H100; along axes, 3.3 to 4.6 us on the build machine, and 4 to 7 us
 * with keepdims=, dtype=, initial= or out=; a device array's 8 to 23 us on an H100); every other call (where=,
 * timing=True, a cast of each element, and every argument error) goes to the Python function
 * _set_python_sum gave. */
static PyObject *py_numpy_sum(PyObject *module, PyObject *const *argv, Py_ssize_t argc) {
    module_state *state = state_of(module);
    if (argc != 10)
        return PyErr_Format(PyExc_TypeError, "numpy_sum takes 10 arguments (cured.sum's), not %zd", argc);
    if (state->python_sum == NULL)
        return PyErr_Format(PyExc_RuntimeError, "numpy_sum: cured.numpy_sum has not set its Python path");
    PyObject *const input = argv[0], *const axis = argv[1], *const dtype = argv[2], *const out = argv[3],
                    *const keepdims = argv[4], *const initial = argv[5], *const where = argv[6],
                    *const version = argv[7], *const device = argv[8], *const timing = argv[9];
    /* dtype= as NumPy takes it (a dtype, a scalar type such as numpy.float64, a name); what does not
     * convert goes to Python, which raises NumPy's error. */
    PyArray_Descr *requested = NULL;
    if (dtype != Py_None && !PyArray_DescrConverter2(dtype, &requested)) PyErr_Clear();
    const int float_acc = dtype == Py_None || (requested != NULL && PyDataType_ISNOTSWAPPED(requested) &&
                                               (requested->type_num == NPY_FLOAT || requested->type_num == NPY_DOUBLE));
    /* dtype= an integer for a NumPy array of integers or bools: the sum wraps into it (resolve_acc);
     * a float array is cast to it first, element by element, and a device out= refused, in Python. */
    const int integer_acc = requested != NULL && PyDataType_ISNOTSWAPPED(requested) &&
                            (requested->kind == 'i' || requested->kind == 'u') && out == Py_None &&
                            PyArray_CheckExact(input) &&
                            (PyArray_ISINTEGER((PyArrayObject *)input) || PyArray_ISBOOL((PyArrayObject *)input));
    const int plain = where == Py_True && timing == Py_False && PyUnicode_Check(device);
    const int no_initial = initial == state->no_value;
    /* A subclass of ndarray goes to Python, which refuses those with a sum of their own. */
    const int here = axis == Py_None && plain && no_initial && keepdims == Py_False && (float_acc || integer_acc) &&
                     !PyArray_Check(out) && (!PyArray_Check(input) || PyArray_CheckExact(input));
    /* Along axes: a NumPy array, or a device array (not a NumPy array of another type), into a NumPy
     * result or out=. */
    const int along_axes = !here && plain && initial != Py_None && (keepdims == Py_False || keepdims == Py_True) &&
                           (PyArray_CheckExact(input) || !PyArray_Check(input)) &&
                           (out == Py_None || PyArray_CheckExact(out));
    const char *const place = here || along_axes ? PyUnicode_AsUTF8(device) : NULL;
    PyObject *result = NULL;
    if ((here || along_axes) && place == NULL) goto done;
    if (here) {
        result = sum_call(module, input, version, requested, place, 0, out, 0, Py_None);
        goto done;
    }
    PyObject *const start = no_initial ? NULL : initial;
    const int routed =
        along_axes && (PyArray_Check(input)
                           ? axes_route(module, input, PyArray_DESCR((PyArrayObject *)input),
                                        PyArray_NDIM((PyArrayObject *)input), PyArray_DIMS((PyArrayObject *)input),
                                        axis, requested, out, keepdims == Py_True, start, version, place, &result)
                           : device_axes_route(module, input, axis, requested, out, keepdims == Py_True, start,
                                               version, place, &result));
    if (!routed) result = PyObject_Vectorcall(state->python_sum, argv, (size_t)argc, NULL);
done:
    Py_XDECREF(requested);
    return result;
}

/* cured.numpy_sum, once imported: its Python path for what numpy_sum does not take, and its
 * "no initial" marker. */
static PyObject *py_set_python_sum(PyObject *module, PyObject *args) {
    module_state *state = state_of(module);
    PyObject *python_sum, *no_value;
    long default_version;
    if (!PyArg_ParseTuple(args, "OOl:_set_python_sum", &python_sum, &no_value, &default_version)) return NULL;
    if (!PyCallable_Check(python_sum)) return PyErr_Format(PyExc_TypeError, "_set_python_sum: not callable");
    Py_XSETREF(state->python_sum, Py_NewRef(python_sum));
    Py_XSETREF(state->no_value, Py_NewRef(no_value));
    state->default_version = default_version;
    Py_RETURN_NONE;
}

PyMethodDef module_numpy_sum_methods[] = {
    {"numpy_sum", (PyCFunction)(void (*)(void))py_numpy_sum, METH_FASTCALL,
     "numpy_sum(a, axis, dtype, out, keepdims, initial, where, version, device, timing)\n--\n\n"
     "cured.sum with every argument given, in this order: the common call (a sum of every element into a NumPy "
     "scalar or a device element) in C, the others through cured.numpy_sum's Python path. cured.sum is the "
     "documented entry point."},
    {"_set_python_sum", py_set_python_sum, METH_VARARGS,
     "_set_python_sum(function, no_value, default_version)\n--\n\nFor cured.numpy_sum: the Python function numpy_sum passes the "
     "calls it does not make to, the object that stands for initial= not given, and the default version (the one "
     "that sums along axes)."},
    {NULL, NULL, 0, NULL},
};
