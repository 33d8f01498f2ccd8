/* module_sum.c: _cured.sum, a sum of every element of a host array (on the GPU through the
 * staging lanes, or on the CPU in the version's order) or of a device array on its own GPU (into a
 * NumPy scalar, or into a device out= without a host wait). */
#include "module.h"

#include <string.h>

#include "pool.h"

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
    host_layout_of(array, &layout);
    if (!cured_dtype_is_float(cured_acc_dtype(args->acc))) cured_layout_in_memory_order(&layout, &data);
    return cured_strided_of(data, &layout, cured_dtype_size(args->in_dtype), strided) &&
           (cpu || !cured_strided_rows_alias(strided));
}

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
 * dtype= of int8 to uint32 included: the store kernel wraps the 64-bit sum into it, NumPy's bits;
 * and bool for bool input: the count not zero).
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
    if (enter_device(module, array->device, &previous, "cudaSetDevice (the array's device)") < 0) goto done;
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
    return leave_device(module, array->device, previous, failed);
}

/* state=True asks for V10's state: only an exact version has one. Returns 0, or -1 with ValueError set. */
static int check_state_version(const sum_args *args) {
    if (!args->state || (args->version != NULL && args->version->tree == CURED_TREE_EXACT)) return 0;
    PyErr_SetString(PyExc_ValueError, "cured.sum: state=True needs the exact version (cured.fsum_state)");
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

PyObject *sum_call(PyObject *module, PyObject *input, PyObject *version_obj, PyArray_Descr *requested,
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
        if (locate_device_array(module, &array) < 0 || (has_out && locate_device_array(module, &out) < 0)) goto done;
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
        if (prepare_host(input, array.host_dlpack, version_obj, requested, on_gpu, 1, &args) < 0 ||
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
            int64_t start, end;
            Py_BEGIN_ALLOW_THREADS
            start = cured_now_ns();
            if (args.version->tree != CURED_TREE_WARPS)
                failed = cured_cpu_sum(args.version, args.in_dtype, args.acc, plan_result(&args), data, n, &value);
            else if (args.scalar_dtype != args.result_dtype && args.scalar_dtype != CURED_BOOL) /* order is free */
                failed = cured_cpu_wrapped_sum(args.in_dtype, cured_dtype_size(args.scalar_dtype), data, strided, n,
                                               &value.u64);
            else if (strided != NULL)
                failed = cured_cpu_tiles_sum_strided(args.version, args.in_dtype, args.acc, strided, n, &value);
            else
                failed = cured_cpu_tiles_sum(args.version, args.in_dtype, args.acc, data, n, &value);
            end = cured_now_ns();
            Py_END_ALLOW_THREADS
            if (failed) {
                PyErr_NoMemory();
                goto done;
            }
            timing.h2d = timing.d2h = 0.0;
            timing.reduce = 1e-9 * (double)(end - start);
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

/* Whether the device array `out` can take `values` whole: writable, of its dtype and number of
 * elements, C-contiguous and aligned. Returns 0, or -1 with TypeError or ValueError set. */
static int check_copy_target(const device_array *out, PyArrayObject *values) {
    if (out->read_only) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: out= is read-only");
        return -1;
    }
    if (!PyArray_EquivTypes(out->descr, PyArray_DESCR(values))) {
        PyErr_Format(PyExc_TypeError, "cured.sum: out= has dtype %S but the sum's result is %S (pass dtype=%S, or "
                     "an out= of dtype %S)", (PyObject *)out->descr, (PyObject *)PyArray_DESCR(values),
                     (PyObject *)out->descr, (PyObject *)PyArray_DESCR(values));
        return -1;
    }
    if (out->n != (int64_t)PyArray_SIZE(values)) {
        PyErr_Format(PyExc_ValueError, "cured.sum: out= has %lld elements but the result has %lld", (long long)out->n,
                     (long long)PyArray_SIZE(values));
        return -1;
    }
    if (device_array_copy_unit(out, (int)PyArray_ITEMSIZE(values)) != 0) {
        PyErr_SetString(PyExc_ValueError, "cured.sum: out= must be C-contiguous and aligned to its dtype");
        return -1;
    }
    return 0;
}

/* _cured.copy_into(out, values): a result computed on the host (values, a C-contiguous NumPy array)
 * into the device array out= of its dtype and number of elements, C-contiguous: queued on out's
 * producer stream (CUDA Array Interface 3; else the legacy default stream, which DLPack's producer
 * orders its work before), so after the work that makes out and before the work that follows. The
 * sums whose dtype= casts each element first, which NumPy's cast makes on the host (cured.sum's
 * Python layer), reach a device out= this way: the copy from pageable memory returns once the
 * bytes are staged. Returns out; with check_only, checks out= against values (an empty array of
 * the result's dtype and shape will do) before the sum is made, copies nothing and returns None. */
static PyObject *py_copy_into(PyObject *module, PyObject *args) {
    PyObject *out_obj, *result = NULL;
    PyArrayObject *values;
    int check_only = 0;
    if (!PyArg_ParseTuple(args, "OO!|p:copy_into", &out_obj, &PyArray_Type, &values, &check_only)) return NULL;
    device_array out;
    int previous = -1;
    cured_cuda_status status = {cudaSuccess, NULL};
    const int found = device_array_find(out_obj, &out);
    if (found <= 0) {
        if (found == 0)
            PyErr_Format(PyExc_TypeError, "cured.sum: out= must be a NumPy array or a device array (CUDA Array "
                         "Interface or DLPack), not %.100s", Py_TYPE(out_obj)->tp_name);
        goto done;
    }
    if (!PyArray_IS_C_CONTIGUOUS(values)) {
        PyErr_SetString(PyExc_ValueError, "copy_into: values must be C-contiguous");
        goto done;
    }
    /* A CUDA Array Interface says all before any CUDA call; DLPack once the tensor is imported. */
    if (!out.is_dlpack && check_copy_target(&out, values) < 0) goto done;
    if (locate_device_array(module, &out) < 0) goto done;
    if (enter_device(module, out.device, &previous, "cudaSetDevice (out's device)") < 0) goto done;
    const cudaStream_t stream = out.producer != NULL ? out.producer : cudaStreamLegacy;
    if (device_array_import(out_obj, &out, stream) < 0) goto done;
    if (out.is_dlpack && check_copy_target(&out, values) < 0) goto done;
    if (check_only) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (out.n > 0) {
        const void *host = PyArray_DATA(values);
        const size_t bytes = (size_t)(out.n * (int64_t)PyArray_ITEMSIZE(values));
        Py_BEGIN_ALLOW_THREADS
        status.code = cudaMemcpyAsync((void *)out.data, host, bytes, cudaMemcpyHostToDevice, stream);
        Py_END_ALLOW_THREADS
        if (status.code != cudaSuccess) {
            status.call = "cudaMemcpyAsync (the result into out=)";
            goto cuda_failed;
        }
    }
    result = Py_NewRef(out_obj);
    goto done;
cuda_failed:
    raise_cuda(module, status);
done:
    if (leave_device(module, out.device, previous, result != NULL ? 0 : -1) < 0) Py_CLEAR(result);
    device_array_release(&out); /* device_array_find cleared it first, whatever it returned */
    return result;
}

static PyObject *py_refuse_unreadable_array(PyObject *module, PyObject *obj) {
    (void)module;
    if (refuse_unreadable_array(obj) < 0) return NULL;
    Py_RETURN_NONE;
}

PyMethodDef module_sum_methods[] = {
    {"sum", (PyCFunction)(void (*)(void))py_sum, METH_VARARGS | METH_KEYWORDS,
     "sum(a, version, dtype=None, device='auto', timing=False, out=None, state=False, initial=None)\n--\n\n"
     "Sums every element of `a` (a host array, or a device array through the CUDA Array Interface "
     "or DLPack) with kernel `version` (or 'cub') on the GPU, or on the CPU in the version's order when "
     "device='cpu' (V9: vectorised on every CPU thread; the others: their order model), or where it is faster "
     "for host input when device='auto'. Returns a NumPy scalar, or (scalar, {'h2d', 'reduce', 'd2h' seconds, "
     "'device': where it ran}) with timing=True, or `out` (a one-element device array, written in stream order "
     "without a host wait), or with state=True (an exact version only) the exact state as bytes. cured.sum is the "
     "documented entry point."},
    {"copy_into", py_copy_into, METH_VARARGS,
     "copy_into(out, values, check_only=False)\n--\n\nCopies `values` (a C-contiguous NumPy array, a result made "
     "on the host) into the device array `out` of its dtype and number of elements, in out's stream order; returns "
     "out. With check_only, only checks out= (ValueError, TypeError) and returns None."},
    {"_refuse_unreadable_array", py_refuse_unreadable_array, METH_O,
     "_refuse_unreadable_array(obj)\n--\n\nRaises ValueError (TypeError) where obj is an array cured.sum's C entry "
     "refuses as unreadable from its memory: a PyTorch tensor with its negative bit set (a nested one), a deleted "
     "(or donated) JAX array; for numpy_sum.py's own reading of an array without a CUDA Array Interface."},
    {NULL, NULL, 0, NULL},
};
