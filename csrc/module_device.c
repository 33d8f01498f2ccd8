/* module_device.c: the device, measured and asked: bench (whole reductions timed with CUDA
 * events), the floor of a call's wall time, and the device's count, name, properties and memory pool. */
#include "module.h"

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
    if (prepare_host(input, 0, version_obj, NULL, 1, 0, &args) < 0) goto done;
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

PyMethodDef module_device_methods[] = {
    {"bench", (PyCFunction)(void (*)(void))py_bench, METH_VARARGS | METH_KEYWORDS,
     "bench(a, version, repeats, warmup, min_bytes)\n--\n\n"
     "Times `repeats` whole reductions of `a` (after `warmup`) with CUDA events, rotating among copies of "
     "`a` covering at least `min_bytes` of device memory. Returns {'seconds': [...], 'buffers', 'value', "
     "'workspace_bytes'}. cured.bench is the documented entry point."},
    {"floor", py_floor, METH_VARARGS,
     "floor(repeats)\n--\n\n"
     "The floor of a call's wall time on the current device: `repeats` times, one minimal kernel writing one "
     "value into pinned host memory and the wait for it, polled as a sum's is. Returns each one's seconds (host "
     "clock)."},
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
