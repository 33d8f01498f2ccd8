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
 * common inputs, and Numba's device arrays are read from their own attributes instead of the
 * protocols (their sections below say what that saves and what is still left to the protocols). */
#include "interop.h"

#include <string.h>

#include "faults.h" /* last: it redefines the CUDA calls the host code makes */

/* ---- DLPack's ABI (dlpack.h, version 1.1), declared here rather than vendored -------------- */

typedef struct {
    uint32_t major, minor;
} DLPackVersion;

typedef struct {
    int32_t device_type; /* DLDeviceType, an int-sized enum */
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code, bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: C-contiguous */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3, DL_CUDA_MANAGED = 13 };
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6 };
#define DLPACK_MAJOR 1
#define DLPACK_FLAG_READ_ONLY (UINT64_C(1) << 0)

/* The most dimensions a protocol's array may have: NumPy's limit (NPY_MAXDIMS). Size-1 and mergeable
 * dimensions are then dropped, down to CURED_MAX_DIMS at most. */
#define MAX_PROTOCOL_DIMS 64

/* ---- names ------------------------------------------------------------------------------------ */

enum {
    NAME_CAI, NAME_DLPACK, NAME_DLPACK_DEVICE, /* attributes */
    NAME_VERSION, NAME_TYPESTR, NAME_SHAPE, NAME_STRIDES, NAME_DATA, NAME_MASK, NAME_STREAM, /* interface keys */
    NAME_TORCH, NAME_IS_CUDA, NAME_REQUIRES_GRAD, NAME_LAYOUT, NAME_DTYPE, NAME_GET_DEVICE, NAME_DATA_PTR, /* PyTorch */
    NAME_STRIDE,
    NAME_CUPY, NAME_C_CONTIGUOUS, NAME_SIZE, NAME_PTR, NAME_DEVICE_ID, NAME_CAI_EXPORT_VERSION, /* CuPy */
    NAME_JAX, NAME_IS_READY, /* JAX */
    NAME_NUMBA_ARRAYS, NAME_GPU_DATA, NAME_DEVICE_POINTER, NAME_DEVICE_CTYPES_POINTER, NAME_VALUE, /* Numba */
    NAMES
};
static PyObject *names[NAMES];

int device_array_init(void) {
    static const char *const text[NAMES] = {"__cuda_array_interface__", "__dlpack__", "__dlpack_device__", "version",
                                            "typestr", "shape", "strides", "data", "mask", "stream", "torch",
                                            "is_cuda", "requires_grad", "layout", "dtype", "get_device", "data_ptr",
                                            "stride", "cupy", "_c_contiguous", "size", "ptr", "device_id",
                                            "CUDA_ARRAY_INTERFACE_EXPORT_VERSION", "jax", "is_ready",
                                            "numba.cuda.cudadrv.devicearray", "gpu_data", "device_pointer",
                                            "device_ctypes_pointer", "value"};
    for (int k = 0; k < NAMES; ++k)
        if (names[k] == NULL && (names[k] = PyUnicode_InternFromString(text[k])) == NULL) return -1;
    return 0;
}

/* obj.<names[name]> into *value (a new reference): 1; 0 (*value NULL) when obj has no such
 * attribute, without raising AttributeError; -1 with an exception set when looking it up failed
 * otherwise. */
static int optional_attr(PyObject *obj, int name, PyObject **value) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, names[name], value);
#else
    return _PyObject_LookupAttr(obj, names[name], value);
#endif
}

/* obj.<names[name]>, a new reference, or NULL with an exception set. */
static PyObject *attr(PyObject *obj, int name) { return PyObject_GetAttr(obj, names[name]); }

/* obj.<names[name]>(), a new reference, or NULL with an exception set. */
static PyObject *method(PyObject *obj, int name) { return PyObject_CallMethodNoArgs(obj, names[name]); }

/* ---- layouts --------------------------------------------------------------------------------- */

/* Sets array->n and array->layout from a shape and byte strides (NULL: C-contiguous), dropping
 * dimensions of extent 1 and merging a dimension into the one outside it where the outer stride is
 * the inner extent times the inner stride. Returns 0, or -1 with ValueError set. */
static int set_layout(device_array *array, int ndim, const int64_t *shape, const int64_t *strides, int64_t item) {
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

/* Reads a tuple of ints into out[ndim]. Returns its length, or -1 with an exception set. */
static int int_tuple(PyObject *tuple, const char *what, int64_t *out, int max) {
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

static int read_cuda_array_interface(PyObject *iface, device_array *array) {
    PyObject *version, *typestr, *shape, *data, *strides, *mask, *stream;
    int64_t shape_v[MAX_PROTOCOL_DIMS], strides_v[MAX_PROTOCOL_DIMS];
    if (!PyDict_Check(iface)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: __cuda_array_interface__ must be a dict, not %.100s",
                     Py_TYPE(iface)->tp_name);
        return -1;
    }
    version = PyDict_GetItemWithError(iface, names[NAME_VERSION]);
    const int64_t v = dict_int("version", version);
    if (v < 0 && PyErr_Occurred()) return -1;
    if (v > 3) {
        PyErr_Format(PyExc_ValueError, "cured.sum: __cuda_array_interface__ version %lld is not supported (2 and 3 are)",
                     (long long)v);
        return -1;
    }
    mask = PyDict_GetItemWithError(iface, names[NAME_MASK]);
    if (mask != NULL && mask != Py_None) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: masked device arrays are not supported");
        return -1;
    }
    typestr = PyDict_GetItemWithError(iface, names[NAME_TYPESTR]);
    if (typestr == NULL || !PyUnicode_Check(typestr)) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__['typestr'] must be a str");
        return -1;
    }
    if ((array->descr = builtin_descr(typestr)) == NULL && !PyArray_DescrConverter(typestr, &array->descr)) return -1;
    if (!PyDataType_ISNOTSWAPPED(array->descr)) {
        PyErr_Format(PyExc_TypeError, "cured.sum: the device array's dtype %R is not in native byte order", typestr);
        return -1;
    }
    shape = PyDict_GetItemWithError(iface, names[NAME_SHAPE]);
    if (shape == NULL) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__ has no 'shape'");
        return -1;
    }
    const int ndim = int_tuple(shape, "__cuda_array_interface__['shape']", shape_v, MAX_PROTOCOL_DIMS);
    if (ndim < 0) return -1;
    strides = PyDict_GetItemWithError(iface, names[NAME_STRIDES]);
    const int has_strides = strides != NULL && strides != Py_None;
    if (has_strides) {
        const int nstrides = int_tuple(strides, "__cuda_array_interface__['strides']", strides_v, MAX_PROTOCOL_DIMS);
        if (nstrides < 0) return -1;
        if (nstrides != ndim) {
            PyErr_SetString(PyExc_ValueError, "cured.sum: __cuda_array_interface__ has as many strides as dimensions");
            return -1;
        }
    }
    data = PyDict_GetItemWithError(iface, names[NAME_DATA]);
    if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_SetString(PyExc_TypeError, "cured.sum: __cuda_array_interface__['data'] must be (pointer, read_only)");
        return -1;
    }
    array->data = (const char *)PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (array->data == NULL && PyErr_Occurred()) return -1;
    if ((array->read_only = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) < 0) return -1;
    if (set_layout(array, ndim, shape_v, has_strides ? strides_v : NULL, (int64_t)PyDataType_ELSIZE(array->descr)) < 0)
        return -1;
    if (array->data == NULL && array->n > 0) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: __cuda_array_interface__ has a null pointer for a non-empty array");
        return -1;
    }
    /* Version 3's stream: None (or absent): nothing to wait for; 1 and 2: the legacy and per-thread
     * default streams (cudaStreamLegacy, cudaStreamPerThread are those handles); 0 is disallowed. */
    stream = PyDict_GetItemWithError(iface, names[NAME_STREAM]);
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

/* NumPy's type number for a DLPack dtype, or -1 with TypeError set. */
static int npy_type_of_dl(DLDataType dtype) {
    if (dtype.lanes == 1) {
        const char kind = dtype.code == DL_INT ? 'i' : dtype.code == DL_UINT ? 'u' : dtype.code == DL_BOOL ? 'b'
                        : dtype.code == DL_FLOAT ? 'f' : 0;
        const int type = dtype.bits % 8 == 0 ? numpy_type(kind, dtype.bits / 8) : -1;
        if (type >= 0) return type;
        if (dtype.code == DL_COMPLEX && (dtype.bits == 64 || dtype.bits == 128))
            return dtype.bits == 64 ? NPY_CFLOAT : NPY_CDOUBLE; /* refused later, with the message for complex */
    }
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

/* ---- arrays read from their library's attributes ---------------------------------------------- */

/* An array its library describes (PyTorch's, CuPy's): on device `index`, its work queued on the
 * stream at `stream_address`, where 0, both libraries' name for their default stream, is the legacy
 * default stream (what a version 3 interface calls 1). */
static void set_known_place(device_array *array, long index, void *stream_address) {
    array->device = (int)index;
    array->device_known = 1;
    array->producer = stream_address != NULL ? (cudaStream_t)stream_address : cudaStreamLegacy;
}

/* *type, the type `name` of the module sys.modules[names[module]], once that is imported: 1; 0 while
 * it is not, or where it has no such type (*missing is then set and it is not looked for again); -1
 * with an exception set. */
static int library_type(int module, const char *name, PyObject **type, int *missing) {
    if (*type != NULL) return 1;
    if (*missing) return 0;
    PyObject *library = PyImport_GetModule(names[module]);
    if (library == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *found = PyObject_GetAttrString(library, name);
    Py_DECREF(library);
    if (found == NULL || !PyType_Check(found)) {
        Py_XDECREF(found);
        PyErr_Clear();
        *missing = 1;
        return 0;
    }
    *type = found; /* kept for the process's life, as the library's module is */
    return 1;
}

/* Whether dtype is a NumPy dtype in native byte order, what the readers of a library's own
 * attributes take (anything else is left to the protocols and their errors). */
static int native_descr(PyObject *dtype) {
    return PyArray_DescrCheck(dtype) && PyDataType_ISNOTSWAPPED((PyArray_Descr *)dtype);
}

/* ---- PyTorch tensors ------------------------------------------------------------------------ */

/* A CUDA tensor is read from its own attributes: PyTorch's DLPack export orders its work through
 * Python objects (streams, events) and cost about 16 us a call on an H200; its CUDA Array Interface
 * (version 2, no stream) builds a table of every dtype each call; building a version 3 interface
 * in Python cost 2.6 us on an H100 (2026-11-23). The sum runs on PyTorch's current stream of the
 * tensor's device, as a version 3 interface would name it. Tensors PyTorch refuses to export
 * (requiring grad, not strided) or whose dtype cured does not sum (bfloat16, complex) are left to
 * the protocols and their errors. */

static struct {
    PyObject *tensor;         /* torch.Tensor */
    PyObject *current_stream; /* torch._C._cuda_getCurrentRawStream(device) -> the stream's address */
    PyObject *strided;        /* torch.strided */
    PyObject *dtypes[12];     /* torch's dtypes cured sums ... */
    int types[12];            /* ... and NumPy's type numbers for them */
    int count;
} torch_api;

/* torch_api from PyTorch once it is imported: 1; 0 while it is not (or has no current-stream
 * function, where the tensor is read through the protocols); -1 with an exception set. */
static int torch_found(void) {
    static const char *const dtype_names[12] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                "uint32", "uint64", "float16", "float32", "float64"};
    static const int dtype_types[12] = {NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16,
                                        NPY_UINT32, NPY_UINT64, NPY_HALF, NPY_FLOAT, NPY_DOUBLE};
    static int missing = 0; /* PyTorch without the current-stream function: never look again */
    if (torch_api.tensor != NULL) return 1;
    if (missing) return 0;
    PyObject *torch = PyImport_GetModule(names[NAME_TORCH]);
    if (torch == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *c = PyObject_GetAttrString(torch, "_C");
    PyObject *current = c != NULL ? PyObject_GetAttrString(c, "_cuda_getCurrentRawStream") : NULL;
    Py_XDECREF(c);
    if (current == NULL) {
        Py_DECREF(torch);
        PyErr_Clear();
        missing = 1;
        return 0;
    }
    PyObject *tensor = PyObject_GetAttrString(torch, "Tensor"), *strided = PyObject_GetAttrString(torch, "strided");
    int count = 0;
    for (int k = 0; k < 12 && tensor != NULL && strided != NULL; ++k) {
        PyObject *dtype = PyObject_GetAttrString(torch, dtype_names[k]);
        if (dtype == NULL) { /* an older PyTorch, without the unsigned types */
            PyErr_Clear();
            continue;
        }
        torch_api.dtypes[count] = dtype; /* kept for the process's life, as PyTorch's module is */
        torch_api.types[count++] = dtype_types[k];
    }
    Py_DECREF(torch);
    if (tensor == NULL || strided == NULL) {
        Py_XDECREF(tensor);
        Py_XDECREF(strided);
        Py_DECREF(current);
        return -1;
    }
    torch_api.count = count;
    torch_api.current_stream = current;
    torch_api.strided = strided;
    torch_api.tensor = tensor;
    return 1;
}

/* Whether obj.<names[name]> is True: 1, 0, or -1 with an exception set. */
static int attr_true(PyObject *obj, int name) {
    PyObject *value = attr(obj, name);
    if (value == NULL) return -1;
    const int truth = value == Py_True;
    Py_DECREF(value);
    return truth;
}

/* A torch.Tensor into *array: 1; 0 when it is another object or a tensor read through the
 * protocols (see above); -1 with an exception set. */
static int read_torch(PyObject *obj, device_array *array) {
    const int found = torch_found();
    if (found <= 0) return found;
    if ((PyObject *)Py_TYPE(obj) != torch_api.tensor) return 0;
    const int is_cuda = attr_true(obj, NAME_IS_CUDA);
    const int requires_grad = is_cuda > 0 ? attr_true(obj, NAME_REQUIRES_GRAD) : 0;
    if (is_cuda < 0 || requires_grad < 0) return -1;
    if (!is_cuda || requires_grad) return 0;
    PyObject *layout = attr(obj, NAME_LAYOUT), *dtype = layout != NULL ? attr(obj, NAME_DTYPE) : NULL;
    if (dtype == NULL) {
        Py_XDECREF(layout);
        return -1;
    }
    int type = -1;
    for (int k = 0; k < torch_api.count && layout == torch_api.strided; ++k)
        if (dtype == torch_api.dtypes[k]) type = torch_api.types[k];
    Py_DECREF(layout);
    Py_DECREF(dtype);
    if (type < 0) return 0;

    int64_t shape[MAX_PROTOCOL_DIMS], strides[MAX_PROTOCOL_DIMS];
    int result = -1;
    PyObject *device = method(obj, NAME_GET_DEVICE), *stream = NULL, *data = NULL;
    PyObject *shape_obj = device != NULL ? attr(obj, NAME_SHAPE) : NULL;
    PyObject *strides_obj = shape_obj != NULL ? method(obj, NAME_STRIDE) : NULL;
    if (strides_obj == NULL || (data = method(obj, NAME_DATA_PTR)) == NULL ||
        (stream = PyObject_CallOneArg(torch_api.current_stream, device)) == NULL)
        goto done;
    const long index = PyLong_AsLong(device);
    const int ndim = int_tuple(shape_obj, "the tensor's shape", shape, MAX_PROTOCOL_DIMS);
    if ((index == -1 && PyErr_Occurred()) || ndim < 0 ||
        int_tuple(strides_obj, "the tensor's strides", strides, MAX_PROTOCOL_DIMS) != ndim)
        goto done;
    array->descr = PyArray_DescrFromType(type);
    const int64_t item = (int64_t)PyDataType_ELSIZE(array->descr);
    for (int d = 0; d < ndim; ++d) strides[d] *= item;
    if (set_layout(array, ndim, shape, strides, item) < 0) goto done;
    array->data = (const char *)PyLong_AsVoidPtr(data);
    void *const stream_address = PyLong_AsVoidPtr(stream);
    if (PyErr_Occurred()) goto done;
    set_known_place(array, index, stream_address);
    result = 1;
done:
    Py_XDECREF(device);
    Py_XDECREF(stream);
    Py_XDECREF(data);
    Py_XDECREF(shape_obj);
    Py_XDECREF(strides_obj);
    return result;
}

/* ---- CuPy arrays ---------------------------------------------------------------------------- */

/* A C-contiguous cupy.ndarray is read from the attributes CuPy builds its CUDA Array Interface from
 * (cupy/_core/core.pyx): `_c_contiguous`, `size`, `dtype`, `data.ptr`, `data.device_id`, and the
 * stream the interface names, CuPy's current stream. The interface is a new dict each call, with the
 * dtype's descr list (1.3 us of a 12 us call on an H100, 2026-11-23), and its pointer then costs a
 * CUDA query for the device, which CuPy's memory pointer already knows. The stream is the current
 * one of the array's device (the interface names the current device's, which is another device's
 * stream when the two differ). Other layouts, subclasses and a CuPy told to export interface version
 * 2 (without a stream; CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION) are read through the protocols. */

static struct {
    PyObject *ndarray;        /* cupy.ndarray */
    PyObject *current_stream; /* cupy.cuda.get_current_stream(device_id) -> a Stream, whose .ptr is its address */
    PyObject *util;           /* cupy._util, whose CUDA_ARRAY_INTERFACE_EXPORT_VERSION says which interface CuPy gives */
} cupy_api;

/* cupy_api from CuPy once it is imported: 1; 0 while it is not (or lacks an attribute the reader
 * needs, where arrays are read through the protocols); -1 with an exception set. */
static int cupy_found(void) {
    static const char *const array_attributes[] = {"_c_contiguous", "size", "dtype", "data"};
    static int missing = 0; /* a CuPy without what the reader needs: never look again */
    if (cupy_api.ndarray != NULL) return 1;
    if (missing) return 0;
    PyObject *cupy = PyImport_GetModule(names[NAME_CUPY]);
    if (cupy == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *ndarray = PyObject_GetAttrString(cupy, "ndarray"), *util = PyObject_GetAttrString(cupy, "_util");
    PyObject *cuda = PyObject_GetAttrString(cupy, "cuda");
    PyObject *current = cuda != NULL ? PyObject_GetAttrString(cuda, "get_current_stream") : NULL;
    Py_XDECREF(cuda);
    Py_DECREF(cupy);
    int usable = ndarray != NULL && util != NULL && current != NULL && PyType_Check(ndarray) &&
                 PyObject_HasAttr(util, names[NAME_CAI_EXPORT_VERSION]);
    for (size_t k = 0; usable && k < sizeof array_attributes / sizeof *array_attributes; ++k)
        usable = PyObject_HasAttrString(ndarray, array_attributes[k]);
    PyErr_Clear();
    if (!usable) {
        Py_XDECREF(ndarray);
        Py_XDECREF(util);
        Py_XDECREF(current);
        missing = 1;
        return 0;
    }
    cupy_api.util = util; /* kept for the process's life, as CuPy's modules are */
    cupy_api.current_stream = current;
    cupy_api.ndarray = ndarray;
    return 1;
}

/* A cupy.ndarray into *array: 1; 0 when it is another object or an array read through the
 * protocols (see above); -1 with an exception set. */
static int read_cupy(PyObject *obj, device_array *array) {
    const int found = cupy_found();
    if (found <= 0) return found;
    if ((PyObject *)Py_TYPE(obj) != cupy_api.ndarray) return 0;
    PyObject *version = attr(cupy_api.util, NAME_CAI_EXPORT_VERSION);
    if (version == NULL) return -1;
    const long exported = PyLong_AsLong(version);
    Py_DECREF(version);
    if (exported == -1 && PyErr_Occurred()) return -1;
    const int contiguous = exported == 3 ? attr_true(obj, NAME_C_CONTIGUOUS) : 0;
    if (contiguous <= 0) return contiguous;

    int result = -1;
    PyObject *size = NULL, *data = NULL, *ptr = NULL, *device = NULL, *stream = NULL, *stream_ptr = NULL;
    PyObject *dtype = attr(obj, NAME_DTYPE);
    if (dtype == NULL) return -1;
    if (!native_descr(dtype)) {
        result = 0; /* not CuPy's own: the protocols say what it is */
        goto done;
    }
    if ((size = attr(obj, NAME_SIZE)) == NULL || (data = attr(obj, NAME_DATA)) == NULL ||
        (ptr = attr(data, NAME_PTR)) == NULL || (device = attr(data, NAME_DEVICE_ID)) == NULL ||
        (stream = PyObject_CallOneArg(cupy_api.current_stream, device)) == NULL ||
        (stream_ptr = attr(stream, NAME_PTR)) == NULL)
        goto done;
    const int64_t n = (int64_t)PyLong_AsLongLong(size);
    const long index = PyLong_AsLong(device);
    const char *const address = (const char *)PyLong_AsVoidPtr(ptr);
    void *const stream_address = PyLong_AsVoidPtr(stream_ptr);
    if (PyErr_Occurred()) goto done;
    array->descr = (PyArray_Descr *)dtype;
    dtype = NULL;
    if (set_layout(array, 1, &n, NULL, (int64_t)PyDataType_ELSIZE(array->descr)) < 0) goto done;
    array->data = address;
    set_known_place(array, index, stream_address);
    result = 1;
done:
    Py_XDECREF(dtype);
    Py_XDECREF(size);
    Py_XDECREF(data);
    Py_XDECREF(ptr);
    Py_XDECREF(device);
    Py_XDECREF(stream);
    Py_XDECREF(stream_ptr);
    return result;
}

/* ---- Numba device arrays ---------------------------------------------------------------------- */

/* A numba.cuda DeviceNDArray's interface is a Python property that tests the strides for contiguity
 * and builds a dict each call: a call on a Numba array cost 3.5 to 6.8 us more than one on an object
 * holding a ready-made interface (2026-11-23 14:39 / 14:44 records, 2^10). The attributes it is built
 * from (numba_cuda/numba/cuda/cudadrv/devicearray.py) are read instead: `shape`, `strides` and
 * `dtype`, plain attributes; `stream`, 0 (Numba's default, for which the interface names no stream)
 * or a Stream whose int() is its handle (1 and 2 the legacy and per-thread default streams, as the
 * interface numbers them); and the address, `gpu_data.device_pointer`: with NVIDIA's CUDA Python
 * bindings (what Numba 0.68 runs on the lent GPUs) a CUdeviceptr whose int() it is, 131 ns from Python on an
 * H100 where `gpu_data.device_ctypes_pointer.value`, a ctypes object made each call, cost 524
 * (2026-11-24, numba 0.68, scripts/probes/reader_costs.py); with Numba's own ctypes driver a
 * c_void_p, which has no int(), and then `device_ctypes_pointer.value` (None when empty). The device
 * is found from the pointer, as for an interface. Subclasses (mapped and managed arrays) and arrays
 * whose attributes are not these go through the protocols. */

static PyObject *numba_array; /* numba.cuda.cudadrv.devicearray.DeviceNDArray */

/* A numba.cuda DeviceNDArray into *array: 1; 0 when it is another object or an array left to the
 * protocols (see above); -1 with an exception set. */
static int read_numba(PyObject *obj, device_array *array) {
    static int missing = 0;
    const int found = library_type(NAME_NUMBA_ARRAYS, "DeviceNDArray", &numba_array, &missing);
    if (found <= 0) return found;
    if ((PyObject *)Py_TYPE(obj) != numba_array) return 0;
    int64_t shape[MAX_PROTOCOL_DIMS], strides[MAX_PROTOCOL_DIMS];
    int result = -1;
    PyObject *shape_obj = NULL, *strides_obj = NULL, *stream = NULL, *gpu_data = NULL, *pointer = NULL, *value = NULL;
    PyObject *dtype = attr(obj, NAME_DTYPE);
    if (dtype == NULL) return -1;
    if (!native_descr(dtype)) {
        result = 0; /* the protocols say what it is */
        goto done;
    }
    if ((shape_obj = attr(obj, NAME_SHAPE)) == NULL || (strides_obj = attr(obj, NAME_STRIDES)) == NULL ||
        (stream = attr(obj, NAME_STREAM)) == NULL || (gpu_data = attr(obj, NAME_GPU_DATA)) == NULL)
        goto done;
    if (gpu_data == Py_None || !PyTuple_Check(shape_obj) || !PyTuple_Check(strides_obj)) {
        result = 0;
        goto done;
    }
    /* The address: int(gpu_data.device_pointer), else gpu_data.device_ctypes_pointer.value (above). */
    const int has_pointer = optional_attr(gpu_data, NAME_DEVICE_POINTER, &pointer);
    if (has_pointer < 0) goto done;
    if (has_pointer > 0 && (value = PyNumber_Long(pointer)) == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) goto done;
        PyErr_Clear(); /* a ctypes pointer, which has no int() */
    }
    if (value == NULL) {
        Py_XDECREF(pointer);
        if ((pointer = attr(gpu_data, NAME_DEVICE_CTYPES_POINTER)) == NULL || (value = attr(pointer, NAME_VALUE)) == NULL)
            goto done;
    }
    const int ndim = int_tuple(shape_obj, "the Numba array's shape", shape, MAX_PROTOCOL_DIMS);
    if (ndim < 0 || int_tuple(strides_obj, "the Numba array's strides", strides, MAX_PROTOCOL_DIMS) != ndim) goto done;
    void *const address = value == Py_None ? NULL : PyLong_AsVoidPtr(value);
    PyObject *handle = PyLong_Check(stream) ? Py_NewRef(stream) : PyNumber_Long(stream);
    void *const stream_address = handle != NULL ? PyLong_AsVoidPtr(handle) : NULL;
    Py_XDECREF(handle);
    if (PyErr_Occurred()) goto done;
    array->descr = (PyArray_Descr *)dtype;
    dtype = NULL;
    if (set_layout(array, ndim, shape, strides, (int64_t)PyDataType_ELSIZE(array->descr)) < 0) goto done;
    if (address == NULL && array->n > 0) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: the Numba array has no device memory but is not empty");
        goto done;
    }
    array->data = (const char *)address;
    array->producer = (cudaStream_t)stream_address; /* NULL: Numba's default stream, nothing named */
    result = 1;
done:
    Py_XDECREF(dtype);
    Py_XDECREF(shape_obj);
    Py_XDECREF(strides_obj);
    Py_XDECREF(stream);
    Py_XDECREF(gpu_data);
    Py_XDECREF(pointer);
    Py_XDECREF(value);
    return result;
}

/* ---- JAX arrays ------------------------------------------------------------------------------ */

/* A jax.Array on a GPU offers a CUDA Array Interface of version 2 (no stream: jaxlib's py_array.cc
 * builds it from the buffer and orders nothing) and DLPack, whose export orders JAX's pending work
 * before the consumer's stream but cost 6 to 13 us more a call than a CuPy array (2026-11-23, both
 * GPUs: Python-level checks in jax's to_dlpack, then the capsule). A JAX array never changes once the
 * computation that makes it has finished, and its `is_ready()` (jaxlib, C++) says whether it has: a
 * ready array is read through its interface, with nothing to wait for; one still being computed goes
 * through DLPack, which orders it. The interface refuses (AttributeError) arrays that are sharded,
 * not on a CUDA device, or not laid out in C order; those go through DLPack too. The array is JAX's
 * own (a subtype of jax.Array, which tracers are not), not anything with an is_ready method. */

static PyObject *jax_array; /* jax.Array, the base type of JAX's arrays (where it is not a type, as in
                            * older JAX, they go through DLPack) */

/* Whether obj is a JAX array whose computation has finished: 1, 0, or -1 with an exception set. */
static int jax_array_ready(PyObject *obj) {
    static int missing = 0;
    const int found = library_type(NAME_JAX, "Array", &jax_array, &missing);
    if (found <= 0) return found;
    if (!PyType_IsSubtype(Py_TYPE(obj), (PyTypeObject *)jax_array)) return 0;
    PyObject *ready = method(obj, NAME_IS_READY);
    if (ready == NULL) return -1;
    const int is_ready = ready == Py_True;
    Py_DECREF(ready);
    return is_ready;
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
    if (read != 0) return read;
    /* A CUDA Array Interface 3 names the stream the producer's work is on, so the sum runs there and
     * is ordered before the caller's next work on it, which DLPack cannot say: it comes first. An
     * older interface is read where the object has no DLPack. */
    const int has_iface = optional_attr(obj, NAME_CAI, &iface);
    if (has_iface < 0) {
        /* An object that refuses its interface (PyTorch, for a tensor that requires grad) but
         * speaks DLPack is asked through DLPack, whose refusal then passes through. */
#if PY_VERSION_HEX >= 0x030C0000
        PyObject *refusal = PyErr_GetRaisedException();
        const int has_dlpack = has_dlpack_methods(obj);
        if (has_dlpack == 0) PyErr_SetRaisedException(refusal);
        else Py_XDECREF(refusal);
#else
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        const int has_dlpack = has_dlpack_methods(obj);
        if (has_dlpack == 0) PyErr_Restore(type, value, traceback);
        else {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(traceback);
        }
#endif
        return has_dlpack > 0 ? find_dlpack(obj, array) : -1;
    }
    int read_iface = 0;
    if (has_iface > 0 && PyDict_Check(iface)) {
        PyObject *version = PyDict_GetItemWithError(iface, names[NAME_VERSION]);
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
    PyObject *method = PyObject_GetAttr(obj, names[NAME_DLPACK]);
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
    const int64_t item = (int64_t)PyDataType_ELSIZE(array->descr);
    if (tensor->ndim < 0 || tensor->ndim > MAX_PROTOCOL_DIMS) {
        PyErr_Format(PyExc_ValueError, "cured.sum: the DLPack array has %d dimensions; at most %d are supported",
                     tensor->ndim, MAX_PROTOCOL_DIMS);
        goto fail;
    }
    int64_t strides[MAX_PROTOCOL_DIMS];
    for (int d = 0; d < tensor->ndim && tensor->strides != NULL; ++d) strides[d] = tensor->strides[d] * item;
    array->data = (const char *)tensor->data + tensor->byte_offset;
    if (set_layout(array, tensor->ndim, tensor->shape, tensor->strides != NULL ? strides : NULL, item) < 0) goto fail;
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
