/* module_args.c: what a call's arguments mean: NumPy's dtypes as cured's and numpy.sum's
 * accumulators, the version, the host input in the layout a sum reads, the result as a NumPy
 * scalar, and where the sum runs. */
#include "module.h"

#include <string.h>

int dtype_of(PyArray_Descr *descr) {
    const int size = (int)PyDataType_ELSIZE(descr);
    switch (descr->kind) {
    case 'b': return CURED_BOOL;
    case 'i':
        switch (size) {
        case 1: return CURED_INT8;
        case 2: return CURED_INT16;
        case 4: return CURED_INT32;
        case 8: return CURED_INT64;
        }
        break;
    case 'u':
        switch (size) {
        case 1: return CURED_UINT8;
        case 2: return CURED_UINT16;
        case 4: return CURED_UINT32;
        case 8: return CURED_UINT64;
        }
        break;
    case 'f':
        switch (size) {
        case 2: return CURED_FLOAT16;
        case 4: return CURED_FLOAT32;
        case 8: return CURED_FLOAT64;
        }
        break;
    case 'c':
        PyErr_Format(PyExc_TypeError, "cured.sum: complex input (dtype %S) is not supported yet", descr);
        return -1;
    }
    PyErr_Format(PyExc_TypeError,
                 "cured.sum: cannot sum an array of dtype %S; cured sums bool, int8 to int64, uint8 to "
                 "uint64, float16, float32 and float64",
                 descr);
    return -1;
}

int npy_type_of(cured_dtype dtype) {
    static const int types[] = {NPY_BOOL,   NPY_INT8,   NPY_INT16,  NPY_INT32,
                                NPY_INT64,  NPY_UINT8,  NPY_UINT16, NPY_UINT32,
                                NPY_UINT64, NPY_HALF,   NPY_FLOAT,  NPY_DOUBLE};
    _Static_assert(sizeof types / sizeof types[0] == CURED_NUM_DTYPES, "one NumPy type a cured dtype");
    return types[dtype];
}

int resolve_acc(cured_dtype in, PyArray_Descr *requested, cured_acc *acc, cured_dtype *result,
                cured_dtype *wrap) {
    if (requested == NULL) {
        *acc = cured_default_acc(in);
        *result = in == CURED_FLOAT16 ? CURED_FLOAT16 : cured_acc_dtype(*acc);
        if (wrap != NULL) *wrap = *result;
        return 0;
    }
    if (PyDataType_ISNOTSWAPPED(requested)) {
        const int size = (int)PyDataType_ELSIZE(requested);
        const char kind = requested->kind;
        const int narrow = wrap != NULL && (((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4)) ||
                                             (kind == 'b' && in == CURED_BOOL));
        if ((kind == 'i' && size == 8) || (narrow && (kind == 'i' || kind == 'b'))) *acc = CURED_ACC_INT64;
        else if ((kind == 'u' && size == 8) || (narrow && kind == 'u')) *acc = CURED_ACC_UINT64;
        else if (kind == 'f' && size == 4) *acc = CURED_ACC_FLOAT32;
        else if (kind == 'f' && size == 8) *acc = CURED_ACC_FLOAT64;
        else if (kind == 'f' && size == 2 && in == CURED_FLOAT16) *acc = CURED_ACC_FLOAT32; /* as NumPy */
        else goto unsupported;
        *result = kind == 'f' && size == 2 ? CURED_FLOAT16 : cured_acc_dtype(*acc);
        if (wrap != NULL) *wrap = narrow ? (cured_dtype)dtype_of(requested) : *result;
        if (cured_dtype_is_float(in) && !cured_dtype_is_float(*result)) {
            PyErr_Format(PyExc_TypeError,
                         "cured.sum: cannot sum %s input in an integer dtype (%S): NumPy's cast of "
                         "NaN, infinity and out-of-range floats to integers is undefined",
                         cured_dtype_name(in), requested);
            return -1;
        }
        return 0;
    }
unsupported:
    PyErr_Format(PyExc_TypeError,
                 "cured.sum: dtype=%S is not supported; cured accumulates in int64, uint64, float32 or "
                 "float64 (and float16, accumulated in float32, for float16 input; integers of 1 to 4 "
                 "bytes, wrapping; bool for bool input)",
                 requested);
    return -1;
}

int parse_version(PyObject *version_obj, int allow_cub, const cured_version **version) {
    *version = NULL;
    if (PyUnicode_Check(version_obj) && PyUnicode_CompareWithASCIIString(version_obj, "cub") == 0) {
        if (allow_cub) return 0;
        PyErr_SetString(PyExc_ValueError,
                        "cured.sum: version='cub' runs on the GPU only: CUB's summation order depends on "
                        "the GPU, so it has no CPU order model");
        return -1;
    }
    if (!PyLong_Check(version_obj) || PyBool_Check(version_obj)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: version must be an int or 'cub', not %.100s",
                     Py_TYPE(version_obj)->tp_name);
        return -1;
    }
    int overflow;
    const long id = PyLong_AsLongAndOverflow(version_obj, &overflow);
    if (id == -1 && PyErr_Occurred()) return -1;
    *version = overflow ? NULL : cured_find_version(id);
    if (*version == NULL) {
        PyErr_Format(PyExc_ValueError, "cured.sum: no version %R; the versions are %d to %d and 'cub' "
                     "(cured.versions())", version_obj, cured_versions[0].id,
                     cured_versions[cured_num_versions - 1].id);
        return -1;
    }
    return 0;
}

int resolve_dtypes(PyArray_Descr *descr, PyArray_Descr *requested, sum_args *args) {
    const int dtype = dtype_of(descr);
    if (dtype < 0 ||
        resolve_acc((cured_dtype)dtype, requested, &args->acc, &args->result_dtype, &args->scalar_dtype) < 0)
        return -1;
    args->in_dtype = (cured_dtype)dtype;
    if (args->state && !cured_dtype_is_float(args->result_dtype)) { /* V10's integer sums wrap; its state is exact */
        args->acc = CURED_ACC_FLOAT64;
        args->result_dtype = args->scalar_dtype = CURED_FLOAT64;
    }
    if (args->version == NULL && args->acc != cured_default_acc(args->in_dtype)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: version='cub' sums %s with NumPy's default accumulator only, "
                     "not dtype=%S", cured_dtype_name(args->in_dtype), requested);
        return -1;
    }
    return 0;
}

PyArrayObject *host_array(PyObject *input, int is_dlpack) {
    if (!is_dlpack) return (PyArrayObject *)PyArray_FromAny(input, NULL, 0, 0, 0, NULL);
    PyObject *numpy = PyImport_ImportModule("numpy");
    PyObject *array = numpy != NULL ? PyObject_CallMethod(numpy, "from_dlpack", "O", input) : NULL;
    Py_XDECREF(numpy);
    if (array != NULL && !PyArray_Check(array)) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: numpy.from_dlpack did not return an ndarray");
        Py_CLEAR(array);
    }
    return (PyArrayObject *)array;
}

void host_layout_of(PyArrayObject *array, cured_layout *layout) {
    layout->ndim = PyArray_NDIM(array);
    for (int d = 0; d < layout->ndim; ++d) {
        layout->shape[d] = (int64_t)PyArray_DIM(array, d);
        layout->strides[d] = (int64_t)PyArray_STRIDE(array, d);
    }
}

void span_of(const void *data, const cured_layout *layout, int64_t n, int item, uintptr_t *first,
             uintptr_t *end) {
    intptr_t low = 0, high = 0;
    for (int d = 0; d < layout->ndim; ++d) {
        const intptr_t reach = (intptr_t)((layout->shape[d] - 1) * layout->strides[d]);
        if (reach < 0) low += reach; else high += reach;
    }
    *first = (uintptr_t)data + (uintptr_t)low;
    *end = n == 0 ? *first : (uintptr_t)data + (uintptr_t)high + (uintptr_t)item;
}

/* Whether `array` differs from a C-contiguous, aligned array of `dtype`'s native type in its layout
 * alone (at most CURED_MAX_DIMS dimensions), which cpu_gather.c reads. */
static int layout_alone_differs(PyArrayObject *array, cured_dtype dtype) {
    PyArray_Descr *const native = PyArray_DescrFromType(npy_type_of(dtype));
    const int same_type = PyArray_EquivTypes(PyArray_DESCR(array), native);
    Py_DECREF(native);
    return same_type && !PyArray_ISCARRAY_RO(array) && PyArray_NDIM(array) <= CURED_MAX_DIMS;
}

PyArrayObject *c_order(PyArrayObject *array, cured_dtype dtype) {
    PyArray_Descr *const native = PyArray_DescrFromType(npy_type_of(dtype));
    if (!layout_alone_differs(array, dtype))
        return (PyArrayObject *)PyArray_FromArray(array, native, NPY_ARRAY_IN_ARRAY); /* steals native */
    cured_layout layout;
    host_layout_of(array, &layout);
    PyArrayObject *copy = (PyArrayObject *)PyArray_Empty(layout.ndim, PyArray_DIMS(array), native, 0);
    if (copy == NULL) return NULL;
    Py_BEGIN_ALLOW_THREADS
    cured_cpu_c_order_copy(PyArray_DATA(array), &layout, cured_dtype_size(dtype), PyArray_DATA(copy));
    Py_END_ALLOW_THREADS
    return copy;
}

int prepare_host(PyObject *input, int is_dlpack, PyObject *version_obj, PyArray_Descr *requested, int allow_cub,
                 int keep_layout, sum_args *args) {
    args->array = NULL;
    if (parse_version(version_obj, allow_cub, &args->version) < 0) return -1;
    PyArrayObject *array = host_array(input, is_dlpack);
    if (array == NULL) return -1;
    if (resolve_dtypes(PyArray_DESCR(array), requested, args) < 0) {
        Py_DECREF(array);
        return -1;
    }
    if (keep_layout && layout_alone_differs(array, args->in_dtype)) {
        args->array = array;
        return 0;
    }
    args->array = c_order(array, args->in_dtype);
    Py_DECREF(array);
    return args->array == NULL ? -1 : 0;
}

int c_order_args(sum_args *args) {
    if (PyArray_ISCARRAY_RO(args->array)) return 0;
    PyArrayObject *copy = c_order(args->array, args->in_dtype);
    if (copy == NULL) return -1;
    Py_SETREF(args->array, copy);
    return 0;
}

PyObject *result_scalar(const sum_args *args, const void *value) {
    if (args->scalar_dtype != args->result_dtype) { /* the integer sum's low bits, which are NumPy's */
        uint64_t sum;
        uint8_t low8;
        uint16_t low16;
        uint32_t low32;
        const void *low = &low32;
        memcpy(&sum, value, sizeof sum);
        switch (args->scalar_dtype == CURED_BOOL ? 0 : cured_dtype_size(args->scalar_dtype)) {
        case 0: /* bool: the count of true elements, not zero */
            low8 = sum != 0;
            low = &low8;
            break;
        case 1:
            low8 = (uint8_t)sum;
            low = &low8;
            break;
        case 2:
            low16 = (uint16_t)sum;
            low = &low16;
            break;
        default: low32 = (uint32_t)sum; break;
        }
        PyArray_Descr *descr = PyArray_DescrFromType(npy_type_of(args->scalar_dtype));
        PyObject *result = PyArray_Scalar((void *)low, descr, NULL);
        Py_DECREF(descr);
        return result;
    }
    PyArray_Descr *acc_descr = PyArray_DescrFromType(npy_type_of(cured_acc_dtype(args->acc)));
    PyObject *result = PyArray_Scalar((void *)value, acc_descr, NULL);
    Py_DECREF(acc_descr);
    if (result != NULL && args->result_dtype != cured_acc_dtype(args->acc)) {
        PyObject *narrowed = PyObject_CallMethod(result, "astype", "s", cured_dtype_name(args->result_dtype));
        Py_SETREF(result, narrowed);
    }
    return result;
}

int locate_device_array(PyObject *module, device_array *array) {
    const cudaError_t located = device_array_locate(array);
    if (located == cudaSuccess) return 0;
    if (!PyErr_Occurred()) raise_cuda(module, (cured_cuda_status){located, "cudaPointerGetAttributes"});
    return -1;
}

int enter_device(PyObject *module, int device, int *previous, const char *what) {
    cudaError_t err = cudaGetDevice(previous);
    if (err != cudaSuccess) {
        *previous = -1;
        raise_cuda(module, (cured_cuda_status){err, "cudaGetDevice"});
        return -1;
    }
    if (*previous != device && (err = cudaSetDevice(device)) != cudaSuccess) {
        raise_cuda(module, (cured_cuda_status){err, what});
        return -1;
    }
    return 0;
}

int leave_device(PyObject *module, int device, int previous, int failed) {
    if (previous < 0 || previous == device) return failed;
    const cudaError_t err = cudaSetDevice(previous);
    if (err == cudaSuccess) return failed;
    /* The caller's device stays changed, which the caller must hear of even where the call had
     * failed already: that failure becomes this error's __context__, as an exception raised while
     * handling another in Python. */
    PyObject *first = failed < 0 ? take_raised_exception() : NULL;
    raise_cuda(module, (cured_cuda_status){err, "cudaSetDevice (back to the caller's device)"});
    if (first != NULL) {
        PyObject *restore = take_raised_exception();
        PyException_SetContext(restore, first); /* steals first */
        set_raised_exception(restore);
    }
    return -1;
}

int parse_place(const char *device) {
    if (strcmp(device, "auto") == 0) return PLACE_AUTO;
    if (strcmp(device, "gpu") == 0) return PLACE_GPU;
    if (strcmp(device, "cpu") == 0) return PLACE_CPU;
    PyErr_Format(PyExc_ValueError, "cured.sum: device must be 'auto', 'gpu' or 'cpu', not '%s'", device);
    return -1;
}

int check_a_gpu(PyObject *module) {
    static _Atomic int seen = 0;
    if (seen) return 0;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count == 0) err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        raise_cuda(module, (cured_cuda_status){err, "cudaGetDeviceCount; device='cpu' sums on the CPU"});
        return -1;
    }
    seen = 1;
    return 0;
}
