/* interop.c: reading device arrays of other libraries without copying them to the host.
 *
 * CUDA Array Interface (numba.readthedocs.io, "CUDA Array Interface", versions 2 and 3): a dict
 * with the device pointer, shape, typestr, byte strides and, from version 3, the stream whose work
 * must finish before the data may be read. The device is the one the pointer belongs to.
 *
 * DLPack (dmlc.github.io/dlpack, and the Python array API's `__dlpack__`): the consumer asks
 * `__dlpack_device__()` where the array is, then calls `__dlpack__(stream=S, max_version=(1, 1))`
 * with its own stream S; the producer orders its pending work before S and returns a capsule named
 * "dltensor_versioned" (DLPack 1.x) or "dltensor" (older producers, which also reject max_version).
 * The consumer renames the capsule "used_..." and, once done, calls the tensor's deleter.
 *
 * An array that offers both is read through its CUDA Array Interface when that is version 3 (its
 * stream is the one the caller's next work goes on, so the sum there is ordered before it), or a
 * JAX array whose data are ready (version 2, nothing to order), else through DLPack.
 *
 * Every call reads these, so the reading is kept cheap (issue 12): names are interned once, a
 * missing attribute is looked up without raising AttributeError, a version 3 interface is read
 * without asking for DLPack's methods at all, and the common typestrs ("<f4", "|b1", ...) map to
 * NumPy's built-in dtypes without NumPy's parser. PyTorch's tensors and CuPy's arrays, the most
 * common inputs, and Numba's device arrays are read from their own attributes (PyTorch's from 2.10
 * through its DLPack C exchange API) instead of the protocols, and JAX's through the interface once
 * computed (interop_libraries.c says what that saves and what is still left to the protocols). */
#include "interop_internal.h"

#include <string.h>

#include "faults.h" /* last: it redefines the CUDA calls the host code makes */

/* ---- names ------------------------------------------------------------------------------------ */

PyObject *interop_names[NAMES];

int device_array_init(void) {
    static const char *const text[NAMES] = {"__cuda_array_interface__", "__dlpack__", "__dlpack_device__", "version",
                                            "typestr", "shape", "strides", "data", "mask", "stream", "torch",
                                            "is_cuda", "requires_grad", "layout", "dtype", "get_device", "data_ptr",
                                            "stride", "is_neg", "is_nested", "cupy", "_c_contiguous", "size", "ptr",
                                            "device_id",
                                            "CUDA_ARRAY_INTERFACE_EXPORT_VERSION", "jax", "is_ready", "is_deleted",
                                            "numba.cuda.cudadrv.devicearray", "gpu_data", "device_pointer",
                                            "device_ctypes_pointer", "value"};
    for (int k = 0; k < NAMES; ++k)
        if (interop_names[k] == NULL && (interop_names[k] = PyUnicode_InternFromString(text[k])) == NULL) return -1;
    return 0;
}

/* ---- layouts --------------------------------------------------------------------------------- */

int interop_set_layout(device_array *array, int ndim, const int64_t *shape, const int64_t *strides, int64_t item) {
    cured_layout *layout = &array->layout;
    int64_t n = 1, contiguous_stride = item;
    for (int d = 0; d < ndim; ++d) {
        if (shape[d] < 0) {
            PyErr_Format(PyExc_ValueError, "cured.sum: the device array has a negative extent (%lld)", (long long)shape[d]);
            return -1;
        }
        if (shape[d] != 0 && n > INT64_MAX / shape[d]) {
            PyErr_SetString(PyExc_ValueError, "cured.sum: the device array has more than 2^63 elements");
            return -1;
        }
        n *= shape[d];
    }
    array->n = n;
    layout->ndim = 0;
    if (n == 0) return 0;
    int64_t kept_shape[MAX_PROTOCOL_DIMS], kept_strides[MAX_PROTOCOL_DIMS];
    int kept = 0;
    /* C-contiguous strides, innermost first, for arrays that give none. */
    int64_t c_strides[MAX_PROTOCOL_DIMS];
    if (ndim > MAX_PROTOCOL_DIMS) {
        PyErr_Format(PyExc_ValueError, "cured.sum: the device array has %d dimensions; at most %d are supported", ndim,
                     MAX_PROTOCOL_DIMS);
        return -1;
    }
    for (int d = ndim - 1; d >= 0; --d) {
        c_strides[d] = contiguous_stride;
        contiguous_stride *= shape[d];
    }
    for (int d = 0; d < ndim; ++d) {
        const int64_t stride = strides != NULL ? strides[d] : c_strides[d];
        if (shape[d] == 1) continue;
        if (kept > 0 && kept_strides[kept - 1] == shape[d] * stride) {
            kept_shape[kept - 1] *= shape[d];
            kept_strides[kept - 1] = stride;
        } else {
            kept_shape[kept] = shape[d];
            kept_strides[kept] = stride;
            ++kept;
        }
    }
    if (kept > CURED_MAX_DIMS) {
        PyErr_Format(PyExc_ValueError,
                     "cured.sum: the device array's strides leave %d dimensions that cannot be merged; at most %d "
                     "are supported (make it contiguous first)", kept, CURED_MAX_DIMS);
        return -1;
    }
    layout->ndim = kept;
    memcpy(layout->shape, kept_shape, (size_t)kept * sizeof(int64_t));
    memcpy(layout->strides, kept_strides, (size_t)kept * sizeof(int64_t));
    return 0;
}

int interop_set_dl_layout(device_array *array, const DLTensor *tensor, const char *what) {
    if (tensor->ndim < 0 || tensor->ndim > MAX_PROTOCOL_DIMS) {
        PyErr_Format(PyExc_ValueError, "cured.sum: the %s has %d dimensions; at most %d are supported", what,
                     tensor->ndim, MAX_PROTOCOL_DIMS);
        return -1;
    }
    const int64_t item = (int64_t)PyDataType_ELSIZE(array->descr);
    int64_t strides[MAX_PROTOCOL_DIMS];
    for (int d = 0; d < tensor->ndim && tensor->strides != NULL; ++d) strides[d] = tensor->strides[d] * item;
    return interop_set_layout(array, tensor->ndim, tensor->shape, tensor->strides != NULL ? strides : NULL, item);
}

int device_array_copy_unit(const device_array *array, int item_size) {
    const cured_layout *layout = &array->layout;
    const uintptr_t address = (uintptr_t)array->data;
    const int contiguous = layout->ndim == 0 || (layout->ndim == 1 && layout->strides[0] == item_size);
    if (array->n == 0 || (contiguous && address % (uintptr_t)item_size == 0)) return 0;
    for (int unit = 8;; unit /= 2) {
        int fits = item_size % unit == 0 && address % (uintptr_t)unit == 0;
        for (int d = 0; d < layout->ndim && fits; ++d) fits = layout->strides[d] % unit == 0;
        if (fits || unit == 1) return unit;
    }
}

/* ---- the CUDA Array Interface ---------------------------------------------------------------- */

/* The int `value` of the interface's `key`, or -1 with an exception set. */
static int64_t dict_int(const char *key, PyObject *value) {
    if (value == NULL || !PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: __cuda_array_interface__['%s'] must be an int", key);
        return -1;
    }
    return (int64_t)PyLong_AsLongLong(value);
}

int interop_int_tuple(PyObject *tuple, const char *what, int64_t *out, int max) {
    if (!PyTuple_Check(tuple)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: %s must be a tuple of ints, not %.100s", what, Py_TYPE(tuple)->tp_name);
        return -1;
    }
    const Py_ssize_t ndim = PyTuple_GET_SIZE(tuple);
    if (ndim > max) {
        PyErr_Format(PyExc_ValueError, "cured.sum: %s has %zd entries; at most %d are supported", what, ndim, max);
        return -1;
    }
    for (Py_ssize_t d = 0; d < ndim; ++d) {
        out[d] = (int64_t)PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, d));
        if (out[d] == -1 && PyErr_Occurred()) return -1;
    }
    return (int)ndim;
}

/* NumPy's type number for a dtype of `kind` ('b' bool, 'i', 'u', 'f') and `bytes`, among those
 * cured sums; -1 for any other. */
static int numpy_type(char kind, int bytes) {
    static const int ints[] = {NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64};
    static const int uints[] = {NPY_UINT8, NPY_UINT16, NPY_UINT32, NPY_UINT64};
    static const int floats[] = {-1, NPY_HALF, NPY_FLOAT, NPY_DOUBLE};
    const int index = bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : bytes == 8 ? 3 : -1;
    if (index < 0) return -1;
    return kind == 'b' ? (bytes == 1 ? NPY_BOOL : -1) : kind == 'i' ? ints[index] : kind == 'u' ? uints[index]
                                                       : kind == 'f' ? floats[index] : -1;
}

/* NumPy's built-in dtype for a typestr of native or no byte order and one of the kinds cured sums
 * ("<f4", "|b1", "<i8" on a little-endian host), a new reference; NULL, with no exception set,
 * for any other, which NumPy's parser then reads (and refuses, where it must). */
static PyArray_Descr *builtin_descr(PyObject *typestr) {
    static const char native = NPY_BYTE_ORDER == NPY_LITTLE_ENDIAN ? '<' : '>';
    Py_ssize_t length;
    const char *text = PyUnicode_AsUTF8AndSize(typestr, &length);
    if (text == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (length != 3 || (text[0] != native && text[0] != '|' && text[0] != '=') || text[2] < '1' || text[2] > '8')
        return NULL;
    const int type = numpy_type(text[1], text[2] - '0');
    return type < 0 ? NULL : PyArray_DescrFromType(type);
}

/* A non-empty array at address 0 has no memory to read (a PyTorch ZeroTensor, or a functional
 * one's wrapper, says so through data_ptr()); a kernel reading there would leave the context
 * unusable for the rest of the process. Returns 0, or -1 with ValueError set. */
static int refuse_null_data(const device_array *array, const char *what) {
    if (array->data != NULL || array->n == 0) return 0;
    PyErr_Format(PyExc_ValueError, "cured.sum: the %s has a null pointer for %lld elements: no memory to read",
                 what, (long long)array->n);
    return -1;
}

static int read_cuda_array_interface(PyObject *iface, device_array *array) {
    PyObject *version, *typestr, *shape, *data, *strides, *mask, *stream;
    int64_t shape_v[MAX_PROTOCOL_DIMS], strides_v[MAX_PROTOCOL_DIMS];
    if (!PyDict_Check(iface)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: __cuda_array_interface__ must be a dict, not %.100s",
                     Py_TYPE(iface)->tp_name);
        return -1;
    }
    version = PyDict_GetItemWithError(iface, interop_names[NAME_VERSION]);
    const int64_t v = dict_int("version", version);
    if (v < 0 && PyErr_Occurred()) return -1;
    if (v > 3) {
        PyErr_Format(PyExc_ValueError, "cured.sum: __cuda_array_interface__ version %lld is not supported (2 and 3 are)",
                     (long long)v);
        return -1;
    }
    mask = PyDict_GetItemWithError(iface, interop_names[NAME_MASK]);
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: masked device arrays are not supported");
        return -1;
    }
    typestr = PyDict_GetItemWithError(iface, interop_names[NAME_TYPESTR]);
    if (typestr == NULL || !PyUnicode_Check(typestr)) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__['typestr'] must be a str");
        return -1;
    }
    if ((array->descr = builtin_descr(typestr)) == NULL && !PyArray_DescrConverter(typestr, &array->descr)) return -1;
    if (!PyDataType_ISNOTSWAPPED(array->descr)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: the device array's dtype %R is not in native byte order", typestr);
        return -1;
    }
    shape = PyDict_GetItemWithError(iface, interop_names[NAME_SHAPE]);
    if (shape == NULL) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__ has no 'shape'");
        return -1;
    }
    const int ndim = interop_int_tuple(shape, "__cuda_array_interface__['shape']", shape_v, MAX_PROTOCOL_DIMS);
    if (ndim < 0) return -1;
    strides = PyDict_GetItemWithError(iface, interop_names[NAME_STRIDES]);
    const int has_strides = strides != NULL && strides != Py_None;
    if (has_strides) {
        const int nstrides =
            interop_int_tuple(strides, "__cuda_array_interface__['strides']", strides_v, MAX_PROTOCOL_DIMS);
        if (nstrides < 0) return -1;
        if (nstrides != ndim) {
            PyErr_SetString(PyExc_ValueError, "cured.sum: __cuda_array_interface__ has as many strides as dimensions");
            return -1;
        }
    }
    data = PyDict_GetItemWithError(iface, interop_names[NAME_DATA]);
    if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__['data'] must be (pointer, read_only)");
        return -1;
    }
    array->data = (const char *)PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (array->data == NULL && PyErr_Occurred()) return -1;
    if ((array->read_only = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) < 0) return -1;
    const int64_t item = (int64_t)PyDataType_ELSIZE(array->descr);
    if (interop_set_layout(array, ndim, shape_v, has_strides ? strides_v : NULL, item) < 0)
        return -1;
    if (refuse_null_data(array, "__cuda_array_interface__") < 0) return -1;
    /* Version 3's stream: None (or absent): nothing to wait for; 1 and 2: the legacy and per-thread
     * default streams (cudaStreamLegacy, cudaStreamPerThread are those handles); 0 is disallowed. */
    stream = PyDict_GetItemWithError(iface, interop_names[NAME_STREAM]);
    array->producer = NULL;
    if (stream != NULL && stream != Py_None) {
        if (!PyLong_Check(stream)) {
            PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__['stream'] must be an int or None");
            return -1;
        }
        array->producer = (cudaStream_t)PyLong_AsVoidPtr(stream);
        if (array->producer == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "cured.sum: __cuda_array_interface__['stream'] is 0, which the "
                                                  "interface disallows (ambiguous between the default streams)");
            return -1;
        }
    }
    return 0;
}

/* ---- DLPack ---------------------------------------------------------------------------------- */

int interop_type_of_dl(DLDataType dtype) {
    if (dtype.lanes != 1 || dtype.bits % 8 != 0) return -1;
    const char kind = dtype.code == DL_INT ? 'i' : dtype.code == DL_UINT ? 'u' : dtype.code == DL_BOOL ? 'b'
                    : dtype.code == DL_FLOAT ? 'f' : 0;
    return numpy_type(kind, dtype.bits / 8);
}

/* NumPy's type number for a DLPack dtype, or -1 with TypeError set. */
static int npy_type_of_dl(DLDataType dtype) {
    const int type = interop_type_of_dl(dtype);
    if (type >= 0) return type;
    if (dtype.lanes == 1 && dtype.code == DL_COMPLEX && (dtype.bits == 64 || dtype.bits == 128))
        return dtype.bits == 64 ? NPY_CFLOAT : NPY_CDOUBLE; /* refused later, with the message for complex */
    PyErr_Format(PyExc_TypeError,
                 "cured.sum: cannot sum a DLPack array of type code %u, %u bits, %u lanes%s; cured sums bool, int8 to "
                 "int64, uint8 to uint64, float16, float32 and float64",
                 (unsigned)dtype.code, (unsigned)dtype.bits, (unsigned)dtype.lanes,
                 dtype.code == DL_BFLOAT ? " (bfloat16)" : "");
    return -1;
}

static int find_dlpack(PyObject *obj, device_array *array) {
    PyObject *where = method(obj, NAME_DLPACK_DEVICE);
    if (where == NULL) return -1;
    long type = -1, id = -1;
    if (PyTuple_Check(where) && PyTuple_GET_SIZE(where) == 2) {
        type = PyLong_AsLong(PyTuple_GET_ITEM(where, 0));
        id = PyLong_AsLong(PyTuple_GET_ITEM(where, 1));
    }
    Py_DECREF(where);
    if (PyErr_Occurred()) return -1;
    if (type == DL_CUDA || type == DL_CUDA_MANAGED) {
        array->is_dlpack = 1;
        array->device = (int)id;
        return 1;
    }
    if (type == DL_CPU || type == DL_CUDA_HOST) { /* host memory: the host path, through numpy.from_dlpack */
        array->host_dlpack = 1;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "cured.sum: the array is on DLPack device type %ld; cured sums host arrays and "
                 "CUDA device arrays", type);
    return -1;
}

/* Whether obj has both of DLPack's methods: 1, 0, or -1 with an exception set. */
static int has_dlpack_methods(PyObject *obj) {
    PyObject *method = NULL;
    int has = optional_attr(obj, NAME_DLPACK_DEVICE, &method);
    Py_XDECREF(method);
    if (has > 0) {
        has = optional_attr(obj, NAME_DLPACK, &method);
        Py_XDECREF(method);
    }
    return has;
}

int device_array_find(PyObject *obj, device_array *array) {
    PyObject *iface = NULL;
    memset(array, 0, sizeof *array);
    array->device = -1;
    if (PyArray_Check(obj)) return 0;
    int read = read_torch(obj, array);
    if (read == 0) read = read_cupy(obj, array);
    if (read == 0) read = read_numba(obj, array);
    if (read != 0) return read < 0 || refuse_null_data(array, Py_TYPE(obj)->tp_name) < 0 ? -1 : 1;
    /* A CUDA Array Interface 3 names the stream the producer's work is on, so the sum runs there and
     * is ordered before the caller's next work on it, which DLPack cannot say: it comes first. An
     * older interface is read where the object has no DLPack. */
    const int has_iface = optional_attr(obj, NAME_CAI, &iface);
    if (has_iface < 0) {
        /* An object that refuses its interface (PyTorch, for a tensor that requires grad) but
         * speaks DLPack is asked through DLPack, whose refusal then passes through. */
        PyObject *refusal = take_raised_exception();
        const int has_dlpack = has_dlpack_methods(obj);
        if (has_dlpack == 0) set_raised_exception(refusal);
        else Py_XDECREF(refusal);
        return has_dlpack > 0 ? find_dlpack(obj, array) : -1;
    }
    int read_iface = 0;
    if (has_iface > 0 && PyDict_Check(iface)) {
        PyObject *version = PyDict_GetItemWithError(iface, interop_names[NAME_VERSION]);
        int overflow = 0;
        const long number = version != NULL && PyLong_Check(version) ? PyLong_AsLongAndOverflow(version, &overflow) : 0;
        if (PyErr_Occurred()) {
            Py_DECREF(iface);
            return -1;
        }
        read_iface = overflow > 0 || number >= 3; /* a version too new is refused by the reader */
        if (!read_iface && number == 2 && (read_iface = jax_array_ready(obj)) < 0) {
            Py_DECREF(iface);
            return -1;
        }
    }
    if (has_iface == 0 && refuse_deleted_jax_array(obj) < 0) return -1;
    const int has_dlpack = read_iface ? 0 : has_dlpack_methods(obj);
    if (has_iface > 0 && (read_iface || has_dlpack == 0)) {
        const int read = read_cuda_array_interface(iface, array);
        Py_DECREF(iface);
        return read < 0 ? -1 : 1;
    }
    Py_XDECREF(iface);
    return has_dlpack < 0 ? -1 : has_dlpack ? find_dlpack(obj, array) : 0;
}

cudaError_t device_array_locate(device_array *array) {
    struct cudaPointerAttributes attributes;
    if (array->is_dlpack || array->device_known) return cudaSuccess; /* __dlpack_device__, PyTorch or CuPy said */
    if (array->n == 0) return cudaGetDevice(&array->device); /* nothing will be read: the current device */
    const cudaError_t err = cudaPointerGetAttributes(&attributes, array->data);
    if (err != cudaSuccess) return err;
    switch (attributes.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
        array->device = attributes.device;
        return cudaSuccess;
    case cudaMemoryTypeHost: /* pinned host memory, mapped into the devices' address space */
        if (attributes.devicePointer == NULL) break;
        array->device = attributes.device;
        array->data = (const char *)attributes.devicePointer;
        return cudaSuccess;
    default:
        break;
    }
    PyErr_Format(PyExc_ValueError,
                 "cured.sum: __cuda_array_interface__ points at %p, which is not memory a CUDA device can read",
                 (const void *)array->data);
    return cudaErrorInvalidValue;
}

int device_array_import(PyObject *obj, device_array *array, cudaStream_t stream) {
    if (!array->is_dlpack) return 0;
    PyObject *args = PyTuple_New(0), *kwargs = NULL, *capsule = NULL;
    PyObject *stream_int = PyLong_FromVoidPtr((void *)stream);
    PyObject *method = PyObject_GetAttr(obj, interop_names[NAME_DLPACK]);
    if (args == NULL || stream_int == NULL || method == NULL) goto fail;
    kwargs = Py_BuildValue("{s:O,s:(ii)}", "stream", stream_int, "max_version", DLPACK_MAJOR, 1);
    if (kwargs == NULL) goto fail;
    capsule = PyObject_Call(method, args, kwargs);
    if (capsule == NULL && PyErr_ExceptionMatches(PyExc_TypeError)) { /* a producer from before max_version */
        PyErr_Clear();
        if (PyDict_DelItemString(kwargs, "max_version") < 0) goto fail;
        capsule = PyObject_Call(method, args, kwargs);
    }
    if (capsule == NULL) goto fail;

    DLTensor *tensor;
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        DLManagedTensorVersioned *managed = PyCapsule_GetPointer(capsule, "dltensor_versioned");
        if (managed->version.major != DLPACK_MAJOR) { /* unreadable: the capsule's destructor deletes it */
            PyErr_Format(PyExc_BufferError, "cured.sum: the producer's DLPack is version %u.%u; cured reads 1.x",
                         managed->version.major, managed->version.minor);
            goto fail;
        }
        if (PyCapsule_SetName(capsule, "used_dltensor_versioned") < 0) goto fail;
        array->managed = managed;
        array->versioned = 1;
        array->read_only = (managed->flags & DLPACK_FLAG_READ_ONLY) != 0;
        tensor = &managed->dl_tensor;
    } else if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *managed = PyCapsule_GetPointer(capsule, "dltensor");
        if (PyCapsule_SetName(capsule, "used_dltensor") < 0) goto fail;
        array->managed = managed;
        tensor = &managed->dl_tensor;
    } else {
        PyErr_Format(PyExc_TypeError, "cured.sum: __dlpack__ returned %R, not an unused DLPack capsule", capsule);
        goto fail;
    }
    array->capsule = capsule; /* owned from here: released with the tensor */
    capsule = NULL;

    if ((tensor->device.device_type != DL_CUDA && tensor->device.device_type != DL_CUDA_MANAGED) ||
        tensor->device.device_id != array->device) {
        PyErr_Format(PyExc_ValueError, "cured.sum: __dlpack__ gave an array on device (%d, %d), not the (2, %d) that "
                     "__dlpack_device__ said", tensor->device.device_type, tensor->device.device_id, array->device);
        goto fail;
    }
    const int type = npy_type_of_dl(tensor->dtype);
    if (type < 0) goto fail;
    array->descr = PyArray_DescrFromType(type);
    array->data = (const char *)tensor->data + tensor->byte_offset;
    if (interop_set_dl_layout(array, tensor, "DLPack array") < 0 || refuse_null_data(array, "DLPack array") < 0)
        goto fail;
    Py_DECREF(args);
    Py_DECREF(kwargs);
    Py_DECREF(stream_int);
    Py_DECREF(method);
    return 0;
fail:
    Py_XDECREF(capsule);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(stream_int);
    Py_XDECREF(method);
    return -1;
}

void device_array_release(device_array *array) {
    if (array->managed != NULL) {
        if (array->versioned) {
            DLManagedTensorVersioned *managed = array->managed;
            if (managed->deleter != NULL) managed->deleter(managed);
        } else {
            DLManagedTensor *managed = array->managed;
            if (managed->deleter != NULL) managed->deleter(managed);
        }
        array->managed = NULL;
    }
    Py_CLEAR(array->capsule);
    Py_CLEAR(array->descr);
}
