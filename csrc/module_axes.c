/* module_axes.c: _cured.sum_axes, a sum along axes of a host array (on the CPU with the GPU's
 * bits, or copied to the GPU) or of a device array on its own GPU (the default version's axis
 * kernels, CUB's segmented rows, or V10's exact rows), into NumPy results or a device out=. */
#include "module.h"

#include <string.h>

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
    host_layout_of(array, &layout);
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

PyObject *sum_axes_run(PyObject *module, PyObject *input, const axes_arg *axes, PyArray_Descr *acc_descr,
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
        if (locate_device_array(module, &array) < 0 || (has_out && locate_device_array(module, &out) < 0)) {
            Py_DECREF(acc_out);
            goto done;
        }
        if (has_out && out.device != array.device) {
            Py_DECREF(acc_out);
            PyErr_Format(PyExc_ValueError, "cured.sum: out= is on GPU %d but the input is on GPU %d", out.device,
                         array.device);
            goto done;
        }
        if (enter_device(module, array.device, &previous, "cudaSetDevice (the array's device)") < 0) {
            Py_DECREF(acc_out);
            goto done;
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
    if (leave_device(module, array.device, previous, result != NULL ? 0 : -1) < 0) Py_CLEAR(result);
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

PyMethodDef module_axes_methods[] = {
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
    {NULL, NULL, 0, NULL},
};
