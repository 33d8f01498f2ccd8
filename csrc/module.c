/* module.c: cured._cured, the CPython extension. It turns Python arguments into a dtype, an
 * accumulator, a version and a contiguous host buffer or a device array (interop.c), runs the GPU
 * reduction or the CPU order model with the GIL released, and turns CUDA failures into Python
 * exceptions. */
#define CURED_IMPORTS_NUMPY /* this file imports NumPy's C API; interop.c uses it */
#include "interop.h"

#include <string.h>
#include <time.h>

#include "axis.h"
#include "exact.h"
#include "pool.h"
#include "gpu_internal.h"

typedef struct {
    PyObject *cuda_error; /* cured.CudaError */
    PyObject *python_sum; /* cured.numpy_sum._python_sum: the calls numpy_sum leaves to Python */
    PyObject *no_value;   /* cured.numpy_sum._NO_VALUE: initial= not given */
    long default_version; /* cured.DEFAULT_VERSION: the version that sums along axes */
    PyObject *shape_name;     /* "shape", interned: a device array's extents (device_axes_route) */
    PyObject *interface_name; /* "__cuda_array_interface__", interned: a bare interface's (the same) */
} module_state;

static module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* ---- errors ---------------------------------------------------------------------------------- */

/* Raises the Python exception for a failed CUDA call: MemoryError when the device is out of memory,
 * cured.CudaError (with the CUDA error code in .code) otherwise. Returns NULL. */
static PyObject *raise_cuda(PyObject *module, cured_cuda_status status) {
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

/* Runs a CUDA query unless one has failed already; records the failure, named `what`, in `status`. */
#define CURED_QUERY(status, what, expr)                                                            \
    if ((status).code == cudaSuccess && ((status).code = (expr)) != cudaSuccess) (status).call = (what)

/* ---- dtypes ---------------------------------------------------------------------------------- */

/* The cured_dtype of a NumPy dtype, or -1 with TypeError set. */
static int dtype_of(PyArray_Descr *descr) {
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

static int npy_type_of(cured_dtype dtype) {
    static const int types[] = {NPY_BOOL,   NPY_INT8,   NPY_INT16,  NPY_INT32,
                                NPY_INT64,  NPY_UINT8,  NPY_UINT16, NPY_UINT32,
                                NPY_UINT64, NPY_HALF,   NPY_FLOAT,  NPY_DOUBLE};
    _Static_assert(sizeof types / sizeof types[0] == CURED_NUM_DTYPES, "one NumPy type a cured dtype");
    return types[dtype];
}

/* Resolves the accumulator and the result's dtype for summing `in` with dtype= `requested` (NULL
 * for none), as numpy.sum does. With `wrap` (else NULL), dtype= may also be an integer of 1 to 4
 * bytes, which NumPy sums in, wrapping: the accumulator is then the 64-bit integer of its kind and
 * *wrap that dtype (elsewhere *result). Returns 0, or -1 with TypeError set. */
static int resolve_acc(cured_dtype in, PyArray_Descr *requested, cured_acc *acc, cured_dtype *result,
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
        const int narrow = wrap != NULL && (kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4);
        if ((kind == 'i' && size == 8) || (narrow && kind == 'i')) *acc = CURED_ACC_INT64;
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
                 "bytes, wrapping)",
                 requested);
    return -1;
}

/* ---- arguments shared by sum and bench ----------------------------------------------------- */

/* What a call to sum or bench is about, once its arguments are checked. */
typedef struct {
    PyArrayObject *array;     /* host input: C-contiguous, aligned, native byte order; owned */
    const cured_version *version; /* NULL: CUB */
    cured_dtype in_dtype, result_dtype;
    cured_acc acc;
    cured_dtype scalar_dtype; /* the returned scalar's: result_dtype, or a dtype= of int8 to uint32
                                 that the 64-bit integer sum wraps into, as NumPy's sum in it */
    int resolved;             /* in_dtype, acc and result_dtype are set */
    int state;                /* return V10's exact state (bytes), not the sum */
} sum_args;

/* What the plan's result is (cured_plan.result): the state, or the result dtype, to which an exact
 * version rounds once (float16 input rounds to float16, not to float32 and then again). */
static cured_dtype plan_result(const sum_args *args) { return args->state ? CURED_EXACT_STATE : args->result_dtype; }

static void sum_args_clear(sum_args *args) { Py_CLEAR(args->array); }

/* The version named by `version_obj`: an int from the registry, or "cub" (version NULL) where
 * allowed. Returns 0, or -1 with TypeError/ValueError set. */
static int parse_version(PyObject *version_obj, int allow_cub, const cured_version **version) {
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

/* The input dtype, accumulator and result dtype of a sum of elements of `descr`, with dtype=
 * `requested` (NULL: none), by args->version. Returns 0, or -1 with TypeError set. */
static int resolve_dtypes(PyArray_Descr *descr, PyArray_Descr *requested, sum_args *args) {
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

/* A host array from `input`: NumPy's conversion, or numpy.from_dlpack for a DLPack array in host
 * memory that is not an ndarray. A new reference, or NULL with an exception set. */
static PyArrayObject *host_array(PyObject *input, int is_dlpack) {
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

/* A host array's extents and strides (at most CURED_MAX_DIMS dimensions). */
static void layout_of(PyArrayObject *array, cured_layout *layout) {
    layout->ndim = PyArray_NDIM(array);
    for (int d = 0; d < layout->ndim; ++d) {
        layout->shape[d] = (int64_t)PyArray_DIM(array, d);
        layout->strides[d] = (int64_t)PyArray_STRIDE(array, d);
    }
}

/* The bytes [*first, *end) that `n` elements of `item` bytes laid out as `layout` from `data` lie in
 * (an empty span for no element). */
static void span_of(const void *data, const cured_layout *layout, int64_t n, int item, uintptr_t *first,
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

/* `array` as a C-contiguous, aligned array of `dtype`'s native type: itself where it is one; else a
 * copy, made by cpu_gather.c on the pool's threads with the GIL released where only the layout
 * differs (NumPy's copy of a transposed or Fortran-order array reads each element of a row from
 * another page, on one thread), else by NumPy (a byte swap). A new reference, or NULL with an
 * exception set. */
static PyArrayObject *c_order(PyArrayObject *array, cured_dtype dtype) {
    PyArray_Descr *const native = PyArray_DescrFromType(npy_type_of(dtype));
    if (!layout_alone_differs(array, dtype))
        return (PyArrayObject *)PyArray_FromArray(array, native, NPY_ARRAY_IN_ARRAY); /* steals native */
    cured_layout layout;
    layout_of(array, &layout);
    PyArrayObject *copy = (PyArrayObject *)PyArray_Empty(layout.ndim, PyArray_DIMS(array), native, 0);
    if (copy == NULL) return NULL;
    Py_BEGIN_ALLOW_THREADS
    cured_cpu_c_order_copy(PyArray_DATA(array), &layout, cured_dtype_size(dtype), PyArray_DATA(copy));
    Py_END_ALLOW_THREADS
    return copy;
}

/* The host input of a sum, its version and dtypes into *args. args->array is C-contiguous, aligned
 * and of the input dtype's native type, unless `keep_layout` and only its layout differs: then it
 * is the input itself, for a CPU sum that reads it in place (strided_view), or for
 * c_order_args. Returns 0, or -1 with an exception set. */
static int prepare(PyObject *input, int is_dlpack, PyObject *version_obj, PyArray_Descr *requested, int allow_cub,
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

/* args->array, kept in its layout by prepare, replaced by its C-order copy. Returns 0, or -1 with
 * an exception set. */
static int c_order_args(sum_args *args) {
    if (PyArray_ISCARRAY_RO(args->array)) return 0;
    PyArrayObject *copy = c_order(args->array, args->in_dtype);
    if (copy == NULL) return -1;
    Py_SETREF(args->array, copy);
    return 0;
}

/* Whether the sum reads host view `array` in place, a range of its C order at a time (on the CPU,
 * cured_cpu_tiles_sum_strided and cured_cpu_wrapped_sum for V9, whose order the CPU follows at
 * speed; on the GPU, cured_staged_sum's lanes for every version), described into *strided:
 * integers in the order their elements lie in memory (cured_layout_in_memory_order), which their
 * sum's bits do not depend on. Otherwise the sum reads its C-order copy; so do the GPU's lanes
 * for transposed rows of whole 4 KiB (cured_strided_rows_alias), which they gathered more slowly
 * than the copy made them on the pool's threads: on the H100's 16-CPU host (2026-11-27 20:09 UTC,
 * scripts/probes/host_layouts.py, device="gpu", wall time) (2048, 1024) float32 .T 1025 us
 * gathered by the lanes against 880 copied first, in Fortran order 944 against 834; where rows
 * did not alias the lanes won or tied: (512, 512) float32 .T 271 against 469, 2^22 float32
 * [::-1] 881 against 1037, int64 (2048, 1024).T (memory order: contiguous) 730 against 1207. */
static int strided_view(PyArrayObject *array, const sum_args *args, int cpu, cured_strided *strided) {
    /* An unaligned array is copied: the sums' loops read their elements as typed, aligned values. */
    if (PyArray_ISCARRAY_RO(array) || !PyArray_ISALIGNED(array) || (cpu && args->version->tree != CURED_TREE_WARPS))
        return 0;
    cured_layout layout;
    const void *data = PyArray_DATA(array);
    layout_of(array, &layout);
    if (!cured_dtype_is_float(cured_acc_dtype(args->acc))) cured_layout_in_memory_order(&layout, &data);
    return cured_strided_of(data, &layout, cured_dtype_size(args->in_dtype), strided) &&
           (cpu || !cured_strided_rows_alias(strided));
}

/* A NumPy scalar of the result dtype from the accumulator's 8 bytes. */
static PyObject *result_scalar(const sum_args *args, const void *value) {
    if (args->scalar_dtype != args->result_dtype) { /* the integer sum's low bits, which are NumPy's */
        uint64_t sum;
        uint8_t low8;
        uint16_t low16;
        uint32_t low32;
        const void *low = &low32;
        memcpy(&sum, value, sizeof sum);
        switch (cured_dtype_size(args->scalar_dtype)) {
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


/* ---- sum ------------------------------------------------------------------------------------- */

/* The 8 bytes of an accumulator, or V10's state. */
typedef union {
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    cured_exact_state state;
} acc_value;

/* Makes `waiter` wait for the work queued on `first` so far (nothing when they are one stream). */
static cured_cuda_status order_after(cudaStream_t waiter, cudaStream_t first) {
    cured_cuda_status status = {cudaSuccess, NULL};
    cudaEvent_t event = NULL;
    if (waiter == first) return status;
    if ((status.code = cudaEventCreateWithFlags(&event, cudaEventDisableTiming)) != cudaSuccess) {
        status.call = "cudaEventCreate";
        return status;
    }
    if ((status.code = cudaEventRecord(event, first)) != cudaSuccess) status.call = "cudaEventRecord";
    else if ((status.code = cudaStreamWaitEvent(waiter, event, 0)) != cudaSuccess) status.call = "cudaStreamWaitEvent";
    const cudaError_t destroyed = cudaEventDestroy(event); /* deferred by CUDA until the event completes */
    if (status.code == cudaSuccess && destroyed != cudaSuccess) status = (cured_cuda_status){destroyed, "cudaEventDestroy"};
    return status;
}

/* An out= on the device, once its dtype is known: one writable element of the sum's result dtype (a
 * dtype= of int8 to uint32 included: the store kernel wraps the 64-bit sum into it, NumPy's bits).
 * (Its device is checked once located: sum_device_array.) Returns 0, or -1 with TypeError/ValueError set. */
static int check_out_element(const device_array *out, const sum_args *args) {
    if (out->read_only) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: out= is read-only");
        return -1;
    }
    if (out->n != 1) {
        PyErr_Format(PyExc_ValueError, "cured.sum: out= must have exactly one element (the sum), not %lld",
                     (long long)out->n);
        return -1;
    }
    const int out_dtype = dtype_of(out->descr);
    if (out_dtype < 0) return -1;
    if ((cured_dtype)out_dtype != args->scalar_dtype) {
        PyErr_Format(PyExc_TypeError, "cured.sum: out= has dtype %s but the sum's result is %s (pass dtype=%s, or an "
                     "out= of dtype %s)", cured_dtype_name((cured_dtype)out_dtype), cured_dtype_name(args->scalar_dtype),
                     cured_dtype_name((cured_dtype)out_dtype), cured_dtype_name(args->scalar_dtype));
        return -1;
    }
    return 0;
}

/* The dtypes of a device sum, from the input's dtype and dtype= (without it and with an out=, out's
 * dtype, NumPy's rule), then out='s element checked against the result. Returns 0, or -1 with an
 * exception set. */
static int resolve_device_dtypes(const device_array *array, const device_array *out, PyArray_Descr *requested,
                                 sum_args *args) {
    if (resolve_dtypes(array->descr, requested != NULL || out == NULL ? requested : out->descr, args) < 0) return -1;
    if (out != NULL && check_out_element(out, args) < 0) return -1;
    args->resolved = 1;
    return 0;
}

/* The sum of a device array, on its own device: into *value (waited for), or, with `out`, into that
 * device element (queued, not waited for). `requested` is dtype= (NULL: none; with out=, NumPy's
 * rule then takes out's dtype). Both arrays are found and located. Returns 0, or -1 with an
 * exception set. */
static int sum_device_array(PyObject *module, PyObject *input, device_array *array, PyObject *out_obj,
                            device_array *out, PyArray_Descr *requested, sum_args *args, acc_value *value,
                            cured_timing *timing, const void *initial) {
    cured_cuda_status status = {cudaSuccess, NULL};
    int previous = -1, failed = -1;
    cured_plan plan;
    if (out != NULL && out->device != array->device) {
        PyErr_Format(PyExc_ValueError, "cured.sum: out= is on GPU %d but the input is on GPU %d", out->device,
                     array->device);
        return -1;
    }
    if ((status.code = cudaGetDevice(&previous)) != cudaSuccess) {
        status.call = "cudaGetDevice";
        goto cuda_failed;
    }
    if (previous != array->device && (status.code = cudaSetDevice(array->device)) != cudaSuccess) {
        status.call = "cudaSetDevice (the array's device)";
        goto cuda_failed;
    }
    /* The sum runs on the producer's stream (CUDA Array Interface 3), so nothing needs an event; a
     * DLPack producer is asked to order its work before the legacy default stream, which PyTorch's
     * and CuPy's default streams are, so that they need no event either. */
    cudaStream_t stream = array->producer != NULL ? array->producer
                          : out != NULL && out->producer != NULL ? out->producer
                                                                 : cudaStreamLegacy;
    if (device_array_import(input, array, stream) < 0) goto done;
    if (out != NULL && device_array_import(out_obj, out, stream) < 0) goto done;
    if (!args->resolved && resolve_device_dtypes(array, out, requested, args) < 0) goto done;
    status = cured_plan_make(&plan, args->version, args->in_dtype, args->acc, array->n, 0);
    if (status.code != cudaSuccess) goto cuda_failed;
    plan.result = plan_result(args);
    const int unit = device_array_copy_unit(array, cured_dtype_size(args->in_dtype));
    const cured_layout *strided = unit > 0 ? &array->layout : NULL;
    if (out != NULL) {
        /* out='s own producer stream, if another: its work first, and its later work after the sum. */
        if (out->producer != NULL && (status = order_after(stream, out->producer)).code != cudaSuccess) goto cuda_failed;
        status = cured_device_sum_into(&plan, array->data, strided, unit, stream, (void *)out->data, args->scalar_dtype,
                                       initial);
        if (status.code != cudaSuccess) goto cuda_failed;
        if (out->producer != NULL && (status = order_after(out->producer, stream)).code != cudaSuccess) goto cuda_failed;
    } else {
        Py_BEGIN_ALLOW_THREADS
        status = cured_device_sum(&plan, array->data, strided, unit, stream, value, timing);
        Py_END_ALLOW_THREADS
        if (status.code != cudaSuccess) goto cuda_failed;
    }
    failed = 0;
    goto done;
cuda_failed:
    raise_cuda(module, status);
done:
    if (previous >= 0 && previous != array->device && cudaSetDevice(previous) != cudaSuccess && failed == 0) {
        raise_cuda(module, (cured_cuda_status){cudaGetLastError(), "cudaSetDevice (back to the caller's device)"});
        failed = -1;
    }
    return failed;
}

/* state=True asks for V10's state: only an exact version has one. Returns 0, or -1 with ValueError set. */
static int check_state_version(const sum_args *args) {
    if (!args->state || (args->version != NULL && args->version->tree == CURED_TREE_EXACT)) return 0;
    PyErr_SetString(PyExc_ValueError, "cured.sum: state=True needs the exact version (cured.fsum_state)");
    return -1;
}

/* Where a found device array lies (CUDA Array Interface: a CUDA query). Returns 0, or -1 with an
 * exception set. */
static int locate(PyObject *module, device_array *array) {
    const cudaError_t located = device_array_locate(array);
    if (located == cudaSuccess) return 0;
    if (!PyErr_Occurred()) raise_cuda(module, (cured_cuda_status){located, "cudaPointerGetAttributes"});
    return -1;
}

/* Where a sum runs: device= "gpu", "cpu" or "auto". Returns the place, or -1 with ValueError set. */
enum { PLACE_GPU, PLACE_CPU, PLACE_AUTO };
static int parse_place(const char *device) {
    if (strcmp(device, "auto") == 0) return PLACE_AUTO;
    if (strcmp(device, "gpu") == 0) return PLACE_GPU;
    if (strcmp(device, "cpu") == 0) return PLACE_CPU;
    PyErr_Format(PyExc_ValueError, "cured.sum: device must be 'auto', 'gpu' or 'cpu', not '%s'", device);
    return -1;
}

/* device="auto" for host input: V9 on the CPU (cpu_tiles.c, the same bits) where it is faster than
 * the GPU path, whose copy to the device both the bus (55 GB/s pinned on the H200's host) and the
 * host's CPUs (each lane's memcpy into pinned memory) limit; the other versions teach the GPU, but
 * V10, exact, has one answer wherever it runs (exact_cpu.c) and takes the CPU where that was
 * measured faster (below). V9, measured on the H200's host, float32, wall time, the process held
 * to K of its 16 CPUs (scripts/probes/host_baseline.py --cpus K, 2026-11-22 14:12 to 14:17 UTC):
 * with 2 and 4 CPUs the CPU path was ahead up to 2^24 elements (64 MiB; 1.7x and 2.0x there) and 2 to
 * 9% behind from 2^26; with 8, ahead up to 2^28 (7% to 27%) and 7% behind at 2^30; with all 16, ahead
 * at every length from 2^10 to 2^30 (1.7x to 2.5x from 2^26: 84 to 108 GB/s against 39 to 50). */
#define AUTO_CPU_BYTES ((int64_t)64 << 20)
#define AUTO_CPU_ALWAYS_THREADS 8
/* V10 costs the CPU 10 to 25 times V9's time an element, so the GPU path's fixed 30 to 55 us win
 * early; the CPU's threads win again in a middle band on hosts of 16 CPUs or more. Wall time,
 * float32 and float64, scripts/probes/v10_host_place.py, 2026-11-23: on the H100's host held to 2,
 * 4, 8 and 16 CPUs and on the H200's 16, up to 2^12 elements the CPU took 0.09 to 0.61 of the GPU
 * path's time everywhere, at 2^14 0.44 to 1.92 and at 2^16 0.91 to 1.64. With 16 CPUs, 2^18 and
 * 2^20 took 0.42 to 0.95 on both hosts (0.87 to 1.06 with 8), and 2^22 0.64 and 0.69 on the H200's
 * host but 1.00 and 1.98 on the H100's; from 2^24 the GPU path won everywhere (1.2 to 5.0). */
#define AUTO_EXACT_CPU_ELEMENTS ((int64_t)1 << 12)
#define AUTO_EXACT_BAND_FIRST (((int64_t)1 << 17) + 1)
#define AUTO_EXACT_BAND_LAST ((int64_t)1 << 21)
#define AUTO_EXACT_BAND_THREADS 16
static int auto_picks_cpu(const cured_version *version, int64_t n, int64_t bytes) {
    if (version == NULL) return 0;
    if (version->tree == CURED_TREE_EXACT)
        return n <= AUTO_EXACT_CPU_ELEMENTS || (n >= AUTO_EXACT_BAND_FIRST && n <= AUTO_EXACT_BAND_LAST &&
                                                cured_pool_capacity() >= AUTO_EXACT_BAND_THREADS);
    return version->tree == CURED_TREE_WARPS &&
           (bytes <= AUTO_CPU_BYTES || cured_pool_capacity() >= AUTO_CPU_ALWAYS_THREADS);
}

/* device="auto" needs a GPU, as device="gpu" does, also where it would sum on the CPU: a call gives
 * the same answer, or the same error, whatever its input's size. Checked once a process. Returns
 * 0, or -1 with CudaError set. */
static int check_a_gpu(PyObject *module) {
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

/* _cured.sum's work, its arguments parsed; `requested` is borrowed. */
static PyObject *sum_call(PyObject *module, PyObject *input, PyObject *version_obj, PyArray_Descr *requested,
                          const char *device, int want_timing, PyObject *out_obj, int state, PyObject *initial_obj) {
    PyObject *result = NULL;
    sum_args args = {NULL, NULL, 0, 0, 0, 0, 0, state};
    device_array array, out;
    acc_value value;
    cured_timing timing;
    const char *ran_on = "gpu"; /* where the sum ran, for timing=True */
    memset(&array, 0, sizeof array);
    memset(&out, 0, sizeof out);
    const int where = parse_place(device);
    const int on_gpu = where != PLACE_CPU; /* device arrays and out= take the GPU under "auto" */
    const int has_out = out_obj != Py_None;
    if (where < 0) goto done;
    if (args.state && (want_timing || out_obj != Py_None || requested != NULL)) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: state=True returns the exact state; it takes no timing, out= "
                                          "or dtype=");
        goto done;
    }
    if (has_out) { /* cured.sum handles a NumPy out= itself; here, only device arrays */
        const int out_found = device_array_find(out_obj, &out);
        if (out_found < 0) goto done;
        if (out_found == 0) {
            PyErr_Format(PyExc_TypeError, "cured.sum: out= must be a NumPy array or a device array (CUDA Array "
                         "Interface or DLPack), not %.100s", Py_TYPE(out_obj)->tp_name);
            goto done;
        }
        if (initial_obj != Py_None && !(PyBytes_Check(initial_obj) && PyBytes_GET_SIZE(initial_obj) == 8)) {
            PyErr_SetString(PyExc_TypeError, "sum: initial must be None or the accumulator's 8 bytes");
            goto done;
        }
        if (!on_gpu || want_timing) {
            PyErr_SetString(PyExc_ValueError, !on_gpu ? "cured.sum: an out= on the device needs device='gpu'"
                                                      : "cured.sum: timing=True waits for the result, which an out= "
                                                        "on the device does not; time it with CUDA events instead");
            goto done;
        }
    }
    const int found = device_array_find(input, &array);
    if (found < 0) goto done;
    if (found) {
        if (!on_gpu) {
            PyErr_SetString(PyExc_ValueError, "cured.sum: device='cpu' runs the CPU order model on host arrays; copy "
                                              "the device array to the host first (for example .get() or .cpu())");
            goto done;
        }
        /* A CUDA Array Interface gives its dtype now, so that a bad one (or a bad out=) is refused
         * before any CUDA call; DLPack gives it once imported (sum_device_array). */
        if (parse_version(version_obj, 1, &args.version) < 0 || check_state_version(&args) < 0) goto done;
        if (!array.is_dlpack && (!has_out || !out.is_dlpack) &&
            resolve_device_dtypes(&array, has_out ? &out : NULL, requested, &args) < 0)
            goto done;
        if (locate(module, &array) < 0 || (has_out && locate(module, &out) < 0)) goto done;
        if (sum_device_array(module, input, &array, out_obj, has_out ? &out : NULL, requested, &args, &value,
                             want_timing ? &timing : NULL,
                             has_out && initial_obj != Py_None ? PyBytes_AS_STRING(initial_obj) : NULL) < 0)
            goto done;
        if (has_out) {
            result = Py_NewRef(out_obj); /* as NumPy: the sum is in out, which is returned */
            goto done;
        }
    } else {
        if (has_out) {
            PyErr_SetString(PyExc_ValueError, "cured.sum: an out= on the device needs a device array to sum; for a "
                                              "host array, pass a NumPy out= or none");
            goto done;
        }
        if (prepare(input, array.host_dlpack, version_obj, requested, on_gpu, 1, &args) < 0 ||
            check_state_version(&args) < 0)
            goto done;
        const int64_t n = (int64_t)PyArray_SIZE(args.array);
        const int cpu =
            where == PLACE_CPU || (where == PLACE_AUTO && auto_picks_cpu(args.version, n, PyArray_NBYTES(args.array)));
        if (where == PLACE_AUTO && cpu && check_a_gpu(module) < 0) goto done;
        ran_on = cpu ? "cpu" : "gpu";
        cured_strided strided_storage;
        const cured_strided *strided = strided_view(args.array, &args, cpu, &strided_storage) ? &strided_storage : NULL;
        if (strided == NULL && c_order_args(&args) < 0) goto done;
        const void *data = strided == NULL ? PyArray_DATA(args.array) : NULL;
        if (strided != NULL && strided->ndim == 1 && strided->from[0] == strided->item) /* memory order: contiguous */
            data = strided->src, strided = NULL;
        if (!cpu) {
            cured_plan plan;
            cured_cuda_status status = cured_staged_plan(&plan, args.version, args.in_dtype, args.acc, n);
            plan.result = plan_result(&args);
            if (status.code == cudaSuccess) {
                Py_BEGIN_ALLOW_THREADS
                status = cured_staged_sum(&plan, data, strided, &value, want_timing ? &timing : NULL);
                Py_END_ALLOW_THREADS
            }
            if (status.code != cudaSuccess) {
                raise_cuda(module, status);
                goto done;
            }
        } else {
            int failed;
            struct timespec start, end;
            Py_BEGIN_ALLOW_THREADS
            clock_gettime(CLOCK_MONOTONIC, &start);
            if (args.version->tree != CURED_TREE_WARPS)
                failed = cured_cpu_sum(args.version, args.in_dtype, args.acc, plan_result(&args), data, n, &value);
            else if (args.scalar_dtype != args.result_dtype) /* V9's bits: integers' order is free */
                failed = cured_cpu_wrapped_sum(args.in_dtype, cured_dtype_size(args.scalar_dtype), data, strided, n,
                                               &value.u64);
            else if (strided != NULL)
                failed = cured_cpu_tiles_sum_strided(args.version, args.in_dtype, args.acc, strided, n, &value);
            else
                failed = cured_cpu_tiles_sum(args.version, args.in_dtype, args.acc, data, n, &value);
            clock_gettime(CLOCK_MONOTONIC, &end);
            Py_END_ALLOW_THREADS
            if (failed) {
                PyErr_NoMemory();
                goto done;
            }
            timing.h2d = timing.d2h = 0.0;
            timing.reduce = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) * 1e-9;
        }
    }
    result = args.state ? PyBytes_FromStringAndSize((const char *)&value.state, sizeof value.state)
                        : result_scalar(&args, &value);
    if (result != NULL && want_timing)
        Py_SETREF(result, Py_BuildValue("O{s:d,s:d,s:d,s:s}", result, "h2d", timing.h2d, "reduce", timing.reduce,
                                        "d2h", timing.d2h, "device", ran_on));
                  /* "O": Py_SETREF drops our reference */
done:
    device_array_release(&array);
    device_array_release(&out);
    sum_args_clear(&args);
    return result;
}

static PyObject *py_sum(PyObject *module, PyObject *pos, PyObject *kwargs) {
    static char *keywords[] = {"a", "version", "dtype", "device", "timing", "out", "state", "initial", NULL};
    PyObject *input, *version_obj, *out_obj = Py_None, *initial_obj = Py_None;
    PyArray_Descr *requested = NULL;
    const char *device = "auto";
    int want_timing = 0, state = 0;
    if (!PyArg_ParseTupleAndKeywords(pos, kwargs, "OO|O&spOpO:sum", keywords, &input, &version_obj,
                                     PyArray_DescrConverter2, &requested, &device, &want_timing, &out_obj, &state,
                                     &initial_obj))
        return NULL;
    PyObject *result = sum_call(module, input, version_obj, requested, device, want_timing, out_obj, state, initial_obj);
    Py_XDECREF(requested);
    return result;
}

static int axes_route(PyObject *module, PyObject *input, PyArray_Descr *descr, int ndim, const npy_intp *extents,
                      PyObject *axis, PyArray_Descr *requested, PyObject *out, int keepdims, PyObject *initial,
                      PyObject *version, const char *place, PyObject **result);
static int device_axes_route(PyObject *module, PyObject *input, PyObject *axis, PyArray_Descr *requested,
                             PyObject *out, int keepdims, PyObject *initial, PyObject *version, const char *place,
                             PyObject **result);

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

/* ---- sum along axes -------------------------------------------------------------------------- */

/* sum_axes' shape and reduce: the array's extents and which of them are summed. */
typedef struct {
    int ndim;
    int64_t shape[CURED_MAX_DIMS];
    int reduce[CURED_MAX_DIMS];
} axes_arg;

/* Reads `shape_obj` and `reduce_obj` (tuples of one int each an axis) into *axes. Returns 0, or -1
 * with ValueError set. */
static int parse_axes(PyObject *shape_obj, PyObject *reduce_obj, axes_arg *axes) {
    if (!PyTuple_Check(shape_obj) || !PyTuple_Check(reduce_obj) || PyTuple_GET_SIZE(shape_obj) != PyTuple_GET_SIZE(reduce_obj) ||
        PyTuple_GET_SIZE(shape_obj) > CURED_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError, "sum_axes: shape and reduce must be tuples of the same length, at most %d",
                     CURED_MAX_DIMS);
        return -1;
    }
    axes->ndim = (int)PyTuple_GET_SIZE(shape_obj);
    for (int d = 0; d < axes->ndim; ++d) {
        axes->shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape_obj, d));
        axes->reduce[d] = PyObject_IsTrue(PyTuple_GET_ITEM(reduce_obj, d));
        if ((axes->shape[d] == -1 && PyErr_Occurred()) || axes->reduce[d] < 0) return -1;
        if (axes->shape[d] < 0) {
            PyErr_SetString(PyExc_ValueError, "sum_axes: a negative extent");
            return -1;
        }
    }
    return 0;
}

/* The fold of *axes, checked against the array's `n` elements. Returns 0, or -1 with ValueError set. */
static int fold_axes(const axes_arg *axes, int64_t n, cured_axis_fold *fold, int64_t *elements) {
    const int ndim = axes->ndim;
    const int64_t *const shape = axes->shape;
    const int *const reduce = axes->reduce;
    int64_t product = 1;
    for (int d = 0; d < ndim; ++d) product *= shape[d];
    if (product != n) {
        PyErr_Format(PyExc_ValueError, "sum_axes: the shape holds %lld elements but the array %lld", (long long)product,
                     (long long)n);
        return -1;
    }
    *elements = product;
    if (product == 0) { /* nothing to add: the results (if any) are 0 */
        memset(fold, 0, sizeof *fold);
        fold->results = 1;
        for (int d = 0; d < ndim; ++d)
            if (!reduce[d]) fold->results *= shape[d];
        return 0;
    }
    cured_axis_fold_of(shape, reduce, ndim, fold);
    return 0;
}

/* V10 along axes (kernels/v10_axis.cu): the dtype each output rounds to, and, where the reduced
 * axes are not the last ones, the C-order array's layout with them moved last, whose copy in C
 * order makes each output's elements a row. */
typedef struct {
    cured_dtype round_to;
    int permute;
    cured_layout to_rows;
} exact_axes;

/* The sum along axes of a device array into pool memory d_acc (fold->results accumulators; with
 * `exact`, V10's rounded sums as doubles), then either into out= (device; cast and initial added by
 * the store kernel, not waited for; or written there by the kernels themselves: `direct`) or copied
 * into `host` (fold->results accumulators), waited for. */
static cured_cuda_status axes_on_device(const cured_axis_fold *fold, int64_t n, cured_dtype in_dtype, cured_acc acc,
                                        int cub, const exact_axes *exact, const void *d_in,
                                        const cured_layout *strided, int unit, cudaStream_t stream,
                                        const device_array *out, cured_dtype out_dtype, const void *initial,
                                        void *host) {
    cured_cuda_status status = cured_ok;
    const size_t item = (size_t)cured_dtype_size(in_dtype);
    const size_t acc_bytes = (size_t)fold->results * (size_t)cured_dtype_size(cured_acc_dtype(acc));
    const size_t copy_bytes = strided != NULL ? (size_t)n * item : 0;
    char *d_acc = NULL, *copy = NULL, *rows = NULL, *workspace = NULL;
    /* The kernels write into out= themselves where it holds accumulators as they are, or float16 sums
     * of a float32 accumulator (the default version's kernels round them once, as the store kernel). */
    const int rounds_to_half = exact == NULL && !cub && out_dtype == CURED_FLOAT16 && acc == CURED_ACC_FLOAT32;
    const int direct = out != NULL && initial == NULL && (out_dtype == cured_acc_dtype(acc) || rounds_to_half) &&
                       (uintptr_t)out->data % (uintptr_t)cured_dtype_size(out_dtype) == 0;
    char *owned = NULL;
    CURED_TRY_STEP(cured_device_ready(NULL));
    if (n > 0 && acc_bytes > 0) {
        if (direct) d_acc = (char *)out->data;
        else CURED_TRY("cudaMallocAsync (the results)", cudaMallocAsync((void **)&owned, acc_bytes, stream));
        if (!direct) d_acc = owned;
        if (copy_bytes > 0) {
            CURED_TRY("cudaMallocAsync (a C-order copy)", cudaMallocAsync((void **)&copy, copy_bytes, stream));
            CURED_TRY("cured_gather (a C-order copy of the strided array)",
                      cured_gather(d_in, copy, (int)item, unit, strided, stream));
            d_in = copy;
        }
        if (exact != NULL) {
            const int64_t length = n / fold->results;
            const size_t workspace_bytes = cured_exact_rows_workspace(fold->results, length);
            if (exact->permute) {
                CURED_TRY("cudaMallocAsync (the rows' copy)", cudaMallocAsync((void **)&rows, (size_t)n * item, stream));
                CURED_TRY("cured_gather (each output's elements into a row)",
                          cured_gather(d_in, rows, (int)item, (int)item, &exact->to_rows, stream));
                d_in = rows;
            }
            if (workspace_bytes > 0)
                CURED_TRY("cudaMallocAsync (the segments' states)",
                          cudaMallocAsync((void **)&workspace, workspace_bytes, stream));
            CURED_TRY("cured_exact_rows", cured_exact_rows(in_dtype, d_in, fold->results, length, exact->round_to,
                                                           d_acc, workspace, stream));
        } else {
            CURED_TRY_STEP(cub ? cured_axis_cub_rows(fold, in_dtype, d_in, d_acc, stream)
                               : cured_axis_sum(fold, in_dtype, acc, d_in, d_acc,
                                                direct ? out_dtype : cured_acc_dtype(acc), stream));
        }
    }
    if (out != NULL) {
        if (!(direct && d_acc != NULL))
            CURED_TRY("cured_store_results",
                      cured_store_results(d_acc, acc, fold->results, initial, (void *)out->data, out_dtype, stream));
    } else if (d_acc != NULL) {
        CURED_TRY_STEP(cured_fetch_results(host, d_acc, acc_bytes, stream));
    }
done:
    if (copy != NULL) cured_keep_first(&status, cudaFreeAsync(copy, stream), "cudaFreeAsync");
    if (rows != NULL) cured_keep_first(&status, cudaFreeAsync(rows, stream), "cudaFreeAsync");
    if (workspace != NULL) cured_keep_first(&status, cudaFreeAsync(workspace, stream), "cudaFreeAsync");
    if (owned != NULL) cured_keep_first(&status, cudaFreeAsync(owned, stream), "cudaFreeAsync");
    /* Host results (and any failure) are waited for; a device out= is left queued. */
    if (out == NULL || status.code != cudaSuccess)
        cured_keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    return status;
}

/* Whether the default version's axis kernels sum `in` into `acc` (not a float into an integer). */
static int check_axis_pair(cured_dtype in, cured_acc acc) {
    if (!cured_dtype_is_float(in) || cured_dtype_is_float(cured_acc_dtype(acc))) return 0;
    PyErr_Format(PyExc_TypeError, "sum_axes: cannot sum %s into %s", cured_dtype_name(in),
                 cured_dtype_name(cured_acc_dtype(acc)));
    return -1;
}

/* version='cub' along axes: CUB's segmented reduction, which sums rows (each result the sum of
 * consecutive elements) with NumPy's default accumulator. Returns 0, or -1 with ValueError/TypeError set. */
static int check_cub_axes(int cub, const cured_axis_fold *fold, int64_t n, cured_dtype in, cured_acc acc) {
    if (!cub) return 0;
    if (n > 0 && !cured_axis_is_rows(fold)) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: version='cub' sums along axes only where each result is the sum "
                                          "of consecutive elements (the last axes of the array in C order): CUB's "
                                          "DeviceSegmentedReduce; the default version sums along any axes");
        return -1;
    }
    if (acc != cured_default_acc(in)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: version='cub' sums %s with NumPy's default accumulator only, not %s",
                     cured_dtype_name(in), cured_dtype_name(cured_acc_dtype(acc)));
        return -1;
    }
    return 0;
}

/* exact=True (V10 along axes): checks its arguments and plans the copy that makes each output's
 * elements a row (exact_axes). Returns 0, or -1 with an exception set. */
static int exact_plan_of(const axes_arg *axes, const cured_axis_fold *fold, int item, cured_acc acc,
                         PyArray_Descr *result_descr, PyObject *initial_obj, int cub, exact_axes *plan) {
    const int round_to = result_descr == NULL ? -1 : dtype_of(result_descr);
    if (result_descr != NULL && round_to < 0) return -1;
    if (round_to < 0 || !cured_dtype_is_float((cured_dtype)round_to) || acc != cured_exact_rows_acc((cured_dtype)round_to) ||
        cub || initial_obj != Py_None) {
        PyErr_SetString(PyExc_ValueError, "sum_axes: exact=True takes a float result=, acc=float64 for a float64 "
                                          "result and float32 for the others, no initial and not cub");
        return -1;
    }
    memset(plan, 0, sizeof *plan);
    plan->round_to = (cured_dtype)round_to;
    /* The reduced axes go last, each group in its order, over the C-order array's strides. */
    const int ndim = axes->ndim;
    int64_t strides[CURED_MAX_DIMS];
    int64_t stride = item;
    for (int d = ndim - 1; d >= 0; --d) {
        strides[d] = stride;
        stride *= axes->shape[d];
    }
    plan->permute = !cured_axis_is_rows(fold);
    plan->to_rows.ndim = ndim;
    int at = 0;
    for (int last = 0; last < 2; ++last)
        for (int d = 0; d < ndim; ++d)
            if (axes->reduce[d] == last) {
                plan->to_rows.shape[at] = axes->shape[d];
                plan->to_rows.strides[at++] = strides[d];
            }
    return 0;
}

/* A new array of `count` results in `descr` (stolen): zeros where the reduced extents hold no element
 * (n is 0), which no kernel writes; else uninitialised, for every result is written, and NumPy's
 * zeros cost: where calloc reuses memory it clears it, and the copy of a million float32 results
 * into those pages took 2 to 2.5 times as long as into np.empty's (1.02 against 0.41 ms,
 * scripts/probes/fresh_pages.py, H100 host, 2026-11-27 02:43 UTC).
 * `into` (None, or a NumPy out= the caller passed) takes the results instead where they can be
 * written there directly: a C-contiguous, aligned, writeable ndarray of `descr`'s dtype and `count`
 * elements whose bytes do not overlap the input's [input_first, input_end). NumPy buffers a
 * reduction whose out= overlaps its input, so the results then go to a new array the caller copies,
 * as they do for any other out=. Returns a new reference, or NULL with an exception set. */
static PyArrayObject *results_array(int64_t count, PyArray_Descr *descr, int64_t n, PyObject *into,
                                    uintptr_t input_first, uintptr_t input_end) {
    if (into != Py_None && PyArray_Check(into)) {
        PyArrayObject *out = (PyArrayObject *)into;
        const uintptr_t first = (uintptr_t)PyArray_DATA(out), end = first + (uintptr_t)PyArray_NBYTES(out);
        if (PyArray_SIZE(out) == count && PyArray_ISCARRAY(out) && PyArray_EquivTypes(PyArray_DESCR(out), descr) &&
            (end <= input_first || input_end <= first || input_first == input_end)) {
            Py_DECREF(descr);
            if (n == 0) memset(PyArray_DATA(out), 0, (size_t)PyArray_NBYTES(out));
            return (PyArrayObject *)Py_NewRef(into);
        }
    }
    npy_intp dims[1] = {(npy_intp)count};
    return (PyArrayObject *)(n > 0 ? PyArray_Empty(1, dims, descr, 0) : PyArray_Zeros(1, dims, descr, 0));
}

/* The bytes [*first, *end) that a device array's elements lie in (an empty span for no element). */
static void device_array_span(const device_array *array, int item, uintptr_t *first, uintptr_t *end) {
    span_of(array->data, &array->layout, array->n, item, first, end);
}

/* The bytes [*first, *end) that a host array's elements lie in (an empty span for no element): a
 * C-contiguous one's (of any number of dimensions) or a view's of at most CURED_MAX_DIMS. */
static void host_span(PyArrayObject *array, uintptr_t *first, uintptr_t *end) {
    if (PyArray_IS_C_CONTIGUOUS(array)) {
        *first = (uintptr_t)PyArray_DATA(array);
        *end = *first + (uintptr_t)PyArray_NBYTES(array);
        return;
    }
    cured_layout layout;
    layout_of(array, &layout);
    span_of(PyArray_DATA(array), &layout, (int64_t)PyArray_SIZE(array), (int)PyArray_ITEMSIZE(array), first, end);
}

/* Whether the host view `array`'s sum along `axes` is a row step that cured_cpu_rows_across reads in
 * place: its extents of more than 1 are kept ones then reduced ones, each group laid out as one
 * dimension (kept: *rows of them one element apart; reduced: *length elements *along bytes apart),
 * and cured_axis_rows_across_fits. */
static int rows_across(PyArrayObject *array, const axes_arg *axes, int64_t *rows, int64_t *length, int64_t *along) {
    const int item = (int)PyArray_ITEMSIZE(array);
    const int type = PyArray_TYPE(array);
    if ((type != NPY_FLOAT && type != NPY_DOUBLE) || !PyArray_ISNOTSWAPPED(array) || PyArray_NDIM(array) != axes->ndim)
        return 0;
    int64_t kept = 1, reduced = 1, kept_next = 0, reduced_next = 0; /* the stride the next axis must have */
    int64_t step_along = 0;
    int seen_reduced = 0;
    for (int d = axes->ndim - 1; d >= 0; --d) { /* innermost first */
        const int64_t extent = (int64_t)PyArray_DIM(array, d), stride = (int64_t)PyArray_STRIDE(array, d);
        if (extent == 1) continue;
        if (axes->reduce[d]) {
            if (kept > 1) return 0; /* a reduced axis outside a kept one: not rows */
            if (reduced > 1 && stride != reduced_next) return 0;
            if (reduced == 1) step_along = stride;
            reduced *= extent;
            reduced_next = stride * extent;
            seen_reduced = 1;
        } else {
            if (kept == 1 ? stride != item : stride != kept_next) return 0;
            kept *= extent;
            kept_next = stride * extent;
        }
    }
    /* A reduced axis of stride 0 (a broadcast view) is the general path's: the caller reads `along`
     * 0 as "not across", and would read the view as C-contiguous. */
    if (!seen_reduced || kept == 1 || step_along == item || step_along == 0 ||
        !cured_axis_rows_across_fits(type == NPY_FLOAT ? CURED_FLOAT32 : CURED_FLOAT64, kept, reduced))
        return 0;
    *rows = kept;
    *length = reduced;
    *along = step_along;
    return 1;
}

/* sum_axes' work, its arguments parsed (the descriptors borrowed). */
static PyObject *sum_axes_run(PyObject *module, PyObject *input, const axes_arg *axes, PyArray_Descr *acc_descr,
                              const char *device, PyObject *out_obj, PyArray_Descr *result_descr,
                              PyObject *initial_obj, int cub, int exact, int model, PyObject *into) {
    PyObject *result = NULL;
    PyArrayObject *host = NULL, *results = NULL;
    device_array array, out;
    cured_axis_fold fold;
    int64_t n;
    int previous = -1;
    cured_cuda_status status = cured_ok;
    exact_axes exact_plan;
    memset(&array, 0, sizeof array);
    memset(&out, 0, sizeof out);
    const int where = parse_place(device);
    if (where < 0) goto done;
    /* "auto": device arrays on their GPU; host arrays on the CPU (cpu_axis.c, the GPU's bits), whose
     * GPU path is bound by its copy of pageable memory (4.3 to 6.9 GB/s on the H100's host,
     * scripts/probes/host_register.cu): on the H200's 16-CPU host the CPU summed the probe's shapes
     * 2.6 to 10 times faster than the GPU path, 3.6 to 6.7 times at 64 x 64 (scripts/probes/axis_host.py,
     * 2026-11-23 16:11 UTC). CUB's reference rows run on the GPU only. */
    int on_gpu = where == PLACE_GPU || (where == PLACE_AUTO && cub);
    if (cub && !on_gpu) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: version='cub' runs on the GPU only: CUB's summation order depends "
                                          "on the GPU, so it has no CPU order model");
        goto done;
    }
    cured_acc acc;
    cured_dtype unused_result;
    const int acc_dtype = dtype_of(acc_descr);
    if (acc_dtype < 0 || resolve_acc((cured_dtype)acc_dtype, acc_descr, &acc, &unused_result, NULL) < 0) goto done;
    if (cured_acc_dtype(acc) != (cured_dtype)acc_dtype) {
        PyErr_Format(PyExc_TypeError, "sum_axes: acc must be int64, uint64, float32 or float64, not %S", acc_descr);
        goto done;
    }
    PyArray_Descr *acc_out = PyArray_DescrFromType(npy_type_of((cured_dtype)acc_dtype));
    const int found = device_array_find(input, &array);
    if (found < 0) {
        Py_DECREF(acc_out);
        goto done;
    }
    if (found && where == PLACE_AUTO) on_gpu = 1;
    if (!found && where == PLACE_AUTO && !on_gpu && check_a_gpu(module) < 0) {
        Py_DECREF(acc_out);
        goto done;
    }
    if (found) {
        if (!on_gpu) {
            Py_DECREF(acc_out);
            PyErr_SetString(PyExc_ValueError, "cured.sum: device='cpu' runs the CPU order model on host arrays; copy "
                                              "the device array to the host first (for example .get() or .cpu())");
            goto done;
        }
        const int has_out = out_obj != Py_None;
        if (has_out) {
            const int out_found = device_array_find(out_obj, &out);
            if (out_found <= 0) {
                Py_DECREF(acc_out);
                if (out_found == 0)
                    PyErr_Format(PyExc_TypeError, "cured.sum: out= must be a NumPy array or a device array, not %.100s",
                                 Py_TYPE(out_obj)->tp_name);
                goto done;
            }
            if (result_descr == NULL || (initial_obj != Py_None && !(PyBytes_Check(initial_obj) &&
                                                                     PyBytes_GET_SIZE(initial_obj) == 8))) {
                Py_DECREF(acc_out);
                PyErr_SetString(PyExc_TypeError, "sum_axes: an out= needs result= and initial= as 8 bytes or None");
                goto done;
            }
        }
        if (locate(module, &array) < 0 || (has_out && locate(module, &out) < 0)) {
            Py_DECREF(acc_out);
            goto done;
        }
        if (has_out && out.device != array.device) {
            Py_DECREF(acc_out);
            PyErr_Format(PyExc_ValueError, "cured.sum: out= is on GPU %d but the input is on GPU %d", out.device,
                         array.device);
            goto done;
        }
        if ((status.code = cudaGetDevice(&previous)) != cudaSuccess) {
            Py_DECREF(acc_out);
            status.call = "cudaGetDevice";
            previous = -1;
            goto cuda_failed;
        }
        if (previous != array.device && (status.code = cudaSetDevice(array.device)) != cudaSuccess) {
            Py_DECREF(acc_out);
            status.call = "cudaSetDevice (the array's device)";
            goto cuda_failed;
        }
        cudaStream_t stream = array.producer != NULL ? array.producer
                              : has_out && out.producer != NULL ? out.producer
                                                                : cudaStreamLegacy;
        if (device_array_import(input, &array, stream) < 0 || (has_out && device_array_import(out_obj, &out, stream) < 0)) {
            Py_DECREF(acc_out);
            goto done;
        }
        const int in_dtype = dtype_of(array.descr);
        if (in_dtype < 0 || check_axis_pair((cured_dtype)in_dtype, acc) < 0 ||
            fold_axes(axes, array.n, &fold, &n) < 0 ||
            check_cub_axes(cub, &fold, n, (cured_dtype)in_dtype, acc) < 0) {
            Py_DECREF(acc_out);
            goto done;
        }
        int out_dtype = -1;
        if (has_out) {
            out_dtype = dtype_of(out.descr);
            const int wanted = out_dtype < 0 ? -1 : dtype_of(result_descr);
            if (out_dtype < 0 || wanted < 0) {
                Py_DECREF(acc_out);
                goto done;
            }
            if (out.read_only) {
                Py_DECREF(acc_out);
                PyErr_SetString(PyExc_ValueError, "cured.sum: out= is read-only");
                goto done;
            }
            if (out_dtype != wanted) {
                Py_DECREF(acc_out);
                PyErr_Format(PyExc_TypeError, "cured.sum: out= has dtype %s but the sum's result is %s",
                             cured_dtype_name((cured_dtype)out_dtype), cured_dtype_name((cured_dtype)wanted));
                goto done;
            }
            if (out.n != fold.results || device_array_copy_unit(&out, cured_dtype_size((cured_dtype)out_dtype)) != 0) {
                Py_DECREF(acc_out);
                PyErr_Format(PyExc_ValueError, "cured.sum: out= must be C-contiguous with %lld elements, the result's "
                             "shape", (long long)fold.results);
                goto done;
            }
        } else {
            uintptr_t input_first, input_end;
            device_array_span(&array, cured_dtype_size((cured_dtype)in_dtype), &input_first, &input_end);
            results = results_array(fold.results, acc_out, n, into, input_first, input_end);
            acc_out = NULL; /* stolen */
            if (results == NULL) goto done;
        }
        Py_XDECREF(acc_out);
        const int unit = device_array_copy_unit(&array, cured_dtype_size((cured_dtype)in_dtype));
        const void *initial = has_out && initial_obj != Py_None ? PyBytes_AS_STRING(initial_obj) : NULL;
        if (exact && exact_plan_of(axes, &fold, cured_dtype_size((cured_dtype)in_dtype), acc, result_descr,
                                   initial_obj, cub, &exact_plan) < 0)
            goto done;
        Py_BEGIN_ALLOW_THREADS
        status = axes_on_device(&fold, n, (cured_dtype)in_dtype, acc, cub, exact ? &exact_plan : NULL, array.data,
                                unit > 0 ? &array.layout : NULL, unit,
                                stream, has_out ? &out : NULL, (cured_dtype)out_dtype, initial,
                                results != NULL ? PyArray_DATA(results) : NULL);
        Py_END_ALLOW_THREADS
        if (status.code != cudaSuccess) goto cuda_failed;
        result = has_out ? Py_NewRef(out_obj) : Py_NewRef((PyObject *)results);
        goto done;
    }
    /* Host input: C-contiguous in its own dtype, then the CPU model or a copy to the GPU. */
    if (exact) {
        Py_DECREF(acc_out);
        PyErr_SetString(PyExc_ValueError, "sum_axes: exact=True sums device arrays; a host array's exact sums along "
                                          "axes are exact_rows'");
        goto done;
    }
    if (out_obj != Py_None) {
        Py_DECREF(acc_out);
        PyErr_SetString(PyExc_ValueError, "cured.sum: an out= on the device needs a device array to sum");
        goto done;
    }
    PyArrayObject *any = host_array(input, array.host_dlpack);
    const int in_dtype = any == NULL ? -1 : dtype_of(PyArray_DESCR(any));
    /* Rows read across in place (cured_cpu_rows_across), where the view allows: `along` not 0. */
    int64_t rows = 0, length = 0, along = 0;
    if (in_dtype >= 0 && check_axis_pair((cured_dtype)in_dtype, acc) == 0) {
        if (!on_gpu && !model && !cub && !exact && cured_acc_dtype(acc) == (cured_dtype)in_dtype &&
            rows_across(any, axes, &rows, &length, &along))
            host = (PyArrayObject *)Py_NewRef(any);
        else
            host = c_order(any, (cured_dtype)in_dtype);
    }
    Py_XDECREF(any);
    if (host == NULL || fold_axes(axes, (int64_t)PyArray_SIZE(host), &fold, &n) < 0 ||
        check_cub_axes(cub, &fold, n, (cured_dtype)in_dtype, acc) < 0) {
        Py_DECREF(acc_out);
        goto done;
    }
    uintptr_t host_first, host_end;
    host_span(host, &host_first, &host_end);
    results = results_array(fold.results, acc_out, n, into, host_first, host_end);
    if (results == NULL) goto done;
    if (n > 0 && fold.results > 0) {
        const void *data = PyArray_DATA(host);
        void *sums = PyArray_DATA(results);
        if (!on_gpu) {
            int failed;
            Py_BEGIN_ALLOW_THREADS
            failed = 0;
            if (along != 0) cured_cpu_rows_across((cured_dtype)in_dtype, data, rows, length, along, sums);
            else if (model) failed = cured_cpu_axis_sum(&fold, (cured_dtype)in_dtype, acc, data, sums);
            else failed = cured_cpu_axis_sum_fast(&fold, (cured_dtype)in_dtype, acc, data, sums);
            Py_END_ALLOW_THREADS
            if (failed) {
                PyErr_NoMemory();
                goto done;
            }
        } else {
            cudaStream_t stream = NULL;
            void *d_in = NULL;
            const size_t bytes = (size_t)n * (size_t)cured_dtype_size((cured_dtype)in_dtype);
            Py_BEGIN_ALLOW_THREADS
            status = cured_device_ready(NULL);
            if (status.code == cudaSuccess && (status.code = cured_stream_take(&stream)) != cudaSuccess)
                status.call = "cudaStreamCreate";
            if (status.code == cudaSuccess &&
                (status.code = cudaMallocAsync(&d_in, bytes, stream)) != cudaSuccess)
                status.call = "cudaMallocAsync (the input's device copy)";
            if (status.code == cudaSuccess &&
                (status.code = cudaMemcpyAsync(d_in, data, bytes, cudaMemcpyHostToDevice, stream)) != cudaSuccess)
                status.call = "cudaMemcpyAsync (the input to the device)";
            if (status.code == cudaSuccess)
                status = axes_on_device(&fold, n, (cured_dtype)in_dtype, acc, cub, NULL, d_in, NULL, 0, stream, NULL, CURED_BOOL,
                                        NULL, sums);
            if (d_in != NULL) {
                const cudaError_t freed = cudaFreeAsync(d_in, stream);
                const cudaError_t waited = cudaStreamSynchronize(stream);
                if (status.code == cudaSuccess && freed != cudaSuccess) status = (cured_cuda_status){freed, "cudaFreeAsync"};
                if (status.code == cudaSuccess && waited != cudaSuccess)
                    status = (cured_cuda_status){waited, "cudaStreamSynchronize"};
            }
            if (stream != NULL) cured_stream_give(stream);
            Py_END_ALLOW_THREADS
            if (status.code != cudaSuccess) goto cuda_failed;
        }
    }
    result = Py_NewRef((PyObject *)results);
    goto done;
cuda_failed:
    raise_cuda(module, status);
done:
    if (previous >= 0 && previous != array.device && cudaSetDevice(previous) != cudaSuccess && result != NULL) {
        Py_CLEAR(result);
        raise_cuda(module, (cured_cuda_status){cudaGetLastError(), "cudaSetDevice (back to the caller's device)"});
    }
    Py_XDECREF(results);
    Py_XDECREF(host);
    device_array_release(&array);
    device_array_release(&out);
    return result;
}

static PyObject *py_sum_axes(PyObject *module, PyObject *pos, PyObject *kwargs) {
    static char *keywords[] = {"a",       "shape", "reduce", "acc",   "device", "out",
                               "result",  "initial", "cub",  "exact", "model",  "into", NULL};
    PyObject *input, *shape_obj, *reduce_obj, *out_obj = Py_None, *initial_obj = Py_None, *into = Py_None,
             *result = NULL;
    PyArray_Descr *acc_descr = NULL, *result_descr = NULL;
    const char *device = "auto";
    int cub = 0, exact = 0, model = 0;
    axes_arg axes;
    if (!PyArg_ParseTupleAndKeywords(pos, kwargs, "OOOO&|sOO&OpppO:sum_axes", keywords, &input, &shape_obj, &reduce_obj,
                                     PyArray_DescrConverter, &acc_descr, &device, &out_obj, PyArray_DescrConverter2,
                                     &result_descr, &initial_obj, &cub, &exact, &model, &into))
        return NULL;
    if (parse_axes(shape_obj, reduce_obj, &axes) == 0)
        result = sum_axes_run(module, input, &axes, acc_descr, device, out_obj, result_descr, initial_obj, cub, exact,
                              model, into);
    Py_XDECREF(acc_descr);
    Py_XDECREF(result_descr);
    return result;
}

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

/* ---- bench ----------------------------------------------------------------------------------- */

static PyObject *py_bench(PyObject *module, PyObject *pos, PyObject *kwargs) {
    static char *keywords[] = {"a", "version", "repeats", "warmup", "min_bytes", NULL};
    PyObject *input, *version_obj, *result = NULL;
    int repeats, warmup;
    long long min_bytes;
    sum_args args = {NULL, NULL, 0, 0, 0, 0, 0, 0};
    double *seconds = NULL;
    if (!PyArg_ParseTupleAndKeywords(pos, kwargs, "OOiiL:bench", keywords, &input, &version_obj, &repeats,
                                     &warmup, &min_bytes))
        return NULL;
    if (repeats < 1 || warmup < 0 || min_bytes < 0) {
        PyErr_Format(PyExc_ValueError, "cured.bench: repeats must be >= 1 and warmup, min_bytes >= 0 "
                     "(got %d, %d, %lld)", repeats, warmup, min_bytes);
        return NULL;
    }
    /* The benchmark copies its input to the device itself, from host memory. */
    if (PyObject_HasAttrString(input, "__cuda_array_interface__")) {
        PyErr_SetString(PyExc_TypeError, "cured.bench: times host arrays (it makes its own device copies); pass "
                                         "a NumPy array");
        goto done;
    }
    if (prepare(input, 0, version_obj, NULL, 1, 0, &args) < 0) goto done;
    seconds = (double *)PyMem_Calloc((size_t)repeats, sizeof *seconds);
    if (seconds == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    cured_plan plan;
    cured_cuda_status status =
        cured_plan_make(&plan, args.version, args.in_dtype, args.acc, (int64_t)PyArray_SIZE(args.array), 0);
    if (status.code != cudaSuccess) {
        raise_cuda(module, status);
        goto done;
    }
    plan.result = plan_result(&args);
    acc_value value;
    int64_t buffers = 0;
    Py_BEGIN_ALLOW_THREADS
    status = cured_gpu_bench(&plan, PyArray_DATA(args.array), (int64_t)min_bytes, warmup, repeats, seconds, &buffers,
                             &value);
    Py_END_ALLOW_THREADS
    if (status.code != cudaSuccess) {
        raise_cuda(module, status);
        goto done;
    }
    PyObject *times = PyList_New(repeats);
    if (times == NULL) goto done;
    for (int k = 0; k < repeats; ++k) {
        PyObject *t = PyFloat_FromDouble(seconds[k]);
        if (t == NULL) {
            Py_DECREF(times);
            goto done;
        }
        PyList_SET_ITEM(times, k, t);
    }
    result = Py_BuildValue("{s:N,s:L,s:N,s:L}", "seconds", times, "buffers", (long long)buffers, "value",
                           result_scalar(&args, &value), "workspace_bytes", (long long)plan.workspace_bytes);
done:
    PyMem_Free(seconds);
    sum_args_clear(&args);
    return result;
}

/* ---- the floor --------------------------------------------------------------------------------- */

static PyObject *py_floor(PyObject *module, PyObject *args) {
    int repeats;
    if (!PyArg_ParseTuple(args, "i:floor", &repeats)) return NULL;
    if (repeats < 1) return PyErr_Format(PyExc_ValueError, "floor: repeats must be >= 1, not %d", repeats);
    double *seconds = (double *)PyMem_Calloc((size_t)repeats, sizeof *seconds);
    if (seconds == NULL) return PyErr_NoMemory();
    int device;
    cured_cuda_status status = cured_device_ready(&device);
    if (status.code == cudaSuccess) {
        Py_BEGIN_ALLOW_THREADS
        status = cured_floor(device, repeats, cudaStreamLegacy, seconds); /* the stream a DLPack input's sum runs on */
        Py_END_ALLOW_THREADS
    }
    PyObject *times = status.code == cudaSuccess ? PyList_New(repeats) : NULL;
    for (int k = 0; times != NULL && k < repeats; ++k) {
        PyObject *t = PyFloat_FromDouble(seconds[k]);
        if (t == NULL) Py_CLEAR(times);
        else PyList_SET_ITEM(times, k, t);
    }
    PyMem_Free(seconds);
    return status.code != cudaSuccess ? raise_cuda(module, status) : times;
}

/* ---- the exact state --------------------------------------------------------------------------- */

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

/* ---- the registry and the device ------------------------------------------------------------- */

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

static PyObject *py_set_test_launch(PyObject *module, PyObject *args) {
    long long blocks;
    int misalign;
    (void)module;
    if (!PyArg_ParseTuple(args, "Li:_set_test_launch", &blocks, &misalign)) return NULL;
    if (blocks < 0 || misalign < 0 || misalign > 15)
        return PyErr_Format(PyExc_ValueError, "_set_test_launch: blocks >= 0 and 0 <= misalign < 16");
    cured_set_test_launch(blocks, misalign);
    Py_RETURN_NONE;
}

static PyObject *py_cluster_launches(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(cured_cluster_launches());
}

static PyObject *py_set_test_driver_launch(PyObject *module, PyObject *args) {
    int allowed;
    (void)module;
    if (!PyArg_ParseTuple(args, "p:_set_test_driver_launch", &allowed)) return NULL;
    cured_set_test_driver_launch(allowed);
    Py_RETURN_NONE;
}

static PyObject *py_driver_launches(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(cured_driver_launches());
}

static PyObject *py_set_test_dynamic_shared(PyObject *module, PyObject *args) {
    long long bytes;
    (void)module;
    if (!PyArg_ParseTuple(args, "L:_set_test_dynamic_shared", &bytes)) return NULL;
    if (bytes < 0) return PyErr_Format(PyExc_ValueError, "_set_test_dynamic_shared: bytes must be >= 0 (0: the GPU's)");
    cured_set_test_dynamic_shared(bytes);
    Py_RETURN_NONE;
}

static PyObject *py_set_test_memory_bandwidth(PyObject *module, PyObject *args) {
    long long bytes_per_s;
    (void)module;
    if (!PyArg_ParseTuple(args, "L:_set_test_memory_bandwidth", &bytes_per_s)) return NULL;
    if (bytes_per_s < 0)
        return PyErr_Format(PyExc_ValueError, "_set_test_memory_bandwidth: bytes_per_s must be >= 0 (0: the GPU's)");
    cured_set_test_memory_bandwidth(bytes_per_s);
    Py_RETURN_NONE;
}

static PyObject *py_set_cpu_tiles(PyObject *module, PyObject *args) {
    int threads, plain;
    long long range_bytes = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "ip|L:_set_cpu_tiles", &threads, &plain, &range_bytes)) return NULL;
    if (threads < 0 || range_bytes < 0)
        return PyErr_Format(PyExc_ValueError, "_set_cpu_tiles: threads and range_bytes must be >= 0 (0: by size)");
    cured_set_cpu_tiles(threads, plain, (int64_t)range_bytes);
    Py_RETURN_NONE;
}

/* The C-order copy that sums of a host array read (c_order): for tests. */
static PyObject *py_c_order_copy(PyObject *module, PyObject *input) {
    (void)module;
    if (!PyArray_Check(input)) return PyErr_Format(PyExc_TypeError, "_c_order_copy: not an ndarray");
    const int dtype = dtype_of(PyArray_DESCR((PyArrayObject *)input));
    return dtype < 0 ? NULL : (PyObject *)c_order((PyArrayObject *)input, (cured_dtype)dtype);
}

/* The scalar CPU order model of any version on a host array, whatever the fast paths do: for tests. */
static PyObject *py_model_sum(PyObject *module, PyObject *pos, PyObject *kwargs) {
    static char *keywords[] = {"a", "version", "dtype", NULL};
    PyObject *input, *version_obj, *result = NULL;
    PyArray_Descr *requested = NULL;
    sum_args args = {NULL, NULL, 0, 0, 0, 0, 0, 0};
    acc_value value;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(pos, kwargs, "OO|O&:model_sum", keywords, &input, &version_obj,
                                     PyArray_DescrConverter2, &requested))
        return NULL;
    if (prepare(input, 0, version_obj, requested, 0, 0, &args) < 0) goto done;
    if (cured_cpu_sum(args.version, args.in_dtype, args.acc, plan_result(&args), PyArray_DATA(args.array),
                      (int64_t)PyArray_SIZE(args.array), &value) != 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = result_scalar(&args, &value);
done:
    Py_XDECREF(requested);
    sum_args_clear(&args);
    return result;
}

static PyObject *py_fault(PyObject *module, PyObject *args) {
    long long k;
    int error;
    (void)module;
    if (!PyArg_ParseTuple(args, "Li:_fault", &k, &error)) return NULL;
    if (k < 0 || error <= 0) return PyErr_Format(PyExc_ValueError, "_fault: k >= 0 and a CUDA error code > 0");
    cured_fault_arm(k, (cudaError_t)error);
    Py_RETURN_NONE;
}

static PyObject *py_fault_state(PyObject *module, PyObject *unused) {
    int64_t calls;
    int fired;
    (void)module;
    (void)unused;
    cured_fault_state(&calls, &fired);
    return Py_BuildValue("{s:L,s:O,s:L,s:L,s:L,s:L,s:i}", "calls", (long long)calls, "fired", fired ? Py_True : Py_False,
                         "streams", (long long)cured_live.streams, "events", (long long)cured_live.events,
                         "pinned", (long long)cured_live.pinned, "device", (long long)cured_live.device,
                         "pool_threads", cured_pool_threads());
}

static PyObject *py_set_staging(PyObject *module, PyObject *args) {
    int lanes, ramp = 1;
    long long chunk_bytes, fetch_min_bytes = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "iL|pL:_set_staging", &lanes, &chunk_bytes, &ramp, &fetch_min_bytes)) return NULL;
    if (lanes < 0 || chunk_bytes < 0 || fetch_min_bytes < 0)
        return PyErr_Format(PyExc_ValueError,
                            "_set_staging: lanes, chunk_bytes and fetch_min_bytes must be >= 0 (0: the default)");
    cured_set_staging(lanes, chunk_bytes, ramp, fetch_min_bytes);
    Py_RETURN_NONE;
}

static PyObject *py_staging(PyObject *module, PyObject *unused) {
    cured_staging s;
    (void)module;
    (void)unused;
    cured_get_staging(&s);
    return Py_BuildValue("{s:i,s:L,s:O,s:L}", "lanes", s.lanes, "chunk_bytes", (long long)s.chunk_bytes, "ramp",
                         s.ramp ? Py_True : Py_False, "fetch_min_bytes", (long long)s.fetch_min_bytes);
}

static PyObject *py_chunk_spans(PyObject *module, PyObject *args) {
    long long n, chunk, unit;
    int lanes, ramp;
    (void)module;
    if (!PyArg_ParseTuple(args, "LLLip:_chunk_spans", &n, &chunk, &unit, &lanes, &ramp)) return NULL;
    if (n < 0 || unit < 1 || chunk < unit || chunk % unit != 0 || lanes < 1 || lanes > CURED_MAX_LANES)
        return PyErr_Format(PyExc_ValueError, "_chunk_spans: needs n >= 0, unit >= 1, chunk a multiple of unit and "
                                              "1 <= lanes <= %d",
                            CURED_MAX_LANES);
    cured_chunks chunks;
    cured_chunks_make(&chunks, n, n > 0 && n < chunk ? n : chunk, chunk, unit, lanes, ramp); /* as the sum's plan does */
    PyObject *spans = PyList_New(0);
    for (int64_t k = 0; spans != NULL && k < chunks.chunks; ++k) {
        int64_t first, count;
        cured_chunk_span(&chunks, k, &first, &count);
        PyObject *span = Py_BuildValue("(LL)", (long long)first, (long long)count);
        if (span == NULL || PyList_Append(spans, span) < 0) Py_CLEAR(spans);
        Py_XDECREF(span);
    }
    return spans;
}

static PyObject *py_device_count(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    int count = 0;
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = cudaGetDeviceCount(&count);
    Py_END_ALLOW_THREADS
    /* No device and no (or too old a) driver both mean: nothing to run on. */
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) return PyLong_FromLong(0);
    if (err != cudaSuccess) return raise_cuda(module, (cured_cuda_status){err, "cudaGetDeviceCount"});
    return PyLong_FromLong(count);
}

static PyObject *py_device_name(PyObject *module, PyObject *args) {
    int device = 0;
    struct cudaDeviceProp prop;
    if (!PyArg_ParseTuple(args, "|i:device_name", &device)) return NULL;
    cudaError_t err;
    Py_BEGIN_ALLOW_THREADS
    err = cudaGetDeviceProperties(&prop, device); /* opens no context: a profiler's child can still have the GPU */
    Py_END_ALLOW_THREADS
    if (err != cudaSuccess) return raise_cuda(module, (cured_cuda_status){err, "cudaGetDeviceProperties"});
    return PyUnicode_FromString(prop.name);
}

static PyObject *py_device_info(PyObject *module, PyObject *unused) {
    (void)unused;
    int device = 0, driver = 0, runtime = 0, clock_khz = 0, bus_bits = 0;
    int64_t peak_bytes_per_s = 0;
    cured_cuda_status status = cured_device_ready(&device);
    struct cudaDeviceProp prop;
    CURED_QUERY(status, "cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, device));
    CURED_QUERY(status, "cudaDriverGetVersion", cudaDriverGetVersion(&driver));
    CURED_QUERY(status, "cudaRuntimeGetVersion", cudaRuntimeGetVersion(&runtime));
    CURED_QUERY(status, "cudaDeviceGetAttribute", cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
    CURED_QUERY(status, "cudaDeviceGetAttribute", cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    CURED_QUERY(status, "cudaDeviceGetAttribute", cured_memory_peak_bandwidth(device, &peak_bytes_per_s));
    if (status.code != cudaSuccess) return raise_cuda(module, status);
    return Py_BuildValue("{s:i,s:s,s:(ii),s:i,s:i,s:n,s:i,s:i,s:d,s:i,s:i}", "device", device, "name", prop.name,
                         "compute_capability", prop.major, prop.minor, "multiprocessors",
                         prop.multiProcessorCount, "l2_cache_bytes", prop.l2CacheSize, "memory_bytes",
                         (Py_ssize_t)prop.totalGlobalMem, "memory_clock_khz", clock_khz,
                         "memory_bus_width_bits", bus_bits, "peak_bandwidth_bytes_per_s", (double)peak_bytes_per_s,
                         "driver_version", driver, "runtime_version", runtime);
}

static PyObject *py_memory_in_use(PyObject *module, PyObject *args) {
    int reset_high = 0;
    if (!PyArg_ParseTuple(args, "|p:memory_in_use", &reset_high)) return NULL;
    int device = 0;
    cured_cuda_status status = cured_device_ready(&device);
    cudaMemPool_t pool;
    uint64_t used = 0, reserved = 0, used_high = 0, zero = 0;
    CURED_QUERY(status, "cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
    CURED_QUERY(status, "cudaMemPoolGetAttribute", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    CURED_QUERY(status, "cudaMemPoolGetAttribute",
                cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CURED_QUERY(status, "cudaMemPoolGetAttribute", cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &used_high));
    if (reset_high)
        CURED_QUERY(status, "cudaMemPoolSetAttribute", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    if (status.code != cudaSuccess) return raise_cuda(module, status);
    return Py_BuildValue("{s:K,s:K,s:K}", "used", (unsigned long long)used, "reserved", (unsigned long long)reserved,
                         "used_high", (unsigned long long)used_high);
}

static PyObject *py_release_cached_memory(PyObject *module, PyObject *unused) {
    (void)unused;
    int device = 0;
    cured_cuda_status status = cured_device_ready(&device);
    cudaMemPool_t pool;
    CURED_QUERY(status, "cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
    CURED_QUERY(status, "cudaMemPoolTrimTo", cudaMemPoolTrimTo(pool, 0));
    if (status.code != cudaSuccess) return raise_cuda(module, status);
    Py_RETURN_NONE;
}

/* ---- the module ------------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"numpy_sum", (PyCFunction)(void (*)(void))py_numpy_sum, METH_FASTCALL,
     "numpy_sum(a, axis, dtype, out, keepdims, initial, where, version, device, timing)\n--\n\n"
     "cured.sum with every argument given, in this order: the common call (a sum of every element into a NumPy "
     "scalar or a device element) in C, the others through cured.numpy_sum's Python path. cured.sum is the "
     "documented entry point."},
    {"_set_python_sum", py_set_python_sum, METH_VARARGS,
     "_set_python_sum(function, no_value, default_version)\n--\n\nFor cured.numpy_sum: the Python function numpy_sum passes the "
     "calls it does not make to, the object that stands for initial= not given, and the default version (the one "
     "that sums along axes)."},
    {"sum", (PyCFunction)(void (*)(void))py_sum, METH_VARARGS | METH_KEYWORDS,
     "sum(a, version, dtype=None, device='auto', timing=False, out=None, state=False, initial=None)\n--\n\n"
     "Sums every element of `a` (a host array, or a device array through the CUDA Array Interface "
     "or DLPack) with kernel `version` (or 'cub') on the GPU, or on the CPU in the version's order when "
     "device='cpu' (V9: vectorised on every CPU thread; the others: their order model), or where it is faster "
     "for host input when device='auto'. Returns a NumPy scalar, or (scalar, {'h2d', 'reduce', 'd2h' seconds, "
     "'device': where it ran}) with timing=True, or `out` (a one-element device array, written in stream order "
     "without a host wait), or with state=True (an exact version only) the exact state as bytes. cured.sum is the "
     "documented entry point."},
    {"_c_order_copy", py_c_order_copy, METH_O,
     "_c_order_copy(a): the C-contiguous copy of host array a that cured's sums read (a itself where it is one)."},
    {"model_sum", (PyCFunction)(void (*)(void))py_model_sum, METH_VARARGS | METH_KEYWORDS,
     "model_sum(a, version, dtype=None)\n--\n\nThe scalar CPU order model of `version` on host array `a`: the "
     "reference the GPU kernels and the fast CPU path are tested against."},
    {"sum_axes", (PyCFunction)(void (*)(void))py_sum_axes, METH_VARARGS | METH_KEYWORDS,
     "sum_axes(a, shape, reduce, acc, device='auto', out=None, result=None, initial=None, cub=False, exact=False, "
     "model=False)\n--\n\n"
     "Sums `a` (shape `shape`, C order; a host or device array) along the axes where `reduce` is true, in "
     "accumulator `acc` (int64, uint64, float32 or float64) with the default version's axis kernels "
     "(kernels/v9_axis.cu; with cub, CUB's segmented reduction over rows) on the GPU ('gpu', and 'auto' for device "
     "arrays and cub), or on the CPU with the same bits ('cpu', and 'auto' for host arrays: csrc/cpu_axis.c; with "
     "model, for tests, the scalar order model instead). Returns the accumulators, flat, in C order of the kept axes; "
     "or writes them into the device array out= (C-contiguous, dtype `result`), initial (8 bytes of `acc`) added, "
     "queued without a host wait, and returns it. With exact (a device array; result a float dtype, acc float64 for "
     "a float64 result and float32 for the others), V10 along axes (kernels/v10_axis.cu): each output rounded once "
     "into `result`, as acc. cured.sum is the documented entry point."},
    {"exact_round", py_exact_round, METH_VARARGS,
     "exact_round(state, dtype)\n--\n\nThe sum an exact state (bytes, as sum(..., state=True) returns them) "
     "holds, rounded once to nearest, ties to even, into float `dtype`. cured.ExactSum is the documented entry "
     "point."},
    {"floor", py_floor, METH_VARARGS,
     "floor(repeats)\n--\n\n"
     "The floor of a call's wall time on the current device: `repeats` times, one minimal kernel writing one "
     "value into pinned host memory and the wait for it, polled as a sum's is. Returns each one's seconds (host "
     "clock)."},
    {"bench", (PyCFunction)(void (*)(void))py_bench, METH_VARARGS | METH_KEYWORDS,
     "bench(a, version, repeats, warmup, min_bytes)\n--\n\n"
     "Times `repeats` whole reductions of `a` (after `warmup`) with CUDA events, rotating among copies of "
     "`a` covering at least `min_bytes` of device memory. Returns {'seconds': [...], 'buffers', 'value', "
     "'workspace_bytes'}. cured.bench is the documented entry point."},
    {"versions", py_versions, METH_NOARGS,
     "versions()\n--\n\nThe registry of kernel versions: a tuple of dicts, one a version."},
    {"shape", py_shape, METH_VARARGS,
     "shape(version, dtype, n)\n--\n\nHow `version` cuts n elements of `dtype`: for schedule 'passes', the "
     "blocks of each pass; for 'tiles', the vector width, step, steps a tile, tile and tiles."},
    {"exact_rows", py_exact_rows, METH_VARARGS,
     "exact_rows(a, dtype, device='cpu')\n--\n\nEach row of the C-contiguous 2-D array `a`, summed exactly on the CPU and rounded "
     "once into `dtype` (float16, float32 or float64), as a float64 array that holds each rounded value exactly."},
    {"_set_test_launch", py_set_test_launch, METH_VARARGS,
     "_set_test_launch(blocks, misalign)\n--\n\nFor tests: force the grid of tiled kernels (0: from the "
     "GPU) and misalign the device copy of each chunk of host input by `misalign` bytes (0 to 15)."},
    {"_set_test_dynamic_shared", py_set_test_dynamic_shared, METH_VARARGS,
     "_set_test_dynamic_shared(bytes)\n--\n\nFor tests: let kernels have at most `bytes` of dynamic shared memory a "
     "block (0: what the GPU has), as a GPU with less would; V10's float64 then takes its other path."},
    {"_set_test_memory_bandwidth", py_set_test_memory_bandwidth, METH_VARARGS,
     "_set_test_memory_bandwidth(bytes_per_s)\n--\n\nFor tests: make the kernels along axes assume a GPU whose memory "
     "moves `bytes_per_s` bytes a second (0: the GPU's own); it picks the packed-rows kernel's vectors a thread."},
    {"_cluster_launches", py_cluster_launches, METH_NOARGS,
     "_cluster_launches()\n--\n\nFor tests: the kernel launches made as one cluster of blocks so far (V10 over a "
     "few tiles, on GPUs of compute capability 9.0 up)."},
    {"_set_test_driver_launch", py_set_test_driver_launch, METH_VARARGS,
     "_set_test_driver_launch(allowed)\n--\n\nFor tests: let V9's, V10's and the floor's launches go through the "
     "driver's cuLaunchKernel or cuLaunchKernelEx (True, the default), or make them use the runtime's launch (False)."},
    {"_driver_launches", py_driver_launches, METH_NOARGS,
     "_driver_launches()\n--\n\nFor tests: the kernel launches made through the driver so far."},
    {"_set_cpu_tiles", py_set_cpu_tiles, METH_VARARGS,
     "_set_cpu_tiles(threads, plain, range_bytes=0)\n--\n\nFor tests: V9's CPU sum on `threads` threads (0: as "
     "the input's size warrants), with `plain` its portable C chains instead of the CPU's SIMD ones, and a strided "
     "input gathered in ranges of about `range_bytes` (0: as its size asks)."},
    {"_fault", py_fault, METH_VARARGS,
     "_fault(k, error)\n--\n\nFor tests: the k-th CUDA runtime call or kernel launch of cured's host code from now "
     "on returns CUDA error `error` instead of running, once (k = 0: none); the count restarts either way."},
    {"_fault_state", py_fault_state, METH_NOARGS,
     "_fault_state()\n--\n\nFor tests: {'calls' counted since _fault, 'fired', and what is alive: 'streams', "
     "'events', 'pinned' and 'device' allocations (outside the memory pool), 'pool_threads'}."},
    {"_set_staging", py_set_staging, METH_VARARGS,
     "_set_staging(lanes, chunk_bytes, ramp=True, fetch_min_bytes=0)\n--\n\nFor tests and tuning: the host "
     "path's lanes (threads, each with its own stream and staging buffers) and chunk size in bytes; with `ramp` the "
     "first chunks grow, one a lane; results along axes of fetch_min_bytes or more come back through the lanes. 0 "
     "restores each default."},
    {"staging", py_staging, METH_NOARGS,
     "staging()\n--\n\nThe host path's settings: {'lanes', 'chunk_bytes', 'ramp', 'fetch_min_bytes'} (chunks "
     "are rounded to whole blocks or tiles of the version)."},
    {"_chunk_spans", py_chunk_spans, METH_VARARGS,
     "_chunk_spans(n, chunk, unit, lanes, ramp)\n--\n\nFor tests: the host path's chunks of n elements for "
     "`lanes` lanes as (first, count) pairs: chunks of `chunk` elements (the setting's, in elements), whole units "
     "of `unit`, after a ramp of growing ones where `ramp` and the input is short."},
    {"device_count", py_device_count, METH_NOARGS,
     "device_count()\n--\n\nThe number of CUDA devices; 0 when there is none or no driver."},
    {"device_name", py_device_name, METH_VARARGS,
     "device_name(device=0)\n--\n\nThe name of CUDA device `device`, without opening a context on it (so a "
     "profiler's child process can still have a GPU in exclusive-process mode)."},
    {"device_info", py_device_info, METH_NOARGS,
     "device_info()\n--\n\nThe current device's name, compute capability, multiprocessors, L2 size, memory, "
     "theoretical bandwidth and the driver and runtime versions."},
    {"memory_in_use", py_memory_in_use, METH_VARARGS,
     "memory_in_use(reset_high=False)\n--\n\nBytes of the current device's memory pool in use by allocations "
     "('used'), held by the pool ('reserved'), and the most in use at once since the last reset ('used_high'); "
     "reset_high=True starts that count again after reading it."},
    {"release_cached_memory", py_release_cached_memory, METH_NOARGS,
     "release_cached_memory()\n--\n\nGives the device memory that the current device's pool keeps cached "
     "between calls back to the driver."},
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
