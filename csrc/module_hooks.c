/* module_hooks.c: settings for tests and tuning (forced grids and misalignment, launch paths, PyTorch's reader,
 * shared memory and bandwidth as another GPU's, the CPU sum's threads, the host path's staging and its trace),
 * failure injection and what is alive, the scalar order model, and the C-order copy. */
#include <string.h>

#include "module.h"

#include "pool.h"

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

static PyObject *py_set_test_torch_exchange(PyObject *module, PyObject *args) {
    int allowed;
    (void)module;
    if (!PyArg_ParseTuple(args, "p:_set_test_torch_exchange", &allowed)) return NULL;
    interop_set_test_torch_exchange(allowed);
    Py_RETURN_NONE;
}

static PyObject *py_torch_exchange_reads(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromLongLong(interop_torch_exchange_reads());
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
    int threads, plain, gather = 0;
    long long range_bytes = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "ip|Lp:_set_cpu_tiles", &threads, &plain, &range_bytes, &gather)) return NULL;
    if (threads < 0 || range_bytes < 0)
        return PyErr_Format(PyExc_ValueError, "_set_cpu_tiles: threads and range_bytes must be >= 0 (0: by size)");
    cured_set_cpu_tiles(threads, plain, (int64_t)range_bytes, gather);
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
    if (prepare_host(input, 0, version_obj, requested, 0, 0, &args) < 0) goto done;
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
    int error, every = 0;
    (void)module;
    if (!PyArg_ParseTuple(args, "Li|p:_fault", &k, &error, &every)) return NULL;
    if (k < 0 || error <= 0) return PyErr_Format(PyExc_ValueError, "_fault: k >= 0 and a CUDA error code > 0");
    cured_fault_arm(k, (cudaError_t)error, every);
    Py_RETURN_NONE;
}

static PyObject *py_fault_host(PyObject *module, PyObject *args) {
    long long k;
    (void)module;
    if (!PyArg_ParseTuple(args, "L:_fault_host", &k)) return NULL;
    if (k < 0) return PyErr_Format(PyExc_ValueError, "_fault_host: k >= 0");
    cured_host_fault_arm(k);
    Py_RETURN_NONE;
}

static PyObject *py_fault_state(PyObject *module, PyObject *unused) {
    int64_t calls, host_calls;
    int fired, host_fired;
    (void)module;
    (void)unused;
    cured_fault_state(&calls, &fired);
    cured_host_fault_state(&host_calls, &host_fired);
    return Py_BuildValue("{s:L,s:O,s:L,s:O,s:L,s:L,s:L,s:L,s:i}", "calls", (long long)calls, "fired",
                         fired ? Py_True : Py_False, "host_calls", (long long)host_calls, "host_fired",
                         host_fired ? Py_True : Py_False, "streams", (long long)cured_live.streams, "events",
                         (long long)cured_live.events, "pinned", (long long)cured_live.pinned, "device",
                         (long long)cured_live.device, "pool_threads", cured_pool_threads());
}

/* The staging modes' names, in the order of cured_staging_mode. */
static const char *const staging_modes[] = {"copied", "direct", "fed"};

static PyObject *py_set_staging(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"lanes", "chunk_bytes", "ramp", "fetch_min_bytes", "mode", NULL};
    int lanes, ramp = 1, mode = -1;
    long long chunk_bytes, fetch_min_bytes = 0;
    const char *mode_name = NULL;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iL|pLz:_set_staging", keywords, &lanes, &chunk_bytes, &ramp,
                                     &fetch_min_bytes, &mode_name))
        return NULL;
    if (lanes < 0 || chunk_bytes < 0 || fetch_min_bytes < 0)
        return PyErr_Format(PyExc_ValueError,
                            "_set_staging: lanes, chunk_bytes and fetch_min_bytes must be >= 0 (0: the default)");
    for (int m = 0; mode_name != NULL && m < (int)(sizeof staging_modes / sizeof *staging_modes); ++m)
        if (strcmp(mode_name, staging_modes[m]) == 0) mode = m;
    if (mode_name != NULL && mode < 0)
        return PyErr_Format(PyExc_ValueError, "_set_staging: mode must be 'copied', 'direct', 'fed' or None, not '%s'",
                            mode_name);
    cured_set_staging(lanes, chunk_bytes, ramp, fetch_min_bytes, mode);
    Py_RETURN_NONE;
}

static PyObject *py_staging(PyObject *module, PyObject *unused) {
    cured_staging s;
    (void)module;
    (void)unused;
    cured_get_staging(&s);
    return Py_BuildValue("{s:i,s:L,s:L,s:O,s:L,s:s}", "lanes", s.lanes, "chunk_bytes", (long long)s.chunk_bytes,
                         "fed_chunk_bytes", (long long)s.fed_chunk_bytes, "ramp", s.ramp ? Py_True : Py_False,
                         "fetch_min_bytes", (long long)s.fetch_min_bytes, "mode", staging_modes[s.mode]);
}

static PyObject *py_chunk_spans(PyObject *module, PyObject *args) {
    long long n, chunk, unit;
    int lanes, ramp;
    (void)module;
    if (!PyArg_ParseTuple(args, "LLLii:_chunk_spans", &n, &chunk, &unit, &lanes, &ramp)) return NULL;
    if (n < 0 || unit < 1 || chunk < unit || chunk % unit != 0 || lanes < 1 || lanes > CURED_MAX_LANES ||
        ramp < CURED_RAMP_NONE || ramp > CURED_RAMP_BOTH)
        return PyErr_Format(PyExc_ValueError, "_chunk_spans: needs n >= 0, unit >= 1, chunk a multiple of unit, "
                                              "1 <= lanes <= %d and ramp 0, 1 or 2",
                            CURED_MAX_LANES);
    cured_chunks chunks;
    cured_chunks_make(&chunks, n, n > 0 && n < chunk ? n : chunk, chunk, unit, lanes, (cured_ramp)ramp); /* as the sum's plan does */
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

static PyObject *py_set_feed_epoch(PyObject *module, PyObject *args) {
    long long epoch;
    (void)module;
    if (!PyArg_ParseTuple(args, "L:_set_feed_epoch", &epoch)) return NULL;
    if (epoch < 0 || epoch > 0xffffffffLL) return PyErr_Format(PyExc_ValueError, "_set_feed_epoch: needs 0 <= epoch < 2**32");
    cured_set_feed_epoch((uint32_t)epoch);
    Py_RETURN_NONE;
}

static PyObject *py_set_staging_trace(PyObject *module, PyObject *args) {
    int on;
    (void)module;
    if (!PyArg_ParseTuple(args, "p:_set_staging_trace", &on)) return NULL;
    cured_set_staging_trace(on);
    Py_RETURN_NONE;
}

static PyObject *py_staging_trace(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    cured_trace_row *rows = PyMem_Malloc(CURED_TRACE_CHUNKS * sizeof *rows);
    if (rows == NULL) return PyErr_NoMemory();
    cured_trace_times times;
    int64_t count;
    Py_BEGIN_ALLOW_THREADS /* the staging lock may be held by a sum in flight */
    count = cured_staging_trace(rows, &times);
    Py_END_ALLOW_THREADS
    PyObject *list = PyList_New(0);
    for (int64_t k = 0; list != NULL && k < count; ++k) {
        const cured_trace_row *r = &rows[k];
        PyObject *row = Py_BuildValue("{s:i,s:L,s:L,s:d,s:d,s:d,s:d,s:d}", "lane", r->lane, "chunk",
                                      (long long)r->chunk, "bytes", (long long)r->bytes, "took", r->took, "waited",
                                      r->waited, "staged", r->staged, "queued", r->queued, "copied", r->copied);
        if (row == NULL || PyList_Append(list, row) < 0) Py_CLEAR(list);
        Py_XDECREF(row);
    }
    PyMem_Free(rows);
    if (list == NULL) return NULL;
    return Py_BuildValue("{s:N,s:d,s:d,s:d}", "chunks", list, "lanes_start", times.at[CURED_TRACE_LANES_START],
                         "lanes_end", times.at[CURED_TRACE_LANES_END], "waited", times.at[CURED_TRACE_WAITED]);
}

PyMethodDef module_hooks_methods[] = {
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
    {"_set_test_torch_exchange", py_set_test_torch_exchange, METH_VARARGS,
     "_set_test_torch_exchange(allowed)\n--\n\nFor tests: read PyTorch's CUDA tensors through PyTorch's DLPack "
     "exchange API where it has one (True, the default), or from their attributes (False)."},
    {"_torch_exchange_reads", py_torch_exchange_reads, METH_NOARGS,
     "_torch_exchange_reads()\n--\n\nFor tests: the tensors read through PyTorch's DLPack exchange API so far."},
    {"_set_cpu_tiles", py_set_cpu_tiles, METH_VARARGS,
     "_set_cpu_tiles(threads, plain, range_bytes=0, gather=False)\n--\n\nFor tests: V9's CPU sum on `threads` "
     "threads (0: as the input's size warrants), with `plain` its portable C chains instead of the CPU's SIMD ones, "
     "a strided input gathered in ranges of about `range_bytes` (0: as its size asks), and with `gather` every "
     "strided float input of a sum of every element gathered, none read where it lies."},
    {"_c_order_copy", py_c_order_copy, METH_O,
     "_c_order_copy(a): the C-contiguous copy of host array a that cured's sums read (a itself where it is one)."},
    {"model_sum", (PyCFunction)(void (*)(void))py_model_sum, METH_VARARGS | METH_KEYWORDS,
     "model_sum(a, version, dtype=None)\n--\n\nThe scalar CPU order model of `version` on host array `a`: the "
     "reference the GPU kernels and the fast CPU path are tested against."},
    {"_fault", py_fault, METH_VARARGS,
     "_fault(k, error, every=False)\n--\n\nFor tests: the k-th CUDA runtime call or kernel launch of cured's host "
     "code from now on returns CUDA error `error` instead of running, once, or with `every` it and every one after "
     "it until the next _fault (k = 0: none); the count restarts either way."},
    {"_fault_host", py_fault_host, METH_VARARGS,
     "_fault_host(k)\n--\n\nFor tests: the k-th allocation of host memory by cured's C code for itself from now on "
     "(the CPU sums' partials, range buffers and intermediate sums; a call slot; the benchmark's events) finds none, "
     "once (k = 0: none); the count restarts either way."},
    {"_fault_state", py_fault_state, METH_NOARGS,
     "_fault_state()\n--\n\nFor tests: {'calls' counted since _fault, 'fired', 'host_calls' counted since "
     "_fault_host, 'host_fired', and what is alive: 'streams', 'events', 'pinned' and 'device' allocations (outside "
     "the memory pool), 'pool_threads'}."},
    {"_set_staging", (PyCFunction)(void (*)(void))py_set_staging, METH_VARARGS | METH_KEYWORDS,
     "_set_staging(lanes, chunk_bytes, ramp=True, fetch_min_bytes=0, mode=None)\n--\n\nFor tests and tuning: "
     "the host path's lanes (threads, each with its own staging buffers) and chunk size in bytes; with `ramp` the "
     "first chunks grow, one a lane; results along axes of fetch_min_bytes or more come back through the lanes; "
     "`mode`, how a chunk reaches the reduction: 'copied' (the copy engine copies it into device memory, and the "
     "lane launches the first stage there), 'direct' (the lane launches the first stage on its pinned staging "
     "buffer) or 'fed' (one kernel reads each chunk in its staging buffer as flags say it is there; V9 only, "
     "others 'direct'). 0 (mode: None) restores each default."},
    {"_set_staging_trace", py_set_staging_trace, METH_VARARGS,
     "_set_staging_trace(on)\n--\n\nFor probes: while on, each host-path sum with timing=True records its chunks "
     "(cured.h, cured_trace_row), which _staging_trace() returns."},
    {"_staging_trace", py_staging_trace, METH_NOARGS,
     "_staging_trace()\n--\n\nFor probes: the last traced host-path sum, {'chunks': [{'lane', 'chunk', 'bytes', "
     "'took', 'waited', 'staged', 'queued', 'copied'}, ...], 'lanes_start', 'lanes_end', 'waited'}: seconds from its "
     "first event, on the host's clock ('waited' of a chunk: a duration) and, for 'copied', the GPU's; no chunks "
     "where none was traced or the sum failed."},
    {"staging", py_staging, METH_NOARGS,
     "staging()\n--\n\nThe host path's settings: {'lanes', 'chunk_bytes' (the copied and direct modes'), "
     "'fed_chunk_bytes', 'ramp', 'fetch_min_bytes', 'mode'} (chunks are rounded to whole blocks or tiles of the "
     "version)."},
    {"_chunk_spans", py_chunk_spans, METH_VARARGS,
     "_chunk_spans(n, chunk, unit, lanes, ramp)\n--\n\nFor tests: the host path's chunks of n elements for "
     "`lanes` lanes as (first, count) pairs: chunks of `chunk` elements (the setting's, in elements), whole units "
     "of `unit`; `ramp` as cured_ramp (cured.h): 0 none, 1 growing ones first where the input is short (launched "
     "chunks), 2 growing ones first and shrinking ones last at any length (the fed kernel's)."},
    {"_set_feed_epoch", py_set_feed_epoch, METH_VARARGS,
     "_set_feed_epoch(epoch)\n--\n\nFor tests: the epoch the last fed host-path sum used (its flags carry it); the "
     "next sum uses epoch + 1, and 2**32 - 1 makes it wrap, which clears every flag first."},
    {NULL, NULL, 0, NULL},
};
