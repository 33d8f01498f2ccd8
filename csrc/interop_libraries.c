/* interop_libraries.c: the device arrays of PyTorch, CuPy, Numba and JAX read from their own
 * attributes, where the protocols (interop.c) cost more a call; each section says what that saves
 * and what is still left to the protocols. */
#include "interop_internal.h"

/* ---- what the readers share ------------------------------------------------------------------- */

/* An array its library describes (PyTorch's, CuPy's): on device `index`, its work queued on the
 * stream at `stream_address`, where 0, both libraries' name for their default stream, is the legacy
 * default stream (what a version 3 interface calls 1). */
static void set_known_place(device_array *array, long index, void *stream_address) {
    array->device = (int)index;
    array->device_known = 1;
    array->producer = stream_address != NULL ? (cudaStream_t)stream_address : cudaStreamLegacy;
}

/* *type, the type `name` of the module sys.modules[interop_names[module]], once that is imported:
 * 1; 0 while it is not, or where it has no such type (*missing is then set and it is not looked for
 * again); -1 with an exception set. */
static int library_type(int module, const char *name, PyObject **type, int *missing) {
    if (*type != NULL) return 1;
    if (*missing) return 0;
    PyObject *library = PyImport_GetModule(interop_names[module]);
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
 * the protocols and their errors.
 *
 * From PyTorch 2.10 the tensor's dtype, device, shape and strides come from its DLPack C exchange
 * API (interop_internal.h) in one C call, and its stream from another, where they cost four
 * attribute and method reads and a Python call, 65 to 131 ns each in Python on an H200 (2026-11-28,
 * `scripts/probes/torch_exchange.py`). That function trusts its tensor: it crashed the process on a
 * meta, a sparse and a nested tensor, and on one inside torch.func.vmap (which has no storage), so
 * it is called only for a strided CUDA tensor that is not nested and whose data_ptr() answered
 * (data_ptr() raises where there is no storage).
 *
 * Whatever the device, a tensor (subclasses too) whose negative bit is set, as x.conj().imag of a
 * complex x, is refused: its memory holds the negatives of its values, and that memory is what the
 * protocols give (CuPy summed one to -21.77 through them where torch.sum said 21.77, the same
 * probe); so is a nested tensor, which has no one shape. */

static struct {
    PyObject *tensor;                   /* torch.Tensor */
    PyObject *current_stream;           /* torch._C._cuda_getCurrentRawStream(device) -> the stream's address */
    PyObject *strided;                  /* torch.strided */
    PyObject *exchange_capsule;         /* torch.Tensor.__dlpack_c_exchange_api__, or NULL ... */
    const DLPackExchangeAPI *exchange;  /* ... and the functions it holds */
    PyObject *dtypes[12];               /* torch's dtypes cured sums ... */
    int types[12];                      /* ... and NumPy's type numbers for them */
    int count;
} torch_api;

/* Tests: whether tensors may be read through the exchange API, and how many were. */
static int exchange_allowed = 1;
static long long exchange_reads = 0;

void interop_set_test_torch_exchange(int allowed) { exchange_allowed = allowed; }
long long interop_torch_exchange_reads(void) { return exchange_reads; }

/* torch.Tensor's DLPack exchange API, where it has one of version 1.3 or later (the layout typed in
 * interop_internal.h): kept in torch_api; otherwise tensors are read from their attributes. */
static void find_torch_exchange(PyObject *tensor) {
    static const char *const name = "dlpack_exchange_api";
    PyObject *capsule = PyObject_GetAttrString(tensor, "__dlpack_c_exchange_api__");
    const int valid = capsule != NULL && PyCapsule_IsValid(capsule, name);
    const DLPackExchangeAPI *api = valid ? PyCapsule_GetPointer(capsule, name) : NULL;
    PyErr_Clear(); /* an older PyTorch: no attribute */
    if (api != NULL && api->header.version.major == 1 && api->header.version.minor >= 3 &&
        api->dltensor_from_py_object_no_sync != NULL && api->current_work_stream != NULL) {
        torch_api.exchange_capsule = capsule; /* kept for the process's life, as PyTorch's module is */
        torch_api.exchange = api;
        return;
    }
    Py_XDECREF(capsule);
}

/* torch_api from PyTorch once it is imported: 1; 0 while it is not (or has no current-stream
 * function, where the tensor is read through the protocols); -1 with an exception set. */
static int torch_found(void) {
    static const char *const dtype_interop_names[12] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                "uint32", "uint64", "float16", "float32", "float64"};
    static const int dtype_types[12] = {NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16,
                                        NPY_UINT32, NPY_UINT64, NPY_HALF, NPY_FLOAT, NPY_DOUBLE};
    static int missing = 0; /* PyTorch without the current-stream function: never look again */
    if (torch_api.tensor != NULL) return 1;
    if (missing) return 0;
    PyObject *torch = PyImport_GetModule(interop_names[NAME_TORCH]);
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
        PyObject *dtype = PyObject_GetAttrString(torch, dtype_interop_names[k]);
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
    find_torch_exchange(tensor);
    return 1;
}

/* Whether obj.<interop_names[name]> is True: 1, 0, or -1 with an exception set. */
static int attr_true(PyObject *obj, int name) {
    PyObject *value = attr(obj, name);
    if (value == NULL) return -1;
    const int truth = value == Py_True;
    Py_DECREF(value);
    return truth;
}

/* Refuses a tensor whose values cannot be read from its memory as they are (see above): -1 with
 * an exception set; 0 for any other. */
static int refuse_unreadable_tensor(PyObject *obj) {
    PyObject *negative = method(obj, NAME_IS_NEG);
    if (negative == NULL) return -1;
    const int is_negative = negative == Py_True;
    Py_DECREF(negative);
    if (is_negative) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: the tensor's negative bit is set (a lazily negated view, as "
                                          "x.conj().imag is): its memory holds the negatives of its values; sum "
                                          "its .resolve_neg()");
        return -1;
    }
    const int nested = attr_true(obj, NAME_IS_NESTED);
    if (nested > 0)
        PyErr_SetString(PyExc_TypeError, "cured.sum: a nested tensor has no one shape to sum over; sum its "
                                         ".values() or each of its tensors");
    return nested != 0 ? -1 : 0;
}

/* A strided CUDA tensor through PyTorch's exchange API (see above): 1; 0 for a dtype cured does not
 * sum (left to the protocols); -1 with an exception set. */
static int read_torch_exchange(PyObject *obj, device_array *array) {
    PyObject *data = method(obj, NAME_DATA_PTR); /* first: it raises where there is no storage */
    if (data == NULL) return -1;
    const char *address = PyLong_AsVoidPtr(data);
    Py_DECREF(data);
    if (address == NULL && PyErr_Occurred()) return -1;
    DLTensor tensor;
    void *stream;
    if (torch_api.exchange->dltensor_from_py_object_no_sync(obj, &tensor) < 0) return -1;
    const int type = interop_type_of_dl(tensor.dtype);
    if (type < 0) return 0;
    if (tensor.device.device_type != DL_CUDA) {
        PyErr_Format(PyExc_ValueError, "cured.sum: PyTorch described a CUDA tensor as on DLPack device type %d",
                     (int)tensor.device.device_type);
        return -1;
    }
    if (torch_api.exchange->current_work_stream(DL_CUDA, tensor.device.device_id, &stream) < 0) return -1;
    array->descr = PyArray_DescrFromType(type);
    if (interop_set_dl_layout(array, &tensor, "tensor") < 0) return -1;
    array->data = address;
    set_known_place(array, tensor.device.device_id, stream);
    ++exchange_reads;
    return 1;
}

/* A strided CUDA tensor from its attributes, for a PyTorch without the exchange API: 1; 0 for a
 * dtype cured does not sum; -1 with an exception set. */
static int read_torch_attributes(PyObject *obj, device_array *array) {
    PyObject *dtype = attr(obj, NAME_DTYPE);
    if (dtype == NULL) return -1;
    int type = -1;
    for (int k = 0; k < torch_api.count; ++k)
        if (dtype == torch_api.dtypes[k]) type = torch_api.types[k];
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
    const int ndim = interop_int_tuple(shape_obj, "the tensor's shape", shape, MAX_PROTOCOL_DIMS);
    if ((index == -1 && PyErr_Occurred()) || ndim < 0 ||
        interop_int_tuple(strides_obj, "the tensor's strides", strides, MAX_PROTOCOL_DIMS) != ndim)
        goto done;
    array->descr = PyArray_DescrFromType(type);
    const int64_t item = (int64_t)PyDataType_ELSIZE(array->descr);
    for (int d = 0; d < ndim; ++d) strides[d] *= item;
    if (interop_set_layout(array, ndim, shape, strides, item) < 0) goto done;
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

/* A torch.Tensor into *array: 1; 0 when it is another object or a tensor read through the
 * protocols (see above); -1 with an exception set. */
int read_torch(PyObject *obj, device_array *array) {
    const int found = torch_found();
    if (found <= 0) return found;
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)torch_api.tensor)) return 0;
    if (refuse_unreadable_tensor(obj) < 0) return -1;
    if ((PyObject *)Py_TYPE(obj) != torch_api.tensor) return 0;
    const int is_cuda = attr_true(obj, NAME_IS_CUDA);
    const int requires_grad = is_cuda > 0 ? attr_true(obj, NAME_REQUIRES_GRAD) : 0;
    if (is_cuda < 0 || requires_grad < 0) return -1;
    if (!is_cuda || requires_grad) return 0;
    PyObject *layout = attr(obj, NAME_LAYOUT);
    if (layout == NULL) return -1;
    const int strided = layout == torch_api.strided;
    Py_DECREF(layout);
    if (!strided) return 0;
    return torch_api.exchange != NULL && exchange_allowed ? read_torch_exchange(obj, array)
                                                          : read_torch_attributes(obj, array);
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
    PyObject *cupy = PyImport_GetModule(interop_names[NAME_CUPY]);
    if (cupy == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *ndarray = PyObject_GetAttrString(cupy, "ndarray"), *util = PyObject_GetAttrString(cupy, "_util");
    PyObject *cuda = PyObject_GetAttrString(cupy, "cuda");
    PyObject *current = cuda != NULL ? PyObject_GetAttrString(cuda, "get_current_stream") : NULL;
    Py_XDECREF(cuda);
    Py_DECREF(cupy);
    int usable = ndarray != NULL && util != NULL && current != NULL && PyType_Check(ndarray) &&
                 PyObject_HasAttr(util, interop_names[NAME_CAI_EXPORT_VERSION]);
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
int read_cupy(PyObject *obj, device_array *array) {
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
    if (interop_set_layout(array, 1, &n, NULL, (int64_t)PyDataType_ELSIZE(array->descr)) < 0) goto done;
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
int read_numba(PyObject *obj, device_array *array) {
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
    const int ndim = interop_int_tuple(shape_obj, "the Numba array's shape", shape, MAX_PROTOCOL_DIMS);
    if (ndim < 0 || interop_int_tuple(strides_obj, "the Numba array's strides", strides, MAX_PROTOCOL_DIMS) != ndim)
        goto done;
    void *const address = value == Py_None ? NULL : PyLong_AsVoidPtr(value);
    PyObject *handle = PyLong_Check(stream) ? Py_NewRef(stream) : PyNumber_Long(stream);
    void *const stream_address = handle != NULL ? PyLong_AsVoidPtr(handle) : NULL;
    Py_XDECREF(handle);
    if (PyErr_Occurred()) goto done;
    array->descr = (PyArray_Descr *)dtype;
    dtype = NULL;
    if (interop_set_layout(array, ndim, shape, strides, (int64_t)PyDataType_ELSIZE(array->descr)) < 0) goto done;
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

/* Whether obj is a JAX array: 1, 0, or -1 with an exception set. */
static int is_jax_array(PyObject *obj) {
    static int missing = 0;
    const int found = library_type(NAME_JAX, "Array", &jax_array, &missing);
    return found <= 0 ? found : PyType_IsSubtype(Py_TYPE(obj), (PyTypeObject *)jax_array);
}

/* obj.<interop_names[name]>() is True, for a JAX array: 1, 0, or -1 with an exception set. */
static int jax_says(PyObject *obj, int name) {
    const int is_jax = is_jax_array(obj);
    if (is_jax <= 0) return is_jax;
    PyObject *answer = method(obj, name);
    if (answer == NULL) return -1;
    const int yes = answer == Py_True;
    Py_DECREF(answer);
    return yes;
}

int jax_array_ready(PyObject *obj) { return jax_says(obj, NAME_IS_READY); }

/* A deleted JAX array has neither an interface (jaxlib refuses it as it refuses a sharded one) nor
 * a DLPack export (jax 0.11's raises TypeError: "object of type 'NoneType' has no len()"); neither
 * says why, so the caller is told here. */
int refuse_deleted_jax_array(PyObject *obj) {
    const int deleted = jax_says(obj, NAME_IS_DELETED);
    if (deleted > 0)
        PyErr_SetString(PyExc_ValueError, "cured.sum: the JAX array has been deleted (or donated to a computation): "
                                          "there is nothing left to sum");
    return deleted != 0 ? -1 : 0;
}

int refuse_unreadable_array(PyObject *obj) {
    const int found = torch_found();
    if (found < 0) return -1;
    if (found > 0 && PyObject_TypeCheck(obj, (PyTypeObject *)torch_api.tensor) && refuse_unreadable_tensor(obj) < 0)
        return -1;
    return refuse_deleted_jax_array(obj);
}
