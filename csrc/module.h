/* module.h: what the files of cured._cured's Python face share: the module's state and its
 * CudaError, NumPy's dtypes as cured's, a sum's checked arguments, and each file's functions for the
 * module's table. module.c makes the module; module_args.c reads arguments and host arrays;
 * module_sum.c sums every element; module_axes.c sums along axes; module_numpy_sum.c takes
 * numpy.sum's signature; module_exact.c rounds exact states; module_device.c times and queries the
 * device; module_hooks.c has the tests' and tuning's settings. */
#ifndef CURED_MODULE_H
#define CURED_MODULE_H

#include "interop.h"

#include "axis.h"
#include "exact.h"
#include "gpu_internal.h"

/* ---- the module ------------------------------------------------------------------------------ */

typedef struct {
    PyObject *cuda_error; /* cured.CudaError */
    PyObject *python_sum; /* cured.numpy_sum._python_sum: the calls numpy_sum leaves to Python */
    PyObject *no_value;   /* cured.numpy_sum._NO_VALUE: initial= not given */
    long default_version; /* cured.DEFAULT_VERSION: the version that sums along axes */
    PyObject *shape_name;     /* "shape", interned: a device array's extents (device_axes_route) */
    PyObject *interface_name; /* "__cuda_array_interface__", interned: a bare interface's (the same) */
} module_state;

static inline module_state *state_of(PyObject *module) { return (module_state *)PyModule_GetState(module); }

/* Raises the Python exception for a failed CUDA call: MemoryError when the device is out of memory,
 * cured.CudaError (with the CUDA error code in .code) otherwise. Returns NULL. */
PyObject *raise_cuda(PyObject *module, cured_cuda_status status);

/* Runs a CUDA query unless one has failed already; records the failure, named `what`, in `status`. */
#define CURED_QUERY(status, what, expr)                                                            \
    if ((status).code == cudaSuccess && ((status).code = (expr)) != cudaSuccess) (status).call = (what)

/* Each file's functions, which module_exec adds to the module. */
extern PyMethodDef module_sum_methods[], module_axes_methods[], module_numpy_sum_methods[], module_exact_methods[],
    module_device_methods[], module_hooks_methods[];

/* ---- dtypes (module_args.c) ------------------------------------------------------------------ */

/* The cured_dtype of a NumPy dtype, or -1 with TypeError set. */
int dtype_of(PyArray_Descr *descr);

/* The NumPy type number of a cured dtype. */
int npy_type_of(cured_dtype dtype);

/* Resolves the accumulator and the result's dtype for summing `in` with dtype= `requested` (NULL
 * for none), as numpy.sum does. With `wrap` (else NULL), dtype= may also be an integer of 1 to 4
 * bytes, which NumPy sums in, wrapping: the accumulator is then the 64-bit integer of its kind and
 * *wrap that dtype (elsewhere *result); or bool for bool input, NumPy's "or": the count of true
 * elements in int64, *wrap bool (not zero). Returns 0, or -1 with TypeError set. */
int resolve_acc(cured_dtype in, PyArray_Descr *requested, cured_acc *acc, cured_dtype *result, cured_dtype *wrap);

/* ---- a sum's arguments (module_args.c) ------------------------------------------------------- */

/* What a call to sum or bench is about, once its arguments are checked. */
typedef struct {
    PyArrayObject *array;     /* host input: C-contiguous, aligned, native byte order; owned */
    const cured_version *version; /* NULL: CUB */
    cured_dtype in_dtype, result_dtype;
    cured_acc acc;
    cured_dtype scalar_dtype; /* the returned scalar's: result_dtype, or a dtype= of int8 to uint32
                                 that the 64-bit integer sum wraps into, as NumPy's sum in it, or
                                 bool (of bool input: the count not zero, NumPy's "or") */
    int resolved;             /* in_dtype, acc and result_dtype are set */
    int state;                /* return V10's exact state (bytes), not the sum */
} sum_args;

/* What the plan's result is (cured_plan.result): the state, or the result dtype, to which an exact
 * version rounds once (float16 input rounds to float16, not to float32 and then again). */
static inline cured_dtype plan_result(const sum_args *args) { return args->state ? CURED_EXACT_STATE : args->result_dtype; }

static inline void sum_args_clear(sum_args *args) { Py_CLEAR(args->array); }

/* The 8 bytes of an accumulator, or V10's state. */
typedef union {
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    cured_exact_state state;
} acc_value;

/* The version named by `version_obj`: an int from the registry, or "cub" (version NULL) where
 * allowed. Returns 0, or -1 with TypeError/ValueError set. */
int parse_version(PyObject *version_obj, int allow_cub, const cured_version **version);

/* The input dtype, accumulator and result dtype of a sum of elements of `descr`, with dtype=
 * `requested` (NULL: none), by args->version. Returns 0, or -1 with TypeError set. */
int resolve_dtypes(PyArray_Descr *descr, PyArray_Descr *requested, sum_args *args);

/* A host array from `input`: NumPy's conversion, or numpy.from_dlpack for a DLPack array in host
 * memory that is not an ndarray. A new reference, or NULL with an exception set. */
PyArrayObject *host_array(PyObject *input, int is_dlpack);

/* A host array's extents and strides (at most CURED_MAX_DIMS dimensions). */
void host_layout_of(PyArrayObject *array, cured_layout *layout);

/* The bytes [*first, *end) that `n` elements of `item` bytes laid out as `layout` from `data` lie in
 * (an empty span for no element). */
void span_of(const void *data, const cured_layout *layout, int64_t n, int item, uintptr_t *first, uintptr_t *end);

/* `array` as a C-contiguous, aligned array of `dtype`'s native type: itself where it is one; else a
 * copy, made by cpu_gather.c on the pool's threads with the GIL released where only the layout
 * differs (NumPy's copy of a transposed or Fortran-order array reads each element of a row from
 * another page, on one thread), else by NumPy (a byte swap). A new reference, or NULL with an
 * exception set. */
PyArrayObject *c_order(PyArrayObject *array, cured_dtype dtype);

/* The host input of a sum, its version and dtypes into *args. args->array is C-contiguous, aligned
 * and of the input dtype's native type, unless `keep_layout` and only its layout differs: then it
 * is the input itself, for a CPU sum that reads it in place (module_sum.c's strided_view), or for
 * c_order_args. Returns 0, or -1 with an exception set. */
int prepare_host(PyObject *input, int is_dlpack, PyObject *version_obj, PyArray_Descr *requested, int allow_cub,
                 int keep_layout, sum_args *args);

/* args->array, kept in its layout by prepare_host, replaced by its C-order copy. Returns 0, or -1
 * with an exception set. */
int c_order_args(sum_args *args);

/* A NumPy scalar of the result dtype from the accumulator's 8 bytes. */
PyObject *result_scalar(const sum_args *args, const void *value);

/* Where a found device array lies (CUDA Array Interface: a CUDA query). Returns 0, or -1 with an
 * exception set. */
int locate_device_array(PyObject *module, device_array *array);

/* Makes `device` current for a call's work, the caller's device into *previous for leave_device
 * (-1 where it could not be learnt). `what` names the cudaSetDevice call in an error. Returns 0, or
 * -1 with the exception set; leave_device is called either way. */
int enter_device(PyObject *module, int device, int *previous, const char *what);

/* Makes the caller's device current again after enter_device. `failed` is the call's outcome so
 * far (0 or -1): returned as it is, or -1 with cured.CudaError set where the switch back fails (an
 * error already set becomes that error's __context__). */
int leave_device(PyObject *module, int device, int previous, int failed);

/* Where a sum runs: device= "gpu", "cpu" or "auto". Returns the place, or -1 with ValueError set. */
enum { PLACE_GPU, PLACE_CPU, PLACE_AUTO };
int parse_place(const char *device);

/* device="auto" needs a GPU, as device="gpu" does, also where it would sum on the CPU: a call gives
 * the same answer, or the same error, whatever its input's size. Checked once a process. Returns
 * 0, or -1 with CudaError set. */
int check_a_gpu(PyObject *module);

/* ---- sums (module_sum.c, module_axes.c) ------------------------------------------------------ */

/* _cured.sum's work, its arguments parsed; `requested` is borrowed. */
PyObject *sum_call(PyObject *module, PyObject *input, PyObject *version_obj, PyArray_Descr *requested,
                   const char *device, int want_timing, PyObject *out_obj, int state, PyObject *initial_obj);

/* sum_axes' shape and reduce: the array's extents and which of them are summed. */
typedef struct {
    int ndim;
    int64_t shape[CURED_MAX_DIMS];
    int reduce[CURED_MAX_DIMS];
} axes_arg;

/* sum_axes' work, its arguments parsed (the descriptors borrowed). */
PyObject *sum_axes_run(PyObject *module, PyObject *input, const axes_arg *axes, PyArray_Descr *acc_descr,
                       const char *device, PyObject *out_obj, PyArray_Descr *result_descr, PyObject *initial_obj,
                       int cub, int exact, int model, PyObject *into);

#endif
