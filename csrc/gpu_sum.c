/* gpu_sum.c: one whole reduction on the GPU, pass after pass, and the benchmark that times it.
 *
 * Device memory comes from the current device's default memory pool through the stream-ordered
 * allocator (cudaMallocAsync/cudaFreeAsync); cured_device_ready() raises the pool's release threshold
 * so that freed memory stays cached for the next call instead of going back to the driver. Each host
 * thread works on its own stream (cudaStreamPerThread), so calls from several threads do not
 * serialise on the legacy default stream. */
#include <stdint.h>
#include <stdlib.h>

#include "cured.h"

/* Runs a CUDA call; on failure records it, named `what`, in `status` and jumps to `done`. */
#define CURED_TRY(what, expr)                                                                      \
    do {                                                                                           \
        cudaError_t err_ = (expr);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            status.code = err_;                                                                    \
            status.call = (what);                                                                  \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* Records a failure in *status unless an earlier one is there already: the first is reported. */
static void keep_first(cured_cuda_status *status, cudaError_t err, const char *what) {
    if (err != cudaSuccess && status->code == cudaSuccess) {
        status->code = err;
        status->call = what;
    }
}

static const cured_cuda_status cured_ok = {cudaSuccess, NULL};

/* Device allocations are carved at this alignment: what cudaMalloc guarantees, and enough for any
 * vector load. */
#define CURED_ALIGN ((size_t)256)
static size_t align_up(size_t bytes) { return (bytes + CURED_ALIGN - 1) / CURED_ALIGN * CURED_ALIGN; }

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

/* ---- plans ----------------------------------------------------------------------------------- */

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static _Atomic int64_t grid_override = 0;
static _Atomic int input_misalign = 0;

void cured_set_test_launch(int64_t blocks, int misalign) {
    grid_override = blocks > 0 ? blocks : 0;
    input_misalign = misalign > 0 && misalign < 16 ? misalign : 0;
}

int64_t cured_tiles_grid(int64_t tiles, int64_t capacity) {
    const int64_t forced = grid_override;
    const int64_t blocks = forced > 0 ? forced : capacity > 0 ? capacity : 1;
    return blocks < tiles ? blocks : tiles;
}


/* A version's workspace: V0's scratch array for the first pass (the largest), then two buffers of
 * partial sums that the passes write in turn: pass 0 writes A (blocks of pass 0), pass 1 reads A
 * and writes B (blocks of pass 1), pass 2 reads B and writes A, and so on; the last pass writes
 * the result. */
typedef struct {
    size_t scratch, partials_a, partials_b; /* byte offsets into the workspace */
    size_t bytes;
} version_layout;

static version_layout layout_of(const cured_version *v, cured_acc acc, int64_t n) {
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(acc));
    const int64_t per_block = cured_elements_per_block(v);
    const int64_t blocks0 = n > 0 ? ceil_div(n, per_block) : 0;
    const int64_t blocks1 = ceil_div(blocks0, per_block);
    version_layout layout;
    layout.scratch = 0;
    layout.partials_a = v->tree_in_global ? align_up((size_t)blocks0 * (size_t)v->threads * acc_size) : 0;
    layout.partials_b = layout.partials_a + align_up((size_t)blocks0 * acc_size);
    layout.bytes = layout.partials_b + align_up((size_t)blocks1 * acc_size);
    return layout;
}

cured_cuda_status cured_plan_make(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                  cured_acc acc, int64_t n) {
    cured_cuda_status status = cured_device_ready(); /* CUB's size query, and every run, need the device */
    if (status.code != cudaSuccess) return status;
    plan->version = version;
    plan->in_dtype = in_dtype;
    plan->acc = acc;
    plan->n = n;
    plan->workspace_bytes = 0;
    if (version != NULL) {
        if (version->launchers->fn[in_dtype][acc] == NULL) {
            status.code = cudaErrorNotSupported; /* callers check the pair first; never launch NULL */
            status.call = "the launch table (no kernel for this dtype and accumulator)";
            return status;
        }
        if (version->schedule == CURED_TILES) {
            const cured_tiles t = cured_tiles_of(version->threads, version->per_thread, cured_dtype_size(in_dtype), n);
            plan->workspace_bytes = align_up(cured_tiles_workspace(t.tiles, cured_dtype_size(cured_acc_dtype(acc))));
        } else {
            plan->workspace_bytes = layout_of(version, acc, n).bytes;
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
        plan->workspace_bytes = align_up(temp_bytes);
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

cured_cuda_status cured_plan_run(const cured_plan *plan, const void *d_in, void *d_out, void *workspace,
                                 cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_version *v = plan->version;
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    if (plan->n == 0) { /* the sum of nothing is 0 in every accumulator */
        CURED_TRY("cudaMemsetAsync", cudaMemsetAsync(d_out, 0, acc_size, stream));
        goto done;
    }
    if (v == NULL) {
        size_t temp_bytes = plan->workspace_bytes;
        CURED_TRY("cub::DeviceReduce", cured_cub_reducers.fn[plan->in_dtype](workspace, &temp_bytes, d_in, plan->n,
                                                                            d_out, stream));
        goto done;
    }
    if (v->schedule == CURED_TILES) {
        CURED_TRY(v->symbol, v->launchers->fn[plan->in_dtype][plan->acc](d_in, d_out, plan->n, workspace, stream));
        goto done;
    }
    const version_layout layout = layout_of(v, plan->acc, plan->n);
    char *const base = (char *)workspace;
    void *const scratch = v->tree_in_global ? base + layout.scratch : NULL;
    const void *src = d_in;
    cured_dtype src_dtype = plan->in_dtype;
    /* Each pass reduces `count` values to one partial sum a block; passes after the first read the
     * accumulators of the pass before, until one value is left. */
    for (int64_t count = plan->n, pass = 0;; ++pass) {
        const int64_t blocks = ceil_div(count, cured_elements_per_block(v));
        void *dst = blocks == 1 ? d_out : base + (pass % 2 == 0 ? layout.partials_a : layout.partials_b);
        CURED_TRY(v->symbol, v->launchers->fn[src_dtype][plan->acc](src, dst, count, scratch, stream));
        if (blocks == 1) break;
        src = dst;
        src_dtype = cured_acc_dtype(plan->acc);
        count = blocks;
    }
done:
    return status;
}

/* ---- a sum from host memory ------------------------------------------------------------------ */

/* Device memory of one sum: the result, the workspace and the input, in one allocation. */
typedef struct {
    char *base;
    void *out, *workspace, *in;
} sum_buffers;

static cudaError_t sum_buffers_alloc(sum_buffers *b, const cured_plan *plan, size_t in_bytes, cudaStream_t stream) {
    const size_t out_bytes = CURED_ALIGN;
    cudaError_t err = cudaMallocAsync((void **)&b->base, out_bytes + plan->workspace_bytes + in_bytes, stream);
    if (err != cudaSuccess) {
        b->base = NULL;
        return err;
    }
    b->out = b->base;
    b->workspace = b->base + out_bytes;
    b->in = b->base + out_bytes + plan->workspace_bytes;
    return cudaSuccess;
}

cured_cuda_status cured_gpu_sum(const cured_plan *plan, const void *in, void *result, cured_timing *timing) {
    cured_cuda_status status = cured_ok;
    const cudaStream_t stream = cudaStreamPerThread;
    const size_t in_bytes = (size_t)plan->n * (size_t)cured_dtype_size(plan->in_dtype);
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    sum_buffers buffers = {NULL, NULL, NULL, NULL};
    cudaEvent_t events[4] = {NULL, NULL, NULL, NULL}; /* before H2D, after H2D, after reduce, after D2H */

    if (timing != NULL)
        for (int k = 0; k < 4; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));
    CURED_TRY("cudaMallocAsync", sum_buffers_alloc(&buffers, plan, align_up(in_bytes + 16), stream));
    if (input_misalign % cured_dtype_size(plan->in_dtype) == 0) /* elements stay naturally aligned */
        buffers.in = (char *)buffers.in + input_misalign;
    status = cured_plan_init_workspace(plan, buffers.workspace, stream);
    if (status.code != cudaSuccess) goto done;
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[0], stream));
    if (in_bytes > 0)
        CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(buffers.in, in, in_bytes, cudaMemcpyHostToDevice, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[1], stream));
    status = cured_plan_run(plan, buffers.in, buffers.out, buffers.workspace, stream);
    if (status.code != cudaSuccess) goto done;
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2], stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, buffers.out, acc_size, cudaMemcpyDeviceToHost, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[3], stream));

done:
    if (buffers.base != NULL) keep_first(&status, cudaFreeAsync(buffers.base, stream), "cudaFreeAsync");
    /* Wait even after a failure, so that nothing still runs on memory this call gave back. */
    keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (timing != NULL && status.code == cudaSuccess) {
        float ms[3];
        for (int k = 0; k < 3; ++k)
            keep_first(&status, cudaEventElapsedTime(&ms[k], events[k], events[k + 1]), "cudaEventElapsedTime");
        timing->h2d = ms[0] * 1e-3;
        timing->reduce = ms[1] * 1e-3;
        timing->d2h = ms[2] * 1e-3;
    }
    for (int k = 0; k < 4; ++k)
        if (events[k] != NULL) keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
    return status;
}

/* ---- the benchmark --------------------------------------------------------------------------- */

cured_cuda_status cured_gpu_bench(const cured_plan *plan, const void *in, int64_t min_bytes, int warmup,
                                  int repeats, double *seconds, int64_t *buffers, void *result) {
    cured_cuda_status status = cured_ok;
    const cudaStream_t stream = cudaStreamPerThread;
    const size_t in_bytes = (size_t)plan->n * (size_t)cured_dtype_size(plan->in_dtype);
    const size_t stride = align_up(in_bytes > 0 ? in_bytes : 1);
    const int64_t count = min_bytes > (int64_t)stride ? ceil_div(min_bytes, (int64_t)stride) : 1;
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    sum_buffers mem = {NULL, NULL, NULL, NULL};
    cudaEvent_t *events = NULL;
    *buffers = count;

    CURED_TRY("cudaMallocAsync", sum_buffers_alloc(&mem, plan, (size_t)count * stride, stream));
    /* One copy from the host, then doubling device-to-device copies: the buffers filled first are
     * long out of the L2 cache by the time the runs, which take them in order, reach them. */
    if (in_bytes > 0) {
        CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(mem.in, in, in_bytes, cudaMemcpyHostToDevice, stream));
        for (int64_t have = 1; have < count; have *= 2) {
            const int64_t copy = have < count - have ? have : count - have;
            CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync((char *)mem.in + (size_t)have * stride, mem.in,
                                                         (size_t)copy * stride, cudaMemcpyDeviceToDevice, stream));
        }
    }
    status = cured_plan_init_workspace(plan, mem.workspace, stream);
    if (status.code != cudaSuccess) goto done;
    events = (cudaEvent_t *)calloc(2 * (size_t)repeats, sizeof *events);
    if (events == NULL) {
        status.code = cudaErrorMemoryAllocation;
        status.call = "calloc (host memory for the events)";
        goto done;
    }
    for (int k = 0; k < 2 * repeats; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));
    for (int run = 0; run < warmup + repeats; ++run) {
        const void *input = (const char *)mem.in + (size_t)(run % count) * stride;
        const int timed = run - warmup;
        if (timed >= 0) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2 * timed], stream));
        status = cured_plan_run(plan, input, mem.out, mem.workspace, stream);
        if (status.code != cudaSuccess) goto done;
        if (timed >= 0) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2 * timed + 1], stream));
    }
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, mem.out, acc_size, cudaMemcpyDeviceToHost, stream));
    CURED_TRY("cudaStreamSynchronize", cudaStreamSynchronize(stream));
    for (int k = 0; k < repeats; ++k) {
        float ms;
        CURED_TRY("cudaEventElapsedTime", cudaEventElapsedTime(&ms, events[2 * k], events[2 * k + 1]));
        seconds[k] = ms * 1e-3;
    }

done:
    if (mem.base != NULL) keep_first(&status, cudaFreeAsync(mem.base, stream), "cudaFreeAsync");
    keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (events != NULL) {
        for (int k = 0; k < 2 * repeats; ++k)
            if (events[k] != NULL) keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
        free(events);
    }
    return status;
}
