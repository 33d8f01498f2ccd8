/* interop.h: device arrays from other libraries, through the CUDA Array Interface (versions 2 and 3:
 * CuPy, Numba, PyTorch, and JAX's arrays once computed) and DLPack (`__dlpack__`/`__dlpack_device__`:
 * JAX, CuPy, PyTorch), and PyTorch's tensors, CuPy's arrays and Numba's device arrays from their own
 * attributes. */
#ifndef CURED_INTEROP_H
#define CURED_INTEROP_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL cured_ARRAY_API
#ifndef CURED_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "cured.h"

/* The exception being raised, taken out (NULL where none is), and put back (NULL: nothing to put):
 * 3.12's PyErr_GetRaisedException and PyErr_SetRaisedException, written out for 3.11. */
static inline PyObject *take_raised_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyErr_GetRaisedException();
#else
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (type == NULL) return NULL;
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL) PyException_SetTraceback(value, traceback);
    Py_DECREF(type);
    Py_XDECREF(traceback);
    return value;
#endif
}

static inline void set_raised_exception(PyObject *exception) {
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exception);
#else
    if (exception != NULL)
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exception)), exception, PyException_GetTraceback(exception));
#endif
}

/* A device array, once found and imported. */
typedef struct {
    int is_dlpack;
    int device;               /* the CUDA device that holds it */
    const char *data;         /* the address of element (0, 0, ...) */
    PyArray_Descr *descr;     /* its dtype, as NumPy's (owned) */
    int64_t n;                /* elements */
    cured_layout layout;      /* shape and byte strides, size-1 dimensions dropped, mergeable ones merged */
    cudaStream_t producer;    /* CAI v3: the stream whose work must come first; NULL: none */
    PyObject *capsule;        /* DLPack: the capsule, renamed used_ (owned) */
    void *managed;            /* DLPack: the tensor we consumed, deleted by device_array_release */
    int versioned;            /* DLPack: managed is a DLManagedTensorVersioned */
    int host_dlpack;          /* not a device array, but a DLPack one in host memory */
    int read_only;            /* CAI's data[1], or DLPack 1.x's read-only flag: not for out= */
    int device_known;         /* a PyTorch tensor or CuPy array, read from its attributes: `device` is its device */
} device_array;

/* Interns the names the protocols (and PyTorch's tensors) use; once, from the module's initialisation. Returns 0, or -1
 * with an exception set. */
int device_array_init(void);

/* Whether `obj` is a device array: 1 (a CUDA Array Interface is read in full, but for the device;
 * for DLPack, array->device says where it is), 0 (not one: a host array or array-like, DLPack ones
 * in host memory included), or -1 with an exception set (a device array cured cannot take, or a
 * malformed interface). Makes no CUDA call. */
int device_array_find(PyObject *obj, device_array *array);

/* CUDA Array Interface: finds the device that holds the memory. Returns cudaSuccess; or the failed
 * CUDA query's error, with no exception set (no device, no driver); or cudaErrorInvalidValue with
 * ValueError set (memory no device can read). */
cudaError_t device_array_locate(device_array *array);

/* DLPack: asks the producer for the tensor, with its pending work ordered before `stream`, a
 * stream of array->device (the current device; cudaStreamLegacy is DLPack's 1), and reads it. Nothing to do for a CUDA Array
 * Interface. Returns 0, or -1 with an exception set. */
int device_array_import(PyObject *obj, device_array *array, cudaStream_t stream);

/* Whether the kernels can read the array where it is (C-contiguous, each element aligned): 0; or
 * else the unit, in bytes, of the device-side copy into C order that it needs (cured_gather). */
int device_array_copy_unit(const device_array *array, int item_size);

/* -1 with ValueError set where obj is a JAX array that was deleted (or donated), which neither of
 * JAX's exports says; 0 for any other object; -1 with an exception set where asking failed. For
 * objects without a CUDA Array Interface (a JAX array has one until it is deleted). */
int refuse_deleted_jax_array(PyObject *obj);

/* Whether any of cured's readers would refuse obj as one it cannot read from memory as it is: a
 * PyTorch tensor with its negative bit set, a nested tensor, or a deleted JAX array (-1 with
 * ValueError or TypeError set, as device_array_find would raise); 0 for any other object; -1 with
 * an exception set where asking failed. For numpy_sum.py's own reading of an array. */
int refuse_unreadable_array(PyObject *obj);

/* Tests: whether PyTorch tensors may be read through PyTorch's DLPack exchange API where it has one
 * (1, the default) or from their attributes (0), and how many have been read through it. */
void interop_set_test_torch_exchange(int allowed);
long long interop_torch_exchange_reads(void);

/* Gives back what device_array_find and device_array_import took (the DLPack tensor, the dtype). */
void device_array_release(device_array *array);

#endif
