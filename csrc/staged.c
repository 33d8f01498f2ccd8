/* staged.c: the sum of host memory, with the copy to the GPU overlapped with the reduction.
 *
 * The input goes to the device in chunks. CUDA's copy engine reads pinned (page-locked) memory at
 * the bus's speed, but pageable memory, what NumPy allocates, only through the driver's own small
 * staging (9 to 10 GB/s on an H200 against 55 GB/s pinned). So host threads, "lanes", copy chunks
 * into pinned staging buffers of their own, several at once (one thread's memcpy reaches about 12
 * GB/s), and each lane then, on its own stream, copies its chunk to a device buffer and reduces it
 * there, while the other lanes copy theirs. A lane has two staging buffers and two device buffers,
 * so it copies its next chunk while the last one is still in flight.
 *
 * Chunks are whole units of the plan (cured_unit: a block's elements, or a tile), so each chunk's
 * partial sums, and then the sum, have the bits of the one-shot sum of the same version. The device
 * holds only the lanes' buffers, so an input larger than the GPU's memory is summed too. CUB, whose
 * reduction cannot be cut into pieces, gets its chunks copied into one whole device buffer and is
 * run once at the end.
 *
 * The pinned staging buffers are allocated on first use (pinning costs about 3 ms for 8 MiB) and kept
 * for the life of the process, like the device memory pool; one host-path sum at a time uses them
 * (the bus is the limit anyway). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exact.h"
#include "gpu_internal.h"

/* Defaults, measured on an H200 host (docs/host_path.md): 6 lanes of 4 MiB chunks. */
#define DEFAULT_LANES 6
#define DEFAULT_CHUNK_BYTES ((int64_t)4 << 20)
#define MAX_LANES 32

static _Atomic int lanes_setting = 0;
static _Atomic int64_t chunk_setting = 0;

void cured_set_staging(int lanes, int64_t chunk_bytes) {
    lanes_setting = lanes > 0 ? (lanes < MAX_LANES ? lanes : MAX_LANES) : 0;
    chunk_setting = chunk_bytes > 0 ? chunk_bytes : 0;
}

void cured_get_staging(int *lanes, int64_t *chunk_bytes) {
    int chosen = lanes_setting;
    if (chosen == 0) {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        chosen = cpus > 0 && cpus < DEFAULT_LANES ? (int)cpus : DEFAULT_LANES;
    }
    *lanes = chosen;
    *chunk_bytes = chunk_setting > 0 ? chunk_setting : DEFAULT_CHUNK_BYTES;
}

/* ---- the pinned staging buffers -------------------------------------------------------------- */

static pthread_mutex_t staging_lock = PTHREAD_MUTEX_INITIALIZER;
static void *staging[MAX_LANES][2];
static size_t staging_bytes[MAX_LANES][2];

/* With staging_lock held: staging buffer (lane, k) of at least `bytes`. Portable: any device's
 * copies may read it. */
static cudaError_t staging_buffer(int lane, int k, size_t bytes, void **buffer) {
    if (staging_bytes[lane][k] < bytes) {
        if (staging[lane][k] != NULL) {
            cudaError_t err = cudaFreeHost(staging[lane][k]);
            staging[lane][k] = NULL;
            staging_bytes[lane][k] = 0;
            if (err != cudaSuccess) return err;
        }
        cudaError_t err = cudaHostAlloc(&staging[lane][k], bytes, cudaHostAllocPortable);
        if (err != cudaSuccess) {
            staging[lane][k] = NULL;
            return err;
        }
        staging_bytes[lane][k] = bytes;
    }
    *buffer = staging[lane][k];
    return cudaSuccess;
}

void cured_staging_lock(int lock) {
    if (lock) pthread_mutex_lock(&staging_lock);
    else pthread_mutex_unlock(&staging_lock);
}

void cured_staging_forget(void) {
    /* In a forked child: the pinned buffers are the parent's context's; the child must not free them. */
    memset(staging, 0, sizeof staging);
    memset(staging_bytes, 0, sizeof staging_bytes);
}

/* ---- one sum --------------------------------------------------------------------------------- */

typedef struct staged_sum staged_sum;

typedef struct {
    staged_sum *sum;
    cudaStream_t stream;
    void *host[2];            /* pinned staging buffers */
    char *device[2];          /* device buffers for its chunks (unused in whole mode) */
    void *scratch;            /* V0's tree scratch for this lane's launches */
    cudaEvent_t copied[2];    /* host[k] may be written again */
    cudaEvent_t last_copy;    /* after the lane's latest copy (timing) */
    int chunks;               /* chunks this lane reduced */
    pthread_t thread;
    int has_thread;
} lane;

struct staged_sum {
    const cured_plan *plan;
    const char *in;
    size_t item;
    int64_t chunk;            /* elements a chunk */
    int64_t chunks;
    int device;
    int whole;                /* CUB: chunks are copied into one device buffer, `whole` */
    char *whole_input;
    void *out, *workspace;
    int timing;
    _Atomic int64_t next_chunk;
    _Atomic int failed;
    pthread_mutex_t status_lock;
    cured_cuda_status status; /* the first failure of any lane */
};

static void fail(staged_sum *sum, cured_cuda_status status) {
    pthread_mutex_lock(&sum->status_lock);
    if (sum->status.code == cudaSuccess) sum->status = status;
    pthread_mutex_unlock(&sum->status_lock);
    sum->failed = 1;
}

/* A lane's work: takes the next chunk until none is left, copies it into a free staging buffer,
 * then enqueues its copy to the device and its reduction on the lane's stream. */
static void run_lane(lane *l) {
    staged_sum *const sum = l->sum;
    const cured_plan *const plan = sum->plan;
    cured_cuda_status status = cured_ok;
    CURED_TRY("cudaSetDevice", cudaSetDevice(sum->device)); /* a new thread starts on device 0 */
    for (int turn = 0; !sum->failed; ++turn) {
        const int64_t k = atomic_fetch_add(&sum->next_chunk, 1);
        if (k >= sum->chunks) break;
        const int b = turn % 2;
        const int64_t first = k * sum->chunk;
        const int64_t count = plan->n - first < sum->chunk ? plan->n - first : sum->chunk;
        const size_t offset = (size_t)first * sum->item, bytes = (size_t)count * sum->item;
        if (turn >= 2) CURED_TRY("cudaEventSynchronize", cudaEventSynchronize(l->copied[b]));
        memcpy(l->host[b], sum->in + offset, bytes);
        char *const dst = sum->whole ? sum->whole_input + offset : l->device[b];
        CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(dst, l->host[b], bytes, cudaMemcpyHostToDevice, l->stream));
        CURED_TRY("cudaEventRecord", cudaEventRecord(l->copied[b], l->stream));
        if (sum->timing) CURED_TRY("cudaEventRecord", cudaEventRecord(l->last_copy, l->stream));
        if (!sum->whole)
            CURED_TRY_STEP(cured_plan_run_part(plan, dst, first, count, sum->out, sum->workspace, l->scratch, l->stream));
        ++l->chunks;
    }
done:
    if (status.code != cudaSuccess) fail(sum, status);
}

static void *lane_thread(void *arg) {
    run_lane((lane *)arg);
    return NULL;
}

cured_cuda_status cured_staged_plan(cured_plan *plan, const cured_version *version, cured_dtype in_dtype,
                                    cured_acc acc, int64_t n) {
    int lanes;
    int64_t chunk_bytes;
    cured_get_staging(&lanes, &chunk_bytes);
    const int64_t unit = version != NULL ? cured_unit(version, in_dtype, n) : 1;
    const int64_t per_chunk = chunk_bytes / cured_dtype_size(in_dtype) / unit * unit;
    return cured_plan_make(plan, version, in_dtype, acc, n, per_chunk > unit ? per_chunk : unit);
}

cured_cuda_status cured_staged_sum(const cured_plan *plan, const void *in, void *result, cured_timing *timing) {
    cured_cuda_status status = cured_ok;
    const size_t item = (size_t)cured_dtype_size(plan->in_dtype);
    const size_t result_bytes = cured_plan_result_bytes(plan);
    const int misalign = cured_test_misalign() % (int)item == 0 ? cured_test_misalign() : 0;
    int lanes_wanted;
    int64_t chunk_bytes_setting;
    cured_get_staging(&lanes_wanted, &chunk_bytes_setting);
    staged_sum sum = {.plan = plan, .in = (const char *)in, .item = item, .chunk = plan->part,
                      .chunks = plan->n > 0 ? cured_ceil_div(plan->n, plan->part) : 0,
                      .whole = plan->version == NULL, .timing = timing != NULL,
                      .status_lock = PTHREAD_MUTEX_INITIALIZER, .status = cured_ok};
    const int lanes = sum.chunks < lanes_wanted ? (int)(sum.chunks > 0 ? sum.chunks : 1) : lanes_wanted;
    const size_t chunk_bytes = (size_t)sum.chunk * item;
    const size_t slot_bytes = cured_align_up(chunk_bytes + (size_t)misalign);
    const size_t scratch_bytes = cured_align_up(plan->scratch_bytes);
    lane lane_of[MAX_LANES];
    memset(lane_of, 0, sizeof lane_of);
    cudaStream_t stream = NULL; /* lane 0's: the set-up, the finish and the result go there */
    cudaEvent_t ready = NULL, joined = NULL;
    cudaEvent_t events[3] = {NULL, NULL, NULL}; /* start, reduced, result copied */
    char *mem = NULL;
    int staging_held = 0;

    CURED_TRY("cudaGetDevice", cudaGetDevice(&sum.device));
    for (int w = 0; w < lanes; ++w) {
        lane *l = &lane_of[w];
        l->sum = &sum;
        CURED_TRY("cudaStreamCreate", cured_stream_take(&l->stream));
        for (int b = 0; b < 2; ++b)
            CURED_TRY("cudaEventCreate", cudaEventCreateWithFlags(&l->copied[b], cudaEventDisableTiming));
        if (timing != NULL) CURED_TRY("cudaEventCreate", cudaEventCreate(&l->last_copy));
    }
    stream = lane_of[0].stream;
    CURED_TRY("cudaEventCreate", cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CURED_TRY("cudaEventCreate", cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    if (timing != NULL)
        for (int k = 0; k < 3; ++k) CURED_TRY("cudaEventCreate", cudaEventCreate(&events[k]));

    /* Device memory, in one allocation: the result, the workspace, then each lane's two buffers and
     * scratch (or, for CUB, the whole input). */
    const size_t lane_bytes = 2 * slot_bytes + scratch_bytes;
    const size_t input_bytes = sum.whole ? cured_align_up((size_t)plan->n * item) : (size_t)lanes * lane_bytes;
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[0], stream));
    const size_t out_bytes = cured_align_up(result_bytes);
    CURED_TRY("cudaMallocAsync", cudaMallocAsync((void **)&mem, out_bytes + plan->workspace_bytes + input_bytes, stream));
    sum.out = mem;
    sum.workspace = mem + out_bytes;
    sum.whole_input = sum.workspace + plan->workspace_bytes;
    for (int w = 0; w < lanes && !sum.whole; ++w) {
        char *const base = sum.whole_input + (size_t)w * lane_bytes;
        lane_of[w].device[0] = base + misalign;
        lane_of[w].device[1] = base + slot_bytes + misalign;
        lane_of[w].scratch = scratch_bytes > 0 ? base + 2 * slot_bytes : NULL;
    }
    CURED_TRY_STEP(cured_plan_init_workspace(plan, sum.workspace, stream));
    CURED_TRY("cudaEventRecord", cudaEventRecord(ready, stream));
    for (int w = 1; w < lanes; ++w) CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(lane_of[w].stream, ready, 0));

    pthread_mutex_lock(&staging_lock);
    staging_held = 1;
    for (int w = 0; w < lanes; ++w)
        for (int b = 0; b < 2 && sum.chunks > 0; ++b)
            CURED_TRY("cudaHostAlloc (pinned staging)", staging_buffer(w, b, chunk_bytes, &lane_of[w].host[b]));

    /* Lane 0 runs on this thread; the others on threads of their own. Should a thread not start,
     * the lanes that did take its chunks. */
    for (int w = 1; w < lanes; ++w)
        lane_of[w].has_thread = pthread_create(&lane_of[w].thread, NULL, lane_thread, &lane_of[w]) == 0;
    run_lane(&lane_of[0]);
    for (int w = 1; w < lanes; ++w)
        if (lane_of[w].has_thread) pthread_join(lane_of[w].thread, NULL);
    CURED_TRY_STEP(sum.status);

    /* The finish waits for every lane's last reduction (or, for CUB, copy). */
    for (int w = 1; w < lanes; ++w) {
        CURED_TRY("cudaEventRecord", cudaEventRecord(joined, lane_of[w].stream));
        CURED_TRY("cudaStreamWaitEvent", cudaStreamWaitEvent(stream, joined, 0));
    }
    if (sum.whole) CURED_TRY_STEP(cured_plan_run(plan, sum.whole_input, sum.out, sum.workspace, stream));
    else CURED_TRY_STEP(cured_plan_finish(plan, sum.out, sum.workspace, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[1], stream));
    CURED_TRY("cudaMemcpyAsync", cudaMemcpyAsync(result, sum.out, result_bytes, cudaMemcpyDeviceToHost, stream));
    if (timing != NULL) CURED_TRY("cudaEventRecord", cudaEventRecord(events[2], stream));

done:
    /* Nothing may still run on the staging buffers or on device memory once they are given back:
     * every lane's stream is waited for, even after a failure. */
    for (int w = 0; w < lanes; ++w)
        if (lane_of[w].stream != NULL)
            cured_keep_first(&status, cudaStreamSynchronize(lane_of[w].stream), "cudaStreamSynchronize");
    if (staging_held) pthread_mutex_unlock(&staging_lock);
    if (mem != NULL) {
        cured_keep_first(&status, cudaFreeAsync(mem, stream), "cudaFreeAsync");
        cured_keep_first(&status, cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
    if (timing != NULL && status.code == cudaSuccess) {
        /* h2d: from the start to the end of the last lane's last copy; the rest, as cured.h says. */
        float copied_ms = 0.0f, reduced_ms, result_ms;
        for (int w = 0; w < lanes; ++w) {
            float ms;
            if (lane_of[w].chunks == 0) continue;
            cured_keep_first(&status, cudaEventElapsedTime(&ms, events[0], lane_of[w].last_copy), "cudaEventElapsedTime");
            if (ms > copied_ms) copied_ms = ms;
        }
        cured_keep_first(&status, cudaEventElapsedTime(&reduced_ms, events[0], events[1]), "cudaEventElapsedTime");
        cured_keep_first(&status, cudaEventElapsedTime(&result_ms, events[1], events[2]), "cudaEventElapsedTime");
        timing->h2d = copied_ms * 1e-3;
        timing->reduce = (reduced_ms > copied_ms ? reduced_ms - copied_ms : 0.0f) * 1e-3;
        timing->d2h = result_ms * 1e-3;
    }
    for (int k = 0; k < 3; ++k)
        if (events[k] != NULL) cured_keep_first(&status, cudaEventDestroy(events[k]), "cudaEventDestroy");
    if (ready != NULL) cured_keep_first(&status, cudaEventDestroy(ready), "cudaEventDestroy");
    if (joined != NULL) cured_keep_first(&status, cudaEventDestroy(joined), "cudaEventDestroy");
    for (int w = 0; w < lanes; ++w) {
        lane *l = &lane_of[w];
        for (int b = 0; b < 2; ++b)
            if (l->copied[b] != NULL) cured_keep_first(&status, cudaEventDestroy(l->copied[b]), "cudaEventDestroy");
        if (l->last_copy != NULL) cured_keep_first(&status, cudaEventDestroy(l->last_copy), "cudaEventDestroy");
        cured_stream_give(l->stream); /* idle: every lane's stream was synchronised above */
    }
    pthread_mutex_destroy(&sum.status_lock);
    return status;
}
