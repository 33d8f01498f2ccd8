/* gpu_sum.c: one reduction on the GPU (plans: the workspace, the passes or tiles, the pieces), the
 * sum of device memory, the stream pool, and the benchmark.
 *
 * Device memory comes from the current device's default memory pool through the stream-ordered
 * allocator (cudaMallocAsync/cudaFreeAsync); cured_device_ready() raises the pool's release threshold
 * so that freed memory stays cached for the next call instead of going back to the driver. Each call
 * works on streams of its own (the pool below, or cudaStreamPerThread for the benchmark), so calls
 * from several threads do not serialise on the legacy default stream. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu_internal.h"

cured_cuda_status cured_device_ready(void) {
    cured_cuda_status status = cured_ok;
    int device;
    cudaMemPool_t pool;
    uint64_t keep_everything = UINT64_MAX;
    /* cudaFree(0) initialises the runtime's context and reports a missing device or driver. */
    CURED_TRY("cudaFree", cudaFree(0));
    CURED_TRY("cudaGetDevice", cudaGetDevice(&device));
    CURED_TRY("cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
    CURED_TRY("cudaMemPoolSetAttribute", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
done:
    return status;
}

/* ---- the stream pool ------------------------------------------------------------------------- */

#define POOL_DEVICES 64
#define POOL_STREAMS 64

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cudaStream_t idle_streams[POOL_DEVICES][POOL_STREAMS];
static int idle_count[POOL_DEVICES];

cudaError_t cured_stream_take(cudaStream_t *stream) {
    int device;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    *stream = NULL;
    if (device < POOL_DEVICES) {
        pthread_mutex_lock(&pool_lock);
        if (idle_count[device] > 0) *stream = idle_streams[device][--idle_count[device]];
        pthread_mutex_unlock(&pool_lock);
    }
    return *stream != NULL ? cudaSuccess : cudaStreamCreateWithFlags(stream, cudaStreamNonBlocking);
}

void cured_stream_give(cudaStream_t stream) {
    int device, kept = 0;
    if (stream == NULL) return;
    if (cudaGetDevice(&device) == cudaSuccess && device < POOL_DEVICES) {
        pthread_mutex_lock(&pool_lock);
        if (idle_count[device] < POOL_STREAMS) {
            idle_streams[device][idle_count[device]++] = stream;
            kept = 1;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    if (!kept) (void)cudaStreamDestroy(stream); /* a failure here leaves nothing to undo */
}

/* ---- test hooks ------------------------------------------------------------------------------ */

static _Atomic int64_t grid_override = 0;
static _Atomic int input_misalign = 0;

void cured_set_test_launch(int64_t blocks, int misalign) {
    grid_override = blocks > 0 ? blocks : 0;
    input_misalign = misalign > 0 && misalign < 16 ? misalign : 0;
}

int cured_test_misalign(void) { return input_misalign; }

int64_t cured_test_grid(void) { return grid_override; }

int64_t cured_tiles_grid(int64_t tiles, int64_t wanted) {
    const int64_t forced = grid_override;
    const int64_t blocks = forced > 0 ? forced : wanted > 0 ? wanted : 1;
    return blocks < tiles ? blocks : tiles;
}

/* ---- plans ----------------------------------------------------------------------------------- */

/* A PASSES version's workspace: V0's scratch for the launches that use the workspace's own, then
 * two buffers of partial sums that the passes write in turn: pass 0 writes A (blocks of pass 0),
 * pass 1 reads A and writes B (blocks of pass 1), pass 2 reads B and writes A, and so on; the last
 * pass writes the result. */
typedef struct {
    size_t scratch, partials_a, partials_b; /* byte offsets into the workspace */
    size_t scratch_bytes, bytes;
} passes_layout;

static passes_layout layout_of(const cured_version *v, cured_acc acc, int64_t n, int64_t part) {
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(acc));
    const int64_t per_block = cured_elements_per_block(v);
    const int64_t blocks0 = n > 0 ? cured_ceil_div(n, per_block) : 0;
    const int64_t blocks1 = cured_ceil_div(blocks0, per_block);
    /* The largest launch is a piece of the input or the second pass. */
    const int64_t widest = cured_ceil_div(part > blocks0 ? part : blocks0, per_block);
    passes_layout layout;
    layout.scratch = 0;
    layout.scratch_bytes = v->tree_in_global ? cured_align_up((size_t)widest * (size_t)v->threads * acc_size) : 0;
    layout.partials_a = layout.scratch_bytes;
    layout.partials_b = layout.partials_a + cured_align_up((size_t)blocks0 * acc_size);
    layout.bytes = layout.partials_b + cured_align_up((size_t)blocks1 * acc_size);
    return layout;
}

cured_cuda_status cured_plan_make(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                  cured_acc acc, int64_t n, int64_t part) {
    cured_cuda_status status = cured_device_ready(); /* CUB's size query, and every run, need the device */
    if (status.code != cudaSuccess) return status;
    plan->version = version;
    plan->in_dtype = in_dtype;
    plan->acc = acc;
    plan->n = n;
    plan->part = part > 0 && part < n ? part : n;
    plan->workspace_bytes = 0;
    plan->scratch_bytes = 0;
    if (version != NULL) {
        if (version->launchers->fn[in_dtype][acc] == NULL) {
            status.code = cudaErrorNotSupported; /* callers check the pair first; never launch NULL */
            status.call = "the launch table (no kernel for this dtype and accumulator)";
            return status;
        }
        if (version->schedule == CURED_TILES) {
            const cured_tiles t = cured_tiles_of(version->threads, version->per_thread, cured_dtype_size(in_dtype), n);
            plan->workspace_bytes = cured_align_up(cured_tiles_workspace(t.tiles, cured_dtype_size(cured_acc_dtype(acc))));
        } else {
            const passes_layout layout = layout_of(version, acc, n, plan->part);
            plan->workspace_bytes = layout.bytes;
            plan->scratch_bytes = layout.scratch_bytes;
        }
    } else {
        if (acc != cured_default_acc(in_dtype)) {
            status.code = cudaErrorNotSupported;
            status.call = "CUB (NumPy's default accumulator only)";
            return status;
        }
        size_t temp_bytes = 0;
        if (n > 0)
            CURED_TRY("cub::DeviceReduce (temporary storage size)",
                      cured_cub_reducers.fn[in_dtype](NULL, &temp_bytes, NULL, n, NULL, cudaStreamPerThread));
        plan->workspace_bytes = cured_align_up(temp_bytes);
    }
done:
    return status;
}

cured_cuda_status cured_plan_init_workspace(const cured_plan *plan, void *workspace, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    if (plan->version != NULL && plan->version->schedule == CURED_TILES)
        CURED_TRY("cudaMemsetAsync", cudaMemsetAsync(workspace, 0, sizeof(unsigned), stream)); /* the ticket */
done:
    return status;
}

/* The sum of nothing, 0 in every accumulator, into *d_out. */
static cured_cuda_status write_zero(const cured_plan *plan, void *d_out, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaMemsetAsync", cudaMemsetAsync(d_out, 0, (size_t)cured_dtype_size(cured_acc_dtype(plan->acc)), stream));
done:
    return status;
}

cured_cuda_status cured_plan_run_part(const cured_plan *plan, const void *d_part, int64_t first, int64_t count,
                                      void *d_out, void *workspace, void *scratch, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_version *v = plan->version;
    const cured_span span = {first, count, plan->n};
    if (count == 0) return status;
    if (v->schedule == CURED_TILES) {
        CURED_TRY(v->symbol, v->launchers->fn[plan->in_dtype][plan->acc](d_part, d_out, span, workspace, stream));
        goto done;
    }
    /* PASSES: the piece's blocks are blocks first / per_block, ... of the first pass. */
    const passes_layout layout = layout_of(v, plan->acc, plan->n, plan->part);
    const int64_t per_block = cured_elements_per_block(v);
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    char *const base = (char *)workspace;
    void *const dst = plan->n <= per_block ? d_out : base + layout.partials_a + (size_t)(first / per_block) * acc_size;
    if (scratch == NULL && v->tree_in_global) scratch = base + layout.scratch;
    CURED_TRY(v->symbol, v->launchers->fn[plan->in_dtype][plan->acc](d_part, dst, span, scratch, stream));
done:
    return status;
}

cured_cuda_status cured_plan_finish(const cured_plan *plan, void *d_out, void *workspace, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_version *v = plan->version;
    if (plan->n == 0) return write_zero(plan, d_out, stream);
    if (v->schedule == CURED_TILES) goto done; /* the last block of the first stage combined the tiles */
    const passes_layout layout = layout_of(v, plan->acc, plan->n, plan->part);
    const int64_t per_block = cured_elements_per_block(v);
    char *const base = (char *)workspace;
    void *const scratch = v->tree_in_global ? base + layout.scratch : NULL;
    const void *src = base + layout.partials_a;
    /* Pass p reduces `count` partial sums of pass p - 1 to one a block, until one value is left. */
    for (int64_t count = cured_ceil_div(plan->n, per_block), pass = 1; count > 1; ++pass) {
        const int64_t blocks = cured_ceil_div(count, per_block);
        void *dst = blocks == 1 ? d_out : base + (pass % 2 == 0 ? layout.partials_a : layout.partials_b);
        const cured_span span = {0, count, count};
        CURED_TRY(v->symbol, v->launchers->fn[cured_acc_dtype(plan->acc)][plan->acc](src, dst, span, scratch, stream));
        src = dst;
        count = blocks;
    }
done:
    return status;
}

cured_cuda_status cured_plan_run(const cured_plan *plan, const void *d_in, void *d_out, void *workspace,
                                 cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    if (plan->version == NULL) {
        size_t temp_bytes = plan->workspace_bytes;
        if (plan->n == 0) return write_zero(plan, d_out, stream);
        CURED_TRY("cub::DeviceReduce", cured_cub_reducers.fn[plan->in_dtype](workspace, &temp_bytes, d_in, plan->n,
                                                                            d_out, stream));
        goto done;
    }
    CURED_TRY_STEP(cured_plan_run_part(plan, d_in, 0, plan->n, d_out, workspace, NULL, stream));
    CURED_TRY_STEP(cured_plan_finish(plan, d_out, workspace, stream));
done:
    return status;
}

/* ---- a sum of device memory ------------------------------------------------------------------ */

cured_cuda_status cured_device_sum(const cured_plan *plan, const void *d_in, const cured_layout *strided, int unit,
                                   cudaStream_t producer, cudaStream_t stream, void *result, cured_timing *timing) {
    cured_cuda_status status = cured_ok;
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    const size_t item = (size_t)cured_dtype_size(plan->in_dtype);
    const size_t copy_bytes = strided != NULL ? cured_align_up((size_t)plan->n * item) : 0;
    cudaEvent_t ready = NULL;
    cudaEvent_t events[3] = {NULL, NULL, NULL}; /* before the reduction, after it, after D2H */
    char *mem = NULL;                           /* the result, the workspace, then the C-order copy */

    if (producer != NULL) { /* the reduction waits for the producer's work, without blocking the host */
        CURED_TRY("cudaEventCreate", cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
        CURED_TRY("cudaEventRecord (on the array's stream)", cudaEventRecord(ready, producer));
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, ready, 0));
    }
    if (timing != NULL)
        for (int k = 0; k < 3; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));
    CURED_TRY("cudaMallocAsync", cudaMallocAsync((void **)&mem, CURED_ALIGN + plan->workspace_bytes + copy_bytes, stream));
    char *const out = mem, *const workspace = mem + CURED_ALIGN, *const copy = workspace + plan->workspace_bytes;
    CURED_TRY_STEP(cured_plan_init_workspace(plan, workspace, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[0], stream));
    if (strided != NULL) {
        CURED_TRY("cured_gather (a C-order copy of the strided array)",
                  cured_gather(d_in, copy, (int)item, unit, strided, stream));
        d_in = copy;
    }
    CURED_TRY_STEP(cured_plan_run(plan, d_in, out, workspace, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[1], stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, out, acc_size, cudaMemcpyDeviceToHost, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2], stream));

done:
    if (mem != NULL) cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
    /* Wait even after a failure, so that nothing still runs on memory this call gave back. */
    cured_keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (timing != NULL && status.code == cudaSuccess) {
        float ms[2];
        for (int k = 0; k < 2; ++k)
            cured_keep_first(&status, cudaEventElapsedTime(&ms[k], events[k], events[k + 1]), "cudaEventElapsedTime");
        timing->h2d = 0.0;
        timing->reduce = ms[0] * 1e-3;
        timing->d2h = ms[1] * 1e-3;
    }
    for (int k = 0; k < 3; ++k)
        if (events[k] != NULL) cured_keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
    if (ready != NULL) cured_keep_first(&status, cudaEventDestroy(ready), "cudaEventDestroy");
    return status;
}

/* ---- the benchmark --------------------------------------------------------------------------- */

cured_cuda_status cured_gpu_bench(const cured_plan *plan, const void *in, int64_t min_bytes, int warmup,
                                  int repeats, double *seconds, int64_t *buffers, void *result) {
    cured_cuda_status status = cured_ok;
    const cudaStream_t stream = cudaStreamPerThread;
    const size_t in_bytes = (size_t)plan->n * (size_t)cured_dtype_size(plan->in_dtype);
    const size_t stride = cured_align_up(in_bytes > 0 ? in_bytes : 1);
    const int64_t count = min_bytes > (int64_t)stride ? cured_ceil_div(min_bytes, (int64_t)stride) : 1;
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    char *mem = NULL; /* the result, the workspace, then `count` copies of the input */
    cudaEvent_t *events = NULL;
    *buffers = count;

    CURED_TRY("cudaMallocAsync",
              cudaMallocAsync((void **)&mem, CURED_ALIGN + plan->workspace_bytes + (size_t)count * stride, stream));
    char *const out = mem, *const workspace = mem + CURED_ALIGN, *const inputs = workspace + plan->workspace_bytes;
    /* One copy from the host, then doubling device-to-device copies: the buffers filled first are
     * long out of the L2 cache by the time the runs, which take them in order, reach them. */
    if (in_bytes > 0) {
        CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(inputs, in, in_bytes, cudaMemcpyHostToDevice, stream));
        for (int64_t have = 1; have < count; have *= 2) {
            const int64_t copy = have < count - have ? have : count - have;
            CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(inputs + (size_t)have * stride, inputs, (size_t)copy * stride,
                                                         cudaMemcpyDeviceToDevice, stream));
        }
    }
    CURED_TRY_STEP(cured_plan_init_workspace(plan, workspace, stream));
    events = (cudaEvent_t *)calloc(2 * (size_t)repeats, sizeof *events);
    if (events == NULL) {
        status.code = cudaErrorMemoryAllocation;
        status.call = "calloc (host memory for the events)";
        goto done;
    }
    for (int k = 0; k < 2 * repeats; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));
    for (int run = 0; run < warmup + repeats; ++run) {
        const void *input = inputs + (size_t)(run % count) * stride;
        const int timed = run - warmup;
        if (timed >= 0) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2 * timed], stream));
        CURED_TRY_STEP(cured_plan_run(plan, input, out, workspace, stream));
        if (timed >= 0) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2 * timed + 1], stream));
    }
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, out, acc_size, cudaMemcpyDeviceToHost, stream));
    CURED_TRY("cudaStreamSynchronize", cudaStreamSynchronize(stream));
    for (int k = 0; k < repeats; ++k) {
        float ms;
        CURED_TRY("cudaEventElapsedTime", cudaEventElapsedTime(&ms, events[2 * k], events[2 * k + 1]));
        seconds[k] = ms * 1e-3;
    }

done:
    if (mem != NULL) cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
    cured_keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (events != NULL) {
        for (int k = 0; k < 2 * repeats; ++k)
            if (events[k] != NULL) cured_keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
        free(events);
    }
    return status;
}
