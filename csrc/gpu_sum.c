/* gpu_sum.c: one reduction on the GPU (plans: the workspace, the passes or tiles, the pieces), the
 * stream pool, the device's set-up (once a process, and what a fork does to it), and the benchmark.
 *
 * Device memory comes from the current device's default memory pool through the stream-ordered
 * allocator (cudaMallocAsync/cudaFreeAsync); cured_device_ready() raises the pool's release threshold
 * so that freed memory stays cached for the next call instead of going back to the driver. The host
 * path works on streams of its own (the pool below), the benchmark on cudaStreamPerThread, so calls
 * from several threads do not serialise; the sum of device memory runs on the stream its producer's
 * work is on (device_sum.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "pool.h"
#include "gpu_internal.h"

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

/* ---- the device, once a process ---------------------------------------------------------------- */

static _Atomic unsigned char device_is_ready[POOL_DEVICES];

/* fork(): a child cannot use its parent's CUDA context, and CUDA calls there fail (error 3,
 * initialisation error), which cured reports as CudaError. What cured keeps between calls (the
 * ready devices, pooled streams, call slots, pinned staging buffers) belongs to that context, so
 * the child forgets it rather than touch it, and the locks are held across the fork so that none
 * is inherited locked. */
static void before_fork(void) {
    cured_staging_lock(1);
    cured_slots_lock(1);
    pthread_mutex_lock(&pool_lock);
}

static void after_fork_in_parent(void) {
    pthread_mutex_unlock(&pool_lock);
    cured_slots_lock(0);
    cured_staging_lock(0);
}

static void after_fork_in_child(void) {
    memset(idle_count, 0, sizeof idle_count);
    for (int d = 0; d < POOL_DEVICES; ++d) device_is_ready[d] = 0;
    cured_slots_forget();
    cured_staging_forget();
    after_fork_in_parent();
}

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void) {
    /* The host path holds the staging lock while its lanes run as a pool job: the pool's handlers
     * first, so that fork() takes the staging lock before the pool's (prepare handlers run in the
     * reverse order of registration). */
    cured_pool_install_fork_handlers();
    (void)pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

cured_cuda_status cured_device_ready(int *current) {
    cured_cuda_status status = cured_ok;
    int device = -1;
    cudaMemPool_t pool;
    uint64_t keep_everything = UINT64_MAX;
    pthread_once(&fork_handlers_once, install_fork_handlers);
    if (cudaGetDevice(&device) == cudaSuccess && device < POOL_DEVICES && device_is_ready[device]) goto done;
    /* cudaFree(0) initialises the runtime's context and reports a missing device or driver. */
    CURED_TRY("cudaFree", cudaFree(0));
    CURED_TRY("cudaGetDevice", cudaGetDevice(&device));
    CURED_TRY("cudaDeviceGetDefaultMemPool", cudaDeviceGetDefaultMemPool(&pool, device));
    CURED_TRY("cudaMemPoolSetAttribute", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
    if (device < POOL_DEVICES) device_is_ready[device] = 1;
done:
    if (current != NULL) *current = device;
    return status;
}

cudaError_t cured_memory_peak_bandwidth(int device, int64_t *bytes_per_s) {
    int clock_khz = 0, bus_bits = 0;
    cudaError_t err = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
    *bytes_per_s = err == cudaSuccess ? 2 * (int64_t)clock_khz * 1000 * (bus_bits / 8) : 0;
    return err;
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

static _Atomic int64_t dynamic_shared_cap = 0;

void cured_set_test_dynamic_shared(int64_t bytes) { dynamic_shared_cap = bytes > 0 ? bytes : 0; }

int64_t cured_test_dynamic_shared(void) { return dynamic_shared_cap; }

static _Atomic int64_t memory_bandwidth_override = 0;

void cured_set_test_memory_bandwidth(int64_t bytes_per_s) {
    memory_bandwidth_override = bytes_per_s > 0 ? bytes_per_s : 0;
}

int64_t cured_test_memory_bandwidth(void) { return memory_bandwidth_override; }

static _Atomic int64_t cluster_launches = 0;

void cured_count_cluster_launch(void) { ++cluster_launches; }

int64_t cured_cluster_launches(void) { return cluster_launches; }

static _Atomic int driver_launch_allowed = 1;
static _Atomic int64_t driver_launches = 0;

void cured_set_test_driver_launch(int allowed) { driver_launch_allowed = allowed != 0; }

int cured_test_driver_launch(void) { return atomic_load_explicit(&driver_launch_allowed, memory_order_relaxed); }

void cured_count_driver_launch(void) { atomic_fetch_add_explicit(&driver_launches, 1, memory_order_relaxed); }

int64_t cured_driver_launches(void) { return driver_launches; }

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
    cured_cuda_status status = cured_device_ready(&plan->device); /* CUB's size query, and every run, need it */
    if (status.code != cudaSuccess) return status;
    plan->version = version;
    plan->in_dtype = in_dtype;
    plan->acc = acc;
    plan->result = cured_acc_dtype(acc);
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
                      CURED_LAUNCHED(cured_cub_reducers.fn[in_dtype](NULL, &temp_bytes, NULL, n, NULL, cudaStreamPerThread)));
        plan->workspace_bytes = cured_align_up(temp_bytes);
    }
done:
    return status;
}

cured_cuda_status cured_plan_init_workspace(const cured_plan *plan, void *workspace, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    if (plan->version != NULL && plan->version->schedule == CURED_TILES)
        CURED_TRY("cudaMemsetAsync", cudaMemsetAsync(workspace, 0, CURED_TILES_HEADER_BYTES, stream));
done:
    return status;
}

/* The sum of nothing, 0 in every accumulator (and an empty exact state), into *d_out. */
static cured_cuda_status write_zero(const cured_plan *plan, void *d_out, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaMemsetAsync", cudaMemsetAsync(d_out, 0, cured_plan_result_bytes(plan), stream));
done:
    return status;
}

cured_cuda_status cured_plan_run_part(const cured_plan *plan, const void *d_part, int64_t first, int64_t count,
                                      void *d_out, void *workspace, void *scratch, cudaStream_t stream) {
    cured_cuda_status status = cured_ok;
    const cured_version *v = plan->version;
    const cured_span span = {first, count, plan->n, plan->result};
    if (count == 0) return status;
    if (v->schedule == CURED_TILES) {
        CURED_TRY(v->symbol, CURED_LAUNCHED(v->launchers->fn[plan->in_dtype][plan->acc](d_part, d_out, span, workspace, stream)));
        goto done;
    }
    /* PASSES: the piece's blocks are blocks first / per_block, ... of the first pass. */
    const passes_layout layout = layout_of(v, plan->acc, plan->n, plan->part);
    const int64_t per_block = cured_elements_per_block(v);
    const size_t acc_size = (size_t)cured_dtype_size(cured_acc_dtype(plan->acc));
    char *const base = (char *)workspace;
    void *const dst = plan->n <= per_block ? d_out : base + layout.partials_a + (size_t)(first / per_block) * acc_size;
    if (scratch == NULL && v->tree_in_global) scratch = base + layout.scratch;
    CURED_TRY(v->symbol, CURED_LAUNCHED(v->launchers->fn[plan->in_dtype][plan->acc](d_part, dst, span, scratch, stream)));
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
        const cured_span span = {0, count, count, plan->result};
        CURED_TRY(v->symbol,
                  CURED_LAUNCHED(v->launchers->fn[cured_acc_dtype(plan->acc)][plan->acc](src, dst, span, scratch, stream)));
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
        CURED_TRY("cub::DeviceReduce", CURED_LAUNCHED(cured_cub_reducers.fn[plan->in_dtype](workspace, &temp_bytes, d_in,
                                                                                           plan->n, d_out, stream)));
        goto done;
    }
    CURED_TRY_STEP(cured_plan_run_part(plan, d_in, 0, plan->n, d_out, workspace, NULL, stream));
    CURED_TRY_STEP(cured_plan_finish(plan, d_out, workspace, stream));
done:
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
    events = (cudaEvent_t *)cured_host_calloc(2 * (size_t)repeats, sizeof *events);
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
