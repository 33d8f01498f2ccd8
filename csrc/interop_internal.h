/* interop_internal.h: what interop.c (the protocols, and finding, locating and importing a device
 * array) shares with interop_libraries.c (PyTorch's tensors, CuPy's arrays, Numba's device arrays
 * and JAX's arrays, read from their own attributes): the interned names, attribute lookups that
 * use them, and the readers. Not for the rest of the extension: interop.h is. */
#ifndef CURED_INTEROP_INTERNAL_H
#define CURED_INTEROP_INTERNAL_H

#include "interop.h"

/* DLPack's ABI (dlpack.h, version 1.3), declared here rather than vendored: the tensors that
 * `__dlpack__` capsules hold (interop.c), and the C exchange API (below). */

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

/* DLPack 1.3's C exchange API: a type's `__dlpack_c_exchange_api__`, a capsule named
 * "dlpack_exchange_api" holding the library's functions that describe one of its arrays in C
 * (dltensor_from_py_object_no_sync: no capsule, no copy of the shape, nothing ordered) and name its
 * current stream of a device. PyTorch has it from 2.10 (interop_libraries.c). Only the two functions
 * cured calls are typed. */
typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;
    struct DLPackExchangeAPIHeader *prev_api;
} DLPackExchangeAPIHeader;

typedef struct {
    DLPackExchangeAPIHeader header;
    void *managed_tensor_allocator, *managed_tensor_from_py_object_no_sync, *managed_tensor_to_py_object_no_sync;
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(int32_t device_type, int32_t device_id, void **out_current_stream);
} DLPackExchangeAPI;

/* NumPy's type number for a DLPack dtype cured sums (bool, integers, float16 to float64), or -1
 * (no exception set) for any other. */
int interop_type_of_dl(DLDataType dtype);

/* The most dimensions a protocol's array may have: NumPy's limit (NPY_MAXDIMS). Size-1 and mergeable
 * dimensions are then dropped, down to CURED_MAX_DIMS at most. */
#define MAX_PROTOCOL_DIMS 64

/* The names the protocols and the libraries' readers look up, interned once (device_array_init). */
enum {
    NAME_CAI, NAME_DLPACK, NAME_DLPACK_DEVICE, /* attributes */
    NAME_VERSION, NAME_TYPESTR, NAME_SHAPE, NAME_STRIDES, NAME_DATA, NAME_MASK, NAME_STREAM, /* interface keys */
    NAME_TORCH, NAME_IS_CUDA, NAME_REQUIRES_GRAD, NAME_LAYOUT, NAME_DTYPE, NAME_GET_DEVICE, NAME_DATA_PTR, /* PyTorch */
    NAME_STRIDE, NAME_IS_NEG, NAME_IS_NESTED,
    NAME_CUPY, NAME_C_CONTIGUOUS, NAME_SIZE, NAME_PTR, NAME_DEVICE_ID, NAME_CAI_EXPORT_VERSION, /* CuPy */
    NAME_JAX, NAME_IS_READY, NAME_IS_DELETED, /* JAX */
    NAME_NUMBA_ARRAYS, NAME_GPU_DATA, NAME_DEVICE_POINTER, NAME_DEVICE_CTYPES_POINTER, NAME_VALUE, /* Numba */
    NAMES
};
extern PyObject *interop_names[NAMES];

/* obj.<interop_names[name]> into *value (a new reference): 1; 0 (*value NULL) when obj has no such
 * attribute, without raising AttributeError; -1 with an exception set when looking it up failed
 * otherwise. */
static inline int optional_attr(PyObject *obj, int name, PyObject **value) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, interop_names[name], value);
#else
    return _PyObject_LookupAttr(obj, interop_names[name], value);
#endif
}

/* obj.<interop_names[name]>, a new reference, or NULL with an exception set. */
static inline PyObject *attr(PyObject *obj, int name) { return PyObject_GetAttr(obj, interop_names[name]); }

/* obj.<interop_names[name]>(), a new reference, or NULL with an exception set. */
static inline PyObject *method(PyObject *obj, int name) { return PyObject_CallMethodNoArgs(obj, interop_names[name]); }

/* Reads a tuple of ints into out[ndim]. Returns its length, or -1 with an exception set. */
int interop_int_tuple(PyObject *tuple, const char *what, int64_t *out, int max);

/* Sets array->n and array->layout from a shape and byte strides (NULL: C-contiguous), dropping
 * dimensions of extent 1 and merging a dimension into the one outside it where the outer stride is
 * the inner extent times the inner stride. Returns 0, or -1 with ValueError set. */
int interop_set_layout(device_array *array, int ndim, const int64_t *shape, const int64_t *strides, int64_t item);

/* interop_set_layout for a DLTensor (strides in elements, NULL: C-contiguous) whose dtype is
 * already in array->descr; what names it in the error for too many dimensions. */
int interop_set_dl_layout(device_array *array, const DLTensor *tensor, const char *what);

/* A PyTorch tensor, a CuPy array or a Numba device array into *array from its library's own
 * attributes: 1; 0 when obj is another object or one left to the protocols; -1 with an exception
 * set. */
int read_torch(PyObject *obj, device_array *array);
int read_cupy(PyObject *obj, device_array *array);
int read_numba(PyObject *obj, device_array *array);

/* Whether obj is a JAX array whose computation has finished: 1, 0, or -1 with an exception set. */
int jax_array_ready(PyObject *obj);

#endif
